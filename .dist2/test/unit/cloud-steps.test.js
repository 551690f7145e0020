"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * Step windows from a cell's records (src/cloud/steps.ts) and the cost arithmetic of a prorated cell
 * with gp3 IOPS and throughput above the baseline, with hand-computed expected values; the run
 * spec's `cloud` section (defaults, strictness).
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const node_path_1 = __importDefault(require("node:path"));
const steps_1 = require("../../src/cloud/steps");
const cost_1 = require("../../src/cloud/cost");
const windows_1 = require("../../src/cloud/windows");
const config_1 = require("../../src/config");
const store_1 = require("../../src/results/store");
const results_1 = require("../../src/schema/results");
const run_spec_1 = require("../../src/schema/run-spec");
const FIX = node_path_1.default.join(config_1.REPO_ROOT, 'test', 'fixtures', 'results', 'embedded-26.7', 'cells', 'v26.7-lz4');
const T0 = Date.UTC(2026, 7, 25, 12, 0, 0);
const iso = (s) => new Date(T0 + s * 1000).toISOString();
(0, node_test_1.test)('cellStepWindows: load, the whole query pass, cold and warm runs per query and phase (warm-ups in neither), in start order, the cell from provisioned_at to torn_down_at', () => {
    const provision = { ...(0, store_1.readRecord)(node_path_1.default.join(FIX, 'provision.json'), results_1.ProvisionRecord), provisioned_at: iso(0) };
    const load = {
        ...(0, store_1.readRecord)(node_path_1.default.join(FIX, 'load.json'), results_1.LoadRecord),
        reused: false,
        started_at: iso(10),
        finished_at: iso(130),
    };
    const qb = (0, store_1.readRecord)(node_path_1.default.join(FIX, 'queries-baseline.json'), results_1.QueriesRecord);
    const q1 = qb.queries[0];
    let t = 200;
    const queriesBaseline = {
        ...qb,
        queries: [{ ...q1, samples: q1.samples.map((s) => ({ ...s, started_at: iso(t), finished_at: iso((t += 5)) })) }],
    };
    const teardown = { torn_down_at: iso(600), kind: 'kubernetes', what: '', server_log_archive: '' };
    const { steps, missing, span } = (0, steps_1.cellStepWindows)({ provision, load, queriesBaseline, teardown });
    // q1: cold 200–205, warm-up 205–210, warm 210–225.
    strict_1.default.deepEqual(steps.map((s) => [s.step, (s.startMs - T0) / 1000, (s.endMs - T0) / 1000]), [
        ['load', 10, 130],
        ['queries (baseline)', 200, 225],
        ['q1 cold (baseline)', 200, 205],
        ['q1 warm (baseline)', 210, 225],
        ['cell', 0, 600],
    ]);
    strict_1.default.deepEqual(missing, []);
    strict_1.default.equal(span?.toSource, 'teardown.json torn_down_at');
    // An older record (no times) gives no window and says so; without teardown the cell ends at the last step.
    const old = (0, steps_1.cellStepWindows)({
        provision,
        load: { ...load, started_at: undefined, finished_at: undefined },
        queriesBaseline: qb,
    });
    strict_1.default.deepEqual(old.missing.slice(0, 2), [
        'load: no started_at/finished_at in its record',
        'q1 cold (baseline): a run has no started_at/finished_at',
    ]);
    strict_1.default.match(old.span?.toSource ?? '', /^the latest step end recorded \(no teardown\.json/);
    // A reused load measured nothing in this attempt: no window.
    strict_1.default.ok(!(0, steps_1.cellStepWindows)({ provision, load: { ...load, reused: true } }).steps.some((s) => s.step === 'load'));
});
(0, node_test_1.test)('partial newest minute: a window ending 30 s ago is partial until end-of-minute + settle; then final', () => {
    const end = T0 + 90_000; // 12:01:30 → aligned end 12:02:00
    const w = { step: 'q3 cold', startMs: T0, endMs: end };
    const [early] = (0, windows_1.planWindows)([w], { nowMs: end + 30_000, settleMs: windows_1.DEFAULT_SETTLE_MS });
    strict_1.default.ok(early.attributable && early.partial);
    strict_1.default.equal(early.attributable && early.finalAtMs, T0 + 120_000 + windows_1.DEFAULT_SETTLE_MS);
    const [late] = (0, windows_1.planWindows)([w], { nowMs: T0 + 120_000 + windows_1.DEFAULT_SETTLE_MS, settleMs: windows_1.DEFAULT_SETTLE_MS });
    strict_1.default.ok(late.attributable && !late.partial);
});
(0, node_test_1.test)('cost, prorated: 90 min of m5.xlarge + gp3 500 GiB at 6,000 IOPS and 500 MiB/s (hand-computed)', () => {
    const c = (0, cost_1.cellCost)({
        cell: 'c',
        instanceType: 'm5.xlarge',
        instanceHeldMs: 90 * 60_000,
        volume: { type: 'gp3', sizeGiB: 500, iops: 6000, throughputMiBs: 500 },
        volumeHeldMs: 90 * 60_000,
    }, 0.236, cost_1.ARTICLE_PRICES.volume.gp3);
    // instance 0.236 × 1.5 = 0.354
    strict_1.default.ok(Math.abs((c.instanceUsd ?? 0) - 0.354) < 1e-12);
    // storage 500 × 0.0912 × 1.5 ÷ 730 = 68.4 ÷ 730 = 0.0936986301…
    strict_1.default.ok(Math.abs((c.storageUsd ?? 0) - 0.0936986301) < 1e-9);
    // IOPS (6,000 − 3,000) × 0.0057 × 1.5 ÷ 730 = 25.65 ÷ 730 = 0.0351369863…
    strict_1.default.ok(Math.abs((c.iopsUsd ?? 0) - 0.0351369863) < 1e-9);
    // throughput (500 − 125) × 0.0456 × 1.5 ÷ 730 = 25.65 ÷ 730 = 0.0351369863…
    strict_1.default.ok(Math.abs((c.throughputUsd ?? 0) - 0.0351369863) < 1e-9);
    // total 0.354 + 119.7 ÷ 730 = 0.5179726027…
    strict_1.default.ok(Math.abs((c.totalUsd ?? 0) - 0.5179726027) < 1e-9);
    strict_1.default.deepEqual(c.lines.slice(2), ['3000 IOPS above 3000: $0.0351', '375 MiB/s above 125: $0.0351']);
});
(0, node_test_1.test)("run spec cloud section: defaults (us-east-1, 3 min settle, the article's prices), strict keys, no credentials", () => {
    const base = {
        name: 'eks',
        workload: 'logs',
        scale: 1000,
        target: { kind: 'kubernetes' },
        matrix: { version: ['26.7'], codec: ['LZ4'] },
    };
    strict_1.default.equal((0, run_spec_1.parseRunSpec)(base).cloud, undefined);
    const s = (0, run_spec_1.parseRunSpec)({ ...base, cloud: {} });
    strict_1.default.deepEqual(s.cloud, { region: 'us-east-1', settleMs: windows_1.DEFAULT_SETTLE_MS, priceList: false });
    const o = (0, run_spec_1.parseRunSpec)({
        ...base,
        cloud: {
            region: 'ap-northeast-2',
            prices: { instanceHourlyUsd: { 'm5.xlarge': 0.2 } },
            thresholds: { cpuPct: 70 },
        },
    });
    strict_1.default.equal(o.cloud?.prices?.instanceHourlyUsd?.['m5.xlarge'], 0.2);
    strict_1.default.throws(() => (0, run_spec_1.parseRunSpec)({ ...base, cloud: { accessKeyId: 'x' } }), (e) => {
        strict_1.default.ok(e instanceof run_spec_1.SpecError);
        strict_1.default.match(e.issues.join('\n'), /cloud: unknown key\(s\) "accessKeyId"/);
        return true;
    });
    strict_1.default.throws(() => (0, run_spec_1.parseRunSpec)({ ...base, cloud: { region: 'mars' } }), /cloud\.region: an AWS region/);
    // Only kubernetes cells have an instance and a volume to read.
    strict_1.default.throws(() => (0, run_spec_1.parseRunSpec)({ ...base, target: { kind: 'embedded' }, cloud: {} }), /cloud: CloudWatch metrics and cost are read for kubernetes cells.*target\.kind is "embedded"/);
});
//# sourceMappingURL=cloud-steps.test.js.map