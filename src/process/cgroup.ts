/**
 * Kernel resource limits for a cell's server process: one cgroup per cell, named
 * `<root>/<controller>/chbench/<run>/<cell>` (cgroup v1) or `<root>/unified/chbench/<run>/<cell>`
 * (cgroup v2), holding the server pid (its children inherit the group). Linux only; needs root.
 *
 * cgroup v2 (when `<root>/unified/cgroup.controllers` — or `<root>/cgroup.controllers` — lists the
 * controllers): `io.max`, `cpu.max`, `memory.max`. cgroup v1 otherwise: `blkio.throttle.*_device`,
 * `cpu.cfs_quota_us` / `cpu.cfs_period_us`, `memory.limit_in_bytes`. cgroup v1's blkio throttle does
 * not see buffered writeback (the page cache writes on behalf of no cgroup), so on v1 write limits hold
 * only for direct I/O: {@link CellCgroup.writesThrottled} says so and the label must say it too.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ResourceLimits } from '../schema/resources';
import { writeFileAtomic } from '../lib/fs';

/** Default cgroup mount root; tests point `CHBENCH_CGROUP_ROOT` elsewhere to simulate a missing controller. */
export const DEFAULT_CGROUP_ROOT = '/sys/fs/cgroup';

/** The cgroup mount root in effect: `CHBENCH_CGROUP_ROOT` or `/sys/fs/cgroup`. */
export function cgroupRoot(): string {
  return process.env.CHBENCH_CGROUP_ROOT || DEFAULT_CGROUP_ROOT;
}

/** Raised before provisioning when a cell's limits cannot be applied; `missing` names what is absent. */
export class CgroupUnavailableError extends Error {
  constructor(readonly missing: string[]) {
    super(
      `target.resources cannot be applied on this host: ${missing.join('; ')} (the cell is not run unthrottled under a profile's label)`,
    );
    this.name = 'CgroupUnavailableError';
  }
}

/** A whole block device as blkio / io.max accept it (partitions resolved to their disk). */
export interface BlockDevice {
  major: number;
  minor: number;
  /** Kernel name, e.g. `vda`, `dm-0`. */
  name: string;
}

/**
 * The block device holding `dir`: `stat(dir).dev` → `/sys/dev/block/<maj>:<min>`; a partition is
 * resolved to its parent disk (blkio refuses partitions); a device-mapper device is itself a disk
 * and is kept (its bios are throttled before they are split to the slaves).
 * @throws CgroupUnavailableError when `dir`'s device is not a block device (tmpfs, overlay without a
 *   backing disk)
 */
export function blockDeviceOf(dir: string): BlockDevice {
  // The nearest existing ancestor (a cell's directory may not exist yet).
  let at = path.resolve(dir);
  while (!fs.existsSync(at) && path.dirname(at) !== at) at = path.dirname(at);
  const dev = fs.statSync(at).dev;
  // Linux dev_t encoding (new_encode_dev): minor low 8 bits + bits 20..31, major bits 8..19.
  const major = (dev >> 8) & 0xfff;
  const minor = (dev & 0xff) | ((dev >> 12) & 0xfff00);
  let sys: string;
  try {
    sys = fs.realpathSync(`/sys/dev/block/${major}:${minor}`);
  } catch {
    throw new CgroupUnavailableError([
      `no block device for ${dir} (device ${major}:${minor} is not in /sys/dev/block)`,
    ]);
  }
  if (fs.existsSync(path.join(sys, 'partition'))) sys = path.dirname(sys);
  const [maj, min] = fs.readFileSync(path.join(sys, 'dev'), 'utf8').trim().split(':').map(Number);
  return { major: maj!, minor: min!, name: path.basename(sys) };
}

/** Which cgroup hierarchy applies the limits, and the controller directories it uses. */
export interface CgroupPlan {
  version: 1 | 2;
  /** Controller → its mount directory (v1: `<root>/blkio` …; v2: one directory under every key). */
  mounts: { io?: string; cpu?: string; cpuacct?: string; memory?: string };
}

function v2Root(root: string): string | undefined {
  for (const d of [path.join(root, 'unified'), root]) {
    try {
      const ctl = fs.readFileSync(path.join(d, 'cgroup.controllers'), 'utf8').split(/\s+/);
      if (ctl.includes('io') || ctl.includes('cpu') || ctl.includes('memory')) return d;
    } catch {
      /* not a v2 mount with controllers */
    }
  }
  return undefined;
}

