"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * The regression demo (`npm run demo:regression`): a quarterly schedule, triggered three times.
 *
 * 1. Start a Temporal dev server with its Web UI (unless TEMPORAL_ADDRESS is set) and a worker.
 * 2. Create the schedule `regression-demo-<time>` with `examples/regression.yaml` (baseline: the
 *    previous successful run of this schedule) and trigger it: run 1 has no baseline yet.
 * 3. Trigger it again: run 2 is compared with run 1 — an A/A comparison, which must flag nothing.
 * 4. Replace the schedule's spec with `examples/regression-slow.yaml` (the skip index switched off for
 *    the measured runs) and trigger it: run 3 is compared with run 2 — an A/B comparison, which must
 *    flag exactly the queries the profile slowed. Which queries those are is read from the runs'
 *    read_rows (the profile makes them read more rows), not from any timing.
 * 5. Print `regression demo: A/A flagged 0 of N; A/B flagged <ids> (slowed <ids>); confirmed by re-run <ids>; report <path>`
 *    ("flagged": the first pass, per pair and query; "confirmed": what the interleaved re-run kept) — the
 *    check is that nothing stays flagged in A/A and exactly the slowed queries do in A/B
 *    and check that `SELECT count() FROM samples` in the results database equals the measured runs
 *    in the three runs' result files.
 *
 * REGRESSION_DEMO_SCALE overrides the rows (CI runs it small). With `--keep` the dev server and its Web
 * UI stay up (Ctrl-C ends): the schedule, the three runs with `ChbenchSchedule`/`ChbenchVerdict` and
 * the confirming re-run are there. Exit code 1 when a check fails.
 */
const node_path_1 = __importDefault(require("node:path"));
const node_fs_1 = require("node:fs");
const config_1 = require("./config");
const demo_env_1 = require("./demo-env");
const spec_file_1 = require("./lib/spec-file");
const validate_spec_1 = require("./activities/matrix/validate-spec");
const schedules_1 = require("./temporal/schedules");
const poll_1 = require("./lib/poll");
const db_1 = require("./results/db");
const sql_1 = require("./lib/sql");
const store_1 = require("./results/store");
/** A spec file with the demo's scale applied. */
function specOf(file) {
    const raw = (0, spec_file_1.readSpecFile)(node_path_1.default.join(config_1.REPO_ROOT, 'examples', file));
    const scale = Number(process.env.REGRESSION_DEMO_SCALE ?? 0);
    return scale > 0 ? { ...raw, scale } : raw;
}
/** Trigger the schedule and wait for the run it started. @throws Error when no new run appears within 60 s. */
async function triggerAndWait(client, scheduleId, label) {
    const before = new Set((await (0, schedules_1.listScheduledRuns)(client, scheduleId)).map((r) => r.workflowId));
    await (0, schedules_1.triggerSchedule)(client, scheduleId);
    const started = await (0, poll_1.pollUntil)(async () => (await (0, schedules_1.listScheduledRuns)(client, scheduleId)).find((r) => !before.has(r.workflowId)), { timeoutMs: 60_000, intervalMs: 500, what: `the run started by triggering ${scheduleId}` });
    const t0 = Date.now();
    console.error(`regression demo: ${label}: run ${started.workflowId} started`);
    const r = (await client.workflow.getHandle(started.workflowId).result());
    const c = r.comparison;
    console.error(`regression demo: ${label}: ${r.status} in ${((Date.now() - t0) / 1000).toFixed(0)} s; cells ${r.cells.map((x) => `${x.cellKey} ${x.status}`).join(', ')}; ` +
        (c
            ? `verdict ${c.verdict}${c.baselineRunId ? ` against ${c.baselineRunId}` : ''}; first pass flagged ${c.flagged.join(', ') || 'nothing'}; confirmed ${c.confirmed.join(', ') || 'nothing'}${c.note ? ` (${c.note})` : ''}`
            : 'no comparison'));
    if (r.cells.some((x) => x.status !== 'succeeded'))
        throw new Error(`${label}: not every cell succeeded`);
    return r;
}
/** Median of a list (numbers). */
function median(xs) {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}
/**
 * The queries a comparison's new run read more rows for than its baseline (warm runs' median
 * read_rows up by more than half), as comparison ids (`Q5@index`): what the slowdown profile changed,
 * known without looking at a timing.
 */
