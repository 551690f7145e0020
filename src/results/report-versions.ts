/**
 * The report's "What differs between these versions" section, for a matrix over several ClickHouse
 * versions: per pair of adjacent versions (as served, `provision.json` `server.version`), the
 * defaults that differ and can affect the workload's queries (each server's own
 * `system.settings` / `system.merge_tree_settings` defaults, `defaults.json`; the version a default
 * changed in from the newer server's `system.settings_changes`), the figures whose meaning changed
 * across that step (storage format, byte accounting), and per query the largest version-to-version
 * change in time and in read_rows / read_bytes.
 */
import path from 'node:path';
import markdownTable from 'markdown-table';
import { ServerDefaults, type CellResult, type QueryRecord } from '../schema/results';
import { compareVersions } from '../schema/version';
import { readRecordIfExists } from './store';
import { fmtBytes, fmtInt, fmtMs } from './format';

/**
 * Query settings whose defaults can change what the workload's queries do or how they are timed
 * (by name pattern). Every other differing default is counted, not listed.
 */
const QUERY_RELEVANT = [
  /analyzer/,
  /query_condition_cache/,
  /^use_query_cache$|^query_cache_/,
  /^compile_expressions$|^min_count_to_compile/,
  /^use_skip_indexes/,
  /^optimize_/,
  /^max_threads$|^max_insert_threads$|^max_block_size$|^preferred_block_size/,
  /^async_insert$|^wait_for_async_insert$/,
  /^output_format_json_quote_64bit/,
  /^enable_http_compression$/,
  /^use_uncompressed_cache$|^min_bytes_to_use_direct_io$|^local_filesystem_read_method$/,
  /^read_in_order|^query_plan_/,
  /^allow_prefetched_read_pool|^merge_tree_min_rows_for_concurrent_read|^filesystem_prefetch/,
  /^use_page_cache|^page_cache_/,
  /^explain_query_plan_default$/,
  /^mutations_sync$/,
  /^max_bytes_before_external|^max_memory_usage$/,
  /^use_primary_key$|^force_primary_key$|^use_index_for_in_with_subqueries/,
];

/**
 * MergeTree settings whose change alters the on-disk format of the workload's column types or what
 * a byte read means: compression ratio and read_bytes are not comparable across such a step.
 * (Object / Dynamic / Map / text-index serializations are left out: the workloads have no such columns.)
 */
const FORMAT_CHANGING = [
  /^string_serialization_version$/,
  /^nullable_serialization_version$/,
  /^serialization_info_version$/,
  /^compress_per_column_in_compact_parts$/,
  /^min_bytes_for_wide_part$|^min_rows_for_wide_part$/,
  /^index_granularity/,
  /^ratio_of_defaults_for_sparse_serialization$/,
];

/** Query settings NEW in a version that switch on a behaviour by default (a new cache, a new plan step, a new output shape). */
const NEW_SWITCHES = [
  /^use_query_condition_cache$/,
  /^use_page_cache/,
  /^explain_query_plan_default$/,
  /^use_skip_indexes/,
  /^query_plan_optimize_lazy_materialization$/,
  /^optimize_use_projection_filtering$/,
  /^use_primary_key$/,
];

/** One default that differs between two adjacent versions. */
export interface DefaultDiff {
  level: 'query' | 'MergeTree';
  name: string;
  /** Value in the older version; null = the setting does not exist there. */
  from: string | null;
  to: string | null;
  /** `system.settings_changes` of the newer server: the version it changed in and why. */
  changedIn?: { version: string; reason: string };
}

/** The defaults that differ between two servers' `defaults.json`. */
export function diffDefaults(a: ServerDefaults, b: ServerDefaults): DefaultDiff[] {
  const out: DefaultDiff[] = [];
  const between = (v: string) => compareVersions(v, a.version) > 0 && compareVersions(v, b.version) <= 0;
  const why = (level: DefaultDiff['level'], name: string) => {
    const c = b.settings_changes?.find(
      (x) => x.name === name && (x.type === 'MergeTree') === (level === 'MergeTree') && between(x.version),
    );
    return c ? { changedIn: { version: c.version, reason: c.reason } } : {};
  };
  for (const [level, x, y] of [
    ['query', a.settings, b.settings],
    ['MergeTree', a.merge_tree_settings, b.merge_tree_settings],
  ] as const) {
    if (!x || !y) continue;
    for (const name of [...new Set([...Object.keys(x), ...Object.keys(y)])].sort()) {
      const from = x[name] ?? null;
      const to = y[name] ?? null;
      // Some versions print string defaults quoted ('auto(2)' vs auto(2)): compare the values.
      const bare = (v: string | null) => (v === null ? v : v.replace(/^'(.*)'$/, '$1'));
      if (bare(from) !== bare(to)) out.push({ level, name, from, to, ...why(level, name) });
    }
  }
  return out;
}

