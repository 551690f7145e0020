"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.COMPARE_EXIT = void 0;
exports.compareExitCode = compareExitCode;
exports.runCompare = runCompare;
exports.registerCompareCommand = registerCompareCommand;
const db_1 = require("../results/db");
const compare_1 = require("../measure/compare");
const report_comparison_1 = require("../results/report-comparison");
const run_spec_1 = require("../schema/run-spec");
/** Exit codes of `chbench compare`: `undecided` also when the results database is busy or unreachable. */
exports.COMPARE_EXIT = { noRegression: 0, regression: 1, invalid: 2, undecided: 3 };
/** The exit code of a results database error: busy or unreachable → 3 (nothing decided), else 2. */
function dbErrorCode(e) {
    return e instanceof db_1.ResultsDbUnavailableError ? exports.COMPARE_EXIT.undecided : exports.COMPARE_EXIT.invalid;
}
/** Exit code of a record: 1 any regression, else 3 when no query got a decided verdict, else 0. */
function compareExitCode(record) {
    const qs = record.pairs.flatMap((p) => p.queries);
    if (qs.some((q) => q.final === 'regression'))
        return exports.COMPARE_EXIT.regression;
    if (!qs.some((q) => q.final !== 'unstable'))
        return exports.COMPARE_EXIT.undecided;
    return exports.COMPARE_EXIT.noRegression;
}
/**
 * The command's work, without printing or exiting (tests call it with a test database).
 * @param openDb opens the results database of `resultsDir` (default: the embedded one, or the server
 *   `resultsDbLocation` names).
 */
async function runCompare(givenA, givenB, o, openDb = async (dir) => (0, db_1.openResultsDb)((0, db_1.resultsDbLocation)(undefined, dir))) {
    const bad = (msg) => ({ code: exports.COMPARE_EXIT.invalid, stdout: [], stderr: [msg] });
    const minChange = o.minChange === undefined ? undefined : Number(o.minChange);
    const spec = run_spec_1.BaselineSpec.safeParse({ from: 'run', run: givenA, ...(minChange === undefined ? {} : { minChange }) });
    if (!spec.success || (minChange !== undefined && !Number.isFinite(minChange)))
        return bad(`--min-change must be a number from 0 to 10 (a relative change: 0.1 = 10 %), got ${JSON.stringify(o.minChange)}`);
    if (givenA === givenB)
        return bad(`run ${givenA} compared with itself: name two different runs (a baseline run A and a new run B); an A/A check needs two runs of the same spec`);
    let db;
    try {
        db = await openDb(o.resultsDir);
    }
    catch (e) {
        return {
            code: dbErrorCode(e),
            stdout: [],
            stderr: [`cannot open the results database of ${o.resultsDir}: ${e.message}`],
        };
    }
    try {
        const [runA, runB] = [await db.resolveRunId(givenA), await db.resolveRunId(givenB)];
        const unknown = [!runA && givenA, !runB && givenB].filter(Boolean);
        if (!runA || !runB)
            return bad(`no run ${unknown.join(', ')} in the results database (${db.description}); load a results folder with \`chbench results import <dir>\``);
        if (runA === runB)
            return bad(`${givenA} and ${givenB} are the same run (${runA}): name two different runs (a baseline run A and a new run B)`);
        const record = (0, compare_1.compareRuns)({
            comparisonId: `${runB}-vs-${runA}`,
            runId: runB,
            baselineRunId: runA,
            baselineChosenBy: `run ${runA} (chbench compare)`,
            mode: { kind: 'runs' },
            baselineCells: await db.cells(runA),
            newCells: await db.cells(runB),
            baselineSamples: await db.samples(runA),
            newSamples: await db.samples(runB),
            options: spec.data,
            createdAt: new Date().toISOString(),
        });
        const code = compareExitCode(record);
        if (o.json)
            return { code, stdout: [JSON.stringify(record, null, 2)], stderr: [], record };
        const out = [
            `baseline run ${runA} → new run ${runB} (results database: ${db.description})`,
            `method: ${record.method}`,
            'figures: medians of the valid warm runs of each side, ms, server-side elapsed where every kept run of both sides has it, else client wall time (column "source")',
            '',
        ];
        for (const pair of record.pairs) {
            out.push(`${pair.baseline_cell} → ${pair.new_cell}${pair.differences.length ? ` (differences: ${pair.differences.join('; ')})` : ''}`, '', (0, report_comparison_1.pairTable)(pair, record, { rerun: false }), '');
            for (const q of pair.queries.filter((x) => x.verdict !== 'unchanged'))
                out.push(`  ${q.phase === 'index' ? `${q.query_id}@index` : q.query_id}: ${q.reason}`);
            out.push('');
        }
        for (const u of record.unpaired)
            out.push(`unpaired: ${u.cell}: ${u.reason}`);
        out.push(`verdict: ${record.verdict}; flagged: ${record.flagged.join(', ') || 'none'}`, 'note: first pass only: `chbench compare` does no confirming re-run (that needs the servers; a run with a `baseline` in its spec does it, interleaved, on fresh cells)', `exit ${code}: ${['no regression', 'regression', '', 'nothing could be decided (every query unstable or no cell paired)'][code]}`);
        return { code, stdout: out, stderr: [], record };
    }
    catch (e) {
        return {
            code: dbErrorCode(e),
            stdout: [],
            stderr: [`reading the results database (${db.description}): ${e.message}`],
        };
    }
    finally {
        await db.close();
    }
}
/** Add `compare <runA> <runB>` to the chbench program. */
function registerCompareCommand(program) {
    program
        .command('compare <runA> <runB>')
        .description('compare run B with baseline run A from the results database (first pass, no confirming re-run)')
        .option('--results-dir <dir>', 'results directory (its embedded database, or CHBENCH_RESULTS_URL)', 'results')
        .option('--json', 'print the comparison record (chbench.comparison/v1) as JSON')
        .option('--min-change <x>', 'smallest relative change flagged, e.g. 0.1 = 10 % (default 0.1)')
        .addHelpText('after', '\nRun ids: the stored id (q1-2026-11-30T14:16:43Z) or its folder name (q1-2026-11-30T14_16_43Z).\n\nExit codes:\n  0  no regression\n  1  at least one query regressed\n  2  bad arguments (e.g. a run compared with itself), an unknown run, or the results database failed\n  3  nothing could be decided: every query unstable, no cell paired, or the results database busy or unreachable\n')
        .action(async (runA, runB, o) => {
        const r = await runCompare(runA, runB, o);
        for (const l of r.stdout)
            console.log(l);
        for (const l of r.stderr)
            console.error(`chbench: ${l}`);
        process.exit(r.code);
    });
}
//# sourceMappingURL=compare.js.map