/**
 * The statistics of a verdict, on the log scale: the ratio of two sides' medians, its interval with
 * every noise the data show (within each cell's runs, and between server starts as the A/A control
 * learned it), the false-discovery rule across a run's comparisons, the minimal detectable effect and
 * how many more runs would decide an inconclusive comparison. Pure and deterministic (no resampling:
 * the same samples give the same interval every time). Distribution functions from jStat.
 *
 * ## Model
 * A side's figure is the median of its valid runs (ms, or rows/s). On the log scale
 * `ln median(new) − ln median(ref)` has variance `v_ref + v_new + 2·σ_b²`:
 * - `v = (π/2)·s²/n`: the variance of a median of `n` runs whose log values spread by `s²` (from 5 runs on
 *   the robust `(1.4826·MAD)²` from 3 runs on, else the sample variance; `n − 1` degrees of freedom); a side with one run
 *   has no within part it can show.
 * - `σ_b²`: between-server-start variance (each cell is one start), learned from A/A pairs (the same setup
 *   measured twice): `σ_b² = max(0, mean(d² − v_pair)) / 2` over their log ratios `d` (method of moments).
 * The interval uses Student's t with Welch–Satterthwaite degrees of freedom over those three parts.
 */
import { jStat } from 'jstat';

/** A side's runs: positive values (ms, rows/s). */
export interface Side {
  values: readonly number[];
}

/** The log ratio of one comparison with its variance parts. */
export interface LogRatio {
  /** ln(median new / median ref). */
  d: number;
  /** Within-cell variance of `d` (both sides) and its degrees of freedom; null when a side has fewer than 2 runs. */
  within: number | null;
  withinDf: number;
  n: { ref: number; cell: number };
  /** Per-side log sample variance (for "how many more runs"). */
  s2: { ref: number | null; cell: number | null };
}

/** Median of a non-empty list. */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** The most runs per side {@link runsToDecide} proposes; beyond it more runs are not a plan. */
export const MAX_RUNS_TO_DECIDE = 200;

/** Runs per side from which the spread is estimated robustly (MAD) rather than by the sample variance. */
export const ROBUST_FROM = 3;
/** The smallest relative spread assumed for a side (0.5 %): identical runs do not make a zero-width interval. */
export const MIN_SPREAD = 0.005;

/**
 * The spread of a side's runs on the log scale, as a variance: from 3 runs on, `(1.4826 · MAD)²` (a few slow
 * runs — a context switch, a page fault, the first cold run after the load — do not widen the interval of a
 * median they cannot move, nor hide the between-start noise behind it), never above the sample variance;
 * with 2 runs the sample variance. At least {@link MIN_SPREAD}². Null below 2 runs.
 */
function logVariance(xs: readonly number[]): number | null {
  if (xs.length < 2) return null;
  const ls = xs.map(Math.log);
  const mean = ls.reduce((a, b) => a + b, 0) / ls.length;
  const sample = ls.reduce((a, b) => a + (b - mean) ** 2, 0) / (ls.length - 1);
  let v = sample;
  if (ls.length >= ROBUST_FROM) {
    const m = median(ls);
    v = Math.min(sample, (1.4826 * median(ls.map((x) => Math.abs(x - m)))) ** 2);
  }
  return Math.max(v, MIN_SPREAD ** 2);
}

/** The variance of the log of a median of `n` runs with log sample variance `s2`. */
export const medianVariance = (s2: number, n: number) => (Math.PI / 2) * (s2 / n);

/**
 * The log ratio of two sides' medians and its within-cell variance.
 * @throws Error when a side is empty or holds a value ≤ 0 (no log ratio).
 */
