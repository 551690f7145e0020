/**
 * The charts of `report.html`: Vega-Lite specs built from a run's records, compiled with `vega-lite`
 * and rendered to SVG by `vega` in Node at report time (no browser, no network: the page embeds the
 * SVG). Every chart carries a title, axis titles with units and a `source` sentence naming where its
 * figures come from (record file and field, and the server API behind it).
 *
 * The spec builders are pure and return `null` when the run has nothing to draw; {@link renderChart}
 * never throws: a chart that fails to compile or render comes back with its error, for the page to show.
 */
import { pathToFileURL } from 'node:url';
import type { TopLevelSpec } from 'vega-lite' with { 'resolution-mode': 'import' };
import type * as VegaModule from 'vega';
import type * as VegaLiteModule from 'vega-lite' with { 'resolution-mode': 'import' };
import type { CellResult, QueryRecord, RunSample } from '../schema/results';
import type { ComparisonRecord, Verdict } from '../schema/comparison';
import type { VerdictsRecord, VerdictValue } from '../schema/verdicts';
import type { SeriesPoint } from './db/types';
import type { SeriesChanges } from './series-changes';
import { MIN_CHANGE_POINT_RUNS } from '../measure/change-points';

/** One chart: a Vega-Lite spec plus the words the page shows around it. */
export interface Chart {
  /** Stable, HTML-id-safe name, e.g. `query-times-baseline`. */
  id: string;
  title: string;
  /** Where the figures come from, in words (record file and field, server API). */
  source: string;
  spec: TopLevelSpec;
}

/** A chart after rendering: its SVG markup, or the error that stopped it (message only). */
export type RenderedChart = Chart & ({ svg: string; error?: undefined } | { svg?: undefined; error: string });

/** A query phase: before (`baseline`) or after (`index`) the skip index was materialized. */
export type Phase = 'baseline' | 'index';

const FONT = 'sans-serif';
/** A log scale when the largest value is more than this many times the smallest. */
const LOG_ABOVE = 20;
/** Verdict colours: the same four in every comparison chart. */
const VERDICT_COLORS: Record<Verdict, string> = {
  regression: '#d62728',
  improvement: '#2ca02c',
  unchanged: '#7f7f7f',
  unstable: '#ff7f0e',
};

const base = {
  $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
  background: 'white',
  padding: 8,
  config: {
    font: FONT,
    title: { anchor: 'start', fontSize: 15, subtitleFontSize: 11, subtitleColor: '#555' },
    axis: { labelFontSize: 11, titleFontSize: 12 },
    header: { labelFontSize: 12, titleFontSize: 12 },
    legend: { labelFontSize: 11, titleFontSize: 12, orient: 'bottom', direction: 'horizontal', labelLimit: 320 },
  },
} as const;

/** The label a cell goes by in every chart: its key, plus its status when it did not succeed. */
export function cellLabel(c: CellResult): string {
  return c.status === 'succeeded' ? c.cellKey : `${c.cellKey} (${c.status})`;
}

/** The time of one run on the query's headline clock (`stats.timing_source`), ms; null when the run has none. */
export function sampleMs(q: QueryRecord, s: RunSample): number | null {
  return q.stats.timing_source === 'server-side elapsed' ? s.server_elapsed_ms : s.wall_ms;
}

/** Values grouped by a key, in first-seen order. */
function groups<T>(xs: T[], key: (x: T) => string): T[][] {
  const m = new Map<string, T[]>();
  for (const x of xs) m.set(key(x), [...(m.get(key(x)) ?? []), x]);
  return [...m.values()];
}

function wide(values: number[]): boolean {
  const pos = values.filter((v) => v > 0);
  return pos.length > 1 && Math.max(...pos) / Math.min(...pos) > LOG_ABOVE;
}

function phaseRecord(c: CellResult, phase: Phase) {
  return phase === 'baseline' ? c.queries_baseline : c.queries_index;
}

/** Names of the server-time sources and clocks the queries of a phase used, for a chart's source line. */
function clocks(cells: CellResult[], phase: Phase): string {
  const qs = cells.flatMap((c) => phaseRecord(c, phase)?.queries ?? []);
  const server = [...new Set(qs.flatMap((q) => q.stats.server_time_sources ?? []))];
  const wall = qs.some((q) => q.stats.timing_source === 'client wall time');
  const parts = [];
  if (qs.some((q) => q.stats.timing_source === 'server-side elapsed')) parts.push(`server-side elapsed (${server.join(', ') || 'n/a'})`);
  if (wall) parts.push('client wall time where a query\'s stats.timing_source says so');
  return parts.join('; ') || 'n/a';
}

