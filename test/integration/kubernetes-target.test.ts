/**
 * The `kubernetes` target against the Kubernetes API emulator and its simulated control plane
 * (test/k8s), over real HTTP with the real `@kubernetes/client-node`: provisioning and its facts,
 * idempotence after a worker kill at every stage, clear failures from events (image pull,
 * unschedulable, pending volume, name taken), a silent watch, eviction and re-provision on the same
 * volume, teardown. Each test starts and stops its own cluster on free loopback ports.
 */
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { ApplicationFailure } from '@temporalio/common';
import { SimCluster, type ClusterOptions, type ContainerContext, type ContainerHandle } from '../k8s/cluster';
import type { KObj } from '../k8s/emulator';
import { KubernetesTargetSpec, type KubernetesTargetSpec as Spec } from '../../src/schema/run-spec';
import type { ProvisionRequest, TargetHandle } from '../../src/schema/target';
import { FAILURE } from '../../src/schema/failures';
import { targetOf, capabilitiesOf } from '../../src/targets';
import {
  cellNames,
  forgetKubeClients,
  kubernetesTarget,
  provisionKubernetes,
  resetAccess,
} from '../../src/targets/kubernetes';
import { renderCell } from '../../src/targets/kubernetes/render';
import { watchTotals } from '../../src/targets/kubernetes/watch';
import { clearTargetAccess, connect } from '../../src/clickhouse/client';

const NS = 'bench-database';

/**
 * The container the simulated kubelet runs: a ClickHouse-like HTTP server on `<podIp>:8123` that
 * answers `/ping` and `SELECT version()` (in the POST body, as @clickhouse/client sends it, in
 * JSONCompact) with the image tag, and only for the user and password of the credentials Secret.
 */
function clickhouseLike(cluster: () => SimCluster, startDelayMs = () => 0) {
  return async (pod: KObj, podIp: string, ctx: ContainerContext): Promise<ContainerHandle> => {
    await new Promise((r) => setTimeout(r, startDelayMs()));
    const version = String(ctx.container.image ?? '').split(':')[1] ?? 'latest';
    const env = (ctx.container.env ?? []) as {
      name: string;
      valueFrom?: { secretKeyRef?: { name: string; key: string } };
    }[];
    const fromSecret = (n: string): string | undefined => {
      const ref = env.find((e) => e.name === n)?.valueFrom?.secretKeyRef;
      if (!ref) return undefined;
      const s = cluster().emu.tryGet('secrets', pod.metadata.namespace, ref.name) as
        { data?: Record<string, string>; stringData?: Record<string, string> } | undefined;
      const b64 = s?.data?.[ref.key];
      return b64 !== undefined ? Buffer.from(b64, 'base64').toString() : s?.stringData?.[ref.key];
    };
    const user = fromSecret('CLICKHOUSE_USER');
    const password = fromSecret('CLICKHOUSE_PASSWORD');
    const server = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/ping') return void res.end('Ok.\n');
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
        } else {
          res.statusCode = 400;
          res.end('Code: 62. DB::Exception: only SELECT version() here. (SYNTAX_ERROR)\n');
        }
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(8123, podIp, () => resolve());
    });
    ctx.log(`clickhouse-like ${version} on ${podIp}:8123\n`);
    let exit!: (e: { exitCode: number }) => void;
    const exited = new Promise<{ exitCode: number }>((r) => (exit = r));
    server.on('close', () => exit({ exitCode: 0 }));
    return {
      exited,
      stop: () =>
        new Promise<void>((r) => {
          server.closeAllConnections();
          server.close(() => r());
        }),
    };
  };
}

interface Env {
  cluster: SimCluster;
  dir: string;
  kubeconfig: string;
  core: k8s.CoreV1Api;
  storage: k8s.StorageV1Api;
  spec: (over?: Record<string, unknown>) => Spec;
  req: (cellKey?: string, runId?: string) => ProvisionRequest;
  pods: () => Promise<k8s.V1Pod[]>;
  pvcs: () => Promise<k8s.V1PersistentVolumeClaim[]>;
  close: () => Promise<void>;
}

/** Start delay of the next containers, ms (a slow server: Ready only after it). */
let startDelayMs = 0;

