/**
 * storeRun: load a finished run's results folder (`run.json`, every cell's `result.json`,
 * `comparison.json` if any) into the results database: the spec's `results` server, else the
 * embedded database in `<resultsDir>/db` (its engine process is started on demand and outlives the
 * worker until idle). Idempotent: storing the run again replaces its rows.
 */
import { heartbeat } from '../../temporal/activity-context';
import { withResultsDb } from '../../results/db';
import { runDir } from '../../results/store';
import type { ResultsDbSpec } from '../../schema/run-spec';

/** How long one statement of a store may take, ms: deleting a run's old rows is a mutation over the whole table. */
const STORE_REQUEST_TIMEOUT_MS = 10 * 60_000;

/** What {@link createStoreRun}'s activity returns: rows written per table and where. */
export interface StoreRunResult {
  runs: number;
  cells: number;
  samples: number;
  comparisons: number;
  /** `verdicts` rows (one per comparison of `verdicts.json`; 0 before the verdicts step wrote it). */
  verdicts: number;
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
      return withResultsDb(
        input.results,
        input.resultsDir,
        async (db) => {
          // Replacing a run's rows waits for a mutation (mutations_sync = 2) whose time grows with the
          // table, not with the run: keep the activity heartbeating while it waits, bounded by the
          // request timeout below (a mutation slower than that fails the attempt, which is retried).
          const beat = setInterval(() => heartbeat({ step: 'storeRun', database: db.description }), 5_000);
          try {
            const counts = await db.storeRun(runDir(input.resultsDir, input.runId));
            return { ...counts, description: db.description };
          } finally {
            clearInterval(beat);
          }
        },
        { requestTimeoutMs: STORE_REQUEST_TIMEOUT_MS },
      );
    },
  };
}
