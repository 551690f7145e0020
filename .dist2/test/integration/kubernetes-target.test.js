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
 * The `kubernetes` target against the Kubernetes API emulator and its simulated control plane
 * (test/k8s), over real HTTP with the real `@kubernetes/client-node`: provisioning and its facts,
 * idempotence after a worker kill at every stage, clear failures from events (image pull,
 * unschedulable, pending volume, name taken), a silent watch, eviction and re-provision on the same
 * volume, teardown. Each test starts and stops its own cluster on free loopback ports.
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const node_http_1 = __importDefault(require("node:http"));
const fs = __importStar(require("node:fs"));
const os = __importStar(require("node:os"));
const path = __importStar(require("node:path"));
const k8s = __importStar(require("@kubernetes/client-node"));
const common_1 = require("@temporalio/common");
const cluster_1 = require("../k8s/cluster");
const run_spec_1 = require("../../src/schema/run-spec");
const failures_1 = require("../../src/schema/failures");
const targets_1 = require("../../src/targets");
const kubernetes_1 = require("../../src/targets/kubernetes");
const render_1 = require("../../src/targets/kubernetes/render");
const watch_1 = require("../../src/targets/kubernetes/watch");
const client_1 = require("../../src/clickhouse/client");
const NS = 'bench-database';
/**
 * The container the simulated kubelet runs: a ClickHouse-like HTTP server on `<podIp>:8123` that
 * answers `/ping` and `SELECT version()` (in the POST body, as @clickhouse/client sends it, in
 * JSONCompact) with the image tag, and only for the user and password of the credentials Secret.
 */
