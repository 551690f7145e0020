/**
 * Bisecting a change between two versions, and attributing it: the pure method behind
 * `chbench bisect` / the `bisectVersions` workflow (issue 25). No I/O: the caller measures cells and
 * feeds their figures in; this module says which version to measure next, when two adjacent
 * versions bracket the change, and what carries it. In src/schema (as the grids' `nextStepDecision`):
 * the workflow uses its values, and workflow code imports values only from src/schema and src/workflows.
 *
 * ## Versions
 * Over `versions` (ordered oldest → newest, index 0 = the good end, last = the bad end) both ends are
 * measured first; if they do not differ the bisect stops ("no change between the ends"). Then the
 * probe is the midpoint of the open interval (lo, hi) between the last version known to be like the
 * good end and the first known to be like the bad end. A version that cannot run the workload is
 * skipped (named in the result) and the next probe is the untried version nearest the midpoint.
 * Done when no untried version is left strictly between lo and hi: they bracket the change. At most
 * ⌈log2 N⌉ + 2 cells are run for N versions (skipped versions aside), {@link bisectBudget}.
 *
 * ## Judging a probe
 * - `read_rows` (a deterministic work counter, `system.query_log.read_rows` of the last warm run):
 *   one run decides — equal to the good end's figure → good side, equal to the bad end's → bad side,
 *   any other value → bad side too (it differs from the good end), said in the step's reason.
 * - timings: the caller judges with the comparison method (`compareSamples` of ./compare.ts, good end
 *   as baseline) and passes `changed` true/false, or `undecided` for an `unstable` verdict: the
 *   bisect then stops with "could not decide at <version>"; it never re-runs for a verdict it likes.
 *
 * ## Attribution
 * For the bracketing pair (older O, newer N): N re-run with `compatibility = O` ({@link attributionStart}).
 * Still like N → "engine code (defaults pinned, still changed)". Like O → the change is in a default:
 * the settings whose defaults differ between O and N are halved ({@link nextSettingsProbe}): N runs
 * with the first half set to O's values; like O → the cause is in that half, else in the other. One
 * setting left → "default change: <setting> <old>→<new> (<N>)". When neither half reproduces
 * (the change needs settings together) → "could not attribute: …".
 */

/** What a measured probe looked like. */
export type ProbeSide = 'good' | 'bad' | 'skipped' | 'undecided';

/** One step of the bisect, in the order run. */
export interface BisectStep {
  /** Version label (e.g. `26.3`). */
  version: string;
  /** Index in the ordered versions. */
  index: number;
  side: ProbeSide;
  /** The figure measured (e.g. `read_rows 41,012`), or why the version was skipped. */
  figure: string;
  /** Why this side (in words, with the figures compared). */
  reason: string;
  /**
   * Time metrics: the step's confirming interleaved re-run, run when the first pass said
   * `regression` / `improvement` (one per step at most): its verdict, whether it confirmed the first
   * pass, and the reason with ratio, CI and threshold; `error` when the re-run could not be done.
   * The first pass is in `figure` / `reason`.
   */
  confirmation?: { verdict: string; confirmed: boolean; final: string; reason: string; rounds: number; error?: string };
  /** Set when the step's cell was not run but reused from a stored run (same spec, workload files and host kind). */
  reusedFrom?: { runId: string; cellKey: string };
  /**
   * Time metrics, histories from `patched('bisect-verdicts')` on: the step's verdict against the good
   * end ({@link judgeStep}) — from the interleaved re-run when one ran, else from the first pass.
   */
  verdict?: StepJudgement;
  /**
   * Time metrics: the host's load during the step cell's runs of the query, in words
   * (`metrics-end.json` `local_bottleneck`: other processes' cores = /proc/stat busy share × cores − the
   * engine's own cores), `disturbed` when at or over the limit; absent for a remote server.
   */
  hostLoad?: { words: string; disturbed: boolean };
}

/** A time step's verdict against the good end, in the vocabulary of the matrix verdicts. */
export type StepVerdict = 'faster' | 'slower' | 'unchanged' | 'inconclusive';

/** One time step judged ({@link judgeStep}): the verdict, ratio new/good end (medians), its 95 % interval, the band. */
export interface StepJudgement {
  verdict: StepVerdict;
  ratio: number | null;
  low: number | null;
  high: number | null;
  /** The noise threshold as a relative change (0.1 = ±10 %): the comparison's, learned from the good end's runs, at least `minChange`. */
  threshold: number | null;
  /** Which samples: `first pass` (the two cells' own runs) or `re-run` (the interleaved confirming re-run). */
  from: 'first pass' | 're-run';
  reason: string;
}

