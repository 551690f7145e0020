/**
 * Verdicts on every axis of a matrix (issue "Verdicts that hold"): which cells are compared with which
 * (the axis references and the A/A control), each comparison's verdict — `faster | slower | unchanged |
 * inconclusive | not comparable` — with its interval and minimal detectable effect, the false-discovery
 * rule over the whole run, the confirming re-run's outcome applied, and the Decision rows. Pure: the
 * inputs are plain figures taken from the cells' records (`src/results/verdict-cells.ts`), the
 * statistics are `verdict-stats.ts`.
 *
 * ## References
 * versions: `baseline.version` when the spec compares with one, else the oldest; codecs: the first
 * listed; settings profiles: the first; defaults: `shipped` when listed, else the first; repetitions:
 * `r1`. A cell is compared on each axis where it differs from the reference value with the cell that
 * has the reference value on that axis and everything else equal; a cell that differs from the run's
 * reference cell on several axes is also compared with it (axis `setup`), for the Decision.
 *
 * ## The A/A control
 * The reference cell measured twice (`…-r2`, added by the matrix when `verdicts.control`), plus every
 * `rN` of a repeated matrix against its `r1`: their log ratios give the between-server-start noise
 * every interval includes (`betweenNoise`). The control's own pairs are judged with the noise learned
 * from the others (leave one out); their faster/slower count is the run's false-move count.
 *
 * ## Verdicts
 * Times (warm, cold; ms, lower is better) and ingest (rows/s, higher is better), per comparison:
 * - `not comparable`: a side failed or has no valid runs, the results' values differ, or a query failed on one side;
 * - `unchanged`: the 95 % interval lies inside [1/(1+δ), 1+δ];
 * - `faster` / `slower`: a discovery under Benjamini–Hochberg at `fdr` over all the run's time comparisons
 *   (its interval, widened to the false-coverage level 1 − R·q/m, excludes 1) and the ratio outside ±δ;
 *   then confirmed by the interleaved re-run (or left `inconclusive`, withdrawn);
 * - `inconclusive`: neither, with what would decide it. The adaptive step measures an inconclusive time
 *   comparison again in the same interleaved re-run (within `confirmPairs`) and judges it on both passes
 *   combined (`applyRemeasure`); One run per side (the default single cold run) never
 *   gives a verdict. Without any A/A pair, nothing is called faster or slower.
 * Disk (bytes on disk, `system.parts`): the exact ratio, `larger` / `smaller` outside ±δ, else `unchanged`.
 */
import type { ConfirmOutcome, FlaggedPair } from '../schema/comparison';
import type {
  DecisionRow,
  VerdictAxis,
  VerdictControl,
  VerdictEntry,
  VerdictPhase,
  VerdictSpec,
  VerdictsRecord,
} from '../schema/verdicts';
import { VERDICT_DEFAULTS, VERDICTS_SCHEMA } from '../schema/verdicts';
import { axisReferences, type MatrixAxes, type MatrixAxis } from '../schema/matrix';
import { compareVersions } from '../schema/version';
import {
  benjaminiHochberg,
  betweenNoise,
  combineIntervals,
  dispersion,
  inflate,
  type Dispersion,
  MAX_RUNS_TO_DECIDE,
  logRatio,
  median,
  ratioInterval,
  runsToDecide,
  widen,
  type BetweenNoise,
  type LogRatio,
} from './verdict-stats';

/** A cell's place in the matrix. `defaults`: `shipped` or the pinned version; `profile`: null without a settings axis. */
export interface VerdictCoords {
  version: string;
  codec: string;
  profile: string | null;
  defaults: string;
  repetition: number;
}

/** One query phase's valid runs on one cell. */
export interface RunSet {
  /** Server-side elapsed per valid run (ms; null where the server gave none). */
  server: (number | null)[];
  /** Client wall time per valid run (ms). */
  wall: number[];
  /** Median read_rows of the valid runs; null when unknown. */
  readRows: number | null;
  /**
   * Set when the host disturbed these runs: other processes used a share of the host's CPU during the
   * query's window (`/proc/stat` busy minus the engine's own CPU, `metrics-end.json` `local_bottleneck`);
   * the text gives the figures. Such runs never give a verdict (see {@link disturbanceOf}).
   */
  disturbed?: string;
}

/** A query of a cell: its cold and warm runs, its result hash, and its failure. */
export interface VerdictQuery {
  cold: RunSet;
  warm: RunSet;
  /** Hash of the result's values (comparable across versions), or null when none is known. */
  resultHash: string | null;
  /** Whether the workload says the result is deterministic (hashes are compared only then). */
  deterministic: boolean;
  /** Set when a run of the query failed on the server. */
  failed?: string;
}

/** A cell as the verdicts see it. */
export interface VerdictCell {
  key: string;
  coords: VerdictCoords;
  /** `succeeded`, `failed`, `skipped`, … */
  status: string;
  error?: string;
  /** By query key: `q3`, or `q5@index` for the runs after the skip index. */
  queries: Record<string, VerdictQuery>;
  /** Load rows/s (`load.json`: rows / client wall time), null when not loaded. */
  ingestRowsPerS: number | null;
  /** `storage.json` bytes_on_disk (system.parts, active parts), null when unknown. */
  bytesOnDisk: number | null;
}

const AXIS_KEY: Record<MatrixAxis, keyof VerdictCoords> = {
  version: 'version',
  codec: 'codec',
  profile: 'profile',
  defaults: 'defaults',
};

/** The coordinates of the run's reference cell (every axis at its reference value, repetition 1). */
export function referenceCoords(m: MatrixAxes): VerdictCoords {
  const refs = axisReferences(m);
  return {
    version: refs.version ?? m.versions[0]!,
    codec: refs.codec ?? m.codecs[0]!,
    profile: refs.profile ?? m.profiles[0] ?? null,
    defaults: refs.defaults ?? m.defaults[0] ?? 'shipped',
    repetition: 1,
  };
}

const sameCoords = (a: VerdictCoords, b: VerdictCoords) =>
  a.version === b.version &&
  a.codec === b.codec &&
  a.profile === b.profile &&
  a.defaults === b.defaults &&
  a.repetition === b.repetition;

/** A planned comparison of two cells. */
export interface PlannedPair {
  axis: VerdictAxis;
  reference: VerdictCell;
  cell: VerdictCell;
}

/**
 * Which cells are compared: per axis, every cell with the reference value's cell; `version-step` every
 * version with the next older version of the matrix (same codec, profile, defaults); `setup` for a cell
 * that differs from the run's reference cell on more than one axis; `repetition` every `rN` with its
 * `r1` (the A/A pairs). Each (reference, cell) pair once, the first axis that names it.
 */
export function planPairs(cells: readonly VerdictCell[], m: MatrixAxes): PlannedPair[] {
  const refs = axisReferences(m);
  const root = referenceCoords(m);
  const find = (c: VerdictCoords) => cells.find((x) => sameCoords(x.coords, c));
  const out: PlannedPair[] = [];
  const seen = new Set<string>();
  const add = (axis: VerdictAxis, reference: VerdictCell | undefined, cell: VerdictCell) => {
    if (!reference || reference === cell) return;
    const k = `${reference.key}→${cell.key}`;
    if (seen.has(k)) return;
    seen.add(k);
    out.push({ axis, reference, cell });
  };
  for (const c of cells) {
    if (c.coords.repetition > 1) {
      add('repetition', find({ ...c.coords, repetition: 1 }), c);
      continue;
    }
    const differs: VerdictAxis[] = [];
    for (const [axis, ref] of Object.entries(refs) as [MatrixAxis, string][]) {
      const key = AXIS_KEY[axis];
      if ((c.coords[key] ?? '') === ref) continue;
      differs.push(axis);
      add(axis, find({ ...c.coords, [key]: ref }), c);
    }
    if (differs.length > 1) add('setup', find(root), c);
  }
  // Adjacent versions (the "What differs" view), after every axis pair.
  const versions = [...m.versions].sort(compareVersions);
  for (const c of cells) {
    const i = versions.indexOf(c.coords.version);
    if (c.coords.repetition === 1 && i > 0) add('version-step', find({ ...c.coords, version: versions[i - 1]! }), c);
  }
  return out;
}

/** The figure both sides of a time comparison use: server-side when every kept run on both sides has it. */
function figureOf(a: RunSet, b: RunSet): 'server_elapsed_ms' | 'wall_ms' {
  const all = [...a.server, ...b.server];
  return all.length && all.every((x) => x !== null && x > 0) ? 'server_elapsed_ms' : 'wall_ms';
}
const valuesOf = (r: RunSet, f: 'server_elapsed_ms' | 'wall_ms') =>
  f === 'server_elapsed_ms' ? (r.server as number[]) : r.wall;

