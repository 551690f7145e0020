/**
 * The matrix's own verdicts, after its cells (method: `src/measure/verdicts.ts`): `judgeVerdicts`
 * compares every axis from the cells' records and writes `results/<runId>/verdicts.json` (first pass),
 * `planVerdictConfirmation` turns the faster/slower pairs into fresh interleaved cells (the comparison's
 * own re-run, keys `v<n>-…` under `<runId>.confirm`), and `finishVerdicts` applies the re-run's samples
 * and rewrites the record. All idempotent: each rewrites the file whole, from the cells' records.
 */
import path from 'node:path';
import { writeJsonAtomic, readRecord, runDir } from '../../results/store';
import { verdictInputOf } from '../../results/verdict-cells';
import * as confirmation from '../../measure/confirmation';
import {
  applyVerdictConfirmation,
  controlLine,
  controlNoiseOf,
  decisionLine,
  judgeMatrix,
  rerunPairs,
} from '../../measure/verdicts';
import type { ConfirmOutcome, ConfirmPairPlan, FlaggedPair } from '../../schema/comparison';
import { VERDICT_DEFAULTS, VerdictsRecord, type VerdictsSummary } from '../../schema/verdicts';
import { RunRecord } from '../../schema/results';

/** `results/<runId>/verdicts.json`. */
export const verdictsFile = (resultsDir: string, runId: string) =>
  path.join(runDir(resultsDir, runId), 'verdicts.json');

/** Where a run's records are. */
export interface VerdictsInput {
  resultsDir: string;
  runId: string;
}

/**
 * Whether the adaptive step measures inconclusive comparisons again: on targets whose two re-run cells
 * run side by side on the worker's host (embedded, local). A kubernetes or docker re-run needs room for
 * two more servers at once (a one-node cluster cannot schedule them): there only faster/slower are re-run.
 */
const remeasures = (spec: { target: { kind: string } }) =>
  spec.target.kind === 'embedded' || spec.target.kind === 'local';

/** What the workflow keeps of a record. */
function summaryOf(r: VerdictsRecord): VerdictsSummary {
  const counts: Record<string, number> = {};
  for (const e of r.entries) if (e.axis !== 'repetition') counts[e.verdict] = (counts[e.verdict] ?? 0) + 1;
  return { decision: decisionLine(r), control: controlLine(r), counts };
}

/** Activity factory. */
export function createJudgeVerdicts() {
  return {
    /**
     * First pass: judge every axis of the run's matrix from its cells' `result.json` and write `verdicts.json`.
     * @returns the pairs whose faster/slower verdicts await the interleaved re-run (warm and cold runs apart), and the summary.
     * @throws Error when `run.json` or a `result.json` does not parse.
     */
    async judgeVerdicts(
      input: VerdictsInput,
    ): Promise<{ warm: FlaggedPair[]; cold: FlaggedPair[]; summary: VerdictsSummary }> {
      const v = verdictInputOf(runDir(input.resultsDir, input.runId));
      const record = judgeMatrix({
        runId: v.runId,
        cells: v.cells,
        axes: v.axes,
        options: v.spec.verdicts ?? VERDICT_DEFAULTS,
        createdAt: new Date().toISOString(),
      });
      writeJsonAtomic(verdictsFile(input.resultsDir, input.runId), record);
      // On the worker's host, the interleaved A/A control goes first: the re-run's intervals take its noise.
      return { ...rerunPairs(record, v.runId, { remeasure: remeasures(v.spec) }), summary: summaryOf(record) };
    },

    /**
     * Plan the re-run of flagged pairs: both cells of each pair as the run specified them (its `run.json` spec,
     * the A/A control cell included), re-keyed `v<n>-baseline` / `v<n>-new` into `<runId>.confirm`.
     * @param input.offset numbers the pairs after this many (the cold re-run's pairs after the warm one's)
     * @throws Error when a cell is not in the run's spec.
     */
    async planVerdictConfirmation(
      input: VerdictsInput & { flagged: FlaggedPair[]; prefix: string },
    ): Promise<ConfirmPairPlan[]> {
      // The spec only: run.json, not every cell's result.json.
      const { spec } = readRecord(path.join(runDir(input.resultsDir, input.runId), 'run.json'), RunRecord);
      return confirmation.confirmationPlans(input.flagged, input, async () => JSON.stringify(spec), input.prefix);
    },

    /**
     * Apply the re-run's samples to `verdicts.json` (only what it confirms stays faster/slower) and rewrite it.
     * @param input.notRun pairs not re-run, with why (budget spent, `confirmRounds` 0, the child failed)
     * @throws Error when `verdicts.json` is missing or does not parse.
     */
    async finishVerdicts(
      input: VerdictsInput & { confirm: ConfirmOutcome[]; notRun: Record<string, string> },
    ): Promise<VerdictsSummary> {
      const file = verdictsFile(input.resultsDir, input.runId);
      const first = readRecord(file, VerdictsRecord);
      const v = verdictInputOf(runDir(input.resultsDir, input.runId));
      const record = applyVerdictConfirmation(first, input.confirm, input.notRun, controlNoiseOf(v.cells, v.axes));
      writeJsonAtomic(file, record);
      return summaryOf(record);
    },
  };
}
