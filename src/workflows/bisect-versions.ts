/**
 * bisectVersions: find the first version where a query's read_rows (or its warm / cold time) changes
 * between a good and a bad version label, then attribute the change (`chbench bisect`,
 * docs/regression.md "Bisect"). The method is `src/schema/bisect.ts`; this workflow tells the story,
 * each step in its own file:
 *
 * 1. `bisectRange`: the versions the target's version sources serve between the labels, oldest first;
 *    a bad `handSettings`, metric or query refused before any cell (`InvalidSpec`).
 * 2. `validateSpec` with `matrix.version` = those versions, the first codec, shipped defaults: writes
 *    `run.json`, and on a resumed start (same workflow id) returns the cells already measured.
 * 3. `probeVersions` (./bisect-probe.ts): both ends first, then midpoints; each probe one cell
 *    (`cellMeasurer`, ./bisect-context.ts: a cell of an earlier start, a stored cell of another run
 *    measured the same way — behind `patched('bisect-reuse-stored')` — or a `benchmarkCell` child).
 *    read_rows: one run decides. Time metrics (behind `patched('bisect-time-metric')`): from
 *    `patched('bisect-verdicts')` on each step is a verdict with its interval, re-run interleaved
 *    unless unchanged (./bisect-judge.ts); before it, the comparison's first pass with a changed one
 *    re-run once (`patched('bisect-confirm-time')`).
 * 4. `attributeChange` (./bisect-attribution.ts) on the bracketing pair: N with `compatibility = O`,
 *    then halves of the candidate settings set to O's values, to the one setting.
 * 5. `storeRun` (for later reuse), then `writeBisectReport` (`bisect.md` and, where the run is stored,
 *    the `bisects` row of the results database); the verdict is the result and the
 *    `ChbenchBisectVerdict` search attribute.
 *
 * `handSettings` changes only the cells' inputs (their settings), never which commands run, so the
 * command shape of a start without it is unchanged (no `patched()` needed).
 *
 * Input is JSON, so `temporal workflow start --type bisectVersions --task-queue chbench --input-file x.json` works.
 */
