/**
 * `chbench schedule …`: chbench runs on Temporal Schedules (see `src/temporal/schedules.ts`).
 *
 *   chbench schedule create <id> --spec <file> (--calendar quarterly | --cron "0 3 1 *\/3 *" | --every 90d)
 *                                [--overlap skip] [--catchup-window 1d] [--jitter 30m] [--timezone UTC] [--paused] [--note …]
 *   chbench schedule list | describe <id> | runs <id>     (--json for machine-readable output)
 *   chbench schedule pause|unpause <id> [--note …]
 *   chbench schedule trigger <id> [--overlap …]           (the schedule's own overlap policy unless --overlap;
 *                                                          exit 5 when the overlap policy skipped it)
 *   chbench schedule update <id> --spec <file>            (replace the stored run spec, checked first)
 *   chbench schedule delete <id>
 *
 * Connection: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE and CHBENCH_TASK_QUEUE as every other command
 * (`src/config.ts`), or `--address` / `--namespace` on `schedule`. Exit codes as `EXIT` (`src/cli/exit-codes.ts`):
 * 2 invalid spec, option (also one Temporal refuses: INVALID_ARGUMENT), schedule id or unknown
 * schedule id; 3 Temporal unreachable; 4 any other failure; 5 `trigger` skipped by the overlap policy.
 */
import { runIdOfWorkflowId } from '../../schema/run-id';
import type { Command } from 'commander';
import { Client, Connection, ScheduleAlreadyRunning } from '@temporalio/client';
import { checkSpec } from '../../activities/matrix/validate-spec';
import { readSpecFile } from '../../lib/spec-file';
import { loadConfig, type Config } from '../../config';
import {
  createSchedule,
  deleteSchedule,
  describeSchedule,
  listScheduledRuns,
  listSchedules,
  overlapName,
  parseDuration,
  parseOverlap,
  scheduleSpecFrom,
  pauseSchedule,
  ScheduleOptionError,
  ScheduleSpecInvalidError,
  checkScheduleId,
  EXECUTION_STATUSES,
  grpcErrorOf,
  parseExecutionStatus,
  triggerScheduleObserved,
  unpauseSchedule,
  UnknownScheduleError,
  updateScheduleSpec,
  type ScheduleView,
} from '../../temporal/schedules';
import { EXIT } from '../exit-codes';

/** An error that ends the command with `code` and prints `message`. */
class CliExit extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** gRPC status UNAVAILABLE / DEADLINE_EXCEEDED, or a connect failure. */
function isUnreachable(e: unknown): boolean {
  const code = (e as { code?: unknown }).code;
  if (code === 14 || code === 4) return true;
  return /UNAVAILABLE|ECONNREFUSED|failed to connect|transport|Failed to connect/i.test((e as Error)?.message ?? '');
}

interface Conn {
  client: Client;
  cfg: Config;
}

/** The connection flags of the `schedule` group, over config.ts's environment. */
function configOf(cmd: Command): Config {
  const o = cmd.optsWithGlobals<{ address?: string; namespace?: string }>();
  const cfg = loadConfig();
  return {
    ...cfg,
    ...(o.address ? { temporalAddress: o.address } : {}),
    ...(o.namespace ? { namespace: o.namespace } : {}),
  };
}

/**
 * Run `prepare` (reading and checking a spec: refused before any connection), then `fn` with a
 * connected client; turn chbench's and Temporal's errors into exit codes and one clear line on stderr.
 */
