/** `chbench run <spec>`: start the benchmarkMatrix workflow, show progress, print the report path. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { newRunId, liveWorkflowPollers } from '../../temporal/run-client';
import { runDir } from '../../results/store';
import { runIdProblem } from '../../schema/run-id';
import { noWorkerLine, say } from '../follow';
import { EXIT, fail } from '../exit-codes';
import { validateFile } from '../spec';
import { follow, startOrExplain, temporalClient } from '../temporal-run';

/** Add `run` to the chbench program. */
export function registerRunCommand(program: Command): void {
  program
    .command('run <spec>')
    .description(
      'start a run (benchmarkMatrix workflow) and follow it; needs a running worker (`chbench worker`). Ctrl-C detaches (exit 130): the run goes on',
    )
    .option('--run-id <id>', 'workflow id / run id (default <name>-<UTC timestamp>)')
    .option('--no-wait', 'print the run id and return once started')
    .action(async (file: string, o: { runId?: string; wait: boolean }) => {
      const { raw, spec } = validateFile(file);
      if (spec.baseline?.from === 'previous-scheduled')
        console.error(
          'chbench: baseline.from is previous-scheduled, but `chbench run` does not start a schedule: this run will have no baseline (verdict no-baseline). Start it from a schedule (`chbench schedule create … && chbench schedule trigger …`) or name a run (`baseline: { from: run, run: <runId> }`).',
        );
      const runId = o.runId ?? newRunId(spec.name);
      // The run id names the run's folder and its cells' workflows: one id everywhere, refused here if it cannot.
      const bad = runIdProblem(runId);
      if (bad) fail(EXIT.invalid, `--run-id ${JSON.stringify(runId)}: ${bad}`);
      if (existsSync(path.join(runDir(spec.resultsDir, runId), 'run.json')))
        fail(
          EXIT.invalid,
          `run ${runId} already exists in ${runDir(spec.resultsDir, runId)}; resume it with: chbench resume ${runId}`,
        );
      const { client, connection, cfg } = await temporalClient();
      try {
        await startOrExplain(client, raw, runId, cfg.taskQueue);
        if (!o.wait) {
          console.log(runId);
          const pollers = await liveWorkflowPollers(client, cfg.namespace, cfg.taskQueue).catch(() => 1);
          if (!pollers) say(noWorkerLine(cfg));
          return;
        }
        say(
          `run ${runId} started on task queue ${cfg.taskQueue}; watch it in the Temporal Web UI, or: temporal workflow query --workflow-id ${runId} --type progress --address ${cfg.temporalAddress}`,
        );
        await follow(client, runId, cfg);
      } finally {
        await connection.close();
      }
    });
}
