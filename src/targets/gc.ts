/**
 * `chbench gc`: find what runs left behind on this worker host — server processes and their
 * directories under the work dir — and remove those whose workflows are **positively** closed.
 *
 * Each directory's label (or owner file) records where its workflow lives: the worker's Temporal
 * address and namespace, the namespace's id, and the matrix and cell workflow ids
 * ({@link TemporalOwner}). gc asks *that* server, whatever server the CLI itself points at, and
 * removes a server only when:
 * - the matrix and the cell workflow are both closed there (completed, failed, cancelled,
 *   terminated, timed out), or
 * - a workflow is not found there **and** the namespace's id equals the one recorded at
 *   provisioning. Describe reads the workflow's persisted state, not the visibility index, so an
 *   open workflow is always found in its own namespace; it disappears only after it closed (retention,
 *   deletion). An id that differs means another namespace of the same name (a reset server, another
 *   server now on that address, where the run may still be going elsewhere) → kept.
 *
 * Everything else is kept and the reason printed: the server unreachable, the namespace missing or a
 * different one, a workflow still open, an error while asking, a label without owner (older chbench,
 * or a server provisioned outside a workflow). `--force` judges the latter by the CLI's own server
 * and namespace (the behaviour before owners were recorded), at the user's explicit request.
 *
 * Kubernetes ({@link collectKubernetesGarbage}): the pods and PVCs labelled
 * `app.kubernetes.io/managed-by=chbench`, judged by the owner in their `chbench.io/owner` annotation
 * the same way; the shared Namespace and StorageClass are never deleted.
 *
 * Docker ({@link collectDockerGarbage}): the containers and volumes labelled `chbench.managed-by=chbench`
 * on the engine `DOCKER_HOST` names, judged by their `chbench.owner` label the same way.
 */
