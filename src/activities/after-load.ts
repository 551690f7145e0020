/**
 * afterLoad: run the workload's after-load statements (`afterLoad` in its manifest) on the loaded,
 * quiet table, in order, each with its own query_id and wait (`mutations`: poll `system.mutations`
 * until every mutation of the table is done; `merges`: until no merge or mutation runs), heartbeating.
 * Writes `after-load.json` after each statement.
 *
 * Idempotent: each statement is recorded `pending` with the table's state (`SHOW CREATE TABLE` and
 * its mutation ids) before it is sent, and `done` with the state after; a retry sends only what the
 * table shows was not applied. The method and its sources are in src/measure/after-load.ts.
 */
import { afterLoadStatements } from '../lib/workload';
import { runAfterLoad } from '../measure/after-load';
import { queryIdPrefix } from '../schema/cell';
import { AfterLoadRecord } from '../schema/results';
import { settlePreviousAttempts } from './support/attempts';
import type { StepContext } from './step-context';

/** What the step returns to the workflow (details in `after-load.json`). */
export interface AfterLoadSummary {
  statements: number;
  /** Statements this attempt sent (the rest were done, or applied, by an earlier attempt). */
  sent: number;
}

/** Activity factory. */
export function createAfterLoad() {
  return {
    /**
     * Run the workload's after-load statements. Writes `after-load.json`.
     * @throws ApplicationFailure `AfterLoadStateUnknown` (non-retryable) when the table matches none of
     *   the states the records name (changed by someone else); `MutationFailed`; a `ClickHouse.<NAME>`
     *   failure when the server refuses a statement.
     */
    async afterLoad(ctx: StepContext): Promise<AfterLoadSummary> {
      const { cell, workload: m } = ctx;
      const stmts = afterLoadStatements(m, { table: m.table, rows: cell.scale, codec: ctx.codec });
      const file = 'after-load.json';
      const prefix = queryIdPrefix(cell.runId, cell.cellKey, 'after-load');
      const client = ctx.client({ maxExecutionTimeS: cell.protocol.maxExecutionTimeS });
      // An earlier attempt's statement still running finishes (or is killed) before the table is read.
      await settlePreviousAttempts(ctx.target, client, prefix);
      const rec = ctx.read(file, AfterLoadRecord) ?? { table: m.table, statements: [], notes: [] };
      const sent = await runAfterLoad(client, rec, stmts, {
        table: m.table,
        prefix,
        attempt: ctx.attempt,
        where: ctx.file(file),
        save: (r) => ctx.write(file, AfterLoadRecord, r),
        heartbeat: (d) => ctx.heartbeat(d),
        sleep: (ms) => ctx.sleep(ms),
      });
      return { statements: stmts.length, sent };
    },
  };
}
