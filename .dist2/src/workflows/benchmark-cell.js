"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.cellProgressQuery = void 0;
exports.benchmarkCell = benchmarkCell;
/**
 * benchmarkCell: one cell of the matrix (one version × one codec), its steps in the order of
 * `CELL_STEPS` (src/schema/cell.ts): provision → metrics (start) → schema → load → quiesce → storage →
 * baseline queries → [skip index → quiesce → index queries] → metrics (end) → result → teardown.
 * The result is written and the target torn down in a non-cancellable scope whatever happened.
 * Attempts, restarts after a lost server and progress are kept by `CellRun` (./cell-step.ts).
 */
const workflow_1 = require("@temporalio/workflow");
const failures_1 = require("../schema/failures");
const cell_step_1 = require("./cell-step");
const grids_1 = require("../schema/grids");
var cell_step_2 = require("./cell-step");
Object.defineProperty(exports, "cellProgressQuery", { enumerable: true, get: function () { return cell_step_2.cellProgressQuery; } });
/**
 * Run one cell; never throws for a measurement failure (it is recorded in the cell result).
 * @returns where the cell's `result.json` is, and its status.
 * @throws CancelledFailure when the cell was cancelled, after its result was written and its target torn down.
 */
async function benchmarkCell(cell) {
    const run = new cell_step_1.CellRun(cell);
    let end = { status: 'succeeded' };
    try {
        let prov = await run.provision();
        // A lost host takes the cell's server and data with it: provision again elsewhere and start over.
        for (;;) {
            try {
                if (prov.skipReason)
                    end = { status: 'skipped', skipReason: prov.skipReason };
                else
                    await measure(run, cell, prov);
                break;
            }
            catch (err) {
                const again = await run.afterHostLoss(err);
                if (!again)
                    throw err;
                prov = again;
            }
        }
    }
    catch (err) {
        end = (0, workflow_1.isCancellation)(err)
            ? { status: 'cancelled', error: 'cancelled by request' }
            : err instanceof cell_step_1.HostLost
                ? { status: 'failed', error: `${err.message}; the matrix runs the cell again on another host`, hostLost: true }
                : { status: 'failed', error: (0, failures_1.describeFailure)(err) };
    }
    // Results first, then teardown — both must happen even when the cell was cancelled.
    const result = await workflow_1.CancellationScope.nonCancellable(async () => {
        const r = await run.writeResult(end);
        await run.teardown(end.status, end.hostLost);
        return r;
    });
    run.finish(end.status);
    if (end.status === 'cancelled')
        throw new workflow_1.CancelledFailure(`cell ${cell.cellKey} cancelled; result kept at ${result.resultFile}`);
    return result;
}
/** The cell's steps after provisioning, in the order of `CELL_STEPS`, on the provisioned target. */
async function measure(run, cell, prov) {
    const ql = prov.server.query_log === 'available';
    await run.step('collect-metrics', cell_step_1.SHORT, 'metrics snapshot (start)', (o, si) => cell_step_1.acts.collectMetrics.executeWithOptions(o, [si, 'start']));
    await run.step('create-schema', cell_step_1.SHORT, `create table, codec ${cell.codec}`, (o, si) => cell_step_1.acts.createSchema.executeWithOptions(o, [si]));
    await run.step('load', cell_step_1.LONG, `load ${cell.scale.toLocaleString('en-US')} rows`, (o, si) => cell_step_1.acts.loadData.executeWithOptions(o, [si]));
    await run.step('quiesce', cell_step_1.LONG, 'wait for merges to settle', (o, si) => cell_step_1.acts.quiesceMerges.executeWithOptions(o, [si, 'after-load']));
    await run.step('storage', cell_step_1.SHORT, 'per-column sizes from system.parts_columns', (o, si) => cell_step_1.acts.storageStats.executeWithOptions(o, [si]));
    await run.step('queries-baseline', cell_step_1.LONG, `queries: ${cell.protocol.coldRuns} cold + ${cell.protocol.warmRuns} warm each`, (o, si) => cell_step_1.acts.runQueries.executeWithOptions(o, [si, 'baseline', ql]));
    if (cell.skipIndex) {
        await run.step('materialize-index', cell_step_1.LONG, 'ADD + MATERIALIZE INDEX, poll system.mutations', (o, si) => cell_step_1.acts.materializeSkipIndex.executeWithOptions(o, [si]));
        await run.step('quiesce-index', cell_step_1.LONG, 'wait for merges to settle after the mutation', (o, si) => cell_step_1.acts.quiesceMerges.executeWithOptions(o, [si, 'after-index']));
        await run.step('queries-index', cell_step_1.LONG, 're-run index queries', (o, si) => cell_step_1.acts.runQueries.executeWithOptions(o, [si, 'index', ql]));
    }
    // Concurrency stepping: one activity per client count, until the steps run out or a step's
    // errors or P99 say stop (nextStepDecision; the report derives the knee from the same records).
    const stepping = cell.grids?.concurrency;
    const steps = [];
    for (const [i, clients] of (stepping?.steps ?? []).entries()) {
        const input = {
            clients,
            n: i + 1,
            mix: stepping.mix ?? [],
            durationS: stepping.durationS,
            warmupS: stepping.warmupS,
        };
        steps.push(await run.step('concurrency', cell_step_1.LONG, `concurrency step ${i + 1}: ${clients} clients for ${stepping.durationS} s`, (o, si) => cell_step_1.acts.concurrencyStep.executeWithOptions(o, [si, input])));
        if (!(0, grids_1.nextStepDecision)(steps, stepping).go)
            break;
    }
    if (cell.grids?.insert)
        for (const point of (0, grids_1.insertPoints)(cell.grids.insert))
            await run.step('insert-grid', cell_step_1.LONG, `insert grid point ${point.key}`, (o, si) => cell_step_1.acts.insertPoint.executeWithOptions(o, [si, point]));
    await run.step('collect-metrics-end', cell_step_1.SHORT, 'metrics snapshot (end)', (o, si) => cell_step_1.acts.collectMetrics.executeWithOptions(o, [si, 'end']));
}
//# sourceMappingURL=benchmark-cell.js.map