const r3 = (x: number) => x.toFixed(3);

/** A step's ratio and 95 % interval in words (`1.702 [1.190, 2.030]`), or null without an interval. */
export function intervalWords(v: Pick<StepJudgement, 'ratio' | 'low' | 'high'>): string | null {
  return v.ratio !== null && v.low !== null && v.high !== null
    ? `${r3(v.ratio)} [${r3(v.low)}, ${r3(v.high)}]`
    : null;
}

/** A step's verdict in words: `slower 1.702 [1.190, 2.030] (re-run)`. */
export function verdictWords(v: StepJudgement): string {
  const iv = intervalWords(v);
  return `${v.verdict}${iv ? ` ${iv}` : ''} (${v.from})`;
}

/** What {@link judgeStep} reads of a comparison (`compareSamples` of src/measure/compare.ts). */
export interface StepComparison {
  verdict: 'regression' | 'improvement' | 'unchanged' | 'unstable';
  reason: string;
  ratio: number | null;
  ci_low: number | null;
  ci_high: number | null;
  threshold: number | null;
  n_baseline: number;
  n_new: number;
}

/**
 * Judge a time step against the good end by its interval, as the matrix verdicts do:
 * - `slower` / `faster` — the comparison's own verdict (its interval lies beyond 1 ± threshold, or far
 *   beyond an unstable good end's noise);
 * - `unchanged` — the interval lies inside [1/(1 + t), 1 + t] (t = the threshold) *and* that band is
 *   narrower than the change between the ends (`endsRatio`, when known): equivalence shown at the
 *   stated band, never "nothing significant";
 * - `inconclusive` — anything else: too few runs (below `minRuns`; one cold run is never a verdict), a
 *   good end too noisy for a band (the comparison's `unstable`), an interval that straddles the band, a
 *   band as wide as the ends' change, or runs the host disturbed.
 * Pure.
 */
export function judgeStep(
  c: StepComparison,
  opts: { from: StepJudgement['from']; disturbed?: string; endsRatio?: number },
): StepJudgement {
  const base = { ratio: c.ratio, low: c.ci_low, high: c.ci_high, threshold: c.threshold, from: opts.from };
  const iv = intervalWords({ ratio: c.ratio, low: c.ci_low, high: c.ci_high });
  if (opts.disturbed)
    return {
      ...base,
      verdict: 'inconclusive',
      reason: `${iv ?? 'no interval'} from runs the host disturbed (${opts.disturbed}): never a verdict`,
    };
  if (c.verdict === 'regression' || c.verdict === 'improvement')
    return { ...base, verdict: c.verdict === 'regression' ? 'slower' : 'faster', reason: c.reason };
  if (iv === null || c.threshold === null)
    return { ...base, verdict: 'inconclusive', reason: `no interval: ${c.reason}` };
  // Too few runs, or a good end too noisy to learn a band from: never a verdict.
  if (c.verdict === 'unstable') return { ...base, verdict: 'inconclusive', reason: `${iv}: ${c.reason}` };
  const t = c.threshold;
  const inside = c.ci_low! >= 1 / (1 + t) && c.ci_high! <= 1 + t;
  const ends = opts.endsRatio;
  const bandTooWide = ends !== undefined && (ends >= 1 ? 1 + t >= ends : 1 / (1 + t) <= ends);
  if (inside && !bandTooWide)
    return {
      ...base,
      verdict: 'unchanged',
      reason: `${iv} inside ±${(t * 100).toFixed(1)} % (the good end's noise threshold)${ends !== undefined ? `, narrower than the ends' ${r3(ends)}` : ''}`,
    };
  return {
    ...base,
    verdict: 'inconclusive',
    reason: bandTooWide
      ? `${iv}: the noise band ±${(t * 100).toFixed(1)} % is as wide as the ends' change ${r3(ends!)}, so this step cannot tell them apart`
      : `${iv} straddles ±${(t * 100).toFixed(1)} %: neither beyond nor inside the band`,
  };
}

/** The bisect's state: immutable, each `record` returns a new one. */
export interface BisectState {
  versions: string[];
  /** Index of the newest version known to be like the good end. */
  lo: number;
  /** Index of the oldest version known to be like the bad end. */
  hi: number;
  steps: BisectStep[];
  /** Set when the bisect stopped without a bracket (ends alike, undecided probe). */
  stopped?: string;
}

