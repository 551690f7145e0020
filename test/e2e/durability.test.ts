/**
 * Durability on real components (dev server, worker, embedded engine): a cancelled run tears every
 * target down and keeps what was measured; a run that stopped part-way resumes without redoing
 * finished cells; gc removes what a closed run left.
 */
import { runDirsIn } from '../helpers/run-dirs';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync, readdirSync, statSync, cpSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { runCliToEnd } from '../helpers/cli-process';
import { startTemporalEnv, type TemporalEnv } from '../helpers/temporal-env';
import { assertFailureType } from '../helpers/assert-failure';
import type { MatrixProgress, MatrixResult } from '../../src/workflows';
import { collectGarbage } from '../../src/targets/gc';
import { provisionEmbedded } from '../../src/targets/embedded';
import { isAlive } from '../../src/targets/process';
import { pollUntil } from '../../src/lib/poll';
import { SQL_ROOT } from '../../src/lib/workload';

let env: TemporalEnv;
before(async () => {
  env = await startTemporalEnv('durability');
});
after(async () => {
  await env?.stop();
});

const spec = (name: string) => ({
  name,
  workload: 'logs',
  scale: 300_000,
  target: { kind: 'embedded' },
  matrix: { version: ['26.7'], codec: ['LZ4', 'ZSTD(3)'] },
  protocol: { quiesce: { stableForMs: 500 } },
  // Two codecs make a comparing matrix: its A/A control cell (v26.7-lz4-r2) runs too; no confirming re-runs (not what these tests are about).
  verdicts: { confirmRounds: 0 },
  resultsDir: env.resultsDir,
});

/** The matrix's progress once `pred` holds (queried every 100 ms, at most 120 s; a failed query is "not yet"). */
async function waitFor(
  handle: { query: (q: string) => Promise<unknown> },
  pred: (p: MatrixProgress) => boolean,
): Promise<MatrixProgress> {
  return pollUntil(
    async () => {
      const p = (await handle.query('progress')) as MatrixProgress | undefined;
      return p && pred(p) ? p : undefined;
    },
    { what: 'matrix progress condition', timeoutMs: 120_000, intervalMs: 100 },
  );
}

function leftovers(): string[] {
  return existsSync(env.workDir)
    ? runDirsIn(env.workDir).flatMap((d) => readdirSync(path.join(env.workDir, d)).map((c) => `${d}/${c}`))
    : [];
}

test('temporal workflow cancel tears down, keeps measured results and ends the run as cancelled', async () => {
  const runId = `cancel-${Date.now()}`;
  const handle = await env.client.workflow.start('benchmarkMatrix', {
    taskQueue: env.taskQueue,
    workflowId: runId,
    args: [spec('cancel')],
  });
  await waitFor(handle, (p) => p.succeeded.length === 1 && p.running.length === 1);
  await new Promise((r) => setTimeout(r, 1500)); // mid-cell
  await handle.cancel();
  await assert.rejects(
    handle.result(),
    (e: unknown) => e instanceof WorkflowFailedError && e.cause instanceof CancelledFailure,
  );
  const run = JSON.parse(readFileSync(path.join(env.resultsDir, runId, 'run.json'), 'utf8'));
  assert.equal(run.status, 'cancelled');
  const lz4 = JSON.parse(readFileSync(path.join(env.resultsDir, runId, 'cells', 'v26.7-lz4', 'result.json'), 'utf8'));
  assert.equal(lz4.status, 'succeeded', 'the finished cell is kept');
  const zstd = JSON.parse(
    readFileSync(path.join(env.resultsDir, runId, 'cells', 'v26.7-zstd3', 'result.json'), 'utf8'),
  );
  assert.equal(zstd.status, 'cancelled');
  // The status counts the cells (issue 13): the run is cancelled, one of its three cells with it (the A/A control never ran).
  assert.match(
    readFileSync(path.join(env.resultsDir, runId, 'report.md'), 'utf8'),
    /run status \*\*cancelled, 1 of 3 cells cancelled, 1 of 3 cells without a result\*\*/,
  );
  assert.deepEqual(leftovers(), [], 'every target was torn down');
});

