/**
 * Provisioning one cell on Kubernetes, every step idempotent (a worker may die at any point and the
 * next attempt runs the same steps): Namespace → StorageClass → Secret → PVC → Pod, each created or,
 * on 409, adopted when it is this run's and cell's (labels) and refused otherwise; then the wait until
 * the pod is Ready (watches, {@link waitForObject}), the facts (node, PV), what answers in the pod and
 * its version.
 *
 * Failures that retrying cannot fix are `ApplicationFailure`s of the types in `FAILURE`
 * (`ImagePull`, `Unschedulable`, `VolumePending`, `ResourceConflict`), with the event text.
 */
import { ApplicationFailure } from '@temporalio/common';
import { createClient } from '@clickhouse/client';
import type * as k8s from '@kubernetes/client-node';
import { FAILURE } from '../../schema/failures';
import type { KubernetesTargetSpec } from '../../schema/run-spec';
import type { KubernetesFacts, ProvisionRequest, TargetHandle } from '../../schema/target';
import { versionMatchesLabel } from '../../schema/version';
import { heartbeat } from '../../temporal/activity-context';
import { httpGet } from '../process';
import { readCredentials, portForward, type Credentials } from './access';
import {
  apiMessage,
  cellNames,
  createOrExists,
  deleteIgnoringMissing,
  kubeFor,
  KubeConfigError,
  orMissing,
  statusOf,
  type CellNames,
  type Kube,
} from './kube';
import { CELL_ANNOTATION, CELL_LABEL, RUN_ID_ANNOTATION, RUN_LABEL, toLabelValue, type KubeObject } from './manifests';
import { renderCell, ZONE_LABEL } from './render';
import { waitForObject, type WaitStats } from './watch';

/** ClickHouse HTTP port in the pod. */
export const CLICKHOUSE_PORT = 8123;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const firstLine = (e: unknown) => ((e as Error)?.message ?? String(e)).split('\n')[0];

/** Thrown inside the Ready wait when the pod stays unschedulable; a pinned re-provision answers it with a fresh volume. */
class UnschedulableError extends Error {
  constructor(readonly eventText: string) {
    super(eventText);
  }
}

/** Whether an object carries this run's and cell's labels. */
function ownedBy(obj: { metadata?: { labels?: Record<string, string> } } | undefined, req: ProvisionRequest): boolean {
  const l = obj?.metadata?.labels ?? {};
  return l[RUN_LABEL] === toLabelValue(req.runId) && l[CELL_LABEL] === toLabelValue(req.cellKey);
}

function conflict(kind: string, ns: string, name: string, obj: { metadata?: k8s.V1ObjectMeta }): ApplicationFailure {
  const l = obj.metadata?.labels ?? {};
  const a = obj.metadata?.annotations ?? {};
  const owner = l[RUN_LABEL]
    ? `run ${a[RUN_ID_ANNOTATION] ?? l[RUN_LABEL]}, cell ${a[CELL_ANNOTATION] ?? l[CELL_LABEL]}`
    : `nothing chbench knows (no ${RUN_LABEL} label)`;
  return ApplicationFailure.create({
    type: FAILURE.ResourceConflict,
    nonRetryable: true,
    message: `${kind} ${ns}/${name} exists and belongs to ${owner}, not to this cell; chbench does not adopt or delete it`,
  });
}

/** Wait until a namespaced object is gone (404), heartbeating. @throws Error after `timeoutMs` */
export async function waitGone(
  what: string,
  read: () => Promise<unknown>,
  timeoutMs: number,
  silenceMs: number,
  watchArgs?: { kube: Kube; path: string; name: string; list: (fs: string) => Promise<{ items: unknown[] }> },
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  if (watchArgs) {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), timeoutMs)));
    try {
      const r = await Promise.race([
        waitForObject<unknown, 'gone'>({
          kc: watchArgs.kube.kc,
          path: watchArgs.path,
          name: watchArgs.name,
          silenceMs,
          list: watchArgs.list as never,
          decide: async (obj, stats) => {
            heartbeat({ step: 'teardown', k8s: `waiting for ${what} to go`, watch: describeStats(stats) });
            return obj === undefined || Date.now() > deadline ? 'gone' : undefined;
          },
        }),
        timeout,
      ]);
      if (r === 'gone' && (await orMissing(read)) === undefined) return;
    } finally {
      clearTimeout(timer);
    }
  }
  while (Date.now() < deadline) {
    if ((await orMissing(read)) === undefined) return;
    heartbeat({ step: 'teardown', k8s: `waiting for ${what} to go` });
    await sleep(200);
  }
  throw new Error(`${what} still exists after ${timeoutMs} ms`);
}

