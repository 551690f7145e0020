/**
 * The "Comparison with the baseline" section of `report.md`, and the per-pair table `chbench compare`
 * prints, both from a comparison record (`comparison.json`, schema `chbench.comparison/v1`). Pure.
 */
import markdownTable from 'markdown-table';
import type { CellPair, ComparisonRecord, QueryComparison } from '../schema/comparison';

/** ms with 2 decimals under 10 ms, 1 under 1 s, else seconds; `n/a` for null. */
function ms(x: number | null): string {
  if (x === null || !Number.isFinite(x)) return 'n/a';
  if (x < 10) return `${x.toFixed(2)} ms`;
  if (x < 1000) return `${x.toFixed(1)} ms`;
  return `${(x / 1000).toFixed(2)} s`;
}

const ratio = (r: number | null) => (r === null ? 'n/a' : `${r.toFixed(3)}×`);
const interval = (lo: number | null, hi: number | null) => (lo === null || hi === null ? '' : ` [${lo.toFixed(3)}–${hi.toFixed(3)}]`);
const pct = (t: number | null) => (t === null ? 'n/a' : `±${(t * 100).toFixed(1)} %`);
const bold = (v: string) => (v === 'regression' || v === 'improvement' ? `**${v}**` : v);

/** `Q3` or `Q5 (after index)`. */
function queryLabel(q: QueryComparison): string {
  return q.phase === 'index' ? `${q.query_id} (after index)` : q.query_id;
}

/** Where a query's figures come from, in words. */
export function figureSource(q: Pick<QueryComparison, 'figure'>): string {
  return q.figure === 'server_elapsed_ms' ? 'server-side elapsed' : 'client wall';
}

/**
 * The work column of a query: `work change: SelectedParts 2 → 3` naming the first deciding figure
 * that differs (`, +N more` for the others), with "(SelectedParts differs, read_rows equal: the same rows
 * read from another set of parts)" when SelectedParts changed but the rows read did not — no cause is
 * named (merges, a different part layout or the key analysis can each do it; the runs do not say which); else the label (`time changed, work unchanged`) or
 * the verdict. The figures are one run per side (`QueryComparison.work.changed`, from the runs'
 * `figures` rows).
 */
export function workCell(work: NonNullable<QueryComparison['work']>): string {
  if (work.verdict !== 'work change') return work.label ?? work.verdict;
  const deciding = work.changed.filter((d) => d.deciding);
  const first = deciding[0];
  if (!first) return 'work change';
  const more = deciding.length > 1 ? `, +${deciding.length - 1} more` : '';
  const layoutOnly =
    deciding.some((d) => d.figure === 'SelectedParts') &&
    work.compared.includes('read_rows') &&
    !deciding.some((d) => d.figure === 'read_rows')
      ? ' (SelectedParts differs, read_rows equal: the same rows read from another set of parts)'
      : '';
  return `work change: ${first.figure} ${first.baseline ?? 'n/a'} → ${first.new ?? 'n/a'}${more}${layoutOnly}`;
}

/** The re-run column: its ratio, interval and verdict, or why there is none. */
function rerun(q: QueryComparison, record: ComparisonRecord): string {
  if (q.confirm) return `${ratio(q.confirm.ratio)}${interval(q.confirm.ci_low, q.confirm.ci_high)} ${q.confirm.verdict} (${q.confirm.rounds} rounds, ${q.confirm.confirmed ? 'confirms' : 'does not confirm'})`;
  if (q.verdict !== 'regression' && q.verdict !== 'improvement') return '–';
  return record.confirm_error ? 'not re-run (unconfirmed)' : 'pending';
}

/**
 * One markdown table of a pair: query, figure source, n, baseline and new median (ms, of the valid
 * warm runs), ratio new/baseline with its 95 % interval, the noise threshold, the first-pass verdict,
 * the re-run and the final verdict.
 */
