/**
 * runQueries: the measurement protocol for each workload query.
 *
 * Per query: capture `EXPLAIN indexes = 1` once; then for each cold run drop the server's caches
 * (each command and its outcome recorded), optionally the OS page cache, and run the query with
 * `min_bytes_to_use_direct_io=1` ("cold" = direct I/O requested); then N warm runs with no cache
 * drop. Every run has its own query_id. Per run chbench keeps client wall time, server-side elapsed,
 * read_rows, read_bytes, result_rows, a sha256 of the result, whether the active parts changed, and,
 * where the server keeps `system.query_log`, that query_id's `QueryFinish` row with its ProfileEvents.
 * All samples go to `queries-<phase>.json`; the workflow only receives the headline figures.
 */
import path from 'node:path';
import { writeFile } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);
import { min as ssMin, median as ssMedian } from 'simple-statistics';
import type { ClickHouseClient } from '@clickhouse/client';
import { ClickHouseError } from '@clickhouse/client';
import { ApplicationFailure } from '@temporalio/common';
import { FAILURE } from '../schema/failures';
import { connect, errorCode, queryRows, runMeasured, sqlString, summaryNumber, tryCommand, type CommandOutcome, type MeasuredResult, type HttpSummary, type MidStreamClickHouseError, isLoopbackUrl } from '../clickhouse/client';
import { cellDir, writeJsonAtomic, readJsonIfExists } from '../results/store';
import { PROBED_CACHE_DROPS, type CapabilityProbe } from '../clickhouse/probe';
import { loadWorkload, workloadQueries, type WorkloadQuery } from '../lib/workload';
import { activeParts, runningMerges, pendingMutations } from '../clickhouse/table-state';
import { judgeIndexUse, type IndexProof } from '../measure/index-proof';
export type { IndexProof } from '../measure/index-proof';
import { RUN_COUNTERS, judgeCold, judgeQuiet, judgeWarm, type RunCounters, type RunValidity } from '../measure/validity';
import { attempt, heartbeat, cancellationSignal } from '../temporal/activity-context';
import { queryIdPrefix } from './load-data';
import { settlePreviousAttempts, killOnCancel, isTargetGone, type PreviousAttempts } from './support/attempts';
import type { TargetHandle } from '../schema/target';
import { listLabels, isAlive } from '../targets/process';
import type { CellInput, QueriesSummary, QueryHeadline, StepInput } from '../schema/cell';
import { readCellSettings } from './provision';

/**
 * Server caches dropped before every cold run: the mark and uncompressed caches, and caches newer
 * versions have that can serve a repeated query without reading data (query, query condition, page,
 * primary index, skipping index). The capability probe says which the server accepts; only those
 * are issued, and each outcome is recorded with the run.
 */
export const CACHE_DROP_COMMANDS: readonly string[] = PROBED_CACHE_DROPS;

/**
 * Query settings that let a repeated query skip work because an earlier run cached something (a
 * result, or which granules matched a filter). chbench turns them off for every measured run where
 * the version has them (checked in `system.settings`), so warm runs measure reading, not a cache hit.
 */
export const RESULT_CACHE_SETTINGS = ['use_query_cache', 'use_query_condition_cache'] as const;

/** Which of {@link RESULT_CACHE_SETTINGS} exist on the server; those are set to 0. */
export async function resultCacheSettings(client: ClickHouseClient): Promise<Record<string, number>> {
  const rows = await queryRows<{ name: string }>(
    client,
    `SELECT name FROM system.settings WHERE name IN (${RESULT_CACHE_SETTINGS.map(sqlString).join(', ')})`,
  );
  return Object.fromEntries(rows.map((r) => [r.name, 0]));
}

/** How a cold run was prepared. */
export interface ColdPreparation {
  /** Each cache-drop statement and its outcome. */
  server_caches: CommandOutcome[];
  /** OS page cache: `dropped`, or `not dropped: <reason>`. */
  os_page_cache: string;
  /** Settings sent with the cold run. */
  settings: Record<string, number>;
}

