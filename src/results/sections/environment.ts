/**
 * The Environment section: chbench's version and commit, the run's workflow id, and per cell its
 * workflow id, duration, server version, CPU model, kernel, data disk and filesystem
 * (`environmentRows` in `report-cells.ts`).
 */
import markdownTable from 'markdown-table';
import { h, table, type Raw } from '../html';
import { environmentRows, environmentSection } from '../report-cells';
import type { CellResult, RunRecord } from '../../schema/results';
import type { ReportContext, ReportSection } from './section';

/** The environment table (`environmentRows`, as report.md's). */
function envTable(run: RunRecord, cells: CellResult[]): Raw {
  const [head, ...rows] = environmentRows(run, cells);
  return table(head, rows);
}

export const environmentReportSection: ReportSection = {
  id: 'environment',
  title: 'Environment',
  applies: () => true,
  markdown: (ctx: ReportContext): string[] => environmentSection(ctx.run, ctx.cells, markdownTable),
  html(ctx: ReportContext): Raw {
    const { run, cells } = ctx;
    return h`<section id="environment"><h2>Environment</h2><p>chbench ${run.chbench.version}, commit ${run.chbench.commit ?? 'unknown (not run from a git checkout)'}; matrix workflow id ${run.runId}${run.scheduleId ? `, started by schedule ${run.scheduleId}` : ''}. Sources as in report.md's Environment section.</p>${envTable(run, cells)}</section>`;
  },
};
