/**
 * report.html's "Series of past runs": each query's warm median across past runs, when the caller
 * passed a series (the results database's `series()`), with its change points and drift
 * (`changesOfSeries`: the detector and parameters of `chbench series`) drawn on the chart and listed
 * under it.
 */
import { figures, h, note, table, type Raw } from '../html';
import { seriesChart } from '../charts';
import { changesOfSeries, type SeriesChanges } from '../series-changes';
import { CHANGE_POINT_METHOD, DRIFT_METHOD, MIN_CHANGE_POINT_RUNS, MIN_DRIFT_RUNS } from '../../measure/change-points';
import type { ReportContext, ReportSection } from './section';

const pct = (x: number) => `${x >= 0 ? '+' : ''}${(100 * x).toFixed(1)} %`;
const ms = (v: number) => `${v < 10 ? v.toFixed(2) : v.toFixed(1)} ms`;
const phaseName = (p: SeriesChanges['phase']) => (p === 'index' ? 'after the skip index' : 'before the skip index');

/** The change points and significant drifts of the series, as a table (nothing when there is none). */
function changesTable(changes: SeriesChanges[]): Raw {
  const rows: string[][] = [];
  for (const c of changes) {
    for (const cp of c.found.changePoints)
      rows.push([
        c.query_id,
        c.cell_key,
        phaseName(c.phase),
        'change point',
        `${cp.runId} (${cp.at.replace(/\.\d{3}Z$/, 'Z')}), index ${cp.index}`,
        `${ms(cp.meanBefore)} → ${ms(cp.meanAfter)}`,
        pct(cp.relativeChange),
        cp.pValue.toFixed(3),
      ]);
    const d = c.found.drift;
    if (d?.significant)
      rows.push([c.query_id, c.cell_key, phaseName(c.phase), 'drift', `over ${c.found.runs} runs`, `Sen's slope ${pct(d.relativeSlopePerRun)} per run`, pct(d.relativeChange), d.pValue.toFixed(3)]);
  }
  if (!rows.length) return h``;
  return table(['query', 'cell', 'phase', 'found', 'at run', 'before → after (warm median)', 'change', 'p-value'], rows);
}

/** One sentence on what was tested, how, and what was found. */
function summary(changes: SeriesChanges[]): string {
  const runs = Math.max(0, ...changes.map((c) => c.found.runs));
  const cps = changes.reduce((n, c) => n + c.found.changePoints.length, 0);
  const drifts = changes.filter((c) => c.found.drift?.significant).length;
  if (runs < MIN_DRIFT_RUNS)
    return `Change points and drift not tested: the longest series has ${runs} run(s); change points need at least ${MIN_CHANGE_POINT_RUNS} runs, a drift at least ${MIN_DRIFT_RUNS}.`;
  const cpText =
    runs < MIN_CHANGE_POINT_RUNS
      ? `change points not tested (the longest series has ${runs} runs; they need at least ${MIN_CHANGE_POINT_RUNS})`
      : `${cps} change point(s) (${CHANGE_POINT_METHOD})`;
  return `Over ${changes.length} series (query × cell × phase, up to ${runs} runs): ${cpText}; ${drifts} significant drift(s) (${DRIFT_METHOD}). The same detector and parameters as \`chbench series\`.`;
}

export const seriesSection: ReportSection = {
  id: 'series',
  title: 'Series of past runs',
  applies: (ctx) => !!ctx.series,
  html: async (ctx: ReportContext): Promise<Raw> => {
    const changes = changesOfSeries(ctx.series!);
    // One run is no series yet: no chart of single points, and nothing was tested.
    const runs = [...new Set(ctx.series!.map((p) => p.run_id))];
    const chart =
      runs.length === 1
        ? note(`First run of this series (${runs[0]}): the chart of past runs starts with the second run.`)
        : await figures([seriesChart(ctx.series!, changes)], 'The series has no point to draw.');
    return h`<section id="series"><h2>Series of past runs</h2>${chart}${note(summary(changes))}${changesTable(changes)}</section>`;
  },
};
