/**
 * The bisect over versions (`bisectVersions`, step 3): both ends first, then the midpoints
 * (`nextProbe` of src/schema/bisect.ts), each version's cell measured once and its step recorded —
 * by read_rows (one run decides), or by time: as a verdict with its interval (`verdictStep`, from
 * `patched('bisect-verdicts')` on), or by the first pass and a confirming re-run of a changed one
 * (`firstPassStep`, histories before it). Workflow code: deterministic.
 */
import { endsAlike, nextProbe, record, startBisect, type BisectState, type BisectStep } from '../schema/bisect';
import type { Verdict } from '../schema/comparison';
import type { BisectComparison } from '../activities/bisect/bisect';
import { confirmProbe, judgeProbe, loadOf, type Measured } from './bisect-judge';
import type { BisectContext } from './bisect-context';

/** The probes' state: the bisect, the cells by version index, the change between the ends (time metrics). */
export interface ProbeState {
  s: BisectState;
  byIndex: Map<number, Measured>;
  /** The direction of the change between the ends. */
  endsVerdict?: Verdict;
  /** The change between the ends, ratio bad/good (verdicts): an `unchanged` step needs a band narrower than it. */
  endsRatio?: number;
}

/** The comparison's figure in words, with its source. */
export function timeFigure(c: BisectComparison, metric: 'warm' | 'cold'): string {
  const src =
    c.figure === 'server_elapsed_ms' ? `server-side elapsed (${c.sources.join(', ') || 'server'})` : 'client wall time';
  const ms = (x: number | null) => (x === null ? 'n/a' : `${x.toFixed(1)} ms`);
  return `${metric} median ${ms(c.median_new_ms)} vs good end ${ms(c.median_baseline_ms)}, ${src}, n ${c.n_new}/${c.n_baseline}`;
}

/** The comparison's verdict and statistics in words. */
function timeReason(c: BisectComparison): string {
  return `${c.verdict}: ${c.reason}${c.problem ? ` (${c.problem})` : ''}`;
}

/** Measure and record every probe until the bisect brackets the change or stops. */
export async function probeVersions(ctx: BisectContext): Promise<ProbeState> {
  const st: ProbeState = { s: startBisect(ctx.versions), byIndex: new Map() };
  for (let i = nextProbe(st.s); i !== null; i = nextProbe(st.s)) {
    const m = await ctx.measure(ctx.cells[i]);
    st.byIndex.set(i, m);
    if (ctx.timeMetric && m.problem)
      st.s = record(st.s, { index: i, side: 'skipped', figure: m.problem, reason: 'cannot run the workload' });
    else if (ctx.timeMetric && i === 0) {
      const load = loadOf(m, ctx.timeMetric);
      st.s = record(st.s, {
        index: 0,
        side: 'good',
        figure: `${ctx.timeMetric} runs: the baseline of every step's comparison`,
        reason: 'good end',
        ...(ctx.verdicts && load
          ? { hostLoad: { ...load, words: `${load.disturbed ? 'disturbed' : 'quiet'}: ${load.words}` } }
          : {}),
      });
    } else if (ctx.timeMetric && ctx.verdicts) await verdictStep(ctx, st, i, m);
    else if (ctx.timeMetric) await firstPassStep(ctx, st, i, m);
    else readRowsStep(ctx, st, i, m);
  }
  return st;
}

/**
 * A time step judged as a verdict against the good end (`judgeProbe`): re-run interleaved unless
 * `unchanged`; `inconclusive` stops the bisect; the bad end's verdict sets the ends' change.
 */
async function verdictStep(ctx: BisectContext, st: ProbeState, i: number, m: Measured): Promise<void> {
  const { versions, query, runId } = ctx;
  const metric = ctx.timeMetric!;
  const last = versions.length - 1;
  const pj = await judgeProbe(
    ctx.judge,
    st.byIndex.get(0)!,
    m,
    {
      baseline: ctx.cells[0],
      candidate: ctx.cells[i],
      tag: `v${versions[i]}`,
      idSuffix: versions[i],
      seedKey: `${runId}|${versions[i]}|${query}|${metric}`,
      summary: `bisect re-run: ${query} on ${versions[0]} and ${versions[i]}, interleaved ×${ctx.judge.rounds}${metric === 'cold' ? ' cold runs' : ''}`,
    },
    i === last ? undefined : st.endsRatio,
  );
  const vd = pj.verdict;
  const { comparison: _c, ...confirmation } = pj.confirmation ?? { comparison: undefined };
  const extra = {
    verdict: vd,
    ...(pj.hostLoad ? { hostLoad: pj.hostLoad } : {}),
    ...(pj.confirmation ? { confirmation: confirmation as NonNullable<BisectStep['confirmation']> } : {}),
  };
  const figure = timeFigure(pj.firstPass, metric);
  if (i === last) {
    if (vd.verdict === 'inconclusive') {
      st.s = record(st.s, { index: i, side: 'undecided', figure, reason: vd.reason, ...extra });
      st.s = { ...st.s, stopped: `inconclusive at the bad end ${versions[i]}: ${vd.reason}` };
    } else {
      st.s = record(st.s, { index: i, side: 'bad', figure, reason: `bad end, ${vd.verdict}: ${vd.reason}`, ...extra });
      if (vd.verdict === 'unchanged') st.s = endsAlike(st.s, `${metric} time unchanged: ${vd.reason}`);
      else {
        st.endsVerdict = vd.verdict === 'slower' ? 'regression' : 'improvement';
        st.endsRatio = vd.ratio ?? undefined;
      }
    }
    return;
  }
  const side = vd.verdict === 'inconclusive' ? 'undecided' : vd.verdict === 'unchanged' ? 'good' : 'bad';
  const sameWay = (vd.verdict === 'slower') === (st.endsVerdict === 'regression');
  const reason =
    side === 'undecided'
      ? `inconclusive: ${vd.reason}; more interleaved rounds (baseline.confirmRounds) or a quieter host would decide it`
      : side === 'good'
        ? `like the good end, unchanged: ${vd.reason}`
        : sameWay
          ? `${vd.verdict}: ${vd.reason}`
          : `${vd.verdict}, the other way than the bad end: ${vd.reason}`;
  st.s = record(st.s, { index: i, side, figure, reason, ...extra });
}

