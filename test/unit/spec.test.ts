import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { availableParallelism } from 'node:os';
import { embeddedTarget } from '../../src/targets/embedded';
import { parseRunSpec, SpecError, runSpecJsonSchema } from '../../src/schema/run-spec';
import { cellKey, expandMatrix, wantsControl } from '../../src/schema/matrix';
import { checkSpec } from '../../src/targets/check-spec';
import { readSpecFile } from '../../src/lib/spec-file';
import { REPO_ROOT } from '../../src/config';

const base = () => ({
  name: 'demo',
  workload: 'logs',
  scale: 2_000_000,
  target: { kind: 'embedded' },
  matrix: { version: ['26.7'], codec: ['LZ4', 'ZSTD(3)'] },
});

function problems(input: unknown): string[] {
  return checkSpec(input, { worker: true }).problems;
}

test('the demo spec is valid and gets the documented defaults', () => {
  const s = parseRunSpec(readSpecFile(path.join(REPO_ROOT, 'examples', 'demo.yaml')));
  assert.equal(s.protocol.coldRuns, 3);
  assert.equal(s.protocol.warmRuns, 7);
  assert.equal(s.concurrency, 1);
  assert.equal(s.teardown, 'always');
  assert.deepEqual(expandMatrix(s).map(cellKey), ['v26.7-lz4', 'v26.7-zstd3']);
  // Two codecs compare: the A/A control cell (LZ4 again) is added.
  assert.deepEqual(expandMatrix(s, { control: wantsControl(s) }).map(cellKey), [
    'v26.7-lz4',
    'v26.7-zstd3',
    'v26.7-lz4-r2',
  ]);
  assert.deepEqual(checkSpec(readSpecFile(path.join(REPO_ROOT, 'examples', 'demo.yaml'))).problems, []);
});

test('an unknown key is refused, naming it', () => {
  const p = problems({ ...base(), protocl: {} });
  assert.ok(
    p.some((l) => /\(root\): unknown key\(s\) "protocl"/.test(l)),
    p.join('\n'),
  );
  const q = problems({ ...base(), protocol: { warmRun: 3 } });
  assert.ok(
    q.some((l) => /protocol: unknown key\(s\) "warmRun"/.test(l)),
    q.join('\n'),
  );
});

test('a codec that is not a codec expression names the field and what an expression looks like', () => {
  const p = problems({ ...base(), matrix: { version: ['26.7'], codec: ['ZSTD(3'] } });
  assert.ok(
    p.some(
      (l) => l.startsWith('matrix.codec.0:') && l.includes('a codec expression') && l.includes('"Delta, ZSTD(1)"'),
    ),
    p.join('\n'),
  );
  const q = problems({ ...base(), matrix: { version: ['26.7'], codec: [{ name: 'Bad Name', default: 'ZSTD(1)' }] } });
  assert.ok(
    q.some((l) => l.startsWith('matrix.codec.0.name:') && l.includes('lower-case')),
    q.join('\n'),
  );
});

test('an empty matrix is refused', () => {
  const p = problems({ ...base(), matrix: { version: [], codec: [] } });
  assert.ok(
    p.some((l) => l.startsWith('matrix.version:') && /at least one version/.test(l)),
    p.join('\n'),
  );
  assert.ok(
    p.some((l) => l.startsWith('matrix.codec:')),
    p.join('\n'),
  );
});

test('a version with no way to provision it is refused', () => {
  const p = problems({
    ...base(),
    target: { kind: 'local', binaries: { '18.16': '/usr/sbin/clickhouse-server' } },
    matrix: { version: ['24.8'], codec: ['LZ4'] },
  });
  assert.ok(
    p.some((l) => l.includes('matrix.version') && l.includes('"24.8"') && l.includes('18.16')),
    p.join('\n'),
  );
  const e = problems({ ...base(), matrix: { version: ['24.9'], codec: ['LZ4'] } });
  assert.ok(
    e.some(
      (l) => l.includes('"24.9" cannot be served by the embedded target') && l.includes('26.7') && l.includes('24.8'),
    ),
    e.join('\n'),
  );
});

test('a local binary that does not exist is refused before provisioning', () => {
  const p = problems({
    ...base(),
    target: { kind: 'local', binaries: { '24.8': '/nonexistent/clickhouse' } },
    matrix: { version: ['24.8'], codec: ['LZ4'] },
  });
  assert.ok(
    p.some((l) => l.startsWith('target.binaries.24.8:') && l.includes('/nonexistent/clickhouse')),
    p.join('\n'),
  );
});