async function withClient<T = undefined>(
  cmd: Command,
  fn: (c: Conn, prepared: T) => Promise<void>,
  prepare?: () => T,
): Promise<void> {
  const cfg = configOf(cmd);
  let connection: Connection | undefined;
  try {
    const prepared = prepare ? prepare() : (undefined as T);
    try {
      connection = await Connection.connect({ address: cfg.temporalAddress, connectTimeout: 5000 });
    } catch (e) {
      throw new CliExit(
        EXIT.unreachable,
        `cannot reach Temporal at ${cfg.temporalAddress} (set TEMPORAL_ADDRESS or --address): ${(e as Error).message.split('\n')[0]}`,
      );
    }
    await fn({ client: new Client({ connection, namespace: cfg.namespace }), cfg }, prepared);
  } catch (e) {
    let code: number = EXIT.workflowFailed;
    let msg = (e as Error).message ?? String(e);
    if (e instanceof CliExit) code = e.code;
    else if (e instanceof UnknownScheduleError || e instanceof ScheduleOptionError) code = EXIT.invalid;
    else if (e instanceof ScheduleSpecInvalidError) {
      code = EXIT.invalid;
      msg = `${(cmd.opts() as { spec?: string }).spec ?? 'spec'}: ${msg}; nothing was changed on Temporal`;
    } else if (e instanceof ScheduleAlreadyRunning) {
      code = EXIT.invalid;
      msg = `a schedule "${cmd.args[0]}" already exists in namespace ${cfg.namespace}; delete it first or choose another id`;
    } else if (isUnreachable(e)) {
      code = EXIT.unreachable;
      msg = `cannot reach Temporal at ${cfg.temporalAddress}: ${msg.split('\n')[0]}`;
    } else if (grpcErrorOf(e).code === 3 /* INVALID_ARGUMENT (the SDK's ServiceError keeps it as its cause) */) {
      code = EXIT.invalid;
      msg = `Temporal refused an option: ${grpcErrorOf(e).details} (check --cron, --calendar, --every, --timezone, --jitter, --catchup-window)`;
    }
    console.error(`chbench: ${msg}`);
    process.exitCode = code;
  } finally {
    await connection?.close();
  }
}

/**
 * Read a spec file and check it as `chbench validate` does.
 * @throws CliExit(2) when it cannot be read, ScheduleSpecInvalidError when it is refused
 */
function readCheckedSpec(file: string): unknown {
  let raw: unknown;
  try {
    raw = readSpecFile(file);
  } catch (e) {
    throw new CliExit(EXIT.invalid, (e as Error).message);
  }
  const { spec, problems } = checkSpec(raw);
  if (!spec || problems.length) throw new ScheduleSpecInvalidError(problems);
  return raw;
}

const iso = (d?: Date) => (d ? d.toISOString().replace('.000Z', 'Z') : '-');
/** A duration in the largest whole unit: `90d`, `12h`, `30m`, `45s`, `1500ms`. */
const dur = (ms: number) => {
  for (const [unit, n] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ] as const)
    if (ms >= n && ms % n === 0) return `${ms / n}${unit}`;
  return `${ms}ms`;
};

