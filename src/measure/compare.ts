/**
 * Comparison of a run with its baseline: per query, the ratio of medians new/baseline with a
 * percentile-bootstrap confidence interval, judged against a noise threshold learned from the
 * baseline's own run-to-run variation; pairing of cells; the comparison record and its confirming
 * re-run. Pure: no I/O; every random draw comes from a seeded generator (`seedrandom`), so the same
 * input and seed give the same record.
 *
 * ## Method
 * - Samples: the **valid warm runs** of a query on each side (cold runs, warm-ups and runs whose
 *   validity record says not quiet are left out). The figure is the server-side elapsed time when
 *   every kept run on *both* sides has one (and its source resolves at most 10 % of the fastest run,
 *   the rule of `measure/stats.ts`), else the client wall time; the record says which (`figure`).
 * - Ratio: median(new) / median(baseline).
 * - Interval: 95 % percentile bootstrap of that ratio, each side resampled independently with
 *   replacement (`resamples`, default 2000).
 * - Noise threshold: over `splits` (default 200) random half-splits of the baseline's samples, the
 *   95th percentile of |ln(median(half 1) / median(half 2))|, as a relative change e^q − 1, and at
 *   least `minChange`. It is what the baseline's own runs disagree by, so a query that is noisy on
 *   this host needs a larger change to be flagged.
 * - Verdict: `unstable` when a side has fewer than `minRuns` samples or the baseline's learned noise
 *   (before the `minChange` floor) is above `unstableAbove`; `regression` when the interval's low
 *   end is above 1 + threshold; `improvement` when its high end is below 1 / (1 + threshold); else
 *   `unchanged`.
 *
 * ## Power: how many warm runs, and why 7
 * Measured by simulation ({@link simulateDetection}; `npm run bench:compare-power` writes
 * `bench/results/compare-power.json`; `test/unit/compare.test.ts` asserts the 5 % rows), 200 seeds
 * each, lognormal noise, minChange 10 %:
 * - A/A (same distribution both sides): flagged in 0 of 200 seeds at every n and noise level
 *   tried (5, 10, 20 %; n 3 … 15): the CI must clear 1 + threshold ≥ 1.1, which noise alone does not do.
 * - 5 % noise (a quiet host), true 1.5× slowdown: detected in 100 % at n = 5, 7, 10 and 15;
 *   1.2×: 45 % (n 5), 69.5 % (n 7), 86.5 % (n 10), 93.5 % (n 15).
 * - 10 % noise (a shared host), 1.5×: 73.5 % at n = 5, 89.5 % at n = 7, 98 % at n = 10,
 *   99.5 % at n = 15; 2×: 92 %, 96 %, 99 %, 100 %.
 * - n = 3: nothing can be decided (the half-split threshold needs ≥ 4 runs, and a bootstrap median of 3
 *   runs is always one of those 3 values).
 * - 20 % noise: most queries are `unstable` (their learned noise is above 30 %), as intended.
 * Hence `minRuns` 7: the smallest n where a 1.5× slowdown is caught in ~90 % of runs on a 10 %-noise
 * host (at n = 5 a quarter is missed and some are unstable). Use 10 or more warm runs for ≥ 98 %;
 * the confirming re-run's 12 interleaved rounds (`confirmRounds`) give n = 12 per side.
 */
import seedrandom from 'seedrandom';
import { median as ssMedian, quantileSorted } from 'simple-statistics';
import type { StoredCell, StoredFigure, StoredSample } from '../results/db/types';
import { compareWork, workLabel } from './work';
import {
  COMPARISON_SCHEMA,
  type CellPair,
  type ConfirmOutcome,
  type ComparisonRecord,
  type QueryComparison,
  type RunVerdict,
  type Verdict,
} from '../schema/comparison';
import { MAX_RESOLUTION_SHARE, SERVER_TIME_RESOLUTION_MS } from './stats';

/** Options of one comparison (the `BaselineSpec` fields plus the test's own knobs). */
export interface CompareOptions {
  /** Smallest relative change ever flagged (0.1 = 10 %). */
  minChange: number;
  /** A threshold above this makes the query `unstable`. */
  unstableAbove: number;
  /** Fewer samples than this on a side: `unstable`. */
  minRuns: number;
  /** Bootstrap resamples. @default 2000 */
  resamples?: number;
  /** Random half-splits of the baseline for the threshold. @default 200 */
  splits?: number;
  /** Confidence of the interval. @default 0.95 */
  confidence?: number;
  /** Seed of the generator (any string or number); the same seed gives the same figures. @default 1 */
  seed?: number | string;
  /**
   * Seed of the noise threshold's half-splits (default: `seed`). Give one that depends on the baseline
   * only (its run, cell, query), so a baseline's threshold is the same whatever it is compared with.
   */
  noiseSeed?: number | string;
}

