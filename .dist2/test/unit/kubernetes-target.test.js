"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * Pure parts of the `kubernetes` target: the spec's defaults (the seed article), per-cell names,
 * the rendering of manifests/ with the spec's knobs, the process access registry of
 * `src/clickhouse/client.ts`, and the activity interceptor's search for handles.
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const run_spec_1 = require("../../src/schema/run-spec");
const kube_1 = require("../../src/targets/kubernetes/kube");
const render_1 = require("../../src/targets/kubernetes/render");
const kubernetes_1 = require("../../src/targets/kubernetes");
const client_1 = require("../../src/clickhouse/client");
const target_access_1 = require("../../src/temporal/target-access");
(0, node_test_1.test)('the spec defaults are the seed article', () => {
    const s = run_spec_1.KubernetesTargetSpec.parse({ kind: 'kubernetes' });
    strict_1.default.equal(s.namespace, 'bench-database');
    strict_1.default.equal(s.access, 'podIP');
    strict_1.default.equal(s.credentialsSecret, 'chbench-clickhouse');
    strict_1.default.equal(s.createSecret, true);
    strict_1.default.deepEqual(s.storageClass, { name: 'bench-clickhouse-gp3', create: true });
    strict_1.default.equal(s.storageSize, '100Gi');
    strict_1.default.equal(s.instanceType, 'm5.xlarge');
    strict_1.default.deepEqual(s.resources, {
        requests: { cpu: '2500m', memory: '9Gi' },
        limits: { cpu: '3500m', memory: '12Gi' },
    });
    strict_1.default.deepEqual(s.timeouts, {
        scheduleMs: 300_000,
        pvcMs: 300_000,
        pullMs: 600_000,
        readyMs: 600_000,
        watchSilenceMs: 60_000,
    });
    strict_1.default.throws(() => run_spec_1.KubernetesTargetSpec.parse({ kind: 'kubernetes', password: 'x' }), /password/);
    strict_1.default.throws(() => run_spec_1.KubernetesTargetSpec.parse({ kind: 'kubernetes', resources: { requests: { cpu: 'lots' } } }), /quantity/);
    strict_1.default.throws(() => run_spec_1.KubernetesTargetSpec.parse({ kind: 'kubernetes', access: 'ssh' }));
    const run = (0, run_spec_1.parseRunSpec)({
        name: 'eks',
        workload: 'logs',
        scale: 1000,
        target: { kind: 'kubernetes' },
        matrix: { version: ['26.3'], codec: ['LZ4'] },
    });
    strict_1.default.equal(run.target.kind, 'kubernetes');
});
(0, node_test_1.test)('names are DNS-1123, deterministic, distinct per run and cell', () => {
    const a = (0, kube_1.cellNames)('run-1', 'v26.3-ZSTD(3)-r1');
    strict_1.default.match(a.pod, /^chb-v26-3-zstd-3-r1-[0-9a-f]{8}$/);
    strict_1.default.equal(a.pvc, `${a.pod}-data`);
    strict_1.default.deepEqual((0, kube_1.cellNames)('run-1', 'v26.3-ZSTD(3)-r1'), a);
    strict_1.default.notEqual((0, kube_1.cellNames)('run-2', 'v26.3-ZSTD(3)-r1').pod, a.pod);
    const long = (0, kube_1.cellNames)('r', 'x'.repeat(200));
    strict_1.default.ok(long.pvc.length <= 63, long.pvc);
    strict_1.default.match(long.pod, /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
});
(0, node_test_1.test)('renderCell applies the spec to the objects of manifests/', async () => {
    const spec = run_spec_1.KubernetesTargetSpec.parse({
        kind: 'kubernetes',
        namespace: 'bench-2',
        images: { '26.3': 'registry.local/ch:26.3-custom' },
        storageClass: { name: 'fast' },
        nodeSelector: { pool: 'bench' },
        tolerations: [{ key: 'bench', operator: 'Exists' }],
        annotations: { team: 'perf' },
    });
    const names = (0, kube_1.cellNames)('Run 1/x', 'v26.3-lz4');
    const req = { runId: 'Run 1/x', cellKey: 'v26.3-lz4', version: '26.3', workDir: '/tmp' };
    const o = await (0, render_1.renderCell)(spec, req, names, 'us-east-1c');
    strict_1.default.equal(o.namespace.metadata.name, 'bench-2');
    strict_1.default.equal(o.pvc.metadata.namespace, 'bench-2');
    strict_1.default.equal(o.pvc.spec.storageClassName, 'fast');
    strict_1.default.equal(o.storageClass.metadata.name, 'fast');
    strict_1.default.equal(o.pod.metadata.name, names.pod);
    strict_1.default.equal(o.pod.metadata.labels?.['chbench.io/run'], 'Run-1-x-' + o.pod.metadata.labels?.['chbench.io/run']?.slice(-8));
    strict_1.default.equal(o.pod.metadata.annotations?.['chbench.io/run-id'], 'Run 1/x');
    strict_1.default.equal(o.pod.metadata.annotations?.team, 'perf');
    strict_1.default.equal(o.pod.metadata.annotations?.['karpenter.sh/do-not-disrupt'], 'true');
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const ps = o.pod.spec;
    strict_1.default.equal(ps.containers[0].image, 'registry.local/ch:26.3-custom');
    strict_1.default.deepEqual(ps.nodeSelector, { 'node.kubernetes.io/instance-type': 'm5.xlarge', pool: 'bench' });
    strict_1.default.deepEqual(ps.tolerations, [{ key: 'bench', operator: 'Exists' }]);
    strict_1.default.deepEqual(ps.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms, [
        { matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-east-1c'] }] },
    ]);
    strict_1.default.equal(ps.volumes[0].persistentVolumeClaim.claimName, names.pvc);
});
(0, node_test_1.test)('the access registry: a Secret-backed handle needs its password loaded; a forward replaces the URL', () => {
    const h = {
        url: 'http://10.0.0.7:8123',
        passwordSecret: { namespace: 'bench-database', name: 'chbench-clickhouse', key: 'password' },
    };
    (0, client_1.clearTargetAccess)();
    strict_1.default.throws(() => (0, client_1.targetPassword)(h), /Secret bench-database\/chbench-clickhouse .* not loaded in this worker process/);
    (0, client_1.setTargetAccess)((0, client_1.targetAccessKey)(h), { password: 's3cret' });
    strict_1.default.equal((0, client_1.targetPassword)(h), 's3cret');
    strict_1.default.equal((0, client_1.targetUrl)(h), 'http://10.0.0.7:8123');
    (0, client_1.setTargetAccess)((0, client_1.targetAccessKey)(h), { url: 'http://127.0.0.1:40001' });
    strict_1.default.equal((0, client_1.targetUrl)(h), 'http://127.0.0.1:40001');
    strict_1.default.equal((0, client_1.targetPassword)(h), 's3cret', 'merged, not replaced');
    strict_1.default.equal((0, client_1.targetPassword)({ url: 'http://x' }), '', 'no password referenced');
    (0, client_1.clearTargetAccess)();
});
(0, node_test_1.test)('the interceptor prepares every handle among the arguments (top level or .target)', async () => {
    const h = (kind, cellKey) => ({ kind, url: 'http://x', runId: 'r', cellKey, database: 'd', username: 'u', provisionedBy: '' });
    const args = [h('kubernetes', 'a'), { target: h('kubernetes', 'b'), other: 1 }, h('embedded', 'c'), 'text', null];
    strict_1.default.deepEqual((0, target_access_1.handlesIn)(args).map((x) => x.cellKey), ['a', 'b', 'c']);
    const prepared = [];
    await (0, target_access_1.prepareTargets)(args, (kind) => kind === 'kubernetes' ? async (x) => void prepared.push(x.cellKey) : undefined);
    strict_1.default.deepEqual(prepared, ['a', 'b']);
});
(0, node_test_1.test)('checkSpec: input and worker-host problems', () => {
    strict_1.default.deepEqual(kubernetes_1.kubernetesTarget.checkSpec({ kind: 'kubernetes' }, ['26.3'], 'input'), []);
    const bad = kubernetes_1.kubernetesTarget.checkSpec({ kind: 'kubernetes', access: 'ssh', images: { '26.3': 'not an image' }, resources: { limits: { memory: 'big' } } }, ['26.3'], 'input');
    strict_1.default.equal(bad.length, 3, bad.join('\n'));
    strict_1.default.match(bad.join('\n'), /access: "ssh"/);
    strict_1.default.match(bad.join('\n'), /version 26\.3 gives image "not an image"/);
    strict_1.default.match(bad.join('\n'), /resources\.limits\.memory/);
    strict_1.default.match(kubernetes_1.kubernetesTarget.checkSpec({ kind: 'kubernetes', kubeconfig: '/nonexistent/kubeconfig' }, [], 'worker host')[0], /does not exist on the worker/);
});
//# sourceMappingURL=kubernetes-target.test.js.map