"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.CALENDAR_SHORTHANDS = exports.UnknownScheduleError = exports.ScheduleSpecInvalidError = exports.EXECUTION_STATUSES = exports.SCHEDULE_ID_PATTERN = exports.ScheduleOptionError = exports.OVERLAP_POLICIES = exports.MATRIX_WORKFLOW_TYPE = void 0;
exports.overlapName = overlapName;
exports.parseOverlap = parseOverlap;
exports.checkScheduleId = checkScheduleId;
exports.parseExecutionStatus = parseExecutionStatus;
exports.grpcErrorOf = grpcErrorOf;
exports.parseCalendar = parseCalendar;
exports.parseDuration = parseDuration;
exports.scheduleSpecFrom = scheduleSpecFrom;
exports.createSchedule = createSchedule;
exports.calendarText = calendarText;
exports.describeSchedule = describeSchedule;
exports.listSchedules = listSchedules;
exports.triggerSchedule = triggerSchedule;
exports.triggerScheduleObserved = triggerScheduleObserved;
exports.updateScheduleSpec = updateScheduleSpec;
exports.pauseSchedule = pauseSchedule;
exports.unpauseSchedule = unpauseSchedule;
exports.deleteSchedule = deleteSchedule;
exports.listScheduledRuns = listScheduledRuns;
/**
 * chbench runs on Temporal Schedules (`@temporalio/client`'s ScheduleClient): create, describe, list,
 * pause/unpause, trigger, update the stored run spec, delete, and list the runs a schedule started.
 *
 * A chbench schedule's action starts the workflow type `benchmarkMatrix` on the chbench task queue
 * with the run spec as its one argument (what `chbench run` passes; stored in the schedule, so a
 * worker on any host runs it), the action workflow id = the schedule id, and the search attribute
 * `ChbenchSchedule=<scheduleId>`. Temporal appends the scheduled time to the action's workflow id
 * (`<scheduleId>-<RFC 3339 time, seconds>`, e.g. `q-regress-2026-04-01T03:00:00Z`), so each run has
 * its own workflow id; chbench's run id is that workflow id made folder-safe (`:` as `_`, e.g.
 * `q-regress-2026-04-01T03_00_00Z`: `src/schema/run-id.ts`), the one id of its folder, `run.json`,
 * cells and results, and `run.json` records the workflow id beside it.
 *
 * The spec is checked before anything is created or replaced, with the check the caller passes (the
 * CLI passes `checkSpec`, the one `chbench validate` uses; this library layer does not import
 * activities). The run spec schema is strict and holds no secret (passwords are named by
 * environment variable, `passwordEnv`, or live in a Kubernetes Secret), so none enters a schedule.
 */
const client_1 = require("@temporalio/client");
const time_1 = require("@temporalio/common/lib/time");
const search_attributes_1 = require("../schema/search-attributes");
const run_spec_1 = require("../schema/run-spec");
const matrix_1 = require("../schema/matrix");
/** The workflow type a chbench schedule starts. */
exports.MATRIX_WORKFLOW_TYPE = 'benchmarkMatrix';
/** Overlap policy names as the CLI spells them (`--overlap`), and the SDK's value for each. */
exports.OVERLAP_POLICIES = {
    skip: client_1.ScheduleOverlapPolicy.SKIP,
    'buffer-one': client_1.ScheduleOverlapPolicy.BUFFER_ONE,
    'buffer-all': client_1.ScheduleOverlapPolicy.BUFFER_ALL,
    'cancel-other': client_1.ScheduleOverlapPolicy.CANCEL_OTHER,
    'terminate-other': client_1.ScheduleOverlapPolicy.TERMINATE_OTHER,
    'allow-all': client_1.ScheduleOverlapPolicy.ALLOW_ALL,
};
/** The CLI name of an SDK overlap policy (`'SKIP'` → `'skip'`). */
function overlapName(p) {
    return Object.keys(exports.OVERLAP_POLICIES).find((k) => exports.OVERLAP_POLICIES[k] === p);
}
/**
 * Parse `--overlap`. Accepts the CLI names (`buffer-one`) and the SDK/CLI spellings (`BUFFER_ONE`, `BufferOne`).
 * @throws ScheduleOptionError listing the accepted names
 */
