/**
 * The report's head: the run (workload, rows, target, protocol, when it started and finished, its
 * status), then what a reader must see first — late start, incomplete query steps, the validity
 * banner (`validityBanner`: only of what was measured), busy hosts, the comparison's verdict (or why
 * `comparison.json` could not be read) and, on report.html, the skip index verdicts and host-wide
 * figures that differ. Sources: `run.json`, each cell's `result.json`, `comparison.json`.
 */
import { h, notesList, type Raw } from '../html';
import { busyFlags, busyHeadline, busyNotes } from '../report-hosts';
import { bannerMd, hostWideFlags, measuredSomething, runStatusText, validityBanner, type IndexSettingsSpec } from '../report-cells';
import { fmtInt, lateStartWarning, startPhrase } from '../format';
import { cellLabel } from '../charts';
import { comparedQueries, indexVerdict, validitySummary } from '../verdicts';
import type { CellResult } from '../../schema/results';
import type { ReportContext, ReportSection } from './section';

/** The validity headline, worded as in report.md (`validityBanner`: only of what was measured). `cells`: every cell with a result; `missing`: cells without one. */
function validityBlock(cells: CellResult[], missing: string[], spec?: IndexSettingsSpec): Raw {
  const ok = cells.filter(measuredSomething);
  const v = validitySummary(ok, spec);
  const b = validityBanner(cells, missing, v, comparedQueries(ok).length);
  const incomplete = cells.flatMap((c) => [c.queries_baseline, c.queries_index].filter((p) => p?.incomplete).map((p) => `${c.cellKey} ${p!.phase}: ${p!.incomplete}`));
  const out: Raw[] = [];
  if (incomplete.length) out.push(h`<p class="warn"><strong>Query steps stopped before every query was measured</strong> — ${incomplete.join('; ')}. The figures shown are the queries that finished.</p>`);
  out.push(b.head ? h`<p class="${b.level}"><strong>${b.head}</strong> — ${b.text}</p>` : h`<p class="${b.level}">${b.text}</p>`);
  for (const c of ok.filter((x) => x.index && x.queries_index)) {
    const iv = indexVerdict(c, spec);
    if (iv.off) out.push(h`<p class="ok">Skip index in ${cellLabel(c)}: ${iv.off} (turned off on purpose: no speed-up, not invalid).</p>`);
    else if (iv.verified !== true) out.push(h`<p class="${iv.verified === false ? 'warn' : 'unknown'}">Skip index in ${cellLabel(c)}: ${iv.verified === false ? 'not verified or not effective' : iv.notUnderstood.length ? 'not verifiable: EXPLAIN not understood' : 'not verifiable'} — ${iv.reasons.join('; ') || 'no proof recorded'}.</p>`);
  }
  return h`${out}`;
}

/** Cells whose host ran something else at the time (`busyFlags`): a note on their figures, with each reason. */
function hostBusyBlock(cells: CellResult[], concurrency: number): Raw {
  const flags = busyFlags(cells, concurrency);
  const line = busyHeadline(flags);
  if (!line) return h``;
  return h`<div class="unknown"><p><strong>⚠ Host busy</strong> — ${line}</p>${notesList(busyNotes(flags))}</div>`;
}

/** Host-wide figures that differ a lot between cells (`hostWideFlags`), as report.md flags them. */
function hostWideBlock(cells: CellResult[]): Raw {
  const flags = hostWideFlags(cells);
  return flags.length ? h`<div class="unknown">${notesList(flags.map((f) => `⚠ ${f.text}.`))}</div>` : h``;
}

export const headerSection: ReportSection = {
  id: 'header',
  title: 'chbench report',
  applies: () => true,
  markdown(ctx: ReportContext): string[] {
    const { run, spec, cells, missing, measured: ok, comparison } = ctx;
    const out: string[] = [];
    out.push(`# chbench report — ${run.runId}`, '');
    out.push(`Workload **${spec.workload}**, ${fmtInt(spec.scale)} rows, target **${spec.target.kind}**; protocol: ${spec.protocol.coldRuns} cold + ${spec.protocol.warmRuns} warm run(s) per query, headline warm statistic **${spec.protocol.statistic}** (every sample is in the cell's \`queries-*.json\`).`);
    const resumes = run.resumes;
    const status = runStatusText(run, cells, missing);
    out.push(`${startPhrase(run)}${resumes.length ? `, resumed ${resumes.join(', ')}` : ''}${run.finishedAt ? `, finished ${run.finishedAt}` : ''}${status ? `, run status **${status}**` : ''}.`, '');
    const lateWarn = lateStartWarning(run);
    if (lateWarn) out.push(`> **⚠ ${lateWarn}**`, '');

    // Validity summary first: a run with invalid measurements says so at the top.
    const v = validitySummary(ok, spec);
    const incomplete = cells.flatMap((c) => [c.queries_baseline, c.queries_index].filter((p) => p?.incomplete).map((p) => `${c.cellKey} ${p!.phase}: ${p!.incomplete}`));
    if (incomplete.length) out.push(`> **Query steps stopped before every query was measured** — ${incomplete.join('; ')}. The figures shown are the queries that finished.`, '');
    // The banner speaks only of what was measured (report-cells.ts): nothing, no query run, or each claim with its runs.
    out.push(bannerMd(validityBanner(cells, missing, v, comparedQueries(ok).length)), '');
    // Cells whose host ran something else: a note on their figures (report-hosts.ts), not a failure.
    const hostBusy = busyFlags(cells, spec.concurrency);
    const busyLine = busyHeadline(hostBusy);
    if (busyLine) out.push(`> **⚠ Host busy** — ${busyLine} Each reason is listed in the Validity section.`, '');

    // A compared run says its verdict at the top; the details are in the Comparison section below.
    if (comparison.record) {
      const c = comparison.record;
      out.push(
        `Comparison with ${c.baseline_run_id || 'no baseline'} (${c.baseline_chosen_by}): **${c.verdict}**${c.confirmed.length ? ` — confirmed by the interleaved re-run: ${c.confirmed.join(', ')}` : ''}${c.flagged.length && !c.confirmed.length ? ` — first pass flagged ${c.flagged.join(', ')}, not confirmed by the re-run` : ''} (see [Comparison](#comparison-with-the-baseline)).`,
        '',
      );
    } else if (comparison.error) out.push(`> **comparison.json could not be read**: ${comparison.error}`, '');
    return out;
  },
  html(ctx: ReportContext): Raw {
    const { run, spec, cells, missing, measured } = ctx;
    return h`<header><h1>chbench report — ${run.runId}</h1>
<p>Workload <strong>${spec.workload}</strong>, ${fmtInt(spec.scale)} rows, target <strong>${spec.target.kind}</strong>; ${spec.protocol.coldRuns} cold + ${spec.protocol.warmRuns} warm run(s) per query, headline warm statistic <strong>${spec.protocol.statistic}</strong>.</p>
<p>${startPhrase(run)}${run.resumes.length ? `, resumed ${run.resumes.join(', ')}` : ''}${run.finishedAt ? `, finished ${run.finishedAt}` : ''}; run status <strong>${runStatusText(run, cells, missing) ?? 'not recorded (not finished)'}</strong>; ${cells.filter((c) => c.status === 'succeeded').length} of ${cells.length + missing.length} cell(s) succeeded.</p>
${lateStartWarning(run) ? h`<p><strong>⚠ ${lateStartWarning(run)}</strong></p>` : ''}${validityBlock(cells, missing, spec)}${hostBusyBlock(cells, spec.concurrency)}${hostWideBlock(measured)}</header>`;
  },
};
