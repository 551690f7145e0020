"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * The cell workflow's orchestration with stub activities (no ClickHouse): a real dev server and the
 * real workflow code, so retries, restarts and cleanup are Temporal's own behaviour.
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const node_crypto_1 = require("node:crypto");
const common_1 = require("@temporalio/common");
const temporal_env_1 = require("../helpers/temporal-env");
const stub_activities_1 = require("../helpers/stub-activities");
const run_spec_1 = require("../../src/schema/run-spec");
const matrix_1 = require("../../src/schema/matrix");
const cell_1 = require("../../src/schema/cell");
const failures_1 = require("../../src/schema/failures");
const stubs = (0, stub_activities_1.stubActivities)();
// The provision result carries the target's `restartable` capability, as the provision activity's does.
const stubProvision = stubs.activities.provision;
stubs.activities.provision = async (c, ...rest) => ({
    ...(await stubProvision(c, ...rest)),
    restartable: c.target.kind !== 'external',
});
let env;
(0, node_test_1.before)(async () => {
    env = await (0, temporal_env_1.startStubEnv)('cell', stubs.activities);
});
(0, node_test_1.after)(async () => {
    await env?.stop();
});
(0, node_test_1.beforeEach)(() => {
    stubs.calls.length = 0;
    stubs.failWith = undefined;
});
/** One cell (v26.7, LZ4, with the skip-index steps) of a fresh run id; `spec` adds to the run spec. */
function cell(over = {}, spec = {}) {
    const runId = `wf-cell-${(0, node_crypto_1.randomUUID)().slice(0, 8)}`;
    const parsed = (0, run_spec_1.parseRunSpec)({
        name: 'wf',
        workload: 'logs',
        scale: 1000,
        target: { kind: 'embedded' },
        matrix: { version: ['26.7'], codec: ['LZ4'] },
        resultsDir: '/stub',
        ...spec,
    });
    return { ...(0, matrix_1.cellInputs)(parsed, runId, ['q5'])[0], ...over };
}
const id = (c) => `${c.runId}/${c.cellKey}`;
const runCell = (c) => env.client.workflow.execute('benchmarkCell', {
    taskQueue: env.taskQueue,
    workflowId: id(c),
    args: [c],
});
const written = (c) => stubs.callsOf(id(c)).find((x) => x.activity === 'writeCellResult').args[1];
(0, node_test_1.test)('an undisturbed cell runs the activities of CELL_STEPS in table order (the grid steps only with grids)', async () => {
    const c = cell();
    const r = await runCell(c);
    strict_1.default.equal(r.status, 'succeeded');
    strict_1.default.deepEqual(stubs.callsOf(id(c)).map((x) => x.activity), cell_1.CELL_STEPS.filter((s) => s.phase !== 'concurrency' && s.phase !== 'insert-grid').map((s) => s.activity));
    strict_1.default.deepEqual(written(c).targetRestarts, []);
    // Every cell's start goes to its result (the report's durations); a finished cell has no stop step.
    strict_1.default.ok(Number.isFinite(Date.parse(written(c).startedAt ?? '')), `startedAt ${written(c).startedAt}`);
    strict_1.default.equal(written(c).stoppedIn, undefined);
});
(0, node_test_1.test)('grids: one activity per concurrency step until errors stop the stepping, then one per insert point in grid order', async () => {
    const c = cell({}, {
        grids: {
            concurrency: { steps: [1, 2, 4, 8, 16], stopErrorRate: 0.01 },
            insert: {
                batchSizes: [1000, 10000],
                concurrency: [1, 2],
                settings: [{ name: 'sync' }, { name: 'async', query: { async_insert: 1 } }],
            },
        },
    });
    // 4 clients: 5 of 100 requests fail (5 % > 1 %): stepping ends after that step.
    stubs.stepErrors = (clients) => (clients === 4 ? 5 : 0);
    try {
        const r = await runCell(c);
        strict_1.default.equal(r.status, 'succeeded');
    }
    finally {
        stubs.stepErrors = undefined;
    }
    const calls = stubs.callsOf(id(c));
    strict_1.default.deepEqual(calls.filter((x) => x.activity === 'concurrencyStep').map((x) => x.args[1].clients), [1, 2, 4]);
    strict_1.default.deepEqual(calls.filter((x) => x.activity === 'insertPoint').map((x) => x.args[1].key), [
        'b1000-c1-sync-rowbinary',
        'b1000-c1-async-rowbinary',
        'b1000-c2-sync-rowbinary',
        'b1000-c2-async-rowbinary',
        'b10000-c1-sync-rowbinary',
        'b10000-c1-async-rowbinary',
        'b10000-c2-sync-rowbinary',
        'b10000-c2-async-rowbinary',
    ]);
    const order = calls.map((x) => x.activity);
    strict_1.default.ok(order.lastIndexOf('runQueries') < order.indexOf('concurrencyStep') &&
        order.lastIndexOf('concurrencyStep') < order.indexOf('insertPoint') &&
        order.lastIndexOf('insertPoint') < order.lastIndexOf('collectMetrics'), `grids run after the query steps and before the end metrics: ${order.join(', ')}`);
    strict_1.default.equal(written(c).attempts['insert-grid'], 1, 'no point was retried: the phase took one attempt');
    strict_1.default.equal(written(c).attempts.concurrency, 1);
});
(0, node_test_1.test)('a step that finds its server gone re-provisions on the same data and re-runs from that step; the restart is recorded', async () => {
    const c = cell();
    stubs.failWith = (activity, key, n) => activity === 'loadData' && key === id(c) && n === 1
        ? common_1.ApplicationFailure.create({
            type: failures_1.FAILURE.TargetUnavailable,
            nonRetryable: true,
            message: 'loadData: the ClickHouse server is unreachable (ECONNREFUSED)',
        })
        : undefined;
    const r = await runCell(c);
    strict_1.default.equal(r.status, 'succeeded');
    const calls = stubs.callsOf(id(c));
    strict_1.default.deepEqual(calls.slice(0, 7).map((x) => x.activity), ['provision', 'collectMetrics', 'createSchema', 'loadData', 'provision', 'loadData', 'quiesceMerges']);
    strict_1.default.deepEqual(calls.filter((x) => x.activity === 'provision').map((x) => x.args[1]), [true, false], 'the second provision keeps the data (fresh = false)');
    strict_1.default.equal(calls.filter((x) => x.activity === 'createSchema').length, 1, 'steps before the lost one are not re-run');
    const w = written(c);
    strict_1.default.equal(w.targetRestarts.length, 1);
    strict_1.default.equal(w.targetRestarts[0].step, 'load');
    strict_1.default.match(w.targetRestarts[0].error, /unreachable/);
    strict_1.default.equal(w.attempts.load, 2, 'the lost attempt and the one after the restart');
});
(0, node_test_1.test)('provisioning that fails leaves nothing but its result and teardownUnprovisioned', async () => {
    const c = cell();
    stubs.failWith = (activity) => activity === 'provision'
        ? common_1.ApplicationFailure.create({
            type: failures_1.FAILURE.InvalidSetting,
            nonRetryable: true,
            message: 'settings refused before loading',
        })
        : undefined;
    const r = await runCell(c);
    strict_1.default.equal(r.status, 'failed');
    strict_1.default.deepEqual(stubs.callsOf(id(c)).map((x) => x.activity), ['provision', 'writeCellResult', 'teardownUnprovisioned']);
    strict_1.default.match(written(c).error ?? '', /activity provision failed: .*settings refused before loading/);
    strict_1.default.equal(written(c).stoppedIn, 'provision', 'the result names the step the cell stopped in');
});
(0, node_test_1.test)('a step that fails without a retry counts its one attempt (result attempts, not "none")', async () => {
    const c = cell();
    stubs.failWith = (activity) => activity === 'provision'
        ? common_1.ApplicationFailure.create({
            type: failures_1.FAILURE.VersionMismatch,
            nonRetryable: true,
            message: 'local target: /usr/sbin/clickhouse-server is ClickHouse 18.16.1, but the cell asks for version 24.8',
        })
        : undefined;
    strict_1.default.equal((await runCell(c)).status, 'failed');
    strict_1.default.deepEqual(written(c).attempts, { provision: 1 });
    const d = cell();
    stubs.failWith = (activity) => activity === 'loadData'
        ? common_1.ApplicationFailure.create({ type: 'ClickHouse.UNKNOWN_IDENTIFIER', message: 'Missing columns: x' })
        : undefined;
    strict_1.default.equal((await runCell(d)).status, 'failed');
    const w = written(d).attempts;
    strict_1.default.equal(w.load, 1, JSON.stringify(w));
    strict_1.default.equal(w['create-schema'], 1);
});
(0, node_test_1.test)('a ClickHouse.SYNTAX_ERROR is not retried (by its name in the retry policy); a MEMORY_LIMIT_EXCEEDED is', async () => {
    const c = cell();
    // nonRetryable: false on purpose: only the policy's nonRetryableErrorTypes can stop the retry.
    stubs.failWith = (activity) => activity === 'createSchema'
        ? common_1.ApplicationFailure.create({
            type: 'ClickHouse.SYNTAX_ERROR',
            nonRetryable: false,
            message: 'Syntax error',
            details: [{ code: 62, name: 'SYNTAX_ERROR' }],
        })
        : undefined;
    const r = await runCell(c);
    strict_1.default.equal(r.status, 'failed');
    const creates = stubs.callsOf(id(c)).filter((x) => x.activity === 'createSchema');
    strict_1.default.deepEqual(creates.map((x) => x.attempt), [1], 'one attempt');
    strict_1.default.match(written(c).error ?? '', /Syntax error/);
    strict_1.default.equal(written(c).stoppedIn, 'create-schema');
    const d = cell();
    stubs.failWith = (activity, key, n) => activity === 'createSchema' && key === id(d) && n === 1
        ? common_1.ApplicationFailure.create({ type: 'ClickHouse.MEMORY_LIMIT_EXCEEDED', message: 'Memory limit exceeded' })
        : undefined;
    strict_1.default.equal((await runCell(d)).status, 'succeeded');
    strict_1.default.deepEqual(stubs
        .callsOf(id(d))
        .filter((x) => x.activity === 'createSchema')
        .map((x) => x.attempt), [1, 2]);
    strict_1.default.equal(written(d).attempts['create-schema'], 2);
});
(0, node_test_1.test)('a lost target that is not restartable (external) fails the cell with TargetUnavailable, without provisioning again', async () => {
    const c = cell({
        target: { kind: 'external', url: 'http://127.0.0.1:1', username: 'default', databasePrefix: 'chb' },
    });
    stubs.failWith = (activity, key, n) => activity === 'loadData' && key === id(c) && n === 1
        ? common_1.ApplicationFailure.create({
            type: failures_1.FAILURE.TargetUnavailable,
            nonRetryable: true,
            message: 'loadData: the ClickHouse server is unreachable (ECONNREFUSED)',
        })
        : undefined;
    const r = await runCell(c);
    strict_1.default.equal(r.status, 'failed');
    const calls = stubs.callsOf(id(c)).map((x) => x.activity);
    strict_1.default.deepEqual(calls.slice(0, 5), ['provision', 'collectMetrics', 'createSchema', 'loadData', 'writeCellResult']);
    strict_1.default.equal(calls.filter((a) => a === 'provision').length, 1, 'the external target is not provisioned again');
    const w = written(c);
    strict_1.default.deepEqual(w.targetRestarts, []);
    strict_1.default.match(w.error ?? '', /the external target was lost during load and is not restartable .*: .*the ClickHouse server is unreachable/);
});
//# sourceMappingURL=benchmark-cell.test.js.map