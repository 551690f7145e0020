/**
 * Per-query statistics over a query's runs, and the rule that chooses the clock of the headline.
 * Pure: everything comes from the samples.
 */
import { min as ssMin, median as ssMedian, max as ssMax, quantileSorted } from 'simple-statistics';
import type { QueryStats, RunSample, ServerTimeSource } from '../schema/results';
import type { LatencySummary } from '../schema/grids';
import { judgeWarm } from './validity';

/**
 * Smallest step each server-time source resolves, ms: query_log's microsecond columns 0.001 ms,
 * `query_duration_ms` whole milliseconds, the summary's `elapsed_ns` nanoseconds.
 */
export const SERVER_TIME_RESOLUTION_MS: Record<ServerTimeSource, number> = {
  'system.query_log event_time_microseconds - query_start_time_microseconds': 0.001,
  'system.query_log.query_duration_ms': 1,
  'http summary elapsed_ns': 0.000001,
};

/**
 * A server time is the headline only when its resolution is at most this share of the value;
 * coarser (e.g. a 0.6 ms query timed in whole milliseconds) and client wall time is the headline.
 */
export const MAX_RESOLUTION_SHARE = 0.1;

/**
 * Per-query statistics over the measured runs (warm-up runs excluded), ms.
 *
 * The headline clock is the server's elapsed when every measured run has one *and* its source
 * resolves at most {@link MAX_RESOLUTION_SHARE} of the smallest value; otherwise client wall time,
 * with `timing_note` saying why. So a 0.6 ms query timed by `query_duration_ms` (whole ms) is never
 * printed as "0 ms". Cold runs judged not cold (`validity.cold.valid === false`) are left out of
 * `cold_ms` and counted in `cold_runs_rejected`; `cold_ms` is the minimum of the rest. Warm figures
 * are min/median/max of the `warm` runs. read_rows/read_bytes/result_rows come from the last warm
 * run (the last accepted cold run when there is none). Pure.
 */
export function stats(samples: RunSample[]): QueryStats {
  const measured = samples.filter((s) => s.kind !== 'warmup');
  const sources = [
    ...new Set(measured.map((s) => s.server_elapsed_source).filter((x): x is ServerTimeSource => x !== null)),
  ];
  const haveServer = measured.length > 0 && measured.every((s) => s.server_elapsed_ms !== null);
  const resolution = sources.length ? Math.max(...sources.map((x) => SERVER_TIME_RESOLUTION_MS[x])) : null;
  const smallest = haveServer ? Math.min(...measured.map((s) => s.server_elapsed_ms as number)) : null;
  let timing_note: string | undefined;
  let server = haveServer;
  if (haveServer && resolution !== null && smallest !== null && resolution > MAX_RESOLUTION_SHARE * smallest) {
    server = false;
    timing_note = `server time (${sources.join(', ')}) resolves ${resolution} ms, coarser than ${MAX_RESOLUTION_SHARE * 100} % of the fastest run (${smallest < resolution ? `< ${resolution}` : smallest} ms): client wall time is the headline`;
  } else if (!haveServer && measured.length) {
    timing_note = 'the server gave no elapsed time for every run: client wall time is the headline';
  }
  const t = (s: RunSample) => (server ? (s.server_elapsed_ms as number) : s.wall_ms);
  // A cold run the counters show was served from a cache is not reported as cold.
  const cold = samples.filter((s) => s.kind === 'cold' && s.validity?.cold?.valid !== false);
  const warm = samples.filter((s) => s.kind === 'warm');
  const last = warm[warm.length - 1] ?? cold[cold.length - 1];
  return {
    timing_source: server ? 'server-side elapsed' : 'client wall time',
    ...(timing_note ? { timing_note } : {}),
    server_time_sources: sources,
    cold_ms: cold.length ? ssMin(cold.map(t)) : null,
    cold_runs: cold.length,
    cold_runs_rejected: samples.filter((s) => s.kind === 'cold' && s.validity?.cold?.valid === false).length,
    resolution_ms: server ? resolution : null,
    warm_min_ms: warm.length ? ssMin(warm.map(t)) : null,
    warm_median_ms: warm.length ? ssMedian(warm.map(t)) : null,
    warm_max_ms: warm.length ? ssMax(warm.map(t)) : null,
    cold_wall_ms: cold.length ? ssMin(cold.map((s) => s.wall_ms)) : null,
    warm_min_wall_ms: warm.length ? ssMin(warm.map((s) => s.wall_ms)) : null,
    warm_median_wall_ms: warm.length ? ssMedian(warm.map((s) => s.wall_ms)) : null,
    read_rows: last?.read_rows ?? null,
    read_bytes: last?.read_bytes ?? null,
    result_rows: last?.result_rows ?? 0,
    // Every run, warm-up included, must return the same rows.
    result_sha256: [...new Set(samples.map((s) => s.result_sha256))],
    ...(samples.length && samples.every((s) => s.result_values_sha256)
      ? { result_values_sha256: [...new Set(samples.map((s) => s.result_values_sha256!))] }
      : {}),
    warm_validity: judgeWarm(cold.length ? ssMin(cold.map(t)) : null, warm.length ? ssMin(warm.map(t)) : null),
  };
}

/**
 * Percentiles of latencies (ms) with simple-statistics' `quantileSorted`. Its rank rule (1-based
 * ranks): the value at rank ⌈p·n⌉; when p·n is whole, the mean of ranks p·n and p·n + 1 for an even
 * n, rank p·n + 1 for an odd n. All `null` for no value. Pure.
 */
export function latencySummary(values: readonly number[]): LatencySummary {
  if (!values.length) return { count: 0, p50: null, p95: null, p99: null, max: null };
  const s = [...values].sort((a, b) => a - b);
  return {
    count: s.length,
    p50: quantileSorted(s, 0.5),
    p95: quantileSorted(s, 0.95),
    p99: quantileSorted(s, 0.99),
    max: s[s.length - 1],
  };
}
