"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.FOLDER_SAFE_RUN_ID = exports.RESULTS_DB = exports.HOST_PLACEMENT = exports.EVENT_BUDGET = exports.matrixProgressQuery = void 0;
exports.cellSummary = cellSummary;
exports.benchmarkMatrix = benchmarkMatrix;
/**
 * benchmarkMatrix: validate the spec, expand the matrix into cells, run one `benchmarkCell` child
 * workflow per cell (id `<runId>/<cellKey>`) with the spec's concurrency, then write the report.
 * A failed cell does not sink the others: its error is in its result and in the report.
 *
 * Input: the run spec exactly as written by the user (JSON of the YAML), so
 * `temporal workflow start --type benchmarkMatrix --task-queue chbench --input-file run.json` works.
 */
const workflow_1 = require("@temporalio/workflow");
const common_1 = require("@temporalio/common");
const matrix_1 = require("../schema/matrix");
const failures_1 = require("../schema/failures");
const run_id_1 = require("../schema/run-id");
const benchmark_cell_1 = require("./benchmark-cell");
const search_attributes_1 = require("../schema/search-attributes");
const matrix_run_1 = require("./matrix-run");
const matrix_compare_1 = require("./matrix-compare");
var matrix_run_2 = require("./matrix-run");
Object.defineProperty(exports, "matrixProgressQuery", { enumerable: true, get: function () { return matrix_run_2.matrixProgressQuery; } });
/** Spec validation and the report: quick, a few attempts; an invalid spec is final. */
const VALIDATE = {
    startToCloseTimeout: '2 minutes',
    retry: { maximumAttempts: 3, nonRetryableErrorTypes: [failures_1.FAILURE.InvalidSpec] },
};
/** Waiting for a previous start's child to close (it may still be tearing down). */
const AWAIT_CLOSED = {
    startToCloseTimeout: '30 minutes',
    heartbeatTimeout: '30 seconds',
    retry: { maximumAttempts: 5 },
};
const { validateSpec, writeReport, discoverHosts } = (0, workflow_1.proxyActivities)(VALIDATE);
const { awaitWorkflowClosed } = (0, workflow_1.proxyActivities)(AWAIT_CLOSED);
/**
 * Options of `collectCloudMetrics`: it first waits until CloudWatch's newest minute is final
 * (`cloud.settleMs` after the last cell's teardown), heartbeating, then reads every cell.
 */
