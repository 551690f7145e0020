/**
 * The measurement method: one driver for every target (ClickBench's `benchmark-common.sh`).
 *
 * Per query, in order:
 * 1. `coldRuns` cold runs. Before each: every cache drop the capability probe accepted, then the OS
 *    page cache when the protocol asks and the server is on the worker's host (./cold-cycle); the run
 *    asks for direct I/O (`min_bytes_to_use_direct_io=1`).
 * 2. `warmupRuns` warm-up runs (kept in the record, left out of every statistic), then `warmRuns`
 *    warm runs, with no drop. Every run has its own query_id (`<prefix>-<query>-<kind><n>-a<attempt>`)
 *    and the runs' settings: the spec's, `max_execution_time`, result caches off, 64-bit integers quoted.
 * 3. After the runs, `EXPLAIN indexes = 1` under the warm runs' settings (never before: it loads marks).
 * Judged per run (./validity): cold — from the run's own counters, the caches were empty and the data
 * came from storage past the OS page cache; quiet — no part changed and no merge/mutation ran.
 * Per query: warm faster than cold; every run returned the same rows (sha256 of the result).
 * Statistics (./stats): cold = min of the accepted cold runs, warm min/median/max over warm runs, on
 * the server's clock unless its resolution exceeds 10 % of the fastest run (then client wall time).
 * Sources (./figures): wall time = client performance.now() around request and body; server elapsed,
 * read_rows/bytes and counters = the run's `system.query_log` row where the server keeps one, else the
 * complete HTTP summary / JSON statistics block, and `system.events` differences on the embedded engine.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import { runMeasured, type MeasuredResult } from '../clickhouse/client';
import { fetchQueryLog } from '../clickhouse/query-log';
import { activeParts, runningMerges, pendingMutations } from '../clickhouse/table-state';
import type { WorkloadQuery } from '../lib/workload';
import type { CapabilityProbe, ColdPreparation, QueryRecord, RunSample } from '../schema/results';
import { prepareColdRun, resultCacheSettings, type ServerPod } from './cold-cycle';
import { PROBED_CACHE_DROPS } from '../clickhouse/probe';
import { calibratedSnapshot, counterDelta, eventCounters, queryLogCounters, SNAPSHOT_ROWS } from './counters';
import { applyQueryLog, queryFailure, readFromCounters, runFigures } from './figures';
import { cacheStates, undroppableCaches } from './caches';
import { explainIndexes } from './index-proof';
import { stats } from './stats';
import { judgeCold, judgeQuiet } from './validity';

/** Options for {@link measureQueries}. Defaults are those of a run outside Temporal (bench/, tests). */
export interface MeasureOptions {
  coldRuns: number;
  /** Drop the server's caches before each cold run. @default true (false only to test the cold check) */
  dropCaches?: boolean;
  /** Cache-drop statements to issue (`coldCacheDrops(probe)`). @default every statement of PROBED_CACHE_DROPS */
  cacheDrops?: readonly string[];
  /** The probe's cache facts (drops accepted, cache settings' defaults): caches on but not droppable are recorded. */
  cacheProbe?: Pick<CapabilityProbe, 'cache_drops' | 'cache_settings'>;
  warmupRuns: number;
  warmRuns: number;
  /** The protocol asks for the OS page cache to be dropped before each cold run (done only when {@link serverOnThisHost}). */
  dropOsPageCache: boolean;
  /** `max_execution_time` of every run, s. */
  maxExecutionTimeS: number;
  /** The server keeps `system.query_log`: runs are logged and their rows joined after the step. */
  queryLog: boolean;
  /** query_id prefix (`queryIdPrefix(run, cell, phase)`); each run appends `-<query>-<kind><n>-a<attempt>`. */
  queryIdPrefix: string;
  /** Where per-run counters come from: the query log, `system.events` differences (embedded), or nowhere. */
  counters: 'query_log' | 'system.events' | 'none';
  /** The server runs on the worker's host (target capability `onWorkerHost`), so dropping this host's page cache affects it. @default false */
  serverOnThisHost?: boolean;
  /** Where the server runs when it is a Kubernetes pod (the handle's `kubernetes` facts): named in the OS page-cache outcome of each cold run. */
  serverPod?: ServerPod;
  /** Label of the complete HTTP summary's read counts (target capability `summaryReadSource`). @default 'http summary' */
  summaryReadSource?: RunSample['read_source'];
  /** Query setting names the server has (the probe's list); absent = assume every setting exists. */
  knownSettings?: string[];
  /** Counter names that exist on this server (the probe's complete `system.events` list). */
  knownCounters?: string[];
  /** Extra query settings of the spec (already checked against the probe). */
  extraSettings?: Record<string, string | number>;
  /** Activity attempt, the `-a<attempt>` of every query_id. @default 1 */
  attempt?: number;
  /** Cancellation: aborts the run in flight. */
  signal?: AbortSignal;
  /** Wraps each run so that a cancellation also kills it on the server (the activity's `killOnCancel`). */
  killOnCancel?: <T>(queryId: string, run: Promise<T>) => Promise<T>;
  /** True when an error means the server is gone: the error propagates instead of being recorded as the query's failure. */
  isTargetGone?: (e: unknown) => boolean;
  /**
   * Each query's record is also pushed here as soon as the query is done (before query_log figures
   * are joined), so a step that is cancelled or fails midway can still write what it measured.
   */
  finished?: QueryRecord[];
  /** Called before each run (heartbeat with the step, query and run). */
  onRun?: (q: string, kind: RunSample['kind'], n: number) => void;
  /** Called as a run's result streams in (heartbeat with its progress). */
  onProgress?: (p: { result_rows: number; result_bytes: number }) => void;
}

