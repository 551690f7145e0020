/**
 * storeRun: load a finished run's results folder (`run.json`, every cell's `result.json`,
 * `comparison.json` if any) into the results database: the spec's `results` server, else the
 * embedded database in `<resultsDir>/db` (its engine process is started on demand and outlives the
 * worker until idle). Idempotent: storing the run again replaces its rows.
 */
import { heartbeat } from '../../temporal/activity-context';
import { openResultsDb, resultsDbLocation } from '../../results/db';
import { runDir } from '../../results/store';
import type { ResultsDbSpec } from '../../schema/run-spec';

/** What {@link createStoreRun}'s activity returns: rows written per table and where. */
export interface StoreRunResult {
  runs: number;
  cells: number;
  samples: number;
  comparisons: number;
  /** The database, e.g. `embedded database /…/results/db (pid 123, http://127.0.0.1:4567)`. */
  description: string;
}

/** Activity factory. */
export function createStoreRun() {
  return {
    /**
     * Store `results/<runId>/` in the results database.
     * @throws Error naming the database and statement when the database cannot be opened or written,
     *   or naming the file when a record does not parse
     */
    async storeRun(input: { resultsDir: string; runId: string; results?: ResultsDbSpec }): Promise<StoreRunResult> {
      heartbeat({ step: 'storeRun' });
      const db = await openResultsDb(resultsDbLocation(input.results, input.resultsDir));
      try {
        heartbeat({ step: 'storeRun', database: db.description });
        const counts = await db.storeRun(runDir(input.resultsDir, input.runId));
        return { ...counts, description: db.description };
      } finally {
        await db.close();
      }
    },
  };
}
