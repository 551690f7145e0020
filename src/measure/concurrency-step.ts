/**
 * The method of one step of concurrency stepping (`grids.concurrency`; the activity is `concurrencyStep`,
 * src/activities/concurrency-steps.ts): `clients` closed-loop clients send the weighted query mix
 * for `warmupS` + `durationS` (`runClosedLoop`, src/measure/closed-loop.ts, where the timeline and the
 * definitions are stated) while the worker's CPU is watched over the measured window; then
 * - the server-side duration of every successful counted request from `system.query_log`, where
 *   the cell has it (`serverDurations`, src/clickhouse/query-log.ts);
 * - the latency the step reports: server-side when query_log gave at least one row, else client wall
 *   time (the wall latency is always kept);
 * - figures per query of the mix, errors by ClickHouse code with one sample message each, and the
 *   window flag (`windowFlag`, src/schema/grids.ts).
 *
 * Every figure is returned as the sections of `grids/concurrency-c<clients>.json`
 * ({@link ConcurrencyStepRecord}).
 */
import type { ClickHouseClient } from '@clickhouse/client';
import { serverDurations, type ServerDuration } from '../clickhouse/query-log';
import { workloadQueries, type WorkloadManifest } from '../lib/workload';
import { windowFlag, type ConcurrencyStepInput, type ConcurrencyStepSummary } from '../schema/grids';
import type { ConcurrencyQueryFigures, ConcurrencySample, ConcurrencyStepRecord } from '../schema/results';
import type { CodecProfile } from '../schema/run-spec';
import type { TargetHandle } from '../schema/target';
import { startCpuMonitor, type ClientCpu } from './client-load';
import { resultCacheSettings } from './cold-cycle';
import { runClosedLoop, type MixQuery } from './closed-loop';
import { latencySummary } from './stats';

/**
 * The step's mix with each query's SQL rendered for the cell (table, rows, codec). An empty `mix`
 * (the spec named none): every selected query of the cell (`selected`; absent: every query of the
 * workload), weight 1.
 * @throws Error for an unknown query id (src/lib/workload.ts).
 */
export function stepMix(
  m: WorkloadManifest,
  vars: { rows: number; codec: CodecProfile },
  mix: ConcurrencyStepInput['mix'],
  selected?: string[],
): MixQuery[] {
  const v = { table: m.table, rows: vars.rows, codec: vars.codec };
  const entries = mix.length ? mix : workloadQueries(m, v, selected).map((q) => ({ id: q.id, weight: 1 }));
  const rendered = workloadQueries(
    m,
    v,
    entries.map((e) => e.id),
  );
  return entries.map((e) => ({ id: e.id, weight: e.weight, sql: rendered.find((q) => q.id === e.id)!.sql }));
}

/**
 * The settings of every request of a step, as of the cell's measured runs: the cell's run settings
 * (`settings.json` `runs`), `max_execution_time` = the protocol's limit (s), and the result caches
 * off (`resultCacheSettings`: a query repeated by many clients must be executed, not answered from a
 * cache). Reads `system.settings` through `client` for the cache settings this version has.
 */
export async function stepSettings(
  client: ClickHouseClient,
  runs: Record<string, string | number>,
  maxExecutionTimeS: number,
): Promise<Record<string, string | number>> {
  return { ...runs, max_execution_time: maxExecutionTimeS, ...(await resultCacheSettings(client)) };
}

/** What {@link measureConcurrencyStep} needs. */
export interface ConcurrencyStepOptions {
  /** The server (the clients open their own connections) and a client for `system.query_log`. */
  target: TargetHandle;
  client: ClickHouseClient;
  step: ConcurrencyStepInput;
  /** The rendered mix ({@link stepMix}). */
  mix: MixQuery[];
  /** Settings sent with every request. */
  settings: Record<string, string | number>;
  /** Seed of the mix's picker (a rerun picks the same queries). */
  seed: string;
  /** query_id `<prefix>-<query>-k<client>r<n><suffix>`. */
  queryIdPrefix: string;
  queryIdSuffix: string;
  requestTimeoutMs: number;
  /** The server runs on the worker's host (its CPU then counts in the host's busy share). */
  serverOnHost: boolean;
  /** The cell's server keeps `system.query_log` (provision.json `server.query_log`). */
  queryLogAvailable: boolean;
  /** The record's path relative to the cell folder (the summary names it). */
  file: string;
  signal?: AbortSignal;
  /** Heartbeat with progress details. */
  heartbeat: (details: Record<string, unknown>) => void;
}

/** The measured sections of the step's record. */
export type ConcurrencyStepFigures = Pick<
  ConcurrencyStepRecord,
  'definitions' | 'window' | 'summary' | 'query_log' | 'queries' | 'errors_by_code' | 'cpu' | 'samples'
>;

/**
 * Measure one step (see the module comment).
 * @throws the signal's reason when `signal` aborts (from `runClosedLoop`); Error for an invalid mix.
 */
