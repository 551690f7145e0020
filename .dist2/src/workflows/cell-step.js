"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.CellRun = exports.HostLost = exports.NOT_RESTARTABLE_FAILS_CELL = exports.acts = exports.LONG = exports.SHORT = exports.cellProgressQuery = void 0;
/**
 * The bookkeeping under the cell workflow, so `benchmarkCell` reads as the protocol: activity option
 * sets, the `progress` query, per-step attempts, the `ChbenchPhase` search attribute, and provisioning
 * again when a step finds its server gone (`TargetUnavailable`) and the target is restartable.
 *
 * Every Temporal command here (activity, search-attribute upsert) is issued in the same order as when
 * this code lived inside `benchmarkCell`: recorded histories in test/histories replay against it.
 */
const workflow_1 = require("@temporalio/workflow");
const common_1 = require("@temporalio/common");
const failures_1 = require("../schema/failures");
const search_attributes_1 = require("../schema/search-attributes");
exports.cellProgressQuery = (0, workflow_1.defineQuery)('progress');
/**
 * Retryable failures are infrastructure (a lost worker, a timeout, a network error): retry them
 * generously. Failures retrying cannot fix are non-retryable by type and fail the cell at once.
 */
const retry = {
    initialInterval: '1s',
    backoffCoefficient: 2,
    maximumInterval: '30s',
    maximumAttempts: 12,
    nonRetryableErrorTypes: [...failures_1.NON_RETRYABLE],
};
/**
 * A worker that dies is noticed within HEARTBEAT_TIMEOUT: long steps heartbeat every 2 s, and short
 * steps finish (or heartbeat) well within it, so a lost attempt is retried on another worker in
 * seconds rather than after its start-to-close timeout.
 */
const HEARTBEAT_TIMEOUT = '10 seconds';
/** Short steps (DDL, stats, result files). */
exports.SHORT = { startToCloseTimeout: '5 minutes', heartbeatTimeout: HEARTBEAT_TIMEOUT, retry };
/** Long steps (provision, load, quiesce, queries, index). */
exports.LONG = {
    startToCloseTimeout: '6 hours',
    heartbeatTimeout: HEARTBEAT_TIMEOUT,
    retry,
    // On cancel, wait until the activity has really stopped (and killed its statement) before cleanup
    // runs, so teardown never races a provision or a load that is still going.
    cancellationType: workflow_1.ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
};
/** Teardown: its own timeouts, more attempts. */
const CLEANUP = {
    startToCloseTimeout: '5 minutes',
    heartbeatTimeout: HEARTBEAT_TIMEOUT,
    retry: { ...retry, maximumAttempts: 20 },
};
/** The cell's activities (options given per call). */
exports.acts = (0, workflow_1.proxyActivities)(exports.SHORT);
/** How many times a cell provisions again after its server became unreachable. */
const MAX_TARGET_RESTARTS = 3;
/**
 * Patch id: a lost target that is not restartable (external) fails the cell instead of being
 * provisioned again. Histories recorded before it re-provisioned every target; they replay as such.
 */
exports.NOT_RESTARTABLE_FAILS_CELL = 'not-restartable-target-fails-cell';
/** How many hosts a cell may lose (each time it is provisioned again, fresh, on another host). */
const MAX_HOST_LOSSES = 3;
/**
 * A host-bound step was not taken by any worker of its host within the schedule-to-start timeout:
 * the host (or every worker on it) is gone, and with it the cell's server and data.
 */
class HostLost extends Error {
    loss;
    cause;
    constructor(loss, cause) {
        super(`host ${loss.hostId} lost during ${loss.step}: ${loss.error}`);
        this.loss = loss;
        this.cause = cause;
        this.name = 'HostLost';
    }
}
exports.HostLost = HostLost;
/** The activity failed because no worker took it from its task queue in time (`scheduleToStartTimeout`). */
function notTakenInTime(err) {
    return (err instanceof workflow_1.ActivityFailure &&
        err.cause instanceof common_1.TimeoutFailure &&
        err.cause.timeoutType === common_1.TimeoutType.SCHEDULE_TO_START);
}
/**
 * One cell's run state: progress (answered by the `progress` query from construction on), attempts
 * per phase, target restarts, and the target handle of the latest provisioning.
 */
