/**
 * The pod's own counters for the bottleneck labels of a `kubernetes` cell: the node's cAdvisor
 * metrics, read through the API server's node proxy (`GET /api/v1/nodes/<node>/proxy/metrics/cadvisor`,
 * client-node `connectGetNodeProxyWithPath`, with the kubeconfig's credentials: RBAC `get` on
 * `nodes/proxy`), in the Prometheus text exposition format. Of the pod's series
 * (`namespace`, `pod`, `container` labels) it takes:
 *
 * - `container_cpu_usage_seconds_total` — the cgroup's CPU time (cgroup v1 `cpuacct.usage`, v2
 *   `cpu.stat` usage_usec), seconds;
 * - `container_fs_reads_bytes_total` / `container_fs_writes_bytes_total`, summed over the `device`
 *   label — bytes the cgroup read from / wrote to block devices (v1 `blkio.throttle.io_service_bytes`,
 *   v2 `io.stat`); where a kubelet serves only `container_blkio_device_usage_total`, its
 *   `operation="Read"` / `"Write"` series;
 * - `machine_cpu_cores` — the node's cores;
 * - each series' exposition timestamp (ms), when the kubelet gives one: when cAdvisor last read the
 *   cgroup (its housekeeping interval, 10–15 s on a real kubelet, so a sample may be that old).
 *
 * The container's series (`container="clickhouse"`, the container of `manifests/pod.yaml`) are
 * preferred; without them the pod's cgroup (`container=""`). The capacity the windows are judged
 * against is the pod's CPU limit (`target.resources.limits.cpu`, enforced by the kubelet's CFS
 * quota) and the volume's provisioned throughput and IOPS (the StorageClass parameters recorded at
 * provisioning). Everything but the request is pure.
 */
import { volumeLimits, type ResourceLimits, type VolumeLimits } from '../../schema/resources';
import type { KubernetesTargetSpec } from '../../schema/run-spec';
import type { TargetHandle } from '../../schema/target';
import type { ScrapedCapacity, ScrapedCounters, ScrapedCounterSource } from '../../process/cell-counters';
import { clusterOf } from './access';
import { kubeFor } from './kube';

/** One sample of a Prometheus text exposition. */
export interface PromSample {
  /** Metric name, e.g. `container_cpu_usage_seconds_total`. */
  name: string;
  labels: Record<string, string>;
  /** The value (a float; `NaN`, `+Inf`, `-Inf` as JavaScript numbers). */
  value: number;
  /** The optional timestamp, epoch ms; null when the line has none. */
  timestampMs: number | null;
}

/** The container of `manifests/pod.yaml` that runs ClickHouse. */
export const CLICKHOUSE_CONTAINER = 'clickhouse';

/** The node proxy path of the kubelet's cAdvisor metrics (below `/api/v1/nodes/<node>/proxy/`). */
export const CADVISOR_PATH = 'metrics/cadvisor';

/** Parse one `{a="x",b="y\"z"}` label set starting at `text[i] === '{'`. @returns the labels and the index after `}` */
function parseLabels(text: string, i: number): { labels: Record<string, string>; end: number } {
  const labels: Record<string, string> = {};
  i++;
  for (;;) {
    while (text[i] === ' ' || text[i] === ',') i++;
    if (text[i] === '}') return { labels, end: i + 1 };
    const eq = text.indexOf('=', i);
    if (eq < 0 || text[eq + 1] !== '"') throw new Error(`bad label set at ${i}`);
    const key = text.slice(i, eq).trim();
    let v = '';
    let j = eq + 2;
    for (; j < text.length && text[j] !== '"'; j++) {
      if (text[j] === '\\') {
        j++;
        v += text[j] === 'n' ? '\n' : text[j];
      } else v += text[j];
    }
    if (j >= text.length) throw new Error('unterminated label value');
    labels[key] = v;
    i = j + 1;
  }
}

/**
 * Parse a Prometheus text exposition (format 0.0.4: `# HELP` / `# TYPE` comments, `name{labels} value
 * [timestamp]` lines). A line that does not parse is skipped.
 * @param text the body of `/metrics/cadvisor`
 * @returns every sample, in order
 */
