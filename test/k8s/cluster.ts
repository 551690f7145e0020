/**
 * A simulated Kubernetes control plane around {@link KubeEmulator}: nodes, a scheduler, PVC binding
 * with a CSI driver hook, and a kubelet that runs each pod's containers on its own loopback IP.
 * Everything here talks to the emulator in process and reacts to its changes, the way controllers
 * react to watches; clients see the results only through the real HTTP API.
 *
 * - Nodes: configurable name, zone, instance type, labels, allocatable cpu/memory; spec.providerID
 *   `aws:///<zone>/i-<17 hex>`; Ready; InternalIP 127.0.0.1.
 * - Scheduler: binds a pending pod to the first node (by name) whose labels match `nodeSelector` and
 *   required node affinity, whose allocatable cpu/memory fit the requests of the pods already on it,
 *   and whose zone matches the node affinity of the PVs the pod's bound claims use. Otherwise a
 *   `FailedScheduling` event in the real wording ("0/N nodes are available: …") and condition
 *   PodScheduled=False/Unschedulable.
 * - Volumes: an `Immediate` claim is provisioned at once (in the first node's zone); a
 *   `WaitForFirstConsumer` claim waits (event `WaitForFirstConsumer`) until the scheduler picks a
 *   node for a pod using it, then gets annotation `volume.kubernetes.io/selected-node` and a PV in
 *   that node's zone (`spec.csi.driver` = the class's provisioner, `csi.volumeHandle` from the
 *   {@link ClusterOptions.createVolume} hook, nodeAffinity on `topology.kubernetes.io/zone`). A
 *   missing StorageClass or a failing driver gives `ProvisioningFailed`. A released PV with
 *   reclaimPolicy Delete is deleted through {@link ClusterOptions.deleteVolume}; Retain → Released.
 * - Kubelet: gives each started pod a loopback IP 127.0.0.N (N ≥ 2, skipping addresses whose
 *   container port is taken), checks the image against the known-image list (unknown:
 *   `ErrImagePull`, then `ImagePullBackOff`, with `Failed`/`BackOff` events), runs each container via
 *   {@link ClusterOptions.runContainer}, runs readiness probes (httpGet and tcpSocket for real; exec
 *   through {@link ClusterOptions.execProbe}) to set Ready/ContainersReady, restarts exited containers
 *   per restartPolicy with `lastState.terminated` (Error/Completed/OOMKilled), and stops a pod's
 *   containers when it is deleted or evicted. Probe periods are capped at `probePeriodMs` and initial
 *   delays are ignored, so tests do not wait for real-time seconds. A runner gets the container's PVC
 *   mounts resolved to their PVs (`ctx.volumes`, with `volumeHandle` and zone) so it can keep a
 *   volume's data in a directory derived from the handle; {@link SimCluster.running} lists running
 *   containers with IP, node, volumes and `pid` (when the runner reports one) for metrics publishers.
 * - Pod cgroups and cAdvisor (`kubelet-cgroups.ts`; as root on cgroup v1, unless `podCgroups: false`):
 *   each pod gets `<cgroup root>/kubepods/pod<uid>` and each container start a child group in the
 *   `cpu`, `cpuacct` and `blkio` hierarchies, with the container's `limits.cpu` as a CFS quota; the
 *   runner's process joins it before it execs (`ctx.cgroupProcs`). The node proxy
 *   `GET /api/v1/nodes/<node>/proxy/metrics/cadvisor` serves the node's pods' real cgroup counters
 *   (Prometheus text, read at request time or at most `housekeepingMs` old). A pod's cgroups are
 *   removed when its containers stop (deletion, eviction, node loss, cluster stop).
 * - Test controls: {@link SimCluster.evict} (node-pressure eviction), {@link SimCluster.oomKill},
 *   {@link SimCluster.loseNode} (the node's machine is gone: containers stopped, cgroups removed, node
 *   NotReady, its kubelet no longer answers the proxy), {@link SimCluster.volumes} (what the CSI hooks
 *   created and deleted), {@link SimCluster.event}.
 * - Not simulated: taints/tolerations, pod (anti-)affinity, preemption, resource limits enforcement
 *   other than the CFS quota (an OOM kill happens only through oomKill()), exponential back-off, init
 *   containers, volume attach/detach (a volume is usable on any node of its zone at once), the node
 *   controller's eviction of a lost node's pods.
 */
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import { KubeEmulator, type Change, type EmulatorOptions, type KObj, type NodeProxyAnswer } from './emulator';
import { PodCgroups } from './kubelet-cgroups';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

export interface NodeConfig {
  name: string;
  /** `topology.kubernetes.io/zone`, e.g. `us-east-1a`. */
  zone: string;
  /** `node.kubernetes.io/instance-type`; default m5.xlarge. */
  instanceType?: string;
  labels?: Record<string, string>;
  /** Allocatable cpu (Kubernetes quantity); default `3920m` (an m5.xlarge). */
  cpu?: string;
  /** Allocatable memory; default `14Gi`. */
  memory?: string;
  /** EC2 instance id; default a random `i-<17 hex>`. */
  instanceId?: string;
}

export interface ContainerExit {
  exitCode: number;
  /** e.g. `Error`, `Completed`; defaults from the exit code. */
  reason?: string;
}

export interface ContainerHandle {
  stop(): Promise<void> | void;
  /** Resolves when the process ends (after stop() too). */
  exited: Promise<ContainerExit>;
  /** The process id, when there is a process (for /proc/<pid>/io readers such as a metrics publisher). */
  pid?: number;
}

export interface ContainerContext {
  /** The pod spec's container this call runs. */
  container: Any;
  /** Appends to the container's log (`GET .../pods/<name>/log`). */
  log(text: string): void;
  /**
   * The container's PVC mounts, resolved to their bound PV: a runner keeps a volume's data in a
   * directory derived from `volumeHandle`, so a new pod on the same claim sees the same data.
   */
  volumes: MountedVolume[];
  /**
   * The `cgroup.procs` files of the container's cgroup (cpu, cpuacct, blkio), which a runner that
   * starts a process makes it join before it execs; empty when the kubelet runs pods without cgroups.
   */
  cgroupProcs: string[];
}

export interface MountedVolume {
  /** Pod volume name. */
  name: string;
  mountPath: string;
  claimName: string;
  pvName: string;
  /** `spec.csi.volumeHandle` of the PV (e.g. the EBS volume id). */
  volumeHandle: string;
  zone?: string;
}

/** A container the kubelet runs now. */
export interface RunningContainer {
  namespace: string;
  pod: string;
  uid: string;
  container: string;
  podIp: string;
  node: string;
  pid?: number;
  volumes: MountedVolume[];
}

