"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.createAwaitWorkflowClosed = createAwaitWorkflowClosed;
/**
 * awaitWorkflowClosed: wait (heartbeating) until a workflow execution has closed. Used when a resumed
 * run wants to start a cell whose child workflow from the previous start is still finishing its
 * cleanup (it was asked to cancel when that start ended), so the two never overlap.
 */
const client_1 = require("@temporalio/client");
const activity_context_1 = require("../../temporal/activity-context");
const poll_1 = require("../../lib/poll");
/** Activity factory. */
function createAwaitWorkflowClosed(deps) {
    return {
        /** @returns the close status (`COMPLETED`, `FAILED`, `CANCELLED`, `TERMINATED`, …) or `NOT_FOUND`. */
        async awaitWorkflowClosed(workflowId) {
            const connection = await client_1.Connection.connect({ address: deps.temporalAddress });
            try {
                const h = new client_1.Client({ connection, namespace: deps.namespace }).workflow.getHandle(workflowId);
                return await (0, poll_1.pollUntil)(async () => {
                    const d = await h
                        .describe()
                        .catch((e) => (e.name === 'WorkflowNotFoundError' ? undefined : Promise.reject(e)));
                    if (!d)
                        return { status: 'NOT_FOUND' };
                    return d.status.name !== 'RUNNING' && { status: d.status.name };
                }, {
                    timeoutMs: Infinity, // bounded by the activity's own timeouts
                    intervalMs: 500,
                    sleep: activity_context_1.sleep,
                    stopOn: () => true,
                    onTick: () => (0, activity_context_1.heartbeat)({ waiting_for: [workflowId] }),
                });
            }
            finally {
                await connection.close();
            }
        },
    };
}
//# sourceMappingURL=await-workflow-closed.js.map