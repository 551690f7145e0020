"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * The comparison end to end on real components (dev server, worker, embedded engine, the results
 * database): run A, then run B with the skip index switched off for its measured runs and run A as
 * its baseline. B's comparison must flag and confirm exactly Q5 after the index (the only query the
 * setting slows: it reads every granule again), set `ChbenchVerdict`, and leave the record in
 * `comparison.json`, the results database and both reports.
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const node_fs_1 = require("node:fs");
const node_path_1 = __importDefault(require("node:path"));
const temporal_env_1 = require("../helpers/temporal-env");
const histories_1 = require("../helpers/histories");
const db_1 = require("../../src/results/db");
const store_1 = require("../../src/results/store");
const comparison_1 = require("../../src/schema/comparison");
let env;
(0, node_test_1.before)(async () => {
    env = await (0, temporal_env_1.startTemporalEnv)('regression');
});
(0, node_test_1.after)(async () => {
    await env?.stop();
});
const spec = (extra = {}) => ({
    name: 'e2e-regression',
    workload: 'logs',
    // 1 M rows: Q5 without its index reads every granule (several times the indexed read), far above any noise here.
    scale: 1_000_000,
    target: { kind: 'embedded' },
    matrix: { version: ['26.7'], codec: ['ZSTD(3)'] },
    queries: ['q1', 'q5'],
    protocol: { coldRuns: 1, warmupRuns: 1, warmRuns: 9, statistic: 'median' },
    resultsDir: env.resultsDir,
    ...extra,
});
/** Measured query runs (cold, warm-up, warm) in a run's result files. */
function measuredRuns(r) {
    return r.cells
        .map((c) => JSON.parse((0, node_fs_1.readFileSync)(c.resultFile, 'utf8')))
        .flatMap((c) => [c.queries_baseline, c.queries_index])
        .flatMap((p) => p?.queries ?? [])
        .reduce((n, q) => n + q.samples.length, 0);
}
(0, node_test_1.test)('A/B with the skip index off: Q5 after the index is flagged and confirmed by the interleaved re-run, nothing else', async () => {
    const a = `e2e-reg-a-${Date.now()}`;
    const ra = (await env.client.workflow.execute('benchmarkMatrix', {
        taskQueue: env.taskQueue,
        workflowId: a,
        args: [spec()],
    }));
    strict_1.default.equal(ra.status, 'completed');
    strict_1.default.equal(ra.comparison, undefined, 'no baseline in the spec: no comparison');
    const b = `e2e-reg-b-${Date.now()}`;
    const handle = await env.client.workflow.start('benchmarkMatrix', {
        taskQueue: env.taskQueue,
        workflowId: b,
        args: [
            spec({
                settings: { query: { use_skip_indexes: 0 } },
                // A shared test machine's noise must not turn a 5× slowdown into "unstable": judge up to 100 % noise.
                baseline: { from: 'run', run: a, confirmRounds: 10, unstableAbove: 1 },
            }),
        ],
    });
    const rb = (await handle.result());
    strict_1.default.equal(rb.status, 'completed');
    strict_1.default.deepEqual(rb.cells.map((c) => c.status), ['succeeded']);
    strict_1.default.equal(rb.comparison?.baselineRunId, a);
    strict_1.default.equal(rb.comparison?.verdict, 'regression', JSON.stringify(rb.comparison));
    strict_1.default.ok(rb.comparison?.flagged.includes('Q5@index'), `first pass flagged ${rb.comparison?.flagged}`);
    strict_1.default.deepEqual(rb.comparison?.confirmed, ['Q5@index']);
    // The record: Q5 after the index at least 1.5× slower with an interval above 1; the re-run measured both sides.
    const rec = comparison_1.ComparisonRecord.parse(JSON.parse((0, node_fs_1.readFileSync)(node_path_1.default.join((0, store_1.runDir)(env.resultsDir, b), 'comparison.json'), 'utf8')));
    strict_1.default.equal(rec.baseline_run_id, a);
    strict_1.default.deepEqual(rec.pairs[0].differences, ['setting use_skip_indexes: unset → 0']);
    const q5 = rec.pairs[0].queries.find((q) => q.query_id === 'q5' && q.phase === 'index');
    strict_1.default.ok(q5 && q5.ratio > 1.5 && q5.ci_low > 1, JSON.stringify(q5));
    strict_1.default.equal(q5.confirm?.confirmed, true);
    strict_1.default.ok(q5.confirm.n_baseline >= 7 && q5.confirm.n_baseline <= 10, `re-run kept ${q5.confirm?.n_baseline} of 10 rounds`);
    strict_1.default.equal(q5.final, 'regression');
    for (const q of rec.pairs[0].queries.filter((x) => x !== q5))
        strict_1.default.notEqual(q.final, 'regression', JSON.stringify(q));
    // ChbenchVerdict lists the run as regressed; the re-run is a child workflow of its own.
    const desc = await handle.describe();
    strict_1.default.deepEqual(desc.searchAttributes.ChbenchVerdict, ['regression']);
    const confirm = await env.client.workflow.getHandle(`${b}/confirm`).describe();
    strict_1.default.equal(confirm.status.name, 'COMPLETED');
    // The results database holds both runs' every measured run and the comparison.
    const db = await (0, db_1.openResultsDb)((0, db_1.resultsDbLocation)(undefined, env.resultsDir));
    try {
        const [n] = await db.query(`SELECT count() AS n FROM samples WHERE run_id IN ('${a}', '${b}')`);
        strict_1.default.equal(Number(n.n), measuredRuns(ra) + measuredRuns(rb));
        strict_1.default.equal((await db.comparison(b))?.verdict, 'regression');
        strict_1.default.equal((await db.run(b))?.status, 'completed');
    }
    finally {
        await db.close();
    }
    // Both reports say it.
    const md = (0, node_fs_1.readFileSync)(rb.reportPath, 'utf8');
    strict_1.default.match(md, /\*\*regression\*\* — confirmed by the interleaved re-run: Q5@index/);
    strict_1.default.match(md, /## Comparison with the baseline/);
    const html = (0, node_fs_1.readFileSync)(rb.reportPath.replace(/\.md$/, '.html'), 'utf8');
    strict_1.default.match(html, /<svg/);
    strict_1.default.match(html, /Q5/);
    // `CHBENCH_RECORD_HISTORIES=1` records this release's histories of a compared run (matrix with the
    // comparison steps, a cell, the confirming re-run); files are never overwritten.
    if (process.env.CHBENCH_RECORD_HISTORIES) {
        const address = env.server.address;
        (0, histories_1.saveHistory)((0, histories_1.historyFile)('benchmark-matrix'), b, (0, histories_1.showHistory)(address, b));
        (0, histories_1.saveHistory)((0, histories_1.historyFile)('benchmark-cell'), `${b}/v26.7-zstd3`, (0, histories_1.showHistory)(address, `${b}/v26.7-zstd3`));
        (0, histories_1.saveHistory)((0, histories_1.historyFile)('confirm-comparison'), `${b}/confirm`, (0, histories_1.showHistory)(address, `${b}/confirm`));
    }
});
//# sourceMappingURL=regression.test.js.map