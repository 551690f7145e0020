/**
 * collectCloudMetrics: after every cell of a run with a `cloud` spec, read each Kubernetes cell's
 * EBS volume and EC2 instance (DescribeVolumes / DescribeInstances / DescribeInstanceTypes), its
 * CloudWatch figures per step window (GetMetricData, full dimensions, basic statistics; windows from
 * the step records' `started_at`/`finished_at`, planned by CloudWatch's rules in
 * `src/cloud/windows.ts`), label each step disk-bound / CPU-bound / neither / unknown, and price the
 * cell (instance-hours + gp3 GB-month prorated + IOPS/throughput above the baseline).
 *
 * Writes per cell `cloud-metrics.json` ({@link CloudMetricsRecord}) and `cost.json`
 * ({@link CellCostRecord}), per run `cost.json` ({@link RunCostRecord}); atomic writes, so running
 * it again rewrites the same files. Before reading, it waits until the newest window's figures are
 * final (aligned end + `cloud.settleMs`), heartbeating how long is left.
 *
 * AWS clients come from the worker's environment (the SDK's default credential chain, region from
 * the spec, `AWS_ENDPOINT_URL` for another endpoint such as moto); tests inject them.
 */
import path from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { EC2Client } from '@aws-sdk/client-ec2';
import { PricingClient } from '@aws-sdk/client-pricing';
import { REPO_ROOT } from '../../config';
import { cellDir, readRecord, readRecordIfExists, runDir, writeJsonAtomic } from '../../results/store';
import {
  CELL_COST_SCHEMA,
  CLOUD_METRICS_SCHEMA,
  ProvisionRecord,
  RUN_COST_SCHEMA,
  RunRecord,
  type CellCostRecord,
  type CloudMetricsRecord,
  type CloudResourcesRecord,
  type CloudStepRecord,
} from '../../schema/results';
import type { CloudSpec } from '../../schema/run-spec';
import type { KubernetesFacts } from '../../schema/target';
import {
  describeInstance,
  describeVolume,
  GP3_BASELINE,
  instanceEbsLimits,
  parseProviderId,
  parseVolumeHandle,
} from '../../cloud/aws';
import {
  CLOUD_METRICS,
  DEFAULT_THRESHOLDS,
  collectStepMetrics,
  type CloudResources,
  type StepCloudResult,
} from '../../cloud/metrics';
import { PERIOD_S, finalAt, planWindows, type StepWindow } from '../../cloud/windows';
import { cellStepWindows, type CellSpan } from '../../cloud/steps';
import { readCellStepRecords } from '../../results/step-records';
import { ARTICLE_PRICES, TablePriceSource, priceCell, usd, withOverride, type PriceSource } from '../../cloud/cost';
import { PriceListPriceSource } from '../../cloud/price-list';
import { heartbeat, sleep } from '../../temporal/activity-context';

/** The AWS clients the activity uses. */
export interface CloudClients {
  ec2: EC2Client;
  cloudwatch: CloudWatchClient;
  /** For `cloud.priceList` only. */
  pricing: PricingClient;
}

/** Dependencies (tests inject clients pointed at moto and a Price List stub). */
export interface CollectCloudMetricsDeps {
  /**
   * Build the clients for a region. @default the SDK's defaults: credentials from the standard
   * chain, endpoint from `AWS_ENDPOINT_URL` when set; the Pricing client in us-east-1 (where the
   * Price List API answers).
   */
  awsClients?: (region: string) => CloudClients;
}

/** Input: where the run is. The `cloud` section and the cells come from its `run.json`. */
export interface CollectCloudMetricsInput {
  resultsDir: string;
  runId: string;
}

/** What goes back into workflow history: counts and the run total only. */
export interface CollectCloudMetricsSummary {
  /** Cells with `cloud-metrics.json` and `cost.json` written. */
  collected: string[];
  /** Cells without Kubernetes-on-AWS facts (or without a result), with why. */
  skipped: { cell: string; reason: string }[];
  /** Step windows read, and those not attributable (shorter than a period). */
  windows: number;
  unattributable: number;
  /** True when some window was read before it was final (should not happen after the wait). */
  partial: boolean;
  /** How long the activity waited for final figures, ms. */
  waitedMs: number;
  /** Sum of the cells' costs, USD (null when a price was unknown). */
  runTotalUsd: number | null;
}

