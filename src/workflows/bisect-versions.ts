/**
 * bisectVersions: find the first version where a query's read_rows (or its warm / cold time) changes
 * between a good and a bad version label, then attribute the change (`chbench bisect`, docs/regression.md "Bisect"). The
 * method is `src/schema/bisect.ts`; this workflow only orchestrates:
 *
 * 1. `bisectRange`: the versions the target's version sources serve between the labels, oldest first.
 * 2. `validateSpec` with `matrix.version` = those versions, the first codec, shipped defaults: writes
 *    `run.json`, and on a resumed start (same workflow id) returns the cells already measured.
 * 3. Each probe is one `benchmarkCell` child workflow (`<runId>/<cellKey>`, unchanged) — or the cell
 *    an earlier start measured — and `bisectFigure` reads the query's figure from its `result.json`.
 *    Both ends first; ends alike → stop. A version whose cell is skipped or fails is named and skipped.
    Time metrics (`warm`, `cold`, behind `patched('bisect-time-metric')`): `bisectCompare` judges each
    probe against the good end with the comparison method's first pass (src/measure/compare.ts):
    `unchanged` → good side, `regression` / `improvement` → bad side, `unstable` → the bisect stops
    ("could not decide at <version>: unstable: …"), never re-run. The attribution's "like the older
    version" is `unchanged` against it. A changed first pass (`regression` / `improvement`) is
    re-run once by the comparison's confirming re-run (`confirmComparison` child, `bisectConfirm`,
    behind `patched('bisect-confirm-time')`) and the step takes the comparison's final verdict;
    a re-run that cannot be done stops the bisect (`unconfirmed`).
 * Cells measured in stored runs (same version, cell spec hash, workload files hash, host kind) are
 *    reused (`bisectStoredCell`) and the bisect's run is stored at the end (`storeRun`), behind
 *    `patched('bisect-reuse-stored')`.
 * 4. Attribution on the bracketing pair (older O, newer N): N with `compatibility = O` (the cell's
 *    `pinDefaults`; with `handSettings`, also O's hand-set settings), then N with halves of the
 *    differing defaults (`bisectDefaults`, from both cells' `defaults.json`, hand-set settings counted
 *    as defaults) set to O's values as query settings, to the one setting.
 *
 * `handSettings` changes only the cells' inputs (their settings), never which commands run, so the
 * command shape of a start without it is unchanged (no `patched()` needed).
 * 5. `writeBisectReport` (`bisect.md`; where the run is stored, also the `bisects` row of the results
 *    database, an input of the same activity); the verdict is the result and the `ChbenchBisectVerdict` search attribute.
 *
 * Input is JSON, so `temporal workflow start --type bisectVersions --task-queue chbench --input-file x.json` works.
 */
import {
  ApplicationFailure,
  executeChild,
  isCancellation,
  ParentClosePolicy,
  patched,
  proxyActivities,
  upsertSearchAttributes,
  workflowInfo,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { CellInput } from '../schema/cell';
import type { RunSpecInput } from '../schema/run-spec';
import { cellInputs } from '../schema/matrix';
import { FAILURE, cellOutcomeOfFailure, describeFailure } from '../schema/failures';
import type { ConfirmOutcome } from '../schema/comparison';
import { runIdOfWorkflowId } from '../schema/run-id';
import { BISECT_VERDICT, CODEC, PHASE, RUN_ID, VERSION } from '../schema/search-attributes';
import {
  attributionStart,
  bisectOutcome,
  endsAlike,
  handSettingsOf,
  nextProbe,
  nextSettingsProbe,
  record,
  recordSettingsProbe,
  startBisect,
  verdictWords,
  type AttributionState,
  type BisectOutcome,
  type BisectState,
  type BisectStep,
  type DefaultDiff,
} from '../schema/bisect';
import type { Verdict } from '../schema/comparison';
import type { BisectComparison } from '../activities/bisect/bisect';
import { benchmarkCell } from './benchmark-cell';
import { executeConfirmChild } from './confirm-comparison';
import { VERDICT_DEFAULTS } from '../schema/verdicts';
import { judgeProbe, loadOf, type JudgeContext, type Measured } from './bisect-judge';

const QUICK: ActivityOptions = {
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 3, nonRetryableErrorTypes: [FAILURE.InvalidSpec] },
};
const {
  validateSpec,
  bisectRange,
  bisectFigure,
  bisectCompare,
  bisectDefaults,
  bisectStoredCell,
  bisectConfirm,
  writeBisectReport,
} = proxyActivities<Activities>(QUICK);
/** Storing the run waits for a mutation over the results tables (see `storeRun`). */
const { storeRun } = proxyActivities<Activities>({
  startToCloseTimeout: '15 minutes',
  heartbeatTimeout: '1 minute',
  retry: { maximumAttempts: 3 },
});

