/**
 * The chaos suite's harness: its knobs (environment variables), the seeded random choices, the worker
 * child process, the run specs the trials start, and the polls that see where a run's cells are.
 *
 * Knobs: `CHAOS_SEED=<n>` replays a run's random choices; `CHAOS_MIN_KILLS` (default 20) is the
 * kill-worker trial's least number of SIGKILLs; `CHBENCH_CLICKHOUSE_SERVER` the Debian 18.16 binary of
 * the local target. `CHAOS_TRIALS` and `CHAOS_LONG_REPEAT`: see `run.ts` and `trials/long-matrix.ts`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync } from 'node:fs';
import path from 'node:path';
import { Client, Connection, WorkflowFailedError } from '@temporalio/client';
import type { DevServer } from '../src/temporal/dev-server';
import { pollUntil, PollTimeoutError } from '../src/lib/poll';
import { REPO_ROOT } from '../src/config';
import { readLabel } from '../src/targets/process';
import type { MatrixProgress } from '../src/workflows/benchmark-matrix';
import type { CellProgress } from '../src/workflows/benchmark-cell';
import { CELL_STEPS } from '../src/schema/cell';
import { loadWorkload } from '../src/lib/workload';

export const LOCAL_BINARY = process.env.CHBENCH_CLICKHOUSE_SERVER ?? '/usr/sbin/clickhouse-server';
export const MIN_KILLS = Number(process.env.CHAOS_MIN_KILLS ?? 20);
export const seed = Number(process.env.CHAOS_SEED ?? Math.floor(Math.random() * 2 ** 31));

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
export const rand = prng(seed);
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What every trial shares: the dev server, its client, the worker child and the directories. */
export interface Ctx {
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

export function startWorker(ctx: Ctx, stepDelayMs = 300): ChildProcess {
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

export async function stopWorker(ctx: Ctx, signal: NodeJS.Signals): Promise<void> {
  const w = ctx.worker;
  if (!w || w.exitCode !== null || w.signalCode !== null) return;
  const done = new Promise((r) => w.once('exit', r));
  w.kill(signal);
  const t = setTimeout(() => w.kill('SIGKILL'), 60_000);
  await done;
  clearTimeout(t);
}

export const spec = (ctx: Ctx, name: string, extra: Record<string, unknown> = {}) => ({
  name,
  workload: 'logs',
  scale: 400_000,
  target: { kind: 'embedded' },
  matrix: { version: ['26.7'], codec: ['LZ4', 'ZSTD(3)'] },
  protocol: { warmRuns: 2, quiesce: { stableForMs: 500 } },
  // Both cells at once: more steps in flight per kill (timings are not the point here).
  concurrency: 2,
  // Crash safety of the cells, not the verdicts: no confirming or re-measuring pairs (each pair adds
  // two cells to every run, the reference run included, and kills land in the same cell steps either
  // way). The A/A control cell stays: a comparing spec needs one.
  verdicts: { confirmPairs: 0 },
  resultsDir: ctx.resultsDir,
  ...extra,
});

export const localSpec = (ctx: Ctx, name: string) => ({
  name,
  workload: 'logs-legacy',
  scale: 300_000,
  target: { kind: 'local', binaries: { '18.16': LOCAL_BINARY } },
  matrix: { version: ['18.16'], codec: ['LZ4'] },
  skipIndex: false,
  protocol: { warmRuns: 2, quiesce: { stableForMs: 500 } },
  resultsDir: ctx.resultsDir,
});

export async function cellProgress(ctx: Ctx, runId: string): Promise<Record<string, CellProgress>> {
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

export async function cellSteps(ctx: Ctx, runId: string): Promise<Record<string, string>> {
  return Object.fromEntries(Object.entries(await cellProgress(ctx, runId)).map(([k, c]) => [k, c.step]));
}

/** The key of a cell of `runId` at `step` (checked every 100 ms), or undefined when none got there in `timeoutMs`. */
export async function waitForStep(
  ctx: Ctx,
  runId: string,
  step: string,
  timeoutMs = 180_000,
): Promise<string | undefined> {
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

/** How a run ended: its matrix workflow's result. */
export async function result(ctx: Ctx, runId: string): Promise<'completed' | 'cancelled' | 'failed'> {
  try {
    await ctx.client.workflow.getHandle(runId).result();
    return 'completed';
  } catch (e) {
    if (e instanceof WorkflowFailedError && (e.cause as Error)?.name === 'CancelledFailure') return 'cancelled';
    return 'failed';
  }
}

/**
 * Every cell step a kill must hit (the cell's progress `step` values, from the one table of steps).
 * The load grids' steps run only with `grids` in the spec, which this suite's spec leaves out: a kill
 * inside a grid (finished points not run again) is test/e2e/grids.test.ts.
 */
const GRID_PHASES = new Set<string>(['concurrency', 'insert-grid']);
/** `after-load` runs only for a workload with after-load statements: covered when the suite's workload (`logs`) has some. */
const SPEC_PHASES = new Set<string>(loadWorkload('logs').afterLoad.length ? [] : ['after-load']);
export const STEP_KINDS: string[] = CELL_STEPS.map((s) => s.phase).filter(
  (p) => !GRID_PHASES.has(p) && !SPEC_PHASES.has(p),
);

/** The pid of the engine process of a cell, from its data directory's label; undefined when none. */
export function serverPid(ctx: Ctx, runId: string, cellKey: string): number | undefined {
  return readLabel(path.join(ctx.workDir, runId, cellKey))?.pid;
}

/**
 * A run's progress mark: steps done over its running cells (+100 per running cell), to see that it
 * moved on; undefined when no cell answered (none running, or no worker answers queries yet).
 */
export async function progressMark(ctx: Ctx, runId: string): Promise<number | undefined> {
  const p = Object.values(await cellProgress(ctx, runId));
  return p.length ? p.reduce((a, c) => a + c.done.length, 0) + p.length * 100 : undefined;
}

/**
 * A cell of `runId` at one of `steps` (polled every 100 ms) as `[cellKey, step]`, or undefined when
 * `stop()` turns true or none got there within `timeoutMs`.
 */
export async function waitForAnyStep(
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