/**
 * The legend symbol of the warm median in the query-times chart: a filled upright bar (an SVG path in
 * vega's unit square) drawing the tick the chart draws; vega's `stroke` shape has no area, so a filled
 * legend symbol of it showed nothing.
 */
const TICK_SYMBOL = 'M-0.2,-1H0.2V1H-0.2Z';

/**
 * Chart 1: per query, every cold and warm run per cell (warm-up runs left out), with the warm median
 * as a tick; one row per query, each with its own time axis (log when its values span more than
 * {@link LOG_ABOVE}×). Runs the validity records judged not cold / not quiet get their own colour.
 * Source: `queries-<phase>.json` samples (`server_elapsed_ms` or `wall_ms`, as `stats.timing_source`),
 * median = `stats.warm_median_ms`. `null` when no cell measured the phase.
 */
export function queryTimesChart(cells: CellResult[], phase: Phase): Chart | null {
  type Row = { query: string; cell: string; what: string; ms: number; rank: number };
  // Each query's rank in first-seen order (the order the cells ran them): the facet rows are sorted by it.
  const ranks = new Map<string, number>();
  const rows: Row[] = [];
  for (const c of cells)
    for (const q of phaseRecord(c, phase)?.queries ?? []) {
      const query = `${q.id} ${q.title}`;
      if (!ranks.has(query)) ranks.set(query, ranks.size);
      const rank = ranks.get(query)!;
      for (const s of q.samples) {
        const ms = sampleMs(q, s);
        if (s.kind === 'warmup' || ms === null || !(ms > 0)) continue;
        const what =
          s.kind === 'cold'
            ? s.validity?.cold?.valid === false
              ? 'cold run (not cold)'
              : 'cold run'
            : s.validity?.quiet.valid === false
              ? 'warm run (not quiet)'
              : 'warm run';
        rows.push({ query, cell: cellLabel(c), what, ms, rank });
      }
      if (q.stats.warm_median_ms !== null && q.stats.warm_median_ms > 0)
        rows.push({ query, cell: cellLabel(c), what: 'warm median', ms: q.stats.warm_median_ms, rank });
    }
  if (!rows.length) return null;
  const log = groups(rows, (r) => r.query).some((rs) => wide(rs.map((r) => r.ms)));
  const when = phase === 'baseline' ? 'before the skip index' : 'after the skip index';
  const title = `Query times per cell, ${when}`;
  const source = `${clocks(cells, phase)}, ms — every cold and warm run in each cell's queries-${phase}.json (warm-up runs left out); tick = warm median (stats.warm_median_ms, all warm runs); colours mark runs the validity checks judged not cold or not quiet.`;
  const domain = ['warm run', 'warm run (not quiet)', 'cold run', 'cold run (not cold)', 'warm median'];
  const x = { field: 'ms', type: 'quantitative', title: `elapsed, ms${log ? ' (log scale)' : ''}`, scale: log ? { type: 'log' } : { zero: true } };
  // Cells in matrix order and queries in the order they ran (the workload manifest's), as report.md; not alphabetical.
  const y = { field: 'cell', type: 'nominal', title: 'cell', sort: [...new Set(rows.map((r) => r.cell))] };
  const color = { field: 'what', type: 'nominal', title: 'run', scale: { domain, range: ['#1f77b4', '#9edae5', '#ff7f0e', '#8c564b', '#111111'] } };
  const spec = {
    ...base,
    title: { text: title, subtitle: `ms, ${clocks(cells, phase)}; one row per query` },
    data: { values: rows },
    facet: { row: { field: 'query', type: 'nominal', title: null, sort: { field: 'rank', op: 'min' }, header: { labelAngle: 0, labelOrient: 'top', labelAnchor: 'start', labelFontWeight: 'bold', labelLimit: 700 } } },
    resolve: { scale: { x: 'independent' } },
    spec: {
      width: 620,
      height: { step: 22 },
      layer: [
        {
          transform: [{ filter: "datum.what !== 'warm median'" }],
          mark: { type: 'point', filled: true, size: 60, opacity: 0.85 },
          encoding: { x, y, color, shape: { field: 'what', type: 'nominal', title: 'run', scale: { domain, range: ['circle', 'circle', 'triangle-up', 'triangle-up', TICK_SYMBOL] } } },
        },
        {
          transform: [{ filter: "datum.what === 'warm median'" }],
          mark: { type: 'tick', thickness: 2, size: 18 },
          encoding: { x, y, color },
        },
      ],
    },
  } as TopLevelSpec;
  return { id: `query-times-${phase}`, title, source, spec };
}

