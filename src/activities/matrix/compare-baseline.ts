/**
 * The comparison step of a run with a `baseline` (after its cells): two activities around the
 * workflow's confirming re-run.
 *
 * 1. `compareWithBaseline` resolves the baseline run, reads both sides' cells and samples from the
 *    results database, builds the first-pass record (`src/measure/compare.ts`), writes
 *    `results/<runId>/comparison.json`, stores it, and returns a small summary naming the flagged
 *    queries per cell pair (what the workflow re-runs, interleaved, on fresh cells).
 * 2. `finishComparison` applies the re-run's samples (or its error), rewrites `comparison.json`,
 *    stores the final record and returns the run's verdict (the `ChbenchVerdict` search attribute).
 *
 * Always call `finishComparison` after `compareWithBaseline`, with `confirm: []` when nothing was
 * flagged or `confirmRounds` is 0. Both are idempotent (atomic rewrite, the store replaces the run's
 * comparison rows).
 */
import path from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import { openResultsDb, resultsDbLocation } from '../../results/db';
import type { ResultsDb, StoredCell, StoredRun } from '../../results/db/types';
import { runDir, writeJsonAtomic } from '../../results/store';
import { COMPARISON_SCHEMA, ComparisonRecord, type FlaggedPair, type RunVerdict } from '../../schema/comparison';
import type { BaselineSpec, ResultsDbSpec } from '../../schema/run-spec';
import {
  applyConfirmation,
  compareRuns,
  flaggedQueries,
  methodText,
  seedOf,
  type ConfirmSamples,
  type PairMode,
} from '../../measure/compare';

/** Opens the results database of a results directory (injected in tests). */
export type OpenResultsDb = (resultsDir: string, results?: ResultsDbSpec) => Promise<ResultsDb>;

/** The default: `openResultsDb(resultsDbLocation(results, resultsDir))`. */
const defaultOpen: OpenResultsDb = async (resultsDir, results) => openResultsDb(resultsDbLocation(results, resultsDir));

/** Input of `compareWithBaseline`. */
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

/** A flagged pair: what the confirming re-run measures again, interleaved (defined in `schema/comparison.ts`). */
export type { FlaggedPair };

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
  confirm: ConfirmSamples[];
  confirmError?: string;
}

/** Path of a run's `comparison.json`. */
export function comparisonFile(resultsDir: string, runId: string): string {
  return path.join(runDir(resultsDir, runId), 'comparison.json');
}

/**
 * Read and validate a run's `comparison.json`.
 * @throws Error naming the file when it is missing or does not match `chbench.comparison/v1`.
 */
export function readComparison(resultsDir: string, runId: string): ComparisonRecord {
  const file = comparisonFile(resultsDir, runId);
  if (!existsSync(file)) throw new Error(`${file}: no such file (compareWithBaseline has not run for ${runId})`);
  const r = ComparisonRecord.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (!r.success)
    throw new Error(
      `${file} (${COMPARISON_SCHEMA}): ${r.error.issues
        .slice(0, 3)
        .map((i) => `${i.path.join('.')}: ${i.message}`)
        .join('; ')}`,
    );
  return r.data;
}

/** The baseline, or why there is none. */
type Resolved = { run: StoredRun; chosenBy: string; mode: PairMode } | { none: string };

async function resolveBaseline(db: ResultsDb, input: CompareWithBaselineInput, self: StoredRun): Promise<Resolved> {
  const b = input.baseline;
  if (b.from === 'run') {
    if (b.run === input.runId) return { none: `run ${b.run} is this run itself` };
    const run = await db.run(b.run);
    return run
      ? { run, chosenBy: `run ${b.run} (named in the spec)`, mode: { kind: 'runs' } }
      : { none: `run ${b.run} (named in the spec) is not in the results database (${db.description})` };
  }
  if (b.from === 'previous-scheduled') {
    if (!input.scheduleId)
      return { none: 'previous successful run of the schedule: this run was not started by a schedule' };
    const run = await db.previousSuccessfulRun(input.scheduleId, input.startedAt);
    return run
      ? {
          run,
          chosenBy: `previous successful run of schedule ${input.scheduleId} (started ${run.started_at})`,
          mode: { kind: 'runs' },
        }
      : {
          none: `previous successful run of schedule ${input.scheduleId}: none started before ${input.startedAt} (this is its first completed run)`,
        };
  }
  return {
    run: self,
    chosenBy: `version ${b.version} in this run's matrix`,
    mode: { kind: 'version', version: b.version },
  };
}

