/**
 * This worker's host: its id and facts (recorded with every cell it provisions), and which hosts have
 * a chbench worker polling a task queue right now (read from Temporal's `DescribeTaskQueue` pollers,
 * whose identities chbench workers set to `chbench@<hostId>/<pid>`).
 */
import os from 'node:os';
import type { TemporalAccess } from './worker-client';
import { hostOfIdentity, hostTaskQueue, type HostFacts, type HostPlacement } from '../schema/host';

/** Who this worker is: its host's id and that host's own task queue. */
export interface HostDeps {
  /** The host's id (`CHBENCH_HOST_ID`, else `os.hostname()`). */
  hostId: string;
  /** The shared task queue (`CHBENCH_TASK_QUEUE`); the host's own is `<taskQueue>@<hostId>`. */
  taskQueue: string;
}

/** This host's facts, from node's `os` module (see {@link HostFacts} for each field's source). */
export function hostFacts(deps: HostDeps): HostFacts {
  const cpus = os.cpus();
  return {
    id: deps.hostId,
    hostname: os.hostname(),
    taskQueue: hostTaskQueue(deps.taskQueue, deps.hostId),
    cpuModel: cpus[0]?.model?.trim() || 'unknown',
    cores: cpus.length,
    memoryBytes: os.totalmem(),
    kernel: `${os.type()} ${os.release()}`,
  };
}

/**
 * A poller seen by Temporal within this long (ms) counts as alive. A worker long-polls for up to a
 * minute between accesses, so anything shorter would miss idle workers; a dead host listed here is
 * caught by the schedule-to-start timeout of its first step.
 */
export const POLLER_ALIVE_MS = 90_000;

/**
 * The hosts whose chbench workers poll `taskQueue` for activities, sorted by id. Source: Temporal's
 * `DescribeTaskQueue` (activity task queue type) `pollers[].identity` and `lastAccessTime`; pollers
 * with another identity format (not a chbench worker) are ignored.
 * @param now epoch ms to judge `lastAccessTime` against
 * @throws the gRPC error when Temporal cannot be reached
 */
export async function pollingHosts(
  temporal: Pick<TemporalAccess, 'client' | 'namespace'>,
  taskQueue: string,
  now = Date.now(),
): Promise<HostPlacement[]> {
  const client = await temporal.client();
  const r = await client.workflowService.describeTaskQueue({
    namespace: temporal.namespace,
    taskQueue: { name: taskQueue },
    taskQueueType: 2, // TASK_QUEUE_TYPE_ACTIVITY
  });
  const ids = new Set<string>();
  for (const p of r.pollers ?? []) {
    const id = hostOfIdentity(p.identity ?? '');
    const seconds = Number(p.lastAccessTime?.seconds ?? 0);
    if (id && now - seconds * 1000 <= POLLER_ALIVE_MS) ids.add(id);
  }
  return [...ids].sort().map((id) => ({ id, taskQueue: hostTaskQueue(taskQueue, id) }));
}
