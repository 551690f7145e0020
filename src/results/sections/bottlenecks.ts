/**
 * The Bottlenecks (this host) section: for each cell whose server ran on the worker's host, the
 * limits applied (`target.resources`, the device and cgroup) beside what the host disk reads
 * unthrottled, which limits the kernel enforced, a flag where an achieved read rate exceeded its
 * limit ("limit did not hold"), and every step window's label with its evidence — all from
 * `metrics-end.json` `local_bottleneck` (`src/measure/cell-bottleneck.ts`), the counters from
 * `counters.jsonl` (the cell cgroup's blkio/cpuacct or io.stat/cpu.stat files, else `/proc/<pid>`).
 */
import path from 'node:path';
import markdownTable from 'markdown-table';
import { readRecordIfExists } from '../store';
import { MetricsSnapshot, type LocalBottleneckRecord, type LocalStepLabel } from '../../schema/results';
import { h, notesList, table, type Raw } from '../html';
import type { ReportContext, ReportSection } from './section';

const MiB = 1024 * 1024;

const num = (x: number): string =>
  x >= 100 ? Math.round(x).toLocaleString('en-US') : x >= 10 ? x.toFixed(1) : x.toFixed(2);

/** Each cell's `local_bottleneck`, in report order. */
function records(ctx: ReportContext): { cell: string; rec: LocalBottleneckRecord }[] {
  const out: { cell: string; rec: LocalBottleneckRecord }[] = [];
  for (const c of ctx.cells) {
    const m = readRecordIfExists(path.join(ctx.dir, 'cells', c.cellKey, 'metrics-end.json'), MetricsSnapshot);
    if (m?.local_bottleneck) out.push({ cell: c.cellKey, rec: m.local_bottleneck });
  }
  return out;
}

/** The highest achieved read rate of the cell's windows other than the whole cell, bytes/s, and its step. */
function peakRead(rec: LocalBottleneckRecord): { step: string; bps: number } | undefined {
  let best: { step: string; bps: number } | undefined;
  for (const s of rec.steps)
    if (s.step !== 'cell' && s.counters && (!best || s.counters.read_bytes_per_s > best.bps))
      best = { step: s.step, bps: s.counters.read_bytes_per_s };
  return best;
}

/** One line: `gp3 emulated: 125 MiB/s, … on vda (254:0), cgroup v1 blkio; host disk unthrottled: 412 MiB/s`. */
export function limitsLine(rec: LocalBottleneckRecord): string {
  const host = rec.host_read_bytes_per_s === null ? 'not measured' : `${num(rec.host_read_bytes_per_s / MiB)} MiB/s`;
  return `${rec.limits}; host disk unthrottled: ${host}`;
}

/** Whether the limits held: `held` / `limit did not hold: <step> read … MiB/s > … MiB/s` / `no read limit`. */
function heldText(rec: LocalBottleneckRecord): string {
  if (rec.read_limit_bytes_per_s === null && rec.write_limit_bytes_per_s === null) return 'no volume limit';
  const over = rec.steps.filter((s) => s.limit_held === false);
  if (!over.length) return 'held in every window';
  return `limit did not hold: ${over.map((s) => `${s.step} ${num((s.counters?.read_bytes_per_s ?? 0) / MiB)} MiB/s`).join(', ')}`;
}

function summaryRows(recs: { cell: string; rec: LocalBottleneckRecord }[]): string[][] {
  return recs.map(({ cell, rec }) => {
    const peak = peakRead(rec);
    return [
      cell,
      limitsLine(rec),
      rec.enforcement.join('; '),
      peak ? `${num(peak.bps / MiB)} MiB/s (${peak.step})` : 'n/a',
      heldText(rec),
      rec.source,
    ];
  });
}

const SUMMARY_HEAD = ['cell', 'limits; host disk unthrottled', 'enforced', 'highest read of a step', 'limits', 'counters'];
const STEP_HEAD = ['step', 'window', 'read', 'write', 'CPU', 'label', 'evidence'];

