/** report.md's "Comparing cells" (at least two measured cells; `comparingSection` in `report-cells.ts`). */
import markdownTable from 'markdown-table';
import { comparingSection } from '../report-cells';
import type { ReportContext, ReportSection } from './section';

export const comparingCellsSection: ReportSection = {
  id: 'comparing',
  title: 'Comparing cells',
  applies: (ctx) => ctx.measured.length >= 2,
  markdown: (ctx: ReportContext): string[] => comparingSection(ctx.measured, ctx.spec.protocol.statistic, markdownTable),
};