/** The statistics of one query; times in ms, ratio = new / baseline. Null when a side has too few samples to compute it. */
export interface SampleComparison {
  n_baseline: number;
  n_new: number;
  median_baseline_ms: number | null;
  median_new_ms: number | null;
  ratio: number | null;
  ci_low: number | null;
  ci_high: number | null;
  /** Relative change (0.12 = 12 %), at least `minChange`; null with fewer than 4 baseline samples. */
  threshold: number | null;
  verdict: Verdict;
  reason: string;
}

const DEFAULT_RESAMPLES = 2000;
const DEFAULT_SPLITS = 200;
const DEFAULT_CONFIDENCE = 0.95;
/** Percentile of the half-split log ratios taken as the noise threshold. */
const THRESHOLD_PERCENTILE = 0.95;

const pct = (x: number) => `${(x * 100).toFixed(1).replace(/\.0$/, '')} %`;
const r3 = (x: number) => x.toFixed(3);

function medianOf(xs: readonly number[]): number {
  return ssMedian(xs as number[]);
}

/** Bootstrap percentile interval of median(n)/median(b). Both sides need at least 2 samples. */
function bootstrapRatio(
  b: readonly number[],
  n: readonly number[],
  rng: () => number,
  resamples: number,
  confidence: number,
): [number, number] {
  const rb = new Array<number>(b.length);
  const rn = new Array<number>(n.length);
  const ratios: number[] = new Array<number>(resamples);
  for (let i = 0; i < resamples; i++) {
    for (let j = 0; j < b.length; j++) rb[j] = b[Math.floor(rng() * b.length)];
    for (let j = 0; j < n.length; j++) rn[j] = n[Math.floor(rng() * n.length)];
    ratios[i] = medianOf(rn) / medianOf(rb);
  }
  ratios.sort((x, y) => x - y);
  const alpha = 1 - confidence;
  return [quantileSorted(ratios, alpha / 2), quantileSorted(ratios, 1 - alpha / 2)];
}

/**
 * The baseline's own noise as a relative change: the 95th percentile of |ln(median(h1)/median(h2))|
 * over `splits` random half-splits (an odd sample's extra run is left out of each split), as e^q − 1.
 * Not floored. Needs at least 4 samples.
 */
export function halfSplitNoise(b: readonly number[], rng: () => number, splits = DEFAULT_SPLITS): number {
  if (b.length < 4) throw new Error(`halfSplitNoise: needs at least 4 samples, got ${b.length}`);
  const a = [...b];
  const h = Math.floor(a.length / 2);
  const logs: number[] = new Array<number>(splits);
  for (let r = 0; r < splits; r++) {
    for (let i = a.length - 1; i > 0; i--) {
      const j = Math.floor(rng() * (i + 1));
      [a[i], a[j]] = [a[j], a[i]];
    }
    logs[r] = Math.abs(Math.log(medianOf(a.slice(0, h)) / medianOf(a.slice(h, 2 * h))));
  }
  logs.sort((x, y) => x - y);
  return Math.exp(quantileSorted(logs, THRESHOLD_PERCENTILE)) - 1;
}

/**
 * Compare one query's samples (ms, any order): ratio of medians new/baseline, its bootstrap
 * interval, the baseline's noise threshold and the verdict (see the module header for the rules).
 * Deterministic given `opts.seed`. Samples must be positive times; a zero median makes the query
 * `unstable` (a ratio cannot be formed).
 */
