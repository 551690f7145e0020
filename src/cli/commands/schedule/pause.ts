/** `chbench schedule pause <scheduleId> [--note …]`. */
import type { Command } from 'commander';
import { pauseSchedule } from '../../../temporal/schedules';
import { withClient } from './shared';

/** Add `pause` to the `schedule` group. */
export function registerSchedulePauseCommand(sched: Command): void {
  sched
    .command('pause <scheduleId>')
    .description('pause the schedule (a manual trigger still starts a run)')
    .option('--note <text>', 'why (shown by describe and the Web UI)')
    .action(async function (this: Command, id: string) {
      const o = this.opts<{ note?: string }>();
      await withClient(this, async ({ client }) => {
        await pauseSchedule(client, id, o.note);
        console.error(`chbench: schedule ${id} paused`);
      });
    });
}