test('every problem is reported in one pass, even when the schema already failed', () => {
  const p = problems({
    name: 'multi',
    workload: 'nosuch',
    scale: 0,
    target: { kind: 'local', binaries: { '24.8': '/nope' } },
    matrix: { version: ['25.1'], codec: ['ZSTD(3'] },
  });
  for (const field of ['scale:', 'matrix.codec.0:', 'matrix.version:', 'workload:'])
    assert.ok(
      p.some((l) => l.startsWith(field)),
      `${field} in\n${p.join('\n')}`,
    );
});

test('embedded version labels match an engine component by component, at least major.minor', () => {
  for (const v of ['2', '26'])
    assert.ok(
      problems({ ...base(), matrix: { version: [v], codec: ['LZ4'] } }).some(
        (l) => l.includes(`"${v}" cannot be served by the embedded target`) && l.includes('at least major.minor'),
      ),
    );
  assert.deepEqual(problems({ ...base(), matrix: { version: ['26.7.2.1'], codec: ['LZ4'] } }), []);
  assert.deepEqual(problems({ ...base(), matrix: { version: ['24.8.4'], codec: ['LZ4'] } }), []);
});

test('a results directory the worker cannot write is refused without touching it', () => {
  assert.ok(problems({ ...base(), resultsDir: '/proc/nope' }).some((l) => l.startsWith('resultsDir:')));
  assert.ok(problems({ ...base(), resultsDir: '/etc/hostname/x' }).some((l) => l.startsWith('resultsDir:')));
  assert.deepEqual(
    checkSpec({ ...base(), resultsDir: '/etc/hostname/x' }).problems,
    [],
    'the CLI (not the worker) does not judge whether the worker can write there',
  );
  // …but it refuses what no host should be given: a folder under /proc, and someone else's folder (/etc).
  assert.match(checkSpec({ ...base(), resultsDir: '/proc/nope' }).problems.join('\n'), /under \/proc, \/sys or \/dev/);
  assert.match(checkSpec({ ...base(), resultsDir: '/etc' }).problems.join('\n'), /is not a chbench results folder/);
});

test('scale <= 0 is refused', () => {
  for (const scale of [0, -5, 1.5]) {
    const p = problems({ ...base(), scale });
    assert.ok(
      p.some((l) => l.startsWith('scale:')),
      `${scale}: ${p.join('\n')}`,
    );
  }
});

test('unknown workload and unknown query id are refused with the allowed values', () => {
  const w = problems({ ...base(), workload: 'nope' });
  assert.ok(
    w.some((l) => l.startsWith('workload:') && l.includes('logs') && l.includes('logs-legacy')),
    w.join('\n'),
  );
  const q = problems({ ...base(), queries: ['q1', 'q9'] });
  assert.ok(
    q.some((l) => l.startsWith('queries:') && l.includes('q9') && l.includes('q1, q2, q3, q4, q5')),
    q.join('\n'),
  );
});

test('an unset password variable of an external target is refused; the spec never holds a password', () => {
  delete process.env.CHBENCH_TEST_NO_SUCH_VAR;
  const p = problems({
    ...base(),
    target: { kind: 'external', url: 'http://127.0.0.1:8123', passwordEnv: 'CHBENCH_TEST_NO_SUCH_VAR' },
    matrix: { version: ['26.3'], codec: ['LZ4'] },
  });
  assert.ok(
    p.some((l) => l.includes('CHBENCH_TEST_NO_SUCH_VAR')),
    p.join('\n'),
  );
  const q = problems({ ...base(), target: { kind: 'external', url: 'http://127.0.0.1:8123', password: 'secret' } });
  assert.ok(
    q.some((l) => /unknown key\(s\) "password"/.test(l)),
    q.join('\n'),
  );
});

test('parseRunSpec throws SpecError with one line per problem', () => {
  assert.throws(
    () => parseRunSpec({ ...base(), scale: 0, workload: 'Bad Name' }),
    (e: unknown) => e instanceof SpecError && e.issues.length === 2,
  );
});

test('the committed JSON Schema is up to date (npm run schema)', () => {
  const committed = JSON.parse(readFileSync(path.join(REPO_ROOT, 'schema', 'run-spec.schema.json'), 'utf8'));
  assert.deepEqual(committed, JSON.parse(JSON.stringify(runSpecJsonSchema())));
  assert.equal(committed.additionalProperties, false);
});

