"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.createLoadData = createLoadData;
/**
 * loadData: run the workload's generator (`INSERT … SELECT … FROM numbers_mt(N)`) and record
 * elapsed time, rows/s, partitions and active parts.
 *
 * Idempotent: before inserting it waits for any statement of an earlier attempt that is still
 * running (by query_id prefix, `system.processes`), then checks the table. If `load.json` exists and
 * the table holds exactly `scale` rows, the earlier load is reused. Otherwise a partly or completely
 * loaded table without a recorded measurement is truncated and loaded again, so the figure always
 * comes from one clean, complete INSERT and rows are never loaded twice.
 */
const node_path_1 = __importDefault(require("node:path"));
const client_1 = require("../clickhouse/client");
const store_1 = require("../results/store");
const workload_1 = require("../lib/workload");
const table_state_1 = require("../clickhouse/table-state");
const activity_context_1 = require("../temporal/activity-context");
const attempts_1 = require("./support/attempts");
const query_log_1 = require("../clickhouse/query-log");
const cell_1 = require("../schema/cell");
const provision_1 = require("./provision");
const node_perf_hooks_1 = require("node:perf_hooks");
/** `DuplicatedInsertedBlocks` from `system.events` (absent there = 0), or null if unreadable. */
async function loadCounters(client) {
    try {
        const rows = await (0, client_1.queryRows)(client, "SELECT value AS v FROM system.events WHERE event = 'DuplicatedInsertedBlocks'");
        return { DuplicatedInsertedBlocks: Number(rows[0]?.v ?? 0) };
    }
    catch {
        return null;
    }
}
/** Activity factory. */
function createLoadData() {
    return {
        /**
         * Load the table. Writes `load.json`.
         * @throws Error when the table does not hold exactly `scale` rows afterwards.
         */
        async loadData({ cell, target }) {
            const m = (0, workload_1.loadWorkload)(cell.workload);
            const dir = (0, store_1.cellDir)(cell.resultsDir, cell.runId, cell.cellKey);
            const file = node_path_1.default.join(dir, 'load.json');
            const client = (0, client_1.connect)(target, { maxExecutionTimeS: cell.protocol.maxExecutionTimeS });
            const prefix = (0, cell_1.queryIdPrefix)(cell.runId, cell.cellKey, 'load');
            try {
                // Never run beside our own earlier attempt: kill it (or, on the embedded engine, wait for it).
                const previous = await (0, attempts_1.settlePreviousAttempts)(target, client, prefix);
                const existing = await (0, table_state_1.rowCount)(client, m.table);
                const prev = (0, store_1.readJsonIfExists)(file);
                if (prev && existing === cell.scale)
                    return { ...pick(prev), reused: true };
                let truncated = null;
                if (existing > 0) {
                    truncated = {
                        rows_found: existing,
                        reason: prev
                            ? 'row count differs from the recorded load'
                            : 'rows present without a recorded load (earlier attempt crashed)',
                    };
                    await client.command({ query: `TRUNCATE TABLE ${m.table}`, query_id: `${prefix}-truncate-a${(0, activity_context_1.attempt)()}` });
                }
                const sql = (0, workload_1.renderTemplate)(cell.workload, m.load, {
                    table: m.table,
                    rows: cell.scale,
                    codec: (0, cell_1.cellCodecProfile)(cell),
                });
                const settings = { ...(0, provision_1.readCellSettings)(cell).load, max_execution_time: cell.protocol.maxExecutionTimeS };
                const queryId = `${prefix}-a${(0, activity_context_1.attempt)()}`;
                const eventsBefore = await loadCounters(client);
                // Wall clock beside the monotonic one: the step window the cloud metrics read (load.json started_at/finished_at).
                const startedAt = new Date().toISOString();
                const t0 = node_perf_hooks_1.performance.now();
                // The watched client heartbeats the INSERT's progress (rows read/written) while it runs.
                (0, activity_context_1.heartbeat)({ step: 'load' });
                const res = await (0, attempts_1.killOnCancel)(target, queryId, client.command({
                    query: sql,
                    query_id: queryId,
                    clickhouse_settings: settings,
                    abort_signal: (0, activity_context_1.cancellationSignal)(),
                }));
                const elapsed = node_perf_hooks_1.performance.now() - t0;
                const finishedAt = new Date().toISOString();
                const summary = (0, client_1.parseSummary)(res.response_headers);
                const rows = await (0, table_state_1.rowCount)(client, m.table);
                if (rows !== cell.scale)
                    throw new Error(`load: table ${m.table} holds ${rows} rows after loading, expected ${cell.scale} (spec scale)`);
                const parts = await (0, table_state_1.activeParts)(client, m.table);
                const eventsAfter = await loadCounters(client);
                const probe = (0, store_1.readJsonIfExists)(node_path_1.default.join(dir, 'probe.json'));
                // Server-side elapsed: the HTTP summary, else the INSERT's query_log row (old servers send no summary).
                let serverElapsed = (0, client_1.summaryNumber)(summary, 'elapsed_ns') === null ? null : (0, client_1.summaryNumber)(summary, 'elapsed_ns') / 1e6;
                let serverElapsedSource = serverElapsed === null ? 'not available' : 'http summary elapsed_ns';
                if (serverElapsed === null && probe?.query_log.enabled) {
                    const row = (await (0, query_log_1.fetchQueryLog)(client, [queryId])).get(queryId);
                    if (row)
                        [serverElapsed, serverElapsedSource] = [
                            Number(row.query_duration_ms),
                            'system.query_log.query_duration_ms',
                        ];
                }
                const written = (0, client_1.summaryNumber)(summary, 'written_rows');
                const rec = {
                    rows,
                    elapsed_ms: elapsed,
                    rows_per_s: rows / (elapsed / 1000),
                    partitions: parts.partitions,
                    active_parts: parts.names.length,
                    reused: false,
                    sql,
                    settings,
                    query_id: queryId,
                    server_elapsed_ms: serverElapsed,
                    server_elapsed_source: serverElapsedSource,
                    written_rows_summary: (0, client_1.summaryNumber)(summary, 'written_rows'),
                    rows_in_table: rows,
                    bytes_on_disk: parts.bytes_on_disk,
                    truncated_before_load: truncated,
                    verification: {
                        rows_equal_scale: rows === cell.scale,
                        written_rows_check: written === null
                            ? 'not available: the server sent no written_rows'
                            : written === rows
                                ? 'written_rows (HTTP summary) = count()'
                                : `MISMATCH: written_rows ${written} ≠ count() ${rows}`,
                        // Absent from system.events means 0 only where the probe saw the full counter list with it.
                        duplicated_inserted_blocks: eventsBefore &&
                            eventsAfter &&
                            probe?.events_complete &&
                            probe.events?.includes('DuplicatedInsertedBlocks')
                            ? eventsAfter.DuplicatedInsertedBlocks - eventsBefore.DuplicatedInsertedBlocks
                            : null,
                        counters_source: eventsBefore && eventsAfter ? 'system.events difference around the INSERT' : 'not available',
                    },
                    previous_attempts: previous,
                    attempt: (0, activity_context_1.attempt)(),
                    started_at: startedAt,
                    finished_at: finishedAt,
                };
                (0, store_1.writeJsonAtomic)(file, rec);
                return pick(rec);
            }
            finally {
                await client.close();
            }
        },
    };
}
function pick(r) {
    return {
        rows: r.rows,
        elapsed_ms: r.elapsed_ms,
        rows_per_s: r.rows_per_s,
        partitions: r.partitions,
        active_parts: r.active_parts,
        reused: r.reused,
    };
}
//# sourceMappingURL=load-data.js.map