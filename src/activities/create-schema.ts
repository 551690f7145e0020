/**
 * createSchema: create the workload's table with the cell's codec. Tolerates existing objects
 * (`CREATE TABLE IF NOT EXISTS`), so a retry is harmless.
 */
import path from 'node:path';
import { connect } from '../clickhouse/client';
import { cellDir, writeJsonAtomic } from '../results/store';
import { loadWorkload, renderTemplate } from '../lib/workload';
import type { StepInput } from '../schema/cell';
import { readCellSettings } from './provision';

/** Activity factory. */
export function createCreateSchema() {
  return {
    /**
     * Create the table. Writes `schema.json` with the exact DDL sent.
     * @returns the table name.
     * @throws ClickHouseError from the server (e.g. a codec the version does not know).
     */
    async createSchema({ cell, target }: StepInput): Promise<{ table: string }> {
      const m = loadWorkload(cell.workload);
      const ddl = renderTemplate(cell.workload, m.schema, {
        table: m.table,
        rows: cell.scale,
        codec: cell.codec,
        tableSettings: readCellSettings(cell).table,
      });
      const client = connect(target);
      try {
        await client.command({ query: ddl });
        const create = await client.query({ query: `SHOW CREATE TABLE ${m.table}`, format: 'TabSeparatedRaw' });
        writeJsonAtomic(path.join(cellDir(cell.resultsDir, cell.runId, cell.cellKey), 'schema.json'), {
          ddl_sent: ddl,
          show_create_table: (await create.text()).trim(),
        });
      } finally {
        await client.close();
      }
      return { table: m.table };
    },
  };
}
