/**
 * quiesceMerges: wait until no merge or mutation runs on the table and the set of active parts has
 * stayed the same for `protocol.quiesce.stableForMs`. Heartbeats while waiting; bounded by
 * `protocol.quiesce.timeoutMs` with a clear error. The wait and its sources are in src/measure/quiesce.ts.
 */
import type { QuiesceSummary } from '../schema/cell';
import { QuiesceRecord } from '../schema/results';
import { waitForQuietTable } from '../measure/quiesce';
import type { StepContext } from './step-context';

/** Activity factory. */
export function createQuiesceMerges() {
  return {
    /**
     * Wait for a quiet table. Writes `quiesce-<label>.json`.
     * @returns the active part count measured against and how long it waited (ms).
     * @throws ApplicationFailure `QuiesceTimeout` (non-retryable) when the table is not quiet in time.
     */
    async quiesceMerges(ctx: StepContext, label = 'after-load'): Promise<QuiesceSummary> {
      const rec = await waitForQuietTable(ctx.client(), ctx.workload.table, ctx.cell.protocol.quiesce, ctx);
      ctx.write(`quiesce-${label}.json`, QuiesceRecord, rec);
      return { active_parts: rec.active_parts, waited_ms: rec.waited_ms };
    },
  };
}