export function parsePrometheusText(text: string): PromSample[] {
  const out: PromSample[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    try {
      const m = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line);
      if (!m) continue;
      let labels: Record<string, string> = {};
      let rest = line.slice(m[0].length);
      if (rest.startsWith('{')) {
        const l = parseLabels(line, m[0].length);
        labels = l.labels;
        rest = line.slice(l.end);
      }
      const [v, ts] = rest.trim().split(/\s+/);
      if (v === undefined || v === '') continue;
      const value = v === '+Inf' ? Infinity : v === '-Inf' ? -Infinity : Number(v);
      if (Number.isNaN(value) && v !== 'NaN') continue;
      const t = ts === undefined ? null : Number(ts);
      out.push({ name: m[0], labels, value, timestampMs: t !== null && Number.isFinite(t) ? t : null });
    } catch {
      /* skipped */
    }
  }
  return out;
}

/** The series of one pod's counters (see {@link podCountersOf}). */
export interface PodCounters extends ScrapedCounters {
  /** `container="clickhouse"` (the container's cgroup) or `container=""` (the pod's). */
  scope: string;
  /** The `device` label values summed into the I/O counters, e.g. `/dev/nvme1n1`. */
  devices: string[];
}

/**
 * The cumulative counters of one pod's container among a cAdvisor exposition.
 * @param container the container's name; its series are preferred, the pod cgroup's (`container=""`) next
 * @throws Error when the pod has no `container_cpu_usage_seconds_total` series, or no block-I/O series
 *   (neither `container_fs_reads_bytes_total` nor `container_blkio_device_usage_total`)
 */
export function podCountersOf(
  samples: readonly PromSample[],
  namespace: string,
  pod: string,
  container = CLICKHOUSE_CONTAINER,
): PodCounters {
  const ofPod = samples.filter((s) => s.labels.namespace === namespace && s.labels.pod === pod);
  const scopes = [container, ''];
  const scope = scopes.find((c) =>
    ofPod.some((s) => s.name === 'container_cpu_usage_seconds_total' && (s.labels.container ?? '') === c),
  );
  if (scope === undefined)
    throw new Error(
      `no container_cpu_usage_seconds_total series for pod ${namespace}/${pod} (container "${container}" or the pod's cgroup) in the node's cAdvisor metrics`,
    );
  const mine = ofPod.filter((s) => (s.labels.container ?? '') === scope);
  // Per-CPU series (`cpu="cpu00"`, cAdvisor's percpu option) are parts of the total: only `cpu="total"` or no cpu label.
  const cpu = mine.filter(
    (s) => s.name === 'container_cpu_usage_seconds_total' && (s.labels.cpu === undefined || s.labels.cpu === 'total'),
  );
  // Two series of one container (a restarted container's old cgroup still listed): the newest.
  const newest = (list: PromSample[]) => {
    const ts = Math.max(...list.map((s) => s.timestampMs ?? -Infinity));
    return list.filter((s) => (s.timestampMs ?? -Infinity) === ts);
  };
  const cpuNow = newest(cpu);
  const byDevice = (name: string, op?: string) =>
    mine.filter((s) => s.name === name && (op === undefined || s.labels.operation === op));
  let reads = byDevice('container_fs_reads_bytes_total');
  let writes = byDevice('container_fs_writes_bytes_total');
  let metric = 'container_fs_reads_bytes_total / container_fs_writes_bytes_total';
  if (!reads.length && !writes.length) {
    reads = byDevice('container_blkio_device_usage_total', 'Read');
    writes = byDevice('container_blkio_device_usage_total', 'Write');
    metric = 'container_blkio_device_usage_total Read / Write';
  }
  if (!reads.length && !writes.length)
    throw new Error(
      `no block-I/O series (container_fs_reads_bytes_total or container_blkio_device_usage_total) for pod ${namespace}/${pod} in the node's cAdvisor metrics`,
    );
  const sum = (l: PromSample[]) => l.reduce((a, s) => a + (Number.isFinite(s.value) ? s.value : 0), 0);
  const cores = samples.find((s) => s.name === 'machine_cpu_cores');
  const ts = cpuNow.map((s) => s.timestampMs).filter((t): t is number => t !== null);
  return {
    readBytes: sum(reads),
    writeBytes: sum(writes),
    cpuNs: Math.round(sum(cpuNow) * 1e9),
    statsAtMs: ts.length ? Math.max(...ts) : null,
    machineCores: cores && Number.isFinite(cores.value) ? cores.value : null,
    scope: `container="${scope}" (${metric})`,
    devices: [...new Set([...reads, ...writes].map((s) => s.labels.device ?? '?'))].sort(),
  };
}

const mib = (bps: number | undefined) =>
  bps === undefined ? '?' : (bps / 2 ** 20).toLocaleString('en-US', { maximumFractionDigits: 1 });

