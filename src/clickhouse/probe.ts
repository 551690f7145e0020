/**
 * Capability probe: what this server has, read from its system tables at provisioning and stored
 * with the cell (`probe.json`). Everything version-dependent in chbench reads the probe instead of
 * comparing version numbers.
 */
import type { ClickHouseClient, ClickHouseSettings } from '@clickhouse/client';
import type { CapabilityProbe, CommandOutcome } from '../schema/results';
import { failedOutcome, queryRows } from './client';
import { readEvents } from './events';
import { serverDidNotAnswer } from './no-answer';
import { CACHE_SETTINGS, SERVER_CACHES } from '../measure/caches';
import { sqlString } from '../lib/sql';

/**
 * Every server cache that can serve a repeated query without reading its data from storage, as the
 * statement that empties it, oldest first (`SERVER_CACHES` in src/measure/caches.ts: marks,
 * uncompressed blocks, skip-index marks and blocks, mmapped files, compiled expressions, query
 * results, filesystem cache, query conditions, userspace page cache, primary index, vector and text
 * indexes, skipping index). Newer versions have more; the probe tries each once and records which the
 * server accepts, and the cold cycle (`src/measure/cold-cycle.ts`) issues only those before every cold run.
 */
export const PROBED_CACHE_DROPS: readonly string[] = SERVER_CACHES.flatMap((c) => (c.drop ? [c.drop] : []));

/**
 * The server stopped answering part-way through the probe (connection refused or reset, socket hang
 * up, a request timeout: `serverDidNotAnswer` of `./no-answer.ts`): what the probe read so far says
 * nothing about the later capabilities, so nothing is returned. `cause` is the client's error.
 */
export class ProbeInterruptedError extends Error {
  override readonly name = 'ProbeInterruptedError';
  constructor(
    /** The statement the probe was at (its SQL). */
    readonly statement: string,
    /** Its position in the probe, 1-based (statements sent, fallbacks included). */
    readonly index: number,
    /** The target, as the caller described it (e.g. `embedded target http://127.0.0.1:39123`). */
    readonly target: string,
    override readonly cause: unknown,
  ) {
    super(
      `the ClickHouse server (${target}) stopped answering during the capability probe, at statement ${index} \`${statement}\`: ${String((cause as Error)?.message ?? cause).split('\n')[0]}`,
    );
  }
}

/** Options of {@link probeServer}. */
export interface ProbeOptions {
  /** How errors name the server (`<kind> target <url>`). @default 'the server' */
  target?: string;
}

/**
 * Probe a server. It runs one logged `SELECT 1` and tries each cache drop once (on an `external`
 * server shared with others this empties their caches too, as every cold run would).
 *
 * A statement the server answers with an error (a ClickHouse exception) means that capability is
 * absent: the list reads as `null` (or the drop as not accepted), and the statement with the server's
 * code and first line is kept in `failed_statements` (cache drops and the codec trial in their own
 * outcomes). A statement the server does not answer stops the probe.
 * @throws ProbeInterruptedError when the server did not answer a statement (connection refused or
 *   reset, socket hang up, timeout), naming that statement and `o.target`; nothing is returned then.
 */
