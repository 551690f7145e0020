/**
 * concurrencyStep: one step of concurrency stepping (`grids.concurrency`, src/schema/grids.ts).
 * A thin activity around the closed-loop engine (src/measure/closed-loop.ts, where the timeline and
 * the definitions are stated): `clients` closed-loop clients send the cell's weighted query mix for
 * `warmupS` + `durationS`, with the settings of the cell's measured runs; then the server-side
 * latency of every counted request is read from `system.query_log` where the cell has it.
 *
 * Idempotent: a step only reads. A retry first settles statements an earlier attempt of the same
 * step left running (by query_id prefix), then re-measures the step and overwrites its record.
 * Merges are left as the cell set them (a cell that stopped merges for its query steps keeps them
 * stopped).
 *
 * Writes `grids/concurrency-c<clients>.json` in the cell folder ({@link ConcurrencyStepRecord}) and
 * returns the small {@link ConcurrencyStepSummary}.
 */
import path from 'node:path';
import type { ClickHouseClient } from '@clickhouse/client';
import { connect, queryRows } from '../clickhouse/client';
import { cellDir, readJsonIfExists, writeJsonAtomic } from '../results/store';
import { loadWorkload, workloadQueries } from '../lib/workload';
import { runClosedLoop, type ClosedLoopResult, type RequestSample } from '../measure/closed-loop';
import { latencySummary } from '../measure/stats';
import { startCpuMonitor, type ClientCpu } from '../measure/client-load';
import { attempt, cancellationSignal, heartbeat } from '../temporal/activity-context';
import { capabilitiesOf, otherChbenchServers } from '../targets';
import { cellCodecProfile, queryIdPrefix, type StepInput } from '../schema/cell';
import {
  windowFlag,
  type ConcurrencyStepInput,
  type ConcurrencyStepSummary,
  type LatencySummary,
} from '../schema/grids';
import type { ProvisionRecord } from '../schema/results';
import { sqlString } from '../lib/sql';
import { readCellSettings } from './provision';
import { resultCacheSettings } from '../measure/cold-cycle';
import { settlePreviousAttempts, type PreviousAttempts } from './support/attempts';

/** Server-side duration of one request, as `system.query_log` has it. */
interface ServerDuration {
  ms: number;
  /** `query_duration_ms` (whole ms) or the microsecond columns' difference (newer servers). */
  source:
    'system.query_log.query_duration_ms' | 'system.query_log event_time_microseconds - query_start_time_microseconds';
}

/** One counted request in the record: the engine's sample plus its server-side duration. */
export interface ConcurrencySample extends RequestSample {
  /** Server-side duration from `system.query_log` (`QueryFinish` row of its query_id), ms; null when not logged or failed. */
  serverMs: number | null;
}

/** Figures of one query of the mix in a step. */
export interface ConcurrencyQueryFigures {
  requests: number;
  ok: number;
  errors: number;
  /** Client wall latency of its successful requests, ms. */
  wallLatencyMs: LatencySummary;
  /** Server-side latency (query_log) of its successful requests, ms; null without query_log. */
  serverLatencyMs: LatencySummary | null;
}

/** `grids/concurrency-c<clients>.json`: one step of concurrency stepping. */
export interface ConcurrencyStepRecord {
  step: ConcurrencyStepInput;
  attempt: number;
  /** query_id prefix of the step's requests (each: `<prefix>-<query>-k<client>r<n>-a<attempt>`). */
  query_id_prefix: string;
  /** Settings sent with every request: the cell's run settings (`settings.json` `runs`), as the measured runs. */
  settings: Record<string, string | number>;
  /** Statements of an earlier attempt of this step found running at the start, and what was done. */
  previous_attempts: PreviousAttempts;
  /** Other chbench servers alive on this host at the start and the end (they compete for the CPU). */
  other_chbench_servers: { at_start: string[]; at_end: string[] };
  /** How QPS, the window and latency are defined (src/measure/closed-loop.ts). */
  definitions: ClosedLoopResult['definitions'] & { server_latency: string };
  /**
   * The measured window: its two instants on the worker's clock, its measured length `ms` (the QPS
   * denominator), the successful completions inside it (`completed`, the QPS numerator; `carried_in`
   * of them started in the warm-up), and `flag` when it was shorter than 3 median latencies.
   */
  window: {
    start_at: string;
    end_at: string;
    ms: number;
    nominal_ms: number;
    completed: number;
    carried_in: number;
    flag: string | null;
    warmup_requests: number;
    drain_ms: number;
  };
  /** The figures returned to the workflow. */
  summary: Omit<ConcurrencyStepSummary, 'attempt'>;
  /** `system.query_log`: read or not, which column, and how many successful requests had no row. */
  query_log: { used: boolean; source: ServerDuration['source'] | null; missing: number; error?: string };
  /** Per query of the mix. */
  queries: Record<string, ConcurrencyQueryFigures>;
  /** Errors by code, with one sample message each. */
  errors_by_code: Record<string, { count: number; sample: string }>;
  /** The worker's CPU over the measured window (src/measure/client-load.ts). */
  cpu: ClientCpu | null;
  /** Every counted request, in start order. */
  samples: ConcurrencySample[];
}

