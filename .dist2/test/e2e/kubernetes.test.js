"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * `target.kind: kubernetes` end to end on real components: a Temporal dev server and worker, the
 * simulated EKS of the test tree (Kubernetes API emulator, scheduler, kubelet running the ClickHouse
 * engine per pod, EBS volumes in moto). A pod evicted in the middle of the query runs is a target
 * restart: the cell provisions a new pod on the same volume, finishes, and records the restart; an
 * image that cannot be pulled fails the cell at once (non-retryable) with the kubelet's words, and
 * nothing of either run is left in the cluster or in EC2.
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const node_fs_1 = require("node:fs");
const node_path_1 = __importDefault(require("node:path"));
const client_node_1 = require("@kubernetes/client-node");
const client_ec2_1 = require("@aws-sdk/client-ec2");
const temporal_env_1 = require("../helpers/temporal-env");
const eks_sim_1 = require("../k8s/eks-sim");
const store_1 = require("../../src/results/store");
const results_1 = require("../../src/schema/results");
const kubernetes_1 = require("../../src/targets/kubernetes");
const poll_1 = require("../../src/lib/poll");
const histories_1 = require("../helpers/histories");
const NS = 'bench-database';
let sim;
let env;
let core;
(0, node_test_1.before)(async () => {
    sim = await (0, eks_sim_1.startEksSim)({ publishEveryMs: 2000 });
    // The worker's AWS SDK finds moto the way it would find AWS: through its environment.
    Object.assign(process.env, sim.awsEnv);
    env = await (0, temporal_env_1.startTemporalEnv)('kubernetes');
    const kc = new client_node_1.KubeConfig();
    kc.loadFromFile(sim.kubeconfigPath);
    core = kc.makeApiClient(client_node_1.CoreV1Api);
});
(0, node_test_1.after)(async () => {
    await env?.stop();
    await sim?.stop();
});
const spec = (name, version = '26.7', extra = {}) => ({
    name,
    workload: 'logs',
    scale: 300_000,
    target: {
        kind: 'kubernetes',
        kubeconfig: sim.kubeconfigPath,
        namespace: NS,
        timeouts: { scheduleMs: 20_000, pvcMs: 20_000, pullMs: 5_000, readyMs: 60_000, watchSilenceMs: 5_000 },
    },
    matrix: { version: [version], codec: ['LZ4'] },
    skipIndex: false,
    protocol: { warmRuns: 2, quiesce: { stableForMs: 500 } },
    resultsDir: env.resultsDir,
    ...extra,
});
/** chbench pods and PVCs left in the namespace, and EBS volumes the CSI driver made in moto not deleted. */
async function leftovers() {
    const sel = 'app.kubernetes.io/managed-by=chbench';
    const ec2 = new client_ec2_1.EC2Client({
        region: sim.region,
        endpoint: sim.awsEnv.AWS_ENDPOINT_URL,
        credentials: { accessKeyId: sim.awsEnv.AWS_ACCESS_KEY_ID, secretAccessKey: sim.awsEnv.AWS_SECRET_ACCESS_KEY },
    });
    const vols = (await ec2.send(new client_ec2_1.DescribeVolumesCommand({}))).Volumes ?? [];
    ec2.destroy();
    return {
        pods: (await core.listNamespacedPod({ namespace: NS, labelSelector: sel })).items.length,
        pvcs: (await core.listNamespacedPersistentVolumeClaim({ namespace: NS, labelSelector: sel })).items.length,
        // Volumes the CSI driver made (tagged with their PV); an instance's root volume is not one.
        volumes: vols.filter((v) => v.State !== 'deleted' &&
            v.State !== 'deleting' &&
            (v.Tags ?? []).some((t) => t.Key === 'kubernetes.io/created-for/pv/name')).length,
    };
}
(0, node_test_1.test)('a pod evicted during the query runs is a target restart: new pod on the same volume, cell succeeds, restart recorded; cloud metrics and cost are collected', async () => {
    const runId = `k8s-evict-${Date.now()}`;
    const cellKey = 'v26.7-lz4';
    const handle = await env.client.workflow.start('benchmarkMatrix', {
        taskQueue: env.taskQueue,
        workflowId: runId,
        args: [spec('k8s-evict', '26.7', { cloud: { settleMs: 1000 } })],
    });
    // Evict once the cell measures its baseline queries (the cell's own progress query, every 100 ms).
    await (0, poll_1.pollUntil)(async () => {
        const m = (await handle.query('progress').catch(() => undefined));
        if (!m?.running.includes(cellKey))
            return undefined;
        const c = (await env.client.workflow
            .getHandle(`${runId}/${cellKey}`)
            .query('progress')
            .catch(() => undefined));
        return c?.step === 'queries-baseline' || undefined;
    }, { what: 'the cell at queries-baseline', timeoutMs: 180_000, intervalMs: 100 });
    const { pod } = (0, kubernetes_1.cellNames)(runId, cellKey);
    const before = await core.readNamespacedPod({ name: pod, namespace: NS });
    await sim.cluster.evict(NS, pod);
    const r = (await handle.result());
    strict_1.default.deepEqual(r.cells.map((c) => [c.cellKey, c.status]), [[cellKey, 'succeeded']]);
    const dir = node_path_1.default.join(env.resultsDir, runId, 'cells', cellKey);
    const result = (0, store_1.readRecord)(node_path_1.default.join(dir, 'result.json'), results_1.CellResult);
    strict_1.default.ok(result.target_restarts.length >= 1, 'the eviction is recorded as a target restart');
    strict_1.default.ok(result.target_restarts.some((t) => t.step === 'queries-baseline'), JSON.stringify(result.target_restarts));
    strict_1.default.equal(result.load?.rows_in_table, 300_000, 'the data on the volume survived the pod');
    const prov = (0, store_1.readRecord)(node_path_1.default.join(dir, 'provision.json'), results_1.ProvisionRecord);
    const k = prov.target.kubernetes;
    strict_1.default.equal(k.volume, 'reused', 'the re-provision found the cell volume bound and landed in its zone');
    strict_1.default.notEqual(k.podUid, before.metadata?.uid, 'a new pod');
    strict_1.default.equal(k.zone, 'us-east-1a');
    strict_1.default.match(k.volumeHandle ?? '', /^vol-/);
    strict_1.default.deepEqual(await leftovers(), { pods: 0, pvcs: 0, volumes: 0 });
    // The cloud step ran after the cell: its records and the report's three sections.
    strict_1.default.ok((0, node_fs_1.existsSync)(node_path_1.default.join(dir, 'cloud-metrics.json')), 'cloud-metrics.json written');
    strict_1.default.ok((0, node_fs_1.existsSync)(node_path_1.default.join(dir, 'cost.json')), 'cost.json written');
    const report = (0, node_fs_1.readFileSync)(node_path_1.default.join(env.resultsDir, runId, 'report.md'), 'utf8');
    for (const h of ['## Kubernetes', '## Cloud metrics', '## Cost'])
        strict_1.default.ok(report.includes(h), `report has ${h}`);
    strict_1.default.match(report, new RegExp(k.volumeHandle), 'the report names the cell volume');
    // `CHBENCH_RECORD_HISTORIES=1` records this release's histories (a kubernetes cell with a target
    // restart, a matrix with the cloud step) for the replay test; files are never overwritten.
    if (process.env.CHBENCH_RECORD_HISTORIES) {
        (0, histories_1.recordRunHistories)(env.server.address, runId, cellKey);
    }
});
(0, node_test_1.test)('an image that cannot be pulled fails the cell once, non-retryable, with the kubelet event; nothing is left', async () => {
    const runId = `k8s-pull-${Date.now()}`;
    const r = (await env.client.workflow.execute('benchmarkMatrix', {
        taskQueue: env.taskQueue,
        workflowId: runId,
        args: [spec('k8s-pull', '25.1')],
    }));
    strict_1.default.equal(r.cells.length, 1);
    strict_1.default.equal(r.cells[0].status, 'failed');
    const result = (0, store_1.readRecord)(node_path_1.default.join(env.resultsDir, runId, 'cells', 'v25.1-lz4', 'result.json'), results_1.CellResult);
    strict_1.default.match(result.error ?? '', /ImagePull/);
    strict_1.default.match(result.error ?? '', /clickhouse\/clickhouse-server:25\.1/);
    // Non-retryable: the provision activity ran one attempt (Temporal's own record of it).
    const history = await env.client.workflow.getHandle(`${runId}/v25.1-lz4`).fetchHistory();
    const scheduled = new Set((history.events ?? [])
        .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'provision')
        .map((e) => String(e.eventId)));
    const attempts = (history.events ?? [])
        .filter((e) => scheduled.has(String(e.activityTaskStartedEventAttributes?.scheduledEventId)))
        .map((e) => e.activityTaskStartedEventAttributes.attempt);
    strict_1.default.deepEqual(attempts, [1], 'one provision activity, started once');
    strict_1.default.deepEqual(await leftovers(), { pods: 0, pvcs: 0, volumes: 0 });
});
//# sourceMappingURL=kubernetes.test.js.map