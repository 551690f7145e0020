/**
 * Judging one probe of a time bisect (`bisectVersions` with `--metric warm | cold`): the first pass
 * over the two cells' own runs (`bisectCompare`), the interleaved confirming re-run on two fresh
 * cells (`confirmComparison` child, judged by `bisectConfirm`), and the step's verdict in the
 * matrix verdicts' vocabulary (`judgeStep` of src/schema/bisect.ts: faster | slower | unchanged |
 * inconclusive, with its interval). Workflow code: deterministic, activities and children only.
 */
import { isCancellation } from '@temporalio/workflow';
import type { CellInput, CellOutcome } from '../schema/cell';
import type { ConfirmOutcome } from '../schema/comparison';
import { describeFailure } from '../schema/failures';
import { judgeStep, type BisectStep, type StepComparison, type StepJudgement } from '../schema/bisect';
import type { BisectComparison, BisectFigure } from '../results/bisect-cells';
import type { BisectConfirmation, BisectConfirmInput } from '../results/bisect-steps';
import { executeConfirmChild } from './confirm-comparison';

/** A measured cell of the bisect: its outcome and the query's figure (`bisectFigure`). */
export interface Measured {
  outcome: CellOutcome;
  readRows: number | null;
  problem?: string;
  reusedFrom?: { runId: string; cellKey: string };
  hostLoad?: BisectFigure['hostLoad'];
}

/** A step's confirming re-run as the step records it (`BisectStep.confirmation`), with its comparison. */
export type Confirmation = NonNullable<BisectStep['confirmation']> & { comparison?: StepComparison };

/** What judging needs from the workflow: its activities and where the re-run's cells go. */
export interface JudgeContext {
  runId: string;
  query: string;
  metric: 'warm' | 'cold';
  /** Interleaved rounds of a re-run (`baseline.confirmRounds`, default 12; 0 = none). */
  rounds: number;
  /** Seconds budget of a re-run's rounds (`verdicts.confirmSeconds`, default 1,200 s). */
  maxSeconds: number;
  /** The comparison's thresholds (the spec's `baseline` options, else their defaults). */
  thresholds: { minChange: number; unstableAbove: number; minRuns: number };
  compare: (older: Measured, newer: Measured) => Promise<BisectComparison>;
  confirm: (input: BisectConfirmInput) => Promise<BisectConfirmation>;
}

/** The host load of `m`'s runs of the bisected kind, when recorded. */
export function loadOf(m: Measured, metric: 'warm' | 'cold'): { words: string; disturbed: boolean } | undefined {
  return m.hostLoad?.[metric];
}

/**
 * The confirming re-run of `candidate` against `baseline`: both re-keyed into `<runId>.confirm`
 * (`<tag>-baseline` / `<tag>-new`, the query only, always torn down), measured interleaved by a
 * `confirmComparison` child (`<runId>/confirm-<idSuffix>`), judged by `bisectConfirm` against the
 * first pass's direction. A re-run that cannot be done gives `final` `unconfirmed` with its error.
 */
export async function confirmProbe(
  ctx: JudgeContext,
  pair: { baseline: CellInput; candidate: CellInput; tag: string; idSuffix: string; seedKey: string },
  firstPass: 'regression' | 'improvement',
  summary: string,
): Promise<Confirmation> {
  const { query, runId } = ctx;
  const rekey = (c: CellInput, side: string): CellInput => ({
    ...c,
    runId: `${runId}.confirm`,
    cellKey: `${pair.tag}-${side}`,
    queries: [query],
    skipIndex: false,
    afterLoad: c.afterLoad,
    teardown: 'always',
    placement: undefined,
  });
  const notDone = (error: string, reason: string): Confirmation => ({
    verdict: 'none',
    confirmed: false,
    final: 'unconfirmed',
    reason,
    rounds: 0,
    error,
  });
  if (ctx.rounds === 0)
    return notDone('confirmRounds 0', 'no confirming re-run: the spec sets baseline.confirmRounds 0');
  let out: ConfirmOutcome[];
  try {
    out = await executeConfirmChild(
      runId,
      `${runId}/confirm-${pair.idSuffix}`,
      {
        pairs: [
          {
            pairKey: pair.tag,
            baseline: rekey(pair.baseline, 'baseline'),
            candidate: rekey(pair.candidate, 'new'),
            phases: { baseline: [query], index: [] },
          },
        ],
        rounds: ctx.rounds,
        maxSeconds: ctx.maxSeconds,
        // A cold time is confirmed by cold runs (an input only: the child's commands are its own).
        ...(ctx.metric === 'cold' ? { kind: 'cold' as const } : {}),
      },
      summary,
    );
  } catch (err) {
    if (isCancellation(err)) throw err;
    out = [{ pairKey: pair.tag, samples: [], error: describeFailure(err) }];
  }
  const error = out[0]?.error;
  const samples = out[0]?.samples.find((x) => x.query_id === query && x.phase === 'baseline');
  if (error || !samples)
    return notDone(error ?? `no samples of ${query}`, `re-run not done: ${error ?? `no samples of ${query}`}`);
  const j = await ctx.confirm({ samples, firstPass, ...ctx.thresholds, seedKey: pair.seedKey });
  return {
    verdict: j.verdict,
    confirmed: j.confirmed,
    final: j.final,
    reason: j.reason,
    rounds: j.rounds,
    comparison: j,
  };
}

