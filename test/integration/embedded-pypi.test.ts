/**
 * The embedded target on a PyPI label: provision installs the build on demand into a temporary
 * CHBENCH_ENGINES_DIR (real pip; the wheel from pip's cache), starts the engine server with
 * `--engine python --python <env>/bin/python`, reads the version back and names the package in
 * `provisionedBy`. A cache entry whose engine answers another version than its label is refused
 * with the non-retryable `VersionMismatch` and leaves nothing running. No mocks.
 *
 * Needs the Python-hosted driver in the engine server (`src/engine/python-driver.ts`): skipped, with
 * that reason, in a build without it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { spawn } from 'node:child_process';
import { createClient } from '@clickhouse/client';
import { provisionEmbedded, teardownEmbedded } from '../../src/targets/embedded';
import { findPypiBuild, installedEngine } from '../../src/engine/install';
import { FAILURE } from '../../src/schema/failures';
import { isAlive } from '../../src/targets/process';
import type { TargetHandle } from '../../src/schema/target';
import { assertFailureType } from '../helpers/assert-failure';
import { targetPassword } from '../../src/clickhouse/client';

const pythonDriver = fs.existsSync(path.join(__dirname, '..', '..', 'src', 'engine', 'python-driver.js'));

describe(
  'embedded target on a PyPI build',
  { timeout: 300_000, skip: pythonDriver ? false : 'the engine server has no Python-hosted driver in this build' },
  () => {
    let workDir: string;
    let engines: string;
    const saved = process.env.CHBENCH_ENGINES_DIR;
    const started: TargetHandle[] = [];

    before(() => {
      workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-pypi-work-'));
      engines = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-pypi-engines-'));
      process.env.CHBENCH_ENGINES_DIR = engines;
    });
    after(async () => {
      for (const h of started) await teardownEmbedded(h).catch(() => undefined);
      if (saved === undefined) delete process.env.CHBENCH_ENGINES_DIR;
      else process.env.CHBENCH_ENGINES_DIR = saved;
      fs.rmSync(workDir, { recursive: true, force: true });
      fs.rmSync(engines, { recursive: true, force: true });
    });

    it('26.9: installed on demand, served by chdb-core 26.9.0, version read back', async () => {
      const t0 = Date.now();
      const h = await provisionEmbedded({
        runId: `pypi ${randomUUID().slice(0, 8)}`,
        cellKey: 'v26.9',
        version: '26.9',
        workDir,
      });
      started.push(h);
      console.log(`provision 26.9 with the install: ${Date.now() - t0} ms`);
      const e = installedEngine(findPypiBuild('26.9')!);
      assert.ok(e, 'installed into CHBENCH_ENGINES_DIR');
      assert.ok(e.dir.startsWith(engines));
      assert.match(
        h.provisionedBy,
        /chdb-core[=@ ]+26\.9\.0.*\(ClickHouse 26\.9\.2\.1\) in pid \d+, separate process, environment /,
      );
      assert.ok(h.provisionedBy.endsWith(e.dir), h.provisionedBy);
      const client = createClient({ url: h.url, username: 'default', password: targetPassword(h) });
      try {
        const rs = await client.query({ query: 'SELECT version() AS v', format: 'JSONEachRow' });
        assert.deepEqual(await rs.json(), [{ v: '26.9.2.1' }]);
      } finally {
        await client.close();
      }
      await teardownEmbedded(h);
      assert.ok(!isAlive(h.pid!));
    });

    it('26.9: a worker SIGKILLed after provisioning; the retried provision adopts the same engine and its data', async () => {
      const req = { runId: `pypi ${randomUUID().slice(0, 8)}`, cellKey: 'v26.9-adopt', version: '26.9', workDir };
      // The "worker": another process that provisions the cell and is then killed without cleaning up.
      const mod = path.join(__dirname, '..', '..', 'src', 'targets', 'embedded', 'index.js');
      const child = spawn(
        process.execPath,
        [
          '-e',
          `require(${JSON.stringify(mod)}).provisionEmbedded(${JSON.stringify(req)}).then((h) => { console.log(JSON.stringify(h)); setInterval(() => {}, 1000); })`,
        ],
        { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, CHBENCH_ENGINES_DIR: engines } },
      );
      const first = await new Promise<TargetHandle>((resolve, reject) => {
        let out = '';
        child.stdout!.on('data', (b: Buffer) => {
          out += b.toString();
          const line = out.split('\n').find((l) => l.startsWith('{'));
          if (line) resolve(JSON.parse(line) as TargetHandle);
        });
        child.once('exit', (code) => reject(new Error(`the worker process exited (${code}) before provisioning`)));
      });
      const c1 = createClient({ url: first.url, username: 'default', password: targetPassword(first) });
      await c1.command({ query: 'CREATE TABLE t (a UInt32) ENGINE = MergeTree ORDER BY a' });
      await c1.command({ query: 'INSERT INTO t SELECT number FROM numbers(1000)' });
      await c1.close();
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      assert.ok(isAlive(first.pid!), 'the engine outlives the worker');
      const again = await provisionEmbedded(req);
      started.push(again);
      assert.equal(again.pid, first.pid, 'adopted, not started a second time');
      assert.equal(again.url, first.url);
      const c2 = createClient({ url: again.url, username: 'default', password: targetPassword(again) });
      try {
        const rs = await c2.query({ query: 'SELECT count() AS n, version() AS v FROM t', format: 'JSONEachRow' });
        // UInt64 in JSON: unquoted on every chdb build (output_format_json_quote_64bit_integers = 0).
        const rows = (await rs.json()) as { n: string | number; v: string }[];
        assert.deepEqual(
          rows.map((r) => [Number(r.n), r.v]),
          [[1000, '26.9.2.1']],
        );
      } finally {
        await c2.close();
      }
    });

    it('a build the package index does not have: MissingBinary, non-retryable, naming the package; nothing looks installed', async () => {
      const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-empty-index-'));
      const saved = { PIP_NO_INDEX: process.env.PIP_NO_INDEX, PIP_FIND_LINKS: process.env.PIP_FIND_LINKS };
      process.env.PIP_NO_INDEX = '1';
      process.env.PIP_FIND_LINKS = empty;
      try {
        const req = { runId: `pypi ${randomUUID().slice(0, 8)}`, cellKey: 'v26.1', version: '26.1', workDir };
        const f = await assertFailureType(
          provisionEmbedded(req),
          FAILURE.MissingBinary,
          /chdb-core==26\.1\.0 .*No matching distribution/s,
        );
        assert.equal(f.nonRetryable, true);
        assert.equal(installedEngine(findPypiBuild('26.1')!), undefined);
        assert.deepEqual(
          fs.readdirSync(engines).filter((n) => n.includes('26.1')),
          [],
          'no staging or half-installed directory',
        );
      } finally {
        for (const [k, v] of Object.entries(saved))
          if (v === undefined) delete process.env[k];
          else process.env[k] = v;
        fs.rmSync(empty, { recursive: true, force: true });
      }
    });

    it('an environment answering another version than its label: VersionMismatch, non-retryable, nothing left running', async () => {
      // A cache entry for 26.5 whose environment really holds the 26.9 engine (its lib/ is 26.9's).
      const real = installedEngine(findPypiBuild('26.9')!)!;
      const fake = path.join(engines, 'chdb-core-26.5.0');
      fs.mkdirSync(path.join(fake, 'bin'), { recursive: true });
      fs.copyFileSync(path.join(real.dir, 'pyvenv.cfg'), path.join(fake, 'pyvenv.cfg'));
      fs.symlinkSync(fs.realpathSync(real.python), path.join(fake, 'bin', 'python'));
      fs.symlinkSync(path.join(real.dir, 'lib'), path.join(fake, 'lib'));
      const manifest = JSON.parse(fs.readFileSync(path.join(real.dir, 'chbench-engine.json'), 'utf8')) as Record<
        string,
        unknown
      >;
      fs.writeFileSync(
        path.join(fake, 'chbench-engine.json'),
        JSON.stringify({ ...manifest, version: '26.5.0', clickhouse: '26.5.1.1' }),
      );
      assert.equal(installedEngine(findPypiBuild('26.5')!)?.clickhouse, '26.5.1.1', 'the fake entry looks installed');
      const req = { runId: `pypi ${randomUUID().slice(0, 8)}`, cellKey: 'v26.5', version: '26.5', workDir };
      const f = await assertFailureType(
        provisionEmbedded(req),
        FAILURE.VersionMismatch,
        /embedded target \(pypi chdb-core==26\.5\.0\) is ClickHouse 26\.9\.2\.1, but the cell asks for version 26\.5; .*chbench engines remove 26\.5/,
      );
      assert.equal(f.nonRetryable, true);
      const cell = fs
        .readdirSync(path.join(workDir), { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => d.name)
        .flatMap((d) => fs.readdirSync(path.join(workDir, d)).map((c) => `${d}/${c}`));
      assert.ok(
        !cell.some((c) => c.endsWith('v26.5')),
        `the mismatching cell's directory is removed: ${cell.join(', ')}`,
      );
    });
  },
);
