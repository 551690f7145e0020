/** `chbench watch <runId>`: attach to a run, with the same progress as `run`, until it closes. */
import type { Command } from 'commander';
import { say } from '../follow';
import { EXIT, fail } from '../exit-codes';
import { workflowIdOf } from '../run-folder';
import { follow, temporalClient } from '../temporal-run';

/** Add `watch` to the chbench program. */
export function registerWatchCommand(program: Command): void {
  program
    .command('watch <runId>')
    .description(
      'attach to a run and show its progress as `chbench run` does, until it closes; Ctrl-C detaches (exit 130), the run goes on',
    )
    .option('--results-dir <dir>', 'results directory (to find a run by its folder name)', 'results')
    .action(async (given: string, o: { resultsDir: string }) => {
      const runId = workflowIdOf(o.resultsDir, given);
      const { client, connection, cfg } = await temporalClient();
      try {
        const d = await client.workflow
          .getHandle(runId)
          .describe()
          .catch(() => undefined);
        if (!d)
          fail(
            EXIT.invalid,
            `no run ${runId} in namespace ${cfg.namespace} on ${cfg.temporalAddress} (TEMPORAL_ADDRESS)`,
          );
        if (d.status.name === 'RUNNING') say(`following run ${runId} (Ctrl-C detaches; the run goes on)`);
        await follow(client, runId, { ...cfg, taskQueue: d.taskQueue });
      } finally {
        await connection.close();
      }
    });
}
