/**
 * What every part of a version bisect (`bisectVersions`) shares: its activities, the run's cells and
 * options (`BisectContext`), and measuring one cell (`cellMeasurer`) — a cell of an earlier start of
 * the same run, a stored cell of another run measured the same way, or a new `benchmarkCell` child.
 * Workflow code: deterministic, activities and children only.
 */
import { proxyActivities, type ActivityOptions } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { CellInput, CellOutcome } from '../schema/cell';
import { FAILURE, cellOutcomeOfFailure } from '../schema/failures';
import type { ResultsDbSpec } from '../schema/run-spec';
import type { BisectComparison } from '../activities/bisect/bisect';
import { executeCellChild } from './cell-child';
import type { JudgeContext, Measured } from './bisect-judge';

const QUICK: ActivityOptions = {
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 3, nonRetryableErrorTypes: [FAILURE.InvalidSpec] },
};
/** The bisect's activities (reads of cells' records, comparisons, the report): quick, retried. */
export const bisectActs = proxyActivities<Activities>(QUICK);
/** Storing the run waits for a mutation over the results tables (see `storeRun`). */
export const { storeRun } = proxyActivities<Activities>({
  startToCloseTimeout: '15 minutes',
  heartbeatTimeout: '1 minute',
  retry: { maximumAttempts: 3 },
});

/** A bisect's metric: a work counter decided by one run, or a time judged by the comparison method. */
export type BisectMetric = 'read_rows' | 'warm' | 'cold';

/** A cell of this bisect that was reused from a stored run instead of run (`bisectStoredCell`). */
export interface ReusedCellNote {
  /** The bisect's cell key. */
  cellKey: string;
  /** The stored run and cell whose result was read. */
  runId: string;
  fromCell: string;
  /** What matched (spec hash, workload files hash, host kind). */
  matched: string;
}

/** A stored cell that matched but was measured again: the host disturbed its runs of the query. */
export interface PassedOverNote {
  cellKey: string;
  runId: string;
  fromCell: string;
  /** The stored cell's host load during the query's runs, in words. */
  why: string;
}

/** What the bisect's parts share. */
export interface BisectContext {
  runId: string;
  query: string;
  /** The range, oldest first (index 0 = the good end). */
  versions: string[];
  /** One cell per version, hand-set settings applied. */
  cells: CellInput[];
  /** `warm` / `cold` for a time bisect, null for read_rows. */
  timeMetric: 'warm' | 'cold' | null;
  /** Time steps as verdicts (`patched('bisect-verdicts')`). */
  verdicts: boolean;
  /** A changed first pass confirmed by a re-run (`patched('bisect-confirm-time')`). */
  confirmTime: boolean;
  /** Time metrics: the comparison, the re-run, the thresholds. */
  judge: JudgeContext;
  /** The query's time in two cells compared (`bisectCompare`, first pass). */
  compareOf: (older: Measured, newer: Measured) => Promise<BisectComparison>;
  /** Measure a cell (`cellMeasurer`). */
  measure: (cell: CellInput) => Promise<Measured>;
  /** The hand-set settings that apply to a version (`handSettingsOf`). */
  handOf: (version: string) => Record<string, string | number>;
}

/** The cells measured so far, for the result: counts and where reused cells came from. */
export interface CellLedger {
  cellsRun: number;
  cellsNew: number;
  reusedCells: ReusedCellNote[];
  passedOver: PassedOverNote[];
}

/**
 * Measure cells for a bisect: a cell an earlier start of this run measured (`reused`), else — with
 * `reuseStored` — a stored cell of another run measured the same way (`bisectStoredCell`; with
 * `avoidDisturbed`, one whose runs of the query the host disturbed is passed over and measured
 * again), else a new `benchmarkCell` child (`<runId>/<cellKey>`); then the query's figure
 * (`bisectFigure`). A cell that fails or is skipped is an outcome, not an error.
 * @throws a cancellation, or a child failure that is no cell outcome
 */
export function cellMeasurer(o: {
  runId: string;
  query: string;
  reused: Map<string, CellOutcome>;
  reuseStored: boolean;
  /** A time bisect judged by verdicts: the kind of run whose host load decides reuse. */
  avoidDisturbed: 'warm' | 'cold' | null;
  results?: ResultsDbSpec;
  resultsDir: string;
}): { measure: (cell: CellInput) => Promise<Measured>; ledger: CellLedger } {
  const { bisectStoredCell, bisectFigure } = bisectActs;
  const ledger: CellLedger = { cellsRun: 0, cellsNew: 0, reusedCells: [], passedOver: [] };
  const { runId, query } = o;
  const measure = async (cell: CellInput): Promise<Measured> => {
    let outcome = o.reused.get(cell.cellKey);
    let reusedFrom: Measured['reusedFrom'];
    if (!outcome && o.reuseStored) {
      const hit = await bisectStoredCell({ cell, results: o.results, resultsDir: o.resultsDir });
      // A stored cell whose runs of the query the host disturbed is measured again, not reused.
      const kind = o.avoidDisturbed;
      const load = hit && kind ? (await bisectFigure({ resultFile: hit.resultFile, query })).hostLoad : undefined;
      const disturbed = kind && load?.[kind]?.disturbed ? load[kind]!.words : undefined;
      if (hit && disturbed)
        ledger.passedOver.push({ cellKey: cell.cellKey, runId: hit.runId, fromCell: hit.cellKey, why: disturbed });
      else if (hit) {
        outcome = { cellKey: cell.cellKey, status: 'succeeded', resultFile: hit.resultFile };
        reusedFrom = { runId: hit.runId, cellKey: hit.cellKey };
        ledger.reusedCells.push({
          cellKey: cell.cellKey,
          runId: hit.runId,
          fromCell: hit.cellKey,
          matched: hit.matched,
        });
      }
    }
    if (!outcome) {
      ledger.cellsNew++;
      try {
        outcome = await executeCellChild(
          runId,
          cell,
          `bisect ${query} on ClickHouse ${cell.version}${cell.pinDefaults ? ` pinned ${cell.pinDefaults}` : ''}`,
        );
      } catch (err) {
        const failed = cellOutcomeOfFailure(err);
        if (!failed) throw err;
        outcome = failed;
      }
    }
    ledger.cellsRun++;
    const fig = await bisectFigure({ resultFile: outcome.resultFile, query });
    return {
      outcome,
      readRows: fig.readRows,
      ...(fig.problem ? { problem: fig.problem } : {}),
      ...(reusedFrom ? { reusedFrom } : {}),
      ...(fig.hostLoad ? { hostLoad: fig.hostLoad } : {}),
    };
  };
  return { measure, ledger };
}
