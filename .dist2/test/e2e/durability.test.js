"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * Durability on real components (dev server, worker, embedded engine): a cancelled run tears every
 * target down and keeps what was measured; a run that stopped part-way resumes without redoing
 * finished cells; gc removes what a closed run left.
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const node_fs_1 = require("node:fs");
const node_path_1 = __importDefault(require("node:path"));
const node_child_process_1 = require("node:child_process");
const node_util_1 = require("node:util");
const client_1 = require("@temporalio/client");
const common_1 = require("@temporalio/common");
const temporal_env_1 = require("../helpers/temporal-env");
const assert_failure_1 = require("../helpers/assert-failure");
const gc_1 = require("../../src/targets/gc");
const embedded_1 = require("../../src/targets/embedded");
const process_1 = require("../../src/targets/process");
const poll_1 = require("../../src/lib/poll");
const workload_1 = require("../../src/lib/workload");
const config_1 = require("../../src/config");
let env;
(0, node_test_1.before)(async () => {
    env = await (0, temporal_env_1.startTemporalEnv)('durability');
});
(0, node_test_1.after)(async () => {
    await env?.stop();
});
const spec = (name) => ({
    name,
    workload: 'logs',
    scale: 300_000,
    target: { kind: 'embedded' },
    matrix: { version: ['26.7'], codec: ['LZ4', 'ZSTD(3)'] },
    protocol: { quiesce: { stableForMs: 500 } },
    resultsDir: env.resultsDir,
});
/** The matrix's progress once `pred` holds (queried every 100 ms, at most 120 s; a failed query is "not yet"). */
async function waitFor(handle, pred) {
    return (0, poll_1.pollUntil)(async () => {
        const p = (await handle.query('progress'));
        return p && pred(p) ? p : undefined;
    }, { what: 'matrix progress condition', timeoutMs: 120_000, intervalMs: 100 });
}
function leftovers() {
    return (0, node_fs_1.existsSync)(env.workDir)
        ? (0, node_fs_1.readdirSync)(env.workDir).flatMap((d) => (0, node_fs_1.readdirSync)(node_path_1.default.join(env.workDir, d)).map((c) => `${d}/${c}`))
        : [];
}
(0, node_test_1.test)('temporal workflow cancel tears down, keeps measured results and ends the run as cancelled', async () => {
    const runId = `cancel-${Date.now()}`;
    const handle = await env.client.workflow.start('benchmarkMatrix', {
        taskQueue: env.taskQueue,
        workflowId: runId,
        args: [spec('cancel')],
    });
    await waitFor(handle, (p) => p.succeeded.length === 1 && p.running.length === 1);
    await new Promise((r) => setTimeout(r, 1500)); // mid-cell
    await handle.cancel();
    await strict_1.default.rejects(handle.result(), (e) => e instanceof client_1.WorkflowFailedError && e.cause instanceof common_1.CancelledFailure);
    const run = JSON.parse((0, node_fs_1.readFileSync)(node_path_1.default.join(env.resultsDir, runId, 'run.json'), 'utf8'));
    strict_1.default.equal(run.status, 'cancelled');
    const lz4 = JSON.parse((0, node_fs_1.readFileSync)(node_path_1.default.join(env.resultsDir, runId, 'cells', 'v26.7-lz4', 'result.json'), 'utf8'));
    strict_1.default.equal(lz4.status, 'succeeded', 'the finished cell is kept');
    const zstd = JSON.parse((0, node_fs_1.readFileSync)(node_path_1.default.join(env.resultsDir, runId, 'cells', 'v26.7-zstd3', 'result.json'), 'utf8'));
    strict_1.default.equal(zstd.status, 'cancelled');
    // The status counts the cells (issue 13): the run is cancelled, one of its two cells with it.
    strict_1.default.match((0, node_fs_1.readFileSync)(node_path_1.default.join(env.resultsDir, runId, 'report.md'), 'utf8'), /run status \*\*cancelled, 1 of 2 cells cancelled\*\*/);
    strict_1.default.deepEqual(leftovers(), [], 'every target was torn down');
});
(0, node_test_1.test)('a run that stopped part-way resumes: finished cells are reused, only the rest runs', async () => {
    const runId = `resume-${Date.now()}`;
    const handle = await env.client.workflow.start('benchmarkMatrix', {
        taskQueue: env.taskQueue,
        workflowId: runId,
        args: [spec('resume')],
    });
    await waitFor(handle, (p) => p.succeeded.length === 1 && p.running.length === 1);
    await handle.terminate('simulated crash of the run');
    const first = node_path_1.default.join(env.resultsDir, runId, 'cells', 'v26.7-lz4', 'result.json');
    const mtime = (0, node_fs_1.statSync)(first).mtimeMs;
    // Resume = start the same workflow id with the spec stored with the run (what `chbench resume` does).
    const stored = JSON.parse((0, node_fs_1.readFileSync)(node_path_1.default.join(env.resultsDir, runId, 'run-spec.json'), 'utf8'));
    const r = (await env.client.workflow.execute('benchmarkMatrix', {
        taskQueue: env.taskQueue,
        workflowId: runId,
        args: [stored],
    }));
    strict_1.default.deepEqual(r.cells.map((c) => [c.cellKey, c.status]).sort(), [
        ['v26.7-lz4', 'succeeded'],
        ['v26.7-zstd3', 'succeeded'],
    ]);
    strict_1.default.equal((0, node_fs_1.statSync)(first).mtimeMs, mtime, 'the finished cell was reused, not measured again');
    const children = [];
    for await (const w of env.client.workflow.list({ query: `WorkflowId = '${runId}/v26.7-lz4'` }))
        children.push(w.status.name);
    strict_1.default.equal(children.length, 1, 'the reused cell ran once');
    const run = JSON.parse((0, node_fs_1.readFileSync)(node_path_1.default.join(env.resultsDir, runId, 'run.json'), 'utf8'));
    strict_1.default.equal(run.resumes.length, 1);
    strict_1.default.deepEqual(leftovers(), []);
});
(0, node_test_1.test)('a spec that differs from the stored one is refused on resume', async () => {
    const runId = `resume-diff-${Date.now()}`;
    const small = { ...spec('diff'), scale: 50_000, matrix: { version: ['26.7'], codec: ['LZ4'] }, skipIndex: false };
    await env.client.workflow.execute('benchmarkMatrix', { taskQueue: env.taskQueue, workflowId: runId, args: [small] });
    await (0, assert_failure_1.assertFailureType)(env.client.workflow.execute('benchmarkMatrix', {
        taskQueue: env.taskQueue,
        workflowId: runId,
        args: [{ ...small, scale: 60_000 }],
    }), 'InvalidSpec', /different spec/);
});
/** `chbench <args>` as a child process against this file's Temporal server and task queue. */
async function cli(...args) {
    try {
        const { stdout, stderr } = await (0, node_util_1.promisify)(node_child_process_1.execFile)(process.execPath, [node_path_1.default.join(config_1.REPO_ROOT, 'dist', 'src', 'cli.js'), ...args], {
            env: {
                ...process.env,
                TEMPORAL_ADDRESS: env.server.address,
                TEMPORAL_NAMESPACE: 'default',
                CHBENCH_TASK_QUEUE: env.taskQueue,
            },
        });
        return { code: 0, stdout, stderr };
    }
    catch (e) {
        const x = e;
        return { code: x.code ?? -1, stdout: x.stdout ?? '', stderr: x.stderr ?? '' };
    }
}
(0, node_test_1.test)("chbench resume refuses a run whose workload's SQL changed since it started, naming the file; restored, it resumes", async () => {
    // A workload of its own (a copy of `trivial`), so editing its query touches nothing else.
    const name = `tmp-resume-${process.pid}`;
    const dir = node_path_1.default.join(workload_1.SQL_ROOT, 'workloads', name);
    (0, node_fs_1.cpSync)(node_path_1.default.join(workload_1.SQL_ROOT, 'workloads', 'trivial'), dir, { recursive: true });
    try {
        const manifest = node_path_1.default.join(dir, 'manifest.yaml');
        (0, node_fs_1.writeFileSync)(manifest, (0, node_fs_1.readFileSync)(manifest, 'utf8').replace(/^name: .*$/m, `name: ${name}`));
        const runId = `resume-wl-${Date.now()}`;
        const wl = {
            name: 'resume-wl',
            workload: name,
            scale: 10_000,
            target: { kind: 'embedded' },
            matrix: { version: ['26.7'], codec: ['LZ4', 'ZSTD(3)'] },
            skipIndex: false,
            protocol: { coldRuns: 1, warmRuns: 1, quiesce: { stableForMs: 300 } },
            resultsDir: env.resultsDir,
        };
        const r = (await env.client.workflow.execute('benchmarkMatrix', {
            taskQueue: env.taskQueue,
            workflowId: runId,
            args: [wl],
        }));
        strict_1.default.deepEqual(r.cells.map((c) => c.status), ['succeeded', 'succeeded']);
        const run = JSON.parse((0, node_fs_1.readFileSync)(node_path_1.default.join(env.resultsDir, runId, 'run.json'), 'utf8'));
        strict_1.default.equal(run.workload_files.name, name);
        strict_1.default.deepEqual(Object.keys(run.workload_files.files).sort(), [
            'load.sql',
            'manifest.yaml',
            'q1.sql',
            'schema.sql',
        ]);
        // As if the run had stopped after its first cell: the second cell is still to measure.
        (0, node_fs_1.rmSync)(node_path_1.default.join(env.resultsDir, runId, 'cells', 'v26.7-zstd3'), { recursive: true, force: true });
        const q1 = node_path_1.default.join(dir, 'q1.sql');
        const original = (0, node_fs_1.readFileSync)(q1, 'utf8');
        (0, node_fs_1.writeFileSync)(q1, original.replace(/count\(\)/i, 'count() + 1'));
        strict_1.default.notEqual((0, node_fs_1.readFileSync)(q1, 'utf8'), original, 'the query was edited');
        const refused = await cli('resume', runId, '--results-dir', env.resultsDir);
        strict_1.default.equal(refused.code, 2, refused.stderr);
        strict_1.default.match(refused.stderr, new RegExp(`workload ${name} changed since the run started .*: q1\\.sql\\)`));
        strict_1.default.equal((0, node_fs_1.existsSync)(node_path_1.default.join(env.resultsDir, runId, 'cells', 'v26.7-zstd3', 'result.json')), false, 'nothing was measured with the changed query');
        (0, node_fs_1.writeFileSync)(q1, original);
        const resumed = await cli('resume', runId, '--results-dir', env.resultsDir);
        strict_1.default.equal(resumed.code, 0, resumed.stderr);
        const after = JSON.parse((0, node_fs_1.readFileSync)(node_path_1.default.join(env.resultsDir, runId, 'run.json'), 'utf8'));
        strict_1.default.equal(after.resumes.length, 1);
        strict_1.default.equal(after.workload_files.sha256, run.workload_files.sha256);
        strict_1.default.equal(JSON.parse((0, node_fs_1.readFileSync)(node_path_1.default.join(env.resultsDir, runId, 'cells', 'v26.7-zstd3', 'result.json'), 'utf8')).status, 'succeeded');
    }
    finally {
        (0, node_fs_1.rmSync)(dir, { recursive: true, force: true });
    }
});
(0, node_test_1.test)("gc keeps a server whose label records no Temporal owner; --force judges it by the CLI's server", async () => {
    const runId = `gc-${Date.now()}`;
    // Provisioned outside a workflow: its label has no owner (as labels written by older versions).
    const h = await (0, embedded_1.provisionEmbedded)({ runId, cellKey: 'v26.7-lz4', version: '26.7', workDir: env.workDir });
    strict_1.default.ok((0, process_1.isAlive)(h.pid));
    const kept = await (0, gc_1.collectGarbage)(env.workDir);
    strict_1.default.deepEqual(kept.removed, []);
    strict_1.default.deepEqual(kept.kept.map((r) => r.runId), [runId]);
    strict_1.default.match(kept.kept[0].reason, /records no Temporal owner.*--force/);
    strict_1.default.ok((0, process_1.isAlive)(h.pid), 'kept');
    const force = { address: env.server.address, namespace: 'default' };
    const dry = await (0, gc_1.collectGarbage)(env.workDir, { dryRun: true, force });
    strict_1.default.deepEqual(dry.removed.map((r) => r.runId), [runId]);
    strict_1.default.ok((0, process_1.isAlive)(h.pid), 'dry run removes nothing');
    const res = await (0, gc_1.collectGarbage)(env.workDir, { force });
    strict_1.default.deepEqual(res.removed.map((r) => r.runId), [runId]);
    strict_1.default.match(res.removed[0].reason, /--force/);
    await new Promise((r) => setTimeout(r, 200));
    strict_1.default.ok(!(0, process_1.isAlive)(h.pid), 'the leaked server was stopped');
    strict_1.default.deepEqual(leftovers(), []);
});
//# sourceMappingURL=durability.test.js.map