const fmtRatio = (x: number | null) => (x === null ? 'n/a' : `${x.toFixed(x >= 10 ? 1 : 3)}×`);
const fmtIv = (lo: number | null, hi: number | null) =>
  lo === null || hi === null ? 'no interval' : `[${lo.toFixed(3)}, ${hi.toFixed(3)}]`;
const pct = (x: number) => `${(x * 100).toFixed(x < 0.1 ? 1 : 0)} %`;
const int = (x: number) => Math.round(x).toLocaleString('en-US');

/** A time comparison before the false-discovery rule. */
interface Pending {
  entry: VerdictEntry;
  lr: LogRatio | null;
  noise: BetweenNoise | null;
  higherIsBetter: boolean;
  /**
   * Set when the comparison's units are whole cells (a repeated matrix: every repetition of each setup): `lr.within`
   * is then the variance of the mean of the cells' log medians, between-start noise included, and no A/A noise is added.
   */
  units?: { ref: number; cell: number };
}

/**
 * A comparison of two setups of a repeated matrix (`matrix.repeat` ≥ 2): each repetition is one unit (one
 * server start), its figure the median of its valid runs; `d` = mean(log unit, cell) − mean(log unit, reference),
 * its variance Welch's over the units' own spread (within and between starts at once). Null when a side has
 * fewer than 2 units with runs.
 */
export function setupLogRatio(
  ref: readonly (readonly number[])[],
  cell: readonly (readonly number[])[],
): LogRatio | null {
  const units = (xs: readonly (readonly number[])[]) =>
    xs.filter((r) => r.length && r.every((x) => x > 0)).map((r) => Math.log(median(r)));
  const a = units(ref);
  const b = units(cell);
  if (a.length < 2 || b.length < 2) return null;
  const mean = (xs: number[]) => xs.reduce((x, y) => x + y, 0) / xs.length;
  const varOf = (xs: number[]) => Math.max(xs.reduce((x, y) => x + (y - mean(xs)) ** 2, 0) / (xs.length - 1), 1e-6);
  const va = varOf(a) / a.length;
  const vb = varOf(b) / b.length;
  const within = va + vb;
  return {
    d: mean(b) - mean(a),
    within,
    withinDf: within ** 2 / (va ** 2 / (a.length - 1) + vb ** 2 / (b.length - 1)),
    n: { ref: a.length, cell: b.length },
    s2: { ref: null, cell: null },
  };
}

/** The work counters of a query compared exactly. */
function workText(a: RunSet, b: RunSet): string | undefined {
  if (a.readRows === null || b.readRows === null) return undefined;
  return a.readRows === b.readRows
    ? `same ${int(a.readRows)} rows read`
    : `${int(a.readRows)} → ${int(b.readRows)} rows read`;
}

/** First-pass figures of one time comparison (warm or cold runs of a query). */
function timeComparison(
  base: Omit<VerdictEntry, 'verdict' | 'ratio' | 'low' | 'high' | 'mde' | 'runs' | 'reason' | 'confirmed'>,
  a: RunSet,
  b: RunSet,
  noise: BetweenNoise | null,
): Pending {
  const figure = figureOf(a, b);
  const ra = valuesOf(a, figure);
  const rb = valuesOf(b, figure);
  const entry: VerdictEntry = {
    ...base,
    figure,
    verdict: 'inconclusive',
    ratio: null,
    low: null,
    high: null,
    mde: null,
    runs: { reference: ra.length, cell: rb.length },
    confirmed: null,
    reason: '',
    ...(workText(a, b) ? { work: workText(a, b)! } : {}),
  };
  if (!ra.length || !rb.length) {
    return {
      entry: {
        ...entry,
        verdict: 'not comparable',
        reason: `no valid ${base.phase} runs on ${!ra.length ? 'the reference' : 'this cell'}`,
      },
      lr: null,
      noise,
      higherIsBetter: false,
    };
  }
  const disturbed = [a.disturbed, b.disturbed].filter((x): x is string => !!x);
  return {
    entry: { ...entry, ...(disturbed.length ? { disturbed: disturbed.join('; ') } : {}) },
    lr: logRatio(ra, rb),
    noise,
    higherIsBetter: false,
  };
}

/** Options of {@link judgeMatrix}. */
export interface JudgeInput {
  runId: string;
  cells: VerdictCell[];
  axes: MatrixAxes;
  options: VerdictSpec;
  createdAt: string;
}

/** A/A pairs of a phase: the log ratios of the control pairs, by (pair, query) key. */
interface ControlPair {
  key: string;
  d: number;
  within: number | null;
}

/** The control pairs' log ratios for one phase (warm/cold: every query; ingest: the load). */
function controlPairs(pairs: readonly PlannedPair[], phase: 'warm' | 'cold' | 'ingest'): ControlPair[] {
  const out: ControlPair[] = [];
  for (const p of pairs) {
    if (p.axis !== 'repetition' || p.reference.status !== 'succeeded' || p.cell.status !== 'succeeded') continue;
    if (phase === 'ingest') {
      const a = p.reference.ingestRowsPerS;
      const b = p.cell.ingestRowsPerS;
      if (a && b) out.push({ key: `${p.cell.key}|ingest`, d: Math.log(b / a), within: null });
      continue;
    }
    for (const [q, qa] of Object.entries(p.reference.queries)) {
      const qb = p.cell.queries[q];
      if (!qb || qa.failed || qb.failed) continue;
      const f = figureOf(qa[phase], qb[phase]);
      const ra = valuesOf(qa[phase], f);
      const rb = valuesOf(qb[phase], f);
      if (!ra.length || !rb.length) continue;
      const lr = logRatio(ra, rb);
      out.push({ key: `${p.cell.key}|${q}`, d: lr.d, within: lr.within });
    }
  }
  return out;
}

/** The noise of a phase with one control pair left out (the control's own verdicts). */
function noiseWithout(all: readonly ControlPair[], key?: string): BetweenNoise | null {
  return betweenNoise(key ? all.filter((p) => p.key !== key) : all);
}

/**
 * First pass over a run's cells: plan the pairs, compare every query (cold, warm), ingest and disk,
 * apply the false-discovery rule, judge the A/A control, and build the Decision. Faster/slower entries
 * carry `confirmed: false` until {@link applyVerdictConfirmation} sees their re-run ("not yet confirmed").
 */
