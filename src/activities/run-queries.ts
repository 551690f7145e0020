/**
 * runQueries: the query step of a cell (`queries-baseline`, `queries-index`). A thin activity around
 * the measurement method (`measureQueries`, src/measure/protocol.ts, where the method is stated):
 * it reads the cell's inputs (workload queries, the capability probe, the spec's settings, the
 * target's capabilities), settles statements of an earlier attempt, optionally stops merges, runs the
 * method, writes `queries-<phase>.json` (also, when stopped midway, what was measured so far), and
 * returns only the headline figures to the workflow. A query that failed on the server fails the step
 * with the non-retryable `QueryFailed` after the record is written.
 */
import { ApplicationFailure } from '@temporalio/common';
import { FAILURE, clickHouseErrorName } from '../schema/failures';
import { tryCommand } from '../clickhouse/client';
import { workloadQueries } from '../lib/workload';
import { judgeIndexUse } from '../measure/index-proof';
import { measureQueries } from '../measure/protocol';
import { runSettingsOf } from '../measure/figures';
import { coldDefinition } from '../measure/cold-cycle';
import { settlePreviousAttempts } from './support/attempts';
import { otherChbenchServers } from '../targets';
import { queryIdPrefix, type QueriesSummary, type QueryHeadline } from '../schema/cell';
import { cellMeasureOptions } from './support/measure-options';
import type { StepContext } from './step-context';
import { QueriesRecord, type CommandOutcome, type QueryRecord } from '../schema/results';

/** Activity factory. */
export function createRunQueries(deps: { workDir: string }) {
  return {
    /**
     * Measure the cell's queries. `phase` `baseline` runs every selected query; `index` only those the
     * workload marks `usesIndex` (and records each one's index proof against the baseline's read_rows).
     * Writes `queries-<phase>.json`.
     * @throws ApplicationFailure `QueryFailed` (non-retryable) when a query failed on the server, after the
     *   record is written; details `[{ file, failed: [id…], errors: [{ id, code, name }…] }]` with each
     *   failed query's ClickHouse error code (number, null when the error carried none) and name.
     */
    async runQueries(ctx: StepContext, phase: 'baseline' | 'index', queryLog: boolean): Promise<QueriesSummary> {
      const { cell, target, workload: m } = ctx;
      let queries = workloadQueries(m, { table: m.table, rows: cell.scale, codec: ctx.codec }, cell.queries);
      if (phase === 'index') queries = queries.filter((q) => q.usesIndex);
      const file = `queries-${phase}.json`;
      const prefix = queryIdPrefix(cell.runId, cell.cellKey, phase);
      const client = ctx.client({ maxExecutionTimeS: cell.protocol.maxExecutionTimeS });
      let merges: CommandOutcome | null = null;
      try {
        const othersAtStart = otherChbenchServers(deps.workDir, target);
        const { options, probe } = cellMeasureOptions(ctx, queryLog, prefix, `queries-${phase}`);
        // A retry re-measures this step from scratch, never beside a run of the earlier attempt.
        const previous = await settlePreviousAttempts(target, client, prefix);
        if (cell.protocol.stopMergesDuringQueries) merges = await tryCommand(client, `SYSTEM STOP MERGES ${m.table}`);
        const record = (records: QueryRecord[], incomplete?: string): QueriesRecord => ({
          phase,
          attempt: ctx.attempt,
          ...(incomplete ? { incomplete } : {}),
          cold_definition: coldDefinition(records, probe),
          other_chbench_servers: { at_start: othersAtStart, at_end: otherChbenchServers(deps.workDir, target) },
          merges_stopped: merges,
          previous_attempts: previous,
          run_settings: runSettingsOf(records),
          query_log: queryLog ? 'available' : 'not available',
          queries: records,
        });
        const finished: QueryRecord[] = [];
        const records = await measureQueries(client, m.table, queries, {
          ...options,
          finished,
        }).catch((e: unknown) => {
          // Cancelled or failed midway: keep the queries already measured (a retry re-measures and overwrites).
          if (finished.length) {
            const why = ctx.signal?.aborted
              ? 'cancelled'
              : `stopped by an error: ${((e as Error)?.message ?? String(e)).split('\n')[0].slice(0, 200)}`;
            ctx.write(
              file,
              QueriesRecord,
              record(
                finished,
                `${why}; ${finished.length} of ${queries.length} queries measured (query_log figures not joined)`,
              ),
            );
          }
          throw e;
        });
        if (phase === 'index' && m.index) {
          // The index's proof is taken from these runs: EXPLAIN under their settings, and their read_rows vs the baseline's.
          const baseline = ctx.read('queries-baseline.json', QueriesRecord);
          for (const r of records) {
            const before = baseline?.queries.find((b) => b.id === r.id)?.stats.read_rows ?? null;
            r.index_proof = judgeIndexUse(
              m.index.name,
              r.explain_error ? null : r.explain_indexes,
              r.stats.read_rows,
              before,
            );
          }
        }
        ctx.write(file, QueriesRecord, record(records));
        const failed = records.filter((r) => r.error);
        if (failed.length)
          // After the record is written: what was measured is kept; retrying cannot fix a query error.
          throw ApplicationFailure.create({
            type: FAILURE.QueryFailed,
            nonRetryable: true,
            message: failed
              .map(
                (r) =>
                  `${r.id.toUpperCase()} failed on run ${r.error!.run} (query_id ${r.error!.query_id}): Code ${r.error!.code}${r.error!.type ? ` ${r.error!.type}` : ''}: ${r.error!.message.split('\n')[0].slice(0, 300)}`,
              )
              .join('; '),
            details: [
              {
                file,
                failed: failed.map((r) => r.id),
                // The server's identity of each error: its code and name (18.16 writes no name: the code's).
                errors: failed.map(({ id, error }) => ({
                  id,
                  code: error!.code === null ? null : Number(error!.code),
                  name: error!.code === null ? error!.type : clickHouseErrorName(error!.code, error!.type ?? undefined),
                })),
              },
            ],
          });
        const headlines: QueryHeadline[] = records.map((r) => ({
          id: r.id,
          cold_ms: r.stats.cold_ms,
          warm_min_ms: r.stats.warm_min_ms,
          warm_median_ms: r.stats.warm_median_ms,
          read_rows: r.stats.read_rows,
        }));
        return { phase, file, queries: headlines };
      } finally {
        if (merges?.ok) await tryCommand(client, `SYSTEM START MERGES ${m.table}`);
      }
    },
  };
}