export function logRatio(ref: readonly number[], cell: readonly number[]): LogRatio {
  if (!ref.length || !cell.length) throw new Error('logRatio: a side has no runs');
  if ([...ref, ...cell].some((x) => !(x > 0))) throw new Error('logRatio: a value is not positive');
  const d = Math.log(median(cell) / median(ref));
  const sr = logVariance(ref);
  const sc = logVariance(cell);
  if (sr === null || sc === null)
    return { d, within: null, withinDf: 0, n: { ref: ref.length, cell: cell.length }, s2: { ref: sr, cell: sc } };
  const vr = medianVariance(sr, ref.length);
  const vc = medianVariance(sc, cell.length);
  const within = vr + vc;
  // Welch–Satterthwaite for the two within parts.
  const withinDf = within > 0 ? within ** 2 / (vr ** 2 / (ref.length - 1) + vc ** 2 / (cell.length - 1)) : Infinity;
  return { d, within, withinDf, n: { ref: ref.length, cell: cell.length }, s2: { ref: sr, cell: sc } };
}

/** Between-start variance learned from A/A pairs: σ_b² and its degrees of freedom (the number of pairs). */
export interface BetweenNoise {
  sigma2: number;
  df: number;
}

/**
 * σ_b² from A/A pairs' log ratios (`d`) and their within variances (`within`; null counts as 0):
 * `max(0, mean(d² − within)) / 2`. @returns null when there is no pair.
 */
export function betweenNoise(pairs: readonly { d: number; within: number | null }[]): BetweenNoise | null {
  if (!pairs.length) return null;
  const excess = pairs.reduce((a, p) => a + p.d ** 2 - (p.within ?? 0), 0) / pairs.length;
  return { sigma2: Math.max(0, excess) / 2, df: pairs.length };
}

/** A comparison's interval on the ratio scale, with its p-value and MDE. */
export interface RatioInterval {
  ratio: number;
  low: number;
  high: number;
  /** Standard error of d and the t distribution's degrees of freedom. */
  se: number;
  df: number;
  /** Two-sided p-value of "no change". */
  p: number;
  /** Minimal detectable effect at 80 % power, relative (e^mde − 1). */
  mde: number;
}

const tq = (p: number, df: number) =>
  Number.isFinite(df) && df < 1e6 ? jStat.studentt.inv(p, df) : jStat.normal.inv(p, 0, 1);
const tcdf = (x: number, df: number) =>
  Number.isFinite(df) && df < 1e6 ? jStat.studentt.cdf(x, df) : jStat.normal.cdf(x, 0, 1);

/**
 * The interval of a log ratio with the between-start part added (`2·σ_b²`: each side is one server start).
 * @param confidence two-sided, e.g. 0.95
 * @returns null when no variance at all is known (no within part and no A/A noise): no interval can be formed.
 */
export function ratioInterval(
  lr: Pick<LogRatio, 'd' | 'within' | 'withinDf'>,
  between: BetweenNoise | null,
  confidence = 0.95,
): RatioInterval | null {
  const vb = between ? 2 * between.sigma2 : 0;
  const vw = lr.within ?? 0;
  const v = vw + vb;
  if (lr.within === null && !between) return null;
  if (!(v > 0)) {
    // Both parts measured and both zero (identical runs): a degenerate but exact interval.
    return {
      ratio: Math.exp(lr.d),
      low: Math.exp(lr.d),
      high: Math.exp(lr.d),
      se: 0,
      df: Infinity,
      p: lr.d === 0 ? 1 : 0,
      mde: 0,
    };
  }
  const parts: [number, number][] = [];
  if (vw > 0) parts.push([vw, lr.withinDf]);
  if (vb > 0) parts.push([vb, between!.df]);
  const df = v ** 2 / parts.reduce((a, [x, k]) => a + x ** 2 / k, 0);
  const se = Math.sqrt(v);
  const t = tq(1 - (1 - confidence) / 2, df);
  const p = 2 * (1 - tcdf(Math.abs(lr.d) / se, df));
  const mde = Math.exp((t + tq(0.8, df)) * se) - 1;
  return { ratio: Math.exp(lr.d), low: Math.exp(lr.d - t * se), high: Math.exp(lr.d + t * se), se, df, p, mde };
}

