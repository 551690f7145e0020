/**
 * Per-step figures from CloudWatch series and the bottleneck label with its evidence
 * (src/cloud/metrics.ts), pure: no CloudWatch call.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { INSTANCE_EBS_LIMITS } from '../../src/cloud/aws';
import { labelBottleneck, metricQueries, summarize, type StepCloudFigures } from '../../src/cloud/metrics';
import { toMinuteSeries } from '../../src/cloud/windows';

const MIB = 1048576;
const RES = {
  volume: { volumeId: 'vol-0123456789abcdef0', type: 'gp3', iops: 3000, throughputMiBs: 125 },
  instance: { instanceId: 'i-0abc1234def567890', type: 'm5.xlarge' },
  instanceLimits: INSTANCE_EBS_LIMITS['m5.xlarge'],
};

function figures(f: Partial<StepCloudFigures>): StepCloudFigures {
  return {
    readMiBs: null,
    writeMiBs: null,
    readIops: null,
    writeIops: null,
    queueLength: null,
    idlePct: null,
    burstBalancePct: null,
    cpuPct: null,
    cpuMaxPct: null,
    instanceEbsReadMiBs: null,
    ebsByteBalancePct: null,
    ebsIoBalancePct: null,
    minutes: { volume: 1, instance: 1, of: 1 },
    ...f,
  };
}

test('disk-bound: read 121 MiB/s = 97 % of gp3 125 MiB/s (the volume binds before the m5.xlarge)', () => {
  const b = labelBottleneck(figures({ readMiBs: 121, writeMiBs: 0, readIops: 968, writeIops: 0, cpuPct: 31 }), RES);
  assert.equal(b.label, 'disk-bound');
  assert.equal(b.evidence, 'read 121 MiB/s = 97 % of gp3 125 MiB/s; 968 IOPS = 32 % of gp3 3,000 IOPS; CPU 31 %');
});

test('cpu-bound, neither, and configurable thresholds', () => {
  const cpu = labelBottleneck(figures({ readMiBs: 10, writeMiBs: 0, readIops: 80, writeIops: 0, cpuPct: 86.4 }), RES);
  assert.equal(cpu.label, 'cpu-bound');
  assert.match(cpu.evidence, /read 10\.0 MiB\/s = 8 % of gp3 125 MiB\/s; .*; CPU 86 %$/);
  const neither = labelBottleneck(
    figures({ readMiBs: 40, writeMiBs: 2, readIops: 300, writeIops: 20, cpuPct: 31 }),
    RES,
  );
  assert.equal(neither.label, 'neither');
  assert.match(neither.evidence, /^read 40\.0 \+ write 2\.00 = 42\.0 MiB\/s = 34 % of gp3 125 MiB\/s; 320 IOPS = 11 %/);
  const strict = labelBottleneck(
    figures({ readMiBs: 121, writeMiBs: 0, readIops: 968, writeIops: 0, cpuPct: 31 }),
    RES,
    {
      diskUtilisation: 0.99,
    },
  );
  assert.equal(strict.label, 'neither');
  // Both over: the larger share wins, the evidence names both.
  const both = labelBottleneck(figures({ readMiBs: 124, writeMiBs: 0, readIops: 100, writeIops: 0, cpuPct: 85 }), RES);
  assert.equal(both.label, 'disk-bound');
  assert.match(both.evidence, /99 % of gp3 125 MiB\/s.*CPU 85 %/);
});

test("a spent instance burst balance is disk-bound against the instance's baseline", () => {
  const res = { ...RES, volume: { ...RES.volume, throughputMiBs: 1000, iops: 16000 } };
  const b = labelBottleneck(
    figures({ readMiBs: 120, writeMiBs: 0, readIops: 900, writeIops: 0, cpuPct: 20, ebsByteBalancePct: 3 }),
    res,
  );
  assert.equal(b.label, 'disk-bound');
  assert.match(b.evidence, /= 88 % of m5\.xlarge baseline 137 MiB\/s/);
  assert.match(b.evidence, /EBSByteBalance% down to 3\.00 %/);
  // With balance left, the burst maximum (566 MiB/s) is the instance's limit.
  const ok = labelBottleneck(
    figures({ readMiBs: 120, writeMiBs: 0, readIops: 900, writeIops: 0, cpuPct: 20, ebsByteBalancePct: 80 }),
    res,
  );
  assert.equal(ok.label, 'neither');
  assert.match(ok.evidence, /of m5\.xlarge burst 566 MiB\/s/);
});

test('unknown: a side without data is never read as zero', () => {
  const noCpu = labelBottleneck(figures({ readMiBs: 40, writeMiBs: 0, readIops: 300, writeIops: 0 }), RES);
  assert.equal(noCpu.label, 'unknown');
  assert.match(noCpu.evidence, /CPU: no data$/);
  const nothing = labelBottleneck(figures({}), RES);
  assert.deepEqual(nothing, { label: 'unknown', evidence: 'disk: no data; CPU: no data' });
  const basic = labelBottleneck(figures({ readMiBs: 40, writeMiBs: 0, readIops: 300, writeIops: 0 }), {
    ...RES,
    instance: { ...RES.instance, detailedMonitoring: false },
  });
  assert.match(basic.evidence, /CPU: no data \(basic monitoring: AWS\/EC2 points every 5 min only\)$/);
  // But a side over its threshold is enough on its own.
  assert.equal(labelBottleneck(figures({ cpuPct: 95 }), RES).label, 'cpu-bound');
});

test('summarize: rates over the minutes with data; missing minutes stay out (null), not zero', () => {
  const t0 = Date.UTC(2026, 10, 30, 12, 0);
  const m = (values: (number | null)[]) => {
    const ts: number[] = [];
    const vs: number[] = [];
    values.forEach((v, i) => {
      if (v !== null) {
        ts.push(t0 + i * 60_000);
        vs.push(v);
      }
    });
    return toMinuteSeries(t0, t0 + 3 * 60_000, 60, ts, vs);
  };
  const f = summarize(
    {
      vol_read_bytes: m([120 * 60 * MIB, null, 60 * 60 * MIB]),
      vol_write_bytes: m([0, null, 0]),
      vol_read_ops: m([60_000, null, 30_000]),
      vol_write_ops: m([0, null, 0]),
      vol_queue: m([4, null, 2]),
      vol_idle: m([0, null, 30]),
      cpu_avg: m([30, 40, 50]),
      cpu_max: m([35, 60, 55]),
      ec2_ebs_read: m([null, null, null]),
      ec2_byte_bal: m([100, 99, 98]),
    },
    60,
  );
  assert.equal(f.readMiBs, 90); // (120 + 60) MiB/s-minutes ÷ 2 minutes with data
  assert.equal(f.writeMiBs, 0);
  assert.equal(f.readIops, 750);
  assert.equal(f.queueLength, 3);
  assert.equal(f.idlePct, 25);
  assert.equal(f.cpuPct, 40);
  assert.equal(f.cpuMaxPct, 60);
  assert.equal(f.instanceEbsReadMiBs, null);
  assert.equal(f.ebsByteBalancePct, 98);
  assert.equal(f.ebsIoBalancePct, null); // not in the series at all
  assert.equal(f.burstBalancePct, null);
  assert.deepEqual(f.minutes, { volume: 2, instance: 3, of: 3 });
});

test('queries: full dimensions on every metric, basic statistics only, BurstBalance only for gp2', () => {
  const q = metricQueries(RES, 60);
  assert.ok(q.every((x) => x.MetricStat?.Metric?.Dimensions?.length === 1));
  assert.ok(q.every((x) => ['Sum', 'Average', 'Maximum'].includes(x.MetricStat?.Stat ?? '')));
  assert.ok(q.every((x) => x.MetricStat?.Period === 60));
  const names = (qs: typeof q) =>
    qs.map((x) => `${x.MetricStat?.Metric?.Namespace}/${x.MetricStat?.Metric?.MetricName}`);
  assert.ok(!names(q).includes('AWS/EBS/BurstBalance'));
  for (const n of [
    'VolumeReadBytes',
    'VolumeWriteBytes',
    'VolumeReadOps',
    'VolumeWriteOps',
    'VolumeQueueLength',
    'VolumeIdleTime',
  ]) {
    const x = q.find((y) => y.MetricStat?.Metric?.MetricName === n);
    assert.deepEqual(x?.MetricStat?.Metric?.Dimensions, [{ Name: 'VolumeId', Value: 'vol-0123456789abcdef0' }], n);
  }
  for (const n of ['CPUUtilization', 'EBSReadBytes', 'EBSByteBalance%', 'EBSIOBalance%']) {
    const x = q.find((y) => y.MetricStat?.Metric?.MetricName === n);
    assert.deepEqual(x?.MetricStat?.Metric?.Dimensions, [{ Name: 'InstanceId', Value: 'i-0abc1234def567890' }], n);
  }
  const gp2 = metricQueries({ ...RES, volume: { ...RES.volume, type: 'gp2' } }, 60);
  assert.ok(names(gp2).includes('AWS/EBS/BurstBalance'));
});
