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
 * Activity layer: the two long waiting steps, quiesceMerges and materializeSkipIndex, each run alone
 * in a `MockActivityEnvironment` (built by `createActivities`, so with the statement watcher and the
 * cell-step wrapper the worker uses) against one embedded target holding the `logs` workload.
 *
 * For each: it heartbeats while it waits, with details that carry its progress; on `cancel()` it
 * ends promptly with `CancelledFailure` (not the statement's abort error), writes no result file,
 * and leaves nothing of its own running on the server.
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
const poll_1 = require("../../src/lib/poll");
const store_1 = require("../../src/results/store");
const run_spec_1 = require("../../src/schema/run-spec");
const embedded_1 = require("../../src/targets/embedded");
const activity_env_1 = require("../helpers/activity-env");
/** Rows the workload's generator loads; then the table is doubled {@link DOUBLINGS} times (copying is faster than generating). */
const BASE_ROWS = 2_000_000;
const DOUBLINGS = Number(process.env.CHBENCH_TEST_ACTIVITY_DOUBLINGS ?? 4);
// Heartbeat with progress every 250 ms (not 2 s): MATERIALIZE INDEX over 32 M rows takes only ~2.5–4 s
// on an idle machine, and the test must see its progress and cancel it while it runs.
process.env.CHBENCH_WATCH_TICK_MS ??= '250';
/** Rows in the table: enough for MATERIALIZE INDEX to run for several seconds on the embedded engine. */
const ROWS = BASE_ROWS * 2 ** DOUBLINGS;
(0, node_test_1.describe)('long steps at the activity level (embedded target)', { timeout: 600_000 }, () => {
    let tmp;
    let target;
    let acts;
    const runId = `act-${(0, node_crypto_1.randomUUID)().slice(0, 8)}`;
    const cellKey = 'v26.7-lz4';
    const m = (0, workload_1.loadWorkload)('logs');
    /** A cell of the `logs` workload on the embedded target, with `protocol` overrides. */
    const cellInput = (protocol = {}) => {
        const spec = (0, run_spec_1.parseRunSpec)({
            name: 'activities',
            workload: 'logs',
            scale: ROWS,
            target: { kind: 'embedded' },
            matrix: { version: ['26.7'], codec: ['LZ4'] },
            protocol,
            resultsDir: path.join(tmp, 'results'),
        });
        const cell = {
            runId,
            cellKey,
            version: '26.7',
            codec: 'LZ4',
            workload: 'logs',
            scale: ROWS,
            skipIndex: true,
            protocol: spec.protocol,
            target: spec.target,
            teardown: 'always',
            resultsDir: spec.resultsDir,
        };
        return { cell, target: target };
    };
    (0, node_test_1.before)(async () => {
        tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-activities-'));
        const workDir = path.join(tmp, 'targets');
        target = await (0, embedded_1.provisionEmbedded)({ runId, cellKey, version: '26.7', workDir });
        acts = (0, activities_1.createActivities)({ workDir, temporalAddress: '127.0.0.1:1', namespace: 'default' });
        const c = (0, client_1.connect)(target);
        try {
            const v = { table: m.table, rows: BASE_ROWS, codec: 'LZ4', tableSettings: m.tableSettings };
            const t0 = Date.now();
            await c.command({ query: (0, workload_1.renderTemplate)('logs', m.schema, v) });
            await c.command({
                query: (0, workload_1.renderTemplate)('logs', m.load, v),
                clickhouse_settings: m.loadSettings,
            });
            for (let i = 0; i < DOUBLINGS; i++)
                await c.command({ query: `INSERT INTO ${m.table} SELECT * FROM ${m.table}` });
            console.log(`loaded ${ROWS} rows in ${Date.now() - t0} ms`);
        }
        finally {
            await c.close();
        }
    });
    (0, node_test_1.after)(async () => {
        if (target)
            await (0, embedded_1.teardownEmbedded)(target).catch(() => undefined);
        fs.rmSync(tmp, { recursive: true, force: true });
    });
    (0, node_test_1.test)('quiesceMerges heartbeats its wait (parts, merges, stable_ms) and stops at once on cancel', async () => {
        // Never stable within the test: the step keeps polling until it is cancelled.
        const input = cellInput({ quiesce: { stableForMs: 3_600_000, timeoutMs: 3_600_000, pollMs: 200 } });
        const a = (0, activity_env_1.startActivity)(acts.quiesceMerges, input, 'after-load');
        const polls = () => a.beats.filter((b) => b.d.step === 'quiesce' && b.d.stable_ms !== undefined);
        await (0, poll_1.pollUntil)(() => polls().length >= 3 && new Set(polls().map((b) => b.d.stable_ms)).size >= 2, {
            timeoutMs: 60_000,
            what: 'three quiesce heartbeats',
        });
        for (const { d } of polls()) {
            strict_1.default.ok(Number.isInteger(d.active_parts) && d.active_parts > 0, `active_parts ${d.active_parts}`);
            strict_1.default.ok(Number.isInteger(d.merges) && Number.isInteger(d.mutations), JSON.stringify(d));
            strict_1.default.ok(d.stable_ms >= 0);
        }
        const stable = polls().map((b) => b.d.stable_ms);
        strict_1.default.ok(stable[stable.length - 1] > stable[0], `stable_ms grows while the table is quiet: ${stable.join(', ')}`);
        const cancelledAt = Date.now();
        a.cancel();
        const out = await a.settled;
        const tookMs = Date.now() - cancelledAt;
        strict_1.default.ok(!out.ok && out.error instanceof common_1.CancelledFailure, `cancelled, got ${out.ok ? 'a result' : String(out.error)}`);
        strict_1.default.ok(tookMs < 5_000, `ends within 5 s of the cancel (${tookMs} ms): the poll's sleep is cancellable`);
        strict_1.default.ok(!fs.existsSync(path.join((0, store_1.cellDir)(input.cell.resultsDir, runId, cellKey), 'quiesce-after-load.json')), 'no result file');
        // Its last poll statement, if any was in flight, finishes; nothing stays running or queued.
        await (0, poll_1.pollUntil)(async () => (await (0, activity_env_1.embeddedRunning)(target)).length === 0, {
            timeoutMs: 10_000,
            what: 'no statement running',
        });
    });
    (0, node_test_1.test)('materializeSkipIndex heartbeats the running ALTER with its progress; cancel ends the step, the ALTER leaves the server', async () => {
        const input = cellInput();
        const a = (0, activity_env_1.startActivity)(acts.materializeSkipIndex, input);
        const isAlter = (sql) => /MATERIALIZE INDEX/i.test(sql ?? '');
        // The watcher's heartbeats name the statement in flight and its counters.
        const alterBeats = () => a.beats.filter((b) => b.d.step === 'materialize-index' && isAlter(b.d.statement));
        const hasCounter = (d) => d.elapsed_ms !== undefined || d.parts_to_do !== undefined || d.rows_read !== undefined;
        await (0, poll_1.pollUntil)(async () => {
            const done = await Promise.race([a.settled, Promise.resolve(undefined)]);
            if (done)
                throw new Error(`materializeSkipIndex ended before it could be cancelled (${ROWS} rows is too few): ${JSON.stringify(done)}`);
            return alterBeats().some((b) => hasCounter(b.d));
        }, {
            timeoutMs: 120_000,
            intervalMs: 100,
            what: 'a heartbeat with progress counters during MATERIALIZE INDEX',
            stopOn: (e) => e instanceof Error && /ended before/.test(e.message),
        });
        const running = await (0, activity_env_1.embeddedRunning)(target);
        const alter = running.find((s) => isAlter(s.sql_head));
        strict_1.default.ok(alter, `the ALTER is running: ${JSON.stringify(running)}`);
        for (const { d } of alterBeats()) {
            strict_1.default.equal(d.query_id, alter.query_id, 'heartbeats name the running statement');
            strict_1.default.match(d.progress, /MATERIALIZE INDEX/, 'the human line names the statement');
        }
        const counted = alterBeats().filter((b) => hasCounter(b.d));
        strict_1.default.ok(counted.every((b) => (b.d.elapsed_ms ?? 0) >= 0 && (b.d.parts_to_do ?? 0) >= 0), JSON.stringify(counted.map((b) => b.d)));
        console.log(`materialize heartbeat: ${JSON.stringify(alterBeats().at(-1)?.d)}`);
        const cancelledAt = Date.now();
        a.cancel();
        const out = await a.settled;
        const tookMs = Date.now() - cancelledAt;
        strict_1.default.ok(!out.ok && out.error instanceof common_1.CancelledFailure, `cancelled, got ${out.ok ? 'a result' : String(out.error)}`);
        strict_1.default.ok(tookMs < 5_000, `ends within 5 s of the cancel (${tookMs} ms), not when the ALTER finishes`);
        strict_1.default.ok(!fs.existsSync(path.join((0, store_1.cellDir)(input.cell.resultsDir, runId, cellKey), 'index.json')), 'no result file');
        // The embedded engine cannot interrupt a statement that is executing (capability canKillRunning:
        // false): the ALTER finishes on its own, and then nothing of the step is left running or queued.
        const goneAfter = await (0, poll_1.pollUntil)(async () => (await (0, activity_env_1.embeddedRunning)(target)).some((s) => isAlter(s.sql_head)) ? undefined : Date.now() - cancelledAt, {
            timeoutMs: 300_000,
            intervalMs: 200,
            what: 'the ALTER to leave /chbench/running',
        });
        console.log(`the ALTER left the running statements ${goneAfter} ms after the cancel`);
        strict_1.default.deepEqual(await (0, activity_env_1.embeddedRunning)(target), []);
    });
});
//# sourceMappingURL=long-steps.test.js.map