/**
 * Two independent estimates of one log ratio combined (inverse-variance weights; Welch–Satterthwaite
 * degrees of freedom): a first pass and its interleaved re-run, each from its own server starts.
 * @returns the combined interval at `confidence`, its p-value and MDE; the first argument when the second has no variance.
 */
export function combineIntervals(
  a: Pick<RatioInterval, 'ratio' | 'se' | 'df'>,
  b: Pick<RatioInterval, 'ratio' | 'se' | 'df'>,
  confidence = 0.95,
): RatioInterval {
  const parts = [a, b].filter((x) => x.se > 0);
  if (parts.length < 2) {
    const x = parts[0] ?? a;
    const iv = ratioInterval({ d: Math.log(x.ratio), within: x.se ** 2, withinDf: x.df }, null, confidence);
    return iv!;
  }
  const w = parts.map((x) => 1 / x.se ** 2);
  const sw = w[0]! + w[1]!;
  const d = (Math.log(parts[0]!.ratio) * w[0]! + Math.log(parts[1]!.ratio) * w[1]!) / sw;
  const v = 1 / sw;
  // Var of the weighted mean = Σ (w_i/Σw)² se_i²; its df by Welch–Satterthwaite over the two parts.
  const terms = parts.map((x, i) => ((w[i]! / sw) ** 2 * x.se ** 2) ** 2 / x.df);
  const df = v ** 2 / terms.reduce((s, t) => s + t, 0);
  return ratioInterval({ d, within: v, withinDf: Number.isFinite(df) ? df : Infinity }, null, confidence)!;
}

/** The interval of a log ratio with its standard error multiplied by `factor` (≥ 1 widens it). */
export function inflate(
  iv: Pick<RatioInterval, 'ratio' | 'se' | 'df'>,
  factor: number,
  confidence = 0.95,
): RatioInterval {
  const se = iv.se * factor;
  return ratioInterval({ d: Math.log(iv.ratio), within: se ** 2, withinDf: iv.df }, null, confidence)!;
}

/** How far two passes of the same comparisons disagree beyond their intervals ({@link dispersion}). */
export interface Dispersion {
  /** √φ, at least 1: the factor both passes' standard errors are multiplied by (`firstOnly`: the first pass's alone). */
  factor: number;
  /** φ = mean over the comparisons of (d₁ − d₂)² / (se₁² + se₂²): 1 when the intervals hold. */
  phi: number;
  /** Comparisons it was learned from. */
  n: number;
  /** Which passes the factor widens: both, or the first alone (`firstOnly`). */
  scope: 'both' | 'first';
  /** In words, for the reasons. */
  text: string;
}

/**
 * The dispersion of paired estimates of the same log ratios (a first pass and its re-run, independent
 * server starts): φ = mean((d₁ − d₂)² / (se₁² + se₂²)), expected 1 when both standard errors are right.
 * Above 1 the noise was under-estimated; the factor is √φ (never below 1: a dispersion under 1 does not
 * narrow anything). With `o.firstOnly` the excess is laid on the first estimates alone (the second ones are
 * calibrated by a control of their own): the factor f ≥ 1 that solves mean((d₁ − d₂)² / (f²·se₁² + se₂²)) = 1.
 * @returns factor 1 with fewer than 3 pairs (too few to learn from).
 */
