/** report.html's "Series of past runs": each query's warm median across past runs, when the caller passed a series (the results database's `series()`). */
import { figures, h, type Raw } from '../html';
import { seriesChart } from '../charts';
import type { ReportContext, ReportSection } from './section';

export const seriesSection: ReportSection = {
  id: 'series',
  title: 'Series of past runs',
  applies: (ctx) => !!ctx.series,
  html: async (ctx: ReportContext): Promise<Raw> =>
    h`<section id="series"><h2>Series of past runs</h2>${await figures([seriesChart(ctx.series!)], 'The series has no point to draw.')}</section>`,
};
