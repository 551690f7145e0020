/**
 * The matrix's own verdicts after its cells (issue "Verdicts that hold"): judge every axis the matrix
 * varies (first pass, `verdicts.json`), re-run the pairs whose queries came out faster or slower on fresh
 * cells measured interleaved (`confirmComparison`, child `<runId>/confirm-verdicts`, and
 * `<runId>/confirm-verdicts-cold` for cold runs), and keep only what the re-run confirms. The Decision
 * line goes into the workflow result; the details stay in `verdicts.json`.
 */
import { isCancellation, log, proxyActivities, type ActivityOptions } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ConfirmOutcome, FlaggedPair } from '../schema/comparison';
import type { MatrixResult } from '../schema/progress';
import type { RunSpec } from '../schema/run-spec';
import { VERDICT_DEFAULTS } from '../schema/verdicts';
import { describeFailure } from '../schema/failures';
import { executeConfirmChild } from './confirm-comparison';
import type { MatrixRun } from './matrix-run';

/** Reading the cells' records and writing one file: a minute at most, retried. */
const JUDGE: ActivityOptions = {
  startToCloseTimeout: '10 minutes',
  retry: { initialInterval: '2s', maximumAttempts: 5 },
};
const { judgeVerdicts, planVerdictConfirmation, finishVerdicts } = proxyActivities<Activities>(JUDGE);

/** Re-run the flagged pairs of one kind of run; pairs past the budget or not re-run get their reason in `notRun`. */
async function confirmKind(
  runId: string,
  spec: RunSpec,
  kind: 'warm' | 'cold',
  flagged: FlaggedPair[],
  budget: number,
  notRun: Record<string, string>,
): Promise<ConfirmOutcome[]> {
  const o = spec.verdicts ?? VERDICT_DEFAULTS;
  if (!flagged.length) return [];
  if (o.confirmRounds === 0) {
    for (const f of flagged)
      notRun[f.pairKey] =
        'no interleaved re-run (verdicts.confirmRounds 0): nothing is published as faster or slower unconfirmed';
    return [];
  }
  const take = flagged.slice(0, Math.max(0, budget));
  for (const f of flagged.slice(take.length))
    notRun[f.pairKey] =
      `not re-run: the confirmation budget of ${o.confirmPairs} cell pairs (verdicts.confirmPairs) was spent`;
  if (!take.length) return [];
  const db = { resultsDir: spec.resultsDir, runId };
  try {
    const plans = await planVerdictConfirmation.executeWithOptions(
      { ...JUDGE, summary: `plan the ${kind} verdicts' re-run` },
      [{ ...db, flagged: take, prefix: kind === 'cold' ? 'vc' : 'v' }],
    );
    return await executeConfirmChild(
      runId,
      `${runId}/confirm-verdicts${kind === 'cold' ? '-cold' : ''}`,
      {
        pairs: plans,
        rounds: o.confirmRounds,
        ...(kind === 'cold' ? { kind: 'cold' as const } : {}),
        // A spec stored before the budget existed has none: every round, as then.
        ...(o.confirmSeconds !== undefined ? { maxSeconds: o.confirmSeconds } : {}),
      },
      `confirm verdicts (${kind}): ${take.map((f) => `${f.pairKey} ${f.queries.map((q) => q.query_id.toUpperCase()).join(', ')}`).join('; ')}, interleaved ×${o.confirmRounds}${o.confirmSeconds !== undefined ? ` within ${o.confirmSeconds} s` : ''}`,
    );
  } catch (err) {
    if (isCancellation(err)) throw err;
    const why = `its re-run failed: ${describeFailure(err)}`;
    for (const f of take) notRun[f.pairKey] = why;
    return [];
  }
}

/**
 * Judge the matrix's axes, confirm the faster/slower verdicts interleaved, write the final `verdicts.json`.
 * @returns the Decision line, the A/A control's count and the verdict counts; a note when the step failed.
 * @throws a cancellation (the report is still written by the caller).
 */
export async function judgeMatrixVerdicts(
  run: MatrixRun,
  spec: RunSpec,
  runId: string,
): Promise<NonNullable<MatrixResult['verdicts']>> {
  const db = { resultsDir: spec.resultsDir, runId };
  run.enter('verdicts');
  try {
    const first = await judgeVerdicts.executeWithOptions(
      { ...JUDGE, summary: 'verdicts: every axis against its reference, A/A control' },
      [db],
    );
    const o = spec.verdicts ?? VERDICT_DEFAULTS;
    const notRun: Record<string, string> = {};
    const confirm: ConfirmOutcome[] = [];
    if (first.warm.length || first.cold.length) run.enter('confirm');
    confirm.push(...(await confirmKind(runId, spec, 'warm', first.warm, o.confirmPairs, notRun)));
    confirm.push(
      ...(await confirmKind(
        runId,
        spec,
        'cold',
        first.cold,
        o.confirmPairs - Math.min(first.warm.length, o.confirmPairs),
        notRun,
      )),
    );
    const final = await finishVerdicts.executeWithOptions(
      { ...JUDGE, summary: 'verdicts: keep what the interleaved re-run confirmed' },
      [{ ...db, confirm, notRun }],
    );
    const failed = Object.values(notRun).find((w) => w.startsWith('its re-run failed'));
    return { ...final, ...(failed ? { note: failed } : {}) };
  } catch (err) {
    if (isCancellation(err)) throw err;
    const why = describeFailure(err);
    log.warn('verdicts: not judged', { runId, error: why });
    return { decision: 'no verdicts', control: 'no A/A control', counts: {}, note: `the verdicts step failed: ${why}` };
  }
}