export function pairTable(pair: CellPair, record: ComparisonRecord, opts: { rerun?: boolean } = {}): string {
  const withRerun = opts.rerun ?? true;
  // The work column (src/measure/work.ts) when the record has work comparisons (made from schema-4 `figures` rows).
  const withWork = pair.queries.some((q) => q.work);
  const head = ['query', 'source', 'runs (base/new)', 'baseline median', 'new median', 'ratio [95 % CI]', 'threshold', 'first pass', ...(withRerun ? ['re-run', 'final'] : []), ...(withWork ? ['work (one run per side)'] : [])];
  const rows = pair.queries.map((q) => [
    queryLabel(q),
    figureSource(q),
    `${q.n_baseline}/${q.n_new}`,
    ms(q.median_baseline_ms),
    ms(q.median_new_ms),
    `${ratio(q.ratio)}${interval(q.ci_low, q.ci_high)}`,
    pct(q.threshold),
    bold(q.verdict),
    ...(withRerun ? [rerun(q, record), bold(q.final)] : []),
    ...(withWork ? [q.work ? workCell(q.work) : '–'] : []),
  ]);
  return markdownTable([head, ...rows], { align: ['l', 'l', 'r', 'r', 'r', 'r', 'r', 'l', 'l', 'l', 'l'] });
}

/** The lines under a query table: each non-obvious verdict's reason. */
function reasons(pair: CellPair): string[] {
  return [
    ...pair.queries.filter((q) => q.verdict !== 'unchanged' || q.confirm).map((q) => `- ${queryLabel(q)}: ${q.reason}${q.confirm ? `; ${q.confirm.reason}` : ''}`),
    ...pair.queries.filter((q) => q.work?.verdict === 'work change').map((q) => `- ${queryLabel(q)}: work change (deterministic counters, no statistics): ${q.work!.reason}`),
  ];
}

const list = (ids: string[]) => (ids.length ? ids.join(', ') : 'none');

/**
 * Markdown lines of the report's comparison section: the baseline and how it was chosen, the run's
 * verdict, the method, per pair its differences and table ({@link pairTable}) with the reasons of
 * every verdict other than `unchanged`, the unpaired cells, and the flagged and confirmed lists.
 * Every figure names its source: medians of the valid warm runs, server-side elapsed or client wall.
 */
export function comparisonSection(record: ComparisonRecord): string[] {
  const out: string[] = ['## Comparison with the baseline', ''];
  if (record.verdict === 'no-baseline') {
    out.push(`No comparison: ${record.baseline_chosen_by.replace(/^no baseline: /, 'no baseline found — ')}.`, '');
    return out;
  }
  out.push(
    `- Baseline: run \`${record.baseline_run_id}\` (chosen by: ${record.baseline_chosen_by}).`,
    `- Verdict: **${record.verdict}**. Flagged by the first pass: ${list(record.flagged)}; confirmed by the re-run: ${list(record.confirmed)}.`,
    `- Method: ${record.method}. Seed ${record.options.seed} (the figures can be recomputed).`,
    '- Figures: medians of the **valid warm runs** of each side (cold runs, warm-up runs and runs judged not quiet are left out), ' +
      'in ms of **server-side elapsed** time when every kept run of both sides has one, else **client wall** time (column "source"). ' +
      'Ratio = new / baseline; threshold = the change the baseline’s own runs show (±, relative).',
    record.options.confirmRounds > 0
      ? `- Re-run: every flagged query measured again on fresh cells, old and new interleaved (A, B, A, B …, ${record.options.confirmRounds} rounds); only what it confirms stays flagged (column "final").`
      : '- Re-run: none (confirmRounds 0): first-pass flags stand, unconfirmed.',
  );
  if (record.confirm_error) out.push(`- Re-run problem: ${record.confirm_error}.`);
  out.push('');
  for (const pair of record.pairs) {
    out.push(
      `### ${pair.baseline_cell} → ${pair.new_cell}`,
      '',
      `Baseline cell \`${pair.baseline_cell}\` of run \`${pair.baseline_run}\`, new cell \`${pair.new_cell}\` of run \`${pair.new_run}\`. Differences: ${pair.differences.length ? pair.differences.join('; ') : 'none declared (same version, server version and settings)'}.`,
      '',
      pairTable(pair, record),
      '',
    );
    const why = reasons(pair);
    if (why.length) out.push(...why, '');
  }
  if (record.unpaired.length) {
    out.push('Cells without a baseline partner:', '', ...record.unpaired.map((u) => `- \`${u.cell}\`: ${u.reason}`), '');
  }
  return out;
}
