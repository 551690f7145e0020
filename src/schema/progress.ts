/**
 * Shapes of the workflows' progress and outcomes: the matrix workflow's options, its `progress`
 * query answer and its result, and the cell workflow's `progress` answer. Zod schemas with inferred
 * types, for the CLI and the progress view to parse what a workflow answered; workflow code imports
 * this module for types only (zod stays out of the workflow bundle).
 */
import { z } from 'zod';
import { RunVerdict } from './comparison';
import { CELL_STEPS, CellOutcome, CellStatus, type CellPhase } from './cell';

/** Options of the matrix workflow (second workflow argument; all optional). */
export const MatrixOptions = z.object({
  /**
   * ISO time: failed/cancelled cell results written at or after it are reused too. Set by the matrix
   * itself when it continues as new, so a failed cell is not re-run within the same resume.
   */
  reuseFailedSince: z.string().optional(),
  /**
   * Continue as new once the history passes this many events (default `EVENT_BUDGET` of the matrix
   * workflow, 2000). Lets the workflow tests reach continue-as-new with a 3-cell matrix; carried over
   * to the next run only when set.
   */
  eventBudget: z.number().int().positive().optional(),
});
export type MatrixOptions = z.infer<typeof MatrixOptions>;

/** The matrix workflow's phases (its `progress.phase` and `ChbenchPhase` values). */
export const MatrixPhase = z.enum(['validate', 'cells', 'store', 'compare', 'confirm', 'verdicts', 'report', 'done', 'cancelled']);
export type MatrixPhase = z.infer<typeof MatrixPhase>;

/** Answer of the matrix workflow's `progress` query. */
export const MatrixProgress = z.object({
  runId: z.string(),
  phase: MatrixPhase,
  /** Cells in the matrix. */
  total: z.number().int(),
  /** Cells finished (any status, reused ones included). */
  done: z.number().int(),
  /** Keys of the cells whose workflow runs now. */
  running: z.array(z.string()),
  failed: z.array(z.string()),
  skipped: z.array(z.string()),
  succeeded: z.array(z.string()),
  cancelled: z.array(z.string()),
  /** Cells reused from an earlier start of this run (resume). */
  reused: z.number().int(),
  /** Path of `report.md`, once written. */
  reportPath: z.string().optional(),
});
export type MatrixProgress = z.infer<typeof MatrixProgress>;

/** Result of the matrix workflow. */
export const MatrixResult = z.object({
  runId: z.string(),
  /** Path of `report.md`. */
  reportPath: z.string(),
  status: z.enum(['completed', 'cancelled']),
  cells: z.array(CellOutcome),
  /** The comparison with the spec's baseline (absent when the spec names none). Details in `comparison.json`. */
  comparison: z
    .object({
      verdict: RunVerdict,
      baselineRunId: z.string().nullable(),
      /** Query ids the first pass flagged (`Q5@index` after the skip index), and those the confirming re-run confirmed. */
      flagged: z.array(z.string()),
      confirmed: z.array(z.string()),
      /** Why there is no comparison or no re-run, when so. */
      note: z.string().optional(),
    })
    .optional(),
  /**
   * The matrix's own verdicts (a matrix that varies versions, codecs, settings profiles or pinned
   * defaults): the Decision in one line and the A/A control's count. Details in `verdicts.json`.
   */
  verdicts: z
    .object({
      decision: z.string(),
      control: z.string(),
      /** Comparisons per verdict (`faster`, `unchanged`, …). */
      counts: z.record(z.string(), z.number()),
      /** Why the verdicts are missing or incomplete (the step failed, a re-run failed), when so. */
      note: z.string().optional(),
    })
    .optional(),
});
export type MatrixResult = z.infer<typeof MatrixResult>;

/** Answer of the cell workflow's `progress` query. */
export const CellProgress = z.object({
  cellKey: z.string(),
  /** The running step's phase (see `CELL_STEPS`), then `done`. */
  step: z.enum([...(CELL_STEPS.map((s) => s.phase) as [CellPhase, ...CellPhase[]]), 'done']),
  status: z.union([z.literal('running'), CellStatus]),
  /** Phases finished so far (a step run again after a restart appears once per success). */
  done: z.array(z.string()),
});
export type CellProgress = z.infer<typeof CellProgress>;

/**
 * Rows read of a running statement, for a progress line: `2,500 / 10,000 rows read (25.0 %)`. The
 * total is the server's estimate (`system.processes.total_rows_approx`), which rows read can exceed
 * (a filter re-reading granules, an estimate made before all parts were known): then no percentage
 * over 100 but `2 rows read (estimate 1)`. Without a total (0 or absent): `2 rows read`.
 * @param read rows read so far (`system.processes.read_rows`)
 * @param total the server's estimate of rows to read
 */
export function rowsReadText(read: number, total: number | undefined): string {
  const f = (n: number) => Math.round(n).toLocaleString('en-US');
  if (!total) return `${f(read)} rows read`;
  if (read > total) return `${f(read)} rows read (estimate ${f(total)})`;
  return `${f(read)} / ${f(total)} rows read (${((100 * read) / total).toFixed(1)} %)`;
}