/**
 * The settings of every measured run (cold runs add direct I/O): spec, time limit, result caches off, JSON
 * quoting, logging. A result-cache setting the spec names itself (`use_query_condition_cache: 1`) is
 * honoured: its value is sent, so the runs, `settings.json` and the samples all record the same value.
 */
async function runSettings(client: ClickHouseClient, o: MeasureOptions): Promise<Record<string, number>> {
  const caches = await resultCacheSettings(client);
  for (const k of Object.keys(o.extraSettings ?? {})) delete caches[k];
  return {
    ...(o.extraSettings ?? {}),
    max_execution_time: o.maxExecutionTimeS,
    ...caches,
    // 64-bit integers quoted in JSON on every version, so result hashes compare across versions.
    ...(o.knownSettings === undefined || o.knownSettings.includes('output_format_json_quote_64bit_integers')
      ? { output_format_json_quote_64bit_integers: 1 }
      : {}),
    ...(o.queryLog ? { log_queries: 1 } : {}),
  } as Record<string, number>;
}

/** Settings an EXPLAIN of a measured query runs with: the runs' own, minus logging. */
function explainSettings(base: Record<string, number | string>): Record<string, number | string> {
  const { log_queries: _l, ...rest } = base;
  return rest;
}

/** Merges running + unfinished mutations on a table (`system.merges`, `system.mutations`); null if unreadable or absent (chdb 1.4.1). */
async function mergesOrMutations(client: ClickHouseClient, table: string): Promise<number | null> {
  try {
    const [merges, mutations] = [await runningMerges(client, table), await pendingMutations(client, table)];
    return merges === null || mutations === null ? null : merges + mutations;
  } catch {
    return null;
  }
}

/** The runs of one query in order: cold, warm-up, warm, each 1-based within its kind. */
function runPlan(o: MeasureOptions): [RunSample['kind'], number][] {
  const kind = (k: RunSample['kind'], count: number) =>
    Array.from({ length: count }, (_, i) => [k, i + 1] as [RunSample['kind'], number]);
  return [...kind('cold', o.coldRuns), ...kind('warmup', o.warmupRuns), ...kind('warm', o.warmRuns)];
}

/** Judge every cold run of a record from its counters and preparation (again once query_log counters are joined). */
function judgeColdRuns(samples: RunSample[], undroppable: ReturnType<typeof undroppableCaches> = []): void {
  for (const s of samples)
    if (s.kind === 'cold')
      s.validity.cold = judgeCold(
        s.counters,
        s.cold_preparation?.os_page_cache ?? '',
        s.cold_preparation?.server_caches ?? [],
        undroppable,
      );
}

/**
 * Run the method on `queries` against `table`, one query after the other on one client. A query
 * whose run fails on the server gets an `error` (its later runs are not attempted) and the others
 * are still measured. Used by the `runQueries` activity, bench/ and tests.
 * @returns one record per query, with query_log rows, counters and statistics joined.
 * @throws whatever is not a query's own failure: a lost server, a cancellation, a network error.
 */
