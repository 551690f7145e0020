"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * The attempt log of cell steps (`src/activities/support/attempt-log.ts`) in Temporal's mock activity
 * environment, and the report's "retries" cell built from it.
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const node_fs_1 = require("node:fs");
const node_os_1 = __importDefault(require("node:os"));
const node_path_1 = __importDefault(require("node:path"));
const testing_1 = require("@temporalio/testing");
const common_1 = require("@temporalio/common");
const worker_1 = require("@temporalio/worker");
const attempt_log_1 = require("../../src/activities/support/attempt-log");
const store_1 = require("../../src/results/store");
const failures_1 = require("../../src/schema/failures");
const report_1 = require("../../src/results/report");
const resultsDir = (0, node_fs_1.mkdtempSync)(node_path_1.default.join(node_os_1.default.tmpdir(), 'chbench-attempt-log-'));
const cell = { resultsDir, runId: 'run-1', cellKey: 'v24.8-lz4' };
const dir = (0, store_1.cellDir)(resultsDir, cell.runId, cell.cellKey);
/** Run `fn` as attempt `attempt` of an activity of workflow run `wfRun`. */
function runAs(fn, attempt, wfRun = 'wf-run-a') {
    const env = new testing_1.MockActivityEnvironment({ attempt, workflowExecution: { workflowId: 'run-1/v24.8-lz4', runId: wfRun } }, 
    // The failures are expected: the worker's log of them would only clutter the test output.
    { logger: new worker_1.DefaultLogger('ERROR') });
    return env.run(fn);
}
(0, node_test_1.test)('each attempt of a step is logged: a retryable failure, then success; a non-retryable failure says so', async () => {
    let n = 0;
    const acts = (0, attempt_log_1.withAttemptLog)({
        loadData: async (_si) => {
            if (++n === 1)
                throw new Error('socket closed mid-insert');
            return { rows: 1 };
        },
        provision: async (_c, _fresh) => {
            throw common_1.ApplicationFailure.create({
                type: failures_1.FAILURE.VersionMismatch,
                nonRetryable: true,
                message: 'local target: x is ClickHouse 18.16.1, but the cell asks for version 24.8',
            });
        },
        writeReport: async () => ({ ok: true }),
    });
    await strict_1.default.rejects(runAs(() => acts.loadData({ cell, target: {} }), 1), /socket closed/);
    strict_1.default.deepEqual(await runAs(() => acts.loadData({ cell, target: {} }), 2), { rows: 1 });
    await strict_1.default.rejects(runAs(() => acts.provision(cell, true), 1), /asks for version 24\.8/);
    await runAs(() => acts.writeReport(), 1);
    const log = (0, attempt_log_1.readAttemptLog)(dir, 'wf-run-a');
    strict_1.default.deepEqual(log.map((r) => [r.phase, r.activity, r.attempt, r.outcome, r.failure_type ?? null, r.retryable ?? null]), [
        ['load', 'loadData', 1, 'failed', 'Error', true],
        ['load', 'loadData', 2, 'succeeded', null, null],
        ['provision', 'provision', 1, 'failed', failures_1.FAILURE.VersionMismatch, false],
    ], 'the matrix activity writeReport is not a cell step: not logged');
    strict_1.default.match(log[0].error, /socket closed mid-insert/);
    for (const r of log) {
        strict_1.default.equal(r.workflow_run_id, 'wf-run-a');
        strict_1.default.ok(r.duration_ms >= 0);
        strict_1.default.equal(Date.parse(r.ended_at) - Date.parse(r.started_at), r.duration_ms);
    }
    // Another execution of the cell reads none of them.
    strict_1.default.deepEqual((0, attempt_log_1.readAttemptLog)(dir, 'wf-run-b'), []);
});
(0, node_test_1.test)('a fresh provisioning empties the cell folder but keeps the attempts of its own workflow run', async () => {
    await runAs(async () => (0, attempt_log_1.clearCellDirKeepingAttempts)(dir), 2, 'wf-run-a');
    strict_1.default.equal((0, attempt_log_1.readAttemptLog)(dir).length, 3, (0, node_fs_1.readFileSync)(node_path_1.default.join(dir, attempt_log_1.ATTEMPT_LOG_FILE), 'utf8'));
    await runAs(async () => (0, attempt_log_1.clearCellDirKeepingAttempts)(dir), 1, 'wf-run-b');
    strict_1.default.equal((0, node_fs_1.existsSync)(dir), false, 'a new execution starts from an empty folder');
});
(0, node_test_1.test)('phases of activities that serve several phases come from their arguments', () => {
    strict_1.default.equal((0, attempt_log_1.phaseOf)('runQueries', [{}, 'index', true]), 'queries-index');
    strict_1.default.equal((0, attempt_log_1.phaseOf)('runQueries', [{}, 'baseline', true]), 'queries-baseline');
    strict_1.default.equal((0, attempt_log_1.phaseOf)('quiesceMerges', [{}, 'after-index']), 'quiesce-index');
    strict_1.default.equal((0, attempt_log_1.phaseOf)('collectMetrics', [{}, 'end']), 'collect-metrics-end');
    strict_1.default.equal((0, attempt_log_1.phaseOf)('writeCellResult', [{}]), undefined);
});
(0, node_test_1.test)('the "retries" cell names a failed step, its attempts and why it was not retried', () => {
    const rec = (attempt, outcome, failure_type, retryable) => ({
        phase: 'x',
        activity: 'x',
        attempt,
        started_at: '2026-12-01T00:00:00.000Z',
        ended_at: '2026-12-01T00:00:01.000Z',
        duration_ms: 1000,
        outcome,
        ...(failure_type ? { failure_type, retryable } : {}),
    });
    const c = {
        attempts: { provision: 1 },
        attempt_log: { provision: [rec(1, 'failed', 'VersionMismatch', false)] },
        target_restarts: [],
    };
    strict_1.default.equal((0, report_1.retries)(c), 'provision ×1 failed: VersionMismatch (not retryable)');
    const d = {
        attempts: { provision: 1, load: 3 },
        attempt_log: {
            provision: [rec(1, 'succeeded')],
            load: [rec(1, 'failed', 'Error', true), rec(2, 'failed', 'Error', true), rec(3, 'succeeded')],
        },
        target_restarts: [],
    };
    strict_1.default.equal((0, report_1.retries)(d), 'load ×3 (2 failed: Error)');
    // Results written before attempts were logged: counts only, as before.
    strict_1.default.equal((0, report_1.retries)({ attempts: { load: 2 }, target_restarts: [] }), 'load ×2');
    strict_1.default.equal((0, report_1.retries)({ attempts: { load: 1 }, target_restarts: [] }), 'none');
});
//# sourceMappingURL=attempt-log.test.js.map