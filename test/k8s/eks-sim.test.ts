/**
 * The simulated EKS (test/k8s/eks-sim.ts) against real clients: `@kubernetes/client-node` 1.4.0 on
 * the emulator, the AWS SDK on a real moto server, HTTP to the real embedded-engine processes the
 * simulated kubelet runs. One simulated cluster for the whole file; the steps build on each other
 * (article's StorageClass, Secret, PVC and pod → volume/instance facts → SQL → metrics → pod
 * deletion → a second pod on the same claim → port-forward → PVC deletion). The simulated kubelet's
 * pod cgroups (as root, cgroup v1): the pod's process in `…/kubepods/pod<uid>/<container>` with its
 * CFS quota, the node's cAdvisor metrics through the node proxy (client-node and
 * `kubectl get --raw`) equal to the cgroup's kernel counters, and the cgroup removed when the pod is
 * deleted, evicted, its node is lost, and when the cluster stops.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { GetMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { DescribeInstancesCommand, DescribeVolumesCommand } from '@aws-sdk/client-ec2';
import { pollUntil } from '../../src/lib/poll';
import { startEksSim, type EksSim } from './eks-sim';
import { parsePrometheusText, podCountersOf } from '../../src/targets/kubernetes/cadvisor';

const NS = 'bench-database';
const USER = 'bench';
const PASSWORD = 'p4ss-from-secret';
const b64 = (s: string) => Buffer.from(s).toString('base64');

/** The article's StorageClass (manifests/storageclass.yaml), as a plain object. */
const storageClass = {
  apiVersion: 'storage.k8s.io/v1',
  kind: 'StorageClass',
  metadata: { name: 'bench-clickhouse-gp3' },
  provisioner: 'ebs.csi.aws.com',
  parameters: { type: 'gp3', encrypted: 'true', iops: '3000', throughput: '125' },
  volumeBindingMode: 'WaitForFirstConsumer',
  reclaimPolicy: 'Delete',
};

/** A pod like manifests/pod.yaml, with credentials from the Secret. */
function clickhousePod(name: string, image = 'clickhouse/clickhouse-server:26.7', claim?: string): k8s.V1Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: NS,
      labels: { 'app.kubernetes.io/name': 'clickhouse' },
      annotations: { 'karpenter.sh/do-not-disrupt': 'true' },
    },
    spec: {
      nodeSelector: { 'node.kubernetes.io/instance-type': 'm5.xlarge' },
      terminationGracePeriodSeconds: 10,
      containers: [
        {
          name: 'clickhouse',
          image,
          ports: [{ containerPort: 8123, name: 'http' }],
          env: [
            { name: 'CLICKHOUSE_USER', valueFrom: { secretKeyRef: { name: 'clickhouse-credentials', key: 'user' } } },
            {
              name: 'CLICKHOUSE_PASSWORD',
              valueFrom: { secretKeyRef: { name: 'clickhouse-credentials', key: 'password' } },
            },
          ],
          ...(claim
            ? {
                resources: { requests: { cpu: '2500m', memory: '9Gi' }, limits: { cpu: '3500m', memory: '12Gi' } },
                volumeMounts: [{ name: 'data', mountPath: '/var/lib/clickhouse' }],
              }
            : {}),
          readinessProbe: {
            exec: { command: ['clickhouse-client', '--host', '127.0.0.1', '--query', 'SELECT 1'] },
            initialDelaySeconds: 5,
            periodSeconds: 5,
          },
        },
      ],
      ...(claim ? { volumes: [{ name: 'data', persistentVolumeClaim: { claimName: claim } }] } : {}),
    },
  };
}

