/**
 * Retries that never overlap their own previous attempt, and server-side cleanup on cancellation.
 *
 * Every statement chbench issues for a step has a query_id starting with the step's prefix
 * (`chb-<run>-<cell>-<step>`) and ending with `-a<attempt>`. Before a step re-issues a long statement
 * it looks for statements of earlier attempts still running on the server — `system.processes` on a
 * real server, `GET /chbench/running` on the embedded one — and kills them with the target's `kill`
 * verb (`KILL QUERY … SYNC`) or, where the engine cannot kill a running statement (embedded chdb),
 * waits for them to finish.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import { ApplicationFailure } from '@temporalio/common';
import { FAILURE } from '../../schema/failures';
import type { TargetHandle } from '../../schema/target';
import { connect } from '../../clickhouse/client';
import { heartbeat, sleep, cancellationSignal, currentActivity } from '../../temporal/activity-context';
import { capabilitiesOf, targetOf } from '../../targets';
import { pollUntil, pollWithin } from '../../lib/poll';
import { recordCancelKill, type CancelKill } from './attempt-log';

/** Query ids with `prefix` running (or queued) on the target (its `runningStatements` verb). */
export function runningWithPrefix(target: TargetHandle, client: ClickHouseClient, prefix: string): Promise<string[]> {
  return targetOf(target).runningStatements(target, client, prefix);
}

/** What happened to earlier attempts' statements. */
export interface PreviousAttempts {
  /** Query ids that were still running when the step started. */
  found: string[];
  /** `killed` (real servers) or `waited` (engines that cannot interrupt a statement). */
  action: 'none' | 'killed' | 'waited';
  waited_ms: number;
}

/**
 * Make sure no statement of an earlier attempt of this step still runs. Heartbeats while waiting.
 * @throws ApplicationFailure `PreviousAttemptStuck` when it is still there after `timeoutMs`.
 */
export async function settlePreviousAttempts(
  target: TargetHandle,
  client: ClickHouseClient,
  prefix: string,
  timeoutMs = 3_600_000,
): Promise<PreviousAttempts> {
  const t0 = Date.now();
  const found = await runningWithPrefix(target, client, prefix);
  if (!found.length) return { found, action: 'none', waited_ms: 0 };
  const canKill = capabilitiesOf(target).canKillRunning;
  // What each KILL did does not matter here: the poll below waits until none is listed.
  // A target that can kill may still refuse one statement (an embedded engine build without a second
  // session answers 48): then it is waited for, and the record says so.
  let killed = false;
  if (canKill)
    for (const id of found)
      killed = (await targetOf(target).kill(target, client, id, { sync: true })).outcome === 'killed' || killed;
  let still = found;
  return await pollUntil(
    async () => {
      still = await runningWithPrefix(target, client, prefix);
      return !still.length && ({ found, action: killed ? 'killed' : 'waited', waited_ms: Date.now() - t0 } as const);
    },
    {
      // Counted from t0, so the first look and the KILLs count towards the bound as before.
      timeoutMs: Math.max(0, timeoutMs - (Date.now() - t0)),
      intervalMs: 1000,
      sleep,
      stopOn: () => true,
      onTick: () =>
        heartbeat({
          waiting_for: still,
          progress: `waiting for ${still.length} statement(s) of an earlier attempt: ${still.join(', ')}`,
        }),
      onTimeout: () =>
        ApplicationFailure.create({
          type: FAILURE.PreviousAttemptStuck,
          nonRetryable: true,
          message: `statements of an earlier attempt are still running after ${timeoutMs} ms: ${still.join(', ')}`,
        }),
    },
  );
}

/** Bound of the wait for a statement killed on cancellation to leave the server, ms. */
export const CANCEL_KILL_WAIT_MS = 10_000;
/** Interval between two looks at the running statements during that wait, ms. */
export const CANCEL_KILL_POLL_MS = 150;

/**
 * While `work` runs, kill `queryId` on the server if the activity is cancelled (a user cancel, a
 * timeout, or worker shutdown), so a cancelled step leaves nothing running. On cancellation the
 * target's `kill` verb (`KILL QUERY … ASYNC`) is sent, then the target's running statements
 * (`system.processes`, or the embedded `/chbench/running`) are looked at every
 * {@link CANCEL_KILL_POLL_MS} ms until `queryId` is gone or {@link CANCEL_KILL_WAIT_MS} ms passed;
 * only then does the cancellation (the rejection of `work`) reach the caller, so the teardown's
 * statement archive that follows contains the killed statement. What the wait saw is recorded in the
 * attempt's record (`cancel_kills` in `attempts.jsonl`, see {@link CancelKill}).
 * @throws whatever `work` rejects with (after the wait when the activity was cancelled)
 */
export async function killOnCancel<T>(target: TargetHandle, queryId: string, work: Promise<T>): Promise<T> {
  const signal = cancellationSignal();
  if (!signal) return work;
  const ctx = currentActivity();
  let killing: Promise<void> | undefined;
  const onAbort = () => {
    killing = killAndWaitGone(target, queryId).then((k) => recordCancelKill(k, ctx));
  };
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    return await work;
  } catch (e) {
    if (signal.aborted && !killing) onAbort();
    await killing;
    throw e;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** Send the kill, then wait (bounded) until the target no longer lists `queryId`. Never throws. */
async function killAndWaitGone(target: TargetHandle, queryId: string): Promise<CancelKill> {
  const t0 = performance.now();
  const c = connect(target);
  try {
    const r = await targetOf(target).kill(target, c, queryId);
    let still: boolean | null = null;
    let why: string | undefined;
    try {
      const gone = await pollWithin(async () => !(await runningWithPrefix(target, c, queryId)).includes(queryId), {
        timeoutMs: CANCEL_KILL_WAIT_MS,
        intervalMs: CANCEL_KILL_POLL_MS,
        sleep: (ms) => new Promise((res) => setTimeout(res, ms)),
        stopOn: () => true,
      });
      still = !gone;
    } catch (e) {
      why = (e as Error).message.split('\n')[0].slice(0, 300);
    }
    return {
      query_id: queryId,
      kill: r.text,
      waited_ms: Math.round(performance.now() - t0),
      still_running: still,
      ...(why ? { unreadable: why } : {}),
    };
  } finally {
    await c.close().catch(() => undefined);
  }
}

/**
 * True when `e` says the target server is unreachable rather than that a statement failed. Defined
 * in library code (`src/clickhouse/no-answer.ts`, shared with the capability probe); kept here for
 * the activities that import it from this module.
 */
export { isTargetGone } from '../../clickhouse/no-answer';
