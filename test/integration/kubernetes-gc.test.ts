/**
 * `collectKubernetesGarbage` against the Kubernetes emulator and a real Temporal dev server: the pod
 * and PVC of a run whose workflows are terminated are deleted; those of a run still open, of a run
 * whose Temporal server is unreachable and of an object without owner are kept, each with why.
 * `chbench gc --kubernetes` (the CLI, as a subprocess) does the same in the namespace it is given and
 * prints one line per object.
 */
import { after, before, test } from 'node:test';
import { execFile } from 'node:child_process';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { SimCluster } from '../k8s/cluster';
import { startDevServer, type DevServer } from '../../src/temporal/dev-server';
import { REPO_ROOT } from '../../src/config';
import { freePort } from '../../src/lib/net';
import { KubernetesTargetSpec } from '../../src/schema/run-spec';
import type { TemporalOwner } from '../../src/schema/target';
import { forgetKubeClients, resetAccess } from '../../src/targets/kubernetes';
import { cellNames, kubeFor } from '../../src/targets/kubernetes/kube';
import { renderCell } from '../../src/targets/kubernetes/render';
import { collectKubernetesGarbage } from '../../src/targets/gc';
import type * as k8s from '@kubernetes/client-node';

let temporal: DevServer;
let cluster: SimCluster;
let dir: string;
let kubeconfig: string;
before(async () => {
  temporal = await startDevServer();
  cluster = await new SimCluster().start();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'k8s-gc-'));
  kubeconfig = path.join(dir, 'kubeconfig');
  fs.writeFileSync(kubeconfig, cluster.emu.kubeconfig());
  forgetKubeClients();
  await resetAccess();
});
after(async () => {
  await cluster?.stop();
  await temporal?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test('gc deletes the pod and PVC of a closed run and keeps what it cannot see closed', async () => {
  const conn = await Connection.connect({ address: temporal.address });
  const client = new Client({ connection: conn, namespace: 'default' });
  const nsId = (await conn.workflowService.describeNamespace({ namespace: 'default' })).namespaceInfo!.id!;
  const stamp = Date.now();
  // Workflows nobody runs (no worker polls this queue): started, and for the closed run terminated.
  const start = (id: string) =>
    client.workflow.start('benchmarkMatrix', { taskQueue: `nobody-${stamp}`, workflowId: id, args: [] });
  const closedRun = `gc-closed-${stamp}`;
  const openRun = `gc-open-${stamp}`;
  for (const id of [closedRun, `${closedRun}/v26.7-lz4`, openRun, `${openRun}/v26.7-lz4`]) await start(id);
  await client.workflow.getHandle(closedRun).terminate('test: the run is over');
  await client.workflow.getHandle(`${closedRun}/v26.7-lz4`).terminate('test: the run is over');

  const spec = KubernetesTargetSpec.parse({ kind: 'kubernetes', kubeconfig });
  const kube = kubeFor(spec);
  const owner = (runId: string, o: Partial<TemporalOwner> = {}): TemporalOwner => ({
    address: temporal.address,
    namespace: 'default',
    namespaceId: nsId,
    workflowId: `${runId}/v26.7-lz4`,
    workflowRunId: 'r',
    matrixWorkflowId: runId,
    ...o,
  });
  const deadRun = `gc-dead-${stamp}`;
  const cells: [string, TemporalOwner | undefined][] = [
    [closedRun, owner(closedRun)],
    [openRun, owner(openRun)],
    [deadRun, owner(deadRun, { address: `127.0.0.1:${await freePort()}` })],
    [`gc-noowner-${stamp}`, undefined],
  ];
  let first = true;
  for (const [runId, o] of cells) {
    const req = { runId, cellKey: 'v26.7-lz4', version: '26.7', workDir: dir, ...(o ? { owner: o } : {}) };
    const objs = await renderCell(spec, req, cellNames(runId, 'v26.7-lz4'));
    if (first) await kube.core.createNamespace({ body: objs.namespace as k8s.V1Namespace });
    first = false;
    await kube.core.createNamespacedPersistentVolumeClaim({
      namespace: spec.namespace,
      body: objs.pvc as k8s.V1PersistentVolumeClaim,
    });
    await kube.core.createNamespacedPod({ namespace: spec.namespace, body: objs.pod as k8s.V1Pod });
  }

  const dry = await collectKubernetesGarbage({ kubeconfig }, { dryRun: true, connectTimeoutMs: 1000 });
  assert.equal(dry.removed.length, 2);
  assert.equal(
    (await kube.core.listNamespacedPod({ namespace: spec.namespace })).items.length,
    4,
    'dry run deletes nothing',
  );

  const r = await collectKubernetesGarbage({ kubeconfig }, { connectTimeoutMs: 1000 });
  assert.deepEqual(r.removed.map((e) => `${e.kind} ${e.runId}`).sort(), [
    `PersistentVolumeClaim ${closedRun}`,
    `Pod ${closedRun}`,
  ]);
  for (const e of r.removed) assert.match(e.reason, /terminated/);
  const why = (runId: string) => r.kept.find((e) => e.runId === runId && e.kind === 'Pod')?.reason ?? '';
  assert.match(why(openRun), /is running/);
  assert.match(why(deadRun), /unreachable/);
  assert.match(why(`gc-noowner-${stamp}`), /no parseable chbench\.io\/owner annotation/);
  const left = (await kube.core.listNamespacedPod({ namespace: spec.namespace })).items.map((p) => p.metadata?.name);
  assert.equal(left.length, 3);
  assert.ok(!left.includes(cellNames(closedRun, 'v26.7-lz4').pod));
  assert.equal((await kube.core.listNamespacedPersistentVolumeClaim({ namespace: spec.namespace })).items.length, 3);
  // The shared namespace stays.
  assert.ok(await kube.core.readNamespace({ name: spec.namespace }));
  await conn.close();
});

/** Runs `node dist/src/cli.js <args>`; resolves with exit code, stdout and stderr. */
function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) =>
    execFile(
      process.execPath,
      [path.join(REPO_ROOT, 'dist', 'src', 'cli.js'), ...args],
      { timeout: 120_000, env: { ...process.env, KUBECONFIG: path.join(dir, 'no-such-kubeconfig') } },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    ),
  );
}