function describeStats(s: WaitStats): string {
  return `${s.lists} list(s), ${s.silentWatches} silent watch(es) re-listed, ${s.endedWatches} ended, ${s.errorEvents} ERROR event(s)`;
}

/** Latest core/v1 events of an object, newest last. */
async function eventsOf(kube: Kube, ns: string, name: string): Promise<k8s.CoreV1Event[]> {
  const list = await kube.core.listNamespacedEvent({ namespace: ns, fieldSelector: `involvedObject.name=${name}` });
  const t = (e: k8s.CoreV1Event) =>
    new Date((e.lastTimestamp ?? e.eventTime ?? e.metadata?.creationTimestamp ?? 0) as string | Date).getTime();
  return [...list.items].sort(
    (a, b) => t(a) - t(b) || Number(a.metadata?.resourceVersion) - Number(b.metadata?.resourceVersion),
  );
}

const lastOf = (evs: k8s.CoreV1Event[], reasons: string[]) =>
  [...evs].reverse().find((e) => reasons.includes(e.reason ?? ''));

/** What the Ready wait returns. */
interface Ready {
  pod: k8s.V1Pod;
}

/**
 * Wait until the pod is Ready with an IP. Heartbeats pod phase, conditions, waiting reason and the
 * latest event; turns events into failures (see the module comment).
 */