function defaultClients(region: string): CloudClients {
  return {
    ec2: new EC2Client({ region }),
    cloudwatch: new CloudWatchClient({ region }),
    pricing: new PricingClient({ region: 'us-east-1' }),
  };
}

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

/** The parameters of chbench's StorageClass template (`manifests/storageclass.yaml`) when `name` is its name. */
function manifestStorageClass(name: string): Record<string, string> | null {
  try {
    const doc = parseYaml(readFileSync(path.join(REPO_ROOT, 'manifests', 'storageclass.yaml'), 'utf8')) as {
      metadata?: { name?: string };
      parameters?: Record<string, string>;
    };
    return doc.metadata?.name === name ? (doc.parameters ?? null) : null;
  } catch {
    return null;
  }
}

/**
 * The cell's volume and instance: from the EC2 API where it still answers, else from what was
 * recorded at provisioning (a volume deleted at teardown is not describable in real AWS).
 */
async function resolveResources(
  ec2: EC2Client,
  k: KubernetesFacts & { providerID: string; volumeHandle: string },
): Promise<{ res: CloudResources; rec: CloudResourcesRecord }> {
  const { instanceId } = parseProviderId(k.providerID);
  const { volumeId } = parseVolumeHandle(k.volumeHandle);
  let volume: CloudResourcesRecord['volume'];
  try {
    const v = await describeVolume(ec2, volumeId);
    volume = {
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
    const sc = recorded ?? manifestStorageClass(k.storageClass);
    const scSource = recorded
      ? `StorageClass ${k.storageClass} parameters recorded at provisioning`
      : `StorageClass ${k.storageClass} parameters (manifests/storageclass.yaml)`;
    const type = sc?.type ?? null;
    const num = (x: string | undefined) => (x === undefined || !Number.isFinite(Number(x)) ? null : Number(x));
    volume = {
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
  let instance: CloudResourcesRecord['instance'];
  try {
    const i = await describeInstance(ec2, instanceId);
    instance = {
      instance_id: instanceId,
      type: i.type,
      zone: i.zone,
      state: i.state,
      detailed_monitoring: i.detailedMonitoring,
      source: 'EC2 DescribeInstances (InstanceType, Placement.AvailabilityZone, Monitoring.State)',
    };
  } catch (e) {
    instance = {
      instance_id: instanceId,
      type: k.instanceType,
      zone: k.zone,
      state: 'not describable',
      detailed_monitoring: null,
      source: `recorded at provisioning: node labels node.kubernetes.io/instance-type and topology.kubernetes.io/zone (DescribeInstances: ${(e as Error).message.split('\n')[0]})`,
    };
  }
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

const iso = (t: number) => new Date(t).toISOString();

/** One step's record from the library's result. */
function stepRecord(s: StepCloudResult): CloudStepRecord {
  const base = { step: s.step, started_at: iso(s.startMs), finished_at: iso(s.endMs), shared_with: s.sharedWith };
  if (!s.attributable)
    return {
      ...base,
      attributable: false,
      reason: s.reason,
      window: null,
      figures: null,
      datapoints: {},
      label: null,
      evidence: null,
    };
  const f = s.figures;
  return {
    ...base,
    attributable: true,
    reason: null,
    window: {
      start: iso(s.alignedStartMs),
      end: iso(s.alignedEndMs),
      period_s: s.periodS,
      periods: s.periods,
      coverage: s.coverage,
      partial: s.partial,
      final_at: iso(s.finalAtMs),
    },
    figures: {
      read_mib_s: f.readMiBs,
      write_mib_s: f.writeMiBs,
      read_iops: f.readIops,
      write_iops: f.writeIops,
      queue_length: f.queueLength,
      idle_pct: f.idlePct,
      burst_balance_pct: f.burstBalancePct,
      cpu_pct: f.cpuPct,
      cpu_max_pct: f.cpuMaxPct,
      instance_ebs_read_mib_s: f.instanceEbsReadMiBs,
      ebs_byte_balance_pct: f.ebsByteBalancePct,
      ebs_io_balance_pct: f.ebsIoBalancePct,
    },
    datapoints: s.datapoints,
    label: s.bottleneck.label,
    evidence: s.bottleneck.evidence,
  };
}

/** A cell ready to read: its resources, windows and span. */
interface PlannedCell {
  cell: string;
  dir: string;
  res: CloudResources;
  rec: CloudResourcesRecord;
  steps: StepWindow[];
  /** Steps without wall-clock times in their records. */
  untimed: string[];
  span: CellSpan;
}

/** Activity factory. */
export function createCollectCloudMetrics(deps: CollectCloudMetricsDeps = {}) {
  return {
    /**
     * Cloud metrics and cost of every Kubernetes cell of a run (see the module comment). Does
     * nothing (and says so) when `run.json`'s spec has no `cloud` section.
     * @returns counts and the run's total cost only (the figures are in the files)
     * @throws Error when `run.json` or a step record does not parse; the AWS SDK's error when
     *   CloudWatch refuses a `GetMetricData` (retried by the activity's policy)
     */
    async collectCloudMetrics(input: CollectCloudMetricsInput): Promise<CollectCloudMetricsSummary> {
      const dir = runDir(input.resultsDir, input.runId);
      const run = readRecord(path.join(dir, 'run.json'), RunRecord);
      const cloud: CloudSpec | undefined = run.spec.cloud;
      const summary: CollectCloudMetricsSummary = {
        collected: [],
        skipped: [],
        windows: 0,
        unattributable: 0,
        partial: false,
        waitedMs: 0,
        runTotalUsd: null,
      };
      if (!cloud) {
        summary.skipped = run.cells.map((cell) => ({ cell, reason: 'the run spec has no cloud section' }));
        return summary;
      }
      const clients = (deps.awsClients ?? defaultClients)(cloud.region);
      try {
        heartbeat({ step: 'cloud-metrics' });
        const planned: PlannedCell[] = [];
        for (const cell of run.cells) {
          const cdir = cellDir(input.resultsDir, input.runId, cell);
          const provision = existsSync(cdir)
            ? readRecordIfExists(path.join(cdir, 'provision.json'), ProvisionRecord)
            : undefined;
          const k = provision?.target.kubernetes;
          if (!provision || !k) {
            summary.skipped.push({ cell, reason: provision ? 'not a Kubernetes cell' : 'no provision.json' });
            continue;
          }
          if (!k.providerID || !k.volumeHandle) {
            summary.skipped.push({
              cell,
              reason: `no ${!k.providerID ? 'node spec.providerID' : 'PV csi.volumeHandle'} recorded`,
            });
            continue;
          }
          const { steps, missing, span } = cellStepWindows(readCellStepRecords(cdir, provision));
          if (!span) {
            summary.skipped.push({ cell, reason: 'no whole-cell span' });
            continue;
          }
          const { res, rec } = await resolveResources(clients.ec2, {
            ...k,
            providerID: k.providerID,
            volumeHandle: k.volumeHandle,
          });
          planned.push({ cell, dir: cdir, res, rec, steps, untimed: missing, span });
          heartbeat({ step: 'cloud-metrics', cell });
        }

        // CloudWatch's newest minute is not final at once: wait until every window's is (rule 3).
        const t0 = Date.now();
        const opts = { settleMs: cloud.settleMs, periodS: PERIOD_S };
        const readyAt = Math.max(t0, ...planned.map((p) => finalAt(planWindows(p.steps, { ...opts, nowMs: t0 }), t0)));
        for (let left = readyAt - Date.now(); left > 0; left = readyAt - Date.now()) {
          heartbeat({ step: 'cloud-metrics', waiting_for_final_ms: left });
          await sleep(Math.min(left, 10_000));
        }
        summary.waitedMs = Date.now() - t0;

        const thresholds = { ...DEFAULT_THRESHOLDS, ...cloud.thresholds };
        const priceTable = { ...withOverride(ARTICLE_PRICES, cloud.prices) };
        // Prices of another region than the run's are said beside every cost (the defaults are the
        // article's Seoul prices).
        if (priceTable.region && priceTable.region !== cloud.region && !cloud.priceList)
          priceTable.source += `; NOTE: these are ${priceTable.region} prices and this run is in ${cloud.region}: set cloud.prices (with region) or cloud.priceList for this region's`;
        const table = new TablePriceSource(priceTable);
        const prices: PriceSource = cloud.priceList
          ? new PriceListPriceSource(clients.pricing, cloud.region, table)
          : table;
        const totals: { cell: string; total_usd: number | null }[] = [];
        for (const p of planned) {
          heartbeat({ step: 'cloud-metrics', cell: p.cell });
          const out = await collectStepMetrics(clients.cloudwatch, p.res, p.steps, {
            ...opts,
            nowMs: Date.now(),
            thresholds,
          });
          const steps = out.steps.map(stepRecord);
          summary.windows += steps.length;
          summary.unattributable += steps.filter((s) => !s.attributable).length;
          summary.partial ||= out.partial;
          const metrics: CloudMetricsRecord = {
            schema: CLOUD_METRICS_SCHEMA,
            cell: p.cell,
            collected_at: new Date().toISOString(),
            region: cloud.region,
            resources: p.rec,
            metrics: CLOUD_METRICS.filter(
              (m) => m.id !== 'vol_burst' || ['gp2', 'st1', 'sc1'].includes(p.res.volume.type),
            ).map((m) => ({
              id: m.id,
              namespace: m.namespace,
              metric: m.metric,
              stat: m.stat,
              dimension: m.on === 'volume' ? 'VolumeId' : 'InstanceId',
              unit: m.unit,
            })),
            period_s: PERIOD_S,
            settle_ms: cloud.settleMs,
            partial: out.partial,
            thresholds: {
              disk_utilisation: thresholds.diskUtilisation,
              cpu_pct: thresholds.cpuPct,
              balance_pct: thresholds.balancePct,
            },
            steps,
            untimed_steps: p.untimed,
          };
          writeJsonAtomic(path.join(p.dir, 'cloud-metrics.json'), metrics);

          const heldMs = p.span.endMs - p.span.startMs;
          const v = p.rec.volume;
          const cost = await priceCell(
            {
              cell: p.cell,
              instanceType: p.res.instance.type,
              instanceHeldMs: heldMs,
              volume: {
                type: v.type ?? 'unknown',
                sizeGiB: v.size_gib ?? 0,
                iops: v.iops,
                throughputMiBs: v.throughput_mib_s,
              },
              volumeHeldMs: heldMs,
            },
            prices,
          );
          const sizeUnknown = v.size_gib === null;
          const rec: CellCostRecord = {
            schema: CELL_COST_SCHEMA,
            cell: p.cell,
            instance_type: p.rec.instance.type,
            volume: { type: v.type, size_gib: v.size_gib, iops: v.iops, throughput_mib_s: v.throughput_mib_s },
            held: {
              from: iso(p.span.startMs),
              to: iso(p.span.endMs),
              ms: heldMs,
              from_source: p.span.fromSource,
              to_source: p.span.toSource,
            },
            instance_usd: cost.instanceUsd,
            storage_usd: sizeUnknown ? null : cost.storageUsd,
            iops_usd: cost.iopsUsd,
            throughput_usd: cost.throughputUsd,
            total_usd: sizeUnknown ? null : cost.totalUsd,
            lines: sizeUnknown ? [...cost.lines, 'volume size unknown: storage not priced'] : cost.lines,
            price_source: prices.description,
          };
          writeJsonAtomic(path.join(p.dir, 'cost.json'), rec);
          totals.push({ cell: p.cell, total_usd: rec.total_usd });
          summary.collected.push(p.cell);
        }
        const runTotal = totals.some((t) => t.total_usd === null)
          ? null
          : totals.reduce((a, t) => a + (t.total_usd ?? 0), 0);
        summary.runTotalUsd = totals.length ? runTotal : null;
        if (totals.length)
          writeJsonAtomic(path.join(dir, 'cost.json'), {
            schema: RUN_COST_SCHEMA,
            runId: input.runId,
            computed_at: new Date().toISOString(),
            cells: totals,
            total_usd: runTotal,
            price_source: prices.description,
          });
        heartbeat({ step: 'cloud-metrics', run_total: usd(runTotal) });
        return summary;
      } finally {
        clients.ec2.destroy();
        clients.cloudwatch.destroy();
        clients.pricing.destroy();
      }
    },
  };
}
