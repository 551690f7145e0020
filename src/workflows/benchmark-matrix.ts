/**
 * benchmarkMatrix: validate the spec, expand the matrix into cells, run one `benchmarkCell` child
 * workflow per cell (id `<runId>/<cellKey>`) with the spec's concurrency, then write the report.
 * A failed cell does not sink the others: its error is in its result and in the report.
 *
 * Input: the run spec exactly as written by the user (JSON of the YAML), so
 * `temporal workflow start --type benchmarkMatrix --task-queue chbench --input-file run.json` works.
 */
import {
  proxyActivities,
  executeChild,
  defineQuery,
  setHandler,
  workflowInfo,
  upsertSearchAttributes,
  CancellationScope,
  isCancellation,
  ParentClosePolicy,
  continueAsNew,
  CancelledFailure,
  type ActivityOptions,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { Activities } from '../activities';
import type { CellInput, CellOutcome } from '../schema/cell';
import { recordOutcome, type MatrixOptions, type MatrixProgress, type MatrixResult } from '../schema/progress';
import { cellInputs } from '../schema/matrix';
import type { RunSpec, RunSpecInput } from '../schema/run-spec';
import { FAILURE } from '../schema/failures';
import { benchmarkCell } from './benchmark-cell';
import { CODEC, PHASE, RUN_ID, VERSION } from '../schema/search-attributes';

export type { MatrixProgress, MatrixResult } from '../schema/progress';
export const matrixProgressQuery = defineQuery<MatrixProgress>('progress');

/** Spec validation and the report: quick, a few attempts; an invalid spec is final. */
const VALIDATE: ActivityOptions = {
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 3, nonRetryableErrorTypes: [FAILURE.InvalidSpec] },
};
/** Waiting for a previous start's child to close (it may still be tearing down). */
const AWAIT_CLOSED: ActivityOptions = {
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { maximumAttempts: 5 },
};
const { validateSpec, writeReport } = proxyActivities<Activities>(VALIDATE);
const { awaitWorkflowClosed } = proxyActivities<Activities>(AWAIT_CLOSED);

/**
 * Start a new run of this workflow (continue-as-new) when the server suggests it or the history
 * passes this many events, whichever comes first. A cell costs the matrix ~8 events, so a run holds ~250 cells.
 */
export const EVENT_BUDGET = 2000;

/** The child workflow's summary in the Temporal UI. */
export function cellSummary(spec: RunSpec, cell: CellInput): string {
  return `${spec.workload} ${spec.scale.toLocaleString('en-US')} rows on ClickHouse ${cell.version}, codec ${cell.codec} (${spec.target.kind})`;
}

/**
 * Run one cell as the child workflow `<runId>/<cellKey>`. On a resumed run the cell's child from the
 * previous start may still be cleaning up: wait for it to close, then start again.
 */
async function runChildCell(spec: RunSpec, runId: string, cell: CellInput): Promise<CellOutcome> {
  const childId = `${runId}/${cell.cellKey}`;
  const start = () =>
    executeChild(benchmarkCell, {
      workflowId: childId,
      args: [cell],
      staticSummary: cellSummary(spec, cell),
      parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
      typedSearchAttributes: [
        { key: RUN_ID, value: runId },
        { key: VERSION, value: cell.version },
        { key: CODEC, value: cell.codec },
        { key: PHASE, value: 'provision' },
      ],
    });
  return start().catch(async (err: unknown) => {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    await awaitWorkflowClosed.executeWithOptions({ summary: `wait for the previous ${childId} to close` }, [childId]);
    return start();
  });
}

/**
 * Run a benchmark matrix. Cells whose result is already in the results store (an earlier start of
 * the same run id) are reused, not run again: starting the workflow again with the same workflow id
 * and spec resumes a run. @throws ApplicationFailure `InvalidSpec` before anything is provisioned.
 */
