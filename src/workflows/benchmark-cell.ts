/**
 * benchmarkCell: one cell of the matrix (one version × one codec), its steps in order:
 * provision → createSchema → loadData → quiesceMerges → storageStats → runQueries(baseline) →
 * materializeSkipIndex → quiesceMerges → runQueries(index) → collectMetrics → writeCellResult →
 * teardown. Teardown runs in a non-cancellable scope whatever happens, after the result is written.
 */
import {
  proxyActivities,
  defineQuery,
  setHandler,
  CancellationScope,
  isCancellation,
  upsertSearchAttributes,
  ApplicationFailure,
  ActivityFailure,
  ActivityCancellationType,
  CancelledFailure,
  type ActivityOptions,
} from '@temporalio/workflow';
import { RetryState, type RetryPolicy } from '@temporalio/common';
import type { Activities } from '../activities';
import type { CellInput, CellOutcome, StepInput } from '../schema/cell';
import { PHASE } from '../schema/search-attributes';

/** Progress of a cell, answered by the `progress` query. */
export interface CellProgress {
  cellKey: string;
  step: string;
  status: 'running' | CellOutcome['status'];
  /** Steps finished so far. */
  done: string[];
}

export const cellProgressQuery = defineQuery<CellProgress>('progress');

/** Errors that retrying cannot fix. */
const NON_RETRYABLE = ['InvalidSpec', 'QuiesceTimeout', 'MutationFailed', 'NoIndex', 'ClickHouseError', 'QueryFailed'];

/**
 * Retryable failures are infrastructure (a lost worker, a timeout, a network error): retry them
 * generously. Failures retrying cannot fix are non-retryable by type and fail the cell at once.
 */
const retry: RetryPolicy = { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 12, nonRetryableErrorTypes: NON_RETRYABLE };

/**
 * A worker that dies is noticed within HEARTBEAT_TIMEOUT: long steps heartbeat every 2 s, and short
 * steps finish (or heartbeat) well within it, so a lost attempt is retried on another worker in
 * seconds rather than after its start-to-close timeout.
 */
const HEARTBEAT_TIMEOUT = '10 seconds';
/** Short steps (DDL, stats, result files). */
const SHORT: ActivityOptions = { startToCloseTimeout: '5 minutes', heartbeatTimeout: HEARTBEAT_TIMEOUT, retry };
/** Long steps (provision, load, quiesce, queries, index). */
const LONG: ActivityOptions = {
  startToCloseTimeout: '6 hours',
  heartbeatTimeout: HEARTBEAT_TIMEOUT,
  retry,
  // On cancel, wait until the activity has really stopped (and killed its statement) before cleanup
  // runs, so teardown never races a provision or a load that is still going.
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
};
/** Teardown: its own timeouts, more attempts. */
const CLEANUP: ActivityOptions = { startToCloseTimeout: '5 minutes', heartbeatTimeout: HEARTBEAT_TIMEOUT, retry: { ...retry, maximumAttempts: 20 } };

const acts = proxyActivities<Activities>(SHORT);

/** How many times a cell provisions again after its server became unreachable. */
const MAX_TARGET_RESTARTS = 3;

