/**
 * benchmarkCell: one cell of the matrix (one version × one codec), its steps in the order of
 * `CELL_STEPS` (src/schema/cell.ts): provision → metrics (start) → schema → load → quiesce → [after-load] → storage →
 * baseline queries → [skip index → quiesce → index queries] → metrics (end) → result → teardown.
 * The result is written and the target torn down in a non-cancellable scope whatever happened.
 * Attempts, restarts after a lost server and progress are kept by `CellRun` (./cell-step.ts).
 */
import { CancellationScope, isCancellation, CancelledFailure, patched } from '@temporalio/workflow';
import type { CellInput, CellOutcome, ProvisionResult } from '../schema/cell';
import { cellFailure, describeFailure } from '../schema/failures';
import { CellRun, HostLost, LONG, SHORT, acts, type CellEnd } from './cell-step';
import { insertPoints, nextStepDecision, type ConcurrencyStepSummary } from '../schema/grids';

export { cellProgressQuery, type CellProgress } from './cell-step';

/** Patch id: the `after-load` step (a workload's `afterLoad` statements) runs after the load's quiesce. */
export const AFTER_LOAD_STEP = 'after-load-step';

/**
 * Patch id: a failed cell's workflow fails (Failed in the Web UI) with {@link cellFailure}, after its
 * result was written and its target torn down; the matrix records the outcome it carries. Histories
 * recorded before it completed with the failed outcome as the workflow's result.
 */
export const FAILED_CELL_FAILS_WORKFLOW = 'failed-cell-fails-workflow';

/**
 * Run one cell. A measurement failure is recorded in the cell result first, then fails the workflow.
 * @returns where the cell's `result.json` is, and its status (succeeded or skipped; failed when its
 *   host was lost, for the matrix to place it again).
 * @throws ApplicationFailure of the cell's failure type (`cellFailure`: non-retryable, details
 *   `[{ cellOutcome }]`) when the cell failed, after its result was written and its target torn down.
 * @throws CancelledFailure when the cell was cancelled, after its result was written and its target torn down.
 */
export async function benchmarkCell(cell: CellInput): Promise<CellOutcome> {
  const run = new CellRun(cell);
  let end: CellEnd = { status: 'succeeded' };
  let failure: unknown;
  try {
    let prov = await run.provision();
    // A lost host takes the cell's server and data with it: provision again elsewhere and start over.
    for (;;) {
      try {
        if (prov.skipReason) end = { status: 'skipped', skipReason: prov.skipReason };
        else await measure(run, cell, prov);
        break;
      } catch (err) {
        const again = await run.afterHostLoss(err);
        if (!again) throw err;
        prov = again;
      }
    }
  } catch (err) {
    failure = err;
    end = isCancellation(err)
      ? { status: 'cancelled', error: 'cancelled by request' }
      : err instanceof HostLost
        ? { status: 'failed', error: `${err.message}; the matrix runs the cell again on another host`, hostLost: true }
        : { status: 'failed', error: describeFailure(err) };
  }

  // Results first, then teardown — both must happen even when the cell was cancelled.
  const result = await CancellationScope.nonCancellable(async () => {
    const r = await run.writeResult(end);
    await run.teardown(end.status, end.hostLost);
    return r;
  });
  run.finish(end.status);
  if (end.status === 'cancelled')
    throw new CancelledFailure(`cell ${cell.cellKey} cancelled; result kept at ${result.resultFile}`);
  // A lost host is not the cell's failure: the matrix places it again (its next execution ends it).
  if (end.status === 'failed' && !end.hostLost && patched(FAILED_CELL_FAILS_WORKFLOW))
    throw cellFailure(result, failure);
  return result;
}

/** The cell's steps after provisioning, in the order of `CELL_STEPS`, on the provisioned target. */
async function measure(run: CellRun, cell: CellInput, prov: ProvisionResult): Promise<void> {
  const ql = prov.server.query_log === 'available';
  await run.step('collect-metrics', SHORT, 'metrics snapshot (start)', (o, si) =>
    acts.collectMetrics.executeWithOptions(o, [si, 'start']),
  );
  await run.step('create-schema', SHORT, `create table, codec ${cell.codec}`, (o, si) =>
    acts.createSchema.executeWithOptions(o, [si]),
  );
  await run.step('load', LONG, `load ${cell.scale.toLocaleString('en-US')} rows`, (o, si) =>
    acts.loadData.executeWithOptions(o, [si]),
  );
  await run.step('quiesce', LONG, 'wait for merges to settle', (o, si) =>
    acts.quiesceMerges.executeWithOptions(o, [si, 'after-load']),
  );
  if (cell.afterLoad?.length && patched(AFTER_LOAD_STEP))
    await run.step('after-load', LONG, `after-load statements: ${cell.afterLoad.join(', ')}`, (o, si) =>
      acts.afterLoad.executeWithOptions(o, [si]),
    );
  await run.step('storage', SHORT, 'per-column sizes from system.parts_columns', (o, si) =>
    acts.storageStats.executeWithOptions(o, [si]),
  );
  await run.step(
    'queries-baseline',
    LONG,
    `queries: ${cell.protocol.coldRuns} cold + ${cell.protocol.warmRuns} warm each`,
    (o, si) => acts.runQueries.executeWithOptions(o, [si, 'baseline', ql]),
  );
  if (cell.skipIndex) {
    await run.step('materialize-index', LONG, 'ADD + MATERIALIZE INDEX, poll system.mutations', (o, si) =>
      acts.materializeSkipIndex.executeWithOptions(o, [si]),
    );
    await run.step('quiesce-index', LONG, 'wait for merges to settle after the mutation', (o, si) =>
      acts.quiesceMerges.executeWithOptions(o, [si, 'after-index']),
    );
    await run.step('queries-index', LONG, 're-run index queries', (o, si) =>
      acts.runQueries.executeWithOptions(o, [si, 'index', ql]),
    );
  }
  // Concurrency stepping: one activity per client count, until the steps run out or a step's
  // errors or P99 say stop (nextStepDecision; the report derives the knee from the same records).
  const stepping = cell.grids?.concurrency;
  const steps: ConcurrencyStepSummary[] = [];
  for (const [i, clients] of (stepping?.steps ?? []).entries()) {
    const input = {
      clients,
      n: i + 1,
      mix: stepping!.mix ?? [],
      durationS: stepping!.durationS,
      warmupS: stepping!.warmupS,
    };
    steps.push(
      await run.step(
        'concurrency',
        LONG,
        `concurrency step ${i + 1}: ${clients} clients for ${stepping!.durationS} s`,
        (o, si) => acts.concurrencyStep.executeWithOptions(o, [si, input]),
      ),
    );
    if (!nextStepDecision(steps, stepping!).go) break;
  }
  if (cell.grids?.insert)
    for (const point of insertPoints(cell.grids.insert))
      await run.step('insert-grid', LONG, `insert grid point ${point.key}`, (o, si) =>
        acts.insertPoint.executeWithOptions(o, [si, point]),
      );
  await run.step('collect-metrics-end', SHORT, 'metrics snapshot (end)', (o, si) =>
    acts.collectMetrics.executeWithOptions(o, [si, 'end']),
  );
}
