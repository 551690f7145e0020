/** `sigterm-worker`: SIGTERM a worker during a long activity (graceful shutdown), then start a new one. */
import { existsSync } from 'node:fs';
import { checkRun, type TrialOutcome } from '../checks';
import { result, seed, serverPid, spec, startWorker, stopWorker, waitForStep, type Ctx } from '../harness';

export async function trialSigtermWorker(ctx: Ctx): Promise<TrialOutcome> {
  const runId = `chaos-sigterm-${seed}`;
  await ctx.client.workflow.start('benchmarkMatrix', {
    taskQueue: ctx.taskQueue,
    workflowId: runId,
    args: [spec(ctx, 'chaos-sigterm')],
  });
  const cell = await waitForStep(ctx, runId, 'queries-baseline');
  const pidBefore = cell ? serverPid(ctx, runId, cell) : undefined;
  await stopWorker(ctx, 'SIGTERM');
  const pidAfterShutdown = cell ? serverPid(ctx, runId, cell) : undefined;
  const aliveAfter = pidBefore !== undefined && existsSync(`/proc/${pidBefore}`);
  startWorker(ctx);
  const status = await result(ctx, runId);
  const check = await checkRun(ctx, runId, 400_000, 'completed');
  if (status !== 'completed') check.problems.push(`run ${status}`);
  if (!aliveAfter || pidBefore !== pidAfterShutdown) check.problems.push('the worker shutdown tore the target down');
  return {
    name: 'sigterm-worker',
    survived: check.problems.length === 0,
    detail: `SIGTERM while ${cell ?? '?'} ran queries; its server (pid ${pidBefore}) ${aliveAfter ? 'kept running' : 'was stopped'}`,
    kills: 0,
    check,
  };
}
