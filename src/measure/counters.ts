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
 * A counter that cannot be known is `null`, never 0: a version that lacks it (23.10 … 26.9 have no
 * `CreatedReadBufferAIO*` / `ReadBufferAIOReadBytes`, which 18.16 has) gets "n/a", not a zero that
 * reads as "no AIO read happened".
 */
import type { ClickHouseClient } from '@clickhouse/client';
import { readEvents } from '../clickhouse/events';
import type { RunCounters } from '../schema/results';
import { RUN_COUNTERS } from './validity';

/**
 * A `system.events` snapshot of the {@link RUN_COUNTERS}: name → cumulative count since server start,
 * for the counters the table listed (it lists only non-zero counters unless
 * `system_events_show_zero_values`): a counter absent here is 0 so far or does not exist in this version.
 */
export type EventSnapshot = Partial<Record<string, number>>;

/**
 * Snapshot the {@link RUN_COUNTERS} from `system.events` rows (`{ k: event, v: value }`, value as
 * the server sends it; a 64-bit value quoted or not). Counters absent from the rows stay absent
 * ({@link counterDelta} decides what that means). Pure.
 */
export function eventSnapshot(rows: { k: string; v: string | number }[]): EventSnapshot {
  const out: EventSnapshot = {};
  for (const k of RUN_COUNTERS) {
    const r = rows.find((x) => x.k === k);
    if (r) out[k] = Number(r.v);
  }
  return out;
}

/**
 * Key of {@link eventCounters}' snapshot holding how many rows the snapshot statement itself read
 * from `system.events`: the next snapshot's SelectedRows includes them (checked on 24.8 and 26.3:
 * the difference of two back-to-back snapshots is exactly the first one's row count).
 */
export const SNAPSHOT_ROWS = '__snapshot_rows';

/**
 * Read a {@link eventSnapshot} from the server's `system.events` — every row, unfiltered, so that the
 * rows this read adds to the next snapshot's SelectedRows are known exactly ({@link SNAPSHOT_ROWS});
 * null when the table cannot be read.
 */
export async function eventCounters(client: ClickHouseClient): Promise<EventSnapshot | null> {
  try {
    const rows = Object.entries(await readEvents(client)).map(([k, v]) => ({ k, v }));
    return { ...eventSnapshot(rows), [SNAPSHOT_ROWS]: rows.length };
  } catch {
    return null;
  }
}

/**
 * A snapshot taken right after another one (nothing runs between them), with what such a snapshot
 * reads itself: `rows` its row count (exact); `bytes` the previous snapshot's SelectedBytes, which
 * equals this one's when both read the same rows (SelectedBytes counts columns the snapshot does not
 * select, so it can only be measured). `overhead` is null when the difference is not the previous
 * snapshot's row count (something else ran) or the row counts differ; the snapshot is null when the
 * table cannot be read.
 */
export async function calibratedSnapshot(
  client: ClickHouseClient,
): Promise<{ snapshot: EventSnapshot | null; overhead: { rows: number; bytes: number } | null }> {
  const a = await eventCounters(client);
  const b = await eventCounters(client);
  if (!a || !b) return { snapshot: b, overhead: null };
  const rows = a[SNAPSHOT_ROWS]!;
  const dRows = (b.SelectedRows ?? 0) - (a.SelectedRows ?? 0);
  const dBytes = (b.SelectedBytes ?? 0) - (a.SelectedBytes ?? 0);
  const ok = dRows === rows && b[SNAPSHOT_ROWS] === rows && dBytes > 0;
  return { snapshot: b, overhead: ok ? { rows, bytes: dBytes } : null };
}

/**
 * A run's counters as the difference `b − a` of two snapshots. `known`: every counter the version has
 * (the probe's `system.events` list with zero values, when complete). A counter:
 * - listed after the run: `b − a` (absent before = 0 before);
 * - not in `known`: null (the version lacks it);
 * - absent from both snapshots: 0 when `known` lists it (it stayed 0), else null — without the list,
 *   "never counted" and "does not exist in this version" look the same, and neither is a 0.
 * Pure.
 */
export function counterDelta(a: EventSnapshot, b: EventSnapshot, known?: string[]): RunCounters {
  return Object.fromEntries(
    RUN_COUNTERS.map((k) => {
      if (known && !known.includes(k)) return [k, null];
      const after = b[k];
      if (after === undefined) return [k, known ? 0 : null];
      return [k, after - (a[k] ?? 0)];
    }),
  );
}

/**
 * A run's counters from its query_log ProfileEvents `pe`. A counter absent from `pe` is 0 when
 * `existing` says the server has it (the probe listed it, or another run of the step reported it),
 * else null (unknown). Pure.
 */
export function queryLogCounters(pe: Record<string, number>, existing: ReadonlySet<string>): RunCounters {
  return Object.fromEntries(RUN_COUNTERS.map((k) => [k, k in pe ? Number(pe[k]) : existing.has(k) ? 0 : null]));
}
