"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.createStoreRun = createStoreRun;
/**
 * storeRun: load a finished run's results folder (`run.json`, every cell's `result.json`,
 * `comparison.json` if any) into the results database: the spec's `results` server, else the
 * embedded database in `<resultsDir>/db` (its engine process is started on demand and outlives the
 * worker until idle). Idempotent: storing the run again replaces its rows.
 */
const activity_context_1 = require("../../temporal/activity-context");
const db_1 = require("../../results/db");
/** How long one statement of a store may take, ms: deleting a run's old rows is a mutation over the whole table. */
const STORE_REQUEST_TIMEOUT_MS = 10 * 60_000;
const store_1 = require("../../results/store");
/** Activity factory. */
function createStoreRun() {
    return {
        /**
         * Store `results/<runId>/` in the results database.
         * @throws Error naming the database and statement when the database cannot be opened or written,
         *   or naming the file when a record does not parse
         */
        async storeRun(input) {
            (0, activity_context_1.heartbeat)({ step: 'storeRun' });
            return (0, db_1.withResultsDb)(input.results, input.resultsDir, async (db) => {
                // Replacing a run's rows waits for a mutation (mutations_sync = 2) whose time grows with the
                // table, not with the run: keep the activity heartbeating while it waits, bounded by the
                // request timeout below (a mutation slower than that fails the attempt, which is retried).
                const beat = setInterval(() => (0, activity_context_1.heartbeat)({ step: 'storeRun', database: db.description }), 5_000);
                try {
                    const counts = await db.storeRun((0, store_1.runDir)(input.resultsDir, input.runId));
                    return { ...counts, description: db.description };
                }
                finally {
                    clearInterval(beat);
                }
            }, { requestTimeoutMs: STORE_REQUEST_TIMEOUT_MS });
        },
    };
}
//# sourceMappingURL=store-run.js.map