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
import {
  Client,
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
  type CalendarSpec,
  type CalendarSpecDescription,
  type Range,
  type ScheduleDescription,
  type ScheduleHandle,
  type ScheduleSpec,
} from '@temporalio/client';
import type { Duration } from '@temporalio/common';
import { msToNumber } from '@temporalio/common/lib/time';
import { SCHEDULE } from '../schema/search-attributes';
import { parseRunSpec, type RunSpec } from '../schema/run-spec';
import { expandMatrix } from '../schema/matrix';

/** The workflow type a chbench schedule starts. */
export const MATRIX_WORKFLOW_TYPE = 'benchmarkMatrix';

/** Overlap policy names as the CLI spells them (`--overlap`), and the SDK's value for each. */
export const OVERLAP_POLICIES = {
  skip: ScheduleOverlapPolicy.SKIP,
  'buffer-one': ScheduleOverlapPolicy.BUFFER_ONE,
  'buffer-all': ScheduleOverlapPolicy.BUFFER_ALL,
  'cancel-other': ScheduleOverlapPolicy.CANCEL_OTHER,
  'terminate-other': ScheduleOverlapPolicy.TERMINATE_OTHER,
  'allow-all': ScheduleOverlapPolicy.ALLOW_ALL,
} as const;
/** A CLI overlap policy name. */
export type OverlapName = keyof typeof OVERLAP_POLICIES;
/** An SDK overlap policy (`'SKIP'` … `'ALLOW_ALL'`). */
export type OverlapPolicy = (typeof OVERLAP_POLICIES)[OverlapName];

/** The CLI name of an SDK overlap policy (`'SKIP'` → `'skip'`). */
export function overlapName(p: OverlapPolicy | undefined): OverlapName | undefined {
  return (Object.keys(OVERLAP_POLICIES) as OverlapName[]).find((k) => OVERLAP_POLICIES[k] === p);
}

/**
 * Parse `--overlap`. Accepts the CLI names (`buffer-one`) and the SDK/CLI spellings (`BUFFER_ONE`, `BufferOne`).
 * @throws ScheduleOptionError listing the accepted names
 */
export function parseOverlap(s: string): OverlapPolicy {
  const key = s
    .trim()
    .replace(/([a-z])([A-Z])/g, '$1-$2')
    .replace(/_/g, '-')
    .toLowerCase();
  if (key in OVERLAP_POLICIES) return OVERLAP_POLICIES[key as OverlapName];
  throw new ScheduleOptionError(`unknown overlap policy "${s}"; one of ${Object.keys(OVERLAP_POLICIES).join(', ')}`);
}

/** A schedule option that cannot be used (bad calendar, cron, duration, overlap name); nothing was sent to Temporal. */
export class ScheduleOptionError extends Error {
  override name = 'ScheduleOptionError';
}

/**
 * Schedule ids chbench creates: a letter or digit, then up to 200 of letters, digits, `.`, `_`, `-`.
 * No `/`: a scheduled run's cells are child workflows with id `<runId>/<cellKey>`, and the run id
 * starts with the schedule id.
 */
export const SCHEDULE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,200}$/;

/** @throws ScheduleOptionError when `id` does not match {@link SCHEDULE_ID_PATTERN} */
export function checkScheduleId(id: string): string {
  if (!SCHEDULE_ID_PATTERN.test(id))
    throw new ScheduleOptionError(
      `schedule id ${JSON.stringify(id)}: use 1 to 201 letters, digits, '.', '_' or '-', starting with a letter or digit (no '/': a run's cells are child workflows <runId>/<cellKey>)`,
    );
  return id;
}

/** Workflow statuses of the visibility store's `ExecutionStatus` (what `--status` of `chbench schedule runs` takes). */
export const EXECUTION_STATUSES = [
  'Running',
  'Completed',
  'Failed',
  'Canceled',
  'Terminated',
  'ContinuedAsNew',
  'TimedOut',
] as const;

/**
 * The `ExecutionStatus` name `s` stands for, case-insensitively (`completed` → `Completed`).
 * @throws ScheduleOptionError listing {@link EXECUTION_STATUSES}
 */
