/**
 * awaitWorkflowClosed: wait (heartbeating) until a workflow execution has closed. Used when a resumed
 * run wants to start a cell whose child workflow from the previous start is still finishing its
 * cleanup (it was asked to cancel when that start ended), so the two never overlap.
 */
import { Client, Connection } from '@temporalio/client';
import { heartbeat, sleep } from '../../temporal/activity-context';
import { pollUntil } from '../../lib/poll';

/** Where the activity reaches Temporal (the worker's own address and namespace). */
export interface TemporalDeps {
  temporalAddress: string;
  namespace: string;
}

/** Activity factory. */
export function createAwaitWorkflowClosed(deps: TemporalDeps) {
  return {
    /** @returns the close status (`COMPLETED`, `FAILED`, `CANCELLED`, `TERMINATED`, …) or `NOT_FOUND`. */
    async awaitWorkflowClosed(workflowId: string): Promise<{ status: string }> {
      const connection = await Connection.connect({ address: deps.temporalAddress });
      try {
        const h = new Client({ connection, namespace: deps.namespace }).workflow.getHandle(workflowId);
        return await pollUntil(
          async () => {
            const d = await h
              .describe()
              .catch((e: Error) => (e.name === 'WorkflowNotFoundError' ? undefined : Promise.reject(e)));
            if (!d) return { status: 'NOT_FOUND' };
            return d.status.name !== 'RUNNING' && { status: d.status.name };
          },
          {
            timeoutMs: Infinity, // bounded by the activity's own timeouts
            intervalMs: 500,
            sleep,
            stopOn: () => true,
            onTick: () => heartbeat({ waiting_for: [workflowId] }),
          },
        );
      } finally {
        await connection.close();
      }
    },
  };
}
