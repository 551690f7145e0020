"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * The load grids on real components (dev server, a worker in its own process, the embedded engine):
 * a matrix with a concurrency stepping and an insert grid whose worker is SIGKILLed in the middle of
 * the grid. After a new worker takes over, the run completes; every insert point ran as exactly one
 * scheduled activity, and the points finished before the kill were not run again (their records are
 * byte-for-byte the ones written before the kill, from attempt 1); every point is verified by
 * `count()`, and the report shows both grids.
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const node_child_process_1 = require("node:child_process");
const node_fs_1 = require("node:fs");
const node_os_1 = __importDefault(require("node:os"));
const node_path_1 = __importDefault(require("node:path"));
const node_crypto_1 = require("node:crypto");
const client_1 = require("@temporalio/client");
const dev_server_1 = require("../../src/temporal/dev-server");
const config_1 = require("../../src/config");
const poll_1 = require("../../src/lib/poll");
const process_1 = require("../../src/targets/process");
const embedded_1 = require("../../src/results/db/embedded");
const store_1 = require("../../src/results/store");
const grids_1 = require("../../src/schema/grids");
const histories_1 = require("../helpers/histories");
let server;
let client;
let connection;
let tmp;
let worker;
const taskQueue = `chbench-test-grids-${(0, node_crypto_1.randomUUID)().slice(0, 8)}`;
function startWorker() {
    const log = (0, node_fs_1.openSync)(node_path_1.default.join(tmp, 'worker.log'), 'a');
    worker = (0, node_child_process_1.spawn)(process.execPath, [node_path_1.default.join(config_1.REPO_ROOT, 'dist', 'src', 'cli.js'), 'worker'], {
        env: {
            ...process.env,
            TEMPORAL_ADDRESS: server.address,
            CHBENCH_TASK_QUEUE: taskQueue,
            CHBENCH_WORK_DIR: node_path_1.default.join(tmp, 'targets'),
            CHBENCH_LOG_LEVEL: 'WARN',
        },
        stdio: ['ignore', log, log],
    });
    return worker;
}
async function killWorker() {
    const w = worker;
    if (!w || w.exitCode !== null || w.signalCode !== null)
        return;
    const gone = new Promise((r) => w.once('exit', r));
    w.kill('SIGKILL');
    await gone;
}
(0, node_test_1.before)(async () => {
    tmp = (0, node_fs_1.mkdtempSync)(node_path_1.default.join(node_os_1.default.tmpdir(), 'chbench-grids-'));
    server = await (0, dev_server_1.startDevServer)();
    connection = await client_1.Connection.connect({ address: server.address });
    client = new client_1.Client({ connection, namespace: 'default' });
});
(0, node_test_1.after)(async () => {
    await killWorker();
    await connection?.close();
    await server?.stop();
    for (const d of (0, process_1.listCellDirs)(node_path_1.default.join(tmp, 'targets')))
        await (0, process_1.stopProcess)(undefined, d, 2000);
    await (0, embedded_1.stopEmbeddedResultsDb)(node_path_1.default.join(tmp, 'results', 'db'));
    (0, node_fs_1.rmSync)(tmp, { recursive: true, force: true });
});
(0, node_test_1.test)('a grid resumes after a worker kill without running finished points again', { timeout: 600_000 }, async () => {
    const resultsDir = node_path_1.default.join(tmp, 'results');
    const insert = {
        batchSizes: [2_000, 20_000],
        concurrency: [1, 2],
        settings: [{ name: 'sync' }, { name: 'dedup', mergeTree: { non_replicated_deduplication_window: 100 } }],
        rows: 200_000,
    };
    const spec = {
        name: 'grids-kill',
        workload: 'logs',
        scale: 200_000,
        target: { kind: 'embedded' },
        matrix: { version: ['26.7'], codec: ['LZ4'] },
        queries: ['q1', 'q2'],
        skipIndex: false,
        protocol: { coldRuns: 0, warmupRuns: 0, warmRuns: 1, quiesce: { stableForMs: 300 } },
        resultsDir,
        grids: {
            concurrency: { steps: [1, 2], durationS: 1, warmupS: 0.2 },
            insert,
        },
    };
    const points = (0, grids_1.insertPoints)(grids_1.InsertGridSpec.parse(insert));
    const runId = `grids-kill-${(0, node_crypto_1.randomUUID)().slice(0, 6)}`;
    const cellKey = 'v26.7-lz4';
    const gridDir = node_path_1.default.join((0, store_1.cellDir)(resultsDir, runId, cellKey), 'grids');
    const recordsNow = () => (0, node_fs_1.existsSync)(gridDir)
        ? (0, node_fs_1.readdirSync)(gridDir)
            .filter((f) => /^insert-.*\.json$/.test(f))
            .sort()
        : [];
    startWorker();
    const handle = await client.workflow.start('benchmarkMatrix', { taskQueue, workflowId: runId, args: [spec] });
    // Kill once two points are finished and before the last one is.
    await (0, poll_1.pollUntil)(async () => (recordsNow().length >= 2 ? true : undefined), {
        what: 'two insert points finished',
        timeoutMs: 300_000,
        intervalMs: 50,
    });
    await killWorker();
    const before = new Map(recordsNow().map((f) => [f, (0, node_fs_1.readFileSync)(node_path_1.default.join(gridDir, f), 'utf8')]));
    strict_1.default.ok(before.size < points.length, `the kill came before the last point (${before.size} of ${points.length} done)`);
    startWorker();
    const r = (await handle.result());
    strict_1.default.equal(r.status, 'completed');
    strict_1.default.deepEqual(r.cells.map((c) => c.status), ['succeeded']);
    // Points finished before the kill were not run again: same record, from attempt 1.
    for (const [f, text] of before) {
        strict_1.default.equal((0, node_fs_1.readFileSync)(node_path_1.default.join(gridDir, f), 'utf8'), text, `${f} was not rewritten after the kill`);
        strict_1.default.equal(JSON.parse(text).attempt, 1);
    }
    // One scheduled activity per point, in grid order (a retry is an attempt of the same activity).
    const hist = await client.workflow.getHandle(`${runId}/${cellKey}`).fetchHistory();
    const scheduled = hist.events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'insertPoint');
    strict_1.default.equal(scheduled.length, points.length, 'each insert point is one scheduled activity');
    const steps = hist.events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'concurrencyStep');
    strict_1.default.equal(steps.length, 2, 'each concurrency step is one scheduled activity');
    // Every point verified by count(); the report shows both grids.
    const result = JSON.parse((0, node_fs_1.readFileSync)(node_path_1.default.join((0, store_1.cellDir)(resultsDir, runId, cellKey), 'result.json'), 'utf8'));
    strict_1.default.deepEqual(result.grids.insert.map((p) => p.summary.key), points.map((p) => p.key));
    for (const p of result.grids.insert) {
        strict_1.default.ok(p.summary.verified, `${p.summary.key}: ${p.verification.reasons.join('; ')}`);
        strict_1.default.equal(p.verification.count, 200_000, `${p.summary.key}: every row landed once`);
        strict_1.default.ok(p.summary.rowsPerS > 0);
    }
    strict_1.default.equal(result.grids.concurrency.length, 2);
    for (const s of result.grids.concurrency)
        strict_1.default.ok(s.summary.requests > 0, `step ${s.summary.clients}: requests`);
    const report = (0, node_fs_1.readFileSync)(r.reportPath, 'utf8');
    strict_1.default.match(report, /## Insert grid/);
    strict_1.default.match(report, /## Concurrency stepping/);
    strict_1.default.match(report, /Knee: /);
    const html = (0, node_fs_1.readFileSync)(r.reportPath.replace(/\.md$/, '.html'), 'utf8');
    strict_1.default.match(html, /id="chart-insert-grid"/);
    strict_1.default.match(html, /id="chart-concurrency"/);
    strict_1.default.doesNotMatch(html, /class="chart failed"/);
    // `CHBENCH_RECORD_HISTORIES=1` records this release's histories: a matrix whose cell ran both grids,
    // its worker killed mid-grid (one insert point retried), for the replay test.
    if (process.env.CHBENCH_RECORD_HISTORIES)
        (0, histories_1.recordRunHistories)(server.address, runId, cellKey);
});
//# sourceMappingURL=grids.test.js.map