/** A bisect's metric: a work counter decided by one run, or a time judged by the comparison method. */
export type BisectMetric = 'read_rows' | 'warm' | 'cold';

/** The comparison's figure in words, with its source. */
function timeFigure(c: BisectComparison, metric: 'warm' | 'cold'): string {
  const src =
    c.figure === 'server_elapsed_ms' ? `server-side elapsed (${c.sources.join(', ') || 'server'})` : 'client wall time';
  const ms = (x: number | null) => (x === null ? 'n/a' : `${x.toFixed(1)} ms`);
  return `${metric} median ${ms(c.median_new_ms)} vs good end ${ms(c.median_baseline_ms)}, ${src}, n ${c.n_new}/${c.n_baseline}`;
}

/** The comparison's verdict and statistics in words. */
function timeReason(c: BisectComparison): string {
  return `${c.verdict}: ${c.reason}${c.problem ? ` (${c.problem})` : ''}`;
}

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

/** A cell of this bisect that was reused from a stored run instead of run (`bisectStoredCell`). */
export interface ReusedCellNote {
  /** The bisect's cell key. */
  cellKey: string;
  /** The stored run and cell whose result was read. */
  runId: string;
  fromCell: string;
  /** What matched (spec hash, workload files hash, host kind). */
  matched: string;
}

