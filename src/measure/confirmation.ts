/**
 * The confirming re-run of a comparison: each flagged pair becomes two fresh cells (the baseline's
 * setup — version, codec, settings, target, from the baseline run's spec — and the new run's), and
 * the flagged queries are measured on both interleaved A, B, A, B … so that both sides see the same
 * machine at the same time (ClickHouse's performance comparison runs old and new servers the same
 * way). Each side's run is measured by the query step's own method ({@link measureQueries}: warm
 * runs, the runs' settings, validity judged per run).
 */
import type { ClickHouseClient } from '@clickhouse/client';
import { tryCommand } from '../clickhouse/client';
import { indexQueryIds, loadWorkload, type WorkloadQuery } from '../lib/workload';
import { cellInputs } from '../schema/matrix';
import { RunSpec } from '../schema/run-spec';
import type { CellInput } from '../schema/cell';
import type { RunSample } from '../schema/results';
import type { ConfirmPairPlan, ConfirmQuerySamples, FlaggedPair } from '../schema/comparison';
import { measureQueries, type MeasureOptions } from './protocol';

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
    // The A/A control cell (`…-r2`) is one of the run's cells when the run added it.
    { control: true },
  ).find((c) => c.cellKey === cellKey);
  if (!cell) throw new Error(`run ${runId} has no cell ${cellKey} in its spec`);
  return cell;
}

/** The plans of every flagged pair, in order ({@link confirmPairPlan}). */
export async function confirmationPlans(
  flagged: readonly FlaggedPair[],
  run: { runId: string; resultsDir: string },
  specOf: (runId: string) => Promise<string>,
  keyPrefix = 'p',
): Promise<ConfirmPairPlan[]> {
  const plans: ConfirmPairPlan[] = [];
  for (const [i, f] of flagged.entries()) plans.push(await confirmPairPlan(f, i + 1, run, specOf, keyPrefix));
  return plans;
}

/**
 * The plan of the `n`-th flagged pair (from 1): the baseline cell as its run specified it and the
 * new cell as this run specified it, both re-keyed into `<runId>.confirm` (`<keyPrefix><n>-baseline`,
 * `<keyPrefix><n>-new`; `p` for a baseline comparison, `v` for the matrix's own verdicts), limited to the flagged queries, always torn down.
 * @param specOf a run's spec JSON (the results database's `runs.spec_json`)
 * @throws Error when a cell is not in its run's spec, or what `specOf` throws
 */
export async function confirmPairPlan(
  f: FlaggedPair,
  n: number,
  run: { runId: string; resultsDir: string },
  specOf: (runId: string) => Promise<string>,
  keyPrefix = 'p',
): Promise<ConfirmPairPlan> {
  const ids = [...new Set(f.queries.map((q) => q.query_id))];
  const rekey = (c: CellInput, side: string): CellInput => ({
    ...c,
    runId: confirmRunId(run.runId),
    cellKey: `${keyPrefix}${n}-${side}`,
    queries: ids,
    skipIndex: c.skipIndex && f.queries.some((q) => q.phase === 'index'),
    teardown: 'always',
    resultsDir: run.resultsDir,
  });
  const { baselineCell: b, newCell: c } = f;
  return {
    pairKey: f.pairKey,
    baseline: rekey(cellOf(await specOf(b.runId), b.runId, b.cellKey), 'baseline'),
    candidate: rekey(cellOf(await specOf(c.runId), c.runId, c.cellKey), 'new'),
    phases: {
      baseline: f.queries.filter((q) => q.phase === 'baseline').map((q) => q.query_id),
      index: f.queries.filter((q) => q.phase === 'index').map((q) => q.query_id),
    },
  };
}