export function judgeMatrix(input: JudgeInput): VerdictsRecord {
  const { cells, axes, options } = input;
  const delta = options.equivalence;
  const refs = axisReferences(axes);
  const root = cells.find((c) => sameCoords(c.coords, referenceCoords(axes)));
  const pairs = planPairs(cells, axes);
  const notes: string[] = [];
  const noise = {
    warm: controlPairs(pairs, 'warm'),
    cold: controlPairs(pairs, 'cold'),
    ingest: controlPairs(pairs, 'ingest'),
  };
  if (!pairs.some((p) => p.axis === 'repetition'))
    notes.push(
      'no A/A control in this run (verdicts.control false and no matrix.repeat): the intervals hold only the runs within each cell, and nothing is called faster or slower',
    );

  // A repeated matrix compares setups: every repetition of a setup is one unit (see setupLogRatio).
  const setupOf = (c: VerdictCell) =>
    axes.repeat >= 2 && c.coords.repetition === 1
      ? cells.filter((x) => x.status === 'succeeded' && sameCoords({ ...x.coords, repetition: 1 }, c.coords))
      : undefined;
  const pending: Pending[] = [];
  const fixed: VerdictEntry[] = [];
  for (const p of pairs) {
    const base = { axis: p.axis, reference: p.reference.key, cell: p.cell.key };
    const failedSide = [p.reference, p.cell].find((c) => c.status !== 'succeeded');
    const queryKeys = [...new Set([...Object.keys(p.reference.queries), ...Object.keys(p.cell.queries)])].sort((a, b) =>
      a.localeCompare(b, 'en', { numeric: true }),
    );
    if (failedSide) {
      const why = `${failedSide.key} ${failedSide.status}${failedSide.error ? `: ${failedSide.error}` : ''}`;
      for (const query of [
        ...queryKeys.flatMap(
          (q) =>
            [
              [q, 'cold'],
              [q, 'warm'],
            ] as const,
        ),
        [null, 'ingest'] as const,
        [null, 'disk'] as const,
      ])
        fixed.push(notComparable(base, query[0], query[1], why));
      continue;
    }
    for (const q of queryKeys) {
      const qa = p.reference.queries[q];
      const qb = p.cell.queries[q];
      for (const phase of ['cold', 'warm'] as const) {
        const b = { ...base, query: q, phase };
        if (!qa || !qb) {
          fixed.push(notComparable(base, q, phase, `${q} was not measured on ${!qa ? p.reference.key : p.cell.key}`));
          continue;
        }
        if (qa.failed || qb.failed) {
          fixed.push(
            notComparable(
              base,
              q,
              phase,
              `${q} failed on ${qa.failed ? p.reference.key : p.cell.key}: ${qa.failed ?? qb.failed}`,
            ),
          );
          continue;
        }
        if (qa.deterministic && qb.deterministic && qa.resultHash && qb.resultHash && qa.resultHash !== qb.resultHash) {
          fixed.push(
            notComparable(
              base,
              q,
              phase,
              `results differ: the values' hashes of ${p.reference.key} and ${p.cell.key} are not equal`,
            ),
          );
          continue;
        }
        const own =
          p.axis === 'repetition' ? noiseWithout(noise[phase], `${p.cell.key}|${q}`) : noiseWithout(noise[phase]);
        const t = timeComparison(b, qa[phase], qb[phase], own);
        const [ga, gb] = p.axis === 'repetition' ? [undefined, undefined] : [setupOf(p.reference), setupOf(p.cell)];
        if (t.lr && ga && gb) {
          const f = t.entry.figure as 'server_elapsed_ms' | 'wall_ms';
          const unitsOf = (g: VerdictCell[]) =>
            g.flatMap((c) => (c.queries[q] && !c.queries[q]!.failed ? [valuesOf(c.queries[q]![phase], f)] : []));
          const lr = setupLogRatio(unitsOf(ga), unitsOf(gb));
          if (lr) {
            pending.push({ ...t, lr, noise: null, units: { ref: lr.n.ref, cell: lr.n.cell } });
            continue;
          }
        }
        if (t.lr) pending.push(t);
        else fixed.push(t.entry);
      }
    }
    // Ingest: one load per cell; the between-start noise of the control's loads is its whole interval.
    const ia = p.reference.ingestRowsPerS;
    const ib = p.cell.ingestRowsPerS;
    if (ia && ib) {
      const own =
        p.axis === 'repetition' ? noiseWithout(noise.ingest, `${p.cell.key}|ingest`) : noiseWithout(noise.ingest);
      pending.push({
        entry: {
          ...base,
          query: null,
          phase: 'ingest',
          figure: 'rows_per_s',
          verdict: 'inconclusive',
          ratio: null,
          low: null,
          high: null,
          mde: null,
          runs: { reference: 1, cell: 1 },
          confirmed: null,
          reason: '',
        },
        lr: logRatio([ia], [ib]),
        noise: own,
        higherIsBetter: true,
      });
      // A repeated matrix: every repetition's load is one unit.
      const [ga, gb] = p.axis === 'repetition' ? [undefined, undefined] : [setupOf(p.reference), setupOf(p.cell)];
      const loads = (g: VerdictCell[]) => g.flatMap((c) => (c.ingestRowsPerS ? [[c.ingestRowsPerS]] : []));
      const lr = ga && gb ? setupLogRatio(loads(ga), loads(gb)) : null;
      if (lr)
        Object.assign(pending[pending.length - 1]!, { lr, noise: null, units: { ref: lr.n.ref, cell: lr.n.cell } });
    } else fixed.push(notComparable(base, null, 'ingest', `no load figure on ${!ia ? p.reference.key : p.cell.key}`));
    fixed.push(diskEntry(base, p.reference.bytesOnDisk, p.cell.bytesOnDisk, delta));
  }

  // The false-discovery rule over every time and ingest comparison of the run except the A/A control.
  const judged = pending.map((x) => ({ x, iv: x.lr ? ratioInterval(x.lr, x.noise) : null }));
  // Disturbed runs never give a verdict, so they take no part in the false-discovery rule either.
  const family = judged.filter((j) => j.x.entry.axis !== 'repetition' && j.iv && !j.x.entry.disturbed);
  const bh = benjaminiHochberg(
    family.map((j) => j.iv!.p),
    options.fdr,
  );
  const selected = new Set(family.filter((_, i) => bh.rejected[i]).map((j) => j.x));
  const fcr = family.length ? 1 - (Math.max(bh.count, 1) * options.fdr) / family.length : 0.95;
  // The A/A control is judged by the same rule over its own pairs (Benjamini–Hochberg at fdr): on a clean run
  // it moves nowhere with probability ≥ 1 − fdr, so any move is an alarm.
  const controlFamily = judged.filter((j) => j.x.entry.axis === 'repetition' && j.iv);
  const cbh = benjaminiHochberg(
    controlFamily.map((j) => j.iv!.p),
    options.fdr,
  );
  const controlSelected = new Set(controlFamily.filter((_, i) => cbh.rejected[i]).map((j) => j.x));
  const cfcr = controlFamily.length ? 1 - (Math.max(cbh.count, 1) * options.fdr) / controlFamily.length : 0.95;
  const entries: VerdictEntry[] = [...fixed];
  for (const { x, iv } of judged) {
    const control = x.entry.axis === 'repetition';
    const discovery = control ? controlSelected.has(x) : selected.has(x);
    entries.push(judgeOne(x, iv, discovery, control ? cfcr : fcr, delta, options));
  }
  const order = (e: VerdictEntry) => pairs.findIndex((p) => p.reference.key === e.reference && p.cell.key === e.cell);
  const phaseOrder: Record<VerdictPhase, number> = { cold: 1, warm: 2, ingest: 3, disk: 4 };
  entries.sort(
    (a, b) =>
      order(a) - order(b) ||
      (a.query ?? '~').localeCompare(b.query ?? '~', 'en', { numeric: true }) ||
      phaseOrder[a.phase] - phaseOrder[b.phase],
  );
  const control = controlOf(entries, noise, pairs);
  const decision = root ? decisionRows(entries, root.key) : [];
  if (!root) notes.push('the reference cell is not among the cells: no Decision rows');
  return {
    schema: VERDICTS_SCHEMA,
    run_id: input.runId,
    reference: root?.key ?? '',
    references: Object.fromEntries(Object.entries(refs).map(([k, v]) => [k, String(v)])),
    options,
    method: methodText(options, family.length, bh.count),
    control,
    stage: 'first-pass',
    entries,
    decision,
    sentences: axisSentences(entries, refs),
    notes,
    created_at: input.createdAt,
  };
}

function notComparable(
  base: Pick<VerdictEntry, 'axis' | 'reference' | 'cell'>,
  query: string | null,
  phase: VerdictPhase,
  reason: string,
): VerdictEntry {
  return {
    ...base,
    query,
    phase,
    verdict: 'not comparable',
    ratio: null,
    low: null,
    high: null,
    mde: null,
    runs: { reference: 0, cell: 0 },
    confirmed: null,
    reason,
  };
}

function diskEntry(
  base: Pick<VerdictEntry, 'axis' | 'reference' | 'cell'>,
  a: number | null,
  b: number | null,
  delta: number,
): VerdictEntry {
  if (!a || !b) return notComparable(base, null, 'disk', `bytes on disk unknown on ${!a ? base.reference : base.cell}`);
  const r = b / a;
  const verdict = r > 1 + delta ? 'larger' : r < 1 / (1 + delta) ? 'smaller' : 'unchanged';
  return {
    ...base,
    query: null,
    phase: 'disk',
    figure: 'bytes_on_disk',
    verdict,
    ratio: r,
    low: r,
    high: r,
    mde: null,
    runs: { reference: 1, cell: 1 },
    confirmed: null,
    reason: `bytes on disk (system.parts, active parts) ${int(a)} → ${int(b)}: ${fmtRatio(r)}, exact; ${verdict === 'unchanged' ? `within ±${pct(delta)}` : `outside ±${pct(delta)}`}`,
  };
}

