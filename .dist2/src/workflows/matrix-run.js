"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.MatrixRun = exports.matrixProgressQuery = void 0;
/**
 * The bookkeeping under the matrix workflow, so `benchmarkMatrix` reads as the method: its
 * `progress` query answer, the `ChbenchPhase` search attribute, and the outcomes of its cells.
 *
 * Every Temporal command here (the search-attribute upserts) is issued at the same point and in the
 * same order as when this code lived inside `benchmarkMatrix`: recorded histories replay against it.
 */
const workflow_1 = require("@temporalio/workflow");
const search_attributes_1 = require("../schema/search-attributes");
exports.matrixProgressQuery = (0, workflow_1.defineQuery)('progress');
/** One matrix run's state: progress (answered by the `progress` query from construction on) and the cells' outcomes. */
class MatrixRun {
    progress;
    /** Every cell's outcome, reused ones first, then in the order the cells ended. */
    outcomes = [];
    /** Start in phase `validate`: answers the `progress` query, upserts `ChbenchRunId` and `ChbenchPhase`. */
    constructor(runId) {
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
        (0, workflow_1.setHandler)(exports.matrixProgressQuery, () => this.progress);
        (0, workflow_1.upsertSearchAttributes)([
            { key: search_attributes_1.RUN_ID, value: runId },
            { key: search_attributes_1.PHASE, value: 'validate' },
        ]);
    }
    /** Enter a phase: the progress query and the `ChbenchPhase` search attribute show it. */
    enter(phase) {
        this.progress.phase = phase;
        (0, workflow_1.upsertSearchAttributes)([{ key: search_attributes_1.PHASE, value: phase }]);
    }
    /** The matrix has `total` cells, of which `reused` are taken from an earlier start of the run. */
    plan(total, reused) {
        this.progress.total = total;
        this.progress.reused = this.progress.done = reused.length;
        for (const r of reused)
            this.recordOutcome(r);
    }
    /** A cell's workflow starts. */
    started(cellKey) {
        this.progress.running.push(cellKey);
    }
    /** A cell ended with `outcome`: kept for the result; its key goes to the progress list of its status. */
    recordOutcome(outcome) {
        this.outcomes.push(outcome);
        this.progress[outcome.status].push(outcome.cellKey);
    }
    /** A cell's workflow ended without an outcome of its own (its host was lost): it waits to be placed again. */
    requeued(cellKey) {
        this.progress.running = this.progress.running.filter((k) => k !== cellKey);
    }
    /** A cell's workflow is over (whatever its outcome). */
    finished(cellKey) {
        this.progress.running = this.progress.running.filter((k) => k !== cellKey);
        this.progress.done++;
    }
}
exports.MatrixRun = MatrixRun;
//# sourceMappingURL=matrix-run.js.map