/**
 * runQueries: the query step of a cell (`queries-baseline`, `queries-index`). A thin activity around
 * the measurement method (`measureQueries`, src/measure/protocol.ts, where the method is stated):
 * it reads the cell's inputs (workload queries, the capability probe, the spec's settings, the
 * target's capabilities), settles statements of an earlier attempt, optionally stops merges, runs the
 * method, writes `queries-<phase>.json` (also, when stopped midway, what was measured so far), and
 * returns only the headline figures to the workflow. A query that failed on the server fails the step
 * with the non-retryable `QueryFailed` after the record is written.
 */
import { tryCommand } from '../clickhouse/client';
import { workloadQueries } from '../lib/workload';
import { attachIndexProofs } from '../measure/index-proof';
import { measureQueries } from '../measure/protocol';
import { runSettingsOf } from '../measure/figures';
import { coldDefinition } from '../measure/cold-cycle';
import { queriesFailed, queryHeadlines, stoppedMidway } from '../measure/query-outcome';
import { settlePreviousAttempts } from './support/attempts';
import { otherChbenchServers } from '../targets';
import { queryIdPrefix, type QueriesSummary } from '../schema/cell';
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
     *   record is written (details: src/measure/query-outcome.ts `queriesFailed`).
     */
    async runQueries(ctx: StepContext, phase: 'baseline' | 'index', queryLog: boolean): Promise<QueriesSummary> {
      const { cell, target, workload: m } = ctx;
      const queries = workloadQueries(m, { table: m.table, rows: cell.scale, codec: ctx.codec }, cell.queries).filter(
        (q) => phase !== 'index' || q.usesIndex,
      );
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
        const save = (records: QueryRecord[], incomplete?: string) =>
          ctx.write(file, QueriesRecord, {
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
        const records = await measureQueries(client, m.table, queries, { ...options, finished }).catch((e: unknown) => {
          // Cancelled or failed midway: keep the queries already measured (a retry re-measures and overwrites).
          if (finished.length) save(finished, stoppedMidway(e, ctx.signal?.aborted, finished.length, queries.length));
          throw e;
        });
        // The index's proof is taken from these runs: EXPLAIN under their settings, and their read_rows vs the baseline's.
        if (phase === 'index' && m.index)
          attachIndexProofs(records, m.index.name, ctx.read('queries-baseline.json', QueriesRecord));
        save(records);
        const failed = queriesFailed(file, records);
        if (failed) throw failed; // after the record is written: what was measured is kept
        return { phase, file, queries: queryHeadlines(records) };
      } finally {
        if (merges?.ok) await tryCommand(client, `SYSTEM START MERGES ${m.table}`);
      }
    },
  };
}
