/**
 * How a server does the load's INSERT, read from that server: the insert settings in effect
 * (`async_insert`, `wait_for_async_insert`, `max_insert_threads` from its own `system.settings`, read
 * with the settings the INSERT is sent with), what the load adds so its INSERT is one synchronous
 * insert, and the `written_rows` figure as the server reported it, checked against `count()` (the truth).
 *
 * Checked on the PyPI / npm chdb builds (2026-12, `system.settings` with no settings sent):
 * | version | async_insert | wait_for_async_insert | max_insert_threads |
 * |---|---|---|---|
 * | 24.8.4 | 0 | 1 | 0 |
 * | 25.8.2 | 0 | 1 | 0 |
 * | 26.3.9 | 1 | 1 | 0 |
 * | 26.7.2 | 1 | 1 | 0 |
 * | 26.9.2 | 1 | 1 | `auto(2)` (on 2 cores) |
 * On every one an `INSERT … SELECT` was visible in `count()` when its response ended, also under
 * `async_insert = 1` (`system.events` showed no `AsyncInsertQuery`): ClickHouse buffers only inserts
 * whose data comes with the query, never an `INSERT … SELECT`.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import { queryRows } from './client';
import { sqlString } from '../lib/sql';

/** The settings that decide how an INSERT is done, in the order they are recorded. */
export const INSERT_SETTINGS = ['async_insert', 'wait_for_async_insert', 'max_insert_threads'] as const;
export type InsertSettingName = (typeof INSERT_SETTINGS)[number];

/** One insert setting as in effect for the load's INSERT. */
export interface EffectiveSetting {
  /** The value as the server prints it (`system.settings.value`, e.g. `1`, `auto(2)`); null when this version has no such setting. */
  value: string | null;
  /** Where the value comes from: sent with the INSERT, the server's default, its profile/configuration, or absent in this version. */
  source: string;
}

/** `system.settings` rows of the insert settings, as read. */
export interface InsertSettingsRow {
  name: string;
  value: string;
  changed: number | string;
}

/**
 * The insert settings in effect from `system.settings` rows read with the INSERT's settings
 * (`sent`). Pure.
 * - a setting `sent` names: its value, source `sent with the INSERT (load settings)` (or `… added by chbench for the load` when `added` names it);
 * - `changed = 0`: source `server default (system.settings, changed = 0)`;
 * - `changed = 1`: source `server profile or configuration (system.settings, changed = 1)`;
 * - absent from the rows: value null, source `not a setting of this version (absent from system.settings)`.
 */
export function effectiveInsertSettings(
  rows: readonly InsertSettingsRow[],
  sent: Record<string, unknown>,
  added: Record<string, unknown> = {},
): Record<InsertSettingName, EffectiveSetting> {
  const out = {} as Record<InsertSettingName, EffectiveSetting>;
  for (const name of INSERT_SETTINGS) {
    const r = rows.find((x) => x.name === name);
    if (!r) out[name] = { value: null, source: 'not a setting of this version (absent from system.settings)' };
    else if (name in added) out[name] = { value: r.value, source: 'added by chbench for the load (see notes)' };
    else if (name in sent) out[name] = { value: r.value, source: 'sent with the INSERT (load settings)' };
    else
      out[name] = {
        value: r.value,
        source:
          Number(r.changed) === 0
            ? 'server default (system.settings, changed = 0)'
            : 'server profile or configuration (system.settings, changed = 1)',
      };
  }
  return out;
}

/**
 * Read the insert settings in effect on this server for a statement sent with `settings`: its
 * `system.settings` (name, value, changed) with the same settings applied.
 * @throws what the client throws (the server unreachable, `system.settings` unreadable)
 */
export async function readInsertSettingsRows(
  client: ClickHouseClient,
  settings: Record<string, string | number>,
): Promise<InsertSettingsRow[]> {
  return queryRows<InsertSettingsRow>(
    client,
    `SELECT name, value, changed FROM system.settings WHERE name IN (${INSERT_SETTINGS.map(sqlString).join(', ')})`,
    settings as Record<string, number>,
  );
}

/**
 * {@link readInsertSettingsRows}, or why it could not read them: `rows` null and `source`
 * `not available: <the client's first error line>`. Never throws.
 * @returns the rows and their source (`system.settings of this server, read with the INSERT's settings`).
 */
export async function readInsertSettingsOrWhy(
  client: ClickHouseClient,
  settings: Record<string, string | number>,
): Promise<{ rows: InsertSettingsRow[] | null; source: string }> {
  try {
    return {
      rows: await readInsertSettingsRows(client, settings),
      source: "system.settings of this server, read with the INSERT's settings",
    };
  } catch (e) {
    return { rows: null, source: `not available: ${(e as Error).message.split('\n')[0]}` };
  }
}

/**
 * What the load adds to its INSERT's settings so the INSERT is one synchronous insert that has
 * written every row when it answers, with a note per addition. Pure.
 * - `async_insert` in effect 1 and not set by the spec: `async_insert = 0` (on by default in 26.3+;
 *   an `INSERT … SELECT` is not buffered anyway, so this only makes it explicit);
 * - `async_insert` set to 1 by the spec with `wait_for_async_insert` in effect 0: `wait_for_async_insert = 1`.
 * Nothing is added for a setting this version does not have (sending it would be refused).
 * @param effective the settings in effect with the spec's load settings ({@link effectiveInsertSettings})
 * @param sent the spec's load settings
 */