/**
 * Server-side durations of `ids` from `system.query_log` (`QueryFinish` rows), after `SYSTEM FLUSH
 * LOGS`. Selects by `query_id LIKE '<prefix>-%'` (an `IN` list of thousands of ids would exceed the
 * server's `max_query_size`) and keeps only `ids`. `type` is an Enum on newer servers and a UInt8 (2 =
 * QueryFinish) on old ones such as 18.16, as in src/clickhouse/query-log.ts; microsecond timestamps
 * are used where the version has them.
 * @throws ClickHouseError when the server has no query_log or refuses the flush.
 */
async function serverDurations(
  client: ClickHouseClient,
  prefix: string,
  ids: Set<string>,
): Promise<Map<string, ServerDuration>> {
  await client.command({ query: 'SYSTEM FLUSH LOGS' });
  const cols = await queryRows<{ name: string; type: string }>(
    client,
    "SELECT name, type FROM system.columns WHERE database = 'system' AND table = 'query_log'",
  );
  const have = new Set(cols.map((c) => c.name));
  const micro = have.has('event_time_microseconds') && have.has('query_start_time_microseconds');
  const finish = cols.find((c) => c.name === 'type')?.type.startsWith('Enum') ? "'QueryFinish'" : '2';
  const duration = micro
    ? 'toUnixTimestamp64Micro(event_time_microseconds) - toUnixTimestamp64Micro(query_start_time_microseconds)'
    : 'query_duration_ms';
  const rows = await queryRows<{ query_id: string; d: string | number }>(
    client,
    `SELECT query_id, ${duration} AS d FROM system.query_log WHERE event_date >= yesterday() AND type = ${finish} AND query_id LIKE ${sqlString(`${prefix}-%`)}`,
  );
  const source: ServerDuration['source'] = micro
    ? 'system.query_log event_time_microseconds - query_start_time_microseconds'
    : 'system.query_log.query_duration_ms';
  const out = new Map<string, ServerDuration>();
  for (const r of rows)
    if (ids.has(r.query_id)) out.set(r.query_id, { ms: micro ? Number(r.d) / 1000 : Number(r.d), source });
  return out;
}