test('a run that stopped part-way resumes: finished cells are reused, only the rest runs', async () => {
  const runId = `resume-${Date.now()}`;
  const handle = await env.client.workflow.start('benchmarkMatrix', {
    taskQueue: env.taskQueue,
    workflowId: runId,
    args: [spec('resume')],
  });
  await waitFor(handle, (p) => p.succeeded.length === 1 && p.running.length === 1);
  await handle.terminate('simulated crash of the run');
  const first = path.join(env.resultsDir, runId, 'cells', 'v26.7-lz4', 'result.json');
  const mtime = statSync(first).mtimeMs;
  // Resume = start the same workflow id with the spec stored with the run (what `chbench resume` does).
  const stored = JSON.parse(readFileSync(path.join(env.resultsDir, runId, 'run-spec.json'), 'utf8'));
  const r = (await env.client.workflow.execute('benchmarkMatrix', {
    taskQueue: env.taskQueue,
    workflowId: runId,
    args: [stored],
  })) as MatrixResult;
  assert.deepEqual(r.cells.map((c) => [c.cellKey, c.status]).sort(), [
    ['v26.7-lz4', 'succeeded'],
    ['v26.7-lz4-r2', 'succeeded'],
    ['v26.7-zstd3', 'succeeded'],
  ]);
  assert.equal(statSync(first).mtimeMs, mtime, 'the finished cell was reused, not measured again');
  const children: string[] = [];
  for await (const w of env.client.workflow.list({ query: `WorkflowId = '${runId}/v26.7-lz4'` }))
    children.push(w.status.name);
  assert.equal(children.length, 1, 'the reused cell ran once');
  const run = JSON.parse(readFileSync(path.join(env.resultsDir, runId, 'run.json'), 'utf8'));
  assert.equal(run.resumes.length, 1);
  assert.deepEqual(leftovers(), []);
});

test('a spec that differs from the stored one is refused on resume', async () => {
  const runId = `resume-diff-${Date.now()}`;
  const small = { ...spec('diff'), scale: 50_000, matrix: { version: ['26.7'], codec: ['LZ4'] }, skipIndex: false };
  await env.client.workflow.execute('benchmarkMatrix', { taskQueue: env.taskQueue, workflowId: runId, args: [small] });
  await assertFailureType(
    env.client.workflow.execute('benchmarkMatrix', {
      taskQueue: env.taskQueue,
      workflowId: runId,
      args: [{ ...small, scale: 60_000 }],
    }),
    'InvalidSpec',
    /different spec/,
  );
});

/** `chbench <args>` as a child process against this file's Temporal server and task queue. */
function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return runCliToEnd(args, {
    TEMPORAL_ADDRESS: env.server.address,
    TEMPORAL_NAMESPACE: 'default',
    CHBENCH_TASK_QUEUE: env.taskQueue,
  });
}

