/** `chbench schedule runs <scheduleId> [--status <s>]`: the runs a schedule started, newest first. */
import type { Command } from 'commander';
import { runIdOfWorkflowId } from '../../../schema/run-id';
import { EXECUTION_STATUSES, listScheduledRuns, parseExecutionStatus } from '../../../temporal/schedules';
import { iso, withClient } from './shared';

/** Add `runs` to the `schedule` group. */
export function registerScheduleRunsCommand(sched: Command): void {
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
}
