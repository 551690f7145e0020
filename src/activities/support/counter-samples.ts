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
 *
 * A server off the worker's host whose target has a `scrapedCounters` verb (a kubernetes pod: its
 * cgroup through the node's cAdvisor) is sampled at the same edges and ticks, but each sample is a
 * request ({@link scrapedSample}): it is started at the edge (the statement is sent at once, not
 * held for it), its time is taken around the request (`t` when sent, `rtt_ms` its round trip), and
 * it is appended when it answers. At most {@link MAX_IN_FLIGHT} requests run at once: a statement's
 * edge beyond them is skipped (the step's start and end never are), and a tick is skipped while any request runs (the window then takes the nearest
 * earlier or later sample, which still brackets it). A request that fails or takes longer than
 * `SCRAPE_TIMEOUT_MS` is recorded in `counters-errors.jsonl`; after one refused with 401/403/404 (RBAC
 * or a missing node) the activity samples no more. The activity's end waits for its requests, at most
 * `SCRAPE_TIMEOUT_MS`.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { CellInput } from '../../schema/cell';
import type { TargetHandle } from '../../schema/target';
import { cellDir } from '../../results/store';
import { currentWatcher } from '../../clickhouse/statement-watch';
import { capabilitiesOf, scrapedCountersOf } from '../../targets';
import {
  cellCounterReader,
  COUNTER_ERRORS_FILE,
  COUNTERS_FILE,
  scrapedSample,
  type CounterSample,
  type CounterSampleError,
  type ScrapedCounterSource,
} from '../../process/cell-counters';

/** Interval of the samples between statements, ms. */
export const TICK_MS = 500;

/** Most scraped-sample requests running at once (see the module comment). */
export const MAX_IN_FLIGHT = 4;

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

/** The cell and its server's scraped counter source, when the target has one (see the module comment). */
function scrapedServerOf(args: readonly unknown[]): { cell: CellInput; source: ScrapedCounterSource } | undefined {
  const a = args[0] as { cell?: CellInput; target?: TargetHandle } | undefined;
  const cell = a?.cell;
  const target = a?.target;
  if (!cell || typeof cell.resultsDir !== 'string' || !target || typeof target.kind !== 'string') return undefined;
  try {
    if (capabilitiesOf(target).onWorkerHost) return undefined;
  } catch {
    return undefined;
  }
  const s = scrapedCountersOf(target, cell.target);
  return s ? { cell, source: s.source } : undefined;
}

/** Append JSON lines to `file`; a failed write is not recorded (sampling never fails a step). */
function appendLines(file: string, lines: readonly unknown[]): void {
  if (!lines.length) return;
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    appendFileSync(file, lines.map((s) => JSON.stringify(s)).join('\n') + '\n');
  } catch {
    /* not recorded */
  }
}

/** HTTP status of a failed request (client-node's `ApiException.code`), if any. */
const statusOf = (e: unknown): number | undefined => {
  const c = (e as { code?: unknown })?.code;
  return typeof c === 'number' ? c : undefined;
};

/** {@link sampled} for a scraped source: asynchronous samples, bounded, never failing the step. */
async function scraped<T>(name: string, cell: CellInput, src: ScrapedCounterSource, fn: () => Promise<T>): Promise<T> {
  const dir = cellDir(cell.resultsDir, cell.runId, cell.cellKey);
  const inFlight = new Set<Promise<void>>();
  let refused = false;
  const take = (edge: CounterSample['edge'], queryId?: string) => {
    // The step's own start and end are always sampled; statement edges up to the bound; ticks only when idle.
    const edgeOfStep = edge === 'start' || edge === 'end';
    if (refused || (!edgeOfStep && inFlight.size >= MAX_IN_FLIGHT) || (edge === 'tick' && inFlight.size > 0)) return;
    const t = Date.now();
    const p = scrapedSample(src, name, edge, queryId).then(
      (s) => appendLines(path.join(dir, COUNTERS_FILE), [s]),
      (e: unknown) => {
        const code = statusOf(e);
        if (code === 401 || code === 403 || code === 404) refused = true;
        const msg = ((e as Error)?.message ?? String(e)).split('\n')[0]!;
        const body = (e as { body?: unknown })?.body;
        const err: CounterSampleError = {
          t,
          activity: name,
          edge,
          source: src.source,
          error: `${code !== undefined ? `HTTP ${code}: ` : ''}${msg}${typeof body === 'string' && body ? ` ${body.slice(0, 300)}` : ''}`,
        };
        appendLines(path.join(dir, COUNTER_ERRORS_FILE), [err]);
      },
    );
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  };
  // Each request is bounded by its own timeout (scrapedSample), so the wait at the end is too.
  return bracketed(
    take,
    fn,
    () => undefined,
    () => Promise.allSettled([...inFlight]),
  );
}

/**
 * Run `fn` with `take` called at its start, at every statement edge of the activity's watcher, every
 * {@link TICK_MS} (then `afterTick`) and at its end (then `finish`, awaited) — the sampling edges of
 * both sources.
 */
async function bracketed<T>(
  take: (edge: CounterSample['edge'], queryId?: string) => void,
  fn: () => Promise<T>,
  afterTick: () => void,
  finish: () => unknown,
): Promise<T> {
  take('start');
  const off = currentWatcher()?.onStatementEdge((edge, queryId) =>
    take(edge === 'begin' ? 'statement begin' : 'statement end', queryId),
  );
  const timer = setInterval(() => {
    take('tick');
    afterTick();
  }, TICK_MS);
  timer.unref();
  try {
    return await fn();
  } finally {
    clearInterval(timer);
    off?.();
    take('end');
    await finish();
  }
}

/**
 * Run `fn` (one activity call named `name`) with the cell server's counters sampled as described in
 * the module comment. Must run inside the activity's statement watch (`runWatched`) to see its statements.
 */
async function sampled<T>(name: string, args: readonly unknown[], fn: () => Promise<T>): Promise<T> {
  const local = localServerOf(args);
  if (!local) {
    const remote = scrapedServerOf(args);
    return remote ? scraped(name, remote.cell, remote.source, fn) : fn();
  }
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
    appendLines(file, pending);
    pending.length = 0;
  };
  return bracketed(take, fn, flush, flush);
}

/** Every activity of `acts` samples its cell server's counters (see the module comment). */
export function withCounterSamples<T extends Record<string, (...a: any[]) => Promise<unknown>>>(acts: T): T {
  const out: Record<string, (...a: any[]) => Promise<unknown>> = {};
  for (const [k, fn] of Object.entries(acts)) out[k] = (...a: any[]) => sampled(k, a, () => fn(...a));
  return out as T;
}
