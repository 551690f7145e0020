"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * The comparison statistics (`src/measure/compare.ts`): A/A flags nothing, a slowdown is flagged on
 * exactly the slowed queries, too few or too noisy runs are `unstable`, cells pair as documented,
 * the confirming re-run keeps only what it confirms, and the run verdict's precedence. Synthetic
 * runs are lognormal noise (seeded); one test reads the real embedded-26.7 fixture. No server.
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const node_path_1 = __importDefault(require("node:path"));
const seedrandom_1 = __importDefault(require("seedrandom"));
const compare_1 = require("../../src/measure/compare");
const comparison_1 = require("../../src/schema/comparison");
const memory_results_db_1 = require("../helpers/memory-results-db");
const OPTS = { minChange: 0.1, unstableAbove: 0.3, minRuns: 7 };
const RUN_OPTS = { ...OPTS, confirmRounds: 12 };
const QUERIES = [
    { id: 'Q1', medianMs: 12 },
    { id: 'Q2', medianMs: 80 },
    { id: 'Q3', medianMs: 450 },
    { id: 'Q4', medianMs: 35 },
    { id: 'Q5', medianMs: 300 },
    { id: 'Q5', phase: 'index', medianMs: 60 },
];
function input(a, b, extra = {}) {
    return {
        comparisonId: `${b.run.run_id}-vs-${a.run.run_id}`,
        runId: b.run.run_id,
        baselineRunId: a.run.run_id,
        baselineChosenBy: `run ${a.run.run_id}`,
        mode: { kind: 'runs' },
        baselineCells: a.cells,
        newCells: b.cells,
        baselineSamples: a.samples,
        newSamples: b.samples,
        options: RUN_OPTS,
        createdAt: '2026-01-02T00:00:00.000Z',
        ...extra,
    };
}
(0, node_test_1.test)('A/A: 200 seeds of 5 % noise at n = 7 flag nothing (false-positive rate ≤ 1 %)', () => {
    const f = (0, compare_1.simulateDetection)({ n: 7, sigma: 0.05, trueRatio: 1, seeds: 200, options: OPTS });
    strict_1.default.ok(f.rate <= 0.01, `A/A flagged ${f.rate * 100} % (${JSON.stringify(f.counts)})`);
    strict_1.default.equal(f.counts.unstable, 0, 'n = 7 at 5 % noise is decidable');
});
(0, node_test_1.test)('power: a true 1.5× slowdown with 5 % noise is detected at n = 7 and n = 15 in ≥ 95 % of 200 seeds', () => {
    for (const n of [7, 15]) {
        const f = (0, compare_1.simulateDetection)({ n, sigma: 0.05, trueRatio: 1.5, seeds: 200, options: OPTS });
        strict_1.default.ok(f.rate >= 0.95, `n=${n}: detected ${f.rate * 100} % (${JSON.stringify(f.counts)})`);
        strict_1.default.equal(f.counts.improvement, 0);
    }
});
(0, node_test_1.test)('compareSamples: a 2× slowdown is a regression with the CI above 1 + threshold, a 0.5× an improvement; reason carries the numbers', () => {
    const rng = (0, seedrandom_1.default)('x');
    const b = (0, compare_1.lognormalSamples)(rng, 10, 100, 0.05);
    const slow = (0, compare_1.compareSamples)(b, (0, compare_1.lognormalSamples)(rng, 10, 200, 0.05), { ...OPTS, seed: 1 });
    strict_1.default.equal(slow.verdict, 'regression');
    strict_1.default.ok(slow.ratio > 1.8 && slow.ratio < 2.2, String(slow.ratio));
    strict_1.default.ok(slow.ci_low > 1 + slow.threshold && slow.ci_low <= slow.ratio && slow.ratio <= slow.ci_high);
    strict_1.default.ok(slow.threshold >= 0.1, 'threshold floored at minChange');
    strict_1.default.match(slow.reason, /CI \d\.\d{3}–\d\.\d{3} above 1 \+ threshold \d\.\d{3}/);
    const fast = (0, compare_1.compareSamples)(b, (0, compare_1.lognormalSamples)(rng, 10, 50, 0.05), { ...OPTS, seed: 1 });
    strict_1.default.equal(fast.verdict, 'improvement');
    strict_1.default.ok(fast.ci_high < 1 / (1 + fast.threshold));
});
(0, node_test_1.test)('compareSamples is deterministic for a seed and its threshold tracks the baseline noise', () => {
    const rng = (0, seedrandom_1.default)('d');
    const b = (0, compare_1.lognormalSamples)(rng, 15, 100, 0.05);
    const c = (0, compare_1.lognormalSamples)(rng, 15, 104, 0.05);
    strict_1.default.deepEqual((0, compare_1.compareSamples)(b, c, { ...OPTS, seed: 7 }), (0, compare_1.compareSamples)(b, c, { ...OPTS, seed: 7 }));
    const noisy = (0, compare_1.lognormalSamples)((0, seedrandom_1.default)('n'), 15, 100, 0.12);
    const t = (0, compare_1.compareSamples)(noisy, noisy, { ...OPTS, seed: 7 }).threshold;
    strict_1.default.ok(t > 0.1, `a 12 % noise baseline learns a threshold above the 10 % floor, got ${t}`);
});
(0, node_test_1.test)('unstable: too few warm runs on a side, and a baseline whose own noise exceeds unstableAbove', () => {
    const rng = (0, seedrandom_1.default)('u');
    const few = (0, compare_1.compareSamples)((0, compare_1.lognormalSamples)(rng, 5, 100, 0.01), (0, compare_1.lognormalSamples)(rng, 9, 300, 0.01), {
        ...OPTS,
        seed: 1,
    });
    strict_1.default.equal(few.verdict, 'unstable', 'a 3× slowdown on 5 baseline runs is still not judged');
    strict_1.default.match(few.reason, /5 in the baseline, 9 in the new run \(at least 7/);
    const noisy = (0, compare_1.compareSamples)((0, compare_1.lognormalSamples)(rng, 15, 100, 0.4), (0, compare_1.lognormalSamples)(rng, 15, 100, 0.4), {
        ...OPTS,
        seed: 1,
    });
    strict_1.default.equal(noisy.verdict, 'unstable');
    strict_1.default.ok(noisy.threshold > 0.3);
    strict_1.default.match(noisy.reason, /above unstableAbove 30 %/);
    const high = (0, compare_1.simulateDetection)({ n: 7, sigma: 0.4, trueRatio: 1, seeds: 50, options: OPTS });
    strict_1.default.ok(high.counts.unstable >= 45, `40 % noise is mostly unstable: ${JSON.stringify(high.counts)}`);
});
(0, node_test_1.test)('a multi-query run: A/A flags nothing; A/B with Q2 and Q5@index 2× slower flags exactly those (and the record validates)', () => {
    const cells = [{ version: '26.7', codec: 'LZ4' }];
    const a = (0, memory_results_db_1.syntheticRun)({ runId: 'a', cells, queries: QUERIES, warm: 10, sigma: 0.05, seed: 'a' });
    for (let s = 0; s < 20; s++) {
        const a2 = (0, memory_results_db_1.syntheticRun)({ runId: `a2-${s}`, cells, queries: QUERIES, warm: 10, sigma: 0.05, seed: `a2-${s}` });
        const rec = (0, compare_1.compareRuns)(input(a, a2));
        strict_1.default.deepEqual(rec.flagged, [], `A/A seed ${s}`);
        strict_1.default.equal(rec.verdict, 'unchanged');
    }
    const b = (0, memory_results_db_1.syntheticRun)({
        runId: 'b',
        cells: [{ version: '26.7', codec: 'LZ4', settings: { max_threads: 1 } }],
        queries: QUERIES,
        warm: 10,
        sigma: 0.05,
        seed: 'b',
        slowCell: { 'v26.7-lz4': { Q2: 2 } },
    });
    // The index phase's Q5 is slowed alone: change the samples of that phase only.
    for (const s of b.samples)
        if (s.phase === 'index' && s.query_id === 'Q5')
            s.server_elapsed_ms = s.server_elapsed_ms * 2;
    const rec = comparison_1.ComparisonRecord.parse((0, compare_1.compareRuns)(input(a, b)));
    strict_1.default.deepEqual(rec.flagged, ['Q2', 'Q5@index']);
    strict_1.default.equal(rec.verdict, 'regression');
    strict_1.default.deepEqual(rec.pairs[0].differences, ['setting max_threads: unset → 1']);
    strict_1.default.equal(rec.pairs[0].pair_key, 'v26.7-lz4→v26.7-lz4');
    const q5i = rec.pairs[0].queries.find((q) => q.query_id === 'Q5' && q.phase === 'index');
    strict_1.default.equal(q5i.figure, 'server_elapsed_ms');
    strict_1.default.equal(q5i.n_baseline, 10, 'cold and warm-up runs are left out');
    const q5 = rec.pairs[0].queries.find((q) => q.query_id === 'Q5' && q.phase === 'baseline');
    strict_1.default.equal(q5.verdict, 'unchanged');
    strict_1.default.equal(q5.final, 'unchanged');
    strict_1.default.equal(q5.confirm, undefined);
});
(0, node_test_1.test)('invalid warm runs are left out, and wall time is compared when a kept run lacks a server time', () => {
    const cells = [{ version: '26.7', codec: 'LZ4' }];
    const a = (0, memory_results_db_1.syntheticRun)({
        runId: 'a',
        cells,
        queries: [{ id: 'Q1', medianMs: 100 }],
        warm: 9,
        sigma: 0.05,
        seed: 'a',
    });
    const b = (0, memory_results_db_1.syntheticRun)({
        runId: 'b',
        cells,
        queries: [{ id: 'Q1', medianMs: 100 }],
        warm: 9,
        sigma: 0.05,
        seed: 'b',
    });
    const warmB = b.samples.filter((s) => s.kind === 'warm');
    warmB[0].valid = false;
    warmB[0].server_elapsed_ms = 10_000;
    warmB[1].valid = false;
    warmB[2].server_elapsed_ms = null;
    const q = (0, compare_1.compareRuns)(input(a, b)).pairs[0].queries[0];
    strict_1.default.equal(q.n_new, 7);
    strict_1.default.equal(q.figure, 'wall_ms');
    strict_1.default.equal(q.verdict, 'unchanged');
});
(0, node_test_1.test)('the real embedded-26.7 fixture compared with itself: 3 warm runs a query is too few, every query unstable', async () => {
    const db = new memory_results_db_1.MemoryResultsDb();
    await db.storeRun(node_path_1.default.join(__dirname, '../../../test/fixtures/results/embedded-26.7'));
    const runId = db.runs[0].run_id;
    const cells = await db.cells(runId);
    const samples = await db.samples(runId);
    const rec = (0, compare_1.compareRuns)({
        comparisonId: 'self',
        runId,
        baselineRunId: runId,
        baselineChosenBy: `run ${runId}`,
        mode: { kind: 'runs' },
        baselineCells: cells,
        newCells: cells,
        baselineSamples: samples,
        newSamples: samples,
        options: RUN_OPTS,
        createdAt: '2026-01-01T00:00:00.000Z',
    });
    strict_1.default.equal(rec.pairs.length, 2);
    strict_1.default.deepEqual(rec.pairs.map((p) => p.pair_key), ['v26.7-lz4→v26.7-lz4', 'v26.7-zstd3→v26.7-zstd3']);
    const qs = rec.pairs.flatMap((p) => p.queries);
    strict_1.default.equal(qs.length, 12, '5 baseline-phase queries and q5 after the index, per cell');
    strict_1.default.ok(qs.every((q) => q.verdict === 'unstable' && q.n_baseline === 3 && q.ratio === 1 && q.figure === 'server_elapsed_ms'));
    strict_1.default.equal(rec.verdict, 'unstable');
    strict_1.default.deepEqual(rec.flagged, []);
});
(0, node_test_1.test)('pairCells: cells of a settings-profile axis pair with the same profile (across versions too)', () => {
    const cells = (runId, keys) => (0, memory_results_db_1.syntheticRun)({
        runId,
        cells: keys.map((k) => ({ version: k.slice(1, k.indexOf('-')), codec: 'LZ4' })),
        queries: [],
        warm: 0,
        sigma: 0,
        seed: runId,
    }).cells.map((c, i) => ({ ...c, cell_key: keys[i] }));
    const a = cells('a', ['v26.7-lz4-default', 'v26.7-lz4-two-threads']);
    const b = cells('b', ['v26.7-lz4-two-threads', 'v26.7-lz4-default']);
    strict_1.default.deepEqual((0, compare_1.pairCells)(a, b, { kind: 'runs' }).pairs.map((x) => `${x.baseline.cell_key}→${x.new.cell_key}`), ['v26.7-lz4-two-threads→v26.7-lz4-two-threads', 'v26.7-lz4-default→v26.7-lz4-default']);
    const m = cells('m', ['v24.8-lz4-default', 'v24.8-lz4-two-threads', 'v26.7-lz4-two-threads', 'v26.7-lz4-default']);
    strict_1.default.deepEqual((0, compare_1.pairCells)(m, m, { kind: 'version', version: '24.8' }).pairs.map((x) => `${x.baseline.cell_key}→${x.new.cell_key}`), ['v24.8-lz4-two-threads→v26.7-lz4-two-threads', 'v24.8-lz4-default→v26.7-lz4-default']);
});
(0, node_test_1.test)('pairCells: by codec, then version label, then repetition; failed cells and missing partners unpaired with reasons', () => {
    const a = (0, memory_results_db_1.syntheticRun)({
        runId: 'a',
        cells: [
            { version: '24.8', codec: 'LZ4' },
            { version: '26.7', codec: 'LZ4' },
            { version: '26.7', codec: 'ZSTD(3)' },
        ],
        queries: [],
        warm: 0,
        sigma: 0,
        seed: 'a',
    }).cells;
    const b = (0, memory_results_db_1.syntheticRun)({
        runId: 'b',
        cells: [
            { version: '26.7', codec: 'LZ4' },
            { version: '26.8', codec: 'ZSTD(3)' },
            { version: '26.8', codec: 'LZ4', status: 'failed' },
            { version: '26.8', codec: 'Delta,ZSTD' },
            { version: '25.1', codec: 'LZ4' },
        ],
        queries: [],
        warm: 0,
        sigma: 0,
        seed: 'b',
    }).cells;
    const p = (0, compare_1.pairCells)(a, b, { kind: 'runs' });
    strict_1.default.deepEqual(p.pairs.map((x) => `${x.baseline.cell_key}→${x.new.cell_key}`), ['v26.7-lz4→v26.7-lz4', 'v26.7-zstd3→v26.8-zstd3']);
    strict_1.default.deepEqual(p.pairs[0].differences, []);
    strict_1.default.deepEqual(p.pairs[1].differences, ['version 26.7 → 26.8', 'server version 26.7.1.1 → 26.8.1.1']);
    strict_1.default.deepEqual(p.unpaired.map((u) => u.cell), ['v26.8-lz4', 'v26.8-delta,zstd', 'v25.1-lz4']);
    strict_1.default.match(p.unpaired[0].reason, /^cell failed/);
    strict_1.default.match(p.unpaired[1].reason, /no succeeded baseline cell .* codec Delta,ZSTD/);
    strict_1.default.match(p.unpaired[2].reason, /^ambiguous: 2 baseline cells match \(v24\.8-lz4, v26\.7-lz4\)/);
    // Repetitions pair with the same repetition.
    const ra = (0, memory_results_db_1.syntheticRun)({
        runId: 'a',
        cells: [1, 2].map((repetition) => ({ version: '26.7', codec: 'LZ4', repetition })),
        queries: [],
        warm: 0,
        sigma: 0,
        seed: 'a',
    }).cells;
    const rb = (0, memory_results_db_1.syntheticRun)({
        runId: 'b',
        cells: [2, 1].map((repetition) => ({ version: '26.7', codec: 'LZ4', repetition })),
        queries: [],
        warm: 0,
        sigma: 0,
        seed: 'b',
    }).cells;
    strict_1.default.deepEqual((0, compare_1.pairCells)(ra, rb, { kind: 'runs' }).pairs.map((x) => `${x.baseline.cell_key}→${x.new.cell_key}`), ['v26.7-lz4-r2→v26.7-lz4-r2', 'v26.7-lz4-r1→v26.7-lz4-r1']);
});
(0, node_test_1.test)('pairCells in version mode: the baseline version\u2019s cells pair with every other version\u2019s cell of the same codec', () => {
    const run = (0, memory_results_db_1.syntheticRun)({
        runId: 'm',
        cells: ['24.8', '25.3', '26.7'].flatMap((version) => ['LZ4', 'ZSTD(3)'].map((codec) => ({ version, codec }))),
        queries: [],
        warm: 0,
        sigma: 0,
        seed: 'm',
    }).cells;
    const p = (0, compare_1.pairCells)(run, run, { kind: 'version', version: '24.8' });
    strict_1.default.deepEqual(p.pairs.map((x) => `${x.baseline.cell_key}→${x.new.cell_key}`), ['v24.8-lz4→v25.3-lz4', 'v24.8-zstd3→v25.3-zstd3', 'v24.8-lz4→v26.7-lz4', 'v24.8-zstd3→v26.7-zstd3']);
    strict_1.default.deepEqual(p.unpaired, []);
    strict_1.default.equal(p.pairs[0].differences[0], 'version 24.8 → 25.3');
    const none = (0, compare_1.pairCells)(run, run, { kind: 'version', version: '23.1' });
    strict_1.default.equal(none.pairs.length, 0);
    strict_1.default.equal(none.unpaired.length, 6);
    strict_1.default.match(none.unpaired[0].reason, /version 23\.1 \(the baseline\) is not in this run's matrix/);
});
function confirmFor(rec, factor, seed, rounds = 12) {
    const rng = (0, seedrandom_1.default)(seed);
    return (0, compare_1.flaggedQueries)(rec).map(({ pair, queries }) => ({
        pairKey: pair.pair_key,
        samples: queries.map((q) => ({
            query_id: q.query_id,
            phase: q.phase,
            baseline_ms: (0, compare_1.lognormalSamples)(rng, rounds, q.median_baseline_ms, 0.05),
            new_ms: (0, compare_1.lognormalSamples)(rng, rounds, q.median_baseline_ms * factor(q.query_id), 0.05),
            figure: 'server_elapsed_ms',
        })),
    }));
}
(0, node_test_1.test)('applyConfirmation keeps only what the interleaved re-run confirms; the run verdict follows the finals', () => {
    const cells = [{ version: '26.7', codec: 'LZ4' }];
    const q = [
        { id: 'Q1', medianMs: 50 },
        { id: 'Q2', medianMs: 80 },
        { id: 'Q3', medianMs: 120 },
    ];
    const a = (0, memory_results_db_1.syntheticRun)({ runId: 'a', cells, queries: q, warm: 10, sigma: 0.05, seed: 'a' });
    const b = (0, memory_results_db_1.syntheticRun)({
        runId: 'b',
        cells,
        queries: q,
        warm: 10,
        sigma: 0.05,
        seed: 'b',
        slow: { Q1: 2, Q2: 2, Q3: 0.5 },
    });
    const first = (0, compare_1.compareRuns)(input(a, b));
    strict_1.default.deepEqual(first.flagged, ['Q1', 'Q2', 'Q3']);
    strict_1.default.equal(first.verdict, 'regression');
    // The re-run sees Q1 slow again, Q2 back to normal (a transient), Q3 faster again.
    const done = comparison_1.ComparisonRecord.parse((0, compare_1.applyConfirmation)(first, confirmFor(first, (id) => ({ Q1: 2, Q2: 1, Q3: 0.5 })[id], 'c')));
    strict_1.default.deepEqual(done.flagged, ['Q1', 'Q2', 'Q3'], 'flagged keeps the first pass');
    strict_1.default.deepEqual(done.confirmed, ['Q1', 'Q3']);
    const byId = Object.fromEntries(done.pairs[0].queries.map((x) => [x.query_id, x]));
    strict_1.default.equal(byId.Q1.final, 'regression');
    strict_1.default.equal(byId.Q1.confirm.confirmed, true);
    strict_1.default.equal(byId.Q1.confirm.rounds, 12);
    strict_1.default.equal(byId.Q2.final, 'unchanged');
    strict_1.default.equal(byId.Q2.confirm.verdict, 'unchanged');
    strict_1.default.equal(byId.Q2.confirm.confirmed, false);
    strict_1.default.equal(byId.Q3.final, 'improvement');
    strict_1.default.equal(done.verdict, 'regression');
    strict_1.default.equal(done.confirm_error, undefined);
    // Only the improvement confirmed: the run is an improvement.
    const onlyFaster = (0, compare_1.applyConfirmation)(first, confirmFor(first, (id) => ({ Q1: 1, Q2: 1, Q3: 0.5 })[id], 'd'));
    strict_1.default.deepEqual(onlyFaster.confirmed, ['Q3']);
    strict_1.default.equal(onlyFaster.verdict, 'improvement');
    // Nothing confirmed: unchanged.
    strict_1.default.equal((0, compare_1.applyConfirmation)(first, confirmFor(first, () => 1, 'e')).verdict, 'unchanged');
    // The first pass is not modified.
    strict_1.default.equal(first.pairs[0].queries[0].confirm, undefined);
});
(0, node_test_1.test)('applyConfirmation: a failed re-run leaves the first-pass flags standing; a missing query is named; a too-short re-run is unstable', () => {
    const cells = [{ version: '26.7', codec: 'LZ4' }];
    const q = [
        { id: 'Q1', medianMs: 50 },
        { id: 'Q2', medianMs: 80 },
    ];
    const a = (0, memory_results_db_1.syntheticRun)({ runId: 'a', cells, queries: q, warm: 10, sigma: 0.05, seed: 'a' });
    const b = (0, memory_results_db_1.syntheticRun)({ runId: 'b', cells, queries: q, warm: 10, sigma: 0.05, seed: 'b', slow: { Q1: 2, Q2: 2 } });
    const first = (0, compare_1.compareRuns)(input(a, b));
    const failed = (0, compare_1.applyConfirmation)(first, [], 'cell v26.7-lz4 could not be provisioned');
    strict_1.default.equal(failed.verdict, 'regression');
    strict_1.default.deepEqual(failed.confirmed, []);
    strict_1.default.equal(failed.confirm_error, 'cell v26.7-lz4 could not be provisioned');
    strict_1.default.ok(failed.pairs[0].queries.every((x) => x.final === 'regression' && x.confirm === undefined));
    const partial = confirmFor(first, () => 2, 'p').map((c) => ({
        ...c,
        samples: c.samples.filter((s) => s.query_id === 'Q1'),
    }));
    const half = (0, compare_1.applyConfirmation)(first, partial);
    strict_1.default.deepEqual(half.confirmed, ['Q1']);
    strict_1.default.match(half.confirm_error, /no re-run samples for v26\.7-lz4→v26\.7-lz4 Q2/);
    const short = (0, compare_1.applyConfirmation)(first, confirmFor(first, () => 2, 's', 4));
    strict_1.default.ok(short.pairs[0].queries.every((x) => x.confirm?.verdict === 'unstable' && x.final === 'unstable'));
    strict_1.default.equal(short.verdict, 'unstable');
});
(0, node_test_1.test)('run verdict precedence: regression > improvement > unstable > unchanged; no pairs is unstable', () => {
    strict_1.default.equal((0, compare_1.runVerdict)(['unchanged', 'improvement', 'regression', 'unstable'], 1), 'regression');
    strict_1.default.equal((0, compare_1.runVerdict)(['unchanged', 'improvement', 'unstable'], 1), 'improvement');
    strict_1.default.equal((0, compare_1.runVerdict)(['unchanged', 'unstable'], 1), 'unstable');
    strict_1.default.equal((0, compare_1.runVerdict)(['unchanged'], 1), 'unchanged');
    strict_1.default.equal((0, compare_1.runVerdict)([], 0), 'unstable');
});
(0, node_test_1.test)('confirmSamplesOf: valid warm runs of the flagged queries, one figure for both sides', () => {
    const cells = [{ version: '26.7', codec: 'LZ4' }];
    const q = [
        { id: 'Q1', medianMs: 50 },
        { id: 'Q2', medianMs: 80 },
    ];
    const a = (0, memory_results_db_1.syntheticRun)({ runId: 'a', cells, queries: q, warm: 12, sigma: 0.05, seed: 'a' });
    const b = (0, memory_results_db_1.syntheticRun)({ runId: 'b', cells, queries: q, warm: 12, sigma: 0.05, seed: 'b' });
    b.samples.find((s) => s.kind === 'warm' && s.query_id === 'Q2').valid = false;
    const c = (0, compare_1.confirmSamplesOf)('k', [{ query_id: 'Q2', phase: 'baseline' }], a.samples, b.samples);
    strict_1.default.equal(c.pairKey, 'k');
    strict_1.default.equal(c.samples.length, 1);
    strict_1.default.equal(c.samples[0].figure, 'server_elapsed_ms');
    strict_1.default.equal(c.samples[0].baseline_ms.length, 12);
    strict_1.default.equal(c.samples[0].new_ms.length, 11);
    strict_1.default.deepEqual(c.samples[0].baseline_ms, a.samples.filter((s) => s.kind === 'warm' && s.query_id === 'Q2').map((s) => s.server_elapsed_ms));
    a.samples.find((s) => s.kind === 'warm' && s.query_id === 'Q2').server_elapsed_ms = null;
    const wall = (0, compare_1.confirmSamplesOf)('k', [{ query_id: 'Q2', phase: 'baseline' }], a.samples, b.samples).samples[0];
    strict_1.default.equal(wall.figure, 'wall_ms');
    strict_1.default.ok(wall.new_ms.every((x, i) => x === b.samples.filter((s) => s.kind === 'warm' && s.query_id === 'Q2' && s.valid)[i].wall_ms));
});
(0, node_test_1.test)("a baseline's noise threshold is its own: the same whatever run it is compared with", () => {
    const rng = (0, seedrandom_1.default)('threshold-is-the-baseline-s');
    const base = (0, compare_1.lognormalSamples)(rng, 15, 20, 0.1);
    const opts = { minChange: 0.01, unstableAbove: 10, minRuns: 7, noiseSeed: 'run-a:v26.7-lz4:Q3' };
    const t = [
        (0, compare_1.compareSamples)(base, (0, compare_1.lognormalSamples)(rng, 15, 20, 0.1), { ...opts, seed: 'pair-1' }),
        (0, compare_1.compareSamples)(base, (0, compare_1.lognormalSamples)(rng, 15, 30, 0.3), { ...opts, seed: 'pair-2' }),
    ].map((c) => c.threshold);
    strict_1.default.ok(t[0] !== null && t[0] > 0.01, `learned, above the floor: ${t[0]}`);
    strict_1.default.equal(t[0], t[1]);
});
//# sourceMappingURL=compare.test.js.map