/** One run of one query. Figures the server did not give are `null` ("not available"), never 0. */
export interface RunSample {
  /** `warmup` runs are kept but left out of every statistic. */
  kind: 'cold' | 'warmup' | 'warm';
  /** 1-based index within its kind. */
  n: number;
  query_id: string;
  /** Client wall time, ms (performance.now() around request + full body read). */
  wall_ms: number;
  /** Server-side elapsed, ms; see `server_elapsed_source` (and {@link SERVER_TIME_RESOLUTION_MS} for its resolution). */
  server_elapsed_ms: number | null;
  server_elapsed_source: ServerTimeSource | null;
  read_rows: number | null;
  read_bytes: number | null;
  read_source: 'http summary' | 'output statistics' | 'system.query_log' | null;
  result_rows: number;
  /** Bytes of the result body received (the measured format, JSONCompact), counted as it streamed in. */
  result_bytes: number | null;
  result_sha256: string;
  /** True when the set of active parts differed before and after this run. */
  parts_changed: boolean;
  /** Settings sent with this run. */
  settings: Record<string, number>;
  /** The server's `X-ClickHouse-Summary` header as sent (absent on old servers). */
  http_summary?: Record<string, string>;
  /**
   * Whether the summary can be complete: `wait_end_of_query=1` was requested (the server sends its
   * headers only when the query has ended). Without it the header is a snapshot taken when the first
   * bytes went out and under-reports long or big queries, so it is never a headline then.
   */
  summary_complete: boolean;
  /**
   * Where the headline comes from `system.query_log`, the HTTP summary (and the JSON statistics block)
   * checked against it: `agrees`, `disagrees: …`, or `not checked: …`. A disagreement is flagged in the
   * report (a snapshot summary of a big result is the usual cause); the headline stays query_log's.
   */
  cross_check?: string;
  /** The statistics block of the JSON output (`rows_read`, `bytes_read`, `elapsed` s). */
  output_statistics?: { rows_read?: number; bytes_read?: number; elapsed?: number };
  cold_preparation?: ColdPreparation;
  /** Merges running plus unfinished mutations on the table just before/after the run (max); null if unreadable. */
  merges_or_mutations: number | null;
  /** Per-run counters (see `counters_source`); null when the target gives none. */
  counters: RunCounters | null;
  counters_source: 'system.query_log ProfileEvents' | 'system.events difference (embedded engine runs one statement at a time)' | null;
  /** Validity record: for cold runs whether it was really cold; for every run whether the table was quiet. */
  validity: { cold?: RunValidity; quiet: RunValidity };
  /** The `QueryFinish` row of `system.query_log` for this query_id (ProfileEvents as an object), when available. */
  query_log?: Record<string, unknown> | null;
}

/** Where a run's server-side elapsed comes from. */
export type ServerTimeSource =
  | 'system.query_log event_time_microseconds - query_start_time_microseconds'
  | 'system.query_log.query_duration_ms'
  | 'http summary elapsed_ns';

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

/** Per-query statistics, ms. `timing_source` says which clock the figures come from. */
export interface QueryStats {
  timing_source: 'server-side elapsed' | 'client wall time';
  /** Why this source was chosen when it is not the server's (e.g. the server's resolution is too coarse). */
  timing_note?: string;
  /** The server-time sources the runs had (even when the headline is client wall time). */
  server_time_sources: ServerTimeSource[];
  /** Cold figure: the only cold run, or the minimum when there are several (`cold_runs`). */
  cold_ms: number | null;
  cold_runs: number;
  /** Cold runs the counters showed were not cold (left out of `cold_ms`). */
  cold_runs_rejected: number;
  /** Smallest step the headline's source resolves, ms (1 for query_log's query_duration_ms; null for client wall time). */
  resolution_ms: number | null;
  warm_min_ms: number | null;
  warm_median_ms: number | null;
  warm_max_ms: number | null;
  cold_wall_ms: number | null;
  warm_min_wall_ms: number | null;
  warm_median_wall_ms: number | null;
  /** read_rows of the last warm run (null when unavailable). */
  read_rows: number | null;
  read_bytes: number | null;
  result_rows: number;
  /** Distinct result hashes across runs (1 expected). */
  result_sha256: string[];
  /** Warm runs faster than the cold run. */
  warm_validity: RunValidity;
}

/** One query's record in `queries-<phase>.json`. */
export interface QueryRecord {
  id: string;
  title: string;
  uses_index: boolean;
  /** False when the workload says the result may vary (e.g. sampled quantiles); hashes are then not compared. */
  deterministic: boolean;
  sql: string;
  /**
   * Set when a run of this query failed on the server (its later runs were not attempted): the
   * ClickHouse error code and name, the server's message (first 500 characters), which run and its query_id.
   */
  error?: {
    code: string | null;
    type: string | null;
    message: string;
    run: string;
    query_id: string;
    /** Set when the error arrived inside an HTTP 200 body, after `result_bytes` of result had been received. */
    after_response_started?: { http_status: number; result_bytes: number; exception_source: MidStreamClickHouseError['exception_source'] };
  };
  /** `EXPLAIN indexes = 1` of the query, run with exactly the settings of its warm runs (`explain_settings`). */
  explain_indexes: string | null;
  explain_error?: string;
  /** Settings the EXPLAIN ran with: the measured runs' settings (cold runs add only direct I/O). */
  explain_settings?: Record<string, number | string>;
  /**
   * Index phase, queries that use the skip index: what EXPLAIN (under the runs' settings) claims and
   * whether the measured runs show it (see {@link judgeIndexUse}).
   */
  index_proof?: IndexProof;
  samples: RunSample[];
  stats: QueryStats;
  /** Active part names before the first and after the last run of this query (`system.parts`). */
  parts_before: string[];
  parts_after: string[];
  /** sha256 → the first rows of that result (JSON, ≤ 400 chars), so a mismatch shows both values. */
  result_examples: Record<string, string>;
}

