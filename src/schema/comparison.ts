/**
 * A comparison of a run with its baseline: the record `comparison.json` in the run's results folder
 * and the rows of the results database's `comparisons` / `comparison_queries` tables.
 *
 * Method (see `src/measure/compare.ts`): per query, the valid warm runs of each side; the ratio of
 * medians new/baseline with a percentile-bootstrap 95 % confidence interval (seeded, so a record can
 * be recomputed); the query's noise threshold learned from the baseline's own run-to-run variation
 * (random half-splits of the baseline's warm runs: the 95th percentile of |log ratio of medians|),
 * floored at `minChange`. A flagged query is measured again, interleaved A, B, A, B … on fresh cells
 * (the confirming re-run), and only what the re-run confirms stays flagged.
 */
import { z } from 'zod';
import type { CellInput, StepInput } from './cell';
import type { BaselineSpec, ResultsDbSpec } from './run-spec';

/** A query's verdict. `unstable`: the baseline's own noise is above `unstableAbove`, or too few valid samples on a side. */
export const Verdict = z.enum(['regression', 'improvement', 'unchanged', 'unstable']);
export type Verdict = z.infer<typeof Verdict>;

/** The run's overall verdict (the `ChbenchVerdict` search attribute): regression wins over improvement; `none` = no baseline. */
export const RunVerdict = z.enum(['regression', 'improvement', 'unchanged', 'unstable', 'no-baseline']);
export type RunVerdict = z.infer<typeof RunVerdict>;

/** Which figure a side's samples are: server-side elapsed (ms) when both sides have it for every kept run, else client wall time (ms). */
export const ComparedFigure = z.enum(['server_elapsed_ms', 'wall_ms']);

/** The statistics of one query on one pair of cells. Times in ms; ratio = new / baseline. */
export const QueryComparison = z.object({
  /** `Q1` … as in the workload; `phase` tells before (`baseline`) or after (`index`) the skip index. */
  query_id: z.string(),
  phase: z.enum(['baseline', 'index']),
  figure: ComparedFigure,
  /** Valid warm runs kept on each side (invalid runs, warm-ups and cold runs are left out). */
  n_baseline: z.int(),
  n_new: z.int(),
  median_baseline_ms: z.number().nullable(),
  median_new_ms: z.number().nullable(),
  /** median(new) / median(baseline). */
  ratio: z.number().nullable(),
  /** 95 % percentile-bootstrap interval of the ratio of medians. */
  ci_low: z.number().nullable(),
  ci_high: z.number().nullable(),
  /** Noise threshold as a relative change (0.1 = 10 %), learned from the baseline's warm runs, at least `minChange`. */
  threshold: z.number().nullable(),
  verdict: Verdict,
  /** Why, in words: e.g. "CI 1.82–2.10 above 1 + threshold 0.12". */
  reason: z.string(),
  /** The confirming re-run (interleaved on fresh cells), when this query was flagged. */
  confirm: z
    .object({
      rounds: z.int(),
      n_baseline: z.int(),
      n_new: z.int(),
      ratio: z.number().nullable(),
      ci_low: z.number().nullable(),
      ci_high: z.number().nullable(),
      threshold: z.number().nullable(),
      verdict: Verdict,
      /** True when the re-run's verdict is the first pass's (same direction). */
      confirmed: z.boolean(),
      reason: z.string(),
    })
    .optional(),
  /** The final verdict: the first pass's when not flagged, else the first pass's only if the re-run confirmed it (`unchanged` otherwise). */
  final: Verdict,
  /**
   * The work of both sides (src/measure/work.ts): read_rows / read_bytes and the ProfileEvents
   * SelectedParts / SelectedRanges / SelectedMarks / ReadCompressedBytes of one run per side, no
   * statistics (deterministic counts). Absent in records made without `figures` rows (before schema 4).
   */
  work: z
    .object({
      verdict: z.enum(['work change', 'work unchanged', 'work unknown']),
      /** `work change`, or `time changed, work unchanged` beside a regression/improvement; null = no label. */
      label: z.enum(['work change', 'time changed, work unchanged']).nullable(),
      changed: z.array(
        z.object({
          figure: z.string(),
          unit: z.string(),
          baseline: z.number().nullable(),
          new: z.number().nullable(),
          baseline_source: z.string().nullable(),
          new_source: z.string().nullable(),
          /** Rows, parts, ranges or marks (decides `work change`); byte figures are listed, not deciding. */
          deciding: z.boolean(),
        }),
      ),
      compared: z.array(z.string()),
      reason: z.string(),
    })
    .optional(),
});
export type QueryComparison = z.infer<typeof QueryComparison>;

/** Two cells paired for comparison: same workload, scale and codec (and version label when that alone is ambiguous). */
export const CellPair = z.object({
  /** `<baseline cell>→<new cell>`. */
  pair_key: z.string(),
  baseline_run: z.string(),
  baseline_cell: z.string(),
  new_run: z.string(),
  new_cell: z.string(),
  /** What differs between the two cells' declared setup (version, server version, settings …), in words. */
  differences: z.array(z.string()),
  queries: z.array(QueryComparison),
});
export type CellPair = z.infer<typeof CellPair>;

export const COMPARISON_SCHEMA = 'chbench.comparison/v1';

