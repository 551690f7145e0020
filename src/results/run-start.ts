/**
 * What an earlier start of a run left in the results store, read for the next start: its
 * `run.json` and the cells whose `result.json` is reused instead of run again.
 */
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import type { z } from 'zod';
import { FAILURE } from '../schema/failures';
import { CellResult } from '../schema/results';
import type { CellOutcome } from '../schema/cell';
import { cellDir, readRecordIfExists } from './store';
import { withResultsDb } from './db';
import type { RunSpec } from '../schema/run-spec';

/**
 * Read a record of an earlier start of this run, parsed with its schema; `undefined` when absent.
 * @throws ApplicationFailure `UnreadableResult` (non-retryable) naming the file and field when it does not parse.
 */
export function readUnlessForeign<S extends z.ZodType>(file: string, schema: S): z.infer<S> | undefined {
  try {
    return readRecordIfExists(file, schema);
  } catch (e) {
    throw ApplicationFailure.create({
      type: FAILURE.UnreadableResult,
      nonRetryable: true,
      message: `cannot resume from the results store: ${(e as Error).message}; start a new run id, or move the file away to measure that cell again`,
    });
  }
}

/**
 * The cells whose result is already in the results store and is reused: every succeeded or skipped
 * cell, and failed/cancelled cells written at or after `reuseFailedSince` (ISO).
 * @throws ApplicationFailure `UnreadableResult` (non-retryable) when a `result.json` does not parse
 */
export function reusedCells(
  resultsDir: string,
  runId: string,
  cellKeys: readonly string[],
  reuseFailedSince: string | undefined,
): CellOutcome[] {
  const reused: CellOutcome[] = [];
  for (const k of cellKeys) {
    const file = path.join(cellDir(resultsDir, runId, k), 'result.json');
    const r = readUnlessForeign(file, CellResult);
    if (!r) continue;
    const keep =
      r.status === 'succeeded' ||
      r.status === 'skipped' ||
      (reuseFailedSince !== undefined && r.written_at >= reuseFailedSince);
    if (keep) reused.push({ cellKey: k, status: r.status, resultFile: file, ...(r.error ? { error: r.error } : {}) });
  }
  return reused;
}

/**
 * A named baseline run (`baseline.from: run`) must exist before anything is measured against it.
 * @throws ApplicationFailure `InvalidSpec` (non-retryable) when it is not in the results database, saying how to load it
 */
export async function checkBaselineRunStored(spec: RunSpec): Promise<void> {
  if (spec.baseline?.from !== 'run') return;
  const baselineRun = spec.baseline.run;
  await withResultsDb(spec.results, spec.resultsDir, async (db) => {
    if (!(await db.run(baselineRun)))
      throw ApplicationFailure.create({
        type: FAILURE.InvalidSpec,
        nonRetryable: true,
        message: `invalid run spec:\n  - baseline.run: run "${baselineRun}" is not in the results database (${db.description}); load its folder with \`chbench results import <dir>\`, or name a stored run (\`chbench results sql "SELECT run_id FROM runs"\`)`,
      });
  });
}
