/**
 * A Kubernetes cell's EBS volume and EC2 instance for its cloud figures and cost: from the EC2 API
 * where it still answers (DescribeVolumes, DescribeInstances, DescribeInstanceTypes), else from what
 * was recorded at provisioning (a volume deleted at teardown is not describable in real AWS).
 */
import type { EC2Client } from '@aws-sdk/client-ec2';
import type { CloudResourcesRecord } from '../schema/results';
import type { KubernetesFacts } from '../schema/target';
import {
  describeInstance,
  describeVolume,
  GP3_BASELINE,
  instanceEbsLimits,
  parseProviderId,
  parseVolumeHandle,
} from './aws';
import type { CloudResources } from './metrics';

/** Size of a PVC storage request in GiB (`100Gi` → 100, `1Ti` → 1024, `100G` → 93.13); null when unparsable. */
export function requestGiB(q: string): number | null {
  const m = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|Pi|k|M|G|T|P)?$/.exec(q.trim());
  if (!m) return null;
  const f: Record<string, number> = {
    Ki: 2 ** 10,
    Mi: 2 ** 20,
    Gi: 2 ** 30,
    Ti: 2 ** 40,
    Pi: 2 ** 50,
    k: 1e3,
    M: 1e6,
    G: 1e9,
    T: 1e12,
    P: 1e15,
  };
  return (Number(m[1]) * (m[2] ? f[m[2]] : 1)) / 2 ** 30;
}

/** A cell's Kubernetes facts with the two ids the EC2 API is asked by. */
export type DescribableKubernetesFacts = KubernetesFacts & { providerID: string; volumeHandle: string };

/**
 * The StorageClass parameters of chbench's own template when `name` is its class, else null (the
 * caller reads `manifests/storageclass.yaml`; this layer reads no files).
 */
export type StorageClassTemplate = (name: string) => Record<string, string> | null;

/**
 * The cell's volume and instance: what the EC2 API says (DescribeVolumes: VolumeType, Size, Iops,
 * Throughput, AvailabilityZone; DescribeInstances: InstanceType, Placement.AvailabilityZone,
 * Monitoring.State; the type's EBS limits from DescribeInstanceTypes or chbench's table), else what
 * was recorded at provisioning, each fallback saying so in its `source`.
 * @returns `res` for the CloudWatch reads, `rec` for `cloud-metrics.json` `resources`
 * @throws Error when `providerID` or `volumeHandle` does not parse (the describe calls' errors are caught)
 */
export async function resolveCellResources(
  ec2: EC2Client,
  k: DescribableKubernetesFacts,
  template: StorageClassTemplate,
): Promise<{ res: CloudResources; rec: CloudResourcesRecord }> {
  const { instanceId } = parseProviderId(k.providerID);
  const { volumeId } = parseVolumeHandle(k.volumeHandle);
  const volume = await volumeOf(ec2, volumeId, k, template);
  const instance = await instanceOf(ec2, instanceId, k);
  const lim = instance.type ? await instanceEbsLimits(ec2, instance.type) : null;
  const rec: CloudResourcesRecord = {
    volume,
    instance,
    instance_limits: lim
      ? {
          baseline_mb_s: lim.limits.baselineMBs,
          baseline_iops: lim.limits.baselineIops,
          maximum_mb_s: lim.limits.maximumMBs,
          maximum_iops: lim.limits.maximumIops,
          source: lim.source,
        }
      : null,
  };
  const res: CloudResources = {
    volume: {
      volumeId,
      type: volume.type ?? 'unknown',
      iops: volume.iops,
      throughputMiBs: volume.throughput_mib_s,
    },
    instance: {
      instanceId,
      type: instance.type ?? 'unknown',
      ...(instance.detailed_monitoring === null ? {} : { detailedMonitoring: instance.detailed_monitoring }),
    },
    instanceLimits: lim?.limits ?? null,
    ...(lim ? { instanceLimitsSource: lim.source } : {}),
  };
  return { res, rec };
}

/** The volume from DescribeVolumes, else from the PVC request, the node's zone and the StorageClass parameters. */
async function volumeOf(
  ec2: EC2Client,
  volumeId: string,
  k: DescribableKubernetesFacts,
  template: StorageClassTemplate,
): Promise<CloudResourcesRecord['volume']> {
  try {
    const v = await describeVolume(ec2, volumeId);
    return {
      volume_id: volumeId,
      type: v.type,
      size_gib: v.sizeGiB,
      iops: v.iops,
      throughput_mib_s: v.throughputMiBs,
      zone: v.zone,
      state: v.state,
      source: 'EC2 DescribeVolumes (VolumeType, Size, Iops, Throughput, AvailabilityZone)',
    };
  } catch (e) {
    const why = (e as Error).message.split('\n')[0];
    // The StorageClass parameters recorded at provisioning; older records: chbench's template if it is that class.
    const recorded = k.storageClassParameters ?? null;
    const sc = recorded ?? template(k.storageClass);
    const scSource = recorded
      ? `StorageClass ${k.storageClass} parameters recorded at provisioning`
      : `StorageClass ${k.storageClass} parameters (manifests/storageclass.yaml)`;
    const type = sc?.type ?? null;
    const num = (x: string | undefined) => (x === undefined || !Number.isFinite(Number(x)) ? null : Number(x));
    return {
      volume_id: volumeId,
      type,
      size_gib: requestGiB(k.storageRequest),
      iops: num(sc?.iops) ?? (type === 'gp3' ? GP3_BASELINE.iops : null),
      throughput_mib_s: num(sc?.throughput) ?? (type === 'gp3' ? GP3_BASELINE.throughputMiBs : null),
      zone: k.zone,
      state: 'not describable',
      source: `recorded at provisioning: size from the PVC request ${k.storageRequest}, zone from the node label${
        sc
          ? `, type/iops/throughput from ${scSource}`
          : `; StorageClass ${k.storageClass} parameters were not recorded and it is not chbench's template, so type/iops/throughput unknown`
      } (DescribeVolumes: ${why})`,
    };
  }
}

/** The instance from DescribeInstances, else from the node's labels recorded at provisioning. */
async function instanceOf(
  ec2: EC2Client,
  instanceId: string,
  k: DescribableKubernetesFacts,
): Promise<CloudResourcesRecord['instance']> {
  try {
    const i = await describeInstance(ec2, instanceId);
    return {
      instance_id: instanceId,
      type: i.type,
      zone: i.zone,
      state: i.state,
      detailed_monitoring: i.detailedMonitoring,
      source: 'EC2 DescribeInstances (InstanceType, Placement.AvailabilityZone, Monitoring.State)',
    };
  } catch (e) {
    return {
      instance_id: instanceId,
      type: k.instanceType,
      zone: k.zone,
      state: 'not describable',
      detailed_monitoring: null,
      source: `recorded at provisioning: node labels node.kubernetes.io/instance-type and topology.kubernetes.io/zone (DescribeInstances: ${(e as Error).message.split('\n')[0]})`,
    };
  }
}
