/**
 * The Bottlenecks (this host) section: for each cell whose server ran on the worker's host, the
 * limits applied (`target.resources`, the device and cgroup) beside what the host disk reads
 * unthrottled, which limits the kernel enforced, a flag where an achieved read rate exceeded its
 * limit ("limit did not hold"), and every step window's label with its evidence — all from
 * `metrics-end.json` `local_bottleneck` (`src/measure/cell-bottleneck.ts`), the counters from
 * `counters.jsonl` (the cell cgroup's blkio/cpuacct or io.stat/cpu.stat files, else `/proc/<pid>`).
 *
 * The Bottlenecks (pod counters) section is the same tables for the cells whose counters were scraped
 * over the network (`metrics-end.json` `pod_bottleneck`: a kubernetes pod's cgroup from the node's
 * cAdvisor through the API server's node proxy), judged against the pod's CPU limit and the volume's
 * provisioned rates.
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

/** Which record of `metrics-end.json` a section shows. */
type Field = 'local_bottleneck' | 'pod_bottleneck';

/** Each cell's record `field`, in report order. */
function records(ctx: ReportContext, field: Field): { cell: string; rec: LocalBottleneckRecord }[] {
  const out: { cell: string; rec: LocalBottleneckRecord }[] = [];
  for (const c of ctx.cells) {
    const m = readRecordIfExists(path.join(ctx.dir, 'cells', c.cellKey, 'metrics-end.json'), MetricsSnapshot);
    const rec = m?.[field];
    if (rec) out.push({ cell: c.cellKey, rec });
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

/** The pod section's line: the limits alone (no disk of this host is involved). */
function podLimitsLine(rec: LocalBottleneckRecord): string {
  return rec.limits;
}

/** Whether the limits held: `held` / `limit did not hold: <step> read … MiB/s > … MiB/s` / `no read limit`. */
function heldText(rec: LocalBottleneckRecord): string {
  if (rec.read_limit_bytes_per_s === null && rec.write_limit_bytes_per_s === null) return 'no volume limit';
  const over = rec.steps.filter((s) => s.limit_held === false);
  if (!over.length) return 'held in every window';
  return `limit did not hold: ${over.map((s) => `${s.step} ${num((s.counters?.read_bytes_per_s ?? 0) / MiB)} MiB/s`).join(', ')}`;
}

function summaryRows(
  recs: { cell: string; rec: LocalBottleneckRecord }[],
  line: (rec: LocalBottleneckRecord) => string,
): string[][] {
  return recs.map(({ cell, rec }) => {
    const peak = peakRead(rec);
    return [
      cell,
      line(rec),
      rec.enforcement.join('; '),
      peak ? `${num(peak.bps / MiB)} MiB/s (${peak.step})` : 'n/a',
      heldText(rec),
      rec.source,
    ];
  });
}

const SUMMARY_HEAD = ['cell', 'limits; host disk unthrottled', 'enforced', 'highest read of a step', 'limits', 'counters'];
const POD_SUMMARY_HEAD = ['cell', 'limits', 'enforced', 'highest read of a step', 'limits held', 'counters'];
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

function podMethod(rec: LocalBottleneckRecord): string {
  const t = rec.thresholds;
  return (
    'Per step window (the same windows as on this host\'s cells), from the pod cgroup\'s cumulative counters as the node\'s cAdvisor serves them through the API server\'s node proxy (`GET /api/v1/nodes/<node>/proxy/metrics/cadvisor`: `container_cpu_usage_seconds_total`, `container_fs_reads_bytes_total` / `container_fs_writes_bytes_total` summed over devices), one request per sample at every statement\'s start and end and every 0.5 s (`counters.jsonl`, each sample with its request\'s round trip). ' +
    'A window is measured between the last sample requested at or before its start and the first requested at or after its end; rates divide the differences by the time between the two readings (the exposition\'s timestamps, else the middle of each request). ' +
    'Two samples with identical counters, or readings covering less than half the window, are "not enough samples: counters not refreshed" (cAdvisor refreshes per housekeeping interval), never "neither". ' +
    `Labels (\`labelLocalWindow\`): disk-bound at ${Math.round(t.disk_utilisation * 100)} % of the volume's provisioned throughput (StorageClass parameters; enforced by the volume, not by chbench); CPU-bound at ${t.cpu_pct} % of the pod's CPU limit (or of the node's cores when it has fewer); both: the larger share. ` +
    `A window whose bytes exceed the volume's rate × seconds by more than ${Math.round(t.tolerance * 100)} % plus one 100 ms slice is flagged "limit did not hold" (a volume that is not the provisioned one, e.g. a simulated cluster's local disk).`
  );
}

/** A Bottlenecks section over one record field of `metrics-end.json`. */
function bottleneckSection(o: {
  id: string;
  title: string;
  field: Field;
  head: string[];
  line: (rec: LocalBottleneckRecord) => string;
  method: (rec: LocalBottleneckRecord) => string;
}): ReportSection {
  const caption = (rec: LocalBottleneckRecord) =>
    `${o.line(rec)} (${rec.host_capacity_source}${rec.failed_samples ? `; ${rec.failed_samples.count} sample request(s) failed, first: ${rec.failed_samples.first}` : ''}).`;
  return {
    id: o.id,
    title: o.title,
    applies: (ctx) => records(ctx, o.field).length > 0,
    markdown(ctx: ReportContext): string[] {
      const recs = records(ctx, o.field);
      if (!recs.length) return [];
      const out = [`## ${o.title}`, '', o.method(recs[0]!.rec), '', markdownTable([o.head, ...summaryRows(recs, o.line)]), ''];
      for (const { cell, rec } of recs) {
        out.push(`### ${cell}`, '', caption(rec), '');
        out.push(markdownTable([STEP_HEAD, ...rec.steps.map(stepRow)]), '');
        if (rec.untimed_steps.length) out.push(`No window: ${rec.untimed_steps.join('; ')}.`, '');
      }
      return out;
    },
    html(ctx: ReportContext): Raw {
      const recs = records(ctx, o.field);
      if (!recs.length) return h``;
      return h`<section id="${o.id}"><h2>${o.title}</h2><p>${o.method(recs[0]!.rec)}</p>${table(o.head, summaryRows(recs, o.line))}${recs.map(
        ({ cell, rec }) =>
          h`<h3>${cell}</h3><p>${caption(rec)}</p>${table(STEP_HEAD, rec.steps.map(stepRow))}${
            rec.untimed_steps.length ? notesList(rec.untimed_steps) : ''
          }`,
      )}</section>`;
    },
  };
}

/** Bottlenecks (this host): `local_bottleneck` of the cells whose server ran on the worker's host. */
export const bottlenecksSection: ReportSection = bottleneckSection({
  id: 'bottlenecks',
  title: 'Bottlenecks (this host)',
  field: 'local_bottleneck',
  head: SUMMARY_HEAD,
  line: limitsLine,
  method,
});

/** Bottlenecks (pod counters): `pod_bottleneck` of the cells whose pod cgroup was scraped through cAdvisor. */
export const podBottlenecksSection: ReportSection = bottleneckSection({
  id: 'pod-bottlenecks',
  title: 'Bottlenecks (pod counters)',
  field: 'pod_bottleneck',
  head: POD_SUMMARY_HEAD,
  line: podLimitsLine,
  method: podMethod,
});
