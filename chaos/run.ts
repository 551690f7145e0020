/**
 * `npm run test:chaos`: the fault-injection suite. Real Temporal dev server (file-backed), real worker
 * processes (`chbench worker`), real ClickHouse targets (embedded engine and Debian's 18.16 server).
 *
 * Trials (each a fresh run, checked afterwards):
 *   1. kill-worker      SIGKILL the worker at seeded random moments covering every step kind, restart it
 *   2. kill-server      SIGKILL the ClickHouse server during load and during a query run (embedded + local)
 *   3. restart-temporal stop and restart the Temporal dev server (same SQLite file) mid-run
 *   4. cancel           `cancel` a run in the middle of a cell
 *   5. sigterm-worker   SIGTERM a worker during a long activity (graceful shutdown), then start a new one
 *   6. kubernetes       `target.kind: kubernetes` on the simulated EKS of the test tree (API emulator,
 *                       kubelet running the embedded engine per pod, EBS + CloudWatch in moto): ≥ 3 worker
 *                       SIGKILLs (one during provision), a pod eviction during load or the baseline
 *                       queries and a pod deletion (grace 0) during a later step; also checks recorded
 *                       target restarts, the report's Kubernetes / Cloud metrics / Cost sections, and that
 *                       no chbench pod, PVC, EBS volume or pod server process is left
 * After each: exactly one result per cell (one completed child execution), loaded rows equal the
 * spec, no two attempts of a step overlapped on the server (archived statement logs), no process,
 * data directory or database of the run left. Kills counted: worker SIGKILLs and pod kills. Prints one
 * line per trial and a final line
 *   chaos: trials N, survived N, kills K, duplicated cells 0, double loads 0, leaked resources 0
 * and a line on a 504-cell matrix's history sizes (each < 10,000 events).
 * Exit code 1 if any trial did not survive. `CHAOS_SEED=<n>` replays a run's random choices;
 * `CHAOS_TRIALS=a,b` runs only those (names as printed, plus `long-matrix`).
 */
import { stopEmbeddedResultsDb } from '../src/results/db';
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, readFileSync, existsSync, readdirSync, openSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection, WorkflowFailedError } from '@temporalio/client';
import { startDevServer, type DevServer } from '../src/temporal/dev-server';
import { freePort } from '../src/lib/net';
import { pollUntil, PollTimeoutError } from '../src/lib/poll';
import { REPO_ROOT } from '../src/config';
import { readRecord } from '../src/results/store';
import { CellResult, RunRecord } from '../src/schema/results';
import { readLabel } from '../src/targets/process';
import { parseQueryId } from '../src/schema/cell';
import { StatementLine } from '../src/schema/target';
import { EVENT_BUDGET, type MatrixProgress } from '../src/workflows/benchmark-matrix';
import type { CellProgress } from '../src/workflows/benchmark-cell';
import { CELL_STEPS } from '../src/schema/cell';
import { loadWorkload } from '../src/lib/workload';
import { orchestrationSpec } from '../test/helpers/orchestration-spec';

const LOCAL_BINARY = process.env.CHBENCH_CLICKHOUSE_SERVER ?? '/usr/sbin/clickhouse-server';
const MIN_KILLS = Number(process.env.CHAOS_MIN_KILLS ?? 20);
const seed = Number(process.env.CHAOS_SEED ?? Math.floor(Math.random() * 2 ** 31));

/** mulberry32: a small seeded PRNG, so `CHAOS_SEED` replays the same kill moments. */
function prng(a: number): () => number {
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = prng(seed);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Ctx {
  tmp: string;
  workDir: string;
  resultsDir: string;
  taskQueue: string;
  server: DevServer;
  port: number;
  dbFile: string;
  client: Client;
  connection: Connection;
  worker?: ChildProcess;
  /** Extra environment of the worker child (the kubernetes trial: KUBECONFIG and the AWS SDK's variables). */
  workerEnv?: Record<string, string>;
}

function startWorker(ctx: Ctx, stepDelayMs = 300): ChildProcess {
  const log = openSync(path.join(ctx.tmp, 'worker.log'), 'a');
  const w = spawn(process.execPath, [path.join(REPO_ROOT, 'dist', 'src', 'cli.js'), 'worker'], {
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: ctx.server.address,
      CHBENCH_TASK_QUEUE: ctx.taskQueue,
      CHBENCH_WORK_DIR: ctx.workDir,
      CHBENCH_LOG_LEVEL: 'WARN',
      CHBENCH_FAULT_STEP_DELAY_MS: String(stepDelayMs),
      ...ctx.workerEnv,
    },
    stdio: ['ignore', log, log],
  });
  ctx.worker = w;
  return w;
}

async function stopWorker(ctx: Ctx, signal: NodeJS.Signals): Promise<void> {
  const w = ctx.worker;
  if (!w || w.exitCode !== null || w.signalCode !== null) return;
  const done = new Promise((r) => w.once('exit', r));
  w.kill(signal);
  const t = setTimeout(() => w.kill('SIGKILL'), 60_000);
  await done;
  clearTimeout(t);
}

const spec = (ctx: Ctx, name: string, extra: Record<string, unknown> = {}) => ({
  name,
  workload: 'logs',
  scale: 400_000,
  target: { kind: 'embedded' },
  matrix: { version: ['26.7'], codec: ['LZ4', 'ZSTD(3)'] },
  protocol: { warmRuns: 2, quiesce: { stableForMs: 500 } },
  // Both cells at once: more steps in flight per kill (timings are not the point here).
  concurrency: 2,
  resultsDir: ctx.resultsDir,
  ...extra,
});

