/** `chbench schedule update <scheduleId> --spec <file>`: replace the stored run spec, checked first. */
import type { Command } from 'commander';
import { checkSpec } from '../../../targets/check-spec';
import { updateScheduleSpec } from '../../../temporal/schedules';
import { readCheckedSpec, withClient } from './shared';

/** Add `update` to the `schedule` group. */
export function registerScheduleUpdateCommand(sched: Command): void {
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
}
