import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { readRecord } from '../../src/results/store';
import { CellResult, RunRecord } from '../../src/schema/results';
import { checkRun, type TrialOutcome } from '../checks';
import {
  cellSteps,
  progressMark,
  rand,
  result,
  seed,
  sleep,
  startWorker,
  STEP_KINDS,
  stopWorker,
  waitForAnyStep,
  type Ctx,
} from '../harness';

/** Namespace of the kubernetes trial's pods and PVCs (the spec's `target.namespace`). */
const K8S_NAMESPACE = 'bench-database';

/** Cell steps during which the cell's pod serves statements: a pod lost then must be re-provisioned (a target restart). */
const POD_STEPS: string[] = STEP_KINDS.filter((s) => !['provision', 'write-results', 'teardown'].includes(s));

/**
 * `kubernetes`: the seed article's setting on the simulated EKS of the test tree (`test/k8s/eks-sim.ts`:
 * Kubernetes API emulator, scheduler, kubelet running the embedded engine per pod, EBS volumes and
 * CloudWatch in moto). The worker child gets KUBECONFIG and the AWS SDK's environment; a two-cell run
 * (`logs`, LZ4 and ZSTD(3), skip index, cloud metrics and cost) is disturbed by ≥ 3 worker SIGKILLs at
 * seeded moments (one aimed at `provision`), one pod eviction (`SimCluster.evict`) during `load` or
 * `queries-baseline`, and one pod deletion through the API with `gracePeriodSeconds: 0` during a later
 * step. Checked: the run completed, {@link checkRun} (the statement log is the engine's, archived by the
 * target at teardown), one recorded target restart per pod kill that landed while its cell used the pod,
 * the report's Kubernetes / Cloud metrics / Cost sections, and nothing left: chbench pods and PVCs of
 * the run's cells (labelled `app.kubernetes.io/managed-by=chbench`, named by `cellNames`), CSI-created
 * EBS volumes in moto (`DescribeVolumes`, tag `CSIVolumeName`) not deleted, and server processes the
 * simulated kubelet still runs (`SimCluster.running()`).
 */