/** The most cells a bisect over `n` versions runs (skipped versions aside): ⌈log2 n⌉ + 2. */
export function bisectBudget(n: number): number {
  return n <= 1 ? n : Math.ceil(Math.log2(n)) + 2;
}

/**
 * The versions between `good` and `bad` (both included), oldest first, out of `all` (any order;
 * labels `<major>.<minor>[.<patch>…]`; a label longer than another it extends names the same build). @throws Error when a label is not in `all` or good is not older than bad.
 */
export function versionRange(all: readonly string[], good: string, bad: string): string[] {
  // A source lists one build under several labels (`26.7`, `26.7.2`, `26.7.2.1`): keep the shortest.
  const labels = [...new Set(all)];
  const canonical = (l: string) =>
    labels
      .filter((x) => x.split('.').length >= 2 && `${l}.`.startsWith(`${x}.`))
      .sort((a, b) => a.length - b.length)[0] ?? l;
  const sorted = [...new Set(labels.map(canonical))].sort(compareVersions);
  const g = sorted.indexOf(canonical(good));
  const b = sorted.indexOf(canonical(bad));
  if (g < 0) throw new Error(`--good ${good}: not a version the target can serve (${sorted.join(', ')})`);
  if (b < 0) throw new Error(`--bad ${bad}: not a version the target can serve (${sorted.join(', ')})`);
  if (g >= b) throw new Error(`--good ${good} must be older than --bad ${bad}`);
  return sorted.slice(g, b + 1);
}

/** Numeric order of version labels (`23.10` < `24.8` < `24.10`). */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d) return d;
  }
  return 0;
}

/** A new bisect over `versions` (oldest first, at least 2). @throws Error with fewer than 2. */
export function startBisect(versions: readonly string[]): BisectState {
  if (versions.length < 2) throw new Error(`bisect needs at least 2 versions, got ${versions.length}`);
  return { versions: [...versions], lo: 0, hi: versions.length - 1, steps: [] };
}

/** Whether both ends are measured (and usable). */
function endsMeasured(s: BisectState): boolean {
  const done = new Set(s.steps.map((x) => x.index));
  return done.has(0) && done.has(s.versions.length - 1);
}

/**
 * The index of the version to measure next: the good end, the bad end, then the untried version
 * nearest the midpoint of (lo, hi); null when the bisect is over (bracketed or stopped).
 */
export function nextProbe(s: BisectState): number | null {
  if (s.stopped) return null;
  const tried = new Set(s.steps.map((x) => x.index));
  if (!tried.has(0)) return 0;
  if (!tried.has(s.versions.length - 1)) return s.versions.length - 1;
  const open: number[] = [];
  for (let i = s.lo + 1; i < s.hi; i++) if (!tried.has(i)) open.push(i);
  if (!open.length) return null;
  const mid = (s.lo + s.hi) / 2;
  // Nearest the midpoint; on a tie the older one (a deterministic choice).
  return open.reduce((best, i) => (Math.abs(i - mid) < Math.abs(best - mid) ? i : best), open[0]);
}

/**
 * Record the probe at `index`. For an end: `side` is `good` for index 0 and `bad` for the last, or
 * `skipped` (the bisect stops: an end that cannot run cannot be compared with). Pass the ends' own
 * comparison through {@link recordEnds} instead when they turn out alike.
 */
export function record(s: BisectState, step: Omit<BisectStep, 'version'>): BisectState {
  const last = s.versions.length - 1;
  const full: BisectStep = { ...step, version: s.versions[step.index] };
  const next: BisectState = { ...s, steps: [...s.steps, full] };
  if (step.index === 0 || step.index === last) {
    if (step.side === 'skipped')
      next.stopped = `the ${step.index === 0 ? 'good' : 'bad'} end ${full.version} cannot run the workload: ${step.figure}`;
    return next;
  }
  if (step.side === 'good') next.lo = Math.max(s.lo, step.index);
  else if (step.side === 'bad') next.hi = Math.min(s.hi, step.index);
  else if (step.side === 'undecided') next.stopped = `could not decide at ${full.version}: ${step.reason}`;
  return next;
}

/** The ends were measured and do not differ: the bisect stops, saying so. */
export function endsAlike(s: BisectState, why: string): BisectState {
  return { ...s, stopped: `no change between ${s.versions[0]} and ${s.versions[s.versions.length - 1]}: ${why}` };
}

/** The outcome of a finished bisect. */
export interface BisectOutcome {
  /** The bracketing pair [older, newer], absent when the bisect stopped. */
  bracket?: [string, string];
  /** Why there is no bracket. */
  stopped?: string;
  /** Versions in the range that could not run the workload (named in the report). */
  skipped: string[];
  /** Cells measured (skipped versions not counted). */
  cellsRun: number;
}

