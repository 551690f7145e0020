/**
 * The cloud figures and cost of a run's Kubernetes cells (the method behind the matrix's
 * `collectCloudMetrics`): plan each cell (its volume and instance, `resources.ts`; its step windows
 * from the step records' `started_at`/`finished_at`, `steps.ts`), wait until the newest window's
 * CloudWatch figures are final (aligned end + `cloud.settleMs`, `windows.ts`), read every window
 * (GetMetricData, full dimensions, basic statistics) and label it disk-bound / CPU-bound / neither /
 * unknown (`metrics.ts`), and price the cell (instance-hours + gp3 GB-month prorated +
 * IOPS/throughput above the baseline, `cost.ts`). Reads and writes no files: the caller hands in the
 * records and writes what comes back.
 */
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { EC2Client } from '@aws-sdk/client-ec2';
import { PricingClient } from '@aws-sdk/client-pricing';
import {
  CELL_COST_SCHEMA,
  CLOUD_METRICS_SCHEMA,
  RUN_COST_SCHEMA,
  type CellCostRecord,
  type CloudMetricsRecord,
  type CloudResourcesRecord,
  type CloudStepRecord,
  type ProvisionRecord,
  type RunCostRecord,
} from '../schema/results';
import type { CloudSpec } from '../schema/run-spec';
import {
  CLOUD_METRICS,
  DEFAULT_THRESHOLDS,
  collectStepMetrics,
  type CloudResources,
  type StepCloudResult,
} from './metrics';
import { PERIOD_S, finalAt, planWindows, type StepWindow } from './windows';
import { cellStepWindows, type CellSpan, type CellStepRecords } from './steps';
import { ARTICLE_PRICES, TablePriceSource, priceCell, usd, withOverride, type PriceSource } from './cost';
import { PriceListPriceSource } from './price-list';
import { resolveCellResources, type StorageClassTemplate } from './resources';

/** The AWS clients the collection uses. */
export interface CloudClients {
  ec2: EC2Client;
  cloudwatch: CloudWatchClient;
  /** For `cloud.priceList` only. */
  pricing: PricingClient;
}

/**
 * The SDK's default clients for a region: credentials from the standard chain, endpoint from
 * `AWS_ENDPOINT_URL` when set; the Pricing client in us-east-1 (where the Price List API answers).
 */
export function defaultCloudClients(region: string): CloudClients {
  return {
    ec2: new EC2Client({ region }),
    cloudwatch: new CloudWatchClient({ region }),
    pricing: new PricingClient({ region: 'us-east-1' }),
  };
}

/** Close the clients' connections. */
export function destroyCloudClients(c: CloudClients): void {
  c.ec2.destroy();
  c.cloudwatch.destroy();
  c.pricing.destroy();
}

/** What the matrix's `collectCloudMetrics` returns into workflow history: counts and the run total only. */
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

/** The empty summary (nothing collected, nothing waited for). */
export function emptyCloudSummary(): CollectCloudMetricsSummary {
  return { collected: [], skipped: [], windows: 0, unattributable: 0, partial: false, waitedMs: 0, runTotalUsd: null };
}

/** A cell ready to read: its resources, windows and span. */
export interface PlannedCell {
  cell: string;
  /** The cell's results folder (where its records go). */
  dir: string;
  res: CloudResources;
  rec: CloudResourcesRecord;
  steps: StepWindow[];
  /** Steps without wall-clock times in their records. */
  untimed: string[];
  span: CellSpan;
}

/**
 * Plan one cell, or say why it is skipped: no `provision.json`, not a Kubernetes cell, no node
 * `spec.providerID` / PV `csi.volumeHandle` recorded, or no whole-cell span in its step records.
 * @param stepRecords read only when the cell is a Kubernetes-on-AWS one
 * @throws what {@link resolveCellResources} and `stepRecords` throw
 */
