/**
 * `chbench gc` asks the Temporal server and namespace recorded in each server's label, never the
 * CLI's own: with two real dev servers, a run alive on server A survives a gc whose CLI points at
 * server B; once the run closed, the same gc removes it. Unreachable servers, missing or different
 * namespaces keep the server (and say why); "not found" removes only in the run's own namespace.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import { startTemporalEnv, type TemporalEnv } from '../helpers/temporal-env';
import { startDevServer, type DevServer } from '../../src/temporal/dev-server';
import { freePort } from '../../src/lib/net';
import { collectGarbage } from '../../src/targets/gc';
import { provisionEmbedded } from '../../src/targets/embedded';
import { isAlive, listCellDirs, readLabel } from '../../src/targets/process';
import type { TemporalOwner } from '../../src/schema/target';
import { REPO_ROOT } from '../../src/config';
import type { MatrixResult } from '../../src/workflows';

let env: TemporalEnv; // server A + worker
let serverB: DevServer;
before(async () => {
  env = await startTemporalEnv('gc');
  serverB = await startDevServer();
});
after(async () => {
  await serverB?.stop();
  await env?.stop();
});

/** `chbench gc` as a user runs it, with the CLI pointed at `address`. */
async function cliGc(address: string, ...args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [path.join(REPO_ROOT, 'dist', 'src', 'cli.js'), 'gc', ...args],
    {
      env: { ...process.env, TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: 'default', CHBENCH_WORK_DIR: env.workDir },
    },
  );
  return stdout;
}

async function namespaceIdOf(address: string, namespace = 'default'): Promise<string> {
  const c = await Connection.connect({ address });
  try {
    return (await c.workflowService.describeNamespace({ namespace })).namespaceInfo!.id!;
  } finally {
    await c.close();
  }
}

test('a run alive on server A survives gc pointed at server B; once closed, gc removes its server', async () => {
  const runId = `gc-alive-${Date.now()}`;
  const spec = {
    name: 'gcalive',
    workload: 'logs',
    scale: 200_000,
    target: { kind: 'embedded' },
    matrix: { version: ['26.7'], codec: ['LZ4'] },
    queries: ['q1'],
    skipIndex: false,
    // The quiesce step alone keeps the run open for ≥ 20 s after loading: room for the gc below.
    protocol: { quiesce: { stableForMs: 20_000 }, warmRuns: 1 },
    teardown: 'never', // its server outlives the run: gc's job
    resultsDir: env.resultsDir,
  };
  const handle = await env.client.workflow.start('benchmarkMatrix', {
    taskQueue: env.taskQueue,
    workflowId: runId,
    args: [spec],
  });
  // Wait until the cell's server is up and labelled with its owner.
  let dir: string | undefined;
  for (let i = 0; i < 1200 && !dir; i++) {
    dir = listCellDirs(env.workDir, runId).find((d) => readLabel(d)?.owner);
    if (!dir) await new Promise((r) => setTimeout(r, 100));
  }
  assert.ok(dir, 'the cell server was provisioned');
  const label = readLabel(dir)!;
  assert.deepEqual(
    { ...label.owner, namespaceId: typeof label.owner?.namespaceId },
    {
      address: env.server.address,
      namespace: 'default',
      namespaceId: 'string',
      workflowId: `${runId}/v26.7-lz4`,
      workflowRunId: label.owner!.workflowRunId,
      matrixWorkflowId: runId,
    },
  );
  assert.equal(
    (await env.client.workflow.getHandle(`${runId}/v26.7-lz4`).describe()).runId,
    label.owner!.workflowRunId,
  );

  const out = await cliGc(serverB.address);
  assert.equal((await handle.describe()).status.name, 'RUNNING', 'the run was still going during gc (test premise)');
  assert.ok(isAlive(label.pid), `the server of a running run survives a gc pointed at another server:\n${out}`);
  assert.match(
    out,
    new RegExp(
      `kept ${runId}/v26.7-lz4 .*workflow ${runId}.* is running \\(namespace default on ${env.server.address}\\)`,
    ),
  );

  const r = (await handle.result()) as MatrixResult;
  assert.deepEqual(
    r.cells.map((c) => c.status),
    ['succeeded'],
  );
  assert.ok(isAlive(label.pid), 'teardown never: the server outlives the run');
  const out2 = await cliGc(serverB.address);
  assert.match(
    out2,
    new RegExp(`removed ${runId}/v26.7-lz4 .*completed.*\\(namespace default on ${env.server.address}\\)`),
  );
  await new Promise((r) => setTimeout(r, 200));
  assert.ok(!isAlive(label.pid), 'the closed run’s server was stopped');
  assert.ok(!existsSync(dir), 'and its directory removed');
});

