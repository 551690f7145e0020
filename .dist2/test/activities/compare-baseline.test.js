"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * The comparison activities in `MockActivityEnvironment`, over the in-memory results database test
 * double (`test/helpers/memory-results-db.ts`): baseline resolution (run id, previous scheduled run,
 * version label, none), `comparison.json` written and stored, the small summary, and the confirming
 * re-run applied by `finishComparison`. The real embedded-26.7 results folder is stored when the run
 * is not yet in the database.
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const node_fs_1 = require("node:fs");
const node_os_1 = require("node:os");
const node_path_1 = __importDefault(require("node:path"));
const seedrandom_1 = __importDefault(require("seedrandom"));
const testing_1 = require("@temporalio/testing");
const compare_baseline_1 = require("../../src/activities/matrix/compare-baseline");
const run_spec_1 = require("../../src/schema/run-spec");
const comparison_1 = require("../../src/schema/comparison");
const compare_1 = require("../../src/measure/compare");
const memory_results_db_1 = require("../helpers/memory-results-db");
const QUERIES = [
    { id: 'Q1', medianMs: 40 },
    { id: 'Q2', medianMs: 90 },
    { id: 'Q3', medianMs: 200 },
];
const CELLS = [
    { version: '26.7', codec: 'LZ4' },
    { version: '26.7', codec: 'ZSTD(3)' },
];
function setup() {
    const dir = (0, node_fs_1.mkdtempSync)(node_path_1.default.join((0, node_os_1.tmpdir)(), 'chbench-compare-'));
    const db = new memory_results_db_1.MemoryResultsDb();
    const acts = (0, compare_baseline_1.createCompareBaseline)({ openDb: async () => db });
    const mock = new testing_1.MockActivityEnvironment();
    // MockActivityEnvironment.run is typed loosely: keep the activity's own result type.
    const env = {
        run: (fn, ...a) => mock.run(fn, ...a),
    };
    return { dir, db, acts, env, done: () => (0, node_fs_1.rmSync)(dir, { recursive: true, force: true }) };
}
function addRun(db, runId, startedAt, slow, scheduleId = 'quarterly') {
    const r = (0, memory_results_db_1.syntheticRun)({
        runId,
        startedAt,
        scheduleId,
        cells: CELLS,
        queries: QUERIES,
        warm: 10,
        sigma: 0.05,
        seed: runId,
        slow,
    });
    db.add(r.run, r.cells, r.samples);
}
(0, node_test_1.test)('previous-scheduled: A/A then A/B; the summary names the flagged pairs, finishComparison keeps what the re-run confirms', async () => {
    const { dir, db, acts, env, done } = setup();
    try {
        addRun(db, 'q-1', '2026-01-01T00:00:00.000Z');
        addRun(db, 'q-2', '2026-04-01T00:00:00.000Z');
        addRun(db, 'q-3', '2026-07-01T00:00:00.000Z', { Q2: 2 });
        const baseline = run_spec_1.BaselineSpec.parse({ from: 'previous-scheduled' });
        const aa = await env.run(acts.compareWithBaseline, {
            resultsDir: dir,
            runId: 'q-2',
            baseline,
            scheduleId: 'quarterly',
            startedAt: '2026-04-01T00:00:00.000Z',
        });
        strict_1.default.equal(aa.baselineRunId, 'q-1');
        strict_1.default.equal(aa.verdict, 'unchanged');
        strict_1.default.deepEqual(aa.flagged, []);
        const ab = await env.run(acts.compareWithBaseline, {
            resultsDir: dir,
            runId: 'q-3',
            baseline,
            scheduleId: 'quarterly',
            startedAt: '2026-07-01T00:00:00.000Z',
        });
        strict_1.default.equal(ab.baselineRunId, 'q-2', 'the newest earlier completed run of the schedule');
        strict_1.default.equal(ab.verdict, 'regression');
        strict_1.default.equal(ab.confirmRounds, 12);
        strict_1.default.deepEqual(ab.flagged, [
            {
                pairKey: 'v26.7-lz4→v26.7-lz4',
                baselineCell: { runId: 'q-2', cellKey: 'v26.7-lz4' },
                newCell: { runId: 'q-3', cellKey: 'v26.7-lz4' },
                queries: [{ query_id: 'Q2', phase: 'baseline' }],
            },
            {
                pairKey: 'v26.7-zstd3→v26.7-zstd3',
                baselineCell: { runId: 'q-2', cellKey: 'v26.7-zstd3' },
                newCell: { runId: 'q-3', cellKey: 'v26.7-zstd3' },
                queries: [{ query_id: 'Q2', phase: 'baseline' }],
            },
        ]);
        strict_1.default.ok(JSON.stringify(ab).length < 2000, 'the summary is small');
        const first = comparison_1.ComparisonRecord.parse(JSON.parse((0, node_fs_1.readFileSync)((0, compare_baseline_1.comparisonFile)(dir, 'q-3'), 'utf8')));
        strict_1.default.equal(first.baseline_chosen_by, 'previous successful run of schedule quarterly (started 2026-04-01T00:00:00.000Z)');
        strict_1.default.deepEqual(db.comparisons.find((c) => c.run_id === 'q-3')?.flagged, ['Q2']);
        // The re-run: slow again on the LZ4 cell, back to normal on the ZSTD cell.
        const rng = (0, seedrandom_1.default)('confirm');
        const confirm = ab.flagged.map((f) => ({
            pairKey: f.pairKey,
            samples: f.queries.map((q) => ({
                ...q,
                baseline_ms: (0, compare_1.lognormalSamples)(rng, 12, 90, 0.05),
                new_ms: (0, compare_1.lognormalSamples)(rng, 12, f.pairKey.startsWith('v26.7-lz4') ? 180 : 90, 0.05),
                figure: 'server_elapsed_ms',
            })),
        }));
        const fin = await env.run(acts.finishComparison, { resultsDir: dir, runId: 'q-3', confirm });
        strict_1.default.deepEqual(fin, { verdict: 'regression', flagged: ['Q2'], confirmed: ['Q2'] });
        const rec = comparison_1.ComparisonRecord.parse(JSON.parse((0, node_fs_1.readFileSync)((0, compare_baseline_1.comparisonFile)(dir, 'q-3'), 'utf8')));
        const finals = rec.pairs.map((p) => p.queries.find((q) => q.query_id === 'Q2').final);
        strict_1.default.deepEqual(finals, ['regression', 'unchanged']);
        strict_1.default.deepEqual(db.comparisons.find((c) => c.run_id === 'q-3'), rec, 'the stored record is the file');
        strict_1.default.ok(db.closed);
    }
    finally {
        done();
    }
});
(0, node_test_1.test)('no baseline is a record with verdict no-baseline and the reason, not an error', async () => {
    const { dir, db, acts, env, done } = setup();
    try {
        addRun(db, 'q-1', '2026-01-01T00:00:00.000Z');
        const prev = await env.run(acts.compareWithBaseline, {
            resultsDir: dir,
            runId: 'q-1',
            baseline: run_spec_1.BaselineSpec.parse({ from: 'previous-scheduled' }),
            scheduleId: 'quarterly',
            startedAt: '2026-01-01T00:00:00.000Z',
        });
        strict_1.default.deepEqual(prev, {
            comparisonId: 'q-1-vs-none',
            baselineRunId: '',
            verdict: 'no-baseline',
            confirmRounds: 12,
            flagged: [],
            note: 'no baseline: previous successful run of schedule quarterly: none started before 2026-01-01T00:00:00.000Z (this is its first completed run)',
        });
        const rec = comparison_1.ComparisonRecord.parse(JSON.parse((0, node_fs_1.readFileSync)((0, compare_baseline_1.comparisonFile)(dir, 'q-1'), 'utf8')));
        strict_1.default.match(rec.baseline_chosen_by, /none started before 2026-01-01T00:00:00.000Z/);
        strict_1.default.equal(rec.unpaired.length, 2);
        const unscheduled = await env.run(acts.compareWithBaseline, {
            resultsDir: dir,
            runId: 'q-1',
            baseline: run_spec_1.BaselineSpec.parse({ from: 'previous-scheduled' }),
            startedAt: '2026-01-01T00:00:00.000Z',
        });
        strict_1.default.equal(unscheduled.verdict, 'no-baseline');
        strict_1.default.match((0, node_fs_1.readFileSync)((0, compare_baseline_1.comparisonFile)(dir, 'q-1'), 'utf8'), /this run was not started by a schedule/);
        const unknown = await env.run(acts.compareWithBaseline, {
            resultsDir: dir,
            runId: 'q-1',
            baseline: run_spec_1.BaselineSpec.parse({ from: 'run', run: 'nope' }),
            startedAt: '2026-01-01T00:00:00.000Z',
        });
        strict_1.default.equal(unknown.verdict, 'no-baseline');
        strict_1.default.deepEqual(await env.run(acts.finishComparison, { resultsDir: dir, runId: 'q-1', confirm: [] }), {
            verdict: 'no-baseline',
            flagged: [],
            confirmed: [],
        });
    }
    finally {
        done();
    }
});
(0, node_test_1.test)('version baseline inside one run: 24.8 is the baseline of 26.7, per codec', async () => {
    const { dir, db, acts, env, done } = setup();
    try {
        const r = (0, memory_results_db_1.syntheticRun)({
            runId: 'm',
            cells: ['24.8', '26.7'].flatMap((version) => ['LZ4', 'ZSTD(3)'].map((codec) => ({ version, codec }))),
            queries: QUERIES,
            warm: 10,
            sigma: 0.05,
            seed: 'm',
            slowCell: { 'v26.7-lz4': { Q3: 0.5 } },
        });
        db.add(r.run, r.cells, r.samples);
        const s = await env.run(acts.compareWithBaseline, {
            resultsDir: dir,
            runId: 'm',
            baseline: run_spec_1.BaselineSpec.parse({ from: 'version', version: '24.8', confirmRounds: 0 }),
            startedAt: r.run.started_at,
        });
        strict_1.default.equal(s.baselineRunId, 'm');
        strict_1.default.equal(s.comparisonId, 'm-vs-v24.8');
        strict_1.default.equal(s.verdict, 'improvement');
        strict_1.default.equal(s.confirmRounds, 0);
        strict_1.default.deepEqual(s.flagged.map((f) => [f.pairKey, f.queries]), [['v24.8-lz4→v26.7-lz4', [{ query_id: 'Q3', phase: 'baseline' }]]]);
        // No re-run (confirmRounds 0): the first-pass flags stand, unconfirmed.
        strict_1.default.deepEqual(await env.run(acts.finishComparison, {
            resultsDir: dir,
            runId: 'm',
            confirm: [],
            confirmError: 'confirmRounds is 0: no re-run',
        }), {
            verdict: 'improvement',
            flagged: ['Q3'],
            confirmed: [],
        });
    }
    finally {
        done();
    }
});
(0, node_test_1.test)('a run not yet in the database is stored from its results folder (the real embedded-26.7 fixture); an unknown run fails', async () => {
    const { dir, db, acts, env, done } = setup();
    try {
        (0, node_fs_1.cpSync)(node_path_1.default.join(__dirname, '../../../test/fixtures/results/embedded-26.7'), node_path_1.default.join(dir, 'demo-20261130-064639'), { recursive: true });
        const s = await env.run(acts.compareWithBaseline, {
            resultsDir: dir,
            runId: 'demo-20261130-064639',
            baseline: run_spec_1.BaselineSpec.parse({ from: 'version', version: '26.7' }),
            startedAt: '2026-11-30T06:46:39.818Z',
        });
        strict_1.default.equal(db.runs.length, 1);
        strict_1.default.equal(db.cellRows.length, 2);
        strict_1.default.equal(s.verdict, 'unstable', 'every cell is version 26.7, so nothing is paired');
        const rec = comparison_1.ComparisonRecord.parse(JSON.parse((0, node_fs_1.readFileSync)((0, compare_baseline_1.comparisonFile)(dir, 'demo-20261130-064639'), 'utf8')));
        strict_1.default.deepEqual(rec.pairs, []);
        await strict_1.default.rejects(env.run(acts.compareWithBaseline, {
            resultsDir: dir,
            runId: 'ghost',
            baseline: run_spec_1.BaselineSpec.parse({ from: 'previous-scheduled' }),
            startedAt: '2026-01-01T00:00:00.000Z',
        }), /run ghost is neither in the results database/);
        await strict_1.default.rejects(env.run(acts.finishComparison, { resultsDir: dir, runId: 'ghost', confirm: [] }), /comparison\.json: no such file/);
    }
    finally {
        done();
    }
});
//# sourceMappingURL=compare-baseline.test.js.map