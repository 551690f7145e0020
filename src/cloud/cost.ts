/**
 * What a cell and a run cost on AWS: the instance's on-demand price × hours held, plus the EBS
 * volume's GB-month prorated over the hours held (730 h to the month, AWS's convention in its EBS
 * pricing examples) and, for gp3, the IOPS above 3,000 and throughput above 125 MiB/s at their
 * monthly prices. Pure arithmetic over a price table; a {@link PriceSource} supplies the prices.
 *
 * Default prices are the article's (seed `/work/shared/seeds/000_d8b39f58775c6a6b.txt` lines 22 and
 * 177, the same figures in seeds 001 and 003): Seoul (ap-northeast-2), Linux on-demand m5.xlarge
 * $0.236/h and gp3 $0.0912/GB-month, read from the AWS Pricing API on 2026-09-11. The article gives
 * no price for gp3 IOPS or throughput above the baseline: those two defaults are from the AWS EBS
 * pricing page for Seoul ($0.0057 per IOPS-month, $0.0456 per MiB/s-month, i.e. us-east-1's $0.005
 * and $0.040 × the same 1.14 as gp3 storage) and were not re-checked here: override them in the
 * spec when it matters (the article's gp3 at 3,000/125 pays neither).
 */
import type { z } from 'zod';
import { PriceOverrideSpec } from '../schema/run-spec';

/** Hours in a billing month (AWS: 730 h = 365 × 24 ÷ 12). */
export const HOURS_PER_MONTH = 730;

const MS_PER_HOUR = 3_600_000;

/** Price of one EBS volume type. */
export interface VolumePrice {
  /** USD per GB-month of provisioned size (AWS bills the size in GiB as "GB"). */
  gbMonthUsd: number;
  /** IOPS included in the storage price (gp3: 3,000). @default 0 */
  includedIops?: number;
  /** USD per provisioned IOPS-month above `includedIops`. @default 0 */
  iopsMonthUsd?: number;
  /** Throughput included, MiB/s (gp3: 125). @default 0 */
  includedThroughputMiBs?: number;
  /** USD per provisioned MiB/s-month above `includedThroughputMiBs`. @default 0 */
  throughputMonthUsd?: number;
}

/** Prices chbench uses; every entry says where it came from. */
export interface PriceTable {
  /** Region the prices are for (e.g. `ap-northeast-2`). */
  region: string;
  /** On-demand USD per instance-hour, by instance type. */
  instanceHourlyUsd: Record<string, number>;
  /** By EBS volume type. */
  volume: Record<string, VolumePrice>;
  /** Where the figures came from (shown beside the cost in the report). */
  source: string;
}

/** The article's prices (see the module comment for each figure's source). */
export const ARTICLE_PRICES: PriceTable = {
  region: 'ap-northeast-2',
  instanceHourlyUsd: { 'm5.xlarge': 0.236 },
  volume: {
    gp3: {
      gbMonthUsd: 0.0912,
      includedIops: 3000,
      iopsMonthUsd: 0.0057,
      includedThroughputMiBs: 125,
      throughputMonthUsd: 0.0456,
    },
  },
  source:
    'article (AWS Pricing API, Seoul, 2026-09-11): m5.xlarge $0.236/h, gp3 $0.0912/GB-month; gp3 IOPS/throughput above baseline: AWS EBS pricing page (Seoul), not in the article',
};

/**
 * What a run spec may say about prices (`cloud.prices`): any subset; named entries replace the
 * defaults' entries of the same key, the rest stay. Unknown keys are refused. Defined with the run
 * spec (`PriceOverrideSpec` in `src/schema/run-spec.ts`).
 */
export const priceOverrideSchema = PriceOverrideSpec;

/** A spec's price override (see {@link priceOverrideSchema}). */
export type PriceOverride = z.infer<typeof priceOverrideSchema>;

/**
 * The defaults with a spec's override applied: instance types entry by entry, volume types field by
 * field (overriding gp3's `gbMonthUsd` keeps its included IOPS/throughput and their prices).
 * @returns a new table; `source` says the spec overrode it unless the override names its own source
 */
