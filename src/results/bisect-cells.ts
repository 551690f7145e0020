/**
 * What a version bisect (`bisectVersions`, src/workflows/bisect-versions.ts; its activities in
 * src/activities/bisect/bisect.ts) reads from its measured cells' records: one query's figure in a
 * cell's `result.json`, the comparison of the query's time in two cells (the method of
 * `chbench compare`, src/measure/compare.ts), and the session settings whose defaults differ between
 * two cells' servers (`defaults.json`, `probe.json`). Reads files only; never writes.
 */
import path from 'node:path';
import { CapabilityProbe, CellResult, ServerDefaults } from '../schema/results';
import { differingDefaults, newSettingsTurnedOn, withHandSettings, type DefaultDiff } from '../schema/bisect';
import { chooseFigure, compareSamples, seedOf, type SampleComparison } from '../measure/compare';
import { readRecordIfExists } from './store';
import { sampleValidity } from './db/rows';
import { hostLoadWindows } from './verdict-cells';

/** A cell's figure for the bisected query. */
export interface BisectFigure {
  /** The cell's status (`succeeded`, `skipped`, `failed`, …) from its `result.json`. */
  status: string;
  /** `stats.read_rows` of the query (read_rows of its last warm run, `system.query_log`), null when unknown. */
  readRows: number | null;
  /** Why the version cannot run the workload (skip reason, cell error or the query's error). */
  problem?: string;
  /**
   * The host's load during the query's cold and warm runs (`hostLoadWindows` of the cell's
   * `metrics-end.json`); absent where not recorded (a remote server).
   */
  hostLoad?: { cold?: { words: string; disturbed: boolean }; warm?: { words: string; disturbed: boolean } };
}

/** Input of `bisectCompare`: two cells' `result.json` and the comparison's options. */
export interface BisectCompareInput {
  /** The side compared with (the good end's cell). */
  baselineResultFile: string;
  /** The probed cell. */
  newResultFile: string;
  query: string;
  /** `warm`: the valid warm runs; `cold`: the valid cold runs. */
  metric: 'warm' | 'cold';
  /** The comparison's thresholds (`baseline` options of the run spec: minChange, unstableAbove, minRuns). */
  minChange: number;
  unstableAbove: number;
  minRuns: number;
}

/**
 * One bisect step's time comparison (`compareSamples` of src/measure/compare.ts, baseline = the good
 * end): ratio of medians new/baseline (ms), its 95 % bootstrap interval, the baseline's noise
 * threshold and the verdict. `problem` set (and `verdict` `unstable`) when a side has no samples.
 */
export interface BisectComparison extends Pick<
  SampleComparison,
  | 'verdict'
  | 'reason'
  | 'n_baseline'
  | 'n_new'
  | 'median_baseline_ms'
  | 'median_new_ms'
  | 'ratio'
  | 'ci_low'
  | 'ci_high'
  | 'threshold'
> {
  /**
   * Which figure was compared: `server_elapsed_ms` (the runs' `server_elapsed_source`, e.g.
   * `system.query_log.query_duration_ms` or the HTTP summary's elapsed) when every kept run on both
   * sides has one fine enough, else `wall_ms` (client wall time).
   */
  figure: 'server_elapsed_ms' | 'wall_ms';
  /** The server-time sources of the kept runs (empty for wall time). */
  sources: string[];
  problem?: string;
}

/** The figure of query `query` in the cell's `result.json` (`queries_baseline`); `missing` when there is no result. */
export function cellQueryFigure(input: { resultFile: string; query: string }): BisectFigure {
  const r = readRecordIfExists(input.resultFile, CellResult);
  if (!r) return { status: 'missing', readRows: null, problem: `no result at ${input.resultFile}` };
  if (r.status !== 'succeeded') return { status: r.status, readRows: null, problem: r.skip_reason ?? r.error ?? r.status };
  const q = r.queries_baseline?.queries.find((x) => x.id === input.query);
  if (!q) return { status: r.status, readRows: null, problem: `query ${input.query} not measured` };
  if (q.error) return { status: r.status, readRows: null, problem: `query ${input.query}: ${q.error.message}` };
  const windows = hostLoadWindows(path.dirname(input.resultFile));
  const load = (kind: 'cold' | 'warm') => {
    const w = windows.get(`${input.query}|${kind}`);
    return w ? { [kind]: { words: w.words, disturbed: w.disturbed } } : {};
  };
  const hostLoad = { ...load('cold'), ...load('warm') };
  return { status: r.status, readRows: q.stats.read_rows, ...(Object.keys(hostLoad).length ? { hostLoad } : {}) };
}

