/**
 * Reading a table's physical state from the system tables: active parts, partitions, running merges
 * and mutations, and statements still running from an earlier attempt.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import { queryRows, queryScalar } from './client';
import { sqlString } from '../lib/sql';
import type { MutationRow, TableState } from '../schema/results';
import { readShowCreateTable } from './show-create';

/**
 * Active parts of a table (source: `system.parts`, `active = 1`). On a server without `system.parts`
 * (chdb 1.4.1, ClickHouse 23.10) `available` is false, `names` is empty, `partitions` is null and
 * rows / bytes come from `system.tables` (`total_rows`, `total_bytes`), as `source` says.
 */
export interface PartsState {
  /** False when the server has no `system.parts`: then no part is known. */
  available: boolean;
  /** Where the figures come from. */
  source: string;
  /** Sorted active part names (empty when not `available`). */
  names: string[];
  /** Partitions of the active parts; null when not `available`. */
  partitions: number | null;
  rows: number;
  /** `bytes_on_disk` summed (else `system.tables.total_bytes`), bytes; null when the server gives neither. */
  bytes_on_disk: number | null;
}

const systemTablesOf = new WeakMap<ClickHouseClient, Promise<Set<string>>>();

/**
 * Whether the server has `system.<name>` (source: `system.tables`, read once per client). chdb 1.4.1
 * (ClickHouse 23.10) has no `parts`, `parts_columns`, `merges`, `mutations`, `processes`, `metrics`, `disks`.
 */
export async function hasSystemTable(client: ClickHouseClient, name: string): Promise<boolean> {
  let p = systemTablesOf.get(client);
  if (!p) {
    p = queryRows<{ name: string }>(client, "SELECT name FROM system.tables WHERE database = 'system'").then(
      (rows) => new Set(rows.map((r) => r.name)),
    );
    p.catch(() => systemTablesOf.delete(client));
    systemTablesOf.set(client, p);
  }
  return (await p).has(name);
}

/** Why a figure from `system.<name>` is n/a on this server. */
export const noSystemTable = (name: string): string =>
  `n/a: this server has no system.${name} (chdb 1.4.1 / ClickHouse 23.10 lacks it)`;

/** Read the active parts of `table` in the current database. */
export async function activeParts(client: ClickHouseClient, table: string): Promise<PartsState> {
  if (!(await hasSystemTable(client, 'parts'))) {
    const [t] = await queryRows<{ r: string | null; b: string | null }>(
      client,
      `SELECT total_rows AS r, total_bytes AS b FROM system.tables WHERE database = currentDatabase() AND name = ${sqlString(table)}`,
    );
    return {
      available: false,
      source: `system.tables (total_rows, total_bytes): ${noSystemTable('parts')}`,
      names: [],
      partitions: null,
      rows: Number(t?.r ?? 0),
      bytes_on_disk: t?.b == null ? null : Number(t.b),
    };
  }
  const rows = await queryRows<{ name: string; partition: string; rows: string; bytes_on_disk: string }>(
    client,
    `SELECT name, partition, rows, bytes_on_disk FROM system.parts WHERE database = currentDatabase() AND table = ${sqlString(table)} AND active ORDER BY name`,
  );
  return {
    available: true,
    source: 'system.parts (active)',
    names: rows.map((r) => r.name),
    partitions: new Set(rows.map((r) => r.partition)).size,
    rows: rows.reduce((a, r) => a + Number(r.rows), 0),
    bytes_on_disk: rows.reduce((a, r) => a + Number(r.bytes_on_disk), 0),
  };
}

/** Number of merges running on `table` (source: `system.merges`); null when the server has none. */
export async function runningMerges(client: ClickHouseClient, table: string): Promise<number | null> {
  if (!(await hasSystemTable(client, 'merges'))) return null;
  return Number(
    await queryScalar(
      client,
      `SELECT count() FROM system.merges WHERE database = currentDatabase() AND table = ${sqlString(table)}`,
    ),
  );
}

/** Unfinished mutations on `table` (source: `system.mutations`, `is_done = 0`); null when the server has none. */
export async function pendingMutations(client: ClickHouseClient, table: string): Promise<number | null> {
  if (!(await hasSystemTable(client, 'mutations'))) return null;
  return Number(
    await queryScalar(
      client,
      `SELECT count() FROM system.mutations WHERE database = currentDatabase() AND table = ${sqlString(table)} AND is_done = 0`,
    ),
  );
}

