/**
 * Hosts: the machine a worker runs on, as chbench sees it. A target on the worker's host (embedded,
 * local: `TargetCapabilities.onWorkerHost`) is a process on that machine, addressed by a loopback
 * address, so every step of its cell must run on a worker of that host: the host's own task queue
 * ({@link hostTaskQueue}, Temporal's worker-specific task queue pattern) carries them.
 */
import { z } from 'zod';

/**
 * Facts of the host a cell ran on, recorded by the provision step on that host (`provision.json`
 * `host`, and the cell result's `host`). Sources: `CHBENCH_HOST_ID` (else `os.hostname()`) for `id`;
 * node's `os` module for the rest.
 */
export const HostFacts = z.object({
  /** The host's id: `CHBENCH_HOST_ID`, else `os.hostname()`. Unique among a team's workers. */
  id: z.string(),
  /** `os.hostname()`. */
  hostname: z.string(),
  /** The host's own task queue (`<shared queue>@<id>`) its host-bound steps ran on. */
  taskQueue: z.string(),
  /** `os.cpus()[0].model`. */
  cpuModel: z.string(),
  /** Logical CPUs, `os.cpus().length`. */
  cores: z.number(),
  /** Physical memory, bytes (`os.totalmem()`). */
  memoryBytes: z.number(),
  /** `os.type()` and `os.release()`, e.g. `Linux 6.1.0-13-amd64`. */
  kernel: z.string(),
});
export type HostFacts = z.infer<typeof HostFacts>;

/**
 * The host kind of a cell's server host: CPU model, logical CPUs and physical memory (bytes), e.g.
 * `AMD EPYC 7B13 × 2 cores, 8344055808 bytes` (from {@link HostFacts}: `os.cpus()`, `os.totalmem()`).
 * Two hosts of one kind measure alike; the host's id and kernel are not part of it.
 */
export function hostKindOf(h: Pick<HostFacts, 'cpuModel' | 'cores' | 'memoryBytes'>): string {
  return `${h.cpuModel} × ${h.cores} cores, ${h.memoryBytes} bytes`;
}

/**
 * What else the host was doing, seen by a step on the host (the `collect-metrics` snapshots at the
 * start and end of the cell). Sources: `os.loadavg()`; the host's server registry (`chbench gc`'s,
 * the servers chbench started on this host and has not torn down).
 */
export const HostActivity = z.object({
  /** ISO time of the observation. */
  at: z.string(),
  /** 1-minute load average (`os.loadavg()[0]`), runnable processes. */
  loadavg1: z.number(),
  /** The other chbench servers alive on the host then (not this cell's): run id and cell key. */
  otherServers: z.array(z.object({ runId: z.string(), cellKey: z.string() })),
  /**
   * Whose host this is, when it is not certainly the server's: absent = the server's own host (a
   * target on the worker's host); {@link LOOPBACK_HOST_SCOPE} = the worker's host of a server on a
   * loopback URL (an `external` target), which probably but not certainly shares it.
   */
  scope: z.string().optional(),
  /** The host's logical CPUs (`os.cpus().length`), for the load flag of cells without host facts (recorded with `scope`). */
  cores: z.number().optional(),
});

/** {@link HostActivity.scope} of a server on a loopback URL that chbench did not start. */
export const LOOPBACK_HOST_SCOPE =
  "worker's host; the server's URL is loopback, so it probably shares this host — a port-forward would not";
export type HostActivity = z.infer<typeof HostActivity>;

/** A cell's host was lost (no worker of it took a step within the schedule-to-start timeout); the cell was provisioned again elsewhere. */
export const HostLoss = z.object({
  /** The lost host's id. */
  hostId: z.string(),
  /** The step no worker of that host took. */
  step: z.string(),
  /** The timeout's message as Temporal reported it. */
  error: z.string(),
});
export type HostLoss = z.infer<typeof HostLoss>;

/** Where a cell is placed by the matrix: the host whose worker provisions it. */
export interface HostPlacement {
  id: string;
  taskQueue: string;
}

/** The host-specific task queue of host `id` for the shared queue `sharedQueue`: `<sharedQueue>@<id>`. */
export function hostTaskQueue(sharedQueue: string, id: string): string {
  return `${sharedQueue}@${id}`;
}

/** A chbench worker's identity on Temporal: `chbench@<hostId>/<pid>`; {@link hostOfIdentity} reads it back. */
export function workerIdentity(hostId: string, pid: number): string {
  return `chbench@${hostId}/${pid}`;
}

/** The host id in a chbench worker identity (`chbench@<hostId>/<pid>`), or undefined for another identity. */
export function hostOfIdentity(identity: string): string | undefined {
  const m = /^chbench@(.+)\/\d+$/.exec(identity);
  return m?.[1];
}
