/**
 * The Kubernetes, Cloud metrics and Cost sections of report.md and report.html: shown when a cell has Kubernetes facts
 * (`provision.json` target.kubernetes) or `cloud-metrics.json`. Every figure names its source
 * (the Kubernetes API, EC2 DescribeVolumes, CloudWatch GetMetricData, `cost.json`).
 */
import path from 'node:path';
import { existsSync } from 'node:fs';
import { readRecordIfExists } from '../store';
import { CellCostRecord, CloudMetricsRecord, RunCostRecord, type CellResult, type CloudStepRecord, type RunRecord } from '../../schema/results';
import { blocksHtml, blocksMarkdown, type Block } from './blocks';
import type { ReportContext, ReportSection } from './section';

/** A figure with its unit, or `no data` when CloudWatch had none (never 0 for "no data"). */
function fig(x: number | null, unit: string): string {
  if (x === null) return 'no data';
  const v = x >= 100 ? Math.round(x).toLocaleString('en-US') : x >= 10 ? x.toFixed(1) : x.toFixed(2);
  return unit ? `${v} ${unit}` : v;
}

/** `12:05:00–12:08:00 UTC` (same day) from two ISO times. */
function span(a: string, b: string): string {
  return `${a.slice(11, 19)}–${b.slice(11, 19)} UTC`;
}

function cloudRow(s: CloudStepRecord): string[] {
  if (!s.attributable || !s.window || !s.figures) {
    const secs = (Date.parse(s.finished_at) - Date.parse(s.started_at)) / 1000;
    return [s.step, `${span(s.started_at, s.finished_at)} (${secs.toFixed(1)} s)`, '—', '—', '—', '—', '—', 'not attributable', s.reason ?? ''];
  }
  const f = s.figures;
  const w = s.window;
  const d = s.datapoints;
  const count = (id: string) => (id in d ? `${d[id]}` : 'n/a');
  return [
    s.step,
    `${span(w.start, w.end)} (${w.periods} × ${w.period_s} s${w.partial ? ', partial: newest minute not final' : ''})`,
    fig(f.read_mib_s, 'MiB/s'),
    fig(f.write_mib_s, 'MiB/s'),
    `${fig(f.read_iops, '')} / ${fig(f.write_iops, '')}`,
    f.cpu_pct === null ? 'no data' : `${fig(f.cpu_pct, '%')} (max ${fig(f.cpu_max_pct, '%')})`,
    `volume ${count('vol_read_bytes')}/${w.periods}, instance ${count('cpu_avg')}/${w.periods}`,
    s.label ?? 'unknown',
    s.evidence ?? '',
  ];
}

/**
 * The Kubernetes, Cloud metrics and Cost sections: shown when a cell has Kubernetes facts
 * (`provision.json` target.kubernetes) or `cloud-metrics.json`. Every figure names its source.
 * Tables as their rows ({@link Block}), for both renderers.
 */
