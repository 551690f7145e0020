"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * `npm run bench:dead-worker`: how long until a killed worker's activity is noticed and retried.
 * Real dev server, a worker process (`chbench worker`), the embedded target: SIGKILL the worker while
 * the load step runs, start a new worker at once, and time from the kill to the moment the load's
 * next attempt starts (pending activity `attempt` > 1 with a `lastStartedTime`, from
 * `DescribeWorkflowExecution`). Writes `bench/results/dead-worker.json`.
 */
const db_1 = require("../src/results/db");
const node_child_process_1 = require("node:child_process");
const node_fs_1 = require("node:fs");
const node_os_1 = __importDefault(require("node:os"));
const node_path_1 = __importDefault(require("node:path"));
const client_1 = require("@temporalio/client");
const dev_server_1 = require("../src/temporal/dev-server");
const config_1 = require("../src/config");
const fs_1 = require("../src/lib/fs");
const poll_1 = require("../src/lib/poll");
const TRIALS = Number(process.env.BENCH_TRIALS ?? 3);
function worker(address, tmp, taskQueue) {
    return (0, node_child_process_1.spawn)(process.execPath, [node_path_1.default.join(config_1.REPO_ROOT, 'dist', 'src', 'cli.js'), 'worker'], {
        env: {
            ...process.env,
            TEMPORAL_ADDRESS: address,
            CHBENCH_TASK_QUEUE: taskQueue,
            CHBENCH_WORK_DIR: node_path_1.default.join(tmp, 'targets'),
            CHBENCH_LOG_LEVEL: 'ERROR',
        },
        stdio: 'ignore',
    });
}
async function main() {
    const tmp = (0, node_fs_1.mkdtempSync)(node_path_1.default.join(node_os_1.default.tmpdir(), 'chbench-deadworker-'));
    const server = await (0, dev_server_1.startDevServer)();
    const connection = await client_1.Connection.connect({ address: server.address });
    const client = new client_1.Client({ connection });
    const taskQueue = 'dead-worker';
    let w = worker(server.address, tmp, taskQueue);
    const results = [];
    try {
        for (let i = 0; i < TRIALS; i++) {
            const runId = `dead-worker-${i}`;
            await client.workflow.start('benchmarkMatrix', {
                taskQueue,
                workflowId: runId,
                args: [
                    {
                        name: 'dw',
                        workload: 'logs',
                        scale: 3_000_000,
                        target: { kind: 'embedded' },
                        matrix: { version: ['26.7'], codec: ['LZ4'] },
                        skipIndex: false,
                        resultsDir: node_path_1.default.join(tmp, 'results'),
                    },
                ],
            });
            const cell = client.workflow.getHandle(`${runId}/v26.7-lz4`);
            await (0, poll_1.pollUntil)(async () => (await cell.query('progress')).step === 'load', {
                timeoutMs: 300_000,
                intervalMs: 50,
                what: `${runId}: the load step`,
            });
            await new Promise((r) => setTimeout(r, 500));
            const killedAt = Date.now();
            w.kill('SIGKILL');
            w = worker(server.address, tmp, taskQueue);
            const cellEnded = new Error('the cell ended before a retry was seen');
            const retryStarted = await (0, poll_1.pollUntil)(async () => {
                const d = await cell.describe();
                const raw = d.raw.pendingActivities?.find((a) => a.activityType?.name === 'loadData');
                const started = raw?.lastStartedTime
                    ? Number(raw.lastStartedTime.seconds) * 1000 + Math.floor((raw.lastStartedTime.nanos ?? 0) / 1e6)
                    : 0;
                if (raw && (raw.attempt ?? 1) > 1 && started > killedAt)
                    return started;
                if (!raw && d.status.name !== 'RUNNING')
                    throw cellEnded;
                return undefined;
            }, { timeoutMs: 300_000, intervalMs: 100, what: `${runId}: the load's retry`, stopOn: (e) => e === cellEnded });
            results.push(retryStarted - killedAt);
            await client.workflow.getHandle(runId).result();
        }
    }
    finally {
        w.kill('SIGTERM');
        await connection.close();
        await server.stop();
        // The results database the child worker's storeRun started (detached).
        await (0, db_1.stopEmbeddedResultsDb)(node_path_1.default.join(tmp, 'results', 'db'));
        (0, node_fs_1.rmSync)(tmp, { recursive: true, force: true });
    }
    const out = {
        measured_at: new Date().toISOString(),
        heartbeat_timeout_s: 10,
        kill_to_retry_started_ms: results,
        kill_to_retry_started_ms_max: Math.max(...results),
        source: 'DescribeWorkflowExecution pending activity lastStartedTime (server clock) minus the kill time (bench clock, same host)',
    };
    const file = node_path_1.default.join(config_1.REPO_ROOT, 'bench', 'results', 'dead-worker.json');
    (0, fs_1.writeJsonAtomic)(file, out);
    console.log(`dead worker noticed and the step retried after ${results.map((r) => (r / 1000).toFixed(1)).join(' s, ')} s`);
    console.log(file);
}
main().catch((e) => {
    console.error(e);
    process.exit(1);
});
//# sourceMappingURL=dead-worker.js.map