/**
 * The "Comparing cells" section (at least two measured cells): per cell and per query against the
 * first measured cell (`comparingBlocks` in `report-cells.ts`); on report.html as in report.md, its
 * tables collapsed.
 */
import { comparingBlocks } from '../report-cells';
import { blocksHtml, blocksMarkdown } from './blocks';
import type { ReportContext, ReportSection } from './section';

export const comparingCellsSection: ReportSection = {
  id: 'comparing',
  title: 'Comparing cells',
  applies: (ctx) => ctx.measured.length >= 2,
  markdown: (ctx: ReportContext): string[] => blocksMarkdown(comparingBlocks(ctx.measured, ctx.spec.protocol.statistic)),
  html: (ctx: ReportContext) => blocksHtml('comparing', comparingBlocks(ctx.measured, ctx.spec.protocol.statistic)),
};
