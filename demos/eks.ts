/**
 * `npm run demo:eks`: the seed article's setting, simulated on this machine. Starts the simulated EKS
 * of the test tree (`test/k8s/eks-sim.ts`: the Kubernetes API emulator with scheduler, kubelet and EBS CSI
 * driver, real moto EC2 + CloudWatch, pods running the chdb engine on their own loopback IPs), a
 * Temporal dev server with its Web UI and a worker in this process, then runs `examples/eks.yaml`
 * (`logs` workload, LZ4 vs ZSTD(3), skip index, `target.kind: kubernetes`, `cloud` metrics and cost)
 * as a `benchmarkMatrix` workflow and prints
 *
 *   eks demo: cells N, succeeded N, report <path>, leftover pods 0, leftover pvcs 0
 *
 * Leftovers are counted through the Kubernetes API (pods and PVCs labelled
 * `app.kubernetes.io/managed-by=chbench` in the run's namespace) after the run closed. Exit code 1
 * when a cell did not succeed or anything was left.
 *
 * `EKS_DEMO_SCALE=<rows>` overrides the spec's scale (CI runs it small).
 */
import { stopResultsDbsStartedHere } from '../src/results/db';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { startDevServer } from '../src/temporal/dev-server';
import { createWorker, installRuntime } from '../src/worker';
import { loadConfig, logLevel, REPO_ROOT } from '../src/config';
import { readSpecFile } from '../src/lib/spec-file';
import { checkSpec } from '../src/targets/check-spec';
import { newRunId, runAndFollow } from '../src/temporal/run-client';
import { startEksSim } from '../test/k8s/eks-sim';

async function main(): Promise<void> {
  const specFile = process.argv[2] ?? path.join(REPO_ROOT, 'examples', 'eks.yaml');
  const raw = readSpecFile(specFile) as Record<string, unknown>;
  if (process.env.EKS_DEMO_SCALE) raw.scale = Number(process.env.EKS_DEMO_SCALE);
  const { spec, problems } = checkSpec(raw);
  if (!spec || problems.length) throw new Error(`invalid spec ${specFile}:\n  - ${problems.join('\n  - ')}`);
  if (spec.target.kind !== 'kubernetes') throw new Error(`${specFile}: target.kind must be kubernetes`);
  const namespace = spec.target.namespace;

  const sim = await startEksSim({ publishEveryMs: 5000 });
  console.error(
    `eks demo: Kubernetes API emulator ${sim.cluster.url}, moto ${sim.awsEnv.AWS_ENDPOINT_URL}, nodes ${sim.nodes.map((n) => `${n.name} (${n.instanceType}, ${n.zone}, ${n.instanceId})`).join(', ')}`,
  );
  // The worker reaches the cluster and AWS the way a real one would: kubeconfig and the AWS SDK's environment.
  process.env.KUBECONFIG = sim.kubeconfigPath;
  Object.assign(process.env, sim.awsEnv);

  installRuntime(logLevel('WARN'));
  const server = await startDevServer({ ui: true });
  const cfg = loadConfig();
  cfg.temporalAddress = server.address;
  console.error(`eks demo: Temporal dev server on ${server.address}, Web UI ${server.uiUrl}`);
  const { worker, connection: wconn } = await createWorker(cfg);
  const running = worker.run();
  const connection = await Connection.connect({ address: cfg.temporalAddress });
  let line: string;
  let ok: boolean;
  try {
    const client = new Client({ connection, namespace: cfg.namespace });
    const runId = newRunId(spec.name);
    console.error(
      `eks demo: run ${runId}: ${spec.workload}, ${spec.scale} rows, codecs ${spec.matrix.codec.join(' / ')}, skip index ${spec.skipIndex}`,
    );
    const r = await runAndFollow(client, raw, runId, cfg.taskQueue, { progress: true });
    const kc = new KubeConfig();
    kc.loadFromFile(sim.kubeconfigPath);
    const core = kc.makeApiClient(CoreV1Api);
    const selector = 'app.kubernetes.io/managed-by=chbench';
    const pods = (await core.listNamespacedPod({ namespace, labelSelector: selector })).items.length;
    const pvcs = (await core.listNamespacedPersistentVolumeClaim({ namespace, labelSelector: selector })).items.length;
    const succeeded = r.cells.filter((c) => c.status === 'succeeded').length;
    line = `eks demo: cells ${r.cells.length}, succeeded ${succeeded}, report ${r.reportPath}, leftover pods ${pods}, leftover pvcs ${pvcs}`;
    ok = succeeded === r.cells.length && pods === 0 && pvcs === 0;
  } finally {
    await connection.close();
    worker.shutdown();
    await running;
    await wconn.close();
    await server.stop();
    await sim.stop();
    await stopResultsDbsStartedHere();
  }
  console.log(line);
  if (!ok) process.exitCode = 1;
}

main().catch((e) => {
  console.error(`eks demo failed: ${(e as Error).stack ?? e}`);
  process.exit(1);
});
