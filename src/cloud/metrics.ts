/**
 * CloudWatch figures per step window and the bottleneck label: for each window that
 * {@link planWindows} finds attributable, one `GetMetricData` call with full dimensions (`VolumeId`
 * for AWS/EBS, `InstanceId` for AWS/EC2: a query that leaves a dimension out aggregates every volume
 * or instance, and moto sums them) and basic statistics only (Sum, Average, Maximum: percentiles are
 * not needed and moto fails them). Windows are minute-aligned by chbench (moto does not round).
 */
import { GetMetricDataCommand, type CloudWatchClient, type MetricDataQuery } from '@aws-sdk/client-cloudwatch';
import type { EC2Client } from '@aws-sdk/client-ec2';
import {
  describeInstance,
  describeVolume,
  instanceEbsLimits,
  parseProviderId,
  parseVolumeHandle,
  type InstanceEbsLimits,
} from './aws';
import {
  maxPresent,
  meanPresent,
  minPresent,
  planWindows,
  present,
  ratePerSecond,
  sumPresent,
  toMinuteSeries,
  type AttributableWindow,
  type MinuteSeries,
  type StepWindow,
  type WindowOptions,
} from './windows';

/** One metric chbench reads: namespace, name, basic statistic, and which resource's id is its dimension. */
export interface MetricSpec {
  /** Query id in `GetMetricData` (lowercase start, letters/digits/underscore). */
  id: string;
  namespace: 'AWS/EBS' | 'AWS/EC2';
  metric: string;
  stat: 'Sum' | 'Average' | 'Maximum';
  /** `volume` → dimension `VolumeId`; `instance` → `InstanceId`. */
  on: 'volume' | 'instance';
  /** Unit of the per-period value. */
  unit: string;
}

/**
 * The metrics read per step (Amazon EBS User Guide, "Amazon CloudWatch metrics for Amazon EBS";
 * Amazon EC2 User Guide, "Instance metrics"). Byte and op counts are read as Sum per minute (the
 * Average of VolumeReadBytes is the average I/O size on Xen instances, not a rate); rates are the
 * sums divided by the seconds of the minutes that have data.
 */
