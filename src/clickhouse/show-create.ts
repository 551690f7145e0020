/**
 * What the server shows of a table it created: `SHOW CREATE TABLE` and the table settings in its
 * `SETTINGS` clause, and whether it has `EXPLAIN` at all (the schema check of src/measure/schema-check.ts).
 */
import type { ClickHouseClient } from '@clickhouse/client';
import { tryCommand } from './client';
import { splitTopLevel } from '../lib/sql';

/**
 * `SHOW CREATE TABLE <table>` as the server returns it (`TabSeparatedRaw`, trimmed).
 * @throws what the client throws (e.g. `ClickHouse.UNKNOWN_TABLE`).
 */
export async function readShowCreateTable(client: ClickHouseClient, table: string): Promise<string> {
  const create = await client.query({ query: `SHOW CREATE TABLE ${table}`, format: 'TabSeparatedRaw' });
  return (await create.text()).trim();
}

/**
 * The `SETTINGS` clause at the end of a `SHOW CREATE TABLE` text as name → value (string literals
 * unquoted, everything else as written); empty when there is none. Pure.
 */
export function shownTableSettings(createTable: string): Record<string, string> {
  const m = /\bSETTINGS\s+([\s\S]*)$/i.exec(createTable.trim());
  if (!m) return {};
  const out: Record<string, string> = {};
  for (const part of splitTopLevel(m[1], ',')) {
    const kv = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*([\s\S]*?)\s*$/.exec(part);
    if (kv) out[kv[1]] = kv[2].replace(/^'([\s\S]*)'$/, '$1').replace(/\\'/g, "'");
  }
  return out;
}

/** Whether the server has `EXPLAIN` (ClickHouse 20.6 and newer); 18.16 answers a syntax error. Never throws. */
export async function hasExplain(client: ClickHouseClient): Promise<boolean> {
  return (await tryCommand(client, 'EXPLAIN SELECT 1')).ok;
}
