/**
 * The matrix's cells, run as child workflows (`benchmarkCell`, id `<runId>/<cellKey>`) in
 * `concurrency` lanes. A target on the worker's host is placed on hosts (`concurrency` lanes per host
 * with a chbench worker, each placing its cells on its host); a cell whose host was lost is placed
 * again, first in line, up to {@link MAX_CELL_HOST_LOSSES} times. A failed cell does not sink the
 * others. The lanes stop taking cells when the run is cancelled or the history should continue as new.
 *
 * Part of `benchmarkMatrix` (./benchmark-matrix.ts): the commands are issued in the order they
 * always were, so recorded histories replay.
 */
import {
  proxyActivities,
  workflowInfo,
  CancellationScope,
  isCancellation,
  patched,
  type ActivityOptions,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { Activities } from '../activities';
import type { CellInput, CellOutcome } from '../schema/cell';
import type { RunSpec } from '../schema/run-spec';
import { FAILURE, cellOutcomeOfFailure } from '../schema/failures';
import { executeCellChild } from './cell-child';
import type { MatrixRun } from './matrix-run';
import type { HostPlacement } from '../schema/host';

/** Finding the hosts with a chbench worker: quick, a few attempts (as the spec's validation). */
const DISCOVER: ActivityOptions = {
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 3, nonRetryableErrorTypes: [FAILURE.InvalidSpec] },
};
/** Waiting for a previous start's child to close (it may still be tearing down). */
const AWAIT_CLOSED: ActivityOptions = {
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { maximumAttempts: 5 },
};
const { discoverHosts } = proxyActivities<Activities>(DISCOVER);
const { awaitWorkflowClosed } = proxyActivities<Activities>(AWAIT_CLOSED);

/**
 * Patch id: cells of a target on the worker's host are placed on hosts (`concurrency` per host, one
 * lane per slot). Histories recorded before it ran `concurrency` lanes without placement.
 */
export const HOST_PLACEMENT = 'host-placement';

/** How many hosts one cell may lose before it is recorded as failed rather than placed again. */
const MAX_CELL_HOST_LOSSES = 3;

/** The child workflow's summary in the Temporal UI. */
export function cellSummary(spec: RunSpec, cell: CellInput): string {
  return `${spec.workload} ${spec.scale.toLocaleString('en-US')} rows on ClickHouse ${cell.version}, codec ${cell.codec} (${spec.target.kind})`;
}

/**
 * Run one cell as the child workflow `<runId>/<cellKey>`. On a resumed run the cell's child from the
 * previous start may still be cleaning up: wait for it to close, then start again.
 */
async function runChildCell(spec: RunSpec, runId: string, cell: CellInput): Promise<CellOutcome> {
  // The workflow id is the cell's; the placement (which host provisions it) is not part of its identity.
  const childId = `${runId}/${cell.cellKey}`;
  const start = () => executeCellChild(runId, cell, cellSummary(spec, cell));
  return start().catch(async (err: unknown) => {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    await awaitWorkflowClosed.executeWithOptions({ summary: `wait for the previous ${childId} to close` }, [childId]);
    return start();
  });
}

/** How the lanes ended: the run was cancelled (the cancellation), or its history should continue as new. */
export interface CellsOutcome {
  cancelled: unknown;
  continueAsNewNow: boolean;
}

/**
 * Run the cells of `queue` (taken from its front; a cell placed again goes back to the front),
 * recording each outcome in `run`. Returns when the queue is empty, the run is cancelled, or the
 * history passed `eventBudget` events (or the server suggests continuing as new).
 */
export async function runCells(
  spec: RunSpec,
  runId: string,
  queue: CellInput[],
  run: MatrixRun,
  eventBudget: number,
): Promise<CellsOutcome> {
  let cancelled: unknown;
  let continueAsNewNow = false;
  // Hosts lost while one of their cells ran: no more cells are placed there.
  const lostHosts = new Set<string>();
  const runOne = async (cell: CellInput, host?: HostPlacement): Promise<void> => {
    run.started(cell.cellKey);
    const outcome = await runChildCell(spec, runId, host ? { ...cell, placement: host } : cell).catch(
      (err: unknown): CellOutcome => {
        // A failed cell's workflow fails carrying its outcome (its result.json is written): recorded
        // like a returned one, so the run goes on (see FAILED_CELL_FAILS_WORKFLOW in ./benchmark-cell).
        const failed = cellOutcomeOfFailure(err);
        if (failed) return failed;
        // The run was cancelled, or only this cell was (then the other cells go on).
        if (CancellationScope.current().consideredCancelled) cancelled ??= err;
        const status = isCancellation(err) ? 'cancelled' : 'failed';
        return { cellKey: cell.cellKey, status, resultFile: '', error: String((err as Error).message) };
      },
    );
    for (const l of outcome.hostLosses ?? []) lostHosts.add(l.hostId);
    // Its host was lost before it finished: place it again (first in line), on a host with a free slot.
    if (outcome.hostLost && (outcome.hostLosses?.length ?? 0) <= MAX_CELL_HOST_LOSSES) {
      queue.unshift({ ...cell, priorHostLosses: outcome.hostLosses ?? [] });
      run.requeued(cell.cellKey);
      return;
    }
    run.recordOutcome(outcome);
    run.finished(cell.cellKey);
    const info = workflowInfo();
    if (info.continueAsNewSuggested || info.historyLength > eventBudget) continueAsNewNow = true;
  };
  // Check before taking a cell off the queue: a cell taken and not run would be lost when it was the last.
  // A lane placed on a host stops when that host is lost.
  const lane = async (host?: HostPlacement): Promise<void> => {
    for (
      let c: CellInput | undefined;
      !cancelled && !continueAsNewNow && !(host && lostHosts.has(host.id)) && (c = queue.shift());
    )
      await runOne(c, host);
  };
  // A target on the worker's host: `concurrency` lanes per host with a chbench worker, each placing
  // its cells on its host; when hosts are lost, look again (none left: lanes without placement).
  const placeOnHosts = patched(HOST_PLACEMENT);
  try {
    do {
      const hosts = placeOnHosts
        ? (
            await discoverHosts.executeWithOptions({ summary: 'find the hosts with a chbench worker' }, [
              { runId, taskQueue: workflowInfo().taskQueue, targetKind: spec.target.kind },
            ])
          ).filter((h) => !lostHosts.has(h.id))
        : [];
      // Slots taken in turn across hosts (h1, h2, h1, h2, …): a short queue still spreads over the hosts.
      const slots: (HostPlacement | undefined)[] = hosts.length
        ? Array.from({ length: spec.concurrency }, () => hosts).flat()
        : Array.from({ length: spec.concurrency }, () => undefined);
      await Promise.all(slots.slice(0, queue.length).map((h) => lane(h)));
    } while (placeOnHosts && !cancelled && !continueAsNewNow && queue.length > 0);
  } catch (err) {
    if (!isCancellation(err)) throw err;
    cancelled ??= err;
  }
  return { cancelled, continueAsNewNow };
}
