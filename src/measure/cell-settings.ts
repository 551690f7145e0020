/**
 * The settings a cell will send (`settings.json`), decided at provisioning from the workload's and
 * the spec's settings checked against the server's capability probe (`checkSettings`,
 * src/clickhouse/settings.ts: `system.settings`, `system.merge_tree_settings`, `system.server_settings`).
 */
import { ApplicationFailure } from '@temporalio/common';
import { checkSettings } from '../clickhouse/settings';
import type { WorkloadManifest } from '../lib/workload';
import type { CellInput } from '../schema/cell';
import { FAILURE } from '../schema/failures';
import type { InsertPoint } from '../schema/grids';
import type { CapabilityProbe, CellSettings } from '../schema/results';

/**
 * Check the workload's and the spec's settings (and the insert grid's profiles) against a probe, and
 * add `compatibility` for a cell that pins another version's defaults (`pinDefaults`; a version
 * without that setting is a problem, so is `pinDefaults` beside a `compatibility` of the spec's). Pure.
 * @returns `settings.json`: per statement kind (`load`, `runs`, `table`) what is sent, what is not
 *   applied and why, and every `problems` line (the caller refuses the cell when there is one).
 */
export function resolveCellSettings(cell: CellInput, m: WorkloadManifest, probe: CapabilityProbe): CellSettings {
  const spec = cell.settings ?? { query: {}, mergeTree: {}, optional: [] };
  const wl = checkSettings(
    { query: m.loadSettings, mergeTree: m.tableSettings, optional: m.optionalSettings },
    probe,
    `workload ${m.name}`,
    { query: 'loadSettings', mergeTree: 'tableSettings' },
  );
  const sp = checkSettings(
    { query: spec.query, mergeTree: spec.mergeTree, optional: spec.optional },
    probe,
    // A profile's settings are merged into the cell's: say where a refused one may come from.
    cell.profile ? `spec (settings, or matrix.settings profile "${cell.profile}")` : 'spec',
  );
  // The insert grid's profiles are checked here too, so a setting this version lacks stops the cell before loading.
  const grid = (cell.grids?.insert?.settings ?? []).flatMap(
    (p, i) =>
      checkSettings({ query: p.query, mergeTree: p.mergeTree, optional: spec.optional }, probe, `profile "${p.name}"`, {
        query: `grids.insert.settings[${i}].query`,
        mergeTree: `grids.insert.settings[${i}].mergeTree`,
      }).problems,
  );
  // pinDefaults: another version's defaults through `compatibility`, where this version has that setting.
  const pin: Record<string, string> = {};
  const pinProblems: string[] = [];
  if (cell.pinDefaults) {
    if (probe.query_settings === null || probe.query_settings.includes('compatibility'))
      pin.compatibility = cell.pinDefaults;
    else
      pinProblems.push(
        `spec pinDefaults: ClickHouse ${probe.version} has no "compatibility" setting (system.settings), so this cell cannot run with ${cell.pinDefaults}'s defaults`,
      );
    if ('compatibility' in spec.query)
      pinProblems.push(
        `spec pinDefaults ${cell.pinDefaults} and settings.query compatibility = ${spec.query.compatibility}: give one of them`,
      );
  }
  return {
    load: { ...wl.applied.query, ...sp.applied.query, ...pin },
    runs: { ...sp.applied.query, ...pin },
    table: { ...wl.applied.mergeTree, ...sp.applied.mergeTree },
    not_applied: { ...wl.not_applied, ...sp.not_applied },
    problems: [...wl.problems, ...sp.problems, ...grid, ...pinProblems],
    ...(pin.compatibility
      ? { pinned_defaults: { version: pin.compatibility, setting: `compatibility = '${pin.compatibility}'` } }
      : {}),
  };
}

/**
 * The refusal of settings with problems, before anything is loaded (`provision`) or inserted (an insert
 * point). Pure.
 * @returns ApplicationFailure `InvalidSetting` (non-retryable) listing every problem line, one per
 *   line; undefined when `problems` is empty.
 */
export function settingsRefused(
  problems: readonly string[],
  before: 'loading' | 'inserting',
): ApplicationFailure | undefined {
  if (!problems.length) return undefined;
  return ApplicationFailure.create({
    type: FAILURE.InvalidSetting,
    nonRetryable: true,
    message: `settings refused before ${before}:\n  - ${problems.join('\n  - ')}`,
  });
}

/** The settings an insert point sends ({@link insertPointSettings}). */
export interface InsertPointSettings {
  /** MergeTree settings of the point's table: the cell's `settings.json` `table`, then the profile's `mergeTree`. */
  table: Record<string, string | number>;
  /** Query settings of every INSERT: the cell's `settings.json` `runs`, then the profile's `query`. */
  insert: Record<string, string | number>;
  /** Optional names of the profile this version lacks (name → why), as `checkSettings` words it. */
  not_applied: Record<string, string>;
}

/**
 * An insert point's settings: its profile's settings checked at their level against the server's
 * capability probe (`system.settings`, `system.merge_tree_settings`), names the spec marks optional
 * (`settings.optional`) recorded as not applied on a version that lacks them, laid over the cell's
 * `settings.json`. Pure.
 * @throws ApplicationFailure `InvalidSetting` (non-retryable) naming the point's profile and each
 *   setting that is unknown on the server or at the wrong level.
 */
export function insertPointSettings(
  point: InsertPoint,
  optional: string[],
  probe: CapabilityProbe,
  cell: CellSettings,
): InsertPointSettings {
  const { query, mergeTree } = point.profile;
  const checked = checkSettings(
    { query, mergeTree, optional },
    probe,
    `insert point ${point.key}: settings profile "${point.profile.name}"`,
    { query: 'query', mergeTree: 'mergeTree' },
  );
  const refused = settingsRefused(checked.problems, 'inserting');
  if (refused) throw refused;
  return {
    table: { ...cell.table, ...checked.applied.mergeTree },
    insert: { ...cell.runs, ...checked.applied.query },
    not_applied: checked.not_applied,
  };
}
