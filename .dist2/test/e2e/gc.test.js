"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * `chbench gc` asks the Temporal server and namespace recorded in each server's label, never the
 * CLI's own: with two real dev servers, a run alive on server A survives a gc whose CLI points at
 * server B; once the run closed, the same gc removes it. Unreachable servers, missing or different
 * namespaces keep the server (and say why); "not found" removes only in the run's own namespace.
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const node_child_process_1 = require("node:child_process");
const node_fs_1 = require("node:fs");
const node_path_1 = __importDefault(require("node:path"));
const node_util_1 = require("node:util");
const client_1 = require("@temporalio/client");
const temporal_env_1 = require("../helpers/temporal-env");
const dev_server_1 = require("../../src/temporal/dev-server");
const net_1 = require("../../src/lib/net");
const gc_1 = require("../../src/targets/gc");
const embedded_1 = require("../../src/targets/embedded");
const process_1 = require("../../src/targets/process");
const config_1 = require("../../src/config");
let env; // server A + worker
let serverB;
(0, node_test_1.before)(async () => {
    env = await (0, temporal_env_1.startTemporalEnv)('gc');
    serverB = await (0, dev_server_1.startDevServer)();
});
(0, node_test_1.after)(async () => {
    await serverB?.stop();
    await env?.stop();
});
/** `chbench gc` as a user runs it, with the CLI pointed at `address`. */
async function cliGc(address, ...args) {
    const { stdout } = await (0, node_util_1.promisify)(node_child_process_1.execFile)(process.execPath, [node_path_1.default.join(config_1.REPO_ROOT, 'dist', 'src', 'cli.js'), 'gc', ...args], {
        env: { ...process.env, TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: 'default', CHBENCH_WORK_DIR: env.workDir },
    });
    return stdout;
}
async function namespaceIdOf(address, namespace = 'default') {
    const c = await client_1.Connection.connect({ address });
    try {
        return (await c.workflowService.describeNamespace({ namespace })).namespaceInfo.id;
    }
    finally {
        await c.close();
    }
}
(0, node_test_1.test)('a run alive on server A survives gc pointed at server B; once closed, gc removes its server', async () => {
    const runId = `gc-alive-${Date.now()}`;
    const spec = {
        name: 'gcalive',
        workload: 'logs',
        scale: 200_000,
        target: { kind: 'embedded' },
        matrix: { version: ['26.7'], codec: ['LZ4'] },
        queries: ['q1'],
        skipIndex: false,
        // The quiesce step alone keeps the run open for ≥ 20 s after loading: room for the gc below.
        protocol: { quiesce: { stableForMs: 20_000 }, warmRuns: 1 },
        teardown: 'never', // its server outlives the run: gc's job
        resultsDir: env.resultsDir,
    };
    const handle = await env.client.workflow.start('benchmarkMatrix', {
        taskQueue: env.taskQueue,
        workflowId: runId,
        args: [spec],
    });
    // Wait until the cell's server is up and labelled with its owner.
    let dir;
    for (let i = 0; i < 1200 && !dir; i++) {
        dir = (0, process_1.listCellDirs)(env.workDir, runId).find((d) => (0, process_1.readLabel)(d)?.owner);
        if (!dir)
            await new Promise((r) => setTimeout(r, 100));
    }
    strict_1.default.ok(dir, 'the cell server was provisioned');
    const label = (0, process_1.readLabel)(dir);
    strict_1.default.deepEqual({ ...label.owner, namespaceId: typeof label.owner?.namespaceId }, {
        address: env.server.address,
        namespace: 'default',
        namespaceId: 'string',
        workflowId: `${runId}/v26.7-lz4`,
        workflowRunId: label.owner.workflowRunId,
        matrixWorkflowId: runId,
    });
    strict_1.default.equal((await env.client.workflow.getHandle(`${runId}/v26.7-lz4`).describe()).runId, label.owner.workflowRunId);
    const out = await cliGc(serverB.address);
    strict_1.default.equal((await handle.describe()).status.name, 'RUNNING', 'the run was still going during gc (test premise)');
    strict_1.default.ok((0, process_1.isAlive)(label.pid), `the server of a running run survives a gc pointed at another server:\n${out}`);
    strict_1.default.match(out, new RegExp(`kept ${runId}/v26.7-lz4 .*workflow ${runId}.* is running \\(namespace default on ${env.server.address}\\)`));
    const r = (await handle.result());
    strict_1.default.deepEqual(r.cells.map((c) => c.status), ['succeeded']);
    strict_1.default.ok((0, process_1.isAlive)(label.pid), 'teardown never: the server outlives the run');
    const out2 = await cliGc(serverB.address);
    strict_1.default.match(out2, new RegExp(`removed ${runId}/v26.7-lz4 .*completed.*\\(namespace default on ${env.server.address}\\)`));
    await new Promise((r) => setTimeout(r, 200));
    strict_1.default.ok(!(0, process_1.isAlive)(label.pid), 'the closed run’s server was stopped');
    strict_1.default.ok(!(0, node_fs_1.existsSync)(dir), 'and its directory removed');
});
(0, node_test_1.test)('gc keeps what it cannot positively see closed, and says why', async () => {
    const nsA = await namespaceIdOf(env.server.address);
    const nsB = await namespaceIdOf(serverB.address);
    strict_1.default.notEqual(nsA, nsB, 'two dev servers have different namespace ids');
    const deadPort = await (0, net_1.freePort)();
    const runId = `gc-owners-${Date.now()}`;
    const owner = (cellKey, o) => ({
        address: env.server.address,
        namespace: 'default',
        namespaceId: nsA,
        workflowId: `${runId}/${cellKey}`,
        workflowRunId: 'r',
        matrixWorkflowId: runId,
        ...o,
    });
    const cases = {
        unreachable: {
            owner: owner('unreachable', { address: `127.0.0.1:${deadPort}` }),
            removed: false,
            reason: /unreachable/,
        },
        'other-namespace': {
            owner: owner('other-namespace', { namespace: 'not-there' }),
            removed: false,
            reason: /namespace not-there.*cannot be read/,
        },
        // The run's namespace was on A; a server now answering on "its" address (B here) has another default namespace.
        'moved-server': {
            owner: owner('moved-server', { address: serverB.address }),
            removed: false,
            reason: /not the namespace the run was started in/,
        },
        'no-namespace-id': {
            owner: owner('no-namespace-id', { namespaceId: undefined }),
            removed: false,
            reason: /not found, and the label has no namespace id/,
        },
        // Not found in its own namespace (same id): its history is gone, nothing can be running it.
        'gone-in-own-namespace': {
            owner: owner('gone-in-own-namespace', {}),
            removed: true,
            reason: /gone \(not found in its own namespace/,
        },
    };
    const pids = {};
    for (const [cellKey, c] of Object.entries(cases)) {
        const { namespaceId, ...rest } = c.owner;
        const h = await (0, embedded_1.provisionEmbedded)({
            runId,
            cellKey,
            version: '26.7',
            workDir: env.workDir,
            owner: namespaceId ? c.owner : rest,
        });
        pids[cellKey] = h.pid;
    }
    const res = await (0, gc_1.collectGarbage)(env.workDir, { connectTimeoutMs: 1500 });
    for (const [cellKey, c] of Object.entries(cases)) {
        const e = [...res.removed, ...res.kept].find((x) => x.cellKey === cellKey && x.runId === runId);
        strict_1.default.ok(e, cellKey);
        strict_1.default.equal(res.removed.includes(e), c.removed, `${cellKey}: ${e.reason}`);
        strict_1.default.match(e.reason, c.reason, cellKey);
        await new Promise((r) => setTimeout(r, 100));
        strict_1.default.equal((0, process_1.isAlive)(pids[cellKey]), !c.removed, `${cellKey} server ${c.removed ? 'stopped' : 'kept'}`);
    }
});
//# sourceMappingURL=gc.test.js.map