/** One comparison's verdict from its interval (see the module header). */
function judgeOne(
  x: Pending,
  iv: ReturnType<typeof ratioInterval>,
  discovery: boolean,
  selectedConfidence: number,
  delta: number,
  options: VerdictSpec,
): VerdictEntry {
  const e = { ...x.entry };
  const lr = x.lr!;
  const what = e.phase === 'ingest' ? 'load' : `${e.phase} run`;
  if (e.disturbed && iv) {
    return {
      ...e,
      ratio: iv.ratio,
      low: iv.low,
      high: iv.high,
      mde: iv.mde,
      p: iv.p,
      se: iv.se,
      df: Number.isFinite(iv.df) ? iv.df : null,
      verdict: 'inconclusive',
      reason: `${fmtRatio(iv.ratio)} ${fmtIv(iv.low, iv.high)} from runs the host disturbed (${e.disturbed}): never a verdict`,
      more: 'the interleaved re-run measures it again (its verdict then stands on the re-run alone), or a quieter host',
    };
  }
  if (!iv) {
    return {
      ...e,
      ratio: Math.exp(lr.d),
      verdict: 'inconclusive',
      reason:
        e.axis === 'repetition'
          ? `one ${what} per side, and the control has no other pair to learn its noise from: not judged`
          : `one ${what} per side and no A/A pair to learn the noise from: no interval, never a verdict`,
      more:
        e.axis === 'repetition'
          ? 'a second A/A pair (matrix.repeat ≥ 3)'
          : e.phase === 'cold'
            ? 'at least 3 cold runs per side (protocol.coldRuns)'
            : 'an A/A control (verdicts.control) or matrix.repeat ≥ 2',
    };
  }
  const u = x.units;
  const base = {
    ...e,
    ratio: iv.ratio,
    low: iv.low,
    high: iv.high,
    mde: iv.mde,
    p: iv.p,
    se: iv.se,
    df: Number.isFinite(iv.df) ? iv.df : null,
    ...(u ? { runs: { reference: u.ref, cell: u.cell } } : {}),
  };
  if (lr.within === null && e.phase !== 'ingest') {
    return {
      ...base,
      verdict: 'inconclusive',
      reason: `${fmtRatio(iv.ratio)} ${fmtIv(iv.low, iv.high)} from one ${what} per side: one run per side is never a verdict`,
      more: `at least 3 ${e.phase} runs per side${e.phase === 'cold' ? ' (protocol.coldRuns)' : ''}`,
    };
  }
  const hi = 1 + delta;
  const inside = iv.low >= 1 / hi && iv.high <= hi;
  const outside = iv.ratio > hi || iv.ratio < 1 / hi;
  const ivText = `${fmtRatio(iv.ratio)} ${fmtIv(iv.low, iv.high)}${u ? ` over ${u.ref} / ${u.cell} repetitions (each a server start: its median one unit)` : ''}`;
  if (inside) return { ...base, verdict: 'unchanged', reason: `${ivText} inside ±${pct(delta)}` };
  if (discovery && outside && (x.noise || u)) {
    const w = widen(iv, selectedConfidence);
    const worse = x.higherIsBetter ? iv.ratio < 1 : iv.ratio > 1;
    return {
      ...base,
      low: w.low,
      high: w.high,
      verdict: worse ? 'slower' : 'faster',
      // Times wait for their re-run; a load is not re-run, nor is the A/A control (its moves are the run's false-move count).
      confirmed: e.phase === 'ingest' || e.axis === 'repetition' ? null : false,
      reason: `${fmtRatio(iv.ratio)} ${fmtIv(w.low, w.high)}${u ? ` over ${u.ref} / ${u.cell} repetitions` : ''} (${pct(selectedConfidence)} interval of a selected comparison), p = ${iv.p.toPrecision(2)}${
        e.axis === 'repetition'
          ? '; an A/A pair: a false move of this run, counted by the control'
          : e.phase === 'ingest'
            ? u
              ? `; the loads of ${u.ref} / ${u.cell} repetitions, not re-run`
              : "; one load per cell, not re-run: the interval is the A/A control's load-to-load noise"
            : '; awaiting the interleaved re-run'
      }`,
    };
  }
  const n = u ? null : runsToDecide(lr, x.noise, delta);
  const more = u
    ? `more repetitions of each setup (matrix.repeat; ${Math.min(u.ref, u.cell)} now)`
    : e.phase === 'ingest'
      ? 'more repetitions of the load (matrix.repeat)'
      : n === null
        ? lr.within === null
          ? `at least 3 ${e.phase} runs per side`
          : `more ${e.phase} runs of these cells cannot practically decide it (the between-start noise alone, or over ${MAX_RUNS_TO_DECIDE} runs per side at this spread); more repetitions (matrix.repeat) or a quieter host can`
        : `≈ ${n} ${e.phase} runs per side (${Math.max(lr.n.ref, lr.n.cell)} now)`;
  const why =
    !x.noise && !u
      ? 'no A/A pair in this run: never faster or slower'
      : discovery && !outside
        ? `a change within ±${pct(delta)}, but the interval is not inside it`
        : `p = ${iv.p.toPrecision(2)}, not a discovery at FDR ${pct(options.fdr)}, and the interval is not inside ±${pct(delta)}`;
  return { ...base, verdict: 'inconclusive', reason: `${ivText}: ${why}`, more };
}

function controlOf(
  entries: readonly VerdictEntry[],
  noise: Record<'warm' | 'cold' | 'ingest', ControlPair[]>,
  pairs: readonly PlannedPair[],
): VerdictControl | null {
  const aa = pairs.filter((p) => p.axis === 'repetition');
  if (!aa.length) return null;
  const mine = entries.filter((e) => e.axis === 'repetition' && (e.phase === 'warm' || e.phase === 'cold'));
  const judged = mine.filter((e) => e.verdict !== 'not comparable');
  const moved = judged.filter((e) => e.verdict === 'faster' || e.verdict === 'slower').length;
  const rel = (ps: ControlPair[]) => {
    const n = betweenNoise(ps);
    return n ? Math.sqrt(n.sigma2) : null;
  };
  const disk = entries.find((e) => e.axis === 'repetition' && e.phase === 'disk');
  const warmNoise = rel(noise.warm);
  // The smallest warm change a comparison could call (two cells, the between-start part alone, 95 %).
  const floor = warmNoise === null ? null : Math.exp(1.96 * Math.SQRT2 * warmNoise) - 1;
  const noiseText =
    warmNoise === null
      ? ''
      : `; between-start noise ${pct(warmNoise)} (warm)${floor !== null && floor > 0.2 ? ` — on this host no warm change under ≈ ${pct(floor)} can be told from it with one cell per setup: repeat the matrix (matrix.repeat), quiet the host, or use a larger scale` : ''}`;
  const note =
    (moved > 0
      ? `⚠ the control moved in ${moved} of ${judged.length} pairs (judged as the run's comparisons are; a clean run moves none 95 % of the time): this run's noise reaches beyond what its intervals allow — a faster/slower below stands only as confirmed by its interleaved re-run; for more, repeat the matrix (matrix.repeat), quiet the host, or run at a larger scale`
      : `the control moved in 0 of ${judged.length} pairs (judged as the run's comparisons are)`) + noiseText;
  return {
    reference: aa[0]!.reference.key,
    cell: aa.map((p) => p.cell.key).join(', '),
    pairs: judged.length,
    moved,
    noise: { warm: rel(noise.warm), cold: rel(noise.cold), ingest: rel(noise.ingest) },
    disk_ratio: disk?.ratio ?? null,
    note,
  };
}

/** The Decision: every cell compared with the run's reference cell (on its one axis, or `setup`). */
export function decisionRows(entries: readonly VerdictEntry[], reference: string): DecisionRow[] {
  const cells = [
    ...new Set(entries.filter((e) => e.reference === reference && e.axis !== 'repetition').map((e) => e.cell)),
  ];
  return cells.map((cell) => {
    const mine = entries.filter((e) => e.reference === reference && e.cell === cell);
    const warm = mine.filter((e) => e.phase === 'warm');
    const disk = mine.find((e) => e.phase === 'disk');
    const ingest = mine.find((e) => e.phase === 'ingest');
    const withIv = warm.filter((e) => e.ratio !== null && e.low !== null && e.high !== null);
    const logs = withIv.map((e) => Math.log(e.ratio!));
    const halves = withIv.map((e) => (Math.log(e.high!) - Math.log(e.low!)) / 2);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const gm = logs.length ? mean(logs) : null;
    const hw = halves.length ? mean(halves) : null;
    const count = (v: string) => warm.filter((e) => e.verdict === v).length;
    return {
      cell,
      reference,
      disk_ratio: disk?.ratio ?? null,
      ingest_ratio: ingest?.ratio ?? null,
      ingest_verdict: ingest?.verdict ?? null,
      geomean: gm === null ? null : Math.exp(gm),
      geomean_low: gm === null || hw === null ? null : Math.exp(gm - hw),
      geomean_high: gm === null || hw === null ? null : Math.exp(gm + hw),
      counts: {
        faster: count('faster'),
        slower: count('slower'),
        unchanged: count('unchanged'),
        inconclusive: count('inconclusive'),
        not_comparable: count('not comparable'),
      },
      failed: [
        ...new Set(
          warm
            .filter((e) => e.verdict === 'not comparable' && e.reason.startsWith(`${e.query} failed on ${cell}:`))
            .map((e) => e.query!),
        ),
      ],
    };
  });
}

