/**
 * The comparison step of a run with a `baseline` (after its cells), two activities around the
 * workflow's confirming re-run: `compareWithBaseline` builds the first-pass record
 * (`src/results/baseline.ts`, `src/measure/compare.ts`), writes `results/<runId>/comparison.json`,
 * stores it and names the flagged queries per cell pair; `finishComparison` applies the re-run's
 * samples (or its error), rewrites and stores the record and returns the run's verdict (the
 * `ChbenchVerdict` search attribute). Always call `finishComparison` after `compareWithBaseline`
 * (`confirm: []` when nothing was flagged or `confirmRounds` is 0). Both are idempotent (atomic
 * rewrite; the store replaces the run's comparison rows).
 */
import { openResultsDb, resultsDbLocation } from '../../results/db';
import type { ResultsDb } from '../../results/db/types';
import { writeJsonAtomic } from '../../results/store';
import { comparisonFile, firstPassComparison, readComparison, storedRunOf } from '../../results/baseline';
import type { CompareSummary, CompareWithBaselineInput, FinishComparisonInput } from '../../schema/comparison';
import type { ComparisonRecord } from '../../schema/comparison';
import type { ResultsDbSpec } from '../../schema/run-spec';
import { applyConfirmation } from '../../measure/compare';
import { firstPassSummary } from '../../measure/comparison-outcome';

export { comparisonFile, readComparison } from '../../results/baseline';

/** Opens the results database of a results directory (injected in tests). */
export type OpenResultsDb = (resultsDir: string, results?: ResultsDbSpec) => Promise<ResultsDb>;

/** Activity factory. `deps.openDb` replaces the results database (tests). */
export function createCompareBaseline(deps: { openDb?: OpenResultsDb } = {}) {
  const open: OpenResultsDb = deps.openDb ?? (async (dir, results) => openResultsDb(resultsDbLocation(results, dir)));
  const withDb = async <T>(
    input: FinishComparisonInput | CompareWithBaselineInput,
    use: (db: ResultsDb) => Promise<T>,
  ) => {
    const db = await open(input.resultsDir, input.results);
    try {
      return await use(db);
    } finally {
      await db.close();
    }
  };
  return {
    /**
     * First pass of the comparison: resolve the baseline (a run id; the previous successful run of
     * `scheduleId` started before `startedAt`; or a version label of this run), pair cells, compare
     * every query's valid warm runs, write `results/<runId>/comparison.json` and store it.
     * No baseline found (no schedule, no earlier completed run, an unknown run id) is not an error:
     * the record says why and the verdict is `no-baseline`. If the run is not yet in the results
     * database but its folder is, it is stored first (storing is idempotent).
     * @throws Error when the run is neither in the database nor in `resultsDir`, or the database fails.
     */
    async compareWithBaseline(input: CompareWithBaselineInput): Promise<CompareSummary> {
      return withDb(input, async (db) => {
        const self = await storedRunOf(db, input.resultsDir, input.runId);
        const record = await firstPassComparison(db, input, self, new Date().toISOString());
        writeJsonAtomic(comparisonFile(input.resultsDir, input.runId), record);
        await db.storeComparison(record);
        return firstPassSummary(record, input.baseline.confirmRounds);
      });
    },

    /**
     * Final pass: apply the confirming re-run's samples to `comparison.json` (only what the re-run
     * confirms stays flagged; `confirmError` leaves the first-pass flags standing, unconfirmed),
     * rewrite it and store it.
     * @returns the run's verdict, the first pass's flagged ids and the confirmed ones (`Q3`, `Q5@index`).
     * @throws Error when `comparison.json` is missing or invalid, or the database fails.
     */
    async finishComparison(
      input: FinishComparisonInput,
    ): Promise<Pick<ComparisonRecord, 'verdict' | 'flagged' | 'confirmed'>> {
      const first = readComparison(input.resultsDir, input.runId);
      const record =
        first.verdict === 'no-baseline' ? first : applyConfirmation(first, input.confirm, input.confirmError);
      writeJsonAtomic(comparisonFile(input.resultsDir, input.runId), record);
      await withDb(input, (db) => db.storeComparison(record));
      return { verdict: record.verdict, flagged: record.flagged, confirmed: record.confirmed };
    },
  };
}
