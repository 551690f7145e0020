/** `chbench schedule create <scheduleId> --spec <file> (--calendar … | --cron … | --every …)`. */
import type { Command } from 'commander';
import { checkSpec } from '../../../targets/check-spec';
import {
  checkScheduleId,
  createSchedule,
  overlapName,
  parseDuration,
  parseOverlap,
  scheduleSpecFrom,
} from '../../../temporal/schedules';
import { iso, readCheckedSpec, withClient } from './shared';

/** Add `create` to the `schedule` group. */
export function registerScheduleCreateCommand(sched: Command): void {
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
}
