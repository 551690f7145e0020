/**
 * The first pass of a run's comparison over the results database: find the baseline (a run id, the
 * previous successful run of the schedule, or a version of this run's matrix), read both sides'
 * cells, samples and figures, and build the record (`src/measure/compare.ts`); plus where the record
 * lives (`results/<runId>/comparison.json`) and its checked reader.
 */
import path from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import type { ResultsDb, StoredRun } from './db/types';
import { runDir } from './store';
import { COMPARISON_SCHEMA, ComparisonRecord, type CompareWithBaselineInput } from '../schema/comparison';
import { compareRuns, type PairMode } from '../measure/compare';
import { noBaselineRecord } from '../measure/comparison-outcome';

/** Path of a run's `comparison.json`. */
export function comparisonFile(resultsDir: string, runId: string): string {
  return path.join(runDir(resultsDir, runId), 'comparison.json');
}

/**
 * Read and validate a run's `comparison.json`.
 * @throws Error naming the file when it is missing or does not match `chbench.comparison/v1`.
 */
export function readComparison(resultsDir: string, runId: string): ComparisonRecord {
  const file = comparisonFile(resultsDir, runId);
  if (!existsSync(file)) throw new Error(`${file}: no such file (compareWithBaseline has not run for ${runId})`);
  const r = ComparisonRecord.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (!r.success)
    throw new Error(
      `${file} (${COMPARISON_SCHEMA}): ${r.error.issues
        .slice(0, 3)
        .map((i) => `${i.path.join('.')}: ${i.message}`)
        .join('; ')}`,
    );
  return r.data;
}

/** Which run is compared, and with what (the activity input's fields this needs). */
export type BaselineQuery = Pick<CompareWithBaselineInput, 'runId' | 'baseline' | 'scheduleId' | 'startedAt'>;

/** The baseline, or why there is none. */
type Resolved = { run: StoredRun; chosenBy: string; mode: PairMode } | { none: string };

async function resolveBaseline(db: ResultsDb, q: BaselineQuery, self: StoredRun): Promise<Resolved> {
  const b = q.baseline;
  if (b.from === 'run') {
    if (b.run === q.runId) return { none: `run ${b.run} is this run itself` };
    const run = await db.run(b.run);
    return run
      ? { run, chosenBy: `run ${b.run} (named in the spec)`, mode: { kind: 'runs' } }
      : { none: `run ${b.run} (named in the spec) is not in the results database (${db.description})` };
  }
  if (b.from === 'previous-scheduled') {
    if (!q.scheduleId) return { none: 'previous successful run of the schedule: this run was not started by a schedule' };
    const run = await db.previousSuccessfulRun(q.scheduleId, q.startedAt);
    return run
      ? {
          run,
          chosenBy: `previous successful run of schedule ${q.scheduleId} (started ${run.started_at})`,
          mode: { kind: 'runs' },
        }
      : {
          none: `previous successful run of schedule ${q.scheduleId}: none started before ${q.startedAt} (this is its first completed run)`,
        };
  }
  return { run: self, chosenBy: `version ${b.version} in this run's matrix`, mode: { kind: 'version', version: b.version } };
}

/**
 * The run as stored in the results database; a run whose folder is in `resultsDir` but not yet in
 * the database is stored first (storing is idempotent).
 * @throws Error when the run is neither in the database nor in `resultsDir`
 */
export async function storedRunOf(db: ResultsDb, resultsDir: string, runId: string): Promise<StoredRun> {
  let self = await db.run(runId);
  if (!self && existsSync(path.join(runDir(resultsDir, runId), 'run.json'))) {
    await db.storeRun(runDir(resultsDir, runId));
    self = await db.run(runId);
  }
  if (!self)
    throw new Error(
      `compareWithBaseline: run ${runId} is neither in the results database (${db.description}) nor in ${resultsDir}`,
    );
  return self;
}

/**
 * The first-pass comparison record of `self` with its baseline: every query's valid warm runs
 * compared (`compareRuns`), or, when no baseline is found, a `no-baseline` record saying why.
 * @param createdAt ISO time
 */
export async function firstPassComparison(
  db: ResultsDb,
  q: BaselineQuery,
  self: StoredRun,
  createdAt: string,
): Promise<ComparisonRecord> {
  const newCells = await db.cells(q.runId);
  const resolved = await resolveBaseline(db, q, self);
  if ('none' in resolved)
    return noBaselineRecord(
      q.runId,
      q.baseline,
      newCells.map((c) => c.cell_key),
      resolved.none,
      createdAt,
    );
  const same = resolved.run.run_id === q.runId;
  const newSamples = await db.samples(q.runId);
  const newFigures = await db.figures(q.runId);
  return compareRuns({
    comparisonId: `${q.runId}-vs-${same ? `v${(q.baseline as { version: string }).version}` : resolved.run.run_id}`,
    runId: q.runId,
    baselineRunId: resolved.run.run_id,
    baselineChosenBy: resolved.chosenBy,
    mode: resolved.mode,
    baselineCells: same ? newCells : await db.cells(resolved.run.run_id),
    newCells,
    baselineSamples: same ? newSamples : await db.samples(resolved.run.run_id),
    newSamples,
    baselineFigures: same ? newFigures : await db.figures(resolved.run.run_id),
    newFigures,
    options: q.baseline,
    createdAt,
  });
}