function slowedByReadRows(resultsDir, c) {
    const out = new Set();
    const cellOf = (runId, cellKey) => JSON.parse((0, node_fs_1.readFileSync)(node_path_1.default.join((0, store_1.runDir)(resultsDir, runId), 'cells', cellKey, 'result.json'), 'utf8'));
    for (const p of c.pairs) {
        const a = cellOf(p.baseline_run, p.baseline_cell);
        const b = cellOf(p.new_run, p.new_cell);
        for (const phase of ['baseline', 'index']) {
            const rec = (r) => (phase === 'baseline' ? r.queries_baseline : r.queries_index);
            for (const qb of rec(b)?.queries ?? []) {
                const qa = rec(a)?.queries.find((q) => q.id === qb.id);
                const rows = (q) => median(q.samples.filter((s) => s.kind === 'warm' && s.read_rows !== null).map((s) => s.read_rows));
                if (qa && rows(qb) > 1.5 * rows(qa))
                    out.add(`${qb.id.toUpperCase()}${phase === 'index' ? '@index' : ''}`);
            }
        }
    }
    return [...out].sort();
}
/** Measured query runs (cold, warm-up and warm) in a run's result files. */
function measuredRuns(r) {
    let n = 0;
    for (const cell of r.cells) {
        const res = JSON.parse((0, node_fs_1.readFileSync)(cell.resultFile, 'utf8'));
        for (const rec of [res.queries_baseline, res.queries_index])
            for (const q of rec?.queries ?? [])
                n += q.samples.length;
    }
    return n;
}
async function main() {
    const keep = process.argv.includes('--keep');
    const a = specOf('regression.yaml');
    const b = specOf('regression-slow.yaml');
    for (const [name, s] of [
        ['regression.yaml', a],
        ['regression-slow.yaml', b],
    ]) {
        const { problems } = (0, validate_spec_1.checkSpec)(s);
        if (problems.length)
            throw new Error(`invalid spec ${name}:\n  - ${problems.join('\n  - ')}`);
    }
    const env = await (0, demo_env_1.startDemoEnv)('regression demo');
    const { client, cfg, server } = env;
    let failed = false;
    try {
        const scheduleId = `regression-demo-${new Date().toISOString().replace(/[-:]/g, '').slice(0, 15).toLowerCase()}`;
        await (0, schedules_1.createSchedule)(client, {
            scheduleId,
            spec: a,
            check: validate_spec_1.checkSpec,
            when: { calendar: 'quarterly' },
            taskQueue: cfg.taskQueue,
            note: 'chbench regression demo',
        });
        console.error(`regression demo: schedule ${scheduleId} (quarterly; triggered by hand here)`);
        const first = await triggerAndWait(client, scheduleId, 'run 1 (first of the schedule, no baseline)');
        const aa = await triggerAndWait(client, scheduleId, 'run 2 (A/A)');
        await (0, schedules_1.updateScheduleSpec)(client, scheduleId, b, validate_spec_1.checkSpec);
        const ab = await triggerAndWait(client, scheduleId, 'run 3 (A/B, skip index off)');
        await (0, schedules_1.pauseSchedule)(client, scheduleId, 'regression demo done');
        const resultsDir = String(a.resultsDir ?? 'results');
        const record = (r) => JSON.parse((0, node_fs_1.readFileSync)(node_path_1.default.join((0, store_1.runDir)(resultsDir, r.runId), 'comparison.json'), 'utf8'));
        const aaRec = record(aa);
        const abRec = record(ab);
        const compared = aaRec.pairs.reduce((n, p) => n + p.queries.length, 0);
        const slowed = slowedByReadRows(resultsDir, abRec);
        // "Flagged" is the first pass; what the interleaved re-run confirmed is what stays flagged.
        const abConfirmed = [...new Set(ab.comparison?.confirmed ?? [])].sort();
        const abFirst = [...new Set(ab.comparison?.flagged ?? [])].sort();
        const aaFirst = aaRec.pairs.flatMap((p) => p.queries.filter((q) => q.verdict === 'regression' || q.verdict === 'improvement'));
        const aaConfirmed = aa.comparison?.confirmed ?? [];
        console.log(`regression demo: A/A flagged ${aaFirst.length} of ${compared}${aaFirst.length ? ` (confirmed by re-run: ${aaConfirmed.join(', ') || 'none'})` : ''}; ` +
            `A/B flagged ${abFirst.join(', ') || 'none'} (slowed ${slowed.join(', ') || 'none'}); confirmed by re-run ${abConfirmed.join(', ') || 'none'}; report ${ab.reportPath.replace(/\.md$/, '.html')}`);
        if (aaConfirmed.length) {
            failed = true;
            console.error(`regression demo: FAILED: the A/A comparison kept ${aaConfirmed.join(', ')} flagged after its re-run`);
        }
        if (abConfirmed.join() !== slowed.join()) {
            failed = true;
            console.error(`regression demo: FAILED: the A/B comparison kept ${abConfirmed.join(', ') || 'nothing'}, the profile slowed ${slowed.join(', ') || 'nothing'}`);
        }
        // The results database holds every measured run of the three runs (and of earlier runs in this results directory).
        await (0, db_1.withResultsDb)(undefined, resultsDir, async (db) => {
            const runs = [first, aa, ab];
            const inDb = await db.query(`SELECT count() AS n FROM samples WHERE run_id IN (${runs.map((r) => (0, sql_1.sqlString)(r.runId)).join(', ')})`);
            const inFiles = runs.reduce((n, r) => n + measuredRuns(r), 0);
            console.error(`regression demo: results database (${db.description}): samples of the three runs ${inDb[0]?.n}, measured runs in their result files ${inFiles}`);
            if (Number(inDb[0]?.n) !== inFiles) {
                failed = true;
                console.error('regression demo: FAILED: the results database does not hold every measured run');
            }
        });
        if (keep && server) {
            console.error(`regression demo: Web UI ${server.uiUrl} (schedule ${scheduleId}); Ctrl-C to stop`);
            await new Promise((resolve) => process.once('SIGINT', () => resolve()));
        }
    }
    finally {
        await env.stop();
    }
    if (failed)
        process.exitCode = 1;
}
main().catch((e) => {
    console.error(`regression demo failed: ${e.stack ?? e}`);
    process.exit(1);
});
//# sourceMappingURL=demo-regression.js.map