/**
 * Chart 2: per column, compressed bytes (MiB) and the compression ratio in each cell, bars grouped
 * by cell (one codec per cell). Source: `storage.json` columns, from `system.parts_columns` (active
 * parts): `column_data_compressed_bytes`, `column_data_uncompressed_bytes`. `null` without per-column sizes.
 */
export function compressionChart(cells: CellResult[]): Chart | null {
  const rows = cells.flatMap((c) =>
    (c.storage?.columns ?? []).map((col) => ({
      column: col.column,
      cell: `${cellLabel(c)} — ${c.matrix.codec}`,
      mib: col.compressed_bytes / 2 ** 20,
      ratio: col.ratio,
    })),
  );
  if (!rows.length) return null;
  const title = 'Per-column compression per codec';
  const source = 'system.parts_columns (active parts): column_data_compressed_bytes, and ratio = column_data_uncompressed_bytes / column_data_compressed_bytes — each cell\'s storage.json, one codec per cell.';
  const y = { field: 'column', type: 'nominal', title: 'column', sort: { field: 'mib', op: 'max', order: 'descending' } };
  const color = { field: 'cell', type: 'nominal', title: 'cell — codec' };
  // A log axis when the ratios are wide (a constant column compresses 1000×); bars then start at 1×.
  const ratioLog = wide(rows.map((r) => r.ratio)) && rows.every((r) => r.ratio > 0);
  const panel = (field: string, axis: string, log: boolean) => ({
    width: 330,
    height: { step: 12 },
    mark: { type: 'bar' },
    encoding: {
      y,
      yOffset: { field: 'cell', type: 'nominal' },
      x: { field, type: 'quantitative', title: axis, scale: log ? { type: 'log' } : {} },
      ...(log ? { x2: { datum: 1 } } : {}),
      color,
    },
  });
  const spec = {
    ...base,
    title: { text: title, subtitle: 'system.parts_columns, active parts' },
    data: { values: rows },
    hconcat: [panel('mib', 'compressed, MiB', false), panel('ratio', `ratio uncompressed / compressed, ×${ratioLog ? ' (log scale)' : ''}`, ratioLog)],
  } as TopLevelSpec;
  return { id: 'compression', title, source, spec };
}

/**
 * Chart 3: the skip index before/after, per cell and per query of the index phase: warm time (the
 * spec's headline statistic, ms) and read_rows (rows, log scale when wide). Source: `stats.warm_<statistic>_ms`
 * and `stats.read_rows` (last warm run) of `queries-baseline.json` (before) and `queries-index.json` (after).
 * `null` when no cell built the index.
 */
export function skipIndexChart(cells: CellResult[], statistic: 'min' | 'median'): Chart | null {
  const rows: { item: string; when: string; ms: number | null; read_rows: number | null }[] = [];
  for (const c of cells) {
    if (!c.index || !c.queries_index) continue;
    for (const qa of c.queries_index.queries) {
      const qb = c.queries_baseline?.queries.find((q) => q.id === qa.id);
      const item = `${qa.id} · ${cellLabel(c)}`;
      const stat = (q: QueryRecord | undefined) => (q ? (statistic === 'min' ? q.stats.warm_min_ms : q.stats.warm_median_ms) : null);
      rows.push({ item, when: 'before index', ms: stat(qb), read_rows: qb?.stats.read_rows ?? null });
      rows.push({ item, when: 'after index', ms: stat(qa), read_rows: qa.stats.read_rows });
    }
  }
  if (!rows.length) return null;
  const readSources = [
    ...new Set(cells.flatMap((c) => [c.queries_baseline, c.queries_index].flatMap((p) => p?.queries.flatMap((q) => q.samples.map((s) => s.read_source ?? 'not available')) ?? []))),
  ];
  const readLog = wide(rows.map((r) => r.read_rows ?? 0)) && rows.every((r) => r.read_rows === null || r.read_rows > 0);
  const title = 'Skip index: before / after';
  const source = `warm ${statistic} (stats.warm_${statistic}_ms; ${clocks(cells, 'index')}), ms, and read_rows of the last warm run (${readSources.join(' / ')}), rows — before = queries-baseline.json, after = queries-index.json (re-run once system.mutations reported MATERIALIZE INDEX done).`;
  // In matrix order, per cell the queries in the order they ran (as report.md's table), not alphabetical.
  const y = { field: 'item', type: 'nominal', title: 'query · cell', sort: [...new Set(rows.map((r) => r.item))] };
  const color = { field: 'when', type: 'nominal', title: null, scale: { domain: ['before index', 'after index'], range: ['#9467bd', '#17becf'] } };
  const panel = (field: string, axis: string, log: boolean, format: string) => {
    const x = { field, type: 'quantitative', title: axis, scale: log ? { type: 'log' } : {} };
    const yOffset = { field: 'when', type: 'nominal', sort: ['before index', 'after index'] };
    return {
      width: 300,
      height: { step: 16 },
      transform: [{ filter: `isValid(datum.${field})` }],
      layer: [
        // On a log axis a bar starts at 1 (log 0 is undefined).
        { mark: { type: 'bar' }, encoding: { y, yOffset, x, ...(log ? { x2: { datum: 1 } } : {}), color } },
        { mark: { type: 'text', align: 'left', dx: 3, fontSize: 10 }, encoding: { y, yOffset, x, text: { field, type: 'quantitative', format } } },
      ],
    };
  };
  const spec = {
    ...base,
    title: { text: title, subtitle: `warm ${statistic} and read_rows, per query and cell` },
    data: { values: rows },
    hconcat: [panel('ms', `warm ${statistic}, ms`, false, '.3~r'), panel('read_rows', `read_rows, rows${readLog ? ' (log scale)' : ''}`, readLog, ',d')],
  } as TopLevelSpec;
  return { id: 'skip-index', title, source, spec };
}

