/**
 * The "Server and host counters during the cell" section: the difference of `system.events` (and
 * the worker host's /proc/diskstats) between the start and the end of each cell (`result.json`
 * `metrics_delta`), and the host-wide figures that differ a lot between cells. Left out when no cell
 * measured anything; on report.html as in report.md, its table collapsed.
 */
import { bytesColumn, countersMissing, hostWideFlags, rowLabel } from '../report-cells';
import { fmtInt } from '../format';
import { blocksHtml, blocksMarkdown, type Block } from './blocks';
import type { CellResult } from '../../schema/results';
import type { ReportContext, ReportSection } from './section';

/** The `system.events` counters of the table, in its column order. */
const EVENTS = ['OSReadBytes', 'ReadBufferFromFileDescriptorReadBytes', 'CreatedReadBufferDirectIO', 'CreatedReadBufferOrdinary', 'MarkCacheMisses', 'InsertedRows', 'MergedRows'];

/**
 * The counters table, header first: per cell (in the order given) the end − start difference of each
 * of {@link EVENTS} (`metrics_delta.server_events`, from `system.events`) and the bytes read and
 * written on the host's whole disks (`metrics_delta.host_disks`, /proc/diskstats); "not collected"
 * (`countersMissing`) for a cell without a difference.
 */
export function countersRows(ok: CellResult[], label: (c: CellResult) => string = rowLabel): string[][] {
  const ev = EVENTS;
  const evRows = [['cell', ...ev, 'host disk read', 'host disk written']];
  const diskSum = (c: CellResult, k: 'read_bytes' | 'write_bytes') => (c.metrics_delta?.host_disks ? Object.values(c.metrics_delta.host_disks).reduce((a, x) => a + x[k], 0) : null);
  const diskRead = bytesColumn(ok.map((c) => diskSum(c, 'read_bytes')));
  const diskWritten = bytesColumn(ok.map((c) => diskSum(c, 'write_bytes')));
  for (const c of ok) {
    const d = c.metrics_delta;
    if (!d) {
      // Not "the server lacks the counter": the end snapshot was never taken (why: countersMissing).
      evRows.push([label(c), ...ev.map(() => countersMissing(c)), countersMissing(c), countersMissing(c)]);
      continue;
    }
    evRows.push([label(c), ...ev.map((k) => fmtInt(d.server_events[k] ?? null)), diskRead(diskSum(c, 'read_bytes')), diskWritten(diskSum(c, 'write_bytes'))]);
  }
  return evRows;
}

/** The section's report.md lines with its table as rows (both renderers'). */
function countersBlocks(ctx: ReportContext): Block[] {
  const ok = ctx.measured;
  const out: Block[] = [];
  out.push(
    '## Server and host counters during the cell',
    '',
    'Difference of `system.events` (and the worker host\'s /proc/diskstats, whole disks, for targets on the worker\'s host) between the start and the end of each cell: load, merges, every query run and index build together. ' +
      '"n/a" = the server does not have the counter, or (on versions whose system.events hides zero counters) it stayed at zero. Host disk figures cover everything on the host. After an OS page-cache drop the server re-reads its own binary (the embedded engine\'s library is ~0.5 GiB), which shows in OSReadBytes and host disk read. InsertedRows includes the server\'s own system-log inserts.',
    '',
  );
  out.push({ rows: countersRows(ok), summary: 'Counters table (as in report.md): system.events and host disks, end − start of each cell' }, '');
  if (ok.some((c) => !c.metrics_delta))
    out.push('"not collected" = no start→end difference was taken: the cell stopped (failed or cancelled) before its end-of-cell snapshot, or the server restarted' + ok.filter((c) => !c.metrics_delta && c.metrics_delta_unavailable).map((c) => `; ${c.cellKey}: ${c.metrics_delta_unavailable}`).join('') + '.', '');
  const hostFlags = hostWideFlags(ok);
  if (hostFlags.length) out.push(...hostFlags.map((f) => `- **⚠ ${f.text}.**`), '');
  return out;
}

export const countersSection: ReportSection = {
  id: 'counters',
  title: 'Server and host counters during the cell',
  applies: (ctx) => ctx.measured.length > 0,
  markdown: (ctx: ReportContext): string[] => blocksMarkdown(countersBlocks(ctx)),
  html: (ctx: ReportContext) => blocksHtml('counters', countersBlocks(ctx)),
};
