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
  executeChild,
  workflowInfo,
  CancellationScope,
  isCancellation,
  ParentClosePolicy,
  continueAsNew,
  CancelledFailure,
  patched,
  type ActivityOptions,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { Activities } from '../activities';
import type { CellInput, CellOutcome } from '../schema/cell';
import type { MatrixOptions, MatrixResult } from '../schema/progress';
import { cellInputs } from '../schema/matrix';
import type { RunSpec, RunSpecInput } from '../schema/run-spec';
import { FAILURE, cellOutcomeOfFailure } from '../schema/failures';
import { runIdOfWorkflowId } from '../schema/run-id';
import { benchmarkCell } from './benchmark-cell';
import { CODEC, PHASE, RUN_ID, SCHEDULE, TEMPORAL_SCHEDULED_START_TIME, VERSION } from '../schema/search-attributes';
import { MatrixRun } from './matrix-run';
import type { HostPlacement } from '../schema/host';
import { compareWithBaseline, storeInResultsDb } from './matrix-compare';

export type { MatrixProgress, MatrixResult } from '../schema/progress';
export { matrixProgressQuery } from './matrix-run';

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
const { validateSpec, writeReport, discoverHosts } = proxyActivities<Activities>(VALIDATE);
const { awaitWorkflowClosed } = proxyActivities<Activities>(AWAIT_CLOSED);

/**
 * Options of `collectCloudMetrics`: it first waits until CloudWatch's newest minute is final
 * (`cloud.settleMs` after the last cell's teardown), heartbeating, then reads every cell.
 */
function cloudMetricsOptions(settleMs: number): ActivityOptions {
  return {
    startToCloseTimeout: settleMs + 30 * 60_000,
    heartbeatTimeout: '1 minute',
    retry: { maximumAttempts: 3 },
  };
}

/**
 * Start a new run of this workflow (continue-as-new) when the server suggests it or the history
 * passes this many events, whichever comes first. A cell costs the matrix ~8 events, so a run holds ~250 cells.
 */
export const EVENT_BUDGET = 2000;

/**
 * Patch id: cells of a target on the worker's host are placed on hosts (`concurrency` per host, one
 * lane per slot). Histories recorded before it ran `concurrency` lanes without placement.
 */
export const HOST_PLACEMENT = 'host-placement';

/** How many hosts one cell may lose before it is recorded as failed rather than placed again. */
const MAX_CELL_HOST_LOSSES = 3;

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
 * Patch id: a run whose spec has `cloud` collects its cloud metrics and cost after the cells (not
 * cancelled). Histories recorded before it had no such step.
 */
export const CLOUD_METRICS = 'cloud-metrics';

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

/** The child workflow's summary in the Temporal UI. */
export function cellSummary(spec: RunSpec, cell: CellInput): string {
  return `${spec.workload} ${spec.scale.toLocaleString('en-US')} rows on ClickHouse ${cell.version}, codec ${cell.codec} (${spec.target.kind})`;
}

/**
 * Run one cell as the child workflow `<runId>/<cellKey>`. On a resumed run the cell's child from the
 * previous start may still be cleaning up: wait for it to close, then start again.
 */
