/**
 * `target.kind: kubernetes` end to end on real components: a Temporal dev server and worker, the
 * simulated EKS of the test tree (Kubernetes API emulator, scheduler, kubelet running the ClickHouse
 * engine per pod, EBS volumes in moto). A pod evicted in the middle of the query runs is a target
 * restart: the cell provisions a new pod on the same volume, finishes, and records the restart; an
 * image that cannot be pulled fails the cell at once (non-retryable) with the kubelet's words, and
 * nothing of either run is left in the cluster or in EC2. A cell under a 1-core pod CPU limit is
 * labelled from its pod cgroup's counters (the simulated kubelet's cgroup, served by its cAdvisor
 * through the API server's node proxy): its hashing query is CPU-bound, the evidence the difference of
 * the two `counters.jsonl` samples bracketing the run, and no pod cgroup is left after teardown.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { DescribeVolumesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { startTemporalEnv, type TemporalEnv } from '../helpers/temporal-env';
import { startEksSim, type EksSim } from '../k8s/eks-sim';
import { readRecord } from '../../src/results/store';
import { CellResult, MetricsSnapshot, ProvisionRecord } from '../../src/schema/results';
import { REPO_ROOT } from '../../src/config';
import { COUNTERS_FILE, readCounterSamples } from '../../src/process/cell-counters';
import { cellNames } from '../../src/targets/kubernetes';
import type { MatrixProgress, MatrixResult } from '../../src/workflows';
import type { CellProgress } from '../../src/workflows/benchmark-cell';
import { pollUntil } from '../../src/lib/poll';
import { recordRunHistories } from '../helpers/histories';

const NS = 'bench-database';
let sim: EksSim;
let env: TemporalEnv;
let core: CoreV1Api;

before(async () => {
  sim = await startEksSim({ publishEveryMs: 2000 });
  // The worker's AWS SDK finds moto the way it would find AWS: through its environment.
  Object.assign(process.env, sim.awsEnv);
  env = await startTemporalEnv('kubernetes');
  const kc = new KubeConfig();
  kc.loadFromFile(sim.kubeconfigPath);
  core = kc.makeApiClient(CoreV1Api);
});
after(async () => {
  await env?.stop();
  await sim?.stop();
});

const spec = (name: string, version = '26.7', extra: Record<string, unknown> = {}) => ({
  name,
  workload: 'logs',
  scale: 300_000,
  target: {
    kind: 'kubernetes',
    kubeconfig: sim.kubeconfigPath,
    namespace: NS,
    timeouts: { scheduleMs: 20_000, pvcMs: 20_000, pullMs: 5_000, readyMs: 60_000, watchSilenceMs: 5_000 },
  },
  matrix: { version: [version], codec: ['LZ4'] },
  skipIndex: false,
  protocol: { warmRuns: 2, quiesce: { stableForMs: 500 } },
  resultsDir: env.resultsDir,
  ...extra,
});

/** chbench pods and PVCs left in the namespace, and EBS volumes the CSI driver made in moto not deleted. */
async function leftovers(): Promise<{ pods: number; pvcs: number; volumes: number }> {
  const sel = 'app.kubernetes.io/managed-by=chbench';
  const ec2 = new EC2Client({
    region: sim.region,
    endpoint: sim.awsEnv.AWS_ENDPOINT_URL,
    credentials: { accessKeyId: sim.awsEnv.AWS_ACCESS_KEY_ID, secretAccessKey: sim.awsEnv.AWS_SECRET_ACCESS_KEY },
  });
  const vols = (await ec2.send(new DescribeVolumesCommand({}))).Volumes ?? [];
  ec2.destroy();
  return {
    pods: (await core.listNamespacedPod({ namespace: NS, labelSelector: sel })).items.length,
    pvcs: (await core.listNamespacedPersistentVolumeClaim({ namespace: NS, labelSelector: sel })).items.length,
    // Volumes the CSI driver made (tagged with their PV); an instance's root volume is not one.
    volumes: vols.filter(
      (v) =>
        v.State !== 'deleted' &&
        v.State !== 'deleting' &&
        (v.Tags ?? []).some((t) => t.Key === 'kubernetes.io/created-for/pv/name'),
    ).length,
  };
}

