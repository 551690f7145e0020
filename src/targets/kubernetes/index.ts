/**
 * The `kubernetes` target: per cell its own PVC and pod in a Kubernetes cluster (the seed article's
 * EKS setting), rendered from `manifests/` (`render.ts`), provisioned idempotently with watches
 * (`provision.ts`, `watch.ts`), reached at the pod IP or through a port-forward with credentials
 * from a Secret (`access.ts`), removed by teardown after the pod's log and the statements are saved.
 *
 * Capabilities: never on the worker's host; restartable (a lost pod is made again on the same PVC,
 * in the volume's zone). With a real clickhouse-server: like `external` (SQL verbs, HTTP summary,
 * `system.processes`, `system.query_log`). With the chbench embedded engine in the pod
 * (`KubernetesFacts.server`, the test tree's simulated kubelet): the embedded target's flags and
 * statement verbs, `onWorkerHost` false.
 *
 * Counters for the bottleneck labels: the pod's cgroup as the node's cAdvisor serves it through the
 * API server's node proxy (`scrapedCounters`, `cadvisor.ts`).
 */
import { existsSync, accessSync, constants, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { authHeaders, clearTargetAccess, targetAccessKey, targetUrl } from '../../clickhouse/client';
import { httpGet } from '../process';
import { writeFileAtomic } from '../../lib/fs';
import { KubernetesTargetSpec } from '../../schema/run-spec';
import type { TargetCapabilities, TargetHandle } from '../../schema/target';
import { embeddedTarget } from '../embedded';
import { registerTarget } from '../registry';
import {
  archiveFromQueryLog,
  checkServer,
  killOnServer,
  progressFromProcesses,
  runningFromProcesses,
} from '../server-verbs';
import type { Target, TargetCheck } from '../target';
import { closeForwards, clusterOf, prepareKubernetes } from './access';
import { cellNames, KubeConfigError, kubeFor, loadKubeConfig, orMissing, type Kube } from './kube';
import { deletePod, deletePvc, kubeErrorText, provisionKubernetes, waitGone } from './provision';
import { imageFor } from './render';
import { podCapacity, podCounterSource } from './cadvisor';

export { provisionKubernetes } from './provision';
export { closeForwards, openForwardCount, prepareKubernetes, resetAccess } from './access';
export { cellNames, forgetKubeClients } from './kube';

/** Capabilities with a real clickhouse-server in the pod (the registry's declared set). */
export const KUBERNETES_CAPABILITIES: TargetCapabilities = {
  onWorkerHost: false,
  // Its loopback URL is the port-forward to the pod: never the worker's host.
  loopbackMeansWorkerHost: false,
  canKillRunning: true,
  countersWithoutQueryLog: 'none',
  summaryReadSource: 'http summary',
  runningStatementsFrom: 'system.processes',
  restartable: true,
  statementArchive: false,
};

const embeddedInPod = (h: TargetHandle) => h.kubernetes?.server === 'chbench embedded engine';

/** Waits of teardown and check when the handle carries no spec: the spec's defaults. */
const DEFAULT_WAITS = KubernetesTargetSpec.shape.timeouts.parse(undefined) as KubernetesTargetSpec['timeouts'];

/**
 * The embedded engine's own statement log (`GET /chbench/statements`, every statement the server ran,
 * all of them the cell's) copied atomically into `file`, for a pod that runs that engine.
 * @returns the source used
 * @throws Error when the endpoint does not answer 200
 */
async function archiveFromEngineLog(handle: TargetHandle, file: string): Promise<string> {
  const url = targetUrl(handle);
  const r = await httpGet(`${url}/chbench/statements`, 30_000, authHeaders(handle));
  if (r.status !== 200) throw new Error(`${url}/chbench/statements: HTTP ${r.status} ${r.body.slice(0, 200)}`);
  writeFileAtomic(file, r.body);
  return 'the engine statement log (GET /chbench/statements)';
}

function kubeOf(handle: TargetHandle): Kube {
  return kubeFor(clusterOf(handle));
}

/**
 * Whether the handle's pod is still the one it points at: same uid, not Failed, not being deleted,
 * container not restarted since (restartCount), Ready.
 * @returns why it is lost, or `undefined` when it is the same pod and Ready
 */
export async function podLost(handle: TargetHandle): Promise<string | undefined> {
  const f = handle.kubernetes;
  if (!f) return 'the handle has no kubernetes facts';
  const pod = await orMissing(() => kubeOf(handle).core.readNamespacedPod({ name: f.pod, namespace: f.namespace }));
  const id = `pod ${f.namespace}/${f.pod}`;
  if (!pod) return `${id} is gone`;
  if (pod.metadata?.uid !== f.podUid)
    return `${id} was re-created (uid ${pod.metadata?.uid}, the handle's ${f.podUid})`;
  if (pod.metadata?.deletionTimestamp) return `${id} is being deleted`;
  const st = pod.status ?? {};
  if (st.phase === 'Failed') return `${id} ${st.reason ?? 'Failed'}: ${st.message ?? ''}`.trim();
  const cs = st.containerStatuses?.[0];
  if ((cs?.restartCount ?? 0) > f.restartCount) {
    const last = cs?.lastState?.terminated;
    return `${id}: its container restarted (restartCount ${cs?.restartCount}, was ${f.restartCount}${last ? `; last exit ${last.reason ?? ''} ${last.exitCode}` : ''}): the server lost its state`;
  }
  const ready = st.conditions?.find((c) => c.type === 'Ready');
  if (ready?.status !== 'True') return `${id} is not Ready (${ready?.reason ?? st.phase ?? 'unknown'})`;
  return undefined;
}

/** Save the pod's log (`readNamespacedPodLog`) as `pod-<name>.log` in `dir`. @returns a human line, never throws */
async function savePodLog(handle: TargetHandle, dir: string): Promise<string> {
  const f = handle.kubernetes;
  if (!f) return 'no pod';
  try {
    const log = await kubeOf(handle).core.readNamespacedPodLog({ name: f.pod, namespace: f.namespace });
    const file = path.join(dir, `pod-${f.pod}.log`);
    writeFileAtomic(file, typeof log === 'string' ? log : String(log));
    return `pod log ${file}`;
  } catch (e) {
    return `pod log not saved: ${kubeErrorText(e)}`;
  }
}

/** Delete the cell's pod, then its PVC, each waited until gone (404 = success). */
async function deleteCell(kube: Kube, namespace: string, pod: string, pvc: string): Promise<void> {
  const waits = { timeouts: DEFAULT_WAITS };
  await deletePod(kube, namespace, pod, waits);
  // The PV bound to the claim, read before the claim goes (a handle-less teardown knows only the claim).
  const claim = await orMissing(() => kube.core.readNamespacedPersistentVolumeClaim({ name: pvc, namespace }));
  const pvName = claim?.spec?.volumeName;
  await deletePvc(kube, namespace, pvc, waits);
  if (pvName) await waitVolumeDeleted(kube, pvName);
}

/**
 * With reclaimPolicy `Delete`, deleting the claim makes the CSI driver delete the volume (the EBS
 * volume) and then the PV, asynchronously: wait until the PV is gone, so a finished teardown means
 * the volume is no longer billed. A PV kept by reclaimPolicy `Retain` is not waited for.
 * @throws Error when the PV still exists after `DEFAULT_WAITS.pvcMs` ms (the volume may still exist and cost)
 */
async function waitVolumeDeleted(kube: Kube, pvName: string): Promise<void> {
  const pv = await orMissing(() => kube.core.readPersistentVolume({ name: pvName }));
  if (!pv || pv.spec?.persistentVolumeReclaimPolicy !== 'Delete') return;
  await waitGone(
    `PV ${pvName} (reclaimPolicy Delete: the CSI driver deletes volume ${pv.spec?.csi?.volumeHandle ?? '?'})`,
    () => kube.core.readPersistentVolume({ name: pvName }),
    DEFAULT_WAITS.pvcMs,
    DEFAULT_WAITS.watchSilenceMs,
  );
}

/** The kubernetes target. */
export const kubernetesTarget: Target<KubernetesTargetSpec> = {
  kind: 'kubernetes',
  capabilities: KUBERNETES_CAPABILITIES,
  capabilitiesFor(handle) {
    if (!embeddedInPod(handle)) return KUBERNETES_CAPABILITIES;
    return { ...embeddedTarget.capabilities, onWorkerHost: false, loopbackMeansWorkerHost: false };
  },
  prepare: prepareKubernetes,
  /** The pod cgroup's counters from the node's cAdvisor through the API server's node proxy, judged against the pod's CPU limit and the volume's provisioned rates (`cadvisor.ts`). */
  scrapedCounters(handle, spec) {
    const source = podCounterSource(handle);
    if (!source) return undefined;
    return { source, capacity: podCapacity(handle, spec as Partial<KubernetesTargetSpec> | undefined) };
  },
  /** {@link provisionKubernetes}, then load the Secret's password (and port-forward) into this process, so the provision activity can connect. */
  async provision(spec, req) {
    // One bound on the whole of it: the API calls have no timeout of their own, and a black-holed API
    // server must not keep a heartbeating activity alive for hours.
    const limitMs = spec.timeouts.readyMs + 120_000;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new Error(
              `kubernetes provisioning of ${req.runId}/${req.cellKey} did not finish within ${limitMs} ms (timeouts.readyMs + 2 min for the API calls): is the API server answering?`,
            ),
          ),
        limitMs,
      );
    });
    let handle: TargetHandle;
    try {
      handle = await Promise.race([provisionKubernetes(spec, req), deadline]);
    } finally {
      clearTimeout(timer);
    }
    await prepareKubernetes(handle);
    return handle;
  },
  async teardown(handle) {
    const f = handle.kubernetes;
    if (!f) throw new Error(`kubernetes handle of ${handle.runId}/${handle.cellKey} has no kubernetes facts`);
    try {
      await deleteCell(kubeOf(handle), f.namespace, f.pod, f.pvc);
    } finally {
      await closeForwards(f.namespace, f.pod);
      clearTargetAccess(targetAccessKey(handle));
    }
  },
  async teardownCell(spec, req) {
    const n = cellNames(req.runId, req.cellKey);
    let kube: Kube;
    try {
      kube = kubeFor(spec);
    } catch (e) {
      // No API call through this config can succeed, so no attempt created anything through it either:
      // retrying the same config error would only hold the cell (and a cancel) until the activity gives up.
      if (e instanceof KubeConfigError)
        return `nothing: the kubeconfig cannot reach a cluster, so provisioning created nothing (${e.message})`;
      throw e;
    }
    try {
      await deleteCell(kube, spec.namespace, n.pod, n.pvc);
    } finally {
      await closeForwards(spec.namespace, n.pod);
    }
    return `deleted pod ${spec.namespace}/${n.pod} and PVC ${n.pvc} (if they existed; reclaimPolicy Delete destroys the volume)`;
  },
  describeTeardown(h) {
    const f = h.kubernetes;
    return f
      ? `delete pod ${f.namespace}/${f.pod} and PVC ${f.pvc} (PV ${f.pv ?? '?'}, volume ${f.volumeHandle ?? '?'}); reclaimPolicy Delete destroys the volume`
      : 'nothing (no kubernetes facts)';
  },
  async check(handle): Promise<TargetCheck> {
    try {
      const lost = await podLost(handle);
      if (lost) return { reachable: false, error: lost };
      await prepareKubernetes(handle);
    } catch (e) {
      return { reachable: false, error: kubeErrorText(e) };
    }
    return checkServer(handle);
  },
  runningStatements: (h, c, prefix) =>
    embeddedInPod(h) ? embeddedTarget.runningStatements(h, c, prefix) : runningFromProcesses(h, c, prefix),
  statementProgress: (h, c, list, timeoutMs) =>
    embeddedInPod(h)
      ? embeddedTarget.statementProgress(h, c, list, timeoutMs)
      : progressFromProcesses(h, c, list, timeoutMs),
  kill: (h, c, queryId, o) =>
    embeddedInPod(h) ? embeddedTarget.kill(h, c, queryId, o) : killOnServer(h, c, queryId, o),
  /** `system.query_log` (as `external`), and the pod's log saved beside `file` as `pod-<name>.log`. */
  async archiveStatements(handle, prefix, file) {
    const log = await savePodLog(handle, path.dirname(file));
    let source: string;
    try {
      await prepareKubernetes(handle);
      source = embeddedInPod(handle)
        ? await archiveFromEngineLog(handle, file)
        : await archiveFromQueryLog(handle, prefix, file);
    } catch (e) {
      source = `not available: ${kubeErrorText(e)}`;
    }
    return `${source}; ${log}`;
  },
  checkSpec(target, versions, place) {
    const problems: string[] = [];
    if (place === 'input') {
      const images = target.images;
      if (images !== undefined && (typeof images !== 'object' || images === null || Array.isArray(images)))
        problems.push('target.images: must map a version label to an image');
      for (const v of versions)
        if (typeof v === 'string') {
          const image = imageFor({ images: images as Record<string, string> | undefined }, v);
          if (!/^[a-z0-9][a-z0-9._\-/:@]*$/i.test(image))
            problems.push(`target.images: version ${v} gives image ${JSON.stringify(image)}, not an image reference`);
        }
      if (target.access !== undefined && target.access !== 'podIP' && target.access !== 'portForward')
        problems.push(`target.access: ${JSON.stringify(target.access)} is not "podIP" or "portForward"`);
      const r = KubernetesTargetSpec.shape.resources.safeParse(target.resources);
      if (!r.success) problems.push(...r.error.issues.map((i) => `target.resources.${i.path.join('.')}: ${i.message}`));
      return problems;
    }
    const kubeconfig = typeof target.kubeconfig === 'string' ? target.kubeconfig : undefined;
    const context = typeof target.context === 'string' ? target.context : undefined;
    if (kubeconfig) {
      if (!existsSync(kubeconfig)) return [`target.kubeconfig: ${kubeconfig} does not exist on the worker`];
      try {
        accessSync(kubeconfig, constants.R_OK);
        readFileSync(kubeconfig);
      } catch (e) {
        return [`target.kubeconfig: ${kubeconfig} is not readable on the worker (${(e as Error).message})`];
      }
    }
    try {
      loadKubeConfig({ kubeconfig, context });
    } catch (e) {
      problems.push(`target.kubeconfig: ${(e as Error).message}`);
    }
    return problems;
  },
};

registerTarget(kubernetesTarget);
