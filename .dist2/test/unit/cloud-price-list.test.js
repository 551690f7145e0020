"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * Prices from the AWS Price List API through `@aws-sdk/client-pricing`, against a small local stub
 * of `GetProducts` (AWS JSON 1.1, `X-Amz-Target: AWSPriceListService.GetProducts`, products as JSON
 * strings in `PriceList`) started by the test on a free loopback port and reached with the SDK's
 * endpoint override. Checks the filters sent, the prices taken, and the fallback to the table (with
 * the note) for what the API does not answer or when it fails.
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const node_http_1 = __importDefault(require("node:http"));
const client_pricing_1 = require("@aws-sdk/client-pricing");
const cost_1 = require("../../src/cloud/cost");
const price_list_1 = require("../../src/cloud/price-list");
const net_1 = require("../../src/lib/net");
const requests = [];
let server;
let endpoint;
let failAll = false;
/** One product as the Price List API returns it (a JSON string), with an on-demand price. */
function product(attributes, unit, usd) {
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
(0, node_test_1.before)(async () => {
    server = node_http_1.default.createServer((req, res) => {
        let raw = '';
        req.on('data', (c) => (raw += c.toString()));
        req.on('end', () => {
            const r = { target: String(req.headers['x-amz-target']), body: JSON.parse(raw) };
            requests.push(r);
            res.setHeader('content-type', 'application/x-amz-json-1.1');
            if (failAll) {
                res.statusCode = 400;
                res.end(JSON.stringify({ __type: 'InvalidParameterException', message: 'stub refuses' }));
                return;
            }
            const f = Object.fromEntries(r.body.Filters.map((x) => [x.Field, x.Value]));
            const list = [];
            if (f.instanceType === 'm5.xlarge' && f.regionCode === 'us-east-1')
                list.push(product({ instanceType: 'm5.xlarge', regionCode: 'us-east-1' }, 'Hrs', '0.1920000000'));
            if (f.volumeApiName === 'gp3' && f.regionCode === 'us-east-1')
                list.push(product({ productFamily: 'Storage', volumeApiName: 'gp3' }, 'GB-Mo', '0.0800000000'));
            res.end(JSON.stringify({ FormatVersion: 'aws_v1', PriceList: list }));
        });
    });
    const port = await (0, net_1.freePort)();
    await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${port}`;
});
(0, node_test_1.after)(async () => {
    await new Promise((resolve) => server.close(() => resolve()));
});
const client = () => new client_pricing_1.PricingClient({
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
(0, node_test_1.test)('GetProducts answers: us-east-1 m5.xlarge $0.192/h and gp3 $0.08/GB-month are used; the filters are the ones documented', async () => {
    requests.length = 0;
    failAll = false;
    const pricing = client();
    const src = new price_list_1.PriceListPriceSource(pricing, 'us-east-1', new cost_1.TablePriceSource());
    const cost = await (0, cost_1.priceCell)(usage, src);
    pricing.destroy();
    // 0.192 × 2 h = 0.384; 100 GiB × 0.08 × 2 ÷ 730 = 0.0219178…
    strict_1.default.ok(Math.abs((cost.instanceUsd ?? 0) - 0.384) < 1e-12);
    strict_1.default.ok(Math.abs((cost.storageUsd ?? 0) - (100 * 0.08 * 2) / 730) < 1e-12);
    strict_1.default.equal(requests.length, 2);
    strict_1.default.ok(requests.every((r) => r.target === 'AWSPriceListService.GetProducts'));
    strict_1.default.ok(requests.every((r) => r.body.ServiceCode === 'AmazonEC2'));
    const inst = Object.fromEntries(requests[0].body.Filters.map((x) => [x.Field, x.Value]));
    strict_1.default.deepEqual(inst, {
        instanceType: 'm5.xlarge',
        regionCode: 'us-east-1',
        operatingSystem: 'Linux',
        tenancy: 'Shared',
        preInstalledSw: 'NA',
        capacitystatus: 'Used',
    });
    strict_1.default.ok(requests.every((r) => r.body.Filters.every((x) => x.Type === 'TERM_MATCH')));
    strict_1.default.match(src.description, /^AWS Price List API GetProducts \(AmazonEC2, regionCode us-east-1, on-demand\): m5\.xlarge \$0\.192\/h, gp3 \$0\.08\/GB-month/);
    strict_1.default.match(src.description, /fell back to .* for: gp3 IOPS\/throughput above the included ones \(table\)/);
});
(0, node_test_1.test)('no product for the type, or a failing API: the table price, and the description says which and why', async () => {
    failAll = false;
    const pricing = client();
    const src = new price_list_1.PriceListPriceSource(pricing, 'ap-northeast-2', new cost_1.TablePriceSource());
    const cost = await (0, cost_1.priceCell)(usage, src);
    strict_1.default.equal(cost.instanceUsd, cost_1.ARTICLE_PRICES.instanceHourlyUsd['m5.xlarge'] * 2);
    strict_1.default.match(src.description, /gave no price used; fell back to article .* for: m5\.xlarge \(no on-demand Hrs price in the answer\); gp3 storage \(no on-demand GB-Mo price in the answer\)/);
    failAll = true;
    const src2 = new price_list_1.PriceListPriceSource(pricing, 'us-east-1', new cost_1.TablePriceSource());
    strict_1.default.equal(await src2.instanceHourlyUsd('m5.xlarge'), 0.236);
    strict_1.default.match(src2.description, /m5\.xlarge \(GetProducts failed: stub refuses\)/);
    pricing.destroy();
});
(0, node_test_1.test)('onDemandUsd: first positive price of the unit; zero and other units skipped', () => {
    strict_1.default.equal((0, price_list_1.onDemandUsd)([product({}, 'Hrs', '0.0000000000'), product({}, 'Quantity', '5'), product({}, 'Hrs', '0.2')], 'Hrs'), 0.2);
    strict_1.default.equal((0, price_list_1.onDemandUsd)(['not json'], 'Hrs'), null);
});
//# sourceMappingURL=cloud-price-list.test.js.map