"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.createDiscoverHosts = createDiscoverHosts;
/**
 * discoverHosts: which hosts the matrix can place cells on. A target on the worker's host (embedded,
 * local) binds a cell to the host that provisioned it, so the matrix runs `concurrency` cells per host
 * and needs to know the hosts; for other targets it returns none (cells go to the shared task queue).
 */
const targets_1 = require("../../targets");
const host_1 = require("../../temporal/host");
/** Activity factory. */
function createDiscoverHosts(deps) {
    return {
        /**
         * The hosts whose chbench workers poll `taskQueue` (the matrix's, shared) now, sorted by id; none
         * when `targetKind` is not bound to the worker's host. Source: Temporal `DescribeTaskQueue` pollers
         * (see `pollingHosts`).
         * @param input.runId the run asking (for the activity's summary and logs)
         * @throws the gRPC error when Temporal cannot be reached (retried by the activity's policy)
         */
        async discoverHosts(input) {
            if (!(0, targets_1.capabilitiesOf)({ kind: input.targetKind }).onWorkerHost)
                return [];
            return (0, host_1.pollingHosts)(deps, input.taskQueue);
        },
    };
}
//# sourceMappingURL=discover-hosts.js.map