async function waitReady(
  kube: Kube,
  spec: KubernetesTargetSpec,
  ns: string,
  names: CellNames,
  image: string,
): Promise<Ready> {
  const t = spec.timeouts;
  const start = Date.now();
  let unschedSince: number | undefined;
  /** When the pod was first seen scheduled: the start of the claim's `pvcMs` clock. */
  let scheduledSince: number | undefined;
  let pullingSince: number | undefined;
  let pullFailedSince: number | undefined;
  let evCache: { at: number; items: k8s.CoreV1Event[]; pvc: k8s.CoreV1Event[] } | undefined;
  const events = async () => {
    if (!evCache || Date.now() - evCache.at > 400)
      evCache = {
        at: Date.now(),
        items: await eventsOf(kube, ns, names.pod),
        pvc: await eventsOf(kube, ns, names.pvc),
      };
    return evCache;
  };
  return waitForObject<k8s.V1Pod, Ready>({
    kc: kube.kc,
    path: `/api/v1/namespaces/${ns}/pods`,
    name: names.pod,
    silenceMs: t.watchSilenceMs,
    list: (fieldSelector) => kube.core.listNamespacedPod({ namespace: ns, fieldSelector }),
    decide: async (pod, stats) => {
      const now = Date.now();
      if (!pod) throw new Error(`pod ${ns}/${names.pod} disappeared while waiting for it to be Ready`);
      if (pod.metadata?.deletionTimestamp) throw new Error(`pod ${ns}/${names.pod} is being deleted`);
      const st = pod.status ?? {};
      const cs = st.containerStatuses?.[0];
      const waiting = cs?.state?.waiting;
      const cond = (type: string) => st.conditions?.find((c) => c.type === type);
      const { items: evs, pvc: pvcEvs } = await events();
      const latest = evs[evs.length - 1];
      heartbeat({
        step: 'provision',
        k8s: {
          pod: names.pod,
          phase: st.phase ?? 'unknown',
          conditions: (st.conditions ?? [])
            .map((c) => `${c.type}=${c.status}${c.reason ? ` (${c.reason})` : ''}`)
            .join(', '),
          ...(waiting?.reason ? { waiting: waiting.reason } : {}),
          ...(latest ? { event: `${latest.reason}: ${latest.message}` } : {}),
          watch: describeStats(stats),
        },
      });
      if (st.phase === 'Failed')
        throw new Error(`pod ${ns}/${names.pod} failed while starting: ${st.reason ?? ''} ${st.message ?? ''}`.trim());
      if (cond('Ready')?.status === 'True' && st.podIP) return { pod };

      if (
        waiting?.reason === 'ErrImagePull' ||
        waiting?.reason === 'ImagePullBackOff' ||
        waiting?.reason === 'InvalidImageName'
      ) {
        evCache = undefined;
        const failed = (await events()).items.filter((e) => e.reason === 'Failed');
        // "Failed to pull image …: <why>" says why; "Error: ErrImagePull" only repeats the reason.
        const ev = [...failed].reverse().find((e) => /pull image/i.test(e.message ?? '')) ?? failed[failed.length - 1];
        // The kubelet's event may trail the status a moment: wait for it (the reason is final).
        if (!ev && now - (pullFailedSince ??= now) < 2000) return undefined;
        throw ApplicationFailure.create({
          type: FAILURE.ImagePull,
          nonRetryable: true,
          message: `image ${image} cannot be pulled (${waiting.reason}): ${ev?.message ?? waiting.message ?? 'no event'}; is version in target.images or a published clickhouse/clickhouse-server tag?`,
        });
      }
      const pulling = lastOf(evs, ['Pulling', 'Pulled']);
      if (pulling?.reason === 'Pulling') pullingSince ??= now;
      else pullingSince = undefined;
      if (pullingSince !== undefined && now - pullingSince > t.pullMs)
        throw ApplicationFailure.create({
          type: FAILURE.ImagePull,
          nonRetryable: true,
          message: `image ${image} still pulling after ${t.pullMs} ms: ${pulling?.message ?? ''}`,
        });

      // The claim: Pending for pvcMs is a failure with why.
      const pvc = await orMissing(() =>
        kube.core.readNamespacedPersistentVolumeClaim({ name: names.pvc, namespace: ns }),
      );
      // Its clock starts when the pod is scheduled (WaitForFirstConsumer binds only then), and it
      // does not run while the pod waits for a node for another reason (that is Unschedulable's).
      const schedNow = cond('PodScheduled');
      if (schedNow?.status === 'True') scheduledSince ??= now;
      const waitingForNode =
        schedNow?.status === 'False' &&
        schedNow.reason === 'Unschedulable' &&
        !/persistentvolumeclaim|volume/i.test(lastOf(evs, ['FailedScheduling'])?.message ?? schedNow.message ?? '');
      if (pvc?.status?.phase === 'Pending' && !waitingForNode && now - (scheduledSince ?? start) > t.pvcMs) {
        const why = await pendingWhy(kube, spec, pvc, pod, pvcEvs);
        throw ApplicationFailure.create({
          type: FAILURE.VolumePending,
          nonRetryable: true,
          message: `PVC ${ns}/${names.pvc} still Pending after ${t.pvcMs} ms: ${why}`,
        });
      }

      const sched = cond('PodScheduled');
      if (sched?.status === 'False' && sched.reason === 'Unschedulable') {
        unschedSince ??= now;
        if (now - unschedSince >= t.scheduleMs) {
          const ev = lastOf(evs, ['FailedScheduling']);
          throw new UnschedulableError(ev?.message ?? sched.message ?? 'Unschedulable');
        }
      } else unschedSince = undefined;

      if (now - start > t.readyMs)
        throw new Error(
          `pod ${ns}/${names.pod} not Ready after ${t.readyMs} ms (phase ${st.phase}, ${waiting?.reason ?? 'no waiting reason'}; latest event ${latest ? `${latest.reason}: ${latest.message}` : 'none'})`,
        );
      return undefined;
    },
  });
}

/** Why a PVC is Pending: its ProvisioningFailed event, a missing StorageClass, or WaitForFirstConsumer without a scheduled consumer. */
async function pendingWhy(
  kube: Kube,
  spec: KubernetesTargetSpec,
  pvc: k8s.V1PersistentVolumeClaim,
  pod: k8s.V1Pod,
  evs: k8s.CoreV1Event[],
): Promise<string> {
  const failed = lastOf(evs, ['ProvisioningFailed']);
  const className = pvc.spec?.storageClassName ?? spec.storageClass.name;
  const sc = await orMissing(() => kube.storage.readStorageClass({ name: className }));
  const parts: string[] = [];
  if (!sc)
    parts.push(
      `StorageClass ${className} does not exist${spec.storageClass.create ? '' : ' (target.storageClass.create is false)'}`,
    );
  if (failed) parts.push(`ProvisioningFailed: ${failed.message}`);
  if (sc?.volumeBindingMode === 'WaitForFirstConsumer' && !pod.spec?.nodeName)
    parts.push(
      `StorageClass ${className} is WaitForFirstConsumer and the pod ${pod.metadata?.name} is not scheduled yet`,
    );
  if (!parts.length) {
    const last = evs[evs.length - 1];
    parts.push(last ? `latest event ${last.reason}: ${last.message}` : 'no event on the claim');
  }
  return parts.join('; ');
}

