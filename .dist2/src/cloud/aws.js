"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.INSTANCE_EBS_LIMITS = exports.GP3_BASELINE = void 0;
exports.parseProviderId = parseProviderId;
exports.parseVolumeHandle = parseVolumeHandle;
exports.describeVolume = describeVolume;
exports.describeInstance = describeInstance;
exports.instanceEbsLimits = instanceEbsLimits;
/**
 * The AWS objects behind a Kubernetes cell: from the node's `spec.providerID` and the PV's CSI
 * `volumeHandle` to the EC2 instance and EBS volume, and their type, size and performance limits
 * (`DescribeVolumes`, `DescribeInstances`, `DescribeInstanceTypes`). Library code: the caller
 * builds the `EC2Client` (endpoint, region, credentials).
 */
const client_ec2_1 = require("@aws-sdk/client-ec2");
const INSTANCE_ID = /^i-[0-9a-f]{8,17}$/;
const VOLUME_ID = /^vol-[0-9a-f]{8,17}$/;
/**
 * Parse a Kubernetes node's `spec.providerID` as set by the AWS cloud provider:
 * `aws:///<zone>/<instance-id>` (e.g. `aws:///us-east-1a/i-0abc1234def567890`).
 * @throws Error naming the value when it is not of that form
 */
function parseProviderId(providerID) {
    const m = /^aws:\/\/\/([a-z0-9-]+)\/(i-[0-9a-f]+)$/.exec(providerID.trim());
    if (!m || !INSTANCE_ID.test(m[2])) {
        throw new Error(`providerID ${JSON.stringify(providerID)} is not aws:///<zone>/i-<hex> (not an EC2 node?)`);
    }
    return { zone: m[1], instanceId: m[2] };
}
/**
 * Parse a PV's volume handle into an EBS volume id: the EBS CSI driver's `spec.csi.volumeHandle`
 * (`vol-0123…`), or the in-tree `spec.awsElasticBlockStore.volumeID` (`aws://us-east-1a/vol-0123…`,
 * also `vol-0123…`).
 * @throws Error naming the value when it holds no EBS volume id
 */
function parseVolumeHandle(handle) {
    const h = handle.trim();
    if (VOLUME_ID.test(h))
        return { volumeId: h };
    const m = /^aws:\/\/([a-z0-9-]*)\/(vol-[0-9a-f]+)$/.exec(h);
    if (m && VOLUME_ID.test(m[2]))
        return m[1] ? { volumeId: m[2], zone: m[1] } : { volumeId: m[2] };
    throw new Error(`volume handle ${JSON.stringify(handle)} is not an EBS volume id (vol-<hex> or aws://<zone>/vol-<hex>)`);
}
/** gp3's included performance: 3,000 IOPS and 125 MiB/s at any size (Amazon EBS User Guide, "General Purpose SSD volumes"). */
exports.GP3_BASELINE = { iops: 3000, throughputMiBs: 125 };
/**
 * `DescribeVolumes` for one volume.
 * @param ec2 a configured client
 * @param volumeId `vol-…`
 * @returns type, size (GiB), IOPS, throughput (MiB/s), zone, state
 * @throws Error when the volume does not exist (the SDK's `InvalidVolume.NotFound`) or lacks a field
 */
async function describeVolume(ec2, volumeId) {
    const out = await ec2.send(new client_ec2_1.DescribeVolumesCommand({ VolumeIds: [volumeId] }));
    const v = out.Volumes?.[0];
    if (!v || v.VolumeId !== volumeId)
        throw new Error(`DescribeVolumes: volume ${volumeId} not returned`);
    if (v.Size === undefined || !v.VolumeType || !v.AvailabilityZone) {
        throw new Error(`DescribeVolumes: volume ${volumeId} lacks Size, VolumeType or AvailabilityZone`);
    }
    const type = String(v.VolumeType);
    let iops = v.Iops ?? null;
    let throughputMiBs = v.Throughput ?? null;
    if (type === 'gp3') {
        iops ??= exports.GP3_BASELINE.iops;
        throughputMiBs ??= exports.GP3_BASELINE.throughputMiBs;
    }
    else if (type === 'gp2') {
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
/**
 * `DescribeInstances` for one instance.
 * @throws Error when the instance is not returned or lacks its type or zone
 */
async function describeInstance(ec2, instanceId) {
    const out = await ec2.send(new client_ec2_1.DescribeInstancesCommand({ InstanceIds: [instanceId] }));
    const i = out.Reservations?.flatMap((r) => r.Instances ?? []).find((x) => x.InstanceId === instanceId);
    if (!i)
        throw new Error(`DescribeInstances: instance ${instanceId} not returned`);
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
/**
 * EBS limits of the article's m5.xlarge and a few common types. Source: EC2
 * `DescribeInstanceTypes` `EbsOptimizedInfo` (the same figures as the Amazon EC2 User Guide table
 * "Amazon EBS-optimized instance types"; read from moto 5.2.5's copy of AWS's instance-type data on
 * 2026-11-30 here). Check a real account with
 * `aws ec2 describe-instance-types --instance-types m5.xlarge --query 'InstanceTypes[].EbsInfo.EbsOptimizedInfo'`.
 */
exports.INSTANCE_EBS_LIMITS = {
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
async function instanceEbsLimits(ec2, instanceType) {
    try {
        const out = await ec2.send(new client_ec2_1.DescribeInstanceTypesCommand({ InstanceTypes: [instanceType] }));
        const e = out.InstanceTypes?.[0]?.EbsInfo?.EbsOptimizedInfo;
        if (e?.BaselineThroughputInMBps !== undefined &&
            e.BaselineIops !== undefined &&
            e.MaximumThroughputInMBps !== undefined &&
            e.MaximumIops !== undefined) {
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
    }
    catch {
        // No permission or an unknown type: fall back to the table.
    }
    const t = exports.INSTANCE_EBS_LIMITS[instanceType];
    return t
        ? { limits: t, source: 'chbench table INSTANCE_EBS_LIMITS (EC2 User Guide, EBS-optimized instance types)' }
        : null;
}
//# sourceMappingURL=aws.js.map