test('chbench gc --kubernetes --kubeconfig --namespace prints one line per object and deletes only the closed run', async () => {
  const conn = await Connection.connect({ address: temporal.address });
  const client = new Client({ connection: conn, namespace: 'default' });
  const nsId = (await conn.workflowService.describeNamespace({ namespace: 'default' })).namespaceInfo!.id!;
  const stamp = Date.now();
  const closedRun = `cli-closed-${stamp}`;
  const openRun = `cli-open-${stamp}`;
  for (const id of [closedRun, `${closedRun}/v26.7-zstd3`, openRun, `${openRun}/v26.7-zstd3`])
    await client.workflow.start('benchmarkMatrix', { taskQueue: `nobody-${stamp}`, workflowId: id, args: [] });
  for (const id of [closedRun, `${closedRun}/v26.7-zstd3`])
    await client.workflow.getHandle(id).terminate('test: the run is over');

  // Its own namespace: the objects the first test left in bench-database must stay untouched.
  const NS2 = 'gc-cli';
  const spec = KubernetesTargetSpec.parse({ kind: 'kubernetes', kubeconfig, namespace: NS2 });
  const kube = kubeFor(spec);
  const otherPods = (await kube.core.listNamespacedPod({ namespace: 'bench-database' })).items.length;
  const names = (runId: string) => cellNames(runId, 'v26.7-zstd3');
  let first = true;
  for (const runId of [closedRun, openRun]) {
    const owner: TemporalOwner = {
      address: temporal.address,
      namespace: 'default',
      namespaceId: nsId,
      workflowId: `${runId}/v26.7-zstd3`,
      workflowRunId: 'r',
      matrixWorkflowId: runId,
    };
    const req = { runId, cellKey: 'v26.7-zstd3', version: '26.7', workDir: dir, owner };
    const objs = await renderCell(spec, req, names(runId));
    if (first) await kube.core.createNamespace({ body: objs.namespace as k8s.V1Namespace });
    first = false;
    await kube.core.createNamespacedPersistentVolumeClaim({
      namespace: NS2,
      body: objs.pvc as k8s.V1PersistentVolumeClaim,
    });
    await kube.core.createNamespacedPod({ namespace: NS2, body: objs.pod as k8s.V1Pod });
  }
  const c = names(closedRun);
  const o = names(openRun);

  const refused = await cli('gc', '--kubernetes', '--force', '--kubeconfig', kubeconfig);
  assert.equal(refused.code, 2, refused.stderr);
  assert.match(refused.stderr, /--force\/--force-unowned do not apply to --kubernetes/);
  const stray = await cli('gc', '--namespace', NS2);
  assert.equal(stray.code, 2, stray.stderr);
  assert.match(stray.stderr, /--namespace only apply with --kubernetes/);

  const dry = await cli('gc', '--kubernetes', '--dry-run', '--kubeconfig', kubeconfig, '--namespace', NS2);
  assert.equal(dry.code, 0, dry.stderr);
  const dryLines = dry.stdout.trim().split('\n').sort();
  assert.equal(dryLines.length, 4, dry.stdout);
  assert.match(dry.stdout, new RegExp(`^would delete ${closedRun}/v26.7-zstd3 Pod ${NS2}/${c.pod}: .*terminated`, 'm'));
  assert.match(
    dry.stdout,
    new RegExp(`^would delete ${closedRun}/v26.7-zstd3 PersistentVolumeClaim ${NS2}/${c.pvc}: `, 'm'),
  );
  assert.equal((await kube.core.listNamespacedPod({ namespace: NS2 })).items.length, 2, 'dry run deletes nothing');

  const run = await cli('gc', '--kubernetes', '--kubeconfig', kubeconfig, '--context', 'emulator', '--namespace', NS2);
  assert.equal(run.code, 0, run.stderr);
  const lines = run.stdout.trim().split('\n');
  assert.deepEqual(
    lines.map((l) => l.replace(/:.*/, '')),
    [
      `deleted ${closedRun}/v26.7-zstd3 Pod ${NS2}/${c.pod}`,
      `deleted ${closedRun}/v26.7-zstd3 PersistentVolumeClaim ${NS2}/${c.pvc}`,
      `kept ${openRun}/v26.7-zstd3 Pod ${NS2}/${o.pod}`,
      `kept ${openRun}/v26.7-zstd3 PersistentVolumeClaim ${NS2}/${o.pvc}`,
    ],
  );
  for (const l of lines.filter((x) => x.startsWith('kept'))) assert.match(l, /is running/);
  assert.deepEqual(
    (await kube.core.listNamespacedPod({ namespace: NS2 })).items.map((p) => p.metadata?.name),
    [o.pod],
  );
  assert.deepEqual(
    (await kube.core.listNamespacedPersistentVolumeClaim({ namespace: NS2 })).items.map((p) => p.metadata?.name),
    [o.pvc],
  );
  assert.equal((await kube.core.listNamespacedPod({ namespace: 'bench-database' })).items.length, otherPods);

  // A cluster that cannot be listed: exit 3 with the namespace named.
  const down = await cli('gc', '--kubernetes', '--kubeconfig', path.join(dir, 'no-such-kubeconfig'));
  assert.equal(down.code, 3, down.stderr);
  assert.match(down.stderr, /gc --kubernetes: cannot list pods and PVCs in namespace bench-database/);
  await conn.close();
});