test("chbench resume refuses a run whose workload's SQL changed since it started, naming the file; restored, it resumes", async () => {
  // A workload of its own (a copy of `trivial`), so editing its query touches nothing else.
  const name = `tmp-resume-${process.pid}`;
  const dir = path.join(SQL_ROOT, 'workloads', name);
  cpSync(path.join(SQL_ROOT, 'workloads', 'trivial'), dir, { recursive: true });
  try {
    const manifest = path.join(dir, 'manifest.yaml');
    writeFileSync(manifest, readFileSync(manifest, 'utf8').replace(/^name: .*$/m, `name: ${name}`));
    const runId = `resume-wl-${Date.now()}`;
    const wl = {
      name: 'resume-wl',
      workload: name,
      scale: 10_000,
      target: { kind: 'embedded' },
      matrix: { version: ['26.7'], codec: ['LZ4', 'ZSTD(3)'] },
      skipIndex: false,
      protocol: { coldRuns: 1, warmRuns: 1, quiesce: { stableForMs: 300 } },
      verdicts: { confirmRounds: 0 },
      resultsDir: env.resultsDir,
    };
    const r = (await env.client.workflow.execute('benchmarkMatrix', {
      taskQueue: env.taskQueue,
      workflowId: runId,
      args: [wl],
    })) as MatrixResult;
    assert.deepEqual(
      r.cells.map((c) => c.status),
      ['succeeded', 'succeeded', 'succeeded'],
    );
    const run = JSON.parse(readFileSync(path.join(env.resultsDir, runId, 'run.json'), 'utf8'));
    assert.equal(run.workload_files.name, name);
    assert.deepEqual(Object.keys(run.workload_files.files).sort(), [
      'load.sql',
      'manifest.yaml',
      'q1.sql',
      'schema.sql',
    ]);
    // As if the run had stopped after its first cell: the second cell is still to measure.
    rmSync(path.join(env.resultsDir, runId, 'cells', 'v26.7-zstd3'), { recursive: true, force: true });

    const q1 = path.join(dir, 'q1.sql');
    const original = readFileSync(q1, 'utf8');
    writeFileSync(q1, original.replace(/count\(\)/i, 'count() + 1'));
    assert.notEqual(readFileSync(q1, 'utf8'), original, 'the query was edited');
    const refused = await cli('resume', runId, '--results-dir', env.resultsDir);
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, new RegExp(`workload ${name} changed since the run started .*: q1\\.sql\\)`));
    assert.equal(
      existsSync(path.join(env.resultsDir, runId, 'cells', 'v26.7-zstd3', 'result.json')),
      false,
      'nothing was measured with the changed query',
    );

    writeFileSync(q1, original);
    const resumed = await cli('resume', runId, '--results-dir', env.resultsDir);
    assert.equal(resumed.code, 0, resumed.stderr);
    const after = JSON.parse(readFileSync(path.join(env.resultsDir, runId, 'run.json'), 'utf8'));
    assert.equal(after.resumes.length, 1);
    assert.equal(after.workload_files.sha256, run.workload_files.sha256);
    assert.equal(
      JSON.parse(readFileSync(path.join(env.resultsDir, runId, 'cells', 'v26.7-zstd3', 'result.json'), 'utf8')).status,
      'succeeded',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("gc keeps a server whose label records no Temporal owner; --force keeps it when the CLI's server does not know it, --force-unowned removes it", async () => {
  const runId = `gc-${Date.now()}`;
  // Provisioned outside a workflow: its label has no owner (as labels written by older versions).
  const h = await provisionEmbedded({ runId, cellKey: 'v26.7-lz4', version: '26.7', workDir: env.workDir });
  assert.ok(isAlive(h.pid!));
  const kept = await collectGarbage(env.workDir);
  assert.deepEqual(kept.removed, []);
  assert.deepEqual(
    kept.kept.map((r) => r.runId),
    [runId],
  );
  assert.match(kept.kept[0].reason, /records no Temporal owner.*--force/);
  assert.ok(isAlive(h.pid!), 'kept');
  const force = { address: env.server.address, namespace: 'default' };
  // "Not found" on the CLI's server is not proof the run closed: that server may not be the one that ran it.
  const forced = await collectGarbage(env.workDir, { force });
  assert.deepEqual(forced.removed, []);
  assert.match(forced.kept[0].reason, /not found .*--force-unowned/);
  assert.ok(isAlive(h.pid!), 'kept by --force');
  const unowned = { ...force, unowned: true };
  const dry = await collectGarbage(env.workDir, { dryRun: true, force: unowned });
  assert.deepEqual(
    dry.removed.map((r) => r.runId),
    [runId],
  );
  assert.ok(isAlive(h.pid!), 'dry run removes nothing');
  const res = await collectGarbage(env.workDir, { force: unowned });
  assert.deepEqual(
    res.removed.map((r) => r.runId),
    [runId],
  );
  assert.match(res.removed[0].reason, /--force-unowned/);
  await new Promise((r) => setTimeout(r, 200));
  assert.ok(!isAlive(h.pid!), 'the leaked server was stopped');
  assert.deepEqual(leftovers(), []);
});
