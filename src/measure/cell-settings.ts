/**
 * The settings a cell will send (`settings.json`), decided at provisioning from the workload's and
 * the spec's settings checked against the server's capability probe (`checkSettings`,
 * src/clickhouse/settings.ts: `system.settings`, `system.merge_tree_settings`, `system.server_settings`).
 */
import { checkSettings } from '../clickhouse/settings';
import type { WorkloadManifest } from '../lib/workload';
import type { CellInput } from '../schema/cell';
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
