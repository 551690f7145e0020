/**
 * Change points of report.html's series of past runs: each query's warm median per cell and phase
 * (the results database's `series()` rows, {@link SeriesPoint}) through `seriesChangePoints`
 * (`src/measure/change-points.ts`), the detector and parameters `chbench series` uses too. Pure.
 */
import { seriesChangePoints, type SeriesChangePoints } from '../measure/change-points';
import type { SeriesPoint } from './db/types';

/** What the detector found in one series: one query in one cell and phase, its warm medians (ms) oldest first. */
export interface SeriesChanges {
  cell_key: string;
  phase: SeriesPoint['phase'];
  query_id: string;
  /** The series' points, oldest first (finite warm medians only). */
  points: SeriesPoint[];
  found: SeriesChangePoints;
}

/**
 * The change points and drift of every (cell, phase, query) series in `points`, ordered by cell,
 * phase (before the skip index first) and query.
 */
export function changesOfSeries(points: SeriesPoint[]): SeriesChanges[] {
  const groups = new Map<string, SeriesPoint[]>();
  for (const p of points) {
    if (!Number.isFinite(p.warm_median_ms)) continue;
    const k = [p.cell_key, p.phase, p.query_id].join('\u0000');
    groups.set(k, [...(groups.get(k) ?? []), p]);
  }
  return [...groups.values()]
    .map((ps) => {
      const sorted = ps.slice().sort((a, b) => Date.parse(a.started_at) - Date.parse(b.started_at));
      return {
        cell_key: sorted[0]!.cell_key,
        phase: sorted[0]!.phase,
        query_id: sorted[0]!.query_id,
        points: sorted,
        found: seriesChangePoints(sorted.map((p) => ({ runId: p.run_id, at: p.started_at, value: p.warm_median_ms }))),
      };
    })
    .sort(
      (a, b) =>
        a.cell_key.localeCompare(b.cell_key) ||
        (a.phase === b.phase ? 0 : a.phase === 'baseline' ? -1 : 1) ||
        a.query_id.localeCompare(b.query_id, 'en', { numeric: true }),
    );
}
