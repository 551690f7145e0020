/**
 * Change-point detection's false positives and power, by simulation (`npm run bench:change-points`),
 * written to `bench/results/change-points.json`.
 *
 * Series: 12 runs, lognormal noise sigma 5 % (CV ≈ 5 %), seeded. A/A (no change), a step of +5, 10,
 * 15, 20 % at index 6, and a linear drift reaching +5, 10, 15, 20 % at the last run; 200 series each.
 * Detected = {@link detectChangePoints} finds a change point or a significant drift (alpha 0.05).
 * Pairwise baseline on the same series: adjacent runs compared one by one, flagged when
 * |x[i]/x[i−1] − 1| > 10 % (compare.ts's minChange floor). compare.ts's bootstrap itself does not
 * apply: it needs per-run samples (≥ 7 warm runs per side) and a series point is one figure per run.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import seedrandom from 'seedrandom';
import { REPO_ROOT } from '../src/config';
import { detectChangePoints, type RunValue } from '../src/measure/change-points';

const SERIES = 200;
const N = 12;
const SIGMA = 0.05;
const SIZES = [0.05, 0.1, 0.15, 0.2];
const PAIR_THRESHOLD = 0.1;

function gauss(rng: () => number): number {
  const u = 1 - rng();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng());
}

function series(kind: 'aa' | 'step' | 'drift', size: number, seed: number): RunValue[] {
  const rng = seedrandom(`${kind}-${size}-${seed}`);
  return Array.from({ length: N }, (_, i) => {
    const factor = kind === 'step' ? (i >= N / 2 ? 1 + size : 1) : kind === 'drift' ? 1 + (size * i) / (N - 1) : 1;
    return {
      runId: `r${i}`,
      at: new Date(Date.UTC(2024, 3 * i, 1)).toISOString(),
      value: 100 * factor * Math.exp(SIGMA * gauss(rng)),
    };
  });
}

function main() {
  const t0 = Date.now();
  const rows: Record<string, unknown>[] = [];
  const cases: ['aa' | 'step' | 'drift', number][] = [
    ['aa', 0],
    ...SIZES.map((s) => ['step', s] as ['step', number]),
    ...SIZES.map((s) => ['drift', s] as ['drift', number]),
  ];
  for (const [kind, size] of cases) {
    let cp = 0,
      drift = 0,
      either = 0,
      pair = 0,
      rightIndex = 0;
    for (let s = 0; s < SERIES; s++) {
      const pts = series(kind, size, s);
      const r = detectChangePoints(pts, { seed: s + 1 });
      const hasCp = r.changePoints.length > 0;
      if (hasCp) cp++;
      if (r.drift.significant) drift++;
      if (hasCp || r.drift.significant) either++;
      if (kind === 'step' && r.changePoints.some((c) => c.index === N / 2)) rightIndex++;
      const v = pts.map((p) => p.value);
      if (v.some((x, i) => i > 0 && Math.abs(x / v[i - 1]! - 1) > PAIR_THRESHOLD)) pair++;
    }
    rows.push({
      kind,
      size,
      series: SERIES,
      changePointRate: cp / SERIES,
      driftRate: drift / SERIES,
      detectedRate: either / SERIES,
      ...(kind === 'step' ? { rightIndexRate: rightIndex / SERIES } : {}),
      pairwiseRate: pair / SERIES,
    });
  }
  const out = {
    what: 'change-point detection (E-divisive means, 199 permutations, alpha 0.05, + Mann-Kendall drift) vs adjacent-pair threshold 10 %',
    n: N,
    sigma: SIGMA,
    pairThreshold: PAIR_THRESHOLD,
    seconds: (Date.now() - t0) / 1000,
    rows,
  };
  const file = path.join(REPO_ROOT, 'bench', 'results', 'change-points.json');
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(out, null, 2) + '\n');
  console.log(JSON.stringify(out, null, 1));
}

main();
