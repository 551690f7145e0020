/**
 * benchmarkMatrix: validate the spec, expand the matrix into cells, run one `benchmarkCell` child
 * workflow per cell (id `<runId>/<cellKey>`) with the spec's concurrency, then write the report.
 * A failed cell does not sink the others: its workflow fails (Failed in the Web UI) carrying its
 * outcome, the matrix records it, its error is in its result and in the report, and the matrix completes.
 *
 * Input: the run spec exactly as written by the user (JSON of the YAML), so
 * `temporal workflow start --type benchmarkMatrix --task-queue chbench --input-file run.json` works.
 */
import {
  proxyActivities,
  workflowInfo,
  CancellationScope,
  isCancellation,
  continueAsNew,
  CancelledFailure,
  patched,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { MatrixOptions, MatrixResult } from '../schema/progress';
import { cellInputs, isComparing, matrixAxes, wantsControl } from '../schema/matrix';
import type { RunSpecInput } from '../schema/run-spec';
import { FAILURE } from '../schema/failures';
import { runIdOfWorkflowId } from '../schema/run-id';
import { SCHEDULE, TEMPORAL_SCHEDULED_START_TIME } from '../schema/search-attributes';
import { MatrixRun } from './matrix-run';
import { compareWithBaseline, storeInResultsDb } from './matrix-compare';
import { runCells } from './matrix-cells';
import { finishWithReport } from './matrix-report';
import { judgeMatrixVerdicts } from './matrix-verdicts';

export type { MatrixProgress, MatrixResult } from '../schema/progress';
export { matrixProgressQuery } from './matrix-run';
export { HOST_PLACEMENT, cellSummary } from './matrix-cells';
export { CLOUD_METRICS_STEP } from './matrix-report';

/** Spec validation and the report: quick, a few attempts; an invalid spec is final. */
const VALIDATE: ActivityOptions = {
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 3, nonRetryableErrorTypes: [FAILURE.InvalidSpec] },
};
const { validateSpec } = proxyActivities<Activities>(VALIDATE);

/**
 * Start a new run of this workflow (continue-as-new) when the server suggests it or the history
 * passes this many events, whichever comes first. A cell costs the matrix ~8 events, so a run holds ~250 cells.
 */
export const EVENT_BUDGET = 2000;

/** Patch id: the run is stored in the results database (and compared with its baseline) before and after its report. */
export const RESULTS_DB = 'results-db';

/**
 * Patch id: a matrix whose workflow id cannot name a folder (a scheduled run's `<scheduleId>-<RFC 3339
 * time>`) runs under the folder-safe run id (`runIdOfWorkflowId`): its folder, run.json, cells'
 * child workflow ids and search attributes all use that one id. Only such runs reach the patch;
 * histories recorded before it used the workflow id as is.
 */
export const FOLDER_SAFE_RUN_ID = 'folder-safe-run-id';

/**
 * Patch id: a matrix that compares setups (an axis with two values or more) measures its reference cell a
 * second time as the A/A control (`…-r2`, `verdicts.control`). Histories recorded before it expand without it.
 */
export const AA_CONTROL = 'aa-control';

/** Patch id: a comparing matrix judges its axes after its cells (`verdicts.json`, the Decision). Histories recorded before it replay without the step. */
export const AXIS_VERDICTS = 'axis-verdicts';

/** The run id of this matrix workflow: its workflow id, made folder-safe (see {@link FOLDER_SAFE_RUN_ID}). */
function matrixRunId(): string {
  const workflowId = workflowInfo().workflowId;
  const safe = runIdOfWorkflowId(workflowId);
  return safe !== workflowId && patched(FOLDER_SAFE_RUN_ID) ? safe : workflowId;
}

/**
 * When the schedule that started this run wanted it to start (ISO), from Temporal's search attribute
 * `TemporalScheduledStartTime` on the workflow; undefined for a run started by hand. Read from the
 * workflow's start info, so it is deterministic (no command).
 */
function scheduledStartOfRun(): string | undefined {
  const info = workflowInfo();
  const typed = info.typedSearchAttributes?.get(TEMPORAL_SCHEDULED_START_TIME);
  // Fallback (deprecated map) when the server's payload carries no type metadata for the typed one.
  const legacy = info.searchAttributes?.[TEMPORAL_SCHEDULED_START_TIME.name]?.[0];
  const v: unknown = typed ?? legacy;
  const d = v instanceof Date ? v : typeof v === 'string' ? new Date(v) : undefined;
  return d && !Number.isNaN(d.getTime()) ? d.toISOString() : undefined;
}