/** One side of the interleaved runs, ready to measure (its cell set up; the caller closes its client). */
export interface InterleavedSide {
  name: 'baseline' | 'candidate';
  /** Wait for or kill any statement of an earlier attempt before measuring (`settlePreviousAttempts`). */
  settle: () => Promise<unknown>;
  /** `SYSTEM STOP MERGES <table>` while measuring (the protocol's `stopMergesDuringQueries`). */
  stopMerges: boolean;
  client: ClickHouseClient;
  table: string;
  /** The side's workload name (for the error of a query it does not have). */
  workload: string;
  queries: WorkloadQuery[];
  /** query_id prefix of the side's cell and phase; each round adds `-r<round>`. */
  prefix: string;
  /** The cell's measurement options (the query step's). */
  options: MeasureOptions;
}

/** Every run of the interleaved rounds, by query id and side; `n` is the round (0 = the warm-up). */
export type InterleavedRuns = Record<string, { baseline: RunSample[]; candidate: RunSample[] }>;

/**
 * Measure `ids` on both sides interleaved: each side settled and (when asked) its merges stopped,
 * then round 0, one warm-up run per query and side, then `rounds` rounds of (A, B) per query, one
 * warm run each; with `kind` `cold`, no warm-up round and one cold run each (the caches dropped as
 * the side's options say: `dropCaches`, `dropOsPageCache`, direct I/O); merges stopped here are
 * started again at the end, also on failure.
 * @param onRun progress before each run (for the heartbeat)
 * @throws Error when a query is not in a side's workload or fails on the server (naming side and
 *   round); what {@link measureQueries} throws (a lost server, a cancellation)
 */
export async function measureInterleaved(
  sides: readonly InterleavedSide[],
  ids: readonly string[],
  rounds: number,
  onRun: (at: { query: string; round: number; side: InterleavedSide['name'] }) => void,
  kind: 'warm' | 'cold' = 'warm',
  budget?: InterleavedBudget,
): Promise<InterleavedRuns> {
  const runs: InterleavedRuns = {};
  const stopped = new Set<InterleavedSide>();
  const now = budget?.now ?? (() => performance.now());
  const started = now();
  try {
    for (const s of sides) {
      await s.settle();
      if (s.stopMerges && (await tryCommand(s.client, `SYSTEM STOP MERGES ${s.table}`)).ok) stopped.add(s);
    }
    for (let round = kind === 'cold' ? 1 : 0; round <= rounds; round++) {
      // The seconds budget: checked between rounds, once the minimum of measured rounds is in.
      if (budget && round > budget.minRounds && (now() - started) / 1000 >= budget.seconds) break;
      for (const id of ids)
        for (const s of sides) {
          const q = s.queries.find((x) => x.id === id);
          if (!q) throw new Error(`query ${id} is not in workload ${s.workload}`);
          onRun({ query: id, round, side: s.name });
          // Round 0 is each side's warm-up run; rounds 1…n are measured (cold: one cold run each).
          const [record] = await measureQueries(s.client, s.table, [q], {
            ...s.options,
            coldRuns: kind === 'cold' ? 1 : 0,
            warmupRuns: round === 0 ? 1 : 0,
            warmRuns: round === 0 || kind === 'cold' ? 0 : 1,
            queryIdPrefix: `${s.prefix}-r${round}`,
          });
          if (record.error)
            throw new Error(
              `${id.toUpperCase()} failed on the ${s.name} cell in round ${round}: Code ${record.error.code}: ${record.error.message.split('\n')[0]}`,
            );
          const kept = (runs[id] ??= { baseline: [], candidate: [] });
          kept[s.name].push(...record.samples.map((x) => ({ ...x, n: round })));
        }
    }
  } finally {
    for (const s of stopped) await tryCommand(s.client, `SYSTEM START MERGES ${s.table}`);
  }
  return runs;
}

/**
 * A seconds budget for {@link measureInterleaved}: before each round after the first `minRounds`
 * measured ones, the rounds stop when `seconds` have passed since measuring began (settling
 * included). A round in flight, and a statement in it, always finish. `now` (ms, monotonic) for tests.
 */
export interface InterleavedBudget {
  seconds: number;
  minRounds: number;
  now?: () => number;
}

