/**
 * Cost arithmetic (src/cloud/cost.ts), pure, to the cent: instance × hours, gp3 GB-month prorated
 * over 730 h, IOPS/throughput above the gp3 baseline, the article's own figures, spec overrides.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ARTICLE_PRICES,
  cellCost,
  priceCell,
  priceOverrideSchema,
  priceRun,
  TablePriceSource,
  usd,
  withOverride,
  type CellUsage,
} from '../../src/cloud/cost';

const H = 3_600_000;
const gp3 = ARTICLE_PRICES.volume.gp3;
const cents = (x: number | null) => (x === null ? null : Math.round(x * 100));

function usage(hours: number, volume: Partial<CellUsage['volume']> = {}, instanceType = 'm5.xlarge'): CellUsage {
  return {
    cell: 'v26.7-lz4',
    instanceType,
    instanceHeldMs: hours * H,
    volume: { type: 'gp3', sizeGiB: 100, iops: 3000, throughputMiBs: 125, ...volume },
    volumeHeldMs: hours * H,
  };
}

test("the article's prices: m5.xlarge $0.236/h, gp3 $0.0912/GB-month (seed 000, lines 22 and 177)", () => {
  assert.equal(ARTICLE_PRICES.instanceHourlyUsd['m5.xlarge'], 0.236);
  assert.equal(gp3.gbMonthUsd, 0.0912);
  assert.equal(ARTICLE_PRICES.region, 'ap-northeast-2');
});

test('one hour of the article cell: $0.236 + 100 GiB × $0.0912 ÷ 730 = $0.2485 (to a hundredth of a cent below $1)', () => {
  const c = cellCost(usage(1), 0.236, gp3);
  assert.equal(c.instanceUsd, 0.236);
  assert.ok(Math.abs((c.storageUsd ?? 0) - 9.12 / 730) < 1e-12);
  assert.equal(c.iopsUsd, 0); // 3,000 IOPS are included
  assert.equal(c.throughputUsd, 0); // 125 MiB/s are included
  assert.equal(cents(c.totalUsd), 25);
  assert.equal(usd(c.totalUsd), '$0.2485');
  assert.equal(usd(12.254), '$12.25');
  assert.equal(usd(null), 'n/a');
  assert.match(c.lines.join('\n'), /instance m5\.xlarge: \$0\.236\/h × 1\.0000 h = \$0\.2360/);
});

test('a whole month (730 h): the volume is $9.12 as in the article; 235 GiB is $21.43', () => {
  const c = cellCost(usage(730), 0.236, gp3);
  assert.equal(cents(c.storageUsd), 912);
  assert.equal(cents(c.instanceUsd), 17228);
  assert.equal(cents(c.totalUsd), 18140);
  assert.equal(cents(cellCost(usage(730, { sizeGiB: 235 }), 0.236, gp3).storageUsd), 2143);
});

test('gp3 above the baseline: 6,000 IOPS and 250 MiB/s for a month add $17.10 and $5.70', () => {
  const c = cellCost(usage(730, { iops: 6000, throughputMiBs: 250 }), 0.236, gp3);
  assert.equal(cents(c.iopsUsd), 1710);
  assert.equal(cents(c.throughputUsd), 570);
  assert.equal(cents(c.totalUsd), 17228 + 912 + 1710 + 570);
  // Half an hour of the same: prorated, not a month's minimum.
  const half = cellCost(usage(0.5, { iops: 6000, throughputMiBs: 250 }), 0.236, gp3);
  assert.ok(Math.abs((half.iopsUsd ?? 0) - (3000 * 0.0057 * 0.5) / 730) < 1e-12);
});

test('a shared node is charged by share; an unknown price is null (n/a), never $0', () => {
  const shared = cellCost({ ...usage(2), instanceShare: 0.5 }, 0.236, gp3);
  assert.equal(shared.instanceUsd, 0.236);
  const unknown = cellCost(usage(1, {}, 'x9.huge'), null, gp3);
  assert.equal(unknown.instanceUsd, null);
  assert.equal(unknown.totalUsd, null);
  assert.equal(usd(unknown.totalUsd), 'n/a');
  assert.match(unknown.lines[0], /instance x9\.huge: no price/);
  const noExtraPrice = cellCost(usage(1, { iops: 4000 }), 0.236, { gbMonthUsd: 0.0912, includedIops: 3000 });
  assert.equal(noExtraPrice.iopsUsd, null);
  assert.equal(noExtraPrice.totalUsd, null);
});

test('a run: cells priced from a table source and summed once; a spec override replaces entries', async () => {
  const src = new TablePriceSource();
  const run = await priceRun(
    [
      { ...usage(1.5), cell: 'v26.7-lz4' },
      { ...usage(0.75), cell: 'v26.7-zstd3' },
    ],
    src,
  );
  assert.deepEqual(
    run.cells.map((c) => cents(c.totalUsd)),
    [37, 19],
  );
  // 0.354 + 0.0187397 + 0.177 + 0.0093699 = 0.5591096 → $0.56
  assert.equal(cents(run.totalUsd), 56);
  assert.match(run.source, /article \(AWS Pricing API, Seoul, 2026-09-11\)/);

  const override = priceOverrideSchema.parse({ region: 'us-east-1', instanceHourlyUsd: { 'm5.xlarge': 0.192 } });
  const table = withOverride(ARTICLE_PRICES, override);
  assert.equal(table.instanceHourlyUsd['m5.xlarge'], 0.192);
  assert.equal(table.volume.gp3.gbMonthUsd, 0.0912); // not overridden: kept
  assert.match(table.source, /^run spec prices over: article/);
  const c = await priceCell(usage(10), new TablePriceSource(table));
  assert.equal(cents(c.instanceUsd), 192);
  assert.throws(() => priceOverrideSchema.parse({ instanceHourly: {} }), /instanceHourly/);
  assert.throws(() => priceOverrideSchema.parse({ instanceHourlyUsd: { 'm5.xlarge': -1 } }));
});

test('a spec overriding one gp3 price keeps the rest of gp3 (included IOPS/throughput and their prices) and the defaults untouched', () => {
  const t = withOverride(
    ARTICLE_PRICES,
    priceOverrideSchema.parse({ region: 'us-east-1', volume: { gp3: { gbMonthUsd: 0.08 } } }),
  );
  assert.deepEqual(t.volume.gp3, { ...gp3, gbMonthUsd: 0.08 });
  assert.equal(t.region, 'us-east-1');
  assert.equal(ARTICLE_PRICES.volume.gp3.gbMonthUsd, 0.0912, 'the defaults are not changed');
  // 100 GiB for one hour at 6,000 IOPS: storage at the new price, the 3,000 IOPS above the baseline still priced.
  const u: CellUsage = {
    cell: 'c',
    instanceType: 'm5.xlarge',
    instanceHeldMs: H,
    volume: { type: 'gp3', sizeGiB: 100, iops: 6000, throughputMiBs: 125 },
    volumeHeldMs: H,
  };
  const c = cellCost(u, null, t.volume.gp3);
  assert.ok(Math.abs(c.iopsUsd! - (3000 * gp3.iopsMonthUsd!) / 730) < 1e-9, 'IOPS above the baseline priced');
});