export const CLOUD_METRICS: readonly MetricSpec[] = [
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

/** The cell's resources and their limits. */
export interface CloudResources {
  volume: { volumeId: string; type: string; iops: number | null; throughputMiBs: number | null };
  /**
   * `detailedMonitoring: false` (basic monitoring) means AWS/EC2 points every 5 minutes only: most
   * minutes of a window then have no CPU data, and the evidence says why.
   */
  instance: { instanceId: string; type: string; detailedMonitoring?: boolean };
  /** The instance type's EBS limits, or null when unknown. */
  instanceLimits: InstanceEbsLimits | null;
  /** Where `instanceLimits` came from (DescribeInstanceTypes or chbench's table). */
  instanceLimitsSource?: string;
}

/**
 * The cell's EC2 instance and EBS volume, from what Kubernetes knows: the node's `spec.providerID`
 * and the PV's `spec.csi.volumeHandle` (`DescribeInstances`, `DescribeVolumes`,
 * `DescribeInstanceTypes`).
 * @throws Error when an id does not parse or AWS does not return the object
 */
export async function resolveCloudResources(
  ec2: EC2Client,
  providerID: string,
  volumeHandle: string,
): Promise<CloudResources & { zone: string; sizeGiB: number }> {
  const { instanceId } = parseProviderId(providerID);
  const { volumeId } = parseVolumeHandle(volumeHandle);
  const [inst, vol] = await Promise.all([describeInstance(ec2, instanceId), describeVolume(ec2, volumeId)]);
  const lim = await instanceEbsLimits(ec2, inst.type);
  return {
    volume: { volumeId, type: vol.type, iops: vol.iops, throughputMiBs: vol.throughputMiBs },
    instance: { instanceId, type: inst.type, detailedMonitoring: inst.detailedMonitoring },
    instanceLimits: lim?.limits ?? null,
    ...(lim ? { instanceLimitsSource: lim.source } : {}),
    zone: inst.zone,
    sizeGiB: vol.sizeGiB,
  };
}

/** Figures of one attributable step window; every figure is null when CloudWatch had no data for it. */
export interface StepCloudFigures {
  /** Read throughput, MiB/s: AWS/EBS VolumeReadBytes Sum ÷ seconds of the minutes with data. */
  readMiBs: number | null;
  /** Write throughput, MiB/s: AWS/EBS VolumeWriteBytes Sum ÷ seconds with data. */
  writeMiBs: number | null;
  /** Read IOPS: AWS/EBS VolumeReadOps Sum ÷ seconds with data. */
  readIops: number | null;
  /** Write IOPS: AWS/EBS VolumeWriteOps Sum ÷ seconds with data. */
  writeIops: number | null;
  /** Mean queue length: AWS/EBS VolumeQueueLength Average, mean of the minutes. */
  queueLength: number | null;
  /** Idle share, %: AWS/EBS VolumeIdleTime Sum ÷ seconds with data × 100. */
  idlePct: number | null;
  /** Lowest burst-credit balance, % (gp2/st1/sc1 only): AWS/EBS BurstBalance Average, minimum of the minutes. */
  burstBalancePct: number | null;
  /** Mean CPU, %: AWS/EC2 CPUUtilization Average, mean of the minutes. */
  cpuPct: number | null;
  /** Peak CPU, %: AWS/EC2 CPUUtilization Maximum, maximum of the minutes. */
  cpuMaxPct: number | null;
  /** Instance-side EBS read throughput, MiB/s: AWS/EC2 EBSReadBytes Sum ÷ seconds with data. */
  instanceEbsReadMiBs: number | null;
  /** Lowest instance EBS throughput burst balance, %: AWS/EC2 EBSByteBalance% Average, minimum of the minutes. */
  ebsByteBalancePct: number | null;
  /** Lowest instance EBS IOPS burst balance, %: AWS/EC2 EBSIOBalance% Average, minimum of the minutes. */
  ebsIoBalancePct: number | null;
  /** Minutes with volume data (VolumeReadBytes) and with instance data (CPUUtilization), of the minutes asked for. */
  minutes: { volume: number; instance: number; of: number };
}

/** Thresholds of {@link labelBottleneck}. */
export interface BottleneckThresholds {
  /**
   * Disk-bound when achieved throughput or IOPS reaches this share of the lowest applicable limit
   * (the volume's provisioned figure or the instance's EBS limit). @default 0.9
   */
  diskUtilisation: number;
  /**
   * CPU-bound when the node's mean CPU reaches this, %. The article's pod may use 3.5 of the
   * m5.xlarge's 4 vCPU (87.5 % of the node), so 80 % means "near the pod's limit". @default 80
   */
  cpuPct: number;
  /**
   * A burst balance (EBSByteBalance%, EBSIOBalance%, gp2 BurstBalance) at or below this, % means the
   * burst is spent and the baseline binds: disk-bound. @default 10
   */
  balancePct: number;
}

/** Defaults of {@link BottleneckThresholds}. */
export const DEFAULT_THRESHOLDS: BottleneckThresholds = { diskUtilisation: 0.9, cpuPct: 80, balancePct: 10 };

/** What limited a step, as far as CloudWatch can tell. */
export type BottleneckLabel = 'disk-bound' | 'cpu-bound' | 'neither' | 'unknown';

/** A label with the figures that justify it, e.g. `read 121 MiB/s = 97 % of gp3 125 MiB/s; CPU 31 %`. */
export interface Bottleneck {
  label: BottleneckLabel;
  evidence: string;
}

const MIB = 1024 * 1024;

/** MB/s (10^6 bytes/s, as AWS quotes instance EBS limits) → MiB/s. */
export function mbToMiB(mbs: number): number {
  return (mbs * 1e6) / MIB;
}

function fmt(n: number): string {
  if (n >= 100) return Math.round(n).toLocaleString('en-US');
  if (n >= 10) return n.toFixed(1);
  return n.toFixed(2);
}

const pct = (x: number) => `${Math.round(x * 100)} %`;

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
export function labelBottleneck(
  f: StepCloudFigures,
  res: Pick<CloudResources, 'volume' | 'instance' | 'instanceLimits'>,
  thresholds: Partial<BottleneckThresholds> = {},
): Bottleneck {
  const t = { ...DEFAULT_THRESHOLDS, ...thresholds };
  const parts: string[] = [];
  let diskShare: number | null = null;
  let diskSpent = false;

  const tput = f.readMiBs === null && f.writeMiBs === null ? null : (f.readMiBs ?? 0) + (f.writeMiBs ?? 0);
  const iops = f.readIops === null && f.writeIops === null ? null : (f.readIops ?? 0) + (f.writeIops ?? 0);
  const inst = res.instanceLimits;
  const instBurstLeft = (b: number | null) => b !== null && b > t.balancePct;

  if (tput !== null) {
    const label =
      (f.writeMiBs ?? 0) === 0
        ? `read ${fmt(tput)} MiB/s`
        : (f.readMiBs ?? 0) === 0
          ? `write ${fmt(tput)} MiB/s`
          : `read ${fmt(f.readMiBs ?? 0)} + write ${fmt(f.writeMiBs ?? 0)} = ${fmt(tput)} MiB/s`;
    const limits: { name: string; v: number }[] = [];
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
    } else {
      parts.push(`${label} (no throughput limit known)`);
    }
  }
  if (iops !== null) {
    const limits: { name: string; v: number }[] = [];
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
    } else {
      parts.push(`${fmt(iops)} IOPS (no IOPS limit known)`);
    }
  }
  for (const [name, v] of [
    ['EBSByteBalance%', f.ebsByteBalancePct],
    ['EBSIOBalance%', f.ebsIoBalancePct],
    ['BurstBalance', f.burstBalancePct],
  ] as const) {
    if (v !== null && v <= t.balancePct) {
      diskSpent = true;
      parts.push(`${name} down to ${fmt(v)} %`);
    }
  }
  if (tput === null && iops === null) parts.push('disk: no data');
  parts.push(
    f.cpuPct !== null
      ? `CPU ${Math.round(f.cpuPct)} %`
      : res.instance.detailedMonitoring === false
        ? 'CPU: no data (basic monitoring: AWS/EC2 points every 5 min only)'
        : 'CPU: no data',
  );

  const evidence = parts.join('; ');
  const diskBound = diskSpent || (diskShare !== null && diskShare >= t.diskUtilisation);
  const cpuBound = f.cpuPct !== null && f.cpuPct >= t.cpuPct;
  if (diskBound && cpuBound) {
    const cpuShare = (f.cpuPct ?? 0) / 100;
    return { label: diskSpent || (diskShare ?? 0) >= cpuShare ? 'disk-bound' : 'cpu-bound', evidence };
  }
  if (diskBound) return { label: 'disk-bound', evidence };
  if (cpuBound) return { label: 'cpu-bound', evidence };
  if (diskShare === null || f.cpuPct === null) return { label: 'unknown', evidence };
  return { label: 'neither', evidence };
}

