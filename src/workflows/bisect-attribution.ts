/**
 * Attributing a bracketed change (`bisectVersions`, step 4), on the pair (older O, newer N): N run
 * with `compatibility = O` (and O's hand-set settings), then N with halves of the candidate settings
 * (`bisectDefaults`: defaults that differ, hand-set values, settings new in N that compatibility
 * turns back) set to O's values, down to the one setting (`attributionStart`, `nextSettingsProbe`,
 * `recordSettingsProbe` of src/schema/bisect.ts). Each probe is a cell; whether the change
 * "disappeared" is equal read_rows, or for a time bisect `unchanged` against O — from
 * `patched('bisect-verdicts')` on a verdict re-run interleaved unless unchanged, with its evidence.
 * Workflow code: deterministic.
 */
import { upsertSearchAttributes } from '@temporalio/workflow';
import type { CellInput } from '../schema/cell';
import {
  attributionStart,
  nextSettingsProbe,
  recordSettingsProbe,
  verdictWords,
  type AttributionState,
  type DefaultDiff,
} from '../schema/bisect';
import { PHASE } from '../schema/search-attributes';
import { judgeProbe, type Measured } from './bisect-judge';
import { bisectActs, type BisectContext } from './bisect-context';
import type { ProbeState } from './bisect-probe';

/** The attribution and the candidate settings it worked over. */
export interface Attributed {
  attribution: AttributionState;
  diffs: DefaultDiff[];
}

/** Whether a probe is like the older version: yes, no, or why it cannot be said. */
type Likeness = boolean | string;

/**
 * Attribute the change bracketed by `pair` (indexes `st.s.lo` / `st.s.hi`).
 * @throws a cancellation, or a child failure that is no cell outcome
 */