/** `queries-<phase>.json`. */
export interface QueriesRecord {
  phase: 'baseline' | 'index';
  attempt: number;
  /** Set when the step stopped (cancelled, or an error) before every query was measured: why, and how many were. */
  incomplete?: string;
  /** What "cold" meant in this step, from the recorded outcomes (see {@link coldDefinition}). */
  cold_definition: string;
  /**
   * Other chbench servers alive on this host (labels under the work dir) when the step started and
   * ended: other runs measuring at the same time disturb these timings.
   */
  other_chbench_servers: { at_start: string[]; at_end: string[] };
  merges_stopped: CommandOutcome | null;
  /** Statements of earlier attempts of this step found running at start, and what was done. */
  previous_attempts: PreviousAttempts;
  /** Settings sent with every measured run (cold runs add min_bytes_to_use_direct_io=1). */
  run_settings: Record<string, number>;
  query_log: 'available' | 'not available';
  queries: QueryRecord[];
}

function canDropOsCache(url: string): boolean {
  return isLoopbackUrl(url);
}

/**
 * Try to drop the OS page cache on this host; returns the outcome text. `sync` runs as a child
 * process without blocking the event loop (on a slow volume with many dirty pages it can take longer
 * than the heartbeat timeout), so heartbeats continue meanwhile.
 */
export async function dropOsPageCache(): Promise<string> {
  try {
    await execFileAsync('sync');
    await writeFile('/proc/sys/vm/drop_caches', '1\n');
    return 'dropped';
  } catch (e) {
    return `not dropped: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`;
  }
}

/** Normalise a query_log row: ProfileEvents as one object whether the server stores a Map or two arrays. */
function normaliseQueryLogRow(r: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...r };
  const names = r['ProfileEvents.Names'] as string[] | undefined;
  const values = r['ProfileEvents.Values'] as (string | number)[] | undefined;
  if (names && values) {
    out.ProfileEvents = Object.fromEntries(names.map((n, i) => [n, Number(values[i])]));
    delete out['ProfileEvents.Names'];
    delete out['ProfileEvents.Values'];
  }
  return out;
}

/**
 * Fetch `QueryFinish` rows of `system.query_log` for the given query ids (after `SYSTEM FLUSH LOGS`).
 * Rows carry `query_duration_us` (event_time_microseconds − query_start_time_microseconds) where the
 * version has those columns.
 */
export async function fetchQueryLog(client: ClickHouseClient, ids: string[]): Promise<Map<string, Record<string, unknown>>> {
  const out = new Map<string, Record<string, unknown>>();
  if (!ids.length) return out;
  await client.command({ query: 'SYSTEM FLUSH LOGS' });
  const cols = await queryRows<{ name: string }>(client, "SELECT name FROM system.columns WHERE database = 'system' AND table = 'query_log'");
  const have = new Set(cols.map((c) => c.name));
  const wanted = ['query_id', 'event_time', 'query_duration_ms', 'read_rows', 'read_bytes', 'result_rows', 'result_bytes', 'memory_usage', 'ProfileEvents', 'ProfileEvents.Names', 'ProfileEvents.Values', 'Settings.Names', 'Settings.Values', 'Settings'];
  const select = wanted.filter((c) => have.has(c)).map((c) => (c.includes('.') ? `\`${c}\`` : c)).join(', ');
  // Microsecond duration where the version has the columns (query_duration_ms is whole milliseconds).
  const micro = have.has('event_time_microseconds') && have.has('query_start_time_microseconds')
    ? ', toUnixTimestamp64Micro(event_time_microseconds) - toUnixTimestamp64Micro(query_start_time_microseconds) AS query_duration_us'
    : '';
  // `type` is an Enum on newer versions and a UInt8 (2 = QueryFinish) on old ones such as 18.16.
  const typeCol = await queryRows<{ type: string }>(client, "SELECT type FROM system.columns WHERE database = 'system' AND table = 'query_log' AND name = 'type'");
  const finish = typeCol[0]?.type.startsWith('Enum') ? "'QueryFinish'" : '2';
  const rows = await queryRows<Record<string, unknown>>(
    client,
    `SELECT ${select}${micro} FROM system.query_log WHERE event_date >= yesterday() AND type = ${finish} AND query_id IN (${ids.map(sqlString).join(', ')})`,
  );
  for (const r of rows) out.set(String(r.query_id), normaliseQueryLogRow(r));
  return out;
}

/**
 * Per-query statistics over the measured runs (warm-up runs excluded).
 *
 * The headline clock is the server's elapsed when every measured run has one *and* its source
 * resolves at most {@link MAX_RESOLUTION_SHARE} of the smallest value; otherwise client wall time,
 * with `timing_note` saying why. So a 0.6 ms query timed by `query_duration_ms` (whole ms) is never
 * printed as "0 ms".
 */