export function withOverride(base: PriceTable, o: PriceOverride | undefined): PriceTable {
  if (!o) return base;
  const volume: Record<string, VolumePrice> = { ...base.volume };
  for (const [type, v] of Object.entries(o.volume ?? {})) volume[type] = { ...base.volume[type], ...v } as VolumePrice;
  return {
    region: o.region ?? base.region,
    instanceHourlyUsd: { ...base.instanceHourlyUsd, ...o.instanceHourlyUsd },
    volume,
    source: o.source ?? `run spec prices over: ${base.source}`,
  };
}

/** Where prices come from: a table (default), or an API. */
export interface PriceSource {
  /** For the report, e.g. the table's `source`. */
  readonly description: string;
  /** On-demand USD per hour of an instance type, or null when unknown. */
  instanceHourlyUsd(instanceType: string): Promise<number | null>;
  /** Prices of an EBS volume type, or null when unknown. */
  volumePrice(volumeType: string): Promise<VolumePrice | null>;
}

/** A {@link PriceSource} over a {@link PriceTable}. */
export class TablePriceSource implements PriceSource {
  constructor(readonly table: PriceTable = ARTICLE_PRICES) {}
  get description(): string {
    return `${this.table.source} [${this.table.region}]`;
  }
  instanceHourlyUsd(instanceType: string): Promise<number | null> {
    return Promise.resolve(this.table.instanceHourlyUsd[instanceType] ?? null);
  }
  volumePrice(volumeType: string): Promise<VolumePrice | null> {
    return Promise.resolve(this.table.volume[volumeType] ?? null);
  }
}

/** What one cell held, and for how long. */
export interface CellUsage {
  /** Cell key, e.g. `v26.7-zstd3`. */
  cell: string;
  instanceType: string;
  /** Time the cell held the node, ms (pod scheduled → pod deleted). */
  instanceHeldMs: number;
  /**
   * Share of the node charged to the cell, 0..1. @default 1 (the article's node is dedicated to the
   * benchmark pod: node selector plus `karpenter.sh/do-not-disrupt`)
   */
  instanceShare?: number;
  volume: { type: string; sizeGiB: number; iops: number | null; throughputMiBs: number | null };
  /** Time the volume existed for the cell, ms (PVC bound → volume deleted). */
  volumeHeldMs: number;
}

/** A cell's cost, USD, unrounded (round once, at display: {@link usd}). */
export interface CellCost {
  cell: string;
  /** Instance: hourly price × hours held × share. */
  instanceUsd: number | null;
  /** EBS storage: GiB × GB-month price × months held (hours ÷ 730). */
  storageUsd: number | null;
  /** Provisioned IOPS above the included ones × IOPS-month price × months held. */
  iopsUsd: number | null;
  /** Provisioned MiB/s above the included ones × MiB/s-month price × months held. */
  throughputUsd: number | null;
  /** Sum of the known parts, or null when any part is unknown. */
  totalUsd: number | null;
  /** One line per part: the arithmetic, or why it is unknown. */
  lines: string[];
}

/**
 * Price one cell from known prices (pure).
 * @param u what the cell held and for how long
 * @param instanceHourlyUsd USD/h, or null when unknown
 * @param volumePrice the volume type's prices, or null when unknown
 */