export interface VolumeRequest {
  /** The PV name the volume is for (`pvc-<claim uid>`). */
  name: string;
  sizeBytes: number;
  zone: string;
  /** The StorageClass parameters (type, iops, throughput, encrypted, …). */
  parameters: Record<string, string>;
  /** The claim the volume is provisioned for (the EBS CSI driver tags the volume with it). */
  claim?: { namespace: string; name: string };
}

export interface ClusterOptions {
  nodes?: NodeConfig[];
  /** Images the kubelet can pull: exact names (a `docker.io/` prefix is ignored) or patterns. */
  knownImages?: (string | RegExp)[];
  /** Kubelet hook: start one container of `pod` on `podIp`. Default: {@link pingServer}. */
  runContainer?: (pod: KObj, podIp: string, ctx: ContainerContext) => Promise<ContainerHandle>;
  /** CSI driver hook: create a volume, return its handle. Default: `vol-<17 hex>`. */
  createVolume?: (req: VolumeRequest) => Promise<string>;
  /** CSI driver hook: delete a volume (reclaimPolicy Delete). Default: nothing. */
  deleteVolume?: (volumeHandle: string, pv: KObj) => Promise<void>;
  /** Exec readiness probe. Default: HTTP GET `http://<podIp>:8123/ping` answers 200. */
  execProbe?: (pod: KObj, container: Any, command: string[], podIp: string) => Promise<boolean>;
  /** Upper bound of probe periods. Default 100 ms. */
  probePeriodMs?: number;
  /** Time between ErrImagePull and ImagePullBackOff. Default 100 ms. */
  imagePullBackOffMs?: number;
  /** Time a crashed container waits in CrashLoopBackOff before it restarts. Default 100 ms. */
  restartBackOffMs?: number;
  /** Periodic resync of the controllers (retries, counters). Default 250 ms. */
  resyncMs?: number;
  /** Pod cgroups and cAdvisor counters (root and cgroup v1 only; see the file header). Default true. */
  podCgroups?: boolean;
  /** How long cAdvisor serves a cgroup reading again before reading anew, ms (its housekeeping). Default 0: every request reads. */
  housekeepingMs?: number;
  emulator?: EmulatorOptions;
}

export const DEFAULT_KNOWN_IMAGES: readonly (string | RegExp)[] = [
  /^clickhouse\/clickhouse-server:(latest|26\.7|26\.7\.2\.1|26\.3|26\.3\.33\.24|24\.8|24\.8\.14\.39|18\.16)$/,
  'busybox',
  'busybox:latest',
];

const ZONE = 'topology.kubernetes.io/zone';
const SELECTED_NODE = 'volume.kubernetes.io/selected-node';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const now = (): string => new Date().toISOString().replace(/\.\d+Z$/, 'Z');
const hex = (n: number) =>
  randomBytes(Math.ceil(n / 2))
    .toString('hex')
    .slice(0, n);

/** Parses a Kubernetes quantity (`2500m`, `9Gi`, `100G`, `1.5`) into base units (cores, bytes). */
export function parseQuantity(q: string | number | undefined): number {
  if (q === undefined) return 0;
  const m = /^([0-9.]+)([a-zA-Z]*)$/.exec(String(q).trim());
  if (!m) throw new Error(`bad quantity ${q}`);
  const mult: Record<string, number> = {
    '': 1,
    m: 1e-3,
    k: 1e3,
    M: 1e6,
    G: 1e9,
    T: 1e12,
    P: 1e15,
    Ki: 2 ** 10,
    Mi: 2 ** 20,
    Gi: 2 ** 30,
    Ti: 2 ** 40,
    Pi: 2 ** 50,
  };
  if (!(m[2] in mult)) throw new Error(`bad quantity suffix ${q}`);
  return Number(m[1]) * mult[m[2]];
}

/** Whether node labels satisfy one NodeSelectorTerm's matchExpressions (and metadata.name matchFields). */
function termMatches(term: Any, labels: Record<string, string>, name: string): boolean {
  const exprOk = (e: Any, value: string | undefined) => {
    switch (e.operator) {
      case 'In':
        return value !== undefined && e.values.includes(value);
      case 'NotIn':
        return value === undefined || !e.values.includes(value);
      case 'Exists':
        return value !== undefined;
      case 'DoesNotExist':
        return value === undefined;
      case 'Gt':
        return value !== undefined && Number(value) > Number(e.values[0]);
      case 'Lt':
        return value !== undefined && Number(value) < Number(e.values[0]);
      default:
        return false;
    }
  };
  return (
    (term.matchExpressions ?? []).every((e: Any) => exprOk(e, labels[e.key])) &&
    (term.matchFields ?? []).every((e: Any) => exprOk(e, e.key === 'metadata.name' ? name : undefined))
  );
}

function nodeSelectorMatches(sel: Any, node: KObj): boolean {
  const terms = sel?.nodeSelectorTerms ?? [];
  return terms.length === 0 || terms.some((t: Any) => termMatches(t, node.metadata.labels ?? {}, node.metadata.name));
}

function podRequests(pod: KObj): { cpu: number; memory: number } {
  let cpu = 0;
  let memory = 0;
  for (const c of pod.spec?.containers ?? []) {
    const r = { ...c.resources?.limits, ...c.resources?.requests };
    cpu += parseQuantity(r.cpu);
    memory += parseQuantity(r.memory);
  }
  return { cpu, memory };
}

function imageKnown(image: string, known: readonly (string | RegExp)[]): boolean {
  const bare = image.replace(/^docker\.io\//, '').replace(/^library\//, '');
  return known.some((k) => (typeof k === 'string' ? k === bare : k.test(bare)));
}

async function httpOk(url: string, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get(url, { timeout: timeoutMs, agent: false }, (res) => {
      res.resume();
      resolve((res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 400);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

async function tcpOk(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host, port, timeout: timeoutMs }, () => {
      s.destroy();
      resolve(true);
    });
    s.on('timeout', () => s.destroy());
    s.on('error', () => resolve(false));
    s.on('close', () => resolve(false));
  });
}

async function portFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, host, () => srv.close(() => resolve(true)));
  });
}

const containerPort = (c: Any): number => c?.ports?.[0]?.containerPort ?? 8123;

/**
 * The default container: a tiny HTTP server on `podIp:<first containerPort, default 8123>` that
 * answers `/ping` with `Ok.` and `?query=SELECT version()` with the image tag, like ClickHouse.
 */
