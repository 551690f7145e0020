/** `restart-temporal`: stop and restart the Temporal dev server (same SQLite file) mid-run. */
import { Client, Connection } from '@temporalio/client';
import { startDevServer } from '../../src/temporal/dev-server';
import { checkRun, type TrialOutcome } from '../checks';
import { rand, result, seed, sleep, spec, waitForStep, type Ctx } from '../harness';

export async function trialRestartTemporal(ctx: Ctx): Promise<TrialOutcome> {
  const runId = `chaos-temporal-${seed}`;
  await ctx.client.workflow.start('benchmarkMatrix', {
    taskQueue: ctx.taskQueue,
    workflowId: runId,
    args: [spec(ctx, 'chaos-temporal')],
  });
  const cell = await waitForStep(ctx, runId, 'load');
  await sleep(500 + rand() * 1500);
  await ctx.server.stop();
  await sleep(3000);
  ctx.server = await startDevServer({ port: ctx.port, dbFile: ctx.dbFile, keepDb: true });
  await ctx.connection.close();
  ctx.connection = await Connection.connect({ address: ctx.server.address });
  ctx.client = new Client({ connection: ctx.connection });
  const status = await result(ctx, runId);
  const check = await checkRun(ctx, runId, 400_000, 'completed');
  if (status !== 'completed') check.problems.push(`run ${status}`);
  return {
    name: 'restart-temporal',
    survived: check.problems.length === 0,
    detail: `server stopped for 3 s while ${cell ?? '?'} was loading`,
    kills: 0,
    check,
  };
}
