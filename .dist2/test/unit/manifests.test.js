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
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const node_fs_1 = require("node:fs");
const os = __importStar(require("node:os"));
const path = __importStar(require("node:path"));
const YAML = __importStar(require("yaml"));
const config_1 = require("../../src/config");
const manifests_1 = require("../../src/targets/kubernetes/manifests");
const MANIFEST_DIR = path.join(config_1.REPO_ROOT, 'manifests');
const LABEL_RE = /^(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?$/;
const SAMPLE = {
    version: '26.3.33.24',
    runId: 'run-20261012-0930',
    cellKey: 'v26.3-zstd3',
    storageSize: '100Gi',
    instanceType: 'm5.xlarge',
    // Per-cell names and annotations (the kubernetes target derives them; these are the seed's names).
    pod: 'clickhouse',
    pvc: 'clickhouse-data',
    credentialsSecret: 'chbench-clickhouse',
    runIdFull: 'run-20261012-0930',
    cellKeyFull: 'v26.3-zstd3',
    owner: '{"workflowId":"run-20261012-0930/v26.3-zstd3"}',
};
function readTemplate(file) {
    return (0, node_fs_1.readFileSync)(path.join(MANIFEST_DIR, file), 'utf8');
}
function renderParsed(file, values = SAMPLE) {
    const docs = YAML.parseAllDocuments((0, manifests_1.renderManifest)(readTemplate(file), values));
    strict_1.default.ok(Array.isArray(docs) && docs.length === 1, `${file}: one document`);
    const doc = docs[0];
    strict_1.default.deepEqual(doc.errors, [], `${file}: rendered YAML parses`);
    return doc.toJS();
}
function assertChbenchLabels(obj, values = SAMPLE) {
    const labels = obj.metadata.labels ?? {};
    strict_1.default.equal(labels[manifests_1.MANAGED_BY_LABEL], 'chbench', `${obj.kind} managed-by`);
    strict_1.default.equal(labels[manifests_1.RUN_LABEL], values.runId, `${obj.kind} run label`);
    strict_1.default.equal(labels[manifests_1.CELL_LABEL], values.cellKey, `${obj.kind} cell`);
    for (const [k, v] of Object.entries(labels))
        strict_1.default.ok((0, manifests_1.isValidLabelValue)(v) && v.length > 0, `${obj.kind} label ${k}=${v}`);
}
(0, node_test_1.test)('manifests/ holds the four templates and a README', () => {
    for (const f of [...manifests_1.MANIFEST_FILES, 'README.md'])
        strict_1.default.ok((0, node_fs_1.existsSync)(path.join(MANIFEST_DIR, f)), f);
    strict_1.default.deepEqual([...manifests_1.MANIFEST_FILES], ['namespace.yaml', 'storageclass.yaml', 'pvc.yaml', 'pod.yaml']);
    const readme = (0, node_fs_1.readFileSync)(path.join(MANIFEST_DIR, 'README.md'), 'utf8');
    for (const p of ['{{version}}', '{{runId}}', '{{cellKey}}', '{{storageSize}}', '{{instanceType}}']) {
        strict_1.default.ok(readme.includes(p), `README documents ${p}`);
    }
    strict_1.default.ok(readme.includes(manifests_1.MANIFEST_DEFAULTS.storageSize), 'README shows the storageSize default');
    strict_1.default.equal(manifests_1.MANIFEST_DEFAULTS.storageSize, '100Gi');
    strict_1.default.equal(manifests_1.MANIFEST_DEFAULTS.instanceType, 'm5.xlarge');
});
(0, node_test_1.test)('label chbench.io/run holds the label-safe run id, annotation chbench.io/run-id the full one (issue 9 names)', async () => {
    const full = 'Run 2026/10/12 #1';
    const objs = await (0, manifests_1.loadManifests)(MANIFEST_DIR, {
        version: '26.3',
        runId: (0, manifests_1.toLabelValue)(full),
        runIdFull: full,
        cellKey: 'v26.3-zstd3',
    });
    const pod = objs.find((o) => o.kind === 'Pod');
    const pvc = objs.find((o) => o.kind === 'PersistentVolumeClaim');
    strict_1.default.ok(pod && pvc);
    for (const o of objs) {
        strict_1.default.equal(o.metadata.labels?.['chbench.io/run'], 'Run-2026-10-12-1-ea6232cb', `${o.kind} run label`);
        strict_1.default.equal(o.metadata.labels?.['chbench.io/cell'], 'v26.3-zstd3', `${o.kind} cell label`);
        strict_1.default.equal(o.metadata.labels?.['chbench.io/run-id'], undefined, `${o.kind} has no run-id label`);
    }
    for (const o of [pod, pvc])
        strict_1.default.equal(o.metadata.annotations?.['chbench.io/run-id'], full, `${o.kind} run-id annotation`);
});
(0, node_test_1.test)('every template uses the required placeholders for its labels', () => {
    for (const f of manifests_1.MANIFEST_FILES) {
        const t = readTemplate(f);
        strict_1.default.ok(t.includes('chbench.io/run: "{{runId}}"'), `${f} run label`);
        strict_1.default.ok(t.includes('chbench.io/cell: "{{cellKey}}"'), `${f} cell label`);
        strict_1.default.ok(t.includes('app.kubernetes.io/managed-by: chbench'), `${f} managed-by label`);
    }
});
(0, node_test_1.test)('namespace.yaml renders the bench-database Namespace', () => {
    const ns = renderParsed('namespace.yaml');
    strict_1.default.equal(ns.apiVersion, 'v1');
    strict_1.default.equal(ns.kind, 'Namespace');
    strict_1.default.equal(ns.metadata.name, 'bench-database');
    assertChbenchLabels(ns);
});
(0, node_test_1.test)('storageclass.yaml renders the gp3 StorageClass with the seed parameters', () => {
    const sc = renderParsed('storageclass.yaml');
    strict_1.default.equal(sc.apiVersion, 'storage.k8s.io/v1');
    strict_1.default.equal(sc.kind, 'StorageClass');
    strict_1.default.equal(sc.metadata.name, 'bench-clickhouse-gp3');
    strict_1.default.equal(sc.metadata.namespace, undefined, 'StorageClass is cluster-scoped');
    strict_1.default.equal(sc.provisioner, 'ebs.csi.aws.com');
    // Kubernetes requires StorageClass parameters to be strings: they must stay quoted.
    strict_1.default.deepEqual(sc.parameters, { type: 'gp3', encrypted: 'true', iops: '3000', throughput: '125' });
    strict_1.default.equal(sc.volumeBindingMode, 'WaitForFirstConsumer');
    strict_1.default.equal(sc.reclaimPolicy, 'Delete');
    assertChbenchLabels(sc);
});
(0, node_test_1.test)('pvc.yaml renders a 100Gi RWO claim on the StorageClass', () => {
    const sc = renderParsed('storageclass.yaml');
    const pvc = renderParsed('pvc.yaml');
    strict_1.default.equal(pvc.apiVersion, 'v1');
    strict_1.default.equal(pvc.kind, 'PersistentVolumeClaim');
    strict_1.default.equal(pvc.metadata.name, 'clickhouse-data');
    strict_1.default.equal(pvc.metadata.namespace, 'bench-database');
    const spec = pvc.spec;
    strict_1.default.deepEqual(spec.accessModes, ['ReadWriteOnce']);
    strict_1.default.equal(spec.storageClassName, sc.metadata.name, 'PVC references the StorageClass');
    strict_1.default.equal(spec.resources.requests.storage, '100Gi');
    assertChbenchLabels(pvc);
    const bigger = renderParsed('pvc.yaml', { ...SAMPLE, storageSize: '250Gi' });
    strict_1.default.equal(bigger.spec.resources.requests.storage, '250Gi');
});
(0, node_test_1.test)('pod.yaml renders the ClickHouse Pod as in the seed', () => {
    const pod = renderParsed('pod.yaml');
    const pvc = renderParsed('pvc.yaml');
    strict_1.default.equal(pod.apiVersion, 'v1');
    strict_1.default.equal(pod.kind, 'Pod');
    strict_1.default.equal(pod.metadata.name, 'clickhouse');
    strict_1.default.equal(pod.metadata.namespace, 'bench-database');
    strict_1.default.equal(pod.metadata.annotations?.['karpenter.sh/do-not-disrupt'], 'true');
    assertChbenchLabels(pod);
    const spec = pod.spec;
    strict_1.default.deepEqual(spec.nodeSelector, { 'node.kubernetes.io/instance-type': 'm5.xlarge' });
    strict_1.default.equal(spec.containers.length, 1);
    const c = spec.containers[0];
    strict_1.default.equal(c.name, 'clickhouse');
    strict_1.default.equal(c.image, 'clickhouse/clickhouse-server:26.3.33.24');
    strict_1.default.deepEqual(c.resources.requests, { cpu: '2500m', memory: '9Gi' });
    strict_1.default.deepEqual(c.resources.limits, { cpu: '3500m', memory: '12Gi' });
    // The seed probes with clickhouse-client as the default user, which CLICKHOUSE_USER replaces: /ping needs no credentials.
    strict_1.default.deepEqual(c.readinessProbe.httpGet, { path: '/ping', port: 8123 });
    strict_1.default.equal(c.ports[0].containerPort, 8123);
    strict_1.default.deepEqual(c.env.map((e) => [e.name, e.valueFrom.secretKeyRef.name, e.valueFrom.secretKeyRef.key]), [
        ['CLICKHOUSE_USER', 'chbench-clickhouse', 'username'],
        ['CLICKHOUSE_PASSWORD', 'chbench-clickhouse', 'password'],
    ]);
    strict_1.default.equal(c.readinessProbe.initialDelaySeconds, 5);
    strict_1.default.equal(c.readinessProbe.periodSeconds, 5);
    // The container mounts a volume at /var/lib/clickhouse, and that volume is the PVC.
    const mount = c.volumeMounts.find((m) => m.mountPath === '/var/lib/clickhouse');
    strict_1.default.ok(mount, 'data mount at /var/lib/clickhouse');
    const vol = spec.volumes.find((v) => v.name === mount.name);
    strict_1.default.ok(vol, `volume ${mount.name} declared`);
    strict_1.default.equal(vol.persistentVolumeClaim?.claimName, pvc.metadata.name, 'Pod mounts the PVC');
    const other = renderParsed('pod.yaml', { ...SAMPLE, version: '24.8.14.39', instanceType: 'm6i.xlarge' });
    const oc = other.spec.containers[0];
    strict_1.default.equal(oc.image, 'clickhouse/clickhouse-server:24.8.14.39');
    strict_1.default.deepEqual(other.spec.nodeSelector, { 'node.kubernetes.io/instance-type': 'm6i.xlarge' });
});
(0, node_test_1.test)('rendered output contains no placeholder left', () => {
    for (const f of manifests_1.MANIFEST_FILES) {
        const out = (0, manifests_1.renderManifest)(readTemplate(f), SAMPLE);
        const body = out
            .split('\n')
            .filter((l) => !/^\s*#/.test(l))
            .join('\n');
        strict_1.default.doesNotMatch(body, /\{\{/, f);
    }
});
(0, node_test_1.test)('loadManifests returns the objects in apply order with defaults applied', async () => {
    const objs = await (0, manifests_1.loadManifests)(MANIFEST_DIR, { version: '26.3', runId: 'r1', cellKey: 'v26.3-lz4' });
    strict_1.default.deepEqual(objs.map((o) => `${o.kind}/${o.metadata.name}`), [
        'Namespace/bench-database',
        'StorageClass/bench-clickhouse-gp3',
        'PersistentVolumeClaim/clickhouse-data',
        'Pod/clickhouse',
    ]);
    for (const o of objs)
        assertChbenchLabels(o, { runId: 'r1', cellKey: 'v26.3-lz4' });
    const pvc = objs[2].spec;
    strict_1.default.equal(pvc.resources.requests.storage, manifests_1.MANIFEST_DEFAULTS.storageSize);
    const pod = objs[3].spec;
    strict_1.default.equal(pod.nodeSelector['node.kubernetes.io/instance-type'], manifests_1.MANIFEST_DEFAULTS.instanceType);
    strict_1.default.equal(pod.containers[0].image, 'clickhouse/clickhouse-server:26.3');
});
(0, node_test_1.test)('a missing placeholder value throws an Error naming it', async () => {
    const { version: _v, ...noVersion } = SAMPLE;
    strict_1.default.throws(() => (0, manifests_1.renderManifest)(readTemplate('pod.yaml'), noVersion), (e) => {
        strict_1.default.ok(e instanceof Error);
        strict_1.default.match(e.message, /\{\{version\}\}/);
        strict_1.default.doesNotMatch(e.message, /\{\{runId\}\}/, 'only the missing one is named');
        return true;
    });
    // All missing ones are named at once.
    strict_1.default.throws(() => (0, manifests_1.renderManifest)(readTemplate('pod.yaml'), { cellKey: 'c1' }), /\{\{version\}\}.*\{\{runId\}\}|\{\{runId\}\}.*\{\{version\}\}/);
    strict_1.default.throws(() => (0, manifests_1.renderManifest)(readTemplate('pvc.yaml'), { runId: 'r', cellKey: 'c' }), /\{\{storageSize\}\}/);
    // Empty counts as missing.
    strict_1.default.throws(() => (0, manifests_1.renderManifest)(readTemplate('pod.yaml'), { ...SAMPLE, version: '' }), /\{\{version\}\}/);
    // loadManifests names the placeholder and the file.
    await strict_1.default.rejects((0, manifests_1.loadManifests)(MANIFEST_DIR, { runId: 'r', cellKey: 'c' }), (e) => {
        strict_1.default.ok(e instanceof Error);
        strict_1.default.match(e.message, /\{\{version\}\}/);
        strict_1.default.match(e.message, /pod\.yaml/);
        return true;
    });
});
(0, node_test_1.test)('a value that is not a valid label value throws, naming placeholder and label', () => {
    for (const runId of ['Run 2026/10/12', 'x'.repeat(64), '-leading', 'trailing.', 'ünïcode']) {
        strict_1.default.throws(() => (0, manifests_1.renderManifest)(readTemplate('namespace.yaml'), { ...SAMPLE, runId }), (e) => {
            strict_1.default.ok(e instanceof Error);
            strict_1.default.match(e.message, /\{\{runId\}\}/);
            strict_1.default.match(e.message, /chbench\.io\/run(?!-)/);
            strict_1.default.match(e.message, /toLabelValue/);
            return true;
        }, runId);
    }
    strict_1.default.throws(() => (0, manifests_1.renderManifest)(readTemplate('pod.yaml'), { ...SAMPLE, cellKey: 'v26.3 ZSTD(3)' }), /\{\{cellKey\}\}.*chbench\.io\/cell/);
    // The node selector value is a label value too.
    strict_1.default.throws(() => (0, manifests_1.renderManifest)(readTemplate('pod.yaml'), { ...SAMPLE, instanceType: 'm5 xlarge' }), /\{\{instanceType\}\}/);
    // Cell keys of the usual shape are fine as they are.
    for (const cellKey of ['v26.3-zstd3', 'v24.8.14.39-lz4', 'v26.3_ZSTD-1']) {
        strict_1.default.doesNotThrow(() => (0, manifests_1.renderManifest)(readTemplate('pod.yaml'), { ...SAMPLE, cellKey }), cellKey);
    }
});
(0, node_test_1.test)('values cannot inject YAML structure', () => {
    const evil = '100Gi"\nextra: injected\n# ';
    const out = (0, manifests_1.renderManifest)(readTemplate('pvc.yaml'), { ...SAMPLE, storageSize: evil });
    const obj = YAML.parse(out);
    strict_1.default.equal(obj.spec.resources.requests.storage, evil);
    strict_1.default.equal(obj.extra, undefined);
    strict_1.default.equal(obj.spec.extra, undefined);
});
(0, node_test_1.test)('a placeholder outside a YAML string is reported, not silently dropped', () => {
    const t = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: {{version}}\n';
    strict_1.default.throws(() => (0, manifests_1.renderManifest)(t, { version: '1' }), /\{\{version\}\}.*not inside a YAML string/);
    // Placeholders in full-line comments need no value.
    strict_1.default.doesNotThrow(() => (0, manifests_1.renderManifest)('# {{notAValue}}\na: "{{version}}"\n', { version: '1' }));
});
(0, node_test_1.test)('loadManifests refuses an object without the chbench labels', async () => {
    const dir = (0, node_fs_1.mkdtempSync)(path.join(os.tmpdir(), 'chbench-manifests-'));
    try {
        (0, node_fs_1.writeFileSync)(path.join(dir, 'cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: "{{ns}}"\n');
        await strict_1.default.rejects((0, manifests_1.loadManifests)(dir, { ns: 'n' }), /ConfigMap\/x lacks label app\.kubernetes\.io\/managed-by/);
    }
    finally {
        (0, node_fs_1.rmSync)(dir, { recursive: true, force: true });
    }
});
(0, node_test_1.test)('toLabelValue output is a valid label value for nasty inputs', () => {
    const nasty = [
        '',
        ' ',
        '-',
        '...',
        '///',
        'Run 2026/10/12 09:30 #1',
        'run_id:with:colons',
        '-leading-and-trailing-',
        '.dots.',
        '_under_',
        'ünïcödé-🚀-emoji',
        'a'.repeat(63),
        'a'.repeat(64),
        'b'.repeat(500),
        'x-'.repeat(40),
        '-'.repeat(80) + 'z',
        'line\nbreak\ttab',
        '"quoted" \'single\' `back`',
        'schedule-quarterly/2026-Q4@2026-10-01T00:00:00Z',
        '\u0000nul',
    ];
    const seen = new Map();
    for (const s of nasty) {
        const v = (0, manifests_1.toLabelValue)(s);
        strict_1.default.ok(v.length > 0 && v.length <= 63, `length of ${JSON.stringify(v)} from ${JSON.stringify(s)}`);
        strict_1.default.match(v, LABEL_RE, `charset/ends of ${JSON.stringify(v)} from ${JSON.stringify(s)}`);
        strict_1.default.ok((0, manifests_1.isValidLabelValue)(v));
        strict_1.default.equal((0, manifests_1.toLabelValue)(s), v, 'deterministic');
        strict_1.default.equal((0, manifests_1.toLabelValue)(v), v, 'idempotent');
        const prev = seen.get(v);
        strict_1.default.ok(prev === undefined, `${JSON.stringify(s)} and ${JSON.stringify(prev)} collide on ${v}`);
        seen.set(v, s);
    }
    // Valid values pass unchanged; distinct inputs that sanitise alike stay distinct.
    for (const ok of ['v26.3-zstd3', 'run-20261012-0930', 'a'.repeat(63), 'A.b_c-9'])
        strict_1.default.equal((0, manifests_1.toLabelValue)(ok), ok);
    strict_1.default.notEqual((0, manifests_1.toLabelValue)('a/b'), (0, manifests_1.toLabelValue)('a:b'));
    strict_1.default.match((0, manifests_1.toLabelValue)('Run 2026/10/12 #1'), /^Run-2026-10-12-1-[0-9a-f]{8}$/);
    // The sanitised value renders.
    strict_1.default.doesNotThrow(() => (0, manifests_1.renderManifest)(readTemplate('pod.yaml'), { ...SAMPLE, runId: (0, manifests_1.toLabelValue)('Run 2026/10/12 #1') }));
});
(0, node_test_1.test)('isValidLabelValue follows the Kubernetes rules', () => {
    for (const ok of ['', 'a', 'A9', 'a.b_c-d', 'x'.repeat(63)])
        strict_1.default.ok((0, manifests_1.isValidLabelValue)(ok), JSON.stringify(ok));
    for (const bad of ['-a', 'a-', '.a', 'a_', 'a b', 'a/b', 'x'.repeat(64), 'é'])
        strict_1.default.ok(!(0, manifests_1.isValidLabelValue)(bad), JSON.stringify(bad));
});
//# sourceMappingURL=manifests.test.js.map