const localSpec = (ctx: Ctx, name: string) => ({
  name,
  workload: 'logs-legacy',
  scale: 300_000,
  target: { kind: 'local', binaries: { '18.16': LOCAL_BINARY } },
  matrix: { version: ['18.16'], codec: ['LZ4'] },
  skipIndex: false,
  protocol: { warmRuns: 2, quiesce: { stableForMs: 500 } },
  resultsDir: ctx.resultsDir,
});

async function cellProgress(ctx: Ctx, runId: string): Promise<Record<string, CellProgress>> {
  const out: Record<string, CellProgress> = {};
  const p = (await ctx.client.workflow
    .getHandle(runId)
    .query<MatrixProgress>('progress')
    .catch(() => undefined)) as MatrixProgress | undefined;
  for (const k of p?.running ?? []) {
    const c = await ctx.client.workflow
      .getHandle(`${runId}/${k}`)
      .query<CellProgress>('progress')
      .catch(() => undefined);
    if (c) out[k] = c;
  }
  return out;
}

async function cellSteps(ctx: Ctx, runId: string): Promise<Record<string, string>> {
  return Object.fromEntries(Object.entries(await cellProgress(ctx, runId)).map(([k, c]) => [k, c.step]));
}

/** The key of a cell of `runId` at `step` (checked every 100 ms), or undefined when none got there in `timeoutMs`. */
async function waitForStep(ctx: Ctx, runId: string, step: string, timeoutMs = 180_000): Promise<string | undefined> {
  try {
    return await pollUntil(
      async () => {
        const steps = await cellSteps(ctx, runId);
        return Object.keys(steps).find((c) => steps[c] === step);
      },
      { what: `a cell of ${runId} at step ${step}`, timeoutMs, intervalMs: 100, stopOn: () => true },
    );
  } catch (e) {
    if (e instanceof PollTimeoutError) return undefined;
    throw e;
  }
}

/** What the checks found for one run. */
interface Check {
  problems: string[];
  duplicated: number;
  doubleLoads: number;
  leaked: number;
}

/** A line of the archived statement log (`server-log.jsonl`). */
type LogLine = StatementLine;

async function checkRun(ctx: Ctx, runId: string, scale: number, expect: 'completed' | 'cancelled'): Promise<Check> {
  const c: Check = { problems: [], duplicated: 0, doubleLoads: 0, leaked: 0 };
  const run = readRecord(path.join(ctx.resultsDir, runId, 'run.json'), RunRecord);
  if (run.status !== expect) c.problems.push(`run status ${run.status}, expected ${expect}`);
  for (const k of run.cells) {
    const file = path.join(ctx.resultsDir, runId, 'cells', k, 'result.json');
    if (!existsSync(file)) {
      if (expect === 'completed') c.problems.push(`${k}: no result`);
      continue;
    }
    const r = readRecord(file, CellResult);
    if (expect === 'completed' && r.status !== 'succeeded') c.problems.push(`${k}: ${r.status} ${r.error ?? ''}`);
    if (r.load && r.load.rows_in_table !== scale)
      c.problems.push(`${k}: ${r.load.rows_in_table} rows, expected ${scale}`);
    // Exactly one completed child execution per cell.
    let completed = 0;
    for await (const w of ctx.client.workflow.list({ query: `WorkflowId = '${runId}/${k}'` }))
      if (w.status.name === 'COMPLETED') completed++;
    if (completed > 1) c.duplicated++;
    if (expect === 'completed' && completed !== 1) c.problems.push(`${k}: ${completed} completed cell executions`);
    // Statement log archived at teardown: attempts of one step never overlap; one load after the last truncate.
    const logFile = path.join(ctx.resultsDir, runId, 'cells', k, 'server-log.jsonl');
    if (!existsSync(logFile)) {
      c.problems.push(`${k}: no archived server log`);
      continue;
    }
    const lines = readFileSync(logFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => StatementLine.parse(JSON.parse(l)))
      .filter((l) => l.started_at_ms !== null);
    const byStep = new Map<string, LogLine[]>();
    for (const l of lines) {
      const id = parseQueryId(l.query_id);
      if (!id) continue;
      byStep.set(id.stepPrefix, [...(byStep.get(id.stepPrefix) ?? []), l]);
    }
    for (const [stepKey, ls] of byStep) {
      for (const a of ls)
        for (const b of ls) {
          const [aa, ab] = [parseQueryId(a.query_id)!.attempt, parseQueryId(b.query_id)!.attempt];
          if (aa === ab || a === b) continue;
          if (
            a.started_at_ms! < b.finished_at_ms &&
            b.started_at_ms! < a.finished_at_ms &&
            a.started_at_ms! <= b.started_at_ms!
          )
            c.problems.push(`${k}: attempts ${aa} and ${ab} of ${stepKey} overlapped on the server`);
        }
    }
    const loadStatement = (l: LogLine) => {
      const id = parseQueryId(l.query_id);
      return id?.step === 'load' && !id.run ? (id.statement ?? 'insert') : null;
    };
    const loads = lines.filter((l) => loadStatement(l) === 'insert' && l.ok).length;
    const truncates = lines.filter((l) => loadStatement(l) === 'truncate' && l.ok).length;
    if (loads - truncates > 1) c.doubleLoads++;
  }
  // Nothing of the run left: directories and processes.
  const runDir = path.join(ctx.workDir, runId);
  if (existsSync(runDir) && readdirSync(runDir).length) c.leaked += readdirSync(runDir).length;
  const procs = execFileSync('sh', ['-c', `pgrep -af '${ctx.workDir}/${runId}/' || true`])
    .toString()
    .split('\n')
    .filter((l) => l && !l.includes('pgrep'));
  c.leaked += procs.length;
  if (c.leaked) c.problems.push(`leaked: ${c.leaked}`);
  return c;
}

