"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.TablePriceSource = exports.priceOverrideSchema = exports.ARTICLE_PRICES = exports.HOURS_PER_MONTH = void 0;
exports.withOverride = withOverride;
exports.cellCost = cellCost;
exports.priceCell = priceCell;
exports.priceRun = priceRun;
exports.usd = usd;
const run_spec_1 = require("../schema/run-spec");
/** Hours in a billing month (AWS: 730 h = 365 × 24 ÷ 12). */
exports.HOURS_PER_MONTH = 730;
const MS_PER_HOUR = 3_600_000;
/** The article's prices (see the module comment for each figure's source). */
exports.ARTICLE_PRICES = {
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
    source: 'article (AWS Pricing API, Seoul, 2026-09-11): m5.xlarge $0.236/h, gp3 $0.0912/GB-month; gp3 IOPS/throughput above baseline: AWS EBS pricing page (Seoul), not in the article',
};
/**
 * What a run spec may say about prices (`cloud.prices`): any subset; named entries replace the
 * defaults' entries of the same key, the rest stay. Unknown keys are refused. Defined with the run
 * spec (`PriceOverrideSpec` in `src/schema/run-spec.ts`).
 */
exports.priceOverrideSchema = run_spec_1.PriceOverrideSpec;
/**
 * The defaults with a spec's override applied: instance types entry by entry, volume types field by
 * field (overriding gp3's `gbMonthUsd` keeps its included IOPS/throughput and their prices).
 * @returns a new table; `source` says the spec overrode it unless the override names its own source
 */
function withOverride(base, o) {
    if (!o)
        return base;
    const volume = { ...base.volume };
    for (const [type, v] of Object.entries(o.volume ?? {}))
        volume[type] = { ...base.volume[type], ...v };
    return {
        region: o.region ?? base.region,
        instanceHourlyUsd: { ...base.instanceHourlyUsd, ...o.instanceHourlyUsd },
        volume,
        source: o.source ?? `run spec prices over: ${base.source}`,
    };
}
/** A {@link PriceSource} over a {@link PriceTable}. */
class TablePriceSource {
    table;
    constructor(table = exports.ARTICLE_PRICES) {
        this.table = table;
    }
    get description() {
        return `${this.table.source} [${this.table.region}]`;
    }
    instanceHourlyUsd(instanceType) {
        return Promise.resolve(this.table.instanceHourlyUsd[instanceType] ?? null);
    }
    volumePrice(volumeType) {
        return Promise.resolve(this.table.volume[volumeType] ?? null);
    }
}
exports.TablePriceSource = TablePriceSource;
/**
 * Price one cell from known prices (pure).
 * @param u what the cell held and for how long
 * @param instanceHourlyUsd USD/h, or null when unknown
 * @param volumePrice the volume type's prices, or null when unknown
 */
function cellCost(u, instanceHourlyUsd, volumePrice) {
    const lines = [];
    const hours = u.instanceHeldMs / MS_PER_HOUR;
    const share = u.instanceShare ?? 1;
    let instanceUsd = null;
    if (instanceHourlyUsd === null) {
        lines.push(`instance ${u.instanceType}: no price`);
    }
    else {
        instanceUsd = instanceHourlyUsd * hours * share;
        lines.push(`instance ${u.instanceType}: $${instanceHourlyUsd}/h × ${hours.toFixed(4)} h${share === 1 ? '' : ` × ${share}`} = $${instanceUsd.toFixed(4)}`);
    }
    const months = u.volumeHeldMs / MS_PER_HOUR / exports.HOURS_PER_MONTH;
    let storageUsd = null;
    let iopsUsd = null;
    let throughputUsd = null;
    const v = u.volume;
    if (volumePrice === null) {
        lines.push(`volume ${v.type}: no price`);
    }
    else {
        storageUsd = v.sizeGiB * volumePrice.gbMonthUsd * months;
        lines.push(`volume ${v.type} ${v.sizeGiB} GiB: $${volumePrice.gbMonthUsd}/GB-month × ${(months * exports.HOURS_PER_MONTH).toFixed(4)} h ÷ ${exports.HOURS_PER_MONTH} = $${storageUsd.toFixed(4)}`);
        const extraIops = Math.max(0, (v.iops ?? 0) - (volumePrice.includedIops ?? 0));
        if (extraIops > 0 && volumePrice.iopsMonthUsd === undefined) {
            lines.push(`IOPS above ${volumePrice.includedIops ?? 0}: no price`);
        }
        else {
            iopsUsd = extraIops * (volumePrice.iopsMonthUsd ?? 0) * months;
            if (extraIops > 0)
                lines.push(`${extraIops} IOPS above ${volumePrice.includedIops ?? 0}: $${iopsUsd.toFixed(4)}`);
        }
        const extraTput = Math.max(0, (v.throughputMiBs ?? 0) - (volumePrice.includedThroughputMiBs ?? 0));
        if (extraTput > 0 && volumePrice.throughputMonthUsd === undefined) {
            lines.push(`throughput above ${volumePrice.includedThroughputMiBs ?? 0} MiB/s: no price`);
        }
        else {
            throughputUsd = extraTput * (volumePrice.throughputMonthUsd ?? 0) * months;
            if (extraTput > 0) {
                lines.push(`${extraTput} MiB/s above ${volumePrice.includedThroughputMiBs ?? 0}: $${throughputUsd.toFixed(4)}`);
            }
        }
    }
    const parts = [instanceUsd, storageUsd, iopsUsd, throughputUsd];
    const totalUsd = parts.some((p) => p === null) ? null : parts.reduce((a, b) => a + (b ?? 0), 0);
    return { cell: u.cell, instanceUsd, storageUsd, iopsUsd, throughputUsd, totalUsd, lines };
}
/**
 * Price one cell with a {@link PriceSource}.
 */
async function priceCell(u, prices) {
    return cellCost(u, await prices.instanceHourlyUsd(u.instanceType), await prices.volumePrice(u.volume.type));
}
/** Price every cell of a run and add them up (the sum of unrounded cell totals). */
async function priceRun(usages, prices) {
    const cells = [];
    for (const u of usages)
        cells.push(await priceCell(u, prices));
    const totalUsd = cells.some((c) => c.totalUsd === null) ? null : cells.reduce((a, c) => a + (c.totalUsd ?? 0), 0);
    return { cells, totalUsd, source: prices.description };
}
/**
 * A USD amount for display: to the cent from $1 (`$12.25`), to a hundredth of a cent below (`$0.0013`); `n/a` for null.
 */
function usd(x) {
    if (x === null)
        return 'n/a';
    // Below a dollar, to a hundredth of a cent (a short cell costs fractions of a cent).
    return Math.abs(x) < 1 ? `$${x.toFixed(4)}` : `$${(Math.round(x * 100) / 100).toFixed(2)}`;
}
//# sourceMappingURL=cost.js.map