/** The query label a comparison uses: `Q5` before the index, `Q5 @index` after. */
function comparedQuery(q: { query_id: string; phase: Phase }): string {
  return `${q.query_id}${q.phase === 'index' ? ' @index' : ''}`;
}

/**
 * Chart 4: a compared run's ratio of medians (new / baseline) per query with its confidence interval
 * as an error bar, the query's threshold band (1/(1 + threshold) … 1 + threshold, the range the method calls unchanged) in grey and the final verdict as colour;
 * one panel per cell pair. Queries without a ratio are left out (the page lists them). Source: `comparison.json`.
 * `null` when no query has a ratio.
 */
export function comparisonChart(c: ComparisonRecord): Chart | null {
  const rows = c.pairs.flatMap((p) =>
    p.queries
      .filter((q) => q.ratio !== null)
      .map((q) => ({
        pair: p.pair_key,
        query: comparedQuery(q),
        ratio: q.ratio,
        lo: q.ci_low ?? q.ratio,
        hi: q.ci_high ?? q.ratio,
        band_lo: q.threshold === null ? null : 1 / (1 + q.threshold),
        band_hi: q.threshold === null ? null : 1 + q.threshold,
        verdict: q.final,
      })),
  );
  if (!rows.length) return null;
  const figures = [...new Set(c.pairs.flatMap((p) => p.queries.map((q) => (q.figure === 'server_elapsed_ms' ? 'server-side elapsed' : 'client wall time'))))];
  const title = `Comparison with baseline ${c.baseline_run_id}: ratio of medians per query`;
  const source = `comparison.json (${c.comparison_id}): ratio = median(new) / median(baseline) of the valid warm runs (${figures.join(' / ')}), error bar = its ${Math.round(c.options.confidence * 100)} % interval, grey band = 1/(1 + threshold) … 1 + threshold, the query's noise band (a ratio inside it is unchanged), colour = final verdict (after the confirming re-run). Method: ${c.method}.`;
  const x = { type: 'quantitative', title: 'ratio new / baseline (1 = no change)', scale: { zero: false } };
  const y = { field: 'query', type: 'nominal', title: 'query' };
  const verdicts = Object.keys(VERDICT_COLORS);
  const spec = {
    ...base,
    title: { text: title, subtitle: `${c.baseline_chosen_by}; verdict ${c.verdict}` },
    data: { values: rows },
    facet: { row: { field: 'pair', type: 'nominal', title: 'cell pair (baseline→new)', header: { labelAngle: 0, labelOrient: 'top', labelAnchor: 'start', labelLimit: 700 } } },
    spec: {
      width: 560,
      height: { step: 24 },
      layer: [
        {
          transform: [{ filter: 'isValid(datum.band_lo)' }],
          mark: { type: 'bar', color: '#bbbbbb', opacity: 0.45, height: { band: 0.8 } },
          encoding: { y, x: { ...x, field: 'band_lo' }, x2: { field: 'band_hi' } },
        },
        { mark: { type: 'rule', color: '#333', strokeDash: [4, 3] }, encoding: { x: { ...x, datum: 1 } } },
        {
          mark: { type: 'rule', strokeWidth: 2 },
          encoding: { y, x: { ...x, field: 'lo' }, x2: { field: 'hi' }, color: { field: 'verdict', type: 'nominal', title: 'verdict', scale: { domain: verdicts, range: verdicts.map((v) => VERDICT_COLORS[v as Verdict]) } } },
        },
        {
          mark: { type: 'point', filled: true, size: 70 },
          encoding: { y, x: { ...x, field: 'ratio' }, color: { field: 'verdict', type: 'nominal', title: 'verdict', scale: { domain: verdicts, range: verdicts.map((v) => VERDICT_COLORS[v as Verdict]) } } },
        },
      ],
    },
  } as TopLevelSpec;
  return { id: 'comparison', title, source, spec };
}

