"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * Per-step figures from CloudWatch series and the bottleneck label with its evidence
 * (src/cloud/metrics.ts), pure: no CloudWatch call.
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const aws_1 = require("../../src/cloud/aws");
const metrics_1 = require("../../src/cloud/metrics");
const windows_1 = require("../../src/cloud/windows");
const MIB = 1048576;
const RES = {
    volume: { volumeId: 'vol-0123456789abcdef0', type: 'gp3', iops: 3000, throughputMiBs: 125 },
    instance: { instanceId: 'i-0abc1234def567890', type: 'm5.xlarge' },
    instanceLimits: aws_1.INSTANCE_EBS_LIMITS['m5.xlarge'],
};
function figures(f) {
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
(0, node_test_1.test)('disk-bound: read 121 MiB/s = 97 % of gp3 125 MiB/s (the volume binds before the m5.xlarge)', () => {
    const b = (0, metrics_1.labelBottleneck)(figures({ readMiBs: 121, writeMiBs: 0, readIops: 968, writeIops: 0, cpuPct: 31 }), RES);
    strict_1.default.equal(b.label, 'disk-bound');
    strict_1.default.equal(b.evidence, 'read 121 MiB/s = 97 % of gp3 125 MiB/s; 968 IOPS = 32 % of gp3 3,000 IOPS; CPU 31 %');
});
(0, node_test_1.test)('cpu-bound, neither, and configurable thresholds', () => {
    const cpu = (0, metrics_1.labelBottleneck)(figures({ readMiBs: 10, writeMiBs: 0, readIops: 80, writeIops: 0, cpuPct: 86.4 }), RES);
    strict_1.default.equal(cpu.label, 'cpu-bound');
    strict_1.default.match(cpu.evidence, /read 10\.0 MiB\/s = 8 % of gp3 125 MiB\/s; .*; CPU 86 %$/);
    const neither = (0, metrics_1.labelBottleneck)(figures({ readMiBs: 40, writeMiBs: 2, readIops: 300, writeIops: 20, cpuPct: 31 }), RES);
    strict_1.default.equal(neither.label, 'neither');
    strict_1.default.match(neither.evidence, /^read 40\.0 \+ write 2\.00 = 42\.0 MiB\/s = 34 % of gp3 125 MiB\/s; 320 IOPS = 11 %/);
    const strict = (0, metrics_1.labelBottleneck)(figures({ readMiBs: 121, writeMiBs: 0, readIops: 968, writeIops: 0, cpuPct: 31 }), RES, {
        diskUtilisation: 0.99,
    });
    strict_1.default.equal(strict.label, 'neither');
    // Both over: the larger share wins, the evidence names both.
    const both = (0, metrics_1.labelBottleneck)(figures({ readMiBs: 124, writeMiBs: 0, readIops: 100, writeIops: 0, cpuPct: 85 }), RES);
    strict_1.default.equal(both.label, 'disk-bound');
    strict_1.default.match(both.evidence, /99 % of gp3 125 MiB\/s.*CPU 85 %/);
});
(0, node_test_1.test)("a spent instance burst balance is disk-bound against the instance's baseline", () => {
    const res = { ...RES, volume: { ...RES.volume, throughputMiBs: 1000, iops: 16000 } };
    const b = (0, metrics_1.labelBottleneck)(figures({ readMiBs: 120, writeMiBs: 0, readIops: 900, writeIops: 0, cpuPct: 20, ebsByteBalancePct: 3 }), res);
    strict_1.default.equal(b.label, 'disk-bound');
    strict_1.default.match(b.evidence, /= 88 % of m5\.xlarge baseline 137 MiB\/s/);
    strict_1.default.match(b.evidence, /EBSByteBalance% down to 3\.00 %/);
    // With balance left, the burst maximum (566 MiB/s) is the instance's limit.
    const ok = (0, metrics_1.labelBottleneck)(figures({ readMiBs: 120, writeMiBs: 0, readIops: 900, writeIops: 0, cpuPct: 20, ebsByteBalancePct: 80 }), res);
    strict_1.default.equal(ok.label, 'neither');
    strict_1.default.match(ok.evidence, /of m5\.xlarge burst 566 MiB\/s/);
});
(0, node_test_1.test)('unknown: a side without data is never read as zero', () => {
    const noCpu = (0, metrics_1.labelBottleneck)(figures({ readMiBs: 40, writeMiBs: 0, readIops: 300, writeIops: 0 }), RES);
    strict_1.default.equal(noCpu.label, 'unknown');
    strict_1.default.match(noCpu.evidence, /CPU: no data$/);
    const nothing = (0, metrics_1.labelBottleneck)(figures({}), RES);
    strict_1.default.deepEqual(nothing, { label: 'unknown', evidence: 'disk: no data; CPU: no data' });
    const basic = (0, metrics_1.labelBottleneck)(figures({ readMiBs: 40, writeMiBs: 0, readIops: 300, writeIops: 0 }), {
        ...RES,
        instance: { ...RES.instance, detailedMonitoring: false },
    });
    strict_1.default.match(basic.evidence, /CPU: no data \(basic monitoring: AWS\/EC2 points every 5 min only\)$/);
    // But a side over its threshold is enough on its own.
    strict_1.default.equal((0, metrics_1.labelBottleneck)(figures({ cpuPct: 95 }), RES).label, 'cpu-bound');
});
(0, node_test_1.test)('summarize: rates over the minutes with data; missing minutes stay out (null), not zero', () => {
    const t0 = Date.UTC(2026, 10, 30, 12, 0);
    const m = (values) => {
        const ts = [];
        const vs = [];
        values.forEach((v, i) => {
            if (v !== null) {
                ts.push(t0 + i * 60_000);
                vs.push(v);
            }
        });
        return (0, windows_1.toMinuteSeries)(t0, t0 + 3 * 60_000, 60, ts, vs);
    };
    const f = (0, metrics_1.summarize)({
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
    }, 60);
    strict_1.default.equal(f.readMiBs, 90); // (120 + 60) MiB/s-minutes ÷ 2 minutes with data
    strict_1.default.equal(f.writeMiBs, 0);
    strict_1.default.equal(f.readIops, 750);
    strict_1.default.equal(f.queueLength, 3);
    strict_1.default.equal(f.idlePct, 25);
    strict_1.default.equal(f.cpuPct, 40);
    strict_1.default.equal(f.cpuMaxPct, 60);
    strict_1.default.equal(f.instanceEbsReadMiBs, null);
    strict_1.default.equal(f.ebsByteBalancePct, 98);
    strict_1.default.equal(f.ebsIoBalancePct, null); // not in the series at all
    strict_1.default.equal(f.burstBalancePct, null);
    strict_1.default.deepEqual(f.minutes, { volume: 2, instance: 3, of: 3 });
});
(0, node_test_1.test)('queries: full dimensions on every metric, basic statistics only, BurstBalance only for gp2', () => {
    const q = (0, metrics_1.metricQueries)(RES, 60);
    strict_1.default.ok(q.every((x) => x.MetricStat?.Metric?.Dimensions?.length === 1));
    strict_1.default.ok(q.every((x) => ['Sum', 'Average', 'Maximum'].includes(x.MetricStat?.Stat ?? '')));
    strict_1.default.ok(q.every((x) => x.MetricStat?.Period === 60));
    const names = (qs) => qs.map((x) => `${x.MetricStat?.Metric?.Namespace}/${x.MetricStat?.Metric?.MetricName}`);
    strict_1.default.ok(!names(q).includes('AWS/EBS/BurstBalance'));
    for (const n of [
        'VolumeReadBytes',
        'VolumeWriteBytes',
        'VolumeReadOps',
        'VolumeWriteOps',
        'VolumeQueueLength',
        'VolumeIdleTime',
    ]) {
        const x = q.find((y) => y.MetricStat?.Metric?.MetricName === n);
        strict_1.default.deepEqual(x?.MetricStat?.Metric?.Dimensions, [{ Name: 'VolumeId', Value: 'vol-0123456789abcdef0' }], n);
    }
    for (const n of ['CPUUtilization', 'EBSReadBytes', 'EBSByteBalance%', 'EBSIOBalance%']) {
        const x = q.find((y) => y.MetricStat?.Metric?.MetricName === n);
        strict_1.default.deepEqual(x?.MetricStat?.Metric?.Dimensions, [{ Name: 'InstanceId', Value: 'i-0abc1234def567890' }], n);
    }
    const gp2 = (0, metrics_1.metricQueries)({ ...RES, volume: { ...RES.volume, type: 'gp2' } }, 60);
    strict_1.default.ok(names(gp2).includes('AWS/EBS/BurstBalance'));
});
//# sourceMappingURL=cloud-metrics.test.js.map