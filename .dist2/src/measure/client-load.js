"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.HOST_BUSY_BOUND = exports.CLIENT_BOUND_CORES = void 0;
exports.startCpuMonitor = startCpuMonitor;
/**
 * Is the client what was measured? A load generator (the insert grid, concurrency stepping) runs in
 * the worker's Node process, whose JavaScript runs on one thread: when that thread is busy all the
 * time, requests wait for the client, not the server, and the figure measures the client. This
 * monitor samples the worker process's CPU time (`process.cpuUsage()`, user + system µs, every thread
 * of the process) and the host's CPU times (`os.cpus()`, every core) over a timed loop.
 */
const node_os_1 = __importDefault(require("node:os"));
const node_perf_hooks_1 = require("node:perf_hooks");
/** Process CPU (cores) at which the worker's JavaScript thread counts as saturated. */
exports.CLIENT_BOUND_CORES = 0.9;
/** Host busy share at which a client on its own host counts as saturated. */
exports.HOST_BUSY_BOUND = 0.95;
function hostTimes() {
    let busy = 0;
    let total = 0;
    for (const c of node_os_1.default.cpus()) {
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
function startCpuMonitor(serverOnHost) {
    const t0 = node_perf_hooks_1.performance.now();
    const p0 = process.cpuUsage();
    const h0 = hostTimes();
    return () => {
        const wallMs = node_perf_hooks_1.performance.now() - t0;
        const p = process.cpuUsage(p0);
        const h1 = hostTimes();
        const processCores = wallMs > 0 ? (p.user + p.system) / 1000 / wallMs : 0;
        const total = h1.total - h0.total;
        const hostBusy = total > 0 ? (h1.busy - h0.busy) / total : 0;
        const byProcess = processCores >= exports.CLIENT_BOUND_CORES;
        const byHost = !serverOnHost && hostBusy >= exports.HOST_BUSY_BOUND;
        const reason = byProcess
            ? `the worker process used ${processCores.toFixed(2)} cores (process.cpuUsage), ≥ ${exports.CLIENT_BOUND_CORES}: its JavaScript thread was saturated`
            : byHost
                ? `the worker's host was ${(hostBusy * 100).toFixed(0)} % busy (os.cpus), ≥ ${exports.HOST_BUSY_BOUND * 100} %, with the server elsewhere`
                : `the worker process used ${processCores.toFixed(2)} cores (process.cpuUsage) and the host was ${(hostBusy * 100).toFixed(0)} % busy (os.cpus${serverOnHost ? ', shared with the server' : ''})`;
        return { wallMs, processCores, hostBusy, hostCpus: node_os_1.default.cpus().length, clientBound: byProcess || byHost, reason };
    };
}
//# sourceMappingURL=client-load.js.map