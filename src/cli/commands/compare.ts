/**
 * `chbench compare <runA> <runB>`: compare run B with baseline run A from the results database,
 * with the statistics of `src/measure/compare.ts`, for a CI job. No confirming re-run (that needs
 * the servers; the scheduled comparison does it): the first-pass verdicts are printed as such.
 *
 * Run ids: the stored one (`q1-2026-11-30T14:16:43Z`) or its folder name (`q1-2026-11-30T14_16_43Z`).
 *
 * When run B's own comparison (its spec's `baseline`, stored with the run) has run A as baseline,
 * that record is used: its verdict is the one the interleaved confirming re-run left.
 *
 * Exit codes: 0 no regression; 1 a regression the confirming re-run confirmed; 6 a regression
 * flagged by a first pass that nothing confirmed (no re-run, or it failed); 2 bad arguments (a run
 * compared with itself), an unknown run, or the results database failed; 3 nothing could be
 * decided (every query unstable, or no cell paired), or the results database is busy or
 * unreachable (nothing was compared).
 */
import type { Command } from 'commander';
import { openResultsDb, resultsDbLocation, ResultsDbUnavailableError } from '../../results/db';
import type { ResultsDb } from '../../results/db/types';
import { compareRuns } from '../../measure/compare';
import { pairTable } from '../../results/report-comparison';
import type { ComparisonRecord } from '../../schema/comparison';
import { BaselineSpec, parseRunSpec } from '../../schema/run-spec';
import type { ResultsDbSpec } from '../../schema/run-spec';
import { readSpecFile } from '../../lib/spec-file';
import { runIdOfWorkflowId } from '../../schema/run-id';
import { COMPARE_EXIT } from '../exit-codes';

/** The exit code of a results database error: busy or unreachable → 3 (nothing decided), else 2. */
function dbErrorCode(e: unknown): number {
  return e instanceof ResultsDbUnavailableError ? COMPARE_EXIT.undecided : COMPARE_EXIT.invalid;
}

/** What each exit code of `chbench compare` means, as printed. */
const EXIT_MEANING: Record<number, string> = {
  [COMPARE_EXIT.noRegression]: 'no regression',
  [COMPARE_EXIT.regression]: 'regression, confirmed by the interleaved re-run',
  [COMPARE_EXIT.undecided]: 'nothing could be decided (every query unstable or no cell paired)',
  [COMPARE_EXIT.unconfirmed]: 'unconfirmed: the first pass flagged a regression that no re-run confirmed',
};

/** Options of `chbench compare`. */
export interface CompareCliOptions {
  resultsDir: string;
  /** A run spec file: its `resultsDir` and `results` database are used (over `--results-dir`). */
  spec?: string;
  json?: boolean;
  /** Smallest relative change flagged, as typed (e.g. `0.1`); default the spec's 0.1. */
  minChange?: string;
}

/** What the command prints and its exit code. */
export interface CompareOutcome {
  code: number;
  stdout: string[];
  stderr: string[];
  record?: ComparisonRecord;
}

/**
 * Exit code of a record: 1 when a query's final verdict is a regression its confirming re-run
 * confirmed (`confirm.confirmed`), else 6 when a regression stands unconfirmed (first pass only, or
 * the re-run failed), else 3 when no query got a decided verdict, else 0.
 */
export function compareExitCode(record: ComparisonRecord): number {
  const qs = record.pairs.flatMap((p) => p.queries);
  const regressed = qs.filter((q) => q.final === 'regression');
  if (regressed.some((q) => q.confirm?.confirmed === true)) return COMPARE_EXIT.regression;
  if (regressed.length) return COMPARE_EXIT.unconfirmed;
  if (!qs.some((q) => q.final !== 'unstable')) return COMPARE_EXIT.undecided;
  return COMPARE_EXIT.noRegression;
}

/**
 * The command's work, without printing or exiting (tests call it with a test database).
 * @param openDb opens the results database of `resultsDir` (default: the embedded one, or the server
 *   `resultsDbLocation` names).
 */
