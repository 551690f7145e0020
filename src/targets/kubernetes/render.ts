/**
 * The objects of one cell, rendered from `manifests/` (the templates are the source) and then given
 * the spec's knobs on the parsed objects: namespace, StorageClass name, resources, node selector,
 * tolerations, affinity, annotations, image.
 */
import * as path from 'node:path';
import { REPO_ROOT } from '../../config';
import type { KubernetesTargetSpec } from '../../schema/run-spec';
import type { ProvisionRequest } from '../../schema/target';
import type { CellNames } from './kube';
import { loadManifests, toLabelValue, type KubeObject } from './manifests';

/** Directory of the templates. */
export const MANIFEST_DIR = path.join(REPO_ROOT, 'manifests');

/** Node label of the zone, read from nodes and written into a pinned pod's node affinity. */
export const ZONE_LABEL = 'topology.kubernetes.io/zone';

/** The image of a version: the spec's `images` entry, else `clickhouse/clickhouse-server:<version>`. */
export function imageFor(spec: Pick<KubernetesTargetSpec, 'images'>, version: string): string {
  return spec.images?.[version] ?? `clickhouse/clickhouse-server:${version}`;
}

/** The four per-cell objects. */
export interface CellObjects {
  namespace: KubeObject;
  storageClass: KubeObject;
  pvc: KubeObject;
  pod: KubeObject;
}

/**
 * Render the cell's objects.
 * @param zone when set, the pod gets a required node affinity on {@link ZONE_LABEL} = zone (a
 *   re-provision on a bound volume must land in the volume's zone)
 * @throws Error as `loadManifests` when a template does not render
 */
export async function renderCell(
  spec: KubernetesTargetSpec,
  req: ProvisionRequest,
  names: CellNames,
  zone?: string,
): Promise<CellObjects> {
  const objs = await loadManifests(MANIFEST_DIR, {
    version: req.version,
    runId: toLabelValue(req.runId),
    cellKey: toLabelValue(req.cellKey),
    runIdFull: req.runId,
    cellKeyFull: req.cellKey,
    owner: req.owner ? JSON.stringify(req.owner) : 'none (provisioned outside a workflow)',
    pod: names.pod,
    pvc: names.pvc,
    credentialsSecret: spec.credentialsSecret,
    storageSize: spec.storageSize,
    instanceType: spec.instanceType,
  });
  const find = (kind: string) => {
    const o = objs.find((x) => x.kind === kind);
    if (!o) throw new Error(`${MANIFEST_DIR}: no ${kind} template`);
    return o;
  };
  const namespace = find('Namespace');
  const storageClass = find('StorageClass');
  const pvc = find('PersistentVolumeClaim');
  const pod = find('Pod');

  namespace.metadata.name = spec.namespace;
  storageClass.metadata.name = spec.storageClass.name;
  pvc.metadata.namespace = spec.namespace;
  (pvc.spec as { storageClassName: string }).storageClassName = spec.storageClass.name;
  pod.metadata.namespace = spec.namespace;
  pod.metadata.annotations = { ...pod.metadata.annotations, ...spec.annotations };

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const ps = pod.spec as any;
  ps.nodeSelector = { ...ps.nodeSelector, ...spec.nodeSelector };
  if (spec.tolerations.length) ps.tolerations = spec.tolerations;
  if (spec.affinity) ps.affinity = structuredClone(spec.affinity);
  const c = ps.containers[0];
  c.image = imageFor(spec, req.version);
  c.resources = structuredClone(spec.resources);
  if (zone) {
    ps.affinity ??= {};
    ps.affinity.nodeAffinity ??= {};
    const req = (ps.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution ??= { nodeSelectorTerms: [] });
    const expr = { key: ZONE_LABEL, operator: 'In', values: [zone] };
    if (!req.nodeSelectorTerms.length) req.nodeSelectorTerms.push({ matchExpressions: [expr] });
    else for (const t of req.nodeSelectorTerms) t.matchExpressions = [...(t.matchExpressions ?? []), expr];
  }
  return { namespace, storageClass, pvc, pod };
}
