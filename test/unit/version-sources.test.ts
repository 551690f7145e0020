/**
 * Version sources (src/targets/versions/): which labels each source serves, what a label resolves
 * to (exact versions too), the refusal of an unknown label listing every source's labels, and what
 * `chbench validate` prints. No engine is installed here: CHBENCH_ENGINES_DIR is an empty temp dir.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PYPI_BUILDS } from '../../src/engine/install';
import {
  binaryMapSource,
  imageTagSource,
  npmChdbSource,
  pypiChdbSource,
  resolveLabel,
  resolveMatrixVersions,
  serverUrlSource,
  versionSourcesOf,
} from '../../src/targets/versions';
import { resolveEmbedded } from '../../src/targets/embedded/provision';
import { checkSpec } from '../../src/targets/check-spec';
import { readSpecFile } from '../../src/lib/spec-file';
import { REPO_ROOT } from '../../src/config';

let dir: string;
const savedEnv = process.env.CHBENCH_ENGINES_DIR;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-sources-'));
  process.env.CHBENCH_ENGINES_DIR = dir;
});
after(() => {
  if (savedEnv === undefined) delete process.env.CHBENCH_ENGINES_DIR;
  else process.env.CHBENCH_ENGINES_DIR = savedEnv;
  fs.rmSync(dir, { recursive: true, force: true });
});

const spec = (target: Record<string, unknown>, version: string[]) => ({
  name: 'v',
  workload: 'logs',
  scale: 1000,
  target,
  matrix: { version, codec: ['LZ4'] },
});

test('the bundled npm engine serves 26.7, 26.7.2 and 26.7.2.1, nothing else', () => {
  assert.deepEqual(npmChdbSource.labels(), ['26.7', '26.7.2', '26.7.2.1']);
  for (const l of ['26.7', '26.7.2', '26.7.2.1']) assert.ok(npmChdbSource.canServe(l), l);
  for (const l of ['26', '26.8', '26.7.3', '26.7.2.1.0']) assert.ok(!npmChdbSource.canServe(l), l);
  const r = npmChdbSource.resolve('26.7');
  assert.equal(r.source, 'npm-chdb');
  assert.equal(r.clickhouse, '26.7.2.1');
  assert.match(r.artifact, /^npm chdb@3\.4\.\d+$/);
  assert.throws(() => npmChdbSource.resolve('24.8'), /"24\.8" is not served by npm-chdb .* 26\.7 \(26\.7\.2\.1\)/);
});

test('PyPI builds: a label names the build whose version() it prefixes, at least major.minor', () => {
  assert.deepEqual(pypiChdbSource.labels(), ['23.10', '24.8', '25.8', '26.1', '26.3', '26.5', '26.9']);
  for (const l of ['24.8', '24.8.4', '24.8.4.1']) {
    const r = pypiChdbSource.resolve(l);
    assert.equal(r.artifact, 'pypi chdb==3.1.2', l);
    assert.equal(r.clickhouse, '24.8.4.1');
    assert.equal(r.installed, null, 'nothing installed in the empty engines dir');
    assert.match(
      r.description,
      /^pypi chdb==3\.1\.2 → ClickHouse 24\.8\.4\.1, not installed \(installed on demand by provision/,
    );
  }
  assert.equal(pypiChdbSource.resolve('26.9').artifact, 'pypi chdb-core==26.9.0');
  assert.deepEqual(pypiChdbSource.resolve('23.10').limits, [...PYPI_BUILDS[0].limits]);
  // The article's 24.8.14.39 is not a build PyPI has (its 24.8 is 24.8.4.1); a bare major names none.
  for (const l of ['24.8.14.39', '24', '26', '26.7', '22.3']) assert.ok(!pypiChdbSource.canServe(l), l);
});

test('embedded engines auto: npm for 26.7, PyPI for the others; npm / pypi narrow it', () => {
  assert.equal(resolveEmbedded('26.7')?.source, 'npm-chdb');
  assert.equal(resolveEmbedded('26.7.2.1', 'auto')?.source, 'npm-chdb');
  assert.equal(resolveEmbedded('24.8')?.source, 'pypi-chdb');
  assert.equal(resolveEmbedded('24.8', 'npm'), undefined);
  assert.equal(resolveEmbedded('26.7', 'pypi'), undefined);
  assert.equal(resolveEmbedded('26.9', 'pypi')?.artifact, 'pypi chdb-core==26.9.0');
  assert.deepEqual(
    versionSourcesOf({ kind: 'embedded' }).map((s) => s.name),
    ['npm-chdb', 'pypi-chdb'],
  );
});

test('an unknown label is refused naming the labels every source of the target serves', () => {
  const r = resolveLabel({ kind: 'embedded' }, '25.3');
  assert.equal(r.ok, false);
  const p = !r.ok ? r.problem : '';
  assert.match(p, /^matrix\.version: version "25\.3" cannot be served by the embedded target \(engines: auto\)/);
  assert.match(p, /npm-chdb \(the bundled engine\) serves 26\.7 \(26\.7\.2\.1\)/);
  assert.match(
    p,
    /pypi-chdb serves 23\.10 \(23\.10\.1\.1\), 24\.8 \(24\.8\.4\.1\), 25\.8 \(25\.8\.2\.1\), 26\.1 \(26\.1\.2\.1\), 26\.3 \(26\.3\.9\.1\), 26\.5 \(26\.5\.1\.1\), 26\.9 \(26\.9\.2\.1\)/,
  );
  // The hint names the engines choice that would serve it.
  const n = resolveLabel({ kind: 'embedded', engines: 'npm' }, '24.8');
  assert.ok(!n.ok && /pypi chdb==3\.1\.2 serves it with engines auto or pypi/.test(n.problem));
  assert.ok(!n.ok && !n.problem.includes('pypi-chdb serves'), 'engines npm lists only the npm source');
  const q = resolveLabel({ kind: 'embedded', engines: 'pypi' }, '26.7');
  assert.ok(!q.ok && /bundled npm engine serves it with engines auto or npm/.test(q.problem));
});

test('the spec check refuses unknown embedded labels before anything is provisioned, one line each', () => {
  const problems = checkSpec(spec({ kind: 'embedded' }, ['24.8', '24.8.14.39', '26.7', '26'])).problems;
  assert.equal(problems.length, 2, problems.join('\n'));
  assert.match(problems[0], /"24\.8\.14\.39" cannot be served/);
  assert.match(problems[1], /"26" cannot be served.*at least major\.minor/);
  assert.deepEqual(checkSpec(spec({ kind: 'embedded', engines: 'pypi' }, ['23.10', '26.9.2.1'])).problems, []);
  assert.match(
    checkSpec(spec({ kind: 'embedded', engines: 'all' }, ['26.7'])).problems.join('\n'),
    /target\.engines|target/,
    "a bad engines value is the schema's refusal",
  );
  for (const f of ['versions.yaml', 'seed-versions.yaml', 'demo.yaml'])
    assert.deepEqual(
      checkSpec(readSpecFile(path.join(REPO_ROOT, 'examples', f))).problems.filter((l) =>
        l.startsWith('matrix.version'),
      ),
      [],
      f,
    );
});

test('local binaries, kubernetes images and external URLs as sources', () => {
  const b = binaryMapSource({ '18.16': '/usr/sbin/clickhouse-server' });
  assert.deepEqual(b.labels(), ['18.16']);
  assert.ok(b.canServe('18.16') && !b.canServe('18'));
  assert.equal(b.resolve('18.16').artifact, '/usr/sbin/clickhouse-server');
  assert.throws(() => b.resolve('24.8'), /target\.binaries serves 18\.16/);
  const i = imageTagSource({ '24.8': 'my/clickhouse:24.8-custom' });
  assert.equal(i.resolve('24.8').artifact, 'my/clickhouse:24.8-custom');
  assert.equal(i.resolve('26.3').artifact, 'clickhouse/clickhouse-server:26.3');
  assert.match(i.resolve('26.3').description, /default tag/);
  const u = serverUrlSource('http://127.0.0.1:8123');
  assert.ok(u.canServe('25.1'));
  assert.match(u.resolve('25.1').description, /version\(\) must match 25\.1/);
  const local = resolveMatrixVersions({ kind: 'local', binaries: { '18.16': '/x' } }, ['18.16', '24.8']);
  assert.equal(local[0].ok, true);
  assert.ok(
    !local[1].ok && /cannot be served by the local target: target\.binaries serves 18\.16/.test(local[1].problem),
  );
});

test('chbench validate prints what each matrix version resolves to (text and --versions --json)', () => {
  const file = path.join(dir, 'spec.json');
  fs.writeFileSync(file, JSON.stringify(spec({ kind: 'embedded' }, ['24.8', '26.7'])));
  const cli = (...args: string[]) =>
    spawnSync(process.execPath, [path.join(REPO_ROOT, 'dist', 'src', 'cli.js'), ...args], {
      env: { ...process.env, CHBENCH_ENGINES_DIR: dir },
      encoding: 'utf8',
    });
  const t = cli('validate', file);
  assert.equal(t.status, 0, t.stderr);
  assert.match(t.stdout, /version 24\.8 → pypi chdb==3\.1\.2 → ClickHouse 24\.8\.4\.1, not installed/);
  assert.match(t.stdout, /version 26\.7 → npm chdb@3\.4\.\d+ → ClickHouse 26\.7\.2\.1, bundled/);
  assert.match(t.stdout, /version 24\.8 → .*\n {6}cannot: no streaming \(results are buffered\); /);
  const j = cli('validate', '--versions', '--json', file);
  assert.equal(j.status, 0, j.stderr);
  const out = JSON.parse(j.stdout) as {
    versions: { label: string; source: string; clickhouse: string; installed?: unknown }[];
  };
  assert.deepEqual(
    out.versions.map((v) => [v.label, v.source, v.clickhouse, v.installed]),
    [
      ['24.8', 'pypi-chdb', '24.8.4.1', null],
      ['26.7', 'npm-chdb', '26.7.2.1', undefined],
    ],
  );
  // Plain --json stays the workflow input: the spec, nothing else.
  assert.deepEqual(Object.keys(JSON.parse(cli('validate', '--json', file).stdout)).includes('versions'), false);
  fs.writeFileSync(file, JSON.stringify(spec({ kind: 'embedded' }, ['25.3'])));
  const bad = cli('validate', file);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /"25\.3" cannot be served by the embedded target .*pypi-chdb serves 23\.10/);
});

test('docs/limits.md states every limit of every PyPI build', () => {
  const doc = fs.readFileSync(path.join(REPO_ROOT, 'docs', 'limits.md'), 'utf8');
  for (const b of PYPI_BUILDS) {
    const row = doc
      .split('\n')
      .find((l) => l.startsWith(`| ${b.clickhouse.split('.').slice(0, 2).join('.')} | \`${b.package}==${b.version}\``));
    assert.ok(row, `a row for ${b.package}==${b.version}`);
    for (const l of b.limits) assert.ok(row.includes(l), `${b.package}==${b.version}: "${l}" in\n${row}`);
    if (!b.limits.length) assert.match(row, /none known/);
  }
});

test('on the worker, a build to install needs a writable engines directory and a Python with venv', () => {
  const worker = (env: Record<string, string>) => {
    const saved = { ...process.env };
    Object.assign(process.env, env);
    try {
      return checkSpec(spec({ kind: 'embedded' }, ['26.7', '24.8']), { worker: true }).problems;
    } finally {
      for (const k of Object.keys(env)) if (saved[k] === undefined) delete process.env[k];
      Object.assign(process.env, saved);
    }
  };
  assert.deepEqual(worker({}), [], 'python3 with venv, a writable temp engines dir');
  const p = worker({ CHBENCH_ENGINES_PYTHON: '/nonexistent/python3' });
  assert.equal(p.length, 1, p.join('\n'));
  assert.match(
    p[0],
    /^target: version\(s\) 24\.8 need a PyPI engine install on this worker, but \/nonexistent\/python3 \(CHBENCH_ENGINES_PYTHON\) cannot create environments: .*ENOENT/,
  );
  const file = path.join(dir, 'a-file');
  fs.writeFileSync(file, '');
  const ro = worker({ CHBENCH_ENGINES_DIR: path.join(file, 'engines') });
  assert.ok(
    ro.some(
      (l) =>
        l.includes(`but ${file} (on the way to the engines directory`) && l.endsWith('is not a writable directory'),
    ),
    ro.join('\n'),
  );
  // Only the npm engine: nothing to install, nothing asked.
  assert.deepEqual(
    checkSpec(spec({ kind: 'embedded' }, ['26.7']), { worker: true }).problems.filter((l) => l.startsWith('target:')),
    [],
  );
});
