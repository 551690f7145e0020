"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * `chbench compare` (its work function `runCompare`, over the in-memory results database test
 * double) and the report's comparison section (`comparisonSection`). No server.
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const node_path_1 = __importDefault(require("node:path"));
const seedrandom_1 = __importDefault(require("seedrandom"));
const compare_1 = require("../../src/cli/compare");
const report_comparison_1 = require("../../src/results/report-comparison");
const compare_2 = require("../../src/measure/compare");
const comparison_1 = require("../../src/schema/comparison");
const memory_results_db_1 = require("../helpers/memory-results-db");
const QUERIES = [
    { id: 'Q1', medianMs: 40 },
    { id: 'Q2', medianMs: 90 },
    { id: 'Q5', phase: 'index', medianMs: 60 },
];
const CELLS = [{ version: '26.7', codec: 'LZ4' }];
/** Table cells are padded: compare with runs of spaces squashed to one. */
const squash = (t) => t.replace(/ {2,}/g, ' ');
function db3() {
    const db = new memory_results_db_1.MemoryResultsDb();
    for (const [id, slow] of [
        ['a1', undefined],
        ['a2', undefined],
        ['b', { Q2: 2 }],
        ['f', { Q1: 0.5 }],
    ]) {
        const r = (0, memory_results_db_1.syntheticRun)({ runId: id, cells: CELLS, queries: QUERIES, warm: 10, sigma: 0.05, seed: id, slow });
        db.add(r.run, r.cells, r.samples);
    }
    return db;
}
(0, node_test_1.test)('chbench compare: exit 0 for A/A and an improvement, 1 for a regression, with a table per pair and the no-re-run note', async () => {
    const db = db3();
    const open = async () => db;
    const aa = await (0, compare_1.runCompare)('a1', 'a2', { resultsDir: 'r' }, open);
    strict_1.default.equal(aa.code, compare_1.COMPARE_EXIT.noRegression);
    strict_1.default.match(aa.stdout.join('\n'), /verdict: unchanged; flagged: none/);
    const ab = await (0, compare_1.runCompare)('a1', 'b', { resultsDir: 'r' }, open);
    strict_1.default.equal(ab.code, compare_1.COMPARE_EXIT.regression);
    const text = squash(ab.stdout.join('\n'));
    strict_1.default.match(text, /^baseline run a1 → new run b/);
    strict_1.default.match(text, /\| query \| source \| runs \(base\/new\) \| baseline median \| new median \| ratio \[95 % CI\] \| threshold \| first pass \|/);
    strict_1.default.match(text, /\| Q2 \| server-side elapsed \| 10\/10 \| \d+\.\d ms \| 1\d\d\.\d ms \| [12]\.\d{3}× \[\d\.\d{3}–\d\.\d{3}\] \| ±\d+\.\d % \| \*\*regression\*\* \|/);
    strict_1.default.match(text, /Q5 \(after index\)/);
    strict_1.default.match(text, /does no confirming re-run/);
    strict_1.default.match(text, /verdict: regression; flagged: Q2\nnote/);
    strict_1.default.doesNotMatch(text, /\| re-run \|/);
    const imp = await (0, compare_1.runCompare)('a1', 'f', { resultsDir: 'r', json: true }, open);
    strict_1.default.equal(imp.code, compare_1.COMPARE_EXIT.noRegression);
    const rec = comparison_1.ComparisonRecord.parse(JSON.parse(imp.stdout.join('\n')));
    strict_1.default.equal(rec.verdict, 'improvement');
    strict_1.default.deepEqual(rec.flagged, ['Q1']);
    // --min-change 1.5 (150 %): the 2× slowdown no longer counts.
    strict_1.default.equal((await (0, compare_1.runCompare)('a1', 'b', { resultsDir: 'r', minChange: '1.5' }, open)).code, compare_1.COMPARE_EXIT.noRegression);
    strict_1.default.ok(db.closed);
});
(0, node_test_1.test)('chbench compare: exit 2 for an unknown run, a bad --min-change, an unreadable database; exit 3 when nothing could be decided', async () => {
    const db = db3();
    const open = async () => db;
    const unknown = await (0, compare_1.runCompare)('a1', 'zz', { resultsDir: 'r' }, open);
    strict_1.default.equal(unknown.code, compare_1.COMPARE_EXIT.invalid);
    strict_1.default.match(unknown.stderr[0], /no run zz in the results database \(in-memory test double\)/);
    strict_1.default.equal((await (0, compare_1.runCompare)('a1', 'b', { resultsDir: 'r', minChange: 'lots' }, open)).code, compare_1.COMPARE_EXIT.invalid);
    strict_1.default.equal((await (0, compare_1.runCompare)('a1', 'b', { resultsDir: 'r', minChange: '-1' }, open)).code, compare_1.COMPARE_EXIT.invalid);
    const broken = await (0, compare_1.runCompare)('a1', 'b', { resultsDir: 'r' }, async () => {
        throw new Error('connection refused');
    });
    strict_1.default.equal(broken.code, compare_1.COMPARE_EXIT.invalid);
    strict_1.default.match(broken.stderr[0], /cannot open the results database of r: connection refused/);
    // The real embedded-26.7 folder has 3 warm runs a query: every query unstable.
    await db.storeRun(node_path_1.default.join(__dirname, '../../../test/fixtures/results/embedded-26.7'));
    // The same rows again as a second run (a run is never compared with itself: exit 2).
    const [fr] = db.runs.filter((r) => r.run_id === 'demo-20261130-064639');
    const again = (x) => ({ ...x, run_id: 'demo-again' });
    db.add(again(fr), db.cellRows.filter((c) => c.run_id === fr.run_id).map((c) => again(c)), db.sampleRows.filter((x) => x.run_id === fr.run_id).map((x) => again(x)));
    strict_1.default.equal((await (0, compare_1.runCompare)(fr.run_id, fr.run_id, { resultsDir: 'r' }, open)).code, compare_1.COMPARE_EXIT.invalid);
    const real = await (0, compare_1.runCompare)('demo-20261130-064639', 'demo-again', { resultsDir: 'r' }, open);
    strict_1.default.equal(real.code, compare_1.COMPARE_EXIT.undecided);
    strict_1.default.match(real.stdout.join('\n'), /too few valid warm runs to decide: 3 in the baseline, 3 in the new run/);
    // A run whose cells pair with nothing: also undecided.
    const other = (0, memory_results_db_1.syntheticRun)({
        runId: 'o',
        cells: [{ version: '26.7', codec: 'ZSTD(3)' }],
        queries: QUERIES,
        warm: 10,
        sigma: 0.05,
        seed: 'o',
    });
    db.add(other.run, other.cells, other.samples);
    const none = await (0, compare_1.runCompare)('a1', 'o', { resultsDir: 'r' }, open);
    strict_1.default.equal(none.code, compare_1.COMPARE_EXIT.undecided);
    strict_1.default.match(none.stdout.join('\n'), /unpaired: v26\.7-zstd3: no succeeded baseline cell/);
});
(0, node_test_1.test)('comparisonSection: baseline and how chosen, method, sources, one table per pair with re-run and final, flagged and confirmed', async () => {
    const db = db3();
    const [a, b] = ['a1', 'b'];
    const first = (0, compare_2.compareRuns)({
        comparisonId: 'b-vs-a1',
        runId: b,
        baselineRunId: a,
        baselineChosenBy: 'previous successful run of schedule quarterly (started 2026-01-01T00:00:00.000Z)',
        mode: { kind: 'runs' },
        baselineCells: await db.cells(a),
        newCells: await db.cells(b),
        baselineSamples: await db.samples(a),
        newSamples: await db.samples(b),
        options: { minChange: 0.1, unstableAbove: 0.3, minRuns: 7, confirmRounds: 12 },
        createdAt: '2026-04-01T00:00:00.000Z',
    });
    const rng = (0, seedrandom_1.default)('c');
    const record = (0, compare_2.applyConfirmation)(first, (0, compare_2.flaggedQueries)(first).map(({ pair, queries }) => ({
        pairKey: pair.pair_key,
        samples: queries.map((q) => ({
            query_id: q.query_id,
            phase: q.phase,
            baseline_ms: (0, compare_2.lognormalSamples)(rng, 12, 90, 0.05),
            new_ms: (0, compare_2.lognormalSamples)(rng, 12, 180, 0.05),
            figure: 'server_elapsed_ms',
        })),
    })));
    const md = squash((0, report_comparison_1.comparisonSection)(record).join('\n'));
    strict_1.default.match(md, /^## Comparison with the baseline/);
    strict_1.default.match(md, /Baseline: run `a1` \(chosen by: previous successful run of schedule quarterly/);
    strict_1.default.match(md, /Verdict: \*\*regression\*\*\. Flagged by the first pass: Q2; confirmed by the re-run: Q2\./);
    strict_1.default.match(md, /percentile bootstrap 2000 resamples/);
    strict_1.default.match(md, /valid warm runs/);
    strict_1.default.match(md, /\*\*server-side elapsed\*\* time when every kept run of both sides has one, else \*\*client wall\*\*/);
    strict_1.default.match(md, /interleaved \(A, B, A, B …, 12 rounds\)/);
    strict_1.default.match(md, /### v26\.7-lz4 → v26\.7-lz4/);
    strict_1.default.match(md, /\| query \| source \| runs \(base\/new\) \| baseline median \| new median \| ratio \[95 % CI\] \| threshold \| first pass \| re-run \| final \|/);
    strict_1.default.match(md, /\| Q2 \| server-side elapsed \|.*\*\*regression\*\* \| [12]\.\d{3}× \[\d\.\d{3}–\d\.\d{3}\] regression \(12 rounds, confirms\) \| \*\*regression\*\* \|/);
    strict_1.default.match(md, /\| Q1 \| server-side elapsed \|.*\| unchanged \| – \| unchanged \|/);
    strict_1.default.match(md, /- Q2: ratio .* above 1 \+ threshold .*; re-run \(server-side elapsed, interleaved\)/);
    strict_1.default.match(md, /Differences: none declared/);
    // A re-run that failed: flags stand, marked unconfirmed.
    const failed = (0, report_comparison_1.comparisonSection)((0, compare_2.applyConfirmation)(first, [], 'provisioning failed')).join('\n');
    strict_1.default.match(failed, /Re-run problem: provisioning failed\./);
    strict_1.default.match(failed, /not re-run \(unconfirmed\)/);
});
(0, node_test_1.test)('comparisonSection: no baseline is one sentence with the reason', () => {
    const rec = {
        schema: 'chbench.comparison/v1',
        comparison_id: 'x-vs-none',
        run_id: 'x',
        baseline_run_id: '',
        baseline_chosen_by: 'no baseline: previous successful run of schedule q: none started before 2026-01-01T00:00:00.000Z (this is its first completed run)',
        method: 'm',
        options: {
            minChange: 0.1,
            unstableAbove: 0.3,
            confidence: 0.95,
            resamples: 2000,
            minRuns: 7,
            confirmRounds: 12,
            seed: 1,
        },
        pairs: [],
        unpaired: [],
        flagged: [],
        confirmed: [],
        verdict: 'no-baseline',
        created_at: '2026-01-01T00:00:00.000Z',
    };
    strict_1.default.deepEqual((0, report_comparison_1.comparisonSection)(rec), [
        '## Comparison with the baseline',
        '',
        'No comparison: no baseline found — previous successful run of schedule q: none started before 2026-01-01T00:00:00.000Z (this is its first completed run).',
        '',
    ]);
});
//# sourceMappingURL=compare-cli-report.test.js.map