/** Per-metric series of one window, keyed by {@link MetricSpec.id}. */
export type WindowSeries = Record<string, MinuteSeries>;

/**
 * Reduce one window's series to {@link StepCloudFigures} (pure).
 * @param periodS the window's period, seconds
 */
export function summarize(series: WindowSeries, periodS: number): StepCloudFigures {
  const s = (id: string): MinuteSeries => series[id] ?? { timestampsMs: [], values: [] };
  const rate = (id: string, div = 1) => {
    const r = ratePerSecond(s(id), periodS);
    return r === null ? null : r / div;
  };
  const idleSum = sumPresent(s('vol_idle'));
  const idleN = present(s('vol_idle')).withData;
  return {
    readMiBs: rate('vol_read_bytes', MIB),
    writeMiBs: rate('vol_write_bytes', MIB),
    readIops: rate('vol_read_ops'),
    writeIops: rate('vol_write_ops'),
    queueLength: meanPresent(s('vol_queue')),
    idlePct: idleSum === null ? null : (idleSum / (idleN * periodS)) * 100,
    burstBalancePct: minPresent(s('vol_burst')),
    cpuPct: meanPresent(s('cpu_avg')),
    cpuMaxPct: maxPresent(s('cpu_max')),
    instanceEbsReadMiBs: rate('ec2_ebs_read', MIB),
    ebsByteBalancePct: minPresent(s('ec2_byte_bal')),
    ebsIoBalancePct: minPresent(s('ec2_io_bal')),
    minutes: {
      volume: present(s('vol_read_bytes')).withData,
      instance: present(s('cpu_avg')).withData,
      of: s('vol_read_bytes').values.length,
    },
  };
}

