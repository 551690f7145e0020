/**
 * `bisect.md`: the report of a bisect (`src/schema/bisect.ts`) — the path taken (every step, in
 * order, with its figure and why it went to that side), the bracketing pair, the attribution's
 * probes and verdict, and the settings whose defaults differ between the pair.
 */
import type { AttributionState, BisectOutcome, BisectStep, DefaultDiff } from '../schema/bisect';

/** What the report says; figures as the steps recorded them. */
export interface BisectReportInput {
  /** Run id (the run folder's name). */
  runId: string;
  /**
   * The query bisected (e.g. `q3`) and the metric (`read_rows`: `system.query_log.read_rows` of the
   * last warm run; `warm` / `cold`: the run times, each step judged with the comparison method).
   */
  query: string;
  metric: string;
  versions: string[];
  steps: BisectStep[];
  outcome: BisectOutcome;
  attribution?: AttributionState;
  diffs?: DefaultDiff[];
  /** Cells run as child workflows by this bisect (absent: not counted apart). */
  cellsNew?: number;
  /** Cells reused from stored runs instead of run: the bisect's cell key, the stored run and cell, what matched. */
  reusedCells?: { cellKey: string; runId: string; fromCell: string; matched: string }[];
  /** Where the bisect's cells were stored for reuse, or why not. */
  stored?: string;
  /** Where the bisect's own row (table `bisects`) was stored, or why not. */
  database?: string;
}

/** The report as Markdown. */
export function bisectMarkdown(r: BisectReportInput): string {
  const lines: string[] = [`# Bisect ${r.runId}`, ''];
  lines.push(`Query ${r.query}, metric ${r.metric}, over ${r.versions.length} versions: ${r.versions.join(', ')}.`, '');
  const confirms = r.steps.some((s) => s.confirmation);
  lines.push(
    '## Path taken',
    '',
    `| # | version | side | figure | why |${confirms ? ' confirming re-run |' : ''}`,
    `|---|---|---|---|---|${confirms ? '---|' : ''}`,
  );
  r.steps.forEach((s, i) =>
    lines.push(
      `| ${i + 1} | ${s.version} | ${s.side} | ${s.figure}${s.reusedFrom ? ` (reused from run ${s.reusedFrom.runId} cell ${s.reusedFrom.cellKey})` : ''} | ${s.reason} |${
        confirms
          ? ` ${s.confirmation ? `${s.confirmation.confirmed ? 'confirmed' : 'not confirmed'}: ${s.confirmation.verdict}, ${s.confirmation.rounds} rounds, final ${s.confirmation.final}` : '—'} |`
          : ''
      }`,
    ),
  );
  lines.push(
    '',
    `Versions measured by the bisect: ${r.outcome.cellsRun}${r.outcome.skipped.length ? ` (and ${r.outcome.skipped.length} skipped)` : ''}${r.attribution ? "; the attribution's cells are listed below" : ''}${r.metric === 'read_rows' ? '' : confirms ? ` (the comparisons are activities over their results; confirming re-runs: ${r.steps.filter((s) => s.confirmation).length}, two fresh cells each, not counted)` : ' (the comparisons are activities over their results, not extra cells)'}.`,
  );
  if (r.outcome.skipped.length) lines.push(`Skipped (cannot run the workload): ${r.outcome.skipped.join(', ')}.`);
  if (r.reusedCells) {
    lines.push(
      '',
      `Cells run by this bisect: ${r.cellsNew ?? 'n/a'}; reused from stored runs (results database: same version, cell spec, workload files and host kind): ${r.reusedCells.length}.`,
    );
    for (const c of r.reusedCells)
      lines.push(`- ${c.cellKey}: reused from run ${c.runId} cell ${c.fromCell} (matched ${c.matched})`);
  }
  if (r.stored) lines.push('', `Stored for reuse: ${r.stored}.`);
  if (r.database) lines.push('', `This bisect's answer (query, ends, bracketing pair, verdict, cells): ${r.database}.`);
  lines.push('', '## Result', '');
  if (r.outcome.bracket) {
    const [o, n] = r.outcome.bracket;
    lines.push(`Bracketing pair: ${o} (like the good end) → ${n} (like the bad end); first changed ${n}.`);
    lines.push(
      r.metric === 'read_rows'
        ? 'Confidence: read_rows is a deterministic work counter; one run per version decides.'
        : confirms
          ? "Confidence: each step judged against the good end with chbench compare's method (ratio of medians, 95 % bootstrap CI beyond the good end's half-split noise threshold); a changed first pass was re-run once, interleaved on two fresh cells, and the step took the comparison's final verdict (the first pass's when the re-run confirmed it, else unchanged, or unstable when the re-run could not decide)."
          : "Confidence: each step judged against the good end with chbench compare's method, first pass (ratio of medians, 95 % bootstrap CI beyond the good end's half-split noise threshold); no step's first pass changed, or this history predates the confirming re-run, so no step was re-run.",
    );
  } else lines.push(`No bracket: ${r.outcome.stopped}.`);
  if (r.attribution) {
    lines.push('', '## Attribution', '', '| probe: set to the older values | change disappeared |', '|---|---|');
    for (const p of r.attribution.probes) lines.push(`| ${p.settings.join(', ')} | ${p.disappeared ? 'yes' : 'no'} |`);
    lines.push('', `Verdict: ${r.attribution.verdict ?? 'not finished'}.`);
  }
  if (r.diffs) {
    lines.push('', '## Differing defaults (system.settings.default of both servers)', '');
    if (!r.diffs.length) lines.push('None.');
    else {
      lines.push('| setting | older | newer | source |', '|---|---|---|---|');
      for (const d of r.diffs)
        lines.push(
          `| ${d.name} | ${d.old} | ${d.new} | ${d.byHand ? 'set by hand (handSettings), else the server default' : 'system.settings.default'} |`,
        );
    }
  }
  return lines.join('\n') + '\n';
}
