/**
 * The Ingest section: per cell with a load, rows by `SELECT count()`, client wall and server elapsed
 * of the load INSERT, rows/s, partitions, active parts and the load's verification (`load.json`).
 * report.md leaves it out when no cell measured anything; report.html shows it collapsed, empty then.
 */
import markdownTable from 'markdown-table';
import { detailsTable, h, type Raw } from '../html';
import { loadSources, msColumn, rowLabel } from '../report-cells';
import { fmtInt } from '../format';
import type { CellResult } from '../../schema/results';
import { inline } from './blocks';
import type { ReportContext, ReportSection } from './section';

/**
 * The Ingest table (header row first) of report.md and report.html: per cell with a load, rows by
 * `SELECT count()`, client wall and server elapsed of the INSERT (source: `load.json`), rows/s,
 * partitions, active parts and the load's verification. Cells in the order given (matrix order).
 */
export function ingestRows(ok: CellResult[], label: (c: CellResult) => string = rowLabel): string[][] {
  const ing = [['cell', 'rows (count())', 'elapsed (client wall)', 'server elapsed', 'rows/s', 'partitions', 'active parts', 'verified', 'note']];
  const ingMs = msColumn(ok.map((c) => c.load?.elapsed_ms));
  const ingServerMs = msColumn(ok.map((c) => c.load?.server_elapsed_ms));
  for (const c of ok) {
    const l = c.load;
    if (!l) continue;
    const vf = l.verification;
    const verified = vf ? `${vf.rows_equal_scale ? '= scale' : '⚠ ≠ scale'}; ${vf.written_rows_check.startsWith('MISMATCH') ? `⚠ ${vf.written_rows_check}` : vf.written_rows_check.startsWith('not') ? 'written_rows n/a' : vf.written_rows_check.startsWith('differs') ? 'written_rows ≠ count(), explained (load.json)' : 'written_rows = count()'}; dedup blocks ${vf.duplicated_inserted_blocks ?? 'n/a'}` : 'n/a';
    ing.push([label(c), fmtInt(l.rows_in_table), ingMs(l.elapsed_ms), ingServerMs(l.server_elapsed_ms, /query_duration_ms/.test(l.server_elapsed_source ?? '') ? 1 : null), fmtInt(l.rows_per_s), fmtInt(l.partitions), fmtInt(l.active_parts), verified, l.truncated_before_load ? `reloaded after finding ${fmtInt(l.truncated_before_load.rows_found)} rows` : '']);
  }
  return ing;
}

/** The line under the Ingest heading (markdown; both renderers'): how the load ran and where its times come from (`load.json` `sql`, `server_elapsed_source`). */
function ingestIntro(ok: CellResult[]): string {
  const gen = loadSources(ok);
  return (
    `Server-side generation by the load \`INSERT … SELECT\` as sent (\`load.json\` \`sql\`)${gen.length ? `, reading ${gen.map((x) => `\`${x}\``).join(' / ')}` : ''}: no network or parsing cost. Elapsed = client wall time of the INSERT statement (rows/s uses it); server elapsed from ` + ([...new Set(ok.map((c) => c.load?.server_elapsed_source).filter(Boolean))].map((x) => `\`${x}\``).join(' / ') || 'n/a') + '. Rows = `SELECT count()` after loading.'
  );
}

export const ingestSection: ReportSection = {
  id: 'ingest',
  title: 'Ingest',
  applies: () => true,
  markdown(ctx: ReportContext): string[] {
    const ok = ctx.measured;
    if (!ok.length) return [];
    const label = rowLabel;
    const out: string[] = [];
    out.push('## Ingest', '', ingestIntro(ok), '');
    const ing = ingestRows(ok, label);
    out.push(markdownTable(ing), '');
    return out;
  },
  html: (ctx: ReportContext): Raw =>
    h`<section id="ingest"><h2>Ingest</h2>${ctx.measured.length ? h`<p>${inline(ingestIntro(ctx.measured))}</p>` : ''}${detailsTable('Ingest table (as in report.md): rows by count(), client wall and server elapsed of the INSERT, from load.json', ingestRows(ctx.measured))}</section>`,
};
