/**
 * The worker host's own counters and facts, read from `/proc` and `/sys`: cumulative disk and CPU
 * counters (`/proc/diskstats`, `/proc/stat`) and the disk and filesystem that hold a directory
 * (`/proc/self/mountinfo`, `/sys/class/block/<disk>`). Used by the metrics snapshots of a cell
 * whose server runs on this host.
 */
import os from 'node:os';
import path from 'node:path';
import { readFileSync, existsSync, realpathSync } from 'node:fs';
import { LOOPBACK_HOST_SCOPE, type HostActivity } from '../schema/host';
import type { DataDisk, MetricsSnapshot } from '../schema/results';

/**
 * Whole disks' cumulative counters (`/proc/diskstats`: sectors read/written × 512 bytes, ms doing
 * I/O; loop and ram devices and partitions left out) and the CPU time of all cores (`/proc/stat`
 * first line, in USER_HZ ticks: user + nice, system, idle, iowait).
 * @throws Error when `/proc` cannot be read.
 */
export function readHost(): Pick<MetricsSnapshot, 'host_disks' | 'host_cpu'> {
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

/**
 * The host section of a metrics snapshot: {@link readHost} where the server runs on the worker's host
 * (`onHost`), with `host_source` saying where the counters came from, or why there are none (a
 * failed read is recorded, never thrown).
 */
export function readHostSnapshot(onHost: boolean): Pick<MetricsSnapshot, 'host_disks' | 'host_cpu' | 'host_source'> {
  if (!onHost)
    return { host_disks: null, host_cpu: null, host_source: 'not available: server is not on the worker host' };
  try {
    return { ...readHost(), host_source: '/proc/diskstats and /proc/stat of the worker host (the server runs there)' };
  } catch (e) {
    return { host_disks: null, host_cpu: null, host_source: `not available: ${(e as Error).message}` };
  }
}

/**
 * What else this host runs now: the 1-minute load average (`os.loadavg()[0]`) and the other chbench
 * servers alive here (`otherServers`: `<runId>/<cellKey>` keys). `probablyHere`: the server is on a
 * loopback URL chbench did not start, so the host is only probably its own (then the record says so,
 * `scope`, with the host's logical CPUs, `os.cpus().length`).
 */
export function hostActivity(otherServers: readonly string[], probablyHere: boolean): HostActivity {
  return {
    at: new Date().toISOString(),
    loadavg1: os.loadavg()[0],
    otherServers: otherServers.map((k) => {
      const i = k.indexOf('/');
      return { runId: k.slice(0, i), cellKey: k.slice(i + 1) };
    }),
    ...(probablyHere ? { scope: LOOPBACK_HOST_SCOPE, cores: os.cpus().length } : {}),
  };
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