function clickhouseLike(cluster, startDelayMs = () => 0) {
    return async (pod, podIp, ctx) => {
        await new Promise((r) => setTimeout(r, startDelayMs()));
        const version = String(ctx.container.image ?? '').split(':')[1] ?? 'latest';
        const env = (ctx.container.env ?? []);
        const fromSecret = (n) => {
            const ref = env.find((e) => e.name === n)?.valueFrom?.secretKeyRef;
            if (!ref)
                return undefined;
            const s = cluster().emu.tryGet('secrets', pod.metadata.namespace, ref.name);
            const b64 = s?.data?.[ref.key];
            return b64 !== undefined ? Buffer.from(b64, 'base64').toString() : s?.stringData?.[ref.key];
        };
        const user = fromSecret('CLICKHOUSE_USER');
        const password = fromSecret('CLICKHOUSE_PASSWORD');
        const server = node_http_1.default.createServer((req, res) => {
            const url = new URL(req.url ?? '/', 'http://x');
            if (url.pathname === '/ping')
                return void res.end('Ok.\n');
            const auth = req.headers.authorization ?? '';
            const [u, p] = Buffer.from(auth.replace(/^Basic /, ''), 'base64')
                .toString()
                .split(':');
            if (u !== user || p !== password) {
                res.statusCode = 516;
                return void res.end(`Code: 516. DB::Exception: ${u}: Authentication failed. (AUTHENTICATION_FAILED)\n`);
            }
            let body = '';
            req.on('data', (c) => (body += c));
            req.on('end', () => {
                const q = `${url.searchParams.get('query') ?? ''} ${body}`;
                if (/SELECT\s+version\(\)/i.test(q)) {
                    res.setHeader('Content-Type', 'application/json');
                    res.end(JSON.stringify({ meta: [{ name: 'version()', type: 'String' }], data: [[version]], rows: 1 }));
                }
                else {
                    res.statusCode = 400;
                    res.end('Code: 62. DB::Exception: only SELECT version() here. (SYNTAX_ERROR)\n');
                }
            });
        });
        await new Promise((resolve, reject) => {
            server.once('error', reject);
            server.listen(8123, podIp, () => resolve());
        });
        ctx.log(`clickhouse-like ${version} on ${podIp}:8123\n`);
        let exit;
        const exited = new Promise((r) => (exit = r));
        server.on('close', () => exit({ exitCode: 0 }));
        return {
            exited,
            stop: () => new Promise((r) => {
                server.closeAllConnections();
                server.close(() => r());
            }),
        };
    };
}
/** Start delay of the next containers, ms (a slow server: Ready only after it). */
let startDelayMs = 0;
async function startEnv(opts = {}) {
    startDelayMs = 0;
    let cluster = undefined;
    cluster = new cluster_1.SimCluster({
        runContainer: clickhouseLike(() => cluster, () => startDelayMs),
        emulator: { bookmarkMs: 200 },
        ...opts,
    });
    await cluster.start();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'k8s-target-'));
    const kubeconfig = path.join(dir, 'kubeconfig');
    fs.writeFileSync(kubeconfig, cluster.emu.kubeconfig());
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(kubeconfig);
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const storage = kc.makeApiClient(k8s.StorageV1Api);
    (0, kubernetes_1.forgetKubeClients)();
    await (0, kubernetes_1.resetAccess)();
    (0, client_1.clearTargetAccess)();
    return {
        cluster,
        dir,
        kubeconfig,
        core,
        storage,
        spec: (over = {}) => run_spec_1.KubernetesTargetSpec.parse({
            kind: 'kubernetes',
            kubeconfig,
            ...over,
            timeouts: {
                scheduleMs: 5000,
                pvcMs: 5000,
                readyMs: 20_000,
                watchSilenceMs: 2000,
                ...over.timeouts,
            },
        }),
        req: (cellKey = 'v26.7-lz4', runId = 'run-k8s-1') => ({
            runId,
            cellKey,
            version: '26.7',
            workDir: dir,
            owner: {
                address: '127.0.0.1:1',
                namespace: 'default',
                workflowId: `${runId}/${cellKey}`,
                workflowRunId: 'r',
                matrixWorkflowId: runId,
            },
        }),
        pods: async () => (await core.listNamespacedPod({ namespace: NS })).items,
        pvcs: async () => (await core.listNamespacedPersistentVolumeClaim({ namespace: NS })).items,
        close: async () => {
            await (0, kubernetes_1.resetAccess)();
            await cluster.stop();
            fs.rmSync(dir, { recursive: true, force: true });
        },
    };
}
/** The failure type of an ApplicationFailure (or undefined). */
const typeOf = (e) => (e instanceof common_1.ApplicationFailure ? e.type : undefined);
(0, node_test_1.describe)('kubernetes target', () => {
    let env;
    (0, node_test_1.beforeEach)(async () => {
        env = await startEnv({
            nodes: [
                { name: 'node-a', zone: 'us-east-1a' },
                { name: 'node-b', zone: 'us-east-1b' },
            ],
        });
    });
    (0, node_test_1.afterEach)(async () => env.close());
    (0, node_test_1.it)('provisions a pod and a PVC per cell with their facts, answers check, tears down to nothing (twice)', async () => {
        const spec = env.spec();
        const h = await (0, kubernetes_1.provisionKubernetes)(spec, env.req());
        const f = h.kubernetes;
        const names = (0, kubernetes_1.cellNames)('run-k8s-1', 'v26.7-lz4');
        strict_1.default.equal(h.kind, 'kubernetes');
        strict_1.default.equal(f.pod, names.pod);
        strict_1.default.match(f.pod, /^chb-v26-7-lz4-[0-9a-f]{8}$/);
        strict_1.default.equal(f.pvc, `${f.pod}-data`);
        strict_1.default.equal(f.node, 'node-a');
        strict_1.default.equal(f.zone, 'us-east-1a');
        strict_1.default.equal(f.instanceType, 'm5.xlarge');
        strict_1.default.match(f.providerID, /^aws:\/\/\/us-east-1a\/i-[0-9a-f]{17}$/);
        strict_1.default.match(f.pv, /^pvc-/);
        strict_1.default.match(f.volumeHandle, /^vol-/);
        strict_1.default.equal(f.csiDriver, 'ebs.csi.aws.com');
        strict_1.default.match(f.podIP, /^127\.0\.0\.\d+$/);
        strict_1.default.equal(h.url, `http://${f.podIP}:8123`);
        strict_1.default.equal(f.volume, 'new');
        strict_1.default.equal(f.server, 'clickhouse-server');
        strict_1.default.equal(f.storageRequest, '100Gi');
        strict_1.default.equal(h.username, 'chbench');
        strict_1.default.deepEqual(h.passwordSecret, { namespace: NS, name: 'chbench-clickhouse', key: 'password' });
        strict_1.default.ok(!JSON.stringify(h).includes('"password":"'), 'no password in the handle');
        strict_1.default.match(h.provisionedBy, /^pod bench-database\/chb-.* on node-a \(m5\.xlarge, us-east-1a\), PVC .*-data → vol-/);
        // The pod is rendered from manifests/: labels, owner annotation, Secret env, resources.
        const pod = await env.core.readNamespacedPod({ name: f.pod, namespace: NS });
        strict_1.default.equal(pod.metadata?.labels?.['app.kubernetes.io/managed-by'], 'chbench');
        strict_1.default.equal(pod.metadata?.labels?.['chbench.io/cell'], 'v26.7-lz4');
        strict_1.default.equal(pod.metadata?.annotations?.['karpenter.sh/do-not-disrupt'], 'true');
        strict_1.default.equal(JSON.parse(pod.metadata.annotations['chbench.io/owner']).matrixWorkflowId, 'run-k8s-1');
        strict_1.default.equal(pod.spec?.containers[0].env?.find((e) => e.name === 'CLICKHOUSE_PASSWORD')?.valueFrom?.secretKeyRef?.name, 'chbench-clickhouse');
        strict_1.default.deepEqual(pod.spec?.containers[0].resources?.requests, { cpu: '2500m', memory: '9Gi' });
        const sc = await env.storage.readStorageClass({ name: 'bench-clickhouse-gp3' });
        strict_1.default.equal(sc.volumeBindingMode, 'WaitForFirstConsumer');
        // The Secret's password reaches the server (the container refuses anyone else).
        const c = await kubernetes_1.kubernetesTarget.check(h);
        strict_1.default.deepEqual(c, { reachable: true, version: '26.7' });
        strict_1.default.equal((0, targets_1.capabilitiesOf)(h).restartable, true);
        strict_1.default.equal((0, targets_1.capabilitiesOf)(h).onWorkerHost, false);
        strict_1.default.equal((0, targets_1.targetOf)(h), kubernetes_1.kubernetesTarget);
        const archive = path.join(env.dir, 'cell', 'server-log.jsonl');
        fs.mkdirSync(path.dirname(archive), { recursive: true });
        const source = await kubernetes_1.kubernetesTarget.archiveStatements(h, 'x', archive);
        strict_1.default.match(source, /pod log .*pod-chb-.*\.log/);
        strict_1.default.match(fs.readFileSync(path.join(env.dir, 'cell', `pod-${f.pod}.log`), 'utf8'), /clickhouse-like 26\.7/);
        strict_1.default.match(kubernetes_1.kubernetesTarget.describeTeardown(h), /reclaimPolicy Delete destroys the volume/);
        await kubernetes_1.kubernetesTarget.teardown(h);
        strict_1.default.equal((await env.pods()).length, 0);
        strict_1.default.equal((await env.pvcs()).length, 0);
        await kubernetes_1.kubernetesTarget.teardown(h); // nothing there: success
        strict_1.default.match(await kubernetes_1.kubernetesTarget.teardownCell(spec, env.req()), /deleted pod/);
        strict_1.default.deepEqual(env.cluster.volumes.deleted, [f.volumeHandle]);
    });
    // What a worker killed after each stage leaves behind, then a fresh provision: one pod, one PVC.
    const stages = ['namespace', 'storageclass', 'secret', 'pvc', 'pod created', 'ready'];
    for (const stage of stages)
        (0, node_test_1.it)(`adopts what a worker killed after "${stage}" left: one pod, one PVC`, async () => {
            const spec = env.spec();
            const req = env.req();
            const names = (0, kubernetes_1.cellNames)(req.runId, req.cellKey);
            const objs = await (0, render_1.renderCell)(spec, req, names);
            let firstUid;
            if (stage === 'ready')
                firstUid = (await (0, kubernetes_1.provisionKubernetes)(spec, req)).kubernetes.podUid;
            else {
                const upto = stages.indexOf(stage);
                await env.core.createNamespace({ body: objs.namespace });
                if (upto >= 1)
                    await env.storage.createStorageClass({ body: objs.storageClass });
                if (upto >= 2)
                    await env.core.createNamespacedSecret({
                        namespace: NS,
                        body: {
                            metadata: { name: 'chbench-clickhouse' },
                            stringData: { username: 'chbench', password: 'pw-from-before' },
                        },
                    });
                if (upto >= 3)
                    await env.core.createNamespacedPersistentVolumeClaim({
                        namespace: NS,
                        body: objs.pvc,
                    });
                if (upto >= 4)
                    firstUid = (await env.core.createNamespacedPod({ namespace: NS, body: objs.pod })).metadata?.uid;
                await (0, kubernetes_1.resetAccess)(); // a new worker process: nothing cached
            }
            const h = await (0, kubernetes_1.provisionKubernetes)(spec, req);
            strict_1.default.equal((await env.pods()).length, 1);
            strict_1.default.equal((await env.pvcs()).length, 1);
            if (firstUid)
                strict_1.default.equal(h.kubernetes.podUid, firstUid, 'the pod was adopted, not re-created');
            if (stage !== 'ready' && stages.indexOf(stage) >= 4)
                strict_1.default.match(h.provisionedBy, /\(adopted\)/);
            strict_1.default.deepEqual(await kubernetes_1.kubernetesTarget.check(h), { reachable: true, version: '26.7' });
            await kubernetes_1.kubernetesTarget.teardown(h);
        });
    (0, node_test_1.it)("refuses a PVC or pod of another run that has the cell's name", async () => {
        const spec = env.spec();
        const req = env.req();
        const names = (0, kubernetes_1.cellNames)(req.runId, req.cellKey);
        const other = await (0, render_1.renderCell)(spec, { ...req, runId: 'someone-else' }, names);
        await env.core.createNamespace({ body: other.namespace });
        await env.core.createNamespacedPersistentVolumeClaim({
            namespace: NS,
            body: other.pvc,
        });
        await strict_1.default.rejects((0, kubernetes_1.provisionKubernetes)(spec, req), (e) => {
            strict_1.default.equal(typeOf(e), failures_1.FAILURE.ResourceConflict);
            strict_1.default.equal(e.nonRetryable, true);
            strict_1.default.match(e.message, /PVC bench-database\/chb-.*-data exists and belongs to run someone-else/);
            return true;
        });
        await env.core.deleteNamespacedPersistentVolumeClaim({ name: names.pvc, namespace: NS });
        await env.core.createNamespacedPod({ namespace: NS, body: other.pod });
        await strict_1.default.rejects((0, kubernetes_1.provisionKubernetes)(spec, req), /pod bench-database\/chb-.* exists and belongs to run someone-else/);
    });
    (0, node_test_1.it)('an unknown image fails at once: ImagePull, non-retryable, with the event text and the image', async () => {
        const spec = env.spec({ images: { '26.7': 'clickhouse/clickhouse-server:99.1' } });
        await strict_1.default.rejects((0, kubernetes_1.provisionKubernetes)(spec, env.req()), (e) => {
            strict_1.default.equal(typeOf(e), failures_1.FAILURE.ImagePull);
            strict_1.default.equal(e.nonRetryable, true);
            strict_1.default.match(e.message, /clickhouse\/clickhouse-server:99\.1/);
            strict_1.default.match(e.message, /Failed to pull image/);
            return true;
        });
    });
    (0, node_test_1.it)('an unknown node selector: Unschedulable with the scheduler text after scheduleMs', async () => {
        const spec = env.spec({ nodeSelector: { 'chbench.io/pool': 'nowhere' }, timeouts: { scheduleMs: 600 } });
        const t0 = Date.now();
        await strict_1.default.rejects((0, kubernetes_1.provisionKubernetes)(spec, env.req()), (e) => {
            strict_1.default.equal(typeOf(e), failures_1.FAILURE.Unschedulable);
            strict_1.default.equal(e.nonRetryable, true);
            strict_1.default.match(e.message, /0\/2 nodes are available/);
            return true;
        });
        strict_1.default.ok(Date.now() - t0 >= 600);
    });
    (0, node_test_1.it)('a PVC on a missing StorageClass: VolumePending saying why', async () => {
        const spec = env.spec({
            storageClass: { name: 'no-such-class', create: false },
            timeouts: { pvcMs: 800, scheduleMs: 60_000 },
        });
        await strict_1.default.rejects((0, kubernetes_1.provisionKubernetes)(spec, env.req()), (e) => {
            strict_1.default.equal(typeOf(e), failures_1.FAILURE.VolumePending);
            strict_1.default.match(e.message, /still Pending after 800 ms: StorageClass no-such-class does not exist \(target\.storageClass\.create is false\)/);
            return true;
        });
    });
    (0, node_test_1.it)('a silent watch is noticed and re-listed; provisioning still completes', async () => {
        // Every pod watch stays open and sends nothing; the server becomes Ready only after 1.2 s.
        env.cluster.emu.silenceWatches('pods');
        startDelayMs = 1200;
        const before = watch_1.watchTotals.silentWatches;
        const spec = env.spec({ timeouts: { watchSilenceMs: 300 } });
        const h = await (0, kubernetes_1.provisionKubernetes)(spec, env.req());
        strict_1.default.ok(h.kubernetes.podIP);
        // Only a re-list after a watch was found silent could see the pod Ready.
        strict_1.default.ok(watch_1.watchTotals.silentWatches - before >= 2, `silent watches noticed: ${watch_1.watchTotals.silentWatches - before}`);
        strict_1.default.equal((await env.pods()).length, 1);
    });
    (0, node_test_1.it)('an evicted pod is lost for check(); provisioning again lands on the same volume in its zone', async () => {
        const spec = env.spec();
        const req = env.req();
        const h = await (0, kubernetes_1.provisionKubernetes)(spec, req);
        await env.cluster.evict(NS, h.kubernetes.pod);
        const c = await kubernetes_1.kubernetesTarget.check(h);
        strict_1.default.equal(c.reachable, false);
        strict_1.default.match(c.error, /Evicted/);
        // A statement through the old handle fails as a lost server (the restart path's signal).
        await kubernetes_1.kubernetesTarget.prepare(h);
        const client = (0, client_1.connect)(h);
        await strict_1.default.rejects(client.query({ query: 'SELECT version()' }), /ECONNREFUSED|socket hang up|ECONNRESET/);
        await client.close();
        const h2 = await (0, kubernetes_1.provisionKubernetes)(spec, req);
        const f = h2.kubernetes;
        strict_1.default.notEqual(f.podUid, h.kubernetes.podUid);
        strict_1.default.equal(f.volume, 'reused');
        strict_1.default.equal(f.volumeHandle, h.kubernetes.volumeHandle);
        strict_1.default.equal(f.zone, h.kubernetes.zone);
        strict_1.default.match(h2.provisionedBy, /re-created: the earlier pod was Failed \(Evicted\)/);
        const pod = await env.core.readNamespacedPod({ name: f.pod, namespace: NS });
        const expr = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms[0]
            .matchExpressions?.[0];
        strict_1.default.deepEqual({ ...expr }, { key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-east-1a'] });
        strict_1.default.deepEqual(await kubernetes_1.kubernetesTarget.check(h2), { reachable: true, version: '26.7' });
        // The old handle stays lost (another pod uid).
        strict_1.default.match((await kubernetes_1.kubernetesTarget.check(h)).error, /re-created/);
    });
    (0, node_test_1.it)('a restarted container (OOMKilled) makes the handle lost', async () => {
        const h = await (0, kubernetes_1.provisionKubernetes)(env.spec(), env.req());
        await env.cluster.oomKill(NS, h.kubernetes.pod);
        let c = await kubernetes_1.kubernetesTarget.check(h);
        for (let i = 0; i < 50 && c.reachable; i++) {
            await new Promise((r) => setTimeout(r, 100));
            c = await kubernetes_1.kubernetesTarget.check(h);
        }
        strict_1.default.equal(c.reachable, false);
        strict_1.default.match(c.error, /restarted|not Ready/);
    });
});
//# sourceMappingURL=kubernetes-target.test.js.map