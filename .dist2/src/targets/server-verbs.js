"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.checkServer = checkServer;
exports.runningFromProcesses = runningFromProcesses;
exports.progressFromProcesses = progressFromProcesses;
exports.sendKill = sendKill;
exports.killOnServer = killOnServer;
exports.archiveFromQueryLog = archiveFromQueryLog;
/**
 * Target verbs that any ClickHouse server answers the same way over SQL, shared by the targets
 * whose capabilities say so: reachability and version, running statements and their progress from
 * `system.processes`, `KILL QUERY`, and the statement archive from `system.query_log`.
 */
const node_crypto_1 = require("node:crypto");
const client_1 = require("../clickhouse/client");
const sql_1 = require("../lib/sql");
const table_state_1 = require("../clickhouse/table-state");
const fs_1 = require("../lib/fs");
const poll_1 = require("../lib/poll");
/** `SELECT version()` on the handle's server. Never throws: a failure is `reachable: false` with the first line of the error. */
async function checkServer(handle) {
    let client;
    try {
        client = (0, client_1.connect)(handle, { maxExecutionTimeS: 30 });
        return { reachable: true, version: await (0, client_1.queryScalar)(client, 'SELECT version()') };
    }
    catch (e) {
        return { reachable: false, error: e.message.split('\n')[0] };
    }
    finally {
        await client?.close().catch(() => undefined);
    }
}
/** Query ids starting with `prefix` in `system.processes`. @throws Error when the query fails */
function runningFromProcesses(_handle, client, prefix) {
    return (0, table_state_1.runningQueryIds)(client, prefix);
}
/** Options of one statement a verb sends: its bound and tagged query_id (see {@link KillOptions}). */
function statementOptions(o) {
    return {
        ...(o.queryIdTag ? { query_id: `${o.queryIdTag}-${(0, node_crypto_1.randomUUID)()}` } : {}),
        ...(o.timeoutMs ? { abort_signal: AbortSignal.timeout(o.timeoutMs) } : {}),
    };
}
/**
 * Progress of `statements` from `system.processes` (read_rows, total_rows_approx, written_rows,
 * elapsed, memory_usage); for background statements (ALTER/OPTIMIZE) also the sums of
 * `system.merges` (rows read + written, progress) and of unfinished mutations' `parts_to_do`.
 * Every read is tagged `chb-watch-<uuid>` and bounded by `timeoutMs`.
 * @returns the listed statements, keyed by query_id
 * @throws Error when a read fails
 */
async function progressFromProcesses(_handle, c, list, timeoutMs) {
    const out = new Map();
    const read = { queryIdTag: 'chb-watch', timeoutMs };
    const ids = list.map((s) => (0, sql_1.sqlString)(s.queryId)).join(', ');
    const rs = await c.query({
        query: `SELECT query_id, read_rows, total_rows_approx, written_rows, elapsed, memory_usage FROM system.processes WHERE query_id IN (${ids})`,
        format: 'JSONEachRow',
        ...statementOptions(read),
    });
    const rows = await rs.json();
    let bg;
    if (list.some((s) => s.background)) {
        const [m] = await (await c.query({
            query: 'SELECT sum(rows_read) AS r, sum(rows_written) AS w, sum(progress) AS p FROM system.merges',
            format: 'JSONEachRow',
            ...statementOptions(read),
        })).json();
        const [u] = await (await c.query({
            query: 'SELECT sum(parts_to_do) AS todo FROM system.mutations WHERE is_done = 0',
            format: 'JSONEachRow',
            ...statementOptions(read),
        })).json();
        bg = { ...m, todo: u?.todo ?? '0' };
    }
    for (const r of rows) {
        const st = list.find((s) => s.queryId === r.query_id);
        out.set(r.query_id, {
            listed: true,
            rows_read: Number(r.read_rows),
            total_rows: Number(r.total_rows_approx),
            written_rows: Number(r.written_rows),
            elapsed_ms: Math.round(Number(r.elapsed) * 1000),
            memory_usage: Number(r.memory_usage),
            ...(st?.background && bg
                ? { merges_rows: Number(bg.r) + Number(bg.w), merges_progress: Number(bg.p), parts_to_do: Number(bg.todo) }
                : {}),
        });
    }
    return out;
}
/**
 * Send `KILL QUERY WHERE query_id = '…' SYNC|ASYNC` and read its answer: no row means no such
 * statement ran. Shared by every target whose server takes KILL QUERY over SQL (the embedded server
 * too). Never throws.
 * @returns `killed` (SYNC answered), `sent` (ASYNC accepted), `not found`, or `not killable` with the
 *   first line of the server's error (at most 300 characters)
 */