/** The `GetMetricData` queries for one cell (full dimensions, basic statistics). */
export function metricQueries(res: Pick<CloudResources, 'volume' | 'instance'>, periodS: number): MetricDataQuery[] {
  return CLOUD_METRICS.filter((m) => m.id !== 'vol_burst' || BURST_BALANCE_TYPES.has(res.volume.type)).map((m) => ({
    Id: m.id,
    ReturnData: true,
    MetricStat: {
      Metric: {
        Namespace: m.namespace,
        MetricName: m.metric,
        Dimensions:
          m.on === 'volume'
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
export async function readWindow(
  cw: CloudWatchClient,
  res: Pick<CloudResources, 'volume' | 'instance'>,
  w: Pick<AttributableWindow, 'alignedStartMs' | 'alignedEndMs' | 'periodS'>,
): Promise<WindowSeries> {
  const queries = metricQueries(res, w.periodS);
  const ts: Record<string, number[]> = {};
  const vs: Record<string, number[]> = {};
  let nextToken: string | undefined;
  do {
    const out = await cw.send(
      new GetMetricDataCommand({
        MetricDataQueries: queries,
        StartTime: new Date(w.alignedStartMs),
        EndTime: new Date(w.alignedEndMs),
        ScanBy: 'TimestampAscending',
        NextToken: nextToken,
      }),
    );
    for (const r of out.MetricDataResults ?? []) {
      if (!r.Id) continue;
      if (r.StatusCode === 'Forbidden' || r.StatusCode === 'InternalError') {
        throw new Error(`GetMetricData ${r.Id}: ${r.StatusCode} ${(r.Messages ?? []).map((m) => m.Value).join('; ')}`);
      }
      (ts[r.Id] ??= []).push(...(r.Timestamps ?? []).map((d) => d.getTime()));
      (vs[r.Id] ??= []).push(...(r.Values ?? []));
    }
    nextToken = out.NextToken;
  } while (nextToken);
  const series: WindowSeries = {};
  for (const q of queries) {
    const id = q.Id ?? '';
    series[id] = toMinuteSeries(w.alignedStartMs, w.alignedEndMs, w.periodS, ts[id] ?? [], vs[id] ?? []);
  }
  return series;
}

/** Cloud figures of one step: attributable (figures + label) or not (the reason). */
export type StepCloudResult =
  | (AttributableWindow & {
      figures: StepCloudFigures;
      bottleneck: Bottleneck;
      /** Data points CloudWatch returned per metric query id ({@link MetricSpec.id}), of `periods` asked for. */
      datapoints: Record<string, number>;
    })
  | { step: string; startMs: number; endMs: number; attributable: false; reason: string; sharedWith: string[] };

/** Options of {@link collectStepMetrics}. */
export interface CollectOptions extends WindowOptions {
  thresholds?: Partial<BottleneckThresholds>;
}

/**
 * Cloud figures and bottleneck labels for a cell's step windows: plan the windows (CloudWatch's
 * rules, `windows.ts`), read each attributable one with `GetMetricData`, summarize and label.
 * @returns one result per step, in order; `partial` is true when any figure may still change, and
 *   `finalAtMs` is when to read again for final figures
 */
export async function collectStepMetrics(
  cw: CloudWatchClient,
  res: CloudResources,
  steps: readonly StepWindow[],
  opts: CollectOptions,
): Promise<{ steps: StepCloudResult[]; partial: boolean; finalAtMs: number }> {
  const planned = planWindows(steps, opts);
  const out: StepCloudResult[] = [];
  let finalAtMs = opts.nowMs;
  for (const w of planned) {
    if (!w.attributable) {
      out.push(w);
      continue;
    }
    const series = await readWindow(cw, res, w);
    const figures = summarize(series, w.periodS);
    const datapoints = Object.fromEntries(Object.entries(series).map(([id, x]) => [id, present(x).withData]));
    const bottleneck = labelBottleneck(figures, res, opts.thresholds);
    if (w.partial)
      bottleneck.evidence += `; partial: newest minute not final before ${new Date(w.finalAtMs).toISOString()}`;
    out.push({ ...w, figures, bottleneck, datapoints });
    finalAtMs = Math.max(finalAtMs, w.finalAtMs);
  }
  return { steps: out, partial: out.some((s) => s.attributable && s.partial), finalAtMs };
}
