/** writeReport: render `results/<runId>/report.md` and `report.html` from the cells' result files. */
import path from 'node:path';
import { renderReport } from '../../results/report';
import { escapeHtml, renderHtmlReport } from '../../results/report-html';
import { readJson, readRecord, runDir, writeJsonAtomic, writeRunSamples, writeTextAtomic } from '../../results/store';
import { withResultsDb } from '../../results/db';
import type { SeriesPoint } from '../../results/db/types';
import { RunRecord } from '../../schema/results';

/** How many past runs the series chart of `report.html` shows. */
const SERIES_RUNS = 20;

/**
 * Each query's warm median across the past runs of the run's schedule (or, for an unscheduled run,
 * of runs with the same spec name), from the results database, for `report.html`'s series chart.
 * @returns the points, or undefined when there are none or the database cannot be read (the page then has no series chart).
 */
export async function seriesOf(resultsDir: string, dir: string): Promise<SeriesPoint[] | undefined> {
  try {
    const run = readRecord(path.join(dir, 'run.json'), RunRecord);
    const points = await withResultsDb(run.spec.results, resultsDir, (db) =>
      db.series({ scheduleId: run.scheduleId ?? null, name: run.spec.name, limit: SERIES_RUNS }),
    );
    // A series needs runs: none stored yet (e.g. a report rendered before the run was stored) means no chart.
    return points.length ? points : undefined;
  } catch {
    return undefined;
  }
}

/** Activity factory. */
export function createWriteReport() {
  return {
    /**
     * Render the report (`report.md`, and `report.html` with its charts: a chart that fails to render is a
     * note in the page, not a failed report); also records the run's end and status in `run.json`.
     * @returns the absolute paths of `report.md` and `report.html`.
     */
    async writeReport(input: {
      resultsDir: string;
      runId: string;
      status: string;
    }): Promise<{ reportPath: string; htmlPath?: string }> {
      const dir = runDir(input.resultsDir, input.runId);
      const runFile = path.join(dir, 'run.json');
      writeJsonAtomic(runFile, {
        ...readJson<object>(runFile),
        finishedAt: new Date().toISOString(),
        status: input.status,
      });
      const reportPath = path.join(dir, 'report.md');
      writeTextAtomic(reportPath, renderReport(dir));
      const htmlPath = path.join(dir, 'report.html');
      // report.md is written: the HTML page must not fail the report. Its charts already turn their own
      // failures into notes; anything else becomes a page saying so (report.md stands).
      const series = await seriesOf(input.resultsDir, dir);
      const html = await renderHtmlReport(dir, series ? { series } : {}).catch(
        (e: unknown) =>
          `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>chbench report</title></head><body><p>report.html could not be rendered: ${escapeHtml(e instanceof Error ? e.message : String(e))}. See report.md beside this file.</p></body></html>\n`,
      );
      writeTextAtomic(htmlPath, html);
      // Every cell's flat samples in one file, for loading the run into a database (README "What a cell measures", flat samples).
      writeRunSamples(dir, readJson<{ cells: string[] }>(runFile).cells);
      return { reportPath, htmlPath };
    },
  };
}
