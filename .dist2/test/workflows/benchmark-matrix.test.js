"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * The matrix workflow's orchestration with stub activities (no ClickHouse): continue-as-new past its
 * event budget, reusing the cells finished in earlier runs; the cloud metrics step before the report.
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const node_crypto_1 = require("node:crypto");
const common_1 = require("@temporalio/common");
const temporal_env_1 = require("../helpers/temporal-env");
const stub_activities_1 = require("../helpers/stub-activities");
const stubs = (0, stub_activities_1.stubActivities)();
let env;
(0, node_test_1.before)(async () => {
    env = await (0, temporal_env_1.startStubEnv)('matrix', stubs.activities);
});
(0, node_test_1.after)(async () => {
    await env?.stop();
});
(0, node_test_1.test)('the matrix continues as new past its event budget and reuses the cells finished before', async () => {
    const runId = `wf-matrix-${(0, node_crypto_1.randomUUID)().slice(0, 8)}`;
    const spec = {
        name: 'wf',
        workload: 'logs',
        scale: 1000,
        target: { kind: 'embedded' },
        matrix: { version: ['26.7'], codec: ['LZ4', 'ZSTD(1)', 'ZSTD(3)'] },
        skipIndex: false,
        resultsDir: '/stub',
    };
    // A budget of one event: every run starts one cell, then continues as new.
    const handle = await env.client.workflow.start('benchmarkMatrix', {
        taskQueue: env.taskQueue,
        workflowId: runId,
        args: [spec, { eventBudget: 1 }],
    });
    const r = (await handle.result());
    strict_1.default.equal(r.status, 'completed');
    strict_1.default.deepEqual(r.cells.map((c) => [c.cellKey, c.status]).sort(), [
        ['v26.7-lz4', 'succeeded'],
        ['v26.7-zstd1', 'succeeded'],
        ['v26.7-zstd3', 'succeeded'],
    ]);
    const validations = stubs
        .callsOf(runId)
        .filter((c) => c.activity === 'validateSpec')
        .map((c) => c.args[0]);
    strict_1.default.equal(validations.length, 3, 'three runs: one per cell');
    strict_1.default.equal(validations[0].reuseFailedSince, undefined);
    strict_1.default.ok(validations[1].reuseFailedSince && validations[2].reuseFailedSince === validations[1].reuseFailedSince, "later runs reuse failures since the first run's start");
    for (const k of ['v26.7-lz4', 'v26.7-zstd1', 'v26.7-zstd3'])
        strict_1.default.equal(stubs.callsOf(`${runId}/${k}`).filter((c) => c.activity === 'provision').length, 1, `${k} ran once`);
    strict_1.default.equal(stubs.callsOf(runId).filter((c) => c.activity === 'writeReport').length, 1, 'one report, by the last run');
    const runs = [];
    for await (const w of env.client.workflow.list({ query: `WorkflowId = '${runId}'` }))
        runs.push(w.runId);
    strict_1.default.equal(runs.length, 3, 'three executions of the one workflow id');
});
/** A one-cell spec, with or without a `cloud` section. */
function cloudSpec(cloud) {
    return {
        name: 'wf-cloud',
        workload: 'logs',
        scale: 1000,
        // The cloud section is for kubernetes cells (the stub activities provision nothing).
        target: { kind: cloud ? 'kubernetes' : 'embedded' },
        matrix: { version: ['26.7'], codec: ['LZ4'] },
        skipIndex: false,
        resultsDir: '/stub',
        ...(cloud ? { cloud: { settleMs: 0 } } : {}),
    };
}
(0, node_test_1.test)('with a cloud section, collectCloudMetrics runs once after the cells and before the report; without, never', async () => {
    for (const cloud of [true, false]) {
        const runId = `wf-cloud-${cloud}-${(0, node_crypto_1.randomUUID)().slice(0, 8)}`;
        const r = (await env.client.workflow.execute('benchmarkMatrix', {
            taskQueue: env.taskQueue,
            workflowId: runId,
            args: [cloudSpec(cloud)],
        }));
        strict_1.default.equal(r.status, 'completed');
        const order = stubs.calls
            .filter((c) => c.key === runId || c.key.startsWith(`${runId}/`))
            .map((c) => c.activity)
            .filter((a) => a === 'teardown' || a === 'collectCloudMetrics' || a === 'writeReport');
        strict_1.default.deepEqual(order, cloud ? ['teardown', 'collectCloudMetrics', 'writeReport'] : ['teardown', 'writeReport']);
    }
});
(0, node_test_1.test)('a failing cloud step does not lose the run: the report is still written and the run completes', async () => {
    const runId = `wf-cloud-fail-${(0, node_crypto_1.randomUUID)().slice(0, 8)}`;
    stubs.failWith = (activity) => activity === 'collectCloudMetrics' ? new Error('CloudWatch unreachable (stub)') : undefined;
    try {
        const r = (await env.client.workflow.execute('benchmarkMatrix', {
            taskQueue: env.taskQueue,
            workflowId: runId,
            args: [cloudSpec(true)],
        }));
        strict_1.default.equal(r.status, 'completed');
        strict_1.default.deepEqual(r.cells.map((c) => c.status), ['succeeded']);
        strict_1.default.ok(stubs.callsOf(runId).filter((c) => c.activity === 'collectCloudMetrics').length >= 1);
        strict_1.default.equal(stubs.callsOf(runId).filter((c) => c.activity === 'writeReport').length, 1);
    }
    finally {
        stubs.failWith = undefined;
    }
});
/** A one-cell spec compared with a baseline run. */
function baselineSpec() {
    return {
        name: 'wf-compare',
        workload: 'logs',
        scale: 1000,
        target: { kind: 'embedded' },
        matrix: { version: ['26.7'], codec: ['LZ4'] },
        resultsDir: '/stub',
        protocol: { warmRuns: 7 },
        baseline: { from: 'run', run: 'baseline-run', confirmRounds: 4 },
    };
}
/** Activities of a run and its children (cells, the confirming re-run) in call order. */
function activitiesOf(runId, names) {
    return stubs.calls
        .filter((c) => c.key === runId || c.key.startsWith(`${runId}/`) || c.key.startsWith(`${runId}.confirm/`))
        .map((c) => c.activity)
        .filter((a) => names.includes(a));
}
(0, node_test_1.test)('a flagged query is re-run interleaved on two fresh cells; the confirmed verdict reaches the result and ChbenchVerdict', async () => {
    for (const confirms of [true, false]) {
        const runId = `wf-compare-${confirms}-${(0, node_crypto_1.randomUUID)().slice(0, 8)}`;
        stubs.flagged = [
            {
                pairKey: 'v26.7-lz4→v26.7-lz4',
                baselineCell: { runId: 'baseline-run', cellKey: 'v26.7-lz4' },
                newCell: { runId, cellKey: 'v26.7-lz4' },
                queries: [{ query_id: 'q5', phase: 'index' }],
            },
        ];
        stubs.confirms = confirms;
        try {
            const handle = await env.client.workflow.start('benchmarkMatrix', {
                taskQueue: env.taskQueue,
                workflowId: runId,
                args: [baselineSpec()],
            });
            const r = (await handle.result());
            strict_1.default.equal(r.status, 'completed');
            strict_1.default.deepEqual(r.comparison, {
                verdict: confirms ? 'regression' : 'unchanged',
                baselineRunId: 'baseline-run',
                flagged: ['Q5@index'],
                confirmed: confirms ? ['Q5@index'] : [],
            });
            // Stored before the comparison and again after the report; the re-run between first pass and final verdict.
            strict_1.default.deepEqual(activitiesOf(runId, [
                'storeRun',
                'compareWithBaseline',
                'planConfirmation',
                'runInterleaved',
                'finishComparison',
                'writeReport',
            ]), [
                'storeRun',
                'compareWithBaseline',
                'planConfirmation',
                'runInterleaved',
                'finishComparison',
                'writeReport',
                'storeRun',
            ]);
            // Two fresh cells, each provisioned, loaded, indexed (Q5 runs after the index) and torn down.
            for (const side of ['p1-baseline', 'p1-new']) {
                const acts = stubs.callsOf(`${runId}.confirm/${side}`).map((c) => c.activity);
                for (const a of ['provision', 'createSchema', 'loadData', 'materializeSkipIndex', 'teardown'])
                    strict_1.default.ok(acts.includes(a), `${side}: ${a} in ${acts.join(', ')}`);
            }
            const interleaved = stubs.callsOf(`${runId}.confirm/p1-new`).find((c) => c.activity === 'runInterleaved');
            strict_1.default.equal((interleaved?.args[0]).rounds, 4);
            const desc = await handle.describe();
            strict_1.default.deepEqual(desc.searchAttributes.ChbenchVerdict, [confirms ? 'regression' : 'unchanged']);
        }
        finally {
            stubs.flagged = [];
            stubs.confirms = true;
        }
    }
});
(0, node_test_1.test)('nothing flagged: no re-run; a results database that cannot be written does not lose the run', async () => {
    const runId = `wf-compare-none-${(0, node_crypto_1.randomUUID)().slice(0, 8)}`;
    const r = (await env.client.workflow.execute('benchmarkMatrix', {
        taskQueue: env.taskQueue,
        workflowId: runId,
        args: [baselineSpec()],
    }));
    strict_1.default.equal(r.comparison?.verdict, 'unchanged');
    strict_1.default.deepEqual(activitiesOf(runId, ['planConfirmation', 'runInterleaved']), []);
    const failing = `wf-store-fail-${(0, node_crypto_1.randomUUID)().slice(0, 8)}`;
    stubs.failWith = (activity) => activity === 'storeRun' ? common_1.ApplicationFailure.nonRetryable('results database unreachable (stub)') : undefined;
    try {
        const f = (await env.client.workflow.execute('benchmarkMatrix', {
            taskQueue: env.taskQueue,
            workflowId: failing,
            args: [{ ...baselineSpec(), baseline: undefined }],
        }));
        strict_1.default.equal(f.status, 'completed');
        strict_1.default.deepEqual(f.cells.map((c) => c.status), ['succeeded']);
        strict_1.default.equal(stubs.callsOf(failing).filter((c) => c.activity === 'writeReport').length, 1);
    }
    finally {
        stubs.failWith = undefined;
    }
});
(0, node_test_1.test)('host placement: a cell whose placed host takes nothing is placed again elsewhere; an unplaced cell that loses its host starts over on the shared queue; lost hosts get no more cells', async () => {
    const runId = `wf-hosts-${(0, node_crypto_1.randomUUID)().slice(0, 8)}`;
    const ghost = (id) => ({ id, taskQueue: `${env.taskQueue}@${id}` });
    // The only host found has no worker: lz4, placed there, is never provisioned by it.
    stubs.hosts = [ghost('ghost')];
    // zstd1's first provisioning reports host ghost2 (no worker polls its queue): its next step is never taken.
    stubs.provisionHost = (cellKey, n) => cellKey === 'v26.7-zstd1' && n === 1
        ? { ...ghost('ghost2'), hostname: 'g2', cpuModel: 'x', cores: 1, memoryBytes: 1, kernel: 'Linux' }
        : undefined;
    try {
        const handle = await env.client.workflow.start('benchmarkMatrix', {
            taskQueue: env.taskQueue,
            workflowId: runId,
            args: [
                {
                    name: 'wf',
                    workload: 'logs',
                    scale: 1000,
                    target: { kind: 'embedded' },
                    matrix: { version: ['26.7'], codec: ['LZ4', 'ZSTD(1)'] },
                    skipIndex: false,
                    hostLossTimeoutS: 5,
                    resultsDir: '/stub',
                },
            ],
        });
        const r = (await handle.result());
        strict_1.default.deepEqual(r.cells.map((c) => [c.cellKey, c.status, c.hostLosses?.map((l) => `${l.hostId}@${l.step}`)]), [
            ['v26.7-lz4', 'succeeded', ['ghost@provision']],
            ['v26.7-zstd1', 'succeeded', ['ghost2@collect-metrics']],
        ]);
        // The requeued execution is not an outcome of its own: done counts each cell once.
        const progress = (await handle.query('progress'));
        strict_1.default.deepEqual([progress.done, progress.total, progress.running], [2, 2, []]);
        const results = (k) => stubs
            .callsOf(`${runId}/${k}`)
            .filter((c) => c.activity === 'writeCellResult')
            .map((c) => c.args[1]);
        // lz4 ran twice: once ended by the lost host (result failed, hostLost), once elsewhere, keeping the loss.
        strict_1.default.deepEqual(results('v26.7-lz4').map((o) => [o.status, o.hostLost ?? false, o.hostLosses?.map((l) => l.hostId)]), [
            ['failed', true, ['ghost']],
            ['succeeded', false, ['ghost']],
        ]);
        strict_1.default.deepEqual(results('v26.7-zstd1').map((o) => [o.status, o.hostLosses?.map((l) => l.hostId)]), [['succeeded', ['ghost2']]]);
        // Only the shared queue's worker started anything: lz4 provisioned once (the placed attempt was
        // never taken), zstd1 twice (again after the loss), and the teardown on ghost2 never started.
        const started = (k, a) => stubs.callsOf(`${runId}/${k}`).filter((c) => c.activity === a);
        strict_1.default.equal(started('v26.7-lz4', 'provision').length, 1);
        strict_1.default.equal(started('v26.7-zstd1', 'provision').length, 2);
        strict_1.default.equal(started('v26.7-zstd1', 'teardown').length, 1, 'only the final teardown, on the shared queue');
        // The matrix looked for hosts again once its only host was lost, and placed nothing more there.
        strict_1.default.equal(stubs.callsOf(runId).filter((c) => c.activity === 'discoverHosts').length, 2);
        for (const k of ['v26.7-lz4', 'v26.7-zstd1'])
            for (const c of started(k, 'provision'))
                strict_1.default.equal(c.args[0].placement, undefined);
    }
    finally {
        stubs.hosts = [];
        stubs.provisionHost = undefined;
    }
});
//# sourceMappingURL=benchmark-matrix.test.js.map