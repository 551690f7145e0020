"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.PriceListPriceSource = void 0;
exports.onDemandUsd = onDemandUsd;
/**
 * Prices from the AWS Price List API (`GetProducts` of `@aws-sdk/client-pricing`), with the price
 * table as the fallback for anything the API does not answer. Only the on-demand instance-hour
 * (service `AmazonEC2`, Linux, shared tenancy, no pre-installed software, `capacitystatus` Used) and
 * the volume type's GB-month (`AmazonEC2`, product family `Storage`, `volumeApiName`) are asked for;
 * the included IOPS/throughput and their above-baseline prices stay the table's. Every fallback is
 * noted in {@link PriceListPriceSource.description}.
 *
 * The Price List API answers in `us-east-1` (also `eu-central-1`, `ap-south-1`) whatever region the
 * prices are for; the products are filtered by `regionCode`.
 */
const client_pricing_1 = require("@aws-sdk/client-pricing");
/**
 * The first positive on-demand USD price with `unit` in a `GetProducts` `PriceList` (JSON strings,
 * or objects where the SDK decoded them).
 * @returns USD per unit, or null when no product carries one
 */
function onDemandUsd(priceList, unit) {
    for (const raw of priceList) {
        let p;
        try {
            // The SDK hands each product as a JSON string (or a String-like lazy JSON wrapper).
            p = (typeof raw === 'string' ||
                raw instanceof String ||
                (typeof raw === 'object' && raw !== null && !('terms' in raw))
                ? JSON.parse(String(raw))
                : raw);
        }
        catch {
            continue;
        }
        for (const term of Object.values(p.terms?.OnDemand ?? {}))
            for (const dim of Object.values(term.priceDimensions ?? {})) {
                const usd = Number(dim.pricePerUnit?.USD);
                if (dim.unit?.toLowerCase() === unit.toLowerCase() && Number.isFinite(usd) && usd > 0)
                    return usd;
            }
    }
    return null;
}
const term = (Field, Value) => ({ Type: 'TERM_MATCH', Field, Value });
/** A {@link PriceSource} over the Price List API, falling back to a table. */
class PriceListPriceSource {
    pricing;
    regionCode;
    fallback;
    /** One line per price taken from the table instead of the API, with why. */
    notes = [];
    used = [];
    /**
     * @param pricing a configured client (region us-east-1 unless an endpoint is given)
     * @param regionCode the region the prices are for, e.g. `us-east-1`
     * @param fallback the table used where the API has no answer
     */
    constructor(pricing, regionCode, fallback) {
        this.pricing = pricing;
        this.regionCode = regionCode;
        this.fallback = fallback;
    }
    get description() {
        const parts = [
            this.used.length
                ? `AWS Price List API GetProducts (AmazonEC2, regionCode ${this.regionCode}, on-demand): ${this.used.join(', ')}`
                : `AWS Price List API (regionCode ${this.regionCode}) gave no price used`,
        ];
        if (this.notes.length)
            parts.push(`fell back to ${this.fallback.description} for: ${this.notes.join('; ')}`);
        return parts.join('; ');
    }
    async ask(filters, unit) {
        try {
            const out = await this.pricing.send(new client_pricing_1.GetProductsCommand({ ServiceCode: 'AmazonEC2', Filters: filters, FormatVersion: 'aws_v1', MaxResults: 20 }));
            const usd = onDemandUsd(out.PriceList ?? [], unit);
            return { usd, why: usd === null ? `no on-demand ${unit} price in the answer` : '' };
        }
        catch (e) {
            return { usd: null, why: `GetProducts failed: ${e.message.split('\n')[0]}` };
        }
    }
    async instanceHourlyUsd(instanceType) {
        const r = await this.ask([
            term('instanceType', instanceType),
            term('regionCode', this.regionCode),
            term('operatingSystem', 'Linux'),
            term('tenancy', 'Shared'),
            term('preInstalledSw', 'NA'),
            term('capacitystatus', 'Used'),
        ], 'Hrs');
        if (r.usd !== null) {
            this.used.push(`${instanceType} $${r.usd}/h`);
            return r.usd;
        }
        this.notes.push(`${instanceType} (${r.why})`);
        return this.fallback.instanceHourlyUsd(instanceType);
    }
    async volumePrice(volumeType) {
        const table = await this.fallback.volumePrice(volumeType);
        const r = await this.ask([term('productFamily', 'Storage'), term('volumeApiName', volumeType), term('regionCode', this.regionCode)], 'GB-Mo');
        if (r.usd !== null) {
            this.used.push(`${volumeType} $${r.usd}/GB-month`);
            if (table && (table.iopsMonthUsd !== undefined || table.throughputMonthUsd !== undefined))
                this.notes.push(`${volumeType} IOPS/throughput above the included ones (table)`);
            return { ...(table ?? {}), gbMonthUsd: r.usd };
        }
        this.notes.push(`${volumeType} storage (${r.why})`);
        return table;
    }
}
exports.PriceListPriceSource = PriceListPriceSource;
//# sourceMappingURL=price-list.js.map