function parseOverlap(s) {
    const key = s
        .trim()
        .replace(/([a-z])([A-Z])/g, '$1-$2')
        .replace(/_/g, '-')
        .toLowerCase();
    if (key in exports.OVERLAP_POLICIES)
        return exports.OVERLAP_POLICIES[key];
    throw new ScheduleOptionError(`unknown overlap policy "${s}"; one of ${Object.keys(exports.OVERLAP_POLICIES).join(', ')}`);
}
/** A schedule option that cannot be used (bad calendar, cron, duration, overlap name); nothing was sent to Temporal. */
class ScheduleOptionError extends Error {
    name = 'ScheduleOptionError';
}
exports.ScheduleOptionError = ScheduleOptionError;
/**
 * Schedule ids chbench creates: a letter or digit, then up to 200 of letters, digits, `.`, `_`, `-`.
 * No `/`: a scheduled run's cells are child workflows with id `<runId>/<cellKey>`, and the run id
 * starts with the schedule id.
 */
exports.SCHEDULE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,200}$/;
/** @throws ScheduleOptionError when `id` does not match {@link SCHEDULE_ID_PATTERN} */
function checkScheduleId(id) {
    if (!exports.SCHEDULE_ID_PATTERN.test(id))
        throw new ScheduleOptionError(`schedule id ${JSON.stringify(id)}: use 1 to 201 letters, digits, '.', '_' or '-', starting with a letter or digit (no '/': a run's cells are child workflows <runId>/<cellKey>)`);
    return id;
}
/** Workflow statuses of the visibility store's `ExecutionStatus` (what `--status` of `chbench schedule runs` takes). */
exports.EXECUTION_STATUSES = [
    'Running',
    'Completed',
    'Failed',
    'Canceled',
    'Terminated',
    'ContinuedAsNew',
    'TimedOut',
];
/**
 * The `ExecutionStatus` name `s` stands for, case-insensitively (`completed` → `Completed`).
 * @throws ScheduleOptionError listing {@link EXECUTION_STATUSES}
 */
function parseExecutionStatus(s) {
    const found = exports.EXECUTION_STATUSES.find((x) => x.toLowerCase() === s.toLowerCase());
    if (!found)
        throw new ScheduleOptionError(`--status ${JSON.stringify(s)}: one of ${exports.EXECUTION_STATUSES.join(', ')}`);
    return found;
}
/**
 * The status and one-line text of a gRPC error from the SDK: `ServiceError` keeps the gRPC error as
 * its `cause` (its `code`, and `details` = the server's message); a raw gRPC error has them itself.
 */
function grpcErrorOf(e) {
    const c = e?.cause;
    for (const x of [e, c]) {
        const code = x?.code;
        if (typeof code === 'number') {
            const details = x.details;
            return {
                code,
                details: typeof details === 'string' && details ? details : String(x.message ?? x).split('\n')[0],
            };
        }
    }
    return { details: String(e?.message ?? e).split('\n')[0] };
}
/** The run spec given to a schedule was refused by the spec check; nothing was created or changed. */
class ScheduleSpecInvalidError extends Error {
    problems;
    name = 'ScheduleSpecInvalidError';
    /** One line per problem, as `chbench validate` prints them. */
    constructor(problems) {
        super(`invalid run spec:\n  - ${problems.join('\n  - ')}`);
        this.problems = problems;
    }
}
exports.ScheduleSpecInvalidError = ScheduleSpecInvalidError;
/** No schedule with this id in the namespace (wraps the SDK's ScheduleNotFoundError). */
class UnknownScheduleError extends Error {
    scheduleId;
    name = 'UnknownScheduleError';
    constructor(scheduleId, namespace, options) {
        super(`no schedule "${scheduleId}" in namespace ${namespace} (list them with: chbench schedule list)`, options);
        this.scheduleId = scheduleId;
    }
}
exports.UnknownScheduleError = UnknownScheduleError;
/**
 * Shorthands for `--calendar`, all at 03:00 in the schedule's time zone (UTC unless `timezone`):
 * `hourly` (minute 0), `daily`, `weekly` (Mondays), `monthly` (the 1st), `quarterly` (1 January,
 * April, July and October), `yearly` (1 January).
 */