async function result(ctx: Ctx, runId: string): Promise<'completed' | 'cancelled' | 'failed'> {
  try {
    await ctx.client.workflow.getHandle(runId).result();
    return 'completed';
  } catch (e) {
    if (e instanceof WorkflowFailedError && (e.cause as Error)?.name === 'CancelledFailure') return 'cancelled';
    return 'failed';
  }
}

// ------------------------------------------------------------------------------------------------
// Trials

interface TrialOutcome {
  name: string;
  survived: boolean;
  detail: string;
  kills: number;
  check: Check;
}

/**
 * Every cell step a kill must hit (the cell's progress `step` values, from the one table of steps).
 * The load grids' steps run only with `grids` in the spec, which this suite's spec leaves out: a kill
 * inside a grid (finished points not run again) is test/e2e/grids.test.ts.
 */
const GRID_PHASES = new Set<string>(['concurrency', 'insert-grid']);
/** `after-load` runs only for a workload with after-load statements: covered when the suite's workload (`logs`) has some. */
const SPEC_PHASES = new Set<string>(loadWorkload('logs').afterLoad.length ? [] : ['after-load']);
const STEP_KINDS: string[] = CELL_STEPS.map((s) => s.phase).filter((p) => !GRID_PHASES.has(p) && !SPEC_PHASES.has(p));

/** Storage figures of a finished run's cells: rows, uncompressed and compressed bytes per cell. */
function storageOf(
  ctx: Ctx,
  runId: string,
): Record<string, { rows: number; uncompressed: number; compressed: number }> {
  const out: Record<string, { rows: number; uncompressed: number; compressed: number }> = {};
  for (const k of readdirSync(path.join(ctx.resultsDir, runId, 'cells'))) {
    const r = readRecord(path.join(ctx.resultsDir, runId, 'cells', k, 'result.json'), CellResult);
    if (r.storage)
      out[k] = {
        rows: r.storage.rows,
        // Every chaos cell runs on 26.7, which gives both (NaN fails every comparison if one were null).
        uncompressed: r.storage.uncompressed_bytes ?? NaN,
        compressed: r.storage.compressed_bytes ?? NaN,
      };
  }
  return out;
}

/**
 * Compare a disturbed run with the undisturbed reference: same rows and uncompressed bytes exactly;
 * compressed bytes within 1 % (they depend on how background merges happened to cut the parts).
 */
function compareStorage(ref: ReturnType<typeof storageOf>, got: ReturnType<typeof storageOf>, runId: string): string[] {
  const problems: string[] = [];
  for (const [k, r] of Object.entries(ref)) {
    const g = got[k];
    if (!g) continue;
    if (g.rows !== r.rows || g.uncompressed !== r.uncompressed)
      problems.push(
        `${runId} ${k}: rows/uncompressed ${g.rows}/${g.uncompressed} differ from the undisturbed run's ${r.rows}/${r.uncompressed}`,
      );
    if (Math.abs(g.compressed - r.compressed) / r.compressed > 0.01)
      problems.push(`${runId} ${k}: compressed ${g.compressed} vs undisturbed ${r.compressed} (> 1 %)`);
  }
  return problems;
}

async function trialKillWorker(ctx: Ctx): Promise<TrialOutcome> {
  // The undisturbed reference run of the same spec.
  const refId = `chaos-kill-${seed}-reference`;
  await ctx.client.workflow.execute('benchmarkMatrix', {
    taskQueue: ctx.taskQueue,
    workflowId: refId,
    args: [spec(ctx, 'chaos-kill')],
  });
  const reference = storageOf(ctx, refId);
  let maxDiff = 0;
  let kills = 0;
  const covered = new Set<string>();
  const checks: Check[] = [];
  let runs = 0;
  const problems: string[] = [];
  while ((kills < MIN_KILLS || covered.size < STEP_KINDS.length) && runs < 8) {
    runs++;
    const runId = `chaos-kill-${seed}-${runs}`;
    await ctx.client.workflow.start('benchmarkMatrix', {
      taskQueue: ctx.taskQueue,
      workflowId: runId,
      args: [spec(ctx, 'chaos-kill')],
    });
    const done = result(ctx, runId);
    let finished = false;
    void done.then(() => (finished = true));
    // Between kills the run must make progress (a step finishes), as after a real crash and restart.
    // Each kill is aimed at a step kind not yet hit when possible, else at a random moment.
    let lastDone = -1;
    while (!finished) {
      for (;;) {
        const p = Object.values(await cellProgress(ctx, runId));
        const doneNow = p.reduce((a, c) => a + c.done.length, 0) + p.length * 100;
        if (finished || (p.length && doneNow > lastDone)) break;
        await sleep(100);
      }
      if (finished) break;
      const want = STEP_KINDS.filter((s) => !covered.has(s));
      const deadline = Date.now() + 500 + rand() * (want.length ? 8000 : 4000);
      while (!finished && Date.now() < deadline) {
        const steps = Object.values(await cellSteps(ctx, runId));
        if (steps.some((s) => want.includes(s)) && rand() < 0.7) break;
        await sleep(30 + rand() * 120);
      }
      if (finished) break;
      const p = Object.values(await cellProgress(ctx, runId));
      await stopWorker(ctx, 'SIGKILL');
      kills++;
      p.forEach((c) => covered.add(c.step));
      lastDone = p.reduce((a, c) => a + c.done.length, 0) + p.length * 100;
      startWorker(ctx);
    }
    const status = await done;
    if (status !== 'completed') problems.push(`${runId}: ${status}`);
    checks.push(await checkRun(ctx, runId, 400_000, 'completed'));
    const got = storageOf(ctx, runId);
    problems.push(...compareStorage(reference, got, runId));
    for (const [k, g] of Object.entries(got))
      if (reference[k])
        maxDiff = Math.max(maxDiff, Math.abs(g.compressed - reference[k].compressed) / reference[k].compressed);
  }
  const check = merge(checks);
  check.problems.push(...problems);
  const missing = STEP_KINDS.filter((s) => !covered.has(s));
  if (kills < MIN_KILLS) check.problems.push(`only ${kills} kills`);
  return {
    name: 'kill-worker',
    survived: check.problems.length === 0,
    detail: `${runs} run(s), ${kills} SIGKILLs, rows and uncompressed bytes equal to an undisturbed run, compressed within ${(maxDiff * 100).toFixed(2)} %, steps hit: ${STEP_KINDS.filter((k) => covered.has(k)).length}/${STEP_KINDS.length}${missing.length ? ` (missed ${missing.join(', ')})` : ''}`,
    kills,
    check,
  };
}

