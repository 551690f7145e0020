/** report.md's "Cells that did not finish": each cell whose status is not `succeeded`, with its skip reason or error (`result.json`). */
import type { ReportContext, ReportSection } from './section';

export const notFinishedSection: ReportSection = {
  id: 'not-finished',
  title: 'Cells that did not finish',
  applies: (ctx) => ctx.cells.some((c) => c.status !== 'succeeded'),
  markdown(ctx: ReportContext): string[] {
    const bad = ctx.cells.filter((c) => c.status !== 'succeeded');
    const out: string[] = ['## Cells that did not finish', '', 'Figures such a cell measured before it stopped are in the tables above, labelled with its status.', ''];
    for (const c of bad) out.push(`- **${c.cellKey}** — ${c.status}: ${c.skip_reason ?? c.error ?? ''}`);
    out.push('');
    return out;
  },
};