import { readdirSync, rmSync, existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { listCellDirs, readLabel, readOwner, stopProcess } from './process';
import { removeCellCgroups } from '../process/cgroup';
import { TemporalOwner } from '../schema/target';
import { kubeFor } from './kubernetes/kube';
import { deletePod, deletePvc } from './kubernetes/provision';
import {
  CELL_ANNOTATION,
  CELL_LABEL,
  MANAGED_BY_LABEL,
  MANAGED_BY_VALUE,
  OWNER_ANNOTATION,
  RUN_ID_ANNOTATION,
  RUN_LABEL,
} from './kubernetes/manifests';
import {
  CELL_LABEL as DOCKER_CELL_LABEL,
  dockerClient,
  MANAGED_BY_LABEL as DOCKER_MANAGED_BY,
  MANAGED_BY_VALUE as DOCKER_MANAGED_VALUE,
  OWNER_LABEL as DOCKER_OWNER_LABEL,
  RUN_LABEL as DOCKER_RUN_LABEL,
} from './docker/engine';
import { removeContainer, removeVolume } from './docker/provision';

/** One resource gc looked at. */
export interface GcEntry {
  runId: string;
  cellKey: string;
  dataDir: string;
  pid?: number;
  /** Where its workflow lives, when the label records it. */
  owner?: TemporalOwner;
  /** Why it was kept or removed. */
  reason: string;
}

/** Options of {@link collectGarbage}. */
export interface GcOptions {
  /** List only. */
  dryRun?: boolean;
  /**
   * Also judge directories whose label records no owner, by this Temporal server and namespace
   * (normally the CLI's `TEMPORAL_ADDRESS` / `TEMPORAL_NAMESPACE`). Without it they are kept.
   * A workflow **not found** there does not count as closed (that server may not be the one that
   * ran it) unless `unowned` is set too; a workflow found closed there does.
   */
  force?: { address: string; namespace: string; unowned?: boolean };
  /** Connect timeout per Temporal server, ms. @default 5000 */
  connectTimeoutMs?: number;
}

/** Close statuses: the execution is over. Anything else (RUNNING, CONTINUED_AS_NEW, unknown) is not. */
const CLOSED = new Set(['COMPLETED', 'FAILED', 'CANCELLED', 'TERMINATED', 'TIMED_OUT']);

type Verdict = { remove: true; reason: string } | { remove: false; reason: string };

/** Connections to the Temporal servers named in labels, one per address, closed at the end. */
class Servers {
  private conns = new Map<string, Promise<Connection>>();
  constructor(private timeoutMs: number) {}
  connect(address: string): Promise<Connection> {
    let p = this.conns.get(address);
    if (!p) {
      p = Connection.connect({ address, connectTimeout: this.timeoutMs });
      p.catch(() => undefined);
      this.conns.set(address, p);
    }
    return p;
  }
  async close(): Promise<void> {
    for (const p of this.conns.values()) await p.then((c) => c.close()).catch(() => undefined);
  }
}

/** Status name of the latest execution of `workflowId`, or `NOT_FOUND`. @throws on other errors */
async function status(client: Client, workflowId: string): Promise<string> {
  try {
    return (await client.workflow.getHandle(workflowId).describe()).status.name;
  } catch (e) {
    if ((e as Error).name === 'WorkflowNotFoundError') return 'NOT_FOUND';
    throw e;
  }
}

const firstLine = (e: unknown) => ((e as Error)?.message ?? String(e)).split('\n')[0];

/** Decide for a directory whose owner is recorded: ask the owner's server and namespace. */
async function judgeOwned(servers: Servers, o: TemporalOwner): Promise<Verdict> {
  const where = `namespace ${o.namespace} on ${o.address}`;
  let conn: Connection;
  try {
    conn = await servers.connect(o.address);
    await conn.workflowService.getSystemInfo({});
  } catch (e) {
    return {
      remove: false,
      reason: `Temporal at ${o.address} (where ${o.workflowId} runs) is unreachable, cannot tell whether the run is still going (${firstLine(e)})`,
    };
  }
  let nsId: string | undefined;
  try {
    nsId = (await conn.workflowService.describeNamespace({ namespace: o.namespace })).namespaceInfo?.id ?? undefined;
  } catch (e) {
    return {
      remove: false,
      reason: `${where}: the run's namespace cannot be read there (${firstLine(e)}); not its server any more?`,
    };
  }
  if (o.namespaceId && nsId && nsId !== o.namespaceId)
    return {
      remove: false,
      reason: `${where} is not the namespace the run was started in (id ${nsId}, label says ${o.namespaceId}: server reset, or another server on this address)`,
    };
  const client = new Client({ connection: conn, namespace: o.namespace });
  const st: Record<string, string> = {};
  for (const id of [o.matrixWorkflowId, o.workflowId]) {
    try {
      st[id] = await status(client, id);
    } catch (e) {
      return { remove: false, reason: `${where}: cannot describe ${id} (${firstLine(e)})` };
    }
  }
  for (const [id, s] of Object.entries(st)) {
    if (s === 'NOT_FOUND') {
      if (!o.namespaceId || nsId !== o.namespaceId)
        return {
          remove: false,
          reason: `${where}: workflow ${id} not found, and the label has no namespace id to prove this is the run's namespace`,
        };
    } else if (!CLOSED.has(s)) return { remove: false, reason: `workflow ${id} is ${s.toLowerCase()} (${where})` };
  }
  const desc = Object.entries(st)
    .map(([id, s]) => `${id} ${s === 'NOT_FOUND' ? 'gone (not found in its own namespace, same id)' : s.toLowerCase()}`)
    .join(', ');
  return { remove: true, reason: `${desc} (${where})` };
}

/**
 * `--force` for a directory without owner: judged by the CLI's server. A workflow found open keeps
 * it; found closed counts as closed; not found counts as closed only with `f.unowned`
 * (`--force-unowned`), since the answering server may not be the one that ran it.
 */
async function judgeForced(
  servers: Servers,
  f: { address: string; namespace: string; unowned?: boolean },
  runId: string,
  cellKey: string,
  dir: string,
  pid: number | undefined,
): Promise<Verdict> {
  const flag = f.unowned ? '--force-unowned' : '--force';
  let client: Client;
  try {
    client = new Client({ connection: await servers.connect(f.address), namespace: f.namespace });
  } catch (e) {
    return {
      remove: false,
      reason: `no owner recorded; ${flag}: Temporal at ${f.address} is unreachable (${firstLine(e)})`,
    };
  }
  const st: string[] = [];
  for (const id of [runId, `${runId}/${cellKey}`]) {
    try {
      const s = await status(client, id);
      if (s !== 'NOT_FOUND' && !CLOSED.has(s))
        return {
          remove: false,
          reason: `no owner recorded; ${flag}: workflow ${id} is ${s.toLowerCase()} in namespace ${f.namespace} on ${f.address}`,
        };
      if (s === 'NOT_FOUND' && !f.unowned)
        return {
          remove: false,
          reason: `label records no owner; workflow ${id} not found in namespace ${f.namespace} on ${f.address}, which may not be the server that ran it — remove by hand with ${pid ? `kill ${pid}; ` : ''}rm -rf ${dir}, or pass --force-unowned to count "not found" as closed`,
        };
      st.push(`${id} ${s === 'NOT_FOUND' ? 'not found' : s.toLowerCase()}`);
    } catch (e) {
      return {
        remove: false,
        reason: `no owner recorded; ${flag}: cannot describe ${id} on ${f.address} (${firstLine(e)})`,
      };
    }
  }
  return {
    remove: true,
    reason: `no owner recorded; ${flag}: ${st.join(', ')} in namespace ${f.namespace} on ${f.address}`,
  };
}

/**
 * Remove leaked per-cell servers and directories under `workDir`, asking each one's own Temporal
 * server (recorded in its label) whether its run is closed.
 * @param workDir the worker's `CHBENCH_WORK_DIR`
 * @param opts.dryRun list only; opts.force also judge directories without owner (see {@link GcOptions})
 * @returns what was removed and what was kept, each with the reason
 */
export async function collectGarbage(
  workDir: string,
  opts: GcOptions = {},
): Promise<{ removed: GcEntry[]; kept: GcEntry[] }> {
  const removed: GcEntry[] = [];
  const kept: GcEntry[] = [];
  if (!existsSync(workDir)) return { removed, kept };
  const servers = new Servers(opts.connectTimeoutMs ?? 5000);
  try {
    for (const runDirName of readdirSync(workDir)) {
      const dirs = listCellDirs(workDir).filter((d) => path.basename(path.dirname(d)) === runDirName);
      for (const dir of dirs) {
        const label = readLabel(dir);
        const owner = readOwner(dir);
        const runId = owner?.matrixWorkflowId ?? label?.runId ?? runDirName;
        const cellKey = label?.cellKey ?? path.basename(dir);
        const entry: GcEntry = {
          runId,
          cellKey,
          dataDir: dir,
          ...(label?.pid ? { pid: label.pid } : {}),
          ...(owner ? { owner } : {}),
          reason: '',
        };
        const v: Verdict = owner
          ? await judgeOwned(servers, owner)
          : opts.force
            ? await judgeForced(servers, opts.force, runId, cellKey, dir, label?.pid)
            : {
                remove: false,
                reason: `${label ? 'its label' : 'no label; the directory'} records no Temporal owner (older chbench, or provisioned outside a workflow): cannot tell where its run lives; remove with --force (judged by TEMPORAL_ADDRESS/TEMPORAL_NAMESPACE)`,
              };
        entry.reason = v.reason;
        if (!v.remove) {
          kept.push(entry);
          continue;
        }
        if (!opts.dryRun) {
          await stopProcess(undefined, dir, 5000);
          removeCellCgroups(runId, cellKey);
        }
        removed.push(entry);
      }
      const runPath = path.join(workDir, runDirName);
      // Only run directories: the worker's own state files (host-disk-capacity.json) stay.
      if (
        !opts.dryRun &&
        statSync(runPath, { throwIfNoEntry: false })?.isDirectory() &&
        readdirSync(runPath).length === 0
      )
        rmSync(runPath, { recursive: true, force: true });
    }
  } finally {
    await servers.close();
  }
  return { removed, kept };
}

// ---------------------------------------------------------------------------------------------
// Kubernetes: pods and PVCs of closed runs, found by label

/** One Kubernetes object gc looked at (a cell's pod or PVC). */
export interface KubeGcEntry {
  /** `Pod` or `PersistentVolumeClaim`. */
  kind: 'Pod' | 'PersistentVolumeClaim';
  namespace: string;
  name: string;
  /** Full run id and cell key (annotations `chbench.io/run-id`, `chbench.io/cell-key`), else the labels. */
  runId: string;
  cellKey: string;
  /** Where its workflow lives (annotation `chbench.io/owner`), when it parses. */
  owner?: TemporalOwner;
  /** Why it was kept or removed. */
  reason: string;
}

/** Where gc looks for chbench's Kubernetes objects. */
export interface KubeGcScope {
  /** Kubeconfig path (absent: client-node's default lookup). */
  kubeconfig?: string;
  /** Kubeconfig context (absent: current-context). */
  context?: string;
  /** Namespace to search. @default `bench-database` */
  namespace?: string;
}

/**
 * Remove the pods and PVCs (label `app.kubernetes.io/managed-by=chbench`) whose owning workflows
 * (annotation `chbench.io/owner`) are positively closed on their own Temporal server, judged exactly
 * as the process targets' directories are; everything else is kept and the reason given. A pod is
 * deleted (and waited for) before its PVC; `reclaimPolicy: Delete` then destroys the volume. The
 * Namespace and the StorageClass are never deleted by gc (other runs and cells share them).
 * @param opts.dryRun list only; `force` is not used here (an object without owner is always kept)
 * @returns what was removed and what was kept, each with the reason
 * @throws Error when the cluster cannot be listed
 */
export async function collectKubernetesGarbage(
  scope: KubeGcScope,
  opts: GcOptions = {},
): Promise<{ removed: KubeGcEntry[]; kept: KubeGcEntry[] }> {
  const namespace = scope.namespace ?? 'bench-database';
  const kube = kubeFor(scope);
  const labelSelector = `${MANAGED_BY_LABEL}=${MANAGED_BY_VALUE}`;
  const pods = (await kube.core.listNamespacedPod({ namespace, labelSelector })).items;
  const pvcs = (await kube.core.listNamespacedPersistentVolumeClaim({ namespace, labelSelector })).items;
  const removed: KubeGcEntry[] = [];
  const kept: KubeGcEntry[] = [];
  const servers = new Servers(opts.connectTimeoutMs ?? 5000);
  const verdicts = new Map<string, Verdict>();
  const entryOf = (kind: KubeGcEntry['kind'], o: { metadata?: import('@kubernetes/client-node').V1ObjectMeta }) => {
    const md = o.metadata ?? {};
    const a = md.annotations ?? {};
    const l = md.labels ?? {};
    let owner: TemporalOwner | undefined;
    try {
      const p = TemporalOwner.safeParse(JSON.parse(a[OWNER_ANNOTATION] ?? 'null'));
      if (p.success) owner = p.data;
    } catch {
      // not JSON: no owner
    }
    return {
      kind,
      namespace,
      name: md.name ?? '',
      runId: a[RUN_ID_ANNOTATION] ?? l[RUN_LABEL] ?? '?',
      cellKey: a[CELL_ANNOTATION] ?? l[CELL_LABEL] ?? '?',
      ...(owner ? { owner } : {}),
      reason: '',
    } satisfies KubeGcEntry;
  };
  try {
    // Pods first, so a PVC is deleted only after the pod that mounts it.
    const entries = [...pods.map((p) => entryOf('Pod', p)), ...pvcs.map((p) => entryOf('PersistentVolumeClaim', p))];
    for (const e of entries) {
      let v: Verdict;
      if (!e.owner)
        v = {
          remove: false,
          reason: `no parseable ${OWNER_ANNOTATION} annotation: cannot tell where run ${e.runId} lives (delete it by hand if it is yours)`,
        };
      else {
        const key = JSON.stringify(e.owner);
        v = verdicts.get(key) ?? (await judgeOwned(servers, e.owner));
        verdicts.set(key, v);
      }
      e.reason = v.reason;
      if (!v.remove) {
        kept.push(e);
        continue;
      }
      if (!opts.dryRun) {
        if (e.kind === 'Pod') await deletePod(kube, namespace, e.name, { timeouts: GC_WAITS });
        else await deletePvc(kube, namespace, e.name, { timeouts: GC_WAITS });
      }
      removed.push(e);
    }
  } finally {
    await servers.close();
  }
  return { removed, kept };
}

/** Waits of gc's deletes, ms. */
const GC_WAITS = { scheduleMs: 300_000, pvcMs: 300_000, pullMs: 600_000, readyMs: 300_000, watchSilenceMs: 60_000 };

// ---------------------------------------------------------------------------------------------
// Docker: containers and volumes of closed runs, found by label

/** One Docker object gc looked at (a cell's container or volume). */
export interface DockerGcEntry {
  kind: 'container' | 'volume';
  /** Container or volume name. */
  name: string;
  /** Labels `chbench.run`, `chbench.cell`. */
  runId: string;
  cellKey: string;
  /** Where its workflow lives (label `chbench.owner`), when it parses. */
  owner?: TemporalOwner;
  /** Why it was kept or removed. */
  reason: string;
}

/**
 * Remove the containers and volumes labelled `chbench.managed-by=chbench` on the environment's Docker
 * engine (`DOCKER_HOST`) whose owning workflows (label `chbench.owner`) are positively closed on their
 * own Temporal server, judged exactly as the process targets' directories are; everything else is
 * kept with the reason. Containers are removed before volumes; a volume still used by a kept
 * container is kept.
 * @param opts.dryRun list only; `force` is not used (an object without owner is always kept)
 * @returns what was removed and what was kept, each with the reason
 * @throws Error when the engine cannot be listed (`GET /containers/json`, `GET /volumes`)
 */
export async function collectDockerGarbage(
  opts: GcOptions = {},
): Promise<{ removed: DockerGcEntry[]; kept: DockerGcEntry[] }> {
  const docker = dockerClient();
  const filters = JSON.stringify({ label: [`${DOCKER_MANAGED_BY}=${DOCKER_MANAGED_VALUE}`] });
  const containers = await docker.listContainers({ all: true, filters });
  const volumes = (await docker.listVolumes({ filters })).Volumes ?? [];
  const removed: DockerGcEntry[] = [];
  const kept: DockerGcEntry[] = [];
  const servers = new Servers(opts.connectTimeoutMs ?? 5000);
  const verdicts = new Map<string, Verdict>();
  const entryOf = (
    kind: DockerGcEntry['kind'],
    name: string,
    labels: Record<string, string> | null | undefined,
  ): DockerGcEntry => {
    const l = labels ?? {};
    let owner: TemporalOwner | undefined;
    try {
      const p = TemporalOwner.safeParse(JSON.parse(l[DOCKER_OWNER_LABEL] ?? 'null'));
      if (p.success) owner = p.data;
    } catch {
      // not JSON: no owner
    }
    return {
      kind,
      name,
      runId: l[DOCKER_RUN_LABEL] ?? '?',
      cellKey: l[DOCKER_CELL_LABEL] ?? '?',
      ...(owner ? { owner } : {}),
      reason: '',
    };
  };
  try {
    const entries = [
      ...containers.map((c) => entryOf('container', (c.Names[0] ?? c.Id).replace(/^\//, ''), c.Labels)),
      ...volumes.map((v) => entryOf('volume', v.Name, v.Labels)),
    ];
    const keptContainers = new Set<string>();
    for (const e of entries) {
      let v: Verdict;
      if (!e.owner)
        v = {
          remove: false,
          reason: `no parseable ${DOCKER_OWNER_LABEL} label: cannot tell where run ${e.runId} lives (remove it by hand if it is yours)`,
        };
      else {
        const key = JSON.stringify(e.owner);
        v = verdicts.get(key) ?? (await judgeOwned(servers, e.owner));
        verdicts.set(key, v);
      }
      if (v.remove && e.kind === 'volume' && keptContainers.has(`${e.runId}/${e.cellKey}`))
        v = { remove: false, reason: `a kept container of ${e.runId}/${e.cellKey} uses it` };
      e.reason = v.reason;
      if (!v.remove) {
        if (e.kind === 'container') keptContainers.add(`${e.runId}/${e.cellKey}`);
        kept.push(e);
        continue;
      }
      if (!opts.dryRun) {
        if (e.kind === 'container') await removeContainer(docker, e.name);
        else await removeVolume(docker, e.name);
      }
      removed.push(e);
    }
  } finally {
    await servers.close();
  }
  return { removed, kept };
}
