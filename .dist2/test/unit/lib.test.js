"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * Unit tests of the shared helpers in src/lib (net, sql, fs, poll) and of src/config.ts. No server.
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const node_net_1 = __importDefault(require("node:net"));
const node_fs_1 = require("node:fs");
const node_os_1 = __importDefault(require("node:os"));
const node_path_1 = __importDefault(require("node:path"));
const net_1 = require("../../src/lib/net");
const sql_1 = require("../../src/lib/sql");
const fs_1 = require("../../src/lib/fs");
const poll_1 = require("../../src/lib/poll");
const settings_1 = require("../../src/clickhouse/settings");
const store_1 = require("../../src/results/store");
const config_1 = require("../../src/config");
const workload_1 = require("../../src/lib/workload");
(0, node_test_1.test)('freePort: a port that can be bound on 127.0.0.1', async () => {
    const port = await (0, net_1.freePort)();
    strict_1.default.ok(port > 0 && port < 65536);
    const srv = node_net_1.default.createServer();
    await new Promise((resolve, reject) => {
        srv.once('error', reject);
        srv.listen(port, '127.0.0.1', resolve);
    });
    await new Promise((r) => srv.close(r));
});
(0, node_test_1.test)('freePorts: distinct ports', async () => {
    const ports = await (0, net_1.freePorts)(3);
    strict_1.default.equal(ports.length, 3);
    strict_1.default.equal(new Set(ports).size, 3);
});
(0, node_test_1.test)('sqlString escapes backslashes and quotes; clickhouse/client re-exports the same function', () => {
    strict_1.default.equal((0, sql_1.sqlString)("it's"), "'it\\'s'");
    strict_1.default.equal((0, sql_1.sqlString)('a\\b'), "'a\\\\b'");
    // A trailing backslash must not escape the closing quote.
    strict_1.default.equal((0, sql_1.sqlString)('x\\'), "'x\\\\'");
    strict_1.default.equal((0, sql_1.sqlString)("\\'"), "'\\\\\\''");
});
(0, node_test_1.test)('sqlIdent quotes with backticks', () => {
    strict_1.default.equal((0, sql_1.sqlIdent)('db'), '`db`');
    strict_1.default.equal((0, sql_1.sqlIdent)('a`b'), '`a\\`b`');
    strict_1.default.equal((0, sql_1.sqlIdent)('a\\b'), '`a\\\\b`');
});
(0, node_test_1.test)('sqlValue: numbers as is, strings quoted', () => {
    strict_1.default.equal((0, sql_1.sqlValue)(8192), '8192');
    strict_1.default.equal((0, sql_1.sqlValue)(0.5), '0.5');
    strict_1.default.equal((0, sql_1.sqlValue)('wide'), "'wide'");
});
(0, node_test_1.test)('settingsClause quotes string values with sqlString (backslashes included)', () => {
    strict_1.default.equal((0, settings_1.settingsClause)({}), '');
    strict_1.default.equal((0, settings_1.settingsClause)({ index_granularity: 8192, storage_policy: 'default' }), " SETTINGS index_granularity = 8192, storage_policy = 'default'");
    // Before the fix a value ending in a backslash produced `'x\'`, an unterminated literal.
    strict_1.default.equal((0, settings_1.settingsClause)({ s: 'x\\' }), " SETTINGS s = 'x\\\\'");
    strict_1.default.equal((0, settings_1.settingsClause)({ s: "it's" }), " SETTINGS s = 'it\\'s'");
});
(0, node_test_1.test)('sanitizePathSegment: one safe, non-empty segment that never points up', () => {
    strict_1.default.equal((0, fs_1.sanitizePathSegment)('run/2026-11-29T18:00'), 'run_2026-11-29T18_00');
    strict_1.default.equal((0, fs_1.sanitizePathSegment)('v26.7-lz4'), 'v26.7-lz4');
    strict_1.default.equal((0, fs_1.sanitizePathSegment)(''), '_');
    strict_1.default.equal((0, fs_1.sanitizePathSegment)('.'), '_');
    strict_1.default.equal((0, fs_1.sanitizePathSegment)('..'), '_');
    strict_1.default.equal((0, fs_1.sanitizePathSegment)('../etc'), '.._etc');
});
(0, node_test_1.test)('results store paths use the one sanitiser', () => {
    strict_1.default.equal((0, store_1.runDir)('/r', 'a/b'), '/r/a_b');
    strict_1.default.equal((0, store_1.runDir)('/r', '..'), '/r/_');
    strict_1.default.equal((0, store_1.cellDir)('/r', 'run', '..'), '/r/run/cells/_');
});
(0, node_test_1.test)('writeFileAtomic / writeJsonAtomic: whole content, parents created, no temp file left', () => {
    const dir = (0, node_fs_1.mkdtempSync)(node_path_1.default.join(node_os_1.default.tmpdir(), 'chbench-lib-'));
    try {
        const f = node_path_1.default.join(dir, 'a', 'b', 'x.json');
        (0, fs_1.writeJsonAtomic)(f, { a: 1 });
        strict_1.default.equal((0, node_fs_1.readFileSync)(f, 'utf8'), '{\n  "a": 1\n}\n');
        (0, fs_1.writeFileAtomic)(f, 'second');
        strict_1.default.equal((0, node_fs_1.readFileSync)(f, 'utf8'), 'second');
        strict_1.default.deepEqual((0, node_fs_1.readdirSync)(node_path_1.default.dirname(f)), ['x.json']);
        // A failing write leaves neither the destination changed nor a temp file behind.
        strict_1.default.throws(() => (0, fs_1.writeJsonAtomic)(f, { n: 1n }), TypeError);
        strict_1.default.equal((0, node_fs_1.readFileSync)(f, 'utf8'), 'second');
        strict_1.default.throws(() => (0, fs_1.writeFileAtomic)(node_path_1.default.join(dir, 'a', 'b', 'x.json', 'under-a-file'), 'x'));
        strict_1.default.deepEqual((0, node_fs_1.readdirSync)(node_path_1.default.dirname(f)), ['x.json']);
    }
    finally {
        (0, node_fs_1.rmSync)(dir, { recursive: true, force: true });
    }
});
(0, node_test_1.test)('pollUntil returns the first value that is not undefined/null/false', async () => {
    const seen = [];
    const v = await (0, poll_1.pollUntil)((n) => (seen.push(n), n === 3 ? 'ready' : n === 1 ? null : false), { intervalMs: 1 });
    strict_1.default.equal(v, 'ready');
    strict_1.default.deepEqual(seen, [1, 2, 3]);
    // 0 and '' are values, not "not yet".
    strict_1.default.equal(await (0, poll_1.pollUntil)(() => 0), 0);
});
(0, node_test_1.test)('pollUntil treats a throwing check as "not yet" and names the last error on timeout', async () => {
    await strict_1.default.rejects((0, poll_1.pollUntil)(() => {
        throw new Error('connection refused');
    }, { timeoutMs: 30, intervalMs: 5, what: 'the thing' }), (e) => e instanceof poll_1.PollTimeoutError &&
        /waiting for the thing; last error: connection refused/.test(e.message) &&
        e.lastError.message === 'connection refused');
});
(0, node_test_1.test)('pollUntil: stopOn rethrows at once; the given sleep is used; an aborted signal stops it', async () => {
    const fatal = new Error('exited');
    let calls = 0;
    await strict_1.default.rejects((0, poll_1.pollUntil)(() => {
        calls++;
        throw fatal;
    }, { stopOn: (e) => e === fatal, timeoutMs: 10_000 }), (e) => e === fatal);
    strict_1.default.equal(calls, 1);
    const slept = [];
    await (0, poll_1.pollUntil)((n) => n === 3, { intervalMs: 40, sleep: async (ms) => void slept.push(ms) });
    strict_1.default.deepEqual(slept, [40, 40]);
    const ac = new AbortController();
    const t0 = Date.now();
    setTimeout(() => ac.abort(new Error('cancelled')), 20);
    await strict_1.default.rejects((0, poll_1.pollUntil)(() => false, { intervalMs: 5_000, timeoutMs: 60_000, signal: ac.signal }), /cancelled/);
    strict_1.default.ok(Date.now() - t0 < 2_000, 'the abort ends the wait, not the interval');
    await strict_1.default.rejects((0, poll_1.abortableDelay)(10, AbortSignal.abort(new Error('already'))), /already/);
});
(0, node_test_1.test)('pollUntil: intervalMs as a function of the attempt; onTick before each wait; onTimeout builds the error', async () => {
    const slept = [];
    const ticks = [];
    await (0, poll_1.pollUntil)((n) => n === 5, {
        intervalMs: (n) => Math.min(50 * 2 ** (n - 1), 250),
        sleep: async (ms) => void slept.push(ms),
        onTick: (n, elapsedMs) => {
            strict_1.default.ok(elapsedMs >= 0);
            ticks.push(n);
        },
    });
    strict_1.default.deepEqual(slept, [50, 100, 200, 250]);
    strict_1.default.deepEqual(ticks, [1, 2, 3, 4], 'no tick after the check that succeeded');
    // On timeout: no tick for the last check; onTimeout's value is thrown as is and sees the last error.
    const mine = new Error('my own message');
    const told = [];
    let tickCount = 0;
    let calls = 0;
    await strict_1.default.rejects((0, poll_1.pollUntil)(() => {
        calls++;
        throw new Error('refused');
    }, {
        timeoutMs: 30,
        intervalMs: 5,
        onTick: () => void tickCount++,
        onTimeout: (t) => (told.push(t), mine),
    }), (e) => e === mine);
    strict_1.default.equal(told.length, 1);
    strict_1.default.equal(told[0].attempts, calls);
    strict_1.default.equal(told[0].lastError.message, 'refused');
    strict_1.default.equal(tickCount, calls - 1);
    // An onTick that throws ends the poll with its error.
    await strict_1.default.rejects((0, poll_1.pollUntil)(() => false, {
        onTick: () => {
            throw new Error('heartbeat failed');
        },
    }), /heartbeat failed/);
    // timeoutMs Infinity: waits the interval, never times out.
    const waits = [];
    strict_1.default.equal(await (0, poll_1.pollUntil)((n) => n === 3 && 'done', {
        timeoutMs: Infinity,
        intervalMs: 7,
        sleep: async (ms) => void waits.push(ms),
    }), 'done');
    strict_1.default.deepEqual(waits, [7, 7]);
});
(0, node_test_1.test)('pollWithin: true when the check holds in time, false on timeout, other errors propagate', async () => {
    strict_1.default.equal(await (0, poll_1.pollWithin)((n) => n === 2, { intervalMs: 1 }), true);
    strict_1.default.equal(await (0, poll_1.pollWithin)(() => false, { timeoutMs: 20, intervalMs: 5 }), false);
    await strict_1.default.rejects((0, poll_1.pollWithin)(() => {
        throw new Error('broken');
    }, { stopOn: () => true }), /broken/);
    const ac = new AbortController();
    ac.abort(new Error('cancelled'));
    await strict_1.default.rejects((0, poll_1.pollWithin)(() => false, { signal: ac.signal }), /cancelled/);
});
(0, node_test_1.test)('config: defaults, validation with the variable named, log level and fault delay', () => {
    const c = (0, config_1.loadConfig)({});
    strict_1.default.equal(c.temporalAddress, '127.0.0.1:7233');
    strict_1.default.equal(c.namespace, 'default');
    strict_1.default.equal(c.taskQueue, 'chbench');
    strict_1.default.equal(c.workDir, node_path_1.default.join(config_1.REPO_ROOT, '.chbench', 'targets'));
    strict_1.default.equal((0, config_1.loadConfig)({ TEMPORAL_ADDRESS: '' }).temporalAddress, '127.0.0.1:7233', 'empty counts as unset');
    strict_1.default.equal((0, config_1.loadConfig)({ CHBENCH_TASK_QUEUE: 'q' }).taskQueue, 'q');
    strict_1.default.equal((0, config_1.logLevel)('WARN', {}), 'WARN');
    strict_1.default.equal((0, config_1.logLevel)('WARN', { CHBENCH_LOG_LEVEL: 'error' }), 'ERROR');
    strict_1.default.throws(() => (0, config_1.logLevel)('WARN', { CHBENCH_LOG_LEVEL: 'LOUD' }), /CHBENCH_LOG_LEVEL="LOUD"/);
    strict_1.default.equal((0, config_1.faultStepDelayMs)({}), 0);
    strict_1.default.equal((0, config_1.faultStepDelayMs)({ CHBENCH_FAULT_STEP_DELAY_MS: '1500' }), 1500);
    strict_1.default.throws(() => (0, config_1.faultStepDelayMs)({ CHBENCH_FAULT_STEP_DELAY_MS: 'soon' }), /CHBENCH_FAULT_STEP_DELAY_MS="soon"/);
    strict_1.default.throws(() => (0, config_1.faultStepDelayMs)({ CHBENCH_FAULT_STEP_DELAY_MS: '-1' }), /CHBENCH_FAULT_STEP_DELAY_MS/);
    strict_1.default.equal((0, config_1.temporalCliPath)({ TEMPORAL_CLI_PATH: '/opt/temporal' }), '/opt/temporal');
});
(0, node_test_1.test)('REPO_ROOT holds package.json and sql/, and SQL_ROOT is under it', () => {
    strict_1.default.ok((0, node_fs_1.existsSync)(node_path_1.default.join(config_1.REPO_ROOT, 'package.json')));
    strict_1.default.equal(workload_1.SQL_ROOT, node_path_1.default.join(config_1.REPO_ROOT, 'sql'));
    strict_1.default.ok((0, node_fs_1.existsSync)(node_path_1.default.join(workload_1.SQL_ROOT, 'workloads')));
});
//# sourceMappingURL=lib.test.js.map