/**
 * `access: portForward` end to end on the simulated EKS (test/k8s/eks-sim.ts): the kubernetes target
 * provisions a cell whose handle names the pod IP, the worker's access registry maps it to a local
 * 127.0.0.1 forward through the API server's `pods/portforward` (WebSocket, client-node PortForward),
 * SQL runs through `connect(handle)` on the embedded engine in the pod, the forward follows the pod's
 * uid (a deleted pod's forward is closed, a re-created pod gets its own, the old handle reaches
 * nothing), and teardown leaves no pod, no PVC and no open forward.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { startEksSim, type EksSim } from '../k8s/eks-sim';
import { KubernetesTargetSpec } from '../../src/schema/run-spec';
import type { ProvisionRequest, TargetHandle } from '../../src/schema/target';
import { clearTargetAccess, connect, getTargetAccess, targetAccessKey, targetUrl } from '../../src/clickhouse/client';
import { portForward } from '../../src/targets/kubernetes/access';
import {
  forgetKubeClients,
  kubernetesTarget,
  openForwardCount,
  prepareKubernetes,
  resetAccess,
} from '../../src/targets/kubernetes';
import { kubeFor } from '../../src/targets/kubernetes/kube';
import { pollUntil } from '../../src/lib/poll';

const NS = 'bench-database';

/** `SELECT count()` of table `t` through `connect(handle)`, as a number. */
async function countT(h: TargetHandle): Promise<number> {
  const c = connect(h);
  try {
    const rs = await c.query({ query: 'SELECT count() AS n FROM t', format: 'JSONEachRow' });
    const rows = await rs.json<{ n: string | number }>();
    return Number(rows[0].n);
  } finally {
    await c.close();
  }
}

/** Resolves with the error code of a TCP connect to `url`'s host and port (`'connected'` when it connects). */
function tcpConnect(url: string): Promise<string> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const s = net.connect({ host: u.hostname, port: Number(u.port) });
    s.once('connect', () => {
      s.destroy();
      resolve('connected');
    });
    s.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
  });
}