export function compareSamples(
  baseline: readonly number[],
  candidate: readonly number[],
  opts: CompareOptions,
): SampleComparison {
  const rng = seedrandom(String(opts.seed ?? 1));
  const resamples = opts.resamples ?? DEFAULT_RESAMPLES;
  const confidence = opts.confidence ?? DEFAULT_CONFIDENCE;
  const nb = baseline.length;
  const nn = candidate.length;
  const mb = nb ? medianOf(baseline) : null;
  const mn = nn ? medianOf(candidate) : null;
  const ratio = mb !== null && mn !== null && mb > 0 ? mn / mb : null;
  const [ci_low, ci_high] =
    ratio !== null && nb >= 2 && nn >= 2 && mn! > 0
      ? bootstrapRatio(baseline, candidate, rng, resamples, confidence)
      : [null, null];
  const noise =
    nb >= 4 && baseline.every((x) => x > 0)
      ? halfSplitNoise(baseline, seedrandom(`noise:${opts.noiseSeed ?? opts.seed ?? 1}`), opts.splits ?? DEFAULT_SPLITS)
      : null;
  const threshold = noise === null ? null : Math.max(opts.minChange, noise);
  const base = {
    n_baseline: nb,
    n_new: nn,
    median_baseline_ms: mb,
    median_new_ms: mn,
    ratio,
    ci_low,
    ci_high,
    threshold,
  };
  const ci = ci_low !== null && ci_high !== null ? `CI ${r3(ci_low)}–${r3(ci_high)}` : 'no CI';
  if (nb < opts.minRuns || nn < opts.minRuns)
    return {
      ...base,
      verdict: 'unstable',
      reason: `too few valid warm runs to decide: ${nb} in the baseline, ${nn} in the new run (at least ${opts.minRuns} on each side)`,
    };
  if (threshold === null)
    return {
      ...base,
      verdict: 'unstable',
      reason: `${nb} baseline runs are too few to learn the noise threshold (half-splits need at least 4)`,
    };
  if (ratio === null || ci_low === null || ci_high === null)
    return { ...base, verdict: 'unstable', reason: `a median is 0 ms (baseline ${mb} ms, new ${mn} ms): no ratio` };
  // The learned noise itself (not the threshold floored at minChange) decides: a large minChange never makes a query unstable.
  // A noisy baseline still decides a change far beyond its noise: the whole interval outside (1 + noise)²
  // (an 18× speed-up is not "unstable" because the baseline's runs disagree by 32 %).
  if (noise! > opts.unstableAbove) {
    const far = (1 + noise!) ** 2;
    if (ci_low > far)
      return {
        ...base,
        verdict: 'regression',
        reason: `ratio ${r3(ratio)}, ${ci} above (1 + noise)² ${r3(far)}: far beyond the baseline's own disagreement of up to ${pct(noise!)} (above unstableAbove ${pct(opts.unstableAbove)})`,
      };
    if (ci_high < 1 / far)
      return {
        ...base,
        verdict: 'improvement',
        reason: `ratio ${r3(ratio)}, ${ci} below 1 / (1 + noise)² ${r3(1 / far)}: far beyond the baseline's own disagreement of up to ${pct(noise!)} (above unstableAbove ${pct(opts.unstableAbove)})`,
      };
    return {
      ...base,
      verdict: 'unstable',
      reason: `the baseline's own runs disagree by up to ${pct(noise!)} (95th pct of its half-splits), above unstableAbove ${pct(opts.unstableAbove)}: ratio ${r3(ratio)} not judged (only a change whose interval lies beyond (1 + noise)² ${r3(far)} is)`,
    };
  }
  if (ci_low > 1 + threshold)
    return {
      ...base,
      verdict: 'regression',
      reason: `ratio ${r3(ratio)}, ${ci} above 1 + threshold ${r3(1 + threshold)}`,
    };
  if (ci_high < 1 / (1 + threshold))
    return {
      ...base,
      verdict: 'improvement',
      reason: `ratio ${r3(ratio)}, ${ci} below 1 / (1 + threshold) ${r3(1 / (1 + threshold))}`,
    };
  return {
    ...base,
    verdict: 'unchanged',
    reason: `ratio ${r3(ratio)}, ${ci} not entirely outside ${r3(1 / (1 + threshold))}–${r3(1 + threshold)} (threshold ${pct(threshold)})`,
  };
}

// ---------------------------------------------------------------------------------------------
// Pairing

/** How cells are paired: two runs (`runs`), or a version label as the baseline inside one run (`version`). */
export type PairMode = { kind: 'runs' } | { kind: 'version'; version: string };

/** A baseline cell and a new cell compared with each other. */
export interface PairedCells {
  baseline: StoredCell;
  new: StoredCell;
  /** What differs in their declared setup, e.g. `version 24.8 → 26.7`, `setting max_threads: 2 → 1`. */
  differences: string[];
}

/** The result of {@link pairCells}. */
export interface Pairing {
  pairs: PairedCells[];
  /** New cells without a partner, with why. */
  unpaired: { cell: string; reason: string }[];
}

