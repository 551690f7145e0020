"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.cellStep = cellStep;
exports.clickHouseFailureOf = clickHouseFailureOf;
exports.createActivities = createActivities;
/**
 * All activities, built by one factory from the worker's dependencies. Workflows import only the
 * *type* of this object (`ReturnType<typeof createActivities>`).
 *
 * One file per step, named after the step: provision → create-schema → load-data → quiesce-merges →
 * storage-stats → run-queries → materialize-skip-index → collect-metrics → write-cell-result → teardown;
 * concurrency-steps and insert-grid run the load grids (one activity per stepping step and per insert point);
 * validate-spec, discover-hosts, collect-cloud-metrics, store-run, compare-baseline, confirm-comparison and write-report belong to the matrix.
 */
const validate_spec_1 = require("./matrix/validate-spec");
const provision_1 = require("./provision");
const create_schema_1 = require("./create-schema");
const load_data_1 = require("./load-data");
const quiesce_merges_1 = require("./quiesce-merges");
const storage_stats_1 = require("./storage-stats");
const run_queries_1 = require("./run-queries");
const materialize_skip_index_1 = require("./materialize-skip-index");
const collect_metrics_1 = require("./collect-metrics");
const write_cell_result_1 = require("./write-cell-result");
const teardown_1 = require("./teardown");
const insert_grid_1 = require("./insert-grid");
const concurrency_steps_1 = require("./concurrency-steps");
const write_report_1 = require("./matrix/write-report");
const collect_cloud_metrics_1 = require("./matrix/collect-cloud-metrics");
const store_run_1 = require("./matrix/store-run");
const compare_baseline_1 = require("./matrix/compare-baseline");
const await_workflow_closed_1 = require("./matrix/await-workflow-closed");
const confirm_comparison_1 = require("./matrix/confirm-comparison");
const discover_hosts_1 = require("./matrix/discover-hosts");
const common_1 = require("@temporalio/common");
const client_1 = require("@clickhouse/client");
const failures_1 = require("../schema/failures");
const activity_context_1 = require("../temporal/activity-context");
const attempts_1 = require("./support/attempts");
const attempt_log_1 = require("./support/attempt-log");
const statement_watch_1 = require("../clickhouse/statement-watch");
/**
 * Wrap a cell step: its result also says which attempt produced it (so a figure that came from a
 * retry says so), and an unreachable server becomes a non-retryable `TargetUnavailable` failure the
 * cell workflow answers by provisioning again (retrying against a dead server cannot succeed).
 * A step whose activity was cancelled reports `CancelledFailure`, never the statement's abort error.
 */
function cellStep(name, fn) {
    return async (...a) => {
        try {
            return { ...(await fn(...a)), attempt: (0, activity_context_1.attempt)() };
        }
        catch (e) {
            // A cancelled step is reported as cancelled, whatever its statement threw on the abort (e.g.
            // "The user aborted a request."), so the cell ends Canceled rather than failed.
            const signal = (0, activity_context_1.cancellationSignal)();
            if (signal?.aborted && !(e instanceof common_1.CancelledFailure))
                throw signal.reason instanceof common_1.CancelledFailure
                    ? signal.reason
                    : new common_1.CancelledFailure(`${name} cancelled: ${String(signal.reason?.message ?? signal.reason ?? '')}`);
            if ((0, attempts_1.isTargetGone)(e))
                throw common_1.ApplicationFailure.create({
                    type: failures_1.FAILURE.TargetUnavailable,
                    nonRetryable: true,
                    message: `${name}: the ClickHouse server is unreachable (${e.message})`,
                });
            throw e;
        }
    };
}
/**
 * A ClickHouse server error of any version as the typed failure `ClickHouse.<NAME>` (details
 * `[{ code, name }]`; non-retryable for a query/schema error, see `src/schema/failures.ts`):
 * a `ClickHouseError` of `@clickhouse/client`, or an error whose message is the server's exception
 * text (18.16's `Code: 60, e.displayText() = …`). `undefined` for anything else.
 */
