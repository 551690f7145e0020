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
 */
import * as fs from 'node:fs';
import { performance } from 'node:perf_hooks';
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
  /** The server pid the counters belong to (the `/proc` source restarts from zero with a new pid). */
  pid: number;
  /** The activity sampling and why: `start`, `end`, `statement begin` / `statement end` (with `query_id`), `tick`. */
  activity: string;
  edge: 'start' | 'end' | 'statement begin' | 'statement end' | 'tick';
  query_id?: string;
  /** `cgroup v1 <name>`, `cgroup v2 <name>` or `/proc/<pid>` (with its descendants). */
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