/** A stored cell that matched but was measured again: the host disturbed its runs of the query. */
export interface PassedOverNote {
  cellKey: string;
  runId: string;
  fromCell: string;
  /** The stored cell's host load during the query's runs, in words. */
  why: string;
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
  const versions = await bisectRange({
    target: input.spec.target as Record<string, unknown>,
    good: input.good,
    bad: input.bad,
  });
  const handProblem = Object.entries(input.handSettings ?? {})
    .flatMap(([label, set]) => [
      ...(versions.includes(label)
        ? []
        : [`handSettings: ${label} is not a version of the range (${versions.join(', ')})`]),
      ...Object.keys(set)
        .filter((n) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(n) || n === 'compatibility')
        .map((n) => `handSettings.${label}: ${JSON.stringify(n)} is not a setting name that can be set by hand`),
    ])
    .join('; ');
  if (handProblem) throw ApplicationFailure.nonRetryable(handProblem, FAILURE.InvalidSpec);
  const codecs = input.spec.matrix.codec;
  const specInput: RunSpecInput = {
    ...input.spec,
    matrix: { version: versions, codec: codecs.slice(0, 1) },
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
  // Measured cells of an earlier start (a cancelled or failed one is run again).
  const reused = new Map(
    v.reused.filter((r) => r.status === 'succeeded' || r.status === 'skipped').map((r) => [r.cellKey, r]),
  );
  upsertSearchAttributes([{ key: PHASE, value: 'cells' }]);
  let cellsRun = 0;
  let cellsNew = 0;
  // Cells measured in stored runs (same spec, workload files, host kind) are looked up before a cell
  // is run, and the bisect's own cells are stored at the end: new activities, so behind a patch.
  const reuseStored = patched('bisect-reuse-stored');
  const reusedCells: ReusedCellNote[] = [];
  // Time metrics judged as verdicts (faster | slower | unchanged | inconclusive, host load checked,
  // an inconclusive step re-run): new commands (a stored cell's figure read before reuse, re-runs of
  // inconclusive steps and of attribution probes), so behind a patch.
  const verdicts = timeMetric !== null && patched('bisect-verdicts');
  const passedOver: PassedOverNote[] = [];

  const measure = async (cell: CellInput): Promise<Measured> => {
    let outcome = reused.get(cell.cellKey);
    let reusedFrom: Measured['reusedFrom'];
    if (!outcome && reuseStored) {
      const hit = await bisectStoredCell({ cell, results: v.spec.results, resultsDir: v.spec.resultsDir });
      // A stored cell whose runs of the query the host disturbed is measured again, not reused.
      const load = hit && verdicts ? (await bisectFigure({ resultFile: hit.resultFile, query })).hostLoad : undefined;
      const disturbed = load?.[timeMetric!]?.disturbed ? load[timeMetric!]!.words : undefined;
      if (hit && disturbed)
        passedOver.push({ cellKey: cell.cellKey, runId: hit.runId, fromCell: hit.cellKey, why: disturbed });
      else if (hit) {
        outcome = { cellKey: cell.cellKey, status: 'succeeded', resultFile: hit.resultFile };
        reusedFrom = { runId: hit.runId, cellKey: hit.cellKey };
        reusedCells.push({ cellKey: cell.cellKey, runId: hit.runId, fromCell: hit.cellKey, matched: hit.matched });
      }
    }
    if (!outcome) {
      cellsNew++;
      try {
        outcome = await executeChild(benchmarkCell, {
          workflowId: `${runId}/${cell.cellKey}`,
          args: [cell],
          staticSummary: `bisect ${query} on ClickHouse ${cell.version}${cell.pinDefaults ? ` pinned ${cell.pinDefaults}` : ''}`,
          parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
          typedSearchAttributes: [
            { key: RUN_ID, value: runId },
            { key: VERSION, value: cell.version },
            { key: CODEC, value: cell.codec },
            { key: PHASE, value: 'provision' },
          ],
        });
      } catch (err) {
        const failed = cellOutcomeOfFailure(err);
        if (!failed) throw err;
        outcome = failed;
      }
    }
    cellsRun++;
    const fig = await bisectFigure({ resultFile: outcome.resultFile, query });
    return {
      outcome,
      readRows: fig.readRows,
      ...(fig.problem ? { problem: fig.problem } : {}),
      ...(reusedFrom ? { reusedFrom } : {}),
      ...(fig.hostLoad ? { hostLoad: fig.hostLoad } : {}),
    };
  };

  // The bisect over versions.
  const byIndex = new Map<number, Measured>();
  let s: BisectState = startBisect(versions);
  const last = versions.length - 1;
  // Time metrics: the comparison's thresholds (the spec's `baseline` options, else their defaults).
  const base = v.spec.baseline;
  const compareOf = (older: Measured, newer: Measured) =>
    bisectCompare({
      baselineResultFile: older.outcome.resultFile,
      newResultFile: newer.outcome.resultFile,
      query,
      metric: timeMetric!,
      minChange: base?.minChange ?? 0.1,
      unstableAbove: base?.unstableAbove ?? 0.3,
      minRuns: base?.minRuns ?? 7,
    });
  // Time metrics: a step's changed first pass is confirmed by the comparison's interleaved re-run
  // (a `confirmComparison` child and a `bisectConfirm` activity: new commands, behind a patch).
  const confirmTime = timeMetric !== null && patched('bisect-confirm-time');
  const confirmRounds = base?.confirmRounds ?? 12;
  /**
   * The confirming re-run of step `i` against the good end: two fresh cells (`<runId>.confirm`,
   * `v<version>-baseline` / `v<version>-new`, the query only, always torn down) measured
   * interleaved by `confirmComparison` (child `<runId>/confirm-<version>`), judged by `bisectConfirm`.
   * A re-run that cannot be done gives `final` `unconfirmed` with its error (the step is undecided).
   */
  const confirmStep = async (
    i: number,
    firstPass: 'regression' | 'improvement',
  ): Promise<NonNullable<BisectStep['confirmation']>> => {
    const tag = `v${versions[i]}`;
    const rekey = (c: CellInput, side: string): CellInput => ({
      ...c,
      runId: `${runId}.confirm`,
      cellKey: `${tag}-${side}`,
      queries: [query],
      skipIndex: false,
      afterLoad: c.afterLoad,
      teardown: 'always',
      placement: undefined,
    });
    if (confirmRounds === 0)
      return {
        verdict: 'none',
        confirmed: false,
        final: 'unconfirmed',
        reason: 'no confirming re-run: the spec sets baseline.confirmRounds 0',
        rounds: 0,
        error: 'confirmRounds 0',
      };
    let out: ConfirmOutcome[];
    try {
      out = await executeConfirmChild(
        runId,
        `${runId}/confirm-${versions[i]}`,
        {
          pairs: [
            {
              pairKey: tag,
              baseline: rekey(cells[0], 'baseline'),
              candidate: rekey(cells[i], 'new'),
              phases: { baseline: [query], index: [] },
            },
          ],
          rounds: confirmRounds,
          // A cold time is confirmed by cold runs (an input only: the child's commands are its own).
          ...(timeMetric === 'cold' ? { kind: 'cold' as const } : {}),
        },
        `bisect confirming re-run: ${query} on ${versions[0]} and ${versions[i]}, interleaved ×${confirmRounds}${timeMetric === 'cold' ? ' cold runs' : ''}`,
      );
    } catch (err) {
      if (isCancellation(err)) throw err;
      out = [{ pairKey: tag, samples: [], error: describeFailure(err) }];
    }
    const error = out[0]?.error;
    const samples = out[0]?.samples.find((x) => x.query_id === query && x.phase === 'baseline');
    if (error || !samples)
      return {
        verdict: 'none',
        confirmed: false,
        final: 'unconfirmed',
        reason: `re-run not done: ${error ?? `no samples of ${query}`}`,
        rounds: 0,
        error: error ?? `no samples of ${query}`,
      };
    const j = await bisectConfirm({
      samples,
      firstPass,
      minChange: base?.minChange ?? 0.1,
      unstableAbove: base?.unstableAbove ?? 0.3,
      minRuns: base?.minRuns ?? 7,
      seedKey: `${runId}|${versions[i]}|${query}|${timeMetric}`,
    });
    return { verdict: j.verdict, confirmed: j.confirmed, final: j.final, reason: j.reason, rounds: j.rounds };
  };
  /** The direction of the change between the ends (time metrics). */
  let endsVerdict: Verdict | undefined;
  /** The change between the ends, ratio bad/good (verdicts path): an `unchanged` step needs a band narrower than it. */
  let endsRatio: number | undefined;
  const judge: JudgeContext = {
    runId,
    query,
    metric: timeMetric ?? 'warm',
    rounds: confirmRounds,
    maxSeconds: v.spec.verdicts?.confirmSeconds ?? VERDICT_DEFAULTS.confirmSeconds,
    thresholds: {
      minChange: base?.minChange ?? 0.1,
      unstableAbove: base?.unstableAbove ?? 0.3,
      minRuns: base?.minRuns ?? 7,
    },
    compare: compareOf,
    confirm: bisectConfirm,
  };
  for (let i = nextProbe(s); i !== null; i = nextProbe(s)) {
    const m = await measure(cells[i]);
    byIndex.set(i, m);
    if (timeMetric && verdicts) {
      const load = loadOf(m, timeMetric);
      if (m.problem) {
        s = record(s, { index: i, side: 'skipped', figure: m.problem, reason: 'cannot run the workload' });
        continue;
      }
      if (i === 0) {
        s = record(s, {
          index: 0,
          side: 'good',
          figure: `${timeMetric} runs: the baseline of every step's comparison`,
          reason: 'good end',
          ...(load ? { hostLoad: { ...load, words: `${load.disturbed ? 'disturbed' : 'quiet'}: ${load.words}` } } : {}),
        });
        continue;
      }
      const pj = await judgeProbe(
        judge,
        byIndex.get(0)!,
        m,
        {
          baseline: cells[0],
          candidate: cells[i],
          tag: `v${versions[i]}`,
          idSuffix: versions[i],
          seedKey: `${runId}|${versions[i]}|${query}|${timeMetric}`,
          summary: `bisect re-run: ${query} on ${versions[0]} and ${versions[i]}, interleaved ×${confirmRounds}${timeMetric === 'cold' ? ' cold runs' : ''}`,
        },
        i === last ? undefined : endsRatio,
      );
      const vd = pj.verdict;
      const { comparison: _c, ...confirmation } = pj.confirmation ?? { comparison: undefined };
      const extra = {
        verdict: vd,
        ...(pj.hostLoad ? { hostLoad: pj.hostLoad } : {}),
        ...(pj.confirmation ? { confirmation: confirmation as NonNullable<BisectStep['confirmation']> } : {}),
      };
      const figure = timeFigure(pj.firstPass, timeMetric);
      if (i === last) {
        if (vd.verdict === 'inconclusive') {
          s = record(s, { index: i, side: 'undecided', figure, reason: vd.reason, ...extra });
          s = { ...s, stopped: `inconclusive at the bad end ${versions[i]}: ${vd.reason}` };
        } else {
          s = record(s, { index: i, side: 'bad', figure, reason: `bad end, ${vd.verdict}: ${vd.reason}`, ...extra });
          if (vd.verdict === 'unchanged') s = endsAlike(s, `${timeMetric} time unchanged: ${vd.reason}`);
          else {
            endsVerdict = vd.verdict === 'slower' ? 'regression' : 'improvement';
            endsRatio = vd.ratio ?? undefined;
          }
        }
        continue;
      }
      const side = vd.verdict === 'inconclusive' ? 'undecided' : vd.verdict === 'unchanged' ? 'good' : 'bad';
      const sameWay = (vd.verdict === 'slower') === (endsVerdict === 'regression');
      const reason =
        side === 'undecided'
          ? `inconclusive: ${vd.reason}; more interleaved rounds (baseline.confirmRounds) or a quieter host would decide it`
          : side === 'good'
            ? `like the good end, unchanged: ${vd.reason}`
            : sameWay
              ? `${vd.verdict}: ${vd.reason}`
              : `${vd.verdict}, the other way than the bad end: ${vd.reason}`;
      s = record(s, { index: i, side, figure, reason, ...extra });
      continue;
    }
    if (timeMetric) {
      if (m.problem) {
        s = record(s, { index: i, side: 'skipped', figure: m.problem, reason: 'cannot run the workload' });
        continue;
      }
      if (i === 0) {
        s = record(s, {
          index: 0,
          side: 'good',
          figure: `${timeMetric} runs: the baseline of every step's comparison`,
          reason: 'good end',
        });
        continue;
      }
      const c = await compareOf(byIndex.get(0)!, m);
      const figure = timeFigure(c, timeMetric);
      // A changed first pass is confirmed by the comparison's interleaved re-run before the bisect
      // takes its direction (once; the step's verdict is then the comparison's final one).
      const confirmation =
        confirmTime && (c.verdict === 'regression' || c.verdict === 'improvement')
          ? await confirmStep(i, c.verdict)
          : undefined;
      const final: Verdict | 'unconfirmed' = confirmation ? (confirmation.final as Verdict | 'unconfirmed') : c.verdict;
      const why = confirmation
        ? `first pass ${timeReason(c)}; ${confirmation.error ? `re-run not done: ${confirmation.error}` : confirmation.reason}`
        : timeReason(c);
      const conf = confirmation ? { confirmation } : {};
      if (i === last) {
        if (final === 'unstable' || final === 'unconfirmed') {
          s = record(s, { index: i, side: 'undecided', figure, reason: why, ...conf });
          s = {
            ...s,
            stopped: `${final} at the bad end ${versions[i]}: ${confirmation ? why : c.reason}`,
          };
        } else {
          s = record(s, { index: i, side: 'bad', figure, reason: `bad end, ${why}`, ...conf });
          if (final === 'unchanged') s = endsAlike(s, `${timeMetric} time ${why}`);
          else endsVerdict = final;
        }
        continue;
      }
      const side =
        final === 'unstable' || final === 'unconfirmed' ? 'undecided' : final === 'unchanged' ? 'good' : 'bad';
      const reason =
        final === 'unchanged'
          ? `like the good end, ${why}`
          : final === endsVerdict || side === 'undecided'
            ? why
            : `differs from the good end the other way than the bad end, ${why}`;
      s = record(s, { index: i, side, figure, reason, ...conf });
      continue;
    }
    if (m.readRows === null) {
      s = record(s, {
        index: i,
        side: 'skipped',
        figure: m.problem ?? 'no read_rows',
        reason: 'cannot run the workload',
      });
      continue;
    }
    const figure = `read_rows ${m.readRows.toLocaleString('en-US')}`;
    if (i === 0 || i === last) {
      s = record(s, { index: i, side: i === 0 ? 'good' : 'bad', figure, reason: i === 0 ? 'good end' : 'bad end' });
      const g = byIndex.get(0)?.readRows;
      const b = byIndex.get(last)?.readRows;
      if (g != null && b != null && g === b) s = endsAlike(s, `read_rows ${g.toLocaleString('en-US')} at both ends`);
      continue;
    }
    const g = byIndex.get(0)!.readRows!;
    const b = byIndex.get(last)!.readRows!;
    const side = m.readRows === g ? 'good' : 'bad';
    const reason =
      m.readRows === g
        ? `= good end's ${g.toLocaleString('en-US')}`
        : m.readRows === b
          ? `= bad end's ${b.toLocaleString('en-US')}`
          : `differs from the good end's ${g.toLocaleString('en-US')} (bad end ${b.toLocaleString('en-US')})`;
    s = record(s, { index: i, side, figure, reason });
  }
  const outcome = bisectOutcome(s);

  // Attribution on the bracketing pair.
  let attribution: AttributionState | undefined;
  let diffs: DefaultDiff[] | undefined;
  if (outcome.bracket) {
    upsertSearchAttributes([{ key: PHASE, value: 'attribution' }]);
    const older = byIndex.get(s.lo)!;
    const newer = byIndex.get(s.hi)!;
    const pair = outcome.bracket;
    const newerCell = cells[s.hi];
    const olderHand = handOf(pair[0]);
    const newerHand = handOf(pair[1]);
    const anyHand = Object.keys(olderHand).length + Object.keys(newerHand).length > 0;
    diffs = await bisectDefaults({
      olderResultFile: older.outcome.resultFile,
      newerResultFile: newer.outcome.resultFile,
      ...(anyHand ? { olderHand, newerHand } : {}),
    });
    // Verdicts path: the pair's own change (ratio newer/older, from both steps' verdicts against the good end).
    const ratioOf = (i: number) => (i === 0 ? 1 : (s.steps.find((x) => x.index === i)?.verdict?.ratio ?? undefined));
    const lo = ratioOf(s.lo);
    const hi = ratioOf(s.hi);
    const pairRatio = lo !== undefined && hi !== undefined && lo > 0 ? hi / lo : undefined;
    /** The last probe's verdict in words (verdicts path), for the attribution's table. */
    let evidence: string | undefined;
    /**
     * Whether `m` is like the older side: equal read_rows, or (time metrics) `unchanged` against it; a
     * string when it cannot be said. Verdicts path: judged and, unless unchanged, re-run interleaved
     * against the older version's setup; a change the other way than the pair's is said, not taken as "still changed".
     */
    const likeOlder = async (m: Measured, cell: CellInput): Promise<boolean | string> => {
      if (!timeMetric) return m.readRows !== null && m.readRows === older.readRows;
      if (!verdicts) {
        const c = await compareOf(older, m);
        return c.verdict === 'unstable' ? `unstable against ${pair[0]}: ${c.reason}` : c.verdict === 'unchanged';
      }
      const suffix = cell.cellKey.slice(newerCell.cellKey.length + 1);
      const pj = await judgeProbe(
        judge,
        older,
        m,
        {
          baseline: cells[s.lo],
          candidate: cell,
          tag: `v${pair[1]}-${suffix}`,
          idSuffix: `${pair[1]}-${suffix}`,
          seedKey: `${runId}|${cell.cellKey}|${query}|${timeMetric}`,
          summary: `bisect attribution re-run: ${query} on ${pair[0]} and ${pair[1]} (${suffix}), interleaved ×${confirmRounds}`,
        },
        pairRatio,
      );
      const vd = pj.verdict;
      evidence = verdictWords(vd);
      if (vd.verdict === 'unchanged') return true;
      if (vd.verdict === 'inconclusive') return `inconclusive against ${pair[0]}: ${vd.reason}`;
      const pairSlower = (pairRatio ?? (endsVerdict === 'regression' ? 2 : 0.5)) >= 1;
      if ((vd.verdict === 'slower') === pairSlower) return false;
      return `${vd.verdict} than ${pair[0]} (${verdictWords(vd)}) while ${pair[1]} as shipped is ${pairSlower ? 'slower' : 'faster'}${pairRatio !== undefined ? ` (${pairRatio.toFixed(3)}×)` : ''}: the change reverses direction, neither stays nor vanishes`;
    };
    /** Set the last probe's evidence (verdicts path). */
    const withEvidence = (a: AttributionState): AttributionState => {
      if (!evidence || !a.probes.length) return a;
      const probes = a.probes.slice();
      probes[probes.length - 1] = { ...probes[probes.length - 1], evidence };
      evidence = undefined;
      return { ...a, probes };
    };
    const ran = (m: Measured) => (timeMetric ? !m.problem : m.readRows !== null);
    // The newer version with the older side's defaults: its `compatibility`, and its hand-set settings.
    const pinnedCell: CellInput = {
      ...newerCell,
      ...(anyHand ? { settings: cells[s.lo].settings } : {}),
      pinDefaults: pair[0],
      cellKey: `${newerCell.cellKey}-pin${pair[0]}`,
    };
    const pinned = await measure(pinnedCell);
    const pinnedLike = ran(pinned) ? await likeOlder(pinned, pinnedCell) : null;
    if (pinnedLike === null)
      attribution = {
        candidates: [],
        probes: [],
        verdict: `could not attribute: ${pair[1]} with ${pair[0]}'s defaults did not run (${pinned.problem ?? 'no read_rows'})`,
      };
    else if (typeof pinnedLike === 'string')
      attribution = { candidates: [], probes: [], verdict: `could not attribute: ${pinnedLike}` };
    else
      attribution = withEvidence(
        attributionStart(
          diffs,
          pinnedLike,
          pair,
          timeMetric ? `${timeMetric} time like ${pair[0]}` : `read_rows ${pinned.readRows}`,
        ),
      );
    let n = 0;
    for (let probe = nextSettingsProbe(attribution); probe; probe = nextSettingsProbe(attribution)) {
      n++;
      const base = newerCell.settings ?? { query: {}, mergeTree: {}, optional: [] };
      const query = { ...base.query, ...Object.fromEntries(probe.map((d) => [d.name, d.old])) };
      const probeCell: CellInput = {
        ...newerCell,
        settings: { ...base, query },
        cellKey: `${newerCell.cellKey}-attr${n}`,
      };
      const m = await measure(probeCell);
      if (!ran(m)) {
        attribution = {
          ...attribution,
          verdict: `could not attribute: the probe with ${probe.map((d) => d.name).join(', ')} at ${pair[0]}'s values did not run (${m.problem ?? 'no read_rows'})`,
        };
        break;
      }
      const like = await likeOlder(m, probeCell);
      if (typeof like === 'string') {
        attribution = { ...attribution, verdict: `could not attribute: ${like}` };
        break;
      }
      attribution = withEvidence(recordSettingsProbe(attribution, probe, like, pair));
    }
  }
  const verdict = attribution?.verdict ?? outcome.stopped ?? 'no bracket';
  // Each step names the stored cell it reused (a version's cell is measured once).
  const steps = s.steps.map((st) => {
    const from = byIndex.get(st.index)?.reusedFrom;
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
