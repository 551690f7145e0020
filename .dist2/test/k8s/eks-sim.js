"use strict";
var __createBinding = (this && this.__createBinding) || (Object.create ? (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    var desc = Object.getOwnPropertyDescriptor(m, k);
    if (!desc || ("get" in desc ? !m.__esModule : desc.writable || desc.configurable)) {
      desc = { enumerable: true, get: function() { return m[k]; } };
    }
    Object.defineProperty(o, k2, desc);
}) : (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    o[k2] = m[k];
}));
var __setModuleDefault = (this && this.__setModuleDefault) || (Object.create ? (function(o, v) {
    Object.defineProperty(o, "default", { enumerable: true, value: v });
}) : function(o, v) {
    o["default"] = v;
});
var __importStar = (this && this.__importStar) || (function () {
    var ownKeys = function(o) {
        ownKeys = Object.getOwnPropertyNames || function (o) {
            var ar = [];
            for (var k in o) if (Object.prototype.hasOwnProperty.call(o, k)) ar[ar.length] = k;
            return ar;
        };
        return ownKeys(o);
    };
    return function (mod) {
        if (mod && mod.__esModule) return mod;
        var result = {};
        if (mod != null) for (var k = ownKeys(mod), i = 0; i < k.length; i++) if (k[i] !== "default") __createBinding(result, mod, k[i]);
        __setModuleDefault(result, mod);
        return result;
    };
})();
Object.defineProperty(exports, "__esModule", { value: true });
exports.chdbEngineVersion = chdbEngineVersion;
exports.tagMatchesEngine = tagMatchesEngine;
exports.readProcCounters = readProcCounters;
exports.resolveContainerEnv = resolveContainerEnv;
exports.startEksSim = startEksSim;
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
 *   embedded server (`dist/src/targets/embedded/server.js`, chdb) as a real process bound to the pod's
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
const node_child_process_1 = require("node:child_process");
const fs = __importStar(require("node:fs"));
const http = __importStar(require("node:http"));
const os = __importStar(require("node:os"));
const path = __importStar(require("node:path"));
const node_util_1 = require("node:util");
const client_cloudwatch_1 = require("@aws-sdk/client-cloudwatch");
const client_ec2_1 = require("@aws-sdk/client-ec2");
const config_1 = require("../../src/config");
const moto_1 = require("../helpers/moto");
const cluster_1 = require("./cluster");
const DEFAULT_NODES = [{ name: 'ip-10-0-1-10.ec2.internal', zone: 'us-east-1a' }];
const CH_IMAGE = /^(?:docker\.io\/)?clickhouse\/clickhouse-server(?::([^@]+))?(?:@.*)?$/;
const SERVER_SCRIPT = path.join(config_1.REPO_ROOT, 'dist', 'src', 'targets', 'embedded', 'server.js');
const DATA_MOUNT = '/var/lib/clickhouse';
let engineVersionCache;
/**
 * The ClickHouse version of the installed chdb engine (`require('chdb').version().libchdb`, read in a
 * child process so this process never loads the engine), e.g. `26.7.2.1`. Cached.
 * @throws Error when chdb cannot be loaded
 */
function chdbEngineVersion() {
    engineVersionCache ??= (0, node_util_1.promisify)(node_child_process_1.execFile)(process.execPath, ['-e', "process.stdout.write(String(require('chdb').version().libchdb).replace(/\"/g, ''))"], { cwd: config_1.REPO_ROOT }).then((r) => r.stdout.trim());
    return engineVersionCache;
}
/** Whether an image tag can be run by an engine of `engineVersion`: `latest`, equal, or a prefix at a dot. */
function tagMatchesEngine(tag, engineVersion) {
    return tag === 'latest' || tag === engineVersion || engineVersion.startsWith(`${tag}.`);
}
let clkTck;
function clockTicks() {
    if (clkTck === undefined) {
        try {
            clkTck = Number((0, node_child_process_1.execFileSync)('getconf', ['CLK_TCK']).toString().trim()) || 100;
        }
        catch {
            clkTck = 100;
        }
    }
    return clkTck;
}
/**
 * Reads a process's counters from `/proc/<pid>/io` and `/proc/<pid>/stat` (whole thread group).
 * @returns undefined when the process is gone (or its files are unreadable)
 */