export function stats(samples: RunSample[]): QueryStats {
  const measured = samples.filter((s) => s.kind !== 'warmup');
  const sources = [...new Set(measured.map((s) => s.server_elapsed_source).filter((x): x is ServerTimeSource => x !== null))];
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
    warm_max_ms: warm.length ? Math.max(...warm.map(t)) : null,
    cold_wall_ms: cold.length ? ssMin(cold.map((s) => s.wall_ms)) : null,
    warm_min_wall_ms: warm.length ? ssMin(warm.map((s) => s.wall_ms)) : null,
    warm_median_wall_ms: warm.length ? ssMedian(warm.map((s) => s.wall_ms)) : null,
    read_rows: last?.read_rows ?? null,
    read_bytes: last?.read_bytes ?? null,
    result_rows: last?.result_rows ?? 0,
    // Every run, warm-up included, must return the same rows.
    result_sha256: [...new Set(samples.map((s) => s.result_sha256))],
    warm_validity: judgeWarm(cold.length ? ssMin(cold.map(t)) : null, warm.length ? ssMin(warm.map(t)) : null),
  };
}

/** Merges running + unfinished mutations on a table (`system.merges`, `system.mutations`); null if unreadable. */
async function mergesOrMutations(client: ClickHouseClient, table: string): Promise<number | null> {
  try {
    return (await runningMerges(client, table)) + (await pendingMutations(client, table));
  } catch {
    return null;
  }
}

/** The {@link RUN_COUNTERS} from `system.events` (absent = 0 there, as the table lists non-zero counters). */
async function eventCounters(client: ClickHouseClient): Promise<Record<string, number> | null> {
  try {
    const rows = await queryRows<{ k: string; v: string }>(client, `SELECT event AS k, value AS v FROM system.events WHERE event IN (${RUN_COUNTERS.map(sqlString).join(', ')})`);
    return Object.fromEntries(RUN_COUNTERS.map((k) => [k, Number(rows.find((r) => r.k === k)?.v ?? 0)]));
    // (Absent = 0 here; counterDelta turns counters this version does not have into null.)
  } catch {
    return null;
  }
}

function counterDelta(a: Record<string, number>, b: Record<string, number>, known?: string[]): RunCounters {
  return Object.fromEntries(RUN_COUNTERS.map((k) => [k, known && !known.includes(k) ? null : b[k] - a[k]]));
}

/**
 * The server's code, name and message when `e` is an error of the query itself (a `ClickHouseError`,
 * or a `Code: N` text from an old server), `undefined` for anything else (network, cancellation,
 * a lost server), which must propagate.
 */
export function queryFailure(e: unknown): Omit<NonNullable<QueryRecord['error']>, 'run' | 'query_id'> | undefined {
  if (isTargetGone(e) || e instanceof ApplicationFailure || (e as Error)?.name === 'AbortError') return undefined;
  const code = errorCode(e);
  if (code === undefined) return undefined;
  // Old servers name no type (the client then says UNKNOWN): keep null rather than a made-up name.
  const named = e instanceof ClickHouseError && e.type && e.type !== 'UNKNOWN' ? e.type : /\(([A-Z][A-Z0-9_]{2,})\)/.exec((e as Error).message)?.[1];
  const type = named ?? null;
  const late = e as Partial<MidStreamClickHouseError>;
  return {
    code,
    type,
    message: ((e as Error).message ?? String(e)).slice(0, 500),
    ...(late.exception_source ? { after_response_started: { http_status: late.http_status!, result_bytes: late.result_bytes!, exception_source: late.exception_source } } : {}),
  };
}

/** Settings an EXPLAIN of a measured query runs with: the runs' own, minus logging. */
function explainSettings(base: Record<string, number | string>): Record<string, number | string> {
  const { log_queries: _l, ...rest } = base;
  return rest;
}

/**
 * Cross-check a run's HTTP summary and JSON statistics block against its query_log row: read_rows
 * must agree within 0.1 %, elapsed within max(2 ms, 10 %). Returns `agrees`, `disagrees: …` or
 * `not checked: …`.
 */
export function crossCheck(s: Pick<RunSample, 'http_summary' | 'output_statistics' | 'summary_complete'>, row: Record<string, unknown>): string {
  const logRows = Number(row.read_rows);
  const logMs = row.query_duration_us !== undefined ? Number(row.query_duration_us) / 1000 : Number(row.query_duration_ms);
  const diffs: string[] = [];
  const checked: string[] = [];
  const sumRows = summaryNumber(s.http_summary as HttpSummary | undefined, 'read_rows');
  const sumNs = summaryNumber(s.http_summary as HttpSummary | undefined, 'elapsed_ns');
  const what = s.summary_complete ? 'summary' : 'summary (snapshot: wait_end_of_query not requested)';
  const rowsOff = (v: number) => Math.abs(v - logRows) > Math.max(0, logRows * 0.001);
  const msOff = (v: number) => Math.abs(v - logMs) > Math.max(2, logMs * 0.1);
  if (sumRows !== null) {
    checked.push('summary read_rows');
    if (rowsOff(sumRows)) diffs.push(`${what} read_rows ${sumRows} vs query_log ${logRows}`);
  }
  if (sumNs !== null) {
    checked.push('summary elapsed');
    if (msOff(sumNs / 1e6)) diffs.push(`${what} elapsed ${(sumNs / 1e6).toFixed(3)} ms vs query_log ${logMs.toFixed(3)} ms`);
  }
  const st = s.output_statistics;
  if (typeof st?.rows_read === 'number') {
    checked.push('statistics rows_read');
    if (rowsOff(st.rows_read)) diffs.push(`statistics rows_read ${st.rows_read} vs query_log ${logRows}`);
  }
  if (!checked.length) return 'not checked: the server sent no summary and no statistics block';
  return diffs.length ? `disagrees: ${diffs.join('; ')}` : `agrees (${checked.join(', ')})`;
}