function cloudSections(dir: string, run: RunRecord, cells: CellResult[]): Block[] {
  const cellsDir = path.join(dir, 'cells');
  const metrics = new Map<string, CloudMetricsRecord>();
  const costs = new Map<string, CellCostRecord>();
  for (const c of cells) {
    const m = readRecordIfExists(path.join(cellsDir, c.cellKey, 'cloud-metrics.json'), CloudMetricsRecord);
    if (m) metrics.set(c.cellKey, m);
    const k = readRecordIfExists(path.join(cellsDir, c.cellKey, 'cost.json'), CellCostRecord);
    if (k) costs.set(c.cellKey, k);
  }
  const kube = cells.filter((c) => c.provision?.target.kubernetes || metrics.has(c.cellKey));
  if (!kube.length) return [];
  const out: Block[] = [];

  out.push(
    '## Kubernetes',
    '',
    'Pod, node, instance type (node label `node.kubernetes.io/instance-type`), zone (`topology.kubernetes.io/zone`), EC2 instance (node `spec.providerID`) and EBS volume (PV `spec.csi.volumeHandle`): read from the Kubernetes API at provisioning (`provision.json`). Volume type, size, IOPS and throughput: `EC2 DescribeVolumes` (`VolumeType`, `Size`, `Iops`, `Throughput`) at collection, unless the source column says otherwise.',
    '',
  );
  const kr = [['cell', 'pod', 'node', 'instance', 'instance type', 'zone', 'volume', 'type / size / IOPS / throughput', 'volume for this pod', 'volume facts from']];
  for (const c of kube) {
    const k = c.provision?.target.kubernetes;
    const r = metrics.get(c.cellKey)?.resources;
    const v = r?.volume;
    kr.push([
      c.cellKey,
      k ? `${k.namespace}/${k.pod}` : 'n/a',
      k?.node ?? 'n/a',
      r?.instance.instance_id ?? k?.providerID ?? 'n/a',
      r?.instance.type ?? k?.instanceType ?? 'n/a',
      r?.instance.zone ?? k?.zone ?? 'n/a',
      v?.volume_id ?? k?.volumeHandle ?? 'n/a',
      v
        ? `${v.type ?? 'n/a'} / ${v.size_gib === null ? 'n/a' : `${fig(v.size_gib, 'GiB')}`} / ${v.iops === null ? 'n/a' : fig(v.iops, 'IOPS')} / ${v.throughput_mib_s === null ? 'n/a' : fig(v.throughput_mib_s, 'MiB/s')}`
        : k
          ? `not described (PVC request ${k.storageRequest}, StorageClass ${k.storageClass})`
          : 'n/a',
      k ? k.volume + (k.volumeNote ? ` (${k.volumeNote})` : '') : 'n/a',
      v ? v.source : 'not collected',
    ]);
  }
  out.push({ rows: kr }, '');
  const lim = [...metrics.values()].map((m) => ({ t: m.resources.instance.type, l: m.resources.instance_limits })).find((x) => x.l);
  if (lim?.l)
    out.push(
      `Instance EBS limits (${lim.t}): baseline ${lim.l.baseline_mb_s} MB/s, ${lim.l.baseline_iops.toLocaleString('en-US')} IOPS; burst ${lim.l.maximum_mb_s} MB/s, ${lim.l.maximum_iops.toLocaleString('en-US')} IOPS (source: ${lim.l.source}).`,
      '',
    );

  out.push('## Cloud metrics', '');
  const any = [...metrics.values()][0];
  if (!any) {
    out.push(
      run.spec.cloud
        ? 'Not collected: no cell has a `cloud-metrics.json` (the collection step failed or did not run; see the run in Temporal).'
        : 'Not collected: the run spec has no `cloud` section.',
      '',
    );
  } else {
    out.push(
      `Per step window, from CloudWatch \`GetMetricData\` (${any.region}, period ${any.period_s} s, full dimensions \`VolumeId\` / \`InstanceId\`, read ${any.settle_ms / 1000} s or more after the window's last minute so its figures are final). ` +
        'Read/write = `AWS/EBS VolumeReadBytes` / `VolumeWriteBytes` Sum ÷ seconds of the periods that have data; IOPS = `AWS/EBS VolumeReadOps` / `VolumeWriteOps` Sum ÷ the same seconds; CPU = `AWS/EC2 CPUUtilization` Average (mean of the periods) and Maximum; datapoints = periods with a `VolumeReadBytes` / `CPUUtilization` point of those asked for. ' +
        'Windows are the steps\' own wall-clock times (`started_at`/`finished_at` in the step records) rounded out to whole periods; a step shorter than one period shares its minute with its neighbours and gets no figures. "no data" = CloudWatch returned no data point (not zero). ' +
        `Labels (\`labelBottleneck\`): disk-bound at ${Math.round(any.thresholds.disk_utilisation * 100)} % of the lowest of the volume's and the instance's throughput/IOPS limits or a burst balance ≤ ${any.thresholds.balance_pct} %; CPU-bound at a mean CPU ≥ ${any.thresholds.cpu_pct} %; neither needs both sides measured, else unknown.`,
      '',
    );
    for (const c of kube) {
      const m = metrics.get(c.cellKey);
      if (!m) {
        out.push(`### ${c.cellKey}`, '', 'Not collected for this cell.', '');
        continue;
      }
      out.push(`### ${c.cellKey}`, '');
      const rows = [['step', 'window', 'read', 'write', 'IOPS read / write', 'CPU', 'datapoints', 'label', 'evidence']];
      for (const s of m.steps) rows.push(cloudRow(s));
      out.push({ rows }, '');
      if (m.untimed_steps.length)
        out.push(`No window (the record has no wall-clock times, written by an older chbench): ${m.untimed_steps.join('; ')}.`, '');
      if (m.partial) out.push('**Partial:** some windows were read before their newest minute was final.', '');
    }
  }

  out.push('## Cost', '');
  if (!costs.size) {
    out.push('Not computed (no `cost.json`).', '');
    return out;
  }
  const sources = [...new Set([...costs.values()].map((k) => k.price_source))];
  const held = [...new Set([...costs.values()].map((k) => `${k.held.from_source} → ${k.held.to_source}`))];
  out.push(
    `Instance: on-demand $/h × hours held; volume: GB-month price × GiB × hours held ÷ 730, plus provisioned IOPS and MiB/s above the included ones at their monthly prices. Time held: ${held.join('; ')}. Prices: ${sources.join('; ')}. Shown to the cent from $1 and to a hundredth of a cent below; the run total is the sum of the unrounded cells.`,
    '',
  );
  const cr = [['cell', 'held', 'instance', 'storage', 'IOPS above baseline', 'throughput above baseline', 'total']];
  for (const [cell, k] of costs)
    cr.push([cell, `${(k.held.ms / 3_600_000).toFixed(4)} h`, usdText(k.instance_usd), usdText(k.storage_usd), usdText(k.iops_usd), usdText(k.throughput_usd), usdText(k.total_usd)]);
  const runCost = readRecordIfExists(path.join(dir, 'cost.json'), RunCostRecord);
  if (runCost) cr.push(['**run total**', '', '', '', '', '', `**${usdText(runCost.total_usd)}**`]);
  out.push({ rows: cr }, '');
  for (const [cell, k] of costs) out.push(`- ${cell}: ${k.lines.join('; ')}`);
  out.push('');
  return out;
}

/** USD to the cent from $1, to a hundredth of a cent below (as `usd` in src/cloud/cost.ts); `n/a` (unknown price) for null. */
function usdText(x: number | null): string {
  if (x === null) return 'n/a';
  return Math.abs(x) < 1 ? `$${x.toFixed(4)}` : `$${(Math.round(x * 100) / 100).toFixed(2)}`;
}

export const cloudSection: ReportSection = {
  id: 'cloud',
  title: 'Kubernetes, Cloud metrics and Cost',
  applies: (ctx) => ctx.cells.some((c) => c.provision?.target.kubernetes || existsSync(path.join(ctx.dir, 'cells', c.cellKey, 'cloud-metrics.json'))),
  markdown: (ctx: ReportContext): string[] => blocksMarkdown(cloudSections(ctx.dir, ctx.run, ctx.cells)),
  html: (ctx: ReportContext) => blocksHtml('cloud', cloudSections(ctx.dir, ctx.run, ctx.cells)),
};
