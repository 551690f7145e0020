/**
 * The "After the load" section of report.md and report.html: per cell and after-load statement, its file, client wall and server
 * elapsed and what was waited for (`after-load.json`); only when a measured cell ran such statements.
 */
import { msColumn, rowLabel } from '../report-cells';
import { blocksHtml, blocksMarkdown, type Block } from './blocks';
import type { CellResult } from '../../schema/results';
import type { ReportContext, ReportSection } from './section';

/**
 * The "After the load" section (markdown lines), or none when no cell ran after-load statements: per
 * cell and statement, its file, client wall and server elapsed (with their sources) and what was waited
 * for. Source: each cell's `after-load.json`.
 */
export function afterLoadSection(cells: CellResult[], label: (c: CellResult) => string): string[] {
  return blocksMarkdown(afterLoadBlocks(cells, label));
}

/** {@link afterLoadSection}'s lines with its table as rows (report.md's and report.html's). */
function afterLoadBlocks(cells: CellResult[], label: (c: CellResult) => string): Block[] {
  const withAl = cells.filter((c) => c.after_load?.statements.length);
  if (!withAl.length) return [];
  const all = withAl.flatMap((c) => c.after_load!.statements);
  const ms = msColumn(all.flatMap((s) => [s.elapsed_ms, s.server_elapsed_ms, s.wait_result?.waited_ms]));
  const rows = [['cell', '#', 'statement (file)', 'elapsed (client wall)', 'server elapsed', 'wait', 'waited (client wall)', 'note']];
  for (const c of withAl)
    for (const s of c.after_load!.statements)
      rows.push([
        label(c),
        String(s.n),
        `\`${s.file}\``,
        ms(s.elapsed_ms ?? null),
        ms(s.server_elapsed_ms ?? null),
        s.wait === 'none' ? 'none' : `${s.wait}${s.wait_result ? ` (${s.wait_result.mutations.length} mutation(s))` : ''}`,
        s.wait === 'none' ? 'n/a' : ms(s.wait_result?.waited_ms ?? null),
        s.status !== 'done' ? `⚠ ${s.status}` : s.applied_by_earlier_attempt ? 'sent by an earlier attempt (not sent again; not timed)' : '',
      ]);
  const sources = [...new Set(all.map((s) => s.server_elapsed_source).filter(Boolean))].map((x) => `\`${x}\``);
  return [
    '## After the load',
    '',
    `The workload's after-load statements, run in order on the loaded, quiet table before storage and queries (\`after-load.json\`). Elapsed = client wall time of the statement; server elapsed from ${sources.join(' / ') || 'n/a'}; waited = client wall time polling \`system.mutations\` (and \`system.merges\`) until nothing ran.`,
    '',
    { rows, summary: 'After-load table (as in report.md): per cell and statement, client wall and server elapsed, what was waited for, from after-load.json' },
    '',
  ];
}

export const afterLoadReportSection: ReportSection = {
  id: 'after-load',
  title: 'After the load',
  applies: (ctx) => ctx.measured.some((c) => c.after_load?.statements.length),
  markdown: (ctx: ReportContext): string[] => afterLoadSection(ctx.measured, rowLabel),
  html: (ctx: ReportContext) => blocksHtml('after-load', afterLoadBlocks(ctx.measured, rowLabel)),
};