/** Measured rounds in `runs` (the largest round number `n` of any run; the warm-up round 0 not counted). */
export function roundsMeasured(runs: InterleavedRuns): number {
  let n = 0;
  for (const q of Object.values(runs))
    for (const side of [q.baseline, q.candidate]) for (const r of side) n = Math.max(n, r.n);
  return n;
}

/**
 * The file name of a pair's interleaved runs in the confirm run's folder: `interleaved-<pairKey>-<phase>.json`,
 * `…-<phase>-cold.json` for its cold runs (a pair re-run for both kinds keeps both records).
 */
export function interleavedFileName(pairKey: string, phase: 'baseline' | 'index', kind?: 'warm' | 'cold'): string {
  return `interleaved-${pairKey.replace(/[^A-Za-z0-9._-]/g, '_')}-${phase}${kind === 'cold' ? '-cold' : ''}.json`;
}

/** The `chbench.interleaved/v1` record of a pair's runs (every run, in the order measured). */
export function interleavedRecord(
  at: {
    pairKey: string;
    phase: 'baseline' | 'index';
    rounds: number;
    baselineCell: string;
    newCell: string;
    kind?: 'warm' | 'cold';
    /** The seconds budget the rounds ran under (`verdicts.confirmSeconds`), when one was set. */
    maxSeconds?: number;
  },
  runs: InterleavedRuns,
) {
  const done = roundsMeasured(runs);
  return {
    schema: 'chbench.interleaved/v1',
    pair: at.pairKey,
    phase: at.phase,
    rounds: at.rounds,
    ...(at.maxSeconds !== undefined
      ? {
          max_seconds: at.maxSeconds,
          rounds_measured: done,
          ...(done < at.rounds
            ? { budget_spent: `stopped after ${done} of ${at.rounds} rounds: ${at.maxSeconds} s spent` }
            : {}),
        }
      : {}),
    ...(at.kind === 'cold' ? { kind: 'cold' } : {}),
    order:
      at.kind === 'cold'
        ? 'per round and query: baseline cell, then new cell; one cold run each, no warm-up round'
        : "per round and query: baseline cell, then new cell; round 0 is each side's warm-up",
    baseline_cell: at.baselineCell,
    new_cell: at.newCell,
    runs,
  };
}

/**
 * Per query the valid warm runs' figure on each side (ms): server-side elapsed
 * (`system.query_log` / the HTTP summary, as measured) when every kept run of both sides has it,
 * else client wall time (`figure` says which). Valid: warm, and not judged not quiet; with `kind`
 * `cold`, the cold runs that were cold (`validity.cold`) and quiet.
 */
export function confirmQuerySamples(
  runs: InterleavedRuns,
  ids: readonly string[],
  phase: 'baseline' | 'index',
  kind: 'warm' | 'cold' = 'warm',
  budget?: { rounds: number; seconds: number },
): ConfirmQuerySamples[] {
  const done = roundsMeasured(runs);
  const spent =
    budget && done < budget.rounds
      ? { budget_spent: { rounds: done, of: budget.rounds, seconds: budget.seconds } }
      : {};
  return ids.map((id) => {
    const valid = (xs: RunSample[]) =>
      xs.filter(
        (x) =>
          x.kind === kind && x.validity.quiet.valid !== false && (kind === 'warm' || x.validity.cold?.valid !== false),
      );
    const a = valid(runs[id]?.baseline ?? []);
    const b = valid(runs[id]?.candidate ?? []);
    const server = a.length > 0 && b.length > 0 && [...a, ...b].every((x) => x.server_elapsed_ms !== null);
    const fig = (x: RunSample) => (server ? (x.server_elapsed_ms as number) : x.wall_ms);
    return {
      query_id: id,
      phase,
      figure: server ? 'server_elapsed_ms' : 'wall_ms',
      ...(kind === 'cold' ? { kind: 'cold' as const } : {}),
      baseline_ms: a.map(fig),
      new_ms: b.map(fig),
      ...spent,
    };
  });
}
