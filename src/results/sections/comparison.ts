/**
 * The comparison with a baseline (`comparison.json` in the run folder): on report.md its facts, method
 * and per-pair tables (`report-comparison.ts`), on report.html its facts, the queries without a ratio
 * and the chart; a `comparison.json` that does not parse is a note on report.html (and in report.md's head).
 */
import { chartFigure, h, note, Raw } from '../html';
import { comparisonChart } from '../charts';
import { comparisonSection } from '../report-comparison';
import type { ComparisonRecord } from '../../schema/comparison';
import type { ReportContext, ReportSection } from './section';

/** The comparison section of report.html: its facts, the queries without a ratio, and the chart. */
async function comparisonHtml(c: ComparisonRecord): Promise<Raw> {
  const noRatio = c.pairs.flatMap((p) => p.queries.filter((q) => q.ratio === null).map((q) => `${q.query_id}${q.phase === 'index' ? ' @index' : ''} in ${p.pair_key}: ${q.reason}`));
  const chart = comparisonChart(c);
  return h`<section id="comparison"><h2>Comparison with a baseline</h2>
<p>Baseline run <strong>${c.baseline_run_id}</strong> (${c.baseline_chosen_by}); verdict <strong class="verdict-${c.verdict}">${c.verdict}</strong>. Flagged by the first pass: ${c.flagged.join(', ') || 'none'}; confirmed by the re-run: ${c.confirmed.join(', ') || 'none'}.${c.confirm_error ? ` The confirming re-run could not be done: ${c.confirm_error}.` : ''}</p>
${c.unpaired.length ? note(`Unpaired cells: ${c.unpaired.map((u) => `${u.cell} (${u.reason})`).join('; ')}.`) : ''}
${noRatio.length ? note(`No ratio: ${noRatio.join('; ')}.`) : ''}
${chart ? new Raw(await chartFigure(chart)) : note('No query has a ratio to chart.')}
</section>`;
}

export const comparisonReportSection: ReportSection = {
  id: 'comparison',
  title: 'Comparison with the baseline',
  applies: (ctx) => !!(ctx.comparison.record || ctx.comparison.error),
  markdown: (ctx: ReportContext): string[] => (ctx.comparison.record ? comparisonSection(ctx.comparison.record) : []),
  html(ctx: ReportContext): Raw | Promise<Raw> {
    const { record, error } = ctx.comparison;
    if (!record) return h`<section id="comparison"><h2>Comparison with a baseline</h2>${note(`⚠ comparison.json could not be read: ${error}`)}</section>`;
    return comparisonHtml(record);
  },
};