/** Options for {@link measureQueries}. */
export interface MeasureOptions {
  coldRuns: number;
  /** Drop the server's caches before each cold run. @default true (false only to test the cold check) */
  dropCaches?: boolean;
  /** Cache-drop statements to issue (those the capability probe accepted). @default all of CACHE_DROP_COMMANDS */
  cacheDrops?: readonly string[];
  warmupRuns: number;
  warmRuns: number;
  dropOsPageCache: boolean;
  maxExecutionTimeS: number;
  queryLog: boolean;
  /** query_id prefix; each run appends `-<query>-<kind><n>-a<attempt>`. */
  queryIdPrefix: string;
  /** Where per-run counters come from: the query log, `system.events` differences (embedded), or nowhere. */
  counters: 'query_log' | 'system.events' | 'none';
  /** The server is a process on this host (embedded/local target), so dropping this host's page cache affects it. */
  serverOnThisHost?: boolean;
  /** Label of the HTTP summary's read_rows (the embedded server fills it from the engine's output statistics). */
  summaryReadSource?: RunSample['read_source'];
  /** Query setting names the server has (the probe's list). */
  knownSettings?: string[];
  /** Counter names that exist on this server (the probe's `system.events` list). */
  knownCounters?: string[];
  /** Extra query settings of the spec (already checked against the probe). */
  extraSettings?: Record<string, string | number>;
  /** The target, so a cancelled run is killed on the server (absent in bench/). */
  target?: TargetHandle;
  /**
   * Each query's record is also pushed here as soon as the query is done (before query_log figures
   * are joined), so a step that is cancelled or fails midway can still write what it measured.
   */
  finished?: QueryRecord[];
  /** Called before each run (for heartbeats / progress). */
  onRun?: (q: string, kind: RunSample['kind'], n: number) => void;
}

