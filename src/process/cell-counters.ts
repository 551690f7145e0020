/**
 * Cumulative I/O and CPU counters of a cell's server on this host, sampled during the cell's steps
 * and appended to `<cell folder>/counters.jsonl` (one {@link CounterSample} a line), so the metrics
 * step can label every step window from the two samples that bracket it (`src/measure/step-labels.ts`).
 * Raw samples stay in the cell folder, never in workflow history.
 *
 * Sources, per cell:
 * - a cell with a cgroup (`target.resources`, recorded in `<dataDir>/cgroup.json` at provisioning):
 *   the group's `blkio.throttle.io_service_bytes` + `cpuacct.usage` (cgroup v1) or `io.stat` +
 *   `cpu.stat` (v2), on the block device its limits apply to — every process of the group counted,
 *   including children that exited;
 * - otherwise the server pid and its descendants: `/proc/<pid>/io` `read_bytes` / `write_bytes` and
 *   `/proc/<pid>/stat` utime + stime + cutime + cstime (`readProcCounters`).
 * Every sample also carries the host's CPU time (`/proc/stat` first line), as CloudWatch's
 * `CPUUtilization` is the whole instance's.
 *
 * A server that is not on the worker's host (a kubernetes pod) is read over the network instead: a
 * {@link ScrapedCounterSource} (the pod cgroup's counters as the node's cAdvisor serves them through
 * the API server's node proxy, `src/targets/kubernetes/cadvisor.ts`), one request per sample, taken
 * by {@link scrapedSample}: its `t`/`hr` are the time the request was sent and `rtt_ms` its round
 * trip, so the counters were read somewhere in `[t, t + rtt_ms]` (or at `stats_at`, when the endpoint
 * says when its collector read them).
 */
import * as fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { ResourceLimits } from '../schema/resources';
import { readCellCgroup, readCgroupCounters, type CellCgroup } from './cgroup';
import { descendants, readProcCounters } from './server-counters';

/** File name of the samples in a cell's result folder. */
export const COUNTERS_FILE = 'counters.jsonl';

/** One sample of a cell server's cumulative counters (a line of `counters.jsonl`). */
export interface CounterSample {
  /** Worker wall clock, epoch ms (`Date.now()`): the clock of the step records' `started_at`/`finished_at`. */
  t: number;
  /** Monotonic time of the sampling process, ms (`performance.timeOrigin + performance.now()`): rates use it between samples of one `proc`. */
  hr: number;
  /** Which worker process took it (`<pid>@<timeOrigin>`): `hr` differences are only meaningful within one. */
  proc: string;
  /** The server pid the counters belong to (the `/proc` source restarts from zero with a new pid); 0 for a scraped sample (no process of this host). */
  pid: number;
  /** The activity sampling and why: `start`, `end`, `statement begin` / `statement end` (with `query_id`), `tick`. */
  activity: string;
  edge: 'start' | 'end' | 'statement begin' | 'statement end' | 'tick';
  query_id?: string;
  /** `cgroup v1 <name>`, `cgroup v2 <name>`, `/proc/<pid>` (with its descendants), or a scraped source such as `cadvisor <node> pod <ns>/<name> uid <8 hex>`. */
  source: string;
  /** Bytes read from the block device, cumulative (cgroup: `Read` of `blkio.throttle.io_service_bytes` / `rbytes` of `io.stat`; else `/proc/<pid>/io` `read_bytes`). */
  read_bytes: number;
  /** Bytes written to it, cumulative (same sources; `Write` / `wbytes` / `write_bytes`). */
  write_bytes: number;
  /** CPU time of the server (and its children), ns, cumulative (`cpuacct.usage`, `cpu.stat` usage_usec × 1000, or `/proc/<pid>/stat` ticks × 10^7). */
  cpu_ns: number;
  /** Busy CPU time of the whole host, ns, cumulative: `/proc/stat` `cpu` user + nice + system + irq + softirq + steal ticks × 10^7. */
  host_busy_ns: number;
  /** All CPU time of the host, ns, cumulative (the same line's fields, idle and iowait included). */
  host_total_ns: number;
  /**
   * Scraped samples only: the request's round trip, ms (monotonic clock). The counters were read
   * between `t` and `t + rtt_ms`; absent on samples read from this host's files (microseconds).
   */
  rtt_ms?: number;
  /**
   * Scraped samples only: when the endpoint's collector read the counters, epoch ms (the Prometheus
   * exposition's sample timestamp; cAdvisor refreshes per housekeeping interval, so this may be
   * seconds before `t`); null when the endpoint gives no timestamp.
   */
  stats_at?: number | null;
  /** Scraped samples only: cores of the machine the server runs on (cAdvisor `machine_cpu_cores`); null when not served. */
  machine_cores?: number | null;
}