/** POSTs SQL to a ClickHouse HTTP endpoint with basic auth. */
async function query(base: string, sql: string, password = PASSWORD): Promise<{ status: number; text: string }> {
  const r = await fetch(base, {
    method: 'POST',
    body: sql,
    headers: { Authorization: `Basic ${b64(`${USER}:${password}`)}` },
  });
  return { status: r.status, text: await r.text() };
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('simulated EKS: emulator + moto + embedded-engine pods', { timeout: 120_000 }, () => {
  let sim: EksSim;
  let core: k8s.CoreV1Api;
  let storage: k8s.StorageV1Api;
  let kc: k8s.KubeConfig;
  const startedAt = new Date();
  let podIp = '';
  let pid = 0;
  let volumeId = '';
  let podUid = '';
  /** A pod's cgroup directory in the cpuacct hierarchy (the kubelet's), or '' without pod cgroups. */
  const podCgroup = (uid: string) => sim.cluster.cgroups?.podDir('cpuacct', uid) ?? '';

  const waitReady = (name: string) =>
    pollUntil(
      async () => {
        const p = await core.readNamespacedPod({ name, namespace: NS });
        const ready = p.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
        return ready && p;
      },
      { timeoutMs: 30_000, what: `pod ${name} Ready` },
    );

  /** Data points of VolumeWriteBytes for the volume since the suite started (SampleCount, summed over minutes). */
  const writeSamples = async (): Promise<number> => {
    const minute = 60_000;
    const r = await sim.moto.cloudwatch.send(
      new GetMetricDataCommand({
        StartTime: new Date(Math.floor(startedAt.getTime() / minute) * minute),
        EndTime: new Date(Math.ceil((Date.now() + 1) / minute) * minute + minute),
        MetricDataQueries: [
          {
            Id: 'n',
            MetricStat: {
              Metric: {
                Namespace: 'AWS/EBS',
                MetricName: 'VolumeWriteBytes',
                Dimensions: [{ Name: 'VolumeId', Value: volumeId }],
              },
              Period: 60,
              Stat: 'SampleCount',
            },
          },
        ],
      }),
    );
    return (r.MetricDataResults?.[0]?.Values ?? []).reduce((a, b) => a + b, 0);
  };

  before(async () => {
    sim = await startEksSim({ publishEveryMs: 0 });
    kc = new k8s.KubeConfig();
    kc.loadFromFile(sim.kubeconfigPath);
    core = kc.makeApiClient(k8s.CoreV1Api);
    storage = kc.makeApiClient(k8s.StorageV1Api);
  });
  after(async () => {
    await sim?.stop();
  });

  it('brings the article pod to Ready on a gp3 volume created in moto, on a moto m5.xlarge instance', async () => {
    await core.createNamespace({ body: { metadata: { name: NS } } });
    await storage.createStorageClass({ body: storageClass });
    await core.createNamespacedSecret({
      namespace: NS,
      body: {
        metadata: { name: 'clickhouse-credentials' },
        type: 'Opaque',
        data: { user: b64(USER), password: b64(PASSWORD) },
      },
    });
    await core.createNamespacedPersistentVolumeClaim({
      namespace: NS,
      body: {
        metadata: { name: 'clickhouse-data' },
        spec: {
          accessModes: ['ReadWriteOnce'],
          storageClassName: 'bench-clickhouse-gp3',
          resources: { requests: { storage: '100Gi' } },
        },
      },
    });
    await core.createNamespacedPod({ namespace: NS, body: clickhousePod('clickhouse', undefined, 'clickhouse-data') });
    const pod = await waitReady('clickhouse');
    podIp = pod.status!.podIP!;
    assert.match(podIp, /^127\.\d+\.\d+\.\d+$/);
    assert.notEqual(podIp, '127.0.0.1');

    const pvc = await core.readNamespacedPersistentVolumeClaim({ name: 'clickhouse-data', namespace: NS });
    const pv = await core.readPersistentVolume({ name: pvc.spec!.volumeName! });
    volumeId = pv.spec!.csi!.volumeHandle;
    assert.match(volumeId, /^vol-[0-9a-f]+$/);
    const vols = await sim.moto.ec2.send(new DescribeVolumesCommand({ VolumeIds: [volumeId] }));
    const v = vols.Volumes![0];
    assert.deepEqual(
      {
        type: v.VolumeType,
        iops: v.Iops,
        throughput: v.Throughput,
        size: v.Size,
        zone: v.AvailabilityZone,
        encrypted: v.Encrypted,
      },
      { type: 'gp3', iops: 3000, throughput: 125, size: 100, zone: 'us-east-1a', encrypted: true },
    );
    const tags = Object.fromEntries((v.Tags ?? []).map((t) => [t.Key, t.Value]));
    assert.equal(tags['kubernetes.io/created-for/pv/name'], pv.metadata!.name);
    assert.equal(tags['kubernetes.io/created-for/pvc/name'], 'clickhouse-data');

    const node = await core.readNode({ name: pod.spec!.nodeName! });
    const m = /^aws:\/\/\/(us-east-1a)\/(i-[0-9a-f]+)$/.exec(node.spec!.providerID!);
    assert.ok(m, node.spec!.providerID);
    assert.equal(m[2], sim.nodes[0].instanceId);
    const inst = await sim.moto.ec2.send(new DescribeInstancesCommand({ InstanceIds: [m[2]] }));
    const i = inst.Reservations![0].Instances![0];
    assert.equal(i.InstanceType, 'm5.xlarge');
    assert.equal(i.Placement?.AvailabilityZone, 'us-east-1a');
    assert.equal(i.Monitoring?.State, 'enabled');
  });

  it('serves SQL on the pod IP with the Secret credentials only (516 otherwise), as the engine version', async () => {
    const base = `http://${podIp}:8123/`;
    const v = await query(base, 'SELECT version()');
    assert.equal(v.status, 200, v.text);
    assert.match(v.text.trim(), /^26\.7\./);
    assert.ok(v.text.trim().startsWith(sim.engineVersion.split('.').slice(0, 2).join('.')));
    const bad = await query(base, 'SELECT 1', 'wrong');
    assert.equal(bad.status, 403);
    assert.match(bad.text, /^Code: 516\. DB::Exception: bench: Authentication failed: .*\(AUTHENTICATION_FAILED\)/);
    const ping = await fetch(`${base}ping`);
    assert.equal(ping.status, 200);
    // The other ways ClickHouse accepts credentials: X-ClickHouse-User/Key headers, user/password parameters.
    const viaHeaders = await fetch(`${base}?query=SELECT%202`, {
      headers: { 'X-ClickHouse-User': USER, 'X-ClickHouse-Key': PASSWORD },
    });
    assert.equal((await viaHeaders.text()).trim(), '2');
    const viaParams = await fetch(`${base}?query=SELECT%203&user=${USER}&password=${encodeURIComponent(PASSWORD)}`);
    assert.equal((await viaParams.text()).trim(), '3');
    const anonymous = await fetch(`${base}?query=SELECT%204`);
    assert.equal(anonymous.status, 403);
    assert.match(await anonymous.text(), /^Code: 516\. DB::Exception: default: Authentication failed/);
  });

  it('publishes the process I/O and CPU as AWS/EBS and AWS/EC2 metrics readable with GetMetricData', async () => {
    const base = `http://${podIp}:8123/`;
    const ddl = await query(base, 'CREATE TABLE t (n UInt64, s String) ENGINE = MergeTree ORDER BY n');
    assert.equal(ddl.status, 200, ddl.text);
    const ins = await query(base, 'INSERT INTO t SELECT number, toString(sipHash64(number)) FROM numbers(1000000)');
    assert.equal(ins.status, 200, ins.text);
    const running = sim.cluster.running().find((c) => c.pod === 'clickhouse');
    assert.ok(running?.pid);
    pid = running.pid;
    const sent = await sim.publishNow();
    const names = new Set(sent.map((s) => `${s.namespace} ${s.metric}`));
    for (const absent of ['VolumeQueueLength', 'VolumeIdleTime', 'BurstBalance', 'EBSByteBalance%', 'EBSIOBalance%'])
      assert.ok(![...names].some((n) => n.endsWith(` ${absent}`)), `${absent} must not be published`);

    const minute = 60_000;
    const start = new Date(Math.floor(startedAt.getTime() / minute) * minute);
    const end = new Date(Math.ceil((Date.now() + 1) / minute) * minute + minute);
    const instanceId = sim.nodes[0].instanceId;
    const stat = (id: string, ns: string, metric: string, dim: string, value: string) => ({
      Id: id,
      MetricStat: {
        Metric: { Namespace: ns, MetricName: metric, Dimensions: [{ Name: dim, Value: value }] },
        Period: 60,
        Stat: 'Sum',
      },
    });
    const r = await sim.moto.cloudwatch.send(
      new GetMetricDataCommand({
        StartTime: start,
        EndTime: end,
        MetricDataQueries: [
          stat('wb', 'AWS/EBS', 'VolumeWriteBytes', 'VolumeId', volumeId),
          stat('wo', 'AWS/EBS', 'VolumeWriteOps', 'VolumeId', volumeId),
          stat('cpu', 'AWS/EC2', 'CPUUtilization', 'InstanceId', instanceId),
          stat('ebsw', 'AWS/EC2', 'EBSWriteBytes', 'InstanceId', instanceId),
          stat('q', 'AWS/EBS', 'VolumeQueueLength', 'VolumeId', volumeId),
        ],
      }),
    );
    const total = (id: string) =>
      (r.MetricDataResults ?? []).find((x) => x.Id === id)?.Values?.reduce((a, b) => a + b, 0) ?? 0;
    assert.ok(total('wb') > 1_000_000, `VolumeWriteBytes ${total('wb')}`);
    assert.ok(total('wo') > 0, `VolumeWriteOps ${total('wo')}`);
    assert.ok(total('cpu') > 0, `CPUUtilization ${total('cpu')}`);
    assert.equal(total('ebsw'), total('wb'));
    assert.deepEqual((r.MetricDataResults ?? []).find((x) => x.Id === 'q')?.Values ?? [], []);
  });

  it("puts the pod's process in its cgroup and serves the cgroup's kernel counters as cAdvisor metrics through the node proxy", async (t) => {
    const cg = sim.cluster.cgroups;
    if (!cg) return t.skip(`pods run without cgroups here: ${sim.cluster.cgroupsOff}`);
    const p = await core.readNamespacedPod({ name: 'clickhouse', namespace: NS });
    podUid = p.metadata!.uid!;
    const node = p.spec!.nodeName!;
    const dir = (c: 'cpu' | 'cpuacct' | 'blkio') => cg.containerDir(c, podUid, 'clickhouse')!;
    for (const c of ['cpu', 'cpuacct', 'blkio'] as const)
      assert.ok(
        fs
          .readFileSync(path.join(dir(c), 'cgroup.procs'), 'utf8')
          .split('\n')
          .includes(String(pid)),
        `pid ${pid} in ${dir(c)}`,
      );
    assert.equal(
      fs.readFileSync(path.join(dir('cpu'), 'cpu.cfs_quota_us'), 'utf8').trim(),
      '350000',
      'limits.cpu 3500m as a CFS quota',
    );
    const usage = () => Number(fs.readFileSync(path.join(dir('cpuacct'), 'cpuacct.usage'), 'utf8'));
    const bytes = (op: string) =>
      fs
        .readFileSync(path.join(dir('blkio'), 'blkio.throttle.io_service_bytes'), 'utf8')
        .split('\n')
        .filter((l) => l.split(' ')[1] === op)
        .reduce((a, l) => a + Number(l.split(' ')[2]), 0);
    // client-node, as the kubernetes target reads it; the counters are the kernel's at request time.
    const before = { cpu: usage(), r: bytes('Read'), w: bytes('Write') };
    const text = await core.connectGetNodeProxyWithPath({ name: node, path: 'metrics/cadvisor' });
    const after = { cpu: usage(), r: bytes('Read'), w: bytes('Write') };
    const c = podCountersOf(parsePrometheusText(text), NS, 'clickhouse');
    const within = (x: number, a: number, b: number, what: string) =>
      assert.ok(x >= a && x <= b, `${a} ≤ ${x} ≤ ${b} (${what})`);
    within(c.cpuNs, before.cpu - 1, after.cpu + 1, 'cpuacct.usage (seconds in the exposition: ±1 ns)');
    within(c.readBytes, before.r, after.r, 'blkio.throttle.io_service_bytes Read');
    within(c.writeBytes, before.w, after.w, 'blkio.throttle.io_service_bytes Write');
    assert.ok(c.cpuNs > 0.1e9, 'the INSERT and the engine start used CPU in the cgroup');
    assert.equal(c.machineCores, os.availableParallelism());
    assert.ok(
      c.statsAtMs !== null && Math.abs(c.statsAtMs - Date.now()) < 5000,
      'each series carries its reading time',
    );
    // kubectl, through the same path.
    const raw = await new Promise<{ code: number; out: string; err: string }>((resolve) =>
      execFile(
        '/usr/bin/kubectl',
        ['--kubeconfig', sim.kubeconfigPath, 'get', '--raw', `/api/v1/nodes/${node}/proxy/metrics/cadvisor`],
        { timeout: 20_000, env: { ...process.env, HOME: sim.rootDir } },
        (err, out, e) => resolve({ code: err ? Number(err.code ?? 1) : 0, out, err: e }),
      ),
    );
    assert.equal(raw.code, 0, raw.err);
    assert.match(raw.out, /^# TYPE container_cpu_usage_seconds_total counter$/m);
    assert.match(
      raw.out,
      new RegExp(
        `^container_cpu_usage_seconds_total\\{container="clickhouse",cpu="total",id="/${cg.name}/kubepods/pod${podUid}/[0-9a-f]{12}",.*namespace="${NS}",pod="clickhouse"\\} \\S+ \\d{13}$`,
        'm',
      ),
    );
    assert.match(raw.out, /^container_fs_reads_bytes_total\{container="clickhouse",device="\/dev\/[^"]+",/m);
    // Not the kubelet's: a 404 from it, and 404 for a node that does not exist.
    await assert.rejects(
      core.connectGetNodeProxyWithPath({ name: node, path: 'metrics/absent' }),
      (e: { code?: number }) => e.code === 404,
    );
    await assert.rejects(
      core.connectGetNodeProxyWithPath({ name: 'no-such-node', path: 'metrics/cadvisor' }),
      (e: { code?: number }) => e.code === 404,
    );
  });

  it('port-forwards through the API server (client-node PortForward) to the pod', async () => {
    const pf = new k8s.PortForward(kc);
    const server = net.createServer((socket) => {
      pf.portForward(NS, 'clickhouse', [8123], socket, null, socket).catch(() => socket.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    try {
      const port = (server.address() as net.AddressInfo).port;
      const r = await query(`http://127.0.0.1:${port}/`, 'SELECT count() FROM t');
      assert.equal(r.status, 200, r.text);
      assert.equal(r.text.trim(), '1000000');
      assert.ok((sim.cluster.emu.requestCount['portforward'] ?? 0) >= 1);
      // kubectl port-forward speaks SPDY: refused with a clear message (a documented limit of the emulator).
      const k = await new Promise<{ code: number; stderr: string }>((resolve) =>
        execFile(
          '/usr/bin/kubectl',
          ['--kubeconfig', sim.kubeconfigPath, '-n', NS, 'port-forward', 'pod/clickhouse', '0:8123'],
          { timeout: 20_000, env: { ...process.env, HOME: sim.rootDir } },
          (err, _out, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stderr }),
        ),
      );
      assert.notEqual(k.code, 0);
      assert.match(k.stderr, /not supported by this emulator/);
    } finally {
      server.close();
    }
  });

  it('stops the process of a deleted pod (after a last metrics sample); a new pod on the same claim sees the table', async () => {
    assert.ok(alive(pid));
    const samplesBefore = await writeSamples();
    assert.ok(samplesBefore >= 1);
    await core.deleteNamespacedPod({ name: 'clickhouse', namespace: NS });
    await pollUntil(
      async () => {
        const pods = await core.listNamespacedPod({ namespace: NS, fieldSelector: 'metadata.name=clickhouse' });
        return pods.items.length === 0 && !alive(pid);
      },
      { timeoutMs: 20_000, what: 'pod clickhouse gone and its process ended' },
    );
    if (podUid) assert.equal(fs.existsSync(podCgroup(podUid)), false, "the deleted pod's cgroup is removed");
    assert.equal(await writeSamples(), samplesBefore + 1, 'one last sample published when the container stopped');
    await core.createNamespacedPod({
      namespace: NS,
      body: clickhousePod('clickhouse-2', undefined, 'clickhouse-data'),
    });
    const pod = await waitReady('clickhouse-2');
    const r = await query(`http://${pod.status!.podIP}:8123/`, 'SELECT count() FROM t');
    assert.equal(r.status, 200, r.text);
    assert.equal(r.text.trim(), '1000000');
  });

  it('stops the process of an evicted pod', async () => {
    await core.createNamespacedPod({ namespace: NS, body: clickhousePod('evictee') });
    await waitReady('evictee');
    const evictee = sim.cluster.running().find((c) => c.pod === 'evictee');
    assert.ok(evictee?.pid && alive(evictee.pid));
    const evicteeCgroup = podCgroup(evictee.uid);
    if (evicteeCgroup) assert.ok(fs.existsSync(evicteeCgroup));
    await sim.cluster.evict(NS, 'evictee');
    assert.equal(alive(evictee.pid), false);
    if (evicteeCgroup) assert.equal(fs.existsSync(evicteeCgroup), false, "the evicted pod's cgroup is removed");
    const p = await core.readNamespacedPod({ name: 'evictee', namespace: NS });
    assert.equal(p.status?.reason, 'Evicted');
    await core.deleteNamespacedPod({ name: 'evictee', namespace: NS });
  });

  it('fails a version the engine cannot be, and a missing Secret, with clear container logs', async () => {
    await core.createNamespacedPod({
      namespace: NS,
      body: clickhousePod('old-version', 'clickhouse/clickhouse-server:24.8'),
    });
    const noSecret = clickhousePod('no-secret');
    noSecret.spec!.containers[0].env![1].valueFrom!.secretKeyRef!.name = 'absent';
    await core.createNamespacedPod({ namespace: NS, body: noSecret });
    const logOf = (name: string) =>
      pollUntil(
        async () => {
          const p = await core.readNamespacedPod({ name, namespace: NS });
          const restarts = p.status?.containerStatuses?.[0]?.restartCount ?? 0;
          return restarts >= 1 && (await core.readNamespacedPodLog({ name, namespace: NS }));
        },
        { timeoutMs: 20_000, what: `pod ${name} restarted` },
      );
    assert.match(
      await logOf('old-version'),
      /asks for ClickHouse 24\.8, but .* runs .*ClickHouse 26\.7\..*exit code 1/,
    );
    assert.match(await logOf('no-secret'), /CreateContainerConfigError: secret "absent" not found/);
    for (const name of ['old-version', 'no-secret']) await core.deleteNamespacedPod({ name, namespace: NS });
  });

  it('deletes the moto volume when the claim goes (reclaimPolicy Delete)', async () => {
    assert.ok(fs.existsSync(path.join(sim.rootDir, 'volumes', volumeId, 'data')));
    await core.deleteNamespacedPod({ name: 'clickhouse-2', namespace: NS });
    await core.deleteNamespacedPersistentVolumeClaim({ name: 'clickhouse-data', namespace: NS });
    await pollUntil(
      async () => {
        const r = await sim.moto.ec2.send(new DescribeVolumesCommand({ VolumeIds: [volumeId] })).catch((e) => e);
        return r instanceof Error && r.name === 'InvalidVolume.NotFound';
      },
      { timeoutMs: 20_000, what: `moto volume ${volumeId} deleted` },
    );
    const pvs = await core.listPersistentVolume();
    assert.equal(pvs.items.length, 0);
    assert.equal(fs.existsSync(path.join(sim.rootDir, 'volumes', volumeId)), false, 'the data went with the volume');
  });

  it("removes a lost node's pod cgroups (its processes end, the node proxy answers 503), and every cgroup when the cluster stops", async (t) => {
    const cg = sim.cluster.cgroups;
    if (!cg) return t.skip(`pods run without cgroups here: ${sim.cluster.cgroupsOff}`);
    await core.createNamespacedPod({ namespace: NS, body: clickhousePod('doomed') });
    const p = await waitReady('doomed');
    const doomed = sim.cluster.running().find((c) => c.pod === 'doomed')!;
    assert.ok(fs.existsSync(podCgroup(doomed.uid)));
    await sim.cluster.loseNode(p.spec!.nodeName!);
    assert.equal(alive(doomed.pid!), false);
    assert.equal(fs.existsSync(podCgroup(doomed.uid)), false, "the lost node's pod cgroup is removed");
    await assert.rejects(
      core.connectGetNodeProxyWithPath({ name: p.spec!.nodeName!, path: 'metrics/cadvisor' }),
      (e: { code?: number }) => e.code === 503,
    );
    const node = await core.readNode({ name: p.spec!.nodeName! });
    assert.equal(node.status?.conditions?.find((c) => c.type === 'Ready')?.status, 'Unknown');
    await sim.stop();
    assert.deepEqual(cg.existing(), [], 'no cgroup of the cluster is left');
  });
});

describe('simulated EKS: configurable nodes and the periodic publisher', { timeout: 60_000 }, () => {
  it('creates one moto instance per node in its zone and publishes each node on the timer', async () => {
    const sim = await startEksSim({
      publishEveryMs: 200,
      nodes: [
        { name: 'ip-10-0-1-10.ec2.internal', zone: 'us-east-1a' },
        { name: 'ip-10-0-2-20.ec2.internal', zone: 'us-east-1b', instanceType: 'm5.2xlarge' },
      ],
    });
    try {
      assert.deepEqual(
        sim.nodes.map((n) => [n.zone, n.instanceType, n.vcpus]),
        [
          ['us-east-1a', 'm5.xlarge', 4],
          ['us-east-1b', 'm5.2xlarge', 8],
        ],
      );
      const r = await sim.moto.ec2.send(
        new DescribeInstancesCommand({ InstanceIds: sim.nodes.map((n) => n.instanceId) }),
      );
      const byId = new Map(
        (r.Reservations ?? []).flatMap((x) => x.Instances ?? []).map((i) => [i.InstanceId, i] as const),
      );
      for (const n of sim.nodes) {
        assert.equal(byId.get(n.instanceId)?.Placement?.AvailabilityZone, n.zone);
        assert.equal(byId.get(n.instanceId)?.InstanceType, n.instanceType);
      }
      const minute = 60_000;
      const start = new Date(Math.floor(Date.now() / minute) * minute - minute);
      await pollUntil(
        async () => {
          const m = await sim.moto.cloudwatch.send(
            new GetMetricDataCommand({
              StartTime: start,
              EndTime: new Date(Math.ceil((Date.now() + 1) / minute) * minute + minute),
              MetricDataQueries: sim.nodes.map((n, i) => ({
                Id: `n${i}`,
                MetricStat: {
                  Metric: {
                    Namespace: 'AWS/EC2',
                    MetricName: 'CPUUtilization',
                    Dimensions: [{ Name: 'InstanceId', Value: n.instanceId }],
                  },
                  Period: 60,
                  Stat: 'SampleCount',
                },
              })),
            }),
          );
          return (m.MetricDataResults ?? []).every((x) => (x.Values ?? []).reduce((a, b) => a + b, 0) >= 2);
        },
        { timeoutMs: 10_000, what: 'two timer publications of CPUUtilization per node' },
      );
    } finally {
      await sim.stop();
    }
  });
});
