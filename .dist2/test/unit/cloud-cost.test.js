"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * Cost arithmetic (src/cloud/cost.ts), pure, to the cent: instance × hours, gp3 GB-month prorated
 * over 730 h, IOPS/throughput above the gp3 baseline, the article's own figures, spec overrides.
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const cost_1 = require("../../src/cloud/cost");
const H = 3_600_000;
const gp3 = cost_1.ARTICLE_PRICES.volume.gp3;
const cents = (x) => (x === null ? null : Math.round(x * 100));
function usage(hours, volume = {}, instanceType = 'm5.xlarge') {
    return {
        cell: 'v26.7-lz4',
        instanceType,
        instanceHeldMs: hours * H,
        volume: { type: 'gp3', sizeGiB: 100, iops: 3000, throughputMiBs: 125, ...volume },
        volumeHeldMs: hours * H,
    };
}
(0, node_test_1.test)("the article's prices: m5.xlarge $0.236/h, gp3 $0.0912/GB-month (seed 000, lines 22 and 177)", () => {
    strict_1.default.equal(cost_1.ARTICLE_PRICES.instanceHourlyUsd['m5.xlarge'], 0.236);
    strict_1.default.equal(gp3.gbMonthUsd, 0.0912);
    strict_1.default.equal(cost_1.ARTICLE_PRICES.region, 'ap-northeast-2');
});
(0, node_test_1.test)('one hour of the article cell: $0.236 + 100 GiB × $0.0912 ÷ 730 = $0.2485 (to a hundredth of a cent below $1)', () => {
    const c = (0, cost_1.cellCost)(usage(1), 0.236, gp3);
    strict_1.default.equal(c.instanceUsd, 0.236);
    strict_1.default.ok(Math.abs((c.storageUsd ?? 0) - 9.12 / 730) < 1e-12);
    strict_1.default.equal(c.iopsUsd, 0); // 3,000 IOPS are included
    strict_1.default.equal(c.throughputUsd, 0); // 125 MiB/s are included
    strict_1.default.equal(cents(c.totalUsd), 25);
    strict_1.default.equal((0, cost_1.usd)(c.totalUsd), '$0.2485');
    strict_1.default.equal((0, cost_1.usd)(12.254), '$12.25');
    strict_1.default.equal((0, cost_1.usd)(null), 'n/a');
    strict_1.default.match(c.lines.join('\n'), /instance m5\.xlarge: \$0\.236\/h × 1\.0000 h = \$0\.2360/);
});
(0, node_test_1.test)('a whole month (730 h): the volume is $9.12 as in the article; 235 GiB is $21.43', () => {
    const c = (0, cost_1.cellCost)(usage(730), 0.236, gp3);
    strict_1.default.equal(cents(c.storageUsd), 912);
    strict_1.default.equal(cents(c.instanceUsd), 17228);
    strict_1.default.equal(cents(c.totalUsd), 18140);
    strict_1.default.equal(cents((0, cost_1.cellCost)(usage(730, { sizeGiB: 235 }), 0.236, gp3).storageUsd), 2143);
});
(0, node_test_1.test)('gp3 above the baseline: 6,000 IOPS and 250 MiB/s for a month add $17.10 and $5.70', () => {
    const c = (0, cost_1.cellCost)(usage(730, { iops: 6000, throughputMiBs: 250 }), 0.236, gp3);
    strict_1.default.equal(cents(c.iopsUsd), 1710);
    strict_1.default.equal(cents(c.throughputUsd), 570);
    strict_1.default.equal(cents(c.totalUsd), 17228 + 912 + 1710 + 570);
    // Half an hour of the same: prorated, not a month's minimum.
    const half = (0, cost_1.cellCost)(usage(0.5, { iops: 6000, throughputMiBs: 250 }), 0.236, gp3);
    strict_1.default.ok(Math.abs((half.iopsUsd ?? 0) - (3000 * 0.0057 * 0.5) / 730) < 1e-12);
});
(0, node_test_1.test)('a shared node is charged by share; an unknown price is null (n/a), never $0', () => {
    const shared = (0, cost_1.cellCost)({ ...usage(2), instanceShare: 0.5 }, 0.236, gp3);
    strict_1.default.equal(shared.instanceUsd, 0.236);
    const unknown = (0, cost_1.cellCost)(usage(1, {}, 'x9.huge'), null, gp3);
    strict_1.default.equal(unknown.instanceUsd, null);
    strict_1.default.equal(unknown.totalUsd, null);
    strict_1.default.equal((0, cost_1.usd)(unknown.totalUsd), 'n/a');
    strict_1.default.match(unknown.lines[0], /instance x9\.huge: no price/);
    const noExtraPrice = (0, cost_1.cellCost)(usage(1, { iops: 4000 }), 0.236, { gbMonthUsd: 0.0912, includedIops: 3000 });
    strict_1.default.equal(noExtraPrice.iopsUsd, null);
    strict_1.default.equal(noExtraPrice.totalUsd, null);
});
(0, node_test_1.test)('a run: cells priced from a table source and summed once; a spec override replaces entries', async () => {
    const src = new cost_1.TablePriceSource();
    const run = await (0, cost_1.priceRun)([
        { ...usage(1.5), cell: 'v26.7-lz4' },
        { ...usage(0.75), cell: 'v26.7-zstd3' },
    ], src);
    strict_1.default.deepEqual(run.cells.map((c) => cents(c.totalUsd)), [37, 19]);
    // 0.354 + 0.0187397 + 0.177 + 0.0093699 = 0.5591096 → $0.56
    strict_1.default.equal(cents(run.totalUsd), 56);
    strict_1.default.match(run.source, /article \(AWS Pricing API, Seoul, 2026-09-11\)/);
    const override = cost_1.priceOverrideSchema.parse({ region: 'us-east-1', instanceHourlyUsd: { 'm5.xlarge': 0.192 } });
    const table = (0, cost_1.withOverride)(cost_1.ARTICLE_PRICES, override);
    strict_1.default.equal(table.instanceHourlyUsd['m5.xlarge'], 0.192);
    strict_1.default.equal(table.volume.gp3.gbMonthUsd, 0.0912); // not overridden: kept
    strict_1.default.match(table.source, /^run spec prices over: article/);
    const c = await (0, cost_1.priceCell)(usage(10), new cost_1.TablePriceSource(table));
    strict_1.default.equal(cents(c.instanceUsd), 192);
    strict_1.default.throws(() => cost_1.priceOverrideSchema.parse({ instanceHourly: {} }), /instanceHourly/);
    strict_1.default.throws(() => cost_1.priceOverrideSchema.parse({ instanceHourlyUsd: { 'm5.xlarge': -1 } }));
});
(0, node_test_1.test)('a spec overriding one gp3 price keeps the rest of gp3 (included IOPS/throughput and their prices) and the defaults untouched', () => {
    const t = (0, cost_1.withOverride)(cost_1.ARTICLE_PRICES, cost_1.priceOverrideSchema.parse({ region: 'us-east-1', volume: { gp3: { gbMonthUsd: 0.08 } } }));
    strict_1.default.deepEqual(t.volume.gp3, { ...gp3, gbMonthUsd: 0.08 });
    strict_1.default.equal(t.region, 'us-east-1');
    strict_1.default.equal(cost_1.ARTICLE_PRICES.volume.gp3.gbMonthUsd, 0.0912, 'the defaults are not changed');
    // 100 GiB for one hour at 6,000 IOPS: storage at the new price, the 3,000 IOPS above the baseline still priced.
    const u = {
        cell: 'c',
        instanceType: 'm5.xlarge',
        instanceHeldMs: H,
        volume: { type: 'gp3', sizeGiB: 100, iops: 6000, throughputMiBs: 125 },
        volumeHeldMs: H,
    };
    const c = (0, cost_1.cellCost)(u, null, t.volume.gp3);
    strict_1.default.ok(Math.abs(c.iopsUsd - (3000 * gp3.iopsMonthUsd) / 730) < 1e-9, 'IOPS above the baseline priced');
});
//# sourceMappingURL=cloud-cost.test.js.map