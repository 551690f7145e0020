/**
 * The per-cell counter samples behind the local bottleneck labels: every cell step whose server runs
 * on the worker's host (capability `onWorkerHost`, a handle with a pid: the embedded and local
 * targets) samples the server's cumulative I/O and CPU counters (`src/process/cell-counters.ts`) at
 * its start and end, at every statement's registration and unregistration with the activity's
 * statement watcher (so a query run's window is bracketed within microseconds of the
 * `started_at`/`finished_at` its record carries), and every {@link TICK_MS} in between (steps that
 * wait without a statement). Samples are appended to `<cell folder>/counters.jsonl` at each tick and
 * at the end; the metrics step labels the windows from them (`src/measure/step-labels.ts`). Raw
 * samples never enter workflow history.
 *
 * Cost: a sample reads three or four small files (cgroup) or two per server process (`/proc`), tens
 * of microseconds; the ones at a measured statement's edges fall inside its `wall_ms`.
 * Sampling never fails a step: a sample or a write that fails is skipped.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { CellInput } from '../../schema/cell';
import type { TargetHandle } from '../../schema/target';
import { cellDir } from '../../results/store';
import { capabilitiesOf } from '../../targets';
import { currentWatcher } from '../../clickhouse/statement-watch';
import { cellCounterReader, COUNTERS_FILE, type CounterSample } from '../../process/cell-counters';

/** Interval of the samples between statements, ms. */
export const TICK_MS = 500;

/** The cell and server of a cell step's arguments (`step({ cell, target }, …)`), when its server runs on this host. */
function localServerOf(
  args: readonly unknown[],
): { cell: CellInput; target: TargetHandle & { pid: number } } | undefined {
  const a = args[0] as { cell?: CellInput; target?: TargetHandle } | undefined;
  const cell = a?.cell;
  const target = a?.target;
  if (!cell || typeof cell.resultsDir !== 'string' || !target || typeof target.pid !== 'number') return undefined;
  try {
    if (!capabilitiesOf(target).onWorkerHost) return undefined;
  } catch {
    return undefined;
  }
  return { cell, target: target as TargetHandle & { pid: number } };
}

/**
 * Run `fn` (one activity call named `name`) with the cell server's counters sampled as described in
 * the module comment. Must run inside the activity's statement watch (`runWatched`) to see its statements.
 */
async function sampled<T>(name: string, args: readonly unknown[], fn: () => Promise<T>): Promise<T> {
  const local = localServerOf(args);
  if (!local) return fn();
  const file = path.join(cellDir(local.cell.resultsDir, local.cell.runId, local.cell.cellKey), COUNTERS_FILE);
  const reader = cellCounterReader(local.target.pid, local.target.dataDir);
  const pending: CounterSample[] = [];
  const take = (edge: CounterSample['edge'], queryId?: string) => {
    try {
      const s = reader.sample(name, edge, queryId);
      if (s) pending.push(s);
    } catch {
      /* skipped */
    }
  };
  const flush = () => {
    if (!pending.length) return;
    try {
      mkdirSync(path.dirname(file), { recursive: true });
      appendFileSync(file, pending.map((s) => JSON.stringify(s)).join('\n') + '\n');
    } catch {
      /* not recorded */
    }
    pending.length = 0;
  };
  take('start');
  const off = currentWatcher()?.onStatementEdge((edge, queryId) =>
    take(edge === 'begin' ? 'statement begin' : 'statement end', queryId),
  );
  const timer = setInterval(() => {
    take('tick');
    flush();
  }, TICK_MS);
  timer.unref();
  try {
    return await fn();
  } finally {
    clearInterval(timer);
    off?.();
    take('end');
    flush();
  }
}

/** Every activity of `acts` samples its cell server's counters (see the module comment). */
export function withCounterSamples<T extends Record<string, (...a: any[]) => Promise<unknown>>>(acts: T): T {
  const out: Record<string, (...a: any[]) => Promise<unknown>> = {};
  for (const [k, fn] of Object.entries(acts)) out[k] = (...a: any[]) => sampled(k, a, () => fn(...a));
  return out as T;
}