/** One sentence per axis over its warm verdicts and disk (e.g. "version 26.3 vs 24.8: unchanged on 4 of 5 queries, q3 1.31× faster [1.22, 1.40]; disk 1.30× with LZ4"). */
export function axisSentences(entries: readonly VerdictEntry[], refs: Partial<Record<VerdictAxis, string>>): string[] {
  const out: string[] = [];
  for (const [axis, ref] of Object.entries(refs) as [VerdictAxis, string][]) {
    const mine = entries.filter((e) => e.axis === axis);
    if (!mine.length) continue;
    const cells = [...new Set(mine.map((e) => e.cell))];
    const parts = cells.map((cell) => {
      const warm = mine.filter((e) => e.cell === cell && e.phase === 'warm');
      const unchanged = warm.filter((e) => e.verdict === 'unchanged').length;
      const moved = warm
        .filter((e) => e.verdict === 'faster' || e.verdict === 'slower')
        .map(
          (e) =>
            `${e.query} ${fmtRatio(e.ratio)} ${e.verdict} ${fmtIv(e.low, e.high)}${e.rerun ? ` (re-run ${fmtRatio(e.rerun.ratio)} ${fmtIv(e.rerun.low, e.rerun.high)})` : ''}`,
        );
      const inconclusive = warm.filter((e) => e.verdict === 'inconclusive').length;
      const nc = warm.filter((e) => e.verdict === 'not comparable').length;
      const disk = mine.find((e) => e.cell === cell && e.phase === 'disk');
      const bits = [
        `warm: unchanged on ${unchanged} of ${warm.length} queries${warm.some((e) => e.query?.includes('@')) ? ' (a query after the skip index counted apart)' : ''}`,
        ...moved,
        ...(inconclusive ? [`${inconclusive} inconclusive`] : []),
        ...(nc ? [`${nc} not comparable`] : []),
      ];
      return `${cell}: ${bits.join(', ')}${disk?.ratio ? `; disk ${fmtRatio(disk.ratio)}` : ''}`;
    });
    out.push(`${axis} (against ${ref}): ${parts.join('; ')}`);
  }
  return out;
}

function methodText(o: VerdictSpec, family: number, discoveries: number): string {
  return (
    `per comparison: ratio of medians new/reference of the valid runs (server-side elapsed when every run on both sides has it, else client wall time); ` +
    `95 % t interval on the log scale with the within-cell variance of each median ((π/2)·s²/n) and twice the between-server-start variance learned from the A/A control (Welch–Satterthwaite df); ` +
    `unchanged when the interval lies inside ±${pct(o.equivalence)}; faster/slower when Benjamini–Hochberg at FDR ${pct(o.fdr)} over the run's ${family} time and ingest comparisons selects it (${discoveries} selected; their intervals widened to the false-coverage level) and the ratio is outside ±${pct(o.equivalence)}, ` +
    `then only when the interleaved re-run (${o.confirmRounds} rounds) confirms it; an inconclusive comparison is measured again in the same re-run (up to ${o.confirmPairs} cell pairs in all, faster/slower pairs first) and judged on both passes combined (inverse-variance, Benjamini–Hochberg over the re-measured ones, the re-run's own interval and the first pass's ratio agreeing in direction); minimal detectable effect at 80 % power; work counters and bytes on disk compared exactly`
  );
}

/** A time comparison the interleaved step measures again: awaiting confirmation, or inconclusive with an interval to add to. */
function toMeasureAgain(e: VerdictEntry, kind: 'warm' | 'cold'): 'confirm' | 'remeasure' | null {
  if (e.axis === 'repetition' || e.phase !== kind || !e.query) return null;
  if (e.confirmed === false && (e.verdict === 'faster' || e.verdict === 'slower')) return 'confirm';
  if (e.verdict === 'inconclusive' && e.confirmed === null && !e.remeasured && e.se !== undefined) return 'remeasure';
  return null;
}

/**
 * The time comparisons the interleaved step measures again, grouped per cell pair and kind of run (keys
 * only: what goes into workflow history): first the pairs with faster/slower verdicts awaiting confirmation
 * (record order), then the pairs whose comparisons are still `inconclusive` with an interval (the adaptive
 * step: they are measured again and judged on both passes combined) — pairs against an axis reference before
 * those between adjacent versions only (`version-step`), then most undecided queries first. The
 * workflow re-runs as many pairs as `verdicts.confirmPairs` allows, in this order.
 * @param o.remeasure false: only the faster/slower awaiting confirmation (targets that cannot run the re-run's two cells at once)
 */
export function verdictsToConfirm(
  record: VerdictsRecord,
  runId: string,
  kind: 'warm' | 'cold',
  o: { remeasure?: boolean } = {},
): FlaggedPair[] {
  return rankedToConfirm(record, runId, kind, o).map((r) => r.pair);
}

/** A pair to measure again and why: 0 a faster/slower to confirm, 1 inconclusive against an axis reference, 2 only against the next older version. */
interface RankedPair {
  pair: FlaggedPair;
  rank: 0 | 1 | 2;
}

/** {@link verdictsToConfirm} with each pair's rank, in the same order. */
function rankedToConfirm(
  record: VerdictsRecord,
  runId: string,
  kind: 'warm' | 'cold',
  o: { remeasure?: boolean },
): RankedPair[] {
  const byPair = new Map<string, FlaggedPair & { confirms: number; remeasures: number; onReference: boolean }>();
  for (const e of record.entries) {
    const why = toMeasureAgain(e, kind);
    if (!why || (why === 'remeasure' && o.remeasure === false)) continue;
    const pairKey = `${e.reference}→${e.cell}`;
    const f = byPair.get(pairKey) ?? {
      pairKey,
      baselineCell: { runId, cellKey: e.reference },
      newCell: { runId, cellKey: e.cell },
      queries: [],
      confirms: 0,
      remeasures: 0,
      onReference: false,
    };
    // Against an axis reference (what the Decision and the axis sentences read), not only the next older version.
    if (e.axis !== 'version-step') f.onReference = true;
    const [query_id, at] = e.query!.split('@');
    const phase = at === 'index' ? 'index' : 'baseline';
    if (!f.queries.some((q) => q.query_id === query_id && q.phase === phase))
      f.queries.push({ query_id: query_id!, phase });
    if (why === 'confirm') f.confirms++;
    else f.remeasures++;
    byPair.set(pairKey, f);
  }
  const all = [...byPair.values()];
  const order = [
    ...all.filter((f) => f.confirms > 0),
    ...all
      .filter((f) => f.confirms === 0)
      .sort((a, b) => Number(b.onReference) - Number(a.onReference) || b.remeasures - a.remeasures),
  ];
  return order.map(({ confirms, remeasures: _r, onReference, ...pair }) => ({
    pair,
    rank: confirms > 0 ? 0 : onReference ? 1 : 2,
  }));
}

/**
 * The interleaved A/A control's pair key (`<reference>→<its first A/A cell>`, e.g. `v24.8-lz4→v24.8-lz4-r2`),
 * or null when the run has no A/A control. Its re-run measures the reference setup against itself on two
 * fresh cells, interleaved like every other re-run pair.
 */
export function interleavedControlKey(record: Pick<VerdictsRecord, 'control'>): string | null {
  const c = record.control;
  const cell = c?.cell.split(', ')[0];
  return c && cell ? `${c.reference}→${cell}` : null;
}

/**
 * The re-run's pairs with the interleaved A/A control first: the reference cell against its A/A cell, on the
 * union of the pairs' queries. Sequential cells differ by host drift as well as by their server starts (on
 * this 2-core host 9–13 % per start, warm), cells measured interleaved by their starts alone (two starts
 * 2–8 % apart in all, the runs within included: `bench/results/verdicts.json`, `interleaved_pool`); so the
 * re-run's intervals take their between-start part from this pair ({@link interleavedNoiseOf}), not from the
 * sequential control.
 * @returns `pairs` unchanged when empty or when the run has no A/A control
 */
export function withInterleavedControl(
  record: VerdictsRecord,
  runId: string,
  pairs: readonly FlaggedPair[],
): FlaggedPair[] {
  const key = interleavedControlKey(record);
  if (!key || !pairs.length || pairs.some((p) => p.pairKey === key)) return [...pairs];
  const [reference, cell] = key.split('→') as [string, string];
  const queries: FlaggedPair['queries'] = [];
  for (const q of pairs.flatMap((p) => p.queries))
    if (!queries.some((x) => x.query_id === q.query_id && x.phase === q.phase)) queries.push(q);
  return [
    {
      pairKey: key,
      baselineCell: { runId, cellKey: reference },
      newCell: { runId, cellKey: cell },
      queries,
    },
    ...pairs,
  ];
}

