/**
 * The Cells section: per cell its status (a failed cell's error shortened in the table, in full under
 * it), server version, CPUs and memory, host, retries; the table settings not applied, the pinned
 * defaults, the optional settings left out and the settings profiles. Sources: each cell's
 * `result.json` (`provision`, `attempts`, `attempt_log`, `target_restarts`, `settings`), the spec.
 */
import markdownTable from 'markdown-table';
import { h, table, type Raw } from '../html';
import { blocksBody } from './blocks';
import { hasHosts, hostColumn } from '../report-hosts';
import { profileLines } from '../report-grids';
import { defaultsLines, optionalNotAppliedLines, settingsFlag, settingsNotAppliedLines } from '../report-cells';
import { fmtBytes, fmtInt, fmtMs, shortenAtWord } from '../format';
import type { CellResult } from '../../schema/results';
import type { ReportContext, ReportSection } from './section';

/** Most characters of a cell's error shown in the Cells table (report.md and report.html); the full text follows the table. */
export const CELL_ERROR_CHARS = 160;

/**
 * The "retries" cell: steps that needed more than one attempt (figures from those steps come from a
 * retry) with the failure types of their failed attempts, a step that failed (its attempts, its last
 * failure type and whether it was retryable), and server restarts. Sources: `result.json` `attempts`,
 * `attempt_log` (absent in older results: counts only) and `target_restarts`.
 * @returns e.g. `provision ×1 failed: VersionMismatch (not retryable)`, `load ×3 (2 failed: Error)`, or `none`.
 */
export function retries(c: CellResult): string {
  const log = c.attempt_log ?? {};
  const r = Object.entries(c.attempts ?? {}).flatMap(([k, n]) => {
    const recs = log[k] ?? [];
    const failed = recs.filter((a) => a.outcome === 'failed');
    const last = recs.at(-1);
    if (last?.outcome === 'failed')
      return [`${k} ×${n} failed: ${last.failure_type ?? 'error'}${last.retryable === false ? ' (not retryable)' : ''}`];
    if (n <= 1) return [];
    const types = [...new Set(failed.map((a) => a.failure_type ?? 'error'))];
    return [`${k} ×${n}${failed.length ? ` (${failed.length} failed: ${types.join(', ')})` : ''}`];
  });
  const t = (c.target_restarts ?? []).map((x) => `server lost in ${x.step}, provisioned again`);
  return [...r, ...t].join('; ') || 'none';
}

function cellsTable(cells: CellResult[], missing: string[]): Raw {
  const withHosts = hasHosts(cells);
  // As report.md: an error too long for the table is shortened at a word boundary, in full below it.
  const fullErrors: Raw[] = [];
  const rows: (string | Raw)[][] = cells.map((c) => {
    const pv = c.provision;
    const err = c.status === 'failed' && c.error ? shortenAtWord(c.error, CELL_ERROR_CHARS) : null;
    if (err?.cut) fullErrors.push(h`<li>${c.cellKey}: ${c.error!.replace(/\s+/g, ' ').trim()}</li>`);
    const why = err ? `: ${err.text}${err.cut ? ` [error ${fullErrors.length}]` : ''}` : c.status === 'skipped' && c.skip_reason ? `: ${c.skip_reason}` : '';
    return [
      c.cellKey,
      h`<span class="status-${c.status}">${c.status}</span>${why}${settingsFlag(c)}`,
      c.matrix.codec,
      pv?.server.version ?? 'n/a',
      pv?.server.timezone ?? 'n/a',
      pv ? `${pv.server.cpus ?? 'n/a'} / ${fmtBytes(pv.server.memory_bytes)}` : 'n/a',
      pv?.target.provisionedBy ?? 'n/a',
      ...(withHosts ? [hostColumn(c)] : []),
      pv?.server.query_log ?? 'n/a',
      c.load ? `${fmtInt(c.load.rows_in_table)} rows in ${fmtMs(c.load.elapsed_ms)}` : 'n/a',
      c.storage ? `${fmtBytes(c.storage.compressed_bytes)} (${c.storage.ratio === null ? 'n/a' : `${c.storage.ratio.toFixed(2)}×`})` : 'n/a',
      retries(c),
    ];
  });
  for (const k of missing) rows.push([k, 'no result (not run yet, or the run was interrupted)', '', '', '', '', '', ...(withHosts ? [''] : []), '', '', '', '']);
  // report.md's columns (timezone, provisioned by, query_log included) and the codec, load and compressed size.
  const t = table(['cell', 'status', 'codec', 'server version', 'timezone', 'CPUs / memory', 'provisioned by', ...(withHosts ? ['host'] : []), 'query_log', 'load', 'compressed (ratio)', 'retries'], rows);
  return fullErrors.length ? h`${t}<p>Errors in full (as in the cell's <code>result.json</code> <code>error</code>):</p><ol class="errors">${fullErrors}</ol>` : t;
}

