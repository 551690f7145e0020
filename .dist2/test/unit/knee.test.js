"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * The knee and the stop decision of concurrency stepping (`findKnee`, `nextStepDecision`,
 * src/schema/grids.ts) on hand-made step lists, with the spec's defaults (knee: QPS gain < 10 % or
 * P99 × > 2 over the previous step; stop: error share > 1 % or P99 > 20 × the first step's).
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const grids_1 = require("../../src/schema/grids");
const g = grids_1.ConcurrencyGridSpec.parse({});
/** A step summary with the figures the decisions read (QPS, P99, requests, errors). */
function step(clients, qps, p99, errors = 0, requests = 1000) {
    const lat = { count: requests - errors, p50: p99 / 2, p95: p99 * 0.9, p99, max: p99 * 1.2 };
    return {
        clients,
        qps,
        requests,
        errors,
        errorsByCode: errors ? { '241': errors } : {},
        latencyMs: lat,
        latencySource: 'client wall',
        wallLatencyMs: lat,
        clientBound: false,
        file: `grids/concurrency-c${clients}.json`,
    };
}
(0, node_test_1.describe)('findKnee', () => {
    (0, node_test_1.it)('the defaults are the spec’s', () => {
        strict_1.default.deepEqual([g.steps, g.kneeMinGain, g.kneeP99Factor, g.stopErrorRate, g.stopP99Factor], [[1, 2, 4, 8, 16, 32], 0.1, 2, 0.01, 20]);
    });
    (0, node_test_1.it)('finds a knee where QPS stops rising (gain below kneeMinGain)', () => {
        // 1 → 2: +90 %; 2 → 4: 200 / 190 − 1 = +5.3 % < 10 %: the knee is the step before, 2 clients.
        const k = (0, grids_1.findKnee)([step(1, 100, 10), step(2, 190, 12), step(4, 200, 15), step(8, 100, 90)], g);
        strict_1.default.equal(k.clients, 2);
        strict_1.default.match(k.reason, /^QPS rose 5\.3 % from 2 to 4 clients \(190\.0 → 200\.0\), a gain below 10 %$/);
    });
    (0, node_test_1.it)('a QPS drop is a knee too', () => {
        const k = (0, grids_1.findKnee)([step(1, 100, 10), step(2, 80, 12)], g);
        strict_1.default.equal(k.clients, 1);
        strict_1.default.match(k.reason, /QPS fell 20\.0 % from 1 to 2 clients .*, no gain$/);
    });
    (0, node_test_1.it)('finds a knee where P99 blows up although QPS still rises', () => {
        // 2 → 4: QPS +95 % (no knee by QPS), P99 11 → 25 ms = 2.3× > 2×.
        const k = (0, grids_1.findKnee)([step(1, 100, 10), step(2, 200, 11), step(4, 390, 25)], g);
        strict_1.default.equal(k.clients, 2);
        strict_1.default.match(k.reason, /^P99 grew 2\.27× from 2 to 4 clients \(11\.0 → 25\.0 ms\), above 2×$/);
    });
    (0, node_test_1.it)('a P99 growth of exactly the factor is not a knee', () => {
        strict_1.default.equal((0, grids_1.findKnee)([step(1, 100, 10), step(2, 200, 20)], g).clients, null);
    });
    (0, node_test_1.it)('no knee while QPS rises ≥ 10 % and P99 stays within 2×', () => {
        const k = (0, grids_1.findKnee)([step(1, 100, 10), step(2, 195, 12), step(4, 380, 15), step(8, 420, 29)], g);
        strict_1.default.equal(k.clients, null);
        strict_1.default.match(k.reason, /up to 8 clients$/);
    });
    (0, node_test_1.it)('honours the spec’s thresholds', () => {
        const strict = grids_1.ConcurrencyGridSpec.parse({ kneeMinGain: 0.5, kneeP99Factor: 1.1 });
        // +40 % is below a 50 % gain threshold.
        strict_1.default.equal((0, grids_1.findKnee)([step(1, 100, 10), step(2, 140, 10)], strict).clients, 1);
        // P99 10 → 12 ms (1.2×) is above 1.1×.
        const k = (0, grids_1.findKnee)([step(1, 100, 10), step(2, 200, 12)], strict);
        strict_1.default.equal(k.clients, 1);
        strict_1.default.match(k.reason, /P99 grew 1\.2\d×/);
    });
});
(0, node_test_1.describe)('nextStepDecision', () => {
    (0, node_test_1.it)('goes on before any step and while nothing stops it', () => {
        strict_1.default.deepEqual((0, grids_1.nextStepDecision)([], g), { go: true });
        strict_1.default.deepEqual((0, grids_1.nextStepDecision)([step(1, 100, 10), step(2, 190, 19)], g), { go: true });
    });
    (0, node_test_1.it)('stops on errors above stopErrorRate, at exactly the rate it goes on', () => {
        // 10 / 1000 = 1.0 %: not above 1 %.
        strict_1.default.deepEqual((0, grids_1.nextStepDecision)([step(1, 100, 10), step(2, 190, 12, 10)], g), { go: true });
        const d = (0, grids_1.nextStepDecision)([step(1, 100, 10), step(2, 190, 12), step(4, 200, 14, 25)], g);
        strict_1.default.equal(d.go, false);
        strict_1.default.equal(d.stopReason, 'errors: 2.5 % of requests failed at 4 clients (stop above 1.0 %)');
    });
    (0, node_test_1.it)('stops when no request completed', () => {
        const d = (0, grids_1.nextStepDecision)([step(1, 100, 10), step(2, 0, 10, 0, 0)], g);
        strict_1.default.deepEqual(d, { go: false, stopReason: 'no request completed at 2 clients' });
    });
    (0, node_test_1.it)('stops when P99 exceeds stopP99Factor × the first step’s P99', () => {
        // 250 ms > 20 × 10 ms; the previous step's 150 ms (15×) did not stop it.
        strict_1.default.deepEqual((0, grids_1.nextStepDecision)([step(1, 100, 10), step(4, 300, 150)], g), { go: true });
        const d = (0, grids_1.nextStepDecision)([step(1, 100, 10), step(4, 300, 150), step(8, 310, 250)], g);
        strict_1.default.equal(d.go, false);
        strict_1.default.equal(d.stopReason, 'latency blow-up: P99 250.0 ms at 8 clients is more than 20× the P99 at 1 (10.0 ms)');
    });
    (0, node_test_1.it)('errors are checked before latency', () => {
        const d = (0, grids_1.nextStepDecision)([step(1, 100, 10), step(2, 50, 500, 500)], g);
        strict_1.default.match(d.stopReason, /^errors: 50\.0 %/);
    });
    (0, node_test_1.it)('stops after the last step with "all steps ran"', () => {
        const done = g.steps.map((c, i) => step(c, 100 * (i + 1), 10 + i));
        strict_1.default.deepEqual((0, grids_1.nextStepDecision)(done.slice(0, 5), g), { go: true });
        strict_1.default.deepEqual((0, grids_1.nextStepDecision)(done, g), { go: false, stopReason: 'all steps ran' });
    });
});
//# sourceMappingURL=knee.test.js.map