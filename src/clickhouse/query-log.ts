/**
 * `system.query_log`: the server's own record of each statement, joined to chbench's runs and loads
 * by query_id. Read once per step, after the statements ran (it is flushed lazily).
 *
 * Versions differ in shape; this module hides that: ProfileEvents are a `Map(String, UInt64)` column
 * on newer servers and two parallel arrays (`ProfileEvents.Names`, `ProfileEvents.Values`) on old
 * ones such as 18.16; `type` is an Enum (`'QueryFinish'`) on newer servers and a UInt8 (2) on old
 * ones; microsecond timestamps exist only on newer servers.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import { queryRows } from './client';
import { sqlString } from '../lib/sql';
import type { ServerDurationSource } from '../schema/results';

/**
 * One `QueryFinish` row as chbench keeps it: the server's columns as sent (UInt64 values as strings),
 * `ProfileEvents` as one `{ name: count }` object whatever the version stores, and
 * `query_duration_us` where the version has microsecond timestamps.
 */
export type QueryLogRow = Record<string, unknown>;

/** Columns read from `system.query_log` when the version has them. */
const WANTED = [
  'query_id',
  'event_time',
  'query_duration_ms',
  'read_rows',
  'read_bytes',
  'result_rows',
  'result_bytes',
  'written_rows',
  'memory_usage',
  'ProfileEvents',
  'ProfileEvents.Names',
  'ProfileEvents.Values',
  'Settings.Names',
  'Settings.Values',
  'Settings',
];

/**
 * Normalise a raw query_log row: ProfileEvents as one object (counts as numbers) whether the server
 * sent a Map or the two arrays `ProfileEvents.Names`/`ProfileEvents.Values` (which are then removed).
 * Every other column is kept as sent. Pure.
 */
export function normaliseQueryLogRow(r: Record<string, unknown>): QueryLogRow {
  const out: Record<string, unknown> = { ...r };
  const names = r['ProfileEvents.Names'] as string[] | undefined;
  const values = r['ProfileEvents.Values'] as (string | number)[] | undefined;
  if (names && values) {
    out.ProfileEvents = Object.fromEntries(names.map((n, i) => [n, Number(values[i])]));
    delete out['ProfileEvents.Names'];
    delete out['ProfileEvents.Values'];
  }
  return out;
}

/**
 * The SELECT that reads the `QueryFinish` rows of `ids`, built for the columns this server has
 * (`columns`: names of `system.query_log`'s columns; `typeColumn`: the type of its `type` column).
 * Adds `query_duration_us` (event_time_microseconds − query_start_time_microseconds) where both
 * microsecond columns exist. Pure.
 */
export function queryLogSelect(ids: string[], columns: Iterable<string>, typeColumn: string | undefined): string {
  const have = new Set(columns);
  const select = WANTED.filter((c) => have.has(c))
    .map((c) => (c.includes('.') ? `\`${c}\`` : c))
    .join(', ');
  // Microsecond duration where the version has the columns (query_duration_ms is whole milliseconds).
  const micro =
    have.has('event_time_microseconds') && have.has('query_start_time_microseconds')
      ? ', toUnixTimestamp64Micro(event_time_microseconds) - toUnixTimestamp64Micro(query_start_time_microseconds) AS query_duration_us'
      : '';
  // `type` is an Enum on newer versions and a UInt8 (2 = QueryFinish) on old ones such as 18.16.
  const finish = typeColumn?.startsWith('Enum') ? "'QueryFinish'" : '2';
  return `SELECT ${select}${micro} FROM system.query_log WHERE event_date >= yesterday() AND type = ${finish} AND query_id IN (${ids.map(sqlString).join(', ')})`;
}

/**
 * Fetch the `QueryFinish` rows of `system.query_log` for the given query ids, after
 * `SYSTEM FLUSH LOGS`, normalised by {@link normaliseQueryLogRow}. An id with no row (not logged,
 * or failed) is absent from the map.
 * @throws ClickHouseError when the server has no query_log or refuses the flush.
 */
export async function fetchQueryLog(client: ClickHouseClient, ids: string[]): Promise<Map<string, QueryLogRow>> {
  const out = new Map<string, QueryLogRow>();
  if (!ids.length) return out;
  await client.command({ query: 'SYSTEM FLUSH LOGS' });
  const cols = await queryRows<{ name: string; type: string }>(
    client,
    "SELECT name, type FROM system.columns WHERE database = 'system' AND table = 'query_log'",
  );
  const rows = await queryRows<Record<string, unknown>>(
    client,
    queryLogSelect(
      ids,
      cols.map((c) => c.name),
      cols.find((c) => c.name === 'type')?.type,
    ),
  );
  for (const r of rows) out.set(String(r.query_id), normaliseQueryLogRow(r));
  return out;
}

/** Server-side duration of one statement, as `system.query_log` has it. */
export interface ServerDuration {
  ms: number;
  /** `query_duration_ms` (whole ms) or the microsecond columns' difference (newer servers). */
  source: ServerDurationSource;
}

/**
 * Server-side durations of `ids` from `system.query_log` (`QueryFinish` rows), after `SYSTEM FLUSH
 * LOGS`. Selects by `query_id LIKE '<prefix>-%'` (an `IN` list of thousands of ids would exceed the
 * server's `max_query_size`) and keeps only `ids`. Microsecond timestamps
 * (`event_time_microseconds − query_start_time_microseconds`) are used where the version has them,
 * unless `o.wholeMs`, which always reads `query_duration_ms`.
 * @returns query_id → duration (ms) and its column; an id with no row (not logged, or failed) is absent.
 * @throws ClickHouseError when the server has no query_log or refuses the flush.
 */
export async function serverDurations(
  client: ClickHouseClient,
  prefix: string,
  ids: ReadonlySet<string>,
  o: { wholeMs?: boolean } = {},
): Promise<Map<string, ServerDuration>> {
  await client.command({ query: 'SYSTEM FLUSH LOGS' });
  const cols = await queryRows<{ name: string; type: string }>(
    client,
    "SELECT name, type FROM system.columns WHERE database = 'system' AND table = 'query_log'",
  );
  const have = new Set(cols.map((c) => c.name));
  const micro = !o.wholeMs && have.has('event_time_microseconds') && have.has('query_start_time_microseconds');
  // `type` is an Enum on newer versions and a UInt8 (2 = QueryFinish) on old ones such as 18.16.
  const finish = cols.find((c) => c.name === 'type')?.type.startsWith('Enum') ? "'QueryFinish'" : '2';
  const duration = micro
    ? 'toUnixTimestamp64Micro(event_time_microseconds) - toUnixTimestamp64Micro(query_start_time_microseconds)'
    : 'query_duration_ms';
  const rows = await queryRows<{ query_id: string; d: string | number }>(
    client,
    `SELECT query_id, ${duration} AS d FROM system.query_log WHERE event_date >= yesterday() AND type = ${finish} AND query_id LIKE ${sqlString(`${prefix}-%`)}`,
  );
  const source: ServerDurationSource = micro
    ? 'system.query_log event_time_microseconds - query_start_time_microseconds'
    : 'system.query_log.query_duration_ms';
  const out = new Map<string, ServerDuration>();
  for (const r of rows)
    if (ids.has(r.query_id)) out.set(r.query_id, { ms: micro ? Number(r.d) / 1000 : Number(r.d), source });
  return out;
}