/** Activity factory. */
export function createConcurrencySteps(deps: { workDir: string }) {
  return {
    /**
     * Run one concurrency step and record it in `grids/concurrency-c<clients>.json`.
     * Latency is server-side (`system.query_log`, when the cell's `provision.json` says it is
     * available and it answered) for `latencySource: 'query_log'`, else client wall time; the wall
     * latency is always returned too. Heartbeats about every second with the step's progress.
     * @throws Error for an unknown query id of the mix (src/lib/workload.ts).
     * @throws CancelledFailure (via the cell-step wrapper) when the activity is cancelled; nothing is written.
     */
    async concurrencyStep({ cell, target }: StepInput, step: ConcurrencyStepInput): Promise<ConcurrencyStepSummary> {
      const label = `concurrency-c${step.clients}`;
      heartbeat({ step: label, progress: `step ${step.n}: ${step.clients} clients` });
      const m = loadWorkload(cell.workload);
      // An empty mix (the spec named none): every selected query of the cell, weight 1.
      const entries = step.mix.length
        ? step.mix
        : workloadQueries(m, { table: m.table, rows: cell.scale, codec: cellCodecProfile(cell) }, cell.queries).map(
            (q) => ({
              id: q.id,
              weight: 1,
            }),
          );
      const rendered = workloadQueries(
        m,
        { table: m.table, rows: cell.scale, codec: cellCodecProfile(cell) },
        entries.map((e) => e.id),
      );
      const mix = entries.map((e) => ({ id: e.id, weight: e.weight, sql: rendered.find((q) => q.id === e.id)!.sql }));
      const dir = cellDir(cell.resultsDir, cell.runId, cell.cellKey);
      const rel = `grids/concurrency-c${step.clients}.json`;
      const prefix = queryIdPrefix(cell.runId, cell.cellKey, `conc-c${step.clients}`);
      const suffix = `-a${attempt()}`;
      const provision = readJsonIfExists<ProvisionRecord>(path.join(dir, 'provision.json'));
      const queryLogAvailable = provision?.server.query_log === 'available';
      const caps = capabilitiesOf(target);
      const client = connect(target, { maxExecutionTimeS: cell.protocol.maxExecutionTimeS });
      try {
        // As the measured runs: the cell's run settings, the time limit, and the result caches off
        // (a query repeated by many clients must be executed, not answered from a cache).
        const settings = {
          ...readCellSettings(cell).runs,
          max_execution_time: cell.protocol.maxExecutionTimeS,
          ...(await resultCacheSettings(client)),
        };
        const othersAtStart = otherChbenchServers(deps.workDir, target);
        // `<prefix>-`: never the statements of a step with more clients (`conc-c4` vs `conc-c40`).
        const previous = await settlePreviousAttempts(target, client, `${prefix}-`);
        let stopCpu: (() => ClientCpu) | undefined;
        let cpu: ClientCpu | null = null;
        const run = await runClosedLoop({
          target,
          clients: step.clients,
          mix,
          warmupS: step.warmupS,
          durationS: step.durationS,
          settings,
          seed: `${cell.runId}/${cell.cellKey}/${label}`,
          queryIdPrefix: prefix,
          queryIdSuffix: suffix,
          signal: cancellationSignal(),
          requestTimeoutMs: (cell.protocol.maxExecutionTimeS + 60) * 1000,
          onWindowStart: () => (stopCpu = startCpuMonitor(caps.onWorkerHost)),
          onWindowEnd: () => (cpu = stopCpu?.() ?? null),
          onProgress: (p) =>
            heartbeat({
              step: label,
              in_flight: p.inFlight,
              progress: `${step.clients} clients, ${p.phase} ${(p.elapsedMs / 1000).toFixed(0)} s: ${p.requests} requests, ${p.errors} errors`,
            }),
        });

        // Server-side latency from query_log where the cell has it.
        let server = new Map<string, ServerDuration>();
        let queryLogError: string | undefined;
        if (queryLogAvailable) {
          heartbeat({ step: label, progress: 'reading system.query_log' });
          try {
            server = await serverDurations(
              client,
              prefix,
              new Set(run.samples.filter((s) => s.ok).map((s) => s.queryId)),
            );
          } catch (e) {
            queryLogError = ((e as Error)?.message ?? String(e)).split('\n')[0].slice(0, 300);
          }
        }
        const samples: ConcurrencySample[] = run.samples.map((s) => ({
          ...s,
          serverMs: server.get(s.queryId)?.ms ?? null,
        }));
        const okSamples = samples.filter((s) => s.ok);
        const useServer = queryLogAvailable && queryLogError === undefined && server.size > 0;
        const missing = useServer ? okSamples.filter((s) => s.serverMs === null).length : 0;
        const serverOf = (xs: ConcurrencySample[]) =>
          latencySummary(xs.filter((s) => s.ok && s.serverMs !== null).map((s) => s.serverMs!));
        const wallOf = (xs: ConcurrencySample[]) => latencySummary(xs.filter((s) => s.ok).map((s) => s.wallMs));

        const errorsByCode: Record<string, number> = {};
        const errorsDetail: ConcurrencyStepRecord['errors_by_code'] = {};
        for (const s of samples)
          if (!s.ok) {
            const code = s.code ?? 'unknown';
            errorsByCode[code] = (errorsByCode[code] ?? 0) + 1;
            errorsDetail[code] ??= { count: 0, sample: s.message ?? '' };
            errorsDetail[code].count++;
          }
        const queries: Record<string, ConcurrencyQueryFigures> = {};
        for (const { id } of entries) {
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
          file: rel,
        };
        const record: ConcurrencyStepRecord = {
          step,
          attempt: attempt(),
          query_id_prefix: prefix,
          settings,
          previous_attempts: previous,
          other_chbench_servers: { at_start: othersAtStart, at_end: otherChbenchServers(deps.workDir, target) },
          definitions: {
            ...run.definitions,
            server_latency: useServer
              ? `server-side duration of each successful counted request from ${[...server.values()][0].source} (QueryFinish row of its query_id, after SYSTEM FLUSH LOGS)`
              : queryLogAvailable
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
          query_log: {
            used: useServer,
            source: useServer ? [...server.values()][0].source : null,
            missing,
            ...(queryLogError ? { error: queryLogError } : {}),
          },
          queries,
          errors_by_code: errorsDetail,
          cpu,
          samples,
        };
        writeJsonAtomic(path.join(dir, rel), record);
        return summary;
      } finally {
        await client.close();
      }
    },
  };
}
