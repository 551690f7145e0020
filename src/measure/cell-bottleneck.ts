/**
 * The metrics step's local bottleneck record (`metrics-end.json` `local_bottleneck`) for a cell
 * whose server runs on this host: the cell's windows (`cellStepWindows` over its step records, as
 * the cloud step), the counter samples of `counters.jsonl`, the cell's limits (`target.resources`,
 * with the device and cgroup provisioning recorded in `<dataDir>/cgroup.json`) and, for the read
 * side of an unthrottled cell and for the report, the host disk's unthrottled read rate
 * (`hostDiskCapacity`, measured once per host and device, cached in the worker's work directory).
 *
 * A cell whose server is not on this host but whose counters are scraped (a kubernetes pod's cgroup
 * through the node's cAdvisor) gets the same record from {@link cellScrapedBottleneck}, judged
 * against the capacity its target gives (the pod's CPU limit, the volume's provisioned rates).
 */
import os from 'node:os';
import path from 'node:path';
import { readRecordIfExists } from '../results/store';
import { readCellStepRecords } from '../results/step-records';
import { cellStepWindows } from '../cloud/steps';
import { ProvisionRecord, type LocalBottleneckRecord } from '../schema/results';
import { describeLimits, resourceLimits, ResourcesSpec, type ResourceLimits } from '../schema/resources';
import { blockDeviceOf, readCellCgroup, type BlockDevice, type CellCgroup } from '../process/cgroup';
import {
  COUNTER_ERRORS_FILE,
  COUNTERS_FILE,
  readCounterErrors,
  readCounterSamples,
  type ScrapedCapacity,
} from '../process/cell-counters';
import { hostDiskCapacity } from '../process/server-counters';
import { labelStepWindows } from './step-labels';
import type { LocalThresholds } from './local-bottleneck';

/** Thresholds of the local labels (the CloudWatch labels' disk and CPU thresholds). */
export const LOCAL_THRESHOLDS: LocalThresholds = { diskUtilisation: 0.9, cpuPct: 80, tolerance: 0.1 };

/**
 * What the kernel enforces of `limits` with cgroup `cg`, one line each (cgroup v1's blkio throttle
 * does not see buffered writeback: the page cache writes on behalf of no cgroup).
 */
export function enforcementLines(limits: ResourceLimits | undefined, cg: CellCgroup | undefined): string[] {
  if (!limits || !cg) return ['not throttled: no target.resources'];
  const out: string[] = [];
  const v = limits.volume;
  const how = cg.version === 1 ? 'cgroup v1 blkio throttle' : 'cgroup v2 io.max';
  if (v?.readBytesPerSec !== undefined || v?.readIops !== undefined) out.push(`reads: limited by ${how}`);
  if (v?.writeBytesPerSec !== undefined || v?.writeIops !== undefined)
    out.push(
      cg.writesThrottled
        ? `writes: limited by ${how} (buffered writeback included)`
        : 'writes: direct I/O only; buffered writeback is not throttled by cgroup v1 blkio (the page cache writes on behalf of no cgroup)',
    );
  if (limits.cpus !== undefined)
    out.push(`CPU: ${cg.version === 1 ? 'cpu.cfs_quota_us' : 'cpu.max'} quota of ${limits.cpus} cores`);
  if (limits.memoryBytes !== undefined)
    out.push(`memory: ${cg.version === 1 ? 'memory.limit_in_bytes' : 'memory.max'}`);
  return out;
}

/**
 * Label every step window of one cell from its counter samples.
 * @param dir the cell folder (`counters.jsonl`, `provision.json`, the step records)
 * @param resources the cell's `target.resources` (absent: not throttled)
 * @param dataDir the server's directory (`TargetHandle.dataDir`): its cgroup record and its block device
 * @param stateDir where the host disk's capacity is cached (and probed: it must be on the data directory's disk)
 * @returns undefined when the cell has no `provision.json` (nothing to window)
 * @throws Error when a step record does not fit its schema
 */