/**
 * The lines under the Cells table (markdown; both renderers'): table settings not applied, the pinned
 * defaults (`settings.json` `pinned_defaults`), optional settings left out, the settings profiles and
 * where CPUs/memory came from.
 */
function cellNotes(cells: CellResult[], spec: ReportContext['spec']): string[] {
  const out: string[] = [];
  const unapplied = settingsNotAppliedLines(cells);
  if (unapplied.length) out.push('> **⚠ Table settings not applied** — declared for the cell, but not on its table:', ...unapplied.map((l) => `> - ${l}`), '');
  const pins = defaultsLines(cells);
  if (pins.length) out.push('Defaults each cell ran with (`pinDefaults`; source: `settings.json` `pinned_defaults`):', '', ...pins.map((l) => `- ${l}`), '');
  const optionalLeftOut = optionalNotAppliedLines(cells);
  if (optionalLeftOut.length) out.push('> **Optional settings not applied** — the version lacks them (`settings.optional`):', ...optionalLeftOut.map((l) => `> - ${l}`), '');
  const profiles = profileLines(spec);
  if (profiles.length)
    out.push("Settings profiles (`matrix.settings`; each cell key ends with its profile; applied over the spec's `settings`, as each cell's `settings.json` records):", '', ...profiles.map((l) => `- ${l}`), '');
  if (cells.some((c) => c.provision?.server.cpu_source.startsWith('worker host')))
    out.push('CPUs/memory come from `system.asynchronous_metrics` where the server has them, else from the worker host (same host for embedded/local targets).', '');
  return out;
}

export const cellsSection: ReportSection = {
  id: 'cells',
  title: 'Cells',
  applies: () => true,
  markdown(ctx: ReportContext): string[] {
    const { spec, cells, missing } = ctx;
    const out: string[] = [];
    out.push('## Cells', '');
    const withHosts = hasHosts(cells);
    const rows = [['cell', 'status', 'server version', 'timezone', 'CPUs / memory', 'provisioned by', ...(withHosts ? ['host'] : []), 'query_log', 'retries']];
    // An error too long for the table is shortened at a word boundary and given in full below it.
    const fullErrors: string[] = [];
    for (const c of cells) {
      const p = c.provision;
      const err = c.status === 'failed' && c.error ? shortenAtWord(c.error, CELL_ERROR_CHARS) : null;
      if (err?.cut) fullErrors.push(`${fullErrors.length + 1}. ${c.cellKey}: ${c.error!.replace(/\s+/g, ' ').trim()}`);
      rows.push([
        c.cellKey,
        c.status + (err ? `: ${err.text}${err.cut ? ` [error ${fullErrors.length}]` : ''}` : c.status === 'skipped' && c.skip_reason ? `: ${c.skip_reason}` : '') + settingsFlag(c),
        p?.server.version ?? 'n/a',
        p?.server.timezone ?? 'n/a',
        p ? `${p.server.cpus ?? 'n/a'} / ${fmtBytes(p.server.memory_bytes)}` : 'n/a',
        p?.target.provisionedBy ?? 'n/a',
        ...(withHosts ? [hostColumn(c)] : []),
        p?.server.query_log ?? 'n/a',
        retries(c),
      ]);
    }
    for (const k of missing) rows.push([k, 'no result (not run yet, or the run was interrupted)', '', '', '', '', ...(withHosts ? [''] : []), '', '']);
    out.push(markdownTable(rows), '');
    if (fullErrors.length) out.push('Errors in full (as in the cell\'s `result.json` `error`):', '', ...fullErrors, '');
    out.push(...cellNotes(cells, spec));
    return out;
  },
  html(ctx: ReportContext): Raw {
    const { spec, cells, missing } = ctx;
    return h`<section id="cells"><h2>Cells</h2>${cellsTable(cells, missing)}${blocksBody(cellNotes(cells, spec))}</section>`;
  },
};