exports.CALENDAR_SHORTHANDS = {
    hourly: { minute: 0, comment: 'hourly' },
    daily: { hour: 3, minute: 0, comment: 'daily at 03:00' },
    weekly: { dayOfWeek: 'MONDAY', hour: 3, minute: 0, comment: 'Mondays at 03:00' },
    monthly: { dayOfMonth: 1, hour: 3, minute: 0, comment: 'the 1st of every month at 03:00' },
    quarterly: {
        month: ['JANUARY', 'APRIL', 'JULY', 'OCTOBER'],
        dayOfMonth: 1,
        hour: 3,
        minute: 0,
        comment: 'quarterly: the 1st of January, April, July and October at 03:00',
    },
    yearly: { month: 'JANUARY', dayOfMonth: 1, hour: 3, minute: 0, comment: '1 January at 03:00' },
};
const CALENDAR_KEYS = new Set(['second', 'minute', 'hour', 'dayOfMonth', 'month', 'year', 'dayOfWeek', 'comment']);
/**
 * Parse `--calendar`: a shorthand of {@link CALENDAR_SHORTHANDS}, or JSON of one SDK `CalendarSpec`
 * or an array of them (e.g. `{"month":["JANUARY","JULY"],"dayOfMonth":1,"hour":3}`; omitted fields:
 * second/minute/hour 0, the others every value).
 * @throws ScheduleOptionError on an unknown shorthand, bad JSON or an unknown field
 */
function parseCalendar(s) {
    const short = exports.CALENDAR_SHORTHANDS[s.trim().toLowerCase()];
    if (short)
        return [short];
    let v;
    try {
        v = JSON.parse(s);
    }
    catch {
        throw new ScheduleOptionError(`--calendar "${s}" is neither a shorthand (${Object.keys(exports.CALENDAR_SHORTHANDS).join(', ')}) nor JSON`);
    }
    const list = Array.isArray(v) ? v : [v];
    for (const c of list) {
        if (typeof c !== 'object' || c === null || Array.isArray(c))
            throw new ScheduleOptionError(`--calendar: expected a JSON object (or an array of them), got ${JSON.stringify(c)}`);
        const bad = Object.keys(c).filter((k) => !CALENDAR_KEYS.has(k));
        if (bad.length)
            throw new ScheduleOptionError(`--calendar: unknown field(s) ${bad.join(', ')}; allowed: ${[...CALENDAR_KEYS].join(', ')}`);
    }
    return list;
}
/**
 * Parse a duration option (`90d`, `10m`, `30s`, or milliseconds as a number string).
 * @throws ScheduleOptionError naming the option
 */
function parseDuration(option, s) {
    const v = /^\d+$/.test(s) ? Number(s) : s;
    let ms;
    try {
        ms = (0, time_1.msToNumber)(v);
    }
    catch {
        ms = NaN;
    }
    if (!Number.isFinite(ms) || ms < 0)
        throw new ScheduleOptionError(`${option} "${s}" is not a duration (e.g. 90d, 12h, 10m, 30s)`);
    return v;
}
/**
 * Build the SDK's ScheduleSpec from the CLI's `--calendar`/`--cron`/`--every`/`--jitter`.
 * @throws ScheduleOptionError when none is given or one cannot be parsed (a bad cron string is
 *   refused by the server at create time)
 */
