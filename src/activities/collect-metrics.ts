/**
 * collectMetrics: snapshot the server's cumulative counters (`system.events`) and the worker host's
 * disk and CPU counters (`/proc/diskstats`, `/proc/stat`, only for a target whose capabilities say it runs on the worker's host), so a cell's
 * result can show how much was read from disk and whether a run was disk- or CPU-bound.
 * Called at the start and the end of a cell; the cell result keeps the difference.
 */
import path from 'node:path';
import { readFileSync, existsSync, realpathSync } from 'node:fs';
import { connect, queryRows } from '../clickhouse/client';
import { sqlString } from '../lib/sql';
import { isLoopbackUrl } from '../lib/net';
import { LOOPBACK_HOST_SCOPE } from '../schema/host';
import os from 'node:os';
import { capabilitiesOf, otherChbenchServers } from '../targets';
import { cellDir, writeJsonAtomic } from '../results/store';
import type { StepInput } from '../schema/cell';
import type { DataDisk, MetricsSnapshot } from '../schema/results';

function readHost(): Pick<MetricsSnapshot, 'host_disks' | 'host_cpu'> {
  const disks: MetricsSnapshot['host_disks'] = {};
  for (const line of readFileSync('/proc/diskstats', 'utf8').split('\n')) {
    const f = line.trim().split(/\s+/);
    // Whole disks only (a partition's counters are already in its disk's).
    if (f.length < 14 || /^(loop|ram)/.test(f[2]) || !existsSync(`/sys/block/${f[2]}`)) continue;
    disks[f[2]] = { read_bytes: Number(f[5]) * 512, write_bytes: Number(f[9]) * 512, io_ms: Number(f[12]) };
  }
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  return { host_disks: disks, host_cpu: { user: cpu[0] + cpu[1], system: cpu[2], idle: cpu[3], iowait: cpu[4] } };
}

/** A mountinfo path field: octal escapes (`\\040` for a space) decoded. */
const unescapeMount = (x: string) => x.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));

/**
 * The disk and filesystem holding `dir` on this host (see {@link DataDisk} for the sources). Never
 * throws: a fact the host does not give is `null`, and `source` says why.
 * @param dir an absolute directory (the server's data directory).
 * @param root where `/proc` and `/sys` are (tests point it at a copy).
 */
export function readDataDisk(dir: string, root = '/'): DataDisk {
  const none = (why: string): DataDisk => ({
    path: dir,
    mount_point: null,
    filesystem: null,
    device: null,
    disk: null,
    disk_model: null,
    rotational: null,
    source: `not available: ${why}`,
  });
  let mounts: { point: string; fs: string; source: string }[];
  try {
    mounts = readFileSync(path.join(root, 'proc/self/mountinfo'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const [a, b] = l.split(' - ');
        const f = a.split(' ');
        const g = (b ?? '').split(' ');
        return { point: unescapeMount(f[4] ?? ''), fs: g[0] ?? '', source: unescapeMount(g[1] ?? '') };
      });
  } catch (e) {
    return none(`/proc/self/mountinfo: ${(e as Error).message}`);
  }
  let real = dir;
  try {
    real = realpathSync(dir);
  } catch {
    /* not created yet: the path as given */
  }
  const m = mounts
    .filter((x) => real === x.point || real.startsWith(x.point.endsWith('/') ? x.point : `${x.point}/`))
    .sort((a, b) => b.point.length - a.point.length)[0];
  if (!m) return none(`no mount in /proc/self/mountinfo holds ${real}`);
  let disk: string | null = null;
  let model: string | null = null;
  let rotational: boolean | null = null;
  if (m.source.startsWith('/dev/')) {
    try {
      const name = path.basename(realpathSync(path.join(root, m.source.slice(1))));
      const sys = realpathSync(path.join(root, 'sys/class/block', name));
      // A partition's sysfs directory sits inside its disk's.
      disk = existsSync(path.join(sys, 'partition')) ? path.basename(path.dirname(sys)) : name;
      const read = (f: string) => {
        const p = path.join(root, 'sys/class/block', disk!, f);
        return existsSync(p) ? readFileSync(p, 'utf8').trim() : null;
      };
      model = read('device/model') || null;
      const rot = read('queue/rotational');
      rotational = rot === null ? null : rot === '1';
    } catch {
      /* a device node this host does not show (containers): the mount facts stand alone */
    }
  }
  return {
    path: dir,
    mount_point: m.point,
    filesystem: m.fs || null,
    device: m.source || null,
    disk,
    disk_model: model,
    rotational,
    source: `/proc/self/mountinfo${disk ? `, /sys/class/block/${disk}` : ''} of the worker host`,
  };
}

/** Activity factory. */
export function createCollectMetrics(deps: { workDir?: string } = {}) {
  return {
    /** Take a snapshot; writes `metrics-<label>.json`. @returns the file name. */
    async collectMetrics({ cell, target }: StepInput, label: 'start' | 'end'): Promise<{ file: string }> {
      const client = connect(target);
      let events: Record<string, number> | null = null;
      let eventsSource: string;
      try {
        const cols = await queryRows<{ name: string }>(
          client,
          `SELECT name FROM system.columns WHERE database = 'system' AND table = ${sqlString('events')}`,
        );
        const nameCol = cols.some((c) => c.name === 'name') ? 'name' : 'event';
        // system.events lists only non-zero counters unless system_events_show_zero_values = 1 (newer
        // versions); with it, a counter missing from the table does not exist in this version (unknown).
        const sql = `SELECT ${nameCol} AS k, value AS v FROM system.events`;
        let zeros = true;
        const rows = await queryRows<{ k: string; v: string }>(client, sql, {
          system_events_show_zero_values: 1,
        } as Record<string, number>).catch(() => {
          zeros = false;
          return queryRows<{ k: string; v: string }>(client, sql);
        });
        events = Object.fromEntries(rows.map((r) => [r.k, Number(r.v)]));
        eventsSource = `system.events (${nameCol}, value)${zeros ? ', zero values shown' : ', zero values hidden by this version: an absent counter is reported as unknown'}`;
      } catch (e) {
        eventsSource = `not available: ${(e as Error).message.split('\n')[0]}`;
      } finally {
        await client.close();
      }
      const caps = capabilitiesOf(target);
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
      };
      const file = `metrics-${label}.json`;
      writeJsonAtomic(path.join(cellDir(cell.resultsDir, cell.runId, cell.cellKey), file), snap);
      return { file };
    },
  };
}