function serverPid(ctx: Ctx, runId: string, cellKey: string): number | undefined {
  return readLabel(path.join(ctx.workDir, runId, cellKey))?.pid;
}

async function trialKillServer(ctx: Ctx, kind: 'embedded' | 'local'): Promise<TrialOutcome> {
  const runId = `chaos-server-${kind}-${seed}`;
  const s = kind === 'embedded' ? spec(ctx, 'chaos-server') : localSpec(ctx, 'chaos-server');
  await ctx.client.workflow.start('benchmarkMatrix', { taskQueue: ctx.taskQueue, workflowId: runId, args: [s] });
  const done = result(ctx, runId);
  const killed: string[] = [];
  for (const step of ['load', 'queries-baseline']) {
    const cell = await waitForStep(ctx, runId, step);
    if (!cell) continue;
    await sleep(step === 'load' ? 300 : 200 + rand() * 300);
    const pid = serverPid(ctx, runId, cell);
    if (pid) {
      process.kill(pid, 'SIGKILL');
      killed.push(`${cell}@${step}`);
    }
  }
  const status = await done;
  const check = await checkRun(ctx, runId, s.scale, 'completed');
  if (status !== 'completed') check.problems.push(`run ${status}`);
  if (killed.length < 2) check.problems.push(`server killed only ${killed.length} time(s)`);
  let restarts = 0;
  for (const k of readdirSync(path.join(ctx.resultsDir, runId, 'cells')))
    restarts += readRecord(path.join(ctx.resultsDir, runId, 'cells', k, 'result.json'), CellResult).target_restarts
      .length;
  if (restarts < killed.length) check.problems.push(`${killed.length} kills but ${restarts} recorded target restarts`);
  return {
    name: `kill-server-${kind}`,
    survived: check.problems.length === 0,
    detail: `killed during ${killed.join(', ')}; target restarts recorded ${restarts}`,
    kills: 0,
    check,
  };
}

async function trialRestartTemporal(ctx: Ctx): Promise<TrialOutcome> {
  const runId = `chaos-temporal-${seed}`;
  await ctx.client.workflow.start('benchmarkMatrix', {
    taskQueue: ctx.taskQueue,
    workflowId: runId,
    args: [spec(ctx, 'chaos-temporal')],
  });
  const cell = await waitForStep(ctx, runId, 'load');
  await sleep(500 + rand() * 1500);
  await ctx.server.stop();
  await sleep(3000);
  ctx.server = await startDevServer({ port: ctx.port, dbFile: ctx.dbFile, keepDb: true });
  await ctx.connection.close();
  ctx.connection = await Connection.connect({ address: ctx.server.address });
  ctx.client = new Client({ connection: ctx.connection });
  const status = await result(ctx, runId);
  const check = await checkRun(ctx, runId, 400_000, 'completed');
  if (status !== 'completed') check.problems.push(`run ${status}`);
  return {
    name: 'restart-temporal',
    survived: check.problems.length === 0,
    detail: `server stopped for 3 s while ${cell ?? '?'} was loading`,
    kills: 0,
    check,
  };
}

async function trialCancel(ctx: Ctx): Promise<TrialOutcome> {
  const runId = `chaos-cancel-${seed}`;
  await ctx.client.workflow.start('benchmarkMatrix', {
    taskQueue: ctx.taskQueue,
    workflowId: runId,
    args: [spec(ctx, 'chaos-cancel')],
  });
  const step = rand() < 0.5 ? 'load' : 'queries-baseline';
  const cell = await waitForStep(ctx, runId, step);
  await sleep(200 + rand() * 500);
  await ctx.client.workflow.getHandle(runId).cancel();
  const status = await result(ctx, runId);
  const check = await checkRun(ctx, runId, 400_000, 'cancelled');
  if (status !== 'cancelled') check.problems.push(`run ended ${status}, expected cancelled`);
  return {
    name: 'cancel',
    survived: check.problems.length === 0,
    detail: `cancelled while ${cell ?? '?'} was in ${step}`,
    kills: 0,
    check,
  };
}

