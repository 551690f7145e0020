"use strict";
var __createBinding = (this && this.__createBinding) || (Object.create ? (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    var desc = Object.getOwnPropertyDescriptor(m, k);
    if (!desc || ("get" in desc ? !m.__esModule : desc.writable || desc.configurable)) {
      desc = { enumerable: true, get: function() { return m[k]; } };
    }
    Object.defineProperty(o, k2, desc);
}) : (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    o[k2] = m[k];
}));
var __setModuleDefault = (this && this.__setModuleDefault) || (Object.create ? (function(o, v) {
    Object.defineProperty(o, "default", { enumerable: true, value: v });
}) : function(o, v) {
    o["default"] = v;
});
var __importStar = (this && this.__importStar) || (function () {
    var ownKeys = function(o) {
        ownKeys = Object.getOwnPropertyNames || function (o) {
            var ar = [];
            for (var k in o) if (Object.prototype.hasOwnProperty.call(o, k)) ar[ar.length] = k;
            return ar;
        };
        return ownKeys(o);
    };
    return function (mod) {
        if (mod && mod.__esModule) return mod;
        var result = {};
        if (mod != null) for (var k = ownKeys(mod), i = 0; i < k.length; i++) if (k[i] !== "default") __createBinding(result, mod, k[i]);
        __setModuleDefault(result, mod);
        return result;
    };
})();
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * Statements longer than the heartbeat timeout (issue 7, item 1), on real servers:
 *
 * (a) activity level (`MockActivityEnvironment`): the measurement protocol running a 15 s query
 *     heartbeats at intervals below the 10 s heartbeat timeout, with progress details whose
 *     `rows_read` grows — on Debian's clickhouse-server 18.16 and on the embedded engine;
 * (b) end to end: a matrix cell on the embedded target whose query takes 15 s (1 cold + 1 warm run)
 *     succeeds and both samples are ≈ 15 s (the cell failed with "Heartbeat timeout" before);
 * (c) stuck detection: a statement whose counters do not move fails the activity with
 *     `StatementStuck` naming its query_id; 18.16 kills it (gone from system.processes), the
 *     embedded engine cannot and the failure says so.
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const fs = __importStar(require("node:fs"));
const os = __importStar(require("node:os"));
const path = __importStar(require("node:path"));
const node_crypto_1 = require("node:crypto");
const client_1 = require("@clickhouse/client");
const testing_1 = require("@temporalio/testing");
const common_1 = require("@temporalio/common");
const client_2 = require("../../src/clickhouse/client");
const protocol_1 = require("../../src/measure/protocol");
const activity_context_1 = require("../../src/temporal/activity-context");
const attempts_1 = require("../../src/activities/support/attempts");
const statement_watch_1 = require("../../src/clickhouse/statement-watch");
const local_1 = require("../../src/targets/local");
const embedded_1 = require("../../src/targets/embedded");
const SLOW = 'SELECT sum(sleepEachRow(0.5)) FROM numbers(30) SETTINGS max_block_size = 1';
/** Heartbeat timeout of every cell activity (`HEARTBEAT_TIMEOUT` in src/workflows/cell-step.ts, not exported). */
const HEARTBEAT_TIMEOUT_MS = 10_000;
const QUIET = { level: client_1.ClickHouseLogLevel.OFF };
function serverBinary() {
    const p = process.env.CHBENCH_CLICKHOUSE_SERVER ??
        ['/usr/bin/clickhouse-server', '/usr/sbin/clickhouse-server'].find((x) => fs.existsSync(x));
    strict_1.default.ok(p && fs.existsSync(p), 'Debian clickhouse-server needed: run ./scripts/setup.sh --with-debian-clickhouse (CI does), or set CHBENCH_CLICKHOUSE_SERVER');
    return p;
}
/** Run `fn` as an activity; collect every heartbeat with its time. */
async function asActivity(fn) {
    const env = new testing_1.MockActivityEnvironment({ heartbeatTimeoutMs: HEARTBEAT_TIMEOUT_MS, startToCloseTimeoutMs: 600_000 });
    const beats = [];
    env.on('heartbeat', (d) => beats.push({ at: Date.now(), d }));
    try {
        return { result: await env.run(fn), beats };
    }
    catch (error) {
        return { error, beats };
    }
}
/** Largest gap between consecutive heartbeats in [from, to], ms. */
function maxGap(beats, from, to) {
    const ts = [from, ...beats.map((b) => b.at).filter((t) => t > from && t < to), to];
    return Math.max(...ts.slice(1).map((t, i) => t - ts[i]));
}
async function protocolOnSlowQuery(target, queryLog) {
    const c = (0, client_2.connect)(target);
    await c.command({ query: 'CREATE TABLE IF NOT EXISTS t (n UInt64) ENGINE = MergeTree ORDER BY n' });
    await c.close();
    return asActivity(async () => {
        const client = (0, client_2.connect)(target);
        try {
            const t0 = Date.now();
            const recs = await (0, protocol_1.measureQueries)(client, 't', [{ id: 'q1', title: 'slow', usesIndex: false, deterministic: true, sql: SLOW }], {
                coldRuns: 1,
                warmupRuns: 0,
                warmRuns: 1,
                cacheDrops: ['SYSTEM DROP MARK CACHE'],
                dropOsPageCache: false,
                maxExecutionTimeS: 600,
                queryLog,
                counters: queryLog ? 'query_log' : 'none',
                killOnCancel: (id, run) => (0, attempts_1.killOnCancel)(target, id, run),
                signal: (0, activity_context_1.cancellationSignal)(),
                queryIdPrefix: `hb-${(0, node_crypto_1.randomUUID)().slice(0, 8)}`,
                // As runQueries does: a heartbeat before each run (the only ones before the fix).
                onRun: (q, kind, n) => (0, activity_context_1.heartbeat)({ step: 'queries-baseline', query: q, run: `${kind} ${n}` }),
                onProgress: (p) => (0, activity_context_1.heartbeat)({ result_rows: p.result_rows, result_bytes: p.result_bytes }),
            });
            return { recs, t0, t1: Date.now() };
        }
        finally {
            await client.close();
        }
    });
}
function checkBeats(label, out) {
    strict_1.default.equal(out.error, undefined, `${label}: ${String(out.error)}`);
    const { recs, t0, t1 } = out.result;
    const samples = recs[0].samples;
    strict_1.default.deepEqual(samples.map((s) => s.kind), ['cold', 'warm']);
    for (const s of samples)
        strict_1.default.ok(s.wall_ms >= 14_500, `${label} ${s.kind}: wall ${s.wall_ms} ms ≥ 14.5 s (30 × 0.5 s)`);
    const gap = maxGap(out.beats, t0, t1);
    const perRun = samples.map((s) => {
        const b = out.beats.filter((x) => x.d.query_id === s.query_id);
        return {
            kind: s.kind,
            beats: b.length,
            rows: b.map((x) => x.d.rows_read).filter((r) => r !== undefined),
        };
    });
    console.log(`${label}: ${out.beats.length} heartbeats over ${((t1 - t0) / 1000).toFixed(1)} s, largest gap ${gap} ms; per run ${JSON.stringify(perRun.map((p) => ({ kind: p.kind, beats: p.beats, rows_read: p.rows })))}; samples wall ${samples.map((s) => Math.round(s.wall_ms)).join(' / ')} ms, server ${samples.map((s) => s.server_elapsed_ms).join(' / ')} ms`);
    console.log(`${label}: a heartbeat: ${JSON.stringify(out.beats.find((b) => (b.d.rows_read ?? 0) > 5)?.d)}`);
    strict_1.default.ok(gap < HEARTBEAT_TIMEOUT_MS, `${label}: largest gap between heartbeats ${gap} ms must stay below the ${HEARTBEAT_TIMEOUT_MS} ms heartbeat timeout`);
    for (const p of perRun) {
        strict_1.default.ok(new Set(p.rows).size >= 3, `${label} ${p.kind}: heartbeats carry at least 3 different rows_read values (${p.rows.join(',')})`);
        strict_1.default.deepEqual(p.rows, [...p.rows].sort((a, b) => a - b), `${label} ${p.kind}: rows_read never goes back`);
        strict_1.default.ok(p.rows.every((r) => r >= 0 && r <= 30));
    }
    const line = out.beats.find((b) => (b.d.rows_read ?? 0) > 0).d;
    strict_1.default.equal(line.step, 'queries-baseline');
    strict_1.default.equal(line.query, 'q1');
    strict_1.default.match(line.progress, /rows read/);
}
(0, node_test_1.describe)('heartbeats and progress during one long statement (activity level)', { timeout: 180_000 }, () => {
    let workDir;
    let local;
    let embedded;
    (0, node_test_1.before)(async () => {
        workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-heartbeat-'));
        local = await (0, local_1.provisionLocal)({ runId: `hb-${(0, node_crypto_1.randomUUID)().slice(0, 8)}`, cellKey: 'v18.16-lz4', version: '18.16', workDir }, serverBinary());
        embedded = await (0, embedded_1.provisionEmbedded)({
            runId: `hb-${(0, node_crypto_1.randomUUID)().slice(0, 8)}`,
            cellKey: 'v26.7-lz4',
            version: '26.7',
            workDir,
        });
    });
    (0, node_test_1.after)(async () => {
        if (local)
            await (0, local_1.teardownLocal)(local).catch(() => undefined);
        if (embedded)
            await (0, embedded_1.teardownEmbedded)(embedded).catch(() => undefined);
        fs.rmSync(workDir, { recursive: true, force: true });
    });
    (0, node_test_1.test)('18.16: a 15 s query heartbeats below the timeout with growing rows_read (system.processes)', async () => {
        checkBeats('18.16', await protocolOnSlowQuery(local, true));
    });
    (0, node_test_1.test)('embedded: a 15 s query heartbeats below the timeout with growing rows_read (/chbench/running)', async () => {
        checkBeats('embedded', await protocolOnSlowQuery(embedded, false));
    });
    // Four sleeps in one expression over one row: read_rows stays 1 for ~12 s; nothing else moves.
    const NO_PROGRESS = 'SELECT sleep(3) + sleep(2.99) + sleep(2.98) + sleep(2.97) + sleep(2.96) + sleep(2.95) FROM numbers(1)';
    async function stuckRun(target) {
        const queryId = `hb-stuck-${(0, node_crypto_1.randomUUID)().slice(0, 8)}`;
        const t0 = Date.now();
        const out = await asActivity(() => (0, statement_watch_1.runWatched)({ stuckAfterS: 3, tickMs: 1000 }, async () => {
            const c = (0, client_2.connect)(target);
            try {
                return await (await c.query({ query: NO_PROGRESS, format: 'JSONCompact', query_id: queryId })).text();
            }
            finally {
                await c.close();
            }
        }));
        const failedAfterMs = Date.now() - t0;
        strict_1.default.ok(out.error instanceof common_1.ApplicationFailure, `fails with an ApplicationFailure, got ${String(out.error)}`);
        const f = out.error;
        console.log(`${target.kind}: failed after ${failedAfterMs} ms: ${f.type}: ${f.message}`);
        strict_1.default.equal(f.type, 'StatementStuck');
        strict_1.default.equal(f.nonRetryable, true);
        strict_1.default.match(f.message, new RegExp(queryId));
        strict_1.default.match(f.message, /made no progress for \d+ s \(protocol\.stuckAfterS = 3\)/);
        strict_1.default.match(f.message, /rows_read 1\b/, 'says what was seen');
        // Heartbeats went on while it was judged (not stuck yet), and said so.
        strict_1.default.ok(out.beats.some((b) => b.d.query_id === queryId && /no progress for/.test(b.d.progress)), 'heartbeats said the statement made no progress');
        return { f, queryId, failedAfterMs };
    }
    (0, node_test_1.test)('18.16: a statement without progress is reported as StatementStuck and killed on the server', async () => {
        // 18.16 checks for a KILL between blocks, so this one-block statement ends (cancelled) only after
        // its sleeps; the watcher waits for that before failing the step. query_log proves it was killed.
        const { queryId } = await stuckRun(local);
        const c = (0, client_1.createClient)({ url: local.url, log: QUIET });
        try {
            const rows = await (await c.query({
                query: `SELECT query_id FROM system.processes WHERE query_id = '${queryId}'`,
                format: 'JSONEachRow',
            })).json();
            strict_1.default.deepEqual(rows, [], 'the stuck statement no longer runs on the server (killed)');
            await c.command({ query: 'SYSTEM FLUSH LOGS' });
            const log = await (await c.query({
                query: `SELECT type, exception FROM system.query_log WHERE query_id = '${queryId}' AND type != 1`,
                format: 'JSONEachRow',
            })).json();
            strict_1.default.ok(log.length === 1 && /cancelled/i.test(log[0].exception), `query_log shows it cancelled: ${JSON.stringify(log)}`);
        }
        finally {
            await c.close();
        }
    });
    (0, node_test_1.test)('embedded: StatementStuck, and the failure says what the KILL did', async () => {
        const { f, queryId } = await stuckRun(embedded);
        // A streamed statement is cancelled between chunks (KILL QUERY accepted); a buffered one cannot be
        // interrupted by chdb and the failure says so. Either way the message tells which.
        strict_1.default.match(f.message, /KILL QUERY sent\.|not killed: .*(cannot interrupt|NOT_IMPLEMENTED|already executing)/i);
        // chdb checks a cancelled stream only between chunks: this one-chunk statement runs to its end.
        // It runs to completion inside chdb: wait for it before tearing down.
        for (let i = 0; i < 60; i++) {
            const r = (await (await fetch(`${embedded.url}/chbench/running`)).json());
            if (!r.some((x) => x.query_id === queryId))
                break;
            await new Promise((res) => setTimeout(res, 500));
        }
    });
});
// End to end (a cell whose query outlasts the heartbeat timeout): test/e2e/edge.test.ts, workload `edge`, query `slow`.
//# sourceMappingURL=heartbeat.test.js.map