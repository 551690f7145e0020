/**
 * The `local` target through the whole workflow, on a real ClickHouse server binary: Debian's
 * clickhouse-server (18.16), started per cell with a generated config. The old-server variant of the
 * workload runs; a cell this version cannot run is reported as skipped with the reason.
 */
import { runDirsIn } from '../helpers/run-dirs';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { startTemporalEnv, type TemporalEnv } from '../helpers/temporal-env';
import type { MatrixResult } from '../../src/workflows';
import { VerdictsRecord } from '../../src/schema/verdicts';
import type { CellResult as CellResultDoc } from '../../src/schema/results';

const BINARY = process.env.CHBENCH_CLICKHOUSE_SERVER ?? '/usr/sbin/clickhouse-server';

let env: TemporalEnv;
before(async () => {
  assert.ok(
    existsSync(BINARY),
    `${BINARY} is missing: run ./scripts/setup.sh --with-debian-clickhouse (CI does) or set CHBENCH_CLICKHOUSE_SERVER`,
  );
  env = await startTemporalEnv('local');
});
after(async () => {
  await env?.stop();
});

test('a local 18.16 matrix measures the LZ4 cell with query_log rows and skips the CODEC cell', async () => {
  const runId = `local-${Date.now()}`;
  const spec = {
    name: 'local',
    workload: 'logs-legacy',
    scale: 200_000,
    target: { kind: 'local', binaries: { '18.16': BINARY } },
    matrix: { version: ['18.16'], codec: ['LZ4', 'ZSTD(3)'] },
    skipIndex: false,
    resultsDir: env.resultsDir,
  };
  const r = (await env.client.workflow.execute('benchmarkMatrix', {
    taskQueue: env.taskQueue,
    workflowId: runId,
    args: [spec],
  })) as MatrixResult;
  const byKey = Object.fromEntries(r.cells.map((c) => [c.cellKey, c]));
  assert.equal(byKey['v18.16-lz4'].status, 'succeeded', byKey['v18.16-lz4'].error);
  assert.equal(byKey['v18.16-zstd3'].status, 'skipped');

  const lz4 = JSON.parse(readFileSync(byKey['v18.16-lz4'].resultFile, 'utf8')) as CellResultDoc;
  assert.match(lz4.provision!.server.version, /^18\.16\./);
  assert.equal(lz4.provision!.server.query_log, 'available');
  assert.equal(lz4.load!.rows_in_table, 200_000);
  assert.equal(lz4.load!.partitions, 7);
  for (const q of lz4.queries_baseline!.queries) {
    for (const s of q.samples) {
      assert.equal(
        s.server_elapsed_source,
        'system.query_log.query_duration_ms',
        `${q.id}: 18.16 sends no summary; elapsed comes from query_log`,
      );
      assert.equal(s.read_source, 'system.query_log');
      assert.ok(s.read_rows! > 0);
      const pe = (s.query_log as { ProfileEvents?: Record<string, number> }).ProfileEvents;
      assert.ok(pe && Object.keys(pe).length > 3, `${q.id}: ProfileEvents from the Names/Values arrays`);
    }
    assert.ok(q.explain_error, 'EXPLAIN does not exist on 18.16: recorded as an error, not faked');
  }
  const q1 = lz4.queries_baseline!.queries.find((q) => q.id === 'q1')!;
  assert.ok(q1.stats.read_rows! < 200_000, 'Q1 uses the primary key');

  const zstd = JSON.parse(readFileSync(byKey['v18.16-zstd3'].resultFile, 'utf8')) as CellResultDoc;
  assert.match(zstd.skip_reason!, /no column CODEC clause/);

  const md = readFileSync(r.reportPath, 'utf8');
  assert.match(md, /v18\.16-zstd3 +\| skipped: ClickHouse 18\.16\.\d+ has no column CODEC clause/);
  // The skipped cell leaves every comparison of the codec axis `not comparable`, with its reason; the A/A control (LZ4 again) ran.
  assert.equal(byKey['v18.16-lz4-r2']?.status, 'succeeded');
  const verdicts = VerdictsRecord.parse(
    JSON.parse(readFileSync(path.join(path.dirname(r.reportPath), 'verdicts.json'), 'utf8')),
  );
  const codec = verdicts.entries.filter((e) => e.axis === 'codec');
  assert.ok(codec.length > 0);
  for (const e of codec) {
    assert.equal(e.verdict, 'not comparable');
    assert.match(e.reason, /v18\.16-zstd3 skipped: ClickHouse 18\.16\.\d+ has no column CODEC clause/);
  }
  // Every server was stopped and its directory removed.
  const left = existsSync(env.workDir)
    ? runDirsIn(env.workDir).flatMap((d) => readdirSync(path.join(env.workDir, d)))
    : [];
  assert.deepEqual(left, []);
});

