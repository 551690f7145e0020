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
 * `collectKubernetesGarbage` against the Kubernetes emulator and a real Temporal dev server: the pod
 * and PVC of a run whose workflows are terminated are deleted; those of a run still open, of a run
 * whose Temporal server is unreachable and of an object without owner are kept, each with why.
 * `chbench gc --kubernetes` (the CLI, as a subprocess) does the same in the namespace it is given and
 * prints one line per object.
 */
const node_test_1 = require("node:test");
const node_child_process_1 = require("node:child_process");
const strict_1 = __importDefault(require("node:assert/strict"));
const fs = __importStar(require("node:fs"));
const os = __importStar(require("node:os"));
const path = __importStar(require("node:path"));
const client_1 = require("@temporalio/client");
const cluster_1 = require("../k8s/cluster");
const dev_server_1 = require("../../src/temporal/dev-server");
const config_1 = require("../../src/config");
const net_1 = require("../../src/lib/net");
const run_spec_1 = require("../../src/schema/run-spec");
const kubernetes_1 = require("../../src/targets/kubernetes");
const kube_1 = require("../../src/targets/kubernetes/kube");
const render_1 = require("../../src/targets/kubernetes/render");
const gc_1 = require("../../src/targets/gc");
let temporal;
let cluster;
let dir;
let kubeconfig;
(0, node_test_1.before)(async () => {
    temporal = await (0, dev_server_1.startDevServer)();
    cluster = await new cluster_1.SimCluster().start();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'k8s-gc-'));
    kubeconfig = path.join(dir, 'kubeconfig');
    fs.writeFileSync(kubeconfig, cluster.emu.kubeconfig());
    (0, kubernetes_1.forgetKubeClients)();
    await (0, kubernetes_1.resetAccess)();
});
(0, node_test_1.after)(async () => {
    await cluster?.stop();
    await temporal?.stop();
    if (dir)
        fs.rmSync(dir, { recursive: true, force: true });
});
(0, node_test_1.test)('gc deletes the pod and PVC of a closed run and keeps what it cannot see closed', async () => {
    const conn = await client_1.Connection.connect({ address: temporal.address });
    const client = new client_1.Client({ connection: conn, namespace: 'default' });
    const nsId = (await conn.workflowService.describeNamespace({ namespace: 'default' })).namespaceInfo.id;
    const stamp = Date.now();
    // Workflows nobody runs (no worker polls this queue): started, and for the closed run terminated.
    const start = (id) => client.workflow.start('benchmarkMatrix', { taskQueue: `nobody-${stamp}`, workflowId: id, args: [] });
    const closedRun = `gc-closed-${stamp}`;
    const openRun = `gc-open-${stamp}`;
    for (const id of [closedRun, `${closedRun}/v26.7-lz4`, openRun, `${openRun}/v26.7-lz4`])
        await start(id);
    await client.workflow.getHandle(closedRun).terminate('test: the run is over');
    await client.workflow.getHandle(`${closedRun}/v26.7-lz4`).terminate('test: the run is over');
    const spec = run_spec_1.KubernetesTargetSpec.parse({ kind: 'kubernetes', kubeconfig });
    const kube = (0, kube_1.kubeFor)(spec);
    const owner = (runId, o = {}) => ({
        address: temporal.address,
        namespace: 'default',
        namespaceId: nsId,
        workflowId: `${runId}/v26.7-lz4`,
        workflowRunId: 'r',
        matrixWorkflowId: runId,
        ...o,
    });
    const deadRun = `gc-dead-${stamp}`;
    const cells = [
        [closedRun, owner(closedRun)],
        [openRun, owner(openRun)],
        [deadRun, owner(deadRun, { address: `127.0.0.1:${await (0, net_1.freePort)()}` })],
        [`gc-noowner-${stamp}`, undefined],
    ];
    let first = true;
    for (const [runId, o] of cells) {
        const req = { runId, cellKey: 'v26.7-lz4', version: '26.7', workDir: dir, ...(o ? { owner: o } : {}) };
        const objs = await (0, render_1.renderCell)(spec, req, (0, kube_1.cellNames)(runId, 'v26.7-lz4'));
        if (first)
            await kube.core.createNamespace({ body: objs.namespace });
        first = false;
        await kube.core.createNamespacedPersistentVolumeClaim({
            namespace: spec.namespace,
            body: objs.pvc,
        });
        await kube.core.createNamespacedPod({ namespace: spec.namespace, body: objs.pod });
    }
    const dry = await (0, gc_1.collectKubernetesGarbage)({ kubeconfig }, { dryRun: true, connectTimeoutMs: 1000 });
    strict_1.default.equal(dry.removed.length, 2);
    strict_1.default.equal((await kube.core.listNamespacedPod({ namespace: spec.namespace })).items.length, 4, 'dry run deletes nothing');
    const r = await (0, gc_1.collectKubernetesGarbage)({ kubeconfig }, { connectTimeoutMs: 1000 });
    strict_1.default.deepEqual(r.removed.map((e) => `${e.kind} ${e.runId}`).sort(), [
        `PersistentVolumeClaim ${closedRun}`,
        `Pod ${closedRun}`,
    ]);
    for (const e of r.removed)
        strict_1.default.match(e.reason, /terminated/);
    const why = (runId) => r.kept.find((e) => e.runId === runId && e.kind === 'Pod')?.reason ?? '';
    strict_1.default.match(why(openRun), /is running/);
    strict_1.default.match(why(deadRun), /unreachable/);
    strict_1.default.match(why(`gc-noowner-${stamp}`), /no parseable chbench\.io\/owner annotation/);
    const left = (await kube.core.listNamespacedPod({ namespace: spec.namespace })).items.map((p) => p.metadata?.name);
    strict_1.default.equal(left.length, 3);
    strict_1.default.ok(!left.includes((0, kube_1.cellNames)(closedRun, 'v26.7-lz4').pod));
    strict_1.default.equal((await kube.core.listNamespacedPersistentVolumeClaim({ namespace: spec.namespace })).items.length, 3);
    // The shared namespace stays.
    strict_1.default.ok(await kube.core.readNamespace({ name: spec.namespace }));
    await conn.close();
});
/** Runs `node dist/src/cli.js <args>`; resolves with exit code, stdout and stderr. */
function cli(...args) {
    return new Promise((resolve) => (0, node_child_process_1.execFile)(process.execPath, [path.join(config_1.REPO_ROOT, 'dist', 'src', 'cli.js'), ...args], { timeout: 120_000, env: { ...process.env, KUBECONFIG: path.join(dir, 'no-such-kubeconfig') } }, (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr })));
}
(0, node_test_1.test)('chbench gc --kubernetes --kubeconfig --namespace prints one line per object and deletes only the closed run', async () => {
    const conn = await client_1.Connection.connect({ address: temporal.address });
    const client = new client_1.Client({ connection: conn, namespace: 'default' });
    const nsId = (await conn.workflowService.describeNamespace({ namespace: 'default' })).namespaceInfo.id;
    const stamp = Date.now();
    const closedRun = `cli-closed-${stamp}`;
    const openRun = `cli-open-${stamp}`;
    for (const id of [closedRun, `${closedRun}/v26.7-zstd3`, openRun, `${openRun}/v26.7-zstd3`])
        await client.workflow.start('benchmarkMatrix', { taskQueue: `nobody-${stamp}`, workflowId: id, args: [] });
    for (const id of [closedRun, `${closedRun}/v26.7-zstd3`])
        await client.workflow.getHandle(id).terminate('test: the run is over');
    // Its own namespace: the objects the first test left in bench-database must stay untouched.
    const NS2 = 'gc-cli';
    const spec = run_spec_1.KubernetesTargetSpec.parse({ kind: 'kubernetes', kubeconfig, namespace: NS2 });
    const kube = (0, kube_1.kubeFor)(spec);
    const otherPods = (await kube.core.listNamespacedPod({ namespace: 'bench-database' })).items.length;
    const names = (runId) => (0, kube_1.cellNames)(runId, 'v26.7-zstd3');
    let first = true;
    for (const runId of [closedRun, openRun]) {
        const owner = {
            address: temporal.address,
            namespace: 'default',
            namespaceId: nsId,
            workflowId: `${runId}/v26.7-zstd3`,
            workflowRunId: 'r',
            matrixWorkflowId: runId,
        };
        const req = { runId, cellKey: 'v26.7-zstd3', version: '26.7', workDir: dir, owner };
        const objs = await (0, render_1.renderCell)(spec, req, names(runId));
        if (first)
            await kube.core.createNamespace({ body: objs.namespace });
        first = false;
        await kube.core.createNamespacedPersistentVolumeClaim({
            namespace: NS2,
            body: objs.pvc,
        });
        await kube.core.createNamespacedPod({ namespace: NS2, body: objs.pod });
    }
    const c = names(closedRun);
    const o = names(openRun);
    const refused = await cli('gc', '--kubernetes', '--force', '--kubeconfig', kubeconfig);
    strict_1.default.equal(refused.code, 2, refused.stderr);
    strict_1.default.match(refused.stderr, /--force does not apply to --kubernetes/);
    const stray = await cli('gc', '--namespace', NS2);
    strict_1.default.equal(stray.code, 2, stray.stderr);
    strict_1.default.match(stray.stderr, /--namespace only apply with --kubernetes/);
    const dry = await cli('gc', '--kubernetes', '--dry-run', '--kubeconfig', kubeconfig, '--namespace', NS2);
    strict_1.default.equal(dry.code, 0, dry.stderr);
    const dryLines = dry.stdout.trim().split('\n').sort();
    strict_1.default.equal(dryLines.length, 4, dry.stdout);
    strict_1.default.match(dry.stdout, new RegExp(`^would delete ${closedRun}/v26.7-zstd3 Pod ${NS2}/${c.pod}: .*terminated`, 'm'));
    strict_1.default.match(dry.stdout, new RegExp(`^would delete ${closedRun}/v26.7-zstd3 PersistentVolumeClaim ${NS2}/${c.pvc}: `, 'm'));
    strict_1.default.equal((await kube.core.listNamespacedPod({ namespace: NS2 })).items.length, 2, 'dry run deletes nothing');
    const run = await cli('gc', '--kubernetes', '--kubeconfig', kubeconfig, '--context', 'emulator', '--namespace', NS2);
    strict_1.default.equal(run.code, 0, run.stderr);
    const lines = run.stdout.trim().split('\n');
    strict_1.default.deepEqual(lines.map((l) => l.replace(/:.*/, '')), [
        `deleted ${closedRun}/v26.7-zstd3 Pod ${NS2}/${c.pod}`,
        `deleted ${closedRun}/v26.7-zstd3 PersistentVolumeClaim ${NS2}/${c.pvc}`,
        `kept ${openRun}/v26.7-zstd3 Pod ${NS2}/${o.pod}`,
        `kept ${openRun}/v26.7-zstd3 PersistentVolumeClaim ${NS2}/${o.pvc}`,
    ]);
    for (const l of lines.filter((x) => x.startsWith('kept')))
        strict_1.default.match(l, /is running/);
    strict_1.default.deepEqual((await kube.core.listNamespacedPod({ namespace: NS2 })).items.map((p) => p.metadata?.name), [o.pod]);
    strict_1.default.deepEqual((await kube.core.listNamespacedPersistentVolumeClaim({ namespace: NS2 })).items.map((p) => p.metadata?.name), [o.pvc]);
    strict_1.default.equal((await kube.core.listNamespacedPod({ namespace: 'bench-database' })).items.length, otherPods);
    // A cluster that cannot be listed: exit 3 with the namespace named.
    const down = await cli('gc', '--kubernetes', '--kubeconfig', path.join(dir, 'no-such-kubeconfig'));
    strict_1.default.equal(down.code, 3, down.stderr);
    strict_1.default.match(down.stderr, /gc --kubernetes: cannot list pods and PVCs in namespace bench-database/);
    await conn.close();
});
//# sourceMappingURL=kubernetes-gc.test.js.map