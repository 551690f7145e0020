/**
 * Reading a table's physical state from the system tables: active parts, partitions, running merges
 * and mutations, and statements still running from an earlier attempt.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import { queryRows, queryScalar } from './client';
import { sqlString } from '../lib/sql';
import type { MutationRow } from '../schema/results';

/** Active parts of a table (source: `system.parts`, `active = 1`). */
export interface PartsState {
  /** Sorted active part names. */
  names: string[];
  partitions: number;
  rows: number;
  /** `bytes_on_disk` summed, bytes. */
  bytes_on_disk: number;
}

/** Read the active parts of `table` in the current database. */
export async function activeParts(client: ClickHouseClient, table: string): Promise<PartsState> {
  const rows = await queryRows<{ name: string; partition: string; rows: string; bytes_on_disk: string }>(
    client,
    `SELECT name, partition, rows, bytes_on_disk FROM system.parts WHERE database = currentDatabase() AND table = ${sqlString(table)} AND active ORDER BY name`,
  );
  return {
    names: rows.map((r) => r.name),
    partitions: new Set(rows.map((r) => r.partition)).size,
    rows: rows.reduce((a, r) => a + Number(r.rows), 0),
    bytes_on_disk: rows.reduce((a, r) => a + Number(r.bytes_on_disk), 0),
  };
}

/** Number of merges running on `table` (source: `system.merges`). */
export async function runningMerges(client: ClickHouseClient, table: string): Promise<number> {
  return Number(
    await queryScalar(
      client,
      `SELECT count() FROM system.merges WHERE database = currentDatabase() AND table = ${sqlString(table)}`,
    ),
  );
}

/** Unfinished mutations on `table` (source: `system.mutations`, `is_done = 0`). */
export async function pendingMutations(client: ClickHouseClient, table: string): Promise<number> {
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
 * @throws ClickHouseError where the server has no `system.mutations`.
 */
export async function materializeMutations(
  client: ClickHouseClient,
  table: string,
  index: string,
): Promise<MutationRow[]> {
  return queryRows<MutationRow>(
    client,
    `SELECT mutation_id, command, is_done, parts_to_do, latest_fail_reason FROM system.mutations
     WHERE database = currentDatabase() AND table = ${sqlString(table)} AND command LIKE ${sqlString(`%MATERIALIZE INDEX ${index}%`)}`,
  );
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
