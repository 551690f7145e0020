"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.POLLER_ALIVE_MS = void 0;
exports.hostFacts = hostFacts;
exports.pollingHosts = pollingHosts;
/**
 * This worker's host: its id and facts (recorded with every cell it provisions), and which hosts have
 * a chbench worker polling a task queue right now (read from Temporal's `DescribeTaskQueue` pollers,
 * whose identities chbench workers set to `chbench@<hostId>/<pid>`).
 */
const node_os_1 = __importDefault(require("node:os"));
const client_1 = require("@temporalio/client");
const host_1 = require("../schema/host");
/** This host's facts, from node's `os` module (see {@link HostFacts} for each field's source). */
function hostFacts(deps) {
    const cpus = node_os_1.default.cpus();
    return {
        id: deps.hostId,
        hostname: node_os_1.default.hostname(),
        taskQueue: (0, host_1.hostTaskQueue)(deps.taskQueue, deps.hostId),
        cpuModel: cpus[0]?.model?.trim() || 'unknown',
        cores: cpus.length,
        memoryBytes: node_os_1.default.totalmem(),
        kernel: `${node_os_1.default.type()} ${node_os_1.default.release()}`,
    };
}
/**
 * A poller seen by Temporal within this long (ms) counts as alive. A worker long-polls for up to a
 * minute between accesses, so anything shorter would miss idle workers; a dead host listed here is
 * caught by the schedule-to-start timeout of its first step.
 */
exports.POLLER_ALIVE_MS = 90_000;
/**
 * The hosts whose chbench workers poll `taskQueue` for activities, sorted by id. Source: Temporal's
 * `DescribeTaskQueue` (activity task queue type) `pollers[].identity` and `lastAccessTime`; pollers
 * with another identity format (not a chbench worker) are ignored.
 * @param now epoch ms to judge `lastAccessTime` against
 * @throws the gRPC error when Temporal cannot be reached
 */
async function pollingHosts(deps, taskQueue, now = Date.now()) {
    const connection = await client_1.Connection.connect({ address: deps.temporalAddress });
    try {
        const client = new client_1.Client({ connection, namespace: deps.namespace });
        const r = await client.workflowService.describeTaskQueue({
            namespace: deps.namespace,
            taskQueue: { name: taskQueue },
            taskQueueType: 2, // TASK_QUEUE_TYPE_ACTIVITY
        });
        const ids = new Set();
        for (const p of r.pollers ?? []) {
            const id = (0, host_1.hostOfIdentity)(p.identity ?? '');
            const seconds = Number(p.lastAccessTime?.seconds ?? 0);
            if (id && now - seconds * 1000 <= exports.POLLER_ALIVE_MS)
                ids.add(id);
        }
        return [...ids].sort().map((id) => ({ id, taskQueue: (0, host_1.hostTaskQueue)(taskQueue, id) }));
    }
    finally {
        await connection.close();
    }
}
//# sourceMappingURL=host.js.map