function scheduleSpecFrom(w) {
    if (!w.calendar && !w.cron && !w.every)
        throw new ScheduleOptionError('say when: --calendar <quarterly|JSON>, --cron "<expr>" or --every <duration>');
    if (w.every && (0, time_1.msToNumber)(parseDuration('--every', w.every)) < 1000)
        throw new ScheduleOptionError(`--every "${w.every}": the interval must be at least 1s (e.g. 90d, 1h)`);
    if (w.timezone) {
        try {
            new Intl.DateTimeFormat('en-US', { timeZone: w.timezone });
        }
        catch {
            throw new ScheduleOptionError(`--timezone "${w.timezone}" is not an IANA time zone (e.g. UTC, Europe/Berlin, America/New_York)`);
        }
    }
    return {
        ...(w.calendar ? { calendars: parseCalendar(w.calendar) } : {}),
        ...(w.cron ? { cronExpressions: [w.cron] } : {}),
        ...(w.every ? { intervals: [{ every: parseDuration('--every', w.every) }] } : {}),
        ...(w.jitter ? { jitter: parseDuration('--jitter', w.jitter) } : {}),
        ...(w.timezone ? { timezone: w.timezone } : {}),
    };
}
/** Check a raw spec with `check`; the parsed spec. @throws ScheduleSpecInvalidError */
function checked(raw, check) {
    const { spec, problems } = check(raw);
    if (!spec || problems.length)
        throw new ScheduleSpecInvalidError(problems.length ? problems : ['refused']);
    return spec;
}
/** The action's summary in the Web UI. */
function actionSummary(scheduleId, spec) {
    return `chbench run of schedule ${scheduleId}: ${spec.name}, ${spec.workload} ${spec.scale.toLocaleString('en-US')} rows`;
}
/**
 * Create a schedule that starts `benchmarkMatrix` with `o.spec`. The spec is checked first; nothing
 * is created when it is refused.
 * @returns the new schedule's handle
 * @throws ScheduleSpecInvalidError (spec refused), ScheduleOptionError (bad id, calendar, interval, duration or time zone;
 *   also for a cron/interval/time zone the server refuses as an invalid schedule spec), the SDK's
 *   ScheduleAlreadyRunning (the id exists), a gRPC error (server unreachable)
 */
async function createSchedule(client, o) {
    checkScheduleId(o.scheduleId);
    const spec = checked(o.spec, o.check);
    const when = scheduleSpecFrom(o.when);
    const create = client.schedule.create({
        scheduleId: o.scheduleId,
        spec: when,
        action: {
            type: 'startWorkflow',
            workflowType: exports.MATRIX_WORKFLOW_TYPE,
            workflowId: o.scheduleId,
            taskQueue: o.taskQueue,
            args: [o.spec],
            staticSummary: actionSummary(o.scheduleId, spec),
            typedSearchAttributes: [{ key: search_attributes_1.SCHEDULE, value: o.scheduleId }],
        },
        policies: {
            overlap: o.overlap ?? client_1.ScheduleOverlapPolicy.SKIP,
            ...(o.catchupWindow ? { catchupWindow: parseDuration('--catchup-window', o.catchupWindow) } : {}),
        },
        state: { paused: o.paused ?? false, ...(o.note ? { note: o.note } : {}) },
    });
    try {
        return await create;
    }
    catch (e) {
        // The SDK turns the server's INVALID_ARGUMENT "Invalid schedule spec: …" into a TypeError (bad cron field, interval, time zone).
        if (e instanceof TypeError)
            throw new ScheduleOptionError(`Temporal refused an option: ${e.message.split('\n')[0]}`, { cause: e });
        throw e;
    }
}
/** Run `fn` on the schedule's handle; an unknown id becomes {@link UnknownScheduleError}. */
async function onSchedule(client, id, fn) {
    try {
        return await fn(client.schedule.getHandle(id));
    }
    catch (e) {
        if (e instanceof client_1.ScheduleNotFoundError)
            throw new UnknownScheduleError(id, client.options.namespace, { cause: e });
        throw e;
    }
}
/** Ranges that mean "every value" (omitted from {@link calendarText}). */
const EVERY = {
    month: 'JANUARY-DECEMBER',
    dayOfMonth: '1-31',
    dayOfWeek: 'SUNDAY-SATURDAY',
    second: '0',
};
/**
 * A calendar as Temporal describes it, compactly: `month JANUARY,APRIL; dayOfMonth 1; hour 3;
 * minute 0` (fields meaning "every value", and second 0, omitted; ranges `start-end/step`).
 */
