/**
 * Small helpers for activity code: heartbeating while awaiting long work, and access to the
 * activity context when there is one (the same functions also run outside Temporal in bench/).
 */
import { Context } from '@temporalio/activity';

/** The current activity context, or `undefined` outside an activity. */
export function currentActivity(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined;
  }
}

/** Heartbeat now (no-op outside an activity). */
export function heartbeat(details?: unknown): void {
  currentActivity()?.heartbeat(details);
}

/** Attempt number of the current activity (1 outside an activity). */
export function attempt(): number {
  return currentActivity()?.info.attempt ?? 1;
}

/** Cancellation signal of the current activity, if any. */
export function cancellationSignal(): AbortSignal | undefined {
  return currentActivity()?.cancellationSignal;
}

/**
 * Await `work` while heartbeating every `everyMs` with `details()`; the heartbeat keeps a dead
 * worker detectable within the activity's heartbeat timeout during one long statement.
 */
export async function withHeartbeat<T>(work: Promise<T>, details: () => unknown, everyMs = 2000): Promise<T> {
  const ctx = currentActivity();
  if (!ctx) return work;
  ctx.heartbeat(details());
  const timer = setInterval(() => ctx.heartbeat(details()), everyMs);
  try {
    return await work;
  } finally {
    clearInterval(timer);
  }
}

/** Sleep that ends early when the activity is cancelled (then throws the cancellation). */
export async function sleep(ms: number): Promise<void> {
  const ctx = currentActivity();
  if (ctx) return ctx.sleep(ms);
  await new Promise((r) => setTimeout(r, ms));
}