/** Run the protocol for a list of queries on one client. Used by the activity and by bench/. */
export async function measureQueries(client: ClickHouseClient, table: string, url: string, queries: WorkloadQuery[], o: MeasureOptions): Promise<QueryRecord[]> {
  const records: QueryRecord[] = [];
  const a = attempt();
  const base = {
    ...(o.extraSettings ?? {}),
    max_execution_time: o.maxExecutionTimeS,
    ...(await resultCacheSettings(client)),
    // 64-bit integers quoted in JSON on every version, so result hashes compare across versions.
    ...(o.knownSettings === undefined || o.knownSettings.includes('output_format_json_quote_64bit_integers') ? { output_format_json_quote_64bit_integers: 1 } : {}),
    ...(o.queryLog ? { log_queries: 1 } : {}),
  } as Record<string, number>;
  // EXPLAINs that prove something about the runs use the runs' own settings (computed once).
  const explainWith = explainSettings(base);
  // A summary is a headline only when it is complete: without a query log, request it (wait_end_of_query=1).
  const summaryComplete = !o.queryLog;
  for (const q of queries) {
    const samples: RunSample[] = [];
    const examples: Record<string, string> = {};
    const partsBefore = (await activeParts(client, table)).names;
    const runs: [RunSample['kind'], number][] = [
      ...Array.from({ length: o.coldRuns }, (_, i) => ['cold', i + 1] as [RunSample['kind'], number]),
      ...Array.from({ length: o.warmupRuns }, (_, i) => ['warmup', i + 1] as [RunSample['kind'], number]),
      ...Array.from({ length: o.warmRuns }, (_, i) => ['warm', i + 1] as [RunSample['kind'], number]),
    ];
    let queryError: QueryRecord['error'];
    for (const [kind, n] of runs) {
      o.onRun?.(q.id, kind, n);
      let prep: ColdPreparation | undefined;
      let settings: Record<string, number> = base;
      if (kind === 'cold') {
        const server_caches: CommandOutcome[] = [];
        if (o.dropCaches !== false) for (const c of o.cacheDrops ?? CACHE_DROP_COMMANDS) server_caches.push(await tryCommand(client, c));
        const os = !o.dropOsPageCache
          ? 'not dropped: protocol.dropOsPageCache is false'
          : o.serverOnThisHost ?? canDropOsCache(url)
            ? await dropOsPageCache()
            : 'not dropped: the server is not known to run on the worker host';
        settings = { ...base, min_bytes_to_use_direct_io: 1 };
        prep = { server_caches, os_page_cache: os, settings };
      }
      const before = (await activeParts(client, table)).names.join(',');
      const busyBefore = await mergesOrMutations(client, table);
      const eventsBefore = o.counters === 'system.events' ? await eventCounters(client) : null;
      const queryId = `${o.queryIdPrefix}-${q.id}-${kind}${n}-a${a}`;
      // Without a query log the summary is the server-side source: ask for the complete one
      // (wait_end_of_query=1; the embedded engine also reports its elapsed and rows read only then).
      const mo = { waitEndOfQuery: summaryComplete, onProgress: (p: { result_rows: number; result_bytes: number }) => heartbeat({ result_rows: p.result_rows, result_bytes: p.result_bytes }) };
      let r: MeasuredResult;
      try {
        r = o.target ? await killOnCancel(o.target, queryId, runMeasured(client, q.sql, queryId, settings, cancellationSignal(), mo)) : await runMeasured(client, q.sql, queryId, settings, cancellationSignal(), mo);
      } catch (e) {
        // A server error in the query itself (also one that arrived after the response started) is a
        // failed run: recorded with the server's code and message; the other queries are still measured.
        const failure = queryFailure(e);
        if (!failure) throw e;
        queryError = { ...failure, run: `${kind} ${n}`, query_id: queryId };
        break;
      }
      const eventsAfter = o.counters === 'system.events' ? await eventCounters(client) : null;
      const after = (await activeParts(client, table)).names.join(',');
      const busyAfter = await mergesOrMutations(client, table);
      const busy = busyBefore === null || busyAfter === null ? null : Math.max(busyBefore, busyAfter);
      const elapsedNs = summaryNumber(r.summary, 'elapsed_ns');
      // read_rows / read_bytes: HTTP summary (newer servers), else the statistics block of the JSON output.
      // A snapshot summary may under-report: its read_rows counts only when complete (else query_log / the statistics block).
      let readRows = summaryComplete ? summaryNumber(r.summary, 'read_rows') : null;
      let readBytes = summaryComplete ? summaryNumber(r.summary, 'read_bytes') : null;
      let readSource: RunSample['read_source'] = readRows === null ? null : (o.summaryReadSource ?? 'http summary');
      if (readRows === null && typeof r.output_statistics?.rows_read === 'number') {
        readRows = r.output_statistics.rows_read;
        readBytes = r.output_statistics.bytes_read ?? null;
        readSource = 'output statistics';
      }
      if (!(r.result_sha256 in examples)) examples[r.result_sha256] = JSON.stringify(r.first_rows).slice(0, 400);
      samples.push({
        kind,
        n,
        query_id: r.query_id,
        wall_ms: r.wall_ms,
        // A snapshot summary (no wait_end_of_query) never gives the headline; query_log fills it in below.
        server_elapsed_ms: elapsedNs === null || !summaryComplete ? null : elapsedNs / 1e6,
        server_elapsed_source: elapsedNs === null || !summaryComplete ? null : 'http summary elapsed_ns',
        read_rows: readRows,
        read_bytes: readBytes,
        read_source: readSource,
        result_rows: r.result_rows,
        result_bytes: r.result_bytes,
        result_sha256: r.result_sha256,
        parts_changed: before !== after,
        merges_or_mutations: busy,
        counters: eventsBefore && eventsAfter ? counterDelta(eventsBefore, eventsAfter, o.knownCounters) : null,
        counters_source: eventsBefore && eventsAfter ? 'system.events difference (embedded engine runs one statement at a time)' : null,
        validity: { quiet: judgeQuiet(before !== after, busy) },
        settings,
        ...(r.summary ? { http_summary: r.summary as Record<string, string> } : {}),
        summary_complete: r.wait_end_of_query,
        ...(r.output_statistics ? { output_statistics: r.output_statistics } : {}),
        ...(prep ? { cold_preparation: prep } : {}),
      });
    }
    // EXPLAIN after the measured runs: it loads marks (of skip indexes too) that would warm a cold run.
    let explain: string | null = null;
    let explainError: string | undefined;
    try {
      // Under exactly the settings of the warm runs, so what it proves holds for the measured runs.
      const rs = await client.query({ query: `EXPLAIN indexes = 1 ${q.sql}`, format: 'TabSeparatedRaw', clickhouse_settings: explainWith });
      explain = (await rs.text()).trimEnd();
    } catch (e) {
      explainError = (e as Error).message.split('\n')[0];
    }
    for (const smp of samples) if (smp.kind === 'cold') smp.validity.cold = judgeCold(smp.counters, smp.cold_preparation?.os_page_cache ?? '', smp.cold_preparation?.server_caches ?? []);
    const record: QueryRecord = { id: q.id, title: q.title, uses_index: q.usesIndex, deterministic: q.deterministic, sql: q.sql, ...(queryError ? { error: queryError } : {}), explain_indexes: explain, explain_settings: explainWith, ...(explainError ? { explain_error: explainError } : {}), samples, stats: stats(samples), parts_before: partsBefore, parts_after: (await activeParts(client, table)).names, result_examples: examples };
    records.push(record);
    o.finished?.push(record);
  }
  if (o.queryLog) {
    const log = await fetchQueryLog(client, records.flatMap((r) => r.samples.map((s) => s.query_id)));
    // A counter exists on this server if the probe listed it or any run of this step reported it.
    const seen = new Set<string>([...(o.knownCounters ?? []), ...[...log.values()].flatMap((r) => Object.keys((r.ProfileEvents ?? {}) as object))]);
    for (const rec of records)
      for (const s of rec.samples) {
        const pe = (log.get(s.query_id)?.ProfileEvents ?? null) as Record<string, number> | null;
        if (pe && o.counters === 'query_log') {
          // An entry is absent when the counter stayed 0 in that query — or when this version has no
          // such counter. Absent counts as 0 only for counters the probe saw exist; otherwise unknown.
          s.counters = Object.fromEntries(RUN_COUNTERS.map((k) => [k, k in pe ? Number(pe[k]) : seen.has(k) ? 0 : null]));
          s.counters_source = 'system.query_log ProfileEvents';
        }
      }
    for (const rec of records) {
      for (const s of rec.samples) {
        const row = log.get(s.query_id) ?? null;
        s.query_log = row;
        if (!row) continue;
        // query_log is the authoritative per-query record: it is the headline; the summary a cross-check.
        const ms = Number(row.query_duration_ms);
        const us = row.query_duration_us === undefined ? null : Number(row.query_duration_us);
        // The microsecond difference must agree with query_duration_ms (±1 ms) to be used.
        if (us !== null && Number.isFinite(us) && Math.abs(us / 1000 - ms) <= 1) [s.server_elapsed_ms, s.server_elapsed_source] = [us / 1000, 'system.query_log event_time_microseconds - query_start_time_microseconds'];
        else [s.server_elapsed_ms, s.server_elapsed_source] = [ms, 'system.query_log.query_duration_ms'];
        [s.read_rows, s.read_bytes, s.read_source] = [Number(row.read_rows), Number(row.read_bytes), 'system.query_log'];
        s.cross_check = crossCheck(s, row);
      }
      for (const smp of rec.samples) if (smp.kind === 'cold') smp.validity.cold = judgeCold(smp.counters, smp.cold_preparation?.os_page_cache ?? '', smp.cold_preparation?.server_caches ?? []);
      rec.stats = stats(rec.samples);
    }
  }
  return records;
}