function clickHouseFailureOf(e) {
    if (e instanceof client_1.ClickHouseError)
        return (0, failures_1.clickHouseFailure)({ code: e.code, name: e.type, message: e.message });
    if (!(e instanceof Error) || e instanceof common_1.ApplicationFailure || !/^Code: \d+[.,] /.test(e.message))
        return undefined;
    const parsed = (0, failures_1.parseServerError)(e.message);
    return parsed ? (0, failures_1.clickHouseFailure)({ ...parsed, message: e.message }) : undefined;
}
/** Every activity reports a ClickHouse server error as `ClickHouse.<NAME>` ({@link clickHouseFailureOf}), never as a JavaScript class. */
function withClickHouseFailures(acts) {
    const out = {};
    for (const [k, fn] of Object.entries(acts))
        out[k] = async (...a) => {
            try {
                return await fn(...a);
            }
            catch (e) {
                throw clickHouseFailureOf(e) ?? e;
            }
        };
    return out;
}
/**
 * Fault-injection aid for the chaos suite: `CHBENCH_FAULT_STEP_DELAY_MS` makes every activity wait
 * that long (heartbeating) before it starts, so even sub-second steps can be hit by a kill. Unset
 * (the default) it does nothing.
 */
function withFaultDelay(acts) {
    const ms = Number(process.env.CHBENCH_FAULT_STEP_DELAY_MS ?? 0);
    if (!ms)
        return acts;
    const out = {};
    for (const [k, fn] of Object.entries(acts))
        out[k] = async (...a) => {
            await (0, activity_context_1.sleep)(ms);
            return fn(...a);
        };
    return out;
}
/**
 * Every activity runs with its own statement watcher (`src/clickhouse/statement-watch.ts`): its statements keep
 * it heartbeating with their progress, and one without progress for the cell's
 * `protocol.stuckAfterS` fails the step as `StatementStuck`. The step label starts as the activity name.
 */
function withStatementWatch(acts) {
    const out = {};
    for (const [k, fn] of Object.entries(acts))
        out[k] = (...a) => {
            const first = a[0];
            const stuckAfterS = first?.cell?.protocol?.stuckAfterS ?? first?.protocol?.stuckAfterS;
            return (0, statement_watch_1.runWatched)({ ...(stuckAfterS ? { stuckAfterS } : {}), step: k }, () => fn(...a));
        };
    return out;
}
/**
 * Build every activity. Each attempt of a cell step is logged with its outcome (and the failure as
 * Temporal receives it) in the cell's `attempts.jsonl` (`./support/attempt-log.ts`).
 */
function createActivities(deps) {
    return withFaultDelay((0, attempt_log_1.withAttemptLog)(withClickHouseFailures(withStatementWatch(buildActivities(deps)))));
}
function buildActivities(deps) {
    const { provision } = (0, provision_1.createProvision)(deps);
    const { createSchema } = (0, create_schema_1.createCreateSchema)();
    const { loadData } = (0, load_data_1.createLoadData)();
    const { quiesceMerges } = (0, quiesce_merges_1.createQuiesceMerges)();
    const { storageStats } = (0, storage_stats_1.createStorageStats)();
    const { runQueries } = (0, run_queries_1.createRunQueries)(deps);
    const { materializeSkipIndex } = (0, materialize_skip_index_1.createMaterializeSkipIndex)();
    const { collectMetrics } = (0, collect_metrics_1.createCollectMetrics)(deps);
    const { concurrencyStep } = (0, concurrency_steps_1.createConcurrencySteps)(deps);
    return {
        ...(0, validate_spec_1.createValidateSpec)(),
        provision: async (...a) => ({ ...(await provision(...a)), attempt: (0, activity_context_1.attempt)() }),
        createSchema: cellStep('createSchema', createSchema),
        loadData: cellStep('loadData', loadData),
        quiesceMerges: cellStep('quiesceMerges', quiesceMerges),
        storageStats: cellStep('storageStats', storageStats),
        runQueries: cellStep('runQueries', runQueries),
        materializeSkipIndex: cellStep('materializeSkipIndex', materializeSkipIndex),
        collectMetrics: cellStep('collectMetrics', collectMetrics),
        insertPoint: cellStep('insertPoint', (0, insert_grid_1.createInsertGrid)(deps).insertPoint),
        concurrencyStep: cellStep('concurrencyStep', concurrencyStep),
        ...(0, write_cell_result_1.createWriteCellResult)(),
        ...(0, teardown_1.createTeardown)(deps),
        ...(0, collect_cloud_metrics_1.createCollectCloudMetrics)(),
        ...(0, write_report_1.createWriteReport)(),
        ...(0, store_run_1.createStoreRun)(),
        ...(0, compare_baseline_1.createCompareBaseline)(),
        ...(0, await_workflow_closed_1.createAwaitWorkflowClosed)(deps),
        ...(0, confirm_comparison_1.createConfirmComparison)(),
        ...(0, discover_hosts_1.createDiscoverHosts)(deps),
    };
}
//# sourceMappingURL=index.js.map