/** Zone of a PV from its required node affinity on {@link ZONE_LABEL} (or the CSI zone key). */
function pvZone(pv: k8s.V1PersistentVolume | undefined): string | undefined {
  for (const term of pv?.spec?.nodeAffinity?.required?.nodeSelectorTerms ?? [])
    for (const e of term.matchExpressions ?? [])
      if ((e.key === ZONE_LABEL || e.key === 'topology.ebs.csi.aws.com/zone') && e.values?.length) return e.values[0];
  return undefined;
}

/** What {@link deleteAndWait} needs of one namespaced kind. */
interface Deletable {
  /** `pod` or `PVC`, for messages. */
  what: string;
  /** The kind's collection under the namespace, e.g. `pods`. */
  plural: string;
  /** Which of `timeouts` bounds the wait. */
  bound: 'readyMs' | 'pvcMs';
  del: (kube: Kube, ns: string, name: string) => Promise<unknown>;
  read: (kube: Kube, ns: string, name: string) => Promise<unknown>;
  list: (kube: Kube, ns: string, fieldSelector: string) => Promise<{ items: unknown[] }>;
}

/** Delete the object (if any) and wait, with a watch, until it is gone. */
async function deleteAndWait(
  k: Deletable,
  kube: Kube,
  ns: string,
  name: string,
  spec: Pick<KubernetesTargetSpec, 'timeouts'>,
): Promise<void> {
  await deleteIgnoringMissing(() => k.del(kube, ns, name));
  await waitGone(
    `${k.what} ${ns}/${name}`,
    () => k.read(kube, ns, name),
    spec.timeouts[k.bound],
    spec.timeouts.watchSilenceMs,
    { kube, path: `/api/v1/namespaces/${ns}/${k.plural}`, name, list: (fs) => k.list(kube, ns, fs) },
  );
}

const POD: Deletable = {
  what: 'pod',
  plural: 'pods',
  bound: 'readyMs',
  del: (kube, namespace, name) => kube.core.deleteNamespacedPod({ name, namespace }),
  read: (kube, namespace, name) => kube.core.readNamespacedPod({ name, namespace }),
  list: (kube, namespace, fieldSelector) => kube.core.listNamespacedPod({ namespace, fieldSelector }),
};

const PVC: Deletable = {
  what: 'PVC',
  plural: 'persistentvolumeclaims',
  bound: 'pvcMs',
  del: (kube, namespace, name) => kube.core.deleteNamespacedPersistentVolumeClaim({ name, namespace }),
  read: (kube, namespace, name) => kube.core.readNamespacedPersistentVolumeClaim({ name, namespace }),
  list: (kube, namespace, fieldSelector) => kube.core.listNamespacedPersistentVolumeClaim({ namespace, fieldSelector }),
};

/** Delete the pod (if any) and wait until it is gone (bounded by `timeouts.readyMs`). */
const deletePod = (kube: Kube, ns: string, name: string, spec: Pick<KubernetesTargetSpec, 'timeouts'>) =>
  deleteAndWait(POD, kube, ns, name, spec);

/** Delete the PVC (if any) and wait until it is gone (bounded by `timeouts.pvcMs`). */
const deletePvc = (kube: Kube, ns: string, name: string, spec: Pick<KubernetesTargetSpec, 'timeouts'>) =>
  deleteAndWait(PVC, kube, ns, name, spec);

export { deletePod, deletePvc };

