/**
 * The Validity section: per query and cell, whether each cold run was cold, whether every run was
 * quiet and warm runs were faster than cold, where the counters came from and why; then the cells
 * whose host ran something else (`busySection`). Source: the samples' `validity` in `queries-*.json`.
 * Left out when no cell measured anything; on report.html as in report.md, its table collapsed.
 */
import { busyFlags, busySection } from '../report-hosts';
import { rowLabel } from '../report-cells';
import { blocksHtml, blocksMarkdown, type Block } from './blocks';
import type { CellResult } from '../../schema/results';
import type { ReportContext, ReportSection } from './section';

/**
 * The Validity table, header first: one row per query, phase and cell (cells in the order given) with
 * the cold runs' labels, the warm check, quiet, the counters' source and the reasons, from the
 * samples' `validity`, `counters_source` and `cross_check` and `stats.warm_validity` (`queries-*.json`).
 */
export function validityRows(ok: CellResult[], label: (c: CellResult) => string = rowLabel): string[][] {
  const vRows = [['query', 'cell', 'cold', 'warm', 'quiet', 'counters from', 'reasons']];
  for (const c of ok)
    for (const [phase, rec] of [['', c.queries_baseline], [' (after index)', c.queries_index]] as const)
      for (const q of rec?.queries ?? []) {
        const colds = q.samples.filter((x) => x.kind === 'cold');
        const coldLabel = colds.length ? [...new Set(colds.map((x) => x.validity?.cold?.label ?? 'cold?'))].join(', ') : 'no cold run';
        const quiet = q.samples.some((x) => x.validity?.quiet.valid === false) ? 'not quiet' : q.samples.every((x) => x.validity?.quiet.valid === true) ? 'quiet' : 'quiet?';
        const crossChecks = q.samples.filter((x) => x.cross_check?.startsWith('disagrees')).map((x) => `⚠ run ${x.kind} ${x.n}: ${x.cross_check} (headline from query_log)`);
        const reasons = [...new Set(q.samples.flatMap((x) => [...(x.validity?.cold?.reasons ?? []), ...(x.validity?.quiet.reasons ?? [])]).concat(q.stats.warm_validity?.reasons ?? []).concat(crossChecks))];
        vRows.push([q.id + phase, label(c), coldLabel, q.stats.warm_validity?.label ?? 'n/a', quiet, [...new Set(q.samples.map((x) => x.counters_source ?? 'not available'))].join(' / '), reasons.join('; ') || '—']);
      }
  return vRows;
}

/** The section's report.md lines with its table as rows (both renderers'). */
function validityBlocks(ctx: ReportContext): Block[] {
  const { spec, cells, measured: ok } = ctx;
  const hostBusy = busyFlags(cells, spec.concurrency);
  return [
    '## Validity',
    '',
    'Per query and cell: was each cold run cold (from the run\'s counters: mark/uncompressed cache hits, direct-I/O buffers, bytes read from the block device), were all runs quiet (active parts unchanged, no merge or mutation), were warm runs faster than cold. "?" = the counters needed are not available on this target.',
    '',
    { rows: validityRows(ok), summary: 'Validity table (as in report.md): per query and cell, cold, warm, quiet, counters from, reasons' },
    '',
    ...busySection(hostBusy, spec.concurrency),
  ];
}

export const validitySection: ReportSection = {
  id: 'validity',
  title: 'Validity',
  applies: (ctx) => ctx.measured.length > 0,
  markdown: (ctx: ReportContext): string[] => blocksMarkdown(validityBlocks(ctx)),
  html: (ctx: ReportContext) => blocksHtml('validity', validityBlocks(ctx)),
};
