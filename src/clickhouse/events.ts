/**
 * `system.events`: the server's cumulative counters since it started (name → count). The one reader
 * of the table; the per-run counters (src/measure/counters.ts), the insert grid's deltas
 * (src/measure/insert-point.ts) and the capability probe's counter list (src/clickhouse/probe.ts) use it.
 *
 * The table lists only non-zero counters unless `system_events_show_zero_values = 1` (a setting newer
 * servers have; 18.16 refuses it): a counter absent from the result is 0 so far, or does not exist on
 * this version — which of the two, only the probe's complete list can say.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import { queryRows } from './client';
import { sqlString } from '../lib/sql';

/** How {@link readEvents} reads the table. */
export interface ReadEventsOptions {
  /** The name column: `event` (every version, the default) or `name` (newer servers' alias). */
  column?: 'event' | 'name';
  /** Add `SETTINGS system_events_show_zero_values = 1`, so zero counters are listed too (refused by versions without it). */
  showZeroValues?: boolean;
}

/**
 * Read `system.events` (`<column>, value`): every counter the table lists, or only `names` when given
 * (`WHERE <column> IN (…)`). One statement; values as numbers (UInt64 arrives quoted).
 * @returns name → cumulative count, in the order the server listed them; a counter the table did not
 *   list is absent (see the module comment).
 * @throws ClickHouseError when the server refuses the statement (e.g. `showZeroValues` on 18.16).
 */
export async function readEvents(
  client: ClickHouseClient,
  names?: readonly string[],
  o: ReadEventsOptions = {},
): Promise<Record<string, number>> {
  if (names && !names.length) return {};
  const col = o.column ?? 'event';
  const where = names ? ` WHERE ${col} IN (${names.map(sqlString).join(', ')})` : '';
  const settings = o.showZeroValues ? ' SETTINGS system_events_show_zero_values = 1' : '';
  const rows = await queryRows<{ k: string; v: string | number }>(
    client,
    `SELECT ${col} AS k, value AS v FROM system.events${where}${settings}`,
  );
  const out: Record<string, number> = {};
  for (const r of rows) out[r.k] = Number(r.v);
  return out;
}

/** A snapshot of every `system.events` counter ({@link readEventsSnapshot}). */
export interface EventsSnapshot {
  /** Name → cumulative count since the server started; null when the table could not be read. */
  events: Record<string, number> | null;
  /** Where the counts came from (`system.events (<column>, value)` and whether zero values were shown), or `not available: <first line of the error>`. */
  source: string;
}

/**
 * Every counter of `system.events`, by the name column the server has (`name` where
 * `system.columns` lists it, else `event`), zero values shown where the server takes
 * `system_events_show_zero_values` (then a counter missing from the table does not exist in this
 * version: unknown). Never throws: a server that refuses the read gives `events` null and why.
 */
export async function readEventsSnapshot(client: ClickHouseClient): Promise<EventsSnapshot> {
  try {
    const cols = await queryRows<{ name: string }>(
      client,
      `SELECT name FROM system.columns WHERE database = 'system' AND table = ${sqlString('events')}`,
    );
    const column = cols.some((c) => c.name === 'name') ? 'name' : 'event';
    let zeros = true;
    const events = await readEvents(client, undefined, { column, showZeroValues: true }).catch(() => {
      zeros = false;
      return readEvents(client, undefined, { column });
    });
    return {
      events,
      source: `system.events (${column}, value)${zeros ? ', zero values shown' : ', zero values hidden by this version: an absent counter is reported as unknown'}`,
    };
  } catch (e) {
    return { events: null, source: `not available: ${(e as Error).message.split('\n')[0]}` };
  }
}

/** The two `system.events` counters read around a load's INSERT (absent from the table = 0). */
export interface LoadCounters {
  DuplicatedInsertedBlocks: number;
  InsertedRows: number;
}

/**
 * `DuplicatedInsertedBlocks` and `InsertedRows` from `system.events` (a counter the table does not
 * list is 0), read around a load's INSERT so their difference is the INSERT's.
 * @returns the two counts, or null when the server does not answer the read (never throws).
 */
export async function readLoadCounters(client: ClickHouseClient): Promise<LoadCounters | null> {
  try {
    const e = await readEvents(client, ['DuplicatedInsertedBlocks', 'InsertedRows']);
    return { DuplicatedInsertedBlocks: e.DuplicatedInsertedBlocks ?? 0, InsertedRows: e.InsertedRows ?? 0 };
  } catch {
    return null;
  }
}
