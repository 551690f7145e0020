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
 * Activity layer: concurrency stepping (`concurrencyStep`, src/activities/concurrency-steps.ts, built
 * by `createActivities`, so with the statement watcher and the cell-step wrapper the worker uses) on
 * two real servers, each run in a `MockActivityEnvironment`:
 * - the embedded engine (chdb, one statement at a time behind a mutex; no query_log): the `logs`
 *   workload at 200 k rows, steps 1, 2, 4 — latency is client wall time, and with a mutex the wall P50
 *   grows with the clients while QPS does not grow with them;
 * - Debian's clickhouse-server 18.16 (the local target): `logs-legacy` at 200 k rows, steps 1, 2, 4 —
 *   latency comes from `system.query_log`, never above the client's wall time.
 * The engine (src/measure/closed-loop.ts) is also driven directly: a failing query's errors are
 * counted by ClickHouse code, a dead port's by the socket error, and a rerun picks the same queries.
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const fs = __importStar(require("node:fs"));
const os = __importStar(require("node:os"));
const path = __importStar(require("node:path"));
const node_crypto_1 = require("node:crypto");
const common_1 = require("@temporalio/common");
const activities_1 = require("../../src/activities");
const client_1 = require("../../src/clickhouse/client");
const workload_1 = require("../../src/lib/workload");
const net_1 = require("../../src/lib/net");
const store_1 = require("../../src/results/store");
const run_spec_1 = require("../../src/schema/run-spec");
const closed_loop_1 = require("../../src/measure/closed-loop");
const embedded_1 = require("../../src/targets/embedded");
const local_1 = require("../../src/targets/local");
const activity_env_1 = require("../helpers/activity-env");
const ROWS = 200_000;
/** Largest gap allowed between two heartbeats of a step: half the cell steps' 10 s heartbeat timeout. */
const HEARTBEAT_GAP_MS = 5_000;
const MIX = [
    { id: 'q1', weight: 2 },
    { id: 'q2', weight: 1 },
    { id: 'q4', weight: 1 },
];
const DURATION_S = 2;
const WARMUP_S = 0.5;
const SERVER_BINARY = ['/usr/bin/clickhouse-server', '/usr/sbin/clickhouse-server'].find((p) => fs.existsSync(p));
let tmp;
let acts;
const runId = `conc-${(0, node_crypto_1.randomUUID)().slice(0, 8)}`;
/**
 * Load `workload` at {@link ROWS} rows and write the cell's `provision.json` / `settings.json` as the
 * provision step would (only the fields `concurrencyStep` reads: `server.query_log`, `runs`).
 */