/** `SELECT count()` of a table. */
export async function rowCount(client: ClickHouseClient, table: string): Promise<number> {
  return Number(await queryScalar(client, `SELECT count() FROM ${table}`));
}

/**
 * Query ids still running on the server whose id starts with `prefix` (source: `system.processes`).
 * Used so a retry never runs in parallel with its own previous attempt.
 */
export async function runningQueryIds(client: ClickHouseClient, prefix: string): Promise<string[]> {
  const rows = await queryRows<{ query_id: string }>(
    client,
    `SELECT query_id FROM system.processes WHERE substring(query_id, 1, ${Buffer.byteLength(prefix)}) = ${sqlString(prefix)}`,
  );
  return rows.map((r) => r.query_id);
}

/**
 * The `MATERIALIZE INDEX <index>` mutations of `table` in the current database (source:
 * `system.mutations`: mutation_id, command, is_done, parts_to_do, latest_fail_reason).
 * None on a server without `system.mutations` (chdb 1.4.1: its MATERIALIZE INDEX returns when done, `mutations_sync` 1).
 */
export async function materializeMutations(
  client: ClickHouseClient,
  table: string,
  index: string,
): Promise<MutationRow[]> {
  if (!(await hasSystemTable(client, 'mutations'))) return [];
  const rows = await queryRows<MutationRow>(
    client,
    `SELECT mutation_id, command, is_done, parts_to_do, latest_fail_reason FROM system.mutations
     WHERE database = currentDatabase() AND table = ${sqlString(table)} AND command LIKE ${sqlString(`%MATERIALIZE INDEX ${index}%`)}`,
  );
  // parts_to_do is an Int64: quoted in JSON where output_format_json_quote_64bit_integers is 1 (before 25.8, or pinned to such defaults).
  return rows.map((r) => ({ ...r, is_done: Number(r.is_done), parts_to_do: Number(r.parts_to_do) }));
}

/**
 * A skip index's size in bytes, with its source: `system.data_skipping_indices`
 * (`data_compressed_bytes`, `data_uncompressed_bytes`), else the sum over active parts of
 * `system.parts.secondary_indices_*_bytes` (every index of the table), else null ("not available").
 */
export async function indexSize(
  client: ClickHouseClient,
  table: string,
  index: string,
): Promise<{ bytes: number | null; uncompressed_bytes: number | null; source: string }> {
  try {
    const [r] = await queryRows<{ c: string; u: string }>(
      client,
      `SELECT data_compressed_bytes AS c, data_uncompressed_bytes AS u FROM system.data_skipping_indices WHERE database = currentDatabase() AND table = ${sqlString(table)} AND name = ${sqlString(index)}`,
    );
    if (r)
      return {
        bytes: Number(r.c),
        uncompressed_bytes: Number(r.u),
        source: 'system.data_skipping_indices.data_compressed_bytes',
      };
  } catch {
    /* older servers */
  }
  try {
    const [r] = await queryRows<{ c: string; u: string }>(
      client,
      `SELECT sum(secondary_indices_compressed_bytes) AS c, sum(secondary_indices_uncompressed_bytes) AS u FROM system.parts WHERE database = currentDatabase() AND table = ${sqlString(table)} AND active`,
    );
    return {
      bytes: Number(r.c),
      uncompressed_bytes: Number(r.u),
      source: 'system.parts sum(secondary_indices_compressed_bytes) (all indices of the table)',
    };
  } catch {
    return { bytes: null, uncompressed_bytes: null, source: 'not available on this version' };
  }
}

/** The table's state: `SHOW CREATE TABLE` and the ids of its mutations (`system.mutations`, by mutation_id). */
export async function tableState(client: ClickHouseClient, table: string): Promise<TableState> {
  const show = await readShowCreateTable(client, table);
  return { show_create_table: show, mutation_ids: (await tableMutations(client, table)).map((r) => r.mutation_id) };
}

/** A mutation of a table as `system.mutations` lists it (`is_done` as the server sends it: 0/1, or quoted). */
export type TableMutation = {
  mutation_id: string;
  command: string;
  is_done: number | string;
  latest_fail_reason: string;
};

/** Every mutation of `table` in the current database, by mutation_id (source: `system.mutations`). */
export async function tableMutations(client: ClickHouseClient, table: string): Promise<TableMutation[]> {
  return queryRows<TableMutation>(
    client,
    `SELECT mutation_id, command, is_done, latest_fail_reason FROM system.mutations WHERE database = currentDatabase() AND table = ${sqlString(table)} ORDER BY mutation_id`,
  );
}
