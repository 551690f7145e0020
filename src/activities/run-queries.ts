/**
 * runQueries: the query step of a cell (`queries-baseline`, `queries-index`). A thin activity around
 * the measurement method (`measureQueries`, src/measure/protocol.ts, where the method is stated):
 * it reads the cell's inputs (workload queries, the capability probe, the spec's settings, the
 * target's capabilities), settles statements of an earlier attempt, optionally stops merges, runs the
 * method, writes `queries-<phase>.json` (also, when stopped midway, what was measured so far), and
 * returns only the headline figures to the workflow. A query that failed on the server fails the step
 * with the non-retryable `QueryFailed` after the record is written.
 */
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { connect, tryCommand, type CommandOutcome, type MidStreamClickHouseError } from '../clickhouse/client';
import { cellDir, writeJsonAtomic, readJsonIfExists } from '../results/store';
import type { CapabilityProbe } from '../clickhouse/probe';
import { loadWorkload, workloadQueries } from '../lib/workload';
import { judgeIndexUse, type IndexProof } from '../measure/index-proof';
import type { RunCounters, RunValidity } from '../measure/validity';
import { measureQueries } from '../measure/protocol';
import { coldCacheDrops, coldDefinition } from '../measure/cold-cycle';
import { attempt, heartbeat, cancellationSignal } from '../temporal/activity-context';
import { settlePreviousAttempts, killOnCancel, isTargetGone, type PreviousAttempts } from './support/attempts';
import { capabilitiesOf, otherChbenchServers } from '../targets';
import { queryIdPrefix, type QueriesSummary, type QueryHeadline, type StepInput } from '../schema/cell';
import { readCellSettings } from './provision';

export type { IndexProof } from '../measure/index-proof';

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

/** Activity factory. */
export function createRunQueries(deps: { workDir: string }) {
  return {
    /**
     * Measure the cell's queries. `phase` `baseline` runs every selected query; `index` only those the
     * workload marks `usesIndex` (and records each one's index proof against the baseline's read_rows).
     * Writes `queries-<phase>.json`.
     * @throws ApplicationFailure `QueryFailed` (non-retryable) when a query failed on the server.
     */
    async runQueries({ cell, target }: StepInput, phase: 'baseline' | 'index', queryLog: boolean): Promise<QueriesSummary> {
      const m = loadWorkload(cell.workload);
      let queries = workloadQueries(m, { table: m.table, rows: cell.scale, codec: cell.codec }, cell.queries);
      if (phase === 'index') queries = queries.filter((q) => q.usesIndex);
      const caps = capabilitiesOf(target);
      const dir = cellDir(cell.resultsDir, cell.runId, cell.cellKey);
      const file = path.join(dir, `queries-${phase}.json`);
      const prefix = queryIdPrefix(cell.runId, cell.cellKey, phase);
      const client = connect(target, { maxExecutionTimeS: cell.protocol.maxExecutionTimeS });
      let merges: CommandOutcome | null = null;
      try {
        const othersAtStart = otherChbenchServers(deps.workDir, target);
        const probe = readJsonIfExists<CapabilityProbe>(path.join(dir, 'probe.json'));
        // A retry re-measures this step from scratch, never beside a run of the earlier attempt.
        const previous = await settlePreviousAttempts(target, client, prefix);
        if (cell.protocol.stopMergesDuringQueries) merges = await tryCommand(client, `SYSTEM STOP MERGES ${m.table}`);
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
        const records = await measureQueries(client, m.table, queries, {
          coldRuns: cell.protocol.coldRuns,
          warmupRuns: cell.protocol.warmupRuns,
          warmRuns: cell.protocol.warmRuns,
          dropOsPageCache: cell.protocol.dropOsPageCache,
          maxExecutionTimeS: cell.protocol.maxExecutionTimeS,
          queryLog,
          counters: queryLog ? 'query_log' : caps.countersWithoutQueryLog,
          serverOnThisHost: caps.onWorkerHost,
          summaryReadSource: caps.summaryReadSource,
          extraSettings: readCellSettings(cell).runs,
          cacheDrops: coldCacheDrops(probe),
          knownCounters: probe?.events_complete ? (probe.events ?? undefined) : undefined,
          knownSettings: probe?.query_settings ?? undefined,
          queryIdPrefix: prefix,
          attempt: attempt(),
          signal: cancellationSignal(),
          killOnCancel: (queryId, run) => killOnCancel(target, queryId, run),
          isTargetGone,
          finished,
          onRun: (q, kind, n) => heartbeat({ step: `queries-${phase}`, query: q, run: `${kind} ${n}` }),
          onProgress: (p) => heartbeat({ result_rows: p.result_rows, result_bytes: p.result_bytes }),
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
            type: 'QueryFailed',
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
