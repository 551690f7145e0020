"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * The comparison test's power and false-positive rate, by simulation (`npm run bench:compare-power`),
 * written to `bench/results/compare-power.json`.
 *
 * For each noise level (lognormal, sigma 5 %, 10 %, 20 %: run-to-run variation of warm runs on a
 * quiet host, a shared host, a noisy one), each number of warm runs per side n, and each true ratio
 * (1 = A/A, 1.2×, 1.5×, 2× slower), 200 seeded comparisons with {@link compareSamples} (the
 * defaults: minChange 10 %, unstableAbove 30 %, 2000 bootstrap resamples, 200 half-splits). `minRuns`
 * is lowered to n for n < 7 so the figure shows what the test could do with fewer runs, not that
 * it refuses them. Deterministic: the same figures on every machine.
 */
const node_fs_1 = require("node:fs");
const node_path_1 = __importDefault(require("node:path"));
const config_1 = require("../src/config");
const compare_1 = require("../src/measure/compare");
const SEEDS = 200;
const SIGMAS = [0.05, 0.1, 0.2];
const NS = [3, 5, 7, 10, 15];
const RATIOS = [1, 1.2, 1.5, 2];
const BASE = { minChange: 0.1, unstableAbove: 0.3, minRuns: 7 };
function main() {
    const figures = [];
    const t0 = Date.now();
    for (const sigma of SIGMAS)
        for (const n of NS)
            for (const trueRatio of RATIOS) {
                const minRuns = Math.min(n, BASE.minRuns);
                const f = (0, compare_1.simulateDetection)({ n, sigma, trueRatio, seeds: SEEDS, options: { ...BASE, minRuns } });
                figures.push({
                    ...f,
                    minRuns,
                    role: trueRatio === 1 ? 'false-positive rate (A/A)' : `detection rate of a ${trueRatio}× slowdown`,
                });
                console.log(`sigma ${sigma * 100} % n ${String(n).padStart(2)} ratio ${trueRatio}: ${(f.rate * 100).toFixed(1).padStart(5)} % ${trueRatio === 1 ? 'flagged' : 'detected'} ${JSON.stringify(f.counts)}`);
            }
    const pick = (sigma, n, r) => figures.find((f) => f.sigma === sigma && f.n === n && f.trueRatio === r).rate;
    const out = {
        measured_at: new Date().toISOString(),
        method: 'per seed: n baseline and n new warm times, lognormal around 100 ms and 100·ratio ms with the given sigma; compareSamples (ratio of medians, percentile bootstrap 2000 resamples 95 % CI, threshold = 95th pct of |ln ratio| over 200 half-splits of the baseline, at least minChange); rate = share of seeds flagged in the true direction (for ratio 1: flagged at all)',
        options: { ...BASE, resamples: 2000, splits: 200, seeds: SEEDS, note: 'minRuns lowered to n when n < 7' },
        headline: {
            'sigma 5 %, 1.5×, n=7': pick(0.05, 7, 1.5),
            'sigma 5 %, 1.5×, n=15': pick(0.05, 15, 1.5),
            'sigma 5 %, A/A, n=7 (false positives)': pick(0.05, 7, 1),
            'sigma 5 %, A/A, n=15 (false positives)': pick(0.05, 15, 1),
            'sigma 10 %, 1.5×, n=5': pick(0.1, 5, 1.5),
            'sigma 10 %, 1.5×, n=7': pick(0.1, 7, 1.5),
            'sigma 10 %, 1.5×, n=10': pick(0.1, 10, 1.5),
            'sigma 10 %, 2×, n=7': pick(0.1, 7, 2),
        },
        elapsed_ms: Date.now() - t0,
        figures,
    };
    const file = node_path_1.default.join(config_1.REPO_ROOT, 'bench', 'results', 'compare-power.json');
    (0, node_fs_1.mkdirSync)(node_path_1.default.dirname(file), { recursive: true });
    (0, node_fs_1.writeFileSync)(file, JSON.stringify(out, null, 2) + '\n');
    console.log(file);
}
main();
//# sourceMappingURL=compare-power.js.map