/**
 * What the interleaved step re-runs, per kind of run, as the workflow takes them within `verdicts.confirmPairs`
 * (the warm list first, the cold list in what is left). The budget goes by rank across both kinds: first the
 * faster/slower to confirm, then the inconclusive comparisons against an axis reference (warm before cold),
 * then those between adjacent versions only; pairs that do not fit are left out of the lists (their
 * comparisons stay as the first pass judged them), except faster/slower to confirm, which stay for the
 * workflow to withdraw saying the budget was spent. On same-host targets (`o.remeasure`) each kind's list
 * opens with the interleaved A/A control ({@link withInterleavedControl}) — one pair of the budget — when
 * there is room for it and one other pair.
 */
export function rerunPairs(
  record: VerdictsRecord,
  runId: string,
  o: { remeasure: boolean },
): { warm: FlaggedPair[]; cold: FlaggedPair[] } {
  const budget = record.options.confirmPairs;
  const ranked = {
    warm: rankedToConfirm(record, runId, 'warm', o),
    cold: rankedToConfirm(record, runId, 'cold', o),
  };
  const candidates = (['warm', 'cold'] as const)
    .flatMap((kind) => ranked[kind].map((r, i) => ({ ...r, kind, i })))
    .sort((a, b) => a.rank - b.rank || (a.kind === b.kind ? a.i - b.i : a.kind === 'warm' ? -1 : 1));
  const taken = { warm: [] as typeof candidates, cold: [] as typeof candidates };
  const control = { warm: false, cold: false };
  let left = budget;
  for (const c of candidates) {
    // The kind's first pair brings its A/A pair along when both fit.
    const withAA = o.remeasure && !taken[c.kind].length && left >= 2 && interleavedControlKey(record) !== null;
    const cost = withAA ? 2 : 1;
    if (cost > left) {
      if (c.rank === 0) taken[c.kind].push(c);
      continue;
    }
    left -= cost;
    control[c.kind] ||= withAA;
    taken[c.kind].push(c);
  }
  const listOf = (kind: 'warm' | 'cold') => {
    const pairs = [...taken[kind]].sort((a, b) => a.i - b.i).map((c) => c.pair);
    return control[kind] ? withInterleavedControl(record, runId, pairs) : pairs;
  };
  return { warm: listOf('warm'), cold: listOf('cold') };
}

/** The between-start noise of cells measured interleaved, per kind of run, from the interleaved A/A pair's re-run. */
export interface InterleavedNoise {
  warm: BetweenNoise | null;
  cold: BetweenNoise | null;
}

/**
 * The interleaved A/A control's between-start noise: per kind of run, over the pair's queries, the excess of
 * the squared log ratio of medians over its within-run variance ({@link betweenNoise}). Null for a kind the
 * pair did not measure (no control, not re-run, its re-run failed): the re-run then keeps the sequential
 * control's noise, the wider one.
 */
export function interleavedNoiseOf(
  record: Pick<VerdictsRecord, 'control'>,
  outcomes: readonly ConfirmOutcome[],
): InterleavedNoise {
  const of = (kind: 'warm' | 'cold') => betweenNoise(controlLogRatios(record, outcomes, kind));
  return interleavedControlKey(record) ? { warm: of('warm'), cold: of('cold') } : { warm: null, cold: null };
}

/** The interleaved A/A pair's log ratios of one kind of run, one per query with runs (all positive) on both sides. */
function controlLogRatios(
  record: Pick<VerdictsRecord, 'control'>,
  outcomes: readonly ConfirmOutcome[],
  kind: 'warm' | 'cold',
): LogRatio[] {
  const key = interleavedControlKey(record);
  return outcomes
    .filter((o) => o.pairKey === key)
    .flatMap((o) => o.samples)
    .filter((s) => (s.kind === 'cold') === (kind === 'cold') && s.baseline_ms.length && s.new_ms.length)
    .filter((s) => [...s.baseline_ms, ...s.new_ms].every((x) => x > 0))
    .map((s) => logRatio(s.baseline_ms, s.new_ms));
}

/**
 * Apply the confirming re-run: a faster/slower time verdict stays only when its re-run's interval
 * (interleaved rounds, the same A/A noise added) excludes 1 in the same direction with the ratio outside
 * ±δ; else it is withdrawn (`inconclusive`, `confirmed: false`, the re-run's figures beside it). Verdicts
 * whose pair was not re-run (budget, `confirmRounds` 0, an error) are withdrawn saying why.
 * @param outcomes per pair key the re-run's samples (warm runs; cold runs when `kind` is cold)
 * @param notRun pair keys not re-run, with why
 */
export function applyVerdictConfirmation(
  record: VerdictsRecord,
  outcomes: readonly ConfirmOutcome[],
  notRun: Record<string, string>,
  controlNoise: { warm: BetweenNoise | null; cold: BetweenNoise | null },
): VerdictsRecord {
  const delta = record.options.equivalence;
  // The re-run's between-start part: from the interleaved A/A pair where it was measured, else the sequential control's.
  const inter = interleavedNoiseOf(record, outcomes);
  const rerunNoise = { warm: inter.warm ?? controlNoise.warm, cold: inter.cold ?? controlNoise.cold };
  // A pair may have two re-runs (warm and cold runs): their samples together.
  const outcomeOf = (e: VerdictEntry) => {
    const pairKey = `${e.reference}→${e.cell}`;
    const mine = outcomes.filter((x) => x.pairKey === pairKey);
    return mine.length
      ? { pairKey, samples: mine.flatMap((x) => x.samples), error: mine.find((x) => x.error)?.error }
      : undefined;
  };
  const confirmed = record.entries.map((e): VerdictEntry => {
    if (e.confirmed !== false || (e.verdict !== 'faster' && e.verdict !== 'slower')) return e;
    const pairKey = `${e.reference}→${e.cell}`;
    const o = outcomeOf(e);
    const withdrawn = (why: string, rerun?: VerdictEntry['rerun']): VerdictEntry => ({
      ...e,
      verdict: 'inconclusive',
      confirmed: false,
      reason: `${e.verdict} in the first pass (${fmtRatio(e.ratio)} ${fmtIv(e.low, e.high)}), withdrawn: ${why}`,
      more: 'a quieter host, or more runs per side',
      ...(rerun ? { rerun } : {}),
    });
    if (!o) return withdrawn(notRun[pairKey] ?? 'not re-run');
    if (o.error && !o.samples.length)
      return withdrawn(`its re-run failed: ${o.error}`, {
        ratio: null,
        low: null,
        high: null,
        runs: 0,
        error: o.error,
      });
    const r = rerunOf(e, o.samples, rerunNoise);
    if (!r) return withdrawn(notRun[pairKey] ?? `the re-run has no ${e.phase} runs of ${e.query}`);
    const { iv, rerun } = r;
    const slower = e.verdict === 'slower';
    const holds = !!iv && (slower ? iv.low > 1 && iv.ratio > 1 + delta : iv.high < 1 && iv.ratio < 1 / (1 + delta));
    if (!holds)
      return withdrawn(
        `the interleaved re-run (${rerun.runs} rounds) gives ${fmtRatio(rerun.ratio)} ${fmtIv(rerun.low, rerun.high)}`,
        rerun,
      );
    return {
      ...e,
      confirmed: true,
      reason: `${fmtRatio(e.ratio)} ${fmtIv(e.low, e.high)} in the first pass, confirmed by the interleaved re-run: ${fmtRatio(rerun.ratio)} ${fmtIv(rerun.low, rerun.high)} over ${rerun.runs} rounds`,
      rerun,
    };
  });
  const calibrated = { warm: inter.warm !== null, cold: inter.cold !== null };
  const entries = applyRemeasure(confirmed, outcomeOf, controlNoise, rerunNoise, calibrated, record.options);
  const refs = record.references as Partial<Record<VerdictAxis, string>>;
  return {
    ...record,
    control: record.control ? { ...record.control, interleaved: interleavedControl(inter, outcomes, record) } : null,
    stage: 'final',
    entries,
    decision: record.reference ? decisionRows(entries, record.reference) : [],
    sentences: axisSentences(entries, refs),
  };
}

/**
 * The interleaved A/A control as recorded: its pair, the noise learned per kind of run, and its own moves —
 * each of its queries judged with the noise of the others (leave one out), faster/slower when the 95 %
 * interval excludes 1 with the ratio beyond ±δ (a clean pair moves in none about 95 % of the time).
 */
