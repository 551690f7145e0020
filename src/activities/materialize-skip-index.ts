/**
 * materializeSkipIndex: `ADD INDEX` + `MATERIALIZE INDEX`, then poll `system.mutations` until the
 * mutation is done, heartbeating with `parts_to_do` and failing clearly on `latest_fail_reason`.
 * Adopts a MATERIALIZE INDEX mutation that is already running (from an earlier attempt) instead of
 * issuing a second one. Records materialization time (client wall, ms, from issuing the statement
 * to `is_done = 1`) and index size (`system.data_skipping_indices`, else `system.parts`). The method
 * and its sources are in src/measure/skip-index.ts.
 */
import { ApplicationFailure } from '@temporalio/common';
import { FAILURE } from '../schema/failures';
import { renderTemplate, workloadQueries } from '../lib/workload';
import type { IndexSummary } from '../schema/cell';
import { IndexRecord } from '../schema/results';
import { buildSkipIndex } from '../measure/skip-index';
import type { StepContext } from './step-context';

/** Activity factory. */
export function createMaterializeSkipIndex() {
  return {
    /**
     * Build the workload's skip index and wait for it. Writes `index.json`.
     * @throws ApplicationFailure `NoIndex` (non-retryable) when the workload defines no skip index;
     *   `MutationFailed` (non-retryable) with the server's `latest_fail_reason`.
     */
    async materializeSkipIndex(ctx: StepContext): Promise<IndexSummary> {
      const { cell, workload: m } = ctx;
      if (!m.index)
        throw ApplicationFailure.create({
          type: FAILURE.NoIndex,
          nonRetryable: true,
          message: `workload ${m.name} defines no skip index`,
        });
      const vars = { table: m.table, rows: cell.scale, codec: ctx.codec };
      const rec = await buildSkipIndex(ctx.client({ maxExecutionTimeS: cell.protocol.maxExecutionTimeS }), {
        table: m.table,
        index: m.index.name,
        addSql: renderTemplate(cell.workload, m.index.add, vars),
        uses: workloadQueries(m, vars, cell.queries).filter((q) => q.usesIndex),
        runSettings: ctx.settings.runs,
        signal: ctx.signal,
        heartbeat: (d) => ctx.heartbeat(d),
        sleep: (ms) => ctx.sleep(ms),
      });
      ctx.write('index.json', IndexRecord, rec);
      return {
        index: rec.index,
        materialize_ms: rec.materialize_ms,
        index_bytes: rec.index_bytes,
        adopted_mutation: rec.adopted_mutation,
      };
    },
  };
}