async function prepareCell(target, workload, version, queryLog, tableSettings) {
    const m = (0, workload_1.loadWorkload)(workload);
    const c = (0, client_1.connect)(target);
    try {
        const v = { table: m.table, rows: ROWS, codec: 'LZ4', tableSettings };
        await c.command({ query: (0, workload_1.renderTemplate)(workload, m.schema, v) });
        await c.command({ query: (0, workload_1.renderTemplate)(workload, m.load, v) });
    }
    finally {
        await c.close();
    }
    const spec = (0, run_spec_1.parseRunSpec)({
        name: 'conc',
        workload,
        scale: ROWS,
        target: { kind: 'embedded' },
        matrix: { version: ['26.7'], codec: ['LZ4'] },
        resultsDir: path.join(tmp, 'results'),
    });
    const cell = {
        runId,
        cellKey: target.cellKey,
        version,
        codec: 'LZ4',
        workload,
        scale: ROWS,
        skipIndex: false,
        protocol: spec.protocol,
        target: spec.target,
        teardown: 'always',
        resultsDir: spec.resultsDir,
    };
    const dir = (0, store_1.cellDir)(cell.resultsDir, runId, cell.cellKey);
    (0, store_1.writeJsonAtomic)(path.join(dir, 'provision.json'), {
        server: { query_log: queryLog ? 'available' : 'not available' },
    });
    (0, store_1.writeJsonAtomic)(path.join(dir, 'settings.json'), {
        load: {},
        runs: { max_threads: 1 },
        table: {},
        not_applied: {},
        problems: [],
    });
    return { cell, target };
}
/** Run steps 1, 2, 4 through the activity; check what every step must hold. */
async function runSteps(s, label) {
    for (const [i, clients] of [1, 2, 4].entries()) {
        const step = { clients, n: i + 1, mix: MIX, durationS: DURATION_S, warmupS: WARMUP_S };
        const a = (0, activity_env_1.startActivity)(acts.concurrencyStep, s.si, step);
        const sum = await a.result;
        s.steps.push(sum);
        console.log(`${label} c${clients}: qps ${sum.qps.toFixed(1)}, requests ${sum.requests}, errors ${sum.errors}, ` +
            `P50/P99 ${sum.latencyMs.p50?.toFixed(2)}/${sum.latencyMs.p99?.toFixed(2)} ms (${sum.latencySource}), ` +
            `wall P50/P99 ${sum.wallLatencyMs.p50?.toFixed(2)}/${sum.wallLatencyMs.p99?.toFixed(2)} ms, client-bound ${sum.clientBound}`);
        strict_1.default.equal(sum.clients, clients);
        strict_1.default.equal(sum.attempt, 1);
        strict_1.default.ok(sum.requests > 0, 'requests were counted');
        strict_1.default.equal(sum.errors, 0, JSON.stringify(sum.errorsByCode));
        // QPS counts the successful requests that also finished inside the window: at most `clients`
        // requests (those in flight when it ended) fewer than all requests.
        const inWindow = sum.qps * DURATION_S;
        strict_1.default.ok(inWindow <= sum.requests && inWindow >= sum.requests - clients, `qps × duration ${inWindow} vs requests ${sum.requests}`);
        strict_1.default.equal(sum.wallLatencyMs.count, sum.requests);
        strict_1.default.equal(sum.file, `grids/concurrency-c${clients}.json`);
        // The step heartbeated with its progress (the engine reports every second).
        const mine = a.beats.filter((b) => b.d.step === `concurrency-c${clients}`);
        strict_1.default.ok(mine.length >= 2, `${mine.length} heartbeats of the step`);
        const gaps = mine.slice(1).map((b, j) => b.at - mine[j].at);
        // The engine reports every second; half the 10 s heartbeat timeout leaves room for a loaded machine.
        strict_1.default.ok(Math.max(...gaps) <= HEARTBEAT_GAP_MS, `heartbeat gaps ${gaps.join(', ')} ms`);
        const rec = (0, store_1.readJson)(path.join((0, store_1.cellDir)(s.si.cell.resultsDir, runId, s.si.cell.cellKey), sum.file));
        strict_1.default.deepEqual(rec.step, step);
        strict_1.default.equal(rec.samples.length, sum.requests);
        // The cell's run settings, the time limit and (where the version has them) the result caches off, as the measured runs.
        strict_1.default.equal(rec.settings.max_threads, 1);
        strict_1.default.equal(rec.settings.max_execution_time, 3600);
        if (label === 'embedded')
            strict_1.default.deepEqual([rec.settings.use_query_cache, rec.settings.use_query_condition_cache], [0, 0]);
        else
            strict_1.default.equal(rec.settings.use_query_cache, undefined, '18.16 has no query cache');
        strict_1.default.equal(Object.values(rec.queries).reduce((a, q) => a + q.requests, 0), sum.requests);
        // Every mix entry was picked (weights 2:1:1 over hundreds of requests).
        for (const { id } of MIX)
            strict_1.default.ok(rec.queries[id].requests > 0, `${id} was sent`);
        strict_1.default.ok(rec.samples.every((x) => x.queryId.startsWith(`${rec.query_id_prefix}-`) && x.queryId.endsWith('-a1')));
        strict_1.default.match(rec.query_id_prefix, new RegExp(`-conc-c${clients}$`));
        strict_1.default.ok(rec.cpu && rec.cpu.wallMs >= DURATION_S * 1000 * 0.9, `cpu over the window: ${rec.cpu?.wallMs} ms`);
        strict_1.default.match(rec.definitions.qps, /successful requests that started and finished inside the measured window/);
    }
}
(0, node_test_1.describe)('concurrency stepping at the activity level', { timeout: 120_000 }, () => {
    const embedded = {};
    const local = {};
    (0, node_test_1.before)(async () => {
        tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-conc-'));
        const workDir = path.join(tmp, 'targets');
        acts = (0, activities_1.createActivities)({ workDir, temporalAddress: '127.0.0.1:1', namespace: 'default' });
        strict_1.default.ok(SERVER_BINARY, 'Debian clickhouse-server binary: run ./scripts/setup.sh --with-debian-clickhouse');
        const [e, l] = await Promise.all([
            (0, embedded_1.provisionEmbedded)({ runId, cellKey: 'v26.7-lz4', version: '26.7', workDir }),
            (0, local_1.provisionLocal)({ runId, cellKey: 'v18.16-lz4', version: '18.16', workDir }, SERVER_BINARY),
        ]);
        Object.assign(embedded, { target: e, steps: [] });
        Object.assign(local, { target: l, steps: [] });
        // 18.16 has no min_bytes_for_wide_part: the table gets no settings there.
        embedded.si = await prepareCell(e, 'logs', '26.7', false, { min_bytes_for_wide_part: 0 });
        local.si = await prepareCell(l, 'logs-legacy', '18.16', true, {});
    });
    (0, node_test_1.after)(async () => {
        if (embedded.target)
            await (0, embedded_1.teardownEmbedded)(embedded.target).catch(() => undefined);
        if (local.target)
            await (0, local_1.teardownLocal)(local.target).catch(() => undefined);
        fs.rmSync(tmp, { recursive: true, force: true });
    });
    (0, node_test_1.test)('embedded engine: client wall latency; the mutex makes P50 grow with clients, not QPS', async () => {
        await runSteps(embedded, 'embedded');
        const [c1, , c4] = embedded.steps;
        for (const s of embedded.steps) {
            strict_1.default.equal(s.latencySource, 'client wall');
            strict_1.default.deepEqual(s.latencyMs, s.wallLatencyMs);
        }
        // One statement at a time: a request spends part of its time outside the mutex (HTTP, the
        // server's own work), so 2 clients can still overlap those parts; beyond that the mutex is the
        // bottleneck. Closed loop (Little's law: clients = QPS × latency): 4 clients get far less than
        // 4× the QPS, and the wall latency grows instead. Seen on a shared 2-core machine: QPS 54 → 112,
        // P50 16 → 30 ms.
        strict_1.default.ok(c4.qps < 3 * c1.qps, `QPS ${c1.qps} → ${c4.qps}: not ~linear in the clients`);
        strict_1.default.ok(c4.wallLatencyMs.p50 > 1.5 * c1.wallLatencyMs.p50, `P50 ${c1.wallLatencyMs.p50} → ${c4.wallLatencyMs.p50}`);
    });
    (0, node_test_1.test)('clickhouse-server 18.16: server latency from query_log, never above the wall latency', async () => {
        await runSteps(local, '18.16');
        for (const s of local.steps) {
            strict_1.default.equal(s.latencySource, 'query_log');
            strict_1.default.ok(s.latencyMs.p50 <= s.wallLatencyMs.p50 && s.latencyMs.p99 <= s.wallLatencyMs.p99, JSON.stringify(s));
            const rec = (0, store_1.readJson)(path.join((0, store_1.cellDir)(local.si.cell.resultsDir, runId, local.si.cell.cellKey), s.file));
            strict_1.default.equal(rec.query_log.source, 'system.query_log.query_duration_ms');
            strict_1.default.equal(rec.query_log.missing, 0);
            strict_1.default.equal(s.latencyMs.count, s.requests);
            // query_duration_ms is whole milliseconds (truncated): each is within the request's wall time.
            for (const x of rec.samples)
                strict_1.default.ok(x.serverMs !== null && x.serverMs <= x.wallMs + 1, JSON.stringify(x));
            // The cell's run settings reached the server with every request (query_log's Settings of one).
            const c = (0, client_1.connect)(local.target);
            try {
                const rows = await (0, client_1.queryRows)(c, `SELECT Settings.Values[indexOf(Settings.Names, 'max_threads')] AS v FROM system.query_log WHERE type = 2 AND query_id = '${rec.samples[0].queryId}'`);
                strict_1.default.deepEqual(rows, [{ v: '1' }]);
            }
            finally {
                await c.close();
            }
        }
    });
    (0, node_test_1.test)('a query slower than the heartbeat timeout (15 s of sleepEachRow on 18.16): the step heartbeats throughout and counts it', async () => {
        const si = await prepareCell(local.target, 'edge', '18.16', true, {});
        const step = { clients: 1, n: 1, mix: [{ id: 'slow', weight: 1 }], durationS: 1, warmupS: 0 };
        const a = (0, activity_env_1.startActivity)(acts.concurrencyStep, si, step);
        const sum = await a.result;
        strict_1.default.equal(sum.requests, 1, 'the one request that started in the window is counted');
        strict_1.default.equal(sum.errors, 0, JSON.stringify(sum.errorsByCode));
        strict_1.default.equal(sum.latencySource, 'query_log');
        strict_1.default.ok(sum.latencyMs.p50 >= 14_000, `server-side ${sum.latencyMs.p50} ms`);
        strict_1.default.ok(sum.wallLatencyMs.p50 >= sum.latencyMs.p50, 'wall ≥ server');
        // It finished after the window: QPS counts requests that started and finished in it.
        strict_1.default.equal(sum.qps, 0);
        const mine = a.beats.filter((b) => b.d.step === 'concurrency-c1');
        const gaps = mine.slice(1).map((b, j) => b.at - mine[j].at);
        strict_1.default.ok(mine.length >= 3 && Math.max(...gaps) <= HEARTBEAT_GAP_MS, `${mine.length} heartbeats, gaps ${gaps.join(', ')} ms`);
    });
    (0, node_test_1.test)('a retry re-measures the step and overwrites its record; cancel ends it without a record', async () => {
        const step = { clients: 2, n: 9, mix: MIX, durationS: 30, warmupS: 0 };
        const dir = (0, store_1.cellDir)(embedded.si.cell.resultsDir, runId, embedded.si.cell.cellKey);
        const file = path.join(dir, 'grids/concurrency-c2.json');
        const before = fs.statSync(file).mtimeMs; // written by the 2-client step above
        const a = (0, activity_env_1.startActivity)(acts.concurrencyStep, embedded.si, step);
        await new Promise((r) => setTimeout(r, 1_000));
        const t0 = Date.now();
        a.cancel();
        const out = await a.settled;
        strict_1.default.ok(!out.ok && out.error instanceof common_1.CancelledFailure, `cancelled, got ${out.ok ? 'a result' : String(out.error)}`);
        strict_1.default.ok(Date.now() - t0 < 5_000, `ended ${Date.now() - t0} ms after the cancel`);
        strict_1.default.equal(fs.statSync(file).mtimeMs, before, 'the cancelled step wrote no record');
        const again = await (0, activity_env_1.startActivity)(acts.concurrencyStep, embedded.si, { ...step, durationS: 1 }).result;
        strict_1.default.ok(again.requests > 0);
        const rec = (0, store_1.readJson)(path.join(dir, again.file));
        strict_1.default.equal(rec.step.durationS, 1, 'the record is the rerun’s');
        strict_1.default.ok(fs.statSync(path.join(dir, again.file)).mtimeMs > before);
    });
    (0, node_test_1.test)('engine: errors counted by ClickHouse code and by socket error; the same seed picks the same queries', async () => {
        const mix = [
            { id: 'bad', sql: 'SELECT no_such_column FROM logs', weight: 1 },
            { id: 'ok', sql: 'SELECT count() FROM logs', weight: 1 },
        ];
        const run = (t, seed = 'seed-1') => (0, closed_loop_1.runClosedLoop)({
            target: t,
            clients: 2,
            mix,
            warmupS: 0.2,
            durationS: 1,
            seed,
            queryIdPrefix: `chb-test-${(0, node_crypto_1.randomUUID)().slice(0, 6)}`,
        });
        for (const s of [embedded, local]) {
            const r = await run(s.target);
            const bad = r.samples.filter((x) => x.query === 'bad');
            strict_1.default.ok(bad.length > 0 && r.ok > 0, `${s.target.kind}: ${bad.length} bad, ${r.ok} ok`);
            // Code 47: UNKNOWN_IDENTIFIER on 26.x and 18.16 alike.
            strict_1.default.ok(bad.every((x) => !x.ok && x.code === '47'), JSON.stringify(bad[0]));
            strict_1.default.match(bad[0].message, /no_such_column/);
            strict_1.default.ok(r.samples.filter((x) => x.query === 'ok').every((x) => x.ok));
            strict_1.default.equal(r.errors, bad.length);
            console.log(`${s.target.kind} error mix: requests ${r.requests}, errors ${r.errors} (code 47), qps ${r.qps.toFixed(1)}`);
        }
        // The same seed: request n of client k is the same query in both runs.
        const [a, b] = [await run(embedded.target, 'same'), await run(embedded.target, 'same')];
        const seq = (r) => new Map(r.samples.map((x) => [/k\d+r\d+$/.exec(x.queryId)[0], x.query]));
        const [sa, sb] = [seq(a), seq(b)];
        const common = [...sa.keys()].filter((k) => sb.has(k));
        strict_1.default.ok(common.length >= 10, `${common.length} requests in common`);
        for (const k of common)
            strict_1.default.equal(sa.get(k), sb.get(k), k);
        // Nothing listens: every request fails with the socket error, named.
        const dead = { ...embedded.target, url: `http://127.0.0.1:${await (0, net_1.freePort)()}` };
        const r = await (0, closed_loop_1.runClosedLoop)({
            target: dead,
            clients: 2,
            mix,
            warmupS: 0,
            durationS: 0.5,
            seed: 'x',
            queryIdPrefix: 'chb-dead',
        });
        strict_1.default.ok(r.requests > 0 && r.errors === r.requests && r.qps === 0);
        strict_1.default.ok(r.samples.every((x) => x.code === 'client:ECONNREFUSED'), JSON.stringify(r.samples[0]));
    });
});
//# sourceMappingURL=concurrency-steps.test.js.map