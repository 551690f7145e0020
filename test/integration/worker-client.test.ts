/**
 * The worker's one Temporal client (`src/temporal/worker-client.ts`) on a real dev server: activities
 * that ask Temporal something (`awaitWorkflowClosed`, `discoverHosts`) use the client the worker
 * passes in, connected once; a workflow terminated on the server is seen closed through it; an
 * unreachable address fails the call and is not cached; `close()` then `client()` reconnects.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startDevServer, type DevServer } from '../../src/temporal/dev-server';
import { temporalAccess, type TemporalAccess } from '../../src/temporal/worker-client';
import { createActivities } from '../../src/activities';
import { pollingHosts } from '../../src/temporal/host';

let server: DevServer;
let tmp: string;
let access: TemporalAccess;

before(async () => {
  server = await startDevServer();
  tmp = mkdtempSync(path.join(os.tmpdir(), 'chbench-worker-client-'));
  access = temporalAccess(server.address, 'default');
});

after(async () => {
  await access?.close();
  await server?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

test('client() connects once and hands every caller the same client', async () => {
  const [a, b] = await Promise.all([access.client(), access.client()]);
  assert.equal(a, b);
  assert.equal(await access.client(), a);
});

test('awaitWorkflowClosed reads the close status through the shared client', async () => {
  const acts = createActivities({
    workDir: tmp,
    temporalAddress: server.address,
    namespace: 'default',
    temporal: access,
  });
  const client = await access.client();
  const workflowId = `worker-client-${process.pid}`;
  // No worker polls this task queue: the workflow stays RUNNING until it is terminated.
  const h = await client.workflow.start('benchmarkMatrix', { taskQueue: 'nobody-polls', workflowId, args: [{}] });
  const closed = acts.awaitWorkflowClosed(workflowId);
  await new Promise((r) => setTimeout(r, 1200)); // it polls every 500 ms: it sees RUNNING first
  await h.terminate('test');
  assert.deepEqual(await closed, { status: 'TERMINATED' });
  assert.deepEqual(await acts.awaitWorkflowClosed('no-such-workflow'), { status: 'NOT_FOUND' });
  assert.equal(await access.client(), client, 'the activities did not replace the shared client');
});

test('pollingHosts lists no host on a task queue nobody polls', async () => {
  assert.deepEqual(await pollingHosts(access, 'nobody-polls'), []);
});

test('an unreachable address fails each call (not cached), and close() then client() reconnects', async () => {
  const dead = temporalAccess('127.0.0.1:1', 'default', 1000);
  await assert.rejects(dead.client());
  await assert.rejects(dead.client());
  await dead.close();
  const before = await access.client();
  await access.close();
  const after = await access.client();
  assert.notEqual(after, before);
  assert.ok((await after.workflowService.getSystemInfo({})).serverVersion !== undefined);
});
