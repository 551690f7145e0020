/**
 * Capability probe: what this server has, read from its system tables at provisioning and stored
 * with the cell (`probe.json`). Everything version-dependent in chbench reads the probe instead of
 * comparing version numbers.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import type { CapabilityProbe, CommandOutcome } from '../schema/results';
import { queryRows, tryCommand } from './client';
import { readEvents } from './events';
import { CACHE_SETTINGS, SERVER_CACHES } from '../measure/caches';
import { sqlString } from '../lib/sql';

async function names(client: ClickHouseClient, sql: string): Promise<string[] | null> {
  try {
    return (await queryRows<{ name: string }>(client, sql)).map((r) => r.name).sort();
  } catch {
    return null;
  }
}

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
 * Probe a server. It runs one logged `SELECT 1` and tries each cache drop once (on an `external`
 * server shared with others this empties their caches too, as every cold run would).
 */
export async function probeServer(client: ClickHouseClient, version: string): Promise<CapabilityProbe> {
  // Obsolete entries (server settings kept in system.settings for compatibility) have no effect per query.
  const query_settings =
    (await names(client, 'SELECT name FROM system.settings WHERE NOT is_obsolete')) ??
    (await names(client, 'SELECT name FROM system.settings'));
  const merge_tree_settings = await names(client, 'SELECT name FROM system.merge_tree_settings');
  const server_settings = await names(client, 'SELECT name FROM system.server_settings');
  const cache_drops: CommandOutcome[] = [];
  for (const c of PROBED_CACHE_DROPS) cache_drops.push(await tryCommand(client, c));
  // The defaults of the settings that turn caches on (query and MergeTree levels), as this version has them.
  let cache_settings: Record<string, string> | undefined;
  try {
    const inList = CACHE_SETTINGS.map(sqlString).join(', ');
    const rows = [
      ...(await queryRows<{ name: string; value: string }>(
        client,
        `SELECT name, value FROM system.settings WHERE name IN (${inList})`,
      )),
      ...(await queryRows<{ name: string; value: string }>(
        client,
        `SELECT name, value FROM system.merge_tree_settings WHERE name IN (${inList})`,
      ).catch(() => [])),
    ];
    cache_settings = Object.fromEntries(rows.map((r) => [r.name, String(r.value)]));
  } catch {
    cache_settings = undefined;
  }
  await tryCommand(client, 'SELECT 1', { log_queries: 1 });
  await tryCommand(client, 'SYSTEM FLUSH LOGS');
  const tables = (await names(client, "SELECT name FROM system.tables WHERE database = 'system'")) ?? [];
  const qlCols = tables.includes('query_log')
    ? ((await names(client, "SELECT name FROM system.columns WHERE database = 'system' AND table = 'query_log'")) ?? [])
    : [];
  const profile_events = !tables.includes('query_log')
    ? null
    : qlCols.includes('ProfileEvents.Names')
      ? 'arrays'
      : qlCols.includes('ProfileEvents')
        ? 'map'
        : 'none';
  const evCol = (
    (await names(client, "SELECT name FROM system.columns WHERE database = 'system' AND table = 'events'")) ?? []
  ).includes('name')
    ? 'name'
    : 'event';
  // The counter names, sorted; null when unreadable. Complete only where zero counters can be listed.
  const eventNames = (showZeroValues: boolean) =>
    readEvents(client, undefined, { column: evCol, showZeroValues }).then(
      (ev) => Object.keys(ev).sort(),
      () => null,
    );
  let events = await eventNames(true);
  const events_complete = events !== null;
  if (!events) events = await eventNames(false);
  const data_types = await names(client, 'SELECT name FROM system.data_type_families');
  const table_functions = await names(client, 'SELECT name FROM system.table_functions');
  // Column CODEC clauses: a trial on a temporary table (nothing is written). The name is unique: an
  // engine shared by several cells (an external target) may keep temporary tables across requests.
  const trialTable = `chbench_codec_probe_${Date.now()}_${Math.floor(Math.random() * 1e9)}`;
  const codecTrial = await tryCommand(client, `CREATE TEMPORARY TABLE ${trialTable} (x UInt8 CODEC(ZSTD(1)))`);
  if (codecTrial.ok) await tryCommand(client, `DROP TEMPORARY TABLE IF EXISTS ${trialTable}`);
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