function calendarText(c) {
    const fields = ['month', 'dayOfMonth', 'dayOfWeek', 'year', 'hour', 'minute', 'second'];
    const parts = [];
    for (const f of fields) {
        const ranges = c[f] ?? [];
        const text = ranges
            .map((r) => r.end === undefined || r.start === r.end
            ? `${r.start}`
            : `${r.start}-${r.end}${r.step > 1 ? `/${r.step}` : ''}`)
            .join(',');
        if (text && text !== EVERY[f])
            parts.push(`${f} ${text}`);
    }
    return parts.join('; ') || 'every second';
}
function specSummary(raw) {
    try {
        const s = (0, run_spec_1.parseRunSpec)(raw);
        return {
            spec: {
                name: s.name,
                workload: s.workload,
                scale: s.scale,
                target: s.target.kind,
                cells: (0, matrix_1.expandMatrix)(s).length,
            },
        };
    }
    catch (e) {
        return { specProblem: e.message.split('\n')[0] };
    }
}
async function workflowStatus(client, workflowId) {
    try {
        return (await client.workflow.getHandle(workflowId).describe()).status.name;
    }
    catch {
        return 'UNKNOWN';
    }
}
function viewOf(d) {
    const a = d.action;
    return {
        scheduleId: d.scheduleId,
        rawSpec: a.args?.[0],
        ...specSummary(a.args?.[0]),
        action: { workflowType: String(a.workflowType), taskQueue: a.taskQueue, workflowId: a.workflowId },
        when: {
            calendars: (d.spec.calendars ?? []).map((c) => c.comment || calendarText(c)),
            intervals: (d.spec.intervals ?? []).map((i) => i.every),
            ...(d.spec.jitter ? { jitterMs: d.spec.jitter } : {}),
            ...(d.spec.timezone ? { timezone: d.spec.timezone } : {}),
        },
        policies: {
            overlap: overlapName(d.policies.overlap),
            catchupWindowMs: d.policies.catchupWindow,
            pauseOnFailure: d.policies.pauseOnFailure,
        },
        paused: d.state.paused,
        ...(d.state.note ? { note: d.state.note } : {}),
        actionsTaken: d.info.numActionsTaken,
        skippedOverlap: d.info.numActionsSkippedOverlap,
        missedCatchupWindow: d.info.numActionsMissedCatchupWindow,
        running: d.info.runningActions.map((r) => r.workflow.workflowId),
        next: d.info.nextActionTimes,
        createdAt: d.info.createdAt,
    };
}
/**
 * Describe a schedule: stored spec, when, policies, state, counters, recent actions with their
 * workflows' statuses, next times.
 * @throws UnknownScheduleError
 */
async function describeSchedule(client, scheduleId) {
    const d = await onSchedule(client, scheduleId, (h) => h.describe());
    const recent = await Promise.all(d.info.recentActions.map(async (r) => ({
        scheduledAt: r.scheduledAt,
        takenAt: r.takenAt,
        workflowId: r.action.workflow.workflowId,
        status: await workflowStatus(client, r.action.workflow.workflowId),
    })));
    return { ...viewOf(d), recent };
}
/**
 * Every schedule of the namespace (`client.schedule.list()`), each described once for its spec
 * name and running actions (the list's summaries carry neither), sorted by id.
 */
async function listSchedules(client) {
    const rows = [];
    for await (const s of client.schedule.list()) {
        const row = {
            scheduleId: s.scheduleId,
            workflowType: s.action?.workflowType,
            next: s.info.nextActionTimes[0],
            paused: s.state.paused,
            running: [],
        };
        try {
            const d = await client.schedule.getHandle(s.scheduleId).describe();
            row.running = d.info.runningActions.map((r) => r.workflow.workflowId);
            row.specName = specSummary(d.action.args?.[0]).spec?.name;
        }
        catch {
            /* deleted between list and describe: keep the summary */
        }
        rows.push(row);
    }
    return rows.sort((a, b) => a.scheduleId.localeCompare(b.scheduleId));
}
/**
 * Start one action now. The schedule's own overlap policy applies (read by `describe()`; the SDK
 * would otherwise default a trigger to ALLOW_ALL) unless `overlap` overrides it for this trigger.
 * The server applies the trigger asynchronously: a trigger skipped by SKIP shows up as
 * `skippedOverlap` in {@link describeSchedule}, not as an error.
 * @returns the policy used
 * @throws UnknownScheduleError
 */
async function triggerSchedule(client, scheduleId, overlap) {
    return onSchedule(client, scheduleId, async (h) => {
        const policy = overlap ?? (await h.describe()).policies.overlap ?? client_1.ScheduleOverlapPolicy.SKIP;
        await h.trigger(policy);
        return policy;
    });
}
/**
 * {@link triggerSchedule}, then watch the schedule's `describe()` counters (`info.numActionsTaken`,
 * `info.numActionsSkippedOverlap`) against their values before the trigger, every 100 ms up to
 * `waitMs`, to tell a started run from a skipped one.
 * @param waitMs how long to watch, ms @default 2000
 * @throws UnknownScheduleError
 */
