/**
 * The CLI on a run no worker serves, on a real Temporal dev server, with `chbench` run as a child
 * process: a second `chbench run` of an id that is already running says so and how to watch it
 * (exit 2, not the SDK's WorkflowExecutionAlreadyStartedError); `chbench cancel` of that run gives
 * up after its bound (CHBENCH_CANCEL_WAIT_S) and prints how to terminate it (exit 4).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { startTemporalEnv, type TemporalEnv } from '../helpers/temporal-env';
import { startCli } from '../helpers/cli-process';

let env: TemporalEnv;
before(async () => {
  env = await startTemporalEnv('cli-gates');
});
after(async () => {
  await env?.stop();
});

/** Run the CLI to its end or fail after `timeoutMs`. */
async function cliWithin(args: string[], extra: Record<string, string>, timeoutMs: number) {
  const p = startCli(args, {
    TEMPORAL_ADDRESS: env.server.address,
    TEMPORAL_NAMESPACE: 'default',
    CHBENCH_WORK_DIR: env.workDir,
    ...extra,
  });
  let t: NodeJS.Timeout | undefined;
  const code = await Promise.race([
    p.exited,
    new Promise<string>((r) => (t = setTimeout(() => r('timeout'), timeoutMs))),
  ]);
  clearTimeout(t);
  if (code === 'timeout') p.child.kill('SIGKILL');
  return { code, out: p.out(), err: p.err() };
}

test('run of an id already running says so (exit 2); cancel with no worker gives up after its bound and says how to terminate (exit 4)', async () => {
  const queue = `nobody-${randomUUID().slice(0, 8)}`;
  const runId = `twice-${randomUUID().slice(0, 8)}`;
  const spec = {
    name: 'twice',
    workload: 'trivial',
    scale: 1000,
    target: { kind: 'embedded' },
    matrix: { version: ['26.7'], codec: ['LZ4'] },
    skipIndex: false,
    resultsDir: env.resultsDir,
  };
  const file = path.join(env.tmp, `${runId}.json`);
  writeFileSync(file, JSON.stringify(spec));
  await env.client.workflow.start('benchmarkMatrix', { taskQueue: queue, workflowId: runId, args: [spec] });

  const again = await cliWithin(['run', file, '--run-id', runId, '--no-wait'], { CHBENCH_TASK_QUEUE: queue }, 30_000);
  assert.equal(again.code, 2, again.err);
  assert.match(
    again.err,
    new RegExp(`a run with id ${runId} is already running; watch it with \`chbench watch ${runId}\``),
  );
  assert.doesNotMatch(again.err, /WorkflowExecutionAlreadyStartedError/);

  const t0 = Date.now();
  const cancel = await cliWithin(['cancel', runId], { CHBENCH_TASK_QUEUE: queue, CHBENCH_CANCEL_WAIT_S: '3' }, 40_000);
  assert.equal(cancel.code, 4, `${cancel.code}: ${cancel.err}`);
  assert.match(cancel.err, /has not closed 3 s after the cancellation was requested, and no worker polls task queue/);
  assert.match(cancel.err, new RegExp(`temporal workflow terminate --workflow-id ${runId}`));
  assert.match(cancel.err, /chbench gc/);
  assert.ok(Date.now() - t0 < 30_000, `gave up within the bound (${Date.now() - t0} ms)`);
  await env.client.workflow.getHandle(runId).terminate('test done');
});
