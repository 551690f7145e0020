/**
 * The kubernetes target's cAdvisor reader (src/targets/kubernetes/cadvisor.ts), pure: the Prometheus
 * text format as the kubelet serves it (comments, escaped label values, timestamps, NaN/Inf), the
 * pod's series picked among a node's (the container's, else the pod cgroup's; per-CPU series left
 * out; `container_blkio_device_usage_total` when the fs series are absent), and the capacity a pod
 * is judged against (CPU limit, the StorageClass's volume rates).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  cpuCores,
  parsePrometheusText,
  podCapacity,
  podCountersOf,
  storageClassVolume,
} from '../../src/targets/kubernetes/cadvisor';
import type { TargetHandle } from '../../src/schema/target';

const MiB = 1024 * 1024;
const TEXT = `# HELP container_cpu_usage_seconds_total Cumulative cpu time consumed in seconds.
# TYPE container_cpu_usage_seconds_total counter
container_cpu_usage_seconds_total{container="",cpu="total",id="/kubepods/podu1",image="",name="",namespace="ns",pod="p"} 3.5 1764763200000
container_cpu_usage_seconds_total{container="clickhouse",cpu="total",id="/kubepods/podu1/c1",image="clickhouse/clickhouse-server:26.7",name="c1",namespace="ns",pod="p"} 3.25 1764763200123
container_cpu_usage_seconds_total{container="clickhouse",cpu="cpu00",id="/kubepods/podu1/c1",namespace="ns",pod="p"} 2 1764763200123
container_cpu_usage_seconds_total{container="clickhouse",cpu="total",namespace="ns",pod="other"} 99 1764763200123
# TYPE container_fs_reads_bytes_total counter
container_fs_reads_bytes_total{container="clickhouse",device="/dev/vda",id="/kubepods/podu1/c1",namespace="ns",pod="p"} 1.048576e+06 1764763200123
container_fs_reads_bytes_total{container="clickhouse",device="/dev/nvme1n1",id="/kubepods/podu1/c1",namespace="ns",pod="p"} 2097152 1764763200123
container_fs_writes_bytes_total{container="clickhouse",device="/dev/vda",id="/kubepods/podu1/c1",namespace="ns",pod="p"} 4096 1764763200123
container_spec_cpu_quota{container="clickhouse",namespace="ns",pod="p",weird="a \\"quoted\\" \\\\ value\\nline"} 100000
machine_cpu_cores{boot_id="",machine_id="",system_uuid=""} 2
not a sample line
nan_metric NaN
inf_metric +Inf
`;

test('parses the Prometheus text format: labels with escapes, optional timestamps, NaN and Inf; comments and junk skipped', () => {
  const s = parsePrometheusText(TEXT);
  assert.equal(s.length, 11);
  assert.deepEqual(s[1], {
    name: 'container_cpu_usage_seconds_total',
    labels: {
      container: 'clickhouse',
      cpu: 'total',
      id: '/kubepods/podu1/c1',
      image: 'clickhouse/clickhouse-server:26.7',
      name: 'c1',
      namespace: 'ns',
      pod: 'p',
    },
    value: 3.25,
    timestampMs: 1764763200123,
  });
  const quota = s.find((x) => x.name === 'container_spec_cpu_quota')!;
  assert.equal(quota.labels.weird, 'a "quoted" \\ value\nline');
  assert.equal(quota.timestampMs, null);
  assert.equal(s.find((x) => x.name === 'container_fs_reads_bytes_total')!.value, MiB);
  assert.ok(Number.isNaN(s.find((x) => x.name === 'nan_metric')!.value));
  assert.equal(s.find((x) => x.name === 'inf_metric')!.value, Infinity);
});

test("picks the pod's container series (per-CPU series left out), sums the devices, takes the timestamp and the machine's cores", () => {
  const c = podCountersOf(parsePrometheusText(TEXT), 'ns', 'p');
  assert.deepEqual(c, {
    readBytes: 3 * MiB,
    writeBytes: 4096,
    cpuNs: 3_250_000_000,
    statsAtMs: 1764763200123,
    machineCores: 2,
    scope: 'container="clickhouse" (container_fs_reads_bytes_total / container_fs_writes_bytes_total)',
    devices: ['/dev/nvme1n1', '/dev/vda'],
  });
});

test("falls back to the pod cgroup's series and to container_blkio_device_usage_total; says what is missing", () => {
  const text = `container_cpu_usage_seconds_total{container="",namespace="ns",pod="p"} 7 1000
container_blkio_device_usage_total{container="",device="/dev/vda",major="254",minor="0",namespace="ns",operation="Read",pod="p"} 100 1000
container_blkio_device_usage_total{container="",device="/dev/vda",major="254",minor="0",namespace="ns",operation="Write",pod="p"} 50 1000
`;
  const c = podCountersOf(parsePrometheusText(text), 'ns', 'p');
  assert.deepEqual(
    { r: c.readBytes, w: c.writeBytes, cpu: c.cpuNs, at: c.statsAtMs, cores: c.machineCores, scope: c.scope },
    {
      r: 100,
      w: 50,
      cpu: 7e9,
      at: 1000,
      cores: null,
      scope: 'container="" (container_blkio_device_usage_total Read / Write)',
    },
  );
  assert.throws(
    () => podCountersOf(parsePrometheusText(text), 'ns', 'absent'),
    /no container_cpu_usage_seconds_total series for pod ns\/absent/,
  );
  assert.throws(
    () =>
      podCountersOf(
        parsePrometheusText('container_cpu_usage_seconds_total{container="clickhouse",namespace="ns",pod="p"} 1\n'),
        'ns',
        'p',
      ),
    /no block-I\/O series/,
  );
});

test('the capacity: the pod CPU limit and the StorageClass volume rates (gp3 defaults, io2, unknown types)', () => {
  assert.equal(cpuCores('3500m'), 3.5);
  assert.equal(cpuCores('2'), 2);
  assert.equal(cpuCores('lots'), undefined);
  const gp3 = storageClassVolume({ type: 'gp3', iops: '3000', throughput: '125' })!;
  assert.deepEqual([gp3.readBytesPerSec, gp3.writeBytesPerSec, gp3.readIops], [125 * MiB, 125 * MiB, 3000]);
  assert.equal(storageClassVolume({ type: 'gp3' })!.readBytesPerSec, 125 * MiB);
  assert.equal(storageClassVolume({ type: 'io2', iops: '1000' })!.readBytesPerSec, Math.round(256 * MiB));
  assert.equal(storageClassVolume({ type: 'sc1' }), undefined);
  const handle = {
    kind: 'kubernetes',
    kubernetes: { storageClass: 'bench-clickhouse-gp3', storageClassParameters: { type: 'gp3', throughput: '250' } },
  } as unknown as TargetHandle;
  const cap = podCapacity(handle, {
    resources: { requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '1', memory: '2Gi' } },
  });
  assert.equal(cap.limits.cpus, 1);
  assert.equal(cap.limits.volume!.readBytesPerSec, 250 * MiB);
  assert.match(
    cap.describe,
    /^pod CPU limit 1 cores \(resources\.limits\.cpu 1\); gp3 volume: 250 MiB\/s, 3,000 IOPS provisioned, reads and writes together \(StorageClass bench-clickhouse-gp3 parameters/,
  );
  assert.equal(podCapacity(handle, undefined).limits.cpus, 3.5, "the spec's default limit");
  assert.equal(cap.writesThrottled, true);
});
