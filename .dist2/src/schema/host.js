"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.HostLoss = exports.HostActivity = exports.HostFacts = void 0;
exports.hostTaskQueue = hostTaskQueue;
exports.workerIdentity = workerIdentity;
exports.hostOfIdentity = hostOfIdentity;
/**
 * Hosts: the machine a worker runs on, as chbench sees it. A target on the worker's host (embedded,
 * local: `TargetCapabilities.onWorkerHost`) is a process on that machine, addressed by a loopback
 * address, so every step of its cell must run on a worker of that host: the host's own task queue
 * ({@link hostTaskQueue}, Temporal's worker-specific task queue pattern) carries them.
 */
const zod_1 = require("zod");
/**
 * Facts of the host a cell ran on, recorded by the provision step on that host (`provision.json`
 * `host`, and the cell result's `host`). Sources: `CHBENCH_HOST_ID` (else `os.hostname()`) for `id`;
 * node's `os` module for the rest.
 */
exports.HostFacts = zod_1.z.object({
    /** The host's id: `CHBENCH_HOST_ID`, else `os.hostname()`. Unique among a team's workers. */
    id: zod_1.z.string(),
    /** `os.hostname()`. */
    hostname: zod_1.z.string(),
    /** The host's own task queue (`<shared queue>@<id>`) its host-bound steps ran on. */
    taskQueue: zod_1.z.string(),
    /** `os.cpus()[0].model`. */
    cpuModel: zod_1.z.string(),
    /** Logical CPUs, `os.cpus().length`. */
    cores: zod_1.z.number(),
    /** Physical memory, bytes (`os.totalmem()`). */
    memoryBytes: zod_1.z.number(),
    /** `os.type()` and `os.release()`, e.g. `Linux 6.1.0-13-amd64`. */
    kernel: zod_1.z.string(),
});
/**
 * What else the host was doing, seen by a step on the host (the `collect-metrics` snapshots at the
 * start and end of the cell). Sources: `os.loadavg()`; the host's server registry (`chbench gc`'s,
 * the servers chbench started on this host and has not torn down).
 */
exports.HostActivity = zod_1.z.object({
    /** ISO time of the observation. */
    at: zod_1.z.string(),
    /** 1-minute load average (`os.loadavg()[0]`), runnable processes. */
    loadavg1: zod_1.z.number(),
    /** The other chbench servers alive on the host then (not this cell's): run id and cell key. */
    otherServers: zod_1.z.array(zod_1.z.object({ runId: zod_1.z.string(), cellKey: zod_1.z.string() })),
});
/** A cell's host was lost (no worker of it took a step within the schedule-to-start timeout); the cell was provisioned again elsewhere. */
exports.HostLoss = zod_1.z.object({
    /** The lost host's id. */
    hostId: zod_1.z.string(),
    /** The step no worker of that host took. */
    step: zod_1.z.string(),
    /** The timeout's message as Temporal reported it. */
    error: zod_1.z.string(),
});
/** The host-specific task queue of host `id` for the shared queue `sharedQueue`: `<sharedQueue>@<id>`. */
function hostTaskQueue(sharedQueue, id) {
    return `${sharedQueue}@${id}`;
}
/** A chbench worker's identity on Temporal: `chbench@<hostId>/<pid>`; {@link hostOfIdentity} reads it back. */
function workerIdentity(hostId, pid) {
    return `chbench@${hostId}/${pid}`;
}
/** The host id in a chbench worker identity (`chbench@<hostId>/<pid>`), or undefined for another identity. */
function hostOfIdentity(identity) {
    const m = /^chbench@(.+)\/\d+$/.exec(identity);
    return m?.[1];
}
//# sourceMappingURL=host.js.map