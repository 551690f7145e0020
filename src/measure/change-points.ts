/**
 * Change points over a series of runs (one query's statistic across quarterly runs, e.g. its
 * warm median in ms from query_log `query_duration_ms`, or its read_rows). Pure: no I/O; the
 * permutations come from a seeded generator (`seedrandom`), so the same series and seed give the
 * same answer.
 *
 * ## Method
 * - E-divisive means (Matteson & James 2014, as used by Otava/Hunter): for each split τ of a
 *   segment, the divergence q(τ) = (2/(m·n)) ΣΣ|xᵢ−yⱼ| − (1/C(m,2)) Σ|xᵢ−xₖ| − (1/C(n,2)) Σ|yⱼ−yₗ|
 *   scaled by m·n/(m+n) (α = 1); the best split maximises it.
 * - Significance: permutation test — the segment is shuffled `permutations` times (default 199)
 *   and the best q recomputed; p = (1 + #{q_perm ≥ q}) / (1 + permutations).
 * - Hierarchical: a significant split (p < alpha, default 0.05) is kept and both halves are
 *   searched again until no significant split remains (segments shorter than 2·minSize are not split).
 * - Drift: Mann-Kendall trend test over the whole series (normal approximation, no tie
 *   correction beyond the variance term) — a monotone trend over several runs is reported as
 *   `drift` even when no single split is significant.
 */
import seedrandom from 'seedrandom';

/** One run's figure: `value` in the unit of the statistic (ms, rows, bytes). */
export interface SeriesPoint {
  runId: string;
  /** ISO 8601 time of the run. */
  at: string;
  value: number;
}

/** A significant change point: the series changes between `index − 1` and `index`. */
export interface ChangePoint {
  /** Index (in the time-ordered series) of the first point after the change. */
  index: number;
  runId: string;
  at: string;
  /** Mean of the segment before / after, in the series' unit. */
  meanBefore: number;
  meanAfter: number;
  /** (meanAfter − meanBefore) / meanBefore. */
  relativeChange: number;
  /** Permutation p-value. */
  pValue: number;
}

/** Monotone trend over the series (Mann-Kendall). */
export interface Drift {
  kind: 'drift';
  /** Mann-Kendall S statistic and its two-sided normal-approximation p-value. */
  s: number;
  pValue: number;
  /** Sen's slope divided by the series median: relative change per run (fraction). */
  relativeSlopePerRun: number;
  /** Sen's slope × (n − 1) / median: relative change over the series. */
  relativeChange: number;
  significant: boolean;
}

export interface ChangePointOptions {
  /** Significance level, default 0.05. */
  alpha?: number;
  /** Permutations per test, default 199. */
  permutations?: number;
  /** PRNG seed, default 1. */
  seed?: number;
  /** Minimum points per segment, default 2. */
  minSize?: number;
}

export interface ChangePointResult {
  /** Change points sorted by index. */
  changePoints: ChangePoint[];
  drift: Drift;
}

function bestSplit(x: number[], minSize: number): { tau: number; q: number } {
  const n = x.length;
  let best = { tau: -1, q: -Infinity };
  for (let tau = minSize; tau <= n - minSize; tau++) {
    const m = tau;
    const k = n - tau;
    let between = 0;
    for (let i = 0; i < m; i++) for (let j = m; j < n; j++) between += Math.abs(x[i]! - x[j]!);
    let withinA = 0;
    for (let i = 0; i < m; i++) for (let j = i + 1; j < m; j++) withinA += Math.abs(x[i]! - x[j]!);
    let withinB = 0;
    for (let i = m; i < n; i++) for (let j = i + 1; j < n; j++) withinB += Math.abs(x[i]! - x[j]!);
    const e =
      (2 * between) / (m * k) -
      (m > 1 ? withinA / ((m * (m - 1)) / 2) : 0) -
      (k > 1 ? withinB / ((k * (k - 1)) / 2) : 0);
    const q = ((m * k) / (m + k)) * e;
    if (q > best.q) best = { tau, q };
  }
  return best;
}