async function sendKill(client, queryId, o = {}) {
    try {
        const r = await client.exec({
            query: `KILL QUERY WHERE query_id = ${(0, sql_1.sqlString)(queryId)} ${o.sync ? 'SYNC' : 'ASYNC'}`,
            ...statementOptions(o),
        });
        let rows = '';
        for await (const chunk of r.stream)
            rows += String(chunk);
        if (!rows.trim())
            return { outcome: 'not found', text: 'not found (KILL QUERY matched no running statement)' };
        return o.sync
            ? { outcome: 'killed', text: 'killed (KILL QUERY SYNC)' }
            : { outcome: 'sent', text: 'KILL QUERY sent' };
    }
    catch (e) {
        const why = e.message.split('\n')[0].slice(0, 300);
        return { outcome: 'not killable', why, text: `not killed: ${why}` };
    }
}
/**
 * The `kill` verb of a real server: {@link sendKill}, then (ASYNC with `waitGoneMs`) wait until
 * `system.processes` no longer lists the statement, calling `onWait` at each look. Never throws.
 * @returns as {@link sendKill}; after the wait `killed (KILL QUERY; no longer in system.processes)`,
 *   or `sent` with `KILL QUERY sent, still in system.processes after <s> s`
 */
async function killOnServer(_handle, client, queryId, o = {}) {
    const sent = await sendKill(client, queryId, o);
    if (sent.outcome !== 'sent' || !o.waitGoneMs)
        return sent;
    try {
        const gone = await (0, poll_1.pollWithin)(async () => {
            const left = await (await client.query({
                query: `SELECT count() AS n FROM system.processes WHERE query_id = ${(0, sql_1.sqlString)(queryId)}`,
                format: 'JSONEachRow',
                ...statementOptions(o),
            })).json();
            return Number(left[0]?.n ?? 0) === 0;
        }, { timeoutMs: o.waitGoneMs, intervalMs: 500, stopOn: () => true, onTick: o.onWait });
        return gone
            ? { outcome: 'killed', text: 'killed (KILL QUERY; no longer in system.processes)' }
            : {
                outcome: 'sent',
                text: `KILL QUERY sent, still in system.processes after ${Math.round(o.waitGoneMs / 1000)} s`,
            };
    }
    catch (e) {
        const why = e.message.split('\n')[0].slice(0, 300);
        return { outcome: 'not killable', why, text: `not killed: ${why}` };
    }
}
/**
 * Copy the cell's statements from `system.query_log` (after `SYSTEM FLUSH LOGS`) into `file`
 * (written atomically) as {@link StatementLine} JSON lines; start at second resolution.
 * @returns `system.query_log (start at second resolution)`, or `not available: <why>` (never throws)
 */
async function archiveFromQueryLog(target, prefix, file) {
    const client = (0, client_1.connect)(target);
    try {
        const flush = await (0, client_1.tryCommand)(client, 'SYSTEM FLUSH LOGS');
        if (!flush.ok)
            return `not available: ${flush.error}`;
        const rows = await (0, client_1.queryRows)(client, `SELECT query_id, toUInt64(query_start_time) * 1000 AS start_ms, query_duration_ms AS duration_ms, toString(type) AS type
       FROM system.query_log WHERE event_date >= yesterday() AND substring(query_id, 1, ${Buffer.byteLength(prefix)}) = ${(0, sql_1.sqlString)(prefix)}`);
        // `type` is an Enum on some versions and a number on others: skip QueryStart rows (1) here.
        const ended = rows.filter((r) => r.type !== 'QueryStart' && r.type !== '1');
        (0, fs_1.writeFileAtomic)(file, ended
            .map((r) => {
            const line = {
                query_id: r.query_id,
                started_at_ms: Number(r.start_ms),
                finished_at_ms: Number(r.start_ms) + Number(r.duration_ms),
                ok: r.type === 'QueryFinish' || r.type === '2',
            };
            return JSON.stringify(line);
        })
            .join('\n') + (ended.length ? '\n' : ''));
        return 'system.query_log (start at second resolution)';
    }
    catch (e) {
        return `not available: ${e.message.split('\n')[0]}`;
    }
    finally {
        await client.close();
    }
}
//# sourceMappingURL=server-verbs.js.map