export async function attributeChange(ctx: BisectContext, st: ProbeState, pair: [string, string]): Promise<Attributed> {
  upsertSearchAttributes([{ key: PHASE, value: 'attribution' }]);
  const { s } = st;
  const older = st.byIndex.get(s.lo)!;
  const newer = st.byIndex.get(s.hi)!;
  const newerCell = ctx.cells[s.hi];
  const olderHand = ctx.handOf(pair[0]);
  const newerHand = ctx.handOf(pair[1]);
  const anyHand = Object.keys(olderHand).length + Object.keys(newerHand).length > 0;
  const diffs = await bisectActs.bisectDefaults({
    olderResultFile: older.outcome.resultFile,
    newerResultFile: newer.outcome.resultFile,
    ...(anyHand ? { olderHand, newerHand } : {}),
  });
  const judge = likenessJudge(ctx, st, pair, older);
  const ran = (m: Measured) => (ctx.timeMetric ? !m.problem : m.readRows !== null);
  // The newer version with the older side's defaults: its `compatibility`, and its hand-set settings.
  const pinnedCell: CellInput = {
    ...newerCell,
    ...(anyHand ? { settings: ctx.cells[s.lo].settings } : {}),
    pinDefaults: pair[0],
    cellKey: `${newerCell.cellKey}-pin${pair[0]}`,
  };
  const pinned = await ctx.measure(pinnedCell);
  const pinnedLike = ran(pinned) ? await judge.likeOlder(pinned, pinnedCell) : null;
  let attribution: AttributionState;
  if (pinnedLike === null)
    attribution = {
      candidates: [],
      probes: [],
      verdict: `could not attribute: ${pair[1]} with ${pair[0]}'s defaults did not run (${pinned.problem ?? 'no read_rows'})`,
    };
  else if (typeof pinnedLike === 'string')
    attribution = { candidates: [], probes: [], verdict: `could not attribute: ${pinnedLike}` };
  else
    attribution = judge.withEvidence(
      attributionStart(
        diffs,
        pinnedLike,
        pair,
        ctx.timeMetric ? `${ctx.timeMetric} time like ${pair[0]}` : `read_rows ${pinned.readRows}`,
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
    const m = await ctx.measure(probeCell);
    if (!ran(m)) {
      attribution = {
        ...attribution,
        verdict: `could not attribute: the probe with ${probe.map((d) => d.name).join(', ')} at ${pair[0]}'s values did not run (${m.problem ?? 'no read_rows'})`,
      };
      break;
    }
    const like = await judge.likeOlder(m, probeCell);
    if (typeof like === 'string') {
      attribution = { ...attribution, verdict: `could not attribute: ${like}` };
      break;
    }
    attribution = judge.withEvidence(recordSettingsProbe(attribution, probe, like, pair));
  }
  return { attribution, diffs };
}

/**
 * How a probe is judged against the older version: equal read_rows; for a time bisect before
 * `patched('bisect-verdicts')`, the comparison's first pass (`unchanged` → like; `unstable` → cannot
 * say); from it on, a verdict (`judgeProbe`, re-run unless unchanged) whose words are kept as the
 * probe's evidence — a change the other way than the pair's is said to reverse, not taken as "still changed".
 */
function likenessJudge(
  ctx: BisectContext,
  st: ProbeState,
  pair: [string, string],
  older: Measured,
): {
  likeOlder: (m: Measured, cell: CellInput) => Promise<Likeness>;
  withEvidence: (a: AttributionState) => AttributionState;
} {
  const { s } = st;
  const newerCell = ctx.cells[s.hi];
  // The pair's own change (ratio newer/older, from both steps' verdicts against the good end).
  const ratioOf = (i: number) => (i === 0 ? 1 : (s.steps.find((x) => x.index === i)?.verdict?.ratio ?? undefined));
  const lo = ratioOf(s.lo);
  const hi = ratioOf(s.hi);
  const pairRatio = lo !== undefined && hi !== undefined && lo > 0 ? hi / lo : undefined;
  /** The last probe's verdict in words, for the attribution's table. */
  let evidence: string | undefined;
  const likeOlder = async (m: Measured, cell: CellInput): Promise<Likeness> => {
    if (!ctx.timeMetric) return m.readRows !== null && m.readRows === older.readRows;
    if (!ctx.verdicts) {
      const c = await ctx.compareOf(older, m);
      return c.verdict === 'unstable' ? `unstable against ${pair[0]}: ${c.reason}` : c.verdict === 'unchanged';
    }
    const suffix = cell.cellKey.slice(newerCell.cellKey.length + 1);
    const pj = await judgeProbe(
      ctx.judge,
      older,
      m,
      {
        baseline: ctx.cells[s.lo],
        candidate: cell,
        tag: `v${pair[1]}-${suffix}`,
        idSuffix: `${pair[1]}-${suffix}`,
        seedKey: `${ctx.runId}|${cell.cellKey}|${ctx.query}|${ctx.timeMetric}`,
        summary: `bisect attribution re-run: ${ctx.query} on ${pair[0]} and ${pair[1]} (${suffix}), interleaved ×${ctx.judge.rounds}`,
      },
      pairRatio,
    );
    const vd = pj.verdict;
    evidence = verdictWords(vd);
    if (vd.verdict === 'unchanged') return true;
    if (vd.verdict === 'inconclusive') return `inconclusive against ${pair[0]}: ${vd.reason}`;
    const pairSlower = (pairRatio ?? (st.endsVerdict === 'regression' ? 2 : 0.5)) >= 1;
    if ((vd.verdict === 'slower') === pairSlower) return false;
    return `${vd.verdict} than ${pair[0]} (${verdictWords(vd)}) while ${pair[1]} as shipped is ${pairSlower ? 'slower' : 'faster'}${pairRatio !== undefined ? ` (${pairRatio.toFixed(3)}×)` : ''}: the change reverses direction, neither stays nor vanishes`;
  };
  const withEvidence = (a: AttributionState): AttributionState => {
    if (!evidence || !a.probes.length) return a;
    const probes = a.probes.slice();
    probes[probes.length - 1] = { ...probes[probes.length - 1], evidence };
    evidence = undefined;
    return { ...a, probes };
  };
  return { likeOlder, withEvidence };
}