/** One read of a scraped source's cumulative counters (see {@link ScrapedCounterSource}). */
export interface ScrapedCounters {
  /** Bytes the server's cgroup read from block devices, cumulative (cAdvisor `container_fs_reads_bytes_total`, summed over devices). */
  readBytes: number;
  /** Bytes it wrote to them, cumulative (`container_fs_writes_bytes_total`). */
  writeBytes: number;
  /** CPU time of the cgroup, ns, cumulative (`container_cpu_usage_seconds_total` × 10^9). */
  cpuNs: number;
  /** When the endpoint's collector read them, epoch ms (the exposition's timestamp); null when it gives none. */
  statsAtMs: number | null;
  /** Cores of the server's machine (`machine_cpu_cores`); null when not served. */
  machineCores: number | null;
}

/**
 * A cell server's cumulative counters read over the network, for a server that is not on the
 * worker's host (the kubernetes target's `scrapedCounters` verb). Each {@link read} is one request;
 * the sampler bounds and times it ({@link scrapedSample}).
 */
export interface ScrapedCounterSource {
  /** Where the counters come from, e.g. `cadvisor ip-10-0-1-10.ec2.internal pod bench-database/chb-… uid 1a2b3c4d`. */
  readonly source: string;
  /**
   * One read of the counters (one request).
   * @throws Error when the request or the series fail (an HTTP status in `.code`, as client-node's `ApiException`)
   */
  read(): Promise<ScrapedCounters>;
}

/**
 * What a scraped cell's windows are judged against (the target's `scrapedCounters` verb gives it):
 * the limits the cluster enforces on the pod, not limits chbench applied.
 */
export interface ScrapedCapacity {
  /** `cpus`: the pod's CPU limit (cores); `volume`: the volume's provisioned rates (from the StorageClass the target renders). */
  limits: ResourceLimits;
  /** One line naming each limit and its source, e.g. `pod CPU limit 1 core (resources.limits.cpu 1); gp3 emulated: 125 MiB/s, 3,000 IOPS read and write (StorageClass bench-clickhouse-gp3 parameters)`. */
  describe: string;
  /** Who enforces each limit, one line each (the kubelet's CFS quota, the EBS volume). */
  enforcement: string[];
  /** Whether the volume's write limit binds buffered writes too (an EBS volume throttles every write that reaches it). */
  writesThrottled: boolean;
}

/** USER_HZ ticks per second of `/proc/stat` (100 on every Linux architecture chbench runs on). */
const TICK_NS = 1e7;

/** The host's CPU time from `/proc/stat` (busy and total, ns); zeros when it cannot be read. */
export function readHostCpu(): { busyNs: number; totalNs: number } {
  try {
    const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
    const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = f;
    const busy = user + nice + system + irq + softirq + steal;
    return { busyNs: busy * TICK_NS, totalNs: (busy + idle + iowait) * TICK_NS };
  } catch {
    return { busyNs: 0, totalNs: 0 };
  }
}

/** Reads one cell server's counters; see {@link cellCounterReader}. */
export interface CellCounterReader {
  /** A sample now; undefined when the server is gone (its pid does not exist and it has no cgroup). */
  sample(activity: string, edge: CounterSample['edge'], queryId?: string): CounterSample | undefined;
  /** Where the counters come from (`cgroup v1 chbench/<run>/<cell>` or `/proc/<pid>`). */
  readonly source: string;
}

const PROC = `${process.pid}@${Math.round(performance.timeOrigin)}`;

/**
 * A counter reader for the server of a cell on this host: its cgroup's counters when provisioning
 * recorded one in `<dataDir>/cgroup.json`, else `/proc` of `pid` and its descendants (the list of
 * descendants is rescanned at most once a second and at every `start` edge: scanning `/proc` costs
 * milliseconds, reading the listed files tens of microseconds).
 * @param pid the server pid (`TargetHandle.pid`)
 * @param dataDir the server's directory (`TargetHandle.dataDir`)
 */