test('a pod evicted during the query runs is a target restart: new pod on the same volume, cell succeeds, restart recorded; cloud metrics and cost are collected', async () => {
  const runId = `k8s-evict-${Date.now()}`;
  const cellKey = 'v26.7-lz4';
  const handle = await env.client.workflow.start('benchmarkMatrix', {
    taskQueue: env.taskQueue,
    workflowId: runId,
    args: [spec('k8s-evict', '26.7', { cloud: { settleMs: 1000 } })],
  });
  // Evict once the cell measures its baseline queries (the cell's own progress query, every 100 ms).
  await pollUntil(
    async () => {
      const m = (await handle.query('progress').catch(() => undefined)) as MatrixProgress | undefined;
      if (!m?.running.includes(cellKey)) return undefined;
      const c = (await env.client.workflow
        .getHandle(`${runId}/${cellKey}`)
        .query('progress')
        .catch(() => undefined)) as CellProgress | undefined;
      return c?.step === 'queries-baseline' || undefined;
    },
    { what: 'the cell at queries-baseline', timeoutMs: 180_000, intervalMs: 100 },
  );
  const { pod } = cellNames(runId, cellKey);
  const before = await core.readNamespacedPod({ name: pod, namespace: NS });
  await sim.cluster.evict(NS, pod);

  const r = (await handle.result()) as MatrixResult;
  assert.deepEqual(
    r.cells.map((c) => [c.cellKey, c.status]),
    [[cellKey, 'succeeded']],
  );
  const dir = path.join(env.resultsDir, runId, 'cells', cellKey);
  const result = readRecord(path.join(dir, 'result.json'), CellResult);
  assert.ok(result.target_restarts.length >= 1, 'the eviction is recorded as a target restart');
  assert.ok(
    result.target_restarts.some((t) => t.step === 'queries-baseline'),
    JSON.stringify(result.target_restarts),
  );
  assert.equal(result.load?.rows_in_table, 300_000, 'the data on the volume survived the pod');
  const prov = readRecord(path.join(dir, 'provision.json'), ProvisionRecord);
  const k = prov.target.kubernetes!;
  assert.equal(k.volume, 'reused', 'the re-provision found the cell volume bound and landed in its zone');
  assert.notEqual(k.podUid, before.metadata?.uid, 'a new pod');
  assert.equal(k.zone, 'us-east-1a');
  assert.match(k.volumeHandle ?? '', /^vol-/);
  assert.deepEqual(await leftovers(), { pods: 0, pvcs: 0, volumes: 0 });

  // The cloud step ran after the cell: its records and the report's three sections.
  assert.ok(existsSync(path.join(dir, 'cloud-metrics.json')), 'cloud-metrics.json written');
  assert.ok(existsSync(path.join(dir, 'cost.json')), 'cost.json written');
  const report = readFileSync(path.join(env.resultsDir, runId, 'report.md'), 'utf8');
  for (const h of ['## Kubernetes', '## Cloud metrics', '## Cost']) assert.ok(report.includes(h), `report has ${h}`);
  assert.match(report, new RegExp(k.volumeHandle!), 'the report names the cell volume');

  // `CHBENCH_RECORD_HISTORIES=1` records this release's histories (a kubernetes cell with a target
  // restart, a matrix with the cloud step) for the replay test; files are never overwritten.
  if (process.env.CHBENCH_RECORD_HISTORIES) {
    recordRunHistories(env.server.address, runId, cellKey);
  }
});

test('an image that cannot be pulled fails the cell once, non-retryable, with the kubelet event; nothing is left', async () => {
  const runId = `k8s-pull-${Date.now()}`;
  const r = (await env.client.workflow.execute('benchmarkMatrix', {
    taskQueue: env.taskQueue,
    workflowId: runId,
    args: [spec('k8s-pull', '25.1')],
  })) as MatrixResult;
  assert.equal(r.cells.length, 1);
  assert.equal(r.cells[0].status, 'failed');
  const result = readRecord(path.join(env.resultsDir, runId, 'cells', 'v25.1-lz4', 'result.json'), CellResult);
  assert.match(result.error ?? '', /ImagePull/);
  assert.match(result.error ?? '', /clickhouse\/clickhouse-server:25\.1/);
  // Non-retryable: the provision activity ran one attempt (Temporal's own record of it).
  const history = await env.client.workflow.getHandle(`${runId}/v25.1-lz4`).fetchHistory();
  const scheduled = new Set(
    (history.events ?? [])
      .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'provision')
      .map((e) => String(e.eventId)),
  );
  const attempts = (history.events ?? [])
    .filter((e) => scheduled.has(String(e.activityTaskStartedEventAttributes?.scheduledEventId)))
    .map((e) => e.activityTaskStartedEventAttributes!.attempt);
  assert.deepEqual(attempts, [1], 'one provision activity, started once');
  assert.deepEqual(await leftovers(), { pods: 0, pvcs: 0, volumes: 0 });
});