/** Plain columns, left-aligned, two spaces apart. */
function columns(rows: string[][]): string {
  const w = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(w[i]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** The text of `chbench schedule describe`. */
export function describeText(v: ScheduleView): string {
  const s = v.spec;
  const lines = [
    `schedule ${v.scheduleId}${v.paused ? ' (paused)' : ''}${v.note ? `: ${v.note}` : ''}`,
    s
      ? `  spec: ${s.name}, workload ${s.workload}, ${s.scale.toLocaleString('en-US')} rows, target ${s.target}, ${s.cells} cell(s)`
      : `  spec: does not parse (${v.specProblem})`,
    `  action: start ${v.action.workflowType} on task queue ${v.action.taskQueue}, workflow id ${v.action.workflowId}-<time> (run id and folder: the same with ':' as '_')`,
    `  when: ${[...v.when.calendars, ...v.when.intervals.map((i) => `every ${dur(i)}`)].join('; ') || '-'}${v.when.timezone ? ` (${v.when.timezone})` : ''}${v.when.jitterMs ? `, jitter ${dur(v.when.jitterMs)}` : ''}`,
    `  policies: overlap ${v.policies.overlap ?? '?'}, catch-up window ${dur(v.policies.catchupWindowMs)}, pause on failure ${v.policies.pauseOnFailure}`,
    `  actions: ${v.actionsTaken} taken, ${v.skippedOverlap} skipped (overlap), ${v.missedCatchupWindow} missed (catch-up window); running: ${v.running.join(', ') || 'none'}`,
    `  recent runs:${v.recent.length ? '' : ' none'}`,
    ...v.recent.map(
      (r) =>
        `    ${r.workflowId}  ${r.status}  (due ${iso(r.scheduledAt)}, workflow created ${iso(r.takenAt)}; a worker's start is run.json startedAt)`,
    ),
    `  next: ${v.next.slice(0, 3).map(iso).join(', ') || 'none'}`,
  ];
  return lines.join('\n');
}

/** Register `chbench schedule …` on the program. */
export function registerScheduleCommand(program: Command): void {
  const sched = program
    .command('schedule')
    .description('run specs on Temporal Schedules (create|list|describe|runs|pause|unpause|trigger|update|delete)')
    .option('--address <host:port>', 'Temporal frontend (default TEMPORAL_ADDRESS or 127.0.0.1:7233)')
    .option('--namespace <ns>', 'Temporal namespace (default TEMPORAL_NAMESPACE or default)');

  sched
    .command('create <scheduleId>')
    .description(
      'create a schedule that starts benchmarkMatrix with the spec; every run it starts has workflow id <scheduleId>-<time> and ChbenchSchedule=<scheduleId>',
    )
    .requiredOption(
      '--spec <file>',
      'run spec (YAML or JSON), checked as `chbench validate` does and stored in the schedule',
    )
    .option('--calendar <cal>', 'hourly|daily|weekly|monthly|quarterly|yearly (03:00) or SDK CalendarSpec JSON')
    .option('--cron <expr>', 'cron string, e.g. "0 3 1 */3 *"')
    .option('--every <duration>', 'interval, e.g. 90d')
    .option('--timezone <tz>', 'IANA time zone of --calendar/--cron (default UTC)')
    .option('--jitter <duration>', 'delay each run by a random amount up to this, e.g. 30m')
    .option('--overlap <policy>', 'skip|buffer-one|buffer-all|cancel-other|terminate-other|allow-all', 'skip')
    .option('--catchup-window <duration>', 'take actions missed while Temporal was down if younger than this, e.g. 1d')
    .option('--paused', 'create it paused')
    .option('--note <text>', 'the schedule note')
    .action(async function (this: Command, id: string) {
      const o = this.opts<{
        spec: string;
        calendar?: string;
        cron?: string;
        every?: string;
        timezone?: string;
        jitter?: string;
        overlap: string;
        catchupWindow?: string;
        paused?: boolean;
        note?: string;
      }>();
      const when = { calendar: o.calendar, cron: o.cron, every: o.every, jitter: o.jitter, timezone: o.timezone };
      await withClient(
        this,
        async ({ client, cfg }, spec) => {
          const handle = await createSchedule(client, {
            scheduleId: id,
            spec,
            check: checkSpec,
            when,
            taskQueue: cfg.taskQueue,
            overlap: parseOverlap(o.overlap),
            catchupWindow: o.catchupWindow,
            paused: o.paused,
            note: o.note,
          });
          const d = await handle.describe();
          console.log(id);
          console.error(
            `chbench: schedule ${id} created${o.paused ? ' (paused)' : ''}; next run ${iso(d.info.nextActionTimes[0])}; overlap ${overlapName(d.policies.overlap)}; runs on task queue ${cfg.taskQueue} (needs a worker: chbench worker)`,
          );
        },
        () => {
          // Every option is checked before connecting: a bad one never reaches Temporal.
          checkScheduleId(id);
          scheduleSpecFrom(when);
          parseOverlap(o.overlap);
          if (o.catchupWindow) parseDuration('--catchup-window', o.catchupWindow);
          return readCheckedSpec(o.spec);
        },
      );
    });

  sched
    .command('list')
    .description('every schedule: id, spec name, next run, paused, running runs')
    .option('--json', 'print JSON')
    .action(async function (this: Command) {
      const o = this.opts<{ json?: boolean }>();
      await withClient(this, async ({ client, cfg }) => {
        const rows = await listSchedules(client);
        if (o.json) return void console.log(JSON.stringify(rows, null, 2));
        if (!rows.length) return void console.log(`no schedules in namespace ${cfg.namespace}`);
        console.log(
          columns([
            ['ID', 'SPEC', 'NEXT RUN', 'PAUSED', 'RUNNING'],
            ...rows.map((r) => [
              r.scheduleId,
              r.specName ?? `(${r.workflowType ?? '?'})`,
              iso(r.next),
              r.paused ? 'yes' : 'no',
              r.running.join(',') || '-',
            ]),
          ]),
        );
      });
    });

  sched
    .command('describe <scheduleId>')
    .description('spec summary, when, policies, recent runs with their status, next runs')
    .option('--json', 'print JSON (includes the stored spec)')
    .action(async function (this: Command, id: string) {
      const o = this.opts<{ json?: boolean }>();
      await withClient(this, async ({ client }) => {
        const v = await describeSchedule(client, id);
        console.log(o.json ? JSON.stringify(v, null, 2) : describeText(v));
      });
    });

  sched
    .command('runs <scheduleId>')
    .description('the runs the schedule started (visibility query ChbenchSchedule="<id>"), newest first')
    .option('--status <s>', `only runs with this ExecutionStatus: ${EXECUTION_STATUSES.join(', ')}`)
    .action(async function (this: Command, id: string) {
      const o = this.opts<{ status?: string }>();
      await withClient(
        this,
        async ({ client }, status) => {
          const runs = await listScheduledRuns(client, id, { status });
          // A scheduled run's id (its folder, `chbench report`/`resume`) is its workflow id made folder-safe.
          for (const r of runs)
            console.log(
              `${r.workflowId}  ${r.status}  started ${iso(r.startTime)}${runIdOfWorkflowId(r.workflowId) !== r.workflowId ? `  run ${runIdOfWorkflowId(r.workflowId)}` : ''}`,
            );
          if (!runs.length) console.error(`chbench: no runs with ChbenchSchedule="${id}"`);
        },
        () => (o.status === undefined ? undefined : parseExecutionStatus(o.status)),
      );
    });

  for (const [verb, fn] of [
    ['pause', pauseSchedule],
    ['unpause', unpauseSchedule],
  ] as const)
    sched
      .command(`${verb} <scheduleId>`)
      .description(
        verb === 'pause' ? 'pause the schedule (a manual trigger still starts a run)' : 'unpause the schedule',
      )
      .option('--note <text>', 'why (shown by describe and the Web UI)')
      .action(async function (this: Command, id: string) {
        const o = this.opts<{ note?: string }>();
        await withClient(this, async ({ client }) => {
          await fn(client, id, o.note);
          console.error(`chbench: schedule ${id} ${verb}d`);
        });
      });

  sched
    .command('trigger <scheduleId>')
    .description(
      "start a run now, under the schedule's overlap policy (a SKIP schedule skips it while a run is running)",
    )
    .option('--overlap <policy>', 'override the policy for this trigger')
    .addHelpText(
      'after',
      `
After the trigger, the schedule's counters (describe: actions taken, skipped by overlap) are watched
for up to 2 s and the outcome printed: "started <workflow id>", or "skipped: a run of this schedule
is still running (overlap skip)". A paused schedule is said to be paused (the trigger still starts a run).

Exit codes:
  0  a run started (or the server had not applied the trigger within 2 s: see describe)
  2  bad option or unknown schedule id
  3  Temporal unreachable
  ${EXIT.triggerSkipped}  skipped by the overlap policy: a run of this schedule is still running
`,
    )
    .action(async function (this: Command, id: string) {
      const o = this.opts<{ overlap?: string }>();
      await withClient(
        this,
        async ({ client }, overlap) => {
          const t = await triggerScheduleObserved(client, id, overlap);
          const paused = t.paused ? '; paused; the trigger still starts a run' : '';
          if (t.outcome === 'skipped') {
            // Skipped by the overlap policy, not by the pause: say so without claiming a run started.
            const pausedSkip = t.paused
              ? '; the schedule is also paused (a pause does not hold back a trigger: the overlap policy skipped it)'
              : '';
            console.error(
              `chbench: schedule ${id}: skipped: a run of this schedule is still running (overlap ${overlapName(t.policy)})${pausedSkip}`,
            );
            process.exitCode = EXIT.triggerSkipped;
          } else if (t.outcome === 'started') {
            console.log(t.workflowId ?? '');
            console.error(
              `chbench: schedule ${id}: started ${t.workflowId ?? '(a run)'}${t.workflowId && runIdOfWorkflowId(t.workflowId) !== t.workflowId ? ` (run ${runIdOfWorkflowId(t.workflowId)})` : ''} (overlap ${overlapName(t.policy)})${paused}`,
            );
          } else
            console.error(
              `chbench: schedule ${id} triggered (overlap ${overlapName(t.policy)}), not yet applied after 2 s${paused}; see: chbench schedule describe ${id}`,
            );
        },
        () => (o.overlap ? parseOverlap(o.overlap) : undefined),
      );
    });

  sched
    .command('update <scheduleId>')
    .description('replace the run spec stored in the schedule (checked first); times, policies and state are kept')
    .requiredOption('--spec <file>', 'the new run spec (YAML or JSON)')
    .action(async function (this: Command, id: string) {
      const o = this.opts<{ spec: string }>();
      await withClient(
        this,
        async ({ client }, raw) => {
          await updateScheduleSpec(client, id, raw, checkSpec);
          console.error(`chbench: schedule ${id} now runs ${o.spec}`);
        },
        () => readCheckedSpec(o.spec),
      );
    });

  sched
    .command('delete <scheduleId>')
    .description('delete the schedule (the runs it started are kept)')
    .action(async function (this: Command, id: string) {
      await withClient(this, async ({ client }) => {
        await deleteSchedule(client, id);
        console.error(`chbench: schedule ${id} deleted`);
      });
    });
}