const AXIS_VERDICT_COLORS: Partial<Record<VerdictValue, string>> = {
  slower: '#d62728',
  faster: '#2ca02c',
  unchanged: '#7f7f7f',
  inconclusive: '#ff7f0e',
  larger: '#d62728',
  smaller: '#2ca02c',
};

/**
 * The matrix's verdicts (`verdicts.json`): per comparison (reference → cell) one panel, per query the warm
 * ratio new/reference with its interval as a whisker, the ±δ equivalence band in grey, colour = final verdict;
 * beside it, bytes on disk of every cell against the run's reference cell. `null` without a warm ratio.
 */
export function verdictsCharts(r: VerdictsRecord): Chart[] {
  const warm = r.entries.filter((e) => e.phase === 'warm' && e.ratio !== null && e.axis !== 'repetition');
  const out: Chart[] = [];
  const colours = (vs: string[]) => ({ domain: vs, range: vs.map((v) => AXIS_VERDICT_COLORS[v as VerdictValue] ?? '#999') });
  if (warm.length) {
    const d = r.options.equivalence;
    const rows = warm.map((e) => ({ pair: `${e.reference} → ${e.cell} (${e.axis})`, query: e.query, ratio: e.ratio, lo: e.low ?? e.ratio, hi: e.high ?? e.ratio, verdict: e.verdict }));
    const verdicts = [...new Set(rows.map((x) => x.verdict))];
    const x = { type: 'quantitative', title: 'warm time ratio cell / reference (1 = no change; lower = faster)', scale: { type: 'log' } };
    const y = { field: 'query', type: 'nominal', title: 'query' };
    const title = 'Verdicts: warm time per query against each reference';
    out.push({
      id: 'verdicts',
      title,
      source: `verdicts.json (${r.stage}): ratio of medians of the valid warm runs, whisker = its 95 % interval (the within-cell runs and the A/A control's between-start noise; a selected comparison's interval widened to the false-coverage level), grey band = ±${(d * 100).toFixed(0)} % (inside it: unchanged), colour = verdict after the interleaved re-run. Method: ${r.method}.`,
      spec: {
        ...base,
        title: { text: title, subtitle: `reference cell ${r.reference}; ${r.control ? `A/A control moved in ${r.control.moved} of ${r.control.pairs} pairs` : 'no A/A control'}` },
        data: { values: rows },
        facet: { row: { field: 'pair', type: 'nominal', title: 'reference → cell (axis)', header: { labelAngle: 0, labelOrient: 'top', labelAnchor: 'start', labelLimit: 700 } } },
        spec: {
          width: 560,
          height: { step: 22 },
          layer: [
            { mark: { type: 'rect', color: '#bbbbbb', opacity: 0.35 }, encoding: { x: { ...x, datum: 1 / (1 + d) }, x2: { datum: 1 + d } } },
            { mark: { type: 'rule', color: '#333', strokeDash: [4, 3] }, encoding: { x: { ...x, datum: 1 } } },
            { mark: { type: 'rule', strokeWidth: 2 }, encoding: { y, x: { ...x, field: 'lo' }, x2: { field: 'hi' }, color: { field: 'verdict', type: 'nominal', title: 'verdict', scale: colours(verdicts) } } },
            { mark: { type: 'point', filled: true, size: 70 }, encoding: { y, x: { ...x, field: 'ratio' }, color: { field: 'verdict', type: 'nominal', title: 'verdict', scale: colours(verdicts) } } },
          ],
        },
      } as TopLevelSpec,
    });
  }
  const disk = r.entries.filter((e) => e.phase === 'disk' && e.ratio !== null && e.reference === r.reference && e.axis !== 'repetition');
  if (disk.length) {
    const title = `Bytes on disk against ${r.reference}`;
    out.push({
      id: 'verdicts-disk',
      title,
      source: 'verdicts.json: bytes_on_disk of the active parts (system.parts, storage.json) of each cell / of the reference cell, exact (no statistics); colour = larger / smaller outside ±δ, else unchanged.',
      spec: {
        ...base,
        title,
        width: 560,
        height: { step: 22 },
        data: { values: disk.map((e) => ({ cell: e.cell, ratio: e.ratio, verdict: e.verdict })) },
        layer: [
          { mark: { type: 'bar' }, encoding: { y: { field: 'cell', type: 'nominal', sort: null, title: 'cell' }, x: { field: 'ratio', type: 'quantitative', title: 'bytes on disk cell / reference' }, color: { field: 'verdict', type: 'nominal', scale: colours([...new Set(disk.map((e) => e.verdict))]) } } },
          { mark: { type: 'rule', color: '#333', strokeDash: [4, 3] }, encoding: { x: { datum: 1, type: 'quantitative' } } },
        ],
      } as TopLevelSpec,
    });
  }
  return out;
}

