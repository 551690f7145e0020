/**
 * The bookkeeping under the matrix workflow, so `benchmarkMatrix` reads as the method: its
 * `progress` query answer, the `ChbenchPhase` search attribute, and the outcomes of its cells.
 *
 * Every Temporal command here (the search-attribute upserts) is issued at the same point and in the
 * same order as when this code lived inside `benchmarkMatrix`: recorded histories replay against it.
 */
import { defineQuery, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { CellOutcome } from '../schema/cell';
import type { MatrixPhase, MatrixProgress } from '../schema/progress';
import { PHASE, RUN_ID } from '../schema/search-attributes';

export const matrixProgressQuery = defineQuery<MatrixProgress>('progress');

/** One matrix run's state: progress (answered by the `progress` query from construction on) and the cells' outcomes. */
export class MatrixRun {
  readonly progress: MatrixProgress;
  /** Every cell's outcome, reused ones first, then in the order the cells ended. */
  readonly outcomes: CellOutcome[] = [];

  /** Start in phase `validate`: answers the `progress` query, upserts `ChbenchRunId` and `ChbenchPhase`. */
  constructor(runId: string) {
    this.progress = {
      runId,
      phase: 'validate',
      total: 0,
      done: 0,
      running: [],
      failed: [],
      skipped: [],
      succeeded: [],
      cancelled: [],
      reused: 0,
    };
    setHandler(matrixProgressQuery, () => this.progress);
    upsertSearchAttributes([
      { key: RUN_ID, value: runId },
      { key: PHASE, value: 'validate' },
    ]);
  }

  /** Enter a phase: the progress query and the `ChbenchPhase` search attribute show it. */
  enter(phase: MatrixPhase): void {
    this.progress.phase = phase;
    upsertSearchAttributes([{ key: PHASE, value: phase }]);
  }

  /** The matrix has `total` cells, of which `reused` are taken from an earlier start of the run. */
  plan(total: number, reused: CellOutcome[]): void {
    this.progress.total = total;
    this.progress.reused = this.progress.done = reused.length;
    for (const r of reused) this.recordOutcome(r);
  }

  /** A cell's workflow starts. */
  started(cellKey: string): void {
    this.progress.running.push(cellKey);
  }

  /** A cell ended with `outcome`: kept for the result; its key goes to the progress list of its status. */
  recordOutcome(outcome: CellOutcome): void {
    this.outcomes.push(outcome);
    this.progress[outcome.status].push(outcome.cellKey);
  }

  /** A cell's workflow ended without an outcome of its own (its host was lost): it waits to be placed again. */
  requeued(cellKey: string): void {
    this.progress.running = this.progress.running.filter((k) => k !== cellKey);
  }

  /** A cell's workflow is over (whatever its outcome). */
  finished(cellKey: string): void {
    this.progress.running = this.progress.running.filter((k) => k !== cellKey);
    this.progress.done++;
  }
}
