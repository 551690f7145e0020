/**
 * The matrix's own verdicts (`verdicts.json` in the run folder): every axis the matrix varies —
 * versions, codecs, settings profiles, pinned defaults — compared cell by cell with its reference, per
 * query (cold and warm), ingest and bytes on disk, beside an A/A control (the reference cell measured
 * twice). The method is `src/measure/verdicts.ts`; this module holds the spec options and the record.
 * Pure: workflow code imports its types.
 */
import { z } from 'zod';

/** The schema id of `verdicts.json`. */
export const VERDICTS_SCHEMA = 'chbench.verdicts/1';

/** The spec's `verdicts` block: how a matrix that varies an axis judges it (defaults apply when absent). */
export const VerdictSpec = z.strictObject({
  /**
   * Equivalence margin δ: a comparison is `unchanged` when its whole 95 % interval lies inside
   * [1/(1+δ), 1+δ] (0.03 = ±3 %). Also the smallest change ever called faster or slower.
   */
  equivalence: z.number().min(0.001).max(1).default(0.03),
  /** False-discovery rate over the run's time comparisons (Benjamini–Hochberg), e.g. 0.05. */
  fdr: z.number().min(0.001).max(0.5).default(0.05),
  /**
   * Measure the reference cell a second time (cell `…-r2`): the A/A control whose runs give the
   * between-server-start noise every interval includes, and the run's own false-move count. Without a
   * control (and without `matrix.repeat` ≥ 2) nothing is called faster or slower.
   */
  control: z.boolean().default(true),
  /** Interleaved A, B rounds per query in the confirming re-run of a faster/slower verdict; 0 = no re-run (nothing is then published as faster/slower). */
  confirmRounds: z.int().min(0).max(200).default(20),
  /** At most this many cell pairs are re-run to confirm (each pair is two fresh cells); the rest stay `inconclusive`, saying so. */
  confirmPairs: z.int().min(0).max(100).default(8),
  /**
   * Seconds budget of one re-run pair's interleaved measuring (per phase, s): once spent, the re-run
   * stops after the round in flight, provided 3 rounds are measured (an interval needs them), and is
   * judged on the rounds it has. A statement already running is never cut. Default 1,200 s.
   */
  confirmSeconds: z.int().min(10).max(86_400).default(1200),
});
export type VerdictSpec = z.infer<typeof VerdictSpec>;

/** The defaults of {@link VerdictSpec} (a spec stored before the block existed reads as these). */
export const VERDICT_DEFAULTS: VerdictSpec = VerdictSpec.parse({});

/**
 * An axis of the matrix; `version-step`: a version against the next older one of the matrix (adjacent versions,
 * besides each against the reference); `setup`: a cell that differs from the run's reference cell on more than
 * one axis; `repetition`: the A/A control.
 */
export const VerdictAxis = z.enum(['version', 'version-step', 'codec', 'profile', 'defaults', 'setup', 'repetition']);
export type VerdictAxis = z.infer<typeof VerdictAxis>;

/** What a comparison measures: a query's cold or warm runs, the load's rows/s, or the table's bytes on disk. */
export const VerdictPhase = z.enum(['cold', 'warm', 'ingest', 'disk']);
export type VerdictPhase = z.infer<typeof VerdictPhase>;

/**
 * A verdict. Times and ingest: `faster` / `slower` (the interval excludes 1 under the run's false-discovery
 * rule and lies outside ±δ, confirmed by the interleaved re-run where one applies), `unchanged` (the whole
 * interval inside ±δ), `inconclusive` (neither; `more` says what would decide it), `not comparable` (a side
 * failed, results differ, figures of different meaning). Disk: `larger` / `smaller` / `unchanged` (exact, ±δ).
 */
export const VerdictValue = z.enum(['faster', 'slower', 'unchanged', 'inconclusive', 'not comparable', 'larger', 'smaller']);
export type VerdictValue = z.infer<typeof VerdictValue>;

