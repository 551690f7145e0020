/**
 * The CLI's "no worker has polled" notice (`src/cli/follow.ts` `workerNotice`) against a real dev
 * server and a real, idle worker: for longer than the server's 60 s long-poll expiry the worker's
 * newest poll (`DescribeTaskQueue` pollers' `lastAccessTime`, workflow and activity task queues) is
 * never old enough for the notice to call it gone, although it does get older than the 20 s the
 * notice used before (finding 5 of newuser-findings: a false warning while the worker was alive).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTemporalEnv, type TemporalEnv } from '../helpers/temporal-env';
import { taskQueuePollers } from '../../src/temporal/run-client';
import { workerNotice, type WorkerState } from '../../src/cli/follow';

let env: TemporalEnv;

before(async () => {
  env = await startTemporalEnv('worker-notice');
});

after(async () => {
  await env?.stop();
});

test('an idle, live worker is never reported silent across a whole long poll', { timeout: 120_000 }, async () => {
  const place = { temporalAddress: env.server.address, namespace: 'default', taskQueue: env.taskQueue };
  let state: WorkerState = 'unknown';
  const lines: string[] = [];
  let oldestNewest = 0;
  const t0 = Date.now();
  while (Date.now() - t0 < 70_000) {
    const pollers = await taskQueuePollers(env.client, 'default', env.taskQueue);
    const now = Date.now();
    const newest = Math.max(...pollers.map((p) => p.lastAccessMs ?? 0));
    if (pollers.length) oldestNewest = Math.max(oldestNewest, now - newest);
    const n = workerNotice(state, pollers, now, place, true);
    state = n.state;
    if (n.line) lines.push(n.line);
    await new Promise((r) => setTimeout(r, 1000));
  }
  assert.equal(state, 'polling', lines.join('\n'));
  assert.deepEqual(
    lines.filter((l) => /no worker/.test(l)),
    [],
  );
  // The case the notice must survive: the newest poll of a healthy idle worker got older than 20 s.
  assert.ok(oldestNewest > 20_000, `newest poll at most ${oldestNewest} ms old: the idle long poll was not observed`);
});
