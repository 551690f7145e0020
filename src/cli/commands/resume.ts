/** `chbench resume <runId>`: run the failed or missing cells of a run again (finished ones are reused). */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { readSpecFile } from '../../lib/spec-file';
import { nothingToResume, say } from '../follow';
import { EXIT, fail } from '../exit-codes';
import { storedRunOrFail } from '../run-folder';
import { follow, startOrExplain, temporalClient } from '../temporal-run';

/** Add `resume` to the chbench program. */
export function registerResumeCommand(program: Command): void {
  program
    .command('resume <runId>')
    .description(
      "run again the failed or missing cells of a run (its run id, folder name, or a scheduled run's workflow id); finished cells are reused from the results store",
    )
    .option('--results-dir <dir>', 'results directory', 'results')
    .action(async (given: string, o: { resultsDir: string }) => {
      const run = storedRunOrFail(o.resultsDir, given);
      // The run's own workflow id (a scheduled run's has ':' where its folder has '_'), never what was typed.
      const { runId, workflowId } = run;
      const specFile = path.join(run.dir, 'run-spec.json');
      if (!existsSync(specFile)) fail(EXIT.invalid, `run ${runId} cannot be resumed: ${specFile} is missing`);
      const done = nothingToResume(run.dir);
      if (done) return say(done);
      const raw = readSpecFile(specFile);
      const { client, connection, cfg } = await temporalClient();
      try {
        const st = await client.workflow
          .getHandle(workflowId)
          .describe()
          .then((d) => d.status.name)
          .catch(() => 'NOT_FOUND');
        if (st === 'RUNNING')
          fail(
            EXIT.invalid,
            `run ${runId} is still running; nothing to resume (follow it with \`chbench watch ${workflowId}\`, or cancel it first with \`chbench cancel ${workflowId}\`)`,
          );
        console.error(
          `chbench: resuming ${runId}${workflowId !== runId ? ` (workflow ${workflowId})` : ''} (spec ${specFile}); cells already measured are reused`,
        );
        await startOrExplain(client, raw, workflowId, cfg.taskQueue);
        await follow(client, workflowId, cfg);
      } finally {
        await connection.close();
      }
    });
}