/** The outcome of `s` (call when {@link nextProbe} is null). */
export function bisectOutcome(s: BisectState): BisectOutcome {
  const skipped = s.steps.filter((x) => x.side === 'skipped').map((x) => x.version);
  const cellsRun = s.steps.filter((x) => x.side !== 'skipped').length;
  if (s.stopped || !endsMeasured(s)) return { stopped: s.stopped ?? 'ends not measured', skipped, cellsRun };
  return { bracket: [s.versions[s.lo], s.versions[s.hi]], skipped, cellsRun };
}

/**
 * Judge a deterministic work counter (read_rows) against both ends: one run decides.
 * @returns `good` when equal to the good end's figure, else `bad`, with the reason.
 */
export function judgeCounter(good: number, probe: number, bad: number): { side: 'good' | 'bad'; reason: string } {
  const f = (x: number) => x.toLocaleString('en-US');
  if (probe === good) return { side: 'good', reason: `${f(probe)} = good end's ${f(good)}` };
  if (probe === bad) return { side: 'bad', reason: `${f(probe)} = bad end's ${f(bad)}` };
  return { side: 'bad', reason: `${f(probe)} differs from the good end's ${f(good)} (bad end ${f(bad)})` };
}

// ---------------------------------------------------------------------------------------------
// Attribution

/** One setting whose default differs between the bracketing pair (`system.settings.default` of both servers). */
export interface DefaultDiff {
  name: string;
  /** Default on the older version. */
  old: string;
  /** Default on the newer version. */
  new: string;
  /**
   * Set when the value on either side was set by hand (the bisect input's `handSettings`), not a
   * server default: the verdict says so.
   */
  byHand?: boolean;
  /**
   * Set when the setting does not exist on the older server: the newer server's
   * `system.settings_changes` lists it as changed in this version (after the older, at or before the
   * newer), and `old` is its `previous_value` there — the value `compatibility = <older>` gives it.
   */
  newIn?: string;
}

/**
 * The settings each side ran with, where hand-set settings (`handSettings` of the bisect input, per
 * version label) are counted as that side's defaults: `diffs` (from both servers'
 * `system.settings.default`) with each hand-set name's values replaced (old: the older side's hand
 * value, else its default; new: likewise), and the hand-set names that differ added. A hand-set
 * name whose two values are equal is dropped. Sorted by name.
 */
export function withHandSettings(
  diffs: readonly DefaultDiff[],
  olderDefaults: Record<string, string> | null,
  newerDefaults: Record<string, string> | null,
  olderHand: Record<string, string | number>,
  newerHand: Record<string, string | number>,
): DefaultDiff[] {
  const hand = new Set([...Object.keys(olderHand), ...Object.keys(newerHand)]);
  const out = diffs.filter((d) => !hand.has(d.name));
  for (const name of hand) {
    const before = sideValue(name, olderHand, olderDefaults, diffs, 'old');
    const after = sideValue(name, newerHand, newerDefaults, diffs, 'new');
    if (before !== undefined && after !== undefined && before !== after)
      out.push({ name, old: before, new: after, byHand: true });
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function sideValue(
  name: string,
  hand: Record<string, string | number>,
  defaults: Record<string, string> | null,
  diffs: readonly DefaultDiff[],
  side: 'old' | 'new',
): string | undefined {
  if (name in hand) return String(hand[name]);
  return defaults?.[name] ?? diffs.find((x) => x.name === name)?.[side];
}

/**
 * The hand-set settings that apply to `version` out of `handSettings` (version label → settings):
 * those of the newest label at or before it (a hand-made "default change" at that label holds for
 * the versions after it), empty when none is at or before it.
 */
export function handSettingsOf(
  handSettings: Record<string, Record<string, string | number>> | undefined,
  version: string,
): Record<string, string | number> {
  const labels = Object.keys(handSettings ?? {})
    .filter((l) => compareVersions(l, version) <= 0)
    .sort(compareVersions);
  return labels.length ? handSettings![labels[labels.length - 1]] : {};
}

/**
 * Settings new in the newer server that `compatibility = <older>` turns back: names absent from the
 * older server's settings whose latest `system.settings_changes` entry (session settings, newer
 * server) in a version after `olderVersion` and at or before `newerVersion` gives a `previous_value`
 * different from the newer default. `old` = that previous value (the "off" value). Sorted by name.
 */
export function newSettingsTurnedOn(
  older: Record<string, string>,
  newer: Record<string, string>,
  changes: readonly { type: string; version: string; name: string; previous_value: string }[],
  olderVersion: string,
  newerVersion: string,
): DefaultDiff[] {
  const latest = new Map<string, { version: string; previous: string }>();
  for (const c of changes) {
    if (c.type !== 'Session' || c.name in older || !(c.name in newer)) continue;
    if (compareVersions(c.version, olderVersion) <= 0 || compareVersions(c.version, newerVersion) > 0) continue;
    const seen = latest.get(c.name);
    // The earliest change after the older version holds the value the older behaviour had.
    if (!seen || compareVersions(c.version, seen.version) < 0) latest.set(c.name, { version: c.version, previous: c.previous_value });
  }
  return [...latest.entries()]
    .filter(([n, c]) => c.previous !== newer[n])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, c]) => ({ name, old: c.previous, new: newer[name], newIn: c.version }));
}