const normCodec = (c: string) => c.toLowerCase().replace(/[()\s]/g, '');
const repetitionOf = (key: string) => /-r(\d+)$/.exec(key)?.[1] ?? null;

function parseSettings(json: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(json) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** What differs between two cells' declared setup: version label, server version, each query setting. */
export function cellDifferences(a: StoredCell, b: StoredCell): string[] {
  const out: string[] = [];
  if (a.version_label !== b.version_label) out.push(`version ${a.version_label} → ${b.version_label}`);
  if (a.server_version !== b.server_version)
    out.push(`server version ${a.server_version ?? 'unknown'} → ${b.server_version ?? 'unknown'}`);
  if (a.target_kind !== b.target_kind) out.push(`target ${a.target_kind} → ${b.target_kind}`);
  if (a.settings_json !== b.settings_json) {
    const sa = parseSettings(a.settings_json);
    const sb = parseSettings(b.settings_json);
    if (!sa || !sb) out.push(`settings ${a.settings_json} → ${b.settings_json}`);
    else
      for (const k of [...new Set([...Object.keys(sa), ...Object.keys(sb)])].sort()) {
        const va = JSON.stringify(sa[k]);
        const vb = JSON.stringify(sb[k]);
        if (va !== vb) out.push(`setting ${k}: ${va ?? 'unset'} → ${vb ?? 'unset'}`);
      }
  }
  return out;
}

/**
 * Pair the new run's cells with the baseline's. A pair has the same workload, scale and codec; when
 * several baseline cells match that, also the same version label, then the same cell key apart from
 * the version (settings profile and repetition), then the same repetition (`-rN`). Only succeeded cells are paired. In `version` mode (both lists are the same run) the
 * baseline cells are those of that version label, each other version's cell paired with the
 * baseline version's cell of the same codec (and repetition).
 */
/** A cell key without its version (`v26.7-lz4-fast-r2` → `lz4-fast-r2`): codec, settings profile, repetition. */
function keyTail(cellKey: string): string {
  return cellKey.replace(/^v[^-]+-/, '');
}

export function pairCells(
  baselineCells: readonly StoredCell[],
  newCells: readonly StoredCell[],
  mode: PairMode,
): Pairing {
  const pairs: PairedCells[] = [];
  const unpaired: Pairing['unpaired'] = [];
  let pool = baselineCells.filter((c) => c.status === 'succeeded');
  let candidates = [...newCells];
  if (mode.kind === 'version') {
    pool = pool.filter((c) => c.version_label === mode.version);
    candidates = candidates.filter((c) => c.version_label !== mode.version);
    if (!baselineCells.some((c) => c.version_label === mode.version))
      return {
        pairs,
        unpaired: candidates.map((c) => ({
          cell: c.cell_key,
          reason: `version ${mode.version} (the baseline) is not in this run's matrix`,
        })),
      };
  }
  for (const c of candidates) {
    if (c.status !== 'succeeded') {
      unpaired.push({ cell: c.cell_key, reason: `cell ${c.status}${c.error ? `: ${c.error}` : ''}` });
      continue;
    }
    let m = pool.filter(
      (b) => b.workload === c.workload && b.scale === c.scale && normCodec(b.codec) === normCodec(c.codec),
    );
    if (m.length === 0) {
      unpaired.push({
        cell: c.cell_key,
        reason: `no succeeded baseline cell with workload ${c.workload}, scale ${c.scale}, codec ${c.codec}${mode.kind === 'version' ? ` in version ${mode.version}` : ''}`,
      });
      continue;
    }
    if (m.length > 1 && mode.kind === 'runs') {
      const sameVersion = m.filter((b) => b.version_label === c.version_label);
      if (sameVersion.length) m = sameVersion;
    }
    if (m.length > 1) {
      // The same cell apart from its version: codec, settings profile and repetition (`v26.7-lz4-two-threads-r2`).
      const sameTail = m.filter((b) => keyTail(b.cell_key) === keyTail(c.cell_key));
      if (sameTail.length) m = sameTail;
    }
    if (m.length > 1) {
      const sameRep = m.filter((b) => repetitionOf(b.cell_key) === repetitionOf(c.cell_key));
      if (sameRep.length) m = sameRep;
    }
    if (m.length > 1) {
      unpaired.push({
        cell: c.cell_key,
        reason: `ambiguous: ${m.length} baseline cells match (${m.map((b) => b.cell_key).join(', ')})`,
      });
      continue;
    }
    pairs.push({ baseline: m[0], new: c, differences: cellDifferences(m[0], c) });
  }
  return { pairs, unpaired };
}

// ---------------------------------------------------------------------------------------------
// The record

/** Everything {@link compareRuns} needs; samples are all of a run's rows (filtered here). */
export interface CompareRunsInput {
  comparisonId: string;
  runId: string;
  baselineRunId: string;
  /** e.g. `run <id>`, `previous successful run of schedule <id>`, `version 24.8 in this matrix`. */
  baselineChosenBy: string;
  mode: PairMode;
  baselineCells: StoredCell[];
  newCells: StoredCell[];
  baselineSamples: StoredSample[];
  newSamples: StoredSample[];
  /** The runs' `figures` rows (schema 4), for the work comparison beside each time verdict; without them no `work`. */
  baselineFigures?: StoredFigure[];
  newFigures?: StoredFigure[];
  options: {
    minChange: number;
    unstableAbove: number;
    minRuns: number;
    confirmRounds: number;
    resamples?: number;
    confidence?: number;
    seed?: number;
  };
  /** ISO time. */
  createdAt: string;
}

/** The id of a query in `flagged` / `confirmed`: `Q3`, or `Q5@index` for the skip-index phase. */
export function flagId(q: { query_id: string; phase: 'baseline' | 'index' }): string {
  const id = q.query_id.toUpperCase();
  return q.phase === 'index' ? `${id}@index` : id;
}

/** A 31-bit seed from a string (FNV-1a), for a record whose spec gives none. */
export function seedOf(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return (h >>> 0) & 0x7fffffff;
}

/** The method sentence of a record. */
export function methodText(o: {
  resamples: number;
  confidence: number;
  minChange: number;
  unstableAbove: number;
  minRuns: number;
}): string {
  return (
    `ratio of medians new/baseline over the valid warm runs, percentile bootstrap ${o.resamples} resamples (each side resampled independently), ${pct(o.confidence)} CI; ` +
    `threshold: 95th pct of |log ratio of medians| over ${DEFAULT_SPLITS} random half-splits of the baseline's warm runs, at least ${pct(o.minChange)}; ` +
    `regression when the CI is entirely above 1 + threshold, improvement when entirely below 1/(1 + threshold); unstable below ${o.minRuns} runs a side or a baseline noise above ${pct(o.unstableAbove)}`
  );
}

/** Which figure to compare for one query: server elapsed when every kept run on both sides has it (resolving ≤ 10 % of the fastest), else wall. */
export function chooseFigure(
  kept: readonly Pick<StoredSample, 'server_elapsed_ms' | 'server_elapsed_source'>[],
): 'server_elapsed_ms' | 'wall_ms' {
  if (!kept.length || !kept.every((s) => s.server_elapsed_ms !== null)) return 'wall_ms';
  const smallest = Math.min(...kept.map((s) => s.server_elapsed_ms as number));
  const res = Math.max(
    0,
    ...kept.map((s) => (SERVER_TIME_RESOLUTION_MS as Record<string, number>)[s.server_elapsed_source ?? ''] ?? 0),
  );
  return res > MAX_RESOLUTION_SHARE * smallest ? 'wall_ms' : 'server_elapsed_ms';
}

const isKept = (s: StoredSample) => s.kind === 'warm' && s.valid;

/** The run's verdict from its queries' final verdicts: regression, else improvement, else unstable, else unchanged (`unstable` with no pair at all). */
export function runVerdict(finals: readonly Verdict[], pairs: number): RunVerdict {
  if (pairs === 0) return 'unstable';
  for (const v of ['regression', 'improvement', 'unstable'] as const) if (finals.includes(v)) return v;
  return 'unchanged';
}

const allQueries = (r: Pick<ComparisonRecord, 'pairs'>) => r.pairs.flatMap((p) => p.queries);

/**
 * The comparison record's first pass: cells paired ({@link pairCells}), every (phase, query) of a
 * pair compared with {@link compareSamples} on its valid warm runs, `flagged` the regressions and
 * improvements (ids from {@link flagId}, distinct across pairs), `final` the first-pass verdict
 * (until {@link applyConfirmation}), `confirm` absent. Seeded per pair and query from `options.seed`
 * (default: from the two run ids), so it is reproducible.
 */
export function compareRuns(input: CompareRunsInput): ComparisonRecord {
  const o = input.options;
  const seed = o.seed ?? seedOf(`${input.baselineRunId}|${input.runId}`);
  const resamples = o.resamples ?? DEFAULT_RESAMPLES;
  const confidence = o.confidence ?? DEFAULT_CONFIDENCE;
  const { pairs, unpaired } = pairCells(input.baselineCells, input.newCells, input.mode);
  const cellPairs: CellPair[] = pairs.map((p) => {
    const pairKey = `${p.baseline.cell_key}→${p.new.cell_key}`;
    const bs = input.baselineSamples.filter(
      (s) => s.cell_key === p.baseline.cell_key && s.run_id === p.baseline.run_id,
    );
    const ns = input.newSamples.filter((s) => s.cell_key === p.new.cell_key && s.run_id === p.new.run_id);
    const keys = new Map<string, { query_id: string; phase: 'baseline' | 'index' }>();
    for (const s of [...bs, ...ns]) keys.set(`${s.phase}\u0000${s.query_id}`, { query_id: s.query_id, phase: s.phase });
    const ordered = [...keys.values()].sort((a, b) =>
      a.phase === b.phase
        ? a.query_id.localeCompare(b.query_id, 'en', { numeric: true })
        : a.phase === 'baseline'
          ? -1
          : 1,
    );
    const queries: QueryComparison[] = ordered.map((q) => {
      const kb = bs.filter((s) => s.phase === q.phase && s.query_id === q.query_id && isKept(s));
      const kn = ns.filter((s) => s.phase === q.phase && s.query_id === q.query_id && isKept(s));
      const figure = chooseFigure([...kb, ...kn]);
      const c = compareSamples(
        kb.map((s) => s[figure] as number),
        kn.map((s) => s[figure] as number),
        {
          ...o,
          resamples,
          confidence,
          seed: `${seed}:${pairKey}:${flagId(q)}`,
          // The threshold is the baseline's own: the same for a baseline cell's query whatever it is compared with.
          noiseSeed: `${p.baseline.run_id}:${p.baseline.cell_key}:${flagId(q)}`,
        },
      );
      const mine = (fs: StoredFigure[] | undefined, run: string, cell: string) =>
        (fs ?? []).filter(
          (f) => f.run_id === run && f.cell_key === cell && f.phase === q.phase && f.query_id === q.query_id,
        );
      const work =
        input.baselineFigures && input.newFigures
          ? compareWork(
              mine(input.baselineFigures, p.baseline.run_id, p.baseline.cell_key),
              mine(input.newFigures, p.new.run_id, p.new.cell_key),
            )
          : undefined;
      return {
        query_id: q.query_id,
        phase: q.phase,
        figure,
        ...c,
        final: c.verdict,
        ...(work ? { work: { ...work, label: workLabel(c.verdict, work) } } : {}),
      };
    });
    return {
      pair_key: pairKey,
      baseline_run: p.baseline.run_id,
      baseline_cell: p.baseline.cell_key,
      new_run: p.new.run_id,
      new_cell: p.new.cell_key,
      differences: p.differences,
      queries,
    };
  });
  const flagged = [
    ...new Set(
      cellPairs.flatMap((p) =>
        p.queries.filter((q) => q.verdict === 'regression' || q.verdict === 'improvement').map(flagId),
      ),
    ),
  ];
  return {
    schema: COMPARISON_SCHEMA,
    comparison_id: input.comparisonId,
    run_id: input.runId,
    baseline_run_id: input.baselineRunId,
    baseline_chosen_by: input.baselineChosenBy,
    method: methodText({
      resamples,
      confidence,
      minChange: o.minChange,
      unstableAbove: o.unstableAbove,
      minRuns: o.minRuns,
    }),
    options: {
      minChange: o.minChange,
      unstableAbove: o.unstableAbove,
      confidence,
      resamples,
      minRuns: o.minRuns,
      confirmRounds: o.confirmRounds,
      seed,
    },
    pairs: cellPairs,
    unpaired,
    flagged,
    confirmed: [],
    verdict: runVerdict(
      cellPairs.flatMap((p) => p.queries.map((q) => q.final)),
      cellPairs.length,
    ),
    created_at: input.createdAt,
  };
}

/** The confirming re-run's samples of one pair: per flagged query, the interleaved A, B … times (ms) of each side (the `confirmComparison` workflow's outcome per pair). */
export type ConfirmSamples = ConfirmOutcome;

/** The fields of a measured run {@link confirmSamplesOf} reads (a `StoredSample`, or a cell's `RunSample` with its query and phase). */
export type ConfirmRun = Pick<
  StoredSample,
  'query_id' | 'phase' | 'kind' | 'valid' | 'server_elapsed_ms' | 'server_elapsed_source' | 'wall_ms'
>;

/**
 * The re-run samples of one pair for {@link applyConfirmation}, from the interleaved re-run's
 * measured runs on each side: per flagged query, its valid warm runs (`kind` `warm`, `valid`), in
 * ms of the same figure on both sides by the rule of {@link chooseFigure}. A query without runs gets
 * empty lists (its re-run is then `unstable`).
 */
export function confirmSamplesOf(
  pairKey: string,
  queries: readonly { query_id: string; phase: 'baseline' | 'index' }[],
  baseline: readonly ConfirmRun[],
  candidate: readonly ConfirmRun[],
): ConfirmSamples {
  return {
    pairKey,
    samples: queries.map((q) => {
      const pick = (xs: readonly ConfirmRun[]) =>
        xs.filter((s) => s.query_id === q.query_id && s.phase === q.phase && s.kind === 'warm' && s.valid);
      const [b, n] = [pick(baseline), pick(candidate)];
      const figure = chooseFigure([...b, ...n]);
      return {
        query_id: q.query_id,
        phase: q.phase,
        baseline_ms: b.map((s) => s[figure] as number),
        new_ms: n.map((s) => s[figure] as number),
        figure,
      };
    }),
  };
}

/** The flagged queries of a record, per pair (what the confirming re-run must measure). */
export function flaggedQueries(record: ComparisonRecord): { pair: CellPair; queries: QueryComparison[] }[] {
  return record.pairs
    .map((pair) => ({
      pair,
      queries: pair.queries.filter((q) => q.verdict === 'regression' || q.verdict === 'improvement'),
    }))
    .filter((x) => x.queries.length > 0);
}

/** A confirming re-run's samples of one query (ms): its figure's name and, for cold runs, `kind`. */
export interface RerunSamples {
  baseline_ms: readonly number[];
  new_ms: readonly number[];
  figure: 'server_elapsed_ms' | 'wall_ms';
  /** `cold` when the re-run measured cold runs (absent: warm). */
  kind?: 'cold';
}

/**
 * Judge a confirming re-run against its first pass's direction, the one rule `chbench compare`
 * and the bisect share: `compareSamples` on the re-run's samples (threshold learned from its
 * baseline side); `confirmed` when it gives the same direction; `final` the first pass's verdict
 * when confirmed, `unstable` when the re-run could not decide (too few runs or too noisy), else
 * `unchanged`. `rounds` = the larger side's sample count. Pure and deterministic given `opts.seed`.
 */
export function judgeRerun(
  s: RerunSamples,
  firstPass: 'regression' | 'improvement',
  opts: CompareOptions,
): {
  confirm: Pick<SampleComparison, 'n_baseline' | 'n_new' | 'ratio' | 'ci_low' | 'ci_high' | 'threshold' | 'verdict'> & {
    rounds: number;
    confirmed: boolean;
    reason: string;
  };
  final: SampleComparison['verdict'];
} {
  const c = compareSamples(s.baseline_ms, s.new_ms, opts);
  const confirmed = c.verdict === firstPass;
  const what = `${s.kind === 'cold' ? 'cold runs, ' : ''}${s.figure === 'server_elapsed_ms' ? 'server-side elapsed' : 'client wall time'}`;
  return {
    confirm: {
      rounds: Math.max(s.baseline_ms.length, s.new_ms.length),
      n_baseline: c.n_baseline,
      n_new: c.n_new,
      ratio: c.ratio,
      ci_low: c.ci_low,
      ci_high: c.ci_high,
      threshold: c.threshold,
      verdict: c.verdict,
      confirmed,
      reason: `re-run (${what}, interleaved): ${c.reason}; ${confirmed ? 'confirms' : 'does not confirm'} the first pass's ${firstPass}`,
    },
    final: confirmed ? firstPass : c.verdict === 'unstable' ? 'unstable' : 'unchanged',
  };
}

/**
 * Apply the confirming re-run: for each flagged query with re-run samples, {@link compareSamples}
 * on them (threshold learned from the re-run's baseline side), `confirm` set, `confirmed` when the
 * re-run gives the same direction; `final` is the first pass's verdict when confirmed, `unstable`
 * when the re-run could not decide (too few runs or too noisy), else `unchanged`. A flagged query
 * without re-run samples keeps its first-pass verdict (unconfirmed) and is named in `confirm_error`;
 * `confirmError` (the re-run failed) leaves every first-pass flag standing. Recomputes `confirmed`
 * and the run `verdict`. Returns a new record.
 */
export function applyConfirmation(
  record: ComparisonRecord,
  confirm: readonly ConfirmSamples[],
  confirmError?: string,
): ComparisonRecord {
  const out = structuredClone(record) as ComparisonRecord;
  const missing: string[] = [];
  for (const pair of out.pairs)
    for (const q of pair.queries) {
      if (q.verdict !== 'regression' && q.verdict !== 'improvement') continue;
      if (confirmError) continue;
      const s = confirm
        .find((c) => c.pairKey === pair.pair_key)
        ?.samples.find((x) => x.query_id === q.query_id && x.phase === q.phase);
      if (!s) {
        missing.push(`${pair.pair_key} ${flagId(q)}`);
        continue;
      }
      const r = judgeRerun(s, q.verdict, {
        minChange: out.options.minChange,
        unstableAbove: out.options.unstableAbove,
        minRuns: out.options.minRuns,
        resamples: out.options.resamples,
        confidence: out.options.confidence,
        seed: `${out.options.seed}:confirm:${pair.pair_key}:${flagId(q)}`,
      });
      q.confirm = r.confirm;
      q.final = r.final;
    }
  const errors = [
    confirmError,
    missing.length ? `no re-run samples for ${missing.join(', ')} (first-pass verdict stands, unconfirmed)` : undefined,
  ].filter(Boolean);
  if (errors.length) out.confirm_error = errors.join('; ');
  else delete out.confirm_error;
  out.confirmed = [...new Set(out.pairs.flatMap((p) => p.queries.filter((q) => q.confirm?.confirmed).map(flagId)))];
  out.verdict = runVerdict(
    allQueries(out).map((q) => q.final),
    out.pairs.length,
  );
  return out;
}

// ---------------------------------------------------------------------------------------------
// Power

/** Standard normal draws (Box–Muller) from a seeded uniform generator. */
function normal(rng: () => number): number {
  let u = 0;
  while (u === 0) u = rng();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng());
}

