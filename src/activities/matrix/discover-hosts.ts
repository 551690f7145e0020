/**
 * discoverHosts: which hosts the matrix can place cells on. A target on the worker's host (embedded,
 * local) binds a cell to the host that provisioned it, so the matrix runs `concurrency` cells per host
 * and needs to know the hosts; for other targets it returns none (cells go to the shared task queue).
 */
import { capabilitiesOf } from '../../targets';
import type { TargetKind } from '../../schema/target';
import type { HostPlacement } from '../../schema/host';
import { pollingHosts } from '../../temporal/host';
import type { TemporalDeps } from './await-workflow-closed';

/** Activity factory. */
export function createDiscoverHosts(deps: TemporalDeps) {
  return {
    /**
     * The hosts whose chbench workers poll `taskQueue` (the matrix's, shared) now, sorted by id; none
     * when `targetKind` is not bound to the worker's host. Source: Temporal `DescribeTaskQueue` pollers
     * (see `pollingHosts`).
     * @param input.runId the run asking (for the activity's summary and logs)
     * @throws the gRPC error when Temporal cannot be reached (retried by the activity's policy)
     */
    async discoverHosts(input: { runId: string; taskQueue: string; targetKind: TargetKind }): Promise<HostPlacement[]> {
      if (!capabilitiesOf({ kind: input.targetKind }).onWorkerHost) return [];
      return pollingHosts(deps.temporal, input.taskQueue);
    },
  };
}