export async function trialKubernetes(ctx: Ctx): Promise<TrialOutcome> {
  const { startEksSim } = await import('../../test/k8s/eks-sim');
  const { cellNames } = await import('../../src/targets/kubernetes/kube');
  const { CoreV1Api, KubeConfig } = await import('@kubernetes/client-node');
  const { EC2Client, DescribeVolumesCommand } = await import('@aws-sdk/client-ec2');
  // Two m5.xlarge nodes: each pod requests 2.5 vCPU, so two concurrent cells need a node each.
  const sim = await startEksSim({
    publishEveryMs: 5000,
    nodes: [
      { name: 'ip-10-0-1-10.ec2.internal', zone: 'us-east-1a' },
      { name: 'ip-10-0-1-11.ec2.internal', zone: 'us-east-1a' },
    ],
  });
  const runId = `chaos-k8s-${seed}`;
  let finished = false;
  try {
    await stopWorker(ctx, 'SIGTERM');
    ctx.workerEnv = { KUBECONFIG: sim.kubeconfigPath, ...sim.awsEnv };
    startWorker(ctx);
    const kc = new KubeConfig();
    kc.loadFromFile(sim.kubeconfigPath);
    const core = kc.makeApiClient(CoreV1Api);
    const s = {
      name: 'chaos-k8s',
      workload: 'logs',
      scale: 400_000,
      target: {
        kind: 'kubernetes',
        namespace: K8S_NAMESPACE,
        access: 'podIP',
        storageSize: '100Gi',
        instanceType: 'm5.xlarge',
        // The simulated kubelet starts a pod in seconds; these fail a stuck pod in minutes, not hours.
        timeouts: { scheduleMs: 60_000, pvcMs: 60_000, pullMs: 60_000, readyMs: 120_000, watchSilenceMs: 15_000 },
      },
      matrix: { version: ['26.7'], codec: ['LZ4', 'ZSTD(3)'] },
      skipIndex: true,
      protocol: { warmRuns: 2, quiesce: { stableForMs: 500 } },
      concurrency: 2,
      teardown: 'always',
      cloud: { region: sim.region, settleMs: 5000 },
      resultsDir: ctx.resultsDir,
    };
    await ctx.client.workflow.start('benchmarkMatrix', { taskQueue: ctx.taskQueue, workflowId: runId, args: [s] });
    const done = result(ctx, runId);
    void done.then(() => (finished = true));
    const isFinished = () => finished;
    const events: string[] = [];
    let workerKills = 0;
    let podKills = 0;
    let landed = 0;

    /** SIGKILL the worker now and start a new one; note where the cells were. */
    const killWorker = async () => {
      const steps = await cellSteps(ctx, runId);
      await stopWorker(ctx, 'SIGKILL');
      startWorker(ctx);
      workerKills++;
      const at = Object.entries(steps).map(([k, st]) => `${k}@${st}`);
      events.push(`worker SIGKILL (${at.length ? at.join(', ') : 'no cell running'})`);
    };
    /**
     * SIGKILL the worker at a seeded moment (300 ms + up to `maxDelayMs`) once the run moved on since
     * `mark` (a running cell finished a step), or after 15 s of no such sign (the matrix may be reading
     * cloud metrics with no cell running: that activity is a target too). `mark` undefined: no wait.
     */
    const killWorkerLater = async (mark: number | undefined, maxDelayMs: number) => {
      const waitUntil = Date.now() + 15_000;
      const moved = async () => {
        const now = await progressMark(ctx, runId);
        return now !== undefined && now !== mark;
      };
      while (mark !== undefined && !finished && Date.now() < waitUntil && !(await moved())) await sleep(100);
      const deadline = Date.now() + 300 + rand() * maxDelayMs;
      while (!finished && Date.now() < deadline) await sleep(50);
      if (!finished) await killWorker();
    };
    /** Kill the pod of a cell at one of `steps` (evict or delete); a kill lands when its cell still uses the pod. */
    const killPod = async (how: 'evict' | 'delete', steps: string[]) => {
      const hit = await waitForAnyStep(ctx, runId, steps, isFinished);
      if (!hit) return;
      await sleep(150 + rand() * 400);
      const [cell] = hit;
      const step = (await cellSteps(ctx, runId))[cell];
      const { pod } = cellNames(runId, cell);
      if (how === 'evict') await sim.cluster.evict(K8S_NAMESPACE, pod);
      else await core.deleteNamespacedPod({ name: pod, namespace: K8S_NAMESPACE, gracePeriodSeconds: 0 });
      podKills++;
      const onPod = step !== undefined && POD_STEPS.includes(step);
      if (onPod) landed++;
      events.push(`pod ${how === 'evict' ? 'evicted' : 'deleted (grace 0)'} ${cell}@${step ?? 'gone'}`);
    };

    // 1. The worker while a pod is being provisioned.
    if (await waitForAnyStep(ctx, runId, ['provision'], isFinished)) {
      await sleep(rand() * 1500);
      await killWorker();
    }
    // 2. An eviction during load or the baseline queries.
    const evictStep = rand() < 0.5 ? 'load' : 'queries-baseline';
    await killPod('evict', [evictStep]);
    // 3. The worker soon after, while the evicted cell finds its pod lost and re-provisions.
    await killWorkerLater(undefined, 2500);
    // 4. A pod deleted through the API (no grace) during another step that uses it: aimed at a random
    //    one for up to 8 s, else whichever such step a cell reaches first (runs here take a minute or two).
    const others = POD_STEPS.filter((st) => st !== evictStep);
    const aim = others[Math.floor(rand() * others.length)];
    const aimed = await waitForAnyStep(ctx, runId, [aim], isFinished, 8000);
    await killPod('delete', aimed ? [aim] : others);
    // 5. The worker soon after; then at random moments once the run moved on, until it ends (≤ 6 in all).
    await killWorkerLater(undefined, 2500);
    // (-1: nothing answered yet, so wait for a cell to answer again or for 15 s.)
    while (!finished && workerKills < 6) await killWorkerLater((await progressMark(ctx, runId)) ?? -1, 6000);

    const status = await done;
    const check = await checkRun(ctx, runId, s.scale, 'completed');
    if (status !== 'completed') check.problems.push(`run ${status}`);
    if (workerKills < 3) check.problems.push(`only ${workerKills} worker kills`);
    if (podKills < 2) check.problems.push(`only ${podKills} pod kills`);
    const cells = readRecord(path.join(ctx.resultsDir, runId, 'run.json'), RunRecord).cells;
    let restarts = 0;
    for (const k of cells) {
      const file = path.join(ctx.resultsDir, runId, 'cells', k, 'result.json');
      if (existsSync(file)) restarts += readRecord(file, CellResult).target_restarts.length;
    }
    if (restarts < landed) check.problems.push(`${landed} pod kills on a running step but ${restarts} target restarts`);
    const reportFile = path.join(ctx.resultsDir, runId, 'report.md');
    const report = existsSync(reportFile) ? readFileSync(reportFile, 'utf8') : '';
    for (const h of ['## Kubernetes', '## Cloud metrics', '## Cost'])
      if (!report.split('\n').includes(h)) check.problems.push(`report.md has no "${h}"`);
    if (sim.cluster.volumes.created.length < cells.length)
      check.problems.push(`only ${sim.cluster.volumes.created.length} EBS volumes created for ${cells.length} cells`);

    // Leftovers, polled briefly: a PV's volume is deleted by the control plane after its PVC is gone.
    const names = new Set(cells.flatMap((k) => Object.values(cellNames(runId, k))));
    const ec2 = new EC2Client({
      region: sim.awsEnv.AWS_REGION,
      endpoint: sim.awsEnv.AWS_ENDPOINT_URL,
      credentials: { accessKeyId: sim.awsEnv.AWS_ACCESS_KEY_ID, secretAccessKey: sim.awsEnv.AWS_SECRET_ACCESS_KEY },
    });
    const leftovers = async () => {
      const labelSelector = 'app.kubernetes.io/managed-by=chbench';
      const mine = (items: { metadata?: { name?: string } }[]) =>
        items.filter((o) => names.has(o.metadata?.name ?? '')).map((o) => o.metadata!.name!);
      const pods = mine((await core.listNamespacedPod({ namespace: K8S_NAMESPACE, labelSelector })).items);
      const pvcs = mine(
        (await core.listNamespacedPersistentVolumeClaim({ namespace: K8S_NAMESPACE, labelSelector })).items,
      );
      const volumes = ((await ec2.send(new DescribeVolumesCommand({}))).Volumes ?? [])
        .filter((v) => v.Tags?.some((t) => t.Key === 'CSIVolumeName') && v.State !== 'deleted')
        .map((v) => v.VolumeId!);
      const servers = sim.cluster.running().map((c) => `${c.pod} pid ${c.pid}`);
      return { pods, pvcs, volumes, servers, n: pods.length + pvcs.length + volumes.length + servers.length };
    };
    let left = await leftovers();
    for (let i = 0; left.n && i < 60; i++) {
      await sleep(500);
      left = await leftovers();
    }
    ec2.destroy();
    if (left.n) {
      check.leaked += left.n;
      check.problems.push(
        `left: pods [${left.pods.join(', ')}], pvcs [${left.pvcs.join(', ')}], EBS volumes [${left.volumes.join(', ')}], servers [${left.servers.join(', ')}]`,
      );
    }
    return {
      name: 'kubernetes',
      survived: check.problems.length === 0,
      detail: `${workerKills} worker SIGKILLs + ${podKills} pod kills (${landed} on a running step; target restarts recorded ${restarts}): ${events.join('; ')}; ${sim.cluster.volumes.created.length} EBS volumes created, leftover pods ${left.pods.length}, pvcs ${left.pvcs.length}, volumes ${left.volumes.length}, servers ${left.servers.length}`,
      kills: workerKills + podKills,
      check,
    };
  } finally {
    if (!finished)
      await ctx.client.workflow
        .getHandle(runId)
        .terminate('chaos harness error')
        .catch(() => undefined);
    await stopWorker(ctx, 'SIGTERM');
    ctx.workerEnv = undefined;
    startWorker(ctx);
    await sim.stop();
  }
}
