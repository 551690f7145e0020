/**
 * The bottleneck label of a step window for a cell whose server runs on this host (embedded, local):
 * the server's I/O and CPU in the window — from its cgroup (`blkio.throttle.io_service_bytes`,
 * `cpuacct.usage`) when the cell has one, else `/proc/<pid>/io` read_bytes/write_bytes and
 * `/proc/<pid>/stat` utime+stime summed over the server and its children — against the cell's
 * `target.resources` limits, or the host disk's measured unthrottled capacity when the cell is not
 * throttled. Same rule and thresholds as the CloudWatch labels (`labelBottleneck` in
 * `src/cloud/metrics.ts`): disk-bound at `diskUtilisation` of the binding limit, CPU-bound at `cpuPct`
 * of the cores available (the CPU limit; without one, the host's cores), judged by the server's OWN
 * use; a server starved by other processes (the host's busy share, `/proc/stat`, at `cpuPct` while its
 * own is below) is `unknown`, the evidence naming the cores the others used; both over: the larger of
 * the disk's share and the server's own CPU share wins. Pure (no I/O).
 */
import type { BottleneckLabel } from '../schema/results';
import type { ResourceLimits } from '../schema/resources';

const MiB = 1024 * 1024;

/** What the server did in one window (differences of cumulative counters). */
export interface WindowCounters {
  /** Window length, ms (client wall clock between the two counter reads). */
  ms: number;
  /** Bytes read from the block device in the window. */
  readBytes: number;
  /** Bytes written to it in the window. */
  writeBytes: number;
  /** CPU time of the server and its children in the window, ns. */
  cpuNs: number;
  /** Busy CPU time of the whole host in the window, ns (`/proc/stat`): CloudWatch's `CPUUtilization` is the instance's, so an unlimited cell is judged by it too. */
  hostBusyNs?: number;
  /** All CPU time of the host in the window, ns (busy + idle + iowait, `/proc/stat`). */
  hostTotalNs?: number;
  /** Where the counters came from, e.g. `cgroup v1 blkio.throttle.io_service_bytes, cpuacct.usage` or `/proc/<pid>/io, /proc/<pid>/stat`. */
  source: string;
}

/** What the window is measured against. */
export interface LocalCapacity {
  /** The cell's applied limits (absent or without `volume`: not throttled). */
  limits?: ResourceLimits;
  /** The host disk's unthrottled direct-I/O read rate, bytes/s (measured once per host), if known. */
  hostReadBytesPerSec?: number;
  /** Cores the host has (used when `limits.cpus` is absent). */
  hostCores: number;
  /**
   * Who enforces the volume limit: `cgroup` (the kernel's block throttle, this host's cells: the
   * default) or `volume` (the provisioned volume itself, a kubernetes pod's EBS volume): an excess
   * within one throttle slice is then not explained by the kernel's slice, and the evidence says so.
   */
  volumeEnforcedBy?: 'cgroup' | 'volume';
}

/** A label, its evidence, and whether a read limit was exceeded (the limit did not hold). */
export interface LocalBottleneck {
  label: BottleneckLabel;
  /** E.g. `read 19.6 MiB/s = 98 % of the 20 MiB/s read limit; CPU 0.12 of 2 cores = 6 %`. */
  evidence: string;
  /** Achieved read rate, bytes/s. */
  readBytesPerSec: number;
  /** Achieved write rate, bytes/s. */
  writeBytesPerSec: number;
  /** CPU cores used on average in the window. */
  coresUsed: number;
  /** False when the achieved read (or, where throttled, write) bytes exceeded limit × seconds × (1 + `tolerance`) plus one throttle slice ({@link THROTTLE_SLICE_S} of the limit). */
  limitHeld: boolean;
}

/** Thresholds, as for the CloudWatch labels. */
export interface LocalThresholds {
  /** Disk-bound at this share (0..1) of the binding throughput limit. @default 0.9 */
  diskUtilisation: number;
  /** CPU-bound at this share (%) of the cores available. @default 80 */
  cpuPct: number;
  /** A rate above its limit by more than this share counts as "limit did not hold" (the throttle's first slice). @default 0.1 */
  tolerance: number;
}

/**
 * The block throttle's slice, s: cgroup v1 blk-throttle (and v2 io.max) dispatch up to one slice's
 * worth of the limit (`throtl_slice`, 100 ms on non-rotational and most disks) before delaying, so a
 * window's bytes may exceed limit × seconds by limit × this much without the limit failing.
 */
export const THROTTLE_SLICE_S = 0.1;

const DEFAULTS: LocalThresholds = { diskUtilisation: 0.9, cpuPct: 80, tolerance: 0.1 };

const f = (x: number): string =>
  x >= 100 ? Math.round(x).toLocaleString('en-US') : x >= 10 ? x.toFixed(1) : x.toFixed(2);
const pct = (x: number): string => `${Math.round(x * 100)} %`;