/**
 * Chart 5: a scheduled series, each query's warm median across past runs (x = the run's start time),
 * one panel per cell and phase, one line per query, log scale when a panel's values are wide. Each
 * change point of `changes` (`changesOfSeries`, the detector `chbench series` uses) is a dashed
 * vertical rule at the first run after the change, labelled with its query, before → after means
 * (ms), relative change and p-value; runs that share a change in one panel share one rule.
 * Source: the results database's `series()` rows ({@link SeriesPoint}), passed in by the caller.
 * `null` for an empty series.
 */
export function seriesChart(points: SeriesPoint[], changes: SeriesChanges[] = []): Chart | null {
  const panelOf = (cell: string, phase: SeriesPoint['phase']) => `${cell} · ${phase === 'index' ? 'after the skip index' : 'before the skip index'}`;
  const rows = points
    .filter((p) => Number.isFinite(p.warm_median_ms) && p.warm_median_ms > 0)
    .map((p) => ({
      layer: 'run',
      run: p.run_id,
      started_at: p.started_at,
      panel: panelOf(p.cell_key, p.phase),
      cell: p.cell_key,
      order: p.phase === 'index' ? 1 : 0,
      query: p.query_id,
      ms: p.warm_median_ms,
    }))
    .sort((a, b) => a.cell.localeCompare(b.cell) || a.order - b.order)
    .map((r, i) => ({ ...r, rank: i }));
  if (!rows.length) return null;
  const rankOf = new Map(rows.map((r) => [r.panel, r.rank]));
  // One marker per panel and run: the change points of every query of the panel at that run.
  const markers = new Map<string, { panel: string; started_at: string; labels: string[]; right: boolean }>();
  for (const c of changes) {
    const panel = panelOf(c.cell_key, c.phase);
    if (!rankOf.has(panel)) continue;
    for (const cp of c.found.changePoints) {
      const k = `${panel}\u0000${cp.at}`;
      const m = markers.get(k) ?? { panel, started_at: cp.at, labels: [], right: cp.index > c.found.runs / 2 };
      const ms = (v: number) => (v < 10 ? v.toFixed(2) : v.toFixed(1));
      m.labels.push(`${c.query_id} ${ms(cp.meanBefore)}→${ms(cp.meanAfter)} ms (${cp.relativeChange >= 0 ? '+' : ''}${(100 * cp.relativeChange).toFixed(1)} %, p ${cp.pValue.toFixed(3)})`);
      markers.set(k, m);
    }
  }
  const marks = [...markers.values()].map((m) => ({
    layer: 'change',
    panel: m.panel,
    rank: rankOf.get(m.panel)!,
    started_at: m.started_at,
    label: `change: ${m.labels.join('; ')}`,
    side: m.right ? 'right' : 'left',
  }));
  const log = groups(rows, (r) => r.panel).some((rs) => wide(rs.map((r) => r.ms)));
  const figures = [...new Set(points.map((p) => (p.figure === 'server_elapsed_ms' ? 'server-side elapsed' : 'client wall time')))];
  const runs = new Set(rows.map((r) => r.run)).size;
  const nChanges = changes.reduce((n, c) => n + c.found.changePoints.length, 0);
  const method = changes[0]?.found.method;
  const title = `Warm median per query across ${runs} run(s)`;
  const source =
    `results database, series of past runs (warm_median_ms: median of each run's valid warm runs, ${figures.join(' / ')}), ms; x = the run's start time (UTC).` +
    (runs < MIN_CHANGE_POINT_RUNS
      ? ` Change points not tested (${runs} run${runs === 1 ? '' : 's'}; change points need at least ${MIN_CHANGE_POINT_RUNS}).`
      : method
        ? ` Dashed rules: change points (${method}), ${nChanges} found.`
        : '');
  const x = { field: 'started_at', type: 'temporal', title: 'run started (UTC)', axis: { format: '%Y-%m-%d %H:%M' }, scale: { type: 'utc' } };
  const label = (side: 'left' | 'right') => ({
    name: `change_labels_${side}`,
    transform: [{ filter: `datum.layer === 'change' && datum.side === '${side}'` }],
    // Above the plot, under the panel's header: clear of the lines.
    mark: { type: 'text', align: side, baseline: 'bottom', dx: side === 'left' ? 4 : -4, y: -3, fontSize: 10, color: '#b22222', limit: 420 },
    encoding: { x, text: { field: 'label', type: 'nominal' } },
  });
  const spec = {
    ...base,
    title: { text: title, subtitle: `ms, ${figures.join(' / ')}; one panel per cell and phase${nChanges ? '; dashed rules: change points' : ''}` },
    data: { values: [...rows, ...marks] },
    // Panels cell by cell, before the index first (not alphabetically: "after" < "before").
    facet: { row: { field: 'panel', type: 'nominal', sort: { field: 'rank', op: 'min' }, title: null, header: { labelAngle: 0, labelOrient: 'top', labelAnchor: 'start', labelFontWeight: 'bold', labelLimit: 700 } } },
    resolve: { scale: { y: 'independent' } },
    spec: {
      width: 620,
      height: 180,
      layer: [
        {
          name: 'series_lines',
          transform: [{ filter: "datum.layer === 'run'" }],
          mark: { type: 'line', point: { filled: true, size: 40 } },
          encoding: {
            x,
            y: { field: 'ms', type: 'quantitative', title: `warm median, ms${log ? ' (log scale)' : ''}`, scale: log ? { type: 'log' } : { zero: true } },
            color: { field: 'query', type: 'nominal', title: 'query' },
          },
        },
        ...(marks.length
          ? [
              {
                name: 'change_points',
                transform: [{ filter: "datum.layer === 'change'" }],
                mark: { type: 'rule', color: '#b22222', strokeDash: [5, 3], strokeWidth: 1.5 },
                encoding: { x },
              },
              label('left'),
              label('right'),
            ]
          : []),
      ],
    },
  } as TopLevelSpec;
  return { id: 'series', title, source, spec };
}

