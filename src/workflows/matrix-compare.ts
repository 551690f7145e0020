/**
 * The matrix's steps after its cells (issue "Quarterly regression runs"): store the run in the
 * results database, compare it with the spec's baseline (first pass), re-run what the first pass
 * flagged interleaved on fresh cells (`confirmComparison`), and keep only what the re-run confirms.
 * The verdict goes into the `ChbenchVerdict` search attribute and the workflow result; the details
 * into `comparison.json` and the results database.
 */
import {
  isCancellation,
  log,
  proxyActivities,
  upsertSearchAttributes,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ConfirmOutcome } from '../schema/comparison';
import type { MatrixResult } from '../schema/progress';
import type { BaselineSpec, RunSpec } from '../schema/run-spec';
import { describeFailure } from '../schema/failures';
import { VERDICT } from '../schema/search-attributes';
import { executeConfirmChild } from './confirm-comparison';
import type { MatrixRun } from './matrix-run';

/** Database writes and the comparison's reads: minutes at most, retried (a restarting results database). */
const DB: ActivityOptions = {
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '2s', maximumAttempts: 5 },
};
const {
  storeRun,
  compareWithBaseline: firstPass,
  planConfirmation,
  finishComparison,
} = proxyActivities<Activities>(DB);

/**
 * Store the run's folder in the results database (idempotent: replaces the run's rows).
 * @returns undefined when stored, else why not (the run's files stand; `chbench results import` loads them later).
 * @throws a cancellation.
 */
export async function storeInResultsDb(spec: RunSpec, runId: string): Promise<string | undefined> {
  try {
    await storeRun.executeWithOptions({ ...DB, summary: 'store the run in the results database' }, [
      { resultsDir: spec.resultsDir, runId, ...(spec.results ? { results: spec.results } : {}) },
    ]);
    return undefined;
  } catch (err) {
    if (isCancellation(err)) throw err;
    const why = describeFailure(err);
    log.warn('results database: the run was not stored', { runId, error: why });
    return why;
  }
}

/**
 * Compare the run with its baseline: first pass over the stored samples, the confirming re-run of
 * the flagged queries (a child workflow `<runId>/confirm`, when `confirmRounds` > 0), then the final
 * record. Sets `ChbenchVerdict`.
 * @returns the verdict and the flagged/confirmed query ids for the workflow result.
 * @throws a cancellation; other failures of the first pass or the final step (the comparison is then missing, the report says so).
 */
export async function compareWithBaseline(
  run: MatrixRun,
  spec: RunSpec,
  baseline: BaselineSpec,
  ctx: { runId: string; startedAt: string; scheduleId?: string },
): Promise<NonNullable<MatrixResult['comparison']>> {
  const { runId } = ctx;
  const db = { resultsDir: spec.resultsDir, runId, ...(spec.results ? { results: spec.results } : {}) };
  run.enter('compare');
  const first = await firstPass.executeWithOptions({ ...DB, summary: `compare with the baseline (${baseline.from})` }, [
    { ...db, baseline, startedAt: ctx.startedAt, ...(ctx.scheduleId ? { scheduleId: ctx.scheduleId } : {}) },
  ]);
  let confirm: ConfirmOutcome[] = [];
  let confirmError: string | undefined;
  if (first.flagged.length && baseline.confirmRounds > 0) {
    run.enter('confirm');
    try {
      const pairs = await planConfirmation.executeWithOptions({ ...DB, summary: 'plan the confirming re-run' }, [
        { ...db, flagged: first.flagged },
      ]);
      confirm = await executeConfirmChild(
        runId,
        `${runId}/confirm`,
        { pairs, rounds: baseline.confirmRounds },
        `confirming re-run: ${first.flagged.map((p) => p.queries.map((q) => q.query_id.toUpperCase()).join(', ')).join('; ')}, interleaved ×${baseline.confirmRounds}`,
      );
    } catch (err) {
      if (isCancellation(err)) throw err;
      confirmError = describeFailure(err);
    }
  } else if (first.flagged.length) confirmError = 'no confirming re-run: the baseline sets confirmRounds 0';
  const pairErrors = confirm.filter((c) => c.error).map((c) => `${c.pairKey}: ${c.error}`);
  const final = await finishComparison.executeWithOptions(
    { ...DB, summary: 'final verdict: keep what the re-run confirmed' },
    [{ ...db, confirm, ...(confirmError ? { confirmError } : {}) }],
  );
  upsertSearchAttributes([{ key: VERDICT, value: final.verdict }]);
  if (first.note) confirmError ??= first.note;
  return {
    verdict: final.verdict,
    baselineRunId: first.baselineRunId || null,
    flagged: final.flagged,
    confirmed: final.confirmed,
    ...(confirmError || pairErrors.length
      ? { note: confirmError ?? `re-run not done for ${pairErrors.join('; ')} (first-pass flags stand, unconfirmed)` }
      : {}),
  };
}