describe('kubernetes target, access portForward, on the simulated EKS', { timeout: 240_000 }, () => {
  let sim: EksSim;
  let dir: string;
  before(async () => {
    sim = await startEksSim({ publishEveryMs: 0 });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'k8s-pf-'));
    forgetKubeClients();
    await resetAccess();
    clearTargetAccess();
  });
  after(async () => {
    await resetAccess();
    clearTargetAccess();
    forgetKubeClients();
    await sim?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('runs SQL through the forward, follows a re-created pod, refuses the stale handle, and teardown closes it', async () => {
    const spec = KubernetesTargetSpec.parse({
      kind: 'kubernetes',
      kubeconfig: sim.kubeconfigPath,
      access: 'portForward',
    });
    const req: ProvisionRequest = { runId: `pf-${Date.now()}`, cellKey: 'v26.7-lz4', version: '26.7', workDir: dir };
    const kube = kubeFor(spec);
    const forwarded = () => sim.cluster.emu.requestCount['portforward'] ?? 0;

    // Provision: the handle names the pod IP; this worker reaches it through a local forward.
    const h1 = await kubernetesTarget.provision(spec, req);
    const f1 = h1.kubernetes!;
    assert.equal(f1.access, 'portForward');
    assert.match(f1.podIP ?? '', /^127\.0\.\d+\.\d+$/);
    assert.notEqual(f1.podIP, '127.0.0.1');
    assert.equal(h1.url, `http://${f1.podIP}:8123`);
    const local1 = targetUrl(h1);
    assert.match(local1, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(openForwardCount(), 1);

    // SQL over HTTP through the forward, credentials from the Secret.
    const before1 = forwarded();
    const c = connect(h1);
    try {
      await c.command({ query: 'CREATE TABLE t (x UInt64) ENGINE = MergeTree ORDER BY x' });
      await c.command({ query: 'INSERT INTO t SELECT number FROM numbers(1000)' });
    } finally {
      await c.close();
    }
    assert.equal(await countT(h1), 1000);
    assert.ok(forwarded() > before1, `port-forward requests ${before1} → ${forwarded()}`);

    // The pod goes: its forward refuses the next connection, closes, and drops the registration.
    await kube.core.deleteNamespacedPod({ name: f1.pod, namespace: NS });
    await pollUntil(async () => (await kube.core.listNamespacedPod({ namespace: NS })).items.length === 0, {
      timeoutMs: 30_000,
      what: `pod ${f1.pod} gone`,
    });
    await assert.rejects(countT(h1));
    await pollUntil(async () => openForwardCount() === 0, { timeoutMs: 5_000, what: 'the forward closed' });
    assert.equal(getTargetAccess(targetAccessKey(h1)), undefined, 'registration of the gone pod cleared');
    assert.notEqual(await tcpConnect(local1), 'connected');
    await assert.rejects(prepareKubernetes(h1), /pod bench-database\/\S+ is gone/);

    // Re-provision: a new pod (new uid, possibly the same IP) on the same claim gets its own forward.
    const h2 = await kubernetesTarget.provision(spec, req);
    const f2 = h2.kubernetes!;
    assert.notEqual(f2.podUid, f1.podUid);
    assert.equal(f2.pvc, f1.pvc);
    const local2 = targetUrl(h2);
    assert.match(local2, /^http:\/\/127\.0\.0\.1:\d+$/);
    const before2 = forwarded();
    assert.equal(await countT(h2), 1000, 'the new pod serves the same volume');
    assert.ok(forwarded() > before2);

    // The old handle never reaches the new pod: no registration, no forward to open, check says why.
    assert.throws(() => connect(h1), /not loaded/);
    await assert.rejects(prepareKubernetes(h1), /was re-created/);
    const chk = await kubernetesTarget.check(h1);
    assert.equal(chk.reachable, false);
    assert.match(chk.error ?? '', /re-created/);
    assert.equal(openForwardCount(), 1);

    // Teardown: no pod, no PVC, the forward closed and its registration gone.
    await kubernetesTarget.teardown(h2);
    const sel = { namespace: NS, labelSelector: 'app.kubernetes.io/managed-by=chbench' };
    assert.equal((await kube.core.listNamespacedPod(sel)).items.length, 0);
    assert.equal((await kube.core.listNamespacedPersistentVolumeClaim(sel)).items.length, 0);
    assert.equal(openForwardCount(), 0);
    assert.equal(getTargetAccess(targetAccessKey(h2)), undefined);
    assert.equal(await tcpConnect(local2), 'ECONNREFUSED');
  });
  it('a connection the pod refuses ends at once on the local side (never waits for a request timeout)', async () => {
    const spec = KubernetesTargetSpec.parse({
      kind: 'kubernetes',
      kubeconfig: sim.kubeconfigPath,
      access: 'portForward',
    });
    const req: ProvisionRequest = {
      runId: `pf-refused-${Date.now()}`,
      cellKey: 'v26.7-lz4',
      version: '26.7',
      workDir: dir,
    };
    const h = await kubernetesTarget.provision(spec, req);
    try {
      // Port 9 is not listened on in the pod: the pod side refuses, the error channel says so.
      const fwd = await portForward(kubeFor(spec), NS, h.kubernetes!.pod, h.kubernetes!.podUid, 9);
      const u = new URL(fwd.url);
      const t0 = Date.now();
      const ended = await new Promise<string>((resolve) => {
        const s = net.connect({ host: u.hostname, port: Number(u.port) }, () =>
          s.write('GET /ping HTTP/1.1\r\nHost: x\r\n\r\n'),
        );
        s.on('data', () => undefined);
        s.on('error', () => undefined);
        s.on('close', () => resolve('closed'));
        setTimeout(() => resolve('still open after 10 s'), 10_000);
      });
      assert.equal(ended, 'closed');
      assert.ok(Date.now() - t0 < 10_000);
      await fwd.close();
    } finally {
      await kubernetesTarget.teardown(h);
    }
  });
});
