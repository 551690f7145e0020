/**
 * Each engine build's setting names, known without starting it: `src/engine/settings-catalog.json`,
 * captured from every build chbench serves (`system.settings` and `system.merge_tree_settings` of
 * chdb 1.4.1 … chdb-core 26.9.0 and the npm chdb; `scripts/capture-settings-catalog.py`). The spec
 * check ({@link settingsCatalogProblems}) refuses a query or MergeTree setting that a version of the
 * matrix lacks before any cell runs — the provision-time probe would refuse it later, on that cell.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../config';
import type { RunSpec } from '../../schema/run-spec';
import { resolveLabel } from './index';

/** The packed catalog: per name a bit mask over `versions` (bit i: `versions[i]` has it). */
interface PackedCatalog {
  versions: string[];
  sources: Record<string, string>;
  settings: Record<string, number>;
  merge_tree_settings: Record<string, number>;
}

/** One build's names. */
export interface BuildSettings {
  /** Full ClickHouse version (`version()`), e.g. `24.8.4.1`. */
  clickhouse: string;
  /** Where the names were read: `pypi chdb==3.1.2`, `npm chdb@3.4.0`. */
  source: string;
  settings: ReadonlySet<string>;
  mergeTree: ReadonlySet<string>;
}

let cache: Map<string, BuildSettings> | undefined;

/** Every build of the catalog, by full ClickHouse version. @throws Error when the file is missing or does not parse. */
export function settingsCatalog(): Map<string, BuildSettings> {
  if (cache) return cache;
  const file = path.join(REPO_ROOT, 'src', 'engine', 'settings-catalog.json');
  const c = JSON.parse(readFileSync(file, 'utf8')) as PackedCatalog;
  const of = (t: Record<string, number>, i: number) => new Set(Object.keys(t).filter((n) => (t[n]! / 2 ** i) % 2 >= 1));
  cache = new Map(
    c.versions.map((v, i) => [
      v,
      {
        clickhouse: v,
        source: c.sources[v] ?? 'unknown',
        settings: of(c.settings, i),
        mergeTree: of(c.merge_tree_settings, i),
      },
    ]),
  );
  return cache;
}

/** The catalog's names nearest to `name` (same words in another order, or a small edit), for the message. */
function nearest(name: string, names: ReadonlySet<string>): string | undefined {
  const words = (s: string) => s.split('_').sort().join('_');
  for (const n of names) if (words(n) === words(name)) return n;
  let best: { n: string; d: number } | undefined;
  for (const n of names) {
    if (Math.abs(n.length - name.length) > 3) continue;
    const d = editDistance(n, name);
    if (d <= 3 && (!best || d < best.d)) best = { n, d };
  }
  return best?.n;
}

function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j]!;
      prev[j] = Math.min(up + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length]!;
}

/**
 * Settings of the spec that a version of its matrix lacks, one problem per setting (naming every version
 * without it), from the catalog: `settings.query` and each profile's `query` against `system.settings`,
 * `settings.mergeTree` and each profile's `mergeTree` against `system.merge_tree_settings`. Names in
 * `settings.optional` are skipped (a cell records them as not applied); labels whose build the catalog
 * does not hold (binaries, images, URLs: their version is read back at provision) are not checked.
 * @param more other places with settings (the workload's `tableSettings`, the insert grid's profiles)
 * @returns problems as `validate` prints them (empty when every version has every setting)
 */
export function settingsCatalogProblems(
  spec: RunSpec,
  more: {
    where: string;
    query?: Record<string, unknown>;
    mergeTree?: Record<string, unknown>;
    /** Names this place lets a version lack (a workload's `optionalSettings`). */
    optional?: string[];
  }[] = [],
): string[] {
  const builds = spec.matrix.version.flatMap((label) => {
    const r = resolveLabel(spec.target, label);
    const b = r.ok && r.resolution.clickhouse ? settingsCatalog().get(r.resolution.clickhouse) : undefined;
    return b ? [{ label, build: b }] : [];
  });
  if (!builds.length) return [];
  const optional = new Set(spec.settings.optional);
  const wanted: { where: string; name: string; level: 'query' | 'mergeTree' }[] = [];
  const add = (where: string, level: 'query' | 'mergeTree', o: Record<string, unknown>, also: string[] = []) => {
    for (const name of Object.keys(o))
      if (!optional.has(name) && !also.includes(name)) wanted.push({ where, name, level });
  };
  add('settings.query', 'query', spec.settings.query);
  add('settings.mergeTree', 'mergeTree', spec.settings.mergeTree);
  for (const p of spec.matrix.settings ?? []) {
    add(`matrix.settings profile "${p.name}" query`, 'query', p.query);
    add(`matrix.settings profile "${p.name}" mergeTree`, 'mergeTree', p.mergeTree);
  }
  for (const m of more) {
    add(`${m.where} query`, 'query', m.query ?? {}, m.optional);
    add(`${m.where} mergeTree`, 'mergeTree', m.mergeTree ?? {}, m.optional);
  }
  const problems: string[] = [];
  for (const w of wanted) {
    const lacking = builds.filter((b) => !(w.level === 'query' ? b.build.settings : b.build.mergeTree).has(w.name));
    if (!lacking.length) continue;
    const table = w.level === 'query' ? 'system.settings' : 'system.merge_tree_settings';
    const everywhere = lacking.length === builds.length;
    const near = nearest(w.name, w.level === 'query' ? lacking[0]!.build.settings : lacking[0]!.build.mergeTree);
    const which = lacking.map((b) => `${b.label} (ClickHouse ${b.build.clickhouse}, ${b.build.source})`).join(', ');
    problems.push(
      everywhere
        ? `${w.where}: ${w.name} is not a setting of any version of this matrix (absent from ${table} of ${which})${near ? `; did you mean ${near}?` : ''}`
        : `${w.where}: ${w.name} is not a setting of ${which} — absent from its ${table}${near ? ` (nearest there: ${near})` : ''}; list it in settings.optional to run without it on ${lacking.length === 1 ? 'that version' : 'those versions'}`,
    );
  }
  return problems;
}
