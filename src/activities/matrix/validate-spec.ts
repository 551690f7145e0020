/**
 * validateSpec: the matrix workflow's first activity. Checks what the pure schema cannot — the
 * workload and its query ids exist, local binaries are executable, password variables are set on
 * this worker (`checkSpec`, src/targets/check-spec.ts) — and that this start may continue the run
 * in its folder (src/schema/run-start.ts), before anything is provisioned, and writes `run.json`.
 */
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { FAILURE } from '../../schema/failures';
import { expandMatrix, cellKey, wantsControl } from '../../schema/matrix';
import { checkRunStart, runRecordOf, type ValidatedRun, type ValidateSpecInput } from '../../schema/run-start';
import { RunRecord } from '../../schema/results';
import { runIdProblem } from '../../schema/run-id';
import { indexQueryIds, loadWorkload } from '../../lib/workload';
import { changedWorkloadFiles, workloadFingerprint } from '../../lib/workload-hash';
import { chbenchVersion } from '../../lib/chbench-version';
import { markResultsDir, runDir, writeJsonAtomic } from '../../results/store';
import { checkBaselineRunStored, readUnlessForeign, reusedCells } from '../../results/run-start';
import { checkSpec } from '../../targets/check-spec';

export type { ValidatedRun } from '../../schema/run-start';

/** Activity factory. */
export function createValidateSpec() {
  return {
    /**
     * Validate the run spec and record the run.
     * @throws ApplicationFailure type `InvalidSpec` (non-retryable) listing every problem (the run id's
     *   too: {@link runIdProblem}, e.g. longer than 200 characters); also when the
     *   run's folder holds a run of another workflow id, or (a resume) the spec or the workload's files
     *   differ from the ones the run started with (naming the changed files); `UnreadableResult` (non-retryable) when the run's `run.json` or a cell's `result.json` exists but
     *   does not parse with the results schema (another chbench version wrote it), naming the file and field.
     */
    async validateSpec(input: ValidateSpecInput): Promise<ValidatedRun> {
      const { spec, problems } = checkSpec(input.spec, { worker: true });
      // A workflow started directly (`temporal workflow start`) skips the CLI's run-id check: the id
      // names folders and child workflows, so check it here, before anything touches the disk.
      const idProblem = runIdProblem(input.runId);
      if (idProblem)
        problems.unshift(`run id (workflow id ${JSON.stringify(input.workflowId ?? input.runId)}): ${idProblem}`);
      if (!spec || problems.length)
        throw ApplicationFailure.create({
          type: FAILURE.InvalidSpec,
          nonRetryable: true,
          message: `invalid run spec:\n  - ${problems.join('\n  - ')}`,
        });
      await checkBaselineRunStored(spec);
      // From here the folder is chbench's: marked, so a later check never mistakes it for someone else's.
      markResultsDir(spec.resultsDir);
      const dir = runDir(spec.resultsDir, input.runId);
      // The A/A control cell too (a comparing matrix; the workflow adds it behind its `aa-control` patch).
      const cells = expandMatrix(spec, { control: input.control ?? wantsControl(spec) }).map(cellKey);
      const prev = readUnlessForeign(path.join(dir, 'run.json'), RunRecord);
      const workloadFiles = workloadFingerprint(spec.workload);
      const changedFiles = prev?.workload_files ? changedWorkloadFiles(prev.workload_files, workloadFiles) : [];
      const start = { ...input, workflowId: input.workflowId ?? input.runId, dir, spec, workloadFiles, changedFiles };
      checkRunStart(prev, start);
      const reused = reusedCells(spec.resultsDir, input.runId, cells, input.reuseFailedSince);
      writeJsonAtomic(path.join(dir, 'run.json'), runRecordOf(prev, { ...start, cells }, chbenchVersion()));
      // The spec exactly as given: the input to resume this run with `temporal workflow start --input-file`.
      writeJsonAtomic(path.join(dir, 'run-spec.json'), input.spec);
      // Every later step (on any worker, on any host) writes to the same results store: the folder
      // resolved here, once, not against each worker's own working directory.
      return {
        spec: { ...spec, resultsDir: path.resolve(spec.resultsDir) },
        cellKeys: cells,
        runDir: dir,
        reused,
        indexQueries: indexQueryIds(spec.workload, spec.queries),
        afterLoad: loadWorkload(spec.workload).afterLoad.map((a) => a.file),
      };
    },
  };
}