/** Create the PVC, or adopt this cell's. @returns the claim and whether it was already bound (a re-provision) */
async function ensurePvc(
  kube: Kube,
  req: ProvisionRequest,
  ns: string,
  body: KubeObject,
  spec: KubernetesTargetSpec,
): Promise<{ pvc: k8s.V1PersistentVolumeClaim; existed: boolean }> {
  const name = body.metadata.name;
  for (let i = 0; i < 3; i++) {
    const r = await createOrExists(() =>
      kube.core.createNamespacedPersistentVolumeClaim({ namespace: ns, body: body as k8s.V1PersistentVolumeClaim }),
    );
    const pvc = await kube.core.readNamespacedPersistentVolumeClaim({ name, namespace: ns });
    if (r === 'created') return { pvc, existed: false };
    if (!ownedBy(pvc, req)) throw conflict('PVC', ns, name, pvc);
    if (pvc.metadata?.deletionTimestamp) {
      await waitGone(
        `PVC ${ns}/${name}`,
        () => kube.core.readNamespacedPersistentVolumeClaim({ name, namespace: ns }),
        spec.timeouts.pvcMs,
        spec.timeouts.watchSilenceMs,
      );
      continue;
    }
    return { pvc, existed: true };
  }
  throw new Error(`PVC ${ns}/${name} keeps being deleted while chbench creates it`);
}

/**
 * Create the pod, or adopt this cell's; a pod of this cell that Failed (Evicted) or is being
 * deleted is deleted first and made again.
 */
async function ensurePod(
  kube: Kube,
  req: ProvisionRequest,
  ns: string,
  body: KubeObject,
  spec: KubernetesTargetSpec,
): Promise<{ adopted: boolean; replacedWhy?: string }> {
  const name = body.metadata.name;
  let replacedWhy: string | undefined;
  for (let i = 0; i < 3; i++) {
    const r = await createOrExists(() => kube.core.createNamespacedPod({ namespace: ns, body: body as k8s.V1Pod }));
    if (r === 'created') return { adopted: false, replacedWhy };
    const pod = await orMissing(() => kube.core.readNamespacedPod({ name, namespace: ns }));
    if (!pod) continue;
    if (!ownedBy(pod, req)) throw conflict('pod', ns, name, pod);
    const lost =
      pod.metadata?.deletionTimestamp !== undefined && pod.metadata?.deletionTimestamp !== null
        ? 'being deleted'
        : pod.status?.phase === 'Failed' || pod.status?.phase === 'Succeeded'
          ? `${pod.status.phase}${pod.status.reason ? ` (${pod.status.reason})` : ''}`
          : undefined;
    if (!lost) return { adopted: true };
    replacedWhy = `the earlier pod was ${lost}`;
    await deletePod(kube, ns, name, spec);
  }
  throw new Error(`pod ${ns}/${name} cannot be created: it keeps coming back`);
}

/** Namespace and StorageClass: created when missing, left alone when they exist. */
async function ensureShared(kube: Kube, spec: KubernetesTargetSpec, ns: KubeObject, sc: KubeObject): Promise<void> {
  const existing = await orMissing(() => kube.core.readNamespace({ name: spec.namespace }));
  if (!existing) await createOrExists(() => kube.core.createNamespace({ body: ns as k8s.V1Namespace }));
  if (spec.storageClass.create) {
    const have = await orMissing(() => kube.storage.readStorageClass({ name: spec.storageClass.name }));
    if (!have)
      await createOrExists(() => kube.storage.createStorageClass({ body: sc as unknown as k8s.V1StorageClass }));
  }
}

/** What answers in the pod: the embedded engine answers `GET /chbench/info` with 200 JSON. */
async function serverKind(url: string, creds: Credentials): Promise<KubernetesFacts['server']> {
  try {
    const r = await httpGet(`${url}/chbench/info`, 5000, {
      'X-ClickHouse-User': creds.username,
      'X-ClickHouse-Key': creds.password,
    });
    if (r.status === 200) {
      JSON.parse(r.body);
      return 'chbench embedded engine';
    }
  } catch {
    // not the embedded engine
  }
  return 'clickhouse-server';
}

