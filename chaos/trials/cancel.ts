/** `cancel`: cancel a run in the middle of a cell. */
import { checkRun, type TrialOutcome } from '../checks';
import { rand, result, seed, sleep, spec, waitForStep, type Ctx } from '../harness';

export async function trialCancel(ctx: Ctx): Promise<TrialOutcome> {
  const runId = `chaos-cancel-${seed}`;
  await ctx.client.workflow.start('benchmarkMatrix', {
    taskQueue: ctx.taskQueue,
    workflowId: runId,
    args: [spec(ctx, 'chaos-cancel')],
  });
  const step = rand() < 0.5 ? 'load' : 'queries-baseline';
  const cell = await waitForStep(ctx, runId, step);
  await sleep(200 + rand() * 500);
  await ctx.client.workflow.getHandle(runId).cancel();
  const status = await result(ctx, runId);
  const check = await checkRun(ctx, runId, 400_000, 'cancelled');
  if (status !== 'cancelled') check.problems.push(`run ended ${status}, expected cancelled`);
  return {
    name: 'cancel',
    survived: check.problems.length === 0,
    detail: `cancelled while ${cell ?? '?'} was in ${step}`,
    kills: 0,
    check,
  };
}
