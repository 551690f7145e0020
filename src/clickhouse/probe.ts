/**
 * Capability probe: what this server has, read from its system tables at provisioning and stored
 * with the cell (`probe.json`). Everything version-dependent in chbench reads the probe instead of
 * comparing version numbers.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import { queryRows, tryCommand, type CommandOutcome } from './client';

/** The probe of one target. A list that could not be read is `null` ("unknown"), never empty. */
export interface CapabilityProbe {
  /** `SELECT version()`. */
  version: string;
  /** Query-level settings (`system.settings`). */
  query_settings: string[] | null;
  /** MergeTree table settings (`system.merge_tree_settings`). */
  merge_tree_settings: string[] | null;
  /** Server settings (`system.server_settings`, newer versions only). */
  server_settings: string[] | null;
  /** Each cache-drop statement chbench may use and whether the server accepted it. */
  cache_drops: CommandOutcome[];
  /** `system.query_log`: exists (after a logged query and a flush), and how it stores ProfileEvents. */
  query_log: { enabled: boolean; profile_events: 'map' | 'arrays' | 'none' | null };
  /** `system.part_log` exists. */
  part_log: { enabled: boolean };
  /** Counter names in `system.events` (all of them where `system_events_show_zero_values` exists). */
  events: string[] | null;
  /** Whether `events` lists every counter (true) or only the non-zero ones (false). */
  events_complete: boolean;
  /** Data types (`system.data_type_families`), e.g. DateTime64, LowCardinality; null if unreadable. */
  data_types: string[] | null;
  /** Table functions (`system.table_functions`), e.g. numbers_mt; null if unreadable. */
  table_functions: string[] | null;
  /** Whether a column `CODEC(...)` clause is accepted (trial `CREATE TEMPORARY TABLE`). */
  column_codecs: boolean;
  /** The trial's outcome (the server's error when refused). */
  column_codecs_trial: CommandOutcome;
}

async function names(client: ClickHouseClient, sql: string): Promise<string[] | null> {
  try {
    return (await queryRows<{ name: string }>(client, sql)).map((r) => r.name).sort();
  } catch {
    return null;
  }
}

/**
 * Every server cache that can serve a repeated query without reading its data from storage, as the
 * statement that empties it, oldest first: marks, uncompressed blocks, skip-index marks and blocks,
 * mmapped files, compiled expressions, query results, query conditions (which granules matched),
 * userspace page cache, primary index, skipping index. Newer versions have more; the probe tries
 * each once and records which the server accepts, and the cold cycle (`src/measure/cold-cycle.ts`)
 * issues only those before every cold run.
 */
export const PROBED_CACHE_DROPS = [
  'SYSTEM DROP MARK CACHE',
  'SYSTEM DROP UNCOMPRESSED CACHE',
  'SYSTEM DROP INDEX MARK CACHE',
  'SYSTEM DROP INDEX UNCOMPRESSED CACHE',
  'SYSTEM DROP MMAP CACHE',
  'SYSTEM DROP COMPILED EXPRESSION CACHE',
  'SYSTEM DROP QUERY CACHE',
  'SYSTEM DROP QUERY CONDITION CACHE',
  'SYSTEM DROP PAGE CACHE',
  'SYSTEM DROP PRIMARY INDEX CACHE',
  'SYSTEM DROP SKIPPING INDEX CACHE',
] as const;

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
  let events = await names(
    client,
    `SELECT ${evCol} AS name FROM system.events SETTINGS system_events_show_zero_values = 1`,
  );
  const events_complete = events !== null;
  if (!events) events = await names(client, `SELECT ${evCol} AS name FROM system.events`);
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