/** `SELECT version()` over HTTP with the Secret's credentials; retried briefly (a Ready pod may still start its HTTP side). */
async function serverVersion(url: string, creds: Credentials): Promise<string> {
  let last: unknown;
  for (let i = 0; i < 20; i++) {
    const client = createClient({ url, username: creds.username, password: creds.password, request_timeout: 10_000 });
    try {
      const rs = await client.query({ query: 'SELECT version()', format: 'JSONCompact' });
      const body = (await rs.json()) as unknown as { data: unknown[][] };
      return String(body.data[0][0]);
    } catch (e) {
      last = e;
      if (!/ECONNREFUSED|ECONNRESET|socket hang up|timeout/i.test(String((e as Error)?.message ?? e))) break;
      await sleep(250);
    } finally {
      await client.close().catch(() => undefined);
    }
  }
  throw new Error(`${url}: SELECT version() failed: ${firstLine(last)}`);
}

/**
 * Provision the cell's pod and PVC (see the module comment).
 * @throws ApplicationFailure `ImagePull` / `Unschedulable` / `VolumePending` / `ResourceConflict`
 *   (non-retryable, with the event text); Error for anything a retry may fix (API errors, a pod that
 *   failed while starting, a wrong version)
 */
export async function provisionKubernetes(spec: KubernetesTargetSpec, req: ProvisionRequest): Promise<TargetHandle> {
  let kube: Kube;
  try {
    kube = kubeFor(spec);
  } catch (e) {
    // Deterministic: the same kubeconfig fails the same way on every attempt.
    if (e instanceof KubeConfigError)
      throw ApplicationFailure.create({ type: FAILURE.InvalidSpec, nonRetryable: true, message: e.message });
    throw e;
  }
  const ns = spec.namespace;
  const names = cellNames(req.runId, req.cellKey);
  const step = (what: string) => heartbeat({ step: 'provision', k8s: what });

  let objs = await renderCell(spec, req, names);
  step(`namespace ${ns}, StorageClass ${spec.storageClass.name}`);
  await ensureShared(kube, spec, objs.namespace, objs.storageClass);
  step(`Secret ${ns}/${spec.credentialsSecret}`);
  const creds = await readCredentials(kube, ns, spec.credentialsSecret, spec.createSecret);

  step(`PVC ${ns}/${names.pvc}`);
  const { pvc, existed } = await ensurePvc(kube, req, ns, objs.pvc, spec);
  let volume: KubernetesFacts['volume'] = 'new';
  let volumeNote: string | undefined;
  let pinnedZone: string | undefined;
  if (existed && pvc.spec?.volumeName) {
    const pv = await orMissing(() => kube.core.readPersistentVolume({ name: pvc.spec!.volumeName! }));
    pinnedZone = pvZone(pv);
    volume = 'reused';
    if (pinnedZone) objs = await renderCell(spec, req, names, pinnedZone);
  }

  step(`pod ${ns}/${names.pod}`);
  let podResult = await ensurePod(kube, req, ns, objs.pod, spec);
  let ready: Ready;
  try {
    ready = await waitReady(
      kube,
      spec,
      ns,
      names,
      (objs.pod.spec as { containers: { image: string }[] }).containers[0].image,
    );
  } catch (e) {
    if (!(e instanceof UnschedulableError)) throw e;
    if (!pinnedZone)
      throw ApplicationFailure.create({
        type: FAILURE.Unschedulable,
        nonRetryable: true,
        message: `pod ${ns}/${names.pod} unschedulable for ${spec.timeouts.scheduleMs} ms: ${e.eventText}`,
      });
    // The volume's zone cannot take the pod: start over on a fresh volume, and say so.
    volumeNote = `the cell's volume is in ${pinnedZone}, where the pod stayed unschedulable for ${spec.timeouts.scheduleMs} ms (${e.eventText}); pod and PVC deleted, a fresh volume made: the cell's earlier data is gone`;
    step(`replacing volume: ${volumeNote}`);
    await deletePod(kube, ns, names.pod, spec);
    await deletePvc(kube, ns, names.pvc, spec);
    objs = await renderCell(spec, req, names);
    await ensurePvc(kube, req, ns, objs.pvc, spec);
    podResult = await ensurePod(kube, req, ns, objs.pod, spec);
    volume = 'replaced';
    try {
      ready = await waitReady(
        kube,
        spec,
        ns,
        names,
        (objs.pod.spec as { containers: { image: string }[] }).containers[0].image,
      );
    } catch (e2) {
      if (!(e2 instanceof UnschedulableError)) throw e2;
      throw ApplicationFailure.create({
        type: FAILURE.Unschedulable,
        nonRetryable: true,
        message: `pod ${ns}/${names.pod} unschedulable for ${spec.timeouts.scheduleMs} ms: ${e2.eventText}`,
      });
    }
  }

  const facts = await readFacts(kube, spec, names, ready.pod, volume, volumeNote);
  const podUrl = `http://${facts.podIP}:${CLICKHOUSE_PORT}`;
  const reachUrl =
    spec.access === 'portForward'
      ? (await portForward(kube, ns, names.pod, facts.podUid, CLICKHOUSE_PORT)).url
      : podUrl;
  facts.server = await serverKind(reachUrl, creds);
  const version = await serverVersion(reachUrl, creds);
  if (!versionMatchesLabel(version, req.version))
    throw new Error(
      `pod ${ns}/${names.pod} (image ${facts.image}) is ClickHouse ${version}, but the cell asks for version ${req.version}`,
    );

  const where = [facts.instanceType, facts.zone].filter(Boolean).join(', ');
  const provisionedBy =
    `pod ${ns}/${names.pod}${podResult.adopted ? ' (adopted)' : ''} on ${facts.node ?? '?'}${where ? ` (${where})` : ''}, ` +
    `PVC ${names.pvc} → ${facts.volumeHandle ?? facts.pv ?? '?'} (${volume})` +
    (podResult.replacedWhy ? `; re-created: ${podResult.replacedWhy}` : '') +
    `; ${facts.server} ${version}`;
  return {
    kind: 'kubernetes',
    url: podUrl,
    database: 'default',
    username: creds.username,
    passwordSecret: { namespace: ns, name: spec.credentialsSecret, key: 'password' },
    runId: req.runId,
    cellKey: req.cellKey,
    provisionedBy,
    kubernetes: facts,
  };
}