/** What differs between the phase's active parts and a later snapshot (`a,b,c`), in words. */
function partsDiff(phase: readonly string[], nowKey: string): string {
  const now = nowKey ? nowKey.split(',') : [];
  const added = now.filter((p) => !phase.includes(p));
  const gone = phase.filter((p) => !now.includes(p));
  const list = (xs: string[]) => xs.slice(0, 3).join(', ') + (xs.length > 3 ? `, … (+${xs.length - 3})` : '');
  return (
    [
      added.length ? `${added.length} part(s) added (${list(added)})` : '',
      gone.length ? `${gone.length} gone (${list(gone)})` : '',
    ]
      .filter(Boolean)
      .join(', ') + ` (system.parts, active; ${phase.length} at the phase's start)`
  );
}

export async function measureQueries(
  client: ClickHouseClient,
  table: string,
  queries: WorkloadQuery[],
  o: MeasureOptions,
): Promise<QueryRecord[]> {
  const records: QueryRecord[] = [];
  const base = await runSettings(client, o);
  // Caches on for these runs that this version cannot drop: recorded in every cold run's validity.
  const undroppable = o.cacheProbe ? undroppableCaches(cacheStates(o.cacheProbe, base)) : [];
  // EXPLAINs that prove something about the runs use the runs' own settings (computed once).
  const explainWith = explainSettings(base);
  // A summary is a headline only when it is complete: without a query log, request it (wait_end_of_query=1;
  // the embedded engine also reports its elapsed and rows read only then).
  const summaryComplete = !o.queryLog;
  const measuredOptions = { waitEndOfQuery: summaryComplete, onProgress: o.onProgress };
  // The table the phase measures: its active parts when the phase begins. Every run must see the same
  // (merges are stopped for the phase): anything else means the table changed under it.
  const phaseParts = (await activeParts(client, table)).names;
  const phaseKey = phaseParts.join(',');
  for (const q of queries) {
    const samples: RunSample[] = [];
    const examples: Record<string, string> = {};
    const partsBefore = (await activeParts(client, table)).names;
    let queryError: QueryRecord['error'];
    for (const [kind, n] of runPlan(o)) {
      o.onRun?.(q.id, kind, n);
      let prep: ColdPreparation | undefined;
      if (kind === 'cold')
        prep = await prepareColdRun(client, base, {
          drops: o.cacheDrops ?? PROBED_CACHE_DROPS,
          dropCaches: o.dropCaches !== false,
          dropOsPageCache: o.dropOsPageCache,
          serverOnThisHost: o.serverOnThisHost ?? false,
          serverPod: o.serverPod,
        });
      const settings = prep?.settings ?? base;
      const before = (await activeParts(client, table)).names.join(',');
      const busyBefore = await mergesOrMutations(client, table);
      // The snapshot before the run, and what such a snapshot reads itself (taken off the read figures).
      const { snapshot: eventsBefore, overhead } =
        o.counters === 'system.events' ? await calibratedSnapshot(client) : { snapshot: null, overhead: null };
      const queryId = `${o.queryIdPrefix}-${q.id}-${kind}${n}-a${o.attempt ?? 1}`;
      let r: MeasuredResult;
      // Worker wall clock around the statement (the sample's started_at/finished_at): the window the cloud metrics attribute.
      const startedAt = new Date().toISOString();
      try {
        const run = runMeasured(client, q.sql, queryId, settings, o.signal, measuredOptions);
        r = await (o.killOnCancel ? o.killOnCancel(queryId, run) : run);
      } catch (e) {
        // A server error in the query itself (also one that arrived after the response started) is a
        // failed run: recorded with the server's code and message; the other queries are still measured.
        const failure = queryFailure(e, o.isTargetGone);
        if (!failure) throw e;
        queryError = { ...failure, run: `${kind} ${n}`, query_id: queryId };
        break;
      }
      const finishedAt = new Date().toISOString();
      const eventsAfter = o.counters === 'system.events' ? await eventCounters(client) : null;
      const after = (await activeParts(client, table)).names.join(',');
      const busyAfter = await mergesOrMutations(client, table);
      const busy = busyBefore === null || busyAfter === null ? null : Math.max(busyBefore, busyAfter);
      const f = runFigures(r, o.summaryReadSource);
      for (const h of [r.result_sha256, r.result_values_sha256])
        if (h && !(h in examples)) examples[h] = JSON.stringify(r.first_rows).slice(0, 400);
      samples.push({
        kind,
        n,
        query_id: r.query_id,
        wall_ms: f.wall_ms,
        server_elapsed_ms: f.server_elapsed_ms,
        server_elapsed_source: f.server_elapsed_source,
        read_rows: f.read_rows,
        read_bytes: f.read_bytes,
        read_source: f.read_source,
        ...(f.read_unknown ? { read_unknown: f.read_unknown } : {}),
        result_rows: f.result_rows,
        result_bytes: f.result_bytes,
        result_sha256: f.result_sha256,
        result_values_sha256: f.result_values_sha256,
        ...(f.result_values_unknown ? { result_values_unknown: f.result_values_unknown } : {}),
        parts_changed: before !== after,
        merges_or_mutations: busy,
        counters: eventsBefore && eventsAfter ? counterDelta(eventsBefore, eventsAfter, o.knownCounters) : null,
        counters_source:
          eventsBefore && eventsAfter
            ? 'system.events difference (embedded engine runs one statement at a time)'
            : null,
        validity: {
          quiet: judgeQuiet(before !== after, busy, before !== phaseKey ? partsDiff(phaseParts, before) : undefined),
        },
        settings,
        ...(f.http_summary ? { http_summary: f.http_summary } : {}),
        summary_complete: f.summary_complete,
        ...(f.output_statistics ? { output_statistics: f.output_statistics } : {}),
        ...(prep ? { cold_preparation: prep } : {}),
        started_at: startedAt,
        finished_at: finishedAt,
      });
      // No read from the response (or a 0): the system.events difference, where there is one.
      readFromCounters(samples[samples.length - 1], eventsBefore?.[SNAPSHOT_ROWS], overhead);
    }
    // EXPLAIN after the measured runs: it loads marks (of skip indexes too) that would warm a cold run.
    let explain: string | null = null;
    let explainError: string | undefined;
    try {
      // Under exactly the settings of the warm runs, so what it proves holds for the measured runs.
      explain = await explainIndexes(client, q.sql, explainWith);
    } catch (e) {
      explainError = (e as Error).message.split('\n')[0];
    }
    judgeColdRuns(samples, undroppable);
    const record: QueryRecord = {
      id: q.id,
      title: q.title,
      uses_index: q.usesIndex,
      deterministic: q.deterministic,
      sql: q.sql,
      ...(queryError ? { error: queryError } : {}),
      explain_indexes: explain,
      explain_settings: explainWith,
      ...(explainError ? { explain_error: explainError } : {}),
      samples,
      stats: stats(samples),
      parts_before: partsBefore,
      parts_after: (await activeParts(client, table)).names,
      result_examples: examples,
    };
    records.push(record);
    o.finished?.push(record);
  }
  if (o.queryLog) await joinQueryLog(client, records, o, undroppable);
  return records;
}