export async function measureConcurrencyStep(o: ConcurrencyStepOptions): Promise<ConcurrencyStepFigures> {
  const { step } = o;
  let stopCpu: (() => ClientCpu) | undefined;
  let cpu: ClientCpu | null = null;
  const run = await runClosedLoop({
    target: o.target,
    clients: step.clients,
    mix: o.mix,
    warmupS: step.warmupS,
    durationS: step.durationS,
    settings: o.settings,
    seed: o.seed,
    queryIdPrefix: o.queryIdPrefix,
    queryIdSuffix: o.queryIdSuffix,
    signal: o.signal,
    requestTimeoutMs: o.requestTimeoutMs,
    onWindowStart: () => (stopCpu = startCpuMonitor(o.serverOnHost)),
    onWindowEnd: () => (cpu = stopCpu?.() ?? null),
    onProgress: (p) =>
      o.heartbeat({
        in_flight: p.inFlight,
        progress: `${step.clients} clients, ${p.phase} ${(p.elapsedMs / 1000).toFixed(0)} s: ${p.requests} requests, ${p.errors} errors`,
      }),
  });

  // Server-side latency from query_log where the cell has it.
  let server = new Map<string, ServerDuration>();
  let queryLogError: string | undefined;
  if (o.queryLogAvailable) {
    o.heartbeat({ progress: 'reading system.query_log' });
    try {
      const ok = new Set(run.samples.filter((s) => s.ok).map((s) => s.queryId));
      server = await serverDurations(o.client, o.queryIdPrefix, ok);
    } catch (e) {
      queryLogError = ((e as Error)?.message ?? String(e)).split('\n')[0].slice(0, 300);
    }
  }
  const samples: ConcurrencySample[] = run.samples.map((s) => ({ ...s, serverMs: server.get(s.queryId)?.ms ?? null }));
  const useServer = o.queryLogAvailable && queryLogError === undefined && server.size > 0;
  const missing = useServer ? samples.filter((s) => s.ok && s.serverMs === null).length : 0;
  const serverOf = (xs: ConcurrencySample[]) =>
    latencySummary(xs.filter((s) => s.ok && s.serverMs !== null).map((s) => s.serverMs!));
  const wallOf = (xs: ConcurrencySample[]) => latencySummary(xs.filter((s) => s.ok).map((s) => s.wallMs));
  const source = useServer ? [...server.values()][0].source : null;

  const { errorsByCode, errorsDetail } = errorsOf(samples);
  const queries: Record<string, ConcurrencyQueryFigures> = {};
  for (const { id } of o.mix) {
    const xs = samples.filter((s) => s.query === id);
    queries[id] = {
      requests: xs.length,
      ok: xs.filter((s) => s.ok).length,
      errors: xs.filter((s) => !s.ok).length,
      wallLatencyMs: wallOf(xs),
      serverLatencyMs: useServer ? serverOf(xs) : null,
    };
  }
  const wallLatencyMs = wallOf(samples);
  const flag = windowFlag(run.windowMs, wallLatencyMs.p50);
  const summary: Omit<ConcurrencyStepSummary, 'attempt'> = {
    clients: step.clients,
    qps: run.qps,
    windowMs: run.windowMs,
    windowFlag: flag,
    requests: run.requests,
    errors: run.errors,
    errorsByCode,
    latencyMs: useServer ? serverOf(samples) : wallLatencyMs,
    latencySource: useServer ? 'query_log' : 'client wall',
    wallLatencyMs,
    clientBound: (cpu as ClientCpu | null)?.clientBound ?? false,
    file: o.file,
  };
  return {
    definitions: {
      ...run.definitions,
      server_latency: useServer
        ? `server-side duration of each successful counted request from ${source} (QueryFinish row of its query_id, after SYSTEM FLUSH LOGS)`
        : o.queryLogAvailable
          ? `system.query_log could not be used (${queryLogError ?? 'no row for any request'}): latency is client wall time`
          : 'system.query_log is not available on this target (provision.json server.query_log): latency is client wall time',
    },
    window: {
      start_at: run.windowStartAt,
      end_at: run.windowEndAt,
      ms: run.windowMs,
      nominal_ms: step.durationS * 1000,
      completed: run.completedInWindow,
      carried_in: run.carriedIn,
      flag,
      warmup_requests: run.warmupRequests,
      drain_ms: run.drainMs,
    },
    summary,
    query_log: { used: useServer, source, missing, ...(queryLogError ? { error: queryLogError } : {}) },
    queries,
    errors_by_code: errorsDetail,
    cpu,
    samples,
  };
}

/** Failed requests by code (`unknown` when none was read): counts, and counts with the first message of each code. Pure. */
function errorsOf(samples: readonly ConcurrencySample[]): {
  errorsByCode: Record<string, number>;
  errorsDetail: ConcurrencyStepRecord['errors_by_code'];
} {
  const errorsByCode: Record<string, number> = {};
  const errorsDetail: ConcurrencyStepRecord['errors_by_code'] = {};
  for (const s of samples)
    if (!s.ok) {
      const code = s.code ?? 'unknown';
      errorsByCode[code] = (errorsByCode[code] ?? 0) + 1;
      errorsDetail[code] ??= { count: 0, sample: s.message ?? '' };
      errorsDetail[code].count++;
    }
  return { errorsByCode, errorsDetail };
}