export async function probeServer(
  client: ClickHouseClient,
  version: string,
  o: ProbeOptions = {},
): Promise<CapabilityProbe> {
  const where = o.target ?? 'the server';
  const failed_statements: CommandOutcome[] = [];
  let sent = 0;
  /** Run one statement: a server error gives `absent(outcome)`; no answer throws {@link ProbeInterruptedError}. */
  const ask = async <T>(sql: string, run: () => Promise<T>, absent: (f: CommandOutcome) => T): Promise<T> => {
    const index = ++sent;
    try {
      return await run();
    } catch (e) {
      if (serverDidNotAnswer(e)) throw new ProbeInterruptedError(sql, index, where, e);
      return absent(failedOutcome(sql, e));
    }
  };
  const names = (sql: string): Promise<string[] | null> =>
    ask(
      sql,
      async () => (await queryRows<{ name: string }>(client, sql)).map((r) => r.name).sort(),
      (f) => (failed_statements.push(f), null),
    );
  /** A statement whose outcome the caller records itself. */
  const command = (sql: string, settings: ClickHouseSettings = {}): Promise<CommandOutcome> =>
    ask<CommandOutcome>(
      sql,
      async () => {
        await client.command({ query: sql, clickhouse_settings: settings });
        return { sql, ok: true };
      },
      (f) => f,
    );
  /** A statement whose failure goes to `failed_statements`. */
  const recorded = async (sql: string, settings: ClickHouseSettings = {}): Promise<CommandOutcome> => {
    const r = await command(sql, settings);
    if (!r.ok) failed_statements.push(r);
    return r;
  };

  // Obsolete entries (server settings kept in system.settings for compatibility) have no effect per query.
  const query_settings =
    (await names('SELECT name FROM system.settings WHERE NOT is_obsolete')) ??
    (await names('SELECT name FROM system.settings'));
  const merge_tree_settings = await names('SELECT name FROM system.merge_tree_settings');
  const server_settings = await names('SELECT name FROM system.server_settings');
  const cache_drops: CommandOutcome[] = [];
  for (const c of PROBED_CACHE_DROPS) cache_drops.push(await command(c));
  // The defaults of the settings that turn caches on (query and MergeTree levels), as this version has them.
  const inList = CACHE_SETTINGS.map(sqlString).join(', ');
  const settingValues = (table: string) => {
    const sql = `SELECT name, value FROM system.${table} WHERE name IN (${inList})`;
    return ask(
      sql,
      () => queryRows<{ name: string; value: string }>(client, sql),
      (f) => (failed_statements.push(f), null),
    );
  };
  const querySettingValues = await settingValues('settings');
  // A server without system.merge_tree_settings still has its query-level values.
  const mergeTreeSettingValues = querySettingValues ? ((await settingValues('merge_tree_settings')) ?? []) : [];
  const cache_settings = querySettingValues
    ? Object.fromEntries([...querySettingValues, ...mergeTreeSettingValues].map((r) => [r.name, String(r.value)]))
    : undefined;
  await recorded('SELECT 1', { log_queries: 1 });
  await recorded('SYSTEM FLUSH LOGS');
  const tables = (await names("SELECT name FROM system.tables WHERE database = 'system'")) ?? [];
  const qlCols = tables.includes('query_log')
    ? ((await names("SELECT name FROM system.columns WHERE database = 'system' AND table = 'query_log'")) ?? [])
    : [];
  const profile_events = !tables.includes('query_log')
    ? null
    : qlCols.includes('ProfileEvents.Names')
      ? 'arrays'
      : qlCols.includes('ProfileEvents')
        ? 'map'
        : 'none';
  const evCol = (
    (await names("SELECT name FROM system.columns WHERE database = 'system' AND table = 'events'")) ?? []
  ).includes('name')
    ? 'name'
    : 'event';
  // The counter names, sorted; null when unreadable. Complete only where zero counters can be listed.
  const eventNames = (showZeroValues: boolean) =>
    ask(
      // The statement readEvents sends.
      `SELECT ${evCol} AS k, value AS v FROM system.events${showZeroValues ? ' SETTINGS system_events_show_zero_values = 1' : ''}`,
      async () => Object.keys(await readEvents(client, undefined, { column: evCol, showZeroValues })).sort(),
      (f) => (failed_statements.push(f), null),
    );
  let events = await eventNames(true);
  const events_complete = events !== null;
  if (!events) events = await eventNames(false);
  const data_types = await names('SELECT name FROM system.data_type_families');
  const table_functions = await names('SELECT name FROM system.table_functions');
  // Column CODEC clauses: a trial on a temporary table (nothing is written). The name is unique: an
  // engine shared by several cells (an external target) may keep temporary tables across requests.
  const trialTable = `chbench_codec_probe_${Date.now()}_${Math.floor(Math.random() * 1e9)}`;
  const codecTrial = await command(`CREATE TEMPORARY TABLE ${trialTable} (x UInt8 CODEC(ZSTD(1)))`);
  if (codecTrial.ok) await recorded(`DROP TEMPORARY TABLE IF EXISTS ${trialTable}`);
  return {
    version,
    data_types,
    table_functions,
    column_codecs: codecTrial.ok,
    column_codecs_trial: codecTrial,
    query_settings,
    merge_tree_settings,
    server_settings,
    cache_drops,
    ...(cache_settings ? { cache_settings } : {}),
    query_log: { enabled: tables.includes('query_log'), profile_events },
    part_log: { enabled: tables.includes('part_log') },
    events,
    events_complete,
    failed_statements,
  };
}

/** Where a setting name belongs according to a probe. */
export function settingLevels(p: CapabilityProbe, name: string): ('query' | 'merge_tree' | 'server')[] {
  const out: ('query' | 'merge_tree' | 'server')[] = [];
  if (p.query_settings?.includes(name)) out.push('query');
  if (p.merge_tree_settings?.includes(name)) out.push('merge_tree');
  if (p.server_settings?.includes(name)) out.push('server');
  return out;
}