export async function planCloudCell(
  ec2: EC2Client,
  cell: { cell: string; dir: string; provision: ProvisionRecord | undefined },
  stepRecords: (provision: ProvisionRecord) => CellStepRecords,
  template: StorageClassTemplate,
): Promise<PlannedCell | { skipped: string }> {
  const { provision } = cell;
  const k = provision?.target.kubernetes;
  if (!provision || !k) return { skipped: provision ? 'not a Kubernetes cell' : 'no provision.json' };
  if (!k.providerID || !k.volumeHandle)
    return { skipped: `no ${!k.providerID ? 'node spec.providerID' : 'PV csi.volumeHandle'} recorded` };
  const { steps, missing, span } = cellStepWindows(stepRecords(provision));
  if (!span) return { skipped: 'no whole-cell span' };
  const describable = { ...k, providerID: k.providerID, volumeHandle: k.volumeHandle };
  const { res, rec } = await resolveCellResources(ec2, describable, template);
  return { cell: cell.cell, dir: cell.dir, res, rec, steps, untimed: missing, span };
}

/**
 * Wait until every planned window's figures are final (CloudWatch's newest minute is not final at
 * once: rule 3 of `windows.ts`), telling `heartbeat` how long is left every ≤ 10 s.
 * @returns how long it waited, ms
 */
export async function waitUntilFinal(
  planned: readonly PlannedCell[],
  settleMs: number,
  io: { heartbeat: (details: { waiting_for_final_ms: number }) => void; sleep: (ms: number) => Promise<void> },
): Promise<number> {
  const t0 = Date.now();
  const opts = { settleMs, periodS: PERIOD_S, nowMs: t0 };
  const readyAt = Math.max(t0, ...planned.map((p) => finalAt(planWindows(p.steps, opts), t0)));
  for (let left = readyAt - Date.now(); left > 0; left = readyAt - Date.now()) {
    io.heartbeat({ waiting_for_final_ms: left });
    await io.sleep(Math.min(left, 10_000));
  }
  return Date.now() - t0;
}

/**
 * Where the run's prices come from: the spec's `cloud.prices` over the article's table, or the
 * Price List API (`cloud.priceList`) with that table as fallback. Prices of another region than the
 * run's are said beside every cost (the defaults are the article's Seoul prices).
 */
export function priceSourceOf(cloud: CloudSpec, pricing: PricingClient): PriceSource {
  const priceTable = { ...withOverride(ARTICLE_PRICES, cloud.prices) };
  if (priceTable.region && priceTable.region !== cloud.region && !cloud.priceList)
    priceTable.source += `; NOTE: these are ${priceTable.region} prices and this run is in ${cloud.region}: set cloud.prices (with region) or cloud.priceList for this region's`;
  const table = new TablePriceSource(priceTable);
  return cloud.priceList ? new PriceListPriceSource(pricing, cloud.region, table) : table;
}

/**
 * Read one planned cell's windows and price it.
 * @returns its `cloud-metrics.json` and `cost.json` records
 * @throws the AWS SDK's error when CloudWatch refuses a `GetMetricData`, or the Price List API fails
 */
export async function collectCloudCell(
  cw: CloudWatchClient,
  p: PlannedCell,
  cloud: CloudSpec,
  prices: PriceSource,
): Promise<{ metrics: CloudMetricsRecord; cost: CellCostRecord }> {
  const thresholds = { ...DEFAULT_THRESHOLDS, ...cloud.thresholds };
  const opts = { settleMs: cloud.settleMs, periodS: PERIOD_S, nowMs: Date.now(), thresholds };
  const out = await collectStepMetrics(cw, p.res, p.steps, opts);
  const metrics: CloudMetricsRecord = {
    schema: CLOUD_METRICS_SCHEMA,
    cell: p.cell,
    collected_at: new Date().toISOString(),
    region: cloud.region,
    resources: p.rec,
    metrics: CLOUD_METRICS.filter((m) => m.id !== 'vol_burst' || ['gp2', 'st1', 'sc1'].includes(p.res.volume.type)).map(
      (m) => ({
        id: m.id,
        namespace: m.namespace,
        metric: m.metric,
        stat: m.stat,
        dimension: m.on === 'volume' ? 'VolumeId' : 'InstanceId',
        unit: m.unit,
      }),
    ),
    period_s: PERIOD_S,
    settle_ms: cloud.settleMs,
    partial: out.partial,
    thresholds: {
      disk_utilisation: thresholds.diskUtilisation,
      cpu_pct: thresholds.cpuPct,
      balance_pct: thresholds.balancePct,
    },
    steps: out.steps.map(stepRecord),
    untimed_steps: p.untimed,
  };
  return { metrics, cost: await cellCostRecord(p, prices) };
}

