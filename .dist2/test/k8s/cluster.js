"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.SimCluster = exports.DEFAULT_KNOWN_IMAGES = void 0;
exports.parseQuantity = parseQuantity;
exports.pingServer = pingServer;
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
 * - Test controls: {@link SimCluster.evict} (node-pressure eviction), {@link SimCluster.oomKill},
 *   {@link SimCluster.volumes} (what the CSI hooks created and deleted), {@link SimCluster.event}.
 * - Not simulated: taints/tolerations, pod (anti-)affinity, preemption, resource limits enforcement
 *   (an OOM kill happens only through oomKill()), exponential back-off, init containers, volume
 *   attach/detach (a volume is usable on any node of its zone at once), node failures.
 */
const node_http_1 = __importDefault(require("node:http"));
const node_net_1 = __importDefault(require("node:net"));
const node_crypto_1 = require("node:crypto");
const emulator_1 = require("./emulator");
exports.DEFAULT_KNOWN_IMAGES = [
    /^clickhouse\/clickhouse-server:(latest|26\.7|26\.7\.2\.1|26\.3|26\.3\.33\.24|24\.8|24\.8\.14\.39|18\.16)$/,
    'busybox',
    'busybox:latest',
];
const ZONE = 'topology.kubernetes.io/zone';
const SELECTED_NODE = 'volume.kubernetes.io/selected-node';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const now = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');
const hex = (n) => (0, node_crypto_1.randomBytes)(Math.ceil(n / 2))
    .toString('hex')
    .slice(0, n);
