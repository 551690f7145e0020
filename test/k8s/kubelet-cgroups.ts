/**
 * The simulated kubelet's pod cgroups and its cAdvisor endpoint (used by `cluster.ts`), on the real
 * kernel: like a real kubelet (cgroupfs driver, cgroup v1), every pod gets a cgroup
 * `<root>/<controller>/<cgroup root>/kubepods/pod<uid>` and every container start a child
 * `…/pod<uid>/<container id>` in the `cpu`, `cpuacct` and `blkio` hierarchies; the container's
 * process joins it before it execs (the runner gets the `cgroup.procs` files), the container's
 * `limits.cpu` is written as a CFS quota (`cpu.cfs_quota_us` / `cpu.cfs_period_us`, period 100 ms, on
 * the pod and the container, as the kubelet does). `metrics/cadvisor` renders, for every container
 * and pod of a node, the cgroup's real kernel counters read at request time (or at most
 * `housekeepingMs` old, as cAdvisor's housekeeping): `cpuacct.usage` →
 * `container_cpu_usage_seconds_total`, `blkio.throttle.io_service_bytes` (`_recursive` for a pod) →
 * `container_fs_reads_bytes_total` / `container_fs_writes_bytes_total` and
 * `container_blkio_device_usage_total`, `blkio.throttle.io_serviced` → `container_fs_reads_total` /
 * `container_fs_writes_total`, the quota → `container_spec_cpu_quota` / `container_spec_cpu_period`,
 * and `machine_cpu_cores` (this machine's, which is every simulated node). Each sample carries the
 * reading's timestamp (ms), as the kubelet's exposition does.
 *
 * The cgroup root is `chbench-sim-<pid>-<n>` (a kubelet's `--cgroup-root`), unique per cluster, and is
 * removed when the cluster stops; a root left by a process that no longer exists is removed when the
 * next cluster starts. Containers stop before their cgroups are removed (a pid still there is moved
 * to the controller's root group, never killed). Needs root and cgroup v1 `cpu`, `cpuacct`, `blkio`:
 * without them {@link PodCgroups.open} says why and the kubelet runs pods without cgroups (cAdvisor
 * then serves `machine_cpu_cores` only).
 *
 * Not simulated: the QoS classes' `burstable`/`besteffort` levels, memory limits, the pause
 * container (`container="POD"`), cgroup v2, the kubelet's `/metrics/resource` and `/stats/summary`.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { cgroupRoot } from '../../src/process/cgroup';

/** The three v1 hierarchies a pod's cgroup is made in. */
const CONTROLLERS = ['cpu', 'cpuacct', 'blkio'] as const;
type Controller = (typeof CONTROLLERS)[number];

/** CFS period the kubelet writes, µs. */
const CFS_PERIOD_US = 100_000;

/** A container's cgroup: where it is and what the exposition labels it with. */
interface ContainerGroup {
  /** Container id (12 hex; a restart gets another). */
  id: string;
  name: string;
  image: string;
  /** CPU limit, cores; undefined without one. */
  cpus?: number;
}

/** A pod's cgroup and its containers' groups. */
interface PodGroup {
  uid: string;
  namespace: string;
  pod: string;
  node: string;
  cpus?: number;
  containers: Map<string, ContainerGroup>;
}

/** One cgroup's counters, as read. */
interface Reading {
  atMs: number;
  cpuNs: number;
  /** device `maj:min` → bytes / ops by operation. */
  bytes: Map<string, { Read: number; Write: number }>;
  ops: Map<string, { Read: number; Write: number }>;
  quota: number;
  period: number;
}

const hex = (n: number) => randomBytes(n).toString('hex').slice(0, n);
let clusters = 0;

/** `/dev/<name>` of a block device `maj:min` (its `uevent` DEVNAME), else the numbers. */
function deviceName(majMin: string): string {
  try {
    const m = /^DEVNAME=(.+)$/m.exec(fs.readFileSync(`/sys/dev/block/${majMin}/uevent`, 'utf8'));
    if (m) return `/dev/${m[1]!.trim()}`;
  } catch {
    /* unknown */
  }
  return majMin;
}