/** The cell's cost: its instance and volume held for the whole-cell span. */
async function cellCostRecord(p: PlannedCell, prices: PriceSource): Promise<CellCostRecord> {
  const heldMs = p.span.endMs - p.span.startMs;
  const v = p.rec.volume;
  const cost = await priceCell(
    {
      cell: p.cell,
      instanceType: p.res.instance.type,
      instanceHeldMs: heldMs,
      volume: { type: v.type ?? 'unknown', sizeGiB: v.size_gib ?? 0, iops: v.iops, throughputMiBs: v.throughput_mib_s },
      volumeHeldMs: heldMs,
    },
    prices,
  );
  const sizeUnknown = v.size_gib === null;
  return {
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
}

/**
 * The run's cost: the sum of its cells' (null when one is unknown).
 * @returns the record, or null when no cell was priced
 */
export function runCostRecord(runId: string, cells: CellCostRecord[], prices: PriceSource): RunCostRecord | null {
  if (!cells.length) return null;
  const totals = cells.map((c) => ({ cell: c.cell, total_usd: c.total_usd }));
  const total = totals.some((t) => t.total_usd === null) ? null : totals.reduce((a, t) => a + (t.total_usd ?? 0), 0);
  return {
    schema: RUN_COST_SCHEMA,
    runId,
    computed_at: new Date().toISOString(),
    cells: totals,
    total_usd: total,
    price_source: prices.description,
  };
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

/** What {@link collectRunCloudMetrics} needs from its caller: files, heartbeats and sleeps. */
export interface CloudCollectionIo {
  /** Progress for the activity's heartbeat (`cell`, `waiting_for_final_ms`, `run_total`). */
  heartbeat: (details: Record<string, unknown>) => void;
  sleep: (ms: number) => Promise<void>;
  /** The cell's step records (`readCellStepRecords`). */
  stepRecords: (dir: string, provision: ProvisionRecord) => CellStepRecords;
  template: StorageClassTemplate;
  /** Write a record atomically into the cell's folder (`cloud-metrics.json`, `cost.json`). */
  writeCell: (
    dir: string,
    file: 'cloud-metrics.json' | 'cost.json',
    record: CloudMetricsRecord | CellCostRecord,
  ) => void;
}

/**
 * The whole collection over a run's cells, in their order: plan every cell, wait until the windows
 * are final, then per cell read, label, price and write its two records.
 * @returns the summary and the run's cost record (null when no cell was priced), for the caller to write
 * @throws what {@link planCloudCell} and {@link collectCloudCell} throw
 */
export async function collectRunCloudMetrics(
  clients: CloudClients,
  cloud: CloudSpec,
  runId: string,
  cells: { cell: string; dir: string; provision: ProvisionRecord | undefined }[],
  io: CloudCollectionIo,
): Promise<{ summary: CollectCloudMetricsSummary; runCost: RunCostRecord | null }> {
  const summary = emptyCloudSummary();
  const planned: PlannedCell[] = [];
  for (const c of cells) {
    const p = await planCloudCell(clients.ec2, c, (pr) => io.stepRecords(c.dir, pr), io.template);
    if ('skipped' in p) summary.skipped.push({ cell: c.cell, reason: p.skipped });
    else {
      planned.push(p);
      io.heartbeat({ cell: c.cell });
    }
  }
  summary.waitedMs = await waitUntilFinal(planned, cloud.settleMs, io);
  const prices = priceSourceOf(cloud, clients.pricing);
  const costs: CellCostRecord[] = [];
  for (const p of planned) {
    io.heartbeat({ cell: p.cell });
    const { metrics, cost } = await collectCloudCell(clients.cloudwatch, p, cloud, prices);
    io.writeCell(p.dir, 'cloud-metrics.json', metrics);
    io.writeCell(p.dir, 'cost.json', cost);
    summary.windows += metrics.steps.length;
    summary.unattributable += metrics.steps.filter((s) => !s.attributable).length;
    summary.partial ||= metrics.partial;
    costs.push(cost);
    summary.collected.push(p.cell);
  }
  const runCost = runCostRecord(runId, costs, prices);
  summary.runTotalUsd = runCost ? runCost.total_usd : null;
  io.heartbeat({ run_total: usd(runCost ? runCost.total_usd : 0) });
  return { summary, runCost };
}
