"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.eventSnapshot = eventSnapshot;
exports.eventCounters = eventCounters;
exports.counterDelta = counterDelta;
exports.queryLogCounters = queryLogCounters;
const client_1 = require("../clickhouse/client");
const sql_1 = require("../lib/sql");
const validity_1 = require("./validity");
/**
 * Snapshot the {@link RUN_COUNTERS} from `system.events` rows (`{ k: event, v: value }`, value as
 * the server sends it). A counter absent from the rows is 0 there (the table lists only non-zero
 * counters unless `system_events_show_zero_values`); {@link counterDelta} turns counters this version
 * does not have into null. Pure.
 */
function eventSnapshot(rows) {
    return Object.fromEntries(validity_1.RUN_COUNTERS.map((k) => [k, Number(rows.find((r) => r.k === k)?.v ?? 0)]));
}
/** Read a {@link eventSnapshot} from the server's `system.events`; null when the table cannot be read. */
async function eventCounters(client) {
    try {
        return eventSnapshot(await (0, client_1.queryRows)(client, `SELECT event AS k, value AS v FROM system.events WHERE event IN (${validity_1.RUN_COUNTERS.map(sql_1.sqlString).join(', ')})`));
    }
    catch {
        return null;
    }
}
/**
 * A run's counters as the difference `b − a` of two snapshots. A counter not in `known` (the names
 * the server's `system.events` lists, when that list is complete) is null: the version lacks it.
 * Pure.
 */
function counterDelta(a, b, known) {
    return Object.fromEntries(validity_1.RUN_COUNTERS.map((k) => [k, known && !known.includes(k) ? null : b[k] - a[k]]));
}
/**
 * A run's counters from its query_log ProfileEvents `pe`. A counter absent from `pe` is 0 when
 * `existing` says the server has it (the probe listed it, or another run of the step reported it),
 * else null (unknown). Pure.
 */
function queryLogCounters(pe, existing) {
    return Object.fromEntries(validity_1.RUN_COUNTERS.map((k) => [k, k in pe ? Number(pe[k]) : existing.has(k) ? 0 : null]));
}
//# sourceMappingURL=counters.js.map