/** A probe judged: the first pass, the re-run when one ran, and the verdict that stands. */
export interface ProbeJudgement {
  firstPass: BisectComparison;
  confirmation?: Confirmation;
  verdict: StepJudgement;
  /** The host load of both cells' runs, in words (the older side's first). */
  hostLoad?: { words: string; disturbed: boolean };
}

/**
 * Judge `newer` against `older` (histories from `patched('bisect-verdicts')` on): the first pass by
 * `judgeStep`; anything but `unchanged` — a change to confirm, or an inconclusive pass (too few runs,
 * an interval across the band, runs the host disturbed) that needs more runs — is measured again by
 * the interleaved re-run, which alone then decides (its runs alternate on one host, so the
 * between-start and host-load noise of the first pass does not enter). A re-run that could not be
 * done leaves the step `inconclusive`.
 * @param endsRatio the change between the ends (ratio bad/good), when known: an `unchanged` needs a
 *   band narrower than it
 */
export async function judgeProbe(
  ctx: JudgeContext,
  older: Measured,
  newer: Measured,
  pair: { baseline: CellInput; candidate: CellInput; tag: string; idSuffix: string; seedKey: string; summary: string },
  endsRatio?: number,
): Promise<ProbeJudgement> {
  const loads = [loadOf(older, ctx.metric), loadOf(newer, ctx.metric)].filter((x) => x !== undefined);
  const disturbed = loads
    .filter((l) => l.disturbed)
    .map((l) => l.words)
    .join('; ');
  const hostLoad = loads.length
    ? {
        words: loads.map((l) => `${l.disturbed ? 'disturbed' : 'quiet'}: ${l.words}`).join('; '),
        disturbed: !!disturbed,
      }
    : undefined;
  const firstPass = await ctx.compare(older, newer);
  const first = judgeStep(firstPass, { from: 'first pass', ...(disturbed ? { disturbed } : {}), endsRatio });
  const base = { firstPass, ...(hostLoad ? { hostLoad } : {}) };
  if (first.verdict === 'unchanged') return { ...base, verdict: first };
  const direction = (first.ratio ?? 1) >= 1 ? 'regression' : 'improvement';
  const confirmation = await confirmProbe(ctx, pair, direction, pair.summary);
  if (!confirmation.comparison)
    return {
      ...base,
      confirmation,
      verdict: {
        ...first,
        verdict: 'inconclusive',
        reason: `first pass ${first.verdict} (${first.reason}); the re-run that would decide it was not done: ${confirmation.error ?? confirmation.reason}`,
      },
    };
  const rerun = judgeStep(confirmation.comparison, { from: 're-run', endsRatio });
  const withdrawn = (first.verdict === 'slower' || first.verdict === 'faster') && rerun.verdict !== first.verdict;
  return {
    ...base,
    confirmation,
    verdict: {
      ...rerun,
      reason: `${rerun.reason} (interleaved re-run, ${confirmation.rounds} rounds; first pass ${first.verdict}${withdrawn ? ', withdrawn' : ''}: ${first.reason})`,
    },
  };
}
