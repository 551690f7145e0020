/**
 * Unit tests of the shared helpers in src/lib (net, sql, fs, poll) and of src/config.ts. No server.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, freePorts, isLoopbackUrl } from '../../src/lib/net';
import { sqlIdent, sqlString, sqlValue } from '../../src/lib/sql';
import { sanitizePathSegment, writeFileAtomic, writeJsonAtomic } from '../../src/lib/fs';
import { abortableDelay, pollUntil, pollWithin, PollTimeoutError } from '../../src/lib/poll';
import { settingsClause } from '../../src/clickhouse/settings';
import { cellDir, runDir } from '../../src/results/store';
import { faultStepDelayMs, loadConfig, logLevel, REPO_ROOT, temporalCliPath } from '../../src/config';
import { SQL_ROOT } from '../../src/lib/workload';

test('freePort: a port that can be bound on 127.0.0.1', async () => {
  const port = await freePort();
  assert.ok(port > 0 && port < 65536);
  const srv = net.createServer();
  await new Promise<void>((resolve, reject) => {
    srv.once('error', reject);
    srv.listen(port, '127.0.0.1', resolve);
  });
  await new Promise((r) => srv.close(r));
});

test('freePorts: distinct ports', async () => {
  const ports = await freePorts(3);
  assert.equal(ports.length, 3);
  assert.equal(new Set(ports).size, 3);
});

test('sqlString escapes backslashes and quotes; clickhouse/client re-exports the same function', () => {
  assert.equal(sqlString("it's"), "'it\\'s'");
  assert.equal(sqlString('a\\b'), "'a\\\\b'");
  // A trailing backslash must not escape the closing quote.
  assert.equal(sqlString('x\\'), "'x\\\\'");
  assert.equal(sqlString("\\'"), "'\\\\\\''");
});

test('sqlIdent quotes with backticks', () => {
  assert.equal(sqlIdent('db'), '`db`');
  assert.equal(sqlIdent('a`b'), '`a\\`b`');
  assert.equal(sqlIdent('a\\b'), '`a\\\\b`');
});

test('sqlValue: numbers as is, strings quoted', () => {
  assert.equal(sqlValue(8192), '8192');
  assert.equal(sqlValue(0.5), '0.5');
  assert.equal(sqlValue('wide'), "'wide'");
});

test('settingsClause quotes string values with sqlString (backslashes included)', () => {
  assert.equal(settingsClause({}), '');
  assert.equal(
    settingsClause({ index_granularity: 8192, storage_policy: 'default' }),
    " SETTINGS index_granularity = 8192, storage_policy = 'default'",
  );
  // Before the fix a value ending in a backslash produced `'x\'`, an unterminated literal.
  assert.equal(settingsClause({ s: 'x\\' }), " SETTINGS s = 'x\\\\'");
  assert.equal(settingsClause({ s: "it's" }), " SETTINGS s = 'it\\'s'");
});

test('sanitizePathSegment: one safe, non-empty segment that never points up', () => {
  assert.equal(sanitizePathSegment('run/2026-11-29T18:00'), 'run_2026-11-29T18_00');
  assert.equal(sanitizePathSegment('v26.7-lz4'), 'v26.7-lz4');
  assert.equal(sanitizePathSegment(''), '_');
  assert.equal(sanitizePathSegment('.'), '_');
  assert.equal(sanitizePathSegment('..'), '_');
  assert.equal(sanitizePathSegment('../etc'), '.._etc');
});

test('results store paths use the one sanitiser', () => {
  assert.equal(runDir('/r', 'a/b'), '/r/a_b');
  assert.equal(runDir('/r', '..'), '/r/_');
  assert.equal(cellDir('/r', 'run', '..'), '/r/run/cells/_');
});

test('writeFileAtomic / writeJsonAtomic: whole content, parents created, no temp file left', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chbench-lib-'));
  try {
    const f = path.join(dir, 'a', 'b', 'x.json');
    writeJsonAtomic(f, { a: 1 });
    assert.equal(readFileSync(f, 'utf8'), '{\n  "a": 1\n}\n');
    writeFileAtomic(f, 'second');
    assert.equal(readFileSync(f, 'utf8'), 'second');
    assert.deepEqual(readdirSync(path.dirname(f)), ['x.json']);
    // A failing write leaves neither the destination changed nor a temp file behind.
    assert.throws(() => writeJsonAtomic(f, { n: 1n }), TypeError);
    assert.equal(readFileSync(f, 'utf8'), 'second');
    assert.throws(() => writeFileAtomic(path.join(dir, 'a', 'b', 'x.json', 'under-a-file'), 'x'));
    assert.deepEqual(readdirSync(path.dirname(f)), ['x.json']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('pollUntil returns the first value that is not undefined/null/false', async () => {
  const seen: number[] = [];
  const v = await pollUntil((n) => (seen.push(n), n === 3 ? 'ready' : n === 1 ? null : false), { intervalMs: 1 });
  assert.equal(v, 'ready');
  assert.deepEqual(seen, [1, 2, 3]);
  // 0 and '' are values, not "not yet".
  assert.equal(await pollUntil(() => 0), 0);
});

test('pollUntil treats a throwing check as "not yet" and names the last error on timeout', async () => {
  await assert.rejects(
    pollUntil(
      () => {
        throw new Error('connection refused');
      },
      { timeoutMs: 30, intervalMs: 5, what: 'the thing' },
    ),
    (e: unknown) =>
      e instanceof PollTimeoutError &&
      /waiting for the thing; last error: connection refused/.test(e.message) &&
      (e.lastError as Error).message === 'connection refused',
  );
});

test('pollUntil: stopOn rethrows at once; the given sleep is used; an aborted signal stops it', async () => {
  const fatal = new Error('exited');
  let calls = 0;
  await assert.rejects(
    pollUntil(
      () => {
        calls++;
        throw fatal;
      },
      { stopOn: (e) => e === fatal, timeoutMs: 10_000 },
    ),
    (e) => e === fatal,
  );
  assert.equal(calls, 1);

  const slept: number[] = [];
  await pollUntil((n) => n === 3, { intervalMs: 40, sleep: async (ms) => void slept.push(ms) });
  assert.deepEqual(slept, [40, 40]);

  const ac = new AbortController();
  const t0 = Date.now();
  setTimeout(() => ac.abort(new Error('cancelled')), 20);
  await assert.rejects(
    pollUntil(() => false, { intervalMs: 5_000, timeoutMs: 60_000, signal: ac.signal }),
    /cancelled/,
  );
  assert.ok(Date.now() - t0 < 2_000, 'the abort ends the wait, not the interval');
  await assert.rejects(abortableDelay(10, AbortSignal.abort(new Error('already'))), /already/);
});

test('pollUntil: intervalMs as a function of the attempt; onTick before each wait; onTimeout builds the error', async () => {
  const slept: number[] = [];
  const ticks: number[] = [];
  await pollUntil((n) => n === 5, {
    intervalMs: (n) => Math.min(50 * 2 ** (n - 1), 250),
    sleep: async (ms) => void slept.push(ms),
    onTick: (n, elapsedMs) => {
      assert.ok(elapsedMs >= 0);
      ticks.push(n);
    },
  });
  assert.deepEqual(slept, [50, 100, 200, 250]);
  assert.deepEqual(ticks, [1, 2, 3, 4], 'no tick after the check that succeeded');

  // On timeout: no tick for the last check; onTimeout's value is thrown as is and sees the last error.
  const mine = new Error('my own message');
  const told: { attempts: number; lastError?: unknown }[] = [];
  let tickCount = 0;
  let calls = 0;
  await assert.rejects(
    pollUntil(
      () => {
        calls++;
        throw new Error('refused');
      },
      {
        timeoutMs: 30,
        intervalMs: 5,
        onTick: () => void tickCount++,
        onTimeout: (t) => (told.push(t), mine),
      },
    ),
    (e) => e === mine,
  );
  assert.equal(told.length, 1);
  assert.equal(told[0].attempts, calls);
  assert.equal((told[0].lastError as Error).message, 'refused');
  assert.equal(tickCount, calls - 1);

  // An onTick that throws ends the poll with its error.
  await assert.rejects(
    pollUntil(() => false, {
      onTick: () => {
        throw new Error('heartbeat failed');
      },
    }),
    /heartbeat failed/,
  );

  // timeoutMs Infinity: waits the interval, never times out.
  const waits: number[] = [];
  assert.equal(
    await pollUntil((n) => n === 3 && 'done', {
      timeoutMs: Infinity,
      intervalMs: 7,
      sleep: async (ms) => void waits.push(ms),
    }),
    'done',
  );
  assert.deepEqual(waits, [7, 7]);
});

test('pollWithin: true when the check holds in time, false on timeout, other errors propagate', async () => {
  assert.equal(await pollWithin((n) => n === 2, { intervalMs: 1 }), true);
  assert.equal(await pollWithin(() => false, { timeoutMs: 20, intervalMs: 5 }), false);
  await assert.rejects(
    pollWithin(
      () => {
        throw new Error('broken');
      },
      { stopOn: () => true },
    ),
    /broken/,
  );
  const ac = new AbortController();
  ac.abort(new Error('cancelled'));
  await assert.rejects(
    pollWithin(() => false, { signal: ac.signal }),
    /cancelled/,
  );
});

test('config: defaults, validation with the variable named, log level and fault delay', () => {
  const c = loadConfig({});
  assert.equal(c.temporalAddress, '127.0.0.1:7233');
  assert.equal(c.namespace, 'default');
  assert.equal(c.taskQueue, 'chbench');
  assert.equal(c.workDir, path.join(REPO_ROOT, '.chbench', 'targets'));
  assert.equal(loadConfig({ TEMPORAL_ADDRESS: '' }).temporalAddress, '127.0.0.1:7233', 'empty counts as unset');
  assert.equal(loadConfig({ CHBENCH_TASK_QUEUE: 'q' }).taskQueue, 'q');
  assert.equal(logLevel('WARN', {}), 'WARN');
  assert.equal(logLevel('WARN', { CHBENCH_LOG_LEVEL: 'error' }), 'ERROR');
  assert.throws(() => logLevel('WARN', { CHBENCH_LOG_LEVEL: 'LOUD' }), /CHBENCH_LOG_LEVEL="LOUD"/);
  assert.equal(faultStepDelayMs({}), 0);
  assert.equal(faultStepDelayMs({ CHBENCH_FAULT_STEP_DELAY_MS: '1500' }), 1500);
  assert.throws(() => faultStepDelayMs({ CHBENCH_FAULT_STEP_DELAY_MS: 'soon' }), /CHBENCH_FAULT_STEP_DELAY_MS="soon"/);
  assert.throws(() => faultStepDelayMs({ CHBENCH_FAULT_STEP_DELAY_MS: '-1' }), /CHBENCH_FAULT_STEP_DELAY_MS/);
  assert.equal(temporalCliPath({ TEMPORAL_CLI_PATH: '/opt/temporal' }), '/opt/temporal');
});

test('REPO_ROOT holds package.json and sql/, and SQL_ROOT is under it', () => {
  assert.ok(existsSync(path.join(REPO_ROOT, 'package.json')));
  assert.equal(SQL_ROOT, path.join(REPO_ROOT, 'sql'));
  assert.ok(existsSync(path.join(SQL_ROOT, 'workloads')));
});

test('isLoopbackUrl: 127.0.0.0/8, ::1 and localhost are loopback; other hosts and bad URLs are not (names are not resolved)', () => {
  for (const u of [
    'http://127.0.0.1:8123',
    'http://127.5.0.6:8123',
    'https://localhost',
    'http://LOCALHOST:1',
    'http://ch.localhost:8123',
    'http://[::1]:8123',
    'http://[0:0:0:0:0:0:0:1]/',
    'http://[::ffff:127.0.0.1]:9',
  ])
    assert.equal(isLoopbackUrl(u), true, u);
  for (const u of [
    'http://128.0.0.1',
    'http://10.0.0.1:8123',
    'http://[::2]',
    'http://[::ffff:10.0.0.1]',
    'http://clickhouse.internal:8123',
    'http://localhost.example.com',
    'not a url',
  ])
    assert.equal(isLoopbackUrl(u), false, u);
});