/** One comparison: a cell against its reference on one axis, for one query and phase (or ingest / disk). */
export const VerdictEntry = z.object({
  axis: VerdictAxis,
  /** Cell keys: the reference and the compared cell. */
  reference: z.string(),
  cell: z.string(),
  /** Query id (`q3`, `q5@index` after the skip index); null for ingest and disk. */
  query: z.string().nullable(),
  phase: VerdictPhase,
  verdict: VerdictValue,
  /** new / reference: medians of the valid runs (times, ms: higher = slower), rows/s (ingest: higher = faster), bytes (disk). Null when not formed. */
  ratio: z.number().nullable(),
  /** The 95 % interval of `ratio` (adjusted for the selection of faster/slower verdicts, see `method`); disk: the ratio itself. */
  low: z.number().nullable(),
  high: z.number().nullable(),
  /** Minimal detectable effect at 80 % power from this comparison's own noise, as a relative change (0.08 = 8 %). */
  mde: z.number().nullable(),
  /** Runs per side that the figures come from (valid warm or cold runs; loads for ingest). */
  runs: z.object({ reference: z.number(), cell: z.number() }),
  /** true: confirmed by the interleaved re-run; false: withdrawn by it (or its re-run failed); null: no re-run needed or possible. */
  confirmed: z.boolean().nullable(),
  /** Why this verdict, in one line (interval, margin, p-value, the re-run). */
  reason: z.string(),
  /** Inconclusive: what would decide it ("≈ 9 more warm runs per side", "more repetitions: …"). */
  more: z.string().optional(),
  /** The figure the times are: `server_elapsed_ms` when every kept run on both sides has it, else `wall_ms`. */
  figure: z.enum(['server_elapsed_ms', 'wall_ms', 'rows_per_s', 'bytes_on_disk']).optional(),
  /** Work counters compared exactly (median read_rows per side): `same 2,000,000 rows` or `2,000,000 → 98,304 rows`. */
  work: z.string().optional(),
  /** Two-sided p-value of the first pass (before the false-discovery rule); null where none was formed. */
  p: z.number().nullable().optional(),
  /** The first pass's standard error of ln(ratio) and its t degrees of freedom (null: infinite), for combining it with a re-run. */
  se: z.number().optional(),
  df: z.number().nullable().optional(),
  /** Set when the host disturbed the first pass's runs of either side (other processes' CPU during the query's window, the figures in words): never a verdict from them. */
  disturbed: z.string().optional(),
  /** Set when the comparison was inconclusive in the first pass and re-measured interleaved (the adaptive step): the verdict is on both passes combined. */
  remeasured: z.boolean().optional(),
  /** The interleaved re-run's own figures (when one ran). */
  rerun: z
    .object({
      ratio: z.number().nullable(),
      low: z.number().nullable(),
      high: z.number().nullable(),
      runs: z.number(),
      error: z.string().optional(),
      /** Set when the seconds budget (`verdicts.confirmSeconds`) stopped the re-run's rounds early. */
      budget_spent: z.object({ rounds: z.number(), of: z.number(), seconds: z.number() }).optional(),
    })
    .optional(),
});
export type VerdictEntry = z.infer<typeof VerdictEntry>;

/** The A/A control: the reference cell and its second measurement, judged by the same method (leave-one-out noise). */
export const VerdictControl = z.object({
  reference: z.string(),
  cell: z.string(),
  /** Query × phase comparisons of the control (cold and warm), and how many of them moved (faster/slower). */
  pairs: z.number(),
  moved: z.number(),
  /** The between-server-start noise learned from the control pairs, per phase, as a relative SD (0.04 = 4 %); null when not learned. */
  noise: z.object({ warm: z.number().nullable(), cold: z.number().nullable(), ingest: z.number().nullable() }),
  /** The disk ratio of the control (bytes on disk of the same setup measured twice). */
  disk_ratio: z.number().nullable(),
  /** What the control says about the run's verdicts, in one line. */
  note: z.string(),
  /**
   * The interleaved A/A control (final stage; absent in records before it existed): the reference cell against its
   * A/A cell on two fresh cells measured interleaved, as the re-run measures every pair. Its between-start noise
   * (relative SD; null for a kind of run it did not measure) is what the re-run's intervals include.
   */
  interleaved: z
    .object({
      pair: z.string(),
      noise: z.object({ warm: z.number().nullable(), cold: z.number().nullable() }),
      /** Its queries × kinds of run judged (each with the others' noise), and how many moved (faster/slower). */
      pairs: z.number(),
      moved: z.number(),
      note: z.string(),
    })
    .optional(),
});
export type VerdictControl = z.infer<typeof VerdictControl>;

/** One row of the Decision: a cell against the run's reference cell. */
export const DecisionRow = z.object({
  cell: z.string(),
  reference: z.string(),
  /** bytes on disk new / reference (always shown: it is the cost). */
  disk_ratio: z.number().nullable(),
  /** Ingest rows/s new / reference and its verdict. */
  ingest_ratio: z.number().nullable(),
  ingest_verdict: VerdictValue.nullable(),
  /** Geometric mean over the queries' warm ratios, its interval (conservative: the mean of the queries' log half-widths). */
  geomean: z.number().nullable(),
  geomean_low: z.number().nullable(),
  geomean_high: z.number().nullable(),
  /** Warm verdict counts over the queries. */
  counts: z.object({ faster: z.number(), slower: z.number(), unchanged: z.number(), inconclusive: z.number(), not_comparable: z.number() }),
  /** Queries that failed on this cell (not on the reference). */
  failed: z.array(z.string()),
});
export type DecisionRow = z.infer<typeof DecisionRow>;

/** `verdicts.json`. */
export const VerdictsRecord = z.object({
  schema: z.literal(VERDICTS_SCHEMA),
  run_id: z.string(),
  /** The run's reference cell (every axis at its reference value) and the reference value per axis. */
  reference: z.string(),
  references: z.record(z.string(), z.string()),
  options: VerdictSpec,
  /** The method in words, for the report. */
  method: z.string(),
  control: VerdictControl.nullable(),
  /** `first-pass` until the confirming re-run's outcome is applied, then `final`. */
  stage: z.enum(['first-pass', 'final']),
  entries: z.array(VerdictEntry),
  decision: z.array(DecisionRow),
  /** One sentence per axis. */
  sentences: z.array(z.string()),
  /** Why some comparisons could not be made (a failed cell, no control, …). */
  notes: z.array(z.string()),
  created_at: z.string(),
});
export type VerdictsRecord = z.infer<typeof VerdictsRecord>;

/** What the matrix workflow keeps of its verdicts (small: history and the workflow result). */
export interface VerdictsSummary {
  /** The Decision in one line (e.g. `26.3: warm geomean 0.97× [0.93, 1.01], 4 unchanged, 1 faster; disk 1.30×`). */
  decision: string;
  /** "A/A control moves 0 of 10". */
  control: string;
  /** Comparisons per verdict. */
  counts: Record<string, number>;
}
