/**
 * report.html's "Sources of the figures": where each kind of figure came from, read from the records
 * themselves (timing and read sources of the queries, the skip index's size and materialization
 * sources). report.md says the same under each of its tables.
 */
import { h, type Raw } from '../html';
import type { CellResult, RunRecord } from '../../schema/results';
import type { ReportContext, ReportSection } from './section';

/** Where the figures come from, per kind of figure, from the records themselves. */
function sources(run: RunRecord, cells: CellResult[]): Raw {
  const qs = cells.flatMap((c) => [c.queries_baseline, c.queries_index].flatMap((p) => p?.queries ?? []));
  const uniq = (xs: (string | null | undefined)[]) => [...new Set(xs.filter((x): x is string => !!x))];
  const timing = uniq(qs.map((q) => q.stats.timing_source));
  const server = uniq(qs.flatMap((q) => q.stats.server_time_sources ?? []));
  const read = uniq(qs.flatMap((q) => q.samples.map((s) => s.read_source ?? 'not available')));
  const idx = cells.find((c) => c.index)?.index;
  const p = run.spec.protocol;
  const items: Raw[] = [
    h`<li><strong>Query times</strong>: ${timing.join(' / ') || 'n/a'}; server-side elapsed from ${server.join(' / ') || 'n/a'}. ${p.coldRuns} cold + ${p.warmupRuns ?? 0} unmeasured warm-up + ${p.warmRuns} warm run(s) per query; headline warm statistic: ${p.statistic}.</li>`,
    h`<li><strong>read_rows</strong>: last warm run, from ${read.join(' / ') || 'n/a'}.</li>`,
    h`<li><strong>Compression</strong>: system.parts and system.parts_columns (active parts).</li>`,
  ];
  if (idx) items.push(h`<li><strong>Skip index</strong>: size from ${idx.index_bytes_source}; materialization: ${idx.materialize_ms_source}.</li>`);
  items.push(h`<li><strong>Server facts</strong>: SELECT version(), system.asynchronous_metrics (CPUs, memory) or the worker host where the server has none.</li>`);
  return h`<ul class="sources">${items}</ul>`;
}

export const sourcesSection: ReportSection = {
  id: 'sources',
  title: 'Sources of the figures',
  applies: () => true,
  html: (ctx: ReportContext): Raw => h`<section id="sources"><h2>Sources of the figures</h2>${sources(ctx.run, ctx.chartCells)}</section>`,
};
