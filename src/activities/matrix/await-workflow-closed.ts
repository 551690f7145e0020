/**
 * awaitWorkflowClosed: wait (heartbeating) until a workflow execution has closed. Used when a resumed
 * run wants to start a cell whose child workflow from the previous start is still finishing its
 * cleanup (it was asked to cancel when that start ended), so the two never overlap.
 */
import { heartbeat, sleep } from '../../temporal/activity-context';
import { pollUntil } from '../../lib/poll';
import type { TemporalAccess } from '../../temporal/worker-client';

/** Where the activities reach Temporal: the worker's shared client. */
export interface TemporalDeps {
  temporal: TemporalAccess;
}

/** Activity factory. */
export function createAwaitWorkflowClosed(deps: TemporalDeps) {
  return {
    /** @returns the close status (`COMPLETED`, `FAILED`, `CANCELLED`, `TERMINATED`, …) or `NOT_FOUND`. */
    async awaitWorkflowClosed(workflowId: string): Promise<{ status: string }> {
      const h = (await deps.temporal.client()).workflow.getHandle(workflowId);
      return pollUntil(
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
    },
  };
}
