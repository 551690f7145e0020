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
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { Activities } from '../activities';
import type { CellInput, CellOutcome } from '../schema/cell';
import type { MatrixOptions, MatrixProgress, MatrixResult } from '../schema/progress';
import { cellKey as keyOf, expandMatrix } from '../lib/matrix';
import type { RunSpecInput } from '../schema/run-spec';
import { benchmarkCell } from './benchmark-cell';
import { CODEC, PHASE, RUN_ID, VERSION } from '../schema/search-attributes';

export type { MatrixProgress, MatrixResult } from '../schema/progress';
export const matrixProgressQuery = defineQuery<MatrixProgress>('progress');

const { awaitWorkflowClosed } = proxyActivities<Activities>({ startToCloseTimeout: '30 minutes', heartbeatTimeout: '30 seconds', retry: { maximumAttempts: 5 } });

const { validateSpec, writeReport } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 3, nonRetryableErrorTypes: ['InvalidSpec'] },
});

/**
 * Start a new run of this workflow (continue-as-new) when the server suggests it or the history
 * passes this many events, whichever comes first. A cell costs the matrix ~8 events, so a run holds ~250 cells.
 */
export const EVENT_BUDGET = 2000;

/**
 * Run a benchmark matrix. Cells whose result is already in the results store (an earlier start of
 * the same run id) are reused, not run again: starting the workflow again with the same workflow id
 * and spec resumes a run. @throws ApplicationFailure `InvalidSpec` before anything is provisioned.
 */
export async function benchmarkMatrix(specInput: RunSpecInput, options: MatrixOptions = {}): Promise<MatrixResult> {
  const runId = workflowInfo().workflowId;
  const startedAt = new Date().toISOString();
  const progress: MatrixProgress = { runId, phase: 'validate', total: 0, done: 0, running: [], failed: [], skipped: [], succeeded: [], cancelled: [], reused: 0 };
  setHandler(matrixProgressQuery, () => progress);
  upsertSearchAttributes([
    { key: RUN_ID, value: runId },
    { key: PHASE, value: 'validate' },
  ]);

  const { spec, reused, indexQueries } = await validateSpec.executeWithOptions(
    { startToCloseTimeout: '2 minutes', retry: { maximumAttempts: 3, nonRetryableErrorTypes: ['InvalidSpec'] }, summary: 'validate run spec' },
    [{ spec: specInput, runId, startedAt, ...(options.reuseFailedSince ? { reuseFailedSince: options.reuseFailedSince } : {}) }],
  );
  const done = new Set(reused.map((r) => r.cellKey));
  const cells: CellInput[] = expandMatrix(spec).map((c) => ({
    runId,
    cellKey: keyOf(c),
    version: c.version,
    codec: c.codec,
    workload: spec.workload,
    scale: spec.scale,
    ...(spec.queries ? { queries: spec.queries } : {}),
    // The index step runs only when a selected query uses the index.
    skipIndex: spec.skipIndex && indexQueries.length > 0,
    protocol: spec.protocol,
    target: spec.target,
    teardown: spec.teardown,
    resultsDir: spec.resultsDir,
    settings: spec.settings,
  }));
  progress.total = cells.length;
  progress.reused = reused.length;
  progress.done = reused.length;
  for (const r of reused) (r.status === 'succeeded' ? progress.succeeded : r.status === 'skipped' ? progress.skipped : r.status === 'cancelled' ? progress.cancelled : progress.failed).push(r.cellKey);
  progress.phase = 'cells';
  upsertSearchAttributes([{ key: PHASE, value: 'cells' }]);

  const outcomes: CellOutcome[] = [...reused];
  let cancelled: unknown;
  let continueAsNewNow = false;
  const queue = cells.filter((c) => !done.has(c.cellKey));
  const runOne = async (cell: CellInput): Promise<void> => {
    progress.running.push(cell.cellKey);
    const childId = `${runId}/${cell.cellKey}`;
    const start = () =>
      executeChild(benchmarkCell, {
        workflowId: childId,
        args: [cell],
        staticSummary: `${spec.workload} ${spec.scale.toLocaleString('en-US')} rows on ClickHouse ${cell.version}, codec ${cell.codec} (${spec.target.kind})`,
        parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
        typedSearchAttributes: [
          { key: RUN_ID, value: runId },
          { key: VERSION, value: cell.version },
          { key: CODEC, value: cell.codec },
          { key: PHASE, value: 'provision' },
        ],
      });
    try {
      let r: CellOutcome;
      try {
        r = await start();
      } catch (err) {
        // On a resumed run, the cell's child from the previous start may still be cleaning up.
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
        await awaitWorkflowClosed.executeWithOptions({ startToCloseTimeout: '30 minutes', heartbeatTimeout: '30 seconds', summary: `wait for the previous ${childId} to close` }, [childId]);
        r = await start();
      }
      outcomes.push(r);
      (r.status === 'succeeded' ? progress.succeeded : r.status === 'skipped' ? progress.skipped : progress.failed).push(cell.cellKey);
    } catch (err) {
      // The run was cancelled, or only this cell was (then the other cells go on).
      if (CancellationScope.current().consideredCancelled) cancelled ??= err;
      const status = isCancellation(err) ? 'cancelled' : 'failed';
      outcomes.push({ cellKey: cell.cellKey, status, resultFile: '', error: String((err as Error).message) });
      (status === 'cancelled' ? progress.cancelled : progress.failed).push(cell.cellKey);
    } finally {
      progress.running = progress.running.filter((k) => k !== cell.cellKey);
      progress.done++;
    }
    const info = workflowInfo();
    if (info.continueAsNewSuggested || info.historyLength > EVENT_BUDGET) continueAsNewNow = true;
  };
  const lane = async (): Promise<void> => {
    for (let c = queue.shift(); c && !cancelled && !continueAsNewNow; c = queue.shift()) await runOne(c);
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
    await continueAsNew<typeof benchmarkMatrix>(specInput, { reuseFailedSince: options.reuseFailedSince ?? startedAt });
  }

  // The report is written even when the run was cancelled: measured cells are kept.
  const result = await CancellationScope.nonCancellable(async () => {
    progress.phase = 'report';
    upsertSearchAttributes([{ key: PHASE, value: 'report' }]);
    const { reportPath } = await writeReport.executeWithOptions(
      { startToCloseTimeout: '2 minutes', retry: { maximumAttempts: 3 }, summary: 'render report.md' },
      [{ resultsDir: spec.resultsDir, runId, status: cancelled ? 'cancelled' : 'completed' }],
    );
    progress.phase = cancelled ? 'cancelled' : 'done';
    progress.reportPath = reportPath;
    upsertSearchAttributes([{ key: PHASE, value: progress.phase }]);
    return { runId, reportPath, status: cancelled ? 'cancelled' : 'completed', cells: outcomes } as MatrixResult;
  });
  // A cancelled run ends as Canceled in Temporal, after its report was written.
  if (cancelled) throw new CancelledFailure(`run ${runId} cancelled; report written to ${result.reportPath}`);
  return result;
}
