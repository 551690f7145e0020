/**
 * Pure parts of the `kubernetes` target: the spec's defaults (the seed article), per-cell names,
 * the rendering of manifests/ with the spec's knobs, the process access registry of
 * `src/clickhouse/client.ts`, and the activity interceptor's search for handles.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { FAILURE } from '../../src/schema/failures';
import { KubernetesTargetSpec, parseRunSpec } from '../../src/schema/run-spec';
import { cellNames, forgetKubeClients } from '../../src/targets/kubernetes/kube';
import { renderCell } from '../../src/targets/kubernetes/render';
import { kubernetesTarget } from '../../src/targets/kubernetes';
import {
  clearTargetAccess,
  setTargetAccess,
  targetAccessKey,
  targetPassword,
  targetUrl,
} from '../../src/clickhouse/client';
import { handlesIn, prepareTargets } from '../../src/temporal/target-access';
import type { TargetHandle } from '../../src/schema/target';

test('the spec defaults are the seed article', () => {
  const s = KubernetesTargetSpec.parse({ kind: 'kubernetes' });
  assert.equal(s.namespace, 'bench-database');
  assert.equal(s.access, 'podIP');
  assert.equal(s.credentialsSecret, 'chbench-clickhouse');
  assert.equal(s.createSecret, true);
  assert.deepEqual(s.storageClass, { name: 'bench-clickhouse-gp3', create: true });
  assert.equal(s.storageSize, '100Gi');
  assert.equal(s.instanceType, 'm5.xlarge');
  assert.deepEqual(s.resources, {
    requests: { cpu: '2500m', memory: '9Gi' },
    limits: { cpu: '3500m', memory: '12Gi' },
  });
  assert.deepEqual(s.timeouts, {
    scheduleMs: 300_000,
    pvcMs: 300_000,
    pullMs: 600_000,
    readyMs: 600_000,
    watchSilenceMs: 60_000,
  });
  assert.throws(() => KubernetesTargetSpec.parse({ kind: 'kubernetes', password: 'x' }), /password/);
  assert.throws(
    () => KubernetesTargetSpec.parse({ kind: 'kubernetes', resources: { requests: { cpu: 'lots' } } }),
    /quantity/,
  );
  assert.throws(() => KubernetesTargetSpec.parse({ kind: 'kubernetes', access: 'ssh' }));
  const run = parseRunSpec({
    name: 'eks',
    workload: 'logs',
    scale: 1000,
    target: { kind: 'kubernetes' },
    matrix: { version: ['26.3'], codec: ['LZ4'] },
  });
  assert.equal(run.target.kind, 'kubernetes');
});

test('names are DNS-1123, deterministic, distinct per run and cell', () => {
  const a = cellNames('run-1', 'v26.3-ZSTD(3)-r1');
  assert.match(a.pod, /^chb-v26-3-zstd-3-r1-[0-9a-f]{8}$/);
  assert.equal(a.pvc, `${a.pod}-data`);
  assert.deepEqual(cellNames('run-1', 'v26.3-ZSTD(3)-r1'), a);
  assert.notEqual(cellNames('run-2', 'v26.3-ZSTD(3)-r1').pod, a.pod);
  const long = cellNames('r', 'x'.repeat(200));
  assert.ok(long.pvc.length <= 63, long.pvc);
  assert.match(long.pod, /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
});

test('renderCell applies the spec to the objects of manifests/', async () => {
  const spec = KubernetesTargetSpec.parse({
    kind: 'kubernetes',
    namespace: 'bench-2',
    images: { '26.3': 'registry.local/ch:26.3-custom' },
    storageClass: { name: 'fast' },
    nodeSelector: { pool: 'bench' },
    tolerations: [{ key: 'bench', operator: 'Exists' }],
    annotations: { team: 'perf' },
  });
  const names = cellNames('Run 1/x', 'v26.3-lz4');
  const req = { runId: 'Run 1/x', cellKey: 'v26.3-lz4', version: '26.3', workDir: '/tmp' };
  const o = await renderCell(spec, req, names, 'us-east-1c');
  assert.equal(o.namespace.metadata.name, 'bench-2');
  assert.equal(o.pvc.metadata.namespace, 'bench-2');
  assert.equal((o.pvc.spec as { storageClassName: string }).storageClassName, 'fast');
  assert.equal(o.storageClass.metadata.name, 'fast');
  assert.equal(o.pod.metadata.name, names.pod);
  assert.equal(
    o.pod.metadata.labels?.['chbench.io/run'],
    'Run-1-x-' + o.pod.metadata.labels?.['chbench.io/run']?.slice(-8),
  );
  assert.equal(o.pod.metadata.annotations?.['chbench.io/run-id'], 'Run 1/x');
  assert.equal(o.pod.metadata.annotations?.team, 'perf');
  assert.equal(o.pod.metadata.annotations?.['karpenter.sh/do-not-disrupt'], 'true');
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const ps = o.pod.spec as any;
  assert.equal(ps.containers[0].image, 'registry.local/ch:26.3-custom');
  assert.deepEqual(ps.nodeSelector, { 'node.kubernetes.io/instance-type': 'm5.xlarge', pool: 'bench' });
  assert.deepEqual(ps.tolerations, [{ key: 'bench', operator: 'Exists' }]);
  assert.deepEqual(ps.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms, [
    { matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-east-1c'] }] },
  ]);
  assert.equal(ps.volumes[0].persistentVolumeClaim.claimName, names.pvc);
});

test('the access registry: a Secret-backed handle needs its password loaded; a forward replaces the URL', () => {
  const h = {
    url: 'http://10.0.0.7:8123',
    passwordSecret: { namespace: 'bench-database', name: 'chbench-clickhouse', key: 'password' },
  };
  clearTargetAccess();
  assert.throws(
    () => targetPassword(h),
    /Secret bench-database\/chbench-clickhouse .* not loaded in this worker process/,
  );
  setTargetAccess(targetAccessKey(h), { password: 's3cret' });
  assert.equal(targetPassword(h), 's3cret');
  assert.equal(targetUrl(h), 'http://10.0.0.7:8123');
  setTargetAccess(targetAccessKey(h), { url: 'http://127.0.0.1:40001' });
  assert.equal(targetUrl(h), 'http://127.0.0.1:40001');
  assert.equal(targetPassword(h), 's3cret', 'merged, not replaced');
  assert.equal(targetPassword({ url: 'http://x' }), '', 'no password referenced');
  clearTargetAccess();
});

test('the interceptor prepares every handle among the arguments (top level or .target)', async () => {
  const h = (kind: string, cellKey: string) =>
    ({ kind, url: 'http://x', runId: 'r', cellKey, database: 'd', username: 'u', provisionedBy: '' }) as TargetHandle;
  const args = [h('kubernetes', 'a'), { target: h('kubernetes', 'b'), other: 1 }, h('embedded', 'c'), 'text', null];
  assert.deepEqual(
    handlesIn(args).map((x) => x.cellKey),
    ['a', 'b', 'c'],
  );
  const prepared: string[] = [];
  await prepareTargets(args, (kind) =>
    kind === 'kubernetes' ? async (x) => void prepared.push(x.cellKey) : undefined,
  );
  assert.deepEqual(prepared, ['a', 'b']);
});

test('checkSpec: input and worker-host problems', () => {
  assert.deepEqual(kubernetesTarget.checkSpec({ kind: 'kubernetes' }, ['26.3'], 'input'), []);
  const bad = kubernetesTarget.checkSpec(
    { kind: 'kubernetes', access: 'ssh', images: { '26.3': 'not an image' }, resources: { limits: { memory: 'big' } } },
    ['26.3'],
    'input',
  );
  assert.equal(bad.length, 3, bad.join('\n'));
  assert.match(bad.join('\n'), /access: "ssh"/);
  assert.match(bad.join('\n'), /version 26\.3 gives image "not an image"/);
  assert.match(bad.join('\n'), /resources\.limits\.memory/);
  assert.match(
    kubernetesTarget.checkSpec({ kind: 'kubernetes', kubeconfig: '/nonexistent/kubeconfig' }, [], 'worker host')[0],
    /does not exist on the worker/,
  );
});

/** Run `fn` with HOME pointing at an empty directory and KUBECONFIG / in-cluster variables unset. */
function withoutKubeconfig<T>(fn: () => T): T {
  const saved = {
    HOME: process.env.HOME,
    KUBECONFIG: process.env.KUBECONFIG,
    KUBERNETES_SERVICE_HOST: process.env.KUBERNETES_SERVICE_HOST,
  };
  process.env.HOME = mkdtempSync(path.join(tmpdir(), 'chb-nohome-'));
  delete process.env.KUBECONFIG;
  delete process.env.KUBERNETES_SERVICE_HOST;
  try {
    return fn();
  } finally {
    for (const [k, v] of Object.entries(saved))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
  }
}

