/** `kill-server-embedded` / `kill-server-local`: SIGKILL the ClickHouse server during load and during a query run. */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { readRecord } from '../../src/results/store';
import { CellResult } from '../../src/schema/results';
import { checkRun, type TrialOutcome } from '../checks';
import { localSpec, rand, result, seed, serverPid, sleep, spec, waitForStep, type Ctx } from '../harness';

export async function trialKillServer(ctx: Ctx, kind: 'embedded' | 'local'): Promise<TrialOutcome> {
  const runId = `chaos-server-${kind}-${seed}`;
  const s = kind === 'embedded' ? spec(ctx, 'chaos-server') : localSpec(ctx, 'chaos-server');
  await ctx.client.workflow.start('benchmarkMatrix', { taskQueue: ctx.taskQueue, workflowId: runId, args: [s] });
  const done = result(ctx, runId);
  const killed: string[] = [];
  for (const step of ['load', 'queries-baseline']) {
    const cell = await waitForStep(ctx, runId, step);
    if (!cell) continue;
    await sleep(step === 'load' ? 300 : 200 + rand() * 300);
    const pid = serverPid(ctx, runId, cell);
    if (pid) {
      process.kill(pid, 'SIGKILL');
      killed.push(`${cell}@${step}`);
    }
  }
  const status = await done;
  const check = await checkRun(ctx, runId, s.scale, 'completed');
  if (status !== 'completed') check.problems.push(`run ${status}`);
  if (killed.length < 2) check.problems.push(`server killed only ${killed.length} time(s)`);
  let restarts = 0;
  for (const k of readdirSync(path.join(ctx.resultsDir, runId, 'cells')))
    restarts += readRecord(path.join(ctx.resultsDir, runId, 'cells', k, 'result.json'), CellResult).target_restarts
      .length;
  if (restarts < killed.length) check.problems.push(`${killed.length} kills but ${restarts} recorded target restarts`);
  return {
    name: `kill-server-${kind}`,
    survived: check.problems.length === 0,
    detail: `killed during ${killed.join(', ')}; target restarts recorded ${restarts}`,
    kills: 0,
    check,
  };
}