type Libs = { vega: typeof VegaModule; vl: typeof VegaLiteModule };
let libs: Promise<Libs> | undefined;

/**
 * vega and vega-lite are ES modules (vega with top-level await, which `require()` cannot load), and
 * TypeScript compiles `import()` to `require()` under `module: commonjs`; a real dynamic import keeps
 * Node's ESM loader. Resolved from this package's node_modules.
 */
function loadLibs(): Promise<Libs> {
  const esmImport = new Function('specifier', 'return import(specifier)') as (s: string) => Promise<unknown>;
  const load = (name: string) => esmImport(pathToFileURL(require.resolve(name)).href);
  libs ??= Promise.all([load('vega'), load('vega-lite')]).then(([vega, vl]) => ({ vega: vega as typeof VegaModule, vl: vl as typeof VegaLiteModule }));
  // A failed load is not cached: the next chart tries again.
  libs.catch(() => (libs = undefined));
  return libs;
}

/**
 * Compile a chart's Vega-Lite spec and render it to SVG markup with a headless vega View (no canvas,
 * text widths estimated). Never throws: any failure (loading the libraries, compiling, rendering)
 * comes back as `error`.
 */
export async function renderChart(chart: Chart): Promise<RenderedChart> {
  try {
    const { vega, vl } = await loadLibs();
    const compiled = vl.compile(chart.spec).spec;
    const view = new vega.View(vega.parse(compiled), { renderer: 'none' });
    try {
      const svg = await view.toSVG();
      if (!svg.startsWith('<svg')) throw new Error('vega returned no SVG');
      return { ...chart, svg };
    } finally {
      view.finalize();
    }
  } catch (e) {
    return { ...chart, error: e instanceof Error ? e.message : String(e) };
  }
}

/** The x axis of the grid charts: concurrent clients on a log-2 scale, ticks only at the counts measured (whole numbers). */
function clientsAxis(ticks: number[]) {
  return {
    field: 'clients',
    type: 'quantitative',
    title: 'concurrent clients',
    scale: { type: 'log', base: 2 },
    axis: { values: ticks, format: 'd' },
  } as const;
}

/**
 * Chart 6: the insert grid, per cell: rows/s (log scale when wide) against concurrent clients, one
 * line per batch size, one panel per settings profile × format. Source: each point's
 * `grids/insert-<point>.json` `summary.rowsPerS` = rows acknowledged by the server (verified against
 * `count()`) / client wall time of the point's timed loop. `null` without an insert grid.
 */