/**
 * Check that `limits` can be applied here and return how. Counters (`cpuacct` / `blkio` stats) are
 * wanted even without limits, but only limits make this refuse.
 * @param root cgroup mount root (default {@link cgroupRoot})
 * @throws CgroupUnavailableError naming each missing piece: not root, a controller not mounted, a
 *   control file absent
 */
export function planCgroup(limits: ResourceLimits, root = cgroupRoot()): CgroupPlan {
  const missing: string[] = [];
  if (process.getuid?.() !== 0) missing.push('not running as root (cgroup directories are writable by root only)');
  const v2 = v2Root(root);
  if (v2) {
    const ctl = fs.readFileSync(path.join(v2, 'cgroup.controllers'), 'utf8').split(/\s+/);
    const want: [keyof CgroupPlan['mounts'], string, boolean][] = [
      ['io', 'io', !!limits.volume],
      ['cpu', 'cpu', limits.cpus !== undefined],
      ['memory', 'memory', limits.memoryBytes !== undefined],
    ];
    for (const [, c, needed] of want)
      if (needed && !ctl.includes(c)) missing.push(`cgroup v2 controller "${c}" not enabled in ${v2}`);
    if (missing.length) throw new CgroupUnavailableError(missing);
    return { version: 2, mounts: { io: v2, cpu: v2, cpuacct: v2, memory: v2 } };
  }
  const need = (ctrl: string, file: string, needed: boolean): string | undefined => {
    const d = path.join(root, ctrl);
    if (fs.existsSync(path.join(d, file))) return d;
    if (needed) missing.push(`cgroup v1 controller "${ctrl}" not mounted at ${d} (no ${file})`);
    return undefined;
  };
  const mounts: CgroupPlan['mounts'] = {
    io: need('blkio', 'blkio.throttle.read_bps_device', !!limits.volume),
    cpu: need('cpu', 'cpu.cfs_quota_us', limits.cpus !== undefined),
    cpuacct: need('cpuacct', 'cpuacct.usage', false),
    memory: need('memory', 'memory.limit_in_bytes', limits.memoryBytes !== undefined),
  };
  if (missing.length) throw new CgroupUnavailableError(missing);
  return { version: 1, mounts };
}

/** A cell's cgroup, as created by {@link createCellCgroup}; JSON-serialisable (kept in the provision record). */
export interface CellCgroup {
  version: 1 | 2;
  /** Relative name below each controller, `chbench/<run>/<cell>`. */
  name: string;
  /** Absolute directories made (one per controller on v1). */
  dirs: string[];
  /** Per counter, the directory it is read from. */
  stats: { io?: string; cpuacct?: string };
  device?: BlockDevice;
  /** Whether write limits apply to buffered writeback (v2: yes; v1: no, direct I/O only). */
  writesThrottled: boolean;
}

const safe = (s: string): string => s.replace(/[^A-Za-z0-9._-]/g, '_');

/**
 * Make the cell's cgroup(s) and write the limits (idempotent: an existing group is reused and its
 * limits rewritten, so a retried provision does not fail).
 * @param device the block device the volume limits apply to (from {@link blockDeviceOf})
 * @throws Error when the kernel rejects a control write (the message names the file)
 */