/** Cores of a Kubernetes CPU quantity (`3500m` → 3.5, `2` → 2); undefined when it does not parse. */
export function cpuCores(q: string | number | undefined): number | undefined {
  if (q === undefined) return undefined;
  const m = /^([0-9]+(?:\.[0-9]+)?)(m?)$/.exec(String(q).trim());
  if (!m) return undefined;
  return Number(m[1]) / (m[2] ? 1000 : 1);
}

/**
 * The volume's provisioned rates from StorageClass parameters (EBS CSI: `type`, `iops`, `throughput`
 * MiB/s): gp3 (3,000 IOPS and 125 MiB/s unless given), io2 / io1 (its `iops`), else undefined
 * (a type whose rates chbench does not know). EBS's throughput limit is one figure for reads and
 * writes together; the labels compare each direction with it.
 */
export function storageClassVolume(parameters: Record<string, string> | null | undefined): VolumeLimits | undefined {
  const p = parameters ?? {};
  const num = (x: string | undefined) => (x !== undefined && Number.isFinite(Number(x)) ? Number(x) : undefined);
  const type = (p.type ?? '').toLowerCase();
  if (type === 'gp3')
    return volumeLimits({
      profile: 'gp3',
      iops: Math.min(16000, Math.max(3000, num(p.iops) ?? 3000)),
      throughputMiBps: Math.min(1000, Math.max(125, num(p.throughput) ?? 125)),
    });
  if ((type === 'io2' || type === 'io1') && num(p.iops))
    return volumeLimits({ profile: 'io2', iops: num(p.iops)!, throughputMiBps: num(p.throughput) });
  return undefined;
}

/**
 * What a kubernetes cell's windows are judged against: the pod's CPU limit and the volume's
 * provisioned rates (see the module comment).
 * @param handle the cell's handle (its `kubernetes` facts: StorageClass and its recorded parameters)
 * @param spec the cell's `target` section (its `resources.limits.cpu`, defaults applied when absent)
 */
export function podCapacity(handle: TargetHandle, spec: Partial<KubernetesTargetSpec> | undefined): ScrapedCapacity {
  const f = handle.kubernetes;
  const limit = cpuCores(spec?.resources?.limits?.cpu ?? '3500m');
  const volume = storageClassVolume(f?.storageClassParameters);
  const limits: ResourceLimits = { ...(limit !== undefined ? { cpus: limit } : {}), ...(volume ? { volume } : {}) };
  const sc = f ? `StorageClass ${f.storageClass}` : 'the StorageClass';
  const parts = [
    limit !== undefined
      ? `pod CPU limit ${limit} cores (resources.limits.cpu ${spec?.resources?.limits?.cpu ?? '3500m'})`
      : 'no pod CPU limit',
    volume
      ? `${volume.profile} volume: ${mib(volume.readBytesPerSec)} MiB/s, ${(volume.readIops ?? 0).toLocaleString('en-US')} IOPS provisioned, reads and writes together (${sc} parameters ${JSON.stringify(f?.storageClassParameters ?? {})})`
      : `volume rates unknown (${sc} parameters ${JSON.stringify(f?.storageClassParameters ?? null)}: not gp3/io2 with known rates)`,
  ];
  return {
    limits,
    describe: parts.join('; '),
    enforcement: [
      ...(limit !== undefined
        ? ["CPU: the kubelet's CFS quota from the pod's limits.cpu (cgroup cpu.cfs_quota_us / cpu.max)"]
        : []),
      ...(volume
        ? [
            'volume: the EBS volume enforces its provisioned throughput and IOPS (reads and writes together); chbench applies no limit',
          ]
        : []),
    ],
    writesThrottled: true,
  };
}

/**
 * The scraped counter source of a kubernetes cell's pod: one `GET /api/v1/nodes/<node>/proxy/metrics/cadvisor`
 * through client-node per {@link ScrapedCounterSource.read}.
 * @returns undefined when the handle has no node (the pod was never scheduled)
 */
export function podCounterSource(handle: TargetHandle): ScrapedCounterSource | undefined {
  const f = handle.kubernetes;
  if (!f?.node) return undefined;
  const node = f.node;
  return {
    source: `cadvisor ${node} pod ${f.namespace}/${f.pod} uid ${f.podUid.slice(0, 8)}`,
    async read() {
      const kube = kubeFor(clusterOf(handle));
      const text = await kube.core.connectGetNodeProxyWithPath({ name: node, path: CADVISOR_PATH });
      return podCountersOf(parsePrometheusText(String(text)), f.namespace, f.pod);
    },
  };
}