/**
 * Join each run's `system.query_log` row (fetched once for the step): the row becomes the run's
 * headline (./figures `applyQueryLog`), its ProfileEvents the run's counters when `counters` is
 * `query_log`; then cold runs are judged again and the statistics recomputed.
 */
async function joinQueryLog(
  client: ClickHouseClient,
  records: QueryRecord[],
  o: MeasureOptions,
  undroppable: ReturnType<typeof undroppableCaches>,
): Promise<void> {
  const log = await fetchQueryLog(
    client,
    records.flatMap((r) => r.samples.map((s) => s.query_id)),
  );
  // A counter exists on this server if the probe listed it or any run of this step reported it.
  const seen = new Set<string>([
    ...(o.knownCounters ?? []),
    ...[...log.values()].flatMap((r) => Object.keys((r.ProfileEvents ?? {}) as object)),
  ]);
  for (const rec of records)
    for (const s of rec.samples) {
      const pe = (log.get(s.query_id)?.ProfileEvents ?? null) as Record<string, number> | null;
      if (pe && o.counters === 'query_log') {
        s.counters = queryLogCounters(pe, seen);
        s.counters_source = 'system.query_log ProfileEvents';
      }
    }
  for (const rec of records) {
    for (const s of rec.samples) applyQueryLog(s, log.get(s.query_id) ?? null);
    judgeColdRuns(rec.samples, undroppable);
    rec.stats = stats(rec.samples);
  }
}