/**
 * Whether a differing default can affect the workload's queries: query settings by name, every
 * MergeTree setting that changes the stored format. A setting that exists in one version only
 * counts too (a new cache or serialization switched on by default is a change of behaviour).
 */
export function isRelevant(d: DefaultDiff): boolean {
  if (d.level === 'MergeTree') return FORMAT_CHANGING.some((re) => re.test(d.name)) && d.to !== '' && d.from !== '';
  if (d.from === null || d.to === null) return NEW_SWITCHES.some((re) => re.test(d.name));
  return QUERY_RELEVANT.some((re) => re.test(d.name));
}

/** Why compression ratio and read_bytes are not comparable across a step (format-changing MergeTree defaults), or undefined. */
export function formatChange(diffs: DefaultDiff[]): string | undefined {
  const f = diffs.filter((d) => d.level === 'MergeTree' && isRelevant(d));
  return f.length
    ? f
        .map((d) =>
          d.from === null
            ? `MergeTree setting \`${d.name}\` = ${d.to} is new (absent before: the older format)`
            : d.to === null
              ? `MergeTree setting \`${d.name}\` is gone`
              : `MergeTree default \`${d.name}\` ${d.from} → ${d.to}`,
        )
        .join(', ')
    : undefined;
}

const fmtRatio = (a: number | null | undefined, b: number | null | undefined) =>
  a && b && a > 0 ? `${(b / a).toFixed(2)}×` : 'n/a';

/** One adjacent pair of versions in the section. */
export interface VersionStepView {
  a: string;
  b: string;
  /** Set when a cell of either version has no `defaults.json`. */
  missing?: string;
  /** The relevant differing defaults (rows: level, setting, value in a, value in b, changed in, reason). */
  relevant: string[][];
  other: number;
  added: number;
  removed: number;
  /** Why compression ratio and read_bytes are not comparable across this step. */
  format?: string;
}

/** What the section shows, rendered by report.md ({@link versionsSection}) and report.html. */
export interface VersionsView {
  versions: string[];
  intro: string;
  steps: VersionStepView[];
  /** Per query and codec (header first): the largest version-to-version change. */
  perQuery: string[][];
  perQueryIntro: string;
}

