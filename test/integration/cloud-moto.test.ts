/**
 * src/cloud against a real moto server (EC2 + CloudWatch over HTTP on loopback): a gp3 volume and an
 * m5.xlarge instance created with CreateVolume/RunInstances and read back with DescribeVolumes /
 * DescribeInstances / DescribeInstanceTypes; known minute-aligned datapoints published with
 * PutMetricData for that volume and instance (plus a noisy neighbour volume); then GetMetricData per
 * step window: the figures and labels, a window without datapoints (null, not 0), a window of
 * published zeros (0), a sub-minute window (not attributable) and a partial newest minute.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { PutMetricDataCommand, type MetricDatum } from '@aws-sdk/client-cloudwatch';
import { CreateVolumeCommand, RunInstancesCommand } from '@aws-sdk/client-ec2';
import {
  describeInstance,
  describeVolume,
  INSTANCE_EBS_LIMITS,
  instanceEbsLimits,
  parseProviderId,
  parseVolumeHandle,
} from '../../src/cloud/aws';
import {
  collectStepMetrics,
  resolveCloudResources,
  type CloudResources,
  type StepCloudResult,
} from '../../src/cloud/metrics';
import { startMoto, type Moto } from '../helpers/moto';

const MIB = 1048576;
let moto: Moto;
let volumeId: string;
let otherVolumeId: string;
let instanceId: string;
// 30 minutes ago, on a minute boundary: every window below is long final (settle delay 3 min).
const T = Math.floor(Date.now() / 60_000) * 60_000 - 30 * 60_000;
const at = (m: number, s = 0) => T + m * 60_000 + s * 1000;

before(async () => {
  moto = await startMoto();
  const v = await moto.ec2.send(
    new CreateVolumeCommand({
      AvailabilityZone: 'us-east-1a',
      Size: 100,
      VolumeType: 'gp3',
      Iops: 3000,
      Throughput: 125,
    }),
  );
  volumeId = v.VolumeId ?? '';
  const o = await moto.ec2.send(
    new CreateVolumeCommand({ AvailabilityZone: 'us-east-1a', Size: 500, VolumeType: 'gp3' }),
  );
  otherVolumeId = o.VolumeId ?? '';
  const r = await moto.ec2.send(
    new RunInstancesCommand({
      ImageId: 'ami-12c6146b',
      MinCount: 1,
      MaxCount: 1,
      InstanceType: 'm5.xlarge',
      Placement: { AvailabilityZone: 'us-east-1a' },
    }),
  );
  instanceId = r.Instances?.[0]?.InstanceId ?? '';
});

after(async () => {
  await moto?.stop();
});

test('DescribeVolumes / DescribeInstances / DescribeInstanceTypes through the ids a node and a PV carry', async () => {
  const { instanceId: iid, zone } = parseProviderId(`aws:///us-east-1a/${instanceId}`);
  const { volumeId: vid } = parseVolumeHandle(volumeId);
  assert.deepEqual(await describeVolume(moto.ec2, vid), {
    volumeId,
    type: 'gp3',
    sizeGiB: 100,
    iops: 3000,
    throughputMiBs: 125,
    zone: 'us-east-1a',
    state: 'available',
  });
  // moto, like AWS for a default gp3, omits Throughput: the gp3 baseline is filled in.
  const other = await describeVolume(moto.ec2, otherVolumeId);
  assert.equal(other.throughputMiBs, 125);
  assert.equal(other.iops, 3000);
  const inst = await describeInstance(moto.ec2, iid);
  assert.equal(inst.type, 'm5.xlarge');
  assert.equal(inst.zone, zone);
  assert.equal(inst.state, 'running');
  const lim = await instanceEbsLimits(moto.ec2, 'm5.xlarge');
  assert.deepEqual(lim, {
    limits: INSTANCE_EBS_LIMITS['m5.xlarge'],
    source: 'EC2 DescribeInstanceTypes EbsOptimizedInfo',
  });
  // The same, in one call from the node's providerID and the PV's CSI volumeHandle.
  assert.deepEqual(await resolveCloudResources(moto.ec2, `aws:///us-east-1a/${instanceId}`, volumeId), {
    volume: { volumeId, type: 'gp3', iops: 3000, throughputMiBs: 125 },
    instance: { instanceId, type: 'm5.xlarge', detailedMonitoring: false },
    instanceLimits: INSTANCE_EBS_LIMITS['m5.xlarge'],
    instanceLimitsSource: 'EC2 DescribeInstanceTypes EbsOptimizedInfo',
    zone: 'us-east-1a',
    sizeGiB: 100,
  });
  await assert.rejects(describeVolume(moto.ec2, 'vol-0000000000000000f'), /InvalidVolume|not returned|does not exist/);
});

/** One datum per minute m ∈ [from, to) for the cell's volume or instance. */
function perMinute(
  on: 'vol' | 'inst' | 'other',
  metric: string,
  unit: MetricDatum['Unit'],
  from: number,
  to: number,
  value: number,
): MetricDatum[] {
  const dim =
    on === 'inst'
      ? { Name: 'InstanceId', Value: instanceId }
      : { Name: 'VolumeId', Value: on === 'vol' ? volumeId : otherVolumeId };
  const out: MetricDatum[] = [];
  for (let m = from; m < to; m++) {
    out.push({ MetricName: metric, Dimensions: [dim], Timestamp: new Date(at(m)), Value: value, Unit: unit });
  }
  return out;
}

