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
 * `access: portForward` end to end on the simulated EKS (test/k8s/eks-sim.ts): the kubernetes target
 * provisions a cell whose handle names the pod IP, the worker's access registry maps it to a local
 * 127.0.0.1 forward through the API server's `pods/portforward` (WebSocket, client-node PortForward),
 * SQL runs through `connect(handle)` on the embedded engine in the pod, the forward follows the pod's
 * uid (a deleted pod's forward is closed, a re-created pod gets its own, the old handle reaches
 * nothing), and teardown leaves no pod, no PVC and no open forward.
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const fs = __importStar(require("node:fs"));
const net = __importStar(require("node:net"));
const os = __importStar(require("node:os"));
const path = __importStar(require("node:path"));
const eks_sim_1 = require("../k8s/eks-sim");
const run_spec_1 = require("../../src/schema/run-spec");
const client_1 = require("../../src/clickhouse/client");
const access_1 = require("../../src/targets/kubernetes/access");
const kubernetes_1 = require("../../src/targets/kubernetes");
const kube_1 = require("../../src/targets/kubernetes/kube");
const poll_1 = require("../../src/lib/poll");
const NS = 'bench-database';
/** `SELECT count()` of table `t` through `connect(handle)`, as a number. */
async function countT(h) {
    const c = (0, client_1.connect)(h);
    try {
        const rs = await c.query({ query: 'SELECT count() AS n FROM t', format: 'JSONEachRow' });
        const rows = await rs.json();
        return Number(rows[0].n);
    }
    finally {
        await c.close();
    }
}
/** Resolves with the error code of a TCP connect to `url`'s host and port (`'connected'` when it connects). */
function tcpConnect(url) {
    const u = new URL(url);
    return new Promise((resolve) => {
        const s = net.connect({ host: u.hostname, port: Number(u.port) });
        s.once('connect', () => {
            s.destroy();
            resolve('connected');
        });
        s.once('error', (e) => resolve(e.code ?? e.message));
    });
}
(0, node_test_1.describe)('kubernetes target, access portForward, on the simulated EKS', { timeout: 240_000 }, () => {
    let sim;
    let dir;
    (0, node_test_1.before)(async () => {
        sim = await (0, eks_sim_1.startEksSim)({ publishEveryMs: 0 });
        dir = fs.mkdtempSync(path.join(os.tmpdir(), 'k8s-pf-'));
        (0, kubernetes_1.forgetKubeClients)();
        await (0, kubernetes_1.resetAccess)();
        (0, client_1.clearTargetAccess)();
    });
    (0, node_test_1.after)(async () => {
        await (0, kubernetes_1.resetAccess)();
        (0, client_1.clearTargetAccess)();
        (0, kubernetes_1.forgetKubeClients)();
        await sim?.stop();
        if (dir)
            fs.rmSync(dir, { recursive: true, force: true });
    });
    (0, node_test_1.it)('runs SQL through the forward, follows a re-created pod, refuses the stale handle, and teardown closes it', async () => {
        const spec = run_spec_1.KubernetesTargetSpec.parse({
            kind: 'kubernetes',
            kubeconfig: sim.kubeconfigPath,
            access: 'portForward',
        });
        const req = { runId: `pf-${Date.now()}`, cellKey: 'v26.7-lz4', version: '26.7', workDir: dir };
        const kube = (0, kube_1.kubeFor)(spec);
        const forwarded = () => sim.cluster.emu.requestCount['portforward'] ?? 0;
        // Provision: the handle names the pod IP; this worker reaches it through a local forward.
        const h1 = await kubernetes_1.kubernetesTarget.provision(spec, req);
        const f1 = h1.kubernetes;
        strict_1.default.equal(f1.access, 'portForward');
        strict_1.default.match(f1.podIP ?? '', /^127\.0\.\d+\.\d+$/);
        strict_1.default.notEqual(f1.podIP, '127.0.0.1');
        strict_1.default.equal(h1.url, `http://${f1.podIP}:8123`);
        const local1 = (0, client_1.targetUrl)(h1);
        strict_1.default.match(local1, /^http:\/\/127\.0\.0\.1:\d+$/);
        strict_1.default.equal((0, kubernetes_1.openForwardCount)(), 1);
        // SQL over HTTP through the forward, credentials from the Secret.
        const before1 = forwarded();
        const c = (0, client_1.connect)(h1);
        try {
            await c.command({ query: 'CREATE TABLE t (x UInt64) ENGINE = MergeTree ORDER BY x' });
            await c.command({ query: 'INSERT INTO t SELECT number FROM numbers(1000)' });
        }
        finally {
            await c.close();
        }
        strict_1.default.equal(await countT(h1), 1000);
        strict_1.default.ok(forwarded() > before1, `port-forward requests ${before1} → ${forwarded()}`);
        // The pod goes: its forward refuses the next connection, closes, and drops the registration.
        await kube.core.deleteNamespacedPod({ name: f1.pod, namespace: NS });
        await (0, poll_1.pollUntil)(async () => (await kube.core.listNamespacedPod({ namespace: NS })).items.length === 0, {
            timeoutMs: 30_000,
            what: `pod ${f1.pod} gone`,
        });
        await strict_1.default.rejects(countT(h1));
        await (0, poll_1.pollUntil)(async () => (0, kubernetes_1.openForwardCount)() === 0, { timeoutMs: 5_000, what: 'the forward closed' });
        strict_1.default.equal((0, client_1.getTargetAccess)((0, client_1.targetAccessKey)(h1)), undefined, 'registration of the gone pod cleared');
        strict_1.default.notEqual(await tcpConnect(local1), 'connected');
        await strict_1.default.rejects((0, kubernetes_1.prepareKubernetes)(h1), /pod bench-database\/\S+ is gone/);
        // Re-provision: a new pod (new uid, possibly the same IP) on the same claim gets its own forward.
        const h2 = await kubernetes_1.kubernetesTarget.provision(spec, req);
        const f2 = h2.kubernetes;
        strict_1.default.notEqual(f2.podUid, f1.podUid);
        strict_1.default.equal(f2.pvc, f1.pvc);
        const local2 = (0, client_1.targetUrl)(h2);
        strict_1.default.match(local2, /^http:\/\/127\.0\.0\.1:\d+$/);
        const before2 = forwarded();
        strict_1.default.equal(await countT(h2), 1000, 'the new pod serves the same volume');
        strict_1.default.ok(forwarded() > before2);
        // The old handle never reaches the new pod: no registration, no forward to open, check says why.
        strict_1.default.throws(() => (0, client_1.connect)(h1), /not loaded/);
        await strict_1.default.rejects((0, kubernetes_1.prepareKubernetes)(h1), /was re-created/);
        const chk = await kubernetes_1.kubernetesTarget.check(h1);
        strict_1.default.equal(chk.reachable, false);
        strict_1.default.match(chk.error ?? '', /re-created/);
        strict_1.default.equal((0, kubernetes_1.openForwardCount)(), 1);
        // Teardown: no pod, no PVC, the forward closed and its registration gone.
        await kubernetes_1.kubernetesTarget.teardown(h2);
        const sel = { namespace: NS, labelSelector: 'app.kubernetes.io/managed-by=chbench' };
        strict_1.default.equal((await kube.core.listNamespacedPod(sel)).items.length, 0);
        strict_1.default.equal((await kube.core.listNamespacedPersistentVolumeClaim(sel)).items.length, 0);
        strict_1.default.equal((0, kubernetes_1.openForwardCount)(), 0);
        strict_1.default.equal((0, client_1.getTargetAccess)((0, client_1.targetAccessKey)(h2)), undefined);
        strict_1.default.equal(await tcpConnect(local2), 'ECONNREFUSED');
    });
    (0, node_test_1.it)('a connection the pod refuses ends at once on the local side (never waits for a request timeout)', async () => {
        const spec = run_spec_1.KubernetesTargetSpec.parse({
            kind: 'kubernetes',
            kubeconfig: sim.kubeconfigPath,
            access: 'portForward',
        });
        const req = {
            runId: `pf-refused-${Date.now()}`,
            cellKey: 'v26.7-lz4',
            version: '26.7',
            workDir: dir,
        };
        const h = await kubernetes_1.kubernetesTarget.provision(spec, req);
        try {
            // Port 9 is not listened on in the pod: the pod side refuses, the error channel says so.
            const fwd = await (0, access_1.portForward)((0, kube_1.kubeFor)(spec), NS, h.kubernetes.pod, h.kubernetes.podUid, 9);
            const u = new URL(fwd.url);
            const t0 = Date.now();
            const ended = await new Promise((resolve) => {
                const s = net.connect({ host: u.hostname, port: Number(u.port) }, () => s.write('GET /ping HTTP/1.1\r\nHost: x\r\n\r\n'));
                s.on('data', () => undefined);
                s.on('error', () => undefined);
                s.on('close', () => resolve('closed'));
                setTimeout(() => resolve('still open after 10 s'), 10_000);
            });
            strict_1.default.equal(ended, 'closed');
            strict_1.default.ok(Date.now() - t0 < 10_000);
            await fwd.close();
        }
        finally {
            await kubernetes_1.kubernetesTarget.teardown(h);
        }
    });
});
//# sourceMappingURL=kubernetes-portforward.test.js.map