function readProcCounters(pid) {
    try {
        const io = Object.fromEntries(fs
            .readFileSync(`/proc/${pid}/io`, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((l) => {
            const [k, v] = l.split(':');
            return [k.trim(), Number(v)];
        }));
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
    }
    catch {
        return undefined;
    }
}
/**
 * Resolves a container's `env` (plain values and `secretKeyRef`/`configMapKeyRef`) from the emulator's
 * objects, as the kubelet does before it creates the container.
 * @throws Error `CreateContainerConfigError: secret "x" not found` / `couldn't find key k in Secret ns/x`
 *   (a ref with `optional: true` is skipped instead)
 */
function resolveContainerEnv(cluster, pod, container) {
    const ns = String(pod.metadata.namespace ?? 'default');
    const out = {};
    for (const e of container.env ?? []) {
        if (e.value !== undefined) {
            out[e.name] = String(e.value);
            continue;
        }
        const ref = e.valueFrom?.secretKeyRef ?? e.valueFrom?.configMapKeyRef;
        if (!ref)
            continue;
        const secret = !!e.valueFrom?.secretKeyRef;
        const [resource, kind] = secret ? ['secrets', 'Secret'] : ['configmaps', 'ConfigMap'];
        const obj = cluster.emu.tryGet(resource, ns, ref.name);
        const fail = (msg) => {
            if (ref.optional)
                return;
            throw new Error(`CreateContainerConfigError: ${msg}`);
        };
        if (!obj) {
            fail(`${secret ? 'secret' : 'configmap'} "${ref.name}" not found`);
            continue;
        }
        const data = obj.data?.[ref.key];
        const plain = obj.stringData?.[ref.key] ?? obj.binaryData?.[ref.key];
        if (data !== undefined)
            out[e.name] = secret ? Buffer.from(String(data), 'base64').toString('utf8') : String(data);
        else if (plain !== undefined)
            out[e.name] = String(plain);
        else
            fail(`couldn't find key ${ref.key} in ${kind} ${ns}/${ref.name}`);
    }
    return out;
}
/** The `--query` of a `clickhouse-client` command line, or undefined for another command. */
function clientQuery(command) {
    if (!/(^|\/)clickhouse(-client)?$/.test(command[0] ?? ''))
        return undefined;
    const k = command.findIndex((a) => a === '--query' || a === '-q');
    if (k >= 0)
        return command[k + 1];
    const eq = command.find((a) => a.startsWith('--query='));
    return eq ? eq.slice('--query='.length) : 'SELECT 1';
}
/** POSTs `sql` to a server with basic auth; resolves true on HTTP 200. */
function httpQueryOk(host, port, sql, user, password) {
    return new Promise((resolve) => {
        const req = http.request({
            host,
            port,
            path: '/',
            method: 'POST',
            auth: `${user}:${password}`,
            timeout: 2000,
            agent: false,
        }, (res) => {
            res.resume();
            resolve(res.statusCode === 200);
        });
        req.on('timeout', () => req.destroy());
        req.on('error', () => resolve(false));
        req.end(sql);
    });
}
/** GET `/ping`; resolves true on HTTP 200. */
function httpPingOk(host, port) {
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
function exitedContainer(exit) {
    return { exited: Promise.resolve(exit), stop: () => undefined };
}
/**
 * Starts moto, creates one EC2 instance per node, and starts the emulator with the simulated control
 * plane wired to them (see the file header).
 * @throws Error when moto, the engine version probe or an EC2 call fails (everything started is stopped)
 */
async function startEksSim(opts = {}) {
    if (!fs.existsSync(SERVER_SCRIPT))
        throw new Error(`eks-sim: ${SERVER_SCRIPT} is missing; run npx tsc -p . first`);
    const ownRoot = opts.rootDir === undefined;
    const rootDir = opts.rootDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'eks-sim-'));
    fs.mkdirSync(rootDir, { recursive: true });
    const [moto, engineVersion] = await Promise.all([(0, moto_1.startMoto)(), chdbEngineVersion()]);
    const procs = new Map();
    let cluster;
    let timer;
    let stopped = false;
    let stopping;
    try {
        // ----- nodes: EC2 instances -----
        const images = await moto.ec2.send(new client_ec2_1.DescribeImagesCommand({
            Owners: ['amazon'],
            Filters: [
                { Name: 'name', Values: ['amzn2-ami-hvm-*'] },
                { Name: 'architecture', Values: ['x86_64'] },
            ],
        }));
        const imageId = images.Images?.[0]?.ImageId;
        if (!imageId)
            throw new Error('eks-sim: moto has no Amazon Linux 2 x86_64 AMI');
        const nodes = [];
        for (const n of opts.nodes ?? DEFAULT_NODES) {
            const instanceType = n.instanceType ?? 'm5.xlarge';
            const run = await moto.ec2.send(new client_ec2_1.RunInstancesCommand({
                ImageId: imageId,
                InstanceType: instanceType,
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
            }));
            const instanceId = run.Instances?.[0]?.InstanceId;
            if (!instanceId)
                throw new Error(`eks-sim: RunInstances returned no instance for node ${n.name}`);
            const types = await moto.ec2.send(new client_ec2_1.DescribeInstanceTypesCommand({ InstanceTypes: [instanceType] }));
            const vcpus = types.InstanceTypes?.[0]?.VCpuInfo?.DefaultVCpus ?? Math.max(1, Math.ceil((0, cluster_1.parseQuantity)(n.cpu ?? '4')));
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
        let chain = Promise.resolve();
        const publishOnce = async () => {
            const nowMs = Date.now();
            const timestamp = new Date(nowMs);
            const seconds = Math.max((nowMs - lastTickMs) / 1000, 1e-3);
            lastTickMs = nowMs;
            const out = [];
            const add = (namespace, metric, dimension, value, unit) => out.push({ namespace, metric, dimension, value, unit, timestamp });
            const perNode = new Map();
            for (const p of procs.values()) {
                const cur = readProcCounters(p.pid);
                if (!cur)
                    continue;
                const prev = p.last ?? { readBytes: 0, writeBytes: 0, syscr: 0, syscw: 0, cpuSeconds: 0 };
                p.last = cur;
                const d = (k) => Math.max(0, cur[k] - prev[k]);
                const acc = perNode.get(p.node) ?? { cpu: 0, read: 0, write: 0 };
                acc.cpu += d('cpuSeconds');
                if (p.volumeId) {
                    const dim = { name: 'VolumeId', value: p.volumeId };
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
                const dim = { name: 'InstanceId', value: n.instanceId };
                add('AWS/EC2', 'CPUUtilization', dim, Math.min(100, (acc.cpu / (seconds * n.vcpus)) * 100), 'Percent');
                add('AWS/EC2', 'EBSReadBytes', dim, acc.read, 'Bytes');
                add('AWS/EC2', 'EBSWriteBytes', dim, acc.write, 'Bytes');
            }
            for (const ns of ['AWS/EBS', 'AWS/EC2']) {
                const data = out
                    .filter((m) => m.namespace === ns)
                    .map((m) => ({
                    MetricName: m.metric,
                    Dimensions: [{ Name: m.dimension.name, Value: m.dimension.value }],
                    Value: m.value,
                    Unit: m.unit,
                    Timestamp: m.timestamp,
                }));
                for (let i = 0; i < data.length; i += 1000)
                    await moto.cloudwatch.send(new client_cloudwatch_1.PutMetricDataCommand({ Namespace: ns, MetricData: data.slice(i, i + 1000) }));
            }
            return out;
        };
        /** Serialised, so two publications never take the same differences. */
        const publishNow = () => {
            const next = chain.then(publishOnce);
            chain = next.catch(() => undefined);
            return next;
        };
        // ----- kubelet runner -----
        const stopTimeoutMs = opts.stopTimeoutMs ?? 10_000;
        const runContainer = async (pod, podIp, ctx) => {
            const image = String(ctx.container.image ?? '');
            const m = CH_IMAGE.exec(image);
            if (!m)
                return (0, cluster_1.pingServer)(pod, podIp, ctx);
            const tag = m[1] ?? 'latest';
            if (!tagMatchesEngine(tag, engineVersion)) {
                ctx.log(`${new Date().toISOString()} eks-sim: image ${image} asks for ClickHouse ${tag}, but this simulated node runs the chdb engine's ClickHouse ${engineVersion} only (a tag must be ${engineVersion}, a prefix of it at a dot, or latest); exit code 1\n`);
                return exitedContainer({ exitCode: 1, reason: 'Error' });
            }
            const env = resolveContainerEnv(cluster, pod, ctx.container);
            const port = ctx.container.ports?.[0]?.containerPort ?? 8123;
            const vol = ctx.volumes.find((v) => v.mountPath === DATA_MOUNT) ?? ctx.volumes.find((v) => v.volumeHandle);
            const podDir = path.join(rootDir, 'pods', String(pod.metadata.uid), String(ctx.container.name));
            const dataDir = vol?.volumeHandle ? path.join(rootDir, 'volumes', vol.volumeHandle) : path.join(podDir, 'data');
            fs.mkdirSync(dataDir, { recursive: true });
            fs.mkdirSync(podDir, { recursive: true });
            const child = (0, node_child_process_1.spawn)(process.execPath, [
                SERVER_SCRIPT,
                '--data-dir',
                dataDir,
                '--host',
                podIp,
                '--port',
                String(port),
                '--port-file',
                path.join(podDir, 'port'),
                '--auth-from-env',
            ], {
                cwd: config_1.REPO_ROOT,
                stdio: ['ignore', 'pipe', 'pipe'],
                env: {
                    PATH: process.env.PATH ?? '/usr/bin:/bin',
                    HOME: process.env.HOME ?? '/tmp',
                    ...env,
                    CLICKHOUSE_USER: env.CLICKHOUSE_USER ?? 'default',
                    CLICKHOUSE_PASSWORD: env.CLICKHOUSE_PASSWORD ?? '',
                },
            });
            child.stdout.on('data', (b) => ctx.log(b.toString()));
            child.stderr.on('data', (b) => ctx.log(b.toString()));
            const key = `${pod.metadata.uid}/${ctx.container.name}/${child.pid}`;
            const exited = new Promise((resolve) => {
                child.once('exit', (code, signal) => {
                    procs.delete(key);
                    const sig = signal ? (os.constants.signals[signal] ?? 15) : 0;
                    resolve({ exitCode: code ?? 128 + sig, reason: code === 0 ? 'Completed' : 'Error' });
                });
            });
            await new Promise((resolve, reject) => {
                child.once('spawn', () => resolve());
                child.once('error', reject);
            });
            procs.set(key, { pid: child.pid, node: String(pod.spec?.nodeName ?? ''), volumeId: vol?.volumeHandle });
            const graceMs = Math.min((pod.spec?.terminationGracePeriodSeconds ?? 30) * 1000, stopTimeoutMs);
            let stopping;
            return {
                pid: child.pid,
                exited,
                stop: () => (stopping ??= (async () => {
                    if (child.exitCode !== null || child.signalCode !== null)
                        return;
                    if (!stopped)
                        await publishNow().catch(() => undefined);
                    child.kill('SIGTERM');
                    const kill = setTimeout(() => child.kill('SIGKILL'), graceMs);
                    await exited;
                    clearTimeout(kill);
                })()),
            };
        };
        const execProbe = async (pod, container, command, podIp) => {
            const port = container.ports?.[0]?.containerPort ?? 8123;
            const sql = clientQuery(command);
            if (sql === undefined)
                return httpPingOk(podIp, port);
            let env;
            try {
                env = resolveContainerEnv(cluster, pod, container);
            }
            catch {
                return false;
            }
            return httpQueryOk(podIp, port, sql, env.CLICKHOUSE_USER || 'default', env.CLICKHOUSE_PASSWORD ?? '');
        };
        // ----- CSI driver -----
        const createVolume = async (req) => {
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
            const v = await moto.ec2.send(new client_ec2_1.CreateVolumeCommand({
                AvailabilityZone: req.zone,
                Size: Math.max(1, Math.ceil(req.sizeBytes / 2 ** 30)),
                VolumeType: (p.type ?? 'gp3'),
                ...(p.iops ? { Iops: Number(p.iops) } : {}),
                ...(p.throughput ? { Throughput: Number(p.throughput) } : {}),
                ...(p.encrypted !== undefined ? { Encrypted: p.encrypted === 'true' } : {}),
                ...(p.kmsKeyId ? { KmsKeyId: p.kmsKeyId } : {}),
                TagSpecifications: [{ ResourceType: 'volume', Tags: tags }],
            }));
            if (!v.VolumeId)
                throw new Error('CreateVolume returned no VolumeId');
            return v.VolumeId;
        };
        const deleteVolume = async (handle) => {
            try {
                await moto.ec2.send(new client_ec2_1.DeleteVolumeCommand({ VolumeId: handle }));
            }
            catch (e) {
                if (e.name !== 'InvalidVolume.NotFound')
                    throw e;
            }
            fs.rmSync(path.join(rootDir, 'volumes', handle), { recursive: true, force: true });
        };
        cluster = new cluster_1.SimCluster({
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
                    if (!stopped)
                        console.error('eks-sim: metrics publication failed:', e);
                });
            }, publishEveryMs);
            timer.unref();
        }
        const sim = {
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
            stop: () => (stopping ??= (async () => {
                await cluster.stop(); // stops every container (each publishes its last sample first)
                stopped = true;
                clearInterval(timer);
                await chain;
                await moto.stop();
                if (ownRoot)
                    fs.rmSync(rootDir, { recursive: true, force: true });
            })()),
        };
        return sim;
    }
    catch (e) {
        stopped = true;
        clearInterval(timer);
        await cluster?.stop().catch(() => undefined);
        await moto.stop();
        if (ownRoot)
            fs.rmSync(rootDir, { recursive: true, force: true });
        throw e;
    }
}
//# sourceMappingURL=eks-sim.js.map