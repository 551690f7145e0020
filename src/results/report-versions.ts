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

/** The section's markdown lines; empty when the run's cells were served by fewer than two versions. */
export function versionsSection(dir: string, cells: CellResult[], statistic: 'min' | 'median'): string[] {
  const served = new Map<string, CellResult[]>();
  for (const c of cells) {
    const v = c.provision?.server.version;
    if (v) served.set(v, [...(served.get(v) ?? []), c]);
  }
  const versions = [...served.keys()].sort(compareVersions);
  if (versions.length < 2) return [];
  const defaultsOf = new Map<string, ServerDefaults | undefined>();
  for (const v of versions)
    defaultsOf.set(
      v,
      served
        .get(v)!
        .map((c) => readRecordIfExists(path.join(dir, 'cells', c.cellKey, 'defaults.json'), ServerDefaults))
        .find(Boolean),
    );
  const out: string[] = ['## What differs between these versions', ''];
  out.push(
    `Versions as served (\`SELECT version()\` at provisioning): ${versions.join(' → ')}. Defaults are each server's own (\`system.settings.default\`, \`system.merge_tree_settings\`, in the cell's \`defaults.json\`); "changed in" comes from the newer server's \`system.settings_changes\`. Listed: the defaults that can affect these queries (execution, caches, JIT, skip indexes, output format, insert path) and every MergeTree default that changes the stored format; the rest are counted.`,
    '',
  );
  const steps: { a: string; b: string; format?: string }[] = [];
  for (let i = 1; i < versions.length; i++) {
    const [a, b] = [versions[i - 1], versions[i]];
    const [da, db] = [defaultsOf.get(a), defaultsOf.get(b)];
    out.push(`### ${a} → ${b}`, '');
    if (!da || !db) {
      out.push(`Defaults not recorded for ${!da ? a : b} (no \`defaults.json\`: results written before 0.8, or the server's tables were unreadable).`, '');
      steps.push({ a, b });
      continue;
    }
    const diffs = diffDefaults(da, db);
    const rel = diffs.filter(isRelevant);
    const format = formatChange(diffs);
    steps.push({ a, b, ...(format ? { format } : {}) });
    if (rel.length)
      out.push(
        markdownTable([
          ['level', 'setting', a, b, 'changed in', 'reason'],
          ...rel.map((d) => [d.level, d.name, d.from ?? '—', d.to ?? '—', d.changedIn?.version ?? '', (d.changedIn?.reason ?? '').slice(0, 120)]),
        ]),
        '',
      );
    else out.push('No default that can affect these queries differs.', '');
    const added = diffs.filter((d) => d.from === null).length;
    const removed = diffs.filter((d) => d.to === null).length;
    out.push(`Also: ${diffs.length - rel.length - added - removed} other default(s) differ, ${added} setting(s) are new in ${b}, ${removed} gone.`, '');
    if (format) out.push(`> **Not comparable across ${a} → ${b}: compression ratio and read_bytes** — ${format} (the bytes stored and read per value changed, so a ratio across this step mixes formats).`, '');
  }
  // Per query and codec: the largest step-to-step change in the headline time.
  const codecs = [...new Set(cells.map((c) => c.matrix.codec))];
  const rows = [['query', 'codec', 'largest change', `warm ${statistic}`, 'read_rows', 'read_bytes']];
  const qids = [...new Set(cells.flatMap((c) => c.queries_baseline?.queries.map((q) => q.id) ?? []))];
  for (const id of qids)
    for (const codec of codecs) {
      const at = (v: string): QueryRecord | undefined =>
        served.get(v)!.find((c) => c.matrix.codec === codec)?.queries_baseline?.queries.find((q) => q.id === id);
      let best: { s: (typeof steps)[number]; k: number; qa: QueryRecord; qb: QueryRecord } | undefined;
      for (const s of steps) {
        const [qa, qb] = [at(s.a), at(s.b)];
        const ta = statistic === 'min' ? qa?.stats.warm_min_ms : qa?.stats.warm_median_ms;
        const tb = statistic === 'min' ? qb?.stats.warm_min_ms : qb?.stats.warm_median_ms;
        if (!qa || !qb || !ta || !tb) continue;
        const k = Math.abs(Math.log(tb / ta));
        if (!best || k > best.k) best = { s, k, qa, qb };
      }
      if (!best) continue;
      const { s, qa, qb } = best;
      const t = (q: QueryRecord) => (statistic === 'min' ? q.stats.warm_min_ms : q.stats.warm_median_ms);
      const rr = (q: QueryRecord) => (q.stats.read_rows === null ? 'n/a' : fmtInt(q.stats.read_rows));
      const rb = (q: QueryRecord) => (q.stats.read_bytes === null ? 'n/a' : fmtBytes(q.stats.read_bytes));
      rows.push([
        id,
        codec,
        `${s.a} → ${s.b}`,
        `${fmtMs(t(qa))} → ${fmtMs(t(qb))} (${fmtRatio(t(qa), t(qb))})`,
        `${rr(qa)} → ${rr(qb)} (${fmtRatio(qa.stats.read_rows, qb.stats.read_rows)})`,
        s.format ? `${rb(qa)} → ${rb(qb)} (not comparable: format changed)` : `${rb(qa)} → ${rb(qb)} (${fmtRatio(qa.stats.read_bytes, qb.stats.read_bytes)})`,
      ]);
    }
  if (rows.length > 1) {
    out.push('### Per query: the largest version-to-version change', '');
    out.push(
      `The adjacent pair of versions (same codec) where the query's warm ${statistic} moved most, with read_rows and read_bytes of its last warm run in both (n/a: the version did not report it). Read the defaults above for that step before reading the change as the engine's.`,
      '',
      markdownTable(rows),
      '',
    );
  }
  return out;
}
