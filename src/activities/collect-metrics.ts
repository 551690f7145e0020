/**
 * collectMetrics: snapshot the server's cumulative counters (`system.events`) and the worker host's
 * disk and CPU counters (`/proc/diskstats`, `/proc/stat`, only for a target whose capabilities say it runs on the worker's host), so a cell's
 * result can show how much was read from disk and whether a run was disk- or CPU-bound.
 * Called at the start and the end of a cell; the cell result keeps the difference. The end snapshot of
 * a cell whose server runs on this host also labels every step window disk-bound / CPU-bound /
 * neither from the server's counter samples (`local_bottleneck`, `src/measure/cell-bottleneck.ts`); a
 * cell whose target scrapes its server's counters over the network (a kubernetes pod's cgroup through
 * cAdvisor) gets the same labels as `pod_bottleneck`.
 * The readers: src/clickhouse/events.ts `readEventsSnapshot`, src/process/host-counters.ts.
 */
import path from 'node:path';
import { readEventsSnapshot } from '../clickhouse/events';
import { isLoopbackUrl } from '../lib/net';
import { otherChbenchServers, scrapedCountersOf } from '../targets';
import { hostActivity, readDataDisk, readHostSnapshot } from '../process/host-counters';
import { MetricsSnapshot } from '../schema/results';
import { cellLocalBottleneck, cellScrapedBottleneck } from '../measure/cell-bottleneck';
import type { StepContext } from './step-context';

export { readDataDisk } from '../process/host-counters';

/**
 * `local_bottleneck` of the end snapshot (`cellLocalBottleneck`), the host disk's capacity cached in
 * the worker's work directory (the parent of the run's server directories); a failure is recorded in
 * the snapshot's place as an absent record, never failing the step.
 */
function localBottleneck(ctx: StepContext, dataDir: string): Pick<MetricsSnapshot, 'local_bottleneck'> {
  const stateDir = path.dirname(path.dirname(dataDir));
  const rec = cellLocalBottleneck(ctx.dir, (ctx.cell.target as { resources?: unknown }).resources, dataDir, stateDir);
  return rec ? { local_bottleneck: rec } : {};
}

/**
 * `pod_bottleneck` of the end snapshot (`cellScrapedBottleneck`) for a target whose `scrapedCounters`
 * verb gives the server's counters and capacity; absent otherwise.
 */
function podBottleneck(ctx: StepContext): Pick<MetricsSnapshot, 'pod_bottleneck'> {
  const scraped = scrapedCountersOf(ctx.target, ctx.cell.target);
  if (!scraped) return {};
  const rec = cellScrapedBottleneck(ctx.dir, scraped.capacity);
  return rec ? { pod_bottleneck: rec } : {};
}

/** Activity factory. */
export function createCollectMetrics(deps: { workDir?: string } = {}) {
  return {
    /** Take a snapshot; writes `metrics-<label>.json`. @returns the file name. */
    async collectMetrics(ctx: StepContext, label: 'start' | 'end'): Promise<{ file: string }> {
      const { target, caps } = ctx;
      const { events, source } = await readEventsSnapshot(ctx.client());
      const onHost = caps.onWorkerHost;
      // A server on a loopback URL chbench did not start (external) probably shares this host: its
      // load is recorded too, labelled as probable; nothing else (page cache, disks) assumes it.
      const probablyHere = !onHost && caps.loopbackMeansWorkerHost && isLoopbackUrl(target.url);
      const host = readHostSnapshot(onHost);
      const others = () =>
        deps.workDir ? otherChbenchServers(deps.workDir, target, { alsoLoopback: probablyHere }) : [];
      const snap: MetricsSnapshot = {
        label,
        taken_at: new Date().toISOString(),
        server_events: events,
        server_events_source: source,
        ...host,
        // What else this host runs now: the load average and the other chbench servers alive here.
        ...(onHost || probablyHere ? { host_activity: hostActivity(others(), probablyHere) } : {}),
        // Where the server keeps its data (once, at the start): the report's environment block.
        ...(onHost && label === 'start' && target.dataDir ? { data_disk: readDataDisk(target.dataDir) } : {}),
        // Every step window labelled from the server's counter samples (once, at the end).
        ...(onHost && label === 'end' && target.dataDir ? localBottleneck(ctx, target.dataDir) : {}),
        // … or from the counters scraped over the network (a pod's cgroup through cAdvisor).
        ...(!onHost && label === 'end' ? podBottleneck(ctx) : {}),
      };
      const file = `metrics-${label}.json`;
      ctx.write(file, MetricsSnapshot, snap);
      return { file };
    },
  };
}