test('a kubernetes spec the schema accepts still gets its target checks (an image that is no image reference) before anything is provisioned, each problem once', () => {
  const k8s = {
    name: 'k',
    workload: 'logs',
    scale: 1000,
    target: { kind: 'kubernetes', images: { '26.7': 'not an image!! ;rm -rf' } },
    matrix: { version: ['26.7'], codec: ['LZ4'] },
  };
  assert.doesNotThrow(() => parseRunSpec(k8s), 'the schema alone accepts it');
  const problems = checkSpec(k8s).problems;
  assert.equal(
    problems.filter((p) => /target\.images: version 26\.7 gives image/.test(p)).length,
    1,
    problems.join('\n'),
  );
  assert.deepEqual(checkSpec(readSpecFile(path.join(REPO_ROOT, 'examples', 'eks.yaml'))).problems, []);
  // A namespace with a dot is a DNS subdomain, not a namespace name.
  assert.match(
    checkSpec({ ...k8s, target: { kind: 'kubernetes', namespace: 'bench.db' } }).problems.join('\n'),
    /target\.namespace: a namespace name/,
  );
});

test('a baseline: defaults, a version that is not in the matrix, too few warm runs, a password in the results URL spec refused', () => {
  const ok = parseRunSpec({ ...base(), protocol: { warmRuns: 15 }, baseline: { from: 'previous-scheduled' } });
  assert.deepEqual(ok.baseline, {
    from: 'previous-scheduled',
    minChange: 0.1,
    unstableAbove: 0.3,
    minRuns: 7,
    confirmRounds: 12,
  });
  assert.ok(
    problems({ ...base(), protocol: { warmRuns: 15 }, baseline: { from: 'version', version: '24.8' } }).some((l) =>
      /baseline\.version: "24\.8" is not a version of this matrix/.test(l),
    ),
  );
  assert.ok(
    problems({ ...base(), protocol: { warmRuns: 15 }, baseline: { from: 'version', version: '26.7' } }).some((l) =>
      /only version "26\.7", so there is nothing to compare/.test(l),
    ),
  );
  assert.ok(
    problems({ ...base(), baseline: { from: 'run', run: 'r1' } }).some((l) =>
      /protocol\.warmRuns: 3 warm runs per query cannot give the comparison the 7 valid warm runs/.test(l),
    ),
  );
  assert.ok(problems({ ...base(), baseline: { from: 'yesterday' } }).some((l) => /baseline/.test(l)));
  // The results database's password is named by an environment variable, never written in the spec.
  assert.ok(
    problems({ ...base(), results: { url: 'http://127.0.0.1:8123', password: 'secret' } }).some((l) =>
      /results.*unknown key.*"password"/.test(l),
    ),
  );
  assert.deepEqual(
    parseRunSpec({ ...base(), results: { url: 'http://127.0.0.1:8123', passwordEnv: 'CH_RESULTS_PASSWORD' } }).results,
    { url: 'http://127.0.0.1:8123', database: 'chbench', user: 'default', passwordEnv: 'CH_RESULTS_PASSWORD' },
  );
});

test('every example spec is valid (checked as `chbench validate` checks it)', () => {
  const dir = path.join(REPO_ROOT, 'examples');
  const files = readdirSync(dir).filter((f) => /\.(ya?ml|json)$/.test(f));
  assert.ok(files.includes('versions.yaml') && files.includes('seed-versions.yaml') && files.includes('seed-gp3.yaml'));
  for (const f of files) assert.deepEqual(checkSpec(readSpecFile(path.join(dir, f))).problems, [], f);
});

test('target.resources: memory below 256Mi is refused; cpus above the worker host cores refused there', () => {
  const spec = (resources: unknown) => ({
    name: 'r',
    workload: 'logs',
    scale: 1000,
    target: { kind: 'embedded', resources },
    matrix: { version: ['26.7'], codec: ['LZ4'] },
  });
  assert.match(checkSpec(spec({ memory: '1k' })).problems.join('\n'), /target\.resources\.memory: at least 256Mi/);
  assert.match(checkSpec(spec({ memory: 268435455 })).problems.join('\n'), /at least 256Mi/);
  assert.deepEqual(checkSpec(spec({ memory: '256Mi' })).problems, []);
  const cores = availableParallelism();
  assert.match(
    embeddedTarget.checkSpec({ kind: 'embedded', resources: { cpus: cores + 1 } }, ['26.7'], 'worker host').join('\n'),
    new RegExp(`cpus: ${cores + 1} is more than the worker host's ${cores} cores`),
  );
});
