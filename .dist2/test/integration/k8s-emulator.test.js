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
 * The Kubernetes API emulator (test/k8s/emulator.ts) and its simulated control plane
 * (test/k8s/cluster.ts), proven against real clients: `@kubernetes/client-node` 1.4.0 and `kubectl`
 * (Debian's kubernetes-client, `--validate=false`). Every test starts and stops its own emulator on
 * a free loopback port.
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const node_child_process_1 = require("node:child_process");
const fs = __importStar(require("node:fs"));
const os = __importStar(require("node:os"));
const path = __importStar(require("node:path"));
const YAML = __importStar(require("yaml"));
const k8s = __importStar(require("@kubernetes/client-node"));
const config_1 = require("../../src/config");
const manifests_1 = require("../../src/targets/kubernetes/manifests");
const emulator_1 = require("../k8s/emulator");
const cluster_1 = require("../k8s/cluster");
const process_1 = require("../../src/targets/process");
const KUBECTL = '/usr/bin/kubectl';
const NS = 'bench-database';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** Starts an emulator, writes its kubeconfig, and builds both clients against it. */
async function startEnv(emu = new emulator_1.KubeEmulator({ bookmarkMs: 200 }), cluster) {
    if (cluster)
        await cluster.start();
    else
        await emu.start();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'k8s-emu-'));
    const kubeconfigPath = path.join(dir, 'kubeconfig');
    fs.writeFileSync(kubeconfigPath, emu.kubeconfig());
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(kubeconfigPath);
    const kubectl = (...args) => new Promise((resolve) => {
        (0, node_child_process_1.execFile)(KUBECTL, ['--kubeconfig', kubeconfigPath, ...args], { timeout: 60_000, env: { ...process.env, HOME: dir, KUBECACHEDIR: path.join(dir, 'cache') } }, (err, stdout, stderr) => {
            const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
            resolve({ code, stdout, stderr });
        });
    });
    return {
        emu,
        dir,
        kubeconfigPath,
        kc,
        core: kc.makeApiClient(k8s.CoreV1Api),
        storage: kc.makeApiClient(k8s.StorageV1Api),
        kubectl,
        close: async () => {
            await (cluster ? cluster.stop() : emu.stop());
            fs.rmSync(dir, { recursive: true, force: true });
        },
    };
}
/** The repo's manifests rendered as manifests.ts defines them (placeholders substituted on the parsed YAML). */
async function manifests(overrides = {}) {
    return (0, manifests_1.loadManifests)(path.join(config_1.REPO_ROOT, 'manifests'), {
        version: '26.7',
        runId: 'run-emu-1',
        cellKey: 'v26.7-lz4',
        ...overrides,
    });
}
function writeManifests(dir, objs) {
    const out = path.join(dir, 'manifests');
    fs.mkdirSync(out, { recursive: true });
    objs.forEach((o, i) => fs.writeFileSync(path.join(out, `${i}-${o.kind.toLowerCase()}.yaml`), YAML.stringify(o)));
    return out;
}
/** The ApiException a client-node call threw: its HTTP code and parsed Status body. */
async function apiError(p) {
    try {
        await p;
    }
    catch (e) {
        strict_1.default.ok(e instanceof k8s.ApiException, `expected ApiException, got ${String(e)}`);
        const body = typeof e.body === 'string'
            ? JSON.parse(e.body)
            : e.body;
        return { code: e.code, status: body };
    }
    strict_1.default.fail('expected the call to fail');
}
async function waitFor(what, fn, timeoutMs = 15_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
        const v = await fn();
        if (v !== undefined && v !== false)
            return v;
        if (Date.now() > deadline)
            throw new Error(`timed out waiting for ${what}`);
        await sleep(25);
    }
}
/** A client-node Watch collecting its events. */
async function watch(kc, p, query) {
    const events = [];
    let done = 'open';
    const controller = await new k8s.Watch(kc).watch(p, query, (type, object) => events.push({ type, object: object }), (err) => (done = err ?? null));
    return { events, done: () => done, abort: () => controller.abort() };
}
(0, node_test_1.describe)('k8s emulator: API verbs with real clients', () => {
    let env;
    (0, node_test_1.beforeEach)(async () => (env = await startEnv()));
    (0, node_test_1.afterEach)(async () => env.close());
    (0, node_test_1.it)('kubectl applies the repo manifests, gets, re-applies, refuses a second create, deletes', async () => {
        const objs = await manifests();
        const dir = writeManifests(env.dir, objs);
        const first = await env.kubectl('apply', '--validate=false', '-f', dir);
        strict_1.default.equal(first.code, 0, first.stderr);
        for (const what of [
            `namespace/${NS}`,
            'storageclass.storage.k8s.io/bench-clickhouse-gp3',
            'persistentvolumeclaim/clickhouse-data',
            'pod/clickhouse',
        ])
            strict_1.default.match(first.stdout, new RegExp(`${what.replace(/[./]/g, '\\$&')} created`), first.stdout);
        const second = await env.kubectl('apply', '--validate=false', '-f', dir);
        strict_1.default.equal(second.code, 0, second.stderr);
        strict_1.default.match(second.stdout, /pod\/clickhouse unchanged/);
        // A changed label: kubectl sends a strategic merge patch; the containers survive it.
        const podFile = path.join(dir, '3-pod.yaml');
        const changed = YAML.parse(fs.readFileSync(podFile, 'utf8'));
        changed.metadata.labels = { ...changed.metadata.labels, tier: 'bench' };
        fs.writeFileSync(podFile, YAML.stringify(changed));
        const third = await env.kubectl('apply', '--validate=false', '-f', podFile);
        strict_1.default.equal(third.code, 0, third.stderr);
        strict_1.default.match(third.stdout, /pod\/clickhouse configured/);
        const patched = env.emu.get('pods', NS, 'clickhouse');
        strict_1.default.equal(patched.metadata.labels?.tier, 'bench');
        strict_1.default.equal(patched.spec.containers[0].image, 'clickhouse/clickhouse-server:26.7');
        strict_1.default.ok(patched.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration']?.includes('"tier":"bench"'));
        const got = await env.kubectl('get', 'pods', '-n', NS, '-o', 'json');
        strict_1.default.equal(got.code, 0, got.stderr);
        const list = JSON.parse(got.stdout);
        strict_1.default.deepEqual(list.items.map((p) => p.metadata.name), ['clickhouse']);
        strict_1.default.equal(list.items[0].metadata.labels?.['chbench.io/cell'], 'v26.7-lz4');
        strict_1.default.equal(list.items[0].status.phase, 'Pending');
        const sel = await env.kubectl('get', 'pvc', '-n', NS, '-l', 'chbench.io/run=run-emu-1', '-o', 'name');
        strict_1.default.equal(sel.stdout.trim(), 'persistentvolumeclaim/clickhouse-data');
        const again = await env.kubectl('create', '--validate=false', '-f', path.join(dir, '3-pod.yaml'));
        strict_1.default.notEqual(again.code, 0);
        strict_1.default.match(again.stderr, /AlreadyExists.*pods "clickhouse" already exists|pods "clickhouse" already exists/);
        const del = await env.kubectl('delete', '-n', NS, 'pod', 'clickhouse', '--timeout=20s');
        strict_1.default.equal(del.code, 0, del.stderr);
        strict_1.default.match(del.stdout, /pod "clickhouse" deleted/);
        const delPvc = await env.kubectl('delete', '-n', NS, 'pvc', 'clickhouse-data', '--timeout=20s');
        strict_1.default.equal(delPvc.code, 0, delPvc.stderr);
        const missing = await env.kubectl('delete', '-n', NS, 'pod', 'clickhouse');
        strict_1.default.notEqual(missing.code, 0);
        strict_1.default.match(missing.stderr, /pods "clickhouse" not found/);
        // Deleting a namespace deletes its content first, then the namespace.
        await env.kubectl('apply', '--validate=false', '-f', podFile);
        const delNs = await env.kubectl('delete', 'namespace', NS, '--timeout=20s');
        strict_1.default.equal(delNs.code, 0, delNs.stderr);
        strict_1.default.equal(env.emu.list('pods', NS).length, 0);
        strict_1.default.equal(env.emu.tryGet('namespaces', undefined, NS), undefined);
    });
    (0, node_test_1.it)('RBAC objects, secrets and events.k8s.io/v1 events are stored and returned (not enforced)', async () => {
        const docs = [
            { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'chbench-worker', namespace: 'default' } },
            {
                apiVersion: 'rbac.authorization.k8s.io/v1',
                kind: 'Role',
                metadata: { name: 'chbench-worker', namespace: 'default' },
                rules: [{ apiGroups: [''], resources: ['pods', 'persistentvolumeclaims'], verbs: ['*'] }],
            },
            {
                apiVersion: 'rbac.authorization.k8s.io/v1',
                kind: 'RoleBinding',
                metadata: { name: 'chbench-worker', namespace: 'default' },
                roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'chbench-worker' },
                subjects: [{ kind: 'ServiceAccount', name: 'chbench-worker', namespace: 'default' }],
            },
            {
                apiVersion: 'rbac.authorization.k8s.io/v1',
                kind: 'ClusterRole',
                metadata: { name: 'chbench-read-nodes' },
                rules: [{ apiGroups: [''], resources: ['nodes', 'persistentvolumes'], verbs: ['get', 'list', 'watch'] }],
            },
            {
                apiVersion: 'v1',
                kind: 'Secret',
                metadata: { name: 'clickhouse-auth', namespace: 'default' },
                stringData: { password: 'x' },
                data: { user: Buffer.from('bench').toString('base64') },
            },
        ];
        const file = path.join(env.dir, 'rbac.yaml');
        fs.writeFileSync(file, docs.map((d) => YAML.stringify(d)).join('---\n'));
        const applied = await env.kubectl('apply', '--validate=false', '-f', file);
        strict_1.default.equal(applied.code, 0, applied.stderr);
        const names = await env.kubectl('get', 'sa,role,rolebinding,clusterrole,secret', '-n', 'default', '-o', 'name');
        strict_1.default.deepEqual(names.stdout.trim().split('\n').sort(), [
            'clusterrole.rbac.authorization.k8s.io/chbench-read-nodes',
            'role.rbac.authorization.k8s.io/chbench-worker',
            'rolebinding.rbac.authorization.k8s.io/chbench-worker',
            'secret/clickhouse-auth',
            'serviceaccount/chbench-worker',
        ]);
        const role = await env.kc
            .makeApiClient(k8s.RbacAuthorizationV1Api)
            .readNamespacedRole({ name: 'chbench-worker', namespace: 'default' });
        strict_1.default.deepEqual(role.rules?.[0].resources, ['pods', 'persistentvolumeclaims']);
        const secret = await env.core.readNamespacedSecret({ name: 'clickhouse-auth', namespace: 'default' });
        strict_1.default.equal(Buffer.from(secret.data.user, 'base64').toString(), 'bench');
        strict_1.default.equal(secret.stringData?.password, 'x', 'stringData is stored as given (no conversion to data)');
        const events = env.kc.makeApiClient(k8s.EventsV1Api);
        await events.createNamespacedEvent({
            namespace: 'default',
            body: {
                metadata: { name: 'e1' },
                eventTime: new Date(),
                reason: 'Test',
                note: 'hello',
                type: 'Normal',
                action: 'Testing',
                reportingController: 'chbench',
                reportingInstance: 'test',
            },
        });
        const listed = await events.listNamespacedEvent({ namespace: 'default', fieldSelector: 'reason=Test' });
        strict_1.default.deepEqual(listed.items.map((e) => e.note), ['hello']);
    });
    (0, node_test_1.it)('client-node: create 409 with a Status body, delete 404, merge and JSON patch, stale replace 409, selectors', async () => {
        const [nsObj, sc, pvc] = await manifests({ runId: 'run-emu-2' });
        await apiError(env.core.readNamespace({ name: 'nope' })).then((e) => strict_1.default.equal(e.code, 404));
        await env.core.createNamespace({ body: nsObj });
        await env.storage.createStorageClass({ body: sc });
        const created = await env.core.createNamespacedPersistentVolumeClaim({
            namespace: NS,
            body: pvc,
        });
        strict_1.default.ok(created.metadata?.uid && created.metadata.resourceVersion && created.metadata.creationTimestamp);
        strict_1.default.equal(created.status?.phase, 'Pending');
        const dup = await apiError(env.core.createNamespacedPersistentVolumeClaim({ namespace: NS, body: pvc }));
        strict_1.default.equal(dup.code, 409);
        strict_1.default.equal(dup.status.kind, 'Status');
        strict_1.default.equal(dup.status.reason, 'AlreadyExists');
        strict_1.default.equal(dup.status.message, 'persistentvolumeclaims "clickhouse-data" already exists');
        const gone = await apiError(env.core.deleteNamespacedPod({ name: 'missing', namespace: NS }));
        strict_1.default.equal(gone.code, 404);
        strict_1.default.equal(gone.status.reason, 'NotFound');
        strict_1.default.equal(gone.status.message, 'pods "missing" not found');
        const merged = await env.core.patchNamespacedPersistentVolumeClaim({ name: 'clickhouse-data', namespace: NS, body: { metadata: { labels: { extra: 'yes' } } } }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
        strict_1.default.equal(merged.metadata?.labels?.extra, 'yes');
        strict_1.default.equal(merged.metadata?.labels?.['chbench.io/run'], 'run-emu-2');
        strict_1.default.ok(Number(merged.metadata?.resourceVersion) > Number(created.metadata?.resourceVersion));
        const jp = await env.core.patchNamespacedPersistentVolumeClaim({
            name: 'clickhouse-data',
            namespace: NS,
            body: [{ op: 'add', path: '/metadata/annotations', value: { note: 'json-patch' } }],
        });
        strict_1.default.equal(jp.metadata?.annotations?.note, 'json-patch');
        strict_1.default.equal(jp.metadata?.labels?.extra, 'yes');
        const stale = await apiError(env.core.replaceNamespacedPersistentVolumeClaim({ name: 'clickhouse-data', namespace: NS, body: created }));
        strict_1.default.equal(stale.code, 409);
        strict_1.default.equal(stale.status.reason, 'Conflict');
        const byLabel = await env.core.listNamespacedPersistentVolumeClaim({
            namespace: NS,
            labelSelector: 'extra=yes,chbench.io/run in (run-emu-2)',
        });
        strict_1.default.deepEqual(byLabel.items.map((i) => i.metadata?.name), ['clickhouse-data']);
        const none = await env.core.listNamespacedPersistentVolumeClaim({ namespace: NS, labelSelector: 'extra!=yes' });
        strict_1.default.equal(none.items.length, 0);
        const byField = await env.core.listPersistentVolumeClaimForAllNamespaces({
            fieldSelector: 'metadata.name=clickhouse-data,status.phase=Pending',
        });
        strict_1.default.equal(byField.items.length, 1);
        await env.core.deleteNamespacedPersistentVolumeClaim({ name: 'clickhouse-data', namespace: NS });
        await waitFor('pvc gone', async () => (await env.core.listNamespacedPersistentVolumeClaim({ namespace: NS })).items.length === 0);
    });
    (0, node_test_1.it)('client-node Watch: ADDED/MODIFIED/DELETED in order, resume from a resourceVersion, 410 Expired', async () => {
        const base = await env.core.listNamespacedPod({ namespace: 'default' });
        const rv0 = base.metadata.resourceVersion;
        const w = await watch(env.kc, '/api/v1/namespaces/default/pods', { resourceVersion: rv0 });
        const body = {
            metadata: { name: 'w1', labels: { app: 'w' } },
            spec: { containers: [{ name: 'c', image: 'busybox' }] },
        };
        await env.core.createNamespacedPod({ namespace: 'default', body });
        const mid = await env.core.patchNamespacedPod({ name: 'w1', namespace: 'default', body: { metadata: { labels: { step: '2' } } } }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
        await env.core.deleteNamespacedPod({ name: 'w1', namespace: 'default' });
        await waitFor('3 events', () => w.events.length >= 3);
        strict_1.default.deepEqual(w.events.map((e) => e.type), ['ADDED', 'MODIFIED', 'DELETED']);
        strict_1.default.equal(w.events[1].object.metadata.labels?.step, '2');
        w.abort();
        // Resume after the MODIFIED: only the DELETED is replayed.
        const resumed = await watch(env.kc, '/api/v1/namespaces/default/pods', {
            resourceVersion: mid.metadata.resourceVersion,
        });
        await waitFor('replay', () => resumed.events.length >= 1);
        await sleep(100);
        strict_1.default.deepEqual(resumed.events.map((e) => `${e.type} ${e.object.metadata.name}`), ['DELETED w1']);
        resumed.abort();
        env.emu.compact();
        const expired = await watch(env.kc, '/api/v1/namespaces/default/pods', { resourceVersion: rv0 });
        await waitFor('ERROR event', () => expired.events.length >= 1);
        strict_1.default.equal(expired.events[0].type, 'ERROR');
        const st = expired.events[0].object;
        strict_1.default.equal(st.code, 410);
        strict_1.default.equal(st.reason, 'Expired');
        await waitFor('server closes the expired watch', () => expired.done() !== 'open');
    });
    (0, node_test_1.it)('client-node informer: add/update/delete, relists after a 410 on reconnect, stops on a reset connection', async () => {
        const path0 = '/api/v1/namespaces/default/configmaps';
        const listFn = () => env.core.listNamespacedConfigMap({ namespace: 'default' });
        const informer = k8s.makeInformer(env.kc, path0, listFn);
        const seen = [];
        let errors = 0;
        let connects = 0;
        informer.on('add', (o) => seen.push(`add ${o.metadata?.name}`));
        informer.on('update', (o) => seen.push(`update ${o.metadata?.name}`));
        informer.on('delete', (o) => seen.push(`delete ${o.metadata?.name}`));
        informer.on('error', () => errors++);
        informer.on('connect', () => connects++);
        await informer.start();
        await env.core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'inf-a' } } });
        await env.core.patchNamespacedConfigMap({ name: 'inf-a', namespace: 'default', body: { data: { k: 'v' } } }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
        await waitFor('update', () => seen.includes('update inf-a'));
        // The informer misses a change (silent watch), the history is compacted, the watch ends cleanly:
        // it reconnects from its old resourceVersion, gets 410 Expired, relists and sees the change.
        env.emu.silenceWatches('configmaps');
        await env.core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'inf-b' } } });
        env.emu.compact();
        env.emu.unsilenceWatches();
        const before = connects;
        env.emu.dropWatches('configmaps', 'end');
        await waitFor('relist sees inf-b', () => seen.includes('add inf-b'));
        strict_1.default.ok(connects >= before + 1, 'reconnected');
        await env.core.deleteNamespacedConfigMap({ name: 'inf-a', namespace: 'default' });
        await waitFor('delete', () => seen.includes('delete inf-a'));
        strict_1.default.deepEqual(seen.filter((e) => e.endsWith('inf-a')), ['add inf-a', 'update inf-a', 'delete inf-a']);
        // A reset connection is an error for client-node 1.4.0's informer: it stops and does not reconnect.
        env.emu.dropWatches('configmaps', 'reset');
        await waitFor('error callback', () => errors > 0);
        await sleep(200);
        strict_1.default.equal(env.emu.openWatches, 0, 'the informer did not reconnect by itself');
        await informer.stop();
        await env.core.deleteNamespacedConfigMap({ name: 'inf-b', namespace: 'default' });
    });
    (0, node_test_1.it)('kubectl get --watch, timeoutSeconds and bookmarks; fault injection: 500/429, dropped and silent watches', async () => {
        // timeoutSeconds: the server ends the watch.
        const t = await watch(env.kc, '/api/v1/namespaces/default/pods', { timeoutSeconds: 1, allowWatchBookmarks: true });
        await waitFor('watch timed out', () => t.done() !== 'open', 5000);
        strict_1.default.equal(t.done(), null);
        strict_1.default.ok(t.events.some((e) => e.type === 'BOOKMARK'), 'a bookmark within a second');
        env.emu.failNext('list', 1, 500);
        const e500 = await apiError(env.core.listNamespacedPod({ namespace: 'default' }));
        strict_1.default.equal(e500.code, 500);
        strict_1.default.equal(e500.status.reason, 'InternalError');
        env.emu.failNext('create', 1, 429);
        const e429 = await apiError(env.core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'cm1' } } }));
        strict_1.default.equal(e429.code, 429);
        await env.core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'cm1' } } });
        const dropped = await watch(env.kc, '/api/v1/namespaces/default/configmaps', {});
        await waitFor('initial ADDED', () => dropped.events.length >= 1);
        strict_1.default.equal(env.emu.dropWatches('configmaps'), 1);
        await waitFor('client sees the drop', () => dropped.done() !== 'open');
        env.emu.silenceWatches('configmaps');
        const silent = await watch(env.kc, '/api/v1/namespaces/default/configmaps', {
            timeoutSeconds: 1,
            allowWatchBookmarks: true,
        });
        await env.core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'cm2' } } });
        await env.core.deleteNamespacedConfigMap({ name: 'cm1', namespace: 'default' });
        await sleep(1500);
        strict_1.default.deepEqual(silent.events, [], 'a silent watch delivers nothing, not even ADDED for existing objects or bookmarks');
        strict_1.default.equal(silent.done(), 'open', 'and it does not end at its timeout: the connection just hangs');
        env.emu.unsilenceWatches();
        silent.abort();
        // kubectl's own watch machinery (list, then watch from the list's resourceVersion).
        const kw = env.kubectl('get', 'configmaps', '-n', 'default', '--watch', '-o', 'name', '--request-timeout=3s');
        await sleep(800);
        await env.core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'cm3' } } });
        const out = await kw;
        strict_1.default.match(out.stdout, /configmap\/cm2/);
        strict_1.default.match(out.stdout, /configmap\/cm3/);
    });
});
const TWO_NODES = [
    { name: 'node-a', zone: 'us-east-1a', instanceType: 'm5.large', cpu: '1930m', memory: '7Gi' },
    { name: 'node-b', zone: 'us-east-1b', instanceType: 'm5.xlarge' },
];
async function startCluster(opts = {}) {
    const cluster = new cluster_1.SimCluster({ nodes: TWO_NODES, ...opts });
    return { ...(await startEnv(cluster.emu, cluster)), cluster };
}
/** Creates the objects with client-node's generic KubernetesObjectApi (discovery included). */
async function createAll(env, objs) {
    const api = k8s.KubernetesObjectApi.makeApiClient(env.kc);
    for (const o of objs)
        await api.create(o);
}
async function podEvents(env, name, reason) {
    const fieldSelector = `involvedObject.name=${name},involvedObject.kind=Pod${reason ? `,reason=${reason}` : ''}`;
    return (await env.core.listNamespacedEvent({ namespace: NS, fieldSelector })).items;
}
const isReady = (p) => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
const readPod = (env, name = 'clickhouse') => env.core.readNamespacedPod({ name, namespace: NS });
const ping = (ip) => (0, process_1.httpGet)(`http://${ip}:8123/ping`, 1000).then((r) => r.body, () => 'unreachable');
(0, node_test_1.describe)('k8s emulator: simulated scheduler, volumes and kubelet', () => {
    (0, node_test_1.it)('a pod with a WaitForFirstConsumer PVC gets a PV in its node zone and becomes Ready on 127.0.0.N', async () => {
        const env = await startCluster();
        try {
            const [nsObj, sc, pvc, pod] = await manifests();
            await createAll(env, [nsObj, sc, pvc]);
            const waiting = await waitFor('WaitForFirstConsumer event', async () => {
                const evs = (await env.core.listNamespacedEvent({ namespace: NS, fieldSelector: 'involvedObject.name=clickhouse-data' })).items;
                return evs.find((e) => e.reason === 'WaitForFirstConsumer');
            });
            strict_1.default.equal(waiting.message, 'waiting for first consumer to be created before binding');
            strict_1.default.equal((await env.core.readNamespacedPersistentVolumeClaim({ name: 'clickhouse-data', namespace: NS })).status?.phase, 'Pending');
            strict_1.default.equal(env.cluster.volumes.created.length, 0);
            const w = await watch(env.kc, `/api/v1/namespaces/${NS}/pods`, {});
            await createAll(env, [pod]);
            const ready = await waitFor('pod Ready', async () => {
                const p = await readPod(env);
                return isReady(p) ? p : undefined;
            });
            // The selector asks for m5.xlarge: node-b, zone us-east-1b.
            strict_1.default.equal(ready.spec?.nodeName, 'node-b');
            strict_1.default.equal(ready.status?.phase, 'Running');
            const ip = ready.status.podIP;
            strict_1.default.match(ip, /^127\.0\.\d+\.\d+$/);
            strict_1.default.notEqual(ip, '127.0.0.1');
            strict_1.default.equal(await ping(ip), 'Ok.\n');
            const version = await (0, process_1.httpGet)(`http://${ip}:8123/?query=${encodeURIComponent('SELECT version()')}`, 1000);
            strict_1.default.equal(version.body, '26.7\n');
            const log = await env.core.readNamespacedPodLog({ name: 'clickhouse', namespace: NS });
            strict_1.default.match(log, new RegExp(`listening on http://${ip.replace(/\./g, '\\.')}:8123`));
            const claim = await env.core.readNamespacedPersistentVolumeClaim({ name: 'clickhouse-data', namespace: NS });
            strict_1.default.equal(claim.status?.phase, 'Bound');
            strict_1.default.equal(claim.metadata?.annotations?.['volume.kubernetes.io/selected-node'], 'node-b');
            const pv = await env.core.readPersistentVolume({ name: claim.spec.volumeName });
            strict_1.default.equal(pv.spec?.csi?.driver, 'ebs.csi.aws.com');
            strict_1.default.match(pv.spec.csi.volumeHandle, /^vol-[0-9a-f]{17}$/);
            strict_1.default.deepEqual(JSON.parse(JSON.stringify(pv.spec?.nodeAffinity?.required?.nodeSelectorTerms[0].matchExpressions)), [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-east-1b'] }]);
            strict_1.default.equal(pv.spec?.persistentVolumeReclaimPolicy, 'Delete');
            strict_1.default.equal(pv.spec?.claimRef?.uid, claim.metadata?.uid);
            strict_1.default.deepEqual(env.cluster.volumes.created.map((v) => [v.zone, v.sizeBytes, v.parameters.type]), [['us-east-1b', 100 * 2 ** 30, 'gp3']]);
            const [running] = env.cluster.running();
            strict_1.default.deepEqual([running.pod, running.podIp, running.node, running.volumes], [
                'clickhouse',
                ip,
                'node-b',
                [
                    {
                        name: 'data',
                        mountPath: '/var/lib/clickhouse',
                        claimName: 'clickhouse-data',
                        pvName: pv.metadata.name,
                        volumeHandle: pv.spec.csi.volumeHandle,
                        zone: 'us-east-1b',
                    },
                ],
            ], 'the kubelet hands the runner the bound volume (runner data dirs key on volumeHandle)');
            const node = await env.core.readNode({ name: 'node-b' });
            strict_1.default.match(node.spec.providerID, /^aws:\/\/\/us-east-1b\/i-[0-9a-f]{17}$/);
            const got = await env.kubectl('get', 'pods', '-n', NS, '-o', 'json');
            const items = JSON.parse(got.stdout).items;
            strict_1.default.ok(isReady(items[0]), 'kubectl sees the pod Ready');
            const waited = await env.kubectl('wait', '-n', NS, 'pod/clickhouse', '--for=condition=Ready', '--timeout=20s');
            strict_1.default.equal(waited.code, 0, waited.stderr);
            strict_1.default.match(waited.stdout, /pod\/clickhouse condition met/);
            const table = await env.kubectl('get', 'pods', '-n', NS);
            strict_1.default.match(table.stdout, new RegExp(`clickhouse\\s+1/1\\s+Running\\s+0\\s+\\S+\\s+${ip.replace(/\./g, '\\.')}\\s+node-b`));
            const logs = await env.kubectl('logs', '-n', NS, 'clickhouse');
            strict_1.default.equal(logs.stdout, log);
            const reasons = (await podEvents(env, 'clickhouse')).map((e) => e.reason);
            for (const r of ['Scheduled', 'Pulled', 'Created', 'Started'])
                strict_1.default.ok(reasons.includes(r), `event ${r} in ${reasons}`);
            const del = await env.kubectl('delete', '-n', NS, 'pod', 'clickhouse', '--timeout=20s');
            strict_1.default.equal(del.code, 0, del.stderr);
            strict_1.default.equal(await ping(ip), 'unreachable', "a deleted pod's process is stopped");
            await waitFor('DELETED event', () => w.events.at(-1)?.type === 'DELETED');
            w.abort();
            const types = w.events.map((e) => e.type);
            strict_1.default.equal(types[0], 'ADDED');
            strict_1.default.ok(types.slice(1, -1).every((t) => t === 'MODIFIED'));
            strict_1.default.ok(w.events.some((e) => e.object.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')), 'the watch saw the pod become Ready');
            const terminating = w.events.find((e) => e.object.metadata.deletionTimestamp);
            strict_1.default.ok(terminating, 'the watch saw the Terminating pod (deletionTimestamp) before DELETED');
            await env.core.deleteNamespacedPersistentVolumeClaim({ name: 'clickhouse-data', namespace: NS });
            await waitFor('PV deleted (reclaimPolicy Delete)', async () => (await env.core.listPersistentVolume()).items.length === 0);
            strict_1.default.deepEqual(env.cluster.volumes.deleted, [pv.spec.csi.volumeHandle]);
        }
        finally {
            await env.close();
        }
    });
    (0, node_test_1.it)("a claim's PV pins later pods to its zone: volume node affinity conflict otherwise", async () => {
        const env = await startCluster({
            nodes: [
                { name: 'node-a', zone: 'us-east-1a' },
                { name: 'node-b', zone: 'us-east-1b' },
            ],
        });
        try {
            const [nsObj, sc, pvc, pod] = await manifests();
            const inZone = (zone, name) => {
                const p = structuredClone(pod);
                p.metadata.name = name;
                p.spec.nodeSelector = zone ? { 'topology.kubernetes.io/zone': zone } : {};
                return p;
            };
            await createAll(env, [nsObj, sc, pvc, inZone('us-east-1b', 'first')]);
            await waitFor('first Ready', async () => isReady(await readPod(env, 'first')));
            await env.core.deleteNamespacedPod({ name: 'first', namespace: NS });
            await waitFor('first gone', async () => (await env.core.listNamespacedPod({ namespace: NS })).items.length === 0);
            // Without a selector node-a (first by name) would do, but the volume lives in us-east-1b.
            await createAll(env, [inZone('', 'second')]);
            const second = await waitFor('second Ready', async () => ((p) => (isReady(p) ? p : undefined))(await readPod(env, 'second')));
            strict_1.default.equal(second.spec?.nodeName, 'node-b');
            strict_1.default.equal(env.cluster.volumes.created.length, 1, 'the claim kept its volume');
            // Force deletion (grace 0): the object goes at once, and the kubelet still stops the process.
            const secondIp = second.status.podIP;
            strict_1.default.equal(await ping(secondIp), 'Ok.\n');
            await env.core.deleteNamespacedPod({ name: 'second', namespace: NS, gracePeriodSeconds: 0 });
            await apiError(readPod(env, 'second')).then((e) => strict_1.default.equal(e.code, 404));
            await waitFor('process stopped', async () => (await ping(secondIp)) === 'unreachable');
            await createAll(env, [inZone('us-east-1a', 'third')]);
            const ev = await waitFor('FailedScheduling', async () => (await podEvents(env, 'third', 'FailedScheduling'))[0]);
            strict_1.default.ok(ev.message?.startsWith("0/2 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) had volume node affinity conflict."), ev.message);
        }
        finally {
            await env.close();
        }
    });
    (0, node_test_1.it)('Immediate binding calls the plugged CSI createVolume at once; a failing driver gives ProvisioningFailed', async () => {
        let fail = true;
        const env = await startCluster({
            createVolume: async (req) => {
                if (fail)
                    throw new Error('InvalidParameterValue: iops too high');
                return `vol-custom-${req.zone}`;
            },
        });
        try {
            const sc = {
                metadata: { name: 'gp3-now' },
                provisioner: 'ebs.csi.aws.com',
                parameters: { type: 'gp3', iops: '16000' },
                volumeBindingMode: 'Immediate',
                reclaimPolicy: 'Retain',
            };
            await env.storage.createStorageClass({ body: sc });
            const body = {
                metadata: { name: 'now' },
                spec: {
                    accessModes: ['ReadWriteOnce'],
                    storageClassName: 'gp3-now',
                    resources: { requests: { storage: '5Gi' } },
                },
            };
            await env.core.createNamespacedPersistentVolumeClaim({ namespace: 'default', body });
            const pf = await waitFor('ProvisioningFailed', async () => {
                const evs = await env.core.listNamespacedEvent({
                    namespace: 'default',
                    fieldSelector: 'involvedObject.name=now,reason=ProvisioningFailed',
                });
                return evs.items[0];
            });
            strict_1.default.match(pf.message ?? '', /failed to provision volume with StorageClass "gp3-now": InvalidParameterValue: iops too high/);
            fail = false; // the controller retries on its resync
            const bound = await waitFor('Bound', async () => {
                const c = await env.core.readNamespacedPersistentVolumeClaim({ name: 'now', namespace: 'default' });
                return c.status?.phase === 'Bound' ? c : undefined;
            });
            const pv = await env.core.readPersistentVolume({ name: bound.spec.volumeName });
            strict_1.default.equal(pv.spec?.csi?.volumeHandle, 'vol-custom-us-east-1a', 'Immediate: the first node zone');
            strict_1.default.equal(pv.spec?.persistentVolumeReclaimPolicy, 'Retain');
            strict_1.default.deepEqual(env.cluster.volumes.created.map((v) => [v.sizeBytes, v.parameters.iops]), [[5 * 2 ** 30, '16000']]);
            await env.core.deleteNamespacedPersistentVolumeClaim({ name: 'now', namespace: 'default' });
            await waitFor('Released', async () => (await env.core.readPersistentVolume({ name: pv.metadata.name })).status?.phase === 'Released');
            strict_1.default.deepEqual(env.cluster.volumes.deleted, [], 'Retain keeps the volume');
        }
        finally {
            await env.close();
        }
    });
    (0, node_test_1.it)('unknown image: ErrImagePull, then ImagePullBackOff with the Failed event text', async () => {
        const env = await startCluster();
        try {
            await createAll(env, await manifests({ version: '99.9' }));
            const pod = await waitFor('ImagePullBackOff', async () => {
                const p = await readPod(env);
                return p.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'ImagePullBackOff' ? p : undefined;
            });
            strict_1.default.equal(pod.status?.phase, 'Pending');
            strict_1.default.equal(pod.status?.containerStatuses?.[0].state?.waiting?.message, 'Back-off pulling image "clickhouse/clickhouse-server:99.9"');
            const failed = (await podEvents(env, 'clickhouse', 'Failed')).map((e) => e.message ?? '');
            strict_1.default.ok(failed.some((m) => m.startsWith('Failed to pull image "clickhouse/clickhouse-server:99.9": ') && m.endsWith('not found')), failed.join('\n'));
            strict_1.default.ok(failed.includes('Error: ImagePullBackOff'));
        }
        finally {
            await env.close();
        }
    });
    (0, node_test_1.it)('unmatched node selector or too large requests: FailedScheduling, PodScheduled=False Unschedulable; a PVC without its class says why', async () => {
        const env = await startCluster();
        try {
            await createAll(env, await manifests({ instanceType: 'm7i.48xlarge' }));
            const msg = "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector.";
            const ev = await waitFor('FailedScheduling', async () => (await podEvents(env, 'clickhouse', 'FailedScheduling'))[0]);
            strict_1.default.equal(ev.type, 'Warning');
            strict_1.default.ok(ev.message?.startsWith(msg), ev.message);
            const cond = (await readPod(env)).status?.conditions?.find((c) => c.type === 'PodScheduled');
            strict_1.default.equal(cond?.status, 'False');
            strict_1.default.equal(cond?.reason, 'Unschedulable');
            strict_1.default.equal(env.cluster.volumes.created.length, 0, 'WaitForFirstConsumer: no volume for an unscheduled pod');
            const big = {
                metadata: { name: 'big' },
                spec: { containers: [{ name: 'c', image: 'busybox', resources: { requests: { cpu: '8' } } }] },
            };
            await env.core.createNamespacedPod({ namespace: NS, body: big });
            const bigEv = await waitFor('FailedScheduling (cpu)', async () => (await podEvents(env, 'big', 'FailedScheduling'))[0]);
            strict_1.default.ok(bigEv.message?.startsWith('0/2 nodes are available: 2 Insufficient cpu.'), bigEv.message);
            const orphan = {
                metadata: { name: 'orphan' },
                spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'nope', resources: { requests: { storage: '1Gi' } } },
            };
            await env.core.createNamespacedPersistentVolumeClaim({ namespace: NS, body: orphan });
            const pf = await waitFor('ProvisioningFailed', async () => {
                const evs = (await env.core.listNamespacedEvent({ namespace: NS, fieldSelector: 'involvedObject.name=orphan' }))
                    .items;
                return evs.find((e) => e.reason === 'ProvisioningFailed');
            });
            strict_1.default.equal(pf.message, 'storageclass.storage.k8s.io "nope" not found');
        }
        finally {
            await env.close();
        }
    });
    (0, node_test_1.it)('OOM kill restarts the container (lastState OOMKilled); eviction fails the pod (Evicted) and stops it', async () => {
        const env = await startCluster();
        try {
            await createAll(env, await manifests());
            const first = await waitFor('Ready', async () => ((p) => (isReady(p) ? p : undefined))(await readPod(env)));
            const ip = first.status.podIP;
            await env.cluster.oomKill(NS, 'clickhouse');
            const restarted = await waitFor('restarted and Ready', async () => {
                const p = await readPod(env);
                return p.status?.containerStatuses?.[0].restartCount === 1 && isReady(p) ? p : undefined;
            });
            const cs = restarted.status.containerStatuses[0];
            strict_1.default.equal(cs.lastState?.terminated?.reason, 'OOMKilled');
            strict_1.default.equal(cs.lastState?.terminated?.exitCode, 137);
            strict_1.default.ok(cs.state?.running);
            strict_1.default.equal(restarted.status?.podIP, ip, 'a container restart keeps the pod IP');
            strict_1.default.equal(await ping(ip), 'Ok.\n');
            await env.cluster.evict(NS, 'clickhouse');
            const evicted = await readPod(env);
            strict_1.default.equal(evicted.status?.phase, 'Failed');
            strict_1.default.equal(evicted.status?.reason, 'Evicted');
            strict_1.default.ok(!isReady(evicted));
            strict_1.default.equal(await ping(ip), 'unreachable');
            const ev = await podEvents(env, 'clickhouse', 'Evicted');
            strict_1.default.equal(ev[0]?.message, 'The node was low on resource: memory. ');
            await sleep(300);
            strict_1.default.equal((await readPod(env)).status?.phase, 'Failed', 'an evicted pod is not restarted');
        }
        finally {
            await env.close();
        }
    });
    (0, node_test_1.it)('a silent pod watch delivers nothing while the pod becomes Ready', async () => {
        const env = await startCluster();
        try {
            env.emu.silenceWatches('pods');
            const w = await watch(env.kc, `/api/v1/namespaces/${NS}/pods`, { allowWatchBookmarks: true, timeoutSeconds: 1 });
            await createAll(env, await manifests());
            await waitFor('Ready', async () => isReady(await readPod(env)));
            await sleep(1200);
            strict_1.default.deepEqual(w.events, []);
            strict_1.default.equal(w.done(), 'open');
            w.abort();
        }
        finally {
            await env.close();
        }
    });
});
//# sourceMappingURL=k8s-emulator.test.js.map