export function createCellCgroup(
  plan: CgroupPlan,
  run: string,
  cell: string,
  limits: ResourceLimits,
  device?: BlockDevice,
): CellCgroup {
  const name = path.join('chbench', safe(run), safe(cell));
  const dirs = new Set<string>();
  const dir = (mount: string): string => {
    const d = path.join(mount, name);
    fs.mkdirSync(d, { recursive: true });
    dirs.add(d);
    return d;
  };
  const write = (d: string, file: string, value: string): void => {
    try {
      fs.writeFileSync(path.join(d, file), value);
    } catch (e) {
      throw new Error(`cgroup: writing "${value}" to ${path.join(d, file)} failed: ${(e as Error).message}`, {
        cause: e,
      });
    }
  };
  const v = limits.volume;
  const stats: CellCgroup['stats'] = {};
  if (plan.mounts.io) {
    const d = dir(plan.mounts.io);
    stats.io = d;
    if (v && device) {
      const dev = `${device.major}:${device.minor}`;
      if (plan.version === 2) {
        const f = (x?: number): string => (x === undefined ? 'max' : String(Math.round(x)));
        write(
          d,
          'io.max',
          `${dev} rbps=${f(v.readBytesPerSec)} wbps=${f(v.writeBytesPerSec)} riops=${f(v.readIops)} wiops=${f(v.writeIops)}`,
        );
      } else {
        const pairs: [string, number | undefined][] = [
          ['blkio.throttle.read_bps_device', v.readBytesPerSec],
          ['blkio.throttle.write_bps_device', v.writeBytesPerSec],
          ['blkio.throttle.read_iops_device', v.readIops],
          ['blkio.throttle.write_iops_device', v.writeIops],
        ];
        for (const [file, x] of pairs) if (x !== undefined) write(d, file, `${dev} ${Math.round(x)}`);
      }
    }
  }
  if (plan.mounts.cpu && limits.cpus !== undefined) {
    const d = dir(plan.mounts.cpu);
    const period = 100_000;
    const quota = Math.max(1000, Math.round(limits.cpus * period));
    if (plan.version === 2) write(d, 'cpu.max', `${quota} ${period}`);
    else {
      write(d, 'cpu.cfs_period_us', String(period));
      write(d, 'cpu.cfs_quota_us', String(quota));
    }
  }
  if (plan.mounts.cpuacct) stats.cpuacct = dir(plan.mounts.cpuacct);
  if (plan.mounts.memory && limits.memoryBytes !== undefined) {
    const d = dir(plan.mounts.memory);
    write(d, plan.version === 2 ? 'memory.max' : 'memory.limit_in_bytes', String(limits.memoryBytes));
  }
  return { version: plan.version, name, dirs: [...dirs], stats, device, writesThrottled: plan.version === 2 };
}

/**
 * Place a process in every directory of the cell's cgroup (children forked afterwards inherit it).
 * @throws Error when the kernel refuses (e.g. the pid is gone)
 */
export function addToCgroup(cg: CellCgroup, pid: number): void {
  for (const d of cg.dirs) fs.writeFileSync(path.join(d, 'cgroup.procs'), String(pid));
}

