/**
 * Prices from the AWS Price List API through `@aws-sdk/client-pricing`, against a small local stub
 * of `GetProducts` (AWS JSON 1.1, `X-Amz-Target: AWSPriceListService.GetProducts`, products as JSON
 * strings in `PriceList`) started by the test on a free loopback port and reached with the SDK's
 * endpoint override. Checks the filters sent, the prices taken, and the fallback to the table (with
 * the note) for what the API does not answer or when it fails.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { PricingClient } from '@aws-sdk/client-pricing';
import { ARTICLE_PRICES, priceCell, TablePriceSource } from '../../src/cloud/cost';
import { onDemandUsd, PriceListPriceSource } from '../../src/cloud/price-list';
import { freePort } from '../../src/lib/net';

interface Req {
  target: string;
  body: { ServiceCode: string; Filters: { Type: string; Field: string; Value: string }[] };
}
const requests: Req[] = [];
let server: http.Server;
let endpoint: string;
let failAll = false;

/** One product as the Price List API returns it (a JSON string), with an on-demand price. */
function product(attributes: Record<string, string>, unit: string, usd: string): string {
  return JSON.stringify({
    product: { productFamily: attributes.productFamily ?? 'Compute Instance', attributes },
    terms: {
      OnDemand: {
        'SKU.JRTCKXETXF': {
          priceDimensions: { 'SKU.JRTCKXETXF.6YS6EN2CT7': { unit, pricePerUnit: { USD: usd }, description: 'test' } },
        },
      },
    },
  });
}

before(async () => {
  server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const r: Req = { target: String(req.headers['x-amz-target']), body: JSON.parse(raw) as Req['body'] };
      requests.push(r);
      res.setHeader('content-type', 'application/x-amz-json-1.1');
      if (failAll) {
        res.statusCode = 400;
        res.end(JSON.stringify({ __type: 'InvalidParameterException', message: 'stub refuses' }));
        return;
      }
      const f = Object.fromEntries(r.body.Filters.map((x) => [x.Field, x.Value]));
      const list: string[] = [];
      if (f.instanceType === 'm5.xlarge' && f.regionCode === 'us-east-1')
        list.push(product({ instanceType: 'm5.xlarge', regionCode: 'us-east-1' }, 'Hrs', '0.1920000000'));
      if (f.volumeApiName === 'gp3' && f.regionCode === 'us-east-1')
        list.push(product({ productFamily: 'Storage', volumeApiName: 'gp3' }, 'GB-Mo', '0.0800000000'));
      res.end(JSON.stringify({ FormatVersion: 'aws_v1', PriceList: list }));
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${port}`;
});

after(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const client = () =>
  new PricingClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
    maxAttempts: 1,
  });

const usage = {
  cell: 'c',
  instanceType: 'm5.xlarge',
  instanceHeldMs: 2 * 3_600_000,
  volume: { type: 'gp3', sizeGiB: 100, iops: 3000, throughputMiBs: 125 },
  volumeHeldMs: 2 * 3_600_000,
};

test('GetProducts answers: us-east-1 m5.xlarge $0.192/h and gp3 $0.08/GB-month are used; the filters are the ones documented', async () => {
  requests.length = 0;
  failAll = false;
  const pricing = client();
  const src = new PriceListPriceSource(pricing, 'us-east-1', new TablePriceSource());
  const cost = await priceCell(usage, src);
  pricing.destroy();
  // 0.192 × 2 h = 0.384; 100 GiB × 0.08 × 2 ÷ 730 = 0.0219178…
  assert.ok(Math.abs((cost.instanceUsd ?? 0) - 0.384) < 1e-12);
  assert.ok(Math.abs((cost.storageUsd ?? 0) - (100 * 0.08 * 2) / 730) < 1e-12);
  assert.equal(requests.length, 2);
  assert.ok(requests.every((r) => r.target === 'AWSPriceListService.GetProducts'));
  assert.ok(requests.every((r) => r.body.ServiceCode === 'AmazonEC2'));
  const inst = Object.fromEntries(requests[0].body.Filters.map((x) => [x.Field, x.Value]));
  assert.deepEqual(inst, {
    instanceType: 'm5.xlarge',
    regionCode: 'us-east-1',
    operatingSystem: 'Linux',
    tenancy: 'Shared',
    preInstalledSw: 'NA',
    capacitystatus: 'Used',
  });
  assert.ok(requests.every((r) => r.body.Filters.every((x) => x.Type === 'TERM_MATCH')));
  assert.match(
    src.description,
    /^AWS Price List API GetProducts \(AmazonEC2, regionCode us-east-1, on-demand\): m5\.xlarge \$0\.192\/h, gp3 \$0\.08\/GB-month/,
  );
  assert.match(src.description, /fell back to .* for: gp3 IOPS\/throughput above the included ones \(table\)/);
});

test('no product for the type, or a failing API: the table price, and the description says which and why', async () => {
  failAll = false;
  const pricing = client();
  const src = new PriceListPriceSource(pricing, 'ap-northeast-2', new TablePriceSource());
  const cost = await priceCell(usage, src);
  assert.equal(cost.instanceUsd, ARTICLE_PRICES.instanceHourlyUsd['m5.xlarge'] * 2);
  assert.match(
    src.description,
    /gave no price used; fell back to article .* for: m5\.xlarge \(no on-demand Hrs price in the answer\); gp3 storage \(no on-demand GB-Mo price in the answer\)/,
  );

  failAll = true;
  const src2 = new PriceListPriceSource(pricing, 'us-east-1', new TablePriceSource());
  assert.equal(await src2.instanceHourlyUsd('m5.xlarge'), 0.236);
  assert.match(src2.description, /m5\.xlarge \(GetProducts failed: stub refuses\)/);
  pricing.destroy();
});

test('onDemandUsd: first positive price of the unit; zero and other units skipped', () => {
  assert.equal(
    onDemandUsd([product({}, 'Hrs', '0.0000000000'), product({}, 'Quantity', '5'), product({}, 'Hrs', '0.2')], 'Hrs'),
    0.2,
  );
  assert.equal(onDemandUsd(['not json'], 'Hrs'), null);
});