function shuffle(a: number[], rng: () => number): number[] {
  const b = a.slice();
  for (let i = b.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [b[i], b[j]] = [b[j]!, b[i]!];
  }
  return b;
}

const mean = (a: number[]): number => a.reduce((s, v) => s + v, 0) / a.length;

function normalCdf(z: number): number {
  // Abramowitz-Stegun 7.1.26 erf approximation.
  const t = 1 / (1 + 0.3275911 * (Math.abs(z) / Math.SQRT2));
  const y =
    1 -
    ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) *
      t *
      Math.exp(-(z * z) / 2);
  return z >= 0 ? (1 + y) / 2 : (1 - y) / 2;
}

/** Mann-Kendall trend test with Sen's slope over `x` (time-ordered). */
export function mannKendall(x: number[], alpha = 0.05): Drift {
  const n = x.length;
  let s = 0;
  const slopes: number[] = [];
  for (let i = 0; i < n; i++)
    for (let j = i + 1; j < n; j++) {
      s += Math.sign(x[j]! - x[i]!);
      slopes.push((x[j]! - x[i]!) / (j - i));
    }
  const variance = (n * (n - 1) * (2 * n + 5)) / 18;
  const z = variance > 0 ? (s > 0 ? (s - 1) / Math.sqrt(variance) : s < 0 ? (s + 1) / Math.sqrt(variance) : 0) : 0;
  const pValue = n < 3 ? 1 : 2 * (1 - normalCdf(Math.abs(z)));
  const med = (a: number[]): number => {
    if (a.length === 0) return 0;
    const b = a.slice().sort((p, q) => p - q);
    const h = Math.floor(b.length / 2);
    return b.length % 2 ? b[h]! : (b[h - 1]! + b[h]!) / 2;
  };
  const center = med(x);
  const slope = med(slopes);
  const rel = center !== 0 ? slope / center : 0;
  return {
    kind: 'drift',
    s,
    pValue,
    relativeSlopePerRun: rel,
    relativeChange: rel * (n - 1),
    significant: pValue < alpha,
  };
}

/**
 * Change points of `points` (sorted by `at` first). Throws on a non-finite value.
 * @returns change points (index into the time-ordered series) and the drift test.
 */
export function detectChangePoints(points: SeriesPoint[], opts: ChangePointOptions = {}): ChangePointResult {
  const alpha = opts.alpha ?? 0.05;
  const permutations = opts.permutations ?? 199;
  const minSize = opts.minSize ?? 2;
  for (const p of points)
    if (!Number.isFinite(p.value)) throw new Error(`change points: value of run ${p.runId} is not finite`);
  const sorted = points.slice().sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
  const x = sorted.map((p) => p.value);
  const rng = seedrandom(String(opts.seed ?? 1));
  const cuts: { index: number; pValue: number }[] = [];
  const stack: [number, number][] = [[0, x.length]];
  while (stack.length > 0) {
    const [lo, hi] = stack.shift()!;
    const seg = x.slice(lo, hi);
    if (seg.length < 2 * minSize) continue;
    const best = bestSplit(seg, minSize);
    if (best.tau < 0 || !(best.q > 0)) continue;
    let exceed = 0;
    for (let r = 0; r < permutations; r++) if (bestSplit(shuffle(seg, rng), minSize).q >= best.q) exceed++;
    const pValue = (1 + exceed) / (1 + permutations);
    if (pValue >= alpha) continue;
    cuts.push({ index: lo + best.tau, pValue });
    stack.push([lo, lo + best.tau], [lo + best.tau, hi]);
  }
  cuts.sort((a, b) => a.index - b.index);
  const bounds = [0, ...cuts.map((c) => c.index), x.length];
  const changePoints = cuts.map((c, i) => {
    const before = mean(x.slice(bounds[i]!, c.index));
    const after = mean(x.slice(c.index, bounds[i + 2]!));
    const p = sorted[c.index]!;
    return {
      index: c.index,
      runId: p.runId,
      at: p.at,
      meanBefore: before,
      meanAfter: after,
      relativeChange: before !== 0 ? (after - before) / before : 0,
      pValue: c.pValue,
    };
  });
  return { changePoints, drift: mannKendall(x, alpha) };
}
