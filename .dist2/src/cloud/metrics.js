"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.DEFAULT_THRESHOLDS = exports.CLOUD_METRICS = void 0;
exports.resolveCloudResources = resolveCloudResources;
exports.mbToMiB = mbToMiB;
exports.labelBottleneck = labelBottleneck;
exports.summarize = summarize;
exports.metricQueries = metricQueries;
exports.readWindow = readWindow;
exports.collectStepMetrics = collectStepMetrics;
/**
 * CloudWatch figures per step window and the bottleneck label: for each window that
 * {@link planWindows} finds attributable, one `GetMetricData` call with full dimensions (`VolumeId`
 * for AWS/EBS, `InstanceId` for AWS/EC2: a query that leaves a dimension out aggregates every volume
 * or instance, and moto sums them) and basic statistics only (Sum, Average, Maximum: percentiles are
 * not needed and moto fails them). Windows are minute-aligned by chbench (moto does not round).
 */
const client_cloudwatch_1 = require("@aws-sdk/client-cloudwatch");
const aws_1 = require("./aws");
const windows_1 = require("./windows");
/**
 * The metrics read per step (Amazon EBS User Guide, "Amazon CloudWatch metrics for Amazon EBS";
 * Amazon EC2 User Guide, "Instance metrics"). Byte and op counts are read as Sum per minute (the
 * Average of VolumeReadBytes is the average I/O size on Xen instances, not a rate); rates are the
 * sums divided by the seconds of the minutes that have data.
 */
exports.CLOUD_METRICS = [
    { id: 'vol_read_bytes', namespace: 'AWS/EBS', metric: 'VolumeReadBytes', stat: 'Sum', on: 'volume', unit: 'Bytes' },
    { id: 'vol_write_bytes', namespace: 'AWS/EBS', metric: 'VolumeWriteBytes', stat: 'Sum', on: 'volume', unit: 'Bytes' },
    { id: 'vol_read_ops', namespace: 'AWS/EBS', metric: 'VolumeReadOps', stat: 'Sum', on: 'volume', unit: 'Count' },
    { id: 'vol_write_ops', namespace: 'AWS/EBS', metric: 'VolumeWriteOps', stat: 'Sum', on: 'volume', unit: 'Count' },
    { id: 'vol_queue', namespace: 'AWS/EBS', metric: 'VolumeQueueLength', stat: 'Average', on: 'volume', unit: 'Count' },
    { id: 'vol_idle', namespace: 'AWS/EBS', metric: 'VolumeIdleTime', stat: 'Sum', on: 'volume', unit: 'Seconds' },
    { id: 'vol_burst', namespace: 'AWS/EBS', metric: 'BurstBalance', stat: 'Average', on: 'volume', unit: 'Percent' },
    { id: 'cpu_avg', namespace: 'AWS/EC2', metric: 'CPUUtilization', stat: 'Average', on: 'instance', unit: 'Percent' },
    { id: 'cpu_max', namespace: 'AWS/EC2', metric: 'CPUUtilization', stat: 'Maximum', on: 'instance', unit: 'Percent' },
    { id: 'ec2_ebs_read', namespace: 'AWS/EC2', metric: 'EBSReadBytes', stat: 'Sum', on: 'instance', unit: 'Bytes' },
    {
        id: 'ec2_byte_bal',
        namespace: 'AWS/EC2',
        metric: 'EBSByteBalance%',
        stat: 'Average',
        on: 'instance',
        unit: 'Percent',
    },
    { id: 'ec2_io_bal', namespace: 'AWS/EC2', metric: 'EBSIOBalance%', stat: 'Average', on: 'instance', unit: 'Percent' },
];
/** Volume types with a `BurstBalance` metric (gp2, st1, sc1; gp3 has none). */
const BURST_BALANCE_TYPES = new Set(['gp2', 'st1', 'sc1']);
/**
 * The cell's EC2 instance and EBS volume, from what Kubernetes knows: the node's `spec.providerID`
 * and the PV's `spec.csi.volumeHandle` (`DescribeInstances`, `DescribeVolumes`,
 * `DescribeInstanceTypes`).
 * @throws Error when an id does not parse or AWS does not return the object
 */