test('gc keeps what it cannot positively see closed, and says why', async () => {
  const nsA = await namespaceIdOf(env.server.address);
  const nsB = await namespaceIdOf(serverB.address);
  assert.notEqual(nsA, nsB, 'two dev servers have different namespace ids');
  const deadPort = await freePort();
  const runId = `gc-owners-${Date.now()}`;
  const owner = (cellKey: string, o: Partial<TemporalOwner>): TemporalOwner => ({
    address: env.server.address,
    namespace: 'default',
    namespaceId: nsA,
    workflowId: `${runId}/${cellKey}`,
    workflowRunId: 'r',
    matrixWorkflowId: runId,
    ...o,
  });
  const cases: Record<string, { owner: TemporalOwner; removed: boolean; reason: RegExp }> = {
    unreachable: {
      owner: owner('unreachable', { address: `127.0.0.1:${deadPort}` }),
      removed: false,
      reason: /unreachable/,
    },
    'other-namespace': {
      owner: owner('other-namespace', { namespace: 'not-there' }),
      removed: false,
      reason: /namespace not-there.*cannot be read/,
    },
    // The run's namespace was on A; a server now answering on "its" address (B here) has another default namespace.
    'moved-server': {
      owner: owner('moved-server', { address: serverB.address }),
      removed: false,
      reason: /not the namespace the run was started in/,
    },
    'no-namespace-id': {
      owner: owner('no-namespace-id', { namespaceId: undefined }),
      removed: false,
      reason: /not found, and the label has no namespace id/,
    },
    // Not found in its own namespace (same id): its history is gone, nothing can be running it.
    'gone-in-own-namespace': {
      owner: owner('gone-in-own-namespace', {}),
      removed: true,
      reason: /gone \(not found in its own namespace/,
    },
  };
  const pids: Record<string, number> = {};
  for (const [cellKey, c] of Object.entries(cases)) {
    const { namespaceId, ...rest } = c.owner;
    const h = await provisionEmbedded({
      runId,
      cellKey,
      version: '26.7',
      workDir: env.workDir,
      owner: namespaceId ? c.owner : rest,
    });
    pids[cellKey] = h.pid!;
  }
  // The worker's own state file beside the run directories (the host disk's cached capacity) is
  // neither a run nor in gc's way.
  const stateFile = path.join(env.workDir, 'host-disk-capacity.json');
  writeFileSync(stateFile, '{}');
  const res = await collectGarbage(env.workDir, { connectTimeoutMs: 1500 });
  assert.ok(existsSync(stateFile), 'gc keeps the worker state file');
  for (const [cellKey, c] of Object.entries(cases)) {
    const e = [...res.removed, ...res.kept].find((x) => x.cellKey === cellKey && x.runId === runId);
    assert.ok(e, cellKey);
    assert.equal(res.removed.includes(e), c.removed, `${cellKey}: ${e.reason}`);
    assert.match(e.reason, c.reason, cellKey);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(isAlive(pids[cellKey]), !c.removed, `${cellKey} server ${c.removed ? 'stopped' : 'kept'}`);
  }
});

test('--force keeps an owner-less server whose workflow the CLI’s server does not know; --force-unowned removes it', async () => {
  const runId = `gc-unowned-${Date.now()}`;
  const h = await provisionEmbedded({ runId, cellKey: 'c', version: '26.7', workDir: env.workDir });
  const dir = listCellDirs(env.workDir, runId)[0];
  assert.ok(dir && !readLabel(dir)?.owner, 'the label records no owner (test premise)');
  // Server B never ran this workflow: "not found" there proves nothing about the run.
  const out = await cliGc(serverB.address, '--force');
  const line = out.split('\n').find((l) => l.includes(runId));
  assert.match(
    line ?? '',
    new RegExp(
      `^kept ${runId}/c .*label records no owner; workflow ${runId} not found in namespace default on ${serverB.address}.*rm -rf ${dir}.*--force-unowned`,
    ),
    out,
  );
  assert.ok(isAlive(h.pid!), 'kept: its server still runs');
  assert.ok(existsSync(dir), 'and its directory is still there');
  const out2 = await cliGc(serverB.address, '--force-unowned');
  assert.match(out2, new RegExp(`removed ${runId}/c .*--force-unowned: ${runId} not found`), out2);
  await new Promise((r) => setTimeout(r, 200));
  assert.ok(!isAlive(h.pid!), '--force-unowned: stopped');
  assert.ok(!existsSync(dir), 'and removed');
});
