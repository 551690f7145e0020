/**
 * report.md's "Server and host counters during the cell": the difference of `system.events` (and the
 * worker host's /proc/diskstats) between the start and the end of each cell (`result.json`
 * `metrics_delta`), and the host-wide figures that differ a lot between cells. Left out when no cell
 * measured anything.
 */
import markdownTable from 'markdown-table';
import { bytesColumn, countersMissing, hostWideFlags, rowLabel } from '../report-cells';
import { fmtInt } from '../format';
import type { CellResult } from '../../schema/results';
import type { ReportContext, ReportSection } from './section';

export const countersSection: ReportSection = {
  id: 'counters',
  title: 'Server and host counters during the cell',
  applies: (ctx) => ctx.measured.length > 0,
  markdown(ctx: ReportContext): string[] {
    const ok = ctx.measured;
    const label = rowLabel;
    const out: string[] = [];
    out.push(
      '## Server and host counters during the cell',
      '',
      'Difference of `system.events` (and the worker host\'s /proc/diskstats, whole disks, for targets on the worker\'s host) between the start and the end of each cell: load, merges, every query run and index build together. ' +
        '"n/a" = the server does not have the counter, or (on versions whose system.events hides zero counters) it stayed at zero. Host disk figures cover everything on the host. After an OS page-cache drop the server re-reads its own binary (the embedded engine\'s library is ~0.5 GiB), which shows in OSReadBytes and host disk read. InsertedRows includes the server\'s own system-log inserts.',
      '',
    );
    const ev = ['OSReadBytes', 'ReadBufferFromFileDescriptorReadBytes', 'CreatedReadBufferDirectIO', 'CreatedReadBufferOrdinary', 'MarkCacheMisses', 'InsertedRows', 'MergedRows'];
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
    out.push(markdownTable(evRows), '');
    if (ok.some((c) => !c.metrics_delta))
      out.push('"not collected" = no start→end difference was taken: the cell stopped (failed or cancelled) before its end-of-cell snapshot, or the server restarted' + ok.filter((c) => !c.metrics_delta && c.metrics_delta_unavailable).map((c) => `; ${c.cellKey}: ${c.metrics_delta_unavailable}`).join('') + '.', '');
    const hostFlags = hostWideFlags(ok);
    if (hostFlags.length) out.push(...hostFlags.map((f) => `- **⚠ ${f.text}.**`), '');
    return out;
  },
};
