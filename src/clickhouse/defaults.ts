/**
 * A server's own defaults, read at provisioning into `defaults.json` ({@link ServerDefaults}): what a
 * versions matrix needs to tell "the engine's code changed" from "a default changed" (see the
 * report's "What differs between these versions", `src/results/report-versions.ts`).
 */
import type { ClickHouseClient } from '@clickhouse/client';
import type { ServerDefaults, SettingsChange } from '../schema/results';
import { queryRows } from './client';
import { serverDidNotAnswer } from './no-answer';

async function columnsOf(client: ClickHouseClient, table: string): Promise<string[]> {
  try {
    const rows = await queryRows<{ name: string }>(
      client,
      `SELECT name FROM system.columns WHERE database = 'system' AND table = '${table}'`,
    );
    return rows.map((r) => r.name);
  } catch (e) {
    if (serverDidNotAnswer(e)) throw e;
    return [];
  }
}

/** name → default of `system.<table>`, from its `default` column where it has one. */
async function defaultsOf(
  client: ClickHouseClient,
  table: 'settings' | 'merge_tree_settings',
): Promise<{ values: Record<string, string> | null; changed: Record<string, string> | null; source: string }> {
  const cols = await columnsOf(client, table);
  if (!cols.length) return { values: null, changed: null, source: `system.${table} unreadable` };
  const hasDefault = cols.includes('default');
  try {
    const rows = await queryRows<{ name: string; value: string; def: string; changed: number | string }>(
      client,
      `SELECT name, toString(value) AS value, ${hasDefault ? 'toString(default)' : 'toString(value)'} AS def, toUInt8(changed) AS changed FROM system.${table}`,
    );
    const values: Record<string, string> = {};
    const changed: Record<string, string> = {};
    for (const r of rows) {
      const isChanged = Number(r.changed) === 1;
      if (hasDefault || !isChanged) values[r.name] = r.def;
      if (isChanged) changed[r.name] = r.value;
    }
    return {
      values,
      changed,
      source: hasDefault ? `system.${table}.default` : `system.${table}.value (changed = 0)`,
    };
  } catch (e) {
    if (serverDidNotAnswer(e)) throw e;
    return { values: null, changed: null, source: `system.${table}: ${(e as Error).message.split('\n')[0]}` };
  }
}

/** `system.settings_changes` flattened; null where the table does not exist. */
async function settingsChanges(client: ClickHouseClient): Promise<SettingsChange[] | null> {
  const cols = await columnsOf(client, 'settings_changes');
  if (!cols.length) return null;
  try {
    const rows = await queryRows<{
      type?: string;
      version: string;
      changes: { name: string; previous_value: string; new_value: string; reason: string }[];
    }>(
      client,
      `SELECT ${cols.includes('type') ? 'toString(type) AS type, ' : ''}version, changes FROM system.settings_changes`,
    );
    return rows.flatMap((r) =>
      r.changes.map((c) => ({
        type: r.type === 'MergeTree' ? ('MergeTree' as const) : ('Session' as const),
        version: r.version,
        name: c.name,
        previous_value: String(c.previous_value),
        new_value: String(c.new_value),
        reason: String(c.reason ?? ''),
      })),
    );
  } catch (e) {
    if (serverDidNotAnswer(e)) throw e;
    return null;
  }
}

/**
 * Read the server's defaults. Never throws for a missing table or column (the server answers with
 * an error): that part is null.
 * @throws the client's error when the server does not answer (connection refused or reset, timeout:
 *   `serverDidNotAnswer` of `./no-answer.ts`), so no record says "unreadable" of a dead server.
 * @param version the server's `version()` (recorded with the defaults)
 */
export async function readServerDefaults(client: ClickHouseClient, version: string): Promise<ServerDefaults> {
  const s = await defaultsOf(client, 'settings');
  const mt = await defaultsOf(client, 'merge_tree_settings');
  return {
    version,
    settings: s.values,
    settings_source: s.source,
    settings_changed: s.changed,
    merge_tree_settings: mt.values,
    settings_changes: await settingsChanges(client),
  };
}