/** `maj:min Op N` lines of a blkio stat file, by device and Read/Write. */
function blkio(file: string): Map<string, { Read: number; Write: number }> {
  const out = new Map<string, { Read: number; Write: number }>();
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return out;
  }
  for (const line of text.split('\n')) {
    const [dev, op, n] = line.trim().split(/\s+/);
    if (!dev || !/^\d+:\d+$/.test(dev) || (op !== 'Read' && op !== 'Write')) continue;
    const e = out.get(dev) ?? { Read: 0, Write: 0 };
    e[op] += Number(n) || 0;
    out.set(dev, e);
  }
  return out;
}

const q = (s: string) => s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

/** Per-cluster pod cgroups; see the module comment. */
export class PodCgroups {
  private readonly pods = new Map<string, PodGroup>();
  private readonly cache = new Map<string, Reading>();

  private constructor(
    /** Controller → its mount (`/sys/fs/cgroup/cpu` …). */
    private readonly mounts: Record<Controller, string>,
    /** The kubelet's cgroup root below each mount, e.g. `chbench-sim-4242-1`. */
    readonly name: string,
    private readonly housekeepingMs: number,
  ) {}

  /**
   * The pod cgroups of a new cluster, or why there are none (not root, no cgroup v1 `cpu`/`cpuacct`/`blkio`).
   * Removes roots left by processes that no longer exist.
   * @param housekeepingMs how long a reading is served again before the cgroup is read anew (cAdvisor's housekeeping); 0 = every request reads
   */
  static open(housekeepingMs = 0): PodCgroups | string {
    if (process.getuid?.() !== 0) return 'not root: pods run without cgroups';
    const root = cgroupRoot();
    const mounts = {} as Record<Controller, string>;
    for (const c of CONTROLLERS) {
      const m = path.join(root, c);
      const probe =
        c === 'cpu' ? 'cpu.cfs_quota_us' : c === 'cpuacct' ? 'cpuacct.usage' : 'blkio.throttle.io_service_bytes';
      if (!fs.existsSync(path.join(m, probe))) return `no cgroup v1 ${c} hierarchy at ${m}: pods run without cgroups`;
      mounts[c] = m;
    }
    for (const c of CONTROLLERS)
      for (const e of fs.readdirSync(mounts[c])) {
        const pid = /^chbench-sim-(\d+)-\d+$/.exec(e)?.[1];
        if (!pid) continue;
        let alive = true;
        try {
          process.kill(Number(pid), 0);
        } catch {
          alive = false;
        }
        if (!alive) removeTree(mounts[c], path.join(mounts[c], e));
      }
    return new PodCgroups(mounts, `chbench-sim-${process.pid}-${++clusters}`, housekeepingMs);
  }

  /** `/<cgroup root>/kubepods/pod<uid>[/<container id>]`: the cgroup's path as cAdvisor's `id` label shows it. */
  idOf(uid: string, containerId?: string): string {
    return `/${this.name}/kubepods/pod${uid}${containerId ? `/${containerId}` : ''}`;
  }

  private dir(c: Controller, id: string): string {
    return path.join(this.mounts[c], id);
  }

  private writeQuota(id: string, cpus: number | undefined): void {
    if (cpus === undefined) return;
    fs.writeFileSync(path.join(this.dir('cpu', id), 'cpu.cfs_period_us'), String(CFS_PERIOD_US));
    fs.writeFileSync(
      path.join(this.dir('cpu', id), 'cpu.cfs_quota_us'),
      String(Math.max(1000, Math.round(cpus * CFS_PERIOD_US))),
    );
  }

  /**
   * Make the pod's cgroup (once) and a new container cgroup in it, with the CFS quotas.
   * @param cpus the container's `limits.cpu`, cores (the pod's quota is the sum of its containers')
   * @returns the `cgroup.procs` files the container's process must join before it execs
   */
  startContainer(
    pod: { uid: string; namespace: string; name: string; node: string },
    container: { name: string; image: string; cpus?: number },
  ): { containerId: string; cgroupProcs: string[] } {
    let p = this.pods.get(pod.uid);
    if (!p) {
      p = { uid: pod.uid, namespace: pod.namespace, pod: pod.name, node: pod.node, containers: new Map() };
      this.pods.set(pod.uid, p);
      for (const c of CONTROLLERS) fs.mkdirSync(this.dir(c, this.idOf(pod.uid)), { recursive: true });
    }
    const prev = p.containers.get(container.name);
    if (prev) this.removeContainer(pod.uid, container.name);
    const id = hex(12);
    const g: ContainerGroup = { id, name: container.name, image: container.image, cpus: container.cpus };
    p.containers.set(container.name, g);
    const cid = this.idOf(pod.uid, id);
    for (const c of CONTROLLERS) fs.mkdirSync(this.dir(c, cid), { recursive: true });
    const sum = [...p.containers.values()].reduce<number | undefined>(
      (a, x) => (x.cpus === undefined ? a : (a ?? 0) + x.cpus),
      undefined,
    );
    p.cpus = sum;
    this.writeQuota(this.idOf(pod.uid), sum);
    this.writeQuota(cid, container.cpus);
    return { containerId: id, cgroupProcs: CONTROLLERS.map((c) => path.join(this.dir(c, cid), 'cgroup.procs')) };
  }