export function cellCost(u: CellUsage, instanceHourlyUsd: number | null, volumePrice: VolumePrice | null): CellCost {
  const lines: string[] = [];
  const hours = u.instanceHeldMs / MS_PER_HOUR;
  const share = u.instanceShare ?? 1;
  let instanceUsd: number | null = null;
  if (instanceHourlyUsd === null) {
    lines.push(`instance ${u.instanceType}: no price`);
  } else {
    instanceUsd = instanceHourlyUsd * hours * share;
    lines.push(
      `instance ${u.instanceType}: $${instanceHourlyUsd}/h × ${hours.toFixed(4)} h${share === 1 ? '' : ` × ${share}`} = $${instanceUsd.toFixed(4)}`,
    );
  }
  const months = u.volumeHeldMs / MS_PER_HOUR / HOURS_PER_MONTH;
  let storageUsd: number | null = null;
  let iopsUsd: number | null = null;
  let throughputUsd: number | null = null;
  const v = u.volume;
  if (volumePrice === null) {
    lines.push(`volume ${v.type}: no price`);
  } else {
    storageUsd = v.sizeGiB * volumePrice.gbMonthUsd * months;
    lines.push(
      `volume ${v.type} ${v.sizeGiB} GiB: $${volumePrice.gbMonthUsd}/GB-month × ${(months * HOURS_PER_MONTH).toFixed(4)} h ÷ ${HOURS_PER_MONTH} = $${storageUsd.toFixed(4)}`,
    );
    const extraIops = Math.max(0, (v.iops ?? 0) - (volumePrice.includedIops ?? 0));
    if (extraIops > 0 && volumePrice.iopsMonthUsd === undefined) {
      lines.push(`IOPS above ${volumePrice.includedIops ?? 0}: no price`);
    } else {
      iopsUsd = extraIops * (volumePrice.iopsMonthUsd ?? 0) * months;
      if (extraIops > 0) lines.push(`${extraIops} IOPS above ${volumePrice.includedIops ?? 0}: $${iopsUsd.toFixed(4)}`);
    }
    const extraTput = Math.max(0, (v.throughputMiBs ?? 0) - (volumePrice.includedThroughputMiBs ?? 0));
    if (extraTput > 0 && volumePrice.throughputMonthUsd === undefined) {
      lines.push(`throughput above ${volumePrice.includedThroughputMiBs ?? 0} MiB/s: no price`);
    } else {
      throughputUsd = extraTput * (volumePrice.throughputMonthUsd ?? 0) * months;
      if (extraTput > 0) {
        lines.push(`${extraTput} MiB/s above ${volumePrice.includedThroughputMiBs ?? 0}: $${throughputUsd.toFixed(4)}`);
      }
    }
  }
  const parts = [instanceUsd, storageUsd, iopsUsd, throughputUsd];
  const totalUsd = parts.some((p) => p === null) ? null : parts.reduce<number>((a, b) => a + (b ?? 0), 0);
  return { cell: u.cell, instanceUsd, storageUsd, iopsUsd, throughputUsd, totalUsd, lines };
}

/**
 * Price one cell with a {@link PriceSource}.
 */
export async function priceCell(u: CellUsage, prices: PriceSource): Promise<CellCost> {
  return cellCost(u, await prices.instanceHourlyUsd(u.instanceType), await prices.volumePrice(u.volume.type));
}

/** A run's cost: its cells and their sum. */
export interface RunCost {
  cells: CellCost[];
  /** Sum of the cells' totals, USD, or null when any cell's total is unknown. */
  totalUsd: number | null;
  /** Where the prices came from. */
  source: string;
}

/** Price every cell of a run and add them up (the sum of unrounded cell totals). */
export async function priceRun(usages: readonly CellUsage[], prices: PriceSource): Promise<RunCost> {
  const cells: CellCost[] = [];
  for (const u of usages) cells.push(await priceCell(u, prices));
  const totalUsd = cells.some((c) => c.totalUsd === null) ? null : cells.reduce((a, c) => a + (c.totalUsd ?? 0), 0);
  return { cells, totalUsd, source: prices.description };
}

/**
 * A USD amount for display: to the cent from $1 (`$12.25`), to a hundredth of a cent below (`$0.0013`); `n/a` for null.
 */
export function usd(x: number | null): string {
  if (x === null) return 'n/a';
  // Below a dollar, to a hundredth of a cent (a short cell costs fractions of a cent).
  return Math.abs(x) < 1 ? `$${x.toFixed(4)}` : `$${(Math.round(x * 100) / 100).toFixed(2)}`;
}