async function trialSigtermWorker(ctx: Ctx): Promise<TrialOutcome> {
  const runId = `chaos-sigterm-${seed}`;
  await ctx.client.workflow.start('benchmarkMatrix', {
    taskQueue: ctx.taskQueue,
    workflowId: runId,
    args: [spec(ctx, 'chaos-sigterm')],
  });
  const cell = await waitForStep(ctx, runId, 'queries-baseline');
  const pidBefore = cell ? serverPid(ctx, runId, cell) : undefined;
  await stopWorker(ctx, 'SIGTERM');
  const pidAfterShutdown = cell ? serverPid(ctx, runId, cell) : undefined;
  const aliveAfter = pidBefore !== undefined && existsSync(`/proc/${pidBefore}`);
  startWorker(ctx);
  const status = await result(ctx, runId);
  const check = await checkRun(ctx, runId, 400_000, 'completed');
  if (status !== 'completed') check.problems.push(`run ${status}`);
  if (!aliveAfter || pidBefore !== pidAfterShutdown) check.problems.push('the worker shutdown tore the target down');
  return {
    name: 'sigterm-worker',
    survived: check.problems.length === 0,
    detail: `SIGTERM while ${cell ?? '?'} ran queries; its server (pid ${pidBefore}) ${aliveAfter ? 'kept running' : 'was stopped'}`,
    kills: 0,
    check,
  };
}

/** Namespace of the kubernetes trial's pods and PVCs (the spec's `target.namespace`). */
const K8S_NAMESPACE = 'bench-database';

/** Cell steps during which the cell's pod serves statements: a pod lost then must be re-provisioned (a target restart). */
const POD_STEPS: string[] = STEP_KINDS.filter((s) => !['provision', 'write-results', 'teardown'].includes(s));

/**
 * A run's progress mark: steps done over its running cells (+100 per running cell), to see that it
 * moved on; undefined when no cell answered (none running, or no worker answers queries yet).
 */
async function progressMark(ctx: Ctx, runId: string): Promise<number | undefined> {
  const p = Object.values(await cellProgress(ctx, runId));
  return p.length ? p.reduce((a, c) => a + c.done.length, 0) + p.length * 100 : undefined;
}

/**
 * A cell of `runId` at one of `steps` (polled every 100 ms) as `[cellKey, step]`, or undefined when
 * `stop()` turns true or none got there within `timeoutMs`.
 */
async function waitForAnyStep(
  ctx: Ctx,
  runId: string,
  steps: string[],
  stop: () => boolean,
  timeoutMs = 240_000,
): Promise<[string, string] | undefined> {
  const deadline = Date.now() + timeoutMs;
  while (!stop() && Date.now() < deadline) {
    const hit = Object.entries(await cellSteps(ctx, runId)).find(([, s]) => steps.includes(s));
    if (hit) return hit;
    await sleep(100);
  }
  return undefined;
}

/**
 * `kubernetes`: the seed article's setting on the simulated EKS of the test tree (`test/k8s/eks-sim.ts`:
 * Kubernetes API emulator, scheduler, kubelet running the embedded engine per pod, EBS volumes and
 * CloudWatch in moto). The worker child gets KUBECONFIG and the AWS SDK's environment; a two-cell run
 * (`logs`, LZ4 and ZSTD(3), skip index, cloud metrics and cost) is disturbed by ≥ 3 worker SIGKILLs at
 * seeded moments (one aimed at `provision`), one pod eviction (`SimCluster.evict`) during `load` or
 * `queries-baseline`, and one pod deletion through the API with `gracePeriodSeconds: 0` during a later
 * step. Checked: the run completed, {@link checkRun} (the statement log is the engine's, archived by the
 * target at teardown), one recorded target restart per pod kill that landed while its cell used the pod,
 * the report's Kubernetes / Cloud metrics / Cost sections, and nothing left: chbench pods and PVCs of
 * the run's cells (labelled `app.kubernetes.io/managed-by=chbench`, named by `cellNames`), CSI-created
 * EBS volumes in moto (`DescribeVolumes`, tag `CSIVolumeName`) not deleted, and server processes the
 * simulated kubelet still runs (`SimCluster.running()`).
 */
