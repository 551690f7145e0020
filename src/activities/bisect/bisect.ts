/**
 * The bisect's activities (`bisectVersions`, src/workflows/bisect-versions.ts): which versions the
 * target's version sources serve between the two labels, a measured cell's figure for one query,
 * the defaults that differ between two cells' servers, and `bisect.md`.
 */
import path from 'node:path';
import { writeFileSync } from 'node:fs';
import { ApplicationFailure } from '@temporalio/common';
import { FAILURE } from '../../schema/failures';
import { CapabilityProbe, CellResult, ServerDefaults } from '../../schema/results';
import { cellDir, readRecordIfExists, runDir } from '../../results/store';
import { versionSourcesOf } from '../../targets/versions';
import { differingDefaults, versionRange, withHandSettings, type DefaultDiff } from '../../schema/bisect';
import { bisectMarkdown, type BisectReportInput } from '../../results/report-bisect';
import { sampleValidity } from '../../results/db/rows';
import { chooseFigure, compareSamples, seedOf, type SampleComparison } from '../../measure/compare';
import { withResultsDb } from '../../results/db';
import { cellSpecHash } from '../../results/cell-spec';
import { hostKindOf } from '../../schema/host';
import { workloadFingerprint } from '../../lib/workload-hash';
import { hostFacts } from '../../temporal/host';
import type { CellInput } from '../../schema/cell';
import type { ResultsDbSpec } from '../../schema/run-spec';

