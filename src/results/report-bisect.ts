/**
 * `bisect.md`: the report of a bisect (`src/schema/bisect.ts`) — the path taken (every step, in
 * order, with its figure and why it went to that side), the bracketing pair, the attribution's
 * probes and verdict, and the settings whose defaults differ between the pair.
 */
import { intervalWords, type AttributionState, type BisectOutcome, type BisectStep, type DefaultDiff } from '../schema/bisect';

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
  /** Stored cells that matched but were measured again: the host disturbed their runs of the query. */
  passedOver?: { cellKey: string; runId: string; fromCell: string; why: string }[];
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
  if (r.steps.some((s) => s.verdict)) return verdictsMarkdown(r, lines);
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
  cellsMarkdown(r, lines, '');
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
  diffsMarkdown(r, lines);
  return lines.join('\n') + '\n';
}

/**
 * The cells: skipped versions, cells reused from stored runs (what had to match, `matchedToo` added),
 * stored cells passed over, where the run and the bisect's row were stored.
 */
function cellsMarkdown(r: BisectReportInput, lines: string[], matchedToo: string): void {
  if (r.outcome.skipped.length) lines.push(`Skipped (cannot run the workload): ${r.outcome.skipped.join(', ')}.`);
  if (r.reusedCells) {
    lines.push(
      '',
      `Cells run by this bisect: ${r.cellsNew ?? 'n/a'}; reused from stored runs (results database: same version, cell spec, workload files and host kind${matchedToo}): ${r.reusedCells.length}.`,
    );
    for (const c of r.reusedCells)
      lines.push(`- ${c.cellKey}: reused from run ${c.runId} cell ${c.fromCell} (matched ${c.matched})`);
  }
  for (const c of r.passedOver ?? [])
    lines.push(`- ${c.cellKey}: stored run ${c.runId} cell ${c.fromCell} matched but was measured again: ${c.why}`);
  if (r.stored) lines.push('', `Stored for reuse: ${r.stored}.`);
  if (r.database) lines.push('', `This bisect's answer (query, ends, bracketing pair, verdict, cells): ${r.database}.`);
}

/** A time bisect judged by verdicts (`patched('bisect-verdicts')` on): verdicts, intervals, host load. */
function verdictsMarkdown(r: BisectReportInput, lines: string[]): string {
  const iv = (v: NonNullable<BisectStep['verdict']>) => intervalWords(v) ?? 'no interval';
  const band = (v: NonNullable<BisectStep['verdict']>) => (v.threshold !== null ? `±${(v.threshold * 100).toFixed(1)} %` : '—');
  lines.push(
    '## Path taken',
    '',
    'Each step against the good end: `faster` / `slower` (the interval lies beyond the band), `unchanged` (the interval lies inside it), `inconclusive` (neither, or too few runs, or runs the host disturbed). Ratio = median new / median good end, 95 % bootstrap interval; the band is the good end\'s learned noise threshold, at least `baseline.minChange`.',
    '',
    '| # | version | side | verdict | ratio [95 % interval] | band | from | host load | first pass | why |',
    '|---|---|---|---|---|---|---|---|---|---|',
  );
  r.steps.forEach((s, i) => {
    const v = s.verdict;
    lines.push(
      `| ${i + 1} | ${s.version} | ${s.side} | ${v ? v.verdict : '—'} | ${v ? iv(v) : '—'} | ${v ? band(v) : '—'} | ${v ? (v.from === 're-run' ? `interleaved re-run, ${s.confirmation?.rounds ?? 0} rounds` : 'first pass') : '—'} | ${s.hostLoad?.words ?? 'not recorded'} | ${s.figure}${s.reusedFrom ? ` (reused from run ${s.reusedFrom.runId} cell ${s.reusedFrom.cellKey})` : ''} | ${s.reason} |`,
    );
  });
  const loads = r.steps.filter((s) => s.hostLoad);
  const disturbed = loads.filter((s) => s.hostLoad!.disturbed);
  lines.push(
    '',
    `Host load: ${loads.length ? `${loads.length - disturbed.length} of ${loads.length} steps' cells quiet${disturbed.length ? `; disturbed: ${disturbed.map((s) => s.version).join(', ')} (never a verdict from those runs: each was measured again interleaved)` : ''}` : 'not recorded (a remote server)'} (other processes' CPU from /proc/stat minus the engine's own, per query window of metrics-end.json).`,
    '',
    `Versions measured by the bisect: ${r.outcome.cellsRun}${r.outcome.skipped.length ? ` (and ${r.outcome.skipped.length} skipped)` : ''}; interleaved re-runs: ${r.steps.filter((s) => s.confirmation).length} (two fresh cells each, not counted)${r.attribution ? "; the attribution's cells are listed below" : ''}.`,
  );
  cellsMarkdown(r, lines, ', runs of the query quiet');
  lines.push('', '## Result', '');
  if (r.outcome.bracket) {
    const [o, n] = r.outcome.bracket;
    lines.push(`Bracketing pair: ${o} (like the good end) → ${n} (like the bad end); first changed ${n}.`);
  } else lines.push(`No bracket: ${r.outcome.stopped}.`);
  lines.push(
    '',
    'Confidence: a step moves the bisect only on a verdict. A first pass that is not `unchanged` — a change, or too few runs, an interval across the band, runs the host disturbed — is measured again on two fresh cells interleaved on one host, and that re-run alone decides; a first pass the re-run does not repeat is withdrawn, and a step still inconclusive after it stops the bisect.',
  );
  if (r.attribution) {
    lines.push(
      '',
      '## Attribution',
      '',
      '| probe: set to the older values | change disappeared | verdict against the older version |',
      '|---|---|---|',
    );
    for (const p of r.attribution.probes)
      lines.push(`| ${p.settings.join(', ')} | ${p.disappeared ? 'yes' : 'no'} | ${p.evidence ?? '—'} |`);
    lines.push('', `Verdict: ${r.attribution.verdict ?? 'not finished'}.`);
  }
  diffsMarkdown(r, lines);
  return lines.join('\n') + '\n';
}

/** The attribution's candidates: defaults that differ, hand-set values, settings new in the newer version. */
function diffsMarkdown(r: BisectReportInput, lines: string[]): void {
  if (r.diffs) {
    lines.push('', '## Candidate settings (system.settings.default of both servers; new settings from system.settings_changes)', '');
    if (!r.diffs.length) lines.push('None.');
    else {
      lines.push('| setting | older | newer | source |', '|---|---|---|---|');
      for (const d of r.diffs)
        lines.push(
          `| ${d.name} | ${d.old} | ${d.new} | ${d.byHand ? 'set by hand (handSettings), else the server default' : d.newIn ? `new in ${d.newIn}: the older server has no such setting; older value = its previous_value in the newer server's system.settings_changes` : 'system.settings.default'} |`,
        );
    }
  }
}
