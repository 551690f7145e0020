/**
 * The confirming re-run of a comparison (the `confirmComparison` workflow's own activities):
 * `planConfirmation` turns each flagged pair into two fresh cells — the baseline's setup (version,
 * codec, settings, target, from the baseline run's spec in the results database) and the new run's —
 * and `runInterleaved` measures the flagged queries on both, interleaved A, B, A, B … so that both
 * sides see the same machine at the same time (ClickHouse's performance comparison runs old and new
 * servers the same way). Each side's run is measured by the query step's own method
 * (`measureQueries`, src/measure/protocol.ts): warm runs, the runs' settings, validity judged per run.
 */
import path from 'node:path';
import type { ClickHouseClient } from '@clickhouse/client';
import { connect, tryCommand } from '../../clickhouse/client';
import { measureQueries } from '../../measure/protocol';
import { indexQueryIds, loadWorkload, workloadQueries } from '../../lib/workload';
import { runDir, writeJsonAtomic } from '../../results/store';
import { withResultsDb } from '../../results/db';
import { heartbeat } from '../../temporal/activity-context';
import { settlePreviousAttempts } from '../support/attempts';
import { cellMeasureOptions } from '../support/measure-options';
import { cellInputs } from '../../schema/matrix';
import { RunSpec, type ResultsDbSpec } from '../../schema/run-spec';
import { cellCodecProfile, queryIdPrefix, type CellInput, type StepInput } from '../../schema/cell';
import type { CommandOutcome, RunSample } from '../../schema/results';
import type { ConfirmPairPlan, ConfirmQuerySamples, FlaggedPair } from '../../schema/comparison';

/** The results folder (run id) of a run's confirming re-run cells: `<runId>.confirm`. */
export function confirmRunId(runId: string): string {
  return `${runId}.confirm`;
}

/** Rebuild a run's cell input from its spec (as stored in the results database). @throws Error when the cell is not in that spec. */
function cellOf(specJson: string, runId: string, cellKey: string): CellInput {
  const spec = RunSpec.parse(JSON.parse(specJson));
  const cell = cellInputs(
    spec,
    runId,
    indexQueryIds(spec.workload, spec.queries),
    loadWorkload(spec.workload).afterLoad.map((a) => a.file),
  ).find((c) => c.cellKey === cellKey);
  if (!cell) throw new Error(`run ${runId} has no cell ${cellKey} in its spec`);
  return cell;
}

/** Input of {@link planConfirmation}. */
export interface PlanConfirmationInput {
  resultsDir: string;
  runId: string;
  results?: ResultsDbSpec;
  flagged: FlaggedPair[];
}

/** Input of {@link runInterleaved}: both sides' cells after setup, and which of their queries to measure. */
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
}

