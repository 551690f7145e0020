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
import { codecKey } from '../schema/run-spec';
import { readRecordIfExists } from './store';
import { fmtBytes, fmtInt, fmtMs } from './format';
import type { VerdictEntry, VerdictsRecord } from '../schema/verdicts';

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
 * Which of them applies to a step also depends on the cells' part formats (see {@link formatChanges}).
 */
const FORMAT_CHANGING = [
  /^string_serialization_version$/,
  /^nullable_serialization_version$/,
  /^serialization_info_version$/,
  /compact_part/,
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
  /**
   * `system.settings_changes` of the newer server: the version it changed in (the latest entry in the
   * step whose previous and new values differ, else the latest entry), why, and its values there.
   */
  changedIn?: { version: string; reason: string; previous: string; new: string };
  /**
   * True when the setting is new in the step and every `system.settings_changes` entry for it in the
   * step keeps the value (`previous_value` = `new_value`): it was introduced with the older
   * behaviour as its default, so its appearance is not a change of behaviour.
   */
  introducedUnchanged?: boolean;
}

/** The defaults that differ between two servers' `defaults.json`. */
export function diffDefaults(a: ServerDefaults, b: ServerDefaults): DefaultDiff[] {
  const out: DefaultDiff[] = [];
  const between = (v: string) => compareVersions(v, a.version) > 0 && compareVersions(v, b.version) <= 0;
  const bareV = (v: string | null) => (v === null ? v : v.replace(/^'(.*)'$/, '$1'));
  const why = (level: DefaultDiff['level'], name: string, from: string | null) => {
    const cs = (b.settings_changes ?? [])
      .filter((x) => x.name === name && (x.type === 'MergeTree') === (level === 'MergeTree') && between(x.version))
      .sort((x, y) => compareVersions(x.version, y.version));
    if (!cs.length) return {};
    const real = cs.filter((x) => bareV(x.previous_value) !== bareV(x.new_value));
    const c = (real.length ? real : cs)[(real.length ? real : cs).length - 1];
    return {
      changedIn: { version: c.version, reason: c.reason, previous: c.previous_value, new: c.new_value },
      ...(from === null && !real.length ? { introducedUnchanged: true } : {}),
    };
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
      if (bareV(from) !== bareV(to)) out.push({ level, name, from, to, ...why(level, name, from) });
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
  // New with the older behaviour as its default (`system.settings_changes` keeps the value): no change of behaviour.
  if (d.introducedUnchanged) return false;
  if (d.level === 'MergeTree') return FORMAT_CHANGING.some((re) => re.test(d.name)) && d.to !== '' && d.from !== '';
  if (d.from === null || d.to === null) return NEW_SWITCHES.some((re) => re.test(d.name));
  return QUERY_RELEVANT.some((re) => re.test(d.name));
}

/**
 * Part formats of a version's cells (`storage.json` `part_types`, from `system.parts.part_type`):
 * the union over the cells, or null when a cell does not say (no storage record, or a version
 * without the column: `unknown`).
 */
export type PartFormats = Set<string> | null;

/** One figure whose meaning changed across a step, and why. */
export interface NotComparable {
  /** The figures, e.g. `compression ratio, uncompressed bytes, read_bytes and MB/s`. */
  figures: string;
  /** The default change behind it, e.g. ``MergeTree setting `string_serialization_version` = with_size_stream is new``. */
  reason: string;
}

const describeDiff = (d: DefaultDiff) =>
  d.from === null
    ? d.changedIn && !d.introducedUnchanged
      ? `MergeTree default \`${d.name}\` ${d.changedIn.previous} → ${d.changedIn.new} (changed in ${d.changedIn.version}, \`system.settings_changes\`; the older version has no such setting and writes ${d.changedIn.previous})`
      : `MergeTree setting \`${d.name}\` = ${d.to} is new${d.changedIn ? '' : ' (absent before: the older format)'}`
    : d.to === null
      ? `MergeTree setting \`${d.name}\` is gone`
      : `MergeTree default \`${d.name}\` ${d.from} → ${d.to}`;

const fmtFormats = (f: PartFormats) => (f === null ? 'unknown' : [...f].sort().join(' + ') || 'none');

/**
 * The figures whose meaning changed across a step (format-changing MergeTree defaults), given the
 * part formats the cells of each version really have:
 * - a serialization default (`string_serialization_version`, …): compression ratio, uncompressed
 *   bytes, read_bytes and MB/s (the bytes stored and read per value changed);
 * - a setting of Compact parts only (`compress_per_column_in_compact_parts`, …): only when a cell of
 *   either version has Compact parts, or its part formats are unknown;
 * - the Wide-part thresholds: only when the part formats differ between the versions (or are unknown);
 * - `index_granularity*`: marks and read_rows as well (a granule holds another number of rows).
 * `skipped` lists the format-changing defaults that do not apply to these parts, with why. Pure.
 */
export function formatChanges(
  diffs: DefaultDiff[],
  formats: { a: PartFormats; b: PartFormats } = { a: null, b: null },
): { notComparable: NotComparable[]; skipped: string[] } {
  const notComparable: NotComparable[] = [];
  const skipped: string[] = [];
  const bytes = 'compression ratio, uncompressed bytes, read_bytes and MB/s';
  const partsSay = `parts: ${fmtFormats(formats.a)} → ${fmtFormats(formats.b)}, system.parts.part_type`;
  const formatChanging = (x: DefaultDiff) =>
    x.level === 'MergeTree' && FORMAT_CHANGING.some((re) => re.test(x.name)) && x.to !== '' && x.from !== '';
  for (const d of diffs.filter(formatChanging)) {
    if (d.introducedUnchanged && d.changedIn)
      skipped.push(
        `${describeDiff(d)}: introduced in ${d.changedIn.version} with the older behaviour as its default (\`system.settings_changes\`: ${d.changedIn.previous} → ${d.changedIn.new}), so the format did not change`,
      );
    else if (/compact_part/.test(d.name)) {
      const compact = [formats.a, formats.b].some((f) => f === null || f.has('Compact'));
      if (compact) notComparable.push({ figures: bytes, reason: `${describeDiff(d)}, a setting of Compact parts (${partsSay})` });
      else skipped.push(`${describeDiff(d)}: applies to Compact parts only, and every part of these cells is Wide (${partsSay})`);
    } else if (/wide_part/.test(d.name)) {
      const same = formats.a !== null && formats.b !== null && fmtFormats(formats.a) === fmtFormats(formats.b);
      if (!same) notComparable.push({ figures: bytes, reason: `${describeDiff(d)}, the threshold between Compact and Wide parts (${partsSay})` });
      else skipped.push(`${describeDiff(d)}: the threshold between Compact and Wide parts, and both versions' parts are ${fmtFormats(formats.a)}`);
    } else if (/^index_granularity/.test(d.name))
      notComparable.push({ figures: 'marks, read_rows, read_bytes and MB/s', reason: `${describeDiff(d)} (the rows a granule holds changed)` });
    else
      notComparable.push({
        figures: bytes,
        reason: `${describeDiff(d)}${d.name === 'string_serialization_version' ? ' (String lengths in a separate size stream: the bytes stored and read per String value changed)' : ' (the bytes stored and read per value changed)'}`,
      });
  }
  return { notComparable, skipped };
}

/**
 * Why compression ratio and read_bytes are not comparable across a step, or undefined (the reasons of
 * {@link formatChanges} joined; part formats unknown).
 */
export function formatChange(diffs: DefaultDiff[], formats?: { a: PartFormats; b: PartFormats }): string | undefined {
  const f = formatChanges(diffs, formats).notComparable;
  return f.length ? f.map((x) => x.reason).join(', ') : undefined;
}

/** What a query's SQL does, as far as a default can act on it (read from the SQL text). */
export interface QueryShape {
  where: boolean;
  groupBy: boolean;
  orderBy: boolean;
  limit: boolean;
  join: boolean;
  final: boolean;
  /** An aggregate function (count, sum, min, max, avg, uniq*, quantile*). */
  aggregate: boolean;
  /** `IN (` a list or subquery. */
  inList: boolean;
  /** A LIKE / match / position filter on a string. */
  stringSearch: boolean;
  /** An OR in the query. */
  or: boolean;
  /** `arrayExists(` in the query. */
  arrayExists: boolean;
  /** The query uses the workload's skip index (workload manifest). */
  usesIndex: boolean;
}

/** The {@link QueryShape} of a query's SQL (comments dropped, case ignored). Pure. */
export function queryShape(sql: string, usesIndex = false): QueryShape {
  const q = sql.replace(/--[^\n]*/g, ' ').replace(/\s+/g, ' ').toLowerCase();
  return {
    where: /\b(where|prewhere)\b/.test(q),
    groupBy: /\bgroup by\b/.test(q),
    orderBy: /\border by\b/.test(q),
    limit: /\blimit\b/.test(q),
    join: /\bjoin\b/.test(q),
    final: /\bfinal\b/.test(q),
    aggregate: /\b(count|sum|min|max|avg|uniq\w*|quantile\w*|any)\s*\(/.test(q),
    inList: /\bin\s*\(/.test(q),
    stringSearch: /\b(like|ilike|match|position\w*|has\w*token\w*|multisearch\w*)\b/.test(q),
    or: /\bor\b/.test(q),
    arrayExists: /\barrayexists\s*\(/.test(q),
    usesIndex,
  };
}

/**
 * Rules that say which queries a differing default can act on, and what it can change there: by
 * setting name and query shape (never by query id). The first rule whose name matches decides; a
 * setting no rule names acts on no query (it is still listed in the step's table when relevant).
 */
const AFFECTS: { re: RegExp; on: (s: QueryShape) => boolean; what: string }[] = [
  { re: /^async_insert$|^wait_for_async_insert$|^max_insert_threads$|^mutations_sync$/, on: () => false, what: 'the load' },
  { re: /^explain_query_plan_default$/, on: () => false, what: 'EXPLAIN text only' },
  { re: /query_condition_cache/, on: (s) => s.where, what: 'warm runs skip the granules an earlier run of the same filter ruled out (read_rows, marks, time)' },
  { re: /^use_query_cache$|^query_cache_/, on: () => true, what: 'a repeated query answered from the query cache' },
  { re: /^compile_aggregate_expressions$|^min_count_to_compile_aggregate/, on: (s) => s.groupBy, what: 'JIT-compiled aggregation (time)' },
  { re: /^compile_sort_description$|^min_count_to_compile_sort/, on: (s) => s.orderBy, what: 'JIT-compiled sorting (time)' },
  { re: /^compile_expressions$|^min_count_to_compile_expression/, on: (s) => s.where || s.groupBy, what: 'JIT-compiled expressions (time)' },
  { re: /^use_skip_indexes_if_final/, on: (s) => s.final, what: 'skip indexes under FINAL' },
  { re: /^use_skip_indexes/, on: (s) => s.usesIndex, what: 'skip-index use (read_rows, marks)' },
  { re: /projection/, on: (s) => s.aggregate, what: 'an (implicit) projection may answer the aggregate from part metadata (read_rows, marks)' },
  { re: /^optimize_trivial_count/, on: (s) => s.aggregate && !s.where, what: 'count() from part metadata' },
  { re: /prewhere|^use_primary_key$|^force_primary_key$/, on: (s) => s.where, what: 'how the filter reads (PREWHERE, primary key: read_rows, read_bytes)' },
  { re: /^use_index_for_in_with_subqueries/, on: (s) => s.inList, what: 'primary-key use of IN' },
  { re: /join/, on: (s) => s.join, what: 'the join' },
  { re: /or_like_chain/, on: (s) => s.stringSearch && s.or, what: 'OR chains of LIKE rewritten into one multi-search' },
  { re: /array_exists/, on: (s) => s.arrayExists, what: 'arrayExists rewritten to has' },
  { re: /fuse_functions/, on: (s) => s.aggregate, what: 'sum/count/avg of one argument fused' },
  { re: /lazy_materialization/, on: (s) => s.orderBy && s.limit, what: 'lazy reading of the columns after ORDER BY … LIMIT' },
  { re: /aggregat|group_by|distinct/, on: (s) => s.groupBy || s.aggregate, what: 'the aggregation' },
  { re: /read_in_order|sort|order/, on: (s) => s.orderBy || s.groupBy, what: 'reading in order' },
  { re: /filter|condition|prewhere/, on: (s) => s.where, what: 'the filter' },
  { re: /^output_format_json_quote_64bit/, on: (s) => s.aggregate, what: 'how 64-bit results are printed (results compare values, not text)' },
  { re: /^enable_http_compression$/, on: () => true, what: 'the transport (client wall time only)' },
  { re: /^max_bytes_before_external|^max_memory_usage$/, on: (s) => s.groupBy || s.orderBy, what: 'spilling to disk' },
  { re: /analyzer|^query_plan_|^optimize_/, on: () => true, what: 'the query plan' },
  {
    re: /^max_threads$|^max_block_size$|^preferred_block_size|prefetch|^merge_tree_min_rows_for_concurrent_read|^allow_prefetched_read_pool|^use_uncompressed_cache$|^min_bytes_to_use_direct_io$|^local_filesystem_read_method$|page_cache/,
    on: () => true,
    what: 'how the data is read (time)',
  },
];

/** What a differing default can change in a query of this shape; undefined when it cannot act on it. Pure. */
export function affects(d: DefaultDiff, shape: QueryShape, flagged?: NotComparable[]): string | undefined {
  // A MergeTree default acts on every query reading the table, but only when it changed the format of these parts.
  if (d.level === 'MergeTree')
    return FORMAT_CHANGING.some((re) => re.test(d.name)) && (!flagged || flagged.some((x) => x.reason.includes(`\`${d.name}\``)))
      ? 'the stored format (read_bytes)'
      : undefined;
  const r = AFFECTS.find((x) => x.re.test(d.name));
  return r && r.on(shape) ? r.what : undefined;
}

const fmtRatio = (a: number | null | undefined, b: number | null | undefined) =>
  a !== null && a !== undefined && b !== null && b !== undefined && a > 0 ? `${(b / a).toFixed(2)}×` : 'n/a';

/** A time moved when it changed by this factor or more either way (warm runs of one cell spread ≈ 10 % here). */
export const TIME_MOVED = 1.2;
/** A count (read_rows, read_bytes, marks) moved when it changed by this factor or more either way. */
export const COUNT_MOVED = 1.05;

/** The figures of one query in one cell that the section compares (null: not reported). */
export interface QueryFigures {
  warm: number | null;
  /** Slowest warm run (the spread a warm change must leave behind to count as moved). */
  warm_max: number | null;
  cold: number | null;
  read_rows: number | null;
  read_bytes: number | null;
  /** `SelectedMarks` of the last warm run's counters (granules selected). */
  marks: number | null;
  /** `QueryConditionCacheHits` of the last warm run (null: not counted, or the version has no such cache). */
  qcc_hits: number | null;
  qcc_misses: number | null;
}

/** The {@link QueryFigures} of a query record (headline statistic `statistic`). Pure. */
export function figuresOf(q: QueryRecord, statistic: 'min' | 'median'): QueryFigures {
  const lastWarm = [...q.samples].reverse().find((s) => s.kind === 'warm');
  const counter = (k: string) => {
    const v = lastWarm?.counters?.[k];
    return v === undefined ? null : v;
  };
  return {
    warm: statistic === 'min' ? q.stats.warm_min_ms : q.stats.warm_median_ms,
    warm_max: q.stats.warm_max_ms ?? null,
    cold: q.stats.cold_ms,
    read_rows: q.stats.read_rows,
    read_bytes: q.stats.read_bytes,
    marks: counter('SelectedMarks'),
    qcc_hits: counter('QueryConditionCacheHits'),
    qcc_misses: counter('QueryConditionCacheMisses'),
  };
}

type FigureKey = 'warm' | 'cold' | 'read_rows' | 'read_bytes' | 'marks';
const FIGURES: { k: FigureKey; label: (stat: string) => string; fmt: (v: number | null) => string; time: boolean }[] = [
  { k: 'warm', label: (st) => `warm ${st}`, fmt: (v) => fmtMs(v), time: true },
  { k: 'cold', label: () => 'cold (one run)', fmt: (v) => fmtMs(v), time: true },
  { k: 'read_rows', label: () => 'read_rows', fmt: fmtInt, time: false },
  { k: 'marks', label: () => 'marks', fmt: fmtInt, time: false },
  { k: 'read_bytes', label: () => 'read_bytes', fmt: fmtBytes, time: false },
];

/**
 * Whether the warm time moved: by {@link TIME_MOVED} and out of the other cell's range of warm runs
 * (min…max), so the spread of the runs cannot make it; null when unknown.
 */
function warmMoved(a: QueryFigures, b: QueryFigures): boolean | null {
  const m = moved(a.warm, b.warm, true);
  if (!m || a.warm_max == null || b.warm_max == null) return m;
  return b.warm! > a.warm_max || b.warm_max < a.warm!;
}

const figureMoved = (k: FigureKey, a: QueryFigures, b: QueryFigures, time: boolean) =>
  k === 'warm' ? warmMoved(a, b) : moved(a[k], b[k], time);

/** Whether a figure moved from `a` to `b` ({@link TIME_MOVED}, {@link COUNT_MOVED}); null when either is unknown. */
function moved(a: number | null, b: number | null, time: boolean): boolean | null {
  if (a === null || b === null) return null;
  if (a === 0 || b === 0) return a !== b;
  const t = time ? TIME_MOVED : COUNT_MOVED;
  return b / a >= t || a / b >= t;
}

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
  /** Why compression ratio and read_bytes are not comparable across this step (the reasons of `notComparable`). */
  format?: string;
  /** The figures not comparable across this step, each with its reason. */
  notComparable: NotComparable[];
  /** Format-changing defaults that differ but do not apply to these cells' parts, with why. */
  formatSkipped: string[];
  /** Table totals per codec (header first): compression ratio in a and b, and the change or "not comparable". */
  storage: string[][];
  /** Per query: the figures that moved across the step and the defaults of the step that can act on the query (markdown). */
  explain: string[];
}

/** What the section shows, rendered by report.md ({@link versionsSection}) and report.html. */
export interface VersionsView {
  versions: string[];
  intro: string;
  steps: VersionStepView[];
  /** Per query and codec (header first): the largest version-to-version change. */
  perQuery: string[][];
  perQueryIntro: string;
  /** Shipped against pinned defaults, one table per pinned version (header first), when both ran. */
  pinned: { pin: string; intro: string; rows: string[][] }[];
}

/** The version a cell's defaults were pinned to (`settings.json` `pinned_defaults`); undefined: shipped defaults. */
export function pinOf(c: CellResult): string | undefined {
  return c.settings?.pinned_defaults?.version;
}

/**
 * The cell's place in the matrix apart from its version and defaults: codec, settings profile (as
 * in the cell key), repetition dropped. Pure.
 */
function variantOf(c: CellResult): string {
  const tail = c.cellKey
    .replace(/^v[^-]+-/, '')
    .replace(/-pin[0-9.]+/, '')
    .replace(/-r\d+$/, '');
  const ck = codecKey(c.matrix.codec);
  return tail === ck ? c.matrix.codec : tail.startsWith(`${ck}-`) ? `${c.matrix.codec} ${tail.slice(ck.length + 1)}` : c.matrix.codec;
}

/** A time verdict as the versions view words it: ratio, verdict, interval, and whether the interleaved re-run confirmed it. */
function verdictText(e: VerdictEntry): string {
  const iv = e.low !== null && e.high !== null ? ` [${e.low.toFixed(2)}, ${e.high.toFixed(2)}]` : '';
  return `${e.ratio === null ? 'n/a' : `${e.ratio.toFixed(2)}×`} ${e.verdict}${iv}${e.confirmed ? ', confirmed' : ''}`;
}

/** Whether a time verdict is a confirmed change (the only kind the view calls "moved"). */
const confirmedMove = (e: VerdictEntry | undefined) => !!e && (e.verdict === 'faster' || e.verdict === 'slower') && e.confirmed !== false;

/**
 * The section's content; undefined when the run's cells were served by fewer than two versions.
 * @param verdicts the run's `verdicts.json`: with it, a time "moved" only by a confirmed faster/slower verdict
 *   (adjacent versions, `version-step`, and the reference), and shipped against pinned is judged by verdicts;
 *   without it (runs before verdicts existed) the older rule ({@link TIME_MOVED}) applies, and says so.
 */
export function versionsView(dir: string, cells: CellResult[], statistic: 'min' | 'median', verdicts?: VerdictsRecord): VersionsView | undefined {
  /** The verdict of a query's warm or cold time from cell `a` to cell `b` (either direction of the pair). */
  const verdictOf = (a: CellResult | undefined, b: CellResult | undefined, id: string, phase: 'warm' | 'cold'): VerdictEntry | undefined =>
    a && b ? verdicts?.entries.find((e) => e.reference === a.cellKey && e.cell === b.cellKey && e.query === id && e.phase === phase) : undefined;
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
  const formatsOf = (v: string): PartFormats => {
    const out = new Set<string>();
    for (const c of served.get(v)!) {
      const t = c.storage?.part_types;
      if (!t || 'unknown' in t) return null;
      for (const [k, n] of Object.entries(t)) if (n > 0) out.add(k);
    }
    return out;
  };
  const variants = [...new Set(cells.map(variantOf))];
  const pins = [...new Set(cells.map(pinOf).filter((p): p is string => !!p))].sort(compareVersions);
  /** The cell of a version, variant and defaults (undefined pin: shipped); the first repetition. */
  const cellAt = (v: string, variant: string, pin: string | undefined) =>
    served.get(v)!.find((c) => variantOf(c) === variant && pinOf(c) === pin);
  const qAt = (v: string, variant: string, pin: string | undefined, id: string) =>
    cellAt(v, variant, pin)?.queries_baseline?.queries.find((q) => q.id === id);
  const qids = [...new Set(cells.flatMap((c) => c.queries_baseline?.queries.map((q) => q.id) ?? []))];
  const steps: VersionStepView[] = [];
  for (let i = 1; i < versions.length; i++) {
    const [a, b] = [versions[i - 1], versions[i]];
    const [da, db] = [defaultsOf(a), defaultsOf(b)];
    if (!da || !db) {
      steps.push({
        a,
        b,
        missing: `Defaults not recorded for ${!da ? a : b} (no \`defaults.json\`: results written before 0.8, or the server's tables were unreadable).`,
        relevant: [],
        other: 0,
        added: 0,
        removed: 0,
        notComparable: [],
        formatSkipped: [],
        storage: [],
        explain: [],
      });
      continue;
    }
    const diffs = diffDefaults(da, db);
    const rel = diffs.filter(isRelevant);
    const fc = formatChanges(diffs, { a: formatsOf(a), b: formatsOf(b) });
    const format = fc.notComparable.length ? fc.notComparable.map((x) => x.reason).join(', ') : undefined;
    const bytesNc = fc.notComparable.find((x) => /compression ratio/.test(x.figures));
    const rest = diffs.filter((d) => !isRelevant(d));
    const storage = [['codec', `ratio ${a}`, `ratio ${b}`, 'change']];
    for (const variant of variants) {
      const [sa, sb] = [cellAt(a, variant, undefined)?.storage, cellAt(b, variant, undefined)?.storage];
      if (!sa || !sb) continue;
      storage.push([
        variant,
        sa.ratio === null ? 'n/a' : `${sa.ratio.toFixed(2)}×`,
        sb.ratio === null ? 'n/a' : `${sb.ratio.toFixed(2)}×`,
        bytesNc ? `not comparable across ${a} → ${b} (${bytesNc.reason})` : fmtRatio(sa.ratio, sb.ratio),
      ]);
    }
    const explain: string[] = [];
    for (const id of qids) {
      const any = variants.map((vr) => qAt(b, vr, undefined, id) ?? qAt(a, vr, undefined, id)).find(Boolean);
      if (!any) continue;
      const shape = queryShape(any.sql, any.uses_index);
      const movedParts: string[] = [];
      const pinnedParts: string[] = [];
      let [qccHit, qccSeen, readMoved] = [false, false, false];
      for (const vr of variants) {
        const [qa, qb] = [qAt(a, vr, undefined, id), qAt(b, vr, undefined, id)];
        if (!qa || !qb || qa.error || qb.error) continue;
        const [fa, fb] = [figuresOf(qa, statistic), figuresOf(qb, statistic)];
        const nc = (k: FigureKey) => fc.notComparable.find((x) => x.figures.includes(k));
        const [ca, cb] = [cellAt(a, vr, undefined), cellAt(b, vr, undefined)];
        // With verdicts: a time moved only by a confirmed verdict; counts are compared exactly (COUNT_MOVED).
        const movedNow = (k: FigureKey, time: boolean) =>
          verdicts && (k === 'warm' || k === 'cold') ? confirmedMove(verdictOf(ca, cb, id, k)) : figureMoved(k, fa, fb, time);
        const ms = FIGURES.filter((f) => movedNow(f.k, f.time) && !nc(f.k)).map((f) => {
          const v = verdicts && (f.k === 'warm' || f.k === 'cold') ? verdictOf(ca, cb, id, f.k) : undefined;
          return `${f.label(statistic)} ${f.fmt(fa[f.k])} → ${f.fmt(fb[f.k])} (${v ? verdictText(v) : fmtRatio(fa[f.k], fb[f.k])})`;
        });
        if (verdicts && !ms.length) continue;
        const qcc =
          shape.where && fb.qcc_hits !== null
            ? `; query condition cache in the last warm run (QueryConditionCacheHits / Misses): ${fa.qcc_hits === null ? 'n/a (no such cache)' : `${fmtInt(fa.qcc_hits)} / ${fmtInt(fa.qcc_misses)}`} → ${fmtInt(fb.qcc_hits)} / ${fmtInt(fb.qcc_misses)}`
            : '';
        if (fb.qcc_hits !== null && fb.qcc_hits > 0) qccHit = true;
        if (fb.qcc_hits !== null) qccSeen = true;
        if (moved(fa.read_rows, fb.read_rows, false) || moved(fa.marks, fb.marks, false)) readMoved = true;
        movedParts.push(
          `${vr}: ${ms.length ? ms.join(', ') : `nothing moved (time within ${TIME_MOVED}× or within the warm runs' spread, counts within ${COUNT_MOVED}×)`}${qcc}`,
        );
        if (verdicts) {
          // Shipped against pinned, by verdicts: a change "vanishes" only when the pinned pair is shown unchanged.
          for (const pin of pins) {
            const words = (['warm', 'cold'] as const).flatMap((k) => {
              const sv = verdictOf(ca, cb, id, k);
              if (!confirmedMove(sv)) return [];
              const pv = verdictOf(cellAt(a, vr, pin), cellAt(b, vr, pin), id, k);
              if (!pv) return [`${k}: no pinned verdict`];
              const word =
                pv.verdict === 'unchanged'
                  ? 'vanishes (pinned: unchanged, shown by its interval)'
                  : confirmedMove(pv)
                    ? pv.verdict === sv!.verdict
                      ? 'stays'
                      : 'reverses'
                    : `not decided with pinned defaults (${pv.verdict})`;
              return [`${k} ${verdictText(pv)} pinned vs ${verdictText(sv!)} shipped: ${word}`];
            });
            if (words.length) pinnedParts.push(`${vr}, both pinned to ${pin}'s defaults: ${words.join(', ')}`);
          }
          continue;
        }
        for (const pin of pins) {
          const [pa, pb] = [qAt(a, vr, pin, id), qAt(b, vr, pin, id)];
          if (!pa || !pb || pa.error || pb.error) continue;
          const [ga, gb] = [figuresOf(pa, statistic), figuresOf(pb, statistic)];
          const verdicts = FIGURES.filter((f) => !nc(f.k))
            .map((f) => {
              const s = figureMoved(f.k, fa, fb, f.time);
              const p = figureMoved(f.k, ga, gb, f.time);
              if (s === null || p === null || (!s && !p)) return undefined;
              const word = s && !p ? 'vanishes' : s && p ? 'stays' : 'appears';
              return `${f.label(statistic)} ${fmtRatio(ga[f.k], gb[f.k])} pinned vs ${fmtRatio(fa[f.k], fb[f.k])} shipped: ${word}`;
            })
            .filter(Boolean);
          if (verdicts.length) pinnedParts.push(`${vr}, both pinned to ${pin}'s defaults: ${verdicts.join(', ')}`);
        }
      }
      if (!movedParts.length) continue;
      // What the counters say of a default that acts through granules read: it was not at work when they did not move.
      const idle = (d: DefaultDiff, what: string) =>
        /query_condition_cache/.test(d.name) && qccSeen && !qccHit
          ? ' — not at work here: 0 query condition cache hits in the last warm run'
          : /read_rows|marks/.test(what) && !readMoved
            ? ' — not at work here: read_rows and marks unchanged'
            : '';
      const acting = rel
        .map((d) => ({ d, what: affects(d, shape, fc.notComparable) }))
        .filter((x): x is { d: DefaultDiff; what: string } => !!x.what)
        .map(
          ({ d, what }) =>
            `\`${d.name}\` ${d.from ?? '(new)'} → ${d.to ?? '(gone)'}${d.changedIn ? ` (changed in ${d.changedIn.version})` : ''}: ${what}${idle(d, what)}`,
        );
      explain.push(
        `**${id}** ${any.title}. Moved — ${movedParts.join('; ')}. ${
          acting.length
            ? `Defaults of this step that can act on it: ${acting.join('; ')}.`
            : 'No changed default of this step is known (to chbench) to act on this query; the pinned-defaults cells test it.'
        }${pinnedParts.length ? ` Pinned: ${pinnedParts.join('; ')}${pinnedParts.some((p) => /vanishes/.test(p)) ? ' — where a change vanishes with pinned defaults (the pinned pair shown unchanged), the defaults explain it, not the engine' : ''}.` : ''}`,
      );
    }
    steps.push({
      a,
      b,
      relevant: rel.map((d) => [
        d.level,
        d.name,
        d.from ?? '—',
        d.to ?? '—',
        d.changedIn?.version ?? '',
        (d.changedIn?.reason ?? '').slice(0, 120),
      ]),
      other: rest.filter((d) => d.from !== null && d.to !== null).length,
      added: rest.filter((d) => d.from === null).length,
      removed: rest.filter((d) => d.to === null).length,
      ...(format ? { format } : {}),
      notComparable: fc.notComparable,
      formatSkipped: fc.skipped,
      storage: storage.length > 1 ? storage : [],
      explain,
    });
  }
  const perQuery = [['query', 'codec', 'largest change', `warm ${statistic}`, 'read_rows', 'marks', 'read_bytes']];
  for (const id of qids)
    for (const variant of variants) {
      let best: { s: VersionStepView; k: number; fa: QueryFigures; fb: QueryFigures } | undefined;
      for (const s of steps) {
        const [qa, qb] = [qAt(s.a, variant, undefined, id), qAt(s.b, variant, undefined, id)];
        if (!qa || !qb) continue;
        const [fa, fb] = [figuresOf(qa, statistic), figuresOf(qb, statistic)];
        if (!fa.warm || !fb.warm) continue;
        const k = Math.abs(Math.log(fb.warm / fa.warm));
        if (!best || k > best.k) best = { s, k, fa, fb };
      }
      if (!best) continue;
      const { s, fa, fb } = best;
      const cmp = (k: FigureKey, f: (v: number | null) => string) => {
        const nc = s.notComparable.find((x) => x.figures.includes(k));
        return nc ? `${f(fa[k])} → ${f(fb[k])} (not comparable across ${s.a} → ${s.b}: format changed)` : `${f(fa[k])} → ${f(fb[k])} (${fmtRatio(fa[k], fb[k])})`;
      };
      perQuery.push([
        id,
        variant,
        `${s.a} → ${s.b}`,
        `${fmtMs(fa.warm)} → ${fmtMs(fb.warm)} (${fmtRatio(fa.warm, fb.warm)})`,
        cmp('read_rows', fmtInt),
        cmp('marks', fmtInt),
        cmp('read_bytes', fmtBytes),
      ]);
    }
  const pinned: VersionsView['pinned'] = [];
  for (const pin of pins) {
    const rows = [
      ['query', 'codec', 'version', `warm ${statistic} shipped`, `pinned ${pin}`, 'cold shipped', `pinned ${pin}`, 'read_rows shipped', `pinned ${pin}`, 'marks shipped', `pinned ${pin}`, 'read_bytes shipped', `pinned ${pin}`],
    ];
    for (const id of qids)
      for (const variant of variants)
        for (const v of versions) {
          const [qs, qp] = [qAt(v, variant, undefined, id), qAt(v, variant, pin, id)];
          if (!qs || !qp) continue;
          const [fs, fp] = [figuresOf(qs, statistic), figuresOf(qp, statistic)];
          rows.push([
            id,
            variant,
            v,
            ...FIGURES.flatMap((f) => [f.fmt(fs[f.k]), f.fmt(fp[f.k])]),
          ]);
        }
    if (rows.length > 1)
      pinned.push({
        pin,
        intro: `Each version with its own (shipped) defaults and with ${pin}'s defaults pinned (\`compatibility = '${pin}'\`, sent with the load and every measured run; \`settings.json\` \`pinned_defaults\`), same codec, one beside the other. Figures as above (marks: \`SelectedMarks\` of the last warm run). Pinning a version to its own or a newer version's defaults changes nothing by design. Whether pinning made a version-to-version change vanish is said per query in each step above.`,
        rows,
      });
  }
  return {
    versions,
    intro: `Versions as served (\`SELECT version()\` at provisioning): ${versions.join(' → ')}. Defaults are each server's own (\`system.settings.default\`, \`system.merge_tree_settings\`, in the cell's \`defaults.json\`); "changed in" comes from the newer server's \`system.settings_changes\`. Listed: the defaults that can affect these queries (execution, caches, JIT, skip indexes, output format, insert path) and the MergeTree defaults that change how the workload's columns are stored; the rest are counted. Versions are compared on their shipped-defaults cells; pinned cells (\`pinDefaults\`) are compared with each other.`,
    steps,
    perQuery,
    perQueryIntro: `The adjacent pair of versions (same codec, shipped defaults) where the query's warm ${statistic} moved most, with read_rows, marks (\`SelectedMarks\`) and read_bytes of its last warm run in both (n/a: the version did not report it). Read the defaults of that step before reading the change as the engine's.`,
    pinned,
  };
}

/** Column heads of a step's table. */
export function stepHead(s: VersionStepView): string[] {
  return ['level', 'setting', s.a, s.b, 'changed in', 'reason'];
}

/** A step's closing lines: what else differs, and the not-comparable warnings. */
export function stepNotes(s: VersionStepView): { counts: string; format?: string; notComparable: string[]; skipped: string[] } {
  const notComparable = s.notComparable.map(
    (x) => `Not comparable across ${s.a} → ${s.b}: ${x.figures} — ${x.reason}; a ratio across this step mixes formats.`,
  );
  return {
    counts: `Also: ${s.other} other default(s) differ, ${s.added} setting(s) are new in ${s.b}, ${s.removed} gone.`,
    ...(s.format
      ? { format: `Not comparable across ${s.a} → ${s.b}: compression ratio and read_bytes — ${s.format} (the bytes stored and read per value changed, so a ratio across this step mixes formats).` }
      : {}),
    notComparable,
    skipped: s.formatSkipped.map((x) => `Not flagged: ${x}.`),
  };
}

/** The section's markdown lines; empty when the run's cells were served by fewer than two versions. */
export function versionsSection(dir: string, cells: CellResult[], statistic: 'min' | 'median', verdicts?: VerdictsRecord): string[] {
  const v = versionsView(dir, cells, statistic, verdicts);
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
    if (s.storage.length) out.push(`Compression ratio (table totals, \`system.parts\`):`, '', markdownTable(s.storage), '');
    for (const l of n.notComparable) out.push(`> **⚠ ${l}**`, '');
    for (const l of n.skipped) out.push(`- ${l}`);
    if (n.skipped.length) out.push('');
    if (s.explain.length)
      out.push(
        verdicts
          ? `What moved from ${s.a} to ${s.b}, per query (shipped defaults, same codec; a time only by a confirmed verdict of the Verdicts section — faster or slower, its interval, confirmed by the interleaved re-run; a count at ${COUNT_MOVED}×; queries where nothing moved are left out), and the defaults of this step that can act on it (by setting and the query's shape; "not at work here" from the runs' counters):`
          : `What moved from ${s.a} to ${s.b}, per query (shipped defaults, same codec; this run has no verdicts.json, so the older rule applies: a warm time moved at ${TIME_MOVED}× either way and outside the other cell's range of warm runs, a cold time at ${TIME_MOVED}× — no interval, no confirmation; a count at ${COUNT_MOVED}×; figures not comparable across this step are left out), and the defaults of this step that can act on it (by setting and the query's shape; "not at work here" from the runs' counters):`,
        '',
        ...s.explain.map((l) => `- ${l}`),
        '',
      );
  }
  if (v.perQuery.length > 1) out.push('### Per query: the largest version-to-version change', '', v.perQueryIntro, '', markdownTable(v.perQuery), '');
  for (const p of v.pinned) out.push(`### Shipped against pinned defaults (${p.pin})`, '', p.intro, '', markdownTable(p.rows), '');
  return out;
}
