/**
 * Per-run counters (the {@link RUN_COUNTERS}) from the two places a server can give them:
 *
 * - `system.query_log` ProfileEvents of the run's own row, where the server keeps a query log. An
 *   entry is absent when the counter stayed 0 in that query — or when the version has no such
 *   counter; absent counts as 0 only for counters known to exist on the server.
 * - the difference of two `system.events` snapshots just before and just after the run, where the
 *   server has no query log but runs one statement at a time (the embedded engine), so the
 *   difference is the run's.
 *
 * A counter that cannot be known is `null`, never 0.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import { queryRows } from '../clickhouse/client';
import { sqlString } from '../lib/sql';
import type { RunCounters } from '../schema/results';
import { RUN_COUNTERS } from './validity';

/** A `system.events` snapshot of the {@link RUN_COUNTERS}: name → cumulative count since server start. */
export type EventSnapshot = Record<string, number>;

/**
 * Snapshot the {@link RUN_COUNTERS} from `system.events` rows (`{ k: event, v: value }`, value as
 * the server sends it). A counter absent from the rows is 0 there (the table lists only non-zero
 * counters unless `system_events_show_zero_values`); {@link counterDelta} turns counters this version
 * does not have into null. Pure.
 */
export function eventSnapshot(rows: { k: string; v: string | number }[]): EventSnapshot {
  return Object.fromEntries(RUN_COUNTERS.map((k) => [k, Number(rows.find((r) => r.k === k)?.v ?? 0)]));
}

/** Read a {@link eventSnapshot} from the server's `system.events`; null when the table cannot be read. */
export async function eventCounters(client: ClickHouseClient): Promise<EventSnapshot | null> {
  try {
    return eventSnapshot(
      await queryRows<{ k: string; v: string }>(
        client,
        `SELECT event AS k, value AS v FROM system.events WHERE event IN (${RUN_COUNTERS.map(sqlString).join(', ')})`,
      ),
    );
  } catch {
    return null;
  }
}

/**
 * A run's counters as the difference `b − a` of two snapshots. A counter not in `known` (the names
 * the server's `system.events` lists, when that list is complete) is null: the version lacks it.
 * Pure.
 */
export function counterDelta(a: EventSnapshot, b: EventSnapshot, known?: string[]): RunCounters {
  return Object.fromEntries(RUN_COUNTERS.map((k) => [k, known && !known.includes(k) ? null : b[k] - a[k]]));
}

/**
 * A run's counters from its query_log ProfileEvents `pe`. A counter absent from `pe` is 0 when
 * `existing` says the server has it (the probe listed it, or another run of the step reported it),
 * else null (unknown). Pure.
 */
export function queryLogCounters(pe: Record<string, number>, existing: ReadonlySet<string>): RunCounters {
  return Object.fromEntries(RUN_COUNTERS.map((k) => [k, k in pe ? Number(pe[k]) : existing.has(k) ? 0 : null]));
}
