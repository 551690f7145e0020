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

/**
 * One run's value of the followed figure, the detector's input: `value` in the unit of the statistic
 * (ms, rows, bytes). Not the results database's `SeriesPoint` (`src/results/db/types.ts`, a stored
 * warm median with its cell and query): a caller maps those to these.
 */
export interface RunValue {
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
export function detectChangePoints(points: RunValue[], opts: ChangePointOptions = {}): ChangePointResult {
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

/**
 * The detector's parameters for a stored series of runs: the one setting `chbench series` and
 * report.html's series chart both use (through {@link seriesChangePoints}), so both name the same
 * change points. The bench (`bench/change-points.ts`) measures these defaults.
 */
export const SERIES_CHANGE_POINTS: Readonly<Required<ChangePointOptions>> = Object.freeze({
  alpha: 0.05,
  permutations: 199,
  seed: 1,
  minSize: 2,
});

/**
 * Fewest runs in which {@link SERIES_CHANGE_POINTS} can find a change point: with 7 runs even a
 * doubling after the 4th run gives a permutation p-value ≥ 0.05 (few distinct shuffles), with 8 it
 * gives p = 0.025 (checked by `test/unit/change-points.test.ts`).
 */
export const MIN_CHANGE_POINT_RUNS = 8;

/**
 * Fewest runs in which the Mann-Kendall test can reach p < 0.05: 4 strictly rising runs give S = 6
 * and a two-sided p of 0.089, 5 give 0.027.
 */
export const MIN_DRIFT_RUNS = 5;

/** The change-point method as printed beside its results. */
export const CHANGE_POINT_METHOD = `E-divisive means, permutation test (${SERIES_CHANGE_POINTS.permutations} shuffles, seed ${SERIES_CHANGE_POINTS.seed}), α ${SERIES_CHANGE_POINTS.alpha}`;

/** The drift method as printed beside its result. */
export const DRIFT_METHOD = `Mann-Kendall trend test with Sen's slope, α ${SERIES_CHANGE_POINTS.alpha}`;

/** {@link seriesChangePoints}' answer for one series. */
export interface SeriesChangePoints {
  /** Runs in the series (points with a value). */
  runs: number;
  /** Change points sorted by index; empty when none was significant or {@link changePointsTested} is false. */
  changePoints: ChangePoint[];
  /** False when the series has fewer than {@link MIN_CHANGE_POINT_RUNS} runs (no split could be significant). */
  changePointsTested: boolean;
  /** The Mann-Kendall drift test; null when the series has fewer than {@link MIN_DRIFT_RUNS} runs. */
  drift: Drift | null;
  /** Why a test was not run (too few runs), as a sentence; undefined when both ran. */
  tooFew?: string;
  method: string;
  driftMethod: string;
}

/**
 * Change points and drift of one stored series (one query, cell, phase and figure across runs) with
 * the {@link SERIES_CHANGE_POINTS} parameters: the one function `chbench series` and report.html use.
 * Tests only what the series' length allows: change points from {@link MIN_CHANGE_POINT_RUNS} runs,
 * drift from {@link MIN_DRIFT_RUNS}; below that `tooFew` says what is missing.
 * @throws Error when a value is not finite (as {@link detectChangePoints})
 */
export function seriesChangePoints(values: RunValue[]): SeriesChangePoints {
  const runs = values.length;
  const base = { runs, method: CHANGE_POINT_METHOD, driftMethod: DRIFT_METHOD };
  const r = detectChangePoints(values, SERIES_CHANGE_POINTS);
  const changePointsTested = runs >= MIN_CHANGE_POINT_RUNS;
  const driftTested = runs >= MIN_DRIFT_RUNS;
  const missing = [
    ...(changePointsTested ? [] : [`change points need at least ${MIN_CHANGE_POINT_RUNS} runs`]),
    ...(driftTested ? [] : [`a drift at least ${MIN_DRIFT_RUNS}`]),
  ];
  return {
    ...base,
    changePoints: changePointsTested ? r.changePoints : [],
    changePointsTested,
    drift: driftTested ? r.drift : null,
    ...(missing.length
      ? {
          tooFew: `${runs} run(s): ${missing.join(', ')} (fewer can never be significant at α ${SERIES_CHANGE_POINTS.alpha})`,
        }
      : {}),
  };
}
