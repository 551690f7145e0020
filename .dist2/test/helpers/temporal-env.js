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
exports.startTemporalEnv = startTemporalEnv;
exports.startStubEnv = startStubEnv;
/**
 * Shared test harness: a real Temporal dev server (started here on free ports, own SQLite file,
 * chbench's search attributes registered) and a real worker running in this process on a task
 * queue unique to the test file. Everything is stopped in `stop()`.
 */
const node_fs_1 = require("node:fs");
const node_os_1 = __importDefault(require("node:os"));
const node_path_1 = __importDefault(require("node:path"));
const node_crypto_1 = require("node:crypto");
const client_1 = require("@temporalio/client");
const dev_server_1 = require("../../src/temporal/dev-server");
const worker_1 = require("../../src/worker");
const process_1 = require("../../src/targets/process");
const config_1 = require("../../src/config");
const db_1 = require("../../src/results/db");
/** A dev server, a worker made by `makeWorker` on a fresh task queue, and a client; `stop()` closes all three. */
async function startServerAndWorker(taskQueuePrefix, makeWorker) {
    (0, worker_1.installRuntime)((0, config_1.logLevel)('WARN'));
    const server = await (0, dev_server_1.startDevServer)();
    const taskQueue = `${taskQueuePrefix}-${(0, node_crypto_1.randomUUID)().slice(0, 8)}`;
    const { worker, connection: wconn } = await makeWorker(server.address, taskQueue);
    const running = worker.run();
    const connection = await client_1.Connection.connect({ address: server.address });
    const client = new client_1.Client({ connection, namespace: 'default' });
    return {
        server,
        client,
        taskQueue,
        worker,
        async stop() {
            worker.shutdown();
            await running.catch(() => undefined);
            await wconn.close();
            await connection.close();
            await server.stop();
            // Results databases the worker's storeRun opened (one engine process per results directory).
            await (0, db_1.stopResultsDbsStartedHere)();
        },
    };
}
/** Start server + worker. `TEMPORAL_ADDRESS` is ignored on purpose: tests own their server. */
async function startTemporalEnv(name) {
    const tmp = (0, node_fs_1.mkdtempSync)(node_path_1.default.join(node_os_1.default.tmpdir(), `chbench-${name}-`));
    const workDir = node_path_1.default.join(tmp, 'targets');
    const env = await startServerAndWorker(`chbench-test-${name}`, (address, taskQueue) => (0, worker_1.createWorker)({ temporalAddress: address, namespace: 'default', taskQueue, workDir }));
    return {
        ...env,
        tmp,
        workDir,
        resultsDir: node_path_1.default.join(tmp, 'results'),
        async stop() {
            await env.stop();
            // A failed test may leave servers behind: stop every one under this file's work dir.
            for (const d of (0, process_1.listCellDirs)(workDir))
                await (0, process_1.stopProcess)(undefined, d, 2000);
            (0, node_fs_1.rmSync)(tmp, { recursive: true, force: true });
        },
    };
}
/**
 * Start a dev server and a worker whose activities are `activities` (stubs keyed by activity name),
 * for workflow tests: the workflows are the real ones, so their command sequence, retries, timers and
 * child workflows are the real Temporal behaviour. Unknown activities fail the workflow task loudly.
 */
async function startStubEnv(name, activities) {
    return startServerAndWorker(`chbench-wf-${name}`, async (address, taskQueue) => {
        const { Worker: WorkerClass, NativeConnection: NativeConn } = await Promise.resolve().then(() => __importStar(require('@temporalio/worker')));
        const connection = await NativeConn.connect({ address });
        const worker = await WorkerClass.create({
            connection,
            namespace: 'default',
            taskQueue,
            workflowsPath: require.resolve('../../src/workflows'),
            activities,
        });
        return { worker, connection };
    });
}
//# sourceMappingURL=temporal-env.js.map