export async function pingServer(pod: KObj, podIp: string, ctx: ContainerContext): Promise<ContainerHandle> {
  const port = containerPort(ctx.container);
  const version = String(ctx.container.image ?? '').split(':')[1] ?? 'latest';
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const q = url.searchParams.get('query');
    if (url.pathname === '/ping') res.end('Ok.\n');
    else if (url.pathname === '/' && q && /^\s*SELECT\s+version\(\)\s*$/i.test(q)) res.end(`${version}\n`);
    else if (url.pathname === '/' && !q) res.end('Ok.\n');
    else {
      res.statusCode = 400;
      res.end('Code: 62. DB::Exception: this emulated container only answers SELECT version(). (SYNTAX_ERROR)\n');
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, podIp, () => resolve());
  });
  ctx.log(`${now()} listening on http://${podIp}:${port} (pod ${pod.metadata.namespace}/${pod.metadata.name})\n`);
  let exit!: (e: ContainerExit) => void;
  const exited = new Promise<ContainerExit>((r) => (exit = r));
  server.on('close', () => exit({ exitCode: 0 }));
  return {
    exited,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The kubelet's record of one running pod. */
interface PodRun {
  uid: string;
  ns: string;
  name: string;
  ip?: string;
  handles: (ContainerHandle | undefined)[];
  /** Set when the pod is being stopped on purpose (delete, eviction): exits are not restarts. */
  stopping: boolean;
  /** Containers whose next exit is an OOM kill. */
  oom: Set<number>;
  /** Pending probe timer per container index. */
  timers: Map<number, NodeJS.Timeout>;
  ready: boolean[];
}

export class SimCluster {
  readonly emu: KubeEmulator;
  private readonly nodes: NodeConfig[];
  private readonly runs = new Map<string, PodRun>();
  private readonly usedIps = new Set<string>();
  private readonly recorded = new Map<string, string>();
  private unsubscribe?: () => void;
  private resync?: NodeJS.Timeout;
  private busy = false;
  private dirty = false;
  private stopped = false;
  private idle: Promise<void> = Promise.resolve();
  /** Volumes created and deleted by the CSI hooks, for assertions. */
  readonly volumes = { created: [] as VolumeRequest[], deleted: [] as string[] };
  /** The kubelet's pod cgroups; undefined when pods run without them (`cgroupsOff` says why). */
  readonly cgroups?: PodCgroups;
  /** Why pods run without cgroups (not root, no cgroup v1, `podCgroups: false`); undefined when they have them. */
  readonly cgroupsOff?: string;
  /** Nodes whose machine is gone ({@link SimCluster.loseNode}). */
  private readonly lost = new Set<string>();

  constructor(private readonly opts: ClusterOptions = {}) {
    this.emu = new KubeEmulator(opts.emulator);
    this.nodes = opts.nodes ?? [{ name: 'node-a', zone: 'us-east-1a' }];
    const cg = opts.podCgroups === false ? 'podCgroups: false' : PodCgroups.open(opts.housekeepingMs ?? 0);
    if (typeof cg === 'string') this.cgroupsOff = cg;
    else this.cgroups = cg;
  }

  get url(): string {
    return this.emu.url;
  }

  async start(): Promise<this> {
    for (const n of this.nodes) this.emu.create('nodes', this.nodeObject(n));
    this.emu.podTerminating = (pod) => this.stopPod(pod, true);
    this.emu.nodeProxy = (node, path) => this.kubeletEndpoint(node, path);
    this.unsubscribe = this.emu.subscribe((c: Change) => {
      if (c.resource === 'pods' && c.type === 'DELETED') {
        // Also pods removed without a grace period (the podTerminating hook is not called for them).
        void this.stopPod(c.object, false).then(() => this.runs.delete(c.object.metadata.uid!));
      }
      if (c.resource !== 'events' && c.resource !== 'events.events.k8s.io') this.kick();
    });
    this.resync = setInterval(() => this.kick(), this.opts.resyncMs ?? 250);
    await this.emu.start();
    this.kick();
    return this;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    clearInterval(this.resync);
    await this.idle;
    await Promise.all([...this.runs.values()].map((r) => this.stopRun(r)));
    try {
      this.cgroups?.removeAll();
    } catch (e) {
      console.error(`sim kubelet: removing the cgroups under ${this.cgroups?.name}:`, e);
    }
    await this.emu.stop();
  }

  /**
   * The kubelet's HTTP endpoints behind the node proxy: `metrics/cadvisor` (the node's pod cgroups,
   * Prometheus text); 404 otherwise; 503 for a lost node (no kubelet answers).
   */
  private async kubeletEndpoint(node: KObj, path: string): Promise<NodeProxyAnswer> {
    const name = node.metadata.name;
    if (this.lost.has(name) || !this.nodes.some((n) => n.name === name))
      return {
        status: 503,
        contentType: 'application/json',
        body: JSON.stringify({
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          message: `error trying to reach service: dial tcp 127.0.0.1:10250: connect: connection refused (node ${name})`,
          reason: 'ServiceUnavailable',
          code: 503,
        }),
      };
    if (path.replace(/^\/+/, '') === 'metrics/cadvisor') {
      const body =
        this.cgroups?.cadvisorText(name) ??
        `# HELP machine_cpu_cores Number of logical CPU cores.\n# TYPE machine_cpu_cores gauge\nmachine_cpu_cores ${os.availableParallelism()}\n`;
      return { status: 200, contentType: 'text/plain; version=0.0.4; charset=utf-8', body };
    }
    return { status: 404, contentType: 'text/plain; charset=utf-8', body: '404 page not found\n' };
  }

  /**
   * The node's machine is gone: its containers stop (their processes end, their cgroups are removed),
   * the node turns NotReady (`NodeStatusUnknown`) and its kubelet answers no proxy request. Its pods
   * are left as they are (the node controller's eviction after its grace period is not simulated).
   */
  async loseNode(name: string): Promise<void> {
    this.lost.add(name);
    const onNode = [...this.runs.values()].filter(
      (r) => this.emu.tryGet('pods', r.ns, r.name)?.spec?.nodeName === name,
    );
    await Promise.all(onNode.map((r) => this.stopRun(r)));
    this.emu.mutate(
      'nodes',
      undefined,
      name,
      (n) =>
        (n.status.conditions = this.setCondition(
          n.status.conditions,
          'Ready',
          'Unknown',
          'NodeStatusUnknown',
          'Kubelet stopped posting node status.',
        )),
      'status',
    );
  }

  /** Every container the kubelet runs now (for metrics publishers and assertions). */
  running(): RunningContainer[] {
    const out: RunningContainer[] = [];
    for (const r of this.runs.values()) {
      const pod = this.emu.tryGet('pods', r.ns, r.name);
      if (!pod || pod.metadata.uid !== r.uid || !r.ip) continue;
      (pod.spec?.containers ?? []).forEach((c: Any, i: number) => {
        const h = r.handles[i];
        if (h)
          out.push({
            namespace: r.ns,
            pod: r.name,
            uid: r.uid,
            container: c.name,
            podIp: r.ip!,
            node: pod.spec.nodeName,
            pid: h.pid,
            volumes: this.mounts(pod, c),
          });
      });
    }
    return out;
  }

  /** A container's PVC mounts with their bound PVs (unbound claims are left out). */
  private mounts(pod: KObj, c: Any): MountedVolume[] {
    const out: MountedVolume[] = [];
    for (const m of c.volumeMounts ?? []) {
      const v = (pod.spec?.volumes ?? []).find((x: Any) => x.name === m.name);
      const claimName = v?.persistentVolumeClaim?.claimName;
      if (!claimName) continue;
      const pvc = this.emu.tryGet('persistentvolumeclaims', pod.metadata.namespace, claimName);
      const pv = pvc?.spec?.volumeName && this.emu.tryGet('persistentvolumes', undefined, pvc.spec.volumeName);
      if (!pv) continue;
      const zone = pv.spec?.nodeAffinity?.required?.nodeSelectorTerms?.[0]?.matchExpressions?.find(
        (e: Any) => e.key === ZONE,
      )?.values?.[0];
      out.push({
        name: m.name,
        mountPath: m.mountPath,
        claimName,
        pvName: pv.metadata.name,
        volumeHandle: pv.spec?.csi?.volumeHandle ?? '',
        zone,
      });
    }
    return out;
  }

  /** The pod's loopback IP while the kubelet runs it. */
  podIp(ns: string, name: string): string | undefined {
    return [...this.runs.values()].find((r) => r.ns === ns && r.name === name)?.ip;
  }

  /** Node-pressure eviction: stops the containers; phase Failed, reason Evicted, event Evicted. */
  async evict(ns: string, name: string, message = 'The node was low on resource: memory. '): Promise<void> {
    const pod = this.emu.get('pods', ns, name);
    await this.stopPod(pod, false);
    this.emu.mutate(
      'pods',
      ns,
      name,
      (p) => {
        p.status.phase = 'Failed';
        p.status.reason = 'Evicted';
        p.status.message = message;
        p.status.conditions = this.setCondition(p.status.conditions, 'Ready', 'False', 'PodFailed');
        p.status.conditions = this.setCondition(p.status.conditions, 'ContainersReady', 'False', 'PodFailed');
        p.status.conditions = this.setCondition(
          p.status.conditions,
          'DisruptionTarget',
          'True',
          'TerminationByKubelet',
          message,
        );
        p.status.containerStatuses = (p.status.containerStatuses ?? []).map((s: Any) => ({
          ...s,
          ready: false,
          started: false,
          state: { terminated: { exitCode: 137, reason: 'ContainerStatusUnknown', finishedAt: now() } },
        }));
      },
      'status',
    );
    this.event(pod, 'Warning', 'Evicted', message, 'kubelet');
  }

  /** Kills a container as the kernel's OOM killer would (exit 137, reason OOMKilled); restartPolicy decides what follows. */
  async oomKill(ns: string, name: string, containerIndex = 0): Promise<void> {
    const run = [...this.runs.values()].find((r) => r.ns === ns && r.name === name);
    const h = run?.handles[containerIndex];
    if (!run || !h) throw new Error(`oomKill: ${ns}/${name} has no running container ${containerIndex}`);
    run.oom.add(containerIndex);
    await h.stop();
  }

  // ----- plumbing -----

  private kick(): void {
    if (this.stopped) return;
    if (this.busy) {
      this.dirty = true;
      return;
    }
    this.busy = true;
    this.idle = (async () => {
      try {
        do {
          this.dirty = false;
          await this.reconcile();
        } while (this.dirty && !this.stopped);
      } catch (e) {
        if (!this.stopped) console.error('sim cluster: reconcile failed', e);
      } finally {
        this.busy = false;
      }
    })();
  }

  private nodeObject(n: NodeConfig): KObj {
    const cpu = n.cpu ?? '3920m';
    const memory = n.memory ?? '14Gi';
    const instanceType = n.instanceType ?? 'm5.xlarge';
    return {
      metadata: {
        name: n.name,
        labels: {
          'kubernetes.io/hostname': n.name,
          'kubernetes.io/os': 'linux',
          'kubernetes.io/arch': 'amd64',
          'node.kubernetes.io/instance-type': instanceType,
          [ZONE]: n.zone,
          'topology.kubernetes.io/region': n.zone.replace(/[a-z]$/, ''),
          'topology.ebs.csi.aws.com/zone': n.zone,
          ...n.labels,
        },
      },
      spec: { providerID: `aws:///${n.zone}/${n.instanceId ?? `i-${hex(17)}`}` },
      status: {
        capacity: { cpu: String(Math.ceil(parseQuantity(cpu))), memory, pods: '110' },
        allocatable: { cpu, memory, pods: '110' },
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'KubeletReady',
            message: 'kubelet is posting ready status',
            lastHeartbeatTime: now(),
            lastTransitionTime: now(),
          },
        ],
        addresses: [
          { type: 'InternalIP', address: '127.0.0.1' },
          { type: 'Hostname', address: n.name },
        ],
        nodeInfo: {
          kubeletVersion: 'v1.32.0-emulated',
          containerRuntimeVersion: 'emulated://1.0',
          operatingSystem: 'linux',
          architecture: 'amd64',
          osImage: 'chbench simulated node',
        },
      },
    };
  }

  /** Records an event (core v1), counting repeats of the same reason and message as a real recorder does. */
  event(obj: KObj, type: 'Normal' | 'Warning', reason: string, message: string, component = 'default-scheduler'): void {
    const ns = obj.metadata.namespace ?? 'default';
    const key = `${obj.metadata.uid}/${reason}/${message}`;
    const existing = this.recorded.get(key);
    if (existing) {
      const ev = this.emu.tryGet('events', ns, existing);
      if (ev) {
        // Repeats are counted at most once a second (timestamps have second resolution), so a
        // retrying controller does not flood watchers with event updates.
        if (ev.lastTimestamp === now()) return;
        this.emu.mutate('events', ns, existing, (e) => {
          e.count = ((e.count as number) ?? 1) + 1;
          e.lastTimestamp = now();
        });
        return;
      }
    }
    const name = `${obj.metadata.name}.${hex(16)}`;
    this.recorded.set(key, name);
    this.emu.create(
      'events',
      {
        metadata: { name, namespace: ns },
        involvedObject: {
          kind: obj.kind,
          apiVersion: obj.apiVersion,
          namespace: obj.metadata.namespace,
          name: obj.metadata.name,
          uid: obj.metadata.uid,
          resourceVersion: obj.metadata.resourceVersion,
        },
        reason,
        message,
        type,
        source: { component },
        reportingComponent: component,
        reportingInstance: '',
        firstTimestamp: now(),
        lastTimestamp: now(),
        count: 1,
      },
      ns,
    );
  }

  private setCondition(conds: Any[] | undefined, type: string, status: string, reason?: string, message?: string) {
    const list = [...(conds ?? [])];
    const i = list.findIndex((c) => c.type === type);
    if (i >= 0 && list[i].status === status && list[i].reason === reason && list[i].message === message) return list;
    const c = {
      type,
      status,
      lastProbeTime: null,
      lastTransitionTime: now(),
      ...(reason ? { reason } : {}),
      ...(message ? { message } : {}),
    };
    if (i >= 0) list[i] = c;
    else list.push(c);
    return list;
  }

  // ----- controllers -----

  private async reconcile(): Promise<void> {
    await this.reconcileClaims();
    await this.reconcileVolumes();
    await this.schedule();
    this.kubelet();
  }

  private storageClass(pvc: KObj): KObj | undefined {
    const name = pvc.spec?.storageClassName;
    if (name) return this.emu.tryGet('storageclasses.storage.k8s.io', undefined, name);
    return this.emu
      .list('storageclasses.storage.k8s.io')
      .find((sc) => sc.metadata.annotations?.['storageclass.kubernetes.io/is-default-class'] === 'true');
  }

  private async reconcileClaims(): Promise<void> {
    for (const pvc of this.emu.list('persistentvolumeclaims')) {
      if (pvc.metadata.deletionTimestamp || pvc.spec?.volumeName) continue;
      const sc = this.storageClass(pvc);
      if (!sc) {
        const name = pvc.spec?.storageClassName ?? '';
        this.event(
          pvc,
          'Warning',
          'ProvisioningFailed',
          `storageclass.storage.k8s.io "${name}" not found`,
          'persistentvolume-controller',
        );
        continue;
      }
      const selected = pvc.metadata.annotations?.[SELECTED_NODE];
      if (sc.volumeBindingMode === 'WaitForFirstConsumer' && !selected) {
        this.event(
          pvc,
          'Normal',
          'WaitForFirstConsumer',
          'waiting for first consumer to be created before binding',
          'persistentvolume-controller',
        );
        continue;
      }
      const node = selected
        ? this.nodes.find((n) => n.name === selected)
        : [...this.nodes].sort((a, b) => a.name.localeCompare(b.name))[0];
      if (node) await this.provision(pvc, sc, node.zone);
    }
  }

  private async provision(pvc: KObj, sc: KObj, zone: string): Promise<boolean> {
    const provisioner = String(sc.provisioner);
    const ref = `${pvc.metadata.namespace}/${pvc.metadata.name}`;
    this.event(
      pvc,
      'Normal',
      'Provisioning',
      `External provisioner is provisioning volume for claim "${ref}"`,
      provisioner,
    );
    const pvName = `pvc-${pvc.metadata.uid}`;
    const size = pvc.spec?.resources?.requests?.storage ?? '1Gi';
    const req: VolumeRequest = {
      name: pvName,
      sizeBytes: parseQuantity(size),
      zone,
      parameters: { ...(sc.parameters as Record<string, string>) },
      claim: { namespace: String(pvc.metadata.namespace), name: pvc.metadata.name },
    };
    let handle: string;
    try {
      handle = this.opts.createVolume ? await this.opts.createVolume(req) : `vol-${hex(17)}`;
    } catch (e) {
      this.event(
        pvc,
        'Warning',
        'ProvisioningFailed',
        `failed to provision volume with StorageClass "${sc.metadata.name}": ${e instanceof Error ? e.message : String(e)}`,
        provisioner,
      );
      return false;
    }
    this.volumes.created.push(req);
    const cur = this.emu.tryGet('persistentvolumeclaims', pvc.metadata.namespace, pvc.metadata.name);
    if (!cur || cur.metadata.uid !== pvc.metadata.uid) return false;
    this.emu.create('persistentvolumes', {
      metadata: { name: pvName, annotations: { 'pv.kubernetes.io/provisioned-by': provisioner } },
      spec: {
        capacity: { storage: size },
        accessModes: pvc.spec?.accessModes ?? ['ReadWriteOnce'],
        persistentVolumeReclaimPolicy: sc.reclaimPolicy ?? 'Delete',
        storageClassName: sc.metadata.name,
        volumeMode: pvc.spec?.volumeMode ?? 'Filesystem',
        claimRef: {
          kind: 'PersistentVolumeClaim',
          apiVersion: 'v1',
          namespace: pvc.metadata.namespace,
          name: pvc.metadata.name,
          uid: pvc.metadata.uid,
        },
        csi: { driver: provisioner, volumeHandle: handle, fsType: 'ext4' },
        nodeAffinity: {
          required: { nodeSelectorTerms: [{ matchExpressions: [{ key: ZONE, operator: 'In', values: [zone] }] }] },
        },
      },
    });
    this.emu.mutate('persistentvolumes', undefined, pvName, (pv) => (pv.status = { phase: 'Bound' }), 'status');
    this.emu.mutate('persistentvolumeclaims', pvc.metadata.namespace, pvc.metadata.name, (c) => {
      c.spec.volumeName = pvName;
      c.metadata.annotations = {
        ...c.metadata.annotations,
        'pv.kubernetes.io/bind-completed': 'yes',
        'pv.kubernetes.io/bound-by-controller': 'yes',
        'volume.kubernetes.io/storage-provisioner': provisioner,
      };
    });
    this.emu.mutate(
      'persistentvolumeclaims',
      pvc.metadata.namespace,
      pvc.metadata.name,
      (c) => (c.status = { phase: 'Bound', accessModes: c.spec.accessModes, capacity: { storage: size } }),
      'status',
    );
    this.event(pvc, 'Normal', 'ProvisioningSucceeded', `Successfully provisioned volume ${pvName}`, provisioner);
    return true;
  }

  /** PVs whose claim is gone: Released, and deleted (with the volume) under reclaimPolicy Delete. */
  private async reconcileVolumes(): Promise<void> {
    for (const pv of this.emu.list('persistentvolumes')) {
      const ref = pv.spec?.claimRef;
      if (!ref || pv.metadata.deletionTimestamp) continue;
      const claim = this.emu.tryGet('persistentvolumeclaims', ref.namespace, ref.name);
      if (claim && claim.metadata.uid === ref.uid) continue;
      if (pv.status?.phase === 'Bound')
        this.emu.mutate(
          'persistentvolumes',
          undefined,
          pv.metadata.name,
          (p) => (p.status = { phase: 'Released' }),
          'status',
        );
      if (pv.spec.persistentVolumeReclaimPolicy === 'Delete') {
        const handle = pv.spec.csi?.volumeHandle;
        if (handle) {
          try {
            await this.opts.deleteVolume?.(handle, pv);
          } catch (e) {
            this.event(
              pv,
              'Warning',
              'VolumeFailedDelete',
              e instanceof Error ? e.message : String(e),
              String(pv.spec.csi.driver),
            );
            continue;
          }
          this.volumes.deleted.push(handle);
        }
        this.emu.delete('persistentvolumes', undefined, pv.metadata.name);
      }
    }
  }

  private async schedule(): Promise<void> {
    const nodes = this.emu.list('nodes').sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
    const pods = this.emu.list('pods');
    for (const pod of pods) {
      if (pod.spec?.nodeName || pod.metadata.deletionTimestamp || pod.status?.phase !== 'Pending') continue;
      if ((pod.spec?.schedulerName ?? 'default-scheduler') !== 'default-scheduler') continue;
      const ns = pod.metadata.namespace;
      const claims: KObj[] = [];
      let missing: string | undefined;
      for (const v of pod.spec?.volumes ?? []) {
        const name = v.persistentVolumeClaim?.claimName;
        if (!name) continue;
        const c = this.emu.tryGet('persistentvolumeclaims', ns, name);
        if (!c) missing = name;
        else claims.push(c);
      }
      if (missing) {
        this.unschedulable(
          pod,
          `0/${nodes.length} nodes are available: persistentvolumeclaim "${missing}" not found. preemption: 0/${nodes.length} nodes are available: ${nodes.length} Preemption is not helpful for scheduling.`,
        );
        continue;
      }
      const reasons = new Map<string, number>();
      const fit = nodes.filter((node) => {
        const why = this.misfit(pod, node, claims, pods);
        if (why) reasons.set(why, (reasons.get(why) ?? 0) + 1);
        return !why;
      });
      if (fit.length === 0) {
        const parts = [...reasons.entries()].map(([r, n]) => `${n} ${r}`).sort();
        this.unschedulable(
          pod,
          `0/${nodes.length} nodes are available: ${parts.join(', ')}. preemption: 0/${nodes.length} nodes are available: ${nodes.length} Preemption is not helpful for scheduling.`,
        );
        continue;
      }
      const node = fit[0];
      const zone = node.metadata.labels?.[ZONE] ?? '';
      let provisioned = true;
      for (const c of claims) {
        if (c.spec?.volumeName) continue;
        const sc = this.storageClass(c);
        if (!sc) {
          provisioned = false;
          continue;
        }
        this.emu.mutate('persistentvolumeclaims', ns, c.metadata.name, (x) => {
          x.metadata.annotations = { ...x.metadata.annotations, [SELECTED_NODE]: node.metadata.name };
        });
        provisioned =
          (await this.provision(this.emu.get('persistentvolumeclaims', ns, c.metadata.name), sc, zone)) && provisioned;
      }
      if (!provisioned) {
        this.unschedulable(
          pod,
          `running PreBind plugin "VolumeBinding": binding volumes: provisioning failed for the pod's claims`,
        );
        continue;
      }
      const cur = this.emu.tryGet('pods', ns, pod.metadata.name);
      if (!cur || cur.metadata.uid !== pod.metadata.uid || cur.spec?.nodeName) continue;
      this.emu.mutate('pods', ns, pod.metadata.name, (p) => (p.spec.nodeName = node.metadata.name));
      this.emu.mutate(
        'pods',
        ns,
        pod.metadata.name,
        (p) => (p.status.conditions = this.setCondition(p.status.conditions, 'PodScheduled', 'True')),
        'status',
      );
      this.event(
        pod,
        'Normal',
        'Scheduled',
        `Successfully assigned ${ns}/${pod.metadata.name} to ${node.metadata.name}`,
      );
    }
  }

  /** Why `pod` cannot go to `node` (in the scheduler's words), or undefined when it fits. */
  private misfit(pod: KObj, node: KObj, claims: KObj[], pods: KObj[]): string | undefined {
    const labels = node.metadata.labels ?? {};
    const sel = pod.spec?.nodeSelector ?? {};
    const affinity = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
    if (Object.entries(sel).some(([k, v]) => labels[k] !== v) || (affinity && !nodeSelectorMatches(affinity, node)))
      return "node(s) didn't match Pod's node affinity/selector";
    if (node.spec?.unschedulable) return 'node(s) were unschedulable';
    if (this.lost.has(node.metadata.name)) return 'node(s) had untolerated taint {node.kubernetes.io/unreachable: }';
    for (const c of claims) {
      if (!c.spec?.volumeName) continue;
      const pv = this.emu.tryGet('persistentvolumes', undefined, c.spec.volumeName);
      if (pv && !nodeSelectorMatches(pv.spec?.nodeAffinity?.required, node))
        return 'node(s) had volume node affinity conflict';
    }
    const used = pods
      .filter((p) => p.spec?.nodeName === node.metadata.name && !['Succeeded', 'Failed'].includes(p.status?.phase))
      .map(podRequests)
      .reduce((a, b) => ({ cpu: a.cpu + b.cpu, memory: a.memory + b.memory }), { cpu: 0, memory: 0 });
    const want = podRequests(pod);
    const alloc = node.status?.allocatable ?? {};
    if (used.cpu + want.cpu > parseQuantity(alloc.cpu) + 1e-9) return 'Insufficient cpu';
    if (used.memory + want.memory > parseQuantity(alloc.memory)) return 'Insufficient memory';
    return undefined;
  }

  private unschedulable(pod: KObj, message: string): void {
    this.emu.mutate(
      'pods',
      pod.metadata.namespace,
      pod.metadata.name,
      (p) =>
        (p.status.conditions = this.setCondition(
          p.status.conditions,
          'PodScheduled',
          'False',
          'Unschedulable',
          message,
        )),
      'status',
    );
    this.event(pod, 'Warning', 'FailedScheduling', message);
  }

  // ----- kubelet -----

  private kubelet(): void {
    const ours = new Set(this.nodes.map((n) => n.name));
    for (const pod of this.emu.list('pods')) {
      if (!ours.has(pod.spec?.nodeName) || pod.metadata.deletionTimestamp || this.lost.has(pod.spec?.nodeName))
        continue;
      if (this.runs.has(pod.metadata.uid!) || pod.status?.phase !== 'Pending') continue;
      const run: PodRun = {
        uid: pod.metadata.uid!,
        ns: pod.metadata.namespace!,
        name: pod.metadata.name,
        handles: [],
        stopping: false,
        oom: new Set(),
        timers: new Map(),
        ready: [],
      };
      this.runs.set(run.uid, run);
      void this.startPod(run, pod).catch((e) => {
        if (!this.stopped) console.error(`sim kubelet: ${run.ns}/${run.name}:`, e);
      });
    }
  }

  private async allocateIp(port: number): Promise<string> {
    for (let a = 0; a < 255; a++)
      for (let b = a === 0 ? 2 : 1; b < 255; b++) {
        const ip = `127.0.${a}.${b}`;
        if (this.usedIps.has(ip)) continue;
        this.usedIps.add(ip);
        if (await portFree(ip, port)) return ip;
        this.usedIps.delete(ip);
      }
    throw new Error('sim kubelet: no free loopback address');
  }

  /** Writes pod status unless the pod went away (or was replaced by another with the same name). */
  private podStatus(run: PodRun, fn: (status: Any, pod: KObj) => void): KObj | undefined {
    const pod = this.emu.tryGet('pods', run.ns, run.name);
    if (!pod || pod.metadata.uid !== run.uid) return undefined;
    return this.emu.mutate('pods', run.ns, run.name, (p) => fn(p.status, p), 'status');
  }

  private refreshReady(run: PodRun): void {
    this.podStatus(run, (s, p) => {
      if (s.phase !== 'Running') return;
      const all = (p.spec.containers ?? []).every((_c: Any, i: number) => run.ready[i]);
      s.containerStatuses = (s.containerStatuses ?? []).map((cs: Any, i: number) => ({ ...cs, ready: !!run.ready[i] }));
      const [st, reason] = all ? ['True', undefined] : ['False', 'ContainersNotReady'];
      s.conditions = this.setCondition(s.conditions, 'ContainersReady', st, reason);
      s.conditions = this.setCondition(s.conditions, 'Ready', st, reason);
    });
  }

  private async startPod(run: PodRun, pod: KObj): Promise<void> {
    const containers: Any[] = pod.spec.containers ?? [];
    const known = this.opts.knownImages ?? DEFAULT_KNOWN_IMAGES;
    run.ip = await this.allocateIp(containerPort(containers[0]));
    this.podStatus(run, (s) => {
      Object.assign(s, {
        podIP: run.ip,
        podIPs: [{ ip: run.ip }],
        hostIP: '127.0.0.1',
        hostIPs: [{ ip: '127.0.0.1' }],
        startTime: now(),
      });
      s.conditions = this.setCondition(s.conditions, 'PodReadyToStartContainers', 'True');
      s.conditions = this.setCondition(s.conditions, 'Initialized', 'True');
      s.conditions = this.setCondition(s.conditions, 'ContainersReady', 'False', 'ContainersNotReady');
      s.conditions = this.setCondition(s.conditions, 'Ready', 'False', 'ContainersNotReady');
      s.containerStatuses = containers.map((c) => ({
        name: c.name,
        image: c.image,
        imageID: '',
        ready: false,
        started: false,
        restartCount: 0,
        state: { waiting: { reason: 'ContainerCreating' } },
      }));
    });
    const unknown = containers.map((c, i) => [c, i] as const).filter(([c]) => !imageKnown(String(c.image), known));
    if (unknown.length > 0) return this.failPull(run, pod, unknown);
    await Promise.all(containers.map((c, i) => this.startContainer(run, pod, c, i)));
  }

  private async failPull(run: PodRun, pod: KObj, unknown: (readonly [Any, number])[]): Promise<void> {
    const setWaiting = (reason: string, message: (image: string) => string) =>
      this.podStatus(run, (s) => {
        for (const [c, i] of unknown) s.containerStatuses[i].state = { waiting: { reason, message: message(c.image) } };
      });
    const full = (image: string) =>
      image.includes('/') && image.split('/')[0].includes('.')
        ? image
        : `docker.io/${image.includes('/') ? '' : 'library/'}${image}`;
    const pullError = (image: string) =>
      `rpc error: code = NotFound desc = failed to pull and unpack image "${full(image)}": failed to resolve reference "${full(image)}": ${full(image)}: not found`;
    for (const [c] of unknown) {
      this.event(pod, 'Normal', 'Pulling', `Pulling image "${c.image}"`, 'kubelet');
      this.event(pod, 'Warning', 'Failed', `Failed to pull image "${c.image}": ${pullError(c.image)}`, 'kubelet');
      this.event(pod, 'Warning', 'Failed', 'Error: ErrImagePull', 'kubelet');
    }
    setWaiting('ErrImagePull', pullError);
    await sleep(this.opts.imagePullBackOffMs ?? 100);
    if (run.stopping || this.stopped) return;
    setWaiting('ImagePullBackOff', (image) => `Back-off pulling image "${image}"`);
    for (const [c] of unknown) {
      this.event(pod, 'Normal', 'BackOff', `Back-off pulling image "${c.image}"`, 'kubelet');
      this.event(pod, 'Warning', 'Failed', 'Error: ImagePullBackOff', 'kubelet');
    }
  }

  private async startContainer(run: PodRun, pod: KObj, c: Any, i: number): Promise<void> {
    if (run.stopping || this.stopped) return;
    this.event(pod, 'Normal', 'Pulled', `Container image "${c.image}" already present on machine`, 'kubelet');
    this.event(pod, 'Normal', 'Created', `Created container: ${c.name}`, 'kubelet');
    const runContainer = this.opts.runContainer ?? pingServer;
    let cgroupProcs: string[] = [];
    try {
      const limit = c.resources?.limits?.cpu;
      cgroupProcs =
        this.cgroups?.startContainer(
          { uid: run.uid, namespace: run.ns, name: run.name, node: String(pod.spec?.nodeName ?? '') },
          { name: c.name, image: String(c.image ?? ''), cpus: limit === undefined ? undefined : parseQuantity(limit) },
        ).cgroupProcs ?? [];
    } catch (e) {
      this.emu.appendLog(
        run.ns,
        run.name,
        c.name,
        `sim kubelet: no cgroup for the container: ${(e as Error).message}\n`,
      );
    }
    let handle: ContainerHandle;
    try {
      handle = await runContainer(pod, run.ip!, {
        container: c,
        log: (t) => this.emu.appendLog(run.ns, run.name, c.name, t),
        volumes: this.mounts(pod, c),
        cgroupProcs,
      });
    } catch (e) {
      this.emu.appendLog(run.ns, run.name, c.name, `failed to start: ${e instanceof Error ? e.message : String(e)}\n`);
      this.dropContainerCgroup(run, c.name);
      return this.containerExited(run, pod, c, i, { exitCode: 128, reason: 'StartError' }, now());
    }
    if (run.stopping || this.stopped) return void (await handle.stop());
    run.handles[i] = handle;
    const startedAt = now();
    this.event(pod, 'Normal', 'Started', `Started container ${c.name}`, 'kubelet');
    this.podStatus(run, (s) => {
      s.phase = 'Running';
      s.containerStatuses[i] = {
        ...s.containerStatuses[i],
        started: true,
        ready: false,
        state: { running: { startedAt } },
      };
    });
    run.ready[i] = !c.readinessProbe;
    this.refreshReady(run);
    if (c.readinessProbe) this.probeLoop(run, pod, c, i, handle);
    void handle.exited.then((exit) => {
      if (run.handles[i] === handle) run.handles[i] = undefined;
      // The process is gone: its container cgroup goes too (a restart makes a new one).
      if (!run.handles[i]) this.dropContainerCgroup(run, c.name);
      if (!run.stopping && !this.stopped) void this.containerExited(run, pod, c, i, exit, startedAt);
    });
  }

  private probeLoop(run: PodRun, pod: KObj, c: Any, i: number, handle: ContainerHandle): void {
    const p = c.readinessProbe;
    const period = Math.min((p.periodSeconds ?? 10) * 1000, this.opts.probePeriodMs ?? 100);
    const probe = async (): Promise<boolean> => {
      if (p.httpGet) {
        const port =
          typeof p.httpGet.port === 'number'
            ? p.httpGet.port
            : (c.ports ?? []).find((x: Any) => x.name === p.httpGet.port)?.containerPort;
        return httpOk(`http://${run.ip}:${port}${p.httpGet.path ?? '/'}`);
      }
      if (p.tcpSocket) return tcpOk(run.ip!, Number(p.tcpSocket.port));
      if (p.exec)
        return (this.opts.execProbe ?? ((_p, _c, _cmd, ip) => httpOk(`http://${ip}:8123/ping`)))(
          pod,
          c,
          p.exec.command ?? [],
          run.ip!,
        );
      return true;
    };
    const tick = async () => {
      if (run.stopping || this.stopped || run.handles[i] !== handle) return;
      const ok = await probe().catch(() => false);
      if (run.stopping || this.stopped || run.handles[i] !== handle) return;
      if (ok !== run.ready[i]) {
        run.ready[i] = ok;
        this.refreshReady(run);
        if (!ok) this.event(pod, 'Warning', 'Unhealthy', `Readiness probe failed`, 'kubelet');
      }
      run.timers.set(
        i,
        setTimeout(() => void tick(), period),
      );
    };
    void tick();
  }

  private async containerExited(
    run: PodRun,
    pod: KObj,
    c: Any,
    i: number,
    exit: ContainerExit,
    startedAt: string,
  ): Promise<void> {
    const oom = run.oom.delete(i);
    const exitCode = oom ? 137 : exit.exitCode;
    const reason = oom ? 'OOMKilled' : (exit.reason ?? (exitCode === 0 ? 'Completed' : 'Error'));
    const terminated = { exitCode, reason, startedAt, finishedAt: now() };
    const policy = pod.spec?.restartPolicy ?? 'Always';
    const restart = policy === 'Always' || (policy === 'OnFailure' && exitCode !== 0);
    run.ready[i] = false;
    this.refreshReady(run);
    if (!restart) {
      const done = this.podStatus(run, (s) => {
        s.containerStatuses[i] = { ...s.containerStatuses[i], ready: false, started: false, state: { terminated } };
        const states = s.containerStatuses.map((x: Any) => x.state?.terminated);
        if (states.every(Boolean)) s.phase = states.every((t: Any) => t.exitCode === 0) ? 'Succeeded' : 'Failed';
      });
      if (done && ['Succeeded', 'Failed'].includes(done.status.phase)) this.releaseIp(run);
      return;
    }
    this.podStatus(run, (s) => {
      const prev = s.containerStatuses[i];
      s.containerStatuses[i] = {
        ...prev,
        ready: false,
        started: false,
        restartCount: (prev.restartCount ?? 0) + 1,
        lastState: { terminated },
        state: {
          waiting: {
            reason: 'CrashLoopBackOff',
            message: `back-off 10s restarting failed container=${c.name} pod=${run.name}_${run.ns}(${run.uid})`,
          },
        },
      };
    });
    this.event(
      pod,
      'Warning',
      'BackOff',
      `Back-off restarting failed container ${c.name} in pod ${run.name}_${run.ns}(${run.uid})`,
      'kubelet',
    );
    await sleep(this.opts.restartBackOffMs ?? 100);
    await this.startContainer(run, pod, c, i);
  }

  private releaseIp(run: PodRun): void {
    if (run.ip) this.usedIps.delete(run.ip);
  }

  private async stopRun(run: PodRun): Promise<void> {
    run.stopping = true;
    for (const t of run.timers.values()) clearTimeout(t);
    run.timers.clear();
    await Promise.all(run.handles.map(async (h) => h?.stop()));
    await Promise.all(run.handles.map(async (h) => h?.exited));
    run.handles = [];
    this.releaseIp(run);
    try {
      this.cgroups?.removePod(run.uid);
    } catch (e) {
      if (!this.stopped) console.error(`sim kubelet: removing the cgroup of ${run.ns}/${run.name}:`, e);
    }
  }

  /** Remove a container's cgroup once its process is gone (never throws: logged in the container's log). */
  private dropContainerCgroup(run: PodRun, container: string): void {
    try {
      this.cgroups?.removeContainer(run.uid, container);
    } catch (e) {
      this.emu.appendLog(
        run.ns,
        run.name,
        container,
        `sim kubelet: removing the container cgroup: ${(e as Error).message}\n`,
      );
    }
  }

  /** Stops a pod's containers (deletion: `Killing` events, then the emulator removes it). */
  private async stopPod(pod: KObj, deleting: boolean): Promise<void> {
    const run = this.runs.get(pod.metadata.uid!);
    if (!run) return;
    if (deleting)
      for (const c of pod.spec?.containers ?? [])
        this.event(pod, 'Normal', 'Killing', `Stopping container ${c.name}`, 'kubelet');
    await this.stopRun(run);
    if (deleting) this.runs.delete(run.uid);
  }
}