/**
 * A time step as histories before `patched('bisect-verdicts')` judged it: the comparison's first
 * pass; a changed one re-run once (with `patched('bisect-confirm-time')`) and the step takes the
 * comparison's final verdict; `unstable` or `unconfirmed` stops the bisect.
 */
async function firstPassStep(ctx: BisectContext, st: ProbeState, i: number, m: Measured): Promise<void> {
  const { versions, query, runId } = ctx;
  const metric = ctx.timeMetric!;
  const last = versions.length - 1;
  const c = await ctx.compareOf(st.byIndex.get(0)!, m);
  const figure = timeFigure(c, metric);
  // A changed first pass is confirmed by the comparison's interleaved re-run before the bisect
  // takes its direction (once; the step's verdict is then the comparison's final one).
  let confirmation: NonNullable<BisectStep['confirmation']> | undefined;
  if (ctx.confirmTime && (c.verdict === 'regression' || c.verdict === 'improvement')) {
    const { comparison: _c, ...done } = await confirmProbe(
      ctx.judge,
      {
        baseline: ctx.cells[0],
        candidate: ctx.cells[i],
        tag: `v${versions[i]}`,
        idSuffix: versions[i],
        seedKey: `${runId}|${versions[i]}|${query}|${metric}`,
      },
      c.verdict,
      `bisect confirming re-run: ${query} on ${versions[0]} and ${versions[i]}, interleaved ×${ctx.judge.rounds}${metric === 'cold' ? ' cold runs' : ''}`,
    );
    confirmation = done;
  }
  const final: Verdict | 'unconfirmed' = confirmation ? (confirmation.final as Verdict | 'unconfirmed') : c.verdict;
  const why = confirmation
    ? `first pass ${timeReason(c)}; ${confirmation.error ? `re-run not done: ${confirmation.error}` : confirmation.reason}`
    : timeReason(c);
  const conf = confirmation ? { confirmation } : {};
  if (i === last) {
    if (final === 'unstable' || final === 'unconfirmed') {
      st.s = record(st.s, { index: i, side: 'undecided', figure, reason: why, ...conf });
      st.s = { ...st.s, stopped: `${final} at the bad end ${versions[i]}: ${confirmation ? why : c.reason}` };
    } else {
      st.s = record(st.s, { index: i, side: 'bad', figure, reason: `bad end, ${why}`, ...conf });
      if (final === 'unchanged') st.s = endsAlike(st.s, `${metric} time ${why}`);
      else st.endsVerdict = final;
    }
    return;
  }
  const side = final === 'unstable' || final === 'unconfirmed' ? 'undecided' : final === 'unchanged' ? 'good' : 'bad';
  const reason =
    final === 'unchanged'
      ? `like the good end, ${why}`
      : final === st.endsVerdict || side === 'undecided'
        ? why
        : `differs from the good end the other way than the bad end, ${why}`;
  st.s = record(st.s, { index: i, side, figure, reason, ...conf });
}

/** A read_rows step: a deterministic work counter, one run decides (equal to the good end's figure or not). */
function readRowsStep(ctx: BisectContext, st: ProbeState, i: number, m: Measured): void {
  const last = ctx.versions.length - 1;
  if (m.readRows === null) {
    st.s = record(st.s, {
      index: i,
      side: 'skipped',
      figure: m.problem ?? 'no read_rows',
      reason: 'cannot run the workload',
    });
    return;
  }
  const figure = `read_rows ${m.readRows.toLocaleString('en-US')}`;
  if (i === 0 || i === last) {
    st.s = record(st.s, { index: i, side: i === 0 ? 'good' : 'bad', figure, reason: i === 0 ? 'good end' : 'bad end' });
    const g = st.byIndex.get(0)?.readRows;
    const b = st.byIndex.get(last)?.readRows;
    if (g != null && b != null && g === b)
      st.s = endsAlike(st.s, `read_rows ${g.toLocaleString('en-US')} at both ends`);
    return;
  }
  const g = st.byIndex.get(0)!.readRows!;
  const b = st.byIndex.get(last)!.readRows!;
  const side = m.readRows === g ? 'good' : 'bad';
  const reason =
    m.readRows === g
      ? `= good end's ${g.toLocaleString('en-US')}`
      : m.readRows === b
        ? `= bad end's ${b.toLocaleString('en-US')}`
        : `differs from the good end's ${g.toLocaleString('en-US')} (bad end ${b.toLocaleString('en-US')})`;
  st.s = record(st.s, { index: i, side, figure, reason });
}
