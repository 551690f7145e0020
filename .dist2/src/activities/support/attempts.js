"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.runningWithPrefix = runningWithPrefix;
exports.settlePreviousAttempts = settlePreviousAttempts;
exports.killOnCancel = killOnCancel;
exports.isTargetGone = isTargetGone;
const common_1 = require("@temporalio/common");
const failures_1 = require("../../schema/failures");
const client_1 = require("../../clickhouse/client");
const activity_context_1 = require("../../temporal/activity-context");
const targets_1 = require("../../targets");
const poll_1 = require("../../lib/poll");
/** Query ids with `prefix` running (or queued) on the target (its `runningStatements` verb). */
function runningWithPrefix(target, client, prefix) {
    return (0, targets_1.targetOf)(target).runningStatements(target, client, prefix);
}
/**
 * Make sure no statement of an earlier attempt of this step still runs. Heartbeats while waiting.
 * @throws ApplicationFailure `PreviousAttemptStuck` when it is still there after `timeoutMs`.
 */
async function settlePreviousAttempts(target, client, prefix, timeoutMs = 3_600_000) {
    const t0 = Date.now();
    const found = await runningWithPrefix(target, client, prefix);
    if (!found.length)
        return { found, action: 'none', waited_ms: 0 };
    const canKill = (0, targets_1.capabilitiesOf)(target).canKillRunning;
    // What each KILL did does not matter here: the poll below waits until none is listed.
    if (canKill)
        for (const id of found)
            await (0, targets_1.targetOf)(target).kill(target, client, id, { sync: true });
    let still = found;
    return await (0, poll_1.pollUntil)(async () => {
        still = await runningWithPrefix(target, client, prefix);
        return !still.length && { found, action: canKill ? 'killed' : 'waited', waited_ms: Date.now() - t0 };
    }, {
        // Counted from t0, so the first look and the KILLs count towards the bound as before.
        timeoutMs: Math.max(0, timeoutMs - (Date.now() - t0)),
        intervalMs: 1000,
        sleep: activity_context_1.sleep,
        stopOn: () => true,
        onTick: () => (0, activity_context_1.heartbeat)({
            waiting_for: still,
            progress: `waiting for ${still.length} statement(s) of an earlier attempt: ${still.join(', ')}`,
        }),
        onTimeout: () => common_1.ApplicationFailure.create({
            type: failures_1.FAILURE.PreviousAttemptStuck,
            nonRetryable: true,
            message: `statements of an earlier attempt are still running after ${timeoutMs} ms: ${still.join(', ')}`,
        }),
    });
}
/**
 * While `work` runs, kill `queryId` on the server if the activity is cancelled (a user cancel, a
 * timeout, or worker shutdown), so a cancelled step leaves nothing running.
 */
async function killOnCancel(target, queryId, work) {
    const signal = (0, activity_context_1.cancellationSignal)();
    if (!signal)
        return work;
    const onAbort = () => {
        const c = (0, client_1.connect)(target);
        void (0, targets_1.targetOf)(target)
            .kill(target, c, queryId)
            .finally(() => c.close());
    };
    signal.addEventListener('abort', onAbort, { once: true });
    try {
        return await work;
    }
    finally {
        signal.removeEventListener('abort', onAbort);
    }
}
/** Network errors that mean the server is gone (process died, port closed). */
const GONE = /ECONNREFUSED|ECONNRESET|socket hang up|EPIPE|ENOTCONN|other side closed/i;
/** True when `e` says the target server is unreachable rather than that a statement failed. */
function isTargetGone(e) {
    const err = e;
    return GONE.test(`${err?.code ?? ''} ${err?.message ?? ''}`) || (err?.cause !== undefined && isTargetGone(err.cause));
}
//# sourceMappingURL=attempts.js.map