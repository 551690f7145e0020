"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.activeParts = activeParts;
exports.runningMerges = runningMerges;
exports.pendingMutations = pendingMutations;
exports.rowCount = rowCount;
exports.runningQueryIds = runningQueryIds;
const client_1 = require("./client");
const sql_1 = require("../lib/sql");
/** Read the active parts of `table` in the current database. */
async function activeParts(client, table) {
    const rows = await (0, client_1.queryRows)(client, `SELECT name, partition, rows, bytes_on_disk FROM system.parts WHERE database = currentDatabase() AND table = ${(0, sql_1.sqlString)(table)} AND active ORDER BY name`);
    return {
        names: rows.map((r) => r.name),
        partitions: new Set(rows.map((r) => r.partition)).size,
        rows: rows.reduce((a, r) => a + Number(r.rows), 0),
        bytes_on_disk: rows.reduce((a, r) => a + Number(r.bytes_on_disk), 0),
    };
}
/** Number of merges running on `table` (source: `system.merges`). */
async function runningMerges(client, table) {
    return Number(await (0, client_1.queryScalar)(client, `SELECT count() FROM system.merges WHERE database = currentDatabase() AND table = ${(0, sql_1.sqlString)(table)}`));
}
/** Unfinished mutations on `table` (source: `system.mutations`, `is_done = 0`). */
async function pendingMutations(client, table) {
    return Number(await (0, client_1.queryScalar)(client, `SELECT count() FROM system.mutations WHERE database = currentDatabase() AND table = ${(0, sql_1.sqlString)(table)} AND is_done = 0`));
}
/** `SELECT count()` of a table. */
async function rowCount(client, table) {
    return Number(await (0, client_1.queryScalar)(client, `SELECT count() FROM ${table}`));
}
/**
 * Query ids still running on the server whose id starts with `prefix` (source: `system.processes`).
 * Used so a retry never runs in parallel with its own previous attempt.
 */
async function runningQueryIds(client, prefix) {
    const rows = await (0, client_1.queryRows)(client, `SELECT query_id FROM system.processes WHERE substring(query_id, 1, ${Buffer.byteLength(prefix)}) = ${(0, sql_1.sqlString)(prefix)}`);
    return rows.map((r) => r.query_id);
}
//# sourceMappingURL=table-state.js.map