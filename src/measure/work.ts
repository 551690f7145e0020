/**
 * The work a query did, compared between two sides without statistics.
 *
 * read_rows, read_bytes and the per-run ProfileEvents SelectedParts, SelectedRanges, SelectedMarks
 * and ReadCompressedBytes are deterministic for the same data and query: every run of a side gives
 * the same count, so one run per side is enough and a difference is a change in the work itself
 * (e.g. a primary key analysis that selects fewer granules), not noise. A time verdict
 * (regression/improvement) beside unchanged work is labelled "time changed, work unchanged": the
 * server did the same reading faster or slower.
 *
 * Pure.
 */
import type { StoredFigure } from '../results/db/types';

/**
 * The per-run work counters (ProfileEvents names, each also in `RUN_COUNTERS` of
 * src/measure/validity.ts) with their unit. Each is a figure the store writes (`SAMPLE_FIGURES` in
 * src/results/db/rows.ts) and one {@link compareWork} compares: a counter added here reaches the
 * `figures` rows, the exports, the dashboard and the work comparison with no other edit (a counter
 * in bytes is listed when it differs but does not decide, see {@link DECIDING_WORK}).
 */
export const WORK_COUNTERS = [
  { name: 'SelectedParts', unit: 'parts' },
  { name: 'SelectedRanges', unit: 'ranges' },
  { name: 'SelectedMarks', unit: 'marks' },
  { name: 'ReadCompressedBytes', unit: 'bytes' },
] as const satisfies readonly { name: string; unit: StoredFigure['unit'] }[];

/** A figure compared as work: read_rows, read_bytes or a {@link WORK_COUNTERS} name. */
export type WorkFigure = 'read_rows' | 'read_bytes' | (typeof WORK_COUNTERS)[number]['name'];

/** The figures compared as work, in report order (names of `figures` rows: `SAMPLE_FIGURES` in src/results/db/rows.ts). */
export const WORK_FIGURES: readonly WorkFigure[] = ['read_rows', 'read_bytes', ...WORK_COUNTERS.map((c) => c.name)];

/**
 * The figures whose difference is a work change: rows, parts, ranges and marks read (read_rows and
 * every {@link WORK_COUNTERS} entry not in bytes). The byte figures (read_bytes, ReadCompressedBytes) are listed when they differ but do not decide: they
 * depend on the part format the version wrote (measured here: the same 2-day sum read 712,523
 * compressed bytes on 23.10 and 695,094 on 24.8 with the same rows and marks).
 */
export const DECIDING_WORK: ReadonlySet<WorkFigure> = new Set<WorkFigure>([
  'read_rows',
  ...WORK_COUNTERS.filter((c) => c.unit !== 'bytes').map((c) => c.name),
]);

/** One work figure of both sides: the value (in its unit) and source of the single run used; null = unknown on that side. */
export interface WorkDifference {
  figure: WorkFigure;
  unit: string;
  baseline: number | null;
  new: number | null;
  baseline_source: string | null;
  new_source: string | null;
  /** In {@link DECIDING_WORK}: this difference makes the verdict `work change`. */
  deciding: boolean;
}

/**
 * The work comparison of one query: `work change` when a {@link DECIDING_WORK} figure known on
 * both sides differs, `work unchanged` when at least one is known on both sides and none differs,
 * `work unknown` when none is known on both sides (e.g. 18.16 against an engine without per-run counters).
 * `changed` lists the differing figures, `compared` the figures known on both sides.
 */
export interface WorkComparison {
  verdict: 'work change' | 'work unchanged' | 'work unknown';
  changed: WorkDifference[];
  compared: WorkFigure[];
  /** In words, e.g. "read_rows 122951 → 40960 (system.query_log)". */
  reason: string;
}

/**
 * The single run whose figure a side gives: the first warm run, else the first run of any kind
 * (`runs` are one side's `figures` rows of one query and phase), that has the figure known.
 */
function pick(runs: readonly StoredFigure[], figure: WorkFigure): StoredFigure | undefined {
  const known = runs.filter((f) => f.figure === figure && f.value !== null);
  return known.find((f) => f.kind === 'warm') ?? known[0];
}

/**
 * Compare the work of one query between two sides.
 * @param baseline the baseline side's `figures` rows of this query and phase (any kinds)
 * @param next the new side's rows of the same query and phase
 */
export function compareWork(baseline: readonly StoredFigure[], next: readonly StoredFigure[]): WorkComparison {
  const changed: WorkDifference[] = [];
  const compared: WorkFigure[] = [];
  for (const figure of WORK_FIGURES) {
    const b = pick(baseline, figure);
    const n = pick(next, figure);
    if (!b || !n) continue;
    compared.push(figure);
    if (b.value !== n.value)
      changed.push({
        figure,
        unit: b.unit,
        baseline: b.value,
        new: n.value,
        baseline_source: b.source,
        new_source: n.source,
        deciding: DECIDING_WORK.has(figure),
      });
  }
  if (!compared.some((f) => DECIDING_WORK.has(f)))
    return {
      verdict: 'work unknown',
      changed,
      compared,
      reason: 'no rows/parts/ranges/marks figure known on both sides',
    };
  const text = (ds: WorkDifference[]) =>
    ds
      .map(
        (d) =>
          `${d.figure} ${d.baseline} → ${d.new} ${d.unit} (${d.baseline_source === d.new_source ? d.new_source : `${d.baseline_source} / ${d.new_source}`})`,
      )
      .join('; ');
  const bytes = changed.filter((d) => !d.deciding);
  const bytesText = bytes.length ? `; bytes differ (part format, not deciding): ${text(bytes)}` : '';
  if (!changed.some((d) => d.deciding))
    return {
      verdict: 'work unchanged',
      changed,
      compared,
      reason: `${compared.filter((f) => DECIDING_WORK.has(f)).join(', ') || 'no rows/parts/ranges/marks figure'} equal${bytesText}`,
    };
  return {
    verdict: 'work change',
    changed,
    compared,
    reason: `${text(changed.filter((d) => d.deciding))}${bytesText}`,
  };
}

/**
 * The label beside a time verdict: `work change` whenever the work changed, `time changed, work
 * unchanged` for a regression or improvement with the same work, else null (no label).
 */
export function workLabel(
  timeVerdict: string,
  work: WorkComparison,
): 'work change' | 'time changed, work unchanged' | null {
  if (work.verdict === 'work change') return 'work change';
  if (work.verdict === 'work unchanged' && (timeVerdict === 'regression' || timeVerdict === 'improvement'))
    return 'time changed, work unchanged';
  return null;
}