/** A cell's figure for the bisected query. */
export interface BisectFigure {
  /** The cell's status (`succeeded`, `skipped`, `failed`, …) from its `result.json`. */
  status: string;
  /** `stats.read_rows` of the query (read_rows of its last warm run, `system.query_log`), null when unknown. */
  readRows: number | null;
  /** Why the version cannot run the workload (skip reason, cell error or the query's error). */
  problem?: string;
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

/** Activity factory. */
export function createBisectActivities() {
  return {
    /**
     * The versions the target's version sources serve between `good` and `bad` (both included), oldest first.
     * @throws ApplicationFailure `InvalidSpec` (non-retryable) when a label is not served or good is not older.
     */
    async bisectRange(input: { target: Record<string, unknown>; good: string; bad: string }): Promise<string[]> {
      const labels = versionSourcesOf(input.target).flatMap((s) => s.labels());
      try {
        return versionRange(labels, input.good, input.bad);
      } catch (e) {
        throw ApplicationFailure.nonRetryable((e as Error).message, FAILURE.InvalidSpec);
      }
    },

    /** The figure of query `query` in the cell's `result.json` (`queries_baseline`). */
    async bisectFigure(input: { resultFile: string; query: string }): Promise<BisectFigure> {
      const r = readRecordIfExists(input.resultFile, CellResult);
      if (!r) return { status: 'missing', readRows: null, problem: `no result at ${input.resultFile}` };
      if (r.status !== 'succeeded')
        return { status: r.status, readRows: null, problem: r.skip_reason ?? r.error ?? r.status };
      const q = r.queries_baseline?.queries.find((x) => x.id === input.query);
      if (!q) return { status: r.status, readRows: null, problem: `query ${input.query} not measured` };
      if (q.error) return { status: r.status, readRows: null, problem: `query ${input.query}: ${q.error.message}` };
      return { status: r.status, readRows: q.stats.read_rows };
    },

    /**
     * Compare the query's time in two cells (`result.json` samples of `queries_baseline`) with the
     * comparison method of `chbench compare` (first pass; seeded from both files' paths, so a replayed
     * or retried step gives the same verdict). Kept runs: `kind` = `input.metric`, valid by their
     * validity record (`sampleValidity`). Never throws for a missing side: `unstable` with `problem`.
     */
    async bisectCompare(input: BisectCompareInput): Promise<BisectComparison> {
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
    },

    /**
     * Judge a step's confirming re-run (`confirmComparison`'s interleaved samples of the query:
     * valid warm runs in ms, good end's setup as baseline) with `compareSamples`, thresholds as the
     * first pass, seeded from `seedKey` (a replayed or retried step gives the same verdict).
     * Samples missing on a side give `unstable` (too few runs). Pure apart from its input.
     */
    async bisectConfirm(input: {
      samples: { baseline_ms: number[]; new_ms: number[]; figure: 'server_elapsed_ms' | 'wall_ms' };
      firstPass: 'regression' | 'improvement';
      minChange: number;
      unstableAbove: number;
      minRuns: number;
      seedKey: string;
    }): Promise<BisectConfirmation> {
      const { baseline_ms: b, new_ms: n, figure } = input.samples;
      const c = compareSamples(b, n, {
        minChange: input.minChange,
        unstableAbove: input.unstableAbove,
        minRuns: input.minRuns,
        seed: seedOf(`${input.seedKey}:confirm`),
      });
      const confirmed = c.verdict === input.firstPass;
      return {
        verdict: c.verdict,
        reason: `re-run (${figure === 'server_elapsed_ms' ? 'server-side elapsed' : 'client wall time'}, interleaved): ${c.reason}; ${confirmed ? 'confirms' : 'does not confirm'} the first pass's ${input.firstPass}`,
        n_baseline: c.n_baseline,
        n_new: c.n_new,
        ratio: c.ratio,
        ci_low: c.ci_low,
        ci_high: c.ci_high,
        threshold: c.threshold,
        rounds: Math.max(b.length, n.length),
        figure,
        confirmed,
        final: confirmed ? input.firstPass : c.verdict === 'unstable' ? 'unstable' : 'unchanged',
      };
    },

    /**
     * The session settings whose defaults differ between two cells' servers (`defaults.json` of each
     * cell, from `system.settings.default` read at provisioning). Empty when either is unreadable.
     * Settings set by hand on a side (`olderHand` / `newerHand`: name → value, the bisect input's
     * `handSettings`) count as that side's defaults ({@link withHandSettings}; `byHand` on them).
     * Only settings the newer server takes per query (in its cell's `probe.json` `query_settings`,
     * from `system.settings`) are kept: an obsolete one listed with a default but refused as a query
     * setting (26.3's `background_schedule_pool_size`, a server setting there) cannot be set to the
     * older value in a probe.
     */
    async bisectDefaults(input: {
      olderResultFile: string;
      newerResultFile: string;
      olderHand?: Record<string, string | number>;
      newerHand?: Record<string, string | number>;
    }): Promise<DefaultDiff[]> {
      const read = (f: string) =>
        readRecordIfExists(path.join(path.dirname(f), 'defaults.json'), ServerDefaults)?.settings ?? null;
      const older = read(input.olderResultFile);
      const newer = read(input.newerResultFile);
      const settable = readRecordIfExists(
        path.join(path.dirname(input.newerResultFile), 'probe.json'),
        CapabilityProbe,
      )?.query_settings;
      const keep = settable ? new Set(settable) : null;
      const diffs = (older && newer ? differingDefaults(older, newer) : []).filter((d) => !keep || keep.has(d.name));
      return withHandSettings(diffs, older, newer, input.olderHand ?? {}, input.newerHand ?? {});
    },

    /**
     * A stored cell measured as `cell` would be (`ResultsDb.reusableCell`): the same version label,
     * the same measured inputs (`cellSpecHash`: codec, scale, settings, protocol, target, pinned
     * defaults, …), the same workload files (`workloadFingerprint(cell.workload).sha256`, read now,
     * against `runs.workload_sha256`), the same host kind (`hostKindOf` of this worker's host, as
     * provisioning records it) and target kind, in another run, whose `result.json` is still in
     * `resultsDir` with status `succeeded` and the same spec hash. Null when there is none (also when
     * the results database has no schema-6 rows yet). Reads only; idempotent.
     * @throws Error when the results database cannot be opened (named), or the workload is missing
     */
    async bisectStoredCell(input: {
      cell: CellInput;
      results?: ResultsDbSpec;
      resultsDir: string;
    }): Promise<ReusedCell | null> {
      const { cell } = input;
      const hash = cellSpecHash(cell);
      const workload = workloadFingerprint(cell.workload).sha256;
      const hostKind = hostKindOf(hostFacts({ hostId: '', taskQueue: '' }));
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
    },

    /** Write `bisect.md` into the run folder. @returns its absolute path. */
    async writeBisectReport(input: { resultsDir: string; report: BisectReportInput }): Promise<string> {
      const file = path.join(runDir(input.resultsDir, input.report.runId), 'bisect.md');
      writeFileSync(file, bisectMarkdown(input.report));
      return file;
    },
  };
}
