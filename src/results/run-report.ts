/**
 * A run's reports: `report.md`, `report.html` (with the series chart from the results database) and
 * `samples.jsonl`, with the run's end and status recorded in `run.json`. The matrix's `writeReport`
 * runs {@link renderRunReports} in a child process; `chbench report` calls it directly.
 */
import path from 'node:path';
import { renderReport } from './report';
import { escapeHtml, renderHtmlReport } from './report-html';
import { readJson, readRecord, runDir, writeJsonAtomic, writeRunSamples, writeTextAtomic } from './store';
import { withResultsDb } from './db';
import type { SeriesPoint } from './db/types';
import { RunRecord } from '../schema/results';

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

/** What {@link renderRunReports} renders: the run's folder in the results store, and its final status. */
export interface ReportInput {
  resultsDir: string;
  runId: string;
  status: string;
}

/**
 * Render `report.md`, `report.html` and the run's `samples.jsonl`, and record the run's end and status
 * in `run.json`. Runs in a child process of the worker (see `writeReport`).
 * @returns the absolute paths of `report.md` and `report.html`.
 * @throws Error when `run.json` or a cell's record cannot be read (report.md is not written then).
 */
export async function renderRunReports(input: ReportInput): Promise<{ reportPath: string; htmlPath?: string }> {
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
  // Every cell's flat samples in one file, for loading the run into a database (docs/method.md "What a cell measures", flat samples).
  writeRunSamples(dir, readRecord(runFile, RunRecord).cells);
  return { reportPath, htmlPath };
}
