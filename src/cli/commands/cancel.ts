/** `chbench cancel <runId>`: cancel a run, wait until it closed, print its report and how to resume. */
import type { Command } from 'commander';
import { liveWorkflowPollers } from '../../temporal/run-client';
import { say } from '../follow';
import { EXIT, fail } from '../exit-codes';
import { workflowIdOf } from '../run-folder';
import { follow, temporalClient } from '../temporal-run';

/** Add `cancel` to the chbench program. */
export function registerCancelCommand(program: Command): void {
  program
    .command('cancel <runId>')
    .description(
      'cancel a run (its matrix workflow): running cells stop, results so far and the report are written; waits until it closed, then prints the report path and how to resume (exit 0). Ctrl-C stops waiting (exit 130), the cancellation goes on',
    )
    .option('--results-dir <dir>', 'results directory (to find a run by its folder name)', 'results')
    .action(async (given: string, o: { resultsDir: string }) => {
      const runId = workflowIdOf(o.resultsDir, given);
      const { client, connection, cfg } = await temporalClient();
      try {
        const handle = client.workflow.getHandle(runId);
        const d = await handle.describe().catch(() => undefined);
        if (!d)
          fail(
            EXIT.invalid,
            `no run ${runId} in namespace ${cfg.namespace} on ${cfg.temporalAddress} (TEMPORAL_ADDRESS)`,
          );
        if (d.status.name !== 'RUNNING')
          fail(
            EXIT.invalid,
            `run ${runId} is not running (${d.status.name.toLowerCase()}); nothing to cancel (its report: \`chbench report ${runId}\`; run what did not finish: \`chbench resume ${runId}\`)`,
          );
        await handle.cancel();
        say(
          `cancellation of run ${runId} requested; waiting for it to close (running steps stop, the results so far and the report are written)`,
        );
        // With no worker the cancellation is never processed: after a bound, say so and how to terminate.
        const boundS = Number(process.env.CHBENCH_CANCEL_WAIT_S ?? 60);
        const bound = setTimeout(() => {
          void liveWorkflowPollers(client, cfg.namespace, d.taskQueue)
            .catch(() => 0)
            .then((n) => {
              if (n > 0) return;
              fail(
                EXIT.workflowFailed,
                `run ${runId} has not closed ${boundS} s after the cancellation was requested, and no worker polls task queue ${d.taskQueue} on ${cfg.temporalAddress}: the cancellation waits for a worker (start one with \`chbench worker\`). To end it without one: \`temporal workflow terminate --workflow-id ${runId} --address ${cfg.temporalAddress} --namespace ${cfg.namespace}\` (no report is written), then \`chbench gc\` removes the servers it left`,
              );
            });
        }, boundS * 1000);
        try {
          await follow(client, runId, { ...cfg, taskQueue: d.taskQueue }, 'cancel');
        } finally {
          clearTimeout(bound);
        }
      } finally {
        await connection.close();
      }
    });
}
