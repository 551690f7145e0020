/**
 * Settings a spec or workload asks for, checked against the target's capability probe at their
 * level — query (`system.settings`), MergeTree table (`system.merge_tree_settings`) or server
 * (`system.server_settings`) — before anything is loaded.
 */
import type { CapabilityProbe } from '../schema/results';
import { settingLevels } from './probe';
import { sqlValue } from '../lib/sql';
import { closestName } from '../schema/spec-issues';

/** Settings requested for a cell, by level. */
export interface RequestedSettings {
  /** Query settings: sent with the load and with every measured run. */
  query: Record<string, string | number>;
  /** MergeTree settings: appended to the table's `SETTINGS` clause. */
  mergeTree: Record<string, string | number>;
  /** Names that may be missing on a version: then recorded as "not applied on this version". */
  optional: string[];
}

/** Outcome of checking requested settings against a probe. */
export interface SettingsCheck {
  /** What will be sent, by level (optional settings the version lacks removed). */
  applied: { query: Record<string, string | number>; mergeTree: Record<string, string | number> };
  /** `name → reason` for optional settings left out on this version. */
  not_applied: Record<string, string>;
  /** One line per refused setting; empty when all is well. */
  problems: string[];
}

const TABLE = {
  query: 'system.settings',
  merge_tree: 'system.merge_tree_settings',
  server: 'system.server_settings',
} as const;
const WHERE = {
  query: 'a query setting (spec settings.query / SETTINGS of a statement)',
  merge_tree: 'a MergeTree table setting (spec settings.mergeTree / CREATE TABLE … SETTINGS)',
  server: 'a server setting (config.xml; it cannot be set per query or per table)',
} as const;

/**
 * Check requested settings. A setting at the wrong level, or unknown to this version and not marked
 * optional, is a problem naming where it belongs; a list the probe could not read is not judged.
 */
export function checkSettings(
  req: RequestedSettings,
  probe: CapabilityProbe,
  source: string,
  keys = { query: 'settings.query', mergeTree: 'settings.mergeTree' },
): SettingsCheck {
  const out: SettingsCheck = { applied: { query: {}, mergeTree: {} }, not_applied: {}, problems: [] };
  const check = (level: 'query' | 'merge_tree', name: string, value: string | number) => {
    const list = level === 'query' ? probe.query_settings : probe.merge_tree_settings;
    const target = level === 'query' ? out.applied.query : out.applied.mergeTree;
    if (list === null || list.includes(name)) {
      target[name] = value;
      return;
    }
    const elsewhere = settingLevels(probe, name);
    if (elsewhere.length) {
      out.problems.push(
        `${source} ${level === 'query' ? keys.query : keys.mergeTree}: "${name}" is not ${WHERE[level]} on ClickHouse ${probe.version}; it is ${elsewhere.map((l) => `${WHERE[l]} (${TABLE[l]})`).join(' and ')}`,
      );
      return;
    }
    if (req.optional.includes(name)) {
      out.not_applied[name] =
        `not applied on this version: ClickHouse ${probe.version} has no such setting (${TABLE[level]})`;
      return;
    }
    const searched = [TABLE.query, TABLE.merge_tree, ...(probe.server_settings ? [TABLE.server] : [])];
    const near = settingSuggestion(probe, name, level);
    out.problems.push(
      `${source} ${level === 'query' ? keys.query : keys.mergeTree}: unknown setting "${name}" on ClickHouse ${probe.version} (not in ${searched.join(', ')}${probe.server_settings ? '' : '; this version has no system.server_settings, so it may be a server setting (config.xml)'})${near ? `; did you mean "${near.name}" (${WHERE[near.level]}, ${TABLE[near.level]})?` : ''}; mark it optional if only some versions have it`,
    );
  };
  for (const [k, v] of Object.entries(req.query)) check('query', k, v);
  for (const [k, v] of Object.entries(req.mergeTree)) check('merge_tree', k, v);
  return out;
}

/**
 * ` SETTINGS k = v, …` for a CREATE TABLE, or empty. Numbers are sent as is, strings as literals
 * quoted by `sqlString` (backslashes and quotes escaped). Names are not quoted: they come from a
 * manifest or a spec and were checked against the server's setting lists.
 */
export function settingsClause(s: Record<string, string | number>): string {
  const e = Object.entries(s);
  return e.length ? ` SETTINGS ${e.map(([k, v]) => `${k} = ${sqlValue(v)}`).join(', ')}` : '';
}

/**
 * The name in `allowed` closest to `word` when it is plausibly a typo ({@link closestName}: edit
 * distance, case ignored), or one that differs from it by two adjacent letters swapped (`ZTSD` →
 * `ZSTD`, which is distance 2 and too far for a four-letter word). `undefined` when none is that close
 * or two are equally close. Pure.
 */
export function suggestName(word: string, allowed: readonly string[]): string | undefined {
  const near = closestName(word, allowed);
  if (near) return near;
  const w = word.toLowerCase();
  const swapped = allowed.filter((a) => {
    const x = a.toLowerCase();
    if (x.length !== w.length || x === w) return false;
    const diff = [...w].flatMap((ch, i) => (ch === x[i] ? [] : [i]));
    return diff.length === 2 && diff[1] === diff[0] + 1 && w[diff[0]] === x[diff[1]] && w[diff[1]] === x[diff[0]];
  });
  return swapped.length === 1 ? swapped[0] : undefined;
}

/**
 * The setting of this version whose name is closest to an unknown `name` ({@link suggestName}),
 * looked for at the level it was given at first, then at the other levels the probe read
 * (`system.settings`, `system.merge_tree_settings`, `system.server_settings`); `undefined` when none is close.
 */
export function settingSuggestion(
  probe: CapabilityProbe,
  name: string,
  level: 'query' | 'merge_tree',
): { name: string; level: 'query' | 'merge_tree' | 'server' } | undefined {
  const lists = { query: probe.query_settings, merge_tree: probe.merge_tree_settings, server: probe.server_settings };
  const order = [level, ...(['query', 'merge_tree', 'server'] as const).filter((l) => l !== level)];
  for (const l of order) {
    const near = lists[l] ? suggestName(name, lists[l]) : undefined;
    if (near) return { name: near, level: l };
  }
  return undefined;
}