test('the seed workload on 18.16 is reported as skipped with the reason, not as a failure', async () => {
  const runId = `local-seed-${Date.now()}`;
  const spec = {
    name: 'local-seed',
    workload: 'logs',
    scale: 1000,
    target: { kind: 'local', binaries: { '18.16': BINARY } },
    matrix: { version: ['18.16'], codec: ['LZ4'] },
    resultsDir: env.resultsDir,
  };
  const r = (await env.client.workflow.execute('benchmarkMatrix', {
    taskQueue: env.taskQueue,
    workflowId: runId,
    args: [spec],
  })) as MatrixResult;
  assert.equal(r.cells[0].status, 'skipped');
  const doc = JSON.parse(readFileSync(r.cells[0].resultFile, 'utf8')) as CellResultDoc;
  assert.match(
    doc.skip_reason!,
    /cannot run workload logs: it has no data type DateTime64.*table function numbers_mt\(\)/,
  );
});

test('a binary labelled 24.8 that is really 18.16 fails the cell in seconds, not retried, with its attempt recorded', async () => {
  const runId = `local-mislabelled-${Date.now()}`;
  const spec = {
    name: 'local-mislabelled',
    workload: 'logs-legacy',
    scale: 1000,
    target: { kind: 'local', binaries: { '24.8': BINARY } },
    matrix: { version: ['24.8'], codec: ['LZ4'] },
    skipIndex: false,
    resultsDir: env.resultsDir,
  };
  const t0 = Date.now();
  const r = (await env.client.workflow.execute('benchmarkMatrix', {
    taskQueue: env.taskQueue,
    workflowId: runId,
    args: [spec],
  })) as MatrixResult;
  const took = Date.now() - t0;
  const [cell] = r.cells;
  assert.equal(cell.status, 'failed');
  assert.match(cell.error!, /is ClickHouse 18\.16\.[\d.]+, but the cell asks for version 24\.8/);
  // One start of the server (a few seconds), not 12 attempts with back-off (3 min 44 s before).
  assert.ok(took < 45_000, `the run took ${took} ms`);

  const doc = JSON.parse(readFileSync(cell.resultFile, 'utf8')) as CellResultDoc;
  assert.deepEqual(doc.attempts, { provision: 1 });
  const log = doc.attempt_log?.provision ?? [];
  assert.equal(log.length, 1, JSON.stringify(doc.attempt_log));
  assert.equal(log[0].attempt, 1);
  assert.equal(log[0].outcome, 'failed');
  assert.equal(log[0].failure_type, 'VersionMismatch');
  assert.equal(log[0].retryable, false);
  assert.match(log[0].error!, /is ClickHouse 18\.16/);
  assert.ok(log[0].duration_ms > 0 && log[0].duration_ms < 45_000, `${log[0].duration_ms} ms`);

  const md = readFileSync(r.reportPath, 'utf8');
  assert.match(md, /provision ×1 failed: VersionMismatch \(not retryable\)/);
  assert.doesNotMatch(md, /\| none \|$/m, 'the Cells table does not say "retries: none"');
});
