/**
 * Shapes of the matrix workflow's input options, its `progress` query answer and its result.
 * Pure types: imported by the workflow, the CLI and the progress view.
 */
import type { CellOutcome } from './cell';

/** Options of the matrix workflow (second workflow argument; all optional). */
export interface MatrixOptions {
  /**
   * ISO time: failed/cancelled cell results written at or after it are reused too. Set by the matrix
   * itself when it continues as new, so a failed cell is not re-run within the same resume.
   */
  reuseFailedSince?: string;
  /**
   * Continue as new once the history passes this many events (default `EVENT_BUDGET` of the matrix
   * workflow, 2000). Lets the workflow tests reach continue-as-new with a 3-cell matrix; carried over
   * to the next run only when set.
   */
  eventBudget?: number;
}

/** Answer of the `progress` query. */
export interface MatrixProgress {
  runId: string;
  phase: 'validate' | 'cells' | 'report' | 'done' | 'cancelled';
  total: number;
  done: number;
  running: string[];
  failed: string[];
  skipped: string[];
  succeeded: string[];
  cancelled: string[];
  /** Cells reused from an earlier start of this run (resume). */
  reused: number;
  reportPath?: string;
}

/** Result of the matrix workflow. */
export interface MatrixResult {
  runId: string;
  reportPath: string;
  status: 'completed' | 'cancelled';
  cells: CellOutcome[];
}

/**
 * Record a finished cell in the matrix progress: its key goes to the list of its status.
 * @param progress mutated in place (the `progress` query answers it).
 */
export function recordOutcome(progress: MatrixProgress, key: string, status: CellOutcome['status']): void {
  const list = { succeeded: progress.succeeded, skipped: progress.skipped, cancelled: progress.cancelled, failed: progress.failed }[status];
  list.push(key);
}