async function publish(namespace: 'AWS/EBS' | 'AWS/EC2', data: MetricDatum[]): Promise<void> {
  for (let i = 0; i < data.length; i += 500) {
    await moto.cloudwatch.send(new PutMetricDataCommand({ Namespace: namespace, MetricData: data.slice(i, i + 500) }));
  }
}

test('GetMetricData per step window: figures, labels, empty vs zero, sub-minute window, partial minute', async () => {
  // What a kubelet would publish: minutes 0–4 load (writes, CPU 90 %), 5–7 a cold scan (reads at
  // 121 MiB/s, CPU 31 %), 7 also two short runs, 9–10 nothing at all, 11 zeros (idle volume, CPU 2 %).
  const ebs: MetricDatum[] = [
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
  const ec2: MetricDatum[] = [
    ...perMinute('inst', 'CPUUtilization', 'Percent', 0, 5, 90),
    ...perMinute('inst', 'CPUUtilization', 'Percent', 5, 8, 31),
    ...perMinute('inst', 'CPUUtilization', 'Percent', 11, 12, 2),
    ...perMinute('inst', 'EBSReadBytes', 'Bytes', 5, 8, 121 * MIB * 60),
    ...perMinute('inst', 'EBSByteBalance%', 'Percent', 0, 8, 100),
    ...perMinute('inst', 'EBSIOBalance%', 'Percent', 0, 8, 100),
  ];
  await publish('AWS/EBS', ebs);
  await publish('AWS/EC2', ec2);

  const res: CloudResources = {
    volume: { volumeId, type: 'gp3', iops: 3000, throughputMiBs: 125 },
    instance: { instanceId, type: 'm5.xlarge' },
    instanceLimits: INSTANCE_EBS_LIMITS['m5.xlarge'],
  };
  const steps = [
    { step: 'load', startMs: at(0, 2), endMs: at(4, 50) },
    { step: 'q3 cold #1', startMs: at(5), endMs: at(7) },
    { step: 'q1 cold #1', startMs: at(7, 10), endMs: at(7, 22) },
    { step: 'q1 warm #1', startMs: at(7, 30), endMs: at(7, 34) },
    { step: 'index build', startMs: at(9), endMs: at(11) },
    { step: 'quiesce', startMs: at(11), endMs: at(12) },
  ];
  const out = await collectStepMetrics(moto.cloudwatch, res, steps, { nowMs: Date.now() });
  assert.equal(out.partial, false);
  const by = (s: string): StepCloudResult => {
    const r = out.steps.find((x) => x.step === s);
    assert.ok(r, s);
    return r;
  };

  const load = by('load');
  assert.ok(load.attributable);
  assert.equal(load.alignedStartMs, at(0));
  assert.equal(load.alignedEndMs, at(5));
  assert.equal(load.figures.writeMiBs, 50);
  assert.equal(load.figures.readMiBs, 0);
  assert.equal(load.figures.writeIops, 400);
  assert.equal(load.figures.queueLength, 1.5);
  assert.equal(load.figures.idlePct, 10);
  assert.equal(load.figures.cpuPct, 90);
  assert.deepEqual(load.figures.minutes, { volume: 5, instance: 5, of: 5 });
  assert.equal(load.bottleneck.label, 'cpu-bound');
  assert.equal(
    load.bottleneck.evidence,
    'write 50.0 MiB/s = 40 % of gp3 125 MiB/s; 400 IOPS = 13 % of gp3 3,000 IOPS; CPU 90 %',
  );

  const scan = by('q3 cold #1');
  assert.ok(scan.attributable);
  assert.equal(scan.figures.readMiBs, 121); // not 621: the neighbour volume's 500 MiB/s is not summed in
  assert.equal(scan.figures.readIops, 968);
  assert.equal(scan.figures.instanceEbsReadMiBs, 121);
  assert.equal(scan.figures.cpuMaxPct, 31);
  assert.equal(scan.figures.ebsByteBalancePct, 100);
  assert.equal(scan.bottleneck.label, 'disk-bound');
  assert.equal(
    scan.bottleneck.evidence,
    'read 121 MiB/s = 97 % of gp3 125 MiB/s; 968 IOPS = 32 % of gp3 3,000 IOPS; CPU 31 %',
  );

  const short = by('q1 cold #1');
  assert.equal(short.attributable, false);
  assert.equal(
    !short.attributable && short.reason,
    'not attributable: window 12 s < period 60 s, shared with q1 warm #1',
  );
  assert.equal(by('q1 warm #1').attributable, false);

  // No datapoint at all in 9–10: null everywhere, never 0; the label says so.
  const empty = by('index build');
  assert.ok(empty.attributable);
  assert.equal(empty.figures.readMiBs, null);
  assert.equal(empty.figures.writeIops, null);
  assert.equal(empty.figures.cpuPct, null);
  assert.deepEqual(empty.figures.minutes, { volume: 0, instance: 0, of: 2 });
  assert.deepEqual(empty.bottleneck, { label: 'unknown', evidence: 'disk: no data; CPU: no data' });

  // Published zeros are zeros.
  const zero = by('quiesce');
  assert.ok(zero.attributable);
  assert.equal(zero.figures.readMiBs, 0);
  assert.equal(zero.figures.writeMiBs, 0);
  assert.equal(zero.figures.idlePct, 100);
  assert.equal(zero.bottleneck.label, 'neither');
  assert.equal(
    zero.bottleneck.evidence,
    'read 0.00 MiB/s = 0 % of gp3 125 MiB/s; 0.00 IOPS = 0 % of gp3 3,000 IOPS; CPU 2 %',
  );

  // Read as if "now" were minute 8:30 of that run: the scan's newest minute (6) is not final before 7 + 3 min.
  const early = await collectStepMetrics(moto.cloudwatch, res, [steps[1]], { nowMs: at(8, 30) });
  const s = early.steps[0];
  assert.ok(s.attributable && s.partial);
  assert.equal(early.partial, true);
  assert.equal(early.finalAtMs, at(10)); // aligned end (minute 7) + 3 min
  assert.match(s.bottleneck.evidence, /; partial: newest minute not final before /);
});