const kubeconfigText = (server: string, o: { skip?: boolean; current?: string } = {}) =>
  [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: c1',
    '  cluster:',
    `    server: ${server}`,
    ...(o.skip ? ['    insecure-skip-tls-verify: true'] : []),
    'users:',
    '- name: u1',
    '  user: {}',
    'contexts:',
    '- name: ctx1',
    '  context: {cluster: c1, user: u1}',
    ...(o.current === undefined ? ['current-context: ctx1'] : o.current ? [`current-context: ${o.current}`] : []),
    '',
  ].join('\n');

test('worker-host check: an unusable kubeconfig is refused with what is missing', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'chb-kc-'));
  const file = (name: string, text: string) => {
    const p = path.join(dir, name);
    writeFileSync(p, text);
    return p;
  };
  const check = (t: Record<string, unknown>) =>
    withoutKubeconfig(() => kubernetesTarget.checkSpec({ kind: 'kubernetes', ...t }, ['26.3'], 'worker host'));
  assert.match(check({}).join('\n'), /no kubeconfig on the worker: .*KUBECONFIG unset, .*\.kube\/config missing/);
  assert.match(
    check({ kubeconfig: file('http.yaml', kubeconfigText('http://localhost:8080')) }).join('\n'),
    /http:\/\/localhost:8080 .* plain HTTP without insecure-skip-tls-verify/,
  );
  assert.match(
    check({ kubeconfig: file('nocur.yaml', kubeconfigText('https://k8s.example:6443', { current: '' })) }).join('\n'),
    /no current context/,
  );
  assert.match(
    check({ kubeconfig: file('ok.yaml', kubeconfigText('https://k8s.example:6443')), context: 'other' }).join('\n'),
    /no context "other" \(has: ctx1\)/,
  );
  // Usable configs pass: https, or http with insecure-skip-tls-verify (the emulator's).
  assert.deepEqual(check({ kubeconfig: file('ok2.yaml', kubeconfigText('https://k8s.example:6443')) }), []);
  assert.deepEqual(
    check({ kubeconfig: file('emu.yaml', kubeconfigText('http://127.0.0.1:1', { skip: true })), context: 'ctx1' }),
    [],
  );
});