export async function runCompare(
  givenA: string,
  givenB: string,
  o: CompareCliOptions,
  openDb: (resultsDir: string) => Promise<ResultsDb> = async (dir) => openResultsDb(resultsDbLocation(undefined, dir)),
): Promise<CompareOutcome> {
  const bad = (msg: string): CompareOutcome => ({ code: COMPARE_EXIT.invalid, stdout: [], stderr: [msg] });
  const minChange = o.minChange === undefined ? undefined : Number(o.minChange);
  const spec = BaselineSpec.safeParse({ from: 'run', run: givenA, ...(minChange === undefined ? {} : { minChange }) });
  if (!spec.success || (minChange !== undefined && !Number.isFinite(minChange)))
    return bad(
      `--min-change must be a number from 0 to 10 (a relative change: 0.1 = 10 %), got ${JSON.stringify(o.minChange)}`,
    );
  if (givenA === givenB)
    return bad(
      `run ${givenA} compared with itself: name two different runs (a baseline run A and a new run B); an A/A check needs two runs of the same spec`,
    );
  let resultsDir = o.resultsDir;
  let results: ResultsDbSpec | undefined;
  if (o.spec) {
    try {
      const runSpec = parseRunSpec(readSpecFile(o.spec));
      resultsDir = runSpec.resultsDir;
      results = runSpec.results;
    } catch (e) {
      return bad(`--spec ${o.spec}: ${(e as Error).message}`);
    }
  }
  let db: ResultsDb;
  try {
    db = await (o.spec ? openResultsDb(resultsDbLocation(results, resultsDir)) : openDb(resultsDir));
  } catch (e) {
    return {
      code: dbErrorCode(e),
      stdout: [],
      stderr: [`cannot open the results database of ${resultsDir}: ${(e as Error).message}`],
    };
  }
  try {
    // Also the workflow id form `schedule trigger` prints (`q-2026-11-30T03:10:57Z`): its run id is folder-safe.
    const resolve = async (given: string) =>
      (await db.resolveRunId(given)) ??
      (runIdOfWorkflowId(given) !== given ? await db.resolveRunId(runIdOfWorkflowId(given)) : undefined);
    const [runA, runB] = [await resolve(givenA), await resolve(givenB)];
    const unknown = [!runA && givenA, !runB && givenB].filter(Boolean);
    if (!runA || !runB)
      return bad(
        `no run ${unknown.join(', ')} in the results database (${db.description}); load a results folder with \`chbench results import <dir>\``,
      );
    if (runA === runB)
      return bad(
        `${givenA} and ${givenB} are the same run (${runA}): name two different runs (a baseline run A and a new run B)`,
      );
    // Run B's own comparison with A (its spec's baseline), when stored with the same threshold: the verdict its re-run confirmed.
    const stored = await db.comparison(runB);
    const recorded =
      stored && stored.baseline_run_id === runA && (minChange === undefined || stored.options.minChange === minChange)
        ? stored
        : undefined;
    const record =
      recorded ??
      compareRuns({
        comparisonId: `${runB}-vs-${runA}`,
        runId: runB,
        baselineRunId: runA,
        baselineChosenBy: `run ${runA} (chbench compare)`,
        mode: { kind: 'runs' },
        baselineCells: await db.cells(runA),
        newCells: await db.cells(runB),
        baselineSamples: await db.samples(runA),
        newSamples: await db.samples(runB),
        baselineFigures: await db.figures(runA),
        newFigures: await db.figures(runB),
        options: spec.data,
        createdAt: new Date().toISOString(),
      });
    const rerun = recorded !== undefined && record.flagged.length > 0;
    const code = compareExitCode(record);
    if (o.json) return { code, stdout: [JSON.stringify(record, null, 2)], stderr: [], record };
    const out = [
      `baseline run ${runA} → new run ${runB} (results database: ${db.description})`,
      `method: ${record.method}`,
      'figures: medians of the valid warm runs of each side, ms, server-side elapsed where every kept run of both sides has it, else client wall time (column "source")',
      '',
    ];
    for (const pair of record.pairs) {
      out.push(
        `${pair.baseline_cell} → ${pair.new_cell}${pair.differences.length ? ` (differences: ${pair.differences.join('; ')})` : ''}`,
        '',
        pairTable(pair, record, { rerun }),
        '',
      );
      for (const q of pair.queries.filter((x) => x.verdict !== 'unchanged'))
        out.push(`  ${q.phase === 'index' ? `${q.query_id}@index` : q.query_id}: ${q.reason}`);
      out.push('');
    }
    for (const u of record.unpaired) out.push(`unpaired: ${u.cell}: ${u.reason}`);
    out.push(
      `verdict: ${record.verdict}; flagged: ${record.flagged.join(', ') || 'none'}${recorded ? `; confirmed: ${record.confirmed.join(', ') || 'none'}` : ''}`,
      recorded
        ? `note: run ${runB}'s own comparison with ${runA} (recorded ${record.created_at}): the first pass's flags went to its interleaved confirming re-run on fresh cells${record.confirm_error ? `, which did not complete (${record.confirm_error}): those flags stand unconfirmed` : ''}`
        : 'note: first pass only: `chbench compare` does no confirming re-run (that needs the servers; a run with a `baseline` in its spec does it, interleaved, on fresh cells): a regression it flags exits 6 (unconfirmed), not 1',
      `exit ${code}: ${EXIT_MEANING[code] ?? ''}`,
    );
    return { code, stdout: out, stderr: [], record };
  } catch (e) {
    return {
      code: dbErrorCode(e),
      stdout: [],
      stderr: [`reading the results database (${db.description}): ${(e as Error).message}`],
    };
  } finally {
    await db.close();
  }
}

/** Add `compare <runA> <runB>` to the chbench program. */
export function registerCompareCommand(program: Command): void {
  program
    .command('compare <runA> <runB>')
    .description('compare run B with baseline run A from the results database (first pass, no confirming re-run)')
    .option('--results-dir <dir>', 'results directory (its embedded database, or CHBENCH_RESULTS_URL)', 'results')
    .option('--spec <file>', 'read the results directory and database from this run spec (its resultsDir, results)')
    .option('--json', 'print the comparison record (chbench.comparison/v1) as JSON')
    .option('--min-change <x>', 'smallest relative change flagged, e.g. 0.1 = 10 % (default 0.1)')
    .addHelpText(
      'after',
      "\nRun ids: the stored id (q1-2026-11-30T14:16:43Z) or its folder name (q1-2026-11-30T14_16_43Z), or the workflow id schedule trigger prints.\n\nExit codes:\n  0  no regression\n  1  a regression confirmed by the run's interleaved re-run (run B's stored comparison with A)\n  6  unconfirmed: the first pass flagged a regression and nothing confirmed it (no re-run, or it failed)\n  2  bad arguments (e.g. a run compared with itself), an unknown run, or the results database failed\n  3  nothing could be decided: every query unstable, no cell paired, or the results database busy or unreachable\n",
    )
    .action(async (runA: string, runB: string, o: CompareCliOptions) => {
      const r = await runCompare(runA, runB, o);
      for (const l of r.stdout) console.log(l);
      for (const l of r.stderr) console.error(`chbench: ${l}`);
      process.exit(r.code);
    });
}