export function loadInsertAdditions(
  effective: Record<InsertSettingName, EffectiveSetting>,
  sent: Record<string, unknown>,
): { settings: Record<string, number>; notes: string[] } {
  const settings: Record<string, number> = {};
  const notes: string[] = [];
  const a = effective.async_insert;
  if (a.value === '1' && !('async_insert' in sent)) {
    settings.async_insert = 0;
    notes.push(
      `async_insert is 1 on this server (${a.source}); the load sends async_insert = 0, so its INSERT is one synchronous insert whose rows are all written when it answers (an INSERT … SELECT is not buffered by async inserts in any case)`,
    );
  } else if (a.value === '1' && effective.wait_for_async_insert.value === '0') {
    settings.wait_for_async_insert = 1;
    notes.push(
      `async_insert = 1 is set for the load and wait_for_async_insert is 0 (${effective.wait_for_async_insert.source}); the load sends wait_for_async_insert = 1, so the INSERT answers once its rows are written`,
    );
  }
  return { settings, notes };
}

/** Where the load's written_rows comes from. */
export type WrittenRowsSource =
  | 'http summary written_rows'
  | 'system.query_log.written_rows'
  | 'system.events InsertedRows difference around the INSERT';

/** The load's written_rows as the server reported it, and its check against count(). */
export interface WrittenRows {
  /** Rows the server said it wrote; null = not reported (or reported as 0, which is unknown: see `unknown`). */
  value: number | null;
  source: WrittenRowsSource | null;
  /** Why `value` is null, or why a source was passed over (each source that answered 0 or nothing). */
  unknown?: string;
  /**
   * written_rows against `count()` (the truth): `written_rows (<source>) = count()`; `not available: …`;
   * `differs, explained: …` (async inserts, deduplication or a host-wide counter explain it: a note,
   * not an error); `MISMATCH: …` when nothing recorded explains it (still not an error: count() decides).
   */
  check: string;
}

/** What {@link writtenRows} weighs. */
export interface WrittenRowsInput {
  /** `written_rows` of the INSERT's X-ClickHouse-Summary; null when absent. */
  summary: number | null;
  /** The summary fields the server says it did not measure (`X-Chbench-Unmeasured` of the embedded engine). */
  summaryUnmeasured: readonly string[];
  /** `written_rows` of the INSERT's query_log row; null when the server keeps none or it has no row. */
  queryLog: number | null;
  /** `InsertedRows` of `system.events`, after − before the INSERT; null when unreadable. */
  insertedRowsDelta: number | null;
  /** True when the difference is the INSERT's alone (the target runs one statement at a time). */
  eventsAreTheStatements: boolean;
  /** Rows in the table afterwards (`SELECT count()`): the truth. */
  count: number;
  /** `async_insert` in effect for the INSERT (`'1'`, `'0'`, or null when the version has none). */
  asyncInsert: string | null;
  /** Blocks dropped by insert deduplication (`DuplicatedInsertedBlocks` difference); null when unknown. */
  duplicatedBlocks: number | null;
}

/**
 * The load's written_rows, taken as the server reports it: the HTTP summary, else the query_log
 * row, else the `system.events` `InsertedRows` difference; a 0 from any of them is not taken (under
 * async inserts a server answers before writing and reports 0; an INSERT that wrote rows never wrote
 * none), and each source passed over is named. Then checked against `count()`. Pure.
 */
export function writtenRows(i: WrittenRowsInput): WrittenRows {
  const passed: string[] = [];
  let value: number | null = null;
  let source: WrittenRowsSource | null = null;
  const zeroWhy =
    i.asyncInsert === '1'
      ? ' (0 reported while async_insert = 1: a server that buffers answers before writing)'
      : ' (0 reported: unknown, not a figure)';
  if (i.summary !== null && i.summary > 0) [value, source] = [i.summary, 'http summary written_rows'];
  else if (i.summary === 0) passed.push(`http summary written_rows 0${zeroWhy}`);
  else if (i.summaryUnmeasured.includes('written_rows'))
    passed.push(
      'http summary: the engine server does not measure written_rows for this statement (X-Chbench-Unmeasured)',
    );
  else passed.push('http summary: no written_rows sent');
  if (value === null) {
    if (i.queryLog !== null && i.queryLog > 0) [value, source] = [i.queryLog, 'system.query_log.written_rows'];
    else if (i.queryLog === 0) passed.push(`system.query_log written_rows 0${zeroWhy}`);
  }
  if (value === null) {
    if (i.insertedRowsDelta !== null && i.insertedRowsDelta > 0)
      [value, source] = [i.insertedRowsDelta, 'system.events InsertedRows difference around the INSERT'];
    else if (i.insertedRowsDelta === null) passed.push('system.events InsertedRows: not readable');
    else passed.push(`system.events InsertedRows difference ${i.insertedRowsDelta}`);
  }
  const unknown = passed.length ? passed.join('; ') : undefined;
  let check: string;
  if (value === null) check = `not available: ${unknown}`;
  else if (value === i.count) check = `written_rows (${source}) = count()`;
  else {
    const why: string[] = [];
    if (i.asyncInsert === '1')
      why.push('async_insert = 1 was in effect (the server may answer before every row is written)');
    if (i.duplicatedBlocks !== null && i.duplicatedBlocks > 0)
      why.push(`${i.duplicatedBlocks} inserted blocks were dropped as duplicates`);
    if (
      source === 'system.events InsertedRows difference around the INSERT' &&
      !i.eventsAreTheStatements &&
      value > i.count
    )
      why.push(
        "system.events is server-wide: the difference also counts other inserts in that window (e.g. the server's own system log flushes)",
      );
    const text = `written_rows ${value} (${source}) ≠ count() ${i.count}`;
    check = why.length
      ? `differs, explained: ${text}: ${why.join('; ')}; count() is the figure`
      : `MISMATCH: ${text}; nothing recorded explains it; count() is the figure`;
  }
  return { value, source, ...(unknown ? { unknown } : {}), check };
}
