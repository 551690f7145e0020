/**
 * A simulated EKS cluster for tests and demos: the Kubernetes API emulator and its simulated control
 * plane ({@link SimCluster}, cluster.ts) wired to a real moto server (EC2 + CloudWatch) and to real
 * ClickHouse-compatible processes.
 *
 * - Nodes: each node is a real EC2 instance in moto (`RunInstances`: its instance type, its
 *   availability zone, detailed monitoring, an Amazon Linux 2 AMI from moto's catalogue), and the
 *   node's `spec.providerID` is `aws:///<zone>/<that instance id>`.
 * - CSI driver (`ebs.csi.aws.com`): provisioning is a real `CreateVolume` (zone of the node the pod
 *   was scheduled to, size = the claim's request in GiB rounded up, `type`/`iops`/`throughput`/
 *   `encrypted`/`kmsKeyId` from the StorageClass parameters, the driver's tags `CSIVolumeName`,
 *   `kubernetes.io/created-for/pv/name`, `…/pvc/name`, `…/pvc/namespace`), and the PV's
 *   `csi.volumeHandle` is the returned `vol-…` id; reclaim `Delete` is a real `DeleteVolume` (a
 *   volume already gone counts as deleted) and removes the volume's data directory. Volumes are never attached to the instance in moto.
 * - Kubelet: a container whose image is `clickhouse/clickhouse-server:<tag>` runs the chbench
 *   embedded server (`dist/src/engine/server.js`, chdb) as a real process bound to the pod's
 *   own loopback IP and container port (default 8123), with `--auth-from-env`: it requires the
 *   `CLICKHOUSE_USER`/`CLICKHOUSE_PASSWORD` of the container's `env` (plain `value`, or `valueFrom`
 *   `secretKeyRef`/`configMapKeyRef` read from the emulator's objects; `data` is base64-decoded). A
 *   missing Secret/ConfigMap or key fails the start with a `CreateContainerConfigError` log line (the
 *   kubelet then backs off and retries). The tag must be the engine's ClickHouse version or a prefix of
 *   it at a dot (`26.7` for 26.7.2.1) or `latest`; any other tag (e.g. `24.8`) starts a container that
 *   logs why and exits with code 1 (the kubelet restarts it: CrashLoopBackOff). The data directory is
 *   `<rootDir>/volumes/<volumeHandle>` of the PV mounted at `/var/lib/clickhouse` (else the first PVC
 *   mount; else a per-pod directory), so a new pod on the same claim sees the same data. Its
 *   stdout/stderr are the container log. Stopping a container (pod deletion, eviction, OOM kill) is
 *   SIGTERM, then SIGKILL after the pod's `terminationGracePeriodSeconds` (capped by `stopTimeoutMs`),
 *   and waits for the exit. Other images run the cluster's default {@link pingServer}.
 *   The process joins the container's cgroup (`ctx.cgroupProcs`, cluster.ts) before it execs, so the
 *   node's cAdvisor (`GET /api/v1/nodes/<node>/proxy/metrics/cadvisor`) serves its real counters.
 * - Exec readiness probes of the form `clickhouse-client … --query "<sql>"` send that SQL over HTTP
 *   to the pod's server with the container's credentials (clickhouse-client reads
 *   `CLICKHOUSE_USER`/`CLICKHOUSE_PASSWORD` from the environment); other commands probe `/ping`.
 * - Metrics publisher: every `publishEveryMs`, and on {@link EksSim.publishNow}, for each running
 *   server process it reads `/proc/<pid>/io` (`read_bytes`, `write_bytes`, `syscr`, `syscw`) and
 *   `/proc/<pid>/stat` (`utime` + `stime`, clock ticks ÷ `getconf CLK_TCK`), takes the differences from
 *   its previous reading (a new process starts from zero, as its counters do) and calls
 *   `PutMetricData` with `Timestamp` = now:
 *   - `AWS/EBS` `VolumeReadBytes`, `VolumeWriteBytes` (Bytes), `VolumeReadOps`, `VolumeWriteOps`
 *     (Count), dimension `VolumeId` = the PV's volumeHandle. NOTE: the ops are `syscr`/`syscw`, the
 *     process's read()/write() system calls, not block-device I/O operations (an EBS op is up to
 *     256 KiB of device I/O; a syscall may be served by the page cache or span many ops).
 *   - `AWS/EC2` `CPUUtilization` (Percent: CPU seconds of the node's server processes ÷ (seconds
 *     since the previous publication × the instance type's vCPUs from `DescribeInstanceTypes`) × 100,
 *     published for every node, 0 when nothing ran), `EBSReadBytes`, `EBSWriteBytes` (Bytes, the sum
 *     over the node's processes that have a volume), dimension `InstanceId`.
 *   Not published, because nothing here measures them: `VolumeQueueLength`, `VolumeIdleTime`,
 *   `BurstBalance`, `EBSByteBalance%`, `EBSIOBalance%` (a reader must find "no data", not zero).
 *   When the kubelet stops a container, one publication runs just before the SIGTERM (the last
 *   sample); I/O during shutdown, and the last interval of a process that exits on its own (its
 *   /proc entry is gone), are not published.
 * - A kubeconfig for the emulator (`http://127.0.0.1:<port>`, `insecure-skip-tls-verify: true`, a
 *   token user, one context, current-context set) is written to a temp file.
 *
 * Requires `npx tsc -p .` output (dist/) and `.venv/bin/moto_server`.
 */
