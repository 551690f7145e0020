"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * src/cloud against a real moto server (EC2 + CloudWatch over HTTP on loopback): a gp3 volume and an
 * m5.xlarge instance created with CreateVolume/RunInstances and read back with DescribeVolumes /
 * DescribeInstances / DescribeInstanceTypes; known minute-aligned datapoints published with
 * PutMetricData for that volume and instance (plus a noisy neighbour volume); then GetMetricData per
 * step window: the figures and labels, a window without datapoints (null, not 0), a window of
 * published zeros (0), a sub-minute window (not attributable) and a partial newest minute.
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const client_cloudwatch_1 = require("@aws-sdk/client-cloudwatch");
const client_ec2_1 = require("@aws-sdk/client-ec2");
const aws_1 = require("../../src/cloud/aws");
const metrics_1 = require("../../src/cloud/metrics");
const moto_1 = require("../helpers/moto");
const MIB = 1048576;
let moto;
let volumeId;
let otherVolumeId;
let instanceId;
// 30 minutes ago, on a minute boundary: every window below is long final (settle delay 3 min).
const T = Math.floor(Date.now() / 60_000) * 60_000 - 30 * 60_000;
const at = (m, s = 0) => T + m * 60_000 + s * 1000;
(0, node_test_1.before)(async () => {
    moto = await (0, moto_1.startMoto)();
    const v = await moto.ec2.send(new client_ec2_1.CreateVolumeCommand({
        AvailabilityZone: 'us-east-1a',
        Size: 100,
        VolumeType: 'gp3',
        Iops: 3000,
        Throughput: 125,
    }));
    volumeId = v.VolumeId ?? '';
    const o = await moto.ec2.send(new client_ec2_1.CreateVolumeCommand({ AvailabilityZone: 'us-east-1a', Size: 500, VolumeType: 'gp3' }));
    otherVolumeId = o.VolumeId ?? '';
    const r = await moto.ec2.send(new client_ec2_1.RunInstancesCommand({
        ImageId: 'ami-12c6146b',
        MinCount: 1,
        MaxCount: 1,
        InstanceType: 'm5.xlarge',
        Placement: { AvailabilityZone: 'us-east-1a' },
    }));
    instanceId = r.Instances?.[0]?.InstanceId ?? '';
});
(0, node_test_1.after)(async () => {
    await moto?.stop();
});
(0, node_test_1.test)('DescribeVolumes / DescribeInstances / DescribeInstanceTypes through the ids a node and a PV carry', async () => {
    const { instanceId: iid, zone } = (0, aws_1.parseProviderId)(`aws:///us-east-1a/${instanceId}`);
    const { volumeId: vid } = (0, aws_1.parseVolumeHandle)(volumeId);
    strict_1.default.deepEqual(await (0, aws_1.describeVolume)(moto.ec2, vid), {
        volumeId,
        type: 'gp3',
        sizeGiB: 100,
        iops: 3000,
        throughputMiBs: 125,
        zone: 'us-east-1a',
        state: 'available',
    });
    // moto, like AWS for a default gp3, omits Throughput: the gp3 baseline is filled in.
    const other = await (0, aws_1.describeVolume)(moto.ec2, otherVolumeId);
    strict_1.default.equal(other.throughputMiBs, 125);
    strict_1.default.equal(other.iops, 3000);
    const inst = await (0, aws_1.describeInstance)(moto.ec2, iid);
    strict_1.default.equal(inst.type, 'm5.xlarge');
    strict_1.default.equal(inst.zone, zone);
    strict_1.default.equal(inst.state, 'running');
    const lim = await (0, aws_1.instanceEbsLimits)(moto.ec2, 'm5.xlarge');
    strict_1.default.deepEqual(lim, {
        limits: aws_1.INSTANCE_EBS_LIMITS['m5.xlarge'],
        source: 'EC2 DescribeInstanceTypes EbsOptimizedInfo',
    });
    // The same, in one call from the node's providerID and the PV's CSI volumeHandle.
    strict_1.default.deepEqual(await (0, metrics_1.resolveCloudResources)(moto.ec2, `aws:///us-east-1a/${instanceId}`, volumeId), {
        volume: { volumeId, type: 'gp3', iops: 3000, throughputMiBs: 125 },
        instance: { instanceId, type: 'm5.xlarge', detailedMonitoring: false },
        instanceLimits: aws_1.INSTANCE_EBS_LIMITS['m5.xlarge'],
        instanceLimitsSource: 'EC2 DescribeInstanceTypes EbsOptimizedInfo',
        zone: 'us-east-1a',
        sizeGiB: 100,
    });
    await strict_1.default.rejects((0, aws_1.describeVolume)(moto.ec2, 'vol-0000000000000000f'), /InvalidVolume|not returned|does not exist/);
});
/** One datum per minute m ∈ [from, to) for the cell's volume or instance. */
function perMinute(on, metric, unit, from, to, value) {
    const dim = on === 'inst'
        ? { Name: 'InstanceId', Value: instanceId }
        : { Name: 'VolumeId', Value: on === 'vol' ? volumeId : otherVolumeId };
    const out = [];
    for (let m = from; m < to; m++) {
        out.push({ MetricName: metric, Dimensions: [dim], Timestamp: new Date(at(m)), Value: value, Unit: unit });
    }
    return out;
}
async function publish(namespace, data) {
    for (let i = 0; i < data.length; i += 500) {
        await moto.cloudwatch.send(new client_cloudwatch_1.PutMetricDataCommand({ Namespace: namespace, MetricData: data.slice(i, i + 500) }));
    }
}
(0, node_test_1.test)('GetMetricData per step window: figures, labels, empty vs zero, sub-minute window, partial minute', async () => {
    // What a kubelet would publish: minutes 0–4 load (writes, CPU 90 %), 5–7 a cold scan (reads at
    // 121 MiB/s, CPU 31 %), 7 also two short runs, 9–10 nothing at all, 11 zeros (idle volume, CPU 2 %).
    const ebs = [
        ...perMinute('vol', 'VolumeWriteBytes', 'Bytes', 0, 5, 50 * MIB * 60),
        ...perMinute('vol', 'VolumeReadBytes', 'Bytes', 0, 5, 0),
        ...perMinute('vol', 'VolumeWriteOps', 'Count', 0, 5, 400 * 60),
        ...perMinute('vol', 'VolumeReadOps', 'Count', 0, 5, 0),
        ...perMinute('vol', 'VolumeQueueLength', 'Count', 0, 5, 1.5),
        ...perMinute('vol', 'VolumeIdleTime', 'Seconds', 0, 5, 6),
        ...perMinute('vol', 'VolumeReadBytes', 'Bytes', 5, 8, 121 * MIB * 60),
        ...perMinute('vol', 'VolumeWriteBytes', 'Bytes', 5, 8, 0),
        ...perMinute('vol', 'VolumeReadOps', 'Count', 5, 8, 968 * 60),
        ...perMinute('vol', 'VolumeWriteOps', 'Count', 5, 8, 0),
        ...perMinute('vol', 'VolumeQueueLength', 'Count', 5, 8, 8),
        ...perMinute('vol', 'VolumeIdleTime', 'Seconds', 5, 8, 0),
        ...perMinute('vol', 'VolumeReadBytes', 'Bytes', 11, 12, 0),
        ...perMinute('vol', 'VolumeWriteBytes', 'Bytes', 11, 12, 0),
        ...perMinute('vol', 'VolumeReadOps', 'Count', 11, 12, 0),
        ...perMinute('vol', 'VolumeWriteOps', 'Count', 11, 12, 0),
        ...perMinute('vol', 'VolumeIdleTime', 'Seconds', 11, 12, 60),
        // A neighbour volume on the same account, busy at the same time: full dimensions keep it out.
        ...perMinute('other', 'VolumeReadBytes', 'Bytes', 0, 12, 500 * MIB * 60),
        ...perMinute('other', 'VolumeReadOps', 'Count', 0, 12, 9000 * 60),
    ];
    const ec2 = [
        ...perMinute('inst', 'CPUUtilization', 'Percent', 0, 5, 90),
        ...perMinute('inst', 'CPUUtilization', 'Percent', 5, 8, 31),
        ...perMinute('inst', 'CPUUtilization', 'Percent', 11, 12, 2),
        ...perMinute('inst', 'EBSReadBytes', 'Bytes', 5, 8, 121 * MIB * 60),
        ...perMinute('inst', 'EBSByteBalance%', 'Percent', 0, 8, 100),
        ...perMinute('inst', 'EBSIOBalance%', 'Percent', 0, 8, 100),
    ];
    await publish('AWS/EBS', ebs);
    await publish('AWS/EC2', ec2);
    const res = {
        volume: { volumeId, type: 'gp3', iops: 3000, throughputMiBs: 125 },
        instance: { instanceId, type: 'm5.xlarge' },
        instanceLimits: aws_1.INSTANCE_EBS_LIMITS['m5.xlarge'],
    };
    const steps = [
        { step: 'load', startMs: at(0, 2), endMs: at(4, 50) },
        { step: 'q3 cold #1', startMs: at(5), endMs: at(7) },
        { step: 'q1 cold #1', startMs: at(7, 10), endMs: at(7, 22) },
        { step: 'q1 warm #1', startMs: at(7, 30), endMs: at(7, 34) },
        { step: 'index build', startMs: at(9), endMs: at(11) },
        { step: 'quiesce', startMs: at(11), endMs: at(12) },
    ];
    const out = await (0, metrics_1.collectStepMetrics)(moto.cloudwatch, res, steps, { nowMs: Date.now() });
    strict_1.default.equal(out.partial, false);
    const by = (s) => {
        const r = out.steps.find((x) => x.step === s);
        strict_1.default.ok(r, s);
        return r;
    };
    const load = by('load');
    strict_1.default.ok(load.attributable);
    strict_1.default.equal(load.alignedStartMs, at(0));
    strict_1.default.equal(load.alignedEndMs, at(5));
    strict_1.default.equal(load.figures.writeMiBs, 50);
    strict_1.default.equal(load.figures.readMiBs, 0);
    strict_1.default.equal(load.figures.writeIops, 400);
    strict_1.default.equal(load.figures.queueLength, 1.5);
    strict_1.default.equal(load.figures.idlePct, 10);
    strict_1.default.equal(load.figures.cpuPct, 90);
    strict_1.default.deepEqual(load.figures.minutes, { volume: 5, instance: 5, of: 5 });
    strict_1.default.equal(load.bottleneck.label, 'cpu-bound');
    strict_1.default.equal(load.bottleneck.evidence, 'write 50.0 MiB/s = 40 % of gp3 125 MiB/s; 400 IOPS = 13 % of gp3 3,000 IOPS; CPU 90 %');
    const scan = by('q3 cold #1');
    strict_1.default.ok(scan.attributable);
    strict_1.default.equal(scan.figures.readMiBs, 121); // not 621: the neighbour volume's 500 MiB/s is not summed in
    strict_1.default.equal(scan.figures.readIops, 968);
    strict_1.default.equal(scan.figures.instanceEbsReadMiBs, 121);
    strict_1.default.equal(scan.figures.cpuMaxPct, 31);
    strict_1.default.equal(scan.figures.ebsByteBalancePct, 100);
    strict_1.default.equal(scan.bottleneck.label, 'disk-bound');
    strict_1.default.equal(scan.bottleneck.evidence, 'read 121 MiB/s = 97 % of gp3 125 MiB/s; 968 IOPS = 32 % of gp3 3,000 IOPS; CPU 31 %');
    const short = by('q1 cold #1');
    strict_1.default.equal(short.attributable, false);
    strict_1.default.equal(!short.attributable && short.reason, 'not attributable: window 12 s < period 60 s, shared with q1 warm #1');
    strict_1.default.equal(by('q1 warm #1').attributable, false);
    // No datapoint at all in 9–10: null everywhere, never 0; the label says so.
    const empty = by('index build');
    strict_1.default.ok(empty.attributable);
    strict_1.default.equal(empty.figures.readMiBs, null);
    strict_1.default.equal(empty.figures.writeIops, null);
    strict_1.default.equal(empty.figures.cpuPct, null);
    strict_1.default.deepEqual(empty.figures.minutes, { volume: 0, instance: 0, of: 2 });
    strict_1.default.deepEqual(empty.bottleneck, { label: 'unknown', evidence: 'disk: no data; CPU: no data' });
    // Published zeros are zeros.
    const zero = by('quiesce');
    strict_1.default.ok(zero.attributable);
    strict_1.default.equal(zero.figures.readMiBs, 0);
    strict_1.default.equal(zero.figures.writeMiBs, 0);
    strict_1.default.equal(zero.figures.idlePct, 100);
    strict_1.default.equal(zero.bottleneck.label, 'neither');
    strict_1.default.equal(zero.bottleneck.evidence, 'read 0.00 MiB/s = 0 % of gp3 125 MiB/s; 0.00 IOPS = 0 % of gp3 3,000 IOPS; CPU 2 %');
    // Read as if "now" were minute 8:30 of that run: the scan's newest minute (6) is not final before 7 + 3 min.
    const early = await (0, metrics_1.collectStepMetrics)(moto.cloudwatch, res, [steps[1]], { nowMs: at(8, 30) });
    const s = early.steps[0];
    strict_1.default.ok(s.attributable && s.partial);
    strict_1.default.equal(early.partial, true);
    strict_1.default.equal(early.finalAtMs, at(10)); // aligned end (minute 7) + 3 min
    strict_1.default.match(s.bottleneck.evidence, /; partial: newest minute not final before /);
});
//# sourceMappingURL=cloud-moto.test.js.map