function cloudMetricsOptions(settleMs) {
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
exports.EVENT_BUDGET = 2000;
/**
 * Patch id: cells of a target on the worker's host are placed on hosts (`concurrency` per host, one
 * lane per slot). Histories recorded before it ran `concurrency` lanes without placement.
 */
exports.HOST_PLACEMENT = 'host-placement';
/** How many hosts one cell may lose before it is recorded as failed rather than placed again. */
const MAX_CELL_HOST_LOSSES = 3;
/** Patch id: the run is stored in the results database (and compared with its baseline) before and after its report. */
exports.RESULTS_DB = 'results-db';
/**
 * Patch id: a matrix whose workflow id cannot name a folder (a scheduled run's `<scheduleId>-<RFC 3339
 * time>`) runs under the folder-safe run id (`runIdOfWorkflowId`): its folder, run.json, cells'
 * child workflow ids and search attributes all use that one id. Only such runs reach the patch;
 * histories recorded before it used the workflow id as is.
 */
exports.FOLDER_SAFE_RUN_ID = 'folder-safe-run-id';
/** The run id of this matrix workflow: its workflow id, made folder-safe (see {@link FOLDER_SAFE_RUN_ID}). */
function matrixRunId() {
    const workflowId = (0, workflow_1.workflowInfo)().workflowId;
    const safe = (0, run_id_1.runIdOfWorkflowId)(workflowId);
    return safe !== workflowId && (0, workflow_1.patched)(exports.FOLDER_SAFE_RUN_ID) ? safe : workflowId;
}
/** The child workflow's summary in the Temporal UI. */
function cellSummary(spec, cell) {
    return `${spec.workload} ${spec.scale.toLocaleString('en-US')} rows on ClickHouse ${cell.version}, codec ${cell.codec} (${spec.target.kind})`;
}
/**
 * Run one cell as the child workflow `<runId>/<cellKey>`. On a resumed run the cell's child from the
 * previous start may still be cleaning up: wait for it to close, then start again.
 */
async function runChildCell(spec, runId, cell) {
    // The workflow id is the cell's; the placement (which host provisions it) is not part of its identity.
    const childId = `${runId}/${cell.cellKey}`;
    const start = () => (0, workflow_1.executeChild)(benchmark_cell_1.benchmarkCell, {
        workflowId: childId,
        args: [cell],
        staticSummary: cellSummary(spec, cell),
        parentClosePolicy: workflow_1.ParentClosePolicy.REQUEST_CANCEL,
        typedSearchAttributes: [
            { key: search_attributes_1.RUN_ID, value: runId },
            { key: search_attributes_1.VERSION, value: cell.version },
            { key: search_attributes_1.CODEC, value: cell.codec },
            { key: search_attributes_1.PHASE, value: 'provision' },
        ],
    });
    return start().catch(async (err) => {
        if (!(err instanceof common_1.WorkflowExecutionAlreadyStartedError))
            throw err;
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
async function benchmarkMatrix(specInput, options = {}) {
    const workflowId = (0, workflow_1.workflowInfo)().workflowId;
    const runId = matrixRunId();
    const startedAt = new Date().toISOString();
    // Set by the schedule that started this run (`chbench schedule create`), absent otherwise.
    const scheduleId = (0, workflow_1.workflowInfo)().typedSearchAttributes?.get(search_attributes_1.SCHEDULE);
    const run = new matrix_run_1.MatrixRun(runId);
    const { reuseFailedSince, eventBudget = exports.EVENT_BUDGET } = options;
    const { spec, reused, indexQueries } = await validateSpec.executeWithOptions({ summary: 'validate run spec' }, [
        {
            spec: specInput,
            runId,
            workflowId,
            startedAt,
            ...(reuseFailedSince ? { reuseFailedSince } : {}),
            ...(scheduleId ? { scheduleId } : {}),
        },
    ]);
    const cells = (0, matrix_1.cellInputs)(spec, runId, indexQueries).map((c) => workflowId === runId ? c : { ...c, matrixWorkflowId: workflowId });
    const done = new Set(reused.map((r) => r.cellKey));
    run.plan(cells.length, reused);
    run.enter('cells');
    let cancelled;
    let continueAsNewNow = false;
    const queue = cells.filter((c) => !done.has(c.cellKey));
    // Hosts lost while one of their cells ran: no more cells are placed there.
    const lostHosts = new Set();
    const runOne = async (cell, host) => {
        run.started(cell.cellKey);
        try {
            const outcome = await runChildCell(spec, runId, host ? { ...cell, placement: host } : cell);
            for (const l of outcome.hostLosses ?? [])
                lostHosts.add(l.hostId);
            // Its host was lost before it finished: place it again (first in line), on a host with a free slot.
            if (outcome.hostLost && (outcome.hostLosses?.length ?? 0) <= MAX_CELL_HOST_LOSSES) {
                queue.unshift({ ...cell, priorHostLosses: outcome.hostLosses ?? [] });
                run.requeued(cell.cellKey);
                return;
            }
            run.recordOutcome(outcome);
        }
        catch (err) {
            // The run was cancelled, or only this cell was (then the other cells go on).
            if (workflow_1.CancellationScope.current().consideredCancelled)
                cancelled ??= err;
            const status = (0, workflow_1.isCancellation)(err) ? 'cancelled' : 'failed';
            run.recordOutcome({ cellKey: cell.cellKey, status, resultFile: '', error: String(err.message) });
        }
        run.finished(cell.cellKey);
        const info = (0, workflow_1.workflowInfo)();
        if (info.continueAsNewSuggested || info.historyLength > eventBudget)
            continueAsNewNow = true;
    };
    // Check before taking a cell off the queue: a cell taken and not run would be lost when it was the last.
    // A lane placed on a host stops when that host is lost.
    const lane = async (host) => {
        for (let c; !cancelled && !continueAsNewNow && !(host && lostHosts.has(host.id)) && (c = queue.shift());)
            await runOne(c, host);
    };
    // A target on the worker's host: `concurrency` lanes per host with a chbench worker, each placing
    // its cells on its host; when hosts are lost, look again (none left: lanes without placement).
    const placeOnHosts = (0, workflow_1.patched)(exports.HOST_PLACEMENT);
    try {
        do {
            const hosts = placeOnHosts
                ? (await discoverHosts.executeWithOptions({ summary: 'find the hosts with a chbench worker' }, [
                    { runId, taskQueue: (0, workflow_1.workflowInfo)().taskQueue, targetKind: spec.target.kind },
                ])).filter((h) => !lostHosts.has(h.id))
                : [];
            // Slots taken in turn across hosts (h1, h2, h1, h2, …): a short queue still spreads over the hosts.
            const slots = hosts.length
                ? Array.from({ length: spec.concurrency }, () => hosts).flat()
                : Array.from({ length: spec.concurrency }, () => undefined);
            await Promise.all(slots.slice(0, queue.length).map((h) => lane(h)));
        } while (placeOnHosts && !cancelled && !continueAsNewNow && queue.length > 0);
    }
    catch (err) {
        if (!(0, workflow_1.isCancellation)(err))
            throw err;
        cancelled ??= err;
    }
    if (workflow_1.CancellationScope.current().consideredCancelled)
        cancelled ??= new workflow_1.CancelledFailure('run cancelled');
    if (continueAsNewNow && !cancelled && queue.length > 0) {
        // Finished cells are in the results store; the next run reuses them (and this run's failures).
        await (0, workflow_1.continueAsNew)(specInput, {
            reuseFailedSince: reuseFailedSince ?? startedAt,
            ...(options.eventBudget ? { eventBudget } : {}),
        });
    }
    // Store the cells in the results database, then compare with the baseline (its own activities and
    // the confirming re-run's child workflow). Histories recorded before these steps replay without them.
    const storeDb = (0, workflow_1.patched)(exports.RESULTS_DB);
    let comparison;
    if (storeDb && !cancelled) {
        run.enter('store');
        await (0, matrix_compare_1.storeInResultsDb)(spec, runId);
        if (spec.baseline) {
            try {
                comparison = await (0, matrix_compare_1.compareWithBaseline)(run, spec, spec.baseline, { runId, startedAt, scheduleId });
            }
            catch (err) {
                if (!(0, workflow_1.isCancellation)(err))
                    throw err;
                cancelled ??= err;
            }
        }
    }
    // The report is written even when the run was cancelled: measured cells are kept.
    const status = cancelled ? 'cancelled' : 'completed';
    const result = await workflow_1.CancellationScope.nonCancellable(async () => {
        run.enter('report');
        // Cloud metrics and cost of the Kubernetes cells, before the report that shows them. Not on a
        // cancelled run (it would wait minutes for CloudWatch). Histories without it replay unchanged.
        if (spec.cloud && !cancelled && (0, workflow_1.patched)('cloud-metrics')) {
            const { collectCloudMetrics } = (0, workflow_1.proxyActivities)(cloudMetricsOptions(spec.cloud.settleMs));
            try {
                await collectCloudMetrics.executeWithOptions({ summary: 'CloudWatch metrics and cost per cell' }, [
                    { resultsDir: spec.resultsDir, runId },
                ]);
            }
            catch {
                // The measured cells stand without their cloud figures: the report says they are missing.
            }
        }
        const { reportPath } = await writeReport.executeWithOptions({ summary: 'render report.md' }, [
            { resultsDir: spec.resultsDir, runId, status },
        ]);
        run.progress.reportPath = reportPath;
        // Again after the report: the run's final status and end time (run.json) and its comparison.
        if (storeDb)
            await (0, matrix_compare_1.storeInResultsDb)(spec, runId);
        run.enter(cancelled ? 'cancelled' : 'done');
        return {
            runId,
            reportPath,
            status,
            cells: run.outcomes,
            ...(comparison ? { comparison } : {}),
        };
    });
    // A cancelled run ends as Canceled in Temporal, after its report was written.
    if (cancelled)
        throw new workflow_1.CancelledFailure(`run ${runId} cancelled; report written to ${result.reportPath}`);
    return result;
}
//# sourceMappingURL=benchmark-matrix.js.map