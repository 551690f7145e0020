/**
 * Two of a version bisect's step decisions, apart from its activities (src/activities/bisect/bisect.ts):
 * judging a time step's confirming re-run (the comparison method on the interleaved samples) and
 * finding a stored cell measured exactly as a cell the bisect would run (reused instead of run),
 * and the bisect's row of the results database (`bisects`).
 */
import path from 'node:path';
import { CellResult } from '../schema/results';
import { judgeRerun, seedOf, type RerunSamples, type SampleComparison } from '../measure/compare';
import { workloadFingerprint } from '../lib/workload-hash';
import type { CellInput } from '../schema/cell';
import type { ResultsDbSpec } from '../schema/run-spec';
import type { BisectRow } from './db/types';
import type { BisectReportInput } from './report-bisect';
import { cellDir, readRecordIfExists } from './store';
import { withResultsDb } from './db';
import { cellSpecHash } from './cell-spec';
import { hostKindOf } from '../schema/host';
import { hostFacts } from '../temporal/host';

/**
 * A stored cell the bisect reuses instead of running the cell again: where it is (run id, cell key)
 * and its `result.json` (whose figures the bisect reads as it reads a cell it ran).
 */
export interface ReusedCell {
  runId: string;
  cellKey: string;
  resultFile: string;
  /** What matched, in words (`cellSpecHash`, workload files hash, host kind), for the report. */
  matched: string;
}

/**
 * A step's confirming re-run judged (`bisectConfirm`): the comparison method on the interleaved
 * re-run's samples, and the step's final verdict by the comparison's rule (`applyConfirmation` of
 * src/measure/compare.ts): the first pass's when the re-run gives the same direction, else
 * `unstable` when the re-run could not decide, else `unchanged`.
 */
export interface BisectConfirmation extends Pick<
  SampleComparison,
  'verdict' | 'reason' | 'n_baseline' | 'n_new' | 'ratio' | 'ci_low' | 'ci_high' | 'threshold'
> {
  /** Interleaved rounds measured (the larger side's valid warm runs). */
  rounds: number;
  figure: 'server_elapsed_ms' | 'wall_ms';
  confirmed: boolean;
  final: SampleComparison['verdict'];
}

/** Input of {@link judgeConfirmation}: the re-run's samples (ms, valid warm runs) and the first pass's thresholds. */
export interface BisectConfirmInput {
  samples: RerunSamples;
  firstPass: 'regression' | 'improvement';
  minChange: number;
  unstableAbove: number;
  minRuns: number;
  seedKey: string;
}

/**
 * Judge a step's confirming re-run (`confirmComparison`'s interleaved samples of the query: valid
 * warm, or cold, runs in ms, the good end's setup as baseline) with `judgeRerun` (the rule of
 * `chbench compare`'s re-run), thresholds as the first
 * pass, seeded from `seedKey` (a replayed or retried step gives the same verdict). Samples missing on
 * a side give `unstable` (too few runs). Pure.
 */
export function judgeConfirmation(input: BisectConfirmInput): BisectConfirmation {
  const { confirm, final } = judgeRerun(input.samples, input.firstPass, {
    minChange: input.minChange,
    unstableAbove: input.unstableAbove,
    minRuns: input.minRuns,
    seed: seedOf(`${input.seedKey}:confirm`),
  });
  return { ...confirm, figure: input.samples.figure, final };
}

/**
 * A stored cell measured as `cell` would be (`ResultsDb.reusableCell`): the same version label,
 * the same measured inputs (`cellSpecHash`: codec, scale, settings, protocol, target, pinned
 * defaults, …), the same workload files (`workloadFingerprint(cell.workload).sha256`, read now,
 * against `runs.workload_sha256`), the same host kind (`hostKind`, as provisioning records it) and
 * target kind, in another run, whose `result.json` is still in `resultsDir` with status `succeeded`
 * and the same spec hash. Null when there is none (also when the results database has no schema-6
 * rows yet). Reads only; idempotent.
 * @throws Error when the results database cannot be opened (named), or the workload is missing
 */
export async function findReusableCell(input: {
  cell: CellInput;
  results?: ResultsDbSpec;
  resultsDir: string;
  /** The host kind to match (`hostKindOf` of src/schema/host.ts); default this worker's host. */
  hostKind?: string;
}): Promise<ReusedCell | null> {
  const { cell } = input;
  const hostKind = input.hostKind ?? hostKindOf(hostFacts({ hostId: '', taskQueue: '' }));
  const hash = cellSpecHash(cell);
  const workload = workloadFingerprint(cell.workload).sha256;
  const hit = await withResultsDb(input.results, input.resultsDir, (db) =>
    db.reusableCell({
      version: cell.version,
      cellSpecSha256: hash,
      workloadSha256: workload,
      hostKind,
      targetKind: cell.target.kind,
      notRunId: cell.runId,
    }),
  );
  if (!hit) return null;
  const resultFile = path.join(cellDir(input.resultsDir, hit.run_id, hit.cell_key), 'result.json');
  const r = readRecordIfExists(resultFile, CellResult);
  if (r?.status !== 'succeeded' || r.cell_spec_sha256 !== hash) return null;
  return {
    runId: hit.run_id,
    cellKey: hit.cell_key,
    resultFile,
    matched: `cell spec ${hash.slice(0, 12)}, workload ${cell.workload} files ${workload.slice(0, 12)}, host ${hostKind}`,
  };
}

/**
 * The bisect's `bisects` row (schema 7) from its report record: the bracketing pair from
 * `outcome.bracket`, cells reused from `reusedCells`, the record as JSON. Pure.
 */
export function bisectRow(
  report: BisectReportInput,
  a: { good: string; bad: string; verdict: string; cellsRun: number; storedAt: string },
): BisectRow {
  return {
    run_id: report.runId,
    query: report.query,
    metric: report.metric,
    good: a.good,
    bad: a.bad,
    versions: report.versions,
    bracket_older: report.outcome.bracket?.[0] ?? null,
    first_changed: report.outcome.bracket?.[1] ?? null,
    verdict: a.verdict,
    cells_run: a.cellsRun,
    cells_new: report.cellsNew ?? null,
    cells_reused: report.reusedCells?.length ?? 0,
    record_json: JSON.stringify(report),
    stored_at: a.storedAt,
  };
}

/**
 * Store the bisect's row (`ResultsDb.storeBisect`: replaces the run's earlier row, so a retried
 * activity writes it once). Never throws: a database that cannot be written leaves the answer in
 * `bisect.md` and the workflow result, and the returned line says why.
 * @returns a line for the report: `row stored in <database>` or `row not stored: <why>`
 */
export async function storeBisectRow(input: {
  results?: ResultsDbSpec;
  resultsDir: string;
  row: BisectRow;
}): Promise<string> {
  try {
    const where = await withResultsDb(input.results, input.resultsDir, async (db) => {
      await db.storeBisect(input.row);
      return db.description;
    });
    return `row stored in table bisects of ${where}`;
  } catch (e) {
    return `row not stored: ${e instanceof Error ? e.message : String(e)}`;
  }
}