/**
 * "Cold" as it really was in these records: the cache drops that succeeded before every cold run,
 * those the server refused (with its reason), the OS page cache outcome, and direct I/O requested.
 */
export function coldDefinition(records: QueryRecord[], probe?: CapabilityProbe): string {
  const preps = records.flatMap((r) => r.samples.filter((x) => x.cold_preparation).map((x) => x.cold_preparation!));
  if (!preps.length) return 'no cold runs';
  const okAll = CACHE_DROP_COMMANDS.filter((c) => preps.every((p) => p.server_caches.find((o) => o.sql === c)?.ok));
  const failed = CACHE_DROP_COMMANDS.filter((c) => !okAll.includes(c)).map((c) => {
    // Not issued because the probe saw the server refuse it, or issued and refused now.
    const err = preps.map((p) => p.server_caches.find((o) => o.sql === c)).find((o) => o && !o.ok)?.error ?? probe?.cache_drops.find((o) => o.sql === c && !o.ok)?.error ?? 'not issued';
    return `${c.replace('SYSTEM DROP ', '').toLowerCase()} (${/Syntax|Unknown|not supported|UNKNOWN|Expected one of/i.test(err) ? 'not on this version' : `refused: ${err.slice(0, 80)}`})`;
  });
  const os = [...new Set(preps.map((p) => p.os_page_cache))].join(' / ');
  return [
    'direct I/O requested (min_bytes_to_use_direct_io=1)',
    `caches dropped before each cold run: ${okAll.map((c) => c.replace('SYSTEM DROP ', '').toLowerCase()).join(', ') || 'none'}`,
    ...(failed.length ? [`not dropped: ${failed.join(', ')}`] : []),
    `OS page cache ${os}`,
  ].join('; ');
}

/** Chbench servers other than `self` alive on this host, as `<run>/<cell>` (from labels under `workDir`). */
export function otherChbenchServers(workDir: string, self: TargetHandle): string[] {
  if (self.kind === 'external') return [];
  return listLabels(workDir)
    .filter((l) => !(l.runId === self.runId && l.cellKey === self.cellKey) && isAlive(l.pid))
    .map((l) => `${l.runId}/${l.cellKey}`);
}

function readProbe(cell: CellInput): CapabilityProbe | undefined {
  return readJsonIfExists<CapabilityProbe>(path.join(cellDir(cell.resultsDir, cell.runId, cell.cellKey), 'probe.json'));
}

/** The cache drops the cell's capability probe accepted (all known ones when there is no probe). */
function probedCacheDrops(probe: CapabilityProbe | undefined): readonly string[] {
  return probe ? probe.cache_drops.filter((c) => c.ok).map((c) => c.sql) : CACHE_DROP_COMMANDS;
}

