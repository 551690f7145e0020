"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.createRunQueries = createRunQueries;
/**
 * runQueries: the query step of a cell (`queries-baseline`, `queries-index`). A thin activity around
 * the measurement method (`measureQueries`, src/measure/protocol.ts, where the method is stated):
 * it reads the cell's inputs (workload queries, the capability probe, the spec's settings, the
 * target's capabilities), settles statements of an earlier attempt, optionally stops merges, runs the
 * method, writes `queries-<phase>.json` (also, when stopped midway, what was measured so far), and
 * returns only the headline figures to the workflow. A query that failed on the server fails the step
 * with the non-retryable `QueryFailed` after the record is written.
 */
const node_path_1 = __importDefault(require("node:path"));
const common_1 = require("@temporalio/common");
const failures_1 = require("../schema/failures");
const client_1 = require("../clickhouse/client");
const store_1 = require("../results/store");
const workload_1 = require("../lib/workload");
const index_proof_1 = require("../measure/index-proof");
const protocol_1 = require("../measure/protocol");
const figures_1 = require("../measure/figures");
const cold_cycle_1 = require("../measure/cold-cycle");
const activity_context_1 = require("../temporal/activity-context");
const attempts_1 = require("./support/attempts");
const targets_1 = require("../targets");
const cell_1 = require("../schema/cell");
const measure_options_1 = require("./support/measure-options");
/** Activity factory. */
function createRunQueries(deps) {
    return {
        /**
         * Measure the cell's queries. `phase` `baseline` runs every selected query; `index` only those the
         * workload marks `usesIndex` (and records each one's index proof against the baseline's read_rows).
         * Writes `queries-<phase>.json`.
         * @throws ApplicationFailure `QueryFailed` (non-retryable) when a query failed on the server, after the
         *   record is written; details `[{ file, failed: [id…], errors: [{ id, code, name }…] }]` with each
         *   failed query's ClickHouse error code (number, null when the error carried none) and name.
         */
        async runQueries({ cell, target }, phase, queryLog) {
            const m = (0, workload_1.loadWorkload)(cell.workload);
            let queries = (0, workload_1.workloadQueries)(m, { table: m.table, rows: cell.scale, codec: (0, cell_1.cellCodecProfile)(cell) }, cell.queries);
            if (phase === 'index')
                queries = queries.filter((q) => q.usesIndex);
            const dir = (0, store_1.cellDir)(cell.resultsDir, cell.runId, cell.cellKey);
            const file = node_path_1.default.join(dir, `queries-${phase}.json`);
            const prefix = (0, cell_1.queryIdPrefix)(cell.runId, cell.cellKey, phase);
            const client = (0, client_1.connect)(target, { maxExecutionTimeS: cell.protocol.maxExecutionTimeS });
            let merges = null;
            try {
                const othersAtStart = (0, targets_1.otherChbenchServers)(deps.workDir, target);
                const { options, probe } = (0, measure_options_1.cellMeasureOptions)({ cell, target }, queryLog, prefix, `queries-${phase}`);
                // A retry re-measures this step from scratch, never beside a run of the earlier attempt.
                const previous = await (0, attempts_1.settlePreviousAttempts)(target, client, prefix);
                if (cell.protocol.stopMergesDuringQueries)
                    merges = await (0, client_1.tryCommand)(client, `SYSTEM STOP MERGES ${m.table}`);
                const record = (records, incomplete) => ({
                    phase,
                    attempt: (0, activity_context_1.attempt)(),
                    ...(incomplete ? { incomplete } : {}),
                    cold_definition: (0, cold_cycle_1.coldDefinition)(records, probe),
                    other_chbench_servers: { at_start: othersAtStart, at_end: (0, targets_1.otherChbenchServers)(deps.workDir, target) },
                    merges_stopped: merges,
                    previous_attempts: previous,
                    run_settings: (0, figures_1.runSettingsOf)(records),
                    query_log: queryLog ? 'available' : 'not available',
                    queries: records,
                });
                const finished = [];
                const records = await (0, protocol_1.measureQueries)(client, m.table, queries, {
                    ...options,
                    finished,
                }).catch((e) => {
                    // Cancelled or failed midway: keep the queries already measured (a retry re-measures and overwrites).
                    if (finished.length) {
                        const why = (0, activity_context_1.cancellationSignal)()?.aborted
                            ? 'cancelled'
                            : `stopped by an error: ${(e?.message ?? String(e)).split('\n')[0].slice(0, 200)}`;
                        (0, store_1.writeJsonAtomic)(file, record(finished, `${why}; ${finished.length} of ${queries.length} queries measured (query_log figures not joined)`));
                    }
                    throw e;
                });
                if (phase === 'index' && m.index) {
                    // The index's proof is taken from these runs: EXPLAIN under their settings, and their read_rows vs the baseline's.
                    const baseline = (0, store_1.readJsonIfExists)(node_path_1.default.join(dir, 'queries-baseline.json'));
                    for (const r of records) {
                        const before = baseline?.queries.find((b) => b.id === r.id)?.stats.read_rows ?? null;
                        r.index_proof = (0, index_proof_1.judgeIndexUse)(m.index.name, r.explain_error ? null : r.explain_indexes, r.stats.read_rows, before);
                    }
                }
                (0, store_1.writeJsonAtomic)(file, record(records));
                const failed = records.filter((r) => r.error);
                if (failed.length)
                    // After the record is written: what was measured is kept; retrying cannot fix a query error.
                    throw common_1.ApplicationFailure.create({
                        type: failures_1.FAILURE.QueryFailed,
                        nonRetryable: true,
                        message: failed
                            .map((r) => `${r.id.toUpperCase()} failed on run ${r.error.run} (query_id ${r.error.query_id}): Code ${r.error.code}${r.error.type ? ` ${r.error.type}` : ''}: ${r.error.message.split('\n')[0].slice(0, 300)}`)
                            .join('; '),
                        details: [
                            {
                                file: node_path_1.default.basename(file),
                                failed: failed.map((r) => r.id),
                                // The server's identity of each error: its code and name (18.16 writes no name: the code's).
                                errors: failed.map(({ id, error }) => ({
                                    id,
                                    code: error.code === null ? null : Number(error.code),
                                    name: error.code === null ? error.type : (0, failures_1.clickHouseErrorName)(error.code, error.type ?? undefined),
                                })),
                            },
                        ],
                    });
                const headlines = records.map((r) => ({
                    id: r.id,
                    cold_ms: r.stats.cold_ms,
                    warm_min_ms: r.stats.warm_min_ms,
                    warm_median_ms: r.stats.warm_median_ms,
                    read_rows: r.stats.read_rows,
                }));
                return { phase, file: node_path_1.default.basename(file), queries: headlines };
            }
            finally {
                if (merges?.ok)
                    await (0, client_1.tryCommand)(client, `SYSTEM START MERGES ${m.table}`);
                await client.close();
            }
        },
    };
}
//# sourceMappingURL=run-queries.js.map