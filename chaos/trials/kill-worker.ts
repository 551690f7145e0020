/**
 * `kill-worker`: SIGKILL the worker at seeded random moments covering every step kind, restart it;
 * the runs' storage must equal an undisturbed run's.
 */
import { checkRun, compareStorage, merge, storageOf, type Check, type TrialOutcome } from '../checks';
import {
  cellProgress,
  cellSteps,
  MIN_KILLS,
  rand,
  result,
  seed,
  sleep,
  spec,
  startWorker,
  STEP_KINDS,
  stopWorker,
  type Ctx,
} from '../harness';

export async function trialKillWorker(ctx: Ctx): Promise<TrialOutcome> {
  // The undisturbed reference run of the same spec.
  const refId = `chaos-kill-${seed}-reference`;
  await ctx.client.workflow.execute('benchmarkMatrix', {
    taskQueue: ctx.taskQueue,
    workflowId: refId,
    args: [spec(ctx, 'chaos-kill')],
  });
  const reference = storageOf(ctx, refId);
  let maxDiff = 0;
  let kills = 0;
  const covered = new Set<string>();
  const checks: Check[] = [];
  let runs = 0;
  const problems: string[] = [];
  while ((kills < MIN_KILLS || covered.size < STEP_KINDS.length) && runs < 8) {
    runs++;
    const runId = `chaos-kill-${seed}-${runs}`;
    await ctx.client.workflow.start('benchmarkMatrix', {
      taskQueue: ctx.taskQueue,
      workflowId: runId,
      args: [spec(ctx, 'chaos-kill')],
    });
    const done = result(ctx, runId);
    let finished = false;
    void done.then(() => (finished = true));
    // Between kills the run must make progress (a step finishes), as after a real crash and restart.
    // Each kill is aimed at a step kind not yet hit when possible, else at a random moment.
    let lastDone = -1;
    while (!finished) {
      for (;;) {
        const p = Object.values(await cellProgress(ctx, runId));
        const doneNow = p.reduce((a, c) => a + c.done.length, 0) + p.length * 100;
        if (finished || (p.length && doneNow > lastDone)) break;
        await sleep(100);
      }
      if (finished) break;
      const want = STEP_KINDS.filter((s) => !covered.has(s));
      const deadline = Date.now() + 500 + rand() * (want.length ? 8000 : 4000);
      while (!finished && Date.now() < deadline) {
        const steps = Object.values(await cellSteps(ctx, runId));
        if (steps.some((s) => want.includes(s)) && rand() < 0.7) break;
        await sleep(30 + rand() * 120);
      }
      if (finished) break;
      const p = Object.values(await cellProgress(ctx, runId));
      await stopWorker(ctx, 'SIGKILL');
      kills++;
      p.forEach((c) => covered.add(c.step));
      lastDone = p.reduce((a, c) => a + c.done.length, 0) + p.length * 100;
      startWorker(ctx);
    }
    const status = await done;
    if (status !== 'completed') problems.push(`${runId}: ${status}`);
    checks.push(await checkRun(ctx, runId, 400_000, 'completed'));
    const got = storageOf(ctx, runId);
    problems.push(...compareStorage(reference, got, runId));
    for (const [k, g] of Object.entries(got))
      if (reference[k])
        maxDiff = Math.max(maxDiff, Math.abs(g.compressed - reference[k].compressed) / reference[k].compressed);
  }
  const check = merge(checks);
  check.problems.push(...problems);
  const missing = STEP_KINDS.filter((s) => !covered.has(s));
  if (kills < MIN_KILLS) check.problems.push(`only ${kills} kills`);
  return {
    name: 'kill-worker',
    survived: check.problems.length === 0,
    detail: `${runs} run(s), ${kills} SIGKILLs, rows and uncompressed bytes equal to an undisturbed run, compressed within ${(maxDiff * 100).toFixed(2)} %, steps hit: ${STEP_KINDS.filter((k) => covered.has(k)).length}/${STEP_KINDS.length}${missing.length ? ` (missed ${missing.join(', ')})` : ''}`,
    kills,
    check,
  };
}
