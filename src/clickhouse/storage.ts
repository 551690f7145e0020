/**
 * A table's storage as the server reports it: compressed / uncompressed bytes per column and for the
 * table, part types, and each part's default codec (read by the `storageStats` step).
 *
 * Sources: per column `system.parts_columns` (`column_data_compressed_bytes`,
 * `column_data_uncompressed_bytes`, active parts); totals `system.parts` (`data_compressed_bytes`,
 * `data_uncompressed_bytes`, `bytes_on_disk`); each column's codec `system.columns.compression_codec`, and
 * per part the codec a column naming none gets (`system.parts.default_compression_codec`). Per-column figures are only meaningful for Wide parts:
 * a Compact part stores all columns in one file and reports the part's bytes for every column, so
 * when any active part is not Wide the per-column sizes are reported as unavailable. A server without
 * `system.parts` (chdb 1.4.1): `system.tables` and `system.columns` instead, the rest n/a
 * (readStorageWithoutParts).
 */
import type { ClickHouseClient } from '@clickhouse/client';
import { queryRows } from './client';
import { readColumnCodecs } from './codec-check';
import { sqlString } from '../lib/sql';
import { hasSystemTable, noSystemTable } from './table-state';
import type { StorageRecord } from '../schema/results';

async function hasColumn(client: ClickHouseClient, table: string, column: string): Promise<boolean> {
  const r = await queryRows<{ c: string }>(
    client,
    `SELECT count() AS c FROM system.columns WHERE database = 'system' AND table = ${sqlString(table)} AND name = ${sqlString(column)}`,
  );
  return Number(r[0]?.c ?? 0) > 0;
}

/**
 * Storage figures on a server without `system.parts` (chdb 1.4.1, ClickHouse 23.10): rows and bytes on
 * disk from `system.tables` (`total_rows`, `total_bytes`), per-column and total compressed /
 * uncompressed bytes from `system.columns` (`data_compressed_bytes`, `data_uncompressed_bytes`) where
 * it reports them (Wide parts; a Compact part leaves them 0, and 0 is then n/a, never a size). Parts,
 * part formats and per-part default codecs are n/a.
 */
async function readStorageWithoutParts(client: ClickHouseClient, table: string): Promise<StorageRecord> {
  const t = sqlString(table);
  const [tt] = await queryRows<{ r: string | null; b: string | null }>(
    client,
    `SELECT total_rows AS r, total_bytes AS b FROM system.tables WHERE database = currentDatabase() AND name = ${t}`,
  );
  const cols = await queryRows<{ column: string; type: string; c: string; u: string }>(
    client,
    `SELECT name AS column, type, data_compressed_bytes AS c, data_uncompressed_bytes AS u FROM system.columns WHERE database = currentDatabase() AND table = ${t} ORDER BY c DESC`,
  );
  const sized = cols.length > 0 && cols.every((c) => Number(c.c) > 0);
  const compressed = sized ? cols.reduce((a, c) => a + Number(c.c), 0) : null;
  const uncompressed = sized ? cols.reduce((a, c) => a + Number(c.u), 0) : null;
  const rec: StorageRecord = {
    table,
    rows: Number(tt?.r ?? 0),
    active_parts: null,
    compressed_bytes: compressed,
    uncompressed_bytes: uncompressed,
    bytes_on_disk: tt?.b == null ? null : Number(tt.b),
    ratio: compressed ? uncompressed! / compressed : null,
    part_types: {},
    columns: null,
    part_default_codecs: null,
    sources: {
      totals: sized
        ? 'system.columns: sum(data_compressed_bytes), sum(data_uncompressed_bytes) over the columns; bytes on disk and rows system.tables (total_bytes, total_rows)'
        : `system.tables (total_rows, total_bytes); compressed / uncompressed n/a: system.columns reports 0 bytes for some column (Compact parts keep no per-column sizes), and ${noSystemTable('parts')}`,
      parts: noSystemTable('parts'),
      part_default_codecs: noSystemTable('parts'),
      columns: sized
        ? 'system.columns (data_compressed_bytes, data_uncompressed_bytes)'
        : 'n/a: system.columns reports 0 bytes for some column (Compact parts keep no per-column sizes)',
    },
  };
  if (!sized) {
    rec.columns_unavailable_reason = `system.columns reports 0 compressed bytes for ${cols.filter((c) => !(Number(c.c) > 0)).length} of ${cols.length} column(s) (Compact parts keep no per-column sizes), and ${noSystemTable('parts_columns')}`;
    return rec;
  }
  await addColumns(client, table, rec, cols, compressed!);
  return rec;
}

/** Read storage figures of `table` in the current database. */
/**
 * The storage figures of `table` in the current database (see the module comment for every source).
 * @throws ClickHouseError when a system table the server has cannot be read.
 */
