/**
 * Render `report.html` for a run: one self-contained page (inline CSS, charts as inline SVG rendered
 * at report time by `charts.ts`, no script and no external resource) with the headline facts of
 * `report.md` — run, status, cells, validity summary, the sources of the figures — and the charts:
 * query times per cell (before and after the skip index), per-column compression, the skip index
 * before/after, the comparison with a baseline (`comparison.json` in the run folder, when present)
 * and a scheduled series (passed in by the caller from the results database). Under the charts,
 * collapsed in `<details>`, report.md's Ingest, Queries, Compression, Per-column and Skip index
 * tables, built by the same row functions (`report.ts`), queries and cells in report.md's order.
 *
 * Reads the run folder as `report.md` does (`loadRun` in `report.ts`: `run.json` and each cell's
 * `result.json`, parsed with `src/schema/results.ts`). Every text put into the page is escaped.
 */
import path from 'node:path';
import { existsSync } from 'node:fs';
import { readRecord } from './store';
import { stepHead, stepNotes, versionsView } from './report-versions';
import {
  CELL_ERROR_CHARS,
  comparedQueries,
  compressionRows,
  fmtBytes,
  fmtInt,
  fmtMs,
  indexVerdict,
  ingestRows,
  loadRun,
  perColumnRows,
  queryRows,
  retries,
  skipIndexRows,
  validitySummary,
} from './report';
import { lateStartWarning, shortenAtWord, startPhrase } from './format';
import { environmentRows, settingsFlag, settingsNotAppliedLines, hostWideFlags, measuredSomething, noIndexReason, runStatusText, validityBanner, type IndexSettingsSpec } from './report-cells';
import {
  cellLabel,
  comparisonChart,
  compressionChart,
  concurrencyChart,
  insertGridChart,
  queryTimesChart,
  renderChart,
  seriesChart,
  skipIndexChart,
  type Chart,
} from './charts';
import { ComparisonRecord } from '../schema/comparison';
import type { CellResult, RunRecord } from '../schema/results';
import type { RunSpec } from '../schema/run-spec';
import { ConcurrencyGridSpec } from '../schema/grids';
import {
  concurrencyNotes,
  concurrencyTable,
  insertGridNotes,
  insertGridTable,
  profileLines,
  steppingOutcome,
} from './report-grids';
import type { SeriesPoint } from './db/types';
import { busyFlags, busyHeadline, busyNotes, hasHosts, hostColumn, hostLossNotes, hostsOf, hostsTable } from './report-hosts';

/** What the caller may add to the run folder's own records. */
export interface HtmlReportExtras {
  /** A scheduled series: each query's warm median across past runs (the results database's `series()`), oldest first. */
  series?: SeriesPoint[];
}

