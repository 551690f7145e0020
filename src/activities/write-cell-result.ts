/**
 * writeCellResult: assemble the cell's step files into one versioned record,
 * `results/<runId>/cells/<cellKey>/result.json` (schema `chbench.cell-result/v1`, the `CellResult` of
 * `src/schema/results.ts`), and beside it `samples.jsonl`, one flat sample per figure of each
 * measured run. Written before teardown, so measured results survive whatever teardown does. The
 * assembly is in src/results/cell-result.ts.
 */
import path from 'node:path';
import { cellDir, readRecordIfExists, runDir, writeJsonAtomic, writeTextAtomic } from '../results/store';
import { assembleCellResult, type CellEnd } from '../results/cell-result';
import { flatSamples, toJsonLines } from '../results/samples';
import type { CellInput, CellOutcome } from '../schema/cell';
import { RunRecord } from '../schema/results';
import { attemptsByPhase, readAttemptLog } from './support/attempt-log';
import { activityIdentity } from '../temporal/activity-context';

/** The one field of `run.json` the samples carry: the chbench build that ran the run. */
const RunChbench = RunRecord.pick({ chbench: true }).partial();

/** Activity factory. */
export function createWriteCellResult() {
  return {
    /**
     * Write `result.json` from the step files present in the cell directory (each read through its
     * schema), and `samples.jsonl` (see `flatSamples`).
     * @returns a reference to it with the cell's status.
     * @throws Error naming a step file that does not fit its schema.
     */
    async writeCellResult(cell: CellInput, outcome: CellEnd): Promise<CellOutcome> {
      const dir = cellDir(cell.resultsDir, cell.runId, cell.cellKey);
      const identity = activityIdentity();
      // Every attempt of this execution of the cell, as its activities logged them.
      const attemptLog = attemptsByPhase(readAttemptLog(dir, identity?.runId));
      const result = assembleCellResult(dir, cell, outcome, attemptLog, identity?.workflowId);
      const file = path.join(dir, 'result.json');
      writeJsonAtomic(file, result);
      const run = readRecordIfExists(path.join(runDir(cell.resultsDir, cell.runId), 'run.json'), RunChbench);
      writeTextAtomic(
        path.join(dir, 'samples.jsonl'),
        toJsonLines(flatSamples(result, { chbench: run?.chbench ?? null })),
      );
      return {
        cellKey: cell.cellKey,
        status: outcome.status,
        resultFile: file,
        ...(outcome.error ? { error: outcome.error } : {}),
        ...(outcome.hostLosses?.length ? { hostLosses: outcome.hostLosses } : {}),
        ...(outcome.hostLost ? { hostLost: true } : {}),
      };
    },
  };
}