/** `comparison.json`. */
export const ComparisonRecord = z.object({
  schema: z.literal(COMPARISON_SCHEMA),
  comparison_id: z.string(),
  run_id: z.string(),
  baseline_run_id: z.string(),
  /** How the baseline was chosen, e.g. `run <id>`, `previous successful run of schedule <id>`, `version 24.8 in this matrix`. */
  baseline_chosen_by: z.string(),
  /** e.g. "ratio of medians, percentile bootstrap 2000 resamples, 95 % CI; threshold: 95th pct of |log ratio| over 200 random half-splits of the baseline's warm runs, at least 10 %". */
  method: z.string(),
  options: z.object({
    minChange: z.number(),
    unstableAbove: z.number(),
    confidence: z.number(),
    resamples: z.int(),
    minRuns: z.int(),
    confirmRounds: z.int(),
    seed: z.int(),
  }),
  pairs: z.array(CellPair),
  /** Cells of the new run with no baseline partner (and why). */
  unpaired: z.array(z.object({ cell: z.string(), reason: z.string() })),
  /** Query ids (`Q5@index` for the index phase) flagged by the first pass, and those the re-run confirmed. */
  flagged: z.array(z.string()),
  confirmed: z.array(z.string()),
  verdict: RunVerdict,
  created_at: z.string(),
  /** Set when the confirming re-run could not be done (the first-pass flags then stand, marked unconfirmed). */
  confirm_error: z.string().optional(),
});
export type ComparisonRecord = z.infer<typeof ComparisonRecord>;

/** A pair with flagged queries, as the first pass hands it to the confirming re-run (small: keys only). */
export interface FlaggedPair {
  pairKey: string;
  baselineCell: { runId: string; cellKey: string };
  newCell: { runId: string; cellKey: string };
  queries: { query_id: string; phase: 'baseline' | 'index' }[];
}

/**
 * One flagged pair's confirming re-run, planned: two fresh cells (the baseline's setup and the new
 * run's) and the flagged query ids per phase. `CellInput`-shaped objects (src/schema/cell.ts).
 */
export interface ConfirmPairPlan {
  pairKey: string;
  baseline: CellInput;
  candidate: CellInput;
  phases: { baseline: string[]; index: string[] };
}

/** The interleaved re-run's kept samples of one query (valid warm runs, or valid cold runs when `kind` is `cold`; ms). */
export interface ConfirmQuerySamples {
  query_id: string;
  phase: 'baseline' | 'index';
  figure: 'server_elapsed_ms' | 'wall_ms';
  /** The runs kept: `cold` when the re-run measured cold runs (absent: warm). */
  kind?: 'cold';
  baseline_ms: number[];
  new_ms: number[];
  /** Set when the seconds budget (`verdicts.confirmSeconds`) stopped the rounds early: rounds measured of those asked. */
  budget_spent?: { rounds: number; of: number; seconds: number };
}

/** The confirming re-run's outcome for one pair: its samples, or why it could not be done. */
export interface ConfirmOutcome {
  pairKey: string;
  samples: ConfirmQuerySamples[];
  /** Why this pair's re-run could not be done (its first-pass flags then stand, unconfirmed). */
  error?: string;
}

/** Input of the matrix's `compareWithBaseline` activity: the run, its baseline spec, and where its results are. */
export interface CompareWithBaselineInput {
  resultsDir: string;
  runId: string;
  results?: ResultsDbSpec;
  baseline: BaselineSpec;
  /** The schedule that started this run (`ChbenchSchedule`), for `from: previous-scheduled`. */
  scheduleId?: string;
  /** This run's start, ISO: the previous scheduled run started before it. */
  startedAt: string;
}

/** What `compareWithBaseline` returns (small: it goes into workflow history). */
export interface CompareSummary {
  comparisonId: string;
  /** Empty string when there is no baseline. */
  baselineRunId: string;
  /** First-pass verdict (`no-baseline` when none was found). */
  verdict: RunVerdict;
  /** Interleaved A, B rounds the re-run should do per flagged query (the spec's `confirmRounds`; 0 = no re-run). */
  confirmRounds: number;
  flagged: FlaggedPair[];
  /** Why there is no baseline (verdict `no-baseline`), e.g. "this run was not started by a schedule". */
  note?: string;
}

/** Input of `finishComparison`: the confirming re-run's samples per pair (ms), or why it could not run. */
export interface FinishComparisonInput {
  resultsDir: string;
  runId: string;
  results?: ResultsDbSpec;
  confirm: ConfirmOutcome[];
  confirmError?: string;
}

/** Input of the `planConfirmation` activity. */
export interface PlanConfirmationInput {
  resultsDir: string;
  runId: string;
  results?: ResultsDbSpec;
  flagged: FlaggedPair[];
}

/** Input of the `runInterleaved` activity: both sides' cells after setup, and which of their queries to measure. */
export interface RunInterleavedInput {
  pairKey: string;
  baseline: StepInput;
  candidate: StepInput;
  /** Whether each side's server keeps `system.query_log` (its provision result). */
  queryLog: { baseline: boolean; candidate: boolean };
  phase: 'baseline' | 'index';
  /** Query ids, e.g. `q5`. */
  queries: string[];
  /** Interleaved rounds: each round measures every query once on A, then once on B. */
  rounds: number;
  /**
   * Which run each round measures: `warm` (default: a warm-up round 0, then one warm run per side
   * and round) or `cold` (one cold run per side and round, the caches dropped as the cell's cold
   * runs drop them; no warm-up round). A cold time is confirmed by cold runs (a cold bisect).
   */
  kind?: 'warm' | 'cold';
  /** Seconds budget of the rounds (`verdicts.confirmSeconds`): they stop once it is spent and 3 rounds are measured. Absent: all rounds. */
  maxSeconds?: number;
}