async function startEnv(opts: ClusterOptions = {}): Promise<Env> {
  startDelayMs = 0;
  let cluster: SimCluster | undefined = undefined;
  cluster = new SimCluster({
    runContainer: clickhouseLike(
      () => cluster!,
      () => startDelayMs,
    ),
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
  forgetKubeClients();
  await resetAccess();
  clearTargetAccess();
  return {
    cluster,
    dir,
    kubeconfig,
    core,
    storage,
    spec: (over = {}) =>
      KubernetesTargetSpec.parse({
        kind: 'kubernetes',
        kubeconfig,
        ...over,
        timeouts: {
          scheduleMs: 5000,
          pvcMs: 5000,
          readyMs: 20_000,
          watchSilenceMs: 2000,
          ...(over.timeouts as object),
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
      await resetAccess();
      await cluster.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The failure type of an ApplicationFailure (or undefined). */
const typeOf = (e: unknown) => (e instanceof ApplicationFailure ? e.type : undefined);

describe('kubernetes target', () => {
  let env: Env;
  beforeEach(async () => {
    env = await startEnv({
      nodes: [
        { name: 'node-a', zone: 'us-east-1a' },
        { name: 'node-b', zone: 'us-east-1b' },
      ],
    });
  });
  afterEach(async () => env.close());

  it('provisions a pod and a PVC per cell with their facts, answers check, tears down to nothing (twice)', async () => {
    const spec = env.spec();
    const h = await provisionKubernetes(spec, env.req());
    const f = h.kubernetes!;
    const names = cellNames('run-k8s-1', 'v26.7-lz4');
    assert.equal(h.kind, 'kubernetes');
    assert.equal(f.pod, names.pod);
    assert.match(f.pod, /^chb-v26-7-lz4-[0-9a-f]{8}$/);
    assert.equal(f.pvc, `${f.pod}-data`);
    assert.equal(f.node, 'node-a');
    assert.equal(f.zone, 'us-east-1a');
    assert.equal(f.instanceType, 'm5.xlarge');
    assert.match(f.providerID!, /^aws:\/\/\/us-east-1a\/i-[0-9a-f]{17}$/);
    assert.match(f.pv!, /^pvc-/);
    assert.match(f.volumeHandle!, /^vol-/);
    assert.equal(f.csiDriver, 'ebs.csi.aws.com');
    assert.match(f.podIP!, /^127\.0\.0\.\d+$/);
    assert.equal(h.url, `http://${f.podIP}:8123`);
    assert.equal(f.volume, 'new');
    assert.equal(f.server, 'clickhouse-server');
    assert.equal(f.storageRequest, '100Gi');
    assert.equal(h.username, 'chbench');
    assert.deepEqual(h.passwordSecret, { namespace: NS, name: 'chbench-clickhouse', key: 'password' });
    assert.ok(!JSON.stringify(h).includes('"password":"'), 'no password in the handle');
    assert.match(
      h.provisionedBy,
      /^pod bench-database\/chb-.* on node-a \(m5\.xlarge, us-east-1a\), PVC .*-data → vol-/,
    );

    // The pod is rendered from manifests/: labels, owner annotation, Secret env, resources.
    const pod = await env.core.readNamespacedPod({ name: f.pod, namespace: NS });
    assert.equal(pod.metadata?.labels?.['app.kubernetes.io/managed-by'], 'chbench');
    assert.equal(pod.metadata?.labels?.['chbench.io/cell'], 'v26.7-lz4');
    assert.equal(pod.metadata?.annotations?.['karpenter.sh/do-not-disrupt'], 'true');
    assert.equal(JSON.parse(pod.metadata!.annotations!['chbench.io/owner']).matrixWorkflowId, 'run-k8s-1');
    assert.equal(
      pod.spec?.containers[0].env?.find((e) => e.name === 'CLICKHOUSE_PASSWORD')?.valueFrom?.secretKeyRef?.name,
      'chbench-clickhouse',
    );
    assert.deepEqual(pod.spec?.containers[0].resources?.requests, { cpu: '2500m', memory: '9Gi' });
    const sc = await env.storage.readStorageClass({ name: 'bench-clickhouse-gp3' });
    assert.equal(sc.volumeBindingMode, 'WaitForFirstConsumer');

    // The Secret's password reaches the server (the container refuses anyone else).
    const c = await kubernetesTarget.check(h);
    assert.deepEqual(c, { reachable: true, version: '26.7' });
    assert.equal(capabilitiesOf(h).restartable, true);
    assert.equal(capabilitiesOf(h).onWorkerHost, false);
    assert.equal(targetOf(h), kubernetesTarget);

    const archive = path.join(env.dir, 'cell', 'server-log.jsonl');
    fs.mkdirSync(path.dirname(archive), { recursive: true });
    const source = await kubernetesTarget.archiveStatements(h, 'x', archive);
    assert.match(source, /pod log .*pod-chb-.*\.log/);
    assert.match(fs.readFileSync(path.join(env.dir, 'cell', `pod-${f.pod}.log`), 'utf8'), /clickhouse-like 26\.7/);

    assert.match(kubernetesTarget.describeTeardown(h), /reclaimPolicy Delete destroys the volume/);
    await kubernetesTarget.teardown(h);
    assert.equal((await env.pods()).length, 0);
    assert.equal((await env.pvcs()).length, 0);
    await kubernetesTarget.teardown(h); // nothing there: success
    assert.match(await kubernetesTarget.teardownCell(spec, env.req()), /deleted pod/);
    assert.deepEqual(env.cluster.volumes.deleted, [f.volumeHandle]);
  });

  // What a worker killed after each stage leaves behind, then a fresh provision: one pod, one PVC.
  const stages = ['namespace', 'storageclass', 'secret', 'pvc', 'pod created', 'ready'] as const;
  for (const stage of stages)
    it(`adopts what a worker killed after "${stage}" left: one pod, one PVC`, async () => {
      const spec = env.spec();
      const req = env.req();
      const names = cellNames(req.runId, req.cellKey);
      const objs = await renderCell(spec, req, names);
      let firstUid: string | undefined;
      if (stage === 'ready') firstUid = (await provisionKubernetes(spec, req)).kubernetes!.podUid;
      else {
        const upto = stages.indexOf(stage);
        await env.core.createNamespace({ body: objs.namespace as k8s.V1Namespace });
        if (upto >= 1)
          await env.storage.createStorageClass({ body: objs.storageClass as unknown as k8s.V1StorageClass });
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
            body: objs.pvc as k8s.V1PersistentVolumeClaim,
          });
        if (upto >= 4)
          firstUid = (await env.core.createNamespacedPod({ namespace: NS, body: objs.pod as k8s.V1Pod })).metadata?.uid;
        await resetAccess(); // a new worker process: nothing cached
      }
      const h = await provisionKubernetes(spec, req);
      assert.equal((await env.pods()).length, 1);
      assert.equal((await env.pvcs()).length, 1);
      if (firstUid) assert.equal(h.kubernetes!.podUid, firstUid, 'the pod was adopted, not re-created');
      if (stage !== 'ready' && stages.indexOf(stage) >= 4) assert.match(h.provisionedBy, /\(adopted\)/);
      assert.deepEqual(await kubernetesTarget.check(h), { reachable: true, version: '26.7' });
      await kubernetesTarget.teardown(h);
    });

  it("refuses a PVC or pod of another run that has the cell's name", async () => {
    const spec = env.spec();
    const req = env.req();
    const names = cellNames(req.runId, req.cellKey);
    const other = await renderCell(spec, { ...req, runId: 'someone-else' }, names);
    await env.core.createNamespace({ body: other.namespace as k8s.V1Namespace });
    await env.core.createNamespacedPersistentVolumeClaim({
      namespace: NS,
      body: other.pvc as k8s.V1PersistentVolumeClaim,
    });
    await assert.rejects(provisionKubernetes(spec, req), (e: unknown) => {
      assert.equal(typeOf(e), FAILURE.ResourceConflict);
      assert.equal((e as ApplicationFailure).nonRetryable, true);
      assert.match((e as Error).message, /PVC bench-database\/chb-.*-data exists and belongs to run someone-else/);
      return true;
    });
    await env.core.deleteNamespacedPersistentVolumeClaim({ name: names.pvc, namespace: NS });
    await env.core.createNamespacedPod({ namespace: NS, body: other.pod as k8s.V1Pod });
    await assert.rejects(
      provisionKubernetes(spec, req),
      /pod bench-database\/chb-.* exists and belongs to run someone-else/,
    );
  });

  it('an unknown image fails at once: ImagePull, non-retryable, with the event text and the image', async () => {
    const spec = env.spec({ images: { '26.7': 'clickhouse/clickhouse-server:99.1' } });
    await assert.rejects(provisionKubernetes(spec, env.req()), (e: unknown) => {
      assert.equal(typeOf(e), FAILURE.ImagePull);
      assert.equal((e as ApplicationFailure).nonRetryable, true);
      assert.match((e as Error).message, /clickhouse\/clickhouse-server:99\.1/);
      assert.match((e as Error).message, /Failed to pull image/);
      return true;
    });
  });

  it('an unknown node selector: Unschedulable with the scheduler text after scheduleMs', async () => {
    const spec = env.spec({ nodeSelector: { 'chbench.io/pool': 'nowhere' }, timeouts: { scheduleMs: 600 } });
    const t0 = Date.now();
    await assert.rejects(provisionKubernetes(spec, env.req()), (e: unknown) => {
      assert.equal(typeOf(e), FAILURE.Unschedulable);
      assert.equal((e as ApplicationFailure).nonRetryable, true);
      assert.match((e as Error).message, /0\/2 nodes are available/);
      return true;
    });
    assert.ok(Date.now() - t0 >= 600);
  });

  it('a PVC on a missing StorageClass: VolumePending saying why', async () => {
    const spec = env.spec({
      storageClass: { name: 'no-such-class', create: false },
      timeouts: { pvcMs: 800, scheduleMs: 60_000 },
    });
    await assert.rejects(provisionKubernetes(spec, env.req()), (e: unknown) => {
      assert.equal(typeOf(e), FAILURE.VolumePending);
      assert.match(
        (e as Error).message,
        /still Pending after 800 ms: StorageClass no-such-class does not exist \(target\.storageClass\.create is false\)/,
      );
      return true;
    });
  });

  it('a silent watch is noticed and re-listed; provisioning still completes', async () => {
    // Every pod watch stays open and sends nothing; the server becomes Ready only after 1.2 s.
    env.cluster.emu.silenceWatches('pods');
    startDelayMs = 1200;
    const before = watchTotals.silentWatches;
    const spec = env.spec({ timeouts: { watchSilenceMs: 300 } });
    const h = await provisionKubernetes(spec, env.req());
    assert.ok(h.kubernetes!.podIP);
    // Only a re-list after a watch was found silent could see the pod Ready.
    assert.ok(watchTotals.silentWatches - before >= 2, `silent watches noticed: ${watchTotals.silentWatches - before}`);
    assert.equal((await env.pods()).length, 1);
  });

  it('an evicted pod is lost for check(); provisioning again lands on the same volume in its zone', async () => {
    const spec = env.spec();
    const req = env.req();
    const h = await provisionKubernetes(spec, req);
    await env.cluster.evict(NS, h.kubernetes!.pod);
    const c = await kubernetesTarget.check(h);
    assert.equal(c.reachable, false);
    assert.match(c.error!, /Evicted/);
    // A statement through the old handle fails as a lost server (the restart path's signal).
    await kubernetesTarget.prepare!(h);
    const client = connect(h);
    await assert.rejects(client.query({ query: 'SELECT version()' }), /ECONNREFUSED|socket hang up|ECONNRESET/);
    await client.close();

    const h2 = await provisionKubernetes(spec, req);
    const f = h2.kubernetes!;
    assert.notEqual(f.podUid, h.kubernetes!.podUid);
    assert.equal(f.volume, 'reused');
    assert.equal(f.volumeHandle, h.kubernetes!.volumeHandle);
    assert.equal(f.zone, h.kubernetes!.zone);
    assert.match(h2.provisionedBy, /re-created: the earlier pod was Failed \(Evicted\)/);
    const pod = await env.core.readNamespacedPod({ name: f.pod, namespace: NS });
    const expr =
      pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms[0]
        .matchExpressions?.[0];
    assert.deepEqual({ ...expr }, { key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-east-1a'] });
    assert.deepEqual(await kubernetesTarget.check(h2), { reachable: true, version: '26.7' });
    // The old handle stays lost (another pod uid).
    assert.match((await kubernetesTarget.check(h)).error!, /re-created/);
  });

  it('a restarted container (OOMKilled) makes the handle lost', async () => {
    const h = await provisionKubernetes(env.spec(), env.req());
    await env.cluster.oomKill(NS, h.kubernetes!.pod);
    let c = await kubernetesTarget.check(h);
    for (let i = 0; i < 50 && c.reachable; i++) {
      await new Promise((r) => setTimeout(r, 100));
      c = await kubernetesTarget.check(h);
    }
    assert.equal(c.reachable, false);
    assert.match(c.error!, /restarted|not Ready/);
  });
});

// Keep the handle type in use for readers of the test (what provision returns).
export type { TargetHandle };