async function resolveCloudResources(ec2, providerID, volumeHandle) {
    const { instanceId } = (0, aws_1.parseProviderId)(providerID);
    const { volumeId } = (0, aws_1.parseVolumeHandle)(volumeHandle);
    const [inst, vol] = await Promise.all([(0, aws_1.describeInstance)(ec2, instanceId), (0, aws_1.describeVolume)(ec2, volumeId)]);
    const lim = await (0, aws_1.instanceEbsLimits)(ec2, inst.type);
    return {
        volume: { volumeId, type: vol.type, iops: vol.iops, throughputMiBs: vol.throughputMiBs },
        instance: { instanceId, type: inst.type, detailedMonitoring: inst.detailedMonitoring },
        instanceLimits: lim?.limits ?? null,
        ...(lim ? { instanceLimitsSource: lim.source } : {}),
        zone: inst.zone,
        sizeGiB: vol.sizeGiB,
    };
}
/** Defaults of {@link BottleneckThresholds}. */
exports.DEFAULT_THRESHOLDS = { diskUtilisation: 0.9, cpuPct: 80, balancePct: 10 };
const MIB = 1024 * 1024;
/** MB/s (10^6 bytes/s, as AWS quotes instance EBS limits) → MiB/s. */
function mbToMiB(mbs) {
    return (mbs * 1e6) / MIB;
}
function fmt(n) {
    if (n >= 100)
        return Math.round(n).toLocaleString('en-US');
    if (n >= 10)
        return n.toFixed(1);
    return n.toFixed(2);
}
const pct = (x) => `${Math.round(x * 100)} %`;
/**
 * Label a step disk-bound, CPU-bound, neither or unknown, with the evidence.
 *
 * Disk: achieved throughput (read + write MiB/s) and IOPS against the lowest applicable limit — the
 * volume's provisioned figure, and the instance's EBS limit (its burst maximum while the instance's
 * balance — EBSByteBalance% / EBSIOBalance% — is above `balancePct`, else, or when the balance is unknown, its baseline); reaching `diskUtilisation` of it, or a spent burst balance, is
 * disk-bound. CPU: mean CPUUtilization at or above `cpuPct` is CPU-bound. Both: the larger share
 * wins and the evidence names both. `neither` needs both sides measured; a side without data makes
 * the step `unknown` unless the other side alone is over its threshold.
 */
