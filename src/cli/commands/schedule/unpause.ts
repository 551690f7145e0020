/** `chbench schedule unpause <scheduleId> [--note …]`. */
import type { Command } from 'commander';
import { unpauseSchedule } from '../../../temporal/schedules';
import { withClient } from './shared';

/** Add `unpause` to the `schedule` group. */
export function registerScheduleUnpauseCommand(sched: Command): void {
  sched
    .command('unpause <scheduleId>')
    .description('unpause the schedule')
    .option('--note <text>', 'why (shown by describe and the Web UI)')
    .action(async function (this: Command, id: string) {
      const o = this.opts<{ note?: string }>();
      await withClient(this, async ({ client }) => {
        await unpauseSchedule(client, id, o.note);
        console.error(`chbench: schedule ${id} unpaused`);
      });
    });
}
