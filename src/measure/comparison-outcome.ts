/**
 * The two ends of the first-pass comparison besides `compareRuns` (`compare.ts`): the record of a run that
 * has no baseline, the flagged pairs the confirming re-run measures again, and the summary the
 * workflow gets. Pure.
 */
import { COMPARISON_SCHEMA, type CompareSummary, type ComparisonRecord, type FlaggedPair } from '../schema/comparison';
import type { BaselineSpec } from '../schema/run-spec';
import { flaggedQueries, methodText, seedOf } from './compare';

/** The bootstrap's defaults the no-baseline record names (`compareRuns` uses the same). */
const NO_BASELINE_METHOD = { resamples: 2000, confidence: 0.95 } as const;

/**
 * The comparison record of a run with no baseline (none found, or an unknown run id): every cell
 * unpaired with `reason`, verdict `no-baseline`, the method the spec asked for.
 * @param cells this run's cell keys
 * @param createdAt ISO time
 */
export function noBaselineRecord(
  runId: string,
  b: BaselineSpec,
  cells: readonly string[],
  reason: string,
  createdAt: string,
): ComparisonRecord {
  const { resamples, confidence } = NO_BASELINE_METHOD;
  return {
    schema: COMPARISON_SCHEMA,
    comparison_id: `${runId}-vs-none`,
    run_id: runId,
    baseline_run_id: '',
    baseline_chosen_by: `no baseline: ${reason}`,
    method: methodText({
      resamples,
      confidence,
      minChange: b.minChange,
      unstableAbove: b.unstableAbove,
      minRuns: b.minRuns,
    }),
    options: {
      minChange: b.minChange,
      unstableAbove: b.unstableAbove,
      confidence,
      resamples,
      minRuns: b.minRuns,
      confirmRounds: b.confirmRounds,
      seed: seedOf(runId),
    },
    pairs: [],
    unpaired: cells.map((cell) => ({ cell, reason: `no baseline: ${reason}` })),
    flagged: [],
    confirmed: [],
    verdict: 'no-baseline',
    created_at: createdAt,
  };
}

/** The pairs with flagged queries, keys only (what goes into workflow history for the re-run). */
export function flaggedPairs(record: ComparisonRecord): FlaggedPair[] {
  return flaggedQueries(record).map(({ pair, queries }) => ({
    pairKey: pair.pair_key,
    baselineCell: { runId: pair.baseline_run, cellKey: pair.baseline_cell },
    newCell: { runId: pair.new_run, cellKey: pair.new_cell },
    queries: queries.map((q) => ({ query_id: q.query_id, phase: q.phase })),
  }));
}

/** What `compareWithBaseline` hands the workflow: the record's id, baseline and verdict, and its flagged pairs. */
export function firstPassSummary(record: ComparisonRecord, confirmRounds: number): CompareSummary {
  return {
    comparisonId: record.comparison_id,
    baselineRunId: record.baseline_run_id,
    verdict: record.verdict,
    confirmRounds,
    ...(record.verdict === 'no-baseline' ? { note: record.baseline_chosen_by } : {}),
    flagged: flaggedPairs(record),
  };
}