import { ApplicationFailure, patched, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { RunSpecInput } from '../schema/run-spec';
import { cellInputs } from '../schema/matrix';
import { FAILURE } from '../schema/failures';
import { runIdOfWorkflowId } from '../schema/run-id';
import { BISECT_VERDICT, PHASE, RUN_ID } from '../schema/search-attributes';
import {
  bisectOutcome,
  handSettingsOf,
  type AttributionState,
  type BisectOutcome,
  type BisectStep,
  type DefaultDiff,
} from '../schema/bisect';
import { VERDICT_DEFAULTS } from '../schema/verdicts';
import type { Measured } from './bisect-judge';
import {
  bisectActs,
  cellMeasurer,
  storeRun,
  type BisectContext,
  type BisectMetric,
  type PassedOverNote,
  type ReusedCellNote,
} from './bisect-context';
import { probeVersions } from './bisect-probe';
import { attributeChange } from './bisect-attribution';

export type { BisectMetric, PassedOverNote, ReusedCellNote } from './bisect-context';

/** Input of {@link bisectVersions}. */
export interface BisectInput {
  /** The run spec as written (its `matrix.version` is replaced by the range). */
  spec: RunSpecInput;
  /** Label of the version without the change (older). */
  good: string;
  /** Label of the version with the change (newer). */
  bad: string;
  /** Query id (default: the spec's first selected query, else `q1`). */
  query?: string;
  /**
   * Metric (default `read_rows`): `read_rows` (`system.query_log.read_rows` of the last warm run;
   * one run decides), or `warm` / `cold` (the query's valid warm / cold run times, judged against the
   * good end with the comparison method of `chbench compare`, first pass: src/measure/compare.ts).
   */
  metric?: BisectMetric;
  /**
   * Query settings set by hand from a version on: version label (one of the range) → name → value.
   * A version runs with those of the newest label at or before it, over the spec's `settings.query`;
   * the attribution counts them as that version's defaults (a hand-made default change, found as
   * `default change: <name> <old>→<new> (<version>, set by hand)`). Absent: none.
   */
  handSettings?: Record<string, Record<string, string | number>>;
}

/** Result of {@link bisectVersions}. */
export interface BisectResult {
  runId: string;
  query: string;
  metric: BisectMetric;
  versions: string[];
  steps: BisectStep[];
  outcome: BisectOutcome;
  /** The newer version of the bracketing pair. */
  firstChanged?: string;
  attribution?: AttributionState;
  diffs?: DefaultDiff[];
  /** The attribution's verdict, or why there is none. */
  verdict: string;
  /** Cells measured, attribution cells included (reused cells of an earlier start included). */
  cellsRun: number;
  /**
   * Of `cellsRun`: cells run as child workflows by this start (absent in histories before
   * `patched('bisect-reuse-stored')`, where every cell not of an earlier start ran).
   */
  cellsNew?: number;
  /** Of `cellsRun`: cells reused from stored runs of the results database, each with where from. */
  reusedCells?: ReusedCellNote[];
  /** Stored cells that matched but were measured again because the host disturbed them (from `patched('bisect-verdicts')`). */
  passedOver?: PassedOverNote[];
  /** Where the bisect's own cells were stored (`storeRun`), or why they were not. */
  stored?: string;
  /** Absolute path of `bisect.md`. */
  reportPath: string;
}

/**
 * Bisect, attribute, report. @throws ApplicationFailure `InvalidSpec` before anything is provisioned
 * (a label not served, good not older than bad, an unknown metric, an invalid spec).
 */
export async function bisectVersions(input: BisectInput): Promise<BisectResult> {
  const workflowId = workflowInfo().workflowId;
  const runId = runIdOfWorkflowId(workflowId);
  const metric = input.metric ?? 'read_rows';
  if (metric !== 'read_rows' && metric !== 'warm' && metric !== 'cold')
    throw ApplicationFailure.nonRetryable(
      `--metric ${String(metric)}: one of read_rows, warm, cold`,
      FAILURE.InvalidSpec,
    );
  // Time metrics add `bisectCompare` activities; a read_rows bisect's commands are unchanged.
  const timeMetric = metric !== 'read_rows' && patched('bisect-time-metric') ? metric : null;
  if (metric !== 'read_rows' && !timeMetric)
    throw ApplicationFailure.nonRetryable(`--metric ${metric}: not bisected by this history`, FAILURE.InvalidSpec);
  upsertSearchAttributes([
    { key: RUN_ID, value: runId },
    { key: PHASE, value: 'validate' },
  ]);
  const { bisectRange, validateSpec, bisectCompare, bisectConfirm, writeBisectReport } = bisectActs;
  const versions = await bisectRange({
    target: input.spec.target as Record<string, unknown>,
    good: input.good,
    bad: input.bad,
  });
  const handProblem = handSettingsProblem(input.handSettings, versions);
  if (handProblem) throw ApplicationFailure.nonRetryable(handProblem, FAILURE.InvalidSpec);
  const specInput: RunSpecInput = {
    ...input.spec,
    matrix: { version: versions, codec: input.spec.matrix.codec.slice(0, 1) },
    pinDefaults: undefined,
  };
  // The bisect runs its own cells: no A/A control cell in its run.json (its confirmations are its own).
  const v = await validateSpec({
    spec: specInput,
    runId,
    workflowId,
    startedAt: new Date().toISOString(),
    control: false,
  });
  const query = input.query ?? v.spec.queries?.[0] ?? 'q1';
  // A query the spec does not select is never measured: refused here, before any cell (its "not
  // measured" would read as a version that cannot run the workload).
  if (v.spec.queries && !v.spec.queries.includes(query))
    throw ApplicationFailure.nonRetryable(
      `--query ${query}: not among the spec's queries (${v.spec.queries.join(', ')}); add it to queries or bisect one of those`,
      FAILURE.InvalidSpec,
    );
  const handOf = (version: string) => handSettingsOf(input.handSettings, version);
  const cells = cellInputs(v.spec, runId, v.indexQueries, v.afterLoad ?? []).map((c) => {
    const hand = handOf(c.version);
    if (!Object.keys(hand).length) return c;
    const base = c.settings ?? { query: {}, mergeTree: {}, optional: [] };
    return { ...c, settings: { ...base, query: { ...base.query, ...hand } } };
  });
  upsertSearchAttributes([{ key: PHASE, value: 'cells' }]);
  // Cells measured in stored runs (same spec, workload files, host kind) are looked up before a cell
  // is run, and the bisect's own cells are stored at the end: new activities, so behind a patch.
  const reuseStored = patched('bisect-reuse-stored');
  // Time metrics judged as verdicts (faster | slower | unchanged | inconclusive, host load checked,
  // an inconclusive step re-run): new commands (a stored cell's figure read before reuse, re-runs of
  // inconclusive steps and of attribution probes), so behind a patch.
  const verdicts = timeMetric !== null && patched('bisect-verdicts');
  const { measure, ledger } = cellMeasurer({
    runId,
    query,
    // Measured cells of an earlier start (a cancelled or failed one is run again).
    reused: new Map(
      v.reused.filter((r) => r.status === 'succeeded' || r.status === 'skipped').map((r) => [r.cellKey, r]),
    ),
    reuseStored,
    avoidDisturbed: verdicts ? timeMetric : null,
    results: v.spec.results,
    resultsDir: v.spec.resultsDir,
  });
  // Time metrics: the comparison's thresholds (the spec's `baseline` options, else their defaults).
  const base = v.spec.baseline;
  const thresholds = {
    minChange: base?.minChange ?? 0.1,
    unstableAbove: base?.unstableAbove ?? 0.3,
    minRuns: base?.minRuns ?? 7,
  };
  const compareOf = (older: Measured, newer: Measured) =>
    bisectCompare({
      baselineResultFile: older.outcome.resultFile,
      newResultFile: newer.outcome.resultFile,
      query,
      metric: timeMetric!,
      ...thresholds,
    });
  const ctx: BisectContext = {
    runId,
    query,
    versions,
    cells,
    timeMetric,
    verdicts,
    // A step's changed first pass confirmed by an interleaved re-run (a `confirmComparison` child and
    // a `bisectConfirm` activity: new commands, behind a patch).
    confirmTime: timeMetric !== null && patched('bisect-confirm-time'),
    judge: {
      runId,
      query,
      metric: timeMetric ?? 'warm',
      rounds: base?.confirmRounds ?? 12,
      maxSeconds: v.spec.verdicts?.confirmSeconds ?? VERDICT_DEFAULTS.confirmSeconds,
      thresholds,
      compare: compareOf,
      confirm: bisectConfirm,
    },
    compareOf,
    measure,
    handOf,
  };

  // 3. The bisect over versions; 4. the attribution on the bracketing pair.
  const probed = await probeVersions(ctx);
  const outcome = bisectOutcome(probed.s);
  const attributed = outcome.bracket ? await attributeChange(ctx, probed, outcome.bracket) : undefined;
  const attribution = attributed?.attribution;
  const diffs = attributed?.diffs;
  const verdict = attribution?.verdict ?? outcome.stopped ?? 'no bracket';

  // 5. Store, report.
  // Each step names the stored cell it reused (a version's cell is measured once).
  const steps = probed.s.steps.map((st) => {
    const from = probed.byIndex.get(st.index)?.reusedFrom;
    return from ? { ...st, reusedFrom: from } : st;
  });
  let stored: string | undefined;
  if (reuseStored) {
    upsertSearchAttributes([{ key: PHASE, value: 'store' }]);
    try {
      const r = await storeRun({ resultsDir: v.spec.resultsDir, runId, results: v.spec.results });
      stored = `${r.cells} cells stored in ${r.description}`;
    } catch (err) {
      // The bisect's answer stands without it; a later bisect cannot reuse these cells.
      stored = `not stored: ${err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err)}`;
    }
  }
  const { cellsRun, cellsNew, reusedCells, passedOver } = ledger;
  const report = {
    runId,
    query,
    metric,
    versions,
    steps,
    ...(reuseStored ? { cellsNew, reusedCells, ...(stored ? { stored } : {}) } : {}),
    ...(passedOver.length ? { passedOver } : {}),
    outcome,
    ...(attribution ? { attribution } : {}),
    ...(diffs ? { diffs } : {}),
  };
  // The bisect's row of the results database (`bisects`) goes with the report (an input of the same
  // activity: no new command), where the bisect stores its run.
  const reportPath = await writeBisectReport({
    resultsDir: v.spec.resultsDir,
    report,
    ...(reuseStored ? { row: { results: v.spec.results, good: input.good, bad: input.bad, verdict, cellsRun } } : {}),
  });
  upsertSearchAttributes([
    { key: PHASE, value: 'done' },
    { key: BISECT_VERDICT, value: verdict.slice(0, 250) },
  ]);
  return {
    ...report,
    ...(outcome.bracket ? { firstChanged: outcome.bracket[1] } : {}),
    verdict,
    cellsRun,
    reportPath,
  };
}

/** Why `handSettings` cannot be used over `versions` (a label outside the range, a name that cannot be set), or ''. */
function handSettingsProblem(handSettings: BisectInput['handSettings'], versions: readonly string[]): string {
  return Object.entries(handSettings ?? {})
    .flatMap(([label, set]) => [
      ...(versions.includes(label)
        ? []
        : [`handSettings: ${label} is not a version of the range (${versions.join(', ')})`]),
      ...Object.keys(set)
        .filter((n) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(n) || n === 'compatibility')
        .map((n) => `handSettings.${label}: ${JSON.stringify(n)} is not a setting name that can be set by hand`),
    ])
    .join('; ');
}