  /** Remove one container's cgroup (its process has exited). Idempotent. */
  removeContainer(uid: string, name: string): void {
    const p = this.pods.get(uid);
    const g = p?.containers.get(name);
    if (!p || !g) return;
    p.containers.delete(name);
    for (const c of CONTROLLERS) removeTree(this.mounts[c], this.dir(c, this.idOf(uid, g.id)));
    this.cache.delete(this.idOf(uid, g.id));
  }

  /** Remove a pod's cgroup and its containers' (the pod's containers have stopped). Idempotent. */
  removePod(uid: string): void {
    this.pods.delete(uid);
    for (const c of CONTROLLERS) removeTree(this.mounts[c], this.dir(c, this.idOf(uid)));
    for (const k of [...this.cache.keys()]) if (k.startsWith(this.idOf(uid))) this.cache.delete(k);
  }

  /** Remove every cgroup of this cluster, its root included. Idempotent. */
  removeAll(): void {
    this.pods.clear();
    this.cache.clear();
    for (const c of CONTROLLERS) removeTree(this.mounts[c], path.join(this.mounts[c], this.name));
  }

  /** The cgroup directories of this cluster that exist now (for assertions: none after stop). */
  existing(): string[] {
    const out: string[] = [];
    const walk = (d: string): void => {
      if (!fs.existsSync(d)) return;
      out.push(d);
      for (const e of fs.readdirSync(d, { withFileTypes: true })) if (e.isDirectory()) walk(path.join(d, e.name));
    };
    for (const c of CONTROLLERS) walk(path.join(this.mounts[c], this.name));
    return out;
  }

  /** The pod's cgroup directory in one hierarchy (for tests comparing with the exposition). */
  podDir(controller: Controller, uid: string): string {
    return this.dir(controller, this.idOf(uid));
  }

  /** A container's cgroup directory in one hierarchy; undefined when it runs none. */
  containerDir(controller: Controller, uid: string, name: string): string | undefined {
    const g = this.pods.get(uid)?.containers.get(name);
    return g ? this.dir(controller, this.idOf(uid, g.id)) : undefined;
  }

  private read(id: string, recursive: boolean): Reading {
    const hit = this.cache.get(id);
    const now = Date.now();
    if (hit && this.housekeepingMs > 0 && now - hit.atMs < this.housekeepingMs) return hit;
    const num = (c: Controller, f: string) => {
      try {
        return Number(fs.readFileSync(path.join(this.dir(c, id), f), 'utf8').trim()) || 0;
      } catch {
        return 0;
      }
    };
    const suffix = recursive ? '_recursive' : '';
    const r: Reading = {
      atMs: now,
      cpuNs: num('cpuacct', 'cpuacct.usage'),
      bytes: blkio(path.join(this.dir('blkio', id), `blkio.throttle.io_service_bytes${suffix}`)),
      ops: blkio(path.join(this.dir('blkio', id), `blkio.throttle.io_serviced${suffix}`)),
      quota: num('cpu', 'cpu.cfs_quota_us'),
      period: num('cpu', 'cpu.cfs_period_us'),
    };
    this.cache.set(id, r);
    return r;
  }