function stepRow(s: LocalStepLabel): string[] {
  const secs = (Date.parse(s.finished_at) - Date.parse(s.started_at)) / 1000;
  const c = s.counters;
  return [
    s.step,
    `${s.started_at.slice(11, 23)}–${s.finished_at.slice(11, 23)} UTC (${secs.toFixed(3)} s)`,
    c ? `${num(c.read_bytes_per_s / MiB)} MiB/s` : '—',
    c ? `${num(c.write_bytes_per_s / MiB)} MiB/s` : '—',
    c ? `${num(c.cores_used)} cores` : '—',
    s.label + (s.limit_held === false ? ' (limit did not hold)' : ''),
    s.evidence,
  ];
}

function method(rec: LocalBottleneckRecord): string {
  const t = rec.thresholds;
  return (
    'Per step window (the cloud step\'s windows: load, each quiesce, per query its cold and warm runs, the query phases, index build, the whole cell), from the server\'s cumulative counters sampled at every statement\'s start and end and every 0.5 s during the cell\'s steps (`counters.jsonl`): ' +
    'a cell with `target.resources` reads its cgroup (v1 `blkio.throttle.io_service_bytes` on the data disk and `cpuacct.usage`; v2 `io.stat` and `cpu.stat`), other cells `/proc/<pid>/io` read_bytes/write_bytes and `/proc/<pid>/stat` CPU ticks of the server and its children; host CPU from `/proc/stat`. ' +
    'A window is measured between the last sample at or before its start and the first at or after its end; rates divide the differences by the time between those samples. ' +
    `Labels (\`labelLocalWindow\`): disk-bound at ${Math.round(t.disk_utilisation * 100)} % of the read (or, where enforced, write) limit or of the host disk's unthrottled read rate; CPU-bound at ${t.cpu_pct} % of the CPU limit, or of the host's cores by the server's own use or the host's busy share (all processes, as CloudWatch's instance CPU); both: the larger of the disk's and the server's own CPU share. ` +
    `A window whose bytes exceed its read limit × seconds by more than ${Math.round(t.tolerance * 100)} % plus one 100 ms throttle slice is flagged "limit did not hold" (a shorter excess is the throttle's first slice, said in the evidence). Host disk unthrottled: a direct-I/O read (\`dd iflag=direct\`) measured once per host and device.`
  );
}

export const bottlenecksSection: ReportSection = {
  id: 'bottlenecks',
  title: 'Bottlenecks (this host)',
  applies: (ctx) => records(ctx).length > 0,
  markdown(ctx: ReportContext): string[] {
    const recs = records(ctx);
    if (!recs.length) return [];
    const out = ['## Bottlenecks (this host)', '', method(recs[0]!.rec), '', markdownTable([SUMMARY_HEAD, ...summaryRows(recs)]), ''];
    for (const { cell, rec } of recs) {
      out.push(`### ${cell}`, '', `${limitsLine(rec)} (${rec.host_capacity_source}).`, '');
      out.push(markdownTable([STEP_HEAD, ...rec.steps.map(stepRow)]), '');
      if (rec.untimed_steps.length) out.push(`No window: ${rec.untimed_steps.join('; ')}.`, '');
    }
    return out;
  },
  html(ctx: ReportContext): Raw {
    const recs = records(ctx);
    if (!recs.length) return h``;
    return h`<section id="bottlenecks"><h2>Bottlenecks (this host)</h2><p>${method(recs[0]!.rec)}</p>${table(SUMMARY_HEAD, summaryRows(recs))}${recs.map(
      ({ cell, rec }) =>
        h`<h3>${cell}</h3><p>${limitsLine(rec)} (${rec.host_capacity_source}).</p>${table(STEP_HEAD, rec.steps.map(stepRow))}${
          rec.untimed_steps.length ? notesList(rec.untimed_steps) : ''
        }`,
    )}</section>`;
  },
};