/** Node, zone, instance type, provider id from the node; PV, volume handle, CSI driver from the claim's PV. */
async function readFacts(
  kube: Kube,
  spec: KubernetesTargetSpec,
  names: CellNames,
  pod: k8s.V1Pod,
  volume: KubernetesFacts['volume'],
  volumeNote: string | undefined,
): Promise<KubernetesFacts> {
  const ns = spec.namespace;
  const nodeName = pod.spec?.nodeName ?? null;
  const node = nodeName ? await orMissing(() => kube.core.readNode({ name: nodeName })) : undefined;
  const pvc = await kube.core.readNamespacedPersistentVolumeClaim({ name: names.pvc, namespace: ns });
  const pvName = pvc.spec?.volumeName ?? null;
  const pv = pvName ? await orMissing(() => kube.core.readPersistentVolume({ name: pvName })) : undefined;
  const labels = node?.metadata?.labels ?? {};
  const className = pvc.spec?.storageClassName ?? spec.storageClass.name;
  const sc = await orMissing(() => kube.storage.readStorageClass({ name: className }));
  return {
    namespace: ns,
    pod: names.pod,
    podUid: pod.metadata?.uid ?? '',
    pvc: names.pvc,
    image: pod.spec?.containers?.[0]?.image ?? '',
    access: spec.access,
    podIP: pod.status?.podIP ?? null,
    node: nodeName,
    instanceType: labels['node.kubernetes.io/instance-type'] ?? labels['beta.kubernetes.io/instance-type'] ?? null,
    zone: labels[ZONE_LABEL] ?? null,
    providerID: node?.spec?.providerID ?? null,
    pv: pvName,
    volumeHandle: pv?.spec?.csi?.volumeHandle ?? null,
    csiDriver: pv?.spec?.csi?.driver ?? null,
    storageClass: className,
    storageClassParameters: sc?.parameters ?? null,
    storageRequest: pvc.spec?.resources?.requests?.storage ?? spec.storageSize,
    volume,
    ...(volumeNote ? { volumeNote } : {}),
    server: 'clickhouse-server',
    restartCount: pod.status?.containerStatuses?.[0]?.restartCount ?? 0,
    ...(spec.kubeconfig ? { kubeconfig: spec.kubeconfig } : {}),
    ...(spec.context ? { context: spec.context } : {}),
  };
}

/** The API status text of an error, for messages. */
export function kubeErrorText(e: unknown): string {
  return statusOf(e) ? `HTTP ${statusOf(e)}: ${apiMessage(e)}` : firstLine(e);
}
