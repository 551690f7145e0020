"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.WorkflowFailedError = void 0;
exports.newRunId = newRunId;
exports.startRun = startRun;
exports.followRun = followRun;
exports.runAndFollow = runAndFollow;
exports.liveWorkflowPollers = liveWorkflowPollers;
/**
 * Client side of a run: start the matrix workflow and follow it with live progress ({@link ProgressView}:
 * the matrix's `progress` query plus each running cell's pending activity and heartbeat), and tell
 * whether any worker polls the run's task queue. Used by `chbench run`/`watch`/`cancel`/`resume` and the demo.
 */
const client_1 = require("@temporalio/client");
Object.defineProperty(exports, "WorkflowFailedError", { enumerable: true, get: function () { return client_1.WorkflowFailedError; } });
const time_1 = require("@temporalio/common/lib/time");
const progress_1 = require("./progress");
const host_1 = require("./host");
/** A run id for a spec: `<name>-<UTC yyyymmdd-hhmmss>`. */
function newRunId(name, now = new Date()) {
    return `${name}-${now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15)}`;
}
/**
 * Start `benchmarkMatrix` with the spec as input (the same JSON a user would pass to
 * `temporal workflow start --input-file`).
 * @throws WorkflowExecutionAlreadyStartedError when a workflow with this id is running
 */
async function startRun(client, spec, runId, taskQueue) {
    return client.workflow.start('benchmarkMatrix', {
        taskQueue,
        workflowId: runId,
        args: [spec],
        staticSummary: `chbench run ${runId}`,
    });
}
/**
 * Wait for the run `runId` (started here or elsewhere) to close while drawing its progress on
 * stderr: on a terminal a multibar (overall + one line per running cell with its step, the pending
 * activity's heartbeat and, while it retries, `attempt n: <error>`); otherwise changed lines at most
 * every 5 s. Follows continue-as-new to the last execution.
 * @throws WorkflowFailedError when the workflow fails or is cancelled; WorkflowNotFoundError for an unknown id
 */
async function followRun(client, runId, opts = {}) {
    const handle = client.workflow.getHandle(runId);
    const view = opts.progress === false ? undefined : (opts.view ?? new progress_1.ProgressView({ stream: process.stderr }));
    let busy = false;
    const refresh = async () => {
        if (!view || busy)
            return;
        busy = true;
        try {
            const s = await (0, progress_1.takeSnapshot)(client, runId);
            if (s && (s.progress.total || s.matrixStep))
                view.update(s);
        }
        catch {
            /* workflow not started yet or finished */
        }
        finally {
            busy = false;
        }
    };
    const timer = setInterval(() => void refresh(), 1000);
    try {
        return (await handle.result());
    }
    finally {
        clearInterval(timer);
        view?.stop();
    }
}
/**
 * Start `benchmarkMatrix` ({@link startRun}) and wait for it ({@link followRun}).
 * @throws WorkflowFailedError when the workflow fails (e.g. InvalidSpec).
 */
async function runAndFollow(client, spec, runId, taskQueue, opts = {}) {
    await startRun(client, spec, runId, taskQueue);
    return followRun(client, runId, opts);
}
/**
 * How many workers poll `taskQueue` for workflow tasks now: Temporal's `DescribeTaskQueue`
 * (workflow task queue type) `pollers`, counting those whose `lastAccessTime` is within
 * {@link POLLER_ALIVE_MS} of `now` (a worker that died a minute ago is still listed for a while).
 * @param now epoch ms
 * @throws the gRPC error when Temporal cannot be reached
 */
async function liveWorkflowPollers(client, namespace, taskQueue, now = Date.now()) {
    const r = await client.workflowService.describeTaskQueue({
        namespace,
        taskQueue: { name: taskQueue },
        taskQueueType: 1, // TASK_QUEUE_TYPE_WORKFLOW
    });
    return (r.pollers ?? []).filter((p) => now - ((0, time_1.optionalTsToMs)(p.lastAccessTime) ?? 0) <= host_1.POLLER_ALIVE_MS).length;
}
//# sourceMappingURL=run-client.js.map