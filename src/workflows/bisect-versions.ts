/**
 * bisectVersions: find the first version where a query's read_rows changes between a good and a bad
 * version label, then attribute the change (`chbench bisect`, docs/regression.md "Bisect"). The
 * method is `src/schema/bisect.ts`; this workflow only orchestrates:
 *
 * 1. `bisectRange`: the versions the target's version sources serve between the labels, oldest first.
 * 2. `validateSpec` with `matrix.version` = those versions, the first codec, shipped defaults: writes
 *    `run.json`, and on a resumed start (same workflow id) returns the cells already measured.
 * 3. Each probe is one `benchmarkCell` child workflow (`<runId>/<cellKey>`, unchanged) — or the cell
 *    an earlier start measured — and `bisectFigure` reads the query's figure from its `result.json`.
 *    Both ends first; ends alike → stop. A version whose cell is skipped or fails is named and skipped.
 * 4. Attribution on the bracketing pair (older O, newer N): N with `compatibility = O` (the cell's
 *    `pinDefaults`; with `handSettings`, also O's hand-set settings), then N with halves of the
 *    differing defaults (`bisectDefaults`, from both cells' `defaults.json`, hand-set settings counted
 *    as defaults) set to O's values as query settings, to the one setting.
 *
 * `handSettings` changes only the cells' inputs (their settings), never which commands run, so the
 * command shape of a start without it is unchanged (no `patched()` needed).
 * 5. `writeBisectReport` (`bisect.md`); the verdict is the result and the `ChbenchBisectVerdict` search attribute.
 *
 * Input is JSON, so `temporal workflow start --type bisectVersions --task-queue chbench --input-file x.json` works.
 */
import {
  ApplicationFailure,
  executeChild,
  ParentClosePolicy,
  proxyActivities,
  upsertSearchAttributes,
  workflowInfo,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { CellInput, CellOutcome } from '../schema/cell';
import type { RunSpecInput } from '../schema/run-spec';
import { cellInputs } from '../schema/matrix';
import { FAILURE, cellOutcomeOfFailure } from '../schema/failures';
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
  type AttributionState,
  type BisectOutcome,
  type BisectState,
  type BisectStep,
  type DefaultDiff,
} from '../schema/bisect';
import { benchmarkCell } from './benchmark-cell';

const QUICK: ActivityOptions = {
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 3, nonRetryableErrorTypes: [FAILURE.InvalidSpec] },
};
const { validateSpec, bisectRange, bisectFigure, bisectDefaults, writeBisectReport } =
  proxyActivities<Activities>(QUICK);

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
  /** Metric; `read_rows` (`system.query_log.read_rows` of the last warm run) only in this version. */
  metric?: 'read_rows';
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
  metric: 'read_rows';
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
  /** Absolute path of `bisect.md`. */
  reportPath: string;
}

interface Measured {
  outcome: CellOutcome;
  readRows: number | null;
  problem?: string;
}

/**
 * Bisect, attribute, report. @throws ApplicationFailure `InvalidSpec` before anything is provisioned
 * (a label not served, good not older than bad, an unknown metric, an invalid spec).
 */
export async function bisectVersions(input: BisectInput): Promise<BisectResult> {
  const workflowId = workflowInfo().workflowId;
  const runId = runIdOfWorkflowId(workflowId);
  const metric = input.metric ?? 'read_rows';
  if (metric !== 'read_rows')
    throw ApplicationFailure.nonRetryable(
      `--metric ${String(metric)}: only read_rows is bisected in this version`,
      FAILURE.InvalidSpec,
    );
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
  const v = await validateSpec({ spec: specInput, runId, workflowId, startedAt: new Date().toISOString() });
  const query = input.query ?? v.spec.queries?.[0] ?? 'q1';
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

  const measure = async (cell: CellInput): Promise<Measured> => {
    let outcome = reused.get(cell.cellKey);
    if (!outcome) {
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
    return { outcome, readRows: fig.readRows, ...(fig.problem ? { problem: fig.problem } : {}) };
  };

  // The bisect over versions.
  const byIndex = new Map<number, Measured>();
  let s: BisectState = startBisect(versions);
  const last = versions.length - 1;
  for (let i = nextProbe(s); i !== null; i = nextProbe(s)) {
    const m = await measure(cells[i]);
    byIndex.set(i, m);
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
    const likeOlder = (m: Measured) => m.readRows !== null && m.readRows === older.readRows;
    // The newer version with the older side's defaults: its `compatibility`, and its hand-set settings.
    const pinned = await measure({
      ...newerCell,
      ...(anyHand ? { settings: cells[s.lo].settings } : {}),
      pinDefaults: pair[0],
      cellKey: `${newerCell.cellKey}-pin${pair[0]}`,
    });
    if (pinned.readRows === null)
      attribution = {
        candidates: [],
        probes: [],
        verdict: `could not attribute: ${pair[1]} with ${pair[0]}'s defaults did not run (${pinned.problem ?? 'no read_rows'})`,
      };
    else attribution = attributionStart(diffs, likeOlder(pinned), pair, `read_rows ${pinned.readRows}`);
    let n = 0;
    for (let probe = nextSettingsProbe(attribution); probe; probe = nextSettingsProbe(attribution)) {
      n++;
      const base = newerCell.settings ?? { query: {}, mergeTree: {}, optional: [] };
      const query = { ...base.query, ...Object.fromEntries(probe.map((d) => [d.name, d.old])) };
      const m = await measure({ ...newerCell, settings: { ...base, query }, cellKey: `${newerCell.cellKey}-attr${n}` });
      if (m.readRows === null) {
        attribution = {
          ...attribution,
          verdict: `could not attribute: the probe with ${probe.map((d) => d.name).join(', ')} at ${pair[0]}'s values did not run (${m.problem ?? 'no read_rows'})`,
        };
        break;
      }
      attribution = recordSettingsProbe(attribution, probe, likeOlder(m), pair);
    }
  }
  const verdict = attribution?.verdict ?? outcome.stopped ?? 'no bracket';
  const report = {
    runId,
    query,
    metric,
    versions,
    steps: s.steps,
    outcome,
    ...(attribution ? { attribution } : {}),
    ...(diffs ? { diffs } : {}),
  };
  const reportPath = await writeBisectReport({ resultsDir: v.spec.resultsDir, report });
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