/** Run one cell; never throws for a measurement failure (it is recorded in the cell result). */
export async function benchmarkCell(cell: CellInput): Promise<CellOutcome> {
  const progress: CellProgress = { cellKey: cell.cellKey, step: 'provision', status: 'running', done: [] };
  setHandler(cellProgressQuery, () => progress);
  const attempts: Record<string, number> = {};
  const restarts: { step: string; error: string }[] = [];
  let input: StepInput | undefined;

  const provision = async (summary: string, fresh: boolean) => {
    const p = await acts.provision.executeWithOptions({ ...LONG, summary }, [cell, fresh]);
    attempts.provision = Math.max(attempts.provision ?? 0, p.attempt);
    input = { cell, target: p.target };
    return p;
  };

  /**
   * Run one step. If its server became unreachable (process killed, host lost), provision again —
   * the provisioner restarts the server on the cell's data directory — and run the step again.
   */
  const step = async <T extends { attempt: number }>(name: string, opts: ActivityOptions, summary: string, run: (o: ActivityOptions, si: StepInput) => Promise<T>): Promise<T> => {
    progress.step = name;
    upsertSearchAttributes([{ key: PHASE, value: name }]);
    for (;;) {
      try {
        const r = await run({ ...opts, summary }, input as StepInput);
        attempts[name] = (attempts[name] ?? 0) + r.attempt;
        progress.done.push(name);
        return r;
      } catch (err) {
        // A step that failed after exhausting its retries ran exactly maximumAttempts times: say so
        // (the report's "retries" column), rather than showing no retry at all.
        if (err instanceof ActivityFailure && err.retryState === RetryState.MAXIMUM_ATTEMPTS_REACHED && opts.retry?.maximumAttempts)
          attempts[name] = (attempts[name] ?? 0) + opts.retry.maximumAttempts;
        if (!(err instanceof ActivityFailure && err.cause instanceof ApplicationFailure && err.cause.type === 'TargetUnavailable') || restarts.length >= MAX_TARGET_RESTARTS) throw err;
        attempts[name] = (attempts[name] ?? 0) + 1;
        restarts.push({ step: name, error: err.cause.message });
        await provision(`provision again after the server was lost during ${name}`, false);
      }
    }
  };

  let outcome: { status: CellOutcome['status']; error?: string; skipReason?: string } = { status: 'succeeded' };
  try {
    progress.step = 'provision';
    upsertSearchAttributes([{ key: PHASE, value: 'provision' }]);
    const prov = await provision(`provision ${cell.target.kind} ClickHouse ${cell.version}`, true);
    progress.done.push('provision');
    if (prov.skipReason) {
      outcome = { status: 'skipped', skipReason: prov.skipReason };
    } else {
      const ql = prov.server.query_log === 'available';
      await step('collect-metrics', SHORT, 'metrics snapshot (start)', (o, si) => acts.collectMetrics.executeWithOptions(o, [si, 'start']));
      await step('create-schema', SHORT, `create table, codec ${cell.codec}`, (o, si) => acts.createSchema.executeWithOptions(o, [si]));
      await step('load', LONG, `load ${cell.scale.toLocaleString('en-US')} rows`, (o, si) => acts.loadData.executeWithOptions(o, [si]));
      await step('quiesce', LONG, 'wait for merges to settle', (o, si) => acts.quiesceMerges.executeWithOptions(o, [si, 'after-load']));
      await step('storage', SHORT, 'per-column sizes from system.parts_columns', (o, si) => acts.storageStats.executeWithOptions(o, [si]));
      await step('queries-baseline', LONG, `queries: ${cell.protocol.coldRuns} cold + ${cell.protocol.warmRuns} warm each`, (o, si) => acts.runQueries.executeWithOptions(o, [si, 'baseline', ql]));
      if (cell.skipIndex) {
        await step('materialize-index', LONG, 'ADD + MATERIALIZE INDEX, poll system.mutations', (o, si) => acts.materializeSkipIndex.executeWithOptions(o, [si]));
        await step('quiesce-index', LONG, 'wait for merges to settle after the mutation', (o, si) => acts.quiesceMerges.executeWithOptions(o, [si, 'after-index']));
        await step('queries-index', LONG, 're-run index queries', (o, si) => acts.runQueries.executeWithOptions(o, [si, 'index', ql]));
      }
      await step('collect-metrics-end', SHORT, 'metrics snapshot (end)', (o, si) => acts.collectMetrics.executeWithOptions(o, [si, 'end']));
    }
  } catch (err) {
    if (isCancellation(err)) outcome = { status: 'cancelled', error: 'cancelled by request' };
    else outcome = { status: 'failed', error: describe(err) };
  }

  // Results first, then teardown — both must happen even when the cell was cancelled.
  const result = await CancellationScope.nonCancellable(async () => {
    progress.step = 'write-results';
    const r = await acts.writeCellResult.executeWithOptions({ ...SHORT, summary: `write result.json (${outcome.status})` }, [cell, { ...outcome, attempts, targetRestarts: restarts }]);
    const tear = cell.teardown === 'always' || (cell.teardown === 'on-success' && outcome.status !== 'failed');
    if (tear) {
      progress.step = 'teardown';
      upsertSearchAttributes([{ key: PHASE, value: 'teardown' }]);
      if (input) await acts.teardown.executeWithOptions({ ...CLEANUP, summary: `tear down ${cell.target.kind} target` }, [input]);
      // Provision failed or was cancelled before returning a handle: remove whatever it created.
      else await acts.teardownUnprovisioned.executeWithOptions({ ...CLEANUP, summary: `tear down what provisioning left (${cell.target.kind})` }, [cell]);
    }
    return r;
  });
  progress.step = 'done';
  progress.status = outcome.status;
  upsertSearchAttributes([{ key: PHASE, value: outcome.status }]);
  // A cancelled cell ends as Canceled in Temporal, after its result was written and its target torn down.
  if (outcome.status === 'cancelled') throw new CancelledFailure(`cell ${cell.cellKey} cancelled; result kept at ${result.resultFile}`);
  return result;
}

function describe(err: unknown): string {
  let e = err as Error & { cause?: unknown };
  const parts: string[] = [];
  if (err instanceof ActivityFailure) parts.push(`activity ${err.activityType} failed`);
  while (e) {
    if (e.message && !parts.includes(e.message)) parts.push(e.message);
    e = e.cause as Error & { cause?: unknown };
  }
  return parts.join(': ');
}
