/**
 * `npm run bench:big-matrix`: does chbench's orchestration hold up on a big matrix?
 *
 * Setup: one real Temporal dev server ({@link startDevServer}); one embedded ClickHouse server
 * (`provisionEmbedded`) used by every cell as an `external` target (each cell gets its own database
 * there); `BIG_MATRIX_WORKERS` (default 4) `chbench worker` processes on one task queue, each with its
 * own temp directory as cwd and `CHBENCH_WORK_DIR`, and `CHBENCH_HOST_ID=host-<n>` (each simulates a
 * host); one shared absolute `resultsDir`. The matrix: the `trivial` workload at scale 1000, versions
 * `26`, `26.7`, `26.7.2`, `26.7.2.1` × codecs `LZ4`, `LZ4HC`, `ZSTD(1)`, `ZSTD(3)`, `NONE` × `repeat`
 * `BIG_MATRIX_REPEAT` (default 50, so 1,000 cells), concurrency `BIG_MATRIX_CONCURRENCY` (default 16),
 * minimal protocol (1 cold run, no warm-up, 1 warm run, no OS page-cache drop, merges not stopped,
 * quiesce stable for 0 ms polled every 100 ms), no skip index.
 *
 * Writes `bench/results/big-matrix.json`; its figures and where each comes from:
 * - `max_history_events`: the largest `historyLength` (visibility, `ListWorkflowExecutions`) over every
 *   run of the matrix workflow (`WorkflowId = '<runId>'`: it continues as new, each run counted apart)
 *   and every cell workflow (`ChbenchRunId = '<runId>' AND WorkflowType = 'benchmarkCell'`); for cells,
 *   also the number of events in the fetched history, whichever is larger. `max_history_events_matrix`
 *   and `max_history_events_cell` split it.
 * - `max_worker_rss_mb`: the largest `VmRSS` of `/proc/<pid>/status` of any worker process (the node
 *   process only, not the servers it starts), sampled every 1,000 ms from the workers' start to the
 *   matrix's end, in MiB (kB / 1024). Per worker in `worker_rss_mb`: `max`, `max_at_s` (seconds after
 *   that worker's start: the first ~tens of seconds are its workflow-bundle build), `at_matrix_start`
 *   (the last sample before the matrix started, all workers polling) and `at_end`.
 * - `max_child_rss_mb`: the same for the workers' child processes (the report renderer `writeReport`
 *   starts for a few seconds at the end), reported beside the workers' own figure.
 * - `orchestration_ms_per_cell` (mean) and `orchestration_ms_per_cell_p95`: per cell workflow, from its
 *   history's event times (server clock, ms): (last event − first event, i.e. close − start) − the
 *   length of the union of the intervals during which at least one of its activities executed
 *   (`ActivityTaskStarted` → the `ActivityTaskCompleted`/`Failed`/`TimedOut`/`Canceled` naming it).
 *   It is the time a cell spends in Temporal scheduling (schedule-to-start, workflow tasks, the
 *   matrix's child start) rather than in its steps. A retried activity's history holds only its last
 *   attempt's start, so time lost in earlier attempts counts as orchestration.
 * - `wall_ms_per_cell`: matrix wall time `wall_s` (start of `benchmarkMatrix` to its result, bench
 *   clock; the matrix starts once all workers poll the task queue, per `DescribeTaskQueue`, which took
 *   `workers_ready_s` after the first worker's spawn) × concurrency / cells: the wall time one
 *   concurrency slot spends per cell, steps included.
 * - `cells`: cells in the matrix; `succeeded`: cells with status `succeeded` in the matrix result;
 *   `cell_workflows`: cell workflows listed; `matrix_runs`: runs of the matrix workflow;
 *   `worker_exits`: workers that exited before the end (exit code or signal; their log tail is printed).
 * - Inputs: `workers`, `concurrency`, `repeat`, `commit` (`git rev-parse HEAD`), `cpus`
 *   (`os.availableParallelism()`), `measured_at`.
 *
 * - `workflow_code`: `prebuilt bundle` — the workers load `dist/src/workflow-bundle.js` (`npm run build`);
 *   the bench rebuilds it first when it is not current, so a worker never bundles at start here.
 *
 * Passes (exit 0) when every history < 10,000 events, every worker's RSS < 500 MB and every cell
 * succeeded; otherwise prints why and exits 1 (the JSON is written either way).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { mean, quantile } from 'simple-statistics';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { stopEmbeddedResultsDb } from '../src/results/db';
import { provisionEmbedded, teardownEmbedded } from '../src/targets/embedded';
import { targetPassword } from '../src/clickhouse/client';
import { startDevServer, type DevServer } from '../src/temporal/dev-server';
import { REPO_ROOT } from '../src/config';
import { writeJsonAtomic } from '../src/lib/fs';
import { orchestrationSpec } from '../test/helpers/orchestration-spec';
import { pollingHosts } from '../src/temporal/host';
import { prebuiltBundleIsCurrent } from '../src/worker';
import { execFileSync } from 'node:child_process';
import { pollUntil } from '../src/lib/poll';
import { chbenchVersion } from '../src/lib/chbench-version';
import type { MatrixProgress, MatrixResult } from '../src/workflows/benchmark-matrix';

const REPEAT = Number(process.env.BIG_MATRIX_REPEAT ?? 50);
const WORKERS = Number(process.env.BIG_MATRIX_WORKERS ?? 4);
const CONCURRENCY = Number(process.env.BIG_MATRIX_CONCURRENCY ?? 16);
const VERSIONS = ['26', '26.7', '26.7.2', '26.7.2.1'];
const CODECS = ['LZ4', 'LZ4HC', 'ZSTD(1)', 'ZSTD(3)', 'NONE'];
const HISTORY_LIMIT = 10_000;
const RSS_LIMIT_MB = 500;
const RSS_SAMPLE_MS = 1000;

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** A `chbench worker` process simulating one host. */
interface HostWorker {
  host: string;
  proc: ChildProcess;
  /** Its stderr (the Temporal SDK's log), in its directory. */
  logFile: string;
  /** When it was started, ms since the epoch. */
  startedAt: number;
  /** Largest VmRSS seen, MiB, and when (ms after its start). */
  maxRssMb: number;
  maxRssAtMs: number;
  /** Last VmRSS seen, MiB, and the last one before the matrix started. */
  lastRssMb: number;
  readyRssMb: number;
  samples: number;
  /** Largest VmRSS of a child process of the worker (the report renderer), MiB. */
  maxChildRssMb: number;
  /** Exit code or signal when it exited before the end. */
  exited?: string;
  /** Set when the bench stops it. */
  stopping?: boolean;
}

