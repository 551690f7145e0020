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
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * The simulated EKS (test/k8s/eks-sim.ts) against real clients: `@kubernetes/client-node` 1.4.0 on
 * the emulator, the AWS SDK on a real moto server, HTTP to the real embedded-engine processes the
 * simulated kubelet runs. One simulated cluster for the whole file; the steps build on each other
 * (article's StorageClass, Secret, PVC and pod → volume/instance facts → SQL → metrics → pod
 * deletion → a second pod on the same claim → port-forward → PVC deletion).
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const node_child_process_1 = require("node:child_process");
const fs = __importStar(require("node:fs"));
const net = __importStar(require("node:net"));
const path = __importStar(require("node:path"));
const k8s = __importStar(require("@kubernetes/client-node"));
const client_cloudwatch_1 = require("@aws-sdk/client-cloudwatch");
const client_ec2_1 = require("@aws-sdk/client-ec2");
const poll_1 = require("../../src/lib/poll");
const eks_sim_1 = require("./eks-sim");
const NS = 'bench-database';
const USER = 'bench';
const PASSWORD = 'p4ss-from-secret';
const b64 = (s) => Buffer.from(s).toString('base64');
/** The article's StorageClass (manifests/storageclass.yaml), as a plain object. */
const storageClass = {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: 'bench-clickhouse-gp3' },
    provisioner: 'ebs.csi.aws.com',
    parameters: { type: 'gp3', encrypted: 'true', iops: '3000', throughput: '125' },
    volumeBindingMode: 'WaitForFirstConsumer',
    reclaimPolicy: 'Delete',
};
/** A pod like manifests/pod.yaml, with credentials from the Secret. */
function clickhousePod(name, image = 'clickhouse/clickhouse-server:26.7', claim) {
    return {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
            name,
            namespace: NS,
            labels: { 'app.kubernetes.io/name': 'clickhouse' },
            annotations: { 'karpenter.sh/do-not-disrupt': 'true' },
        },
        spec: {
            nodeSelector: { 'node.kubernetes.io/instance-type': 'm5.xlarge' },
            terminationGracePeriodSeconds: 10,
            containers: [
                {
                    name: 'clickhouse',
                    image,
                    ports: [{ containerPort: 8123, name: 'http' }],
                    env: [
                        { name: 'CLICKHOUSE_USER', valueFrom: { secretKeyRef: { name: 'clickhouse-credentials', key: 'user' } } },
                        {
                            name: 'CLICKHOUSE_PASSWORD',
                            valueFrom: { secretKeyRef: { name: 'clickhouse-credentials', key: 'password' } },
                        },
                    ],
                    ...(claim
                        ? {
                            resources: { requests: { cpu: '2500m', memory: '9Gi' }, limits: { cpu: '3500m', memory: '12Gi' } },
                            volumeMounts: [{ name: 'data', mountPath: '/var/lib/clickhouse' }],
                        }
                        : {}),
                    readinessProbe: {
                        exec: { command: ['clickhouse-client', '--host', '127.0.0.1', '--query', 'SELECT 1'] },
                        initialDelaySeconds: 5,
                        periodSeconds: 5,
                    },
                },
            ],
            ...(claim ? { volumes: [{ name: 'data', persistentVolumeClaim: { claimName: claim } }] } : {}),
        },
    };
}
/** POSTs SQL to a ClickHouse HTTP endpoint with basic auth. */
async function query(base, sql, password = PASSWORD) {
    const r = await fetch(base, {
        method: 'POST',
        body: sql,
        headers: { Authorization: `Basic ${b64(`${USER}:${password}`)}` },
    });
    return { status: r.status, text: await r.text() };
}
const alive = (pid) => {
    try {
        process.kill(pid, 0);
        return true;
    }
    catch {
        return false;
    }
};
(0, node_test_1.describe)('simulated EKS: emulator + moto + embedded-engine pods', { timeout: 120_000 }, () => {
    let sim;
    let core;
    let storage;
    let kc;
    const startedAt = new Date();
    let podIp = '';
    let pid = 0;
    let volumeId = '';
    const waitReady = (name) => (0, poll_1.pollUntil)(async () => {
        const p = await core.readNamespacedPod({ name, namespace: NS });
        const ready = p.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
        return ready && p;
    }, { timeoutMs: 30_000, what: `pod ${name} Ready` });
    /** Data points of VolumeWriteBytes for the volume since the suite started (SampleCount, summed over minutes). */
    const writeSamples = async () => {
        const minute = 60_000;
        const r = await sim.moto.cloudwatch.send(new client_cloudwatch_1.GetMetricDataCommand({
            StartTime: new Date(Math.floor(startedAt.getTime() / minute) * minute),
            EndTime: new Date(Math.ceil((Date.now() + 1) / minute) * minute + minute),
            MetricDataQueries: [
                {
                    Id: 'n',
                    MetricStat: {
                        Metric: {
                            Namespace: 'AWS/EBS',
                            MetricName: 'VolumeWriteBytes',
                            Dimensions: [{ Name: 'VolumeId', Value: volumeId }],
                        },
                        Period: 60,
                        Stat: 'SampleCount',
                    },
                },
            ],
        }));
        return (r.MetricDataResults?.[0]?.Values ?? []).reduce((a, b) => a + b, 0);
    };
    (0, node_test_1.before)(async () => {
        sim = await (0, eks_sim_1.startEksSim)({ publishEveryMs: 0 });
        kc = new k8s.KubeConfig();
        kc.loadFromFile(sim.kubeconfigPath);
        core = kc.makeApiClient(k8s.CoreV1Api);
        storage = kc.makeApiClient(k8s.StorageV1Api);
    });
    (0, node_test_1.after)(async () => {
        await sim?.stop();
    });
    (0, node_test_1.it)('brings the article pod to Ready on a gp3 volume created in moto, on a moto m5.xlarge instance', async () => {
        await core.createNamespace({ body: { metadata: { name: NS } } });
        await storage.createStorageClass({ body: storageClass });
        await core.createNamespacedSecret({
            namespace: NS,
            body: {
                metadata: { name: 'clickhouse-credentials' },
                type: 'Opaque',
                data: { user: b64(USER), password: b64(PASSWORD) },
            },
        });
        await core.createNamespacedPersistentVolumeClaim({
            namespace: NS,
            body: {
                metadata: { name: 'clickhouse-data' },
                spec: {
                    accessModes: ['ReadWriteOnce'],
                    storageClassName: 'bench-clickhouse-gp3',
                    resources: { requests: { storage: '100Gi' } },
                },
            },
        });
        await core.createNamespacedPod({ namespace: NS, body: clickhousePod('clickhouse', undefined, 'clickhouse-data') });
        const pod = await waitReady('clickhouse');
        podIp = pod.status.podIP;
        strict_1.default.match(podIp, /^127\.\d+\.\d+\.\d+$/);
        strict_1.default.notEqual(podIp, '127.0.0.1');
        const pvc = await core.readNamespacedPersistentVolumeClaim({ name: 'clickhouse-data', namespace: NS });
        const pv = await core.readPersistentVolume({ name: pvc.spec.volumeName });
        volumeId = pv.spec.csi.volumeHandle;
        strict_1.default.match(volumeId, /^vol-[0-9a-f]+$/);
        const vols = await sim.moto.ec2.send(new client_ec2_1.DescribeVolumesCommand({ VolumeIds: [volumeId] }));
        const v = vols.Volumes[0];
        strict_1.default.deepEqual({
            type: v.VolumeType,
            iops: v.Iops,
            throughput: v.Throughput,
            size: v.Size,
            zone: v.AvailabilityZone,
            encrypted: v.Encrypted,
        }, { type: 'gp3', iops: 3000, throughput: 125, size: 100, zone: 'us-east-1a', encrypted: true });
        const tags = Object.fromEntries((v.Tags ?? []).map((t) => [t.Key, t.Value]));
        strict_1.default.equal(tags['kubernetes.io/created-for/pv/name'], pv.metadata.name);
        strict_1.default.equal(tags['kubernetes.io/created-for/pvc/name'], 'clickhouse-data');
        const node = await core.readNode({ name: pod.spec.nodeName });
        const m = /^aws:\/\/\/(us-east-1a)\/(i-[0-9a-f]+)$/.exec(node.spec.providerID);
        strict_1.default.ok(m, node.spec.providerID);
        strict_1.default.equal(m[2], sim.nodes[0].instanceId);
        const inst = await sim.moto.ec2.send(new client_ec2_1.DescribeInstancesCommand({ InstanceIds: [m[2]] }));
        const i = inst.Reservations[0].Instances[0];
        strict_1.default.equal(i.InstanceType, 'm5.xlarge');
        strict_1.default.equal(i.Placement?.AvailabilityZone, 'us-east-1a');
        strict_1.default.equal(i.Monitoring?.State, 'enabled');
    });
    (0, node_test_1.it)('serves SQL on the pod IP with the Secret credentials only (516 otherwise), as the engine version', async () => {
        const base = `http://${podIp}:8123/`;
        const v = await query(base, 'SELECT version()');
        strict_1.default.equal(v.status, 200, v.text);
        strict_1.default.match(v.text.trim(), /^26\.7\./);
        strict_1.default.ok(v.text.trim().startsWith(sim.engineVersion.split('.').slice(0, 2).join('.')));
        const bad = await query(base, 'SELECT 1', 'wrong');
        strict_1.default.equal(bad.status, 403);
        strict_1.default.match(bad.text, /^Code: 516\. DB::Exception: bench: Authentication failed: .*\(AUTHENTICATION_FAILED\)/);
        const ping = await fetch(`${base}ping`);
        strict_1.default.equal(ping.status, 200);
        // The other ways ClickHouse accepts credentials: X-ClickHouse-User/Key headers, user/password parameters.
        const viaHeaders = await fetch(`${base}?query=SELECT%202`, {
            headers: { 'X-ClickHouse-User': USER, 'X-ClickHouse-Key': PASSWORD },
        });
        strict_1.default.equal((await viaHeaders.text()).trim(), '2');
        const viaParams = await fetch(`${base}?query=SELECT%203&user=${USER}&password=${encodeURIComponent(PASSWORD)}`);
        strict_1.default.equal((await viaParams.text()).trim(), '3');
        const anonymous = await fetch(`${base}?query=SELECT%204`);
        strict_1.default.equal(anonymous.status, 403);
        strict_1.default.match(await anonymous.text(), /^Code: 516\. DB::Exception: default: Authentication failed/);
    });
    (0, node_test_1.it)('publishes the process I/O and CPU as AWS/EBS and AWS/EC2 metrics readable with GetMetricData', async () => {
        const base = `http://${podIp}:8123/`;
        const ddl = await query(base, 'CREATE TABLE t (n UInt64, s String) ENGINE = MergeTree ORDER BY n');
        strict_1.default.equal(ddl.status, 200, ddl.text);
        const ins = await query(base, 'INSERT INTO t SELECT number, toString(sipHash64(number)) FROM numbers(1000000)');
        strict_1.default.equal(ins.status, 200, ins.text);
        const running = sim.cluster.running().find((c) => c.pod === 'clickhouse');
        strict_1.default.ok(running?.pid);
        pid = running.pid;
        const sent = await sim.publishNow();
        const names = new Set(sent.map((s) => `${s.namespace} ${s.metric}`));
        for (const absent of ['VolumeQueueLength', 'VolumeIdleTime', 'BurstBalance', 'EBSByteBalance%', 'EBSIOBalance%'])
            strict_1.default.ok(![...names].some((n) => n.endsWith(` ${absent}`)), `${absent} must not be published`);
        const minute = 60_000;
        const start = new Date(Math.floor(startedAt.getTime() / minute) * minute);
        const end = new Date(Math.ceil((Date.now() + 1) / minute) * minute + minute);
        const instanceId = sim.nodes[0].instanceId;
        const stat = (id, ns, metric, dim, value) => ({
            Id: id,
            MetricStat: {
                Metric: { Namespace: ns, MetricName: metric, Dimensions: [{ Name: dim, Value: value }] },
                Period: 60,
                Stat: 'Sum',
            },
        });
        const r = await sim.moto.cloudwatch.send(new client_cloudwatch_1.GetMetricDataCommand({
            StartTime: start,
            EndTime: end,
            MetricDataQueries: [
                stat('wb', 'AWS/EBS', 'VolumeWriteBytes', 'VolumeId', volumeId),
                stat('wo', 'AWS/EBS', 'VolumeWriteOps', 'VolumeId', volumeId),
                stat('cpu', 'AWS/EC2', 'CPUUtilization', 'InstanceId', instanceId),
                stat('ebsw', 'AWS/EC2', 'EBSWriteBytes', 'InstanceId', instanceId),
                stat('q', 'AWS/EBS', 'VolumeQueueLength', 'VolumeId', volumeId),
            ],
        }));
        const total = (id) => (r.MetricDataResults ?? []).find((x) => x.Id === id)?.Values?.reduce((a, b) => a + b, 0) ?? 0;
        strict_1.default.ok(total('wb') > 1_000_000, `VolumeWriteBytes ${total('wb')}`);
        strict_1.default.ok(total('wo') > 0, `VolumeWriteOps ${total('wo')}`);
        strict_1.default.ok(total('cpu') > 0, `CPUUtilization ${total('cpu')}`);
        strict_1.default.equal(total('ebsw'), total('wb'));
        strict_1.default.deepEqual((r.MetricDataResults ?? []).find((x) => x.Id === 'q')?.Values ?? [], []);
    });
    (0, node_test_1.it)('port-forwards through the API server (client-node PortForward) to the pod', async () => {
        const pf = new k8s.PortForward(kc);
        const server = net.createServer((socket) => {
            pf.portForward(NS, 'clickhouse', [8123], socket, null, socket).catch(() => socket.destroy());
        });
        await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
        try {
            const port = server.address().port;
            const r = await query(`http://127.0.0.1:${port}/`, 'SELECT count() FROM t');
            strict_1.default.equal(r.status, 200, r.text);
            strict_1.default.equal(r.text.trim(), '1000000');
            strict_1.default.ok((sim.cluster.emu.requestCount['portforward'] ?? 0) >= 1);
            // kubectl port-forward speaks SPDY: refused with a clear message (a documented limit of the emulator).
            const k = await new Promise((resolve) => (0, node_child_process_1.execFile)('/usr/bin/kubectl', ['--kubeconfig', sim.kubeconfigPath, '-n', NS, 'port-forward', 'pod/clickhouse', '0:8123'], { timeout: 20_000, env: { ...process.env, HOME: sim.rootDir } }, (err, _out, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stderr })));
            strict_1.default.notEqual(k.code, 0);
            strict_1.default.match(k.stderr, /not supported by this emulator/);
        }
        finally {
            server.close();
        }
    });
    (0, node_test_1.it)('stops the process of a deleted pod (after a last metrics sample); a new pod on the same claim sees the table', async () => {
        strict_1.default.ok(alive(pid));
        const samplesBefore = await writeSamples();
        strict_1.default.ok(samplesBefore >= 1);
        await core.deleteNamespacedPod({ name: 'clickhouse', namespace: NS });
        await (0, poll_1.pollUntil)(async () => {
            const pods = await core.listNamespacedPod({ namespace: NS, fieldSelector: 'metadata.name=clickhouse' });
            return pods.items.length === 0 && !alive(pid);
        }, { timeoutMs: 20_000, what: 'pod clickhouse gone and its process ended' });
        strict_1.default.equal(await writeSamples(), samplesBefore + 1, 'one last sample published when the container stopped');
        await core.createNamespacedPod({
            namespace: NS,
            body: clickhousePod('clickhouse-2', undefined, 'clickhouse-data'),
        });
        const pod = await waitReady('clickhouse-2');
        const r = await query(`http://${pod.status.podIP}:8123/`, 'SELECT count() FROM t');
        strict_1.default.equal(r.status, 200, r.text);
        strict_1.default.equal(r.text.trim(), '1000000');
    });
    (0, node_test_1.it)('stops the process of an evicted pod', async () => {
        await core.createNamespacedPod({ namespace: NS, body: clickhousePod('evictee') });
        await waitReady('evictee');
        const evictee = sim.cluster.running().find((c) => c.pod === 'evictee');
        strict_1.default.ok(evictee?.pid && alive(evictee.pid));
        await sim.cluster.evict(NS, 'evictee');
        strict_1.default.equal(alive(evictee.pid), false);
        const p = await core.readNamespacedPod({ name: 'evictee', namespace: NS });
        strict_1.default.equal(p.status?.reason, 'Evicted');
        await core.deleteNamespacedPod({ name: 'evictee', namespace: NS });
    });
    (0, node_test_1.it)('fails a version the engine cannot be, and a missing Secret, with clear container logs', async () => {
        await core.createNamespacedPod({
            namespace: NS,
            body: clickhousePod('old-version', 'clickhouse/clickhouse-server:24.8'),
        });
        const noSecret = clickhousePod('no-secret');
        noSecret.spec.containers[0].env[1].valueFrom.secretKeyRef.name = 'absent';
        await core.createNamespacedPod({ namespace: NS, body: noSecret });
        const logOf = (name) => (0, poll_1.pollUntil)(async () => {
            const p = await core.readNamespacedPod({ name, namespace: NS });
            const restarts = p.status?.containerStatuses?.[0]?.restartCount ?? 0;
            return restarts >= 1 && (await core.readNamespacedPodLog({ name, namespace: NS }));
        }, { timeoutMs: 20_000, what: `pod ${name} restarted` });
        strict_1.default.match(await logOf('old-version'), /asks for ClickHouse 24\.8, but .* runs .*ClickHouse 26\.7\..*exit code 1/);
        strict_1.default.match(await logOf('no-secret'), /CreateContainerConfigError: secret "absent" not found/);
        for (const name of ['old-version', 'no-secret'])
            await core.deleteNamespacedPod({ name, namespace: NS });
    });
    (0, node_test_1.it)('deletes the moto volume when the claim goes (reclaimPolicy Delete)', async () => {
        strict_1.default.ok(fs.existsSync(path.join(sim.rootDir, 'volumes', volumeId, 'data')));
        await core.deleteNamespacedPod({ name: 'clickhouse-2', namespace: NS });
        await core.deleteNamespacedPersistentVolumeClaim({ name: 'clickhouse-data', namespace: NS });
        await (0, poll_1.pollUntil)(async () => {
            const r = await sim.moto.ec2.send(new client_ec2_1.DescribeVolumesCommand({ VolumeIds: [volumeId] })).catch((e) => e);
            return r instanceof Error && r.name === 'InvalidVolume.NotFound';
        }, { timeoutMs: 20_000, what: `moto volume ${volumeId} deleted` });
        const pvs = await core.listPersistentVolume();
        strict_1.default.equal(pvs.items.length, 0);
        strict_1.default.equal(fs.existsSync(path.join(sim.rootDir, 'volumes', volumeId)), false, 'the data went with the volume');
    });
});
(0, node_test_1.describe)('simulated EKS: configurable nodes and the periodic publisher', { timeout: 60_000 }, () => {
    (0, node_test_1.it)('creates one moto instance per node in its zone and publishes each node on the timer', async () => {
        const sim = await (0, eks_sim_1.startEksSim)({
            publishEveryMs: 200,
            nodes: [
                { name: 'ip-10-0-1-10.ec2.internal', zone: 'us-east-1a' },
                { name: 'ip-10-0-2-20.ec2.internal', zone: 'us-east-1b', instanceType: 'm5.2xlarge' },
            ],
        });
        try {
            strict_1.default.deepEqual(sim.nodes.map((n) => [n.zone, n.instanceType, n.vcpus]), [
                ['us-east-1a', 'm5.xlarge', 4],
                ['us-east-1b', 'm5.2xlarge', 8],
            ]);
            const r = await sim.moto.ec2.send(new client_ec2_1.DescribeInstancesCommand({ InstanceIds: sim.nodes.map((n) => n.instanceId) }));
            const byId = new Map((r.Reservations ?? []).flatMap((x) => x.Instances ?? []).map((i) => [i.InstanceId, i]));
            for (const n of sim.nodes) {
                strict_1.default.equal(byId.get(n.instanceId)?.Placement?.AvailabilityZone, n.zone);
                strict_1.default.equal(byId.get(n.instanceId)?.InstanceType, n.instanceType);
            }
            const minute = 60_000;
            const start = new Date(Math.floor(Date.now() / minute) * minute - minute);
            await (0, poll_1.pollUntil)(async () => {
                const m = await sim.moto.cloudwatch.send(new client_cloudwatch_1.GetMetricDataCommand({
                    StartTime: start,
                    EndTime: new Date(Math.ceil((Date.now() + 1) / minute) * minute + minute),
                    MetricDataQueries: sim.nodes.map((n, i) => ({
                        Id: `n${i}`,
                        MetricStat: {
                            Metric: {
                                Namespace: 'AWS/EC2',
                                MetricName: 'CPUUtilization',
                                Dimensions: [{ Name: 'InstanceId', Value: n.instanceId }],
                            },
                            Period: 60,
                            Stat: 'SampleCount',
                        },
                    })),
                }));
                return (m.MetricDataResults ?? []).every((x) => (x.Values ?? []).reduce((a, b) => a + b, 0) >= 2);
            }, { timeoutMs: 10_000, what: 'two timer publications of CPUUtilization per node' });
        }
        finally {
            await sim.stop();
        }
    });
});
//# sourceMappingURL=eks-sim.test.js.map