export function cellLocalBottleneck(
  dir: string,
  resources: unknown,
  dataDir: string,
  stateDir: string,
): LocalBottleneckRecord | undefined {
  const provision = readRecordIfExists(path.join(dir, 'provision.json'), ProvisionRecord);
  if (!provision) return undefined;
  const parsed = resources === undefined ? undefined : ResourcesSpec.safeParse(resources);
  const limits = parsed?.success ? resourceLimits(parsed.data) : undefined;
  const cg = readCellCgroup(dataDir);
  let device: BlockDevice | undefined = cg?.device;
  let deviceNote = '';
  try {
    device ??= blockDeviceOf(dataDir);
  } catch (e) {
    deviceNote = (e as Error).message;
  }
  let hostRead: number | null = null;
  let hostSource = `not measured: ${deviceNote || 'no block device'}`;
  if (device)
    try {
      const m = hostDiskCapacity(stateDir, device);
      hostRead = m.readBytesPerSec;
      hostSource = `${m.method}, ${(m.bytes / 2 ** 20).toFixed(0)} MiB in ${m.seconds.toFixed(3)} s on ${m.device}, measured ${m.measured_at} (cached per host and device)`;
    } catch (e) {
      hostSource = `not measured: ${(e as Error).message.split('\n')[0]}`;
    }
  const hostCores = os.availableParallelism();
  const { steps, missing } = cellStepWindows(readCellStepRecords(dir, provision));
  const samples = readCounterSamples(path.join(dir, COUNTERS_FILE));
  const labels = labelStepWindows(
    steps,
    samples,
    { limits, hostReadBytesPerSec: hostRead ?? undefined, hostCores },
    cg?.writesThrottled ?? false,
    LOCAL_THRESHOLDS,
  );
  const dev = device ? `${device.name} (${device.major}:${device.minor})` : null;
  return {
    source: samples[0]?.source ?? (cg ? `cgroup v${cg.version} ${cg.name}` : 'no samples'),
    limits: limits
      ? `${describeLimits(limits)}${dev ? ` on ${dev}` : ''}${cg ? `, cgroup v${cg.version}${cg.version === 1 && limits.volume ? ' blkio' : ''}` : ''}`
      : 'not throttled',
    read_limit_bytes_per_s: limits?.volume?.readBytesPerSec ?? null,
    write_limit_bytes_per_s: limits?.volume?.writeBytesPerSec ?? null,
    cpu_limit_cores: limits?.cpus ?? null,
    enforcement: enforcementLines(limits, cg),
    device: dev,
    host_read_bytes_per_s: hostRead,
    host_capacity_source: hostSource,
    host_cores: hostCores,
    thresholds: {
      disk_utilisation: LOCAL_THRESHOLDS.diskUtilisation,
      cpu_pct: LOCAL_THRESHOLDS.cpuPct,
      tolerance: LOCAL_THRESHOLDS.tolerance,
    },
    samples: samples.length,
    steps: labels,
    limits_held: labels.every((l) => l.limit_held !== false),
    untimed_steps: missing,
  };
}

/**
 * Label every step window of a cell whose counters were scraped over the network (samples with
 * `rtt_ms` in `counters.jsonl`, failed requests in `counters-errors.jsonl`): the same windows and rule
 * as {@link cellLocalBottleneck}, judged against `cap` — the CPU limit, capped at the machine's cores
 * when the samples name fewer (cAdvisor `machine_cpu_cores`: a 3.5-core limit on a 2-core node binds
 * at 2), and the volume's provisioned rates. No host disk capacity is measured (the server's disk is
 * not on this host).
 * @param dir the cell folder
 * @param cap the target's capacity (`scrapedCounters` verb)
 * @returns undefined when the cell has no `provision.json` (nothing to window)
 * @throws Error when a step record does not fit its schema
 */
export function cellScrapedBottleneck(dir: string, cap: ScrapedCapacity): LocalBottleneckRecord | undefined {
  const provision = readRecordIfExists(path.join(dir, 'provision.json'), ProvisionRecord);
  if (!provision) return undefined;
  const samples = readCounterSamples(path.join(dir, COUNTERS_FILE));
  const errors = readCounterErrors(path.join(dir, COUNTER_ERRORS_FILE));
  const machine = samples.reduce<number | null>(
    (m, s) => (typeof s.machine_cores === 'number' && s.machine_cores > 0 ? Math.max(m ?? 0, s.machine_cores) : m),
    null,
  );
  const limit = cap.limits.cpus;
  const cpus = limit !== undefined && machine !== null ? Math.min(limit, machine) : (limit ?? machine ?? undefined);
  const limits = { ...cap.limits, ...(cpus !== undefined ? { cpus } : {}) };
  const { steps, missing } = cellStepWindows(readCellStepRecords(dir, provision));
  const labels = labelStepWindows(
    steps,
    samples,
    { limits, hostCores: machine ?? cpus ?? 1, volumeEnforcedBy: 'volume' },
    cap.writesThrottled,
    LOCAL_THRESHOLDS,
  );
  const noSamples = errors.length
    ? `no counter samples: ${errors.length} request(s) failed, first: ${errors[0]!.error}`
    : undefined;
  return {
    source: samples[0]?.source ?? errors[0]?.source ?? 'no samples',
    limits: `${cap.describe}${
      limit !== undefined && machine !== null && machine < limit
        ? `; the node has ${machine} cores (cAdvisor machine_cpu_cores), so ${machine} cores bind`
        : ''
    }`,
    read_limit_bytes_per_s: limits.volume?.readBytesPerSec ?? null,
    write_limit_bytes_per_s: limits.volume?.writeBytesPerSec ?? null,
    cpu_limit_cores: cpus ?? null,
    enforcement: cap.enforcement,
    device: null,
    host_read_bytes_per_s: null,
    host_capacity_source: "not measured: the server's disk is not on the worker's host",
    host_cores: machine,
    thresholds: {
      disk_utilisation: LOCAL_THRESHOLDS.diskUtilisation,
      cpu_pct: LOCAL_THRESHOLDS.cpuPct,
      tolerance: LOCAL_THRESHOLDS.tolerance,
    },
    samples: samples.length,
    steps:
      noSamples && !samples.length
        ? labels.map((l) => (l.counters ? l : { ...l, evidence: `${l.evidence}; ${noSamples}` }))
        : labels,
    limits_held: labels.every((l) => l.limit_held !== false),
    untimed_steps: missing,
    ...(errors.length ? { failed_samples: { count: errors.length, first: errors[0]!.error } } : {}),
  };
}
