/**
 * Is the client what was measured? A load generator (the insert grid, concurrency stepping) runs in
 * the worker's Node process, whose JavaScript runs on one thread: when that thread is busy all the
 * time, requests wait for the client, not the server, and the figure measures the client. This
 * monitor samples the worker process's CPU time (`process.cpuUsage()`, user + system µs, every thread
 * of the process) and the host's CPU times (`os.cpus()`, every core) over a timed loop.
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';

/** CPU use of the worker process and the host during a timed loop. */
export interface ClientCpu {
  /** Wall time covered, ms. */
  wallMs: number;
  /** Worker process CPU time / wall time, in cores (`process.cpuUsage()`): 1.0 = one core busy all the time. */
  processCores: number;
  /** Share (0..1) of the host's CPU time that was busy (`os.cpus()` times: everything but idle), all cores. */
  hostBusy: number;
  /** Logical CPUs of the host (`os.cpus().length`). */
  hostCpus: number;
  /**
   * The point is client-bound: the process used at least {@link CLIENT_BOUND_CORES} cores (its
   * JavaScript thread saturated), or the host was at least {@link HOST_BUSY_BOUND} busy while the
   * server runs elsewhere (the worker's host is then only the client's).
   */
  clientBound: boolean;
  /** Why `clientBound` is what it is, in words. */
  reason: string;
}

/** Process CPU (cores) at which the worker's JavaScript thread counts as saturated. */
export const CLIENT_BOUND_CORES = 0.9;
/** Host busy share at which a client on its own host counts as saturated. */
export const HOST_BUSY_BOUND = 0.95;

function hostTimes(): { busy: number; total: number } {
  let busy = 0;
  let total = 0;
  for (const c of os.cpus()) {
    const t = c.times.user + c.times.nice + c.times.sys + c.times.irq + c.times.idle;
    total += t;
    busy += t - c.times.idle;
  }
  return { busy, total };
}

/**
 * Start measuring; call the returned function at the end of the timed loop.
 * @param serverOnHost the server runs on the worker's host (embedded/local targets): then a busy host
 *   is shared by server and client and says nothing about the client alone, so only the process's own
 *   CPU decides.
 */
export function startCpuMonitor(serverOnHost: boolean): () => ClientCpu {
  const t0 = performance.now();
  const p0 = process.cpuUsage();
  const h0 = hostTimes();
  return () => {
    const wallMs = performance.now() - t0;
    const p = process.cpuUsage(p0);
    const h1 = hostTimes();
    const processCores = wallMs > 0 ? (p.user + p.system) / 1000 / wallMs : 0;
    const total = h1.total - h0.total;
    const hostBusy = total > 0 ? (h1.busy - h0.busy) / total : 0;
    const byProcess = processCores >= CLIENT_BOUND_CORES;
    const byHost = !serverOnHost && hostBusy >= HOST_BUSY_BOUND;
    const reason = byProcess
      ? `the worker process used ${processCores.toFixed(2)} cores (process.cpuUsage), ≥ ${CLIENT_BOUND_CORES}: its JavaScript thread was saturated`
      : byHost
        ? `the worker's host was ${(hostBusy * 100).toFixed(0)} % busy (os.cpus), ≥ ${HOST_BUSY_BOUND * 100} %, with the server elsewhere`
        : `the worker process used ${processCores.toFixed(2)} cores (process.cpuUsage) and the host was ${(hostBusy * 100).toFixed(0)} % busy (os.cpus${serverOnHost ? ', shared with the server' : ''})`;
    return { wallMs, processCores, hostBusy, hostCpus: os.cpus().length, clientBound: byProcess || byHost, reason };
  };
}
