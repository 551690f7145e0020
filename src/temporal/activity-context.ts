/**
 * Small helpers for activity code: heartbeats (through the statement watcher), and access to the
 * activity context when there is one (the same functions also run outside Temporal in bench/).
 */
import { Context } from '@temporalio/activity';
import { noteProgress, type HeartbeatDetails } from '../clickhouse/statement-watch';

/** The current activity context, or `undefined` outside an activity. */
export function currentActivity(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined;
  }
}

/**
 * Heartbeat now (no-op outside an activity). The fields are merged into the activity's
 * {@link HeartbeatDetails} (`step`, `query`, `run` persist until changed), so statement progress
 * heartbeats sent later by the statement watcher still say which step and run they belong to.
 */
export function heartbeat(details: Partial<HeartbeatDetails> & Record<string, unknown> = {}): void {
  noteProgress(details);
}

/** Attempt number of the current activity (1 outside an activity). */
export function attempt(): number {
  return currentActivity()?.info.attempt ?? 1;
}

/**
 * Which scheduled activity is running: its workflow id, workflow run id and activity id, the same for
 * every attempt of that activity (a retry after a lost worker included); `undefined` outside an activity.
 */
export function activityIdentity(): { workflowId: string; runId: string; activityId: string } | undefined {
  const info = currentActivity()?.info;
  const wf = info?.workflowExecution;
  return info && wf ? { workflowId: wf.workflowId, runId: wf.runId, activityId: info.activityId } : undefined;
}

/**
 * Do two activity identities (as {@link activityIdentity} gives them) name the same scheduled activity:
 * both known, with the same workflow id, workflow run id and activity id? Pure.
 */
export function sameActivity(
  a: ReturnType<typeof activityIdentity> | null | undefined,
  b: ReturnType<typeof activityIdentity> | null | undefined,
): boolean {
  return !!a && !!b && a.workflowId === b.workflowId && a.runId === b.runId && a.activityId === b.activityId;
}

/** Cancellation signal of the current activity, if any. */
export function cancellationSignal(): AbortSignal | undefined {
  return currentActivity()?.cancellationSignal;
}

/**
 * Sleep that ends early when the activity is cancelled (then throws the cancellation). Inside an
 * activity it sleeps in slices of at most 2 s and heartbeats between them, so a poll interval can
 * never outlast the heartbeat timeout (10 s).
 */
export async function sleep(ms: number): Promise<void> {
  const ctx = currentActivity();
  if (!ctx) {
    await new Promise((r) => setTimeout(r, ms));
    return;
  }
  for (let left = ms; left > 0; left -= SLEEP_SLICE_MS) {
    await ctx.sleep(Math.min(left, SLEEP_SLICE_MS));
    if (left > SLEEP_SLICE_MS) noteProgress({});
  }
}

/** Longest single wait of {@link sleep} between heartbeats, ms. */
export const SLEEP_SLICE_MS = 2000;
