/**
 * The {@link TemporalOwner} of a target provisioned by the current activity: the worker's Temporal
 * address and namespace (from its configuration), the namespace's id, and the workflow that runs
 * the activity (`Context.current().info.workflowExecution`). Recorded in the target's label so that
 * `chbench gc` asks the run's own server whether it is still going.
 */
import { Connection } from '@temporalio/client';
import { currentActivity } from './activity-context';
import type { TemporalOwner } from '../schema/target';
import type { TemporalAccess } from './worker-client';

/** Where the worker reaches Temporal. */
export interface OwnerDeps {
  temporalAddress?: string;
  namespace?: string;
  /** The worker's shared client (`createActivities` sets it); without it a short-lived connection is opened once per namespace. */
  temporal?: TemporalAccess;
}

const namespaceIds = new Map<string, Promise<string | undefined>>();

/**
 * The id (UUID) of `namespace` on the server at `address`, cached per worker process; undefined when
 * it cannot be read (gc then never treats "workflow not found" as "closed"). Source: Temporal
 * `DescribeNamespace` `namespaceInfo.id`, through `temporal`'s shared connection when it is for `address`.
 */
export function namespaceId(
  address: string,
  namespace: string,
  temporal?: TemporalAccess,
): Promise<string | undefined> {
  const key = `${address}\0${namespace}`;
  let p = namespaceIds.get(key);
  if (!p) {
    p = (async () => {
      const describe = (c: Pick<Connection, 'workflowService'>) => c.workflowService.describeNamespace({ namespace });
      if (temporal?.address === address)
        return (await describe(await temporal.client())).namespaceInfo?.id || undefined;
      const c = await Connection.connect({ address, connectTimeout: 5000 });
      try {
        return (await describe(c)).namespaceInfo?.id || undefined;
      } finally {
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
export async function currentOwner(deps: OwnerDeps, matrixWorkflowId: string): Promise<TemporalOwner | undefined> {
  const ctx = currentActivity();
  const info = ctx?.info;
  if (!info?.workflowExecution || !deps.temporalAddress) return undefined; // standalone activity: no workflow
  const namespace = info.workflowNamespace ?? deps.namespace ?? 'default';
  const id = await namespaceId(deps.temporalAddress, namespace, deps.temporal);
  return {
    address: deps.temporalAddress,
    namespace,
    ...(id ? { namespaceId: id } : {}),
    workflowId: info.workflowExecution.workflowId,
    workflowRunId: info.workflowExecution.runId,
    matrixWorkflowId,
  };
}