export function insertGridChart(cells: CellResult[]): Chart | null {
  const rows = cells.flatMap((c) =>
    (c.grids?.insert ?? []).map((r) => ({
      cell: cellLabel(c),
      panel: `${cellLabel(c)} · ${r.point.profile.name} · ${r.point.format}`,
      batch: `${r.point.batchSize.toLocaleString('en-US')} rows`,
      batchSize: r.point.batchSize,
      clients: r.point.concurrency,
      rows_per_s: r.summary.rowsPerS,
      verified: r.summary.verified ? 'verified' : 'NOT verified',
    })),
  );
  if (!rows.length) return null;
  const title = 'Insert grid: rows/s by batch size and concurrent clients';
  const source =
    "Each point's grids/insert-<point>.json: summary.rowsPerS = rows the server acknowledged (checked against SELECT count() of the point's own table) / client wall time of the timed loop (for async inserts, until the rows were visible). Rows were generated on the server before the loop.";
  const log = wide(rows.map((r) => r.rows_per_s)) && rows.every((r) => r.rows_per_s > 0);
  const clientTicks = [...new Set(rows.map((r) => r.clients))].sort((a, b) => a - b);
  const spec = {
    ...base,
    title: { text: title, subtitle: 'closed-loop clients, one connection each; a hollow point was not verified' },
    data: { values: rows },
    facet: { field: 'panel', type: 'nominal', title: null },
    columns: 2,
    spec: {
      width: 300,
      height: 200,
      layer: [
        {
          mark: { type: 'line', point: false },
          encoding: {
            x: clientsAxis(clientTicks),
            y: { field: 'rows_per_s', type: 'quantitative', title: `rows/s${log ? ' (log scale)' : ''}`, scale: log ? { type: 'log' } : {} },
            color: { field: 'batch', type: 'nominal', title: 'batch', sort: { field: 'batchSize' } },
          },
        },
        {
          mark: { type: 'point', size: 50 },
          encoding: {
            x: { field: 'clients', type: 'quantitative', scale: { type: 'log', base: 2 } },
            y: { field: 'rows_per_s', type: 'quantitative', scale: log ? { type: 'log' } : {} },
            color: { field: 'batch', type: 'nominal', sort: { field: 'batchSize' } },
            fill: { condition: { test: "datum.verified === 'verified'", field: 'batch', type: 'nominal' }, value: 'white' },
          },
        },
      ],
    },
  } as TopLevelSpec;
  return { id: 'insert-grid', title, source, spec };
}

/**
 * Chart 7: concurrency stepping, per cell: QPS and P99 latency against clients. Source: each step's
 * `grids/concurrency-c<clients>.json` `summary.qps` (successful queries completed in the measured
 * window / window seconds) and `summary.latencyMs.p99` (its `latencySource`: query_log
 * `query_duration_ms`, or client wall). `null` without a stepping.
 */
export function concurrencyChart(cells: CellResult[]): Chart | null {
  const rows = cells.flatMap((c) =>
    (c.grids?.concurrency ?? []).flatMap((r) => [
      { cell: cellLabel(c), clients: r.summary.clients, measure: 'QPS', value: r.summary.qps },
      ...(r.summary.latencyMs.p99 !== null
        ? [{ cell: cellLabel(c), clients: r.summary.clients, measure: `P99 latency, ms (${r.summary.latencySource})`, value: r.summary.latencyMs.p99 }]
        : []),
    ]),
  );
  if (!rows.length) return null;
  const title = 'Concurrency stepping: throughput and P99 latency by clients';
  const source =
    "Each step's grids/concurrency-c<clients>.json: QPS = successful queries completed in the measured window / window seconds; P99 of the successful queries' latency (server-side query_duration_ms from system.query_log where the server keeps it, else client wall time — the label says which).";
  const clientTicks = [...new Set(rows.map((r) => r.clients))].sort((a, b) => a - b);
  const spec = {
    ...base,
    title: { text: title, subtitle: 'closed-loop clients over the query mix; warm-up excluded' },
    data: { values: rows },
    facet: { row: { field: 'measure', type: 'nominal', title: null } },
    resolve: { scale: { y: 'independent' } },
    spec: {
      width: 420,
      height: 170,
      mark: { type: 'line', point: true },
      encoding: {
        x: clientsAxis(clientTicks),
        y: { field: 'value', type: 'quantitative', title: null },
        color: { field: 'cell', type: 'nominal', title: 'cell' },
      },
    },
  } as TopLevelSpec;
  return { id: 'concurrency', title, source, spec };
}