export async function benchmarkMatrix(specInput: RunSpecInput, options: MatrixOptions = {}): Promise<MatrixResult> {
  const runId = workflowInfo().workflowId;
  const startedAt = new Date().toISOString();
  const progress: MatrixProgress = {
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
  setHandler(matrixProgressQuery, () => progress);
  upsertSearchAttributes([
    { key: RUN_ID, value: runId },
    { key: PHASE, value: 'validate' },
  ]);

  const { reuseFailedSince, eventBudget = EVENT_BUDGET } = options;
  const { spec, reused, indexQueries } = await validateSpec.executeWithOptions({ summary: 'validate run spec' }, [
    { spec: specInput, runId, startedAt, ...(reuseFailedSince ? { reuseFailedSince } : {}) },
  ]);
  const cells = cellInputs(spec, runId, indexQueries);
  const done = new Set(reused.map((r) => r.cellKey));
  progress.total = cells.length;
  progress.reused = progress.done = reused.length;
  for (const r of reused) recordOutcome(progress, r.cellKey, r.status);
  progress.phase = 'cells';
  upsertSearchAttributes([{ key: PHASE, value: 'cells' }]);

  const outcomes: CellOutcome[] = [...reused];
  let cancelled: unknown;
  let continueAsNewNow = false;
  const queue = cells.filter((c) => !done.has(c.cellKey));
  const runOne = async (cell: CellInput): Promise<void> => {
    progress.running.push(cell.cellKey);
    try {
      const r = await runChildCell(spec, runId, cell);
      outcomes.push(r);
      recordOutcome(progress, cell.cellKey, r.status);
    } catch (err) {
      // The run was cancelled, or only this cell was (then the other cells go on).
      if (CancellationScope.current().consideredCancelled) cancelled ??= err;
      const status = isCancellation(err) ? 'cancelled' : 'failed';
      outcomes.push({ cellKey: cell.cellKey, status, resultFile: '', error: String((err as Error).message) });
      recordOutcome(progress, cell.cellKey, status);
    } finally {
      progress.running = progress.running.filter((k) => k !== cell.cellKey);
      progress.done++;
    }
    const info = workflowInfo();
    if (info.continueAsNewSuggested || info.historyLength > eventBudget) continueAsNewNow = true;
  };
  // Check before taking a cell off the queue: a cell taken and not run would be lost when it was the last.
  const lane = async (): Promise<void> => {
    for (let c: CellInput | undefined; !cancelled && !continueAsNewNow && (c = queue.shift());) await runOne(c);
  };
  try {
    await Promise.all(Array.from({ length: Math.min(spec.concurrency, cells.length) }, lane));
  } catch (err) {
    if (!isCancellation(err)) throw err;
    cancelled ??= err;
  }
  if (CancellationScope.current().consideredCancelled) cancelled ??= new CancelledFailure('run cancelled');

  if (continueAsNewNow && !cancelled && queue.length > 0) {
    // Finished cells are in the results store; the next run reuses them (and this run's failures).
    await continueAsNew<typeof benchmarkMatrix>(specInput, {
      reuseFailedSince: reuseFailedSince ?? startedAt,
      ...(options.eventBudget ? { eventBudget } : {}),
    });
  }

  // The report is written even when the run was cancelled: measured cells are kept.
  const status = cancelled ? 'cancelled' : 'completed';
  const result = await CancellationScope.nonCancellable(async () => {
    progress.phase = 'report';
    upsertSearchAttributes([{ key: PHASE, value: 'report' }]);
    const { reportPath } = await writeReport.executeWithOptions({ summary: 'render report.md' }, [
      { resultsDir: spec.resultsDir, runId, status },
    ]);
    progress.phase = cancelled ? 'cancelled' : 'done';
    progress.reportPath = reportPath;
    upsertSearchAttributes([{ key: PHASE, value: progress.phase }]);
    return { runId, reportPath, status, cells: outcomes } satisfies MatrixResult;
  });
  // A cancelled run ends as Canceled in Temporal, after its report was written.
  if (cancelled) throw new CancelledFailure(`run ${runId} cancelled; report written to ${result.reportPath}`);
  return result;
}
