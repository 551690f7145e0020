/**
 * The AWS objects behind a Kubernetes cell: from the node's `spec.providerID` and the PV's CSI
 * `volumeHandle` to the EC2 instance and EBS volume, and their type, size and performance limits
 * (`DescribeVolumes`, `DescribeInstances`, `DescribeInstanceTypes`). Library code: the caller
 * builds the `EC2Client` (endpoint, region, credentials).
 */
import {
  DescribeInstanceTypesCommand,
  DescribeInstancesCommand,
  DescribeVolumesCommand,
  type EC2Client,
  type _InstanceType,
} from '@aws-sdk/client-ec2';

/** An EC2 instance id and its zone, from a node's `spec.providerID`. */
export interface ProviderId {
  /** Availability zone, e.g. `us-east-1a`. */
  zone: string;
  /** EC2 instance id, e.g. `i-0abc1234def567890`. */
  instanceId: string;
}

const INSTANCE_ID = /^i-[0-9a-f]{8,17}$/;
const VOLUME_ID = /^vol-[0-9a-f]{8,17}$/;

/**
 * Parse a Kubernetes node's `spec.providerID` as set by the AWS cloud provider:
 * `aws:///<zone>/<instance-id>` (e.g. `aws:///us-east-1a/i-0abc1234def567890`).
 * @throws Error naming the value when it is not of that form
 */
export function parseProviderId(providerID: string): ProviderId {
  const m = /^aws:\/\/\/([a-z0-9-]+)\/(i-[0-9a-f]+)$/.exec(providerID.trim());
  if (!m || !INSTANCE_ID.test(m[2])) {
    throw new Error(`providerID ${JSON.stringify(providerID)} is not aws:///<zone>/i-<hex> (not an EC2 node?)`);
  }
  return { zone: m[1], instanceId: m[2] };
}

/** An EBS volume id, and its zone when the handle carries one. */
export interface VolumeRef {
  /** EBS volume id, e.g. `vol-0123456789abcdef0`. */
  volumeId: string;
  /** Zone from a legacy `aws://<zone>/vol-…` handle; absent for a CSI handle. */
  zone?: string;
}

/**
 * Parse a PV's volume handle into an EBS volume id: the EBS CSI driver's `spec.csi.volumeHandle`
 * (`vol-0123…`), or the in-tree `spec.awsElasticBlockStore.volumeID` (`aws://us-east-1a/vol-0123…`,
 * also `vol-0123…`).
 * @throws Error naming the value when it holds no EBS volume id
 */
export function parseVolumeHandle(handle: string): VolumeRef {
  const h = handle.trim();
  if (VOLUME_ID.test(h)) return { volumeId: h };
  const m = /^aws:\/\/([a-z0-9-]*)\/(vol-[0-9a-f]+)$/.exec(h);
  if (m && VOLUME_ID.test(m[2])) return m[1] ? { volumeId: m[2], zone: m[1] } : { volumeId: m[2] };
  throw new Error(
    `volume handle ${JSON.stringify(handle)} is not an EBS volume id (vol-<hex> or aws://<zone>/vol-<hex>)`,
  );
}

/** An EBS volume as `DescribeVolumes` reports it, with the provisioned limits chbench compares against. */
export interface VolumeFacts {
  volumeId: string;
  /** `gp3`, `gp2`, `io1`, `io2`, `st1`, `sc1`, `standard`. */
  type: string;
  /** Provisioned size, GiB (`Size`). */
  sizeGiB: number;
  /**
   * Provisioned IOPS (`Iops`); for gp3 without a value, the gp3 baseline 3,000; for gp2 the
   * size-based baseline 3 IOPS/GiB within 100..16,000 (Amazon EBS User Guide, "Amazon EBS volume
   * types"); null when unknown.
   */
  iops: number | null;
  /**
   * Provisioned throughput, MiB/s (`Throughput`); for gp3 without a value, the baseline 125 MiB/s;
   * null when unknown (gp2's depends on size and burst credits).
   */
  throughputMiBs: number | null;
  /** Availability zone. */
  zone: string;
  /** `available`, `in-use`, …. */
  state: string;
}

