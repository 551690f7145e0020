/**
 * Render `report.html` for a run: one self-contained page (inline CSS, charts as inline SVG rendered
 * at report time by `charts.ts`, no script and no external resource) with the headline facts of
 * `report.md` — run, status, cells, validity summary, the sources of the figures — and the charts:
 * query times per cell (before and after the skip index), per-column compression, the skip index
 * before/after, the comparison with a baseline (`comparison.json` in the run folder, when present)
 * and a scheduled series (passed in by the caller from the results database). Every section of
 * report.md is on the page with the same figures and sources (most built once as `Block`s,
 * `sections/blocks.ts`), its tables collapsed in `<details>` by the same row functions, queries and
 * cells in report.md's order. The page walks the report's ordered list of sections
 * (`sections/index.ts`, `REPORT_SECTIONS`), as report.md does.
 *
 * Reads the run folder as `report.md` does (`buildContext` in `sections/section.ts`: `run.json`, each
 * cell's `result.json`, parsed with `src/schema/results.ts`, and `comparison.json`). Every text put into
 * the page is escaped.
 */
import { escapeHtml } from './html';
import { buildContext, htmlSections } from './sections';
import type { SeriesPoint } from './db/types';

export { chartFigure, escapeHtml } from './html';
export { MAX_CHART_CELLS } from './sections';

/** What the caller may add to the run folder's own records. */
export interface HtmlReportExtras {
  /** A scheduled series: each query's warm median across past runs (the results database's `series()`), oldest first. */
  series?: SeriesPoint[];
}

const CSS = `
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:1100px;padding:1rem 1.5rem 3rem;color:#1a1a1a;line-height:1.45}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{margin-top:2rem;border-bottom:1px solid #ddd;padding-bottom:.2rem}h3{font-size:1rem;margin:.2rem 0 .4rem}
table{border-collapse:collapse;font-size:.9rem;margin:.5rem 0;display:block;max-width:100%;overflow-x:auto}blockquote{margin:.6rem 0;padding:.1rem .8rem;border-left:4px solid #ff7f0e;background:#fff6e5}pre{overflow-x:auto;background:#f6f6f6;padding:.4rem}th,td{border:1px solid #ddd;padding:.25rem .5rem;text-align:left;vertical-align:top}th{background:#f4f4f4}td:first-child{white-space:nowrap}
.warn{background:#fdecea;border-left:4px solid #d62728;padding:.4rem .7rem}.unknown{background:#fff6e5;border-left:4px solid #ff7f0e;padding:.4rem .7rem}.ok{background:#eaf6ea;border-left:4px solid #2ca02c;padding:.4rem .7rem}
.note{color:#444;font-style:italic}.chart.failed .note{color:#a00;font-style:normal;font-weight:bold}
figure.chart{margin:1.2rem 0;padding:.6rem;border:1px solid #e3e3e3;border-radius:4px}figure .svg{overflow-x:auto}figure svg{display:block}
details.table{margin:.6rem 0}details.table summary{cursor:pointer;font-weight:600}
figcaption{font-size:.85rem;color:#555;margin-top:.3rem}.status-succeeded{color:#2ca02c}.status-failed{color:#d62728}
.verdict-regression{color:#d62728}.verdict-improvement{color:#2ca02c}.verdict-unstable{color:#ff7f0e}
`;

/**
 * Render the HTML report for a run directory: every section of `REPORT_SECTIONS` with html, in the
 * page's order (`htmlSections`), each on its own line of the page (empty when it does not apply).
 * @param dir the run's results folder (`results/<runId>/`).
 * @param extras optional series of past runs for the series chart.
 * @returns the whole page (UTF-8 HTML, no external resources).
 * @throws Error naming the file and field when `run.json` or a `result.json` does not parse (as `renderReport`);
 *   a chart that fails to render, or a `comparison.json` that does not parse, becomes a note in the page instead.
 */
export async function renderHtmlReport(dir: string, extras: HtmlReportExtras = {}): Promise<string> {
  const ctx = buildContext(dir, extras);
  const parts: string[] = [];
  for (const s of htmlSections()) parts.push(s.applies(ctx) ? (await s.html!(ctx)).html : '');
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(`chbench report — ${ctx.run.runId}`)}</title>
<style>${CSS}</style></head>
<body>
${parts.join('\n')}
</body></html>
`;
}
