/** `chbench schedule delete <scheduleId>`: the runs it started are kept. */
import type { Command } from 'commander';
import { deleteSchedule } from '../../../temporal/schedules';
import { withClient } from './shared';

/** Add `delete` to the `schedule` group. */
export function registerScheduleDeleteCommand(sched: Command): void {
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