/**
 * Label one window. A window shorter than 1 ms or without counters is `unknown`.
 * @param writesThrottled whether the write limit binds buffered writes (cgroup v2); on cgroup v1 it does
 *   not, so writes are compared with the host capacity only and the evidence says so
 */
export function labelLocalWindow(
  w: WindowCounters,
  cap: LocalCapacity,
  writesThrottled: boolean,
  thresholds: Partial<LocalThresholds> = {},
): LocalBottleneck {
  const t = { ...DEFAULTS, ...thresholds };
  const s = w.ms / 1000;
  if (!(s >= 0.001))
    return {
      label: 'unknown',
      evidence: `window of ${w.ms} ms`,
      readBytesPerSec: 0,
      writeBytesPerSec: 0,
      coresUsed: 0,
      limitHeld: true,
    };
  const rbps = w.readBytes / s;
  const wbps = w.writeBytes / s;
  const cores = w.cpuNs / 1e9 / s;
  const v = cap.limits?.volume;
  const parts: string[] = [];
  let diskShare: number | null = null;
  let held = true;
  const against = (what: string, rate: number, limit: number | undefined, name: string): void => {
    if (limit === undefined || limit <= 0) return;
    const share = rate / limit;
    diskShare = Math.max(diskShare ?? 0, share);
    // The throttle lets one slice (THROTTLE_SLICE_S of the limit) through before it delays a bio, so
    // a window shorter than a few slices may exceed the rate without the limit failing.
    const over = share > 1 + t.tolerance;
    const failed = over && rate * s > limit * (s * (1 + t.tolerance) + THROTTLE_SLICE_S);
    if (failed) held = false;
    parts.push(
      `${what} ${f(rate / MiB)} MiB/s = ${pct(share)} of ${name} ${f(limit / MiB)} MiB/s${
        failed
          ? ' (limit did not hold)'
          : over
            ? cap.volumeEnforcedBy === 'volume'
              ? ` (above the provisioned rate by less than ${f((limit * THROTTLE_SLICE_S) / MiB)} MiB in this short window: a burst, or not the provisioned volume)`
              : ` (within the throttle's first ${THROTTLE_SLICE_S * 1000} ms slice of ${f((limit * THROTTLE_SLICE_S) / MiB)} MiB: not a failed limit)`
            : ''
      }`,
    );
  };
  if (v?.readBytesPerSec !== undefined) against('read', rbps, v.readBytesPerSec, `the ${v.profile} read limit`);
  else against('read', rbps, cap.hostReadBytesPerSec, 'the host disk (unthrottled, measured)');
  if (v?.writeBytesPerSec !== undefined && writesThrottled)
    against('write', wbps, v.writeBytesPerSec, `the ${v.profile} write limit`);
  else if (w.writeBytes > 0)
    parts.push(
      `write ${f(wbps / MiB)} MiB/s${v?.writeBytesPerSec !== undefined ? ' (buffered writes are not throttled by cgroup v1; not compared)' : ''}`,
    );
  if (diskShare === null) parts.push(`read ${f(rbps / MiB)} MiB/s (no limit or host capacity known)`);
  const avail = cap.limits?.cpus ?? cap.hostCores;
  const serverShare = cores / avail;
  // The label comes from the server's OWN share of its cores (its limit, else the host's). Without a
  // CPU limit the host's busy share (all processes, /proc/stat) is reported beside it: a server starved
  // by other processes is not CPU-bound by its own work, and its bottleneck cannot be told (`unknown`).
  const hostShare =
    cap.limits?.cpus === undefined && w.hostTotalNs && w.hostBusyNs !== undefined
      ? w.hostBusyNs / w.hostTotalNs
      : undefined;
  const starved = hostShare !== undefined && hostShare * 100 >= t.cpuPct && serverShare * 100 < t.cpuPct;
  parts.push(
    `CPU ${f(cores)} of ${f(avail)} cores${cap.limits?.cpus !== undefined ? ' (limit)' : ''} = ${pct(serverShare)}${
      hostShare !== undefined
        ? `; host CPU busy ${pct(hostShare)} of ${cap.hostCores} cores (/proc/stat, all processes${
            starved
              ? `: other processes used ${f(Math.max(0, hostShare * cap.hostCores - cores))} cores, the server was starved of CPU — not labelled from the host's load`
              : ''
          })`
        : ''
    }`,
  );
  const disk = diskShare !== null && diskShare >= t.diskUtilisation;
  const cpu = serverShare * 100 >= t.cpuPct;
  // Both over: the larger of the disk's share and the server's own CPU share wins.
  const label: BottleneckLabel =
    disk && cpu
      ? diskShare! >= serverShare
        ? 'disk-bound'
        : 'cpu-bound'
      : disk
        ? 'disk-bound'
        : cpu
          ? 'cpu-bound'
          : starved || diskShare === null
            ? 'unknown'
            : 'neither';
  return {
    label,
    evidence: `${parts.join('; ')} [${w.source}]`,
    readBytesPerSec: rbps,
    writeBytesPerSec: wbps,
    coresUsed: cores,
    limitHeld: held,
  };
}