/** The settings whose defaults differ, from both servers' `system.settings` defaults (name → default). */
export function differingDefaults(older: Record<string, string>, newer: Record<string, string>): DefaultDiff[] {
  return Object.keys(newer)
    .filter((n) => n in older && older[n] !== newer[n])
    .sort()
    .map((n) => ({ name: n, old: older[n], new: newer[n] }));
}

/** The attribution's state over the candidate settings. */
export interface AttributionState {
  /** Settings that may carry the change. */
  candidates: DefaultDiff[];
  /** Each probe run: the settings set to the older values, and whether the change disappeared. */
  probes: {
    settings: string[];
    disappeared: boolean;
    /** Time metrics, from `patched('bisect-verdicts')` on: the probe's verdict against the older version, in words. */
    evidence?: string;
  }[];
  verdict?: string;
}

/**
 * After the pinned re-run (newer version with `compatibility = older`): `disappeared` says whether
 * its figure is like the older version's.
 */
export function attributionStart(
  diffs: DefaultDiff[],
  disappeared: boolean,
  pair: [string, string],
  pinnedFigure: string,
): AttributionState {
  const probes = [{ settings: [`compatibility=${pair[0]}`], disappeared }];
  if (!disappeared) return { candidates: [], probes, verdict: 'engine code (defaults pinned, still changed)' };
  if (!diffs.length)
    return {
      candidates: [],
      probes,
      verdict: `could not attribute: pinning ${pair[0]}'s defaults removed the change (${pinnedFigure}) but no setting's default differs between the two servers`,
    };
  return finishIfOne({ candidates: diffs, probes }, pair);
}

function finishIfOne(s: AttributionState, pair: [string, string]): AttributionState {
  if (s.candidates.length !== 1) return s;
  const d = s.candidates[0];
  // Only a probe of that one setting alone, which removed the change, names it the cause.
  const shown = s.probes.some((p) => p.disappeared && p.settings.length === 1 && p.settings[0] === d.name);
  return shown
    ? { ...s, verdict: `default change: ${d.name} ${d.old}→${d.new} (${pair[1]}${d.byHand ? ', set by hand' : ''})` }
    : s;
}

/**
 * The settings to set to the older version's values in the next probe: the first half of the
 * candidates, or the last candidate alone (to show it carries the change, not only by elimination);
 * null when the attribution has its verdict.
 */
export function nextSettingsProbe(s: AttributionState): DefaultDiff[] | null {
  if (s.verdict || !s.candidates.length) return null;
  return s.candidates.slice(0, Math.ceil(s.candidates.length / 2));
}

/**
 * Record a settings probe: the newer version run with `probe` set to the older values; `disappeared`
 * when its figure is like the older version's. Removed → the cause is in `probe`; not → in the other
 * candidates. A last candidate that does not remove the change alone → "could not attribute" (the
 * change needs several settings together).
 */
export function recordSettingsProbe(
  s: AttributionState,
  probe: DefaultDiff[],
  disappeared: boolean,
  pair: [string, string],
): AttributionState {
  const names = probe.map((d) => d.name);
  const probes = [...s.probes, { settings: names, disappeared }];
  const inProbe = new Set(names);
  const candidates = s.candidates.filter((d) => inProbe.has(d.name) === disappeared);
  if (!candidates.length)
    return {
      candidates: s.candidates,
      probes,
      verdict: `could not attribute: no probe of ${s.candidates.map((d) => d.name).join(', ')} removed the change, while compatibility=${pair[0]} did; the cause is a setting these candidates do not include, or several acting together (not shown by these probes)`,
    };
  return finishIfOne({ candidates, probes }, pair);
}