/** Parses a Kubernetes quantity (`2500m`, `9Gi`, `100G`, `1.5`) into base units (cores, bytes). */
function parseQuantity(q) {
    if (q === undefined)
        return 0;
    const m = /^([0-9.]+)([a-zA-Z]*)$/.exec(String(q).trim());
    if (!m)
        throw new Error(`bad quantity ${q}`);
    const mult = {
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
    if (!(m[2] in mult))
        throw new Error(`bad quantity suffix ${q}`);
    return Number(m[1]) * mult[m[2]];
}
/** Whether node labels satisfy one NodeSelectorTerm's matchExpressions (and metadata.name matchFields). */
function termMatches(term, labels, name) {
    const exprOk = (e, value) => {
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
    return ((term.matchExpressions ?? []).every((e) => exprOk(e, labels[e.key])) &&
        (term.matchFields ?? []).every((e) => exprOk(e, e.key === 'metadata.name' ? name : undefined)));
}
function nodeSelectorMatches(sel, node) {
    const terms = sel?.nodeSelectorTerms ?? [];
    return terms.length === 0 || terms.some((t) => termMatches(t, node.metadata.labels ?? {}, node.metadata.name));
}
function podRequests(pod) {
    let cpu = 0;
    let memory = 0;
    for (const c of pod.spec?.containers ?? []) {
        const r = { ...c.resources?.limits, ...c.resources?.requests };
        cpu += parseQuantity(r.cpu);
        memory += parseQuantity(r.memory);
    }
    return { cpu, memory };
}
function imageKnown(image, known) {
    const bare = image.replace(/^docker\.io\//, '').replace(/^library\//, '');
    return known.some((k) => (typeof k === 'string' ? k === bare : k.test(bare)));
}
async function httpOk(url, timeoutMs = 1000) {
    return new Promise((resolve) => {
        const req = node_http_1.default.get(url, { timeout: timeoutMs, agent: false }, (res) => {
            res.resume();
            resolve((res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 400);
        });
        req.on('timeout', () => req.destroy());
        req.on('error', () => resolve(false));
    });
}
async function tcpOk(host, port, timeoutMs = 1000) {
    return new Promise((resolve) => {
        const s = node_net_1.default.connect({ host, port, timeout: timeoutMs }, () => {
            s.destroy();
            resolve(true);
        });
        s.on('timeout', () => s.destroy());
        s.on('error', () => resolve(false));
        s.on('close', () => resolve(false));
    });
}
async function portFree(host, port) {
    return new Promise((resolve) => {
        const srv = node_net_1.default.createServer();
        srv.once('error', () => resolve(false));
        srv.listen(port, host, () => srv.close(() => resolve(true)));
    });
}
const containerPort = (c) => c?.ports?.[0]?.containerPort ?? 8123;
/**
 * The default container: a tiny HTTP server on `podIp:<first containerPort, default 8123>` that
 * answers `/ping` with `Ok.` and `?query=SELECT version()` with the image tag, like ClickHouse.
 */
async function pingServer(pod, podIp, ctx) {
    const port = containerPort(ctx.container);
    const version = String(ctx.container.image ?? '').split(':')[1] ?? 'latest';
    const server = node_http_1.default.createServer((req, res) => {
        const url = new URL(req.url ?? '/', 'http://x');
        const q = url.searchParams.get('query');
        if (url.pathname === '/ping')
            res.end('Ok.\n');
        else if (url.pathname === '/' && q && /^\s*SELECT\s+version\(\)\s*$/i.test(q))
            res.end(`${version}\n`);
        else if (url.pathname === '/' && !q)
            res.end('Ok.\n');
        else {
            res.statusCode = 400;
            res.end('Code: 62. DB::Exception: this emulated container only answers SELECT version(). (SYNTAX_ERROR)\n');
        }
    });
    await new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, podIp, () => resolve());
    });
    ctx.log(`${now()} listening on http://${podIp}:${port} (pod ${pod.metadata.namespace}/${pod.metadata.name})\n`);
    let exit;
    const exited = new Promise((r) => (exit = r));
    server.on('close', () => exit({ exitCode: 0 }));
    return {
        exited,
        stop: () => new Promise((resolve) => {
            server.closeAllConnections();
            server.close(() => resolve());
        }),
    };
}
class SimCluster {
    opts;
    emu;
    nodes;
    runs = new Map();
    usedIps = new Set();
    recorded = new Map();
    unsubscribe;
    resync;
    busy = false;
    dirty = false;
    stopped = false;
    idle = Promise.resolve();
    /** Volumes created and deleted by the CSI hooks, for assertions. */
    volumes = { created: [], deleted: [] };
    constructor(opts = {}) {
        this.opts = opts;
        this.emu = new emulator_1.KubeEmulator(opts.emulator);
        this.nodes = opts.nodes ?? [{ name: 'node-a', zone: 'us-east-1a' }];
    }
    get url() {
        return this.emu.url;
    }
    async start() {
        for (const n of this.nodes)
            this.emu.create('nodes', this.nodeObject(n));
        this.emu.podTerminating = (pod) => this.stopPod(pod, true);
        this.unsubscribe = this.emu.subscribe((c) => {
            if (c.resource === 'pods' && c.type === 'DELETED') {
                // Also pods removed without a grace period (the podTerminating hook is not called for them).
                void this.stopPod(c.object, false).then(() => this.runs.delete(c.object.metadata.uid));
            }
            if (c.resource !== 'events' && c.resource !== 'events.events.k8s.io')
                this.kick();
        });
        this.resync = setInterval(() => this.kick(), this.opts.resyncMs ?? 250);
        await this.emu.start();
        this.kick();
        return this;
    }
    async stop() {
        this.stopped = true;
        this.unsubscribe?.();
        clearInterval(this.resync);
        await this.idle;
        await Promise.all([...this.runs.values()].map((r) => this.stopRun(r)));
        await this.emu.stop();
    }
    /** Every container the kubelet runs now (for metrics publishers and assertions). */
    running() {
        const out = [];
        for (const r of this.runs.values()) {
            const pod = this.emu.tryGet('pods', r.ns, r.name);
            if (!pod || pod.metadata.uid !== r.uid || !r.ip)
                continue;
            (pod.spec?.containers ?? []).forEach((c, i) => {
                const h = r.handles[i];
                if (h)
                    out.push({
                        namespace: r.ns,
                        pod: r.name,
                        uid: r.uid,
                        container: c.name,
                        podIp: r.ip,
                        node: pod.spec.nodeName,
                        pid: h.pid,
                        volumes: this.mounts(pod, c),
                    });
            });
        }
        return out;
    }
    /** A container's PVC mounts with their bound PVs (unbound claims are left out). */
    mounts(pod, c) {
        const out = [];
        for (const m of c.volumeMounts ?? []) {
            const v = (pod.spec?.volumes ?? []).find((x) => x.name === m.name);
            const claimName = v?.persistentVolumeClaim?.claimName;
            if (!claimName)
                continue;
            const pvc = this.emu.tryGet('persistentvolumeclaims', pod.metadata.namespace, claimName);
            const pv = pvc?.spec?.volumeName && this.emu.tryGet('persistentvolumes', undefined, pvc.spec.volumeName);
            if (!pv)
                continue;
            const zone = pv.spec?.nodeAffinity?.required?.nodeSelectorTerms?.[0]?.matchExpressions?.find((e) => e.key === ZONE)?.values?.[0];
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
    podIp(ns, name) {
        return [...this.runs.values()].find((r) => r.ns === ns && r.name === name)?.ip;
    }
    /** Node-pressure eviction: stops the containers; phase Failed, reason Evicted, event Evicted. */
    async evict(ns, name, message = 'The node was low on resource: memory. ') {
        const pod = this.emu.get('pods', ns, name);
        await this.stopPod(pod, false);
        this.emu.mutate('pods', ns, name, (p) => {
            p.status.phase = 'Failed';
            p.status.reason = 'Evicted';
            p.status.message = message;
            p.status.conditions = this.setCondition(p.status.conditions, 'Ready', 'False', 'PodFailed');
            p.status.conditions = this.setCondition(p.status.conditions, 'ContainersReady', 'False', 'PodFailed');
            p.status.conditions = this.setCondition(p.status.conditions, 'DisruptionTarget', 'True', 'TerminationByKubelet', message);
            p.status.containerStatuses = (p.status.containerStatuses ?? []).map((s) => ({
                ...s,
                ready: false,
                started: false,
                state: { terminated: { exitCode: 137, reason: 'ContainerStatusUnknown', finishedAt: now() } },
            }));
        }, 'status');
        this.event(pod, 'Warning', 'Evicted', message, 'kubelet');
    }
    /** Kills a container as the kernel's OOM killer would (exit 137, reason OOMKilled); restartPolicy decides what follows. */
    async oomKill(ns, name, containerIndex = 0) {
        const run = [...this.runs.values()].find((r) => r.ns === ns && r.name === name);
        const h = run?.handles[containerIndex];
        if (!run || !h)
            throw new Error(`oomKill: ${ns}/${name} has no running container ${containerIndex}`);
        run.oom.add(containerIndex);
        await h.stop();
    }
    // ----- plumbing -----
    kick() {
        if (this.stopped)
            return;
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
            }
            catch (e) {
                if (!this.stopped)
                    console.error('sim cluster: reconcile failed', e);
            }
            finally {
                this.busy = false;
            }
        })();
    }
    nodeObject(n) {
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
    event(obj, type, reason, message, component = 'default-scheduler') {
        const ns = obj.metadata.namespace ?? 'default';
        const key = `${obj.metadata.uid}/${reason}/${message}`;
        const existing = this.recorded.get(key);
        if (existing) {
            const ev = this.emu.tryGet('events', ns, existing);
            if (ev) {
                // Repeats are counted at most once a second (timestamps have second resolution), so a
                // retrying controller does not flood watchers with event updates.
                if (ev.lastTimestamp === now())
                    return;
                this.emu.mutate('events', ns, existing, (e) => {
                    e.count = (e.count ?? 1) + 1;
                    e.lastTimestamp = now();
                });
                return;
            }
        }
        const name = `${obj.metadata.name}.${hex(16)}`;
        this.recorded.set(key, name);
        this.emu.create('events', {
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
        }, ns);
    }
    setCondition(conds, type, status, reason, message) {
        const list = [...(conds ?? [])];
        const i = list.findIndex((c) => c.type === type);
        if (i >= 0 && list[i].status === status && list[i].reason === reason && list[i].message === message)
            return list;
        const c = {
            type,
            status,
            lastProbeTime: null,
            lastTransitionTime: now(),
            ...(reason ? { reason } : {}),
            ...(message ? { message } : {}),
        };
        if (i >= 0)
            list[i] = c;
        else
            list.push(c);
        return list;
    }
    // ----- controllers -----
    async reconcile() {
        await this.reconcileClaims();
        await this.reconcileVolumes();
        await this.schedule();
        this.kubelet();
    }
    storageClass(pvc) {
        const name = pvc.spec?.storageClassName;
        if (name)
            return this.emu.tryGet('storageclasses.storage.k8s.io', undefined, name);
        return this.emu
            .list('storageclasses.storage.k8s.io')
            .find((sc) => sc.metadata.annotations?.['storageclass.kubernetes.io/is-default-class'] === 'true');
    }
    async reconcileClaims() {
        for (const pvc of this.emu.list('persistentvolumeclaims')) {
            if (pvc.metadata.deletionTimestamp || pvc.spec?.volumeName)
                continue;
            const sc = this.storageClass(pvc);
            if (!sc) {
                const name = pvc.spec?.storageClassName ?? '';
                this.event(pvc, 'Warning', 'ProvisioningFailed', `storageclass.storage.k8s.io "${name}" not found`, 'persistentvolume-controller');
                continue;
            }
            const selected = pvc.metadata.annotations?.[SELECTED_NODE];
            if (sc.volumeBindingMode === 'WaitForFirstConsumer' && !selected) {
                this.event(pvc, 'Normal', 'WaitForFirstConsumer', 'waiting for first consumer to be created before binding', 'persistentvolume-controller');
                continue;
            }
            const node = selected
                ? this.nodes.find((n) => n.name === selected)
                : [...this.nodes].sort((a, b) => a.name.localeCompare(b.name))[0];
            if (node)
                await this.provision(pvc, sc, node.zone);
        }
    }
    async provision(pvc, sc, zone) {
        const provisioner = String(sc.provisioner);
        const ref = `${pvc.metadata.namespace}/${pvc.metadata.name}`;
        this.event(pvc, 'Normal', 'Provisioning', `External provisioner is provisioning volume for claim "${ref}"`, provisioner);
        const pvName = `pvc-${pvc.metadata.uid}`;
        const size = pvc.spec?.resources?.requests?.storage ?? '1Gi';
        const req = {
            name: pvName,
            sizeBytes: parseQuantity(size),
            zone,
            parameters: { ...sc.parameters },
            claim: { namespace: String(pvc.metadata.namespace), name: pvc.metadata.name },
        };
        let handle;
        try {
            handle = this.opts.createVolume ? await this.opts.createVolume(req) : `vol-${hex(17)}`;
        }
        catch (e) {
            this.event(pvc, 'Warning', 'ProvisioningFailed', `failed to provision volume with StorageClass "${sc.metadata.name}": ${e instanceof Error ? e.message : String(e)}`, provisioner);
            return false;
        }
        this.volumes.created.push(req);
        const cur = this.emu.tryGet('persistentvolumeclaims', pvc.metadata.namespace, pvc.metadata.name);
        if (!cur || cur.metadata.uid !== pvc.metadata.uid)
            return false;
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
        this.emu.mutate('persistentvolumeclaims', pvc.metadata.namespace, pvc.metadata.name, (c) => (c.status = { phase: 'Bound', accessModes: c.spec.accessModes, capacity: { storage: size } }), 'status');
        this.event(pvc, 'Normal', 'ProvisioningSucceeded', `Successfully provisioned volume ${pvName}`, provisioner);
        return true;
    }
    /** PVs whose claim is gone: Released, and deleted (with the volume) under reclaimPolicy Delete. */
    async reconcileVolumes() {
        for (const pv of this.emu.list('persistentvolumes')) {
            const ref = pv.spec?.claimRef;
            if (!ref || pv.metadata.deletionTimestamp)
                continue;
            const claim = this.emu.tryGet('persistentvolumeclaims', ref.namespace, ref.name);
            if (claim && claim.metadata.uid === ref.uid)
                continue;
            if (pv.status?.phase === 'Bound')
                this.emu.mutate('persistentvolumes', undefined, pv.metadata.name, (p) => (p.status = { phase: 'Released' }), 'status');
            if (pv.spec.persistentVolumeReclaimPolicy === 'Delete') {
                const handle = pv.spec.csi?.volumeHandle;
                if (handle) {
                    try {
                        await this.opts.deleteVolume?.(handle, pv);
                    }
                    catch (e) {
                        this.event(pv, 'Warning', 'VolumeFailedDelete', e instanceof Error ? e.message : String(e), String(pv.spec.csi.driver));
                        continue;
                    }
                    this.volumes.deleted.push(handle);
                }
                this.emu.delete('persistentvolumes', undefined, pv.metadata.name);
            }
        }
    }
    async schedule() {
        const nodes = this.emu.list('nodes').sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
        const pods = this.emu.list('pods');
        for (const pod of pods) {
            if (pod.spec?.nodeName || pod.metadata.deletionTimestamp || pod.status?.phase !== 'Pending')
                continue;
            if ((pod.spec?.schedulerName ?? 'default-scheduler') !== 'default-scheduler')
                continue;
            const ns = pod.metadata.namespace;
            const claims = [];
            let missing;
            for (const v of pod.spec?.volumes ?? []) {
                const name = v.persistentVolumeClaim?.claimName;
                if (!name)
                    continue;
                const c = this.emu.tryGet('persistentvolumeclaims', ns, name);
                if (!c)
                    missing = name;
                else
                    claims.push(c);
            }
            if (missing) {
                this.unschedulable(pod, `0/${nodes.length} nodes are available: persistentvolumeclaim "${missing}" not found. preemption: 0/${nodes.length} nodes are available: ${nodes.length} Preemption is not helpful for scheduling.`);
                continue;
            }
            const reasons = new Map();
            const fit = nodes.filter((node) => {
                const why = this.misfit(pod, node, claims, pods);
                if (why)
                    reasons.set(why, (reasons.get(why) ?? 0) + 1);
                return !why;
            });
            if (fit.length === 0) {
                const parts = [...reasons.entries()].map(([r, n]) => `${n} ${r}`).sort();
                this.unschedulable(pod, `0/${nodes.length} nodes are available: ${parts.join(', ')}. preemption: 0/${nodes.length} nodes are available: ${nodes.length} Preemption is not helpful for scheduling.`);
                continue;
            }
            const node = fit[0];
            const zone = node.metadata.labels?.[ZONE] ?? '';
            let provisioned = true;
            for (const c of claims) {
                if (c.spec?.volumeName)
                    continue;
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
                this.unschedulable(pod, `running PreBind plugin "VolumeBinding": binding volumes: provisioning failed for the pod's claims`);
                continue;
            }
            const cur = this.emu.tryGet('pods', ns, pod.metadata.name);
            if (!cur || cur.metadata.uid !== pod.metadata.uid || cur.spec?.nodeName)
                continue;
            this.emu.mutate('pods', ns, pod.metadata.name, (p) => (p.spec.nodeName = node.metadata.name));
            this.emu.mutate('pods', ns, pod.metadata.name, (p) => (p.status.conditions = this.setCondition(p.status.conditions, 'PodScheduled', 'True')), 'status');
            this.event(pod, 'Normal', 'Scheduled', `Successfully assigned ${ns}/${pod.metadata.name} to ${node.metadata.name}`);
        }
    }
    /** Why `pod` cannot go to `node` (in the scheduler's words), or undefined when it fits. */
    misfit(pod, node, claims, pods) {
        const labels = node.metadata.labels ?? {};
        const sel = pod.spec?.nodeSelector ?? {};
        const affinity = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
        if (Object.entries(sel).some(([k, v]) => labels[k] !== v) || (affinity && !nodeSelectorMatches(affinity, node)))
            return "node(s) didn't match Pod's node affinity/selector";
        if (node.spec?.unschedulable)
            return 'node(s) were unschedulable';
        for (const c of claims) {
            if (!c.spec?.volumeName)
                continue;
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
        if (used.cpu + want.cpu > parseQuantity(alloc.cpu) + 1e-9)
            return 'Insufficient cpu';
        if (used.memory + want.memory > parseQuantity(alloc.memory))
            return 'Insufficient memory';
        return undefined;
    }
    unschedulable(pod, message) {
        this.emu.mutate('pods', pod.metadata.namespace, pod.metadata.name, (p) => (p.status.conditions = this.setCondition(p.status.conditions, 'PodScheduled', 'False', 'Unschedulable', message)), 'status');
        this.event(pod, 'Warning', 'FailedScheduling', message);
    }
    // ----- kubelet -----
    kubelet() {
        const ours = new Set(this.nodes.map((n) => n.name));
        for (const pod of this.emu.list('pods')) {
            if (!ours.has(pod.spec?.nodeName) || pod.metadata.deletionTimestamp)
                continue;
            if (this.runs.has(pod.metadata.uid) || pod.status?.phase !== 'Pending')
                continue;
            const run = {
                uid: pod.metadata.uid,
                ns: pod.metadata.namespace,
                name: pod.metadata.name,
                handles: [],
                stopping: false,
                oom: new Set(),
                timers: new Map(),
                ready: [],
            };
            this.runs.set(run.uid, run);
            void this.startPod(run, pod).catch((e) => {
                if (!this.stopped)
                    console.error(`sim kubelet: ${run.ns}/${run.name}:`, e);
            });
        }
    }
    async allocateIp(port) {
        for (let a = 0; a < 255; a++)
            for (let b = a === 0 ? 2 : 1; b < 255; b++) {
                const ip = `127.0.${a}.${b}`;
                if (this.usedIps.has(ip))
                    continue;
                this.usedIps.add(ip);
                if (await portFree(ip, port))
                    return ip;
                this.usedIps.delete(ip);
            }
        throw new Error('sim kubelet: no free loopback address');
    }
    /** Writes pod status unless the pod went away (or was replaced by another with the same name). */
    podStatus(run, fn) {
        const pod = this.emu.tryGet('pods', run.ns, run.name);
        if (!pod || pod.metadata.uid !== run.uid)
            return undefined;
        return this.emu.mutate('pods', run.ns, run.name, (p) => fn(p.status, p), 'status');
    }
    refreshReady(run) {
        this.podStatus(run, (s, p) => {
            if (s.phase !== 'Running')
                return;
            const all = (p.spec.containers ?? []).every((_c, i) => run.ready[i]);
            s.containerStatuses = (s.containerStatuses ?? []).map((cs, i) => ({ ...cs, ready: !!run.ready[i] }));
            const [st, reason] = all ? ['True', undefined] : ['False', 'ContainersNotReady'];
            s.conditions = this.setCondition(s.conditions, 'ContainersReady', st, reason);
            s.conditions = this.setCondition(s.conditions, 'Ready', st, reason);
        });
    }
    async startPod(run, pod) {
        const containers = pod.spec.containers ?? [];
        const known = this.opts.knownImages ?? exports.DEFAULT_KNOWN_IMAGES;
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
        const unknown = containers.map((c, i) => [c, i]).filter(([c]) => !imageKnown(String(c.image), known));
        if (unknown.length > 0)
            return this.failPull(run, pod, unknown);
        await Promise.all(containers.map((c, i) => this.startContainer(run, pod, c, i)));
    }
    async failPull(run, pod, unknown) {
        const setWaiting = (reason, message) => this.podStatus(run, (s) => {
            for (const [c, i] of unknown)
                s.containerStatuses[i].state = { waiting: { reason, message: message(c.image) } };
        });
        const full = (image) => image.includes('/') && image.split('/')[0].includes('.')
            ? image
            : `docker.io/${image.includes('/') ? '' : 'library/'}${image}`;
        const pullError = (image) => `rpc error: code = NotFound desc = failed to pull and unpack image "${full(image)}": failed to resolve reference "${full(image)}": ${full(image)}: not found`;
        for (const [c] of unknown) {
            this.event(pod, 'Normal', 'Pulling', `Pulling image "${c.image}"`, 'kubelet');
            this.event(pod, 'Warning', 'Failed', `Failed to pull image "${c.image}": ${pullError(c.image)}`, 'kubelet');
            this.event(pod, 'Warning', 'Failed', 'Error: ErrImagePull', 'kubelet');
        }
        setWaiting('ErrImagePull', pullError);
        await sleep(this.opts.imagePullBackOffMs ?? 100);
        if (run.stopping || this.stopped)
            return;
        setWaiting('ImagePullBackOff', (image) => `Back-off pulling image "${image}"`);
        for (const [c] of unknown) {
            this.event(pod, 'Normal', 'BackOff', `Back-off pulling image "${c.image}"`, 'kubelet');
            this.event(pod, 'Warning', 'Failed', 'Error: ImagePullBackOff', 'kubelet');
        }
    }
    async startContainer(run, pod, c, i) {
        if (run.stopping || this.stopped)
            return;
        this.event(pod, 'Normal', 'Pulled', `Container image "${c.image}" already present on machine`, 'kubelet');
        this.event(pod, 'Normal', 'Created', `Created container: ${c.name}`, 'kubelet');
        const runContainer = this.opts.runContainer ?? pingServer;
        let handle;
        try {
            handle = await runContainer(pod, run.ip, {
                container: c,
                log: (t) => this.emu.appendLog(run.ns, run.name, c.name, t),
                volumes: this.mounts(pod, c),
            });
        }
        catch (e) {
            this.emu.appendLog(run.ns, run.name, c.name, `failed to start: ${e instanceof Error ? e.message : String(e)}\n`);
            return this.containerExited(run, pod, c, i, { exitCode: 128, reason: 'StartError' }, now());
        }
        if (run.stopping || this.stopped)
            return void (await handle.stop());
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
        if (c.readinessProbe)
            this.probeLoop(run, pod, c, i, handle);
        void handle.exited.then((exit) => {
            if (run.handles[i] === handle)
                run.handles[i] = undefined;
            if (!run.stopping && !this.stopped)
                void this.containerExited(run, pod, c, i, exit, startedAt);
        });
    }
    probeLoop(run, pod, c, i, handle) {
        const p = c.readinessProbe;
        const period = Math.min((p.periodSeconds ?? 10) * 1000, this.opts.probePeriodMs ?? 100);
        const probe = async () => {
            if (p.httpGet) {
                const port = typeof p.httpGet.port === 'number'
                    ? p.httpGet.port
                    : (c.ports ?? []).find((x) => x.name === p.httpGet.port)?.containerPort;
                return httpOk(`http://${run.ip}:${port}${p.httpGet.path ?? '/'}`);
            }
            if (p.tcpSocket)
                return tcpOk(run.ip, Number(p.tcpSocket.port));
            if (p.exec)
                return (this.opts.execProbe ?? ((_p, _c, _cmd, ip) => httpOk(`http://${ip}:8123/ping`)))(pod, c, p.exec.command ?? [], run.ip);
            return true;
        };
        const tick = async () => {
            if (run.stopping || this.stopped || run.handles[i] !== handle)
                return;
            const ok = await probe().catch(() => false);
            if (run.stopping || this.stopped || run.handles[i] !== handle)
                return;
            if (ok !== run.ready[i]) {
                run.ready[i] = ok;
                this.refreshReady(run);
                if (!ok)
                    this.event(pod, 'Warning', 'Unhealthy', `Readiness probe failed`, 'kubelet');
            }
            run.timers.set(i, setTimeout(() => void tick(), period));
        };
        void tick();
    }
    async containerExited(run, pod, c, i, exit, startedAt) {
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
                const states = s.containerStatuses.map((x) => x.state?.terminated);
                if (states.every(Boolean))
                    s.phase = states.every((t) => t.exitCode === 0) ? 'Succeeded' : 'Failed';
            });
            if (done && ['Succeeded', 'Failed'].includes(done.status.phase))
                this.releaseIp(run);
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
        this.event(pod, 'Warning', 'BackOff', `Back-off restarting failed container ${c.name} in pod ${run.name}_${run.ns}(${run.uid})`, 'kubelet');
        await sleep(this.opts.restartBackOffMs ?? 100);
        await this.startContainer(run, pod, c, i);
    }
    releaseIp(run) {
        if (run.ip)
            this.usedIps.delete(run.ip);
    }
    async stopRun(run) {
        run.stopping = true;
        for (const t of run.timers.values())
            clearTimeout(t);
        run.timers.clear();
        await Promise.all(run.handles.map(async (h) => h?.stop()));
        await Promise.all(run.handles.map(async (h) => h?.exited));
        run.handles = [];
        this.releaseIp(run);
    }
    /** Stops a pod's containers (deletion: `Killing` events, then the emulator removes it). */
    async stopPod(pod, deleting) {
        const run = this.runs.get(pod.metadata.uid);
        if (!run)
            return;
        if (deleting)
            for (const c of pod.spec?.containers ?? [])
                this.event(pod, 'Normal', 'Killing', `Stopping container ${c.name}`, 'kubelet');
        await this.stopRun(run);
        if (deleting)
            this.runs.delete(run.uid);
    }
}
exports.SimCluster = SimCluster;
//# sourceMappingURL=cluster.js.map