export async function readStorage(client: ClickHouseClient, table: string): Promise<StorageRecord> {
  if (!(await hasSystemTable(client, 'parts'))) return readStorageWithoutParts(client, table);
  const t = sqlString(table);
  const where = `database = currentDatabase() AND table = ${t} AND active`;
  const hasPartType = await hasColumn(client, 'parts', 'part_type');
  const [tot] = await queryRows<Record<string, string>>(
    client,
    `SELECT sum(rows) AS rows, count() AS parts, sum(data_compressed_bytes) AS c, sum(data_uncompressed_bytes) AS u, sum(bytes_on_disk) AS d FROM system.parts WHERE ${where}`,
  );
  const partTypes: Record<string, number> = {};
  if (hasPartType) {
    for (const r of await queryRows<{ part_type: string; n: string }>(
      client,
      `SELECT part_type, count() AS n FROM system.parts WHERE ${where} GROUP BY part_type`,
    ))
      partTypes[r.part_type] = Number(r.n);
  } else partTypes.unknown = Number(tot.parts);
  const compressed = Number(tot.c);
  const rec: StorageRecord = {
    table,
    rows: Number(tot.rows),
    active_parts: Number(tot.parts),
    compressed_bytes: compressed,
    uncompressed_bytes: Number(tot.u),
    bytes_on_disk: Number(tot.d),
    ratio: compressed ? Number(tot.u) / compressed : 0,
    part_types: partTypes,
    columns: null,
    sources: {
      totals: 'system.parts (active): sum(data_compressed_bytes), sum(data_uncompressed_bytes), sum(bytes_on_disk)',
      columns: 'system.parts_columns (active): sum(column_data_compressed_bytes), sum(column_data_uncompressed_bytes)',
    },
  };
  // What a column that names no codec really got, per part: never assumed LZ4 (26.9 is size-aware).
  if (await hasColumn(client, 'parts', 'default_compression_codec')) {
    rec.part_default_codecs = (
      await queryRows<{ name: string; rows: string; c: string; u: string; codec: string }>(
        client,
        `SELECT name, rows, data_compressed_bytes AS c, data_uncompressed_bytes AS u, default_compression_codec AS codec FROM system.parts WHERE ${where} ORDER BY name`,
      )
    ).map((r) => ({
      part: r.name,
      rows: Number(r.rows),
      compressed_bytes: Number(r.c),
      uncompressed_bytes: Number(r.u),
      codec: r.codec,
    }));
    rec.sources.part_default_codecs = 'system.parts (active): default_compression_codec per part';
  } else {
    rec.part_default_codecs = null;
    rec.sources.part_default_codecs = 'not available on this server (system.parts has no default_compression_codec)';
  }
  const nonWide = Object.entries(partTypes).filter(([k]) => k !== 'Wide' && k !== 'unknown');
  if (nonWide.length) {
    rec.columns_unavailable_reason = `active parts are not all Wide (${nonWide.map(([k, n]) => `${n} ${k}`).join(', ')}): system.parts_columns would repeat the part total for every column`;
    return rec;
  }
  const cols = await queryRows<{ column: string; type: string; c: string; u: string }>(
    client,
    `SELECT column, any(type) AS type, sum(column_data_compressed_bytes) AS c, sum(column_data_uncompressed_bytes) AS u
     FROM system.parts_columns WHERE ${where} GROUP BY column ORDER BY c DESC`,
  );
  // Old versions without part_type: detect the Compact symptom (every column equal to the part total).
  const distinct = new Set(cols.map((c) => c.c));
  if (!hasPartType && cols.length > 1 && distinct.size === 1) {
    rec.columns_unavailable_reason = 'every column reports the same compressed size (Compact-part symptom)';
    return rec;
  }
  await addColumns(client, table, rec, cols, compressed);
  return rec;
}

/**
 * Fill `rec.columns` from per-column sizes (`c` compressed, `u` uncompressed bytes, as read) with
 * each column's codec as the server has it (`system.columns.compression_codec`, not as the spec
 * asked), and `rec.sources.codec`. `compressed` is the table's compressed bytes (each column's share).
 */
async function addColumns(
  client: ClickHouseClient,
  table: string,
  rec: StorageRecord,
  cols: { column: string; type: string; c: string; u: string }[],
  compressed: number,
): Promise<void> {
  const codecs = await readColumnCodecs(client, table);
  rec.sources.codec = codecs
    ? "system.columns.compression_codec (empty = the column names none: each part's default_compression_codec applies)"
    : 'not available on this server (system.columns has no compression_codec)';
  rec.columns = cols.map((c) => {
    const codec = codecs?.find((x) => x.column === c.column)?.compression_codec;
    return {
      column: c.column,
      type: c.type,
      compressed_bytes: Number(c.c),
      uncompressed_bytes: Number(c.u),
      ratio: Number(c.c) ? Number(c.u) / Number(c.c) : 0,
      share: compressed ? Number(c.c) / compressed : 0,
      ...(codec !== undefined ? { codec } : {}),
    };
  });
}