function labelBottleneck(f, res, thresholds = {}) {
    const t = { ...exports.DEFAULT_THRESHOLDS, ...thresholds };
    const parts = [];
    let diskShare = null;
    let diskSpent = false;
    const tput = f.readMiBs === null && f.writeMiBs === null ? null : (f.readMiBs ?? 0) + (f.writeMiBs ?? 0);
    const iops = f.readIops === null && f.writeIops === null ? null : (f.readIops ?? 0) + (f.writeIops ?? 0);
    const inst = res.instanceLimits;
    const instBurstLeft = (b) => b !== null && b > t.balancePct;
    if (tput !== null) {
        const label = (f.writeMiBs ?? 0) === 0
            ? `read ${fmt(tput)} MiB/s`
            : (f.readMiBs ?? 0) === 0
                ? `write ${fmt(tput)} MiB/s`
                : `read ${fmt(f.readMiBs ?? 0)} + write ${fmt(f.writeMiBs ?? 0)} = ${fmt(tput)} MiB/s`;
        const limits = [];
        if (res.volume.throughputMiBs !== null) {
            limits.push({ name: `${res.volume.type} ${fmt(res.volume.throughputMiBs)} MiB/s`, v: res.volume.throughputMiBs });
        }
        if (inst) {
            const burst = instBurstLeft(f.ebsByteBalancePct);
            const v = mbToMiB(burst ? inst.maximumMBs : inst.baselineMBs);
            limits.push({ name: `${res.instance.type} ${burst ? 'burst' : 'baseline'} ${fmt(v)} MiB/s`, v });
        }
        if (limits.length > 0) {
            const lim = limits.reduce((a, b) => (b.v < a.v ? b : a));
            const share = tput / lim.v;
            diskShare = Math.max(diskShare ?? 0, share);
            parts.push(`${label} = ${pct(share)} of ${lim.name}`);
        }
        else {
            parts.push(`${label} (no throughput limit known)`);
        }
    }
    if (iops !== null) {
        const limits = [];
        if (res.volume.iops !== null)
            limits.push({ name: `${res.volume.type} ${fmt(res.volume.iops)} IOPS`, v: res.volume.iops });
        if (inst) {
            const burst = instBurstLeft(f.ebsIoBalancePct);
            const v = burst ? inst.maximumIops : inst.baselineIops;
            limits.push({ name: `${res.instance.type} ${burst ? 'burst' : 'baseline'} ${fmt(v)} IOPS`, v });
        }
        if (limits.length > 0) {
            const lim = limits.reduce((a, b) => (b.v < a.v ? b : a));
            const share = iops / lim.v;
            diskShare = Math.max(diskShare ?? 0, share);
            parts.push(`${fmt(iops)} IOPS = ${pct(share)} of ${lim.name}`);
        }
        else {
            parts.push(`${fmt(iops)} IOPS (no IOPS limit known)`);
        }
    }
    for (const [name, v] of [
        ['EBSByteBalance%', f.ebsByteBalancePct],
        ['EBSIOBalance%', f.ebsIoBalancePct],
        ['BurstBalance', f.burstBalancePct],
    ]) {
        if (v !== null && v <= t.balancePct) {
            diskSpent = true;
            parts.push(`${name} down to ${fmt(v)} %`);
        }
    }
    if (tput === null && iops === null)
        parts.push('disk: no data');
    parts.push(f.cpuPct !== null
        ? `CPU ${Math.round(f.cpuPct)} %`
        : res.instance.detailedMonitoring === false
            ? 'CPU: no data (basic monitoring: AWS/EC2 points every 5 min only)'
            : 'CPU: no data');
    const evidence = parts.join('; ');
    const diskBound = diskSpent || (diskShare !== null && diskShare >= t.diskUtilisation);
    const cpuBound = f.cpuPct !== null && f.cpuPct >= t.cpuPct;
    if (diskBound && cpuBound) {
        const cpuShare = (f.cpuPct ?? 0) / 100;
        return { label: diskSpent || (diskShare ?? 0) >= cpuShare ? 'disk-bound' : 'cpu-bound', evidence };
    }
    if (diskBound)
        return { label: 'disk-bound', evidence };
    if (cpuBound)
        return { label: 'cpu-bound', evidence };
    if (diskShare === null || f.cpuPct === null)
        return { label: 'unknown', evidence };
    return { label: 'neither', evidence };
}
/**
 * Reduce one window's series to {@link StepCloudFigures} (pure).
 * @param periodS the window's period, seconds
 */
