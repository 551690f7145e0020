/**
 * One polling loop for "wait until X": readiness of a server, a file appearing, a workflow reaching
 * a step. Activities pass their cancellable, heartbeating `sleep` (`temporal/activity-context`),
 * so a poll inside an activity stops at once when the activity is cancelled.
 */

/** Options of {@link pollUntil}. */
export interface PollOptions {
  /** Give up after this long, ms (measured from the first check); `Infinity` never gives up. @default 30000 */
  timeoutMs?: number;
  /**
   * Wait between checks, ms: a number, or a function of the number of the check that just said
   * "not yet" (1, 2, …) for a growing wait, e.g. `(n) => Math.min(50 * 2 ** (n - 1), 250)`. A wait
   * never runs past the timeout. @default 100
   */
  intervalMs?: number | ((attempt: number) => number);
  /** What is awaited, for the timeout message (e.g. `"temporal dev server on 127.0.0.1:7233"`). */
  what?: string;
  /**
   * The wait between checks. @default a plain `setTimeout` (or one that ends early on `signal`)
   * Pass the activity's cancellable sleep inside an activity.
   */
  sleep?: (ms: number) => Promise<void>;
  /** Stop early: the poll rejects with the signal's reason once it is aborted. */
  signal?: AbortSignal;
  /**
   * Errors of `check` that end the poll at once (rethrown), e.g. "the process exited"; `() => true`
   * lets every error of `check` propagate. @default none
   */
  stopOn?: (e: unknown) => boolean;
  /**
   * Called after each check that said "not yet" when the timeout has not struck, just before the
   * wait: e.g. an activity's heartbeat carrying the progress its check saw. Whatever it throws ends
   * the poll (rethrown). @default none
   */
  onTick?: (attempt: number, elapsedMs: number) => void | Promise<void>;
  /**
   * Build what is thrown on timeout instead of a {@link PollTimeoutError}: e.g. an
   * `ApplicationFailure` with the caller's own message, naming the last state its `check` saw.
   * Gets the elapsed ms, the number of checks made and the last error of `check` (`undefined`
   * unless its last call threw). @default none
   */
  onTimeout?: (t: PollTimeout) => unknown;
}

/** What {@link PollOptions.onTimeout} is told. */
export interface PollTimeout {
  /** Time since the first check, ms. */
  elapsedMs: number;
  /** Checks made. */
  attempts: number;
  /** The error of the last check, if it threw. */
  lastError?: unknown;
}

/** Thrown by {@link pollUntil} when the condition did not hold in time. */
export class PollTimeoutError extends Error {
  override readonly name = 'PollTimeoutError';
  /** The last error thrown by the check, if its last call threw. */
  readonly lastError?: unknown;
  constructor(message: string, lastError?: unknown) {
    super(message);
    this.lastError = lastError;
  }
}

/**
 * Call `check` until it returns a value other than `undefined`, `null` or `false`, and return
 * that value. A `check` that throws counts as "not yet" (its error is kept for the timeout
 * message), unless `stopOn` says the error is final.
 * @param check one attempt; gets the attempt number (1, 2, …)
 * @returns the first truthy-enough value of `check`
 * @throws PollTimeoutError after `timeoutMs` (message names `what`, the elapsed ms and the last error),
 *   or what `onTimeout` returns when it is given
 * @throws the signal's reason when `signal` aborts, whatever `sleep` throws (an activity's
 *   cancellation), or whatever `onTick` throws
 */
export async function pollUntil<T>(
  check: (attempt: number) => T | undefined | null | false | Promise<T | undefined | null | false>,
  opts: PollOptions = {},
): Promise<T> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const interval = opts.intervalMs ?? 100;
  const sleep = opts.sleep ?? ((ms: number) => abortableDelay(ms, opts.signal));
  const started = Date.now();
  let lastError: unknown;
  for (let attempt = 1; ; attempt++) {
    opts.signal?.throwIfAborted();
    try {
      const v = await check(attempt);
      if (v !== undefined && v !== null && v !== false) return v;
      lastError = undefined;
    } catch (e) {
      if (opts.stopOn?.(e)) throw e;
      lastError = e;
    }
    const elapsed = Date.now() - started;
    if (elapsed >= timeoutMs) {
      if (opts.onTimeout) throw opts.onTimeout({ elapsedMs: elapsed, attempts: attempt, lastError });
      const why =
        lastError === undefined
          ? ''
          : `; last error: ${lastError instanceof Error ? lastError.message : String(lastError)}`;
      throw new PollTimeoutError(
        `timed out after ${elapsed} ms waiting for ${opts.what ?? 'a condition'}${why}`,
        lastError,
      );
    }
    await opts.onTick?.(attempt, elapsed);
    const intervalMs = typeof interval === 'function' ? interval(attempt) : interval;
    await sleep(Math.min(intervalMs, Math.max(1, timeoutMs - (Date.now() - started))));
  }
}

/**
 * {@link pollUntil} for a bounded wait the caller goes on from either way (e.g. "wait up to 5 s for
 * the process to exit"): resolves `false` on timeout instead of throwing.
 * @returns whether `check` said "done" within `timeoutMs`
 * @throws like {@link pollUntil}, except on timeout
 */
export async function pollWithin(
  check: (attempt: number) => unknown,
  opts: Omit<PollOptions, 'onTimeout'> = {},
): Promise<boolean> {
  try {
    await pollUntil(check, opts);
    return true;
  } catch (e) {
    if (e instanceof PollTimeoutError) return false;
    throw e;
  }
}

/**
 * Resolve after `ms`, or reject with `signal.reason` as soon as `signal` aborts.
 * @throws the signal's reason when aborted
 */
export function abortableDelay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal?.reason);
    };
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
