"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.confirmComparison = confirmComparison;
/**
 * confirmComparison: the confirming re-run of a comparison's flagged queries (child workflow
 * `<runId>/confirm` of `benchmarkMatrix`). Per flagged pair, one after the other: two fresh cells —
 * the baseline's setup and the new run's — are provisioned, loaded and left to settle side by side
 * (the cell's own steps and step bookkeeping, `CellRun`), then `runInterleaved` measures the flagged
 * queries A, B, A, B …; queries after the skip index are measured after both cells have materialized
 * it. Both cells are torn down in a non-cancellable scope whatever happened. A pair that cannot be
 * re-run keeps its error (its first-pass flags then stand, marked unconfirmed).
 */
const workflow_1 = require("@temporalio/workflow");
const failures_1 = require("../schema/failures");
const cell_step_1 = require("./cell-step");
const { runInterleaved } = (0, workflow_1.proxyActivities)(cell_step_1.LONG);
/** Provision, create the table, load and wait for merges: the cell's steps up to its first measurement. */
async function setUp(run) {
    const prov = await run.provision();
    if (prov.skipReason)
        throw new Error(`${run.cell.cellKey} cannot be provisioned: ${prov.skipReason}`);
    await run.step('create-schema', cell_step_1.LONG, `create table, codec ${run.cell.codec}`, (o, si) => cell_step_1.acts.createSchema.executeWithOptions(o, [si]));
    await run.step('load', cell_step_1.LONG, `load ${run.cell.scale.toLocaleString('en-US')} rows`, (o, si) => cell_step_1.acts.loadData.executeWithOptions(o, [si]));
    await run.step('quiesce', cell_step_1.LONG, 'wait for merges to settle', (o, si) => cell_step_1.acts.quiesceMerges.executeWithOptions(o, [si, 'after-load']));
    return prov.server.query_log === 'available';
}
/** Materialize the skip index and wait for its merges, as the cell does before its index queries. */
async function buildIndex(run) {
    await run.step('materialize-index', cell_step_1.LONG, 'ADD + MATERIALIZE INDEX, poll system.mutations', (o, si) => cell_step_1.acts.materializeSkipIndex.executeWithOptions(o, [si]));
    await run.step('quiesce-index', cell_step_1.LONG, 'wait for merges to settle after the mutation', (o, si) => cell_step_1.acts.quiesceMerges.executeWithOptions(o, [si, 'after-index']));
}
/** Re-run one pair. @throws a cancellation (after teardown); any other failure becomes the outcome's `error`. */
async function confirmPair(plan, rounds) {
    const a = new cell_step_1.CellRun(plan.baseline);
    const b = new cell_step_1.CellRun(plan.candidate);
    const outcome = { pairKey: plan.pairKey, samples: [] };
    let failed;
    try {
        const [qlA, qlB] = await Promise.all([setUp(a), setUp(b)]);
        const measure = async (phase, queries) => {
            if (!queries.length)
                return;
            const samples = await runInterleaved.executeWithOptions({ ...cell_step_1.LONG, summary: `interleaved A/B: ${queries.map((q) => q.toUpperCase()).join(', ')} (${phase})` }, [
                {
                    pairKey: plan.pairKey,
                    baseline: { cell: plan.baseline, target: a.target() },
                    candidate: { cell: plan.candidate, target: b.target() },
                    queryLog: { baseline: qlA, candidate: qlB },
                    phase,
                    queries,
                    rounds,
                },
            ]);
            outcome.samples.push(...samples);
        };
        await measure('baseline', plan.phases.baseline);
        if (plan.phases.index.length) {
            await Promise.all([buildIndex(a), buildIndex(b)]);
            await measure('index', plan.phases.index);
        }
    }
    catch (err) {
        failed = err;
        outcome.error = (0, failures_1.describeFailure)(err);
    }
    await workflow_1.CancellationScope.nonCancellable(() => Promise.all([a.teardown(failed ? 'failed' : 'succeeded'), b.teardown(failed ? 'failed' : 'succeeded')]));
    if (failed && (0, workflow_1.isCancellation)(failed))
        throw failed;
    return outcome;
}
/**
 * Re-run every flagged pair, interleaved, one pair at a time (two cells at once on the machine).
 * @returns one outcome per pair, in plan order.
 * @throws CancelledFailure when cancelled (after tearing down the pair in progress).
 */
async function confirmComparison(input) {
    const out = [];
    for (const plan of input.pairs)
        out.push(await confirmPair(plan, input.rounds));
    return out;
}
//# sourceMappingURL=confirm-comparison.js.map