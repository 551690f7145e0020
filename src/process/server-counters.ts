/**
 * Cumulative I/O and CPU counters of a server process for cells without a cgroup, and the host disk's
 * unthrottled capacity (a short direct-I/O read, measured once per host and device and cached).
 * Linux only.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import type { CgroupCounters, BlockDevice } from './cgroup';

/** Pids of `pid` and all its descendants (by scanning `/proc/<n>/stat` ppid fields). */
export function descendants(pid: number): number[] {
  const parent = new Map<number, number[]>();
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const st = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
      const ppid = Number(st.slice(st.lastIndexOf(')') + 2).split(' ')[1]);
      const list = parent.get(ppid) ?? [];
      list.push(Number(e));
      parent.set(ppid, list);
    } catch {
      /* exited while scanning */
    }
  }
  const out: number[] = [];
  const walk = (p: number): void => {
    out.push(p);
    for (const c of parent.get(p) ?? []) walk(c);
  };
  walk(pid);
  return out;
}

/** USER_HZ ticks per second of `/proc/<pid>/stat` (100 on every Linux architecture chbench runs on). */
const CLK_TCK = 100;

/**
 * A server's counters from `/proc` summed over it and its live descendants: `/proc/<pid>/io`
 * `read_bytes` / `write_bytes` (bytes the task caused to be fetched from / sent to the block layer)
 * and `/proc/<pid>/stat` utime + stime + cutime + cstime (ticks → ns; cutime/cstime hold reaped
 * children). A descendant that exited unreaped in the window is missed: the cgroup counters do not
 * have that gap. Processes that vanish mid-read are skipped.
 * @param pids the processes to sum (default: `pid` and its descendants now, {@link descendants})
 */
export function readProcCounters(pid: number, pids: readonly number[] = descendants(pid)): CgroupCounters {
  const out: CgroupCounters = { readBytes: 0, writeBytes: 0, cpuNs: 0 };
  for (const p of pids) {
    try {
      const io = fs.readFileSync(`/proc/${p}/io`, 'utf8');
      out.readBytes += Number(/^read_bytes: (\d+)/m.exec(io)?.[1] ?? 0);
      out.writeBytes += Number(/^write_bytes: (\d+)/m.exec(io)?.[1] ?? 0);
      const st = fs.readFileSync(`/proc/${p}/stat`, 'utf8').slice(0);
      const fields = st.slice(st.lastIndexOf(')') + 2).split(' ');
      // Fields 14..17 (utime, stime, cutime, cstime) are indices 11..14 after the state field.
      const ticks = [11, 12, 13, 14].reduce((a, i) => a + Number(fields[i] ?? 0), 0);
      out.cpuNs += (ticks / CLK_TCK) * 1e9;
    } catch {
      /* exited */
    }
  }
  return out;
}

/** The host disk's unthrottled direct-I/O read rate, as cached in `<stateDir>/host-disk-capacity.json`. */
export interface HostDiskCapacity {
  device: string;
  /** Read rate, bytes/s: `bytes` / `seconds` of a `dd iflag=direct bs=1M` read of a file written with `oflag=direct`. */
  readBytesPerSec: number;
  bytes: number;
  seconds: number;
  /** ISO time measured. */
  measured_at: string;
  method: string;
}

/**
 * The host disk's unthrottled read capacity for the disk holding `dir`, measured once (a `mib` MiB
 * direct-I/O write then direct-I/O read in `stateDir`, ~0.5 s at 64 MiB) and cached in
 * `<stateDir>/host-disk-capacity.json` per device.
 * @throws Error when `dd` fails (the message carries its stderr)
 */
export function hostDiskCapacity(stateDir: string, device: BlockDevice, mib = 64): HostDiskCapacity {
  const cacheFile = path.join(stateDir, 'host-disk-capacity.json');
  let cache: Record<string, HostDiskCapacity> = {};
  try {
    cache = JSON.parse(fs.readFileSync(cacheFile, 'utf8')) as Record<string, HostDiskCapacity>;
  } catch {
    /* none yet */
  }
  const key = `${device.major}:${device.minor}`;
  const hit = cache[key];
  if (hit) return hit;
  fs.mkdirSync(stateDir, { recursive: true });
  const probe = path.join(stateDir, `.disk-probe-${process.pid}`);
  try {
    execFileSync('dd', ['if=/dev/zero', `of=${probe}`, 'bs=1M', `count=${mib}`, 'oflag=direct'], { stdio: 'pipe' });
    const t0 = performance.now();
    execFileSync('dd', [`if=${probe}`, 'of=/dev/null', 'bs=1M', 'iflag=direct'], { stdio: 'pipe' });
    const seconds = (performance.now() - t0) / 1000;
    const bytes = mib * 1024 * 1024;
    const m: HostDiskCapacity = {
      device: device.name,
      readBytesPerSec: bytes / seconds,
      bytes,
      seconds,
      measured_at: new Date().toISOString(),
      method: `dd iflag=direct bs=1M of ${mib} MiB written with oflag=direct (client wall time)`,
    };
    cache[key] = m;
    fs.writeFileSync(cacheFile, JSON.stringify(cache, null, 2));
    return m;
  } finally {
    fs.rmSync(probe, { force: true });
  }
}
