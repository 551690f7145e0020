"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.namespaceId = namespaceId;
exports.currentOwner = currentOwner;
/**
 * The {@link TemporalOwner} of a target provisioned by the current activity: the worker's Temporal
 * address and namespace (from its configuration), the namespace's id, and the workflow that runs
 * the activity (`Context.current().info.workflowExecution`). Recorded in the target's label so that
 * `chbench gc` asks the run's own server whether it is still going.
 */
const client_1 = require("@temporalio/client");
const activity_context_1 = require("./activity-context");
const namespaceIds = new Map();
/**
 * The id (UUID) of `namespace` on the server at `address`, cached per worker process; undefined when
 * it cannot be read (gc then never treats "workflow not found" as "closed").
 */
function namespaceId(address, namespace) {
    const key = `${address}\0${namespace}`;
    let p = namespaceIds.get(key);
    if (!p) {
        p = (async () => {
            const c = await client_1.Connection.connect({ address, connectTimeout: 5000 });
            try {
                const d = await c.workflowService.describeNamespace({ namespace });
                return d.namespaceInfo?.id || undefined;
            }
            finally {
                await c.close();
            }
        })().catch(() => {
            namespaceIds.delete(key); // try again next time
            return undefined;
        });
        namespaceIds.set(key, p);
    }
    return p;
}
/**
 * The owner of what the current activity provisions.
 * @param matrixWorkflowId the run id (workflow id of the matrix)
 * @returns undefined outside an activity or when the worker's address is unknown
 */
async function currentOwner(deps, matrixWorkflowId) {
    const ctx = (0, activity_context_1.currentActivity)();
    const info = ctx?.info;
    if (!info?.workflowExecution || !deps.temporalAddress)
        return undefined; // standalone activity: no workflow
    const namespace = info.workflowNamespace ?? deps.namespace ?? 'default';
    const id = await namespaceId(deps.temporalAddress, namespace);
    return {
        address: deps.temporalAddress,
        namespace,
        ...(id ? { namespaceId: id } : {}),
        workflowId: info.workflowExecution.workflowId,
        workflowRunId: info.workflowExecution.runId,
        matrixWorkflowId,
    };
}
//# sourceMappingURL=owner.js.map