/** gp3's included performance: 3,000 IOPS and 125 MiB/s at any size (Amazon EBS User Guide, "General Purpose SSD volumes"). */
export const GP3_BASELINE = { iops: 3000, throughputMiBs: 125 } as const;

/**
 * `DescribeVolumes` for one volume.
 * @param ec2 a configured client
 * @param volumeId `vol-…`
 * @returns type, size (GiB), IOPS, throughput (MiB/s), zone, state
 * @throws Error when the volume does not exist (the SDK's `InvalidVolume.NotFound`) or lacks a field
 */
export async function describeVolume(ec2: EC2Client, volumeId: string): Promise<VolumeFacts> {
  const out = await ec2.send(new DescribeVolumesCommand({ VolumeIds: [volumeId] }));
  const v = out.Volumes?.[0];
  if (!v || v.VolumeId !== volumeId) throw new Error(`DescribeVolumes: volume ${volumeId} not returned`);
  if (v.Size === undefined || !v.VolumeType || !v.AvailabilityZone) {
    throw new Error(`DescribeVolumes: volume ${volumeId} lacks Size, VolumeType or AvailabilityZone`);
  }
  const type = String(v.VolumeType);
  let iops: number | null = v.Iops ?? null;
  let throughputMiBs: number | null = v.Throughput ?? null;
  if (type === 'gp3') {
    iops ??= GP3_BASELINE.iops;
    throughputMiBs ??= GP3_BASELINE.throughputMiBs;
  } else if (type === 'gp2') {
    iops ??= Math.min(16000, Math.max(100, 3 * v.Size));
  }
  return {
    volumeId,
    type,
    sizeGiB: v.Size,
    iops,
    throughputMiBs,
    zone: v.AvailabilityZone,
    state: String(v.State ?? 'unknown'),
  };
}

/** An EC2 instance as `DescribeInstances` reports it. */
export interface InstanceFacts {
  instanceId: string;
  /** Instance type, e.g. `m5.xlarge`. */
  type: string;
  /** Availability zone. */
  zone: string;
  /** `running`, `stopped`, …. */
  state: string;
  /** Launch time, epoch ms, when reported. */
  launchTimeMs: number | null;
  /** Detailed (1-minute) monitoring on: without it, AWS/EC2 metrics have 5-minute periods. */
  detailedMonitoring: boolean;
}

/**
 * `DescribeInstances` for one instance.
 * @throws Error when the instance is not returned or lacks its type or zone
 */
export async function describeInstance(ec2: EC2Client, instanceId: string): Promise<InstanceFacts> {
  const out = await ec2.send(new DescribeInstancesCommand({ InstanceIds: [instanceId] }));
  const i = out.Reservations?.flatMap((r) => r.Instances ?? []).find((x) => x.InstanceId === instanceId);
  if (!i) throw new Error(`DescribeInstances: instance ${instanceId} not returned`);
  if (!i.InstanceType || !i.Placement?.AvailabilityZone) {
    throw new Error(`DescribeInstances: instance ${instanceId} lacks InstanceType or Placement.AvailabilityZone`);
  }
  return {
    instanceId,
    type: String(i.InstanceType),
    zone: i.Placement.AvailabilityZone,
    state: String(i.State?.Name ?? 'unknown'),
    launchTimeMs: i.LaunchTime ? i.LaunchTime.getTime() : null,
    detailedMonitoring: i.Monitoring?.State === 'enabled',
  };
}

