/**
 * The contract of a report section and the one context both renderers hand every section.
 *
 * The report is the ordered list `REPORT_SECTIONS` (`./index.ts`): `renderReport` (report.md) and
 * `renderHtmlReport` (report.html) walk it, each asking every section that {@link ReportSection.applies}
 * for its part. A section is one file in this folder exporting one {@link ReportSection}; adding one is
 * that file and its line in the list (docs/architecture.md, "Adding a report section").
 */
import path from 'node:path';
import type { z } from 'zod';
import { existsSync, readdirSync } from 'node:fs';
import { readRecord, readRecordIfExists } from '../store';
import { measuredSomething } from '../report-cells';
import type { Raw } from '../html';
import type { SeriesPoint } from '../db/types';
import { ComparisonRecord } from '../../schema/comparison';
import { VerdictsRecord } from '../../schema/verdicts';
import { CellResult, RunRecord } from '../../schema/results';

/** The most cells a chart of report.html draws (the first ones, in matrix order). */
export const MAX_CHART_CELLS = 40;

/**
 * What every section reads, built once per rendering by {@link buildContext} from the run folder:
 * `run.json`, each cell's `result.json` (parsed with `src/schema/results.ts`), `comparison.json` and `verdicts.json`.
 */
export interface ReportContext {
  /** The run's results folder (`results/<runId>/`); sections that read more files (versions, cloud) read them here. */
  dir: string;
  /** `run.json`. */
  run: RunRecord;
  /** `run.json` `spec`: the run spec as the run used it. */
  spec: RunRecord['spec'];
  /** Every cell with a `result.json`, in `run.json` order (whatever its status). */
  cells: CellResult[];
  /** Cells of `run.json` without a `result.json` (not run yet, or the run was interrupted). */
  missing: string[];
  /** The cells that measured something (a load, a storage record or a query step), whatever their final status. */
  measured: CellResult[];
  /** The cells report.html's charts draw: the first {@link MAX_CHART_CELLS} of `measured` (the tables list every cell). */
  chartCells: CellResult[];
  /** The run's `comparison.json` when there is one; a file that does not parse is an `error` (shown in the report), never thrown. */
  comparison: { record?: ComparisonRecord; error?: string };
  /** The run's `verdicts.json` (a matrix that varies an axis); a file that does not parse is an `error`, never thrown. */
  verdicts: { record?: VerdictsRecord; error?: string };
  /** report.html only: a scheduled series, each query's warm median across past runs (the results database's `series()`), oldest first. */
  series?: SeriesPoint[];
}

/**
 * One section of the report. `markdown` gives its report.md lines (joined with `\n` after the lines
 * of the sections before it), `html` its markup on report.html (each section's markup on its own
 * line of the page). A section has at least one of the two; a renderer skips a section without its
 * part. Both are pure functions of the context (apart from the files a section reads under `ctx.dir`)
 * and return nothing (`[]`, empty markup) when there is nothing to show.
 */
export interface ReportSection {
  /** Unique, kebab-case; report.html's `<section id>` where the section has one. */
  readonly id: string;
  /** What the section is, as its heading names it (headings that carry figures, e.g. the skip index's name, are computed by the section). */
  readonly title: string;
  /**
   * Whether the section is part of this run's report (e.g. hosts only when a cell recorded its host).
   * report.md leaves a section that does not apply out; report.html leaves its line of the page empty.
   */
  applies(ctx: ReportContext): boolean;
  /** report.md's lines (markdown). */
  markdown?(ctx: ReportContext): string[];
  /** report.html's markup; text in it is escaped (build it with `h` from `../html`). */
  html?(ctx: ReportContext): Raw | Promise<Raw>;
}

/**
 * Load every cell result of a run, in `run.json` order.
 * @throws Error naming the file and field when `run.json` or a `result.json` does not parse (see `readRecord`).
 */
export function loadRun(dir: string): { run: RunRecord; cells: CellResult[]; missing: string[] } {
  const run = readRecord(path.join(dir, 'run.json'), RunRecord);
  const cells: CellResult[] = [];
  const missing: string[] = [];
  const cellsDir = path.join(dir, 'cells');
  const keys = run.cells.length ? run.cells : existsSync(cellsDir) ? readdirSync(cellsDir) : [];
  for (const k of keys) {
    const doc = readRecordIfExists(path.join(cellsDir, k, 'result.json'), CellResult);
    if (doc) cells.push(doc);
    else missing.push(k);
  }
  return { run, cells, missing };
}

/** A run-level record (`comparison.json`, `verdicts.json`) when there is one; a file that does not parse is reported, not thrown. */
function readIfAny<T>(dir: string, name: string, schema: z.ZodType<T>): { record?: T; error?: string } {
  const file = path.join(dir, name);
  if (!existsSync(file)) return {};
  try {
    return { record: readRecord(file, schema) };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/**
 * The context of one rendering of the run folder `dir` (see {@link ReportContext}).
 * @throws Error naming the file and field when `run.json` or a `result.json` does not parse (as {@link loadRun}).
 */
export function buildContext(dir: string, extras: { series?: SeriesPoint[] } = {}): ReportContext {
  const { run, cells, missing } = loadRun(dir);
  const measured = cells.filter(measuredSomething);
  return {
    dir,
    run,
    spec: run.spec,
    cells,
    missing,
    measured,
    chartCells: measured.slice(0, MAX_CHART_CELLS),
    comparison: readIfAny(dir, 'comparison.json', ComparisonRecord),
    verdicts: readIfAny(dir, 'verdicts.json', VerdictsRecord),
    ...(extras.series ? { series: extras.series } : {}),
  };
}