class CellRun {
    cell;
    progress;
    /** Attempts per phase, for the result's "retries" column. */
    attempts = {};
    /** Each time a step found its server gone and the cell provisioned again. */
    restarts = [];
    /** Each host lost while the cell ran on it. */
    hostLosses = [];
    /** The host of the latest provisioning, for a target on the worker's host: later steps run on its task queue. */
    host;
    /** When the cell's workflow started (deterministic: from the workflow's info). */
    startedAt = (0, workflow_1.workflowInfo)().startTime.toISOString();
    input;
    /** The latest provision's `restartable` (absent in old histories: restartable). */
    restartable = true;
    constructor(cell) {
        this.cell = cell;
        this.hostLosses.push(...(cell.priorHostLosses ?? []));
        this.progress = { cellKey: cell.cellKey, step: 'provision', status: 'running', done: [] };
        (0, workflow_1.setHandler)(exports.cellProgressQuery, () => this.progress);
    }
    /** Enter a phase: the progress query and the `ChbenchPhase` search attribute show it. */
    enter(phase) {
        this.progress.step = phase;
        (0, workflow_1.upsertSearchAttributes)([{ key: search_attributes_1.PHASE, value: phase }]);
    }
    /**
     * Options that send an activity to `host`'s own task queue, where it must be taken within the
     * cell's `hostLossTimeoutS` or the host counts as lost. None without a host (the shared queue).
     */
    onHost(host) {
        return host
            ? { taskQueue: host.taskQueue, scheduleToStartTimeout: `${this.cell.hostLossTimeoutS ?? 60} seconds` }
            : {};
    }
    /**
     * Provision on `placement`'s task queue, or on the shared one without a placement.
     * @throws HostLost when the placed host takes no provisioning within the cell's `hostLossTimeoutS`.
     */
    async provisionTarget(summary, fresh, placement) {
        let p;
        try {
            p = await exports.acts.provision.executeWithOptions({ ...exports.LONG, summary, ...this.onHost(placement) }, [this.cell, fresh]);
        }
        catch (err) {
            if (!placement || !notTakenInTime(err)) {
                this.countFailedAttempts('provision', err, exports.LONG);
                throw err;
            }
            const loss = { hostId: placement.id, step: 'provision', error: err.cause.message };
            this.hostLosses.push(loss);
            throw new HostLost(loss, err);
        }
        this.attempts.provision = Math.max(this.attempts.provision ?? 0, p.attempt);
        this.input = { cell: this.cell, target: p.target };
        this.restartable = p.restartable !== false;
        this.host = p.host;
        return p;
    }
    /** The latest provisioned target. @throws Error before the cell was provisioned. */
    target() {
        if (!this.input)
            throw new Error(`${this.cell.cellKey} has no target yet`);
        return this.input.target;
    }
    /** The `provision` phase: a fresh target for the cell. */
    async provision() {
        this.enter('provision');
        const p = await this.provisionTarget(`provision ${this.cell.target.kind} ClickHouse ${this.cell.version}${this.cell.placement ? ` on host ${this.cell.placement.id}` : ''}`, true, this.cell.placement);
        this.progress.done.push('provision');
        return p;
    }
    /**
     * After `err`, for a cell the matrix did not place on a host: when it is {@link HostLost} and the
     * cell has lost at most MAX_HOST_LOSSES hosts, provision the cell again, fresh, through the shared
     * task queue (the lost host's server and data are unreachable; `chbench gc` there removes them
     * later) and return it, so the cell starts over. A placed cell ends instead, and the matrix places
     * it again on a host with a free slot (so no host runs more cells than the spec allows).
     * @returns undefined when `err` is anything else, the cell was placed, or it has lost too many hosts (then rethrow it).
     */
    async afterHostLoss(err) {
        if (!(err instanceof HostLost) || this.cell.placement || this.hostLosses.length > MAX_HOST_LOSSES)
            return undefined;
        this.enter('provision');
        this.progress.done = [];
        // The steps start over on a new server: their attempts so far are not retries of what is measured.
        for (const k of Object.keys(this.attempts))
            delete this.attempts[k];
        await this.tearDownOnLostHost(err.loss.hostId);
        const p = await this.provisionTarget(`provision again on another host: host ${err.loss.hostId} lost during ${err.loss.step}`, true);
        this.progress.done.push('provision');
        return p;
    }
    /**
     * A host that was only slow (not gone) still has the cell's server: tear it down there, so it is
     * neither left running nor adopted by a later provisioning of the cell on that host. A lost host
     * takes no task within the timeout; its server is left to `chbench gc` there (so is any with
     * `teardown: never`).
     */
    async tearDownOnLostHost(hostId) {
        if (!this.input || !this.host || this.cell.teardown === 'never')
            return;
        await exports.acts.teardown
            .executeWithOptions({
            ...CLEANUP,
            summary: `tear down the server on host ${hostId} if that host still answers`,
            ...this.onHost(this.host),
        }, [this.input])
            .catch(() => undefined);
    }
    /**
     * Run one step. If its server became unreachable (process killed, host lost), provision again —
     * the provisioner restarts the server on the cell's data directory — and run the step again, at
     * most {@link MAX_TARGET_RESTARTS} times per cell. A target that is not restartable (external:
     * chbench does not own its server) is not provisioned again: the cell fails.
     * @throws the step's failure (an `ActivityFailure`) when it is not `TargetUnavailable` or restarts ran out;
     *   `ApplicationFailure` `TargetUnavailable` (caused by it) when the lost target is not restartable.
     */
    async step(phase, opts, summary, run) {
        this.enter(phase);
        for (;;) {
            try {
                const r = await run({ ...opts, summary, ...this.onHost(this.host) }, this.input);
                // A phase of several activities (the grids' points and steps) is listed once, and its
                // attempts are its most-retried activity's: 1 when none of them was retried.
                if (this.progress.done.includes(phase))
                    this.attempts[phase] = Math.max(this.attempts[phase] ?? 0, r.attempt);
                else {
                    this.attempts[phase] = (this.attempts[phase] ?? 0) + r.attempt;
                    this.progress.done.push(phase);
                }
                return r;
            }
            catch (err) {
                if (this.host && notTakenInTime(err)) {
                    const loss = { hostId: this.host.id, step: phase, error: err.cause.message };
                    this.hostLosses.push(loss);
                    throw new HostLost(loss, err);
                }
                if (!(err instanceof workflow_1.ActivityFailure &&
                    err.cause instanceof workflow_1.ApplicationFailure &&
                    err.cause.type === failures_1.FAILURE.TargetUnavailable) ||
                    this.restarts.length >= MAX_TARGET_RESTARTS) {
                    this.countFailedAttempts(phase, err, opts);
                    throw err;
                }
                if (!this.restartable && (0, workflow_1.patched)(exports.NOT_RESTARTABLE_FAILS_CELL)) {
                    this.countFailedAttempts(phase, err, opts);
                    throw workflow_1.ApplicationFailure.create({
                        type: failures_1.FAILURE.TargetUnavailable,
                        nonRetryable: true,
                        message: `the ${this.cell.target.kind} target was lost during ${phase} and is not restartable (chbench does not own its server), so the cell fails instead of provisioning it again`,
                        cause: err,
                    });
                }
                this.attempts[phase] = (this.attempts[phase] ?? 0) + 1;
                this.restarts.push({ step: phase, error: err.cause.message });
                await this.provisionTarget(`provision again after the server was lost during ${phase}`, false, this.host ? { id: this.host.id, taskQueue: this.host.taskQueue } : undefined);
            }
        }
    }
    /**
     * A failed phase's attempts (the report's "retries" column; writeCellResult raises them to what the
     * activities logged): `maximumAttempts` more when its retries ran out, else at least one — a
     * failure that was not retried ran once, and must not read as "no attempt".
     */
    countFailedAttempts(phase, err, opts) {
        if (!(err instanceof workflow_1.ActivityFailure))
            return;
        const n = err.retryState === common_1.RetryState.MAXIMUM_ATTEMPTS_REACHED && opts.retry?.maximumAttempts
            ? opts.retry.maximumAttempts
            : 1;
        // A phase of several activities (grid steps) counts its most-retried activity, as on success.
        this.attempts[phase] = this.progress.done.includes(phase)
            ? Math.max(this.attempts[phase] ?? 0, n)
            : (this.attempts[phase] ?? 0) + n;
    }
    /** The `write-results` phase: `result.json` with the outcome, attempts and restarts. */
    async writeResult(end) {
        // The step the cell stopped in (failed or cancelled), before the progress moves on.
        const stoppedIn = end.status === 'failed' || end.status === 'cancelled' ? this.progress.step : undefined;
        this.progress.step = 'write-results';
        return exports.acts.writeCellResult.executeWithOptions({ ...exports.SHORT, summary: `write result.json (${end.status})` }, [
            this.cell,
            {
                ...end,
                attempts: this.attempts,
                targetRestarts: this.restarts,
                ...(this.hostLosses.length ? { hostLosses: this.hostLosses } : {}),
                // Every cell's start (its duration in the report); an activity argument, not a new command.
                startedAt: this.startedAt,
                ...(stoppedIn ? { stoppedIn } : {}),
            },
        ]);
    }
    /**
     * The `teardown` phase, when the cell's teardown policy asks for it after `status`: tear down the
     * provisioned target, or — provisioning failed or was cancelled before returning a handle —
     * whatever provisioning created.
     */
    async teardown(status, hostLost = false) {
        const { cell } = this;
        // The cell ends because its host was lost: whatever the policy, its server there goes (if that
        // host still answers), as the cell runs again elsewhere.
        if (hostLost) {
            this.enter('teardown');
            return this.tearDownOnLostHost(this.hostLosses.at(-1)?.hostId ?? '?');
        }
        if (!(cell.teardown === 'always' || (cell.teardown === 'on-success' && status !== 'failed')))
            return;
        this.enter('teardown');
        // A server on a host is torn down by that host's worker; a lost host's is left to `chbench gc` there.
        const placed = cell.placement && !this.hostLosses.some((l) => l.hostId === cell.placement.id) ? cell.placement : undefined;
        try {
            if (this.input)
                await exports.acts.teardown.executeWithOptions({ ...CLEANUP, summary: `tear down ${cell.target.kind} target`, ...this.onHost(this.host) }, [this.input]);
            else
                await exports.acts.teardownUnprovisioned.executeWithOptions({ ...CLEANUP, summary: `tear down what provisioning left (${cell.target.kind})`, ...this.onHost(placed) }, [cell]);
        }
        catch (err) {
            if (!notTakenInTime(err))
                throw err;
        }
    }
    /** The cell is over: the progress query and the `ChbenchPhase` search attribute show its status. */
    finish(status) {
        this.progress.step = 'done';
        this.progress.status = status;
        (0, workflow_1.upsertSearchAttributes)([{ key: search_attributes_1.PHASE, value: status }]);
    }
}
exports.CellRun = CellRun;
//# sourceMappingURL=cell-step.js.map