import { execFile, execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { PutMetricDataCommand, type MetricDatum, type StandardUnit } from '@aws-sdk/client-cloudwatch';
import {
  CreateVolumeCommand,
  DeleteVolumeCommand,
  DescribeImagesCommand,
  DescribeInstanceTypesCommand,
  RunInstancesCommand,
  type VolumeType,
} from '@aws-sdk/client-ec2';
import { REPO_ROOT } from '../../src/config';
import { engineServerScript, startEngineServer } from '../../src/engine/launch';
import { startMoto, type Moto } from '../helpers/moto';
import {
  parseQuantity,
  pingServer,
  SimCluster,
  type ClusterOptions,
  type ContainerContext,
  type ContainerExit,
  type ContainerHandle,
  type MountedVolume,
  type VolumeRequest,
} from './cluster';
import type { KObj } from './emulator';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

/** One node of the simulated cluster, as configured. */
export interface EksNodeOptions {
  /** Node name, e.g. `ip-10-0-1-10.ec2.internal`. */
  name: string;
  /** Availability zone, e.g. `us-east-1a` (moto's region is us-east-1). */
  zone: string;
  /** EC2 instance type. @default m5.xlarge */
  instanceType?: string;
  /** Extra node labels. */
  labels?: Record<string, string>;
  /** Allocatable cpu (Kubernetes quantity). @default 3920m */
  cpu?: string;
  /** Allocatable memory. @default 14Gi */
  memory?: string;
}

/** One node as started: its moto EC2 instance. */
export interface EksNode {
  name: string;
  zone: string;
  instanceType: string;
  /** The moto instance id (`RunInstances`). */
  instanceId: string;
  /** `aws:///<zone>/<instanceId>` (the node's `spec.providerID`). */
  providerID: string;
  /** vCPUs of the instance type (`DescribeInstanceTypes` `VCpuInfo.DefaultVCpus`), the CPUUtilization denominator. */
  vcpus: number;
}

/** Options of {@link startEksSim}; every field is optional. */
export interface EksSimOptions {
  /** @default one node `ip-10-0-1-10.ec2.internal` in us-east-1a, m5.xlarge */
  nodes?: EksNodeOptions[];
  /** Metrics publication interval, ms; 0 = no timer (only {@link EksSim.publishNow}). @default 10000 */
  publishEveryMs?: number;
  /** Directory for volumes' data and pods' files. @default a new temp dir, removed by stop() (a given one is kept) */
  rootDir?: string;
  /** Upper bound of SIGTERM → SIGKILL when a container stops, ms. @default 10000 */
  stopTimeoutMs?: number;
  /** Further options of the simulated control plane (probe periods, back-offs, known images, emulator). */
  cluster?: Omit<ClusterOptions, 'nodes' | 'runContainer' | 'createVolume' | 'deleteVolume' | 'execProbe'>;
}

/** One published CloudWatch datum (what {@link EksSim.publishNow} sent). */
export interface PublishedMetric {
  namespace: 'AWS/EBS' | 'AWS/EC2';
  metric: string;
  /** `VolumeId` or `InstanceId`. */
  dimension: { name: 'VolumeId' | 'InstanceId'; value: string };
  value: number;
  unit: 'Bytes' | 'Count' | 'Percent';
  timestamp: Date;
}

/** A running simulated EKS: emulator + control plane, moto, kubeconfig. */
export interface EksSim {
  cluster: SimCluster;
  moto: Moto;
  /** A kubeconfig file for the emulator (current-context set, namespace `default`). */
  kubeconfigPath: string;
  /** `AWS_ENDPOINT_URL`, `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_REGION`: what an AWS SDK v3 client needs to reach moto. */
  awsEnv: Record<string, string>;
  /** moto's region, `us-east-1`. */
  region: string;
  nodes: EksNode[];
  /** Where volumes' data lives (`<rootDir>/volumes/<vol-…>`). */
  rootDir: string;
  /** The ClickHouse version of the chdb engine the server processes run (e.g. `26.7.2.1`). */
  engineVersion: string;
  /** Runs one metrics publication now (see the file header) and returns what it sent. */
  publishNow(): Promise<PublishedMetric[]>;
  /** Stops the cluster (and every server process), the publisher, and moto; removes temp files. Idempotent. */
  stop(): Promise<void>;
}

const DEFAULT_NODES: EksNodeOptions[] = [{ name: 'ip-10-0-1-10.ec2.internal', zone: 'us-east-1a' }];
const CH_IMAGE = /^(?:docker\.io\/)?clickhouse\/clickhouse-server(?::([^@]+))?(?:@.*)?$/;
const DATA_MOUNT = '/var/lib/clickhouse';

let engineVersionCache: Promise<string> | undefined;

/**
 * The ClickHouse version of the installed chdb engine (`require('chdb').version().libchdb`, read in a
 * child process so this process never loads the engine), e.g. `26.7.2.1`. Cached.
 * @throws Error when chdb cannot be loaded
 */
export function chdbEngineVersion(): Promise<string> {
  engineVersionCache ??= promisify(execFile)(
    process.execPath,
    ['-e', "process.stdout.write(String(require('chdb').version().libchdb).replace(/\"/g, ''))"],
    { cwd: REPO_ROOT },
  ).then((r) => r.stdout.trim());
  return engineVersionCache;
}

/** Whether an image tag can be run by an engine of `engineVersion`: `latest`, equal, or a prefix at a dot. */
export function tagMatchesEngine(tag: string, engineVersion: string): boolean {
  return tag === 'latest' || tag === engineVersion || engineVersion.startsWith(`${tag}.`);
}

/** I/O and CPU counters of one process. */
export interface ProcCounters {
  /** `/proc/<pid>/io` read_bytes: bytes the process caused to be fetched from storage. */
  readBytes: number;
  /** `/proc/<pid>/io` write_bytes: bytes the process caused to be sent to storage. */
  writeBytes: number;
  /** `/proc/<pid>/io` syscr: read() system calls. */
  syscr: number;
  /** `/proc/<pid>/io` syscw: write() system calls. */
  syscw: number;
  /** `/proc/<pid>/stat` utime + stime, in seconds (clock ticks ÷ CLK_TCK). */
  cpuSeconds: number;
}

let clkTck: number | undefined;
function clockTicks(): number {
  if (clkTck === undefined) {
    try {
      clkTck = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
    } catch {
      clkTck = 100;
    }
  }
  return clkTck;
}

/**
 * Reads a process's counters from `/proc/<pid>/io` and `/proc/<pid>/stat` (whole thread group).
 * @returns undefined when the process is gone (or its files are unreadable)
 */
export function readProcCounters(pid: number): ProcCounters | undefined {
  try {
    const io = Object.fromEntries(
      fs
        .readFileSync(`/proc/${pid}/io`, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => {
          const [k, v] = l.split(':');
          return [k.trim(), Number(v)];
        }),
    );
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after "(comm)": state is field 3, utime field 14, stime field 15.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(rest[11]) + Number(rest[12]);
    return {
      readBytes: io.read_bytes ?? 0,
      writeBytes: io.write_bytes ?? 0,
      syscr: io.syscr ?? 0,
      syscw: io.syscw ?? 0,
      cpuSeconds: ticks / clockTicks(),
    };
  } catch {
    return undefined;
  }
}

/** A server process the kubelet started, as the metrics publisher sees it. */
interface ServerProc {
  pid: number;
  node: string;
  /** The EBS volume id its data directory stands for; undefined without a PVC mount. */
  volumeId?: string;
  last?: ProcCounters;
}

/**
 * Resolves a container's `env` (plain values and `secretKeyRef`/`configMapKeyRef`) from the emulator's
 * objects, as the kubelet does before it creates the container.
 * @throws Error `CreateContainerConfigError: secret "x" not found` / `couldn't find key k in Secret ns/x`
 *   (a ref with `optional: true` is skipped instead)
 */
export function resolveContainerEnv(cluster: SimCluster, pod: KObj, container: Any): Record<string, string> {
  const ns = String(pod.metadata.namespace ?? 'default');
  const out: Record<string, string> = {};
  for (const e of container.env ?? []) {
    if (e.value !== undefined) {
      out[e.name] = String(e.value);
      continue;
    }
    const ref = e.valueFrom?.secretKeyRef ?? e.valueFrom?.configMapKeyRef;
    if (!ref) continue;
    const secret = !!e.valueFrom?.secretKeyRef;
    const [resource, kind] = secret ? ['secrets', 'Secret'] : ['configmaps', 'ConfigMap'];
    const obj = cluster.emu.tryGet(resource, ns, ref.name);
    const fail = (msg: string) => {
      if (ref.optional) return;
      throw new Error(`CreateContainerConfigError: ${msg}`);
    };
    if (!obj) {
      fail(`${secret ? 'secret' : 'configmap'} "${ref.name}" not found`);
      continue;
    }
    const data = (obj as Any).data?.[ref.key];
    const plain = (obj as Any).stringData?.[ref.key] ?? (obj as Any).binaryData?.[ref.key];
    if (data !== undefined) out[e.name] = secret ? Buffer.from(String(data), 'base64').toString('utf8') : String(data);
    else if (plain !== undefined) out[e.name] = String(plain);
    else fail(`couldn't find key ${ref.key} in ${kind} ${ns}/${ref.name}`);
  }
  return out;
}

/** The `--query` of a `clickhouse-client` command line, or undefined for another command. */
function clientQuery(command: string[]): string | undefined {
  if (!/(^|\/)clickhouse(-client)?$/.test(command[0] ?? '')) return undefined;
  const k = command.findIndex((a) => a === '--query' || a === '-q');
  if (k >= 0) return command[k + 1];
  const eq = command.find((a) => a.startsWith('--query='));
  return eq ? eq.slice('--query='.length) : 'SELECT 1';
}

/** POSTs `sql` to a server with basic auth; resolves true on HTTP 200. */
function httpQueryOk(host: string, port: number, sql: string, user: string, password: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.request(
      {
        host,
        port,
        path: '/',
        method: 'POST',
        auth: `${user}:${password}`,
        timeout: 2000,
        agent: false,
      },
      (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end(sql);
  });
}

/** GET `/ping`; resolves true on HTTP 200. */
function httpPingOk(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get({ host, port, path: '/ping', timeout: 2000, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

/** A container that has already exited (used for tags the engine cannot be). */
function exitedContainer(exit: ContainerExit): ContainerHandle {
  return { exited: Promise.resolve(exit), stop: () => undefined };
}

/**
 * Starts moto, creates one EC2 instance per node, and starts the emulator with the simulated control
 * plane wired to them (see the file header).
 * @throws Error when moto, the engine version probe or an EC2 call fails (everything started is stopped)
 */
export async function startEksSim(opts: EksSimOptions = {}): Promise<EksSim> {
  engineServerScript(); // throws when the engine server is not compiled (npm run build)
  const ownRoot = opts.rootDir === undefined;
  const rootDir = opts.rootDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'eks-sim-'));
  fs.mkdirSync(rootDir, { recursive: true });
  const [moto, engineVersion] = await Promise.all([startMoto(), chdbEngineVersion()]);
  const procs = new Map<string, ServerProc>();
  let cluster: SimCluster | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let stopping: Promise<void> | undefined;

  try {
    // ----- nodes: EC2 instances -----
    const images = await moto.ec2.send(
      new DescribeImagesCommand({
        Owners: ['amazon'],
        Filters: [
          { Name: 'name', Values: ['amzn2-ami-hvm-*'] },
          { Name: 'architecture', Values: ['x86_64'] },
        ],
      }),
    );
    const imageId = images.Images?.[0]?.ImageId;
    if (!imageId) throw new Error('eks-sim: moto has no Amazon Linux 2 x86_64 AMI');
    const nodes: EksNode[] = [];
    for (const n of opts.nodes ?? DEFAULT_NODES) {
      const instanceType = n.instanceType ?? 'm5.xlarge';
      const run = await moto.ec2.send(
        new RunInstancesCommand({
          ImageId: imageId,
          InstanceType: instanceType as never,
          MinCount: 1,
          MaxCount: 1,
          Placement: { AvailabilityZone: n.zone },
          Monitoring: { Enabled: true },
          TagSpecifications: [
            {
              ResourceType: 'instance',
              Tags: [
                { Key: 'Name', Value: n.name },
                { Key: 'kubernetes.io/cluster/chbench-sim', Value: 'owned' },
              ],
            },
          ],
        }),
      );
      const instanceId = run.Instances?.[0]?.InstanceId;
      if (!instanceId) throw new Error(`eks-sim: RunInstances returned no instance for node ${n.name}`);
      const types = await moto.ec2.send(new DescribeInstanceTypesCommand({ InstanceTypes: [instanceType as never] }));
      const vcpus =
        types.InstanceTypes?.[0]?.VCpuInfo?.DefaultVCpus ?? Math.max(1, Math.ceil(parseQuantity(n.cpu ?? '4')));
      nodes.push({
        name: n.name,
        zone: n.zone,
        instanceType,
        instanceId,
        providerID: `aws:///${n.zone}/${instanceId}`,
        vcpus,
      });
    }

    // ----- metrics publisher -----
    let lastTickMs = Date.now();
    let chain: Promise<unknown> = Promise.resolve();
    const publishOnce = async (): Promise<PublishedMetric[]> => {
      const nowMs = Date.now();
      const timestamp = new Date(nowMs);
      const seconds = Math.max((nowMs - lastTickMs) / 1000, 1e-3);
      lastTickMs = nowMs;
      const out: PublishedMetric[] = [];
      const add = (
        namespace: PublishedMetric['namespace'],
        metric: string,
        dimension: PublishedMetric['dimension'],
        value: number,
        unit: PublishedMetric['unit'],
      ) => out.push({ namespace, metric, dimension, value, unit, timestamp });
      const perNode = new Map<string, { cpu: number; read: number; write: number }>();
      for (const p of procs.values()) {
        const cur = readProcCounters(p.pid);
        if (!cur) continue;
        const prev = p.last ?? { readBytes: 0, writeBytes: 0, syscr: 0, syscw: 0, cpuSeconds: 0 };
        p.last = cur;
        const d = (k: keyof ProcCounters) => Math.max(0, cur[k] - prev[k]);
        const acc = perNode.get(p.node) ?? { cpu: 0, read: 0, write: 0 };
        acc.cpu += d('cpuSeconds');
        if (p.volumeId) {
          const dim = { name: 'VolumeId' as const, value: p.volumeId };
          add('AWS/EBS', 'VolumeReadBytes', dim, d('readBytes'), 'Bytes');
          add('AWS/EBS', 'VolumeWriteBytes', dim, d('writeBytes'), 'Bytes');
          add('AWS/EBS', 'VolumeReadOps', dim, d('syscr'), 'Count');
          add('AWS/EBS', 'VolumeWriteOps', dim, d('syscw'), 'Count');
          acc.read += d('readBytes');
          acc.write += d('writeBytes');
        }
        perNode.set(p.node, acc);
      }
      for (const n of nodes) {
        const acc = perNode.get(n.name) ?? { cpu: 0, read: 0, write: 0 };
        const dim = { name: 'InstanceId' as const, value: n.instanceId };
        add('AWS/EC2', 'CPUUtilization', dim, Math.min(100, (acc.cpu / (seconds * n.vcpus)) * 100), 'Percent');
        add('AWS/EC2', 'EBSReadBytes', dim, acc.read, 'Bytes');
        add('AWS/EC2', 'EBSWriteBytes', dim, acc.write, 'Bytes');
      }
      for (const ns of ['AWS/EBS', 'AWS/EC2'] as const) {
        const data: MetricDatum[] = out
          .filter((m) => m.namespace === ns)
          .map((m) => ({
            MetricName: m.metric,
            Dimensions: [{ Name: m.dimension.name, Value: m.dimension.value }],
            Value: m.value,
            Unit: m.unit as StandardUnit,
            Timestamp: m.timestamp,
          }));
        for (let i = 0; i < data.length; i += 1000)
          await moto.cloudwatch.send(new PutMetricDataCommand({ Namespace: ns, MetricData: data.slice(i, i + 1000) }));
      }
      return out;
    };
    /** Serialised, so two publications never take the same differences. */
    const publishNow = (): Promise<PublishedMetric[]> => {
      const next = chain.then(publishOnce);
      chain = next.catch(() => undefined);
      return next;
    };

    // ----- kubelet runner -----
    const stopTimeoutMs = opts.stopTimeoutMs ?? 10_000;
    const runContainer = async (pod: KObj, podIp: string, ctx: ContainerContext): Promise<ContainerHandle> => {
      const image = String(ctx.container.image ?? '');
      const m = CH_IMAGE.exec(image);
      if (!m) return pingServer(pod, podIp, ctx);
      const tag = m[1] ?? 'latest';
      if (!tagMatchesEngine(tag, engineVersion)) {
        ctx.log(
          `${new Date().toISOString()} eks-sim: image ${image} asks for ClickHouse ${tag}, but this simulated node runs the chdb engine's ClickHouse ${engineVersion} only (a tag must be ${engineVersion}, a prefix of it at a dot, or latest); exit code 1\n`,
        );
        return exitedContainer({ exitCode: 1, reason: 'Error' });
      }
      const env = resolveContainerEnv(cluster!, pod, ctx.container);
      const port: number = ctx.container.ports?.[0]?.containerPort ?? 8123;
      const vol: MountedVolume | undefined =
        ctx.volumes.find((v) => v.mountPath === DATA_MOUNT) ?? ctx.volumes.find((v) => v.volumeHandle);
      const podDir = path.join(rootDir, 'pods', String(pod.metadata.uid), String(ctx.container.name));
      const dataDir = vol?.volumeHandle ? path.join(rootDir, 'volumes', vol.volumeHandle) : path.join(podDir, 'data');
      fs.mkdirSync(dataDir, { recursive: true });
      fs.mkdirSync(podDir, { recursive: true });
      // The one engine launcher, not detached: the container's output is piped to its log, and the
      // pod's probes (not the launcher) wait for it to answer.
      const { child: started } = await startEngineServer({
        dataDir,
        host: podIp,
        port,
        portFile: path.join(podDir, 'port'),
        authFromEnv: true,
        detached: false,
        // The pod's container cgroup (the simulated kubelet's), joined before the engine execs.
        cgroupProcs: ctx.cgroupProcs,
        wait: false,
        cwd: REPO_ROOT,
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: process.env.HOME ?? '/tmp',
          ...env,
          CLICKHOUSE_USER: env.CLICKHOUSE_USER ?? 'default',
          CLICKHOUSE_PASSWORD: env.CLICKHOUSE_PASSWORD ?? '',
        },
      });
      const child = started!;
      child.stdout!.on('data', (b: Buffer) => ctx.log(b.toString()));
      child.stderr!.on('data', (b: Buffer) => ctx.log(b.toString()));
      const key = `${pod.metadata.uid}/${ctx.container.name}/${child.pid}`;
      const exited = new Promise<ContainerExit>((resolve) => {
        child.once('exit', (code, signal) => {
          procs.delete(key);
          const sig = signal ? (os.constants.signals[signal] ?? 15) : 0;
          resolve({ exitCode: code ?? 128 + sig, reason: code === 0 ? 'Completed' : 'Error' });
        });
      });
      procs.set(key, { pid: child.pid!, node: String(pod.spec?.nodeName ?? ''), volumeId: vol?.volumeHandle });
      const graceMs = Math.min((pod.spec?.terminationGracePeriodSeconds ?? 30) * 1000, stopTimeoutMs);
      let stopping: Promise<void> | undefined;
      return {
        pid: child.pid,
        exited,
        stop: () =>
          (stopping ??= (async () => {
            if (child.exitCode !== null || child.signalCode !== null) return;
            if (!stopped) await publishNow().catch(() => undefined);
            child.kill('SIGTERM');
            const kill = setTimeout(() => child.kill('SIGKILL'), graceMs);
            await exited;
            clearTimeout(kill);
          })()),
      };
    };

    const execProbe = async (pod: KObj, container: Any, command: string[], podIp: string): Promise<boolean> => {
      const port: number = container.ports?.[0]?.containerPort ?? 8123;
      const sql = clientQuery(command);
      if (sql === undefined) return httpPingOk(podIp, port);
      let env: Record<string, string>;
      try {
        env = resolveContainerEnv(cluster!, pod, container);
      } catch {
        return false;
      }
      return httpQueryOk(podIp, port, sql, env.CLICKHOUSE_USER || 'default', env.CLICKHOUSE_PASSWORD ?? '');
    };

    // ----- CSI driver -----
    const createVolume = async (req: VolumeRequest): Promise<string> => {
      const p = req.parameters;
      const tags = [
        { Key: 'CSIVolumeName', Value: req.name },
        { Key: 'ebs.csi.aws.com/cluster', Value: 'true' },
        { Key: 'kubernetes.io/created-for/pv/name', Value: req.name },
        ...(req.claim
          ? [
              { Key: 'kubernetes.io/created-for/pvc/name', Value: req.claim.name },
              { Key: 'kubernetes.io/created-for/pvc/namespace', Value: req.claim.namespace },
            ]
          : []),
      ];
      const v = await moto.ec2.send(
        new CreateVolumeCommand({
          AvailabilityZone: req.zone,
          Size: Math.max(1, Math.ceil(req.sizeBytes / 2 ** 30)),
          VolumeType: (p.type ?? 'gp3') as VolumeType,
          ...(p.iops ? { Iops: Number(p.iops) } : {}),
          ...(p.throughput ? { Throughput: Number(p.throughput) } : {}),
          ...(p.encrypted !== undefined ? { Encrypted: p.encrypted === 'true' } : {}),
          ...(p.kmsKeyId ? { KmsKeyId: p.kmsKeyId } : {}),
          TagSpecifications: [{ ResourceType: 'volume', Tags: tags }],
        }),
      );
      if (!v.VolumeId) throw new Error('CreateVolume returned no VolumeId');
      return v.VolumeId;
    };
    const deleteVolume = async (handle: string): Promise<void> => {
      try {
        await moto.ec2.send(new DeleteVolumeCommand({ VolumeId: handle }));
      } catch (e) {
        if ((e as { name?: string }).name !== 'InvalidVolume.NotFound') throw e;
      }
      fs.rmSync(path.join(rootDir, 'volumes', handle), { recursive: true, force: true });
    };

    cluster = new SimCluster({
      ...opts.cluster,
      nodes: nodes.map((n, i) => {
        const o = (opts.nodes ?? DEFAULT_NODES)[i];
        return {
          name: n.name,
          zone: n.zone,
          instanceType: n.instanceType,
          instanceId: n.instanceId,
          ...(o.labels ? { labels: o.labels } : {}),
          ...(o.cpu ? { cpu: o.cpu } : {}),
          ...(o.memory ? { memory: o.memory } : {}),
        };
      }),
      runContainer,
      execProbe,
      createVolume,
      deleteVolume,
    });
    await cluster.start();
    const kubeconfigPath = path.join(rootDir, 'kubeconfig');
    fs.writeFileSync(kubeconfigPath, cluster.emu.kubeconfig(), { mode: 0o600 });

    const publishEveryMs = opts.publishEveryMs ?? 10_000;
    if (publishEveryMs > 0) {
      timer = setInterval(() => {
        publishNow().catch((e) => {
          if (!stopped) console.error('eks-sim: metrics publication failed:', e);
        });
      }, publishEveryMs);
      timer.unref();
    }

    const sim: EksSim = {
      cluster,
      moto,
      kubeconfigPath,
      awsEnv: {
        AWS_ENDPOINT_URL: moto.endpoint,
        AWS_ACCESS_KEY_ID: 'testing',
        AWS_SECRET_ACCESS_KEY: 'testing',
        AWS_REGION: moto.region,
      },
      region: moto.region,
      nodes,
      rootDir,
      engineVersion,
      publishNow,
      stop: () =>
        (stopping ??= (async () => {
          await cluster!.stop(); // stops every container (each publishes its last sample first)
          stopped = true;
          clearInterval(timer);
          await chain;
          await moto.stop();
          if (ownRoot) fs.rmSync(rootDir, { recursive: true, force: true });
        })()),
    };
    return sim;
  } catch (e) {
    stopped = true;
    clearInterval(timer);
    await cluster?.stop().catch(() => undefined);
    await moto.stop();
    if (ownRoot) fs.rmSync(rootDir, { recursive: true, force: true });
    throw e;
  }
}