/**
 * Run a benchmark matrix. Cells whose result is already in the results store (an earlier start of
 * the same run id) are reused, not run again: starting the workflow again with the same workflow id,
 * spec and workload files resumes a run. The run id is the workflow id, made folder-safe for a
 * scheduled run ({@link FOLDER_SAFE_RUN_ID}). @throws ApplicationFailure `InvalidSpec` before anything is provisioned.
 */
export async function benchmarkMatrix(specInput: RunSpecInput, options: MatrixOptions = {}): Promise<MatrixResult> {
  const workflowId = workflowInfo().workflowId;
  const runId = matrixRunId();
  const startedAt = new Date().toISOString();
  // Set by the schedule that started this run (`chbench schedule create`), absent otherwise.
  const scheduleId = workflowInfo().typedSearchAttributes?.get(SCHEDULE);
  const scheduledStart = scheduledStartOfRun();
  const run = new MatrixRun(runId);

  const { reuseFailedSince, eventBudget = EVENT_BUDGET } = options;
  const { spec, reused, indexQueries, afterLoad } = await validateSpec.executeWithOptions(
    { summary: 'validate run spec' },
    [
      {
        spec: specInput,
        runId,
        workflowId,
        startedAt,
        ...(reuseFailedSince ? { reuseFailedSince } : {}),
        ...(scheduleId ? { scheduleId } : {}),
        ...(scheduledStart ? { scheduledStart } : {}),
      },
    ],
  );
  // Only a comparing spec reaches the patch: every other history (and command) stays as it was.
  const control = wantsControl(spec) && patched(AA_CONTROL);
  const cells = cellInputs(spec, runId, indexQueries, afterLoad ?? [], { control }).map((c) =>
    workflowId === runId ? c : { ...c, matrixWorkflowId: workflowId },
  );
  const done = new Set(reused.map((r) => r.cellKey));
  run.plan(cells.length, reused);
  run.enter('cells');

  // The cells, in lanes (placed on hosts where the target runs on the worker's host).
  const queue = cells.filter((c) => !done.has(c.cellKey));
  const lanes = await runCells(spec, runId, queue, run, eventBudget);
  let cancelled = lanes.cancelled;
  const continueAsNewNow = lanes.continueAsNewNow;
  if (CancellationScope.current().consideredCancelled) cancelled ??= new CancelledFailure('run cancelled');

  if (continueAsNewNow && !cancelled && queue.length > 0) {
    // Finished cells are in the results store; the next run reuses them (and this run's failures).
    await continueAsNew<typeof benchmarkMatrix>(specInput, {
      reuseFailedSince: reuseFailedSince ?? startedAt,
      ...(options.eventBudget ? { eventBudget } : {}),
    });
  }

  // Store the cells in the results database, then compare with the baseline (its own activities and
  // the confirming re-run's child workflow). Histories recorded before these steps replay without them.
  const storeDb = patched(RESULTS_DB);
  let comparison: MatrixResult['comparison'];
  if (storeDb && !cancelled) {
    run.enter('store');
    await storeInResultsDb(spec, runId);
    if (spec.baseline) {
      try {
        comparison = await compareWithBaseline(run, spec, spec.baseline, { runId, startedAt, scheduleId });
      } catch (err) {
        if (!isCancellation(err)) throw err;
        cancelled ??= err;
      }
    }
  }

  // The matrix's own verdicts: every axis against its reference, beside the A/A control, confirmed interleaved.
  let verdicts: MatrixResult['verdicts'];
  if (!cancelled && isComparing(matrixAxes(spec)) && patched(AXIS_VERDICTS)) {
    try {
      verdicts = await judgeMatrixVerdicts(run, spec, runId);
    } catch (err) {
      if (!isCancellation(err)) throw err;
      cancelled ??= err;
    }
  }

  // The report is written even when the run was cancelled: measured cells are kept.
  const status = cancelled ? 'cancelled' : 'completed';
  const result = await CancellationScope.nonCancellable(() =>
    finishWithReport(run, spec, {
      runId,
      status,
      storeDb,
      ...(comparison ? { comparison } : {}),
      ...(verdicts ? { verdicts } : {}),
    }),
  );
  // A cancelled run ends as Canceled in Temporal, after its report was written.
  if (cancelled) throw new CancelledFailure(`run ${runId} cancelled; report written to ${result.reportPath}`);
  return result;
}
