import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as YAML from 'yaml';
import { REPO_ROOT } from '../../src/config';

import {
  CELL_LABEL,
  MANAGED_BY_LABEL,
  MANIFEST_DEFAULTS,
  MANIFEST_FILES,
  RUN_LABEL,
  isValidLabelValue,
  loadManifests,
  renderManifest,
  toLabelValue,
  type KubeObject,
} from '../../src/targets/kubernetes/manifests';

const MANIFEST_DIR = path.join(REPO_ROOT, 'manifests');
const LABEL_RE = /^(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?$/;

const SAMPLE: Record<string, string> = {
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

function readTemplate(file: string): string {
  return readFileSync(path.join(MANIFEST_DIR, file), 'utf8');
}

function renderParsed(file: string, values: Record<string, string> = SAMPLE): KubeObject {
  const docs = YAML.parseAllDocuments(renderManifest(readTemplate(file), values));
  assert.ok(Array.isArray(docs) && docs.length === 1, `${file}: one document`);
  const doc = docs[0];
  assert.deepEqual(doc.errors, [], `${file}: rendered YAML parses`);
  return doc.toJS() as KubeObject;
}

function assertChbenchLabels(obj: KubeObject, values: Record<string, string> = SAMPLE): void {
  const labels = obj.metadata.labels ?? {};
  assert.equal(labels[MANAGED_BY_LABEL], 'chbench', `${obj.kind} managed-by`);
  assert.equal(labels[RUN_LABEL], values.runId, `${obj.kind} run label`);
  assert.equal(labels[CELL_LABEL], values.cellKey, `${obj.kind} cell`);
  for (const [k, v] of Object.entries(labels))
    assert.ok(isValidLabelValue(v) && v.length > 0, `${obj.kind} label ${k}=${v}`);
}

test('manifests/ holds the four templates and a README', () => {
  for (const f of [...MANIFEST_FILES, 'README.md']) assert.ok(existsSync(path.join(MANIFEST_DIR, f)), f);
  assert.deepEqual([...MANIFEST_FILES], ['namespace.yaml', 'storageclass.yaml', 'pvc.yaml', 'pod.yaml']);
  const readme = readFileSync(path.join(MANIFEST_DIR, 'README.md'), 'utf8');
  for (const p of ['{{version}}', '{{runId}}', '{{cellKey}}', '{{storageSize}}', '{{instanceType}}']) {
    assert.ok(readme.includes(p), `README documents ${p}`);
  }
  assert.ok(readme.includes(MANIFEST_DEFAULTS.storageSize), 'README shows the storageSize default');
  assert.equal(MANIFEST_DEFAULTS.storageSize, '100Gi');
  assert.equal(MANIFEST_DEFAULTS.instanceType, 'm5.xlarge');
});

test('label chbench.io/run holds the label-safe run id, annotation chbench.io/run-id the full one (issue 9 names)', async () => {
  const full = 'Run 2026/10/12 #1';
  const objs = await loadManifests(MANIFEST_DIR, {
    version: '26.3',
    runId: toLabelValue(full),
    runIdFull: full,
    cellKey: 'v26.3-zstd3',
  });
  const pod = objs.find((o) => o.kind === 'Pod');
  const pvc = objs.find((o) => o.kind === 'PersistentVolumeClaim');
  assert.ok(pod && pvc);
  for (const o of objs) {
    assert.equal(o.metadata.labels?.['chbench.io/run'], 'Run-2026-10-12-1-ea6232cb', `${o.kind} run label`);
    assert.equal(o.metadata.labels?.['chbench.io/cell'], 'v26.3-zstd3', `${o.kind} cell label`);
    assert.equal(o.metadata.labels?.['chbench.io/run-id'], undefined, `${o.kind} has no run-id label`);
  }
  for (const o of [pod, pvc])
    assert.equal(o.metadata.annotations?.['chbench.io/run-id'], full, `${o.kind} run-id annotation`);
});

test('every template uses the required placeholders for its labels', () => {
  for (const f of MANIFEST_FILES) {
    const t = readTemplate(f);
    assert.ok(t.includes('chbench.io/run: "{{runId}}"'), `${f} run label`);
    assert.ok(t.includes('chbench.io/cell: "{{cellKey}}"'), `${f} cell label`);
    assert.ok(t.includes('app.kubernetes.io/managed-by: chbench'), `${f} managed-by label`);
  }
});

test('namespace.yaml renders the bench-database Namespace', () => {
  const ns = renderParsed('namespace.yaml');
  assert.equal(ns.apiVersion, 'v1');
  assert.equal(ns.kind, 'Namespace');
  assert.equal(ns.metadata.name, 'bench-database');
  assertChbenchLabels(ns);
});

test('storageclass.yaml renders the gp3 StorageClass with the seed parameters', () => {
  const sc = renderParsed('storageclass.yaml');
  assert.equal(sc.apiVersion, 'storage.k8s.io/v1');
  assert.equal(sc.kind, 'StorageClass');
  assert.equal(sc.metadata.name, 'bench-clickhouse-gp3');
  assert.equal(sc.metadata.namespace, undefined, 'StorageClass is cluster-scoped');
  assert.equal(sc.provisioner, 'ebs.csi.aws.com');
  // Kubernetes requires StorageClass parameters to be strings: they must stay quoted.
  assert.deepEqual(sc.parameters, { type: 'gp3', encrypted: 'true', iops: '3000', throughput: '125' });
  assert.equal(sc.volumeBindingMode, 'WaitForFirstConsumer');
  assert.equal(sc.reclaimPolicy, 'Delete');
  assertChbenchLabels(sc);
});

test('pvc.yaml renders a 100Gi RWO claim on the StorageClass', () => {
  const sc = renderParsed('storageclass.yaml');
  const pvc = renderParsed('pvc.yaml');
  assert.equal(pvc.apiVersion, 'v1');
  assert.equal(pvc.kind, 'PersistentVolumeClaim');
  assert.equal(pvc.metadata.name, 'clickhouse-data');
  assert.equal(pvc.metadata.namespace, 'bench-database');
  const spec = pvc.spec as {
    accessModes: string[];
    storageClassName: string;
    resources: { requests: { storage: string } };
  };
  assert.deepEqual(spec.accessModes, ['ReadWriteOnce']);
  assert.equal(spec.storageClassName, sc.metadata.name, 'PVC references the StorageClass');
  assert.equal(spec.resources.requests.storage, '100Gi');
  assertChbenchLabels(pvc);

  const bigger = renderParsed('pvc.yaml', { ...SAMPLE, storageSize: '250Gi' });
  assert.equal((bigger.spec as typeof spec).resources.requests.storage, '250Gi');
});

test('pod.yaml renders the ClickHouse Pod as in the seed', () => {
  const pod = renderParsed('pod.yaml');
  const pvc = renderParsed('pvc.yaml');
  assert.equal(pod.apiVersion, 'v1');
  assert.equal(pod.kind, 'Pod');
  assert.equal(pod.metadata.name, 'clickhouse');
  assert.equal(pod.metadata.namespace, 'bench-database');
  assert.equal(pod.metadata.annotations?.['karpenter.sh/do-not-disrupt'], 'true');
  assertChbenchLabels(pod);

  interface Container {
    name: string;
    image: string;
    resources: { requests: Record<string, string>; limits: Record<string, string> };
    readinessProbe: { httpGet: { path: string; port: number }; initialDelaySeconds: number; periodSeconds: number };
    ports: { containerPort: number }[];
    env: { name: string; valueFrom: { secretKeyRef: { name: string; key: string } } }[];
    volumeMounts: { name: string; mountPath: string }[];
  }
  const spec = pod.spec as {
    nodeSelector: Record<string, string>;
    containers: Container[];
    volumes: { name: string; persistentVolumeClaim?: { claimName: string } }[];
  };
  assert.deepEqual(spec.nodeSelector, { 'node.kubernetes.io/instance-type': 'm5.xlarge' });
  assert.equal(spec.containers.length, 1);
  const c = spec.containers[0];
  assert.equal(c.name, 'clickhouse');
  assert.equal(c.image, 'clickhouse/clickhouse-server:26.3.33.24');
  assert.deepEqual(c.resources.requests, { cpu: '2500m', memory: '9Gi' });
  assert.deepEqual(c.resources.limits, { cpu: '3500m', memory: '12Gi' });
  // The seed probes with clickhouse-client as the default user, which CLICKHOUSE_USER replaces: /ping needs no credentials.
  assert.deepEqual(c.readinessProbe.httpGet, { path: '/ping', port: 8123 });
  assert.equal(c.ports[0].containerPort, 8123);
  assert.deepEqual(
    c.env.map((e) => [e.name, e.valueFrom.secretKeyRef.name, e.valueFrom.secretKeyRef.key]),
    [
      ['CLICKHOUSE_USER', 'chbench-clickhouse', 'username'],
      ['CLICKHOUSE_PASSWORD', 'chbench-clickhouse', 'password'],
    ],
  );
  assert.equal(c.readinessProbe.initialDelaySeconds, 5);
  assert.equal(c.readinessProbe.periodSeconds, 5);

  // The container mounts a volume at /var/lib/clickhouse, and that volume is the PVC.
  const mount = c.volumeMounts.find((m) => m.mountPath === '/var/lib/clickhouse');
  assert.ok(mount, 'data mount at /var/lib/clickhouse');
  const vol = spec.volumes.find((v) => v.name === mount.name);
  assert.ok(vol, `volume ${mount.name} declared`);
  assert.equal(vol.persistentVolumeClaim?.claimName, pvc.metadata.name, 'Pod mounts the PVC');

  const other = renderParsed('pod.yaml', { ...SAMPLE, version: '24.8.14.39', instanceType: 'm6i.xlarge' });
  const oc = (other.spec as typeof spec).containers[0];
  assert.equal(oc.image, 'clickhouse/clickhouse-server:24.8.14.39');
  assert.deepEqual((other.spec as typeof spec).nodeSelector, { 'node.kubernetes.io/instance-type': 'm6i.xlarge' });
});

test('rendered output contains no placeholder left', () => {
  for (const f of MANIFEST_FILES) {
    const out = renderManifest(readTemplate(f), SAMPLE);
    const body = out
      .split('\n')
      .filter((l) => !/^\s*#/.test(l))
      .join('\n');
    assert.doesNotMatch(body, /\{\{/, f);
  }
});

test('loadManifests returns the objects in apply order with defaults applied', async () => {
  const objs = await loadManifests(MANIFEST_DIR, { version: '26.3', runId: 'r1', cellKey: 'v26.3-lz4' });
  assert.deepEqual(
    objs.map((o) => `${o.kind}/${o.metadata.name}`),
    [
      'Namespace/bench-database',
      'StorageClass/bench-clickhouse-gp3',
      'PersistentVolumeClaim/clickhouse-data',
      'Pod/clickhouse',
    ],
  );
  for (const o of objs) assertChbenchLabels(o, { runId: 'r1', cellKey: 'v26.3-lz4' });
  const pvc = objs[2].spec as { resources: { requests: { storage: string } } };
  assert.equal(pvc.resources.requests.storage, MANIFEST_DEFAULTS.storageSize);
  const pod = objs[3].spec as { nodeSelector: Record<string, string>; containers: { image: string }[] };
  assert.equal(pod.nodeSelector['node.kubernetes.io/instance-type'], MANIFEST_DEFAULTS.instanceType);
  assert.equal(pod.containers[0].image, 'clickhouse/clickhouse-server:26.3');
});

test('a missing placeholder value throws an Error naming it', async () => {
  const { version: _v, ...noVersion } = SAMPLE;
  assert.throws(
    () => renderManifest(readTemplate('pod.yaml'), noVersion),
    (e: unknown) => {
      assert.ok(e instanceof Error);
      assert.match(e.message, /\{\{version\}\}/);
      assert.doesNotMatch(e.message, /\{\{runId\}\}/, 'only the missing one is named');
      return true;
    },
  );
  // All missing ones are named at once.
  assert.throws(
    () => renderManifest(readTemplate('pod.yaml'), { cellKey: 'c1' }),
    /\{\{version\}\}.*\{\{runId\}\}|\{\{runId\}\}.*\{\{version\}\}/,
  );
  assert.throws(() => renderManifest(readTemplate('pvc.yaml'), { runId: 'r', cellKey: 'c' }), /\{\{storageSize\}\}/);
  // Empty counts as missing.
  assert.throws(() => renderManifest(readTemplate('pod.yaml'), { ...SAMPLE, version: '' }), /\{\{version\}\}/);
  // loadManifests names the placeholder and the file.
  await assert.rejects(loadManifests(MANIFEST_DIR, { runId: 'r', cellKey: 'c' }), (e: unknown) => {
    assert.ok(e instanceof Error);
    assert.match(e.message, /\{\{version\}\}/);
    assert.match(e.message, /pod\.yaml/);
    return true;
  });
});

test('a value that is not a valid label value throws, naming placeholder and label', () => {
  for (const runId of ['Run 2026/10/12', 'x'.repeat(64), '-leading', 'trailing.', 'ünïcode']) {
    assert.throws(
      () => renderManifest(readTemplate('namespace.yaml'), { ...SAMPLE, runId }),
      (e: unknown) => {
        assert.ok(e instanceof Error);
        assert.match(e.message, /\{\{runId\}\}/);
        assert.match(e.message, /chbench\.io\/run(?!-)/);
        assert.match(e.message, /toLabelValue/);
        return true;
      },
      runId,
    );
  }
  assert.throws(
    () => renderManifest(readTemplate('pod.yaml'), { ...SAMPLE, cellKey: 'v26.3 ZSTD(3)' }),
    /\{\{cellKey\}\}.*chbench\.io\/cell/,
  );
  // The node selector value is a label value too.
  assert.throws(
    () => renderManifest(readTemplate('pod.yaml'), { ...SAMPLE, instanceType: 'm5 xlarge' }),
    /\{\{instanceType\}\}/,
  );
  // Cell keys of the usual shape are fine as they are.
  for (const cellKey of ['v26.3-zstd3', 'v24.8.14.39-lz4', 'v26.3_ZSTD-1']) {
    assert.doesNotThrow(() => renderManifest(readTemplate('pod.yaml'), { ...SAMPLE, cellKey }), cellKey);
  }
});

test('values cannot inject YAML structure', () => {
  const evil = '100Gi"\nextra: injected\n# ';
  const out = renderManifest(readTemplate('pvc.yaml'), { ...SAMPLE, storageSize: evil });
  const obj = YAML.parse(out) as KubeObject;
  assert.equal((obj.spec as { resources: { requests: { storage: string } } }).resources.requests.storage, evil);
  assert.equal((obj as Record<string, unknown>).extra, undefined);
  assert.equal((obj.spec as Record<string, unknown>).extra, undefined);
});

test('a placeholder outside a YAML string is reported, not silently dropped', () => {
  const t = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: {{version}}\n';
  assert.throws(() => renderManifest(t, { version: '1' }), /\{\{version\}\}.*not inside a YAML string/);
  // Placeholders in full-line comments need no value.
  assert.doesNotThrow(() => renderManifest('# {{notAValue}}\na: "{{version}}"\n', { version: '1' }));
});

test('loadManifests refuses an object without the chbench labels', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chbench-manifests-'));
  try {
    writeFileSync(
      path.join(dir, 'cm.yaml'),
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: "{{ns}}"\n',
    );
    await assert.rejects(loadManifests(dir, { ns: 'n' }), /ConfigMap\/x lacks label app\.kubernetes\.io\/managed-by/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('toLabelValue output is a valid label value for nasty inputs', () => {
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
  const seen = new Map<string, string>();
  for (const s of nasty) {
    const v = toLabelValue(s);
    assert.ok(v.length > 0 && v.length <= 63, `length of ${JSON.stringify(v)} from ${JSON.stringify(s)}`);
    assert.match(v, LABEL_RE, `charset/ends of ${JSON.stringify(v)} from ${JSON.stringify(s)}`);
    assert.ok(isValidLabelValue(v));
    assert.equal(toLabelValue(s), v, 'deterministic');
    assert.equal(toLabelValue(v), v, 'idempotent');
    const prev = seen.get(v);
    assert.ok(prev === undefined, `${JSON.stringify(s)} and ${JSON.stringify(prev)} collide on ${v}`);
    seen.set(v, s);
  }
  // Valid values pass unchanged; distinct inputs that sanitise alike stay distinct.
  for (const ok of ['v26.3-zstd3', 'run-20261012-0930', 'a'.repeat(63), 'A.b_c-9']) assert.equal(toLabelValue(ok), ok);
  assert.notEqual(toLabelValue('a/b'), toLabelValue('a:b'));
  assert.match(toLabelValue('Run 2026/10/12 #1'), /^Run-2026-10-12-1-[0-9a-f]{8}$/);
  // The sanitised value renders.
  assert.doesNotThrow(() =>
    renderManifest(readTemplate('pod.yaml'), { ...SAMPLE, runId: toLabelValue('Run 2026/10/12 #1') }),
  );
});

test('isValidLabelValue follows the Kubernetes rules', () => {
  for (const ok of ['', 'a', 'A9', 'a.b_c-d', 'x'.repeat(63)]) assert.ok(isValidLabelValue(ok), JSON.stringify(ok));
  for (const bad of ['-a', 'a-', '.a', 'a_', 'a b', 'a/b', 'x'.repeat(64), 'é'])
    assert.ok(!isValidLabelValue(bad), JSON.stringify(bad));
});