function startWorker(address: string, dir: string, host: string, taskQueue: string): HostWorker {
  mkdirSync(dir, { recursive: true });
  const logFile = path.join(dir, 'worker.log');
  const proc = spawn(process.execPath, [path.join(REPO_ROOT, 'dist', 'src', 'cli.js'), 'worker'], {
    cwd: dir,
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: address,
      CHBENCH_TASK_QUEUE: taskQueue,
      CHBENCH_WORK_DIR: path.join(dir, 'targets'),
      CHBENCH_HOST_ID: host,
      CHBENCH_LOG_LEVEL: 'ERROR',
    },
    stdio: ['ignore', 'ignore', openSync(logFile, 'a')],
  });
  const w: HostWorker = {
    host,
    proc,
    logFile,
    startedAt: Date.now(),
    maxRssMb: 0,
    maxChildRssMb: 0,
    maxRssAtMs: 0,
    lastRssMb: 0,
    readyRssMb: 0,
    samples: 0,
  };
  proc.on('exit', (code, signal) => {
    if (w.stopping) return;
    w.exited = signal ?? String(code);
    console.error(`${host}: worker exited (${w.exited}): ${logTail(logFile)}`);
  });
  return w;
}

/** VmRSS of a process in MiB from /proc/<pid>/status, or undefined when it is gone. */
function rssMb(pid: number): number | undefined {
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Pids of the direct children of `pid` (`/proc/<pid>/task/<pid>/children`), none when unreadable. */
function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

function logTail(file: string): string {
  try {
    return readFileSync(file, 'utf8').trim().split('\n').slice(-5).join(' | ');
  } catch {
    return '(no log)';
  }
}

async function stopWorker(w: HostWorker): Promise<void> {
  w.stopping = true;
  if (w.proc.exitCode !== null || w.proc.signalCode !== null) return;
  const exited = new Promise<void>((r) => w.proc.once('exit', () => r()));
  w.proc.kill('SIGTERM');
  const timer = setTimeout(() => w.proc.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

function ms(e: HistoryEvent | undefined): number {
  const ts = e?.eventTime;
  return ts ? Number(ts.seconds) * 1000 + Math.floor((ts.nanos ?? 0) / 1e6) : NaN;
}

/**
 * Orchestration time of one closed workflow, ms: (last event − first event) − the union of its
 * activities' executing intervals (ActivityTaskStarted → the close event naming that started event).
 */
export function orchestrationMs(events: HistoryEvent[]): number {
  const started = new Map<number, number>();
  const intervals: [number, number][] = [];
  for (const e of events) {
    if (e.activityTaskStartedEventAttributes) started.set(Number(e.eventId), ms(e));
    const close =
      e.activityTaskCompletedEventAttributes ??
      e.activityTaskFailedEventAttributes ??
      e.activityTaskTimedOutEventAttributes ??
      e.activityTaskCanceledEventAttributes;
    const s = close?.startedEventId ? started.get(Number(close.startedEventId)) : undefined;
    if (s !== undefined) intervals.push([s, ms(e)]);
  }
  intervals.sort((a, b) => a[0] - b[0]);
  let busy = 0;
  let end = -Infinity;
  for (const [s, e] of intervals) {
    if (e <= end) continue;
    busy += e - Math.max(s, end);
    end = e;
  }
  return ms(events[events.length - 1]) - ms(events[0]) - busy;
}

async function main(): Promise<void> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'chbench-bigmatrix-'));
  const resultsDir = path.join(tmp, 'results');
  const taskQueue = 'big-matrix';
  const runId = `big-matrix-${Date.now()}`;
  const cells = VERSIONS.length * CODECS.length * REPEAT;
  let dev: DevServer | undefined;
  const workers: HostWorker[] = [];
  let connection: Connection | undefined;
  let server: Awaited<ReturnType<typeof provisionEmbedded>> | undefined;
  let sampler: NodeJS.Timeout | undefined;
  let progress: NodeJS.Timeout | undefined;
  try {
    // Measure the workers as `npm run build` leaves them: with the prebuilt workflow bundle.
    if (!prebuiltBundleIsCurrent())
      execFileSync(process.execPath, [path.join(REPO_ROOT, 'dist', 'scripts', 'bundle-workflows.js')], {
        stdio: 'inherit',
      });
    dev = await startDevServer();
    server = await provisionEmbedded({
      runId: `${runId}-server`,
      cellKey: 'shared',
      version: '26.7',
      workDir: path.join(tmp, 'server'),
    });
    // The shared server requires its password: the workers (spawned below, inheriting this environment)
    // read it from the variable the spec names, never from the spec.
    process.env.BIG_MATRIX_PASSWORD = targetPassword(server);
    connection = await Connection.connect({ address: dev.address });
    const client = new Client({ connection });
    for (let i = 1; i <= WORKERS; i++)
      workers.push(startWorker(dev.address, path.join(tmp, `host-${i}`), `host-${i}`, taskQueue));
    const sample = () => {
      for (const w of workers) {
        const r = w.proc.pid ? rssMb(w.proc.pid) : undefined;
        if (r === undefined) continue;
        w.samples++;
        w.lastRssMb = r;
        if (r > w.maxRssMb) {
          w.maxRssMb = r;
          w.maxRssAtMs = Date.now() - w.startedAt;
        }
        for (const c of childPids(w.proc.pid!)) w.maxChildRssMb = Math.max(w.maxChildRssMb, rssMb(c) ?? 0);
      }
    };
    sample();
    sampler = setInterval(sample, RSS_SAMPLE_MS);
    // Start the clock once every worker polls (their start-up, the workflow bundle, is not the matrix's).
    await pollUntil(
      async () =>
        (await pollingHosts({ client: async () => client, namespace: 'default' }, taskQueue)).length >= WORKERS,
      {
        timeoutMs: 300_000,
        intervalMs: 500,
        what: `${WORKERS} workers polling ${taskQueue}`,
      },
    );

    console.log(
      `big matrix: ${cells} cells (repeat ${REPEAT}), ${WORKERS} workers, concurrency ${CONCURRENCY}, run ${runId}`,
    );
    const spec = orchestrationSpec({
      name: 'big-matrix',
      url: server.url,
      passwordEnv: 'BIG_MATRIX_PASSWORD',
      version: VERSIONS,
      codec: CODECS,
      repeat: REPEAT,
      concurrency: CONCURRENCY,
      resultsDir,
    });
    const t0 = Date.now();
    for (const w of workers) w.readyRssMb = w.lastRssMb;
    const workersReadyS = Math.round((t0 - Math.min(...workers.map((w) => w.startedAt))) / 1000);
    const handle = await client.workflow.start('benchmarkMatrix', { taskQueue, workflowId: runId, args: [spec] });
    progress = setInterval(() => {
      handle
        .query<MatrixProgress>('progress')
        .then(
          (p) =>
            p.total > 0 && console.log(`  ${((Date.now() - t0) / 1000).toFixed(0)} s: ${p.done}/${p.total} cells done`),
        )
        .catch(() => undefined);
    }, 30_000);
    const result = (await handle.result()) as MatrixResult;
    const wallMs = Date.now() - t0;
    clearInterval(progress);
    clearInterval(sampler);
    sample();
    const succeeded = result.cells.filter((c) => c.status === 'succeeded').length;

    // Visibility is eventually consistent: wait until every cell workflow is listed as closed.
    const cellQuery = `ChbenchRunId = '${runId}' AND WorkflowType = 'benchmarkCell'`;
    const listed = await pollUntil(
      async () => {
        const ws: { workflowId: string; runId: string; historyLength: number }[] = [];
        for await (const w of client.workflow.list({ query: `${cellQuery} AND ExecutionStatus != 'Running'` }))
          ws.push({ workflowId: w.workflowId, runId: w.runId, historyLength: w.historyLength });
        return ws.length >= cells ? ws : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 1000, what: `visibility: ${cells} closed cell workflows` },
    ).catch(async () => {
      const ws: { workflowId: string; runId: string; historyLength: number }[] = [];
      for await (const w of client.workflow.list({ query: cellQuery }))
        ws.push({ workflowId: w.workflowId, runId: w.runId, historyLength: w.historyLength });
      return ws;
    });
    const matrixRuns: number[] = [];
    for await (const w of client.workflow.list({ query: `WorkflowId = '${runId}'` })) matrixRuns.push(w.historyLength);

    let maxCell = 0;
    const orchestration: number[] = [];
    for (let i = 0; i < listed.length; i += 8) {
      await Promise.all(
        listed.slice(i, i + 8).map(async (w) => {
          const events = (await client.workflow.getHandle(w.workflowId, w.runId).fetchHistory()).events ?? [];
          maxCell = Math.max(maxCell, w.historyLength, events.length);
          orchestration.push(orchestrationMs(events));
        }),
      );
    }
    const maxMatrix = Math.max(0, ...matrixRuns);
    const maxRss = Math.max(...workers.map((w) => w.maxRssMb));
    const out = {
      measured_at: new Date().toISOString(),
      commit: chbenchVersion().commit,
      cpus: os.availableParallelism(),
      workers: WORKERS,
      concurrency: CONCURRENCY,
      repeat: REPEAT,
      cells,
      succeeded,
      cell_workflows: listed.length,
      matrix_runs: matrixRuns.length,
      wall_s: Math.round(wallMs / 100) / 10,
      workers_ready_s: workersReadyS,
      max_history_events: Math.max(maxMatrix, maxCell),
      max_history_events_matrix: maxMatrix,
      max_history_events_cell: maxCell,
      max_worker_rss_mb: Math.round(maxRss * 10) / 10,
      worker_rss_mb: Object.fromEntries(
        workers.map((w) => [
          w.host,
          {
            max: Math.round(w.maxRssMb * 10) / 10,
            max_at_s: Math.round(w.maxRssAtMs / 1000),
            at_matrix_start: Math.round(w.readyRssMb * 10) / 10,
            at_end: Math.round(w.lastRssMb * 10) / 10,
          },
        ]),
      ),
      workflow_code: 'prebuilt bundle',
      max_child_rss_mb: Math.round(Math.max(...workers.map((w) => w.maxChildRssMb)) * 10) / 10,
      rss_samples: workers.reduce((n, w) => n + w.samples, 0),
      worker_exits: Object.fromEntries(workers.filter((w) => w.exited).map((w) => [w.host, w.exited])),
      orchestration_ms_per_cell: orchestration.length ? Math.round(mean(orchestration)) : null,
      orchestration_ms_per_cell_p95: orchestration.length ? Math.round(quantile(orchestration, 0.95)) : null,
      wall_ms_per_cell: Math.round((wallMs * CONCURRENCY) / cells),
      limits: { history_events: HISTORY_LIMIT, worker_rss_mb: RSS_LIMIT_MB },
      source: {
        max_history_events:
          'historyLength of ListWorkflowExecutions for every matrix run and cell workflow (and the fetched cell histories)',
        max_worker_rss_mb: `VmRSS of /proc/<pid>/status of each worker process, every ${RSS_SAMPLE_MS} ms, MiB`,
        workflow_code: 'prebuilt bundle',
        max_child_rss_mb: `VmRSS of the worker processes' children (/proc/<pid>/task/<pid>/children: the report renderer that writeReport starts), every ${RSS_SAMPLE_MS} ms, MiB`,
        orchestration_ms_per_cell:
          'cell history: (close − start) − union of ActivityTaskStarted→Completed/Failed/TimedOut/Canceled intervals (server clock)',
        wall_ms_per_cell: 'matrix wall time (bench clock) × concurrency / cells',
      },
    };
    const file = path.join(REPO_ROOT, 'bench', 'results', 'big-matrix.json');
    writeJsonAtomic(file, out);
    console.log(file);

    const why: string[] = [];
    if (out.max_history_events >= HISTORY_LIMIT)
      why.push(`a history has ${out.max_history_events} events (limit ${HISTORY_LIMIT})`);
    if (maxRss >= RSS_LIMIT_MB) why.push(`a worker reached ${out.max_worker_rss_mb} MB RSS (limit ${RSS_LIMIT_MB})`);
    if (succeeded !== cells) why.push(`${cells - succeeded} cell(s) did not succeed`);
    if (listed.length !== cells) why.push(`${listed.length} cell workflows listed, ${cells} expected`);
    console.log(
      `big matrix: ${succeeded}/${cells} cells succeeded in ${out.wall_s} s on ${WORKERS} workers; matrix ran ${matrixRuns.length} time(s); ` +
        `largest history ${out.max_history_events} events (matrix ${maxMatrix}, cell ${maxCell}; limit ${HISTORY_LIMIT}); ` +
        `largest worker RSS ${out.max_worker_rss_mb} MB (limit ${RSS_LIMIT_MB}); ` +
        `orchestration per cell mean ${out.orchestration_ms_per_cell} ms, p95 ${out.orchestration_ms_per_cell_p95} ms; ` +
        `wall per cell ${out.wall_ms_per_cell} ms`,
    );
    console.log(why.length ? `FAIL: ${why.join('; ')}` : 'PASS');
    if (why.length) process.exitCode = 1;
  } finally {
    if (progress) clearInterval(progress);
    if (sampler) clearInterval(sampler);
    await Promise.all(workers.map(stopWorker));
    if (server) await teardownEmbedded(server).catch((e) => console.error(`embedded server teardown: ${e}`));
    await connection?.close();
    await dev?.stop();
    // The results database a worker's storeRun started (detached).
    await stopEmbeddedResultsDb(path.join(resultsDir, 'db'));
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (require.main === module)
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