function summarize(series, periodS) {
    const s = (id) => series[id] ?? { timestampsMs: [], values: [] };
    const rate = (id, div = 1) => {
        const r = (0, windows_1.ratePerSecond)(s(id), periodS);
        return r === null ? null : r / div;
    };
    const idleSum = (0, windows_1.sumPresent)(s('vol_idle'));
    const idleN = (0, windows_1.present)(s('vol_idle')).withData;
    return {
        readMiBs: rate('vol_read_bytes', MIB),
        writeMiBs: rate('vol_write_bytes', MIB),
        readIops: rate('vol_read_ops'),
        writeIops: rate('vol_write_ops'),
        queueLength: (0, windows_1.meanPresent)(s('vol_queue')),
        idlePct: idleSum === null ? null : (idleSum / (idleN * periodS)) * 100,
        burstBalancePct: (0, windows_1.minPresent)(s('vol_burst')),
        cpuPct: (0, windows_1.meanPresent)(s('cpu_avg')),
        cpuMaxPct: (0, windows_1.maxPresent)(s('cpu_max')),
        instanceEbsReadMiBs: rate('ec2_ebs_read', MIB),
        ebsByteBalancePct: (0, windows_1.minPresent)(s('ec2_byte_bal')),
        ebsIoBalancePct: (0, windows_1.minPresent)(s('ec2_io_bal')),
        minutes: {
            volume: (0, windows_1.present)(s('vol_read_bytes')).withData,
            instance: (0, windows_1.present)(s('cpu_avg')).withData,
            of: s('vol_read_bytes').values.length,
        },
    };
}
/** The `GetMetricData` queries for one cell (full dimensions, basic statistics). */
function metricQueries(res, periodS) {
    return exports.CLOUD_METRICS.filter((m) => m.id !== 'vol_burst' || BURST_BALANCE_TYPES.has(res.volume.type)).map((m) => ({
        Id: m.id,
        ReturnData: true,
        MetricStat: {
            Metric: {
                Namespace: m.namespace,
                MetricName: m.metric,
                Dimensions: m.on === 'volume'
                    ? [{ Name: 'VolumeId', Value: res.volume.volumeId }]
                    : [{ Name: 'InstanceId', Value: res.instance.instanceId }],
            },
            Period: periodS,
            Stat: m.stat,
        },
    }));
}
/**
 * Read one aligned window's series with `GetMetricData` (following `NextToken`).
 * @returns per metric id, one value or null per period
 * @throws the SDK's error when CloudWatch refuses the request; Error when a query's StatusCode is `Forbidden` or `InternalError`
 */
async function readWindow(cw, res, w) {
    const queries = metricQueries(res, w.periodS);
    const ts = {};
    const vs = {};
    let nextToken;
    do {
        const out = await cw.send(new client_cloudwatch_1.GetMetricDataCommand({
            MetricDataQueries: queries,
            StartTime: new Date(w.alignedStartMs),
            EndTime: new Date(w.alignedEndMs),
            ScanBy: 'TimestampAscending',
            NextToken: nextToken,
        }));
        for (const r of out.MetricDataResults ?? []) {
            if (!r.Id)
                continue;
            if (r.StatusCode === 'Forbidden' || r.StatusCode === 'InternalError') {
                throw new Error(`GetMetricData ${r.Id}: ${r.StatusCode} ${(r.Messages ?? []).map((m) => m.Value).join('; ')}`);
            }
            (ts[r.Id] ??= []).push(...(r.Timestamps ?? []).map((d) => d.getTime()));
            (vs[r.Id] ??= []).push(...(r.Values ?? []));
        }
        nextToken = out.NextToken;
    } while (nextToken);
    const series = {};
    for (const q of queries) {
        const id = q.Id ?? '';
        series[id] = (0, windows_1.toMinuteSeries)(w.alignedStartMs, w.alignedEndMs, w.periodS, ts[id] ?? [], vs[id] ?? []);
    }
    return series;
}
/**
 * Cloud figures and bottleneck labels for a cell's step windows: plan the windows (CloudWatch's
 * rules, `windows.ts`), read each attributable one with `GetMetricData`, summarize and label.
 * @returns one result per step, in order; `partial` is true when any figure may still change, and
 *   `finalAtMs` is when to read again for final figures
 */
async function collectStepMetrics(cw, res, steps, opts) {
    const planned = (0, windows_1.planWindows)(steps, opts);
    const out = [];
    let finalAtMs = opts.nowMs;
    for (const w of planned) {
        if (!w.attributable) {
            out.push(w);
            continue;
        }
        const series = await readWindow(cw, res, w);
        const figures = summarize(series, w.periodS);
        const datapoints = Object.fromEntries(Object.entries(series).map(([id, x]) => [id, (0, windows_1.present)(x).withData]));
        const bottleneck = labelBottleneck(figures, res, opts.thresholds);
        if (w.partial)
            bottleneck.evidence += `; partial: newest minute not final before ${new Date(w.finalAtMs).toISOString()}`;
        out.push({ ...w, figures, bottleneck, datapoints });
        finalAtMs = Math.max(finalAtMs, w.finalAtMs);
    }
    return { steps: out, partial: out.some((s) => s.attributable && s.partial), finalAtMs };
}
//# sourceMappingURL=metrics.js.map