export function cellCounterReader(pid: number, dataDir: string | undefined): CellCounterReader {
  const cg: CellCgroup | undefined = dataDir ? readCellCgroup(dataDir) : undefined;
  let pids: number[] = [];
  let scannedAt = -Infinity;
  const source = cg ? `cgroup v${cg.version} ${cg.name}` : `/proc/${pid}`;
  return {
    source,
    sample(activity, edge, queryId) {
      let c: { readBytes: number; writeBytes: number; cpuNs: number };
      if (cg) c = readCgroupCounters(cg);
      else {
        const now = performance.now();
        if (edge === 'start' || now - scannedAt > 1000) {
          pids = fs.existsSync(`/proc/${pid}`) ? descendants(pid) : [];
          scannedAt = now;
        }
        if (!pids.length || !fs.existsSync(`/proc/${pid}`)) return undefined;
        c = readProcCounters(pid, pids);
      }
      const host = readHostCpu();
      return {
        t: Date.now(),
        hr: performance.timeOrigin + performance.now(),
        proc: PROC,
        pid,
        activity,
        edge,
        ...(queryId ? { query_id: queryId } : {}),
        source,
        read_bytes: c.readBytes,
        write_bytes: c.writeBytes,
        cpu_ns: c.cpuNs,
        host_busy_ns: host.busyNs,
        host_total_ns: host.totalNs,
      };
    },
  };
}

/** Bound of one scraped sample's request, ms: a slower answer is dropped (the sample is skipped). */
export const SCRAPE_TIMEOUT_MS = 3000;

/**
 * One scraped sample: the time is taken around the request (`t`/`hr` when it is sent, `rtt_ms` its
 * round trip), so a sample's counters are known to have been read within `[t, t + rtt_ms]`.
 * @param timeoutMs bound of the request, ms (a later answer is dropped)
 * @returns the sample; @throws Error when the request fails or takes longer than `timeoutMs`
 */
export async function scrapedSample(
  src: ScrapedCounterSource,
  activity: string,
  edge: CounterSample['edge'],
  queryId?: string,
  timeoutMs = SCRAPE_TIMEOUT_MS,
): Promise<CounterSample> {
  const t = Date.now();
  const hr = performance.timeOrigin + performance.now();
  let timer: NodeJS.Timeout | undefined;
  // A late answer is dropped (its request is left to finish on its own).
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${src.source}: no answer within ${timeoutMs} ms`)), timeoutMs);
    timer.unref();
  });
  let c: ScrapedCounters;
  try {
    c = await Promise.race([src.read(), late]);
  } finally {
    clearTimeout(timer);
  }
  const rtt = performance.timeOrigin + performance.now() - hr;
  return {
    t,
    hr,
    proc: PROC,
    pid: 0,
    activity,
    edge,
    ...(queryId ? { query_id: queryId } : {}),
    source: src.source,
    read_bytes: c.readBytes,
    write_bytes: c.writeBytes,
    cpu_ns: c.cpuNs,
    host_busy_ns: 0,
    host_total_ns: 0,
    rtt_ms: rtt,
    stats_at: c.statsAtMs,
    machine_cores: c.machineCores,
  };
}

/** File name of the failed scraped samples in a cell's result folder (one JSON line each: `t`, `activity`, `edge`, `source`, `error`). */
export const COUNTER_ERRORS_FILE = 'counters-errors.jsonl';

/** One failed scraped sample (a line of `counters-errors.jsonl`). */
export interface CounterSampleError {
  /** Worker wall clock when the request was sent, epoch ms. */
  t: number;
  activity: string;
  edge: CounterSample['edge'];
  source: string;
  /** First line of the error (HTTP status and the API server's message where there is one). */
  error: string;
}

/**
 * Read `counters-errors.jsonl` (torn lines skipped).
 * @returns [] when the file does not exist
 */
export function readCounterErrors(file: string): CounterSampleError[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const out: CounterSampleError[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      out.push(JSON.parse(line) as CounterSampleError);
    } catch {
      /* torn line */
    }
  }
  return out;
}

/**
 * Read `counters.jsonl`: the samples in file order. A torn last line (a worker killed mid-append) is skipped.
 * @returns [] when the file does not exist
 */
export function readCounterSamples(file: string): CounterSample[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const out: CounterSample[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      out.push(JSON.parse(line) as CounterSample);
    } catch {
      /* torn line */
    }
  }
  return out;
}
