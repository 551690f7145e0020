"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.storeInResultsDb = storeInResultsDb;
exports.compareWithBaseline = compareWithBaseline;
/**
 * The matrix's steps after its cells (issue "Quarterly regression runs"): store the run in the
 * results database, compare it with the spec's baseline (first pass), re-run what the first pass
 * flagged interleaved on fresh cells (`confirmComparison`), and keep only what the re-run confirms.
 * The verdict goes into the `ChbenchVerdict` search attribute and the workflow result; the details
 * into `comparison.json` and the results database.
 */
const workflow_1 = require("@temporalio/workflow");
const failures_1 = require("../schema/failures");
const search_attributes_1 = require("../schema/search-attributes");
const confirm_comparison_1 = require("./confirm-comparison");
/** Database writes and the comparison's reads: minutes at most, retried (a restarting results database). */
const DB = {
    startToCloseTimeout: '30 minutes',
    heartbeatTimeout: '1 minute',
    retry: { initialInterval: '2s', maximumAttempts: 5 },
};
const { storeRun, compareWithBaseline: firstPass, planConfirmation, finishComparison, } = (0, workflow_1.proxyActivities)(DB);
/**
 * Store the run's folder in the results database (idempotent: replaces the run's rows).
 * @returns undefined when stored, else why not (the run's files stand; `chbench results import` loads them later).
 * @throws a cancellation.
 */
async function storeInResultsDb(spec, runId) {
    try {
        await storeRun.executeWithOptions({ ...DB, summary: 'store the run in the results database' }, [
            { resultsDir: spec.resultsDir, runId, ...(spec.results ? { results: spec.results } : {}) },
        ]);
        return undefined;
    }
    catch (err) {
        if ((0, workflow_1.isCancellation)(err))
            throw err;
        const why = (0, failures_1.describeFailure)(err);
        workflow_1.log.warn('results database: the run was not stored', { runId, error: why });
        return why;
    }
}
/**
 * Compare the run with its baseline: first pass over the stored samples, the confirming re-run of
 * the flagged queries (a child workflow `<runId>/confirm`, when `confirmRounds` > 0), then the final
 * record. Sets `ChbenchVerdict`.
 * @returns the verdict and the flagged/confirmed query ids for the workflow result.
 * @throws a cancellation; other failures of the first pass or the final step (the comparison is then missing, the report says so).
 */
async function compareWithBaseline(run, spec, baseline, ctx) {
    const { runId } = ctx;
    const db = { resultsDir: spec.resultsDir, runId, ...(spec.results ? { results: spec.results } : {}) };
    run.enter('compare');
    const first = await firstPass.executeWithOptions({ ...DB, summary: `compare with the baseline (${baseline.from})` }, [
        { ...db, baseline, startedAt: ctx.startedAt, ...(ctx.scheduleId ? { scheduleId: ctx.scheduleId } : {}) },
    ]);
    let confirm = [];
    let confirmError;
    if (first.flagged.length && baseline.confirmRounds > 0) {
        run.enter('confirm');
        try {
            const pairs = await planConfirmation.executeWithOptions({ ...DB, summary: 'plan the confirming re-run' }, [
                { ...db, flagged: first.flagged },
            ]);
            confirm = await (0, workflow_1.executeChild)(confirm_comparison_1.confirmComparison, {
                workflowId: `${runId}/confirm`,
                args: [{ pairs, rounds: baseline.confirmRounds }],
                staticSummary: `confirming re-run: ${first.flagged.map((p) => p.queries.map((q) => q.query_id.toUpperCase()).join(', ')).join('; ')}, interleaved ×${baseline.confirmRounds}`,
                parentClosePolicy: workflow_1.ParentClosePolicy.REQUEST_CANCEL,
                typedSearchAttributes: [
                    { key: search_attributes_1.RUN_ID, value: runId },
                    { key: search_attributes_1.PHASE, value: 'confirm' },
                ],
            });
        }
        catch (err) {
            if ((0, workflow_1.isCancellation)(err))
                throw err;
            confirmError = (0, failures_1.describeFailure)(err);
        }
    }
    else if (first.flagged.length)
        confirmError = 'no confirming re-run: the baseline sets confirmRounds 0';
    const pairErrors = confirm.filter((c) => c.error).map((c) => `${c.pairKey}: ${c.error}`);
    const final = await finishComparison.executeWithOptions({ ...DB, summary: 'final verdict: keep what the re-run confirmed' }, [{ ...db, confirm, ...(confirmError ? { confirmError } : {}) }]);
    (0, workflow_1.upsertSearchAttributes)([{ key: search_attributes_1.VERDICT, value: final.verdict }]);
    if (first.note)
        confirmError ??= first.note;
    return {
        verdict: final.verdict,
        baselineRunId: first.baselineRunId || null,
        flagged: final.flagged,
        confirmed: final.confirmed,
        ...(confirmError || pairErrors.length
            ? { note: confirmError ?? `re-run not done for ${pairErrors.join('; ')} (first-pass flags stand, unconfirmed)` }
            : {}),
    };
}
//# sourceMappingURL=matrix-compare.js.map