/**
 * confirmComparison: the confirming re-run of a comparison's flagged queries (child workflow
 * `<runId>/confirm` of `benchmarkMatrix`). Per flagged pair, one after the other: two fresh cells —
 * the baseline's setup and the new run's — are provisioned, loaded and left to settle side by side
 * (the cell's own steps and step bookkeeping, `CellRun`), then `runInterleaved` measures the flagged
 * queries A, B, A, B …; queries after the skip index are measured after both cells have materialized
 * it. Both cells are torn down in a non-cancellable scope whatever happened. A pair that cannot be
 * re-run keeps its error (its first-pass flags then stand, marked unconfirmed).
 */
import {
  CancellationScope,
  executeChild,
  isCancellation,
  ParentClosePolicy,
  proxyActivities,
} from '@temporalio/workflow';
import { PHASE, RUN_ID } from '../schema/search-attributes';
import type { Activities } from '../activities';
import type { ConfirmOutcome, ConfirmPairPlan } from '../schema/comparison';
import { describeFailure } from '../schema/failures';
import { CellRun, LONG, acts } from './cell-step';

const { runInterleaved } = proxyActivities<Activities>(LONG);

/** Input of {@link confirmComparison}. */
export interface ConfirmComparisonInput {
  pairs: ConfirmPairPlan[];
  /** Interleaved rounds per query. */
  rounds: number;
  /** Which runs the rounds measure (`RunInterleavedInput.kind`; absent: warm, as a comparison's re-run). */
  kind?: 'warm' | 'cold';
  /** Seconds budget of each pair's rounds per phase (`verdicts.confirmSeconds`; absent: every round). */
  maxSeconds?: number;
}

/** Provision, create the table, load and wait for merges: the cell's steps up to its first measurement. */
async function setUp(run: CellRun): Promise<boolean> {
  const prov = await run.provision();
  if (prov.skipReason) throw new Error(`${run.cell.cellKey} cannot be provisioned: ${prov.skipReason}`);
  await run.step('create-schema', LONG, `create table, codec ${run.cell.codec}`, (o, si) =>
    acts.createSchema.executeWithOptions(o, [si]),
  );
  await run.step('load', LONG, `load ${run.cell.scale.toLocaleString('en-US')} rows`, (o, si) =>
    acts.loadData.executeWithOptions(o, [si]),
  );
  await run.step('quiesce', LONG, 'wait for merges to settle', (o, si) =>
    acts.quiesceMerges.executeWithOptions(o, [si, 'after-load']),
  );
  return prov.server.query_log === 'available';
}

/** Materialize the skip index and wait for its merges, as the cell does before its index queries. */
async function buildIndex(run: CellRun): Promise<void> {
  await run.step('materialize-index', LONG, 'ADD + MATERIALIZE INDEX, poll system.mutations', (o, si) =>
    acts.materializeSkipIndex.executeWithOptions(o, [si]),
  );
  await run.step('quiesce-index', LONG, 'wait for merges to settle after the mutation', (o, si) =>
    acts.quiesceMerges.executeWithOptions(o, [si, 'after-index']),
  );
}

/** Re-run one pair. @throws a cancellation (after teardown); any other failure becomes the outcome's `error`. */
async function confirmPair(
  plan: ConfirmPairPlan,
  rounds: number,
  kind?: 'warm' | 'cold',
  maxSeconds?: number,
): Promise<ConfirmOutcome> {
  const a = new CellRun(plan.baseline);
  const b = new CellRun(plan.candidate);
  const outcome: ConfirmOutcome = { pairKey: plan.pairKey, samples: [] };
  let failed: unknown;
  try {
    const [qlA, qlB] = await Promise.all([setUp(a), setUp(b)]);
    const measure = async (phase: 'baseline' | 'index', queries: string[]) => {
      if (!queries.length) return;
      const samples = await runInterleaved.executeWithOptions(
        { ...LONG, summary: `interleaved A/B: ${queries.map((q) => q.toUpperCase()).join(', ')} (${phase})` },
        [
          {
            pairKey: plan.pairKey,
            baseline: { cell: plan.baseline, target: a.target() },
            candidate: { cell: plan.candidate, target: b.target() },
            queryLog: { baseline: qlA, candidate: qlB },
            phase,
            queries,
            rounds,
            ...(kind ? { kind } : {}),
            ...(maxSeconds !== undefined ? { maxSeconds } : {}),
          },
        ],
      );
      outcome.samples.push(...samples);
    };
    await measure('baseline', plan.phases.baseline);
    if (plan.phases.index.length) {
      await Promise.all([buildIndex(a), buildIndex(b)]);
      await measure('index', plan.phases.index);
    }
  } catch (err) {
    failed = err;
    outcome.error = describeFailure(err);
  }
  await CancellationScope.nonCancellable(() =>
    Promise.all([a.teardown(failed ? 'failed' : 'succeeded'), b.teardown(failed ? 'failed' : 'succeeded')]),
  );
  if (failed && isCancellation(failed)) throw failed as Error;
  return outcome;
}

/**
 * Re-run every flagged pair, interleaved, one pair at a time (two cells at once on the machine).
 * @returns one outcome per pair, in plan order.
 * @throws CancelledFailure when cancelled (after tearing down the pair in progress).
 */
export async function confirmComparison(input: ConfirmComparisonInput): Promise<ConfirmOutcome[]> {
  const out: ConfirmOutcome[] = [];
  for (const plan of input.pairs) out.push(await confirmPair(plan, input.rounds, input.kind, input.maxSeconds));
  return out;
}

/**
 * Start `confirmComparison` as a child of a run's workflow and wait for it: child id `workflowId`, cancelled
 * with its parent, tagged with the run's id and phase `confirm` (so the Web UI lists it with the run).
 * @returns one outcome per pair. @throws what the child throws (a cancellation, a failed child).
 */
export function executeConfirmChild(
  runId: string,
  workflowId: string,
  input: ConfirmComparisonInput,
  staticSummary: string,
): Promise<ConfirmOutcome[]> {
  return executeChild(confirmComparison, {
    workflowId,
    args: [input],
    staticSummary,
    parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
    typedSearchAttributes: [
      { key: RUN_ID, value: runId },
      { key: PHASE, value: 'confirm' },
    ],
  });
}
