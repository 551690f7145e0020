"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.SLEEP_SLICE_MS = void 0;
exports.currentActivity = currentActivity;
exports.heartbeat = heartbeat;
exports.attempt = attempt;
exports.activityIdentity = activityIdentity;
exports.cancellationSignal = cancellationSignal;
exports.sleep = sleep;
/**
 * Small helpers for activity code: heartbeats (through the statement watcher), and access to the
 * activity context when there is one (the same functions also run outside Temporal in bench/).
 */
const activity_1 = require("@temporalio/activity");
const statement_watch_1 = require("../clickhouse/statement-watch");
/** The current activity context, or `undefined` outside an activity. */
function currentActivity() {
    try {
        return activity_1.Context.current();
    }
    catch {
        return undefined;
    }
}
/**
 * Heartbeat now (no-op outside an activity). The fields are merged into the activity's
 * {@link HeartbeatDetails} (`step`, `query`, `run` persist until changed), so statement progress
 * heartbeats sent later by the statement watcher still say which step and run they belong to.
 */
function heartbeat(details = {}) {
    (0, statement_watch_1.noteProgress)(details);
}
/** Attempt number of the current activity (1 outside an activity). */
function attempt() {
    return currentActivity()?.info.attempt ?? 1;
}
/**
 * Which scheduled activity is running: its workflow id, workflow run id and activity id, the same for
 * every attempt of that activity (a retry after a lost worker included); `undefined` outside an activity.
 */
function activityIdentity() {
    const info = currentActivity()?.info;
    const wf = info?.workflowExecution;
    return info && wf ? { workflowId: wf.workflowId, runId: wf.runId, activityId: info.activityId } : undefined;
}
/** Cancellation signal of the current activity, if any. */
function cancellationSignal() {
    return currentActivity()?.cancellationSignal;
}
/**
 * Sleep that ends early when the activity is cancelled (then throws the cancellation). Inside an
 * activity it sleeps in slices of at most 2 s and heartbeats between them, so a poll interval can
 * never outlast the heartbeat timeout (10 s).
 */
async function sleep(ms) {
    const ctx = currentActivity();
    if (!ctx) {
        await new Promise((r) => setTimeout(r, ms));
        return;
    }
    for (let left = ms; left > 0; left -= exports.SLEEP_SLICE_MS) {
        await ctx.sleep(Math.min(left, exports.SLEEP_SLICE_MS));
        if (left > exports.SLEEP_SLICE_MS)
            (0, statement_watch_1.noteProgress)({});
    }
}
/** Longest single wait of {@link sleep} between heartbeats, ms. */
exports.SLEEP_SLICE_MS = 2000;
//# sourceMappingURL=activity-context.js.map