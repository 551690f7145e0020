/**
 * createSchema: create the workload's table with the cell's codec profile, then check on the server
 * what the cell claims before anything is loaded: every column's codec (`system.columns`), the table
 * settings the server shows (`SHOW CREATE TABLE`), and every selected workload query (EXPLAIN on the
 * empty table). Tolerates existing objects (`CREATE TABLE IF NOT EXISTS`), so a retry is harmless.
 * The checks and their failures are in src/measure/schema-check.ts (`checkQueriesAsRun` for the queries).
 */
import { readShowCreateTable, shownTableSettings } from '../clickhouse/show-create';
import { renderTemplate } from '../lib/workload';
import {
  appliedTableSettings,
  checkCodecs,
  checkQueriesAsRun,
  codecMismatch,
  notAppliedTableSettings,
} from '../measure/schema-check';
import { CellSettings, SchemaRecord } from '../schema/results';
import type { StepContext } from './step-context';

/** Activity factory. */
export function createCreateSchema() {
  return {
    /**
     * Create the table and check it. Writes `schema.json`: the exact DDL sent, `SHOW CREATE TABLE`,
     * each column's declared and read-back codec, the table settings the server shows, and each
     * query's EXPLAIN outcome.
     * @returns the table name.
     * @throws ApplicationFailure `CodecMismatch` (non-retryable) when a column's
     *   `system.columns.compression_codec` is not the codec the cell declares for it, naming the
     *   column and both values; `InvalidAfterLoadStatement` (non-retryable) when an after-load
     *   statement fails on an empty copy of the table; `InvalidWorkloadQuery` (non-retryable) when a
     *   selected query fails its EXPLAIN on the empty table, naming the query id and file; a
     *   `ClickHouse.<NAME>` failure from the server (e.g. a codec the version does not know).
     */
    async createSchema(ctx: StepContext): Promise<{ table: string }> {
      const { cell, workload: m, codec: profile, settings } = ctx;
      const ddl = renderTemplate(cell.workload, m.schema, {
        table: m.table,
        rows: cell.scale,
        codec: profile,
        tableSettings: settings.table,
      });
      const client = ctx.client();
      await client.command({ query: ddl });
      const showCreate = await readShowCreateTable(client, m.table);
      // Codecs: what the cell declares per column against what the server reports.
      const codecs = await checkCodecs(client, m, profile);
      // Table settings: applied only as far as the server shows them.
      const tableSettings = appliedTableSettings(settings.table, shownTableSettings(showCreate));
      const save = (r: SchemaRecord) => ctx.write('schema.json', SchemaRecord, r);
      const record: SchemaRecord = {
        ddl_sent: ddl,
        show_create_table: showCreate,
        codecs,
        table_settings: { declared: settings.table, ...tableSettings, source: 'SETTINGS clause of SHOW CREATE TABLE' },
      };
      save(record);
      // A declared table setting the server does not show (a schema without {{settings}}, a setting
      // the server dropped) did not reach the table: settings.json must not claim it.
      const missed = notAppliedTableSettings(tableSettings.not_shown);
      if (Object.keys(missed).length)
        ctx.write('settings.json', CellSettings, { ...settings, not_applied: { ...settings.not_applied, ...missed } });
      const mismatch = codecMismatch(m, codecs);
      if (mismatch) throw mismatch;
      // The queries checked against the table as it will be when they run (after-load statements applied to a scratch copy).
      const checked = { rows: cell.scale, codec: profile, queries: cell.queries };
      await checkQueriesAsRun(client, m, checked, settings.runs, record, save);
      return { table: m.table };
    },
  };
}
