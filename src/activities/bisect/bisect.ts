/**
 * The bisect's activities (`bisectVersions`, src/workflows/bisect-versions.ts): which versions the
 * target's version sources serve between the two labels, a measured cell's figure for one query,
 * the defaults that differ between two cells' servers, a time step's confirming re-run judged, a
 * stored cell to reuse, and `bisect.md` with the bisect's database row. What they read of the cells' records, and the time
 * comparison, is src/results/bisect-cells.ts; the confirmation and the reuse are src/results/bisect-steps.ts.
 */
import path from 'node:path';
import { writeFileSync } from 'node:fs';
import { ApplicationFailure } from '@temporalio/common';
import { FAILURE } from '../../schema/failures';
import { runDir } from '../../results/store';
import { versionSourcesOf } from '../../targets/versions';
import { versionRange, type DefaultDiff } from '../../schema/bisect';
import { bisectMarkdown, type BisectReportInput } from '../../results/report-bisect';
import {
  cellDefaultDiffs,
  cellQueryFigure,
  compareCellTimes,
  type BisectCompareInput,
  type BisectComparison,
  type BisectFigure,
} from '../../results/bisect-cells';
import {
  bisectRow,
  findReusableCell,
  judgeConfirmation,
  storeBisectRow,
  type BisectConfirmation,
  type BisectConfirmInput,
  type ReusedCell,
} from '../../results/bisect-steps';
import type { CellInput } from '../../schema/cell';
import type { ResultsDbSpec } from '../../schema/run-spec';

export type { BisectCompareInput, BisectComparison, BisectConfirmation, BisectFigure, ReusedCell };

/** Activity factory. */
export function createBisectActivities() {
  return {
    /**
     * The versions the target's version sources serve between `good` and `bad` (both included), oldest first.
     * @throws ApplicationFailure `InvalidSpec` (non-retryable) when a label is not served or good is not older.
     */
    async bisectRange(input: { target: Record<string, unknown>; good: string; bad: string }): Promise<string[]> {
      const labels = versionSourcesOf(input.target).flatMap((s) => s.labels());
      try {
        return versionRange(labels, input.good, input.bad);
      } catch (e) {
        throw ApplicationFailure.nonRetryable((e as Error).message, FAILURE.InvalidSpec);
      }
    },

    /** The figure of query `query` in the cell's `result.json` (`queries_baseline`; `cellQueryFigure`). */
    async bisectFigure(input: { resultFile: string; query: string }): Promise<BisectFigure> {
      return cellQueryFigure(input);
    },

    /** The query's time in two cells compared, as `chbench compare` does (`compareCellTimes`). Never throws for a missing side. */
    async bisectCompare(input: BisectCompareInput): Promise<BisectComparison> {
      return compareCellTimes(input);
    },

    /** A step's confirming re-run judged by the comparison method (`judgeConfirmation`). Pure apart from its input. */
    async bisectConfirm(input: BisectConfirmInput): Promise<BisectConfirmation> {
      return judgeConfirmation(input);
    },

    /** A stored cell measured as `cell` would be on this host kind, or null (`findReusableCell`). Reads only. */
    async bisectStoredCell(input: {
      cell: CellInput;
      results?: ResultsDbSpec;
      resultsDir: string;
    }): Promise<ReusedCell | null> {
      return findReusableCell(input);
    },

    /** The session settings whose defaults differ between two cells' servers, hand settings included (`cellDefaultDiffs`). */
    async bisectDefaults(input: Parameters<typeof cellDefaultDiffs>[0]): Promise<DefaultDiff[]> {
      return cellDefaultDiffs(input);
    },

    /**
     * Store the bisect's row in the results database when `row` is given (`storeBisectRow`; the
     * report says where, or why not), then write `bisect.md` into the run folder. @returns its absolute path.
     */
    async writeBisectReport(input: {
      resultsDir: string;
      report: BisectReportInput;
      row?: Omit<Parameters<typeof bisectRow>[1], 'storedAt'> & { results?: ResultsDbSpec };
    }): Promise<string> {
      let report = input.report;
      if (input.row) {
        const { results, ...a } = input.row;
        const row = bisectRow(report, { ...a, storedAt: new Date().toISOString() });
        report = { ...report, database: await storeBisectRow({ results, resultsDir: input.resultsDir, row }) };
      }
      const file = path.join(runDir(input.resultsDir, report.runId), 'bisect.md');
      writeFileSync(file, bisectMarkdown(report));
      return file;
    },
  };
}