export function parseExecutionStatus(s: string): (typeof EXECUTION_STATUSES)[number] {
  const found = EXECUTION_STATUSES.find((x) => x.toLowerCase() === s.toLowerCase());
  if (!found) throw new ScheduleOptionError(`--status ${JSON.stringify(s)}: one of ${EXECUTION_STATUSES.join(', ')}`);
  return found;
}

/**
 * The status and one-line text of a gRPC error from the SDK: `ServiceError` keeps the gRPC error as
 * its `cause` (its `code`, and `details` = the server's message); a raw gRPC error has them itself.
 */
export function grpcErrorOf(e: unknown): { code?: number; details: string } {
  const c = (e as { cause?: unknown })?.cause;
  for (const x of [e, c]) {
    const code = (x as { code?: unknown })?.code;
    if (typeof code === 'number') {
      const details = (x as { details?: unknown }).details;
      return {
        code,
        details: typeof details === 'string' && details ? details : String((x as Error).message ?? x).split('\n')[0],
      };
    }
  }
  return { details: String((e as Error)?.message ?? e).split('\n')[0] };
}

/** The run spec given to a schedule was refused by the spec check; nothing was created or changed. */
export class ScheduleSpecInvalidError extends Error {
  override name = 'ScheduleSpecInvalidError';
  /** One line per problem, as `chbench validate` prints them. */
  constructor(readonly problems: string[]) {
    super(`invalid run spec:\n  - ${problems.join('\n  - ')}`);
  }
}

/** No schedule with this id in the namespace (wraps the SDK's ScheduleNotFoundError). */
export class UnknownScheduleError extends Error {
  override name = 'UnknownScheduleError';
  constructor(
    readonly scheduleId: string,
    namespace: string,
    options?: ErrorOptions,
  ) {
    super(`no schedule "${scheduleId}" in namespace ${namespace} (list them with: chbench schedule list)`, options);
  }
}

/** The spec check the caller supplies: `checkSpec` from `activities/matrix/validate-spec.ts` in the CLI. */
export type SpecCheck = (raw: unknown) => { spec?: RunSpec; problems: string[] };

/**
 * Shorthands for `--calendar`, all at 03:00 in the schedule's time zone (UTC unless `timezone`):
 * `hourly` (minute 0), `daily`, `weekly` (Mondays), `monthly` (the 1st), `quarterly` (1 January,
 * April, July and October), `yearly` (1 January).
 */