/**
 * Compare the query's time in two cells (`result.json` samples of `queries_baseline`) with the
 * comparison method of `chbench compare` (first pass; seeded from both files' paths, so a replayed
 * or retried step gives the same verdict). Kept runs: `kind` = `input.metric`, valid by their
 * validity record (`sampleValidity`). Never throws for a missing side: `unstable` with `problem`.
 */
export function compareCellTimes(input: BisectCompareInput): BisectComparison {
  const kept = (f: string) => {
    const r = readRecordIfExists(f, CellResult);
    const q = r?.queries_baseline?.queries.find((x) => x.id === input.query);
    return (q?.samples ?? []).filter((x) => x.kind === input.metric && sampleValidity(x).valid);
  };
  const b = kept(input.baselineResultFile);
  const n = kept(input.newResultFile);
  const figure = chooseFigure([...b, ...n]);
  const ms = (xs: typeof b) => xs.map((x) => (figure === 'wall_ms' ? x.wall_ms : (x.server_elapsed_ms as number)));
  const c = compareSamples(ms(b), ms(n), {
    minChange: input.minChange,
    unstableAbove: input.unstableAbove,
    minRuns: input.minRuns,
    seed: seedOf(`${input.baselineResultFile}|${input.newResultFile}|${input.query}|${input.metric}`),
    noiseSeed: seedOf(`${input.baselineResultFile}|${input.query}|${input.metric}`),
  });
  const sources =
    figure === 'wall_ms'
      ? []
      : [...new Set([...b, ...n].map((x) => x.server_elapsed_source ?? ''))].filter(Boolean);
  return {
    verdict: c.verdict,
    reason: c.reason,
    figure,
    sources,
    n_baseline: c.n_baseline,
    n_new: c.n_new,
    median_baseline_ms: c.median_baseline_ms,
    median_new_ms: c.median_new_ms,
    ratio: c.ratio,
    ci_low: c.ci_low,
    ci_high: c.ci_high,
    threshold: c.threshold,
    ...(b.length && n.length ? {} : { problem: `no valid ${input.metric} runs of ${input.query} on a side` }),
  };
}

/**
 * The session settings whose defaults differ between two cells' servers (`defaults.json` of each
 * cell, from `system.settings.default` read at provisioning). Empty when either is unreadable.
 * Settings set by hand on a side (`olderHand` / `newerHand`: name → value, the bisect input's
 * `handSettings`) count as that side's defaults ({@link withHandSettings}; `byHand` on them).
 * Only settings the newer server takes per query (in its cell's `probe.json` `query_settings`,
 * from `system.settings`) are kept: an obsolete one listed with a default but refused as a query
 * setting (26.3's `background_schedule_pool_size`, a server setting there) cannot be set to the
 * older value in a probe. Settings new in the newer server that `compatibility = <older>` turns back
 * (`system.settings_changes` of the newer server, {@link newSettingsTurnedOn}; `newIn` on them) are
 * candidates too: a new setting whose default turns a behaviour on is a common cause of a version change.
 */
export function cellDefaultDiffs(input: {
  olderResultFile: string;
  newerResultFile: string;
  olderHand?: Record<string, string | number>;
  newerHand?: Record<string, string | number>;
}): DefaultDiff[] {
  const defaultsOf = (f: string) => readRecordIfExists(path.join(path.dirname(f), 'defaults.json'), ServerDefaults);
  const olderRec = defaultsOf(input.olderResultFile);
  const newerRec = defaultsOf(input.newerResultFile);
  const older = olderRec?.settings ?? null;
  const newer = newerRec?.settings ?? null;
  const label = (f: string) =>
    /^\d+(\.\d+)*/.exec(readRecordIfExists(f, CellResult)?.matrix.version ?? '')?.[0] ?? null;
  const olderVersion = label(input.olderResultFile);
  const newerVersion = label(input.newerResultFile);
  const settable = readRecordIfExists(
    path.join(path.dirname(input.newerResultFile), 'probe.json'),
    CapabilityProbe,
  )?.query_settings;
  const keep = settable ? new Set(settable) : null;
  const introduced =
    older && newer && olderVersion && newerVersion
      ? newSettingsTurnedOn(older, newer, newerRec?.settings_changes ?? [], olderVersion, newerVersion)
      : [];
  const diffs = [...(older && newer ? differingDefaults(older, newer) : []), ...introduced]
    .filter((d) => !keep || keep.has(d.name))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return withHandSettings(diffs, older, newer, input.olderHand ?? {}, input.newerHand ?? {});
}