/** An instance type's EBS limits (EBS-optimized), as `DescribeInstanceTypes` → `EbsInfo.EbsOptimizedInfo` gives them. */
export interface InstanceEbsLimits {
  /** Sustained throughput, MB/s (10^6 bytes/s; AWS quotes these for 128 KiB I/O). */
  baselineMBs: number;
  /** Sustained IOPS (16 KiB I/O). */
  baselineIops: number;
  /** Burst throughput (while `EBSByteBalance%` lasts), MB/s. */
  maximumMBs: number;
  /** Burst IOPS (while `EBSIOBalance%` lasts). */
  maximumIops: number;
}

/**
 * EBS limits of the article's m5.xlarge and a few common types. Source: EC2
 * `DescribeInstanceTypes` `EbsOptimizedInfo` (the same figures as the Amazon EC2 User Guide table
 * "Amazon EBS-optimized instance types"; read from moto 5.2.5's copy of AWS's instance-type data on
 * 2026-11-30 here). Check a real account with
 * `aws ec2 describe-instance-types --instance-types m5.xlarge --query 'InstanceTypes[].EbsInfo.EbsOptimizedInfo'`.
 */
export const INSTANCE_EBS_LIMITS: Readonly<Record<string, InstanceEbsLimits>> = {
  'm5.large': { baselineMBs: 81.25, baselineIops: 3600, maximumMBs: 593.75, maximumIops: 18750 },
  'm5.xlarge': { baselineMBs: 143.75, baselineIops: 6000, maximumMBs: 593.75, maximumIops: 18750 },
  'm5.2xlarge': { baselineMBs: 287.5, baselineIops: 12000, maximumMBs: 593.75, maximumIops: 18750 },
  'm5.4xlarge': { baselineMBs: 593.75, baselineIops: 18750, maximumMBs: 593.75, maximumIops: 18750 },
  'c5.xlarge': { baselineMBs: 143.75, baselineIops: 6000, maximumMBs: 593.75, maximumIops: 20000 },
  'r5.xlarge': { baselineMBs: 143.75, baselineIops: 6000, maximumMBs: 593.75, maximumIops: 18750 },
  'm6i.xlarge': { baselineMBs: 156.25, baselineIops: 6000, maximumMBs: 1250, maximumIops: 40000 },
  'c6i.xlarge': { baselineMBs: 156.25, baselineIops: 6000, maximumMBs: 1250, maximumIops: 40000 },
  'r6i.xlarge': { baselineMBs: 156.25, baselineIops: 6000, maximumMBs: 1250, maximumIops: 40000 },
  'm7i.xlarge': { baselineMBs: 156.25, baselineIops: 6000, maximumMBs: 1250, maximumIops: 40000 },
};

/**
 * An instance type's EBS limits: from `DescribeInstanceTypes` when the API answers with them,
 * else from {@link INSTANCE_EBS_LIMITS}, else null (the label then says the instance limit is unknown).
 * @returns the limits and where they came from
 */
export async function instanceEbsLimits(
  ec2: EC2Client,
  instanceType: string,
): Promise<{ limits: InstanceEbsLimits; source: string } | null> {
  try {
    const out = await ec2.send(new DescribeInstanceTypesCommand({ InstanceTypes: [instanceType as _InstanceType] }));
    const e = out.InstanceTypes?.[0]?.EbsInfo?.EbsOptimizedInfo;
    if (
      e?.BaselineThroughputInMBps !== undefined &&
      e.BaselineIops !== undefined &&
      e.MaximumThroughputInMBps !== undefined &&
      e.MaximumIops !== undefined
    ) {
      return {
        limits: {
          baselineMBs: e.BaselineThroughputInMBps,
          baselineIops: e.BaselineIops,
          maximumMBs: e.MaximumThroughputInMBps,
          maximumIops: e.MaximumIops,
        },
        source: 'EC2 DescribeInstanceTypes EbsOptimizedInfo',
      };
    }
  } catch {
    // No permission or an unknown type: fall back to the table.
  }
  const t = INSTANCE_EBS_LIMITS[instanceType];
  return t
    ? { limits: t, source: 'chbench table INSTANCE_EBS_LIMITS (EC2 User Guide, EBS-optimized instance types)' }
    : null;
}