async function runChildCell(spec: RunSpec, runId: string, cell: CellInput): Promise<CellOutcome> {
  // The workflow id is the cell's; the placement (which host provisions it) is not part of its identity.
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
  const cells = cellInputs(spec, runId, indexQueries, afterLoad ?? []).map((c) =>
    workflowId === runId ? c : { ...c, matrixWorkflowId: workflowId },
  );
  const done = new Set(reused.map((r) => r.cellKey));
  run.plan(cells.length, reused);
  run.enter('cells');

  let cancelled: unknown;
  let continueAsNewNow = false;
  const queue = cells.filter((c) => !done.has(c.cellKey));
  // Hosts lost while one of their cells ran: no more cells are placed there.
  const lostHosts = new Set<string>();
  const runOne = async (cell: CellInput, host?: HostPlacement): Promise<void> => {
    run.started(cell.cellKey);
    const outcome = await runChildCell(spec, runId, host ? { ...cell, placement: host } : cell).catch(
      (err: unknown): CellOutcome => {
        // A failed cell's workflow fails carrying its outcome (its result.json is written): recorded
        // like a returned one, so the run goes on (see FAILED_CELL_FAILS_WORKFLOW in ./benchmark-cell).
        const failed = cellOutcomeOfFailure(err);
        if (failed) return failed;
        // The run was cancelled, or only this cell was (then the other cells go on).
        if (CancellationScope.current().consideredCancelled) cancelled ??= err;
        const status = isCancellation(err) ? 'cancelled' : 'failed';
        return { cellKey: cell.cellKey, status, resultFile: '', error: String((err as Error).message) };
      },
    );
    for (const l of outcome.hostLosses ?? []) lostHosts.add(l.hostId);
    // Its host was lost before it finished: place it again (first in line), on a host with a free slot.
    if (outcome.hostLost && (outcome.hostLosses?.length ?? 0) <= MAX_CELL_HOST_LOSSES) {
      queue.unshift({ ...cell, priorHostLosses: outcome.hostLosses ?? [] });
      run.requeued(cell.cellKey);
      return;
    }
    run.recordOutcome(outcome);
    run.finished(cell.cellKey);
    const info = workflowInfo();
    if (info.continueAsNewSuggested || info.historyLength > eventBudget) continueAsNewNow = true;
  };
  // Check before taking a cell off the queue: a cell taken and not run would be lost when it was the last.
  // A lane placed on a host stops when that host is lost.
  const lane = async (host?: HostPlacement): Promise<void> => {
    for (
      let c: CellInput | undefined;
      !cancelled && !continueAsNewNow && !(host && lostHosts.has(host.id)) && (c = queue.shift());
    )
      await runOne(c, host);
  };
  // A target on the worker's host: `concurrency` lanes per host with a chbench worker, each placing
  // its cells on its host; when hosts are lost, look again (none left: lanes without placement).
  const placeOnHosts = patched(HOST_PLACEMENT);
  try {
    do {
      const hosts = placeOnHosts
        ? (
            await discoverHosts.executeWithOptions({ summary: 'find the hosts with a chbench worker' }, [
              { runId, taskQueue: workflowInfo().taskQueue, targetKind: spec.target.kind },
            ])
          ).filter((h) => !lostHosts.has(h.id))
        : [];
      // Slots taken in turn across hosts (h1, h2, h1, h2, …): a short queue still spreads over the hosts.
      const slots: (HostPlacement | undefined)[] = hosts.length
        ? Array.from({ length: spec.concurrency }, () => hosts).flat()
        : Array.from({ length: spec.concurrency }, () => undefined);
      await Promise.all(slots.slice(0, queue.length).map((h) => lane(h)));
    } while (placeOnHosts && !cancelled && !continueAsNewNow && queue.length > 0);
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

  // The report is written even when the run was cancelled: measured cells are kept.
  const status = cancelled ? 'cancelled' : 'completed';
  const result = await CancellationScope.nonCancellable(async () => {
    run.enter('report');
    // Cloud metrics and cost of the Kubernetes cells, before the report that shows them. Not on a
    // cancelled run (it would wait minutes for CloudWatch). Histories without it replay unchanged.
    if (spec.cloud && !cancelled && patched(CLOUD_METRICS)) {
      const { collectCloudMetrics } = proxyActivities<Activities>(cloudMetricsOptions(spec.cloud.settleMs));
      try {
        await collectCloudMetrics.executeWithOptions({ summary: 'CloudWatch metrics and cost per cell' }, [
          { resultsDir: spec.resultsDir, runId },
        ]);
      } catch {
        // The measured cells stand without their cloud figures: the report says they are missing.
      }
    }
    const { reportPath } = await writeReport.executeWithOptions({ summary: 'render report.md' }, [
      { resultsDir: spec.resultsDir, runId, status },
    ]);
    run.progress.reportPath = reportPath;
    // Again after the report: the run's final status and end time (run.json) and its comparison.
    if (storeDb) await storeInResultsDb(spec, runId);
    run.enter(cancelled ? 'cancelled' : 'done');
    return {
      runId,
      reportPath,
      status,
      cells: run.outcomes,
      ...(comparison ? { comparison } : {}),
    } satisfies MatrixResult;
  });
  // A cancelled run ends as Canceled in Temporal, after its report was written.
  if (cancelled) throw new CancelledFailure(`run ${runId} cancelled; report written to ${result.reportPath}`);
  return result;
}
