"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.readRunning = readRunning;
exports.progressFromEndpoint = progressFromEndpoint;
const client_1 = require("../../clickhouse/client");
const process_1 = require("../process");
/**
 * `GET <url>/chbench/running`.
 * @param timeoutMs bound of the request, ms
 * @throws Error when the server does not answer 200 within `timeoutMs`
 */
async function readRunning(handle, timeoutMs) {
    // The URL this process reaches (a port-forward for a pod) and the target's credentials, if any.
    const url = (0, client_1.targetUrl)(handle);
    const r = await (0, process_1.httpGet)(`${url}/chbench/running`, timeoutMs, (0, client_1.authHeaders)(handle));
    if (r.status !== 200)
        throw new Error(`${url}/chbench/running: HTTP ${r.status}`);
    return JSON.parse(r.body);
}
function num(v) {
    return v === undefined || v === null || v === '' ? undefined : Number(v);
}
/**
 * The embedded target's progress reader: each statement's entry of `/chbench/running`. A queued
 * statement progresses with the one it waits for; a listed statement without counters carries
 * `countersUnavailable` (the server's `progress_error`, or that it reports none).
 * @throws Error when the endpoint cannot be read
 */
async function progressFromEndpoint(handle, _monitor, list, timeoutMs) {
    const out = new Map();
    const rows = await readRunning(handle, timeoutMs);
    const running = rows.find((x) => x.state === 'running');
    for (const st of list) {
        const e = rows.find((x) => x.query_id === st.queryId);
        if (!e)
            continue;
        // A queued statement progresses with the one it waits for.
        const src = e.state === 'queued' ? running : e;
        const counters = src && src.read_rows !== undefined && src.read_rows !== null;
        out.set(st.queryId, {
            listed: true,
            state: e.state,
            ...(counters || !src
                ? {}
                : {
                    countersUnavailable: src.progress_error ?? 'the embedded server reports no counters for this statement',
                }),
            ...(counters
                ? {
                    rows_read: Number(src.read_rows),
                    total_rows: num(src.total_rows_approx),
                    written_rows: num(src.written_rows),
                    memory_usage: num(src.memory_usage),
                    elapsed_ms: src.elapsed_ms ?? undefined,
                }
                : {}),
            ...(counters && st.background
                ? {
                    merges_rows: num(src.merges_rows_read),
                    merges_progress: num(src.merges_progress),
                    parts_to_do: num(src.parts_to_do),
                }
                : {}),
        });
    }
    return out;
}
//# sourceMappingURL=running.js.map