/** `n` lognormal times around `medianMs`: medianMs·e^(sigma·Z). sigma 0.05 ≈ 5 % run-to-run noise. */
export function lognormalSamples(rng: () => number, n: number, medianMs: number, sigma: number): number[] {
  return Array.from({ length: n }, () => medianMs * Math.exp(sigma * normal(rng)));
}

/** What {@link simulateDetection} measured. */
export interface PowerFigure {
  n: number;
  sigma: number;
  trueRatio: number;
  seeds: number;
  /** Seeds whose verdict was regression / improvement / unchanged / unstable. */
  counts: Record<Verdict, number>;
  /** Share of seeds flagged in the true direction (for trueRatio 1: share flagged at all, the false-positive rate). */
  rate: number;
}

/**
 * The test's power by simulation: for each of `seeds` seeds, `n` baseline and `n` new samples of
 * lognormal noise `sigma` around 100 ms and 100·trueRatio ms, compared with {@link compareSamples}.
 * Deterministic.
 */
export function simulateDetection(p: {
  n: number;
  sigma: number;
  trueRatio: number;
  seeds: number;
  options: CompareOptions;
}): PowerFigure {
  const counts: Record<Verdict, number> = { regression: 0, improvement: 0, unchanged: 0, unstable: 0 };
  for (let s = 0; s < p.seeds; s++) {
    const rng = seedrandom(`power:${p.n}:${p.sigma}:${p.trueRatio}:${s}`);
    const b = lognormalSamples(rng, p.n, 100, p.sigma);
    const c = lognormalSamples(rng, p.n, 100 * p.trueRatio, p.sigma);
    counts[compareSamples(b, c, { ...p.options, seed: `power:${s}` }).verdict]++;
  }
  const hits =
    p.trueRatio > 1 ? counts.regression : p.trueRatio < 1 ? counts.improvement : counts.regression + counts.improvement;
  return { n: p.n, sigma: p.sigma, trueRatio: p.trueRatio, seeds: p.seeds, counts, rate: hits / p.seeds };
}