async function triggerScheduleObserved(client, scheduleId, overlap, waitMs = 2000) {
    return onSchedule(client, scheduleId, async (h) => {
        const before = await h.describe();
        const policy = overlap ?? before.policies.overlap ?? client_1.ScheduleOverlapPolicy.SKIP;
        await h.trigger(policy);
        const deadline = Date.now() + waitMs;
        for (;;) {
            const d = await h.describe();
            if (d.info.numActionsSkippedOverlap > before.info.numActionsSkippedOverlap)
                return { policy, outcome: 'skipped', paused: d.state.paused };
            if (d.info.numActionsTaken > before.info.numActionsTaken) {
                const newest = [...d.info.recentActions].sort((a, b) => b.takenAt.getTime() - a.takenAt.getTime())[0];
                return {
                    policy,
                    outcome: 'started',
                    paused: d.state.paused,
                    ...(newest ? { workflowId: newest.action.workflow.workflowId } : {}),
                };
            }
            if (Date.now() >= deadline)
                return { policy, outcome: 'unknown', paused: d.state.paused };
            await new Promise((r) => setTimeout(r, 100));
        }
    });
}
/**
 * Replace the run spec stored in the schedule (everything else is kept). The new spec is checked
 * first; the schedule is not touched when it is refused.
 * @throws ScheduleSpecInvalidError, UnknownScheduleError
 */
async function updateScheduleSpec(client, scheduleId, raw, check) {
    const spec = checked(raw, check);
    await onSchedule(client, scheduleId, (h) => h.update((prev) => ({
        ...prev,
        action: {
            ...prev.action,
            args: [raw],
            staticSummary: actionSummary(scheduleId, spec),
            typedSearchAttributes: [{ key: search_attributes_1.SCHEDULE, value: scheduleId }],
        },
        state: { paused: prev.state.paused, note: prev.state.note, remainingActions: prev.state.remainingActions },
    })));
}
/** Pause a schedule with a note (default "paused with chbench"). @throws UnknownScheduleError */
async function pauseSchedule(client, scheduleId, note) {
    await onSchedule(client, scheduleId, (h) => h.pause(note ?? 'paused with chbench'));
}
/** Unpause a schedule with a note (default "unpaused with chbench"). @throws UnknownScheduleError */
async function unpauseSchedule(client, scheduleId, note) {
    await onSchedule(client, scheduleId, (h) => h.unpause(note ?? 'unpaused with chbench'));
}
/** Delete a schedule; its runs (running or closed) are left alone. @throws UnknownScheduleError */
async function deleteSchedule(client, scheduleId) {
    await onSchedule(client, scheduleId, (h) => h.delete());
}
/**
 * The runs a schedule started, newest first: the visibility query
 * `ChbenchSchedule="<id>" AND WorkflowType="benchmarkMatrix"` (plus `ExecutionStatus="<status>"`
 * when given). Visibility is eventually consistent: a run started a moment ago may be missing.
 * @param o.status e.g. `Completed` (one of {@link EXECUTION_STATUSES}, any case)
 * @throws ScheduleOptionError on an unknown status
 * @param o.limit at most this many rows @default 100
 */
async function listScheduledRuns(client, scheduleId, o = {}) {
    const q = [
        `${search_attributes_1.SCHEDULE.name} = ${JSON.stringify(scheduleId)}`,
        `WorkflowType = "${exports.MATRIX_WORKFLOW_TYPE}"`,
        ...(o.status ? [`ExecutionStatus = ${JSON.stringify(parseExecutionStatus(o.status))}`] : []),
    ].join(' AND ');
    const out = [];
    for await (const w of client.workflow.list({ query: q })) {
        out.push({
            workflowId: w.workflowId,
            status: w.status.name,
            startTime: w.startTime,
            ...(w.closeTime ? { closeTime: w.closeTime } : {}),
        });
        if (out.length >= (o.limit ?? 100))
            break;
    }
    return out.sort((a, b) => b.startTime.getTime() - a.startTime.getTime());
}
//# sourceMappingURL=schedules.js.map