async function trialKubernetes(ctx: Ctx): Promise<TrialOutcome> {
  const { startEksSim } = await import('../test/k8s/eks-sim');
  const { cellNames } = await import('../src/targets/kubernetes/kube');
  const { CoreV1Api, KubeConfig } = await import('@kubernetes/client-node');
  const { EC2Client, DescribeVolumesCommand } = await import('@aws-sdk/client-ec2');
  // Two m5.xlarge nodes: each pod requests 2.5 vCPU, so two concurrent cells need a node each.
  const sim = await startEksSim({
    publishEveryMs: 5000,
    nodes: [
      { name: 'ip-10-0-1-10.ec2.internal', zone: 'us-east-1a' },
      { name: 'ip-10-0-1-11.ec2.internal', zone: 'us-east-1a' },
    ],
  });
  const runId = `chaos-k8s-${seed}`;
  let finished = false;
  try {
    await stopWorker(ctx, 'SIGTERM');
    ctx.workerEnv = { KUBECONFIG: sim.kubeconfigPath, ...sim.awsEnv };
    startWorker(ctx);
    const kc = new KubeConfig();
    kc.loadFromFile(sim.kubeconfigPath);
    const core = kc.makeApiClient(CoreV1Api);
    const s = {
      name: 'chaos-k8s',
      workload: 'logs',
      scale: 400_000,
      target: {
        kind: 'kubernetes',
        namespace: K8S_NAMESPACE,
        access: 'podIP',
        storageSize: '100Gi',
        instanceType: 'm5.xlarge',
        // The simulated kubelet starts a pod in seconds; these fail a stuck pod in minutes, not hours.
        timeouts: { scheduleMs: 60_000, pvcMs: 60_000, pullMs: 60_000, readyMs: 120_000, watchSilenceMs: 15_000 },
      },
      matrix: { version: ['26.7'], codec: ['LZ4', 'ZSTD(3)'] },
      skipIndex: true,
      protocol: { warmRuns: 2, quiesce: { stableForMs: 500 } },
      concurrency: 2,
      teardown: 'always',
      cloud: { region: sim.region, settleMs: 5000 },
      resultsDir: ctx.resultsDir,
    };
    await ctx.client.workflow.start('benchmarkMatrix', { taskQueue: ctx.taskQueue, workflowId: runId, args: [s] });
    const done = result(ctx, runId);
    void done.then(() => (finished = true));
    const isFinished = () => finished;
    const events: string[] = [];
    let workerKills = 0;
    let podKills = 0;
    let landed = 0;

    /** SIGKILL the worker now and start a new one; note where the cells were. */
    const killWorker = async () => {
      const steps = await cellSteps(ctx, runId);
      await stopWorker(ctx, 'SIGKILL');
      startWorker(ctx);
      workerKills++;
      const at = Object.entries(steps).map(([k, st]) => `${k}@${st}`);
      events.push(`worker SIGKILL (${at.length ? at.join(', ') : 'no cell running'})`);
    };
    /**
     * SIGKILL the worker at a seeded moment (300 ms + up to `maxDelayMs`) once the run moved on since
     * `mark` (a running cell finished a step), or after 15 s of no such sign (the matrix may be reading
     * cloud metrics with no cell running: that activity is a target too). `mark` undefined: no wait.
     */
    const killWorkerLater = async (mark: number | undefined, maxDelayMs: number) => {
      const waitUntil = Date.now() + 15_000;
      const moved = async () => {
        const now = await progressMark(ctx, runId);
        return now !== undefined && now !== mark;
      };
      while (mark !== undefined && !finished && Date.now() < waitUntil && !(await moved())) await sleep(100);
      const deadline = Date.now() + 300 + rand() * maxDelayMs;
      while (!finished && Date.now() < deadline) await sleep(50);
      if (!finished) await killWorker();
    };
    /** Kill the pod of a cell at one of `steps` (evict or delete); a kill lands when its cell still uses the pod. */
    const killPod = async (how: 'evict' | 'delete', steps: string[]) => {
      const hit = await waitForAnyStep(ctx, runId, steps, isFinished);
      if (!hit) return;
      await sleep(150 + rand() * 400);
      const [cell] = hit;
      const step = (await cellSteps(ctx, runId))[cell];
      const { pod } = cellNames(runId, cell);
      if (how === 'evict') await sim.cluster.evict(K8S_NAMESPACE, pod);
      else await core.deleteNamespacedPod({ name: pod, namespace: K8S_NAMESPACE, gracePeriodSeconds: 0 });
      podKills++;
      const onPod = step !== undefined && POD_STEPS.includes(step);
      if (onPod) landed++;
      events.push(`pod ${how === 'evict' ? 'evicted' : 'deleted (grace 0)'} ${cell}@${step ?? 'gone'}`);
    };

    // 1. The worker while a pod is being provisioned.
    if (await waitForAnyStep(ctx, runId, ['provision'], isFinished)) {
      await sleep(rand() * 1500);
      await killWorker();
    }
    // 2. An eviction during load or the baseline queries.
    const evictStep = rand() < 0.5 ? 'load' : 'queries-baseline';
    await killPod('evict', [evictStep]);
    // 3. The worker soon after, while the evicted cell finds its pod lost and re-provisions.
    await killWorkerLater(undefined, 2500);
    // 4. A pod deleted through the API (no grace) during another step that uses it: aimed at a random
    //    one for up to 8 s, else whichever such step a cell reaches first (runs here take a minute or two).
    const others = POD_STEPS.filter((st) => st !== evictStep);
    const aim = others[Math.floor(rand() * others.length)];
    const aimed = await waitForAnyStep(ctx, runId, [aim], isFinished, 8000);
    await killPod('delete', aimed ? [aim] : others);
    // 5. The worker soon after; then at random moments once the run moved on, until it ends (≤ 6 in all).
    await killWorkerLater(undefined, 2500);
    // (-1: nothing answered yet, so wait for a cell to answer again or for 15 s.)
    while (!finished && workerKills < 6) await killWorkerLater((await progressMark(ctx, runId)) ?? -1, 6000);

    const status = await done;
    const check = await checkRun(ctx, runId, s.scale, 'completed');
    if (status !== 'completed') check.problems.push(`run ${status}`);
    if (workerKills < 3) check.problems.push(`only ${workerKills} worker kills`);
    if (podKills < 2) check.problems.push(`only ${podKills} pod kills`);
    const cells = readRecord(path.join(ctx.resultsDir, runId, 'run.json'), RunRecord).cells;
    let restarts = 0;
    for (const k of cells) {
      const file = path.join(ctx.resultsDir, runId, 'cells', k, 'result.json');
      if (existsSync(file)) restarts += readRecord(file, CellResult).target_restarts.length;
    }
    if (restarts < landed) check.problems.push(`${landed} pod kills on a running step but ${restarts} target restarts`);
    const reportFile = path.join(ctx.resultsDir, runId, 'report.md');
    const report = existsSync(reportFile) ? readFileSync(reportFile, 'utf8') : '';
    for (const h of ['## Kubernetes', '## Cloud metrics', '## Cost'])
      if (!report.split('\n').includes(h)) check.problems.push(`report.md has no "${h}"`);
    if (sim.cluster.volumes.created.length < cells.length)
      check.problems.push(`only ${sim.cluster.volumes.created.length} EBS volumes created for ${cells.length} cells`);

    // Leftovers, polled briefly: a PV's volume is deleted by the control plane after its PVC is gone.
    const names = new Set(cells.flatMap((k) => Object.values(cellNames(runId, k))));
    const ec2 = new EC2Client({
      region: sim.awsEnv.AWS_REGION,
      endpoint: sim.awsEnv.AWS_ENDPOINT_URL,
      credentials: { accessKeyId: sim.awsEnv.AWS_ACCESS_KEY_ID, secretAccessKey: sim.awsEnv.AWS_SECRET_ACCESS_KEY },
    });
    const leftovers = async () => {
      const labelSelector = 'app.kubernetes.io/managed-by=chbench';
      const mine = (items: { metadata?: { name?: string } }[]) =>
        items.filter((o) => names.has(o.metadata?.name ?? '')).map((o) => o.metadata!.name!);
      const pods = mine((await core.listNamespacedPod({ namespace: K8S_NAMESPACE, labelSelector })).items);
      const pvcs = mine(
        (await core.listNamespacedPersistentVolumeClaim({ namespace: K8S_NAMESPACE, labelSelector })).items,
      );
      const volumes = ((await ec2.send(new DescribeVolumesCommand({}))).Volumes ?? [])
        .filter((v) => v.Tags?.some((t) => t.Key === 'CSIVolumeName') && v.State !== 'deleted')
        .map((v) => v.VolumeId!);
      const servers = sim.cluster.running().map((c) => `${c.pod} pid ${c.pid}`);
      return { pods, pvcs, volumes, servers, n: pods.length + pvcs.length + volumes.length + servers.length };
    };
    let left = await leftovers();
    for (let i = 0; left.n && i < 60; i++) {
      await sleep(500);
      left = await leftovers();
    }
    ec2.destroy();
    if (left.n) {
      check.leaked += left.n;
      check.problems.push(
        `left: pods [${left.pods.join(', ')}], pvcs [${left.pvcs.join(', ')}], EBS volumes [${left.volumes.join(', ')}], servers [${left.servers.join(', ')}]`,
      );
    }
    return {
      name: 'kubernetes',
      survived: check.problems.length === 0,
      detail: `${workerKills} worker SIGKILLs + ${podKills} pod kills (${landed} on a running step; target restarts recorded ${restarts}): ${events.join('; ')}; ${sim.cluster.volumes.created.length} EBS volumes created, leftover pods ${left.pods.length}, pvcs ${left.pvcs.length}, volumes ${left.volumes.length}, servers ${left.servers.length}`,
      kills: workerKills + podKills,
      check,
    };
  } finally {
    if (!finished)
      await ctx.client.workflow
        .getHandle(runId)
        .terminate('chaos harness error')
        .catch(() => undefined);
    await stopWorker(ctx, 'SIGTERM');
    ctx.workerEnv = undefined;
    startWorker(ctx);
    await sim.stop();
  }
}