export function dispersion(
  pairs: readonly { a: Pick<RatioInterval, 'ratio' | 'se'>; b: Pick<RatioInterval, 'ratio' | 'se'> }[],
  o: { firstOnly?: boolean } = {},
): Dispersion {
  const usable = pairs.filter((p) => p.a.se ** 2 + p.b.se ** 2 > 0);
  if (usable.length < 3)
    return {
      factor: 1,
      phi: 1,
      n: usable.length,
      scope: 'both',
      text: `not learned (${usable.length} re-measured comparisons; 3 needed)`,
    };
  const phi =
    usable.reduce((s, p) => s + (Math.log(p.a.ratio) - Math.log(p.b.ratio)) ** 2 / (p.a.se ** 2 + p.b.se ** 2), 0) /
    usable.length;
  const text = `the ${usable.length} re-measured comparisons' two passes disagree ${phi.toFixed(2)}× as much as their intervals allow`;
  if (!o.firstOnly || phi <= 1)
    return { factor: Math.max(1, Math.sqrt(phi)), phi, n: usable.length, scope: o.firstOnly ? 'first' : 'both', text };
  const at = (f: number) =>
    usable.reduce(
      (s, p) => s + (Math.log(p.a.ratio) - Math.log(p.b.ratio)) ** 2 / (f * f * p.a.se ** 2 + p.b.se ** 2),
      0,
    ) / usable.length;
  // at() falls from φ at f = 1 towards 0: bisect on [1, 1000] (a first pass with no variance stays at 1000).
  let [lo, hi] = [1, 1000];
  for (let i = 0; i < 60 && usable.some((p) => p.a.se > 0); i++) {
    const mid = Math.sqrt(lo * hi);
    if (at(mid) > 1) lo = mid;
    else hi = mid;
  }
  return { factor: hi, phi, n: usable.length, scope: 'first', text };
}

/** The interval at another confidence (the false-coverage-adjusted one of a selected comparison). */
export function widen(iv: RatioInterval, confidence: number): Pick<RatioInterval, 'low' | 'high'> {
  if (iv.se === 0) return { low: iv.low, high: iv.high };
  const t = tq(1 - (1 - confidence) / 2, iv.df);
  const d = Math.log(iv.ratio);
  return { low: Math.exp(d - t * iv.se), high: Math.exp(d + t * iv.se) };
}

/**
 * Benjamini–Hochberg at level `q`: which of `ps` are discoveries.
 * @returns a boolean per p-value (same order) and R, the number of discoveries.
 */
export function benjaminiHochberg(ps: readonly number[], q: number): { rejected: boolean[]; count: number } {
  const m = ps.length;
  const order = ps.map((p, i) => ({ p, i })).sort((a, b) => a.p - b.p);
  let k = 0;
  order.forEach((o, rank) => {
    if (o.p <= ((rank + 1) / m) * q) k = rank + 1;
  });
  const rejected = new Array<boolean>(m).fill(false);
  for (let r = 0; r < k; r++) rejected[order[r]!.i] = true;
  return { rejected, count: k };
}

/**
 * How many runs per side (in all) would make the interval decide at the measured noise: narrow enough to
 * lie inside ±δ when the ratio is near 1, or to exclude 1 otherwise. @returns the runs per side, or null
 * when more runs of these cells cannot decide it (the between-start part alone is too wide, or no within
 * variance is known).
 */
export function runsToDecide(
  lr: LogRatio,
  between: BetweenNoise | null,
  delta: number,
  confidence = 0.95,
): number | null {
  const s2 = ((lr.s2.ref ?? 0) + (lr.s2.cell ?? 0)) / 2;
  if (lr.s2.ref === null || lr.s2.cell === null) return null;
  const margin = Math.log(1 + delta);
  const z = tq(1 - (1 - confidence) / 2, Infinity);
  const target = Math.abs(lr.d) < margin / 2 ? (margin - Math.abs(lr.d)) / z : Math.abs(lr.d) / z;
  const vb = between ? 2 * between.sigma2 : 0;
  const room = target ** 2 - vb;
  if (!(room > 0)) return null;
  const n = Math.ceil((2 * medianVariance(s2, 1)) / room);
  // Beyond this many runs per side the answer is "not by more runs of these cells" (a noise, not a plan).
  if (n > MAX_RUNS_TO_DECIDE) return null;
  return Math.max(n, Math.max(lr.n.ref, lr.n.cell) + 1);
}
