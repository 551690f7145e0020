/**
 * The confirming re-run of a comparison (the `confirmComparison` workflow's own activities):
 * `planConfirmation` turns each flagged pair into two fresh cells, and `runInterleaved` measures the
 * flagged queries on both, interleaved A, B, A, B … (the method: `src/measure/confirmation.ts`).
 */
import path from 'node:path';
import { connect } from '../../clickhouse/client';
import * as confirmation from '../../measure/confirmation';
import { loadWorkload, workloadQueries } from '../../lib/workload';
import { runDir, writeJsonAtomic } from '../../results/store';
import { withResultsDb } from '../../results/db';
import { heartbeat } from '../../temporal/activity-context';
import { settlePreviousAttempts } from '../support/attempts';
import { cellMeasureOptions } from '../support/measure-options';
import { cellCodecProfile, queryIdPrefix } from '../../schema/cell';
import type { ConfirmPairPlan, ConfirmQuerySamples } from '../../schema/comparison';
import type { PlanConfirmationInput, RunInterleavedInput } from '../../schema/comparison';

/** One side: its cell's client, queries and measurement options (the query step's). */
function sideOf(input: RunInterleavedInput, name: 'baseline' | 'candidate'): confirmation.InterleavedSide {
  const si = input[name];
  const m = loadWorkload(si.cell.workload);
  const values = { table: m.table, rows: si.cell.scale, codec: cellCodecProfile(si.cell) };
  const queries = workloadQueries(m, values, input.queries);
  const prefix = queryIdPrefix(si.cell.runId, si.cell.cellKey, input.phase);
  const client = connect(si.target, { maxExecutionTimeS: si.cell.protocol.maxExecutionTimeS });
  const { options } = cellMeasureOptions(si, input.queryLog[name], prefix, `confirm-${input.phase}`);
  const settle = () => settlePreviousAttempts(si.target, client, prefix);
  const stopMerges = si.cell.protocol.stopMergesDuringQueries;
  return { name, table: m.table, workload: si.cell.workload, queries, prefix, client, options, settle, stopMerges };
}

/** Activity factory. */
export function createConfirmComparison() {
  return {
    /**
     * Plan the confirming re-run: per flagged pair, both cells re-keyed into `<runId>.confirm`
     * (`confirmationPlans`). The specs come from the results database's `runs.spec_json`.
     * @throws Error when a run or cell is missing from the results database.
     */
    async planConfirmation(input: PlanConfirmationInput): Promise<ConfirmPairPlan[]> {
      return withResultsDb(input.results, input.resultsDir, async (db) => {
        const specOf = async (runId: string) => {
          const run = await db.run(runId);
          if (!run) throw new Error(`run ${runId} is not in the results database (${db.description})`);
          return run.spec_json;
        };
        return confirmation.confirmationPlans(input.flagged, input, specOf);
      });
    },

    /**
     * Measure `queries` on both cells, interleaved (`measureInterleaved`; merges stopped while
     * measuring when the protocol asks for it, as in the query step). Every run is recorded in
     * `results/<runId>.confirm/interleaved-<pairKey>-<phase>.json` (cold runs: `…-cold.json`); a retry measures from scratch.
     * @returns per query the valid warm (`kind` `cold`: cold) runs' figure on each side (ms), `confirmQuerySamples`
     * @throws what `measureInterleaved` throws (a lost server, a cancellation, a query failing on the server)
     */
    async runInterleaved(input: RunInterleavedInput): Promise<ConfirmQuerySamples[]> {
      const sides = [sideOf(input, 'baseline'), sideOf(input, 'candidate')];
      let runs: confirmation.InterleavedRuns;
      try {
        const step = { step: `confirm-${input.phase}`, pair: input.pairKey };
        runs = await confirmation.measureInterleaved(
          sides,
          input.queries,
          input.rounds,
          (at) => heartbeat({ ...step, query: at.query, round: at.round, of: input.rounds, side: at.side }),
          input.kind,
          input.maxSeconds !== undefined ? { seconds: input.maxSeconds, minRounds: 3 } : undefined,
        );
      } finally {
        for (const s of sides) await s.client.close();
      }
      const { cell } = input.candidate;
      const at = { ...input, baselineCell: input.baseline.cell.cellKey, newCell: cell.cellKey };
      // (`maxSeconds` rides along in `input`: the record says the budget and the rounds measured.)
      const name = confirmation.interleavedFileName(input.pairKey, input.phase, input.kind);
      writeJsonAtomic(path.join(runDir(cell.resultsDir, cell.runId), name), confirmation.interleavedRecord(at, runs));
      return confirmation.confirmQuerySamples(
        runs,
        input.queries,
        input.phase,
        input.kind,
        input.maxSeconds !== undefined ? { rounds: input.rounds, seconds: input.maxSeconds } : undefined,
      );
    },
  };
}
