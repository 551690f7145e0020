"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * Activity layer: `collectCloudMetrics` against a real moto server (EC2 + CloudWatch on loopback).
 * A gp3 volume and an m5.xlarge instance are created; known values are published with PutMetricData
 * at known minute-aligned times; a cell dir is written from the repository's recorded embedded
 * results (parsed with the zod schemas) with Kubernetes facts pointing at those AWS objects and step
 * times placed on those minutes; a second cell's volume is deleted before collection (the fallback
 * to the recorded facts). The activity runs in a `MockActivityEnvironment` under the statement
 * watcher, as in the worker; then the figures, labels, cost and the report's three sections are checked.
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const node_fs_1 = require("node:fs");
const node_os_1 = __importDefault(require("node:os"));
const node_path_1 = __importDefault(require("node:path"));
const client_cloudwatch_1 = require("@aws-sdk/client-cloudwatch");
const client_ec2_1 = require("@aws-sdk/client-ec2");
const client_pricing_1 = require("@aws-sdk/client-pricing");
const collect_cloud_metrics_1 = require("../../src/activities/matrix/collect-cloud-metrics");
const statement_watch_1 = require("../../src/clickhouse/statement-watch");
const config_1 = require("../../src/config");
const store_1 = require("../../src/results/store");
const report_1 = require("../../src/results/report");
const results_1 = require("../../src/schema/results");
const run_spec_1 = require("../../src/schema/run-spec");
const activity_env_1 = require("../helpers/activity-env");
const moto_1 = require("../helpers/moto");
const FIX = node_path_1.default.join(config_1.REPO_ROOT, 'test', 'fixtures', 'results', 'embedded-26.7', 'cells', 'v26.7-lz4');
const MIB = 1048576;
// 40 minutes ago on a minute boundary: every window is final with settleMs 1 s.
const T = Math.floor(Date.now() / 60_000) * 60_000 - 40 * 60_000;
const at = (m, s = 0) => new Date(T + m * 60_000 + s * 1000).toISOString();
let moto;
let tmp;
let volumeId;
let goneVolumeId;
let instanceId;
const RUN = 'cloud-test-run';
const clients = () => {
    const cfg = {
        endpoint: moto.endpoint,
        region: 'us-east-1',
        credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
    };
    return { ec2: new client_ec2_1.EC2Client(cfg), cloudwatch: new client_cloudwatch_1.CloudWatchClient(cfg), pricing: new client_pricing_1.PricingClient(cfg) };
};
function facts(cell, vol) {
    return {
        namespace: 'bench-database',
        pod: `chb-${cell}`,
        podUid: 'uid-1',
        pvc: `chb-${cell}-data`,
        image: 'clickhouse/clickhouse-server:26.7',
        access: 'podIP',
        podIP: '127.0.0.2',
        node: 'ip-10-0-0-1.ec2.internal',
        instanceType: 'm5.xlarge',
        zone: 'us-east-1a',
        providerID: `aws:///us-east-1a/${instanceId}`,
        pv: `pvc-${cell}`,
        volumeHandle: vol,
        csiDriver: 'ebs.csi.aws.com',
        storageClass: 'bench-clickhouse-gp3',
        storageRequest: '100Gi',
        volume: 'new',
        server: 'clickhouse-server',
        restartCount: 0,
    };
}
const write = (dir, file, v) => (0, node_fs_1.writeFileSync)(node_path_1.default.join(dir, file), JSON.stringify(v, null, 2));
/** A cell dir from the recorded fixture records, re-timed onto the test's minutes. */
function writeCell(cell, vol, full) {
    const dir = node_path_1.default.join(tmp, RUN, 'cells', cell);
    (0, node_fs_1.mkdirSync)(dir, { recursive: true });
    const prov = (0, store_1.readRecord)(node_path_1.default.join(FIX, 'provision.json'), results_1.ProvisionRecord);
    const provision = {
        ...prov,
        target: { ...prov.target, kind: 'kubernetes', cellKey: cell, kubernetes: facts(cell, vol) },
        provisioned_at: at(0, 5),
    };
    write(dir, 'provision.json', provision);
    const result = (0, store_1.readRecord)(node_path_1.default.join(FIX, 'result.json'), results_1.CellResult);
    write(dir, 'result.json', { ...result, cellKey: cell, runId: RUN, provision, target_kind: 'kubernetes' });
    if (full) {
        const load = (0, store_1.readRecord)(node_path_1.default.join(FIX, 'load.json'), results_1.LoadRecord);
        write(dir, 'load.json', { ...load, reused: false, started_at: at(1), finished_at: at(4) });
        const qb = (0, store_1.readRecord)(node_path_1.default.join(FIX, 'queries-baseline.json'), results_1.QueriesRecord);
        const times = {
            // q1: a 12 s cold run and three short warm runs: shorter than a period, not attributable.
            q1: {
                cold1: [at(5, 0), at(5, 12)],
                warm1: [at(5, 20), at(5, 25)],
                warm2: [at(5, 26), at(5, 31)],
                warm3: [at(5, 32), at(5, 40)],
            },
            // q3: two minutes of cold reading (disk-bound), two of warm computing (CPU-bound).
            q3: {
                cold1: [at(6), at(8)],
                warm1: [at(8), at(8, 40)],
                warm2: [at(8, 40), at(9, 20)],
                warm3: [at(9, 20), at(10)],
            },
        };
        write(dir, 'queries-baseline.json', {
            ...qb,
            queries: qb.queries
                .filter((q) => q.id in times)
                .map((q) => ({
                ...q,
                samples: q.samples.map((s) => {
                    const t = times[q.id][`${s.kind}${s.n}`];
                    // Warm-up runs are in no window: give them times inside the warm span's gap.
                    return t
                        ? { ...s, started_at: t[0], finished_at: t[1] }
                        : { ...s, started_at: at(5, 13), finished_at: at(5, 19) };
                }),
            })),
        });
        const qu = (0, store_1.readRecord)(node_path_1.default.join(FIX, 'quiesce-after-load.json'), results_1.QuiesceRecord);
        write(dir, 'quiesce-after-load.json', { ...qu, started_at: at(4), finished_at: at(4, 3) });
        // Written by an older chbench: no times, so no window.
        write(dir, 'quiesce-after-index.json', (0, store_1.readRecord)(node_path_1.default.join(FIX, 'quiesce-after-index.json'), results_1.QuiesceRecord));
        const idx = (0, store_1.readRecord)(node_path_1.default.join(FIX, 'index.json'), results_1.IndexRecord);
        write(dir, 'index.json', { ...idx, started_at: at(10), finished_at: at(12) });
        const qi = (0, store_1.readRecord)(node_path_1.default.join(FIX, 'queries-index.json'), results_1.QueriesRecord);
        write(dir, 'queries-index.json', {
            ...qi,
            queries: qi.queries
                .filter((q) => q.id === 'q5')
                .map((q) => ({
                ...q,
                // Two minutes in which CloudWatch has nothing at all: "no data", not 0.
                samples: q.samples
                    .filter((s) => s.kind === 'warm')
                    .map((s, i) => ({ ...s, started_at: at(13, i * 40), finished_at: at(13, i * 40 + 40) })),
            })),
        });
    }
    write(dir, 'teardown.json', {
        torn_down_at: at(16),
        kind: 'kubernetes',
        what: 'pod and PVC deleted',
        server_log_archive: 'not available: test',
    });
    return dir;
}
async function put(datums, namespace) {
    for (let i = 0; i < datums.length; i += 20)
        await moto.cloudwatch.send(new client_cloudwatch_1.PutMetricDataCommand({ Namespace: namespace, MetricData: datums.slice(i, i + 20) }));
}
(0, node_test_1.before)(async () => {
    moto = await (0, moto_1.startMoto)();
    tmp = (0, node_fs_1.mkdtempSync)(node_path_1.default.join(node_os_1.default.tmpdir(), 'chbench-cloud-'));
    const v = await moto.ec2.send(new client_ec2_1.CreateVolumeCommand({
        AvailabilityZone: 'us-east-1a',
        Size: 100,
        VolumeType: 'gp3',
        Iops: 3000,
        Throughput: 125,
    }));
    volumeId = v.VolumeId ?? '';
    const g = await moto.ec2.send(new client_ec2_1.CreateVolumeCommand({ AvailabilityZone: 'us-east-1a', Size: 100, VolumeType: 'gp3' }));
    goneVolumeId = g.VolumeId ?? '';
    const r = await moto.ec2.send(new client_ec2_1.RunInstancesCommand({
        ImageId: 'ami-12c6146b',
        MinCount: 1,
        MaxCount: 1,
        InstanceType: 'm5.xlarge',
        Placement: { AvailabilityZone: 'us-east-1a' },
    }));
    instanceId = r.Instances?.[0]?.InstanceId ?? '';
    const vol = (metric, minute, value) => ({
        MetricName: metric,
        Dimensions: [{ Name: 'VolumeId', Value: volumeId }],
        Timestamp: new Date(T + minute * 60_000),
        Value: value,
        Unit: metric.endsWith('Bytes') ? 'Bytes' : 'Count',
    });
    const cpu = (minute, value) => ({
        MetricName: 'CPUUtilization',
        Dimensions: [{ Name: 'InstanceId', Value: instanceId }],
        Timestamp: new Date(T + minute * 60_000),
        Value: value,
        Unit: 'Percent',
    });
    const ebs = [];
    const ec2 = [];
    // Load, minutes 1–3: writing 50 MiB/s at 400 IOPS, CPU 40 %: neither.
    for (const m of [1, 2, 3]) {
        ebs.push(vol('VolumeWriteBytes', m, 50 * MIB * 60), vol('VolumeWriteOps', m, 400 * 60), vol('VolumeReadBytes', m, 0));
        ec2.push(cpu(m, 40));
    }
    // q3 cold, minutes 6–7: reading 121 MiB/s (97 % of gp3's 125 MiB/s) at 1,000 IOPS, CPU 30 %: disk-bound.
    for (const m of [6, 7]) {
        ebs.push(vol('VolumeReadBytes', m, 121 * MIB * 60), vol('VolumeReadOps', m, 1000 * 60));
        ec2.push(cpu(m, 30));
    }
    // q3 warm, minutes 8–9: 1 MiB/s, CPU 95 %: CPU-bound.
    for (const m of [8, 9]) {
        ebs.push(vol('VolumeReadBytes', m, MIB * 60), vol('VolumeReadOps', m, 10 * 60));
        ec2.push(cpu(m, 95));
    }
    // Index build, minutes 10–11: zeros published for the volume (0, not "no data"); no CPU point at all.
    for (const m of [10, 11])
        ebs.push(vol('VolumeReadBytes', m, 0), vol('VolumeWriteBytes', m, 0), vol('VolumeReadOps', m, 0), vol('VolumeWriteOps', m, 0));
    await put(ebs, 'AWS/EBS');
    await put(ec2, 'AWS/EC2');
    writeCell('v26.7-lz4', volumeId, true);
    writeCell('v26.7-zstd3', goneVolumeId, false);
    // A cell that is not on Kubernetes is skipped.
    const plain = node_path_1.default.join(tmp, RUN, 'cells', 'v26.7-none');
    (0, node_fs_1.mkdirSync)(plain, { recursive: true });
    write(plain, 'provision.json', {
        ...(0, store_1.readRecord)(node_path_1.default.join(FIX, 'provision.json'), results_1.ProvisionRecord),
        provisioned_at: at(0),
    });
    // The second cell's volume is gone (reclaimPolicy Delete): its facts must come from what was recorded.
    await moto.ec2.send(new client_ec2_1.DeleteVolumeCommand({ VolumeId: goneVolumeId }));
    const fixRun = (0, store_1.readRecord)(node_path_1.default.join(FIX, '..', '..', 'run.json'), results_1.RunRecord);
    const spec = (0, run_spec_1.parseRunSpec)({
        name: 'cloud-test',
        workload: 'logs',
        scale: 1000,
        target: { kind: 'kubernetes' },
        matrix: { version: ['26.7'], codec: ['LZ4', 'ZSTD(3)'] },
        resultsDir: tmp,
        cloud: { settleMs: 1000 },
    });
    write(node_path_1.default.join(tmp, RUN), 'run.json', {
        ...fixRun,
        runId: RUN,
        spec,
        cells: ['v26.7-lz4', 'v26.7-zstd3', 'v26.7-none'],
    });
});
(0, node_test_1.after)(async () => {
    await moto?.stop();
    if (tmp)
        (0, node_fs_1.rmSync)(tmp, { recursive: true, force: true });
});
const step = (m, name) => {
    const s = m.steps.find((x) => x.step === name);
    strict_1.default.ok(s, `step ${name} in ${m.steps.map((x) => x.step).join(', ')}`);
    return s;
};
(0, node_test_1.test)('collectCloudMetrics: figures, labels, empty vs zero, short windows, fallback facts and cost; the report shows them', async () => {
    const { collectCloudMetrics } = (0, collect_cloud_metrics_1.createCollectCloudMetrics)({ awsClients: clients });
    const input = { resultsDir: tmp, runId: RUN };
    const act = (0, activity_env_1.startActivity)((i) => (0, statement_watch_1.runWatched)({ step: 'collectCloudMetrics' }, () => collectCloudMetrics(i)), input);
    const summary = await act.result;
    strict_1.default.deepEqual(summary.collected, ['v26.7-lz4', 'v26.7-zstd3']);
    strict_1.default.deepEqual(summary.skipped, [{ cell: 'v26.7-none', reason: 'not a Kubernetes cell' }]);
    strict_1.default.equal(summary.partial, false);
    strict_1.default.ok(act.beats.some((b) => b.d.step === 'cloud-metrics'), 'heartbeats name the step');
    const cellA = node_path_1.default.join(tmp, RUN, 'cells', 'v26.7-lz4');
    const m = (0, store_1.readRecord)(node_path_1.default.join(cellA, 'cloud-metrics.json'), results_1.CloudMetricsRecord);
    strict_1.default.equal(m.resources.volume.source.startsWith('EC2 DescribeVolumes'), true);
    strict_1.default.deepEqual([
        m.resources.volume.type,
        m.resources.volume.size_gib,
        m.resources.volume.iops,
        m.resources.volume.throughput_mib_s,
    ], ['gp3', 100, 3000, 125]);
    strict_1.default.equal(m.resources.instance.type, 'm5.xlarge');
    const load = step(m, 'load');
    strict_1.default.equal(load.window?.start, at(1));
    strict_1.default.equal(load.window?.end, at(4));
    strict_1.default.equal(load.figures?.write_mib_s, 50);
    strict_1.default.equal(load.figures?.write_iops, 400);
    strict_1.default.equal(load.figures?.cpu_pct, 40);
    strict_1.default.equal(load.label, 'neither');
    strict_1.default.match(load.evidence ?? '', /write 50\.0 MiB\/s = 40 % of gp3 125 MiB\/s/);
    const q3cold = step(m, 'q3 cold (baseline)');
    strict_1.default.ok(Math.abs((q3cold.figures?.read_mib_s ?? 0) - 121) < 1e-9);
    strict_1.default.equal(q3cold.label, 'disk-bound');
    strict_1.default.match(q3cold.evidence ?? '', /^read 121 MiB\/s = 97 % of gp3 125 MiB\/s; 1,000 IOPS = 33 % of gp3 3,000 IOPS; CPU 30 %$/);
    strict_1.default.equal(q3cold.datapoints.vol_read_bytes, 2);
    const q3warm = step(m, 'q3 warm (baseline)');
    strict_1.default.equal(q3warm.label, 'cpu-bound');
    strict_1.default.equal(q3warm.figures?.cpu_pct, 95);
    // Short windows: not attributed, the reason names the period and the neighbours.
    const q1cold = step(m, 'q1 cold (baseline)');
    strict_1.default.equal(q1cold.attributable, false);
    strict_1.default.equal(q1cold.figures, null);
    strict_1.default.match(q1cold.reason ?? '', /^not attributable: window 12 s < period 60 s, shared with .*q1 warm \(baseline\)/);
    const quiet = step(m, 'quiesce after-load');
    strict_1.default.equal(quiet.attributable, false);
    strict_1.default.match(quiet.reason ?? '', /^not attributable: window 3 s < period 60 s, shared with whatever else ran then$/);
    strict_1.default.deepEqual(m.untimed_steps, ['quiesce after-index: no started_at/finished_at in its record']);
    // Empty vs zero: published zeros are 0 with their datapoints; a metric with no point is null.
    const idx = step(m, 'index build');
    strict_1.default.equal(idx.figures?.read_mib_s, 0);
    strict_1.default.equal(idx.figures?.write_iops, 0);
    strict_1.default.equal(idx.datapoints.vol_read_bytes, 2);
    strict_1.default.equal(idx.figures?.cpu_pct, null);
    strict_1.default.equal(idx.datapoints.cpu_avg, 0);
    strict_1.default.equal(idx.label, 'unknown');
    const q5 = step(m, 'q5 warm (index)');
    strict_1.default.equal(q5.figures?.read_mib_s, null);
    strict_1.default.equal(q5.figures?.cpu_pct, null);
    strict_1.default.equal(q5.label, 'unknown');
    const cell = step(m, 'cell');
    strict_1.default.equal(cell.window?.start, at(0));
    strict_1.default.equal(cell.window?.end, at(16));
    // Cost: held from provisioned_at (T+0:05) to torn_down_at (T+16:00) = 955 s, article prices.
    const hours = 955 / 3600;
    const cost = (0, store_1.readRecord)(node_path_1.default.join(cellA, 'cost.json'), results_1.CellCostRecord);
    strict_1.default.equal(cost.held.ms, 955_000);
    strict_1.default.equal(cost.held.from_source, 'provision.json provisioned_at');
    strict_1.default.equal(cost.held.to_source, 'teardown.json torn_down_at');
    strict_1.default.ok(Math.abs((cost.instance_usd ?? 0) - 0.236 * hours) < 1e-12);
    strict_1.default.ok(Math.abs((cost.storage_usd ?? 0) - (100 * 0.0912 * hours) / 730) < 1e-12);
    strict_1.default.equal(cost.iops_usd, 0);
    strict_1.default.equal(cost.throughput_usd, 0);
    strict_1.default.ok(Math.abs((cost.total_usd ?? 0) - (0.236 * hours + (100 * 0.0912 * hours) / 730)) < 1e-12);
    strict_1.default.match(cost.price_source, /^article/);
    // The deleted volume: facts from the PVC request and the StorageClass template, saying so.
    const mb = (0, store_1.readRecord)(node_path_1.default.join(tmp, RUN, 'cells', 'v26.7-zstd3', 'cloud-metrics.json'), results_1.CloudMetricsRecord);
    strict_1.default.equal(mb.resources.volume.state, 'not describable');
    strict_1.default.match(mb.resources.volume.source, /^recorded at provisioning: size from the PVC request 100Gi.*StorageClass bench-clickhouse-gp3 parameters/);
    strict_1.default.deepEqual([mb.resources.volume.type, mb.resources.volume.size_gib, mb.resources.volume.iops], ['gp3', 100, 3000]);
    strict_1.default.deepEqual(mb.steps.map((s) => s.step), ['cell']);
    const runCost = (0, store_1.readRecord)(node_path_1.default.join(tmp, RUN, 'cost.json'), results_1.RunCostRecord);
    strict_1.default.equal(runCost.cells.length, 2);
    strict_1.default.ok(Math.abs((runCost.total_usd ?? 0) - 2 * (cost.total_usd ?? 0)) < 1e-12, 'both cells held 955 s');
    strict_1.default.equal(summary.runTotalUsd, runCost.total_usd);
    // The report's three sections.
    const report = (0, report_1.renderReport)(node_path_1.default.join(tmp, RUN));
    const section = (name) => {
        const i = report.indexOf(`## ${name}\n`);
        strict_1.default.ok(i >= 0, `section ${name}`);
        const j = report.indexOf('\n## ', i + 3);
        return report.slice(i, j < 0 ? undefined : j);
    };
    const k = section('Kubernetes');
    strict_1.default.match(k, new RegExp(`\\| v26\\.7-lz4 +\\| bench-database/chb-v26\\.7-lz4 +\\| ip-10-0-0-1\\.ec2\\.internal +\\| ${instanceId} +\\| m5\\.xlarge +\\| us-east-1a +\\| ${volumeId} +\\| gp3 / 100 GiB / 3,000 IOPS / 125 MiB/s +\\| new `));
    strict_1.default.match(k, /v26\.7-zstd3 .*recorded at provisioning/);
    strict_1.default.match(k, /Instance EBS limits \(m5\.xlarge\): baseline 143\.75 MB\/s, 6,000 IOPS/);
    const c = section('Cloud metrics');
    strict_1.default.match(c, /`AWS\/EBS VolumeReadBytes` \/ `VolumeWriteBytes` Sum/);
    strict_1.default.match(c, /\| q3 cold \(baseline\) +\| [0-9:]+–[0-9:]+ UTC \(2 × 60 s\) +\| 121 MiB\/s +\| no data +\| 1,000 \/ no data +\| 30\.0 % \(max 30\.0 %\) +\| volume 2\/2, instance 2\/2 +\| disk-bound +\| read 121/);
    strict_1.default.match(c, /\| q1 cold \(baseline\) +\| .*\(12\.0 s\) +\| — .*\| not attributable +\| not attributable: window 12 s < period 60 s/);
    strict_1.default.match(c, /\| index build +\| .*\| 0\.00 MiB\/s +\| 0\.00 MiB\/s +\| 0\.00 \/ 0\.00 +\| no data +\| volume 2\/2, instance 0\/2 +\| unknown /);
    strict_1.default.match(c, /\| q5 warm \(index\) +\| .*\| no data +\| no data +\| no data \/ no data +\| no data +\| volume 0\/2, instance 0\/2 +\| unknown /);
    const co = section('Cost');
    strict_1.default.match(co, /Time held: provision\.json provisioned_at → teardown\.json torn_down_at/);
    strict_1.default.match(co, /\| v26\.7-lz4 +\| 0\.2653 h +\| \$0\.0626 +\| \$0\.0033 +\| \$0\.0000 +\| \$0\.0000 +\| \$0\.0659 +\|/);
    strict_1.default.match(co, /\| \*\*run total\*\* .*\| \*\*\$0\.1318\*\* +\|/);
    // The default prices are Seoul's and this run is in us-east-1: said beside the costs.
    strict_1.default.match(co, /NOTE: these are ap-northeast-2 prices and this run is in us-east-1/);
    strict_1.default.match(co, /- v26\.7-lz4: instance m5\.xlarge: \$0\.236\/h × 0\.2653 h = \$0\.0626; volume gp3 100 GiB: \$0\.0912\/GB-month × 0\.2653 h ÷ 730 = \$0\.0033/);
    // Idempotent: a second run rewrites the same figures.
    const again = await (0, activity_env_1.startActivity)((i) => collectCloudMetrics(i), input).result;
    strict_1.default.deepEqual(again.collected, summary.collected);
    const m2 = (0, store_1.readRecord)(node_path_1.default.join(cellA, 'cloud-metrics.json'), results_1.CloudMetricsRecord);
    strict_1.default.deepEqual(m2.steps, m.steps);
    strict_1.default.ok((0, node_fs_1.existsSync)(node_path_1.default.join(tmp, RUN, 'cost.json')));
});
//# sourceMappingURL=collect-cloud-metrics.test.js.map