/**
 * `chbench schedule trigger <scheduleId> [--overlap …]`: start a run now under the schedule's overlap
 * policy (or `--overlap`), watch the schedule's counters for up to 2 s and say what happened; exit
 * {@link EXIT.triggerSkipped} when the overlap policy skipped it.
 */
import type { Command } from 'commander';
import { runIdOfWorkflowId } from '../../../schema/run-id';
import { overlapName, parseOverlap, triggerScheduleObserved } from '../../../temporal/schedules';
import { EXIT } from '../../exit-codes';
import { withClient } from './shared';

/** Add `trigger` to the `schedule` group. */
export function registerScheduleTriggerCommand(sched: Command): void {
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
}
