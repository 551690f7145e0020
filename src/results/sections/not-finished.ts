/** "Cells that did not finish": each cell whose status is not `succeeded`, with its skip reason or error (`result.json`); in report.md and report.html. */
import { blocksHtml, blocksMarkdown, type Block } from './blocks';
import type { ReportContext, ReportSection } from './section';

/** The section's report.md lines (both renderers'). */
function notFinishedBlocks(ctx: ReportContext): Block[] {
  const bad = ctx.cells.filter((c) => c.status !== 'succeeded');
  const where = ctx.measured.length
    ? 'Figures such a cell measured before it stopped are in the tables above, labelled with its status.'
    : 'No cell measured anything, so this report has no measurement tables; each cell\u2019s step files are under cells/<cell>/.';
  const out: Block[] = ['## Cells that did not finish', '', where, ''];
  for (const c of bad) out.push(`- **${c.cellKey}** — ${c.status}: ${c.skip_reason ?? c.error ?? ''}`);
  out.push('');
  return out;
}

export const notFinishedSection: ReportSection = {
  id: 'not-finished',
  title: 'Cells that did not finish',
  applies: (ctx) => ctx.cells.some((c) => c.status !== 'succeeded'),
  markdown: (ctx: ReportContext): string[] => blocksMarkdown(notFinishedBlocks(ctx)),
  html: (ctx: ReportContext) => blocksHtml('not-finished', notFinishedBlocks(ctx)),
};
