/**
 * collectMetrics: snapshot the server's cumulative counters (`system.events`) and the worker host's
 * disk and CPU counters (`/proc/diskstats`, `/proc/stat`, only for a target whose capabilities say it runs on the worker's host), so a cell's
 * result can show how much was read from disk and whether a run was disk- or CPU-bound.
 * Called at the start and the end of a cell; the cell result keeps the difference. The end snapshot of
 * a cell whose server runs on this host also labels every step window disk-bound / CPU-bound /
 * neither from the server's counter samples (`local_bottleneck`, `src/measure/cell-bottleneck.ts`).
 */
import os from 'node:os';
import path from 'node:path';
import { queryRows } from '../clickhouse/client';
import { readEvents } from '../clickhouse/events';
import { sqlString } from '../lib/sql';
import { isLoopbackUrl } from '../lib/net';
import { LOOPBACK_HOST_SCOPE } from '../schema/host';
import { otherChbenchServers } from '../targets';
import { readDataDisk, readHost } from '../process/host-counters';
import { MetricsSnapshot } from '../schema/results';
import { cellLocalBottleneck } from '../measure/cell-bottleneck';
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

/** Activity factory. */
export function createCollectMetrics(deps: { workDir?: string } = {}) {
  return {
    /** Take a snapshot; writes `metrics-<label>.json`. @returns the file name. */
    async collectMetrics(ctx: StepContext, label: 'start' | 'end'): Promise<{ file: string }> {
      const { target, caps } = ctx;
      const client = ctx.client();
      let events: Record<string, number> | null = null;
      let eventsSource: string;
      try {
        const cols = await queryRows<{ name: string }>(
          client,
          `SELECT name FROM system.columns WHERE database = 'system' AND table = ${sqlString('events')}`,
        );
        const column = cols.some((c) => c.name === 'name') ? 'name' : 'event';
        // system.events lists only non-zero counters unless system_events_show_zero_values = 1 (newer
        // versions); with it, a counter missing from the table does not exist in this version (unknown).
        let zeros = true;
        events = await readEvents(client, undefined, { column, showZeroValues: true }).catch(() => {
          zeros = false;
          return readEvents(client, undefined, { column });
        });
        eventsSource = `system.events (${column}, value)${zeros ? ', zero values shown' : ', zero values hidden by this version: an absent counter is reported as unknown'}`;
      } catch (e) {
        eventsSource = `not available: ${(e as Error).message.split('\n')[0]}`;
      }
      const onHost = caps.onWorkerHost;
      // A server on a loopback URL chbench did not start (external) probably shares this host: its
      // load is recorded too, labelled as probable; nothing else (page cache, disks) assumes it.
      const probablyHere = !onHost && caps.loopbackMeansWorkerHost && isLoopbackUrl(target.url);
      let host: Pick<MetricsSnapshot, 'host_disks' | 'host_cpu'> = { host_disks: null, host_cpu: null };
      let hostSource = 'not available: server is not on the worker host';
      if (onHost) {
        try {
          host = readHost();
          hostSource = '/proc/diskstats and /proc/stat of the worker host (the server runs there)';
        } catch (e) {
          hostSource = `not available: ${(e as Error).message}`;
        }
      }
      const snap: MetricsSnapshot = {
        label,
        taken_at: new Date().toISOString(),
        server_events: events,
        server_events_source: eventsSource,
        ...host,
        host_source: hostSource,
        // What else this host runs now: the load average and the other chbench servers alive here.
        ...(onHost || probablyHere
          ? {
              host_activity: {
                at: new Date().toISOString(),
                loadavg1: os.loadavg()[0],
                otherServers: (deps.workDir
                  ? otherChbenchServers(deps.workDir, target, { alsoLoopback: probablyHere })
                  : []
                ).map((k) => {
                  const i = k.indexOf('/');
                  return { runId: k.slice(0, i), cellKey: k.slice(i + 1) };
                }),
                ...(probablyHere ? { scope: LOOPBACK_HOST_SCOPE, cores: os.cpus().length } : {}),
              },
            }
          : {}),
        // Where the server keeps its data (once, at the start): the report's environment block.
        ...(onHost && label === 'start' && target.dataDir ? { data_disk: readDataDisk(target.dataDir) } : {}),
        // Every step window labelled from the server's counter samples (once, at the end).
        ...(onHost && label === 'end' && target.dataDir ? localBottleneck(ctx, target.dataDir) : {}),
      };
      const file = `metrics-${label}.json`;
      ctx.write(file, MetricsSnapshot, snap);
      return { file };
    },
  };
}
