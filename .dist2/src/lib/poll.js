"use strict";
/**
 * One polling loop for "wait until X": readiness of a server, a file appearing, a workflow reaching
 * a step. Activities pass their cancellable, heartbeating `sleep` (`temporal/activity-context`),
 * so a poll inside an activity stops at once when the activity is cancelled.
 */
Object.defineProperty(exports, "__esModule", { value: true });
exports.PollTimeoutError = void 0;
exports.pollUntil = pollUntil;
exports.pollWithin = pollWithin;
exports.abortableDelay = abortableDelay;
/** Thrown by {@link pollUntil} when the condition did not hold in time. */
class PollTimeoutError extends Error {
    name = 'PollTimeoutError';
    /** The last error thrown by the check, if its last call threw. */
    lastError;
    constructor(message, lastError) {
        super(message);
        this.lastError = lastError;
    }
}
exports.PollTimeoutError = PollTimeoutError;
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
async function pollUntil(check, opts = {}) {
    const timeoutMs = opts.timeoutMs ?? 30_000;
    const interval = opts.intervalMs ?? 100;
    const sleep = opts.sleep ?? ((ms) => abortableDelay(ms, opts.signal));
    const started = Date.now();
    let lastError;
    for (let attempt = 1;; attempt++) {
        opts.signal?.throwIfAborted();
        try {
            const v = await check(attempt);
            if (v !== undefined && v !== null && v !== false)
                return v;
            lastError = undefined;
        }
        catch (e) {
            if (opts.stopOn?.(e))
                throw e;
            lastError = e;
        }
        const elapsed = Date.now() - started;
        if (elapsed >= timeoutMs) {
            if (opts.onTimeout)
                throw opts.onTimeout({ elapsedMs: elapsed, attempts: attempt, lastError });
            const why = lastError === undefined
                ? ''
                : `; last error: ${lastError instanceof Error ? lastError.message : String(lastError)}`;
            throw new PollTimeoutError(`timed out after ${elapsed} ms waiting for ${opts.what ?? 'a condition'}${why}`, lastError);
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
async function pollWithin(check, opts = {}) {
    try {
        await pollUntil(check, opts);
        return true;
    }
    catch (e) {
        if (e instanceof PollTimeoutError)
            return false;
        throw e;
    }
}
/**
 * Resolve after `ms`, or reject with `signal.reason` as soon as `signal` aborts.
 * @throws the signal's reason when aborted
 */
function abortableDelay(ms, signal) {
    return new Promise((resolve, reject) => {
        if (signal?.aborted)
            return reject(signal.reason);
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
//# sourceMappingURL=poll.js.map