function interleavedControl(
  inter: InterleavedNoise,
  outcomes: readonly ConfirmOutcome[],
  record: VerdictsRecord,
): NonNullable<VerdictControl['interleaved']> {
  const key = interleavedControlKey(record)!;
  const o = outcomes.find((x) => x.pairKey === key);
  const delta = record.options.equivalence;
  let moved = 0;
  let judged = 0;
  const count = { warm: 0, cold: 0 };
  for (const kind of ['warm', 'cold'] as const) {
    const lrs = controlLogRatios(record, outcomes, kind);
    count[kind] = lrs.length;
    lrs.forEach((lr, i) => {
      const iv = ratioInterval(lr, betweenNoise(lrs.filter((_, j) => j !== i)));
      if (!iv) return;
      judged++;
      if ((iv.low > 1 || iv.high < 1) && (iv.ratio > 1 + delta || iv.ratio < 1 / (1 + delta))) moved++;
    });
  }
  const rel = (n: BetweenNoise | null) => (n ? Math.sqrt(n.sigma2) : null);
  const noise = { warm: rel(inter.warm), cold: rel(inter.cold) };
  const said = (['warm', 'cold'] as const)
    .filter((k) => noise[k] !== null)
    .map((k) => `${pct(noise[k]!)} ${k} (${count[k]} queries)`);
  const note = !o
    ? "not re-run (nothing to re-run, or past the budget of verdicts.confirmPairs): the re-run intervals take the sequential control's between-start noise"
    : o.error && !said.length
      ? `its re-run failed (${o.error}): the re-run intervals take the sequential control's between-start noise`
      : `the reference against itself on two fresh cells, interleaved: between-start noise ${said.join(', ')}, moved in ${moved} of ${judged}; the re-run intervals take this noise${noise.cold === null ? " (cold: the sequential control's)" : ''}`;
  return { pair: key, noise, moved, pairs: judged, note };
}

/** The re-run's interval of one comparison from its samples (the A/A noise of its kind of run added); null without runs on both sides. */
function rerunOf(
  e: VerdictEntry,
  samples: ConfirmOutcome['samples'],
  controlNoise: { warm: BetweenNoise | null; cold: BetweenNoise | null },
): { iv: ReturnType<typeof ratioInterval>; rerun: NonNullable<VerdictEntry['rerun']> } | null {
  const [query_id, at] = e.query!.split('@');
  const phase = at === 'index' ? 'index' : 'baseline';
  const s = samples.find(
    (x) => x.query_id === query_id && x.phase === phase && (x.kind === 'cold') === (e.phase === 'cold'),
  );
  if (!s || !s.baseline_ms.length || !s.new_ms.length) return null;
  const lr = logRatio(s.baseline_ms, s.new_ms);
  const iv = ratioInterval(lr, e.phase === 'cold' ? controlNoise.cold : controlNoise.warm);
  return {
    iv,
    rerun: {
      ratio: iv?.ratio ?? Math.exp(lr.d),
      low: iv?.low ?? null,
      high: iv?.high ?? null,
      runs: Math.min(s.baseline_ms.length, s.new_ms.length),
      ...(s.budget_spent ? { budget_spent: s.budget_spent } : {}),
    },
  };
}

/**
 * The adaptive step: a comparison inconclusive in the first pass and measured again interleaved is judged on
 * both passes combined ({@link combineIntervals}: independent server starts, inverse-variance weights), with
 * Benjamini–Hochberg at `fdr` over the re-measured comparisons as their own family: `unchanged` when the
 * combined interval lies inside ±δ; `faster` / `slower` when the combined comparison is a discovery outside
 * ±δ AND the two passes agree (the re-run's own interval excludes 1 the same way with its ratio beyond δ,
 * and the first pass's ratio lies beyond δ the same way: `confirmed: true`); else still `inconclusive`, with both figures. A comparison whose first-pass runs the
 * host disturbed is judged on the re-run alone, and can only become `unchanged` (one re-run is not a
 * confirmed faster/slower). Without an A/A control (no between-start noise learned) nothing becomes
 * faster or slower, as in the first pass.
 */
function applyRemeasure(
  entries: VerdictEntry[],
  outcomeOf: (e: VerdictEntry) => { samples: ConfirmOutcome['samples']; error?: string | undefined } | undefined,
  controlNoise: { warm: BetweenNoise | null; cold: BetweenNoise | null },
  rerunNoise: { warm: BetweenNoise | null; cold: BetweenNoise | null },
  calibrated: { warm: boolean; cold: boolean },
  options: VerdictSpec,
): VerdictEntry[] {
  const delta = options.equivalence;
  const hi = 1 + delta;
  const measured = entries.flatMap((e, i) => {
    const why = e.phase === 'warm' || e.phase === 'cold' ? toMeasureAgain(e, e.phase) : null;
    if (why !== 'remeasure' || e.ratio === null || e.se === undefined) return [];
    const o = outcomeOf(e);
    const r = o ? rerunOf(e, o.samples, rerunNoise) : null;
    if (!r?.iv) return [];
    return [{ i, e, rerun: r.rerun, iv: r.iv, first: { ratio: e.ratio, se: e.se, df: e.df ?? Infinity } }];
  });
  if (!measured.length) return entries;
  // The two passes of one comparison estimate the same ratio from different server starts: where they
  // disagree by more than their intervals allow, the noise was under-estimated (the sequential A/A control's
  // one pair per query learns it poorly). The dispersion factor k per kind of run widens the first pass alone
  // where the re-run's noise comes from the interleaved A/A control (calibrated in the re-run itself), else both.
  const k: Record<string, Dispersion> = {};
  for (const phase of ['warm', 'cold'] as const)
    k[phase] = dispersion(
      measured.filter((m) => m.e.phase === phase && !m.e.disturbed).map((m) => ({ a: m.first, b: m.iv })),
      { firstOnly: calibrated[phase] },
    );
  const todo = measured.map((m) => {
    const f = k[m.e.phase]!.factor;
    const iv = k[m.e.phase]!.scope === 'first' ? m.iv : inflate(m.iv, f);
    // The first pass's runs disturbed by the host: the re-run alone decides.
    const combined = m.e.disturbed ? iv : combineIntervals(inflate(m.first, f), iv);
    return { ...m, iv, combined, k: k[m.e.phase]! };
  });
  const bh = benjaminiHochberg(
    todo.map((t) => t.combined.p),
    options.fdr,
  );
  const fcr = 1 - (Math.max(bh.count, 1) * options.fdr) / todo.length;
  const out = [...entries];
  todo.forEach(({ i, e, rerun: raw, iv: rerunIv, combined, k: disp }, n) => {
    const rerun = { ...raw, ratio: rerunIv.ratio, low: rerunIv.low, high: rerunIv.high };
    const widened =
      disp.factor > 1
        ? `, ${disp.scope === 'first' ? 'the first pass' : 'both passes'} widened ×${disp.factor.toFixed(2)}: ${disp.text}`
        : '';
    const first = `inconclusive in the first pass (${fmtRatio(e.ratio)} ${fmtIv(e.low, e.high)}${e.disturbed ? ', disturbed' : ''})`;
    // Fewer rounds than asked: the re-run's seconds budget stopped it (verdicts.confirmSeconds).
    const b = raw.budget_spent;
    const cut = b
      ? `; ${b.rounds} of ${b.of} rounds: its ${b.seconds} s budget (verdicts.confirmSeconds) was spent`
      : '';
    const again = `the interleaved re-run (${rerun.runs} rounds${cut}) ${fmtRatio(rerun.ratio)} ${fmtIv(rerun.low, rerun.high)}${widened}`;
    const both = e.disturbed
      ? `the re-run alone decides (the first pass's runs were disturbed: ${e.disturbed})`
      : `both passes combined ${fmtRatio(combined.ratio)} ${fmtIv(combined.low, combined.high)}`;
    const base = {
      ...e,
      ratio: combined.ratio,
      low: combined.low,
      high: combined.high,
      mde: combined.mde,
      runs: { reference: e.runs.reference + rerun.runs, cell: e.runs.cell + rerun.runs },
      remeasured: true,
      rerun,
    };
    if (combined.low >= 1 / hi && combined.high <= hi) {
      out[i] = {
        ...base,
        verdict: 'unchanged',
        confirmed: null,
        reason: `${first}; ${again}; ${both} inside ±${pct(delta)}`,
      };
      delete out[i]!.more;
      return;
    }
    const noise = e.phase === 'cold' ? controlNoise.cold : controlNoise.warm;
    const outside = combined.ratio > hi || combined.ratio < 1 / hi;
    // The interleaved re-run decides, the first pass must not contradict it: the re-run by itself excludes 1
    // the same way with its ratio beyond δ, and the first pass's own interval reaches that side of 1.
    const up = combined.ratio > 1;
    const rw = widen(rerunIv, fcr);
    const sameWay =
      (up ? rw.low > 1 && rerun.ratio > hi : rw.high < 1 && rerun.ratio < 1 / hi) &&
      (e.disturbed || (up ? e.high! > 1 : e.low! < 1));
    if (noise && bh.rejected[n] && outside && sameWay && !e.disturbed) {
      const w = widen(combined, fcr);
      out[i] = {
        ...base,
        low: w.low,
        high: w.high,
        verdict: combined.ratio > 1 ? 'slower' : 'faster',
        confirmed: true,
        reason: `${first}; ${again}; ${both} (${pct(fcr)} interval of a selected comparison, p = ${combined.p.toPrecision(2)}, Benjamini–Hochberg over the ${todo.length} re-measured comparisons), the re-run alone pointing the same way`,
      };
      delete out[i]!.more;
      return;
    }
    out[i] = {
      ...base,
      verdict: 'inconclusive',
      confirmed: null,
      reason: `${first}; ${again}; ${both}: ${
        !noise
          ? 'no A/A pair in this run: never faster or slower'
          : e.disturbed && bh.rejected[n] && outside && sameWay
            ? 'one re-run after disturbed runs is not a confirmed faster/slower: measure again on a quieter host'
            : outside && !sameWay
              ? 'the interleaved re-run does not show it by itself (its own interval excluding 1 the same way with its ratio beyond δ), or the first pass contradicts it'
              : `neither inside ±${pct(delta)} nor a discovery`
      }`,
      more: cut
        ? `a larger verdicts.confirmSeconds (the re-run measured ${b!.rounds} of ${b!.of} rounds), more server starts of each setup (matrix.repeat) or a quieter host`
        : `more server starts of each setup (matrix.repeat) or a quieter host: the budget of re-runs (verdicts.confirmPairs, confirmRounds) is spent`,
    };
  });
  return out;
}