/** The section's content; undefined when the run's cells were served by fewer than two versions. */
export function versionsView(dir: string, cells: CellResult[], statistic: 'min' | 'median'): VersionsView | undefined {
  const served = new Map<string, CellResult[]>();
  for (const c of cells) {
    const v = c.provision?.server.version;
    if (v) served.set(v, [...(served.get(v) ?? []), c]);
  }
  const versions = [...served.keys()].sort(compareVersions);
  if (versions.length < 2) return undefined;
  const defaultsOf = (v: string) =>
    served
      .get(v)!
      .map((c) => readRecordIfExists(path.join(dir, 'cells', c.cellKey, 'defaults.json'), ServerDefaults))
      .find(Boolean);
  const steps: VersionStepView[] = [];
  for (let i = 1; i < versions.length; i++) {
    const [a, b] = [versions[i - 1], versions[i]];
    const [da, db] = [defaultsOf(a), defaultsOf(b)];
    if (!da || !db) {
      steps.push({ a, b, missing: `Defaults not recorded for ${!da ? a : b} (no \`defaults.json\`: results written before 0.8, or the server's tables were unreadable).`, relevant: [], other: 0, added: 0, removed: 0 });
      continue;
    }
    const diffs = diffDefaults(da, db);
    const rel = diffs.filter(isRelevant);
    const format = formatChange(diffs);
    const rest = diffs.filter((d) => !isRelevant(d));
    steps.push({
      a,
      b,
      relevant: rel.map((d) => [d.level, d.name, d.from ?? '—', d.to ?? '—', d.changedIn?.version ?? '', (d.changedIn?.reason ?? '').slice(0, 120)]),
      other: rest.filter((d) => d.from !== null && d.to !== null).length,
      added: rest.filter((d) => d.from === null).length,
      removed: rest.filter((d) => d.to === null).length,
      ...(format ? { format } : {}),
    });
  }
  const codecs = [...new Set(cells.map((c) => c.matrix.codec))];
  const perQuery = [['query', 'codec', 'largest change', `warm ${statistic}`, 'read_rows', 'read_bytes']];
  const qids = [...new Set(cells.flatMap((c) => c.queries_baseline?.queries.map((q) => q.id) ?? []))];
  const t = (q: QueryRecord | undefined) => (statistic === 'min' ? q?.stats.warm_min_ms : q?.stats.warm_median_ms);
  for (const id of qids)
    for (const codec of codecs) {
      const at = (v: string): QueryRecord | undefined =>
        served.get(v)!.find((c) => c.matrix.codec === codec)?.queries_baseline?.queries.find((q) => q.id === id);
      let best: { s: VersionStepView; k: number; qa: QueryRecord; qb: QueryRecord } | undefined;
      for (const s of steps) {
        const [qa, qb] = [at(s.a), at(s.b)];
        const [ta, tb] = [t(qa), t(qb)];
        if (!qa || !qb || !ta || !tb) continue;
        const k = Math.abs(Math.log(tb / ta));
        if (!best || k > best.k) best = { s, k, qa, qb };
      }
      if (!best) continue;
      const { s, qa, qb } = best;
      const rr = (q: QueryRecord) => (q.stats.read_rows === null ? 'n/a' : fmtInt(q.stats.read_rows));
      const rb = (q: QueryRecord) => (q.stats.read_bytes === null ? 'n/a' : fmtBytes(q.stats.read_bytes));
      perQuery.push([
        id,
        codec,
        `${s.a} → ${s.b}`,
        `${fmtMs(t(qa))} → ${fmtMs(t(qb))} (${fmtRatio(t(qa), t(qb))})`,
        `${rr(qa)} → ${rr(qb)} (${fmtRatio(qa.stats.read_rows, qb.stats.read_rows)})`,
        s.format ? `${rb(qa)} → ${rb(qb)} (not comparable: format changed)` : `${rb(qa)} → ${rb(qb)} (${fmtRatio(qa.stats.read_bytes, qb.stats.read_bytes)})`,
      ]);
    }
  return {
    versions,
    intro: `Versions as served (\`SELECT version()\` at provisioning): ${versions.join(' → ')}. Defaults are each server's own (\`system.settings.default\`, \`system.merge_tree_settings\`, in the cell's \`defaults.json\`); "changed in" comes from the newer server's \`system.settings_changes\`. Listed: the defaults that can affect these queries (execution, caches, JIT, skip indexes, output format, insert path) and the MergeTree defaults that change how the workload's columns are stored; the rest are counted.`,
    steps,
    perQuery,
    perQueryIntro: `The adjacent pair of versions (same codec) where the query's warm ${statistic} moved most, with read_rows and read_bytes of its last warm run in both (n/a: the version did not report it). Read the defaults of that step before reading the change as the engine's.`,
  };
}

/** Column heads of a step's table. */
export function stepHead(s: VersionStepView): string[] {
  return ['level', 'setting', s.a, s.b, 'changed in', 'reason'];
}

/** A step's closing lines: what else differs, and the not-comparable warning. */
export function stepNotes(s: VersionStepView): { counts: string; format?: string } {
  return {
    counts: `Also: ${s.other} other default(s) differ, ${s.added} setting(s) are new in ${s.b}, ${s.removed} gone.`,
    ...(s.format
      ? { format: `Not comparable across ${s.a} → ${s.b}: compression ratio and read_bytes — ${s.format} (the bytes stored and read per value changed, so a ratio across this step mixes formats).` }
      : {}),
  };
}

/** The section's markdown lines; empty when the run's cells were served by fewer than two versions. */
export function versionsSection(dir: string, cells: CellResult[], statistic: 'min' | 'median'): string[] {
  const v = versionsView(dir, cells, statistic);
  if (!v) return [];
  const out: string[] = ['## What differs between these versions', '', v.intro, ''];
  for (const s of v.steps) {
    out.push(`### ${s.a} → ${s.b}`, '');
    if (s.missing) {
      out.push(s.missing, '');
      continue;
    }
    out.push(s.relevant.length ? markdownTable([stepHead(s), ...s.relevant]) : 'No default that can affect these queries differs.', '');
    const n = stepNotes(s);
    out.push(n.counts, '');
    if (n.format) out.push(`> **⚠ ${n.format}**`, '');
  }
  if (v.perQuery.length > 1) out.push('### Per query: the largest version-to-version change', '', v.perQueryIntro, '', markdownTable(v.perQuery), '');
  return out;
}