/** Escape text for HTML element content and double- or single-quoted attribute values (`& < > " '`). */
export function escapeHtml(s: unknown): string {
  return String(s).replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** Tagged template: every interpolated value is escaped unless it is {@link Raw} (markup built here). */
class Raw {
  constructor(readonly html: string) {}
  toString(): string {
    return this.html;
  }
}
function h(strings: TemplateStringsArray, ...values: unknown[]): Raw {
  let out = strings[0];
  values.forEach((v, i) => {
    const part = Array.isArray(v) ? v.map((x) => (x instanceof Raw ? x.html : escapeHtml(x))).join('') : v instanceof Raw ? v.html : escapeHtml(v ?? '');
    out += part + strings[i + 1];
  });
  return new Raw(out);
}

/**
 * One chart as a `<figure>`: its title, the SVG and a caption naming the source of its figures; or,
 * when the chart could not be rendered, a visible note with the error in the same place. Never throws.
 */
export async function chartFigure(chart: Chart): Promise<string> {
  const r = await renderChart(chart);
  if (r.error !== undefined)
    return h`<figure class="chart failed" id="chart-${chart.id}" data-chart="${chart.id}"><h3>${chart.title}</h3><p class="note">⚠ This chart could not be rendered: ${r.error}. The figures are in report.md and the run's records.</p><figcaption>Source: ${chart.source}</figcaption></figure>`.html;
  // The SVG is vega's own output (it escapes the text it draws) and carries the chart's title; it is embedded as markup.
  return h`<figure class="chart" id="chart-${chart.id}" data-chart="${chart.id}"><div class="svg">${new Raw(r.svg)}</div><figcaption>Source: ${chart.source}</figcaption></figure>`.html;
}

/** A table from a header row and body rows; cells are escaped. */
function table(head: string[], rows: (string | Raw)[][]): Raw {
  return h`<table><thead><tr>${head.map((x) => h`<th>${x}</th>`)}</tr></thead><tbody>${rows.map((r) => h`<tr>${r.map((x) => h`<td>${x}</td>`)}</tr>`)}</tbody></table>`;
}

/**
 * One of report.md's tables (`rows`: header row first, as the row builders of `report.ts` return it),
 * collapsed under a summary: `<details><summary>…</summary><table>…</table></details>`. Nothing when
 * the table has no body row.
 */
function detailsTable(summary: string, rows: string[][]): Raw {
  const [head, ...body] = plain(rows);
  if (!head || !body.length) return h``;
  return h`<details class="table"><summary>${summary}</summary>${table(head, body)}</details>`;
}

function note(text: string): Raw {
  return h`<p class="note">${text}</p>`;
}

/** Notes under a table, as report.md has them (nothing when there is none). */
function notesList(notes: string[]): Raw {
  return notes.length ? h`<ul class="notes">${notes.map((n) => h`<li>${n}</li>`)}</ul>` : h``;
}

/** Table cells written for report.md, without its `**bold**` marks. */
function plain(rows: string[][]): string[][] {
  return rows.map((r) => r.map((x) => x.replace(/\*\*/g, '')));
}

/**
 * The load grids: per cell the stepping's table with its knee, the insert grid's table, and their
 * charts (empty when the spec has no grids). Tables and wording as in report.md (`report-grids.ts`).
 */
async function gridsHtml(
  spec: RunSpec,
  cells: CellResult[],
  figures: (charts: (Chart | null)[], none: string) => Promise<Raw>,
): Promise<Raw> {
  if (!spec.grids) return h``;
  const out: Raw[] = [];
  if (spec.grids.concurrency) {
    const g = ConcurrencyGridSpec.parse(spec.grids.concurrency);
    const parts: Raw[] = [];
    for (const c of cells.filter((x) => x.grids?.concurrency.length)) {
      const t = concurrencyTable(c.grids!.concurrency);
      const o = steppingOutcome(c.grids!.concurrency, g);
      parts.push(
        h`<h3>${cellLabel(c)}</h3>${table(t.head, plain(t.rows))}${notesList(concurrencyNotes(c))}<p>Knee: <strong>${o.knee.clients === null ? 'none within the steps run' : `${o.knee.clients} client${o.knee.clients === 1 ? '' : 's'}`}</strong> — ${o.knee.reason}. Stepping ended: ${o.stopReason}.</p>`,
      );
    }
    out.push(
      h`<section id="concurrency"><h2>Concurrency stepping</h2>${await figures([concurrencyChart(cells.slice(0, MAX_CHART_CELLS))], 'No cell measured a concurrency step.')}${parts}</section>`,
    );
  }
  if (spec.grids.insert) {
    const parts: Raw[] = [];
    for (const c of cells.filter((x) => x.grids?.insert.length)) {
      const t = insertGridTable(c.grids!.insert);
      parts.push(h`<h3>${cellLabel(c)}</h3>${table(t.head, plain(t.rows))}${notesList(insertGridNotes(c, spec))}`);
    }
    out.push(
      h`<section id="insert-grid"><h2>Insert grid</h2>${await figures([insertGridChart(cells.slice(0, MAX_CHART_CELLS))], 'No cell measured an insert point.')}${parts}</section>`,
    );
  }
  return h`${out}`;
}

/** The validity headline, worded as in report.md (`validityBanner`: only of what was measured). `cells`: every cell with a result; `missing`: cells without one. */
function validityBlock(cells: CellResult[], missing: string[], spec?: IndexSettingsSpec): Raw {
  const ok = cells.filter(measuredSomething);
  const v = validitySummary(ok, spec);
  const b = validityBanner(cells, missing, v, comparedQueries(ok).length);
  const incomplete = cells.flatMap((c) => [c.queries_baseline, c.queries_index].filter((p) => p?.incomplete).map((p) => `${c.cellKey} ${p!.phase}: ${p!.incomplete}`));
  const out: Raw[] = [];
  if (incomplete.length) out.push(h`<p class="warn"><strong>Query steps stopped before every query was measured</strong> — ${incomplete.join('; ')}. The figures shown are the queries that finished.</p>`);
  out.push(b.head ? h`<p class="${b.level}"><strong>${b.head}</strong> — ${b.text}</p>` : h`<p class="${b.level}">${b.text}</p>`);
  for (const c of ok.filter((x) => x.index && x.queries_index)) {
    const iv = indexVerdict(c, spec);
    if (iv.off) out.push(h`<p class="ok">Skip index in ${cellLabel(c)}: ${iv.off} (turned off on purpose: no speed-up, not invalid).</p>`);
    else if (iv.verified !== true) out.push(h`<p class="${iv.verified === false ? 'warn' : 'unknown'}">Skip index in ${cellLabel(c)}: ${iv.verified === false ? 'not verified or not effective' : iv.notUnderstood.length ? 'not verifiable: EXPLAIN not understood' : 'not verifiable'} — ${iv.reasons.join('; ') || 'no proof recorded'}.</p>`);
  }
  return h`${out}`;
}

/** Where the figures come from, per kind of figure, from the records themselves. */
function sources(run: RunRecord, cells: CellResult[]): Raw {
  const qs = cells.flatMap((c) => [c.queries_baseline, c.queries_index].flatMap((p) => p?.queries ?? []));
  const uniq = (xs: (string | null | undefined)[]) => [...new Set(xs.filter((x): x is string => !!x))];
  const timing = uniq(qs.map((q) => q.stats.timing_source));
  const server = uniq(qs.flatMap((q) => q.stats.server_time_sources ?? []));
  const read = uniq(qs.flatMap((q) => q.samples.map((s) => s.read_source ?? 'not available')));
  const idx = cells.find((c) => c.index)?.index;
  const p = run.spec.protocol;
  const items: Raw[] = [
    h`<li><strong>Query times</strong>: ${timing.join(' / ') || 'n/a'}; server-side elapsed from ${server.join(' / ') || 'n/a'}. ${p.coldRuns} cold + ${p.warmupRuns ?? 0} unmeasured warm-up + ${p.warmRuns} warm run(s) per query; headline warm statistic: ${p.statistic}.</li>`,
    h`<li><strong>read_rows</strong>: last warm run, from ${read.join(' / ') || 'n/a'}.</li>`,
    h`<li><strong>Compression</strong>: system.parts and system.parts_columns (active parts).</li>`,
  ];
  if (idx) items.push(h`<li><strong>Skip index</strong>: size from ${idx.index_bytes_source}; materialization: ${idx.materialize_ms_source}.</li>`);
  items.push(h`<li><strong>Server facts</strong>: SELECT version(), system.asynchronous_metrics (CPUs, memory) or the worker host where the server has none.</li>`);
  return h`<ul class="sources">${items}</ul>`;
}

function cellsTable(cells: CellResult[], missing: string[]): Raw {
  const withHosts = hasHosts(cells);
  // As report.md: an error too long for the table is shortened at a word boundary, in full below it.
  const fullErrors: Raw[] = [];
  const rows: (string | Raw)[][] = cells.map((c) => {
    const pv = c.provision;
    const err = c.status === 'failed' && c.error ? shortenAtWord(c.error, CELL_ERROR_CHARS) : null;
    if (err?.cut) fullErrors.push(h`<li>${c.cellKey}: ${c.error!.replace(/\s+/g, ' ').trim()}</li>`);
    const why = err ? `: ${err.text}${err.cut ? ` [error ${fullErrors.length}]` : ''}` : c.status === 'skipped' && c.skip_reason ? `: ${c.skip_reason}` : '';
    return [
      c.cellKey,
      h`<span class="status-${c.status}">${c.status}</span>${why}${settingsFlag(c)}`,
      c.matrix.codec,
      pv?.server.version ?? 'n/a',
      pv ? `${pv.server.cpus ?? 'n/a'} / ${fmtBytes(pv.server.memory_bytes)}` : 'n/a',
      ...(withHosts ? [hostColumn(c)] : []),
      c.load ? `${fmtInt(c.load.rows_in_table)} rows in ${fmtMs(c.load.elapsed_ms)}` : 'n/a',
      c.storage ? `${fmtBytes(c.storage.compressed_bytes)} (${c.storage.ratio === null ? 'n/a' : `${c.storage.ratio.toFixed(2)}×`})` : 'n/a',
      retries(c),
    ];
  });
  for (const k of missing) rows.push([k, 'no result (not run yet, or the run was interrupted)', '', '', '', ...(withHosts ? [''] : []), '', '', '']);
  const t = table(['cell', 'status', 'codec', 'server version', 'CPUs / memory', ...(withHosts ? ['host'] : []), 'load', 'compressed (ratio)', 'retries'], rows);
  return fullErrors.length ? h`${t}<p>Errors in full (as in the cell's <code>result.json</code> <code>error</code>):</p><ol class="errors">${fullErrors}</ol>` : t;
}

/** The hosts section (as report.md's, `report-hosts.ts`); nothing when no cell records its host. */
function hostsHtml(cells: CellResult[]): Raw {
  if (!hasHosts(cells)) return h``;
  const t = hostsTable(hostsOf(cells));
  const losses = hostLossNotes(cells);
  return h`<section id="hosts"><h2>Hosts</h2><p>The host whose worker ran each cell's steps, with its facts as the provision step recorded them on the host (os.hostname(), os.cpus(), os.totalmem(), os.type() and os.release()).</p>${table(t.head, t.rows)}${losses.length ? h`<p>Hosts lost during a cell:</p>${notesList(losses)}` : ''}</section>`;
}

/** Cells whose host ran something else at the time (`busyFlags`): a note on their figures, with each reason. */
function hostBusyBlock(cells: CellResult[], concurrency: number): Raw {
  const flags = busyFlags(cells, concurrency);
  const line = busyHeadline(flags);
  if (!line) return h``;
  return h`<div class="unknown"><p><strong>⚠ Host busy</strong> — ${line}</p>${notesList(busyNotes(flags))}</div>`;
}

/** Host-wide figures that differ a lot between cells (`hostWideFlags`), as report.md flags them. */
function hostWideBlock(cells: CellResult[]): Raw {
  const flags = hostWideFlags(cells);
  return flags.length ? h`<div class="unknown">${notesList(flags.map((f) => `⚠ ${f.text}.`))}</div>` : h``;
}

/** The environment table (`environmentRows`, as report.md's). */
function envTable(run: RunRecord, cells: CellResult[]): Raw {
  const [head, ...rows] = environmentRows(run, cells);
  return table(head, rows);
}

/** "What differs between these versions" (as report.md's, `report-versions.ts`), for a matrix over several served versions. */
function versionsHtml(dir: string, cells: CellResult[], statistic: 'min' | 'median'): Raw {
  const v = versionsView(dir, cells, statistic);
  if (!v) return h``;
  const steps = v.steps.map((s) => {
    if (s.missing) return h`<h3>${s.a} → ${s.b}</h3>${note(s.missing)}`;
    const n = stepNotes(s);
    const plain = (t: string) => t.replace(/`|\*\*/g, '');
    const [sh, ...sr] = s.storage;
    return h`<h3>${s.a} → ${s.b}</h3>${s.relevant.length ? table(stepHead(s), s.relevant) : note('No default that can affect these queries differs.')}<p>${n.counts}</p>${sr.length ? table(sh, sr) : ''}${n.notComparable.map((l) => h`<p class="warn">⚠ ${plain(l)}</p>`)}${n.skipped.length ? notesList(n.skipped.map(plain)) : ''}${s.explain.length ? h`<p>What moved from ${s.a} to ${s.b}, per query, and the defaults of this step that can act on it:</p>${notesList(s.explain.map(plain))}` : ''}`;
  });
  const [head, ...rows] = v.perQuery;
  const pinned = v.pinned.map((p) => {
    const [ph, ...pr] = p.rows;
    return h`<h3>Shipped against pinned defaults (${p.pin})</h3><p>${p.intro.replace(/`/g, '')}</p>${table(ph, pr)}`;
  });
  return h`<section id="versions"><h2>What differs between these versions</h2><p>${v.intro.replace(/`/g, '')}</p>${steps}${rows.length ? h`<h3>Per query: the largest version-to-version change</h3><p>${v.perQueryIntro.replace(/`/g, '')}</p>${table(head, rows)}` : ''}${pinned}</section>`;
}

/** The comparison section: its facts, the queries without a ratio, and the chart. */
async function comparisonSection(dir: string): Promise<Raw> {
  const file = path.join(dir, 'comparison.json');
  if (!existsSync(file)) return h``;
  let c: ComparisonRecord;
  try {
    c = readRecord(file, ComparisonRecord);
  } catch (e) {
    return h`<section id="comparison"><h2>Comparison with a baseline</h2>${note(`⚠ comparison.json could not be read: ${(e as Error).message}`)}</section>`;
  }
  const noRatio = c.pairs.flatMap((p) => p.queries.filter((q) => q.ratio === null).map((q) => `${q.query_id}${q.phase === 'index' ? ' @index' : ''} in ${p.pair_key}: ${q.reason}`));
  const chart = comparisonChart(c);
  return h`<section id="comparison"><h2>Comparison with a baseline</h2>
<p>Baseline run <strong>${c.baseline_run_id}</strong> (${c.baseline_chosen_by}); verdict <strong class="verdict-${c.verdict}">${c.verdict}</strong>. Flagged by the first pass: ${c.flagged.join(', ') || 'none'}; confirmed by the re-run: ${c.confirmed.join(', ') || 'none'}.${c.confirm_error ? ` The confirming re-run could not be done: ${c.confirm_error}.` : ''}</p>
${c.unpaired.length ? note(`Unpaired cells: ${c.unpaired.map((u) => `${u.cell} (${u.reason})`).join('; ')}.`) : ''}
${noRatio.length ? note(`No ratio: ${noRatio.join('; ')}.`) : ''}
${chart ? new Raw(await chartFigure(chart)) : note('No query has a ratio to chart.')}
</section>`;
}

const CSS = `
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:1100px;padding:1rem 1.5rem 3rem;color:#1a1a1a;line-height:1.45}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{margin-top:2rem;border-bottom:1px solid #ddd;padding-bottom:.2rem}h3{font-size:1rem;margin:.2rem 0 .4rem}
table{border-collapse:collapse;font-size:.9rem;margin:.5rem 0}th,td{border:1px solid #ddd;padding:.25rem .5rem;text-align:left;vertical-align:top}th{background:#f4f4f4}
.warn{background:#fdecea;border-left:4px solid #d62728;padding:.4rem .7rem}.unknown{background:#fff6e5;border-left:4px solid #ff7f0e;padding:.4rem .7rem}.ok{background:#eaf6ea;border-left:4px solid #2ca02c;padding:.4rem .7rem}
.note{color:#444;font-style:italic}.chart.failed .note{color:#a00;font-style:normal;font-weight:bold}
figure.chart{margin:1.2rem 0;padding:.6rem;border:1px solid #e3e3e3;border-radius:4px}figure .svg{overflow-x:auto}figure svg{display:block}
details.table{margin:.6rem 0}details.table summary{cursor:pointer;font-weight:600}
figcaption{font-size:.85rem;color:#555;margin-top:.3rem}.status-succeeded{color:#2ca02c}.status-failed{color:#d62728}
.verdict-regression{color:#d62728}.verdict-improvement{color:#2ca02c}.verdict-unstable{color:#ff7f0e}
`;

/**
 * Render the HTML report for a run directory.
 * @param dir the run's results folder (`results/<runId>/`).
 * @param extras optional series of past runs for the series chart.
 * @returns the whole page (UTF-8 HTML, no external resources).
 * @throws Error naming the file and field when `run.json` or a `result.json` does not parse (as `renderReport`);
 *   a chart that fails to render, or a `comparison.json` that does not parse, becomes a note in the page instead.
 */
/** The most cells a chart of report.html draws (the first ones, in matrix order). */
export const MAX_CHART_CELLS = 40;

export async function renderHtmlReport(dir: string, extras: HtmlReportExtras = {}): Promise<string> {
  const { run, cells, missing } = loadRun(dir);
  const spec = run.spec;
  // As in report.md: every cell that measured something is shown, whatever its final status.
  const measured = cells.filter((c) => c.load || c.storage || c.queries_baseline);
  // A chart of hundreds of cells is unreadable and costs hundreds of MB to render: the charts draw the
  // first MAX_CHART_CELLS in matrix order, the tables (here and in report.md) list every cell.
  const ok = measured.slice(0, MAX_CHART_CELLS);
  const chartNote =
    measured.length > ok.length
      ? note(`The charts show the first ${ok.length} of ${measured.length} measured cells (matrix order); every cell is in the tables and in report.md.`)
      : h``;
  const figures = async (charts: (Chart | null)[], none: string): Promise<Raw> => {
    const present = charts.filter((c): c is Chart => c !== null);
    if (!present.length) return note(none);
    const out: Raw[] = [];
    for (const c of present) out.push(new Raw(await chartFigure(c)));
    return h`${out}`;
  };
  const series = extras.series;
  const body = h`<header><h1>chbench report — ${run.runId}</h1>
<p>Workload <strong>${spec.workload}</strong>, ${fmtInt(spec.scale)} rows, target <strong>${spec.target.kind}</strong>; ${spec.protocol.coldRuns} cold + ${spec.protocol.warmRuns} warm run(s) per query, headline warm statistic <strong>${spec.protocol.statistic}</strong>.</p>
<p>${startPhrase(run)}${run.resumes.length ? `, resumed ${run.resumes.join(', ')}` : ''}${run.finishedAt ? `, finished ${run.finishedAt}` : ''}; run status <strong>${runStatusText(run, cells, missing) ?? 'not recorded (not finished)'}</strong>; ${cells.filter((c) => c.status === 'succeeded').length} of ${cells.length + missing.length} cell(s) succeeded.</p>
${lateStartWarning(run) ? h`<p><strong>⚠ ${lateStartWarning(run)}</strong></p>` : ''}${validityBlock(cells, missing, spec)}${hostBusyBlock(cells, spec.concurrency)}${hostWideBlock(measured)}</header>
<section id="cells"><h2>Cells</h2>${cellsTable(cells, missing)}${settingsNotAppliedLines(cells).length ? h`<p><strong>⚠ Table settings not applied</strong> — declared for the cell, but not on its table:</p>${notesList(settingsNotAppliedLines(cells))}` : ''}${profileLines(spec).length ? h`<p>Settings profiles (matrix.settings, over the spec's settings):</p>${notesList(profileLines(spec).map((l) => l.replace(/`/g, '')))}` : ''}</section>
${hostsHtml(cells)}
<section id="sources"><h2>Sources of the figures</h2>${sources(run, ok)}</section>
<section id="ingest"><h2>Ingest</h2>${detailsTable('Ingest table (as in report.md): rows by count(), client wall and server elapsed of the INSERT, from load.json', ingestRows(measured))}</section>
<section id="queries"><h2>Query times</h2>${chartNote}${await figures([queryTimesChart(ok, 'baseline'), queryTimesChart(ok, 'index')], 'No query run was measured.')}${detailsTable(`Queries table (as in report.md): cold, warm ${spec.protocol.statistic} and ${spec.protocol.statistic === 'min' ? 'median' : 'min'}, read_rows of the last warm run, before the skip index`, queryRows(measured, spec.protocol))}</section>
<section id="compression"><h2>Compression</h2>${await figures([compressionChart(ok)], 'No cell recorded per-column sizes.')}${detailsTable('Compression table (as in report.md): table totals from system.parts (active parts)', compressionRows(measured))}${detailsTable('Per-column compression table (as in report.md): from system.parts_columns (active parts)', perColumnRows(measured.filter((c) => c.storage)))}</section>
<section id="skip-index"><h2>Skip index</h2>${await figures([skipIndexChart(ok, spec.protocol.statistic)], noIndexReason(cells, spec.skipIndex))}${detailsTable(`Skip index before / after table (as in report.md): warm ${spec.protocol.statistic}, read_rows and read_bytes, index size and materialization`, skipIndexRows(measured, spec))}</section>
${versionsHtml(dir, measured, spec.protocol.statistic)}
${await gridsHtml(spec, cells, figures)}
${await comparisonSection(dir)}
${series ? h`<section id="series"><h2>Series of past runs</h2>${await figures([seriesChart(series)], 'The series has no point to draw.')}</section>` : ''}
<section id="environment"><h2>Environment</h2><p>chbench ${run.chbench.version}, commit ${run.chbench.commit ?? 'unknown (not run from a git checkout)'}; matrix workflow id ${run.runId}${run.scheduleId ? `, started by schedule ${run.scheduleId}` : ''}. Sources as in report.md's Environment section.</p>${envTable(run, cells)}</section>
<footer><p class="note">Every table (the main ones are under their charts above) and every sample: report.md and cells/&lt;cell&gt;/*.json beside this page.</p></footer>`;
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(`chbench report — ${run.runId}`)}</title>
<style>${CSS}</style></head>
<body>
${body.html}
</body></html>
`;
}