/** Pids in one cgroup directory (`cgroup.procs`); none when it cannot be read. */
export function cgroupPidsOf(dir: string): number[] {
  try {
    return fs
      .readFileSync(path.join(dir, 'cgroup.procs'), 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map(Number);
  } catch {
    return [];
  }
}

/** File in a cell's server directory recording its {@link CellCgroup} (written at provisioning). */
export const CELL_CGROUP_FILE = 'cgroup.json';

/** Record the cell's cgroup in `<dataDir>/cgroup.json`, so its steps read the group's counters. */
export function writeCellCgroup(dataDir: string, cg: CellCgroup): void {
  fs.mkdirSync(dataDir, { recursive: true });
  writeFileAtomic(path.join(dataDir, CELL_CGROUP_FILE), JSON.stringify(cg, null, 2) + '\n');
}

/** The cell's cgroup as provisioning recorded it in `<dataDir>/cgroup.json`; undefined when the cell has none (no `target.resources`) or it is gone. */
export function readCellCgroup(dataDir: string): CellCgroup | undefined {
  try {
    const cg = JSON.parse(fs.readFileSync(path.join(dataDir, CELL_CGROUP_FILE), 'utf8')) as CellCgroup;
    return cg.dirs.every((d) => fs.existsSync(d)) ? cg : undefined;
  } catch {
    return undefined;
  }
}

/** Pids currently in the cell's cgroup (union over its directories). */
export function cgroupPids(cg: CellCgroup): number[] {
  const pids = new Set<number>();
  for (const d of cg.dirs) {
    try {
      for (const l of fs.readFileSync(path.join(d, 'cgroup.procs'), 'utf8').split('\n'))
        if (l.trim()) pids.add(Number(l));
    } catch {
      /* directory gone */
    }
  }
  return [...pids];
}

/** Cumulative counters of a cell's cgroup. */
export interface CgroupCounters {
  /** Bytes read from the cell's device by the group: `blkio.throttle.io_service_bytes` Read (v1) / `io.stat` rbytes (v2). */
  readBytes: number;
  /** Bytes written to it by the group (same sources; v1 counts direct and group-attributed writes only). */
  writeBytes: number;
  /** CPU time of the group, ns: `cpuacct.usage` (v1) / `cpu.stat` usage_usec × 1000 (v2). */
  cpuNs: number;
}

/** Read the cell cgroup's cumulative I/O and CPU counters (zero for a counter whose file is absent). */
export function readCgroupCounters(cg: CellCgroup): CgroupCounters {
  const out: CgroupCounters = { readBytes: 0, writeBytes: 0, cpuNs: 0 };
  const dev = cg.device ? `${cg.device.major}:${cg.device.minor}` : undefined;
  const read = (d: string | undefined, f: string): string | undefined => {
    if (!d) return undefined;
    try {
      return fs.readFileSync(path.join(d, f), 'utf8');
    } catch {
      return undefined;
    }
  };
  if (cg.version === 1) {
    for (const line of (read(cg.stats.io, 'blkio.throttle.io_service_bytes') ?? '').split('\n')) {
      const [d, op, n] = line.trim().split(/\s+/);
      if (dev && d !== dev) continue;
      if (op === 'Read') out.readBytes += Number(n);
      if (op === 'Write') out.writeBytes += Number(n);
    }
    out.cpuNs = Number(read(cg.stats.cpuacct, 'cpuacct.usage') ?? 0) || 0;
  } else {
    for (const line of (read(cg.stats.io, 'io.stat') ?? '').split('\n')) {
      const [d, ...kv] = line.trim().split(/\s+/);
      if (dev && d !== dev) continue;
      for (const p of kv) {
        const [k, n] = p.split('=');
        if (k === 'rbytes') out.readBytes += Number(n);
        if (k === 'wbytes') out.writeBytes += Number(n);
      }
    }
    const m = /usage_usec (\d+)/.exec(read(cg.stats.cpuacct, 'cpu.stat') ?? '');
    out.cpuNs = m ? Number(m[1]) * 1000 : 0;
  }
  return out;
}

/**
 * Remove the cell's cgroup directories, then its run's and `chbench`'s when empty. Processes still in
 * the group are moved to the controller's root first (teardown stops the server before; a leftover
 * is never killed here). Idempotent.
 * @returns the directories removed
 */
export function removeCellCgroup(cg: CellCgroup): string[] {
  const removed: string[] = [];
  for (const d of cg.dirs) {
    const mount = d.slice(0, d.length - cg.name.length - 1);
    removed.push(...removeTree(mount, d));
  }
  return removed;
}

function removeTree(mount: string, d: string, up = true): string[] {
  const removed: string[] = [];
  if (!fs.existsSync(d)) return removed;
  for (const e of fs.readdirSync(d, { withFileTypes: true }))
    if (e.isDirectory()) removed.push(...removeTree(mount, path.join(d, e.name), false));
  try {
    for (const l of fs.readFileSync(path.join(d, 'cgroup.procs'), 'utf8').split('\n'))
      if (l.trim()) fs.writeFileSync(path.join(mount, 'cgroup.procs'), l.trim());
  } catch {
    /* gone or empty */
  }
  fs.rmdirSync(d);
  removed.push(d);
  if (!up) return removed;
  // Parents up to <mount>/chbench, while empty.
  for (
    let p = path.dirname(d);
    p.startsWith(path.join(mount, 'chbench')) && p.length > mount.length;
    p = path.dirname(p)
  ) {
    if (fs.readdirSync(p, { withFileTypes: true }).some((e) => e.isDirectory())) break;
    try {
      fs.rmdirSync(p);
      removed.push(p);
    } catch {
      break;
    }
  }
  return removed;
}

/** The controller mounts under `root` (one directory each); none when `root` cannot be read. */
function controllerMounts(root: string): string[] {
  try {
    return fs.readdirSync(root).map((m) => path.join(root, m));
  } catch {
    return [];
  }
}

/**
 * `chbench gc`: remove the cgroups chbench made (`<mount>/chbench/<run>/…` under each controller), for
 * the given runs or, without `runs`, all of them. Nothing outside `chbench/` is touched.
 * @returns the directories removed
 */
export function gcCgroups(runs?: string[], root = cgroupRoot()): string[] {
  const removed: string[] = [];
  for (const mount of controllerMounts(root)) {
    const top = path.join(mount, 'chbench');
    if (!fs.existsSync(top)) continue;
    const targets = runs ? runs.map((r) => path.join(top, safe(r))).filter((p) => fs.existsSync(p)) : [top];
    for (const t of targets) removed.push(...removeTree(mount, t));
  }
  return removed;
}

/**
 * Remove the cgroups of one cell (`chbench/<run>/<cell>` under every controller of `root`), moving a
 * left-over process to the controller's root group. Idempotent (nothing there is fine).
 * @returns the directories removed
 */
export function removeCellCgroups(run: string, cell: string, root = cgroupRoot()): string[] {
  const removed: string[] = [];
  for (const mount of controllerMounts(root)) {
    const d = path.join(mount, 'chbench', safe(run), safe(cell));
    if (fs.existsSync(d)) removed.push(...removeTree(mount, d));
  }
  return removed;
}