/** The A/A noise of warm and cold runs recomputed from a record's cells (for {@link applyVerdictConfirmation}). */
export function controlNoiseOf(
  cells: readonly VerdictCell[],
  axes: MatrixAxes,
): { warm: BetweenNoise | null; cold: BetweenNoise | null } {
  const pairs = planPairs(cells, axes);
  return { warm: betweenNoise(controlPairs(pairs, 'warm')), cold: betweenNoise(controlPairs(pairs, 'cold')) };
}

/** The Decision in one line (the demo's and the CLI's last line, the workflow result). */
export function decisionLine(record: VerdictsRecord): string {
  if (!record.decision.length) return record.notes[0] ?? 'no comparison';
  return record.decision
    .map((r) => {
      const c = r.counts;
      const counts = [
        c.faster ? `${c.faster} faster` : '',
        c.slower ? `${c.slower} slower` : '',
        c.unchanged ? `${c.unchanged} unchanged` : '',
        c.inconclusive ? `${c.inconclusive} inconclusive` : '',
        c.not_comparable ? `${c.not_comparable} not comparable` : '',
      ].filter(Boolean);
      return `${r.cell}: warm ${fmtRatio(r.geomean)} ${fmtIv(r.geomean_low, r.geomean_high)} (${counts.join(', ')}), disk ${fmtRatio(r.disk_ratio)}`;
    })
    .join('; ');
}

/** "A/A control moves 0 of 10" (or why there is none). */
export function controlLine(record: VerdictsRecord): string {
  const c = record.control;
  if (!c) return 'no A/A control';
  const i = c.interleaved;
  const inter =
    i && i.pairs
      ? `; interleaved A/A moves ${i.moved} of ${i.pairs}${i.noise.warm !== null ? ` (between-start noise ${pct(i.noise.warm)} warm)` : ''}`
      : '';
  return `A/A control moves ${c.moved} of ${c.pairs}${c.noise.warm !== null ? ` (between-start noise ${pct(c.noise.warm)} warm)` : ''}${inter}`;
}

/**
 * What a spec's verdicts will do, in lines for `chbench validate`: the axes and their references, the A/A
 * control, what the protocol's runs per side allow (cold and warm), the re-run and its budget.
 * @param cells the spec's cell keys (the control included)
 */
export function verdictPlanLines(
  spec: { protocol: { coldRuns: number; warmRuns: number }; verdicts?: VerdictSpec },
  axes: MatrixAxes,
  cells: readonly string[],
): string[] {
  const refs = axisReferences(axes);
  if (!Object.keys(refs).length) return ['verdicts: none (the matrix varies no axis: nothing to compare)'];
  const o = spec.verdicts ?? VERDICT_DEFAULTS;
  const p = spec.protocol;
  const rep = axes.repeat;
  const control =
    rep > 1
      ? `A/A pairs: r2${rep > 2 ? `…r${rep}` : ''} of every setup against its r1; setups compared over their ${rep} repetitions`
      : o.control
        ? `A/A control cell ${cells[cells.length - 1]}`
        : 'no A/A control';
  const lines = [
    `verdicts: ${Object.entries(refs)
      .map(([a, r]) => `${a} against ${r}`)
      .join(
        ', ',
      )}; ${control}; unchanged inside ±${pct(o.equivalence)}; faster/slower at FDR ${pct(o.fdr)}, confirmed by ${o.confirmRounds} interleaved rounds (at most ${o.confirmPairs} cell pairs re-run; flagged pairs beyond them are withdrawn)${o.confirmRounds > 0 ? `; each pair's rounds stop after ${o.confirmSeconds ?? VERDICT_DEFAULTS.confirmSeconds} s per phase once 3 are measured (verdicts.confirmSeconds; a statement in flight finishes)` : ''}`,
  ];
  if (o.confirmRounds === 0)
    lines.push('  no interleaved re-run (verdicts.confirmRounds 0): nothing will be published as faster or slower');
  else if (o.confirmPairs === 0)
    lines.push('  no pair may be re-run (verdicts.confirmPairs 0): nothing will be published as faster or slower');
  else {
    lines.push(
      `  then the adaptive step: comparisons still inconclusive are measured again in the same re-run and judged on both passes combined — up to ${o.confirmPairs} cell pairs in all (each pair two fresh cells, provisioned and loaded again, ${o.confirmRounds} interleaved rounds per query; warm and cold runs re-run apart); the cost is about ${2 * o.confirmPairs} more cells at most: lower verdicts.confirmPairs to spend less`,
    );
    lines.push(
      o.confirmPairs >= 2
        ? "  each kind of run re-run opens with the interleaved A/A control (the reference against its A/A cell, one pair of the budget) on embedded and local targets: its between-start noise is the re-run intervals'"
        : "  verdicts.confirmPairs 1 leaves no room for the interleaved A/A control beside a pair: the re-run intervals take the sequential control's between-start noise (wider)",
    );
  }
  if (o.confirmRounds > 0 && o.confirmRounds < 3)
    lines.push(
      `  ⚠ ${o.confirmRounds} interleaved round(s) per pair cannot give a re-run interval (3 are needed): raise verdicts.confirmRounds`,
    );
  if (rep > 1)
    lines.push(
      `  cold and warm: each repetition's median is one unit, ${rep} per setup; the interval comes from their spread (between-start noise included)`,
    );
  else {
    if (p.warmRuns < 3)
      lines.push(
        `  warm: ${p.warmRuns} run(s) per side give no interval worth a verdict: every warm comparison will be inconclusive (protocol.warmRuns ≥ 3, better 7)`,
      );
    else if (p.warmRuns < 7)
      lines.push(
        `  warm: ${p.warmRuns} runs per side: intervals wide on a noisy host; 7 or more decide smaller changes`,
      );
    if (p.coldRuns < 3)
      lines.push(
        `  cold: ${p.coldRuns} run(s) per side, fewer than the 3 a cold verdict needs: the first pass leaves cold comparisons inconclusive, and only the adaptive step's re-run (within its budget) can decide them (protocol.coldRuns ≥ 3 for first-pass cold verdicts)`,
      );
  }
  lines.push(
    rep > 1
      ? `  ingest: the loads of the ${rep} repetitions per setup; disk: exact`
      : "  ingest: one load per cell: its interval is the A/A control's load-to-load noise (decisive only for large changes); disk: exact",
  );
  return lines;
}

/** Median of a list or null (helper for the inputs). */
export const medianOrNull = (xs: readonly number[]) => (xs.length ? median(xs) : null);
