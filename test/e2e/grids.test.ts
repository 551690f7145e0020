/**
 * The load grids on real components (dev server, a worker in its own process, the embedded engine):
 * a matrix with a concurrency stepping and an insert grid whose worker is SIGKILLed in the middle of
 * the grid. After a new worker takes over, the run completes; every insert point ran as exactly one
 * scheduled activity, and the points finished before the kill were not run again (their records are
 * byte-for-byte the ones written before the kill, from attempt 1); every point is verified by
 * `count()`, and the report shows both grids.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, openSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { startDevServer, type DevServer } from '../../src/temporal/dev-server';
import { REPO_ROOT } from '../../src/config';
import { pollUntil } from '../../src/lib/poll';
import { listCellDirs, stopProcess } from '../../src/targets/process';
import { stopEmbeddedResultsDb } from '../../src/results/db/embedded';
import { cellDir } from '../../src/results/store';
import type { MatrixResult } from '../../src/workflows';
import type { CellResult } from '../../src/schema/results';
import { insertPoints, InsertGridSpec } from '../../src/schema/grids';
import { recordRunHistories } from '../helpers/histories';

let server: DevServer;
let client: Client;
let connection: Connection;
let tmp: string;
let worker: ChildProcess | undefined;
const taskQueue = `chbench-test-grids-${randomUUID().slice(0, 8)}`;

function startWorker(): ChildProcess {
  const log = openSync(path.join(tmp, 'worker.log'), 'a');
  worker = spawn(process.execPath, [path.join(REPO_ROOT, 'dist', 'src', 'cli.js'), 'worker'], {
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: server.address,
      CHBENCH_TASK_QUEUE: taskQueue,
      CHBENCH_WORK_DIR: path.join(tmp, 'targets'),
      CHBENCH_LOG_LEVEL: 'WARN',
    },
    stdio: ['ignore', log, log],
  });
  return worker;
}

async function killWorker(): Promise<void> {
  const w = worker;
  if (!w || w.exitCode !== null || w.signalCode !== null) return;
  const gone = new Promise((r) => w.once('exit', r));
  w.kill('SIGKILL');
  await gone;
}

before(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'chbench-grids-'));
  server = await startDevServer();
  connection = await Connection.connect({ address: server.address });
  client = new Client({ connection, namespace: 'default' });
});

after(async () => {
  await killWorker();
  await connection?.close();
  await server?.stop();
  for (const d of listCellDirs(path.join(tmp, 'targets'))) await stopProcess(undefined, d, 2000);
  await stopEmbeddedResultsDb(path.join(tmp, 'results', 'db'));
  rmSync(tmp, { recursive: true, force: true });
});

test('a grid resumes after a worker kill without running finished points again', { timeout: 600_000 }, async () => {
  const resultsDir = path.join(tmp, 'results');
  const insert = {
    batchSizes: [2_000, 20_000],
    concurrency: [1, 2],
    settings: [{ name: 'sync' }, { name: 'dedup', mergeTree: { non_replicated_deduplication_window: 100 } }],
    rows: 200_000,
  };
  const spec = {
    name: 'grids-kill',
    workload: 'logs',
    scale: 200_000,
    target: { kind: 'embedded' },
    matrix: { version: ['26.7'], codec: ['LZ4'] },
    queries: ['q1', 'q2'],
    skipIndex: false,
    protocol: { coldRuns: 0, warmupRuns: 0, warmRuns: 1, quiesce: { stableForMs: 300 } },
    resultsDir,
    grids: {
      concurrency: { steps: [1, 2], durationS: 1, warmupS: 0.2 },
      insert,
    },
  };
  const points = insertPoints(InsertGridSpec.parse(insert));
  const runId = `grids-kill-${randomUUID().slice(0, 6)}`;
  const cellKey = 'v26.7-lz4';
  const gridDir = path.join(cellDir(resultsDir, runId, cellKey), 'grids');
  const recordsNow = () =>
    existsSync(gridDir)
      ? readdirSync(gridDir)
          .filter((f) => /^insert-.*\.json$/.test(f))
          .sort()
      : [];

  startWorker();
  const handle = await client.workflow.start('benchmarkMatrix', { taskQueue, workflowId: runId, args: [spec] });
  // Kill once two points are finished and before the last one is.
  await pollUntil(async () => (recordsNow().length >= 2 ? true : undefined), {
    what: 'two insert points finished',
    timeoutMs: 300_000,
    intervalMs: 50,
  });
  await killWorker();
  const before = new Map(recordsNow().map((f) => [f, readFileSync(path.join(gridDir, f), 'utf8')]));
  assert.ok(
    before.size < points.length,
    `the kill came before the last point (${before.size} of ${points.length} done)`,
  );
  startWorker();
  const r = (await handle.result()) as MatrixResult;
  assert.equal(r.status, 'completed');
  assert.deepEqual(
    r.cells.map((c) => c.status),
    ['succeeded'],
  );

  // Points finished before the kill were not run again: same record, from attempt 1.
  for (const [f, text] of before) {
    assert.equal(readFileSync(path.join(gridDir, f), 'utf8'), text, `${f} was not rewritten after the kill`);
    assert.equal((JSON.parse(text) as { attempt: number }).attempt, 1);
  }
  // One scheduled activity per point, in grid order (a retry is an attempt of the same activity).
  const hist = await client.workflow.getHandle(`${runId}/${cellKey}`).fetchHistory();
  const scheduled = hist.events!.filter(
    (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'insertPoint',
  );
  assert.equal(scheduled.length, points.length, 'each insert point is one scheduled activity');
  const steps = hist.events!.filter(
    (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'concurrencyStep',
  );
  assert.equal(steps.length, 2, 'each concurrency step is one scheduled activity');

  // Every point verified by count(); the report shows both grids.
  const result = JSON.parse(
    readFileSync(path.join(cellDir(resultsDir, runId, cellKey), 'result.json'), 'utf8'),
  ) as CellResult;
  assert.deepEqual(
    result.grids!.insert.map((p) => p.summary.key),
    points.map((p) => p.key),
  );
  for (const p of result.grids!.insert) {
    assert.ok(p.summary.verified, `${p.summary.key}: ${p.verification.reasons.join('; ')}`);
    assert.equal(p.verification.count, 200_000, `${p.summary.key}: every row landed once`);
    assert.ok(p.summary.rowsPerS > 0);
  }
  assert.equal(result.grids!.concurrency.length, 2);
  for (const s of result.grids!.concurrency) assert.ok(s.summary.requests > 0, `step ${s.summary.clients}: requests`);
  const report = readFileSync(r.reportPath, 'utf8');
  assert.match(report, /## Insert grid/);
  assert.match(report, /## Concurrency stepping/);
  assert.match(report, /Knee: /);
  const html = readFileSync(r.reportPath.replace(/\.md$/, '.html'), 'utf8');
  assert.match(html, /id="chart-insert-grid"/);
  assert.match(html, /id="chart-concurrency"/);
  assert.doesNotMatch(html, /class="chart failed"/);

  // `CHBENCH_RECORD_HISTORIES=1` records this release's histories: a matrix whose cell ran both grids,
  // its worker killed mid-grid (one insert point retried), for the replay test.
  if (process.env.CHBENCH_RECORD_HISTORIES) recordRunHistories(server.address, runId, cellKey);
});