  /**
   * The kubelet's `/metrics/cadvisor` for `node`: Prometheus text format 0.0.4, every series with its
   * reading's timestamp (see the module comment).
   */
  cadvisorText(node: string): string {
    type Line = { labels: Record<string, string>; value: number; at: number };
    const series = new Map<string, { help: string; type: string; lines: Line[] }>();
    const add = (
      name: string,
      help: string,
      type: string,
      labels: Record<string, string>,
      value: number,
      at: number,
    ) => {
      const s = series.get(name) ?? { help, type, lines: [] };
      s.lines.push({ labels, value, at });
      series.set(name, s);
    };
    const HELP = {
      cpu: 'Cumulative cpu time consumed in seconds.',
      rb: 'Cumulative count of bytes read',
      wb: 'Cumulative count of bytes written',
      ro: 'Cumulative count of reads completed',
      wo: 'Cumulative count of writes completed',
      blk: 'Blkio device bytes usage',
      quota: 'CPU quota of the container.',
      period: 'CPU period of the container.',
    };
    for (const p of this.pods.values()) {
      if (p.node !== node) continue;
      const groups: { id: string; container: string; image: string; name: string; recursive: boolean }[] = [
        { id: this.idOf(p.uid), container: '', image: '', name: '', recursive: true },
        ...[...p.containers.values()].map((g) => ({
          id: this.idOf(p.uid, g.id),
          container: g.name,
          image: g.image,
          name: g.id,
          recursive: false,
        })),
      ];
      for (const g of groups) {
        const r = this.read(g.id, g.recursive);
        const base = {
          container: g.container,
          id: g.id,
          image: g.image,
          name: g.name,
          namespace: p.namespace,
          pod: p.pod,
        };
        add('container_cpu_usage_seconds_total', HELP.cpu, 'counter', { ...base, cpu: 'total' }, r.cpuNs / 1e9, r.atMs);
        for (const [dev, b] of r.bytes) {
          const device = deviceName(dev);
          const [major, minor] = dev.split(':');
          add('container_fs_reads_bytes_total', HELP.rb, 'counter', { ...base, device }, b.Read, r.atMs);
          add('container_fs_writes_bytes_total', HELP.wb, 'counter', { ...base, device }, b.Write, r.atMs);
          for (const op of ['Read', 'Write'] as const)
            add(
              'container_blkio_device_usage_total',
              HELP.blk,
              'counter',
              { ...base, device, major: major!, minor: minor!, operation: op },
              b[op],
              r.atMs,
            );
        }
        for (const [dev, o] of r.ops) {
          const device = deviceName(dev);
          add('container_fs_reads_total', HELP.ro, 'counter', { ...base, device }, o.Read, r.atMs);
          add('container_fs_writes_total', HELP.wo, 'counter', { ...base, device }, o.Write, r.atMs);
        }
        if (r.quota > 0) {
          add('container_spec_cpu_quota', HELP.quota, 'gauge', base, r.quota, r.atMs);
          add('container_spec_cpu_period', HELP.period, 'gauge', base, r.period, r.atMs);
        }
      }
    }
    const out: string[] = [];
    for (const [name, s] of series) {
      out.push(`# HELP ${name} ${s.help}`, `# TYPE ${name} ${s.type}`);
      for (const l of s.lines) {
        // Sorted by name, as the Prometheus client the kubelet uses writes them.
        const labels = Object.entries(l.labels)
          .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))
          .map(([k, v]) => `${k}="${q(v)}"`)
          .join(',');
        out.push(`${name}{${labels}} ${l.value} ${l.at}`);
      }
    }
    out.push('# HELP machine_cpu_cores Number of logical CPU cores.', '# TYPE machine_cpu_cores gauge');
    out.push(`machine_cpu_cores{boot_id="",machine_id="",system_uuid=""} ${os.availableParallelism()}`);
    return out.join('\n') + '\n';
  }
}

/** rmdir `d` and its sub-cgroups, moving a left-over pid to `mount`'s root group first. Idempotent. */
function removeTree(mount: string, d: string): void {
  if (!fs.existsSync(d)) return;
  for (const e of fs.readdirSync(d, { withFileTypes: true }))
    if (e.isDirectory()) removeTree(mount, path.join(d, e.name));
  try {
    for (const l of fs.readFileSync(path.join(d, 'cgroup.procs'), 'utf8').split('\n'))
      if (l.trim()) fs.writeFileSync(path.join(mount, 'cgroup.procs'), l.trim());
  } catch {
    /* gone or empty */
  }
  try {
    fs.rmdirSync(d);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}
