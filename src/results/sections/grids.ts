/**
 * The load grids: per cell the concurrency stepping's table with its knee and the insert grid's
 * table (`report-grids.ts`), on report.html with their charts; only when the spec has grids.
 */
import { figures, h, notesList, plain, table, type Raw } from '../html';
import { cellLabel, concurrencyChart, insertGridChart } from '../charts';
import { concurrencyNotes, concurrencyTable, gridsSections, insertGridNotes, insertGridTable, steppingOutcome } from '../report-grids';
import { rowLabel } from '../report-cells';
import { ConcurrencyGridSpec } from '../../schema/grids';
import type { RunSpec } from '../../schema/run-spec';
import type { CellResult } from '../../schema/results';
import { MAX_CHART_CELLS, type ReportContext, type ReportSection } from './section';

/**
 * The load grids: per cell the stepping's table with its knee, the insert grid's table, and their
 * charts (empty when the spec has no grids). Tables and wording as in report.md (`report-grids.ts`).
 */
async function gridsHtml(spec: RunSpec, cells: CellResult[]): Promise<Raw> {
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

export const gridsReportSection: ReportSection = {
  id: 'grids',
  title: 'Load grids',
  applies: (ctx) => !!ctx.spec.grids,
  markdown: (ctx: ReportContext): string[] => gridsSections(ctx.spec, ctx.cells, rowLabel),
  html: (ctx: ReportContext): Promise<Raw> => gridsHtml(ctx.spec, ctx.cells),
};
