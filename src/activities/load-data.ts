/**
 * loadData: run the workload's generator (`INSERT … SELECT … FROM numbers_mt(N)`) and record
 * elapsed time, rows/s, partitions and active parts; how this version did the INSERT (its insert
 * settings in effect, read from its own `system.settings`; `async_insert = 0` sent where the version
 * turns async inserts on by default) and written_rows as it reported it, checked against `count()`,
 * which is the truth. The method and its sources are in src/measure/load.ts.
 *
 * Idempotent: before inserting it waits for any statement of an earlier attempt that is still
 * running (by query_id prefix, `system.processes`), then checks the table. If `load.json` exists and
 * the table holds exactly `scale` rows, the earlier load is reused. Otherwise a partly or completely
 * loaded table without a recorded measurement is truncated and loaded again, so the figure always
 * comes from one clean, complete INSERT and rows are never loaded twice.
 */
import { renderTemplate } from '../lib/workload';
import { rowCount } from '../clickhouse/table-state';
import { loadSummary, measureLoad } from '../measure/load';
import { settlePreviousAttempts, killOnCancel } from './support/attempts';
import { queryIdPrefix, type LoadSummary } from '../schema/cell';
import { LoadRecord } from '../schema/results';
import type { StepContext } from './step-context';

/** Activity factory. */
export function createLoadData() {
  return {
    /**
     * Load the table. Writes `load.json`.
     * @throws Error when the table does not hold exactly `scale` rows afterwards.
     */
    async loadData(ctx: StepContext): Promise<LoadSummary> {
      const { cell, target, workload: m } = ctx;
      const client = ctx.client({ maxExecutionTimeS: cell.protocol.maxExecutionTimeS });
      const prefix = queryIdPrefix(cell.runId, cell.cellKey, 'load');
      // Never run beside our own earlier attempt: kill it (or, on the embedded engine, wait for it).
      const previous = await settlePreviousAttempts(target, client, prefix);
      const existing = await rowCount(client, m.table);
      const prev = ctx.read('load.json', LoadRecord);
      if (prev && existing === cell.scale) return { ...loadSummary(prev), reused: true };
      let truncated: LoadRecord['truncated_before_load'] = null;
      if (existing > 0) {
        truncated = {
          rows_found: existing,
          reason: prev
            ? 'row count differs from the recorded load'
            : 'rows present without a recorded load (earlier attempt crashed)',
        };
        await client.command({ query: `TRUNCATE TABLE ${m.table}`, query_id: `${prefix}-truncate-a${ctx.attempt}` });
      }
      const queryId = `${prefix}-a${ctx.attempt}`;
      const rec = await measureLoad(client, {
        table: m.table,
        sql: renderTemplate(cell.workload, m.load, { table: m.table, rows: cell.scale, codec: ctx.codec }),
        scale: cell.scale,
        queryId,
        loadSettings: ctx.settings.load,
        maxExecutionTimeS: cell.protocol.maxExecutionTimeS,
        probe: ctx.probe,
        eventsAreTheStatements: ctx.caps.countersWithoutQueryLog === 'system.events',
        signal: ctx.signal,
        // A cancelled INSERT is killed on the server too; the watched client heartbeats its progress.
        run: (insert) => killOnCancel(target, queryId, insert),
        onStart: () => ctx.heartbeat({ step: 'load' }),
        recorded: { truncated_before_load: truncated, previous_attempts: previous, attempt: ctx.attempt },
      });
      ctx.write('load.json', LoadRecord, rec);
      return loadSummary(rec);
    },
  };
}