/** Repetitions of the long matrix's 28 (version, codec) cells: 18 = 504 cells (CI runs fewer, see .ci/run). */
const LONG_REPEAT = Number(process.env.CHAOS_LONG_REPEAT ?? 18);

/**
 * Not a fault: a 504-cell matrix (trivial workload, 4 version labels × 7 codecs × 18 repetitions;
 * `CHAOS_LONG_REPEAT` sets the repetitions) on one embedded server used as an `external` target,
 * checking that every workflow history — each run of the matrix (it continues as new) and every cell —
 * stays under 10,000 events. With fewer repetitions the matrix's event budget shrinks to half the proportional one,
 * so it still continues as new at least once.
 */
async function longMatrix(ctx: Ctx): Promise<{ ok: boolean; line: string }> {
  const { provisionEmbedded, teardownEmbedded } = await import('../src/targets/embedded');
  const server = await provisionEmbedded({
    runId: `chaos-long-server-${seed}`,
    cellKey: 'shared',
    version: '26.7',
    workDir: path.join(ctx.tmp, 'long-server'),
  });
  const runId = `chaos-long-${seed}`;
  const t0 = Date.now();
  try {
    const spec = orchestrationSpec({
      name: 'long',
      url: server.url,
      version: ['26', '26.7', '26.7.2', '26.7.2.1'],
      codec: ['LZ4', 'LZ4HC', 'ZSTD(1)', 'ZSTD(3)', 'ZSTD(6)', 'ZSTD(9)', 'NONE'],
      repeat: LONG_REPEAT,
      concurrency: 8,
      resultsDir: ctx.resultsDir,
    });
    const total = 28 * LONG_REPEAT;
    const r = (await ctx.client.workflow.execute('benchmarkMatrix', {
      taskQueue: ctx.taskQueue,
      workflowId: runId,
      args:
        LONG_REPEAT < 18
          ? [spec, { eventBudget: Math.max(100, Math.round((EVENT_BUDGET * LONG_REPEAT) / 36)) }]
          : [spec],
    })) as { cells: { status: string }[] };
    const ok = r.cells.filter((c) => c.status === 'succeeded').length;
    let maxCell = 0;
    let cells = 0;
    for await (const w of ctx.client.workflow.list({
      query: `ChbenchRunId = '${runId}' AND WorkflowType = 'benchmarkCell'`,
    })) {
      cells++;
      maxCell = Math.max(maxCell, w.historyLength);
    }
    const matrixRuns: number[] = [];
    for await (const w of ctx.client.workflow.list({ query: `WorkflowId = '${runId}'` }))
      matrixRuns.push(w.historyLength);
    const maxMatrix = Math.max(...matrixRuns);
    const pass = ok === total && cells === total && matrixRuns.length > 1 && Math.max(maxMatrix, maxCell) < 10_000;
    return {
      ok: pass,
      line: `long matrix: ${ok}/${total} cells succeeded in ${((Date.now() - t0) / 1000).toFixed(0)} s; matrix ran ${matrixRuns.length} time(s) (continue-as-new), largest matrix history ${maxMatrix} events, largest cell history ${maxCell} events (limit 10,000)`,
    };
  } finally {
    await teardownEmbedded(server);
  }
}