function noBaselineRecord(
  input: CompareWithBaselineInput,
  cells: StoredCell[],
  reason: string,
  now: string,
): ComparisonRecord {
  const b = input.baseline;
  return {
    schema: COMPARISON_SCHEMA,
    comparison_id: `${input.runId}-vs-none`,
    run_id: input.runId,
    baseline_run_id: '',
    baseline_chosen_by: `no baseline: ${reason}`,
    method: methodText({
      resamples: 2000,
      confidence: 0.95,
      minChange: b.minChange,
      unstableAbove: b.unstableAbove,
      minRuns: b.minRuns,
    }),
    options: {
      minChange: b.minChange,
      unstableAbove: b.unstableAbove,
      confidence: 0.95,
      resamples: 2000,
      minRuns: b.minRuns,
      confirmRounds: b.confirmRounds,
      seed: seedOf(input.runId),
    },
    pairs: [],
    unpaired: cells.map((c) => ({ cell: c.cell_key, reason: `no baseline: ${reason}` })),
    flagged: [],
    confirmed: [],
    verdict: 'no-baseline',
    created_at: now,
  };
}

/** Activity factory. `deps.openDb` replaces the results database (tests). */
export function createCompareBaseline(deps: { openDb?: OpenResultsDb } = {}) {
  const open = deps.openDb ?? defaultOpen;
  return {
    /**
     * First pass of the comparison: resolve the baseline (a run id; the previous successful run of
     * `scheduleId` started before `startedAt`; or a version label of this run), pair cells, compare
     * every query's valid warm runs, write `results/<runId>/comparison.json` and store it.
     * No baseline found (no schedule, no earlier completed run, an unknown run id) is not an error:
     * the record says why and the verdict is `no-baseline`. If the run is not yet in the results
     * database but its folder is, it is stored first (storing is idempotent).
     * @throws Error when the run is neither in the database nor in `resultsDir`, or the database fails.
     */
    async compareWithBaseline(input: CompareWithBaselineInput): Promise<CompareSummary> {
      const db = await open(input.resultsDir, input.results);
      try {
        let self = await db.run(input.runId);
        if (!self && existsSync(path.join(runDir(input.resultsDir, input.runId), 'run.json'))) {
          await db.storeRun(runDir(input.resultsDir, input.runId));
          self = await db.run(input.runId);
        }
        if (!self)
          throw new Error(
            `compareWithBaseline: run ${input.runId} is neither in the results database (${db.description}) nor in ${input.resultsDir}`,
          );
        const newCells = await db.cells(input.runId);
        const now = new Date().toISOString();
        const resolved = await resolveBaseline(db, input, self);
        let record: ComparisonRecord;
        if ('none' in resolved) record = noBaselineRecord(input, newCells, resolved.none, now);
        else {
          const same = resolved.run.run_id === input.runId;
          const newSamples = await db.samples(input.runId);
          const newFigures = await db.figures(input.runId);
          record = compareRuns({
            comparisonId: `${input.runId}-vs-${same ? `v${(input.baseline as { version: string }).version}` : resolved.run.run_id}`,
            runId: input.runId,
            baselineRunId: resolved.run.run_id,
            baselineChosenBy: resolved.chosenBy,
            mode: resolved.mode,
            baselineCells: same ? newCells : await db.cells(resolved.run.run_id),
            newCells,
            baselineSamples: same ? newSamples : await db.samples(resolved.run.run_id),
            newSamples,
            baselineFigures: same ? newFigures : await db.figures(resolved.run.run_id),
            newFigures,
            options: input.baseline,
            createdAt: now,
          });
        }
        writeJsonAtomic(comparisonFile(input.resultsDir, input.runId), record);
        await db.storeComparison(record);
        return {
          comparisonId: record.comparison_id,
          baselineRunId: record.baseline_run_id,
          verdict: record.verdict,
          confirmRounds: input.baseline.confirmRounds,
          ...(record.verdict === 'no-baseline' ? { note: record.baseline_chosen_by } : {}),
          flagged: flaggedQueries(record).map(({ pair, queries }) => ({
            pairKey: pair.pair_key,
            baselineCell: { runId: pair.baseline_run, cellKey: pair.baseline_cell },
            newCell: { runId: pair.new_run, cellKey: pair.new_cell },
            queries: queries.map((q) => ({ query_id: q.query_id, phase: q.phase })),
          })),
        };
      } finally {
        await db.close();
      }
    },

    /**
     * Final pass: apply the confirming re-run's samples to `comparison.json` (only what the re-run
     * confirms stays flagged; `confirmError` leaves the first-pass flags standing, unconfirmed),
     * rewrite it and store it.
     * @returns the run's verdict, the first pass's flagged ids and the confirmed ones (`Q3`, `Q5@index`).
     * @throws Error when `comparison.json` is missing or invalid, or the database fails.
     */
    async finishComparison(
      input: FinishComparisonInput,
    ): Promise<{ verdict: RunVerdict; flagged: string[]; confirmed: string[] }> {
      const first = readComparison(input.resultsDir, input.runId);
      const record =
        first.verdict === 'no-baseline' ? first : applyConfirmation(first, input.confirm, input.confirmError);
      writeJsonAtomic(comparisonFile(input.resultsDir, input.runId), record);
      const db = await open(input.resultsDir, input.results);
      try {
        await db.storeComparison(record);
      } finally {
        await db.close();
      }
      return { verdict: record.verdict, flagged: record.flagged, confirmed: record.confirmed };
    },
  };
}