/** Activity factory. */
export function createConfirmComparison() {
  return {
    /**
     * Plan the confirming re-run: per flagged pair, the baseline cell as its run specified it and the
     * new cell as this run specified it, both re-keyed into `<runId>.confirm` (`p<n>-baseline`,
     * `p<n>-new`), limited to the flagged queries, always torn down. The specs come from the results
     * database's `runs.spec_json`.
     * @throws Error when a run or cell is missing from the results database.
     */
    async planConfirmation(input: PlanConfirmationInput): Promise<ConfirmPairPlan[]> {
      return withResultsDb(input.results, input.resultsDir, async (db) => {
        const plans: ConfirmPairPlan[] = [];
        for (const [i, f] of input.flagged.entries()) {
          const specOf = async (runId: string) => {
            const run = await db.run(runId);
            if (!run) throw new Error(`run ${runId} is not in the results database (${db.description})`);
            return run.spec_json;
          };
          const ids = [...new Set(f.queries.map((q) => q.query_id))];
          const rekey = (c: CellInput, side: string): CellInput => ({
            ...c,
            runId: confirmRunId(input.runId),
            cellKey: `p${i + 1}-${side}`,
            queries: ids,
            skipIndex: c.skipIndex && f.queries.some((q) => q.phase === 'index'),
            teardown: 'always',
            resultsDir: input.resultsDir,
          });
          plans.push({
            pairKey: f.pairKey,
            baseline: rekey(
              cellOf(await specOf(f.baselineCell.runId), f.baselineCell.runId, f.baselineCell.cellKey),
              'baseline',
            ),
            candidate: rekey(cellOf(await specOf(f.newCell.runId), f.newCell.runId, f.newCell.cellKey), 'new'),
            phases: {
              baseline: f.queries.filter((q) => q.phase === 'baseline').map((q) => q.query_id),
              index: f.queries.filter((q) => q.phase === 'index').map((q) => q.query_id),
            },
          });
        }
        return plans;
      });
    },

    /**
     * Measure `queries` on both cells, interleaved: one warm-up run per query and side, then
     * `rounds` rounds of (A, B) per query. Merges are stopped on both tables while measuring (when the
     * protocol asks for it, as in the query step). Every run is recorded in
     * `results/<runId>.confirm/interleaved-<pairKey>-<phase>.json`; a retry measures from scratch.
     * @returns per query the valid warm runs' figure on each side (ms): server-side elapsed when every
     *   kept run of both sides has it, else client wall time (`figure` says which).
     * @throws what `measureQueries` throws (a lost server, a cancellation); a query that fails on the server fails the activity.
     */
    async runInterleaved(input: RunInterleavedInput): Promise<ConfirmQuerySamples[]> {
      const sides = [
        { name: 'baseline' as const, si: input.baseline, ql: input.queryLog.baseline },
        { name: 'candidate' as const, si: input.candidate, ql: input.queryLog.candidate },
      ].map((s) => {
        const m = loadWorkload(s.si.cell.workload);
        const queries = workloadQueries(
          m,
          { table: m.table, rows: s.si.cell.scale, codec: cellCodecProfile(s.si.cell) },
          input.queries,
        );
        const prefix = queryIdPrefix(s.si.cell.runId, s.si.cell.cellKey, input.phase);
        const client = connect(s.si.target, { maxExecutionTimeS: s.si.cell.protocol.maxExecutionTimeS });
        const { options } = cellMeasureOptions(s.si, s.ql, prefix, `confirm-${input.phase}`);
        return { ...s, table: m.table, queries, prefix, client, options, merges: null as CommandOutcome | null };
      });
      const runs: Record<string, { baseline: RunSample[]; candidate: RunSample[] }> = {};
      try {
        for (const s of sides) {
          await settlePreviousAttempts(s.si.target, s.client, s.prefix);
          if (s.si.cell.protocol.stopMergesDuringQueries)
            s.merges = await tryCommand(s.client, `SYSTEM STOP MERGES ${s.table}`);
        }
        for (let round = 0; round <= input.rounds; round++)
          for (const id of input.queries)
            for (const s of sides) {
              const q = s.queries.find((x) => x.id === id);
              if (!q) throw new Error(`query ${id} is not in workload ${s.si.cell.workload}`);
              heartbeat({
                step: `confirm-${input.phase}`,
                pair: input.pairKey,
                query: id,
                round,
                of: input.rounds,
                side: s.name,
              });
              // Round 0 is each side's warm-up run; rounds 1…n are measured.
              const [record] = await measureQueries(s.client as ClickHouseClient, s.table, [q], {
                ...s.options,
                coldRuns: 0,
                warmupRuns: round === 0 ? 1 : 0,
                warmRuns: round === 0 ? 0 : 1,
                queryIdPrefix: `${s.prefix}-r${round}`,
              });
              if (record.error)
                throw new Error(
                  `${id.toUpperCase()} failed on the ${s.name} cell in round ${round}: Code ${record.error.code}: ${record.error.message.split('\n')[0]}`,
                );
              const kept = (runs[id] ??= { baseline: [], candidate: [] });
              kept[s.name].push(...record.samples.map((x) => ({ ...x, n: round })));
            }
      } finally {
        for (const s of sides) {
          if (s.merges?.ok) await tryCommand(s.client, `SYSTEM START MERGES ${s.table}`);
          await s.client.close();
        }
      }
      const file = path.join(
        runDir(input.candidate.cell.resultsDir, input.candidate.cell.runId),
        `interleaved-${input.pairKey.replace(/[^A-Za-z0-9._-]/g, '_')}-${input.phase}.json`,
      );
      writeJsonAtomic(file, {
        schema: 'chbench.interleaved/v1',
        pair: input.pairKey,
        phase: input.phase,
        rounds: input.rounds,
        order: "per round and query: baseline cell, then new cell; round 0 is each side's warm-up",
        baseline_cell: input.baseline.cell.cellKey,
        new_cell: input.candidate.cell.cellKey,
        runs,
      });
      return input.queries.map((id) => {
        const valid = (xs: RunSample[]) => xs.filter((x) => x.kind === 'warm' && x.validity.quiet.valid !== false);
        const a = valid(runs[id]?.baseline ?? []);
        const b = valid(runs[id]?.candidate ?? []);
        const server = a.length > 0 && b.length > 0 && [...a, ...b].every((x) => x.server_elapsed_ms !== null);
        const fig = (x: RunSample) => (server ? (x.server_elapsed_ms as number) : x.wall_ms);
        return {
          query_id: id,
          phase: input.phase,
          figure: server ? 'server_elapsed_ms' : 'wall_ms',
          baseline_ms: a.map(fig),
          new_ms: b.map(fig),
        };
      });
    },
  };
}