function merge(cs: Check[]): Check {
  return {
    problems: cs.flatMap((c) => c.problems),
    duplicated: cs.reduce((a, c) => a + c.duplicated, 0),
    doubleLoads: cs.reduce((a, c) => a + c.doubleLoads, 0),
    leaked: cs.reduce((a, c) => a + c.leaked, 0),
  };
}

async function main(): Promise<void> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'chbench-chaos-'));
  const port = await freePort();
  const dbFile = path.join(tmp, 'temporal.sqlite');
  const server = await startDevServer({ port, dbFile, keepDb: true });
  const connection = await Connection.connect({ address: server.address });
  const ctx: Ctx = {
    tmp,
    workDir: path.join(tmp, 'targets'),
    resultsDir: path.join(tmp, 'results'),
    taskQueue: `chaos-${seed}`,
    server,
    port,
    dbFile,
    connection,
    client: new Client({ connection }),
  };
  console.log(`chaos: seed ${seed} (replay with CHAOS_SEED=${seed}); logs in ${tmp}`);
  startWorker(ctx);
  const outcomes: TrialOutcome[] = [];
  const trials: [string, () => Promise<TrialOutcome>][] = [
    ['kill-worker', () => trialKillWorker(ctx)],
    ['kill-server-embedded', () => trialKillServer(ctx, 'embedded')],
    ['kill-server-local', () => trialKillServer(ctx, 'local')],
    ['restart-temporal', () => trialRestartTemporal(ctx)],
    ['cancel', () => trialCancel(ctx)],
    ['sigterm-worker', () => trialSigtermWorker(ctx)],
    ['kubernetes', () => trialKubernetes(ctx)],
  ];
  const only = process.env.CHAOS_TRIALS?.split(',');
  for (const [name, run] of trials) {
    if (only && !only.includes(name)) continue;
    const t0 = Date.now();
    let o: TrialOutcome;
    try {
      o = await run();
    } catch (e) {
      o = {
        name,
        survived: false,
        detail: `harness error: ${(e as Error).stack}`,
        kills: 0,
        check: { problems: [String(e)], duplicated: 0, doubleLoads: 0, leaked: 0 },
      };
    }
    outcomes.push(o);
    console.log(
      `trial ${o.name}: ${o.survived ? 'survived' : 'FAILED'} in ${((Date.now() - t0) / 1000).toFixed(0)} s — ${o.detail}${o.check.problems.length ? `; problems: ${o.check.problems.join('; ')}` : ''}`,
    );
  }
  let longOk = true;
  if (!only || only.includes('long-matrix')) {
    try {
      // No injected step delay here: this measures history sizes of a long matrix, not faults.
      await stopWorker(ctx, 'SIGTERM');
      startWorker(ctx, 0);
      const l = await longMatrix(ctx);
      longOk = l.ok;
      console.log(l.line);
    } catch (e) {
      longOk = false;
      console.log(`long matrix: FAILED: ${(e as Error).stack}`);
    }
  }
  await stopWorker(ctx, 'SIGTERM');
  await ctx.connection.close();
  await ctx.server.stop();
  // The results database's engine process, started (detached) by a worker's storeRun: stopped here.
  await stopEmbeddedResultsDb(path.join(ctx.resultsDir, 'db'));
  const all = merge(outcomes.map((o) => o.check));
  const survived = outcomes.filter((o) => o.survived).length;
  console.log(
    `chaos: trials ${outcomes.length}, survived ${survived}, kills ${outcomes.reduce((a, o) => a + o.kills, 0)}, duplicated cells ${all.duplicated}, double loads ${all.doubleLoads}, leaked resources ${all.leaked}`,
  );
  const pass = survived === outcomes.length && longOk;
  if (pass) rmSync(tmp, { recursive: true, force: true });
  process.exit(pass ? 0 : 1);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