test('a kube-config error is non-retryable at provision; teardown without a handle returns at once', async () => {
  const spec = KubernetesTargetSpec.parse({ kind: 'kubernetes' });
  const req = { runId: 'r-kc', cellKey: 'c1', version: '26.3', workDir: tmpdir() };
  forgetKubeClients();
  const saved = process.env.HOME;
  const home = mkdtempSync(path.join(tmpdir(), 'chb-nohome-'));
  const env = { KUBECONFIG: process.env.KUBECONFIG, KUBERNETES_SERVICE_HOST: process.env.KUBERNETES_SERVICE_HOST };
  process.env.HOME = home;
  delete process.env.KUBECONFIG;
  delete process.env.KUBERNETES_SERVICE_HOST;
  try {
    await assert.rejects(
      kubernetesTarget.provision(spec, req),
      (e: unknown) =>
        e instanceof ApplicationFailure &&
        e.nonRetryable &&
        e.type === FAILURE.InvalidSpec &&
        /no kubeconfig on the worker/.test(e.message),
    );
    const started = Date.now();
    assert.match(await kubernetesTarget.teardownCell(spec, req), /^nothing: the kubeconfig cannot reach a cluster/);
    assert.ok(Date.now() - started < 1000);
  } finally {
    process.env.HOME = saved;
    for (const [k, v] of Object.entries(env))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    forgetKubeClients();
  }
});