export const CALENDAR_SHORTHANDS: Record<string, CalendarSpec> = {
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
export function parseCalendar(s: string): CalendarSpec[] {
  const short = CALENDAR_SHORTHANDS[s.trim().toLowerCase()];
  if (short) return [short];
  let v: unknown;
  try {
    v = JSON.parse(s);
  } catch {
    throw new ScheduleOptionError(
      `--calendar "${s}" is neither a shorthand (${Object.keys(CALENDAR_SHORTHANDS).join(', ')}) nor JSON`,
    );
  }
  const list = Array.isArray(v) ? v : [v];
  for (const c of list) {
    if (typeof c !== 'object' || c === null || Array.isArray(c))
      throw new ScheduleOptionError(
        `--calendar: expected a JSON object (or an array of them), got ${JSON.stringify(c)}`,
      );
    const bad = Object.keys(c).filter((k) => !CALENDAR_KEYS.has(k));
    if (bad.length)
      throw new ScheduleOptionError(
        `--calendar: unknown field(s) ${bad.join(', ')}; allowed: ${[...CALENDAR_KEYS].join(', ')}`,
      );
  }
  return list as CalendarSpec[];
}

/**
 * Parse a duration option (`90d`, `10m`, `30s`, or milliseconds as a number string).
 * @throws ScheduleOptionError naming the option
 */
export function parseDuration(option: string, s: string): Duration {
  const v: Duration = /^\d+$/.test(s) ? Number(s) : (s as Duration);
  let ms: number;
  try {
    ms = msToNumber(v);
  } catch {
    ms = NaN;
  }
  if (!Number.isFinite(ms) || ms < 0)
    throw new ScheduleOptionError(`${option} "${s}" is not a duration (e.g. 90d, 12h, 10m, 30s)`);
  return v;
}

/** When a schedule fires: at least one of calendar, cron and interval (all given ones apply). */
export interface ScheduleWhen {
  /** `--calendar`: a shorthand or JSON, see {@link parseCalendar}. */
  calendar?: string;
  /** `--cron`: a cron string (5 fields, or robfig's `@daily`, `@every 1h`…), e.g. `0 3 1 *\/3 *`. */
  cron?: string;
  /** `--every`: an interval, e.g. `90d` (counted from the Unix epoch, as Temporal does). */
  every?: string;
  /** `--jitter`: each action is delayed by a random amount up to this. */
  jitter?: string;
  /** IANA time zone the calendar and cron are read in. @default 'UTC' */
  timezone?: string;
}

/**
 * Build the SDK's ScheduleSpec from the CLI's `--calendar`/`--cron`/`--every`/`--jitter`.
 * @throws ScheduleOptionError when none is given or one cannot be parsed (a bad cron string is
 *   refused by the server at create time)
 */
export function scheduleSpecFrom(w: ScheduleWhen): ScheduleSpec {
  if (!w.calendar && !w.cron && !w.every)
    throw new ScheduleOptionError('say when: --calendar <quarterly|JSON>, --cron "<expr>" or --every <duration>');
  if (w.every && msToNumber(parseDuration('--every', w.every)) < 1000)
    throw new ScheduleOptionError(`--every "${w.every}": the interval must be at least 1s (e.g. 90d, 1h)`);
  if (w.timezone) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: w.timezone });
    } catch {
      throw new ScheduleOptionError(
        `--timezone "${w.timezone}" is not an IANA time zone (e.g. UTC, Europe/Berlin, America/New_York)`,
      );
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

/** Options of {@link createSchedule}. */
export interface CreateScheduleOptions {
  /** Schedule id; also the action's workflow id prefix (each run: `<scheduleId>-<time>`). */
  scheduleId: string;
  /** The run spec as read from the file (YAML/JSON decoded), stored as the action's argument. */
  spec: unknown;
  /** The spec check (the CLI's `checkSpec`). */
  check: SpecCheck;
  when: ScheduleWhen;
  /** Task queue of the chbench worker (`CHBENCH_TASK_QUEUE`). */
  taskQueue: string;
  /** @default 'SKIP' */
  overlap?: OverlapPolicy;
  /** Missed actions (server down) younger than this are still taken; `--catchup-window`. @default the server's (1 year) */
  catchupWindow?: string;
  /** Create the schedule paused. @default false */
  paused?: boolean;
  /** The schedule's note (shown by describe and the Web UI). */
  note?: string;
}

/** Check a raw spec with `check`; the parsed spec. @throws ScheduleSpecInvalidError */
function checked(raw: unknown, check: SpecCheck): RunSpec {
  const { spec, problems } = check(raw);
  if (!spec || problems.length) throw new ScheduleSpecInvalidError(problems.length ? problems : ['refused']);
  return spec;
}

/** The action's summary in the Web UI. */
function actionSummary(scheduleId: string, spec: RunSpec): string {
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
export async function createSchedule(client: Client, o: CreateScheduleOptions): Promise<ScheduleHandle> {
  checkScheduleId(o.scheduleId);
  const spec = checked(o.spec, o.check);
  const when = scheduleSpecFrom(o.when);
  const create = client.schedule.create({
    scheduleId: o.scheduleId,
    spec: when,
    action: {
      type: 'startWorkflow',
      workflowType: MATRIX_WORKFLOW_TYPE,
      workflowId: o.scheduleId,
      taskQueue: o.taskQueue,
      args: [o.spec],
      staticSummary: actionSummary(o.scheduleId, spec),
      typedSearchAttributes: [{ key: SCHEDULE, value: o.scheduleId }],
    },
    policies: {
      overlap: o.overlap ?? ScheduleOverlapPolicy.SKIP,
      ...(o.catchupWindow ? { catchupWindow: parseDuration('--catchup-window', o.catchupWindow) } : {}),
    },
    state: { paused: o.paused ?? false, ...(o.note ? { note: o.note } : {}) },
  });
  try {
    return await create;
  } catch (e) {
    // The SDK turns the server's INVALID_ARGUMENT "Invalid schedule spec: …" into a TypeError (bad cron field, interval, time zone).
    if (e instanceof TypeError)
      throw new ScheduleOptionError(`Temporal refused an option: ${e.message.split('\n')[0]}`, { cause: e });
    throw e;
  }
}

/** Run `fn` on the schedule's handle; an unknown id becomes {@link UnknownScheduleError}. */
async function onSchedule<T>(client: Client, id: string, fn: (h: ScheduleHandle) => Promise<T>): Promise<T> {
  try {
    return await fn(client.schedule.getHandle(id));
  } catch (e) {
    if (e instanceof ScheduleNotFoundError) throw new UnknownScheduleError(id, client.options.namespace, { cause: e });
    throw e;
  }
}

/** One action a schedule took, with its workflow's current status. */
export interface ScheduleAction {
  /** When the action was due (with jitter; for a trigger, the trigger time). */
  scheduledAt: Date;
  /** When the schedule actually started it. */
  takenAt: Date;
  /** The run's workflow id (its chbench run id is this id made folder-safe: `runIdOfWorkflowId`). */
  workflowId: string;
  /** Workflow status of the latest execution with that id (`RUNNING`, `COMPLETED`, `FAILED`…), from `describe()`; `UNKNOWN` when it cannot be described. */
  status: string;
}

/** What `chbench schedule describe` shows. Sources: `ScheduleHandle.describe()` and one workflow `describe()` per recent action. */
export interface ScheduleView {
  scheduleId: string;
  /** The stored spec's name, workload, scale, target kind and cell count (`parseRunSpec` of the action's argument); undefined when it does not parse. */
  spec?: { name: string; workload: string; scale: number; target: string; cells: number };
  /** The stored spec as given (the action's argument). */
  rawSpec: unknown;
  /** Why the stored spec does not parse (set by a tool other than chbench). */
  specProblem?: string;
  /** Workflow type, task queue and the action's workflow id prefix. */
  action: { workflowType: string; taskQueue: string; workflowId: string };
  /**
   * When it fires: calendars (their comment, else {@link calendarText}; the server compiles a cron
   * string into a calendar, so `0 3 1 *\/3 *` reads `month 1-12/3; dayOfMonth 1; hour 3; minute 0`),
   * intervals in ms, jitter ms, time zone.
   */
  when: { calendars: string[]; intervals: number[]; jitterMs?: number; timezone?: string };
  policies: { overlap: OverlapName | undefined; catchupWindowMs: number; pauseOnFailure: boolean };
  paused: boolean;
  note?: string;
  /** Counters from the schedule's info. */
  actionsTaken: number;
  skippedOverlap: number;
  missedCatchupWindow: number;
  /** Recent actions, oldest first (Temporal keeps the last 10). */
  recent: ScheduleAction[];
  /** Workflow ids of the runs still running. */
  running: string[];
  /** The next times the schedule fires (Temporal computes up to 10). */
  next: Date[];
  createdAt: Date;
}

/** Ranges that mean "every value" (omitted from {@link calendarText}). */
const EVERY: Record<string, string> = {
  month: 'JANUARY-DECEMBER',
  dayOfMonth: '1-31',
  dayOfWeek: 'SUNDAY-SATURDAY',
  second: '0',
};

/**
 * A calendar as Temporal describes it, compactly: `month JANUARY,APRIL; dayOfMonth 1; hour 3;
 * minute 0` (fields meaning "every value", and second 0, omitted; ranges `start-end/step`).
 */
export function calendarText(c: CalendarSpecDescription): string {
  const fields = ['month', 'dayOfMonth', 'dayOfWeek', 'year', 'hour', 'minute', 'second'] as const;
  const parts: string[] = [];
  for (const f of fields) {
    const ranges = (c[f] as Range<string | number>[] | undefined) ?? [];
    const text = ranges
      .map((r) =>
        r.end === undefined || r.start === r.end
          ? `${r.start}`
          : `${r.start}-${r.end}${r.step > 1 ? `/${r.step}` : ''}`,
      )
      .join(',');
    if (text && text !== EVERY[f]) parts.push(`${f} ${text}`);
  }
  return parts.join('; ') || 'every second';
}

function specSummary(raw: unknown): Pick<ScheduleView, 'spec' | 'specProblem'> {
  try {
    const s = parseRunSpec(raw);
    return {
      spec: {
        name: s.name,
        workload: s.workload,
        scale: s.scale,
        target: s.target.kind,
        cells: expandMatrix(s).length,
      },
    };
  } catch (e) {
    return { specProblem: (e as Error).message.split('\n')[0] };
  }
}

async function workflowStatus(client: Client, workflowId: string): Promise<string> {
  try {
    return (await client.workflow.getHandle(workflowId).describe()).status.name;
  } catch {
    return 'UNKNOWN';
  }
}

function viewOf(d: ScheduleDescription): Omit<ScheduleView, 'recent'> {
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
export async function describeSchedule(client: Client, scheduleId: string): Promise<ScheduleView> {
  const d = await onSchedule(client, scheduleId, (h) => h.describe());
  const recent = await Promise.all(
    d.info.recentActions.map(async (r) => ({
      scheduledAt: r.scheduledAt,
      takenAt: r.takenAt,
      workflowId: r.action.workflow.workflowId,
      status: await workflowStatus(client, r.action.workflow.workflowId),
    })),
  );
  return { ...viewOf(d), recent };
}

/** One row of `chbench schedule list`. */
export interface ScheduleRow {
  scheduleId: string;
  /** The stored spec's `name` (undefined when it does not parse, or the schedule is not a chbench one). */
  specName?: string;
  /** Workflow type the schedule starts (a non-chbench schedule shows its own). */
  workflowType?: string;
  /** Next fire time, if any. */
  next?: Date;
  paused: boolean;
  /** Workflow ids of its running actions. */
  running: string[];
}

/**
 * Every schedule of the namespace (`client.schedule.list()`), each described once for its spec
 * name and running actions (the list's summaries carry neither), sorted by id.
 */
export async function listSchedules(client: Client): Promise<ScheduleRow[]> {
  const rows: ScheduleRow[] = [];
  for await (const s of client.schedule.list()) {
    const row: ScheduleRow = {
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
    } catch {
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
export async function triggerSchedule(
  client: Client,
  scheduleId: string,
  overlap?: OverlapPolicy,
): Promise<OverlapPolicy> {
  return onSchedule(client, scheduleId, async (h) => {
    const policy = overlap ?? ((await h.describe()).policies.overlap as OverlapPolicy) ?? ScheduleOverlapPolicy.SKIP;
    await h.trigger(policy);
    return policy;
  });
}

/** What a trigger did, as the schedule's counters show it. */
export interface TriggerOutcome {
  /** The overlap policy the trigger was sent with. */
  policy: OverlapPolicy;
  /**
   * `started`: `info.numActionsTaken` went up; `skipped`: `info.numActionsSkippedOverlap` went up (a run
   * of the schedule was still running under SKIP); `unknown`: neither within the wait.
   */
  outcome: 'started' | 'skipped' | 'unknown';
  /** The workflow id the trigger started (the newest of `info.recentActions`), when `started`. */
  workflowId?: string;
  /** The schedule is paused (a trigger still starts a run). */
  paused: boolean;
}

/**
 * {@link triggerSchedule}, then watch the schedule's `describe()` counters (`info.numActionsTaken`,
 * `info.numActionsSkippedOverlap`) against their values before the trigger, every 100 ms up to
 * `waitMs`, to tell a started run from a skipped one.
 * @param waitMs how long to watch, ms @default 2000
 * @throws UnknownScheduleError
 */
export async function triggerScheduleObserved(
  client: Client,
  scheduleId: string,
  overlap?: OverlapPolicy,
  waitMs = 2000,
): Promise<TriggerOutcome> {
  return onSchedule(client, scheduleId, async (h) => {
    const before = await h.describe();
    const policy = overlap ?? (before.policies.overlap as OverlapPolicy) ?? ScheduleOverlapPolicy.SKIP;
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
      if (Date.now() >= deadline) return { policy, outcome: 'unknown', paused: d.state.paused };
      await new Promise((r) => setTimeout(r, 100));
    }
  });
}

/**
 * Replace the run spec stored in the schedule (everything else is kept). The new spec is checked
 * first; the schedule is not touched when it is refused.
 * @throws ScheduleSpecInvalidError, UnknownScheduleError
 */
export async function updateScheduleSpec(
  client: Client,
  scheduleId: string,
  raw: unknown,
  check: SpecCheck,
): Promise<void> {
  const spec = checked(raw, check);
  await onSchedule(client, scheduleId, (h) =>
    h.update((prev) => ({
      ...prev,
      action: {
        ...prev.action,
        args: [raw],
        staticSummary: actionSummary(scheduleId, spec),
        typedSearchAttributes: [{ key: SCHEDULE, value: scheduleId }],
      },
      state: { paused: prev.state.paused, note: prev.state.note, remainingActions: prev.state.remainingActions },
    })),
  );
}

/** Pause a schedule with a note (default "paused with chbench"). @throws UnknownScheduleError */
export async function pauseSchedule(client: Client, scheduleId: string, note?: string): Promise<void> {
  await onSchedule(client, scheduleId, (h) => h.pause(note ?? 'paused with chbench'));
}

/** Unpause a schedule with a note (default "unpaused with chbench"). @throws UnknownScheduleError */
export async function unpauseSchedule(client: Client, scheduleId: string, note?: string): Promise<void> {
  await onSchedule(client, scheduleId, (h) => h.unpause(note ?? 'unpaused with chbench'));
}

/** Delete a schedule; its runs (running or closed) are left alone. @throws UnknownScheduleError */
export async function deleteSchedule(client: Client, scheduleId: string): Promise<void> {
  await onSchedule(client, scheduleId, (h) => h.delete());
}

/** A run a schedule started, from the visibility store. */
export interface ScheduledRun {
  /** Workflow id (its chbench run id is this id made folder-safe: `runIdOfWorkflowId`). */
  workflowId: string;
  /** `RUNNING`, `COMPLETED`, `FAILED`, … */
  status: string;
  startTime: Date;
  closeTime?: Date;
}

/**
 * The runs a schedule started, newest first: the visibility query
 * `ChbenchSchedule="<id>" AND WorkflowType="benchmarkMatrix"` (plus `ExecutionStatus="<status>"`
 * when given). Visibility is eventually consistent: a run started a moment ago may be missing.
 * @param o.status e.g. `Completed` (one of {@link EXECUTION_STATUSES}, any case)
 * @throws ScheduleOptionError on an unknown status
 * @param o.limit at most this many rows @default 100
 */
export async function listScheduledRuns(
  client: Client,
  scheduleId: string,
  o: { status?: string; limit?: number } = {},
): Promise<ScheduledRun[]> {
  const q = [
    `${SCHEDULE.name} = ${JSON.stringify(scheduleId)}`,
    `WorkflowType = "${MATRIX_WORKFLOW_TYPE}"`,
    ...(o.status ? [`ExecutionStatus = ${JSON.stringify(parseExecutionStatus(o.status))}`] : []),
  ].join(' AND ');
  const out: ScheduledRun[] = [];
  for await (const w of client.workflow.list({ query: q })) {
    out.push({
      workflowId: w.workflowId,
      status: w.status.name,
      startTime: w.startTime,
      ...(w.closeTime ? { closeTime: w.closeTime } : {}),
    });
    if (out.length >= (o.limit ?? 100)) break;
  }
  return out.sort((a, b) => b.startTime.getTime() - a.startTime.getTime());
}