test('a kubernetes cell is labelled from its pod cgroup through cAdvisor: a hashing query under a 1-core limit is CPU-bound; no cgroup is left', async (t) => {
  const cgroups = sim.cluster.cgroups;
  if (!cgroups) return t.skip(`the simulated kubelet runs pods without cgroups: ${sim.cluster.cgroupsOff}`);
  const saved = process.env.CHBENCH_SQL_ROOT;
  process.env.CHBENCH_SQL_ROOT = path.join(REPO_ROOT, 'test', 'fixtures');
  const runId = `k8s-labels-${Date.now()}`;
  const cellKey = 'v26.7-lz4';
  let r: MatrixResult;
  try {
    const base = spec('k8s-labels');
    r = (await env.client.workflow.execute('benchmarkMatrix', {
      taskQueue: env.taskQueue,
      workflowId: runId,
      args: [
        {
          ...base,
          workload: 'pod-bottleneck',
          scale: 10_000,
          target: {
            ...base.target,
            resources: { requests: { cpu: '1', memory: '2Gi' }, limits: { cpu: '1', memory: '4Gi' } },
          },
          protocol: { coldRuns: 0, warmupRuns: 0, warmRuns: 1, quiesce: { stableForMs: 200 } },
        },
      ],
    })) as MatrixResult;
  } finally {
    if (saved === undefined) delete process.env.CHBENCH_SQL_ROOT;
    else process.env.CHBENCH_SQL_ROOT = saved;
  }
  assert.deepEqual(
    r.cells.map((c) => [c.cellKey, c.status]),
    [[cellKey, 'succeeded']],
    JSON.stringify(r.cells.map((c) => c.error)),
  );
  const dir = path.join(env.resultsDir, runId, 'cells', cellKey);
  const end = readRecord(path.join(dir, 'metrics-end.json'), MetricsSnapshot);
  assert.equal(end.local_bottleneck, undefined, 'the pod is not on the worker host');
  const pb = end.pod_bottleneck;
  assert.ok(pb, 'metrics-end.json has pod_bottleneck');
  for (const l of pb.steps) t.diagnostic(`  ${l.step}: ${l.label} — ${l.evidence}`);
  const l = pb.steps.find((x) => x.step === 'hash warm (baseline)');
  assert.ok(l?.counters, JSON.stringify(l));
  t.diagnostic(`hash: ${l.label}: ${l.evidence}`);
  assert.equal(l.label, 'cpu-bound', l.evidence);
  const { pod } = cellNames(runId, cellKey);
  assert.match(l.counters.source, new RegExp(`^cadvisor \\S+ pod ${NS}/${pod} uid [0-9a-f]{8}$`));
  // The kernel's CFS quota (the kubelet's, from limits.cpu 1) held the hashing on two threads to one core.
  assert.ok(l.counters.cores_used > 0.8 && l.counters.cores_used < 1.15, `cores used ${l.counters.cores_used}`);
  assert.equal(pb.cpu_limit_cores, 1);
  assert.match(pb.limits, /^pod CPU limit 1 cores \(resources\.limits\.cpu 1\); gp3 volume: 125 MiB\/s/);
  // The evidence is the difference of the two scraped samples bracketing the run's record window.
  const samples = readCounterSamples(path.join(dir, COUNTERS_FILE));
  const a = samples[l.counters.from_sample]!;
  const b = samples[l.counters.to_sample]!;
  assert.ok(a.t <= Date.parse(l.started_at) && b.t >= Date.parse(l.finished_at), `${a.t}…${b.t} brackets the run`);
  assert.ok(a.rtt_ms !== undefined && b.rtt_ms !== undefined, 'scraped samples carry their round trip');
  assert.equal(l.counters.cpu_ns, b.cpu_ns - a.cpu_ns);
  assert.equal(l.counters.read_bytes, b.read_bytes - a.read_bytes);
  assert.equal(l.counters.ms, (b.stats_at as number) - (a.stats_at as number), 'timed by the readings');
  assert.ok(l.counters.cpu_ns > 0.3e9, `the hashing run used ${l.counters.cpu_ns} ns of CPU`);
  const report = readFileSync(path.join(env.resultsDir, runId, 'report.md'), 'utf8');
  assert.match(report, /## Bottlenecks \(pod counters\)/);
  // Teardown deleted the pod; the kubelet removed its cgroups.
  const uid = readRecord(path.join(dir, 'provision.json'), ProvisionRecord).target.kubernetes!.podUid;
  assert.deepEqual(
    cgroups.existing().filter((d) => d.includes(`/pod${uid}`)),
    [],
    'no cgroup of the pod is left',
  );
  assert.deepEqual(await leftovers(), { pods: 0, pvcs: 0, volumes: 0 });
});