/** Activity factory. */
export function createRunQueries(deps: { workDir: string }) {
  return {
    /**
     * Measure the cell's queries. `phase` `baseline` runs every selected query; `index` only those the
     * workload marks `usesIndex`. Writes `queries-<phase>.json`.
     * @throws ClickHouseError when a query fails on the server.
     */
    async runQueries({ cell, target }: StepInput, phase: 'baseline' | 'index', queryLog: boolean): Promise<QueriesSummary> {
      const m = loadWorkload(cell.workload);
      let queries = workloadQueries(m, { table: m.table, rows: cell.scale, codec: cell.codec }, cell.queries);
      if (phase === 'index') queries = queries.filter((q) => q.usesIndex);
      const client = connect(target, { maxExecutionTimeS: cell.protocol.maxExecutionTimeS });
      let merges: CommandOutcome | null = null;
      try {
        const othersAtStart = otherChbenchServers(deps.workDir, target);
        const probe = readProbe(cell);
        // A retry re-measures this step from scratch, never beside a run of the earlier attempt.
        const previous = await settlePreviousAttempts(target, client, queryIdPrefix(cell.runId, cell.cellKey, phase));
        if (cell.protocol.stopMergesDuringQueries) merges = await tryCommand(client, `SYSTEM STOP MERGES ${m.table}`);
        const dir = cellDir(cell.resultsDir, cell.runId, cell.cellKey);
        const file = path.join(dir, `queries-${phase}.json`);
        const record = (records: QueryRecord[], incomplete?: string): QueriesRecord => ({
          phase,
          attempt: attempt(),
          ...(incomplete ? { incomplete } : {}),
          cold_definition: coldDefinition(records, probe),
          other_chbench_servers: { at_start: othersAtStart, at_end: otherChbenchServers(deps.workDir, target) },
          merges_stopped: merges,
          previous_attempts: previous,
          run_settings: records[0]?.samples.find((x) => x.kind === 'warm')?.settings ?? {},
          query_log: queryLog ? 'available' : 'not available',
          queries: records,
        });
        const finished: QueryRecord[] = [];
        const records = await measureQueries(client, m.table, target.url, queries, {
          finished,
          coldRuns: cell.protocol.coldRuns,
          warmupRuns: cell.protocol.warmupRuns,
          warmRuns: cell.protocol.warmRuns,
          dropOsPageCache: cell.protocol.dropOsPageCache,
          maxExecutionTimeS: cell.protocol.maxExecutionTimeS,
          queryLog,
          counters: queryLog ? 'query_log' : target.kind === 'embedded' ? 'system.events' : 'none',
          target,
          extraSettings: readCellSettings(cell).runs,
          cacheDrops: probedCacheDrops(probe),
          knownCounters: probe?.events_complete ? (probe.events ?? undefined) : undefined,
          knownSettings: probe?.query_settings ?? undefined,
          // An external URL on loopback may be a port-forward to another host: never assume it is local.
          serverOnThisHost: target.kind !== 'external',
          summaryReadSource: target.kind === 'embedded' ? 'output statistics' : 'http summary',
          queryIdPrefix: queryIdPrefix(cell.runId, cell.cellKey, phase),
          onRun: (q, kind, n) => heartbeat({ step: `queries-${phase}`, query: q, run: `${kind} ${n}` }),
        }).catch((e: unknown) => {
          // Cancelled or failed midway: keep the queries already measured (a retry re-measures and overwrites).
          if (finished.length) {
            const why = cancellationSignal()?.aborted ? 'cancelled' : `stopped by an error: ${((e as Error)?.message ?? String(e)).split('\n')[0].slice(0, 200)}`;
            writeJsonAtomic(file, record(finished, `${why}; ${finished.length} of ${queries.length} queries measured (query_log figures not joined)`));
          }
          throw e;
        });
        if (phase === 'index' && m.index) {
          // The index's proof is taken from these runs: EXPLAIN under their settings, and their read_rows vs the baseline's.
          const baseline = readJsonIfExists<QueriesRecord>(path.join(dir, 'queries-baseline.json'));
          for (const r of records) {
            const before = baseline?.queries.find((b) => b.id === r.id)?.stats.read_rows ?? null;
            r.index_proof = judgeIndexUse(m.index.name, r.explain_error ? null : r.explain_indexes, r.stats.read_rows, before);
          }
        }
        writeJsonAtomic(file, record(records));
        const failed = records.filter((r) => r.error);
        if (failed.length)
          // After the record is written: what was measured is kept; retrying cannot fix a query error.
          throw ApplicationFailure.create({
            type: FAILURE.QueryFailed,
            nonRetryable: true,
            message: failed.map((r) => `${r.id.toUpperCase()} failed on run ${r.error!.run} (query_id ${r.error!.query_id}): Code ${r.error!.code}${r.error!.type ? ` ${r.error!.type}` : ''}: ${r.error!.message.split('\n')[0].slice(0, 300)}`).join('; '),
            details: [{ file: path.basename(file), failed: failed.map((r) => r.id) }],
          });
        const headlines: QueryHeadline[] = records.map((r) => ({ id: r.id, cold_ms: r.stats.cold_ms, warm_min_ms: r.stats.warm_min_ms, warm_median_ms: r.stats.warm_median_ms, read_rows: r.stats.read_rows }));
        return { phase, file: path.basename(file), queries: headlines };
      } finally {
        if (merges?.ok) await tryCommand(client, `SYSTEM START MERGES ${m.table}`);
        await client.close();
      }
    },
  };
}
