"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.ATTEMPT_LOG_FILE = void 0;
exports.phaseOf = phaseOf;
exports.withAttemptLog = withAttemptLog;
exports.readAttemptLog = readAttemptLog;
exports.clearCellDirKeepingAttempts = clearCellDirKeepingAttempts;
exports.attemptsByPhase = attemptsByPhase;
/**
 * Every attempt of a cell step, recorded by the activity that made it: `attempts.jsonl` in the cell
 * folder, one {@link AttemptRecord} per line (phase, activity, attempt number, start and end times,
 * outcome, and for a failure its type, message and whether Temporal may retry it). Temporal keeps
 * only the last failure of an activity; this log keeps them all, so a step that failed (or succeeded
 * on a retry) says in `result.json` what each attempt did and when (writeCellResult collects it).
 *
 * Writing the log never fails a step: an attempt whose line cannot be written (a results store that
 * is not mounted) is not recorded.
 */
const node_fs_1 = require("node:fs");
const node_path_1 = __importDefault(require("node:path"));
const common_1 = require("@temporalio/common");
const failures_1 = require("../../schema/failures");
const results_1 = require("../../schema/results");
const store_1 = require("../../results/store");
const activity_context_1 = require("../../temporal/activity-context");
/** The log's file name in the cell folder. */
exports.ATTEMPT_LOG_FILE = 'attempts.jsonl';
/** Longest error message kept per attempt, characters. */
const MAX_ERROR_CHARS = 2000;
/**
 * The cell phase of an activity call (the phase names of `CELL_STEPS`): `runQueries(si, 'index')` is
 * `queries-index`, `quiesceMerges(si, 'after-index')` is `quiesce-index`, `collectMetrics(si, 'end')`
 * is `collect-metrics-end`; `undefined` for an activity that is not a cell step.
 */
function phaseOf(activity, args) {
    switch (activity) {
        case 'provision':
            return 'provision';
        case 'createSchema':
            return 'create-schema';
        case 'loadData':
            return 'load';
        case 'quiesceMerges':
            return args[1] === 'after-index' ? 'quiesce-index' : 'quiesce';
        case 'storageStats':
            return 'storage';
        case 'runQueries':
            return args[1] === 'index' ? 'queries-index' : 'queries-baseline';
        case 'materializeSkipIndex':
            return 'materialize-index';
        case 'collectMetrics':
            return args[1] === 'end' ? 'collect-metrics-end' : 'collect-metrics';
        case 'concurrencyStep':
            return 'concurrency';
        case 'insertPoint':
            return 'insert-grid';
        default:
            return undefined;
    }
}
/** The cell of a cell step's arguments: `provision(cell, …)` or `step({ cell, target }, …)`. */
function cellOf(args) {
    const a = args[0];
    const c = a?.cell ?? a;
    return c && typeof c.resultsDir === 'string' && typeof c.runId === 'string' && typeof c.cellKey === 'string'
        ? c
        : undefined;
}
/** Type, message and retryability of an activity's failure. */
function describeError(e) {
    const err = e;
    const type = e instanceof common_1.ApplicationFailure ? (e.type ?? 'Error') : (err?.name ?? 'Error');
    const retryable = !(e instanceof common_1.ApplicationFailure && (e.nonRetryable || failures_1.NON_RETRYABLE.includes(type)));
    return {
        failure_type: type,
        error: String(err?.message ?? e).slice(0, MAX_ERROR_CHARS),
        retryable,
    };
}
/** Append one record to the cell's log; never throws. */
function append(dir, rec) {
    try {
        (0, node_fs_1.mkdirSync)(dir, { recursive: true });
        (0, node_fs_1.appendFileSync)(node_path_1.default.join(dir, exports.ATTEMPT_LOG_FILE), JSON.stringify(rec) + '\n');
    }
    catch {
        /* a results store this worker cannot write: the attempt is not recorded (see the module doc) */
    }
}
/**
 * Wrap the cell-step activities of `acts` so each attempt appends its {@link AttemptRecord} to the
 * cell's `attempts.jsonl` when it ends (succeeded, failed or cancelled). Other activities pass through.
 * The error reaches Temporal unchanged.
 */
function withAttemptLog(acts) {
    const out = {};
    for (const [name, fn] of Object.entries(acts)) {
        out[name] = async (...a) => {
            const phase = phaseOf(name, a);
            const cell = phase ? cellOf(a) : undefined;
            if (!phase || !cell)
                return fn(...a);
            const t0 = Date.now();
            const base = () => {
                const ended = Date.now();
                const run = (0, activity_context_1.activityIdentity)()?.runId;
                return {
                    phase,
                    activity: name,
                    attempt: (0, activity_context_1.attempt)(),
                    started_at: new Date(t0).toISOString(),
                    ended_at: new Date(ended).toISOString(),
                    duration_ms: ended - t0,
                    ...(run ? { workflow_run_id: run } : {}),
                };
            };
            const dir = (0, store_1.cellDir)(cell.resultsDir, cell.runId, cell.cellKey);
            try {
                const r = await fn(...a);
                append(dir, { ...base(), outcome: 'succeeded' });
                return r;
            }
            catch (e) {
                const cancelled = e instanceof common_1.CancelledFailure || !!(0, activity_context_1.currentActivity)()?.cancellationSignal.aborted;
                append(dir, { ...base(), outcome: cancelled ? 'cancelled' : 'failed', ...describeError(e) });
                throw e;
            }
        };
    }
    return out;
}
/**
 * The log of the cell folder `dir`: the records of workflow run `workflowRunId` (all records when it
 * is undefined, and records that name no run), in the order written. Lines that do not parse are skipped.
 */
function readAttemptLog(dir, workflowRunId) {
    const file = node_path_1.default.join(dir, exports.ATTEMPT_LOG_FILE);
    if (!(0, node_fs_1.existsSync)(file))
        return [];
    const out = [];
    for (const line of (0, node_fs_1.readFileSync)(file, 'utf8').split('\n')) {
        if (!line.trim())
            continue;
        let parsed;
        try {
            parsed = JSON.parse(line);
        }
        catch {
            continue;
        }
        const r = results_1.AttemptRecord.safeParse(parsed);
        if (!r.success)
            continue;
        if (workflowRunId && r.data.workflow_run_id && r.data.workflow_run_id !== workflowRunId)
            continue;
        out.push(r.data);
    }
    return out;
}
/**
 * Empty the cell folder `dir` for a fresh start of the cell, keeping the attempt records of the
 * current workflow run (earlier attempts of this very provisioning, which ran before this one).
 */
function clearCellDirKeepingAttempts(dir) {
    const run = (0, activity_context_1.activityIdentity)()?.runId;
    const keep = run ? readAttemptLog(dir).filter((r) => r.workflow_run_id === run) : [];
    (0, node_fs_1.rmSync)(dir, { recursive: true, force: true });
    if (keep.length) {
        (0, node_fs_1.mkdirSync)(dir, { recursive: true });
        (0, node_fs_1.appendFileSync)(node_path_1.default.join(dir, exports.ATTEMPT_LOG_FILE), keep.map((r) => JSON.stringify(r) + '\n').join(''));
    }
}
/**
 * Attempt records grouped by phase, in the order the phases first appear.
 * @returns `{}` when there are none.
 */
function attemptsByPhase(records) {
    const out = {};
    for (const r of records)
        (out[r.phase] ??= []).push(r);
    return out;
}
//# sourceMappingURL=attempt-log.js.map