/**
 * The cell workflow's orchestration with stub activities (no ClickHouse): a real dev server and the
 * real workflow code, so retries, restarts and cleanup are Temporal's own behaviour.
 */
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { WorkflowFailedError } from '@temporalio/client';
import { startStubEnv, type StubEnv } from '../helpers/temporal-env';
import { stubActivities } from '../helpers/stub-activities';
import { parseRunSpec } from '../../src/schema/run-spec';
import { cellInputs } from '../../src/schema/matrix';
import { CELL_STEPS, type CellInput, type CellOutcome } from '../../src/schema/cell';
import { FAILURE } from '../../src/schema/failures';

const stubs = stubActivities();
// The provision result carries the target's `restartable` capability, as the provision activity's does.
const stubProvision = stubs.activities.provision;
stubs.activities.provision = async (c: CellInput, ...rest: unknown[]) => ({
  ...((await stubProvision(c, ...rest)) as object),
  restartable: c.target.kind !== 'external',
});
let env: StubEnv;
before(async () => {
  env = await startStubEnv('cell', stubs.activities);
});
after(async () => {
  await env?.stop();
});
beforeEach(() => {
  stubs.calls.length = 0;
  stubs.failWith = undefined;
});

/** One cell (v26.7, LZ4, with the skip-index steps) of a fresh run id; `spec` adds to the run spec. */
function cell(over: Partial<CellInput> = {}, spec: Record<string, unknown> = {}): CellInput {
  const runId = `wf-cell-${randomUUID().slice(0, 8)}`;
  const parsed = parseRunSpec({
    name: 'wf',
    workload: 'logs',
    scale: 1000,
    target: { kind: 'embedded' },
    matrix: { version: ['26.7'], codec: ['LZ4'] },
    resultsDir: '/stub',
    ...spec,
  });
  return { ...cellInputs(parsed, runId, ['q5'])[0], ...over };
}

const id = (c: CellInput) => `${c.runId}/${c.cellKey}`;
/** Failures of the cell workflows run here: a failed cell's workflow fails (item 8 of issue 21). */
const cellFailures = new Map<string, ApplicationFailure>();
/**
 * Run a cell's workflow to its end: its outcome, returned (succeeded, skipped) or carried by the
 * failure a failed cell's workflow ends with (kept in `cellFailures`).
 */
const runCell = (c: CellInput) =>
  (
    env.client.workflow.execute('benchmarkCell', {
      taskQueue: env.taskQueue,
      workflowId: id(c),
      args: [c],
    }) as Promise<CellOutcome>
  ).catch((e: unknown) => {
    const f = e instanceof WorkflowFailedError ? e.cause : undefined;
    const outcome =
      f instanceof ApplicationFailure ? (f.details?.[0] as { cellOutcome?: CellOutcome })?.cellOutcome : undefined;
    if (!outcome) throw e;
    cellFailures.set(id(c), f as ApplicationFailure);
    return outcome;
  });
const written = (c: CellInput) =>
  stubs.callsOf(id(c)).find((x) => x.activity === 'writeCellResult')!.args[1] as {
    status: string;
    error?: string;
    attempts: Record<string, number>;
    targetRestarts: { step: string; error: string }[];
    stoppedIn?: string;
    startedAt?: string;
  };

test('an undisturbed cell runs the activities of CELL_STEPS in table order (the grid steps only with grids, after-load only with after-load statements)', async () => {
  const c = cell();
  const r = await runCell(c);
  assert.equal(r.status, 'succeeded');
  assert.deepEqual(
    stubs.callsOf(id(c)).map((x) => x.activity),
    CELL_STEPS.filter((s) => !['concurrency', 'insert-grid', 'after-load'].includes(s.phase)).map((s) => s.activity),
  );
  // A workload with after-load statements: the step runs after the load's quiesce, before storage.
  const a = cell({ afterLoad: ['after-load/01-add-column.sql'] });
  assert.equal((await runCell(a)).status, 'succeeded');
  assert.deepEqual(
    stubs.callsOf(id(a)).map((x) => x.activity),
    CELL_STEPS.filter((s) => !['concurrency', 'insert-grid'].includes(s.phase)).map((s) => s.activity),
  );
  assert.deepEqual(written(c).targetRestarts, []);
  // Every cell's start goes to its result (the report's durations); a finished cell has no stop step.
  assert.ok(Number.isFinite(Date.parse(written(c).startedAt ?? '')), `startedAt ${written(c).startedAt}`);
  assert.equal(written(c).stoppedIn, undefined);
});

test('grids: one activity per concurrency step until errors stop the stepping, then one per insert point in grid order', async () => {
  const c = cell(
    {},
    {
      grids: {
        concurrency: { steps: [1, 2, 4, 8, 16], stopErrorRate: 0.01 },
        insert: {
          batchSizes: [1000, 10000],
          concurrency: [1, 2],
          settings: [{ name: 'sync' }, { name: 'async', query: { async_insert: 1 } }],
        },
      },
    },
  );
  // 4 clients: 5 of 100 requests fail (5 % > 1 %): stepping ends after that step.
  stubs.stepErrors = (clients) => (clients === 4 ? 5 : 0);
  try {
    const r = await runCell(c);
    assert.equal(r.status, 'succeeded');
  } finally {
    stubs.stepErrors = undefined;
  }
  const calls = stubs.callsOf(id(c));
  assert.deepEqual(
    calls.filter((x) => x.activity === 'concurrencyStep').map((x) => (x.args[1] as { clients: number }).clients),
    [1, 2, 4],
  );
  assert.deepEqual(
    calls.filter((x) => x.activity === 'insertPoint').map((x) => (x.args[1] as { key: string }).key),
    [
      'b1000-c1-sync-rowbinary',
      'b1000-c1-async-rowbinary',
      'b1000-c2-sync-rowbinary',
      'b1000-c2-async-rowbinary',
      'b10000-c1-sync-rowbinary',
      'b10000-c1-async-rowbinary',
      'b10000-c2-sync-rowbinary',
      'b10000-c2-async-rowbinary',
    ],
  );
  const order = calls.map((x) => x.activity);
  assert.ok(
    order.lastIndexOf('runQueries') < order.indexOf('concurrencyStep') &&
      order.lastIndexOf('concurrencyStep') < order.indexOf('insertPoint') &&
      order.lastIndexOf('insertPoint') < order.lastIndexOf('collectMetrics'),
    `grids run after the query steps and before the end metrics: ${order.join(', ')}`,
  );
  assert.equal(written(c).attempts['insert-grid'], 1, 'no point was retried: the phase took one attempt');
  assert.equal(written(c).attempts.concurrency, 1);
});

test('a step that finds its server gone re-provisions on the same data and re-runs from that step; the restart is recorded', async () => {
  const c = cell();
  stubs.failWith = (activity, key, n) =>
    activity === 'loadData' && key === id(c) && n === 1
      ? ApplicationFailure.create({
          type: FAILURE.TargetUnavailable,
          nonRetryable: true,
          message: 'loadData: the ClickHouse server is unreachable (ECONNREFUSED)',
        })
      : undefined;
  const r = await runCell(c);
  assert.equal(r.status, 'succeeded');
  const calls = stubs.callsOf(id(c));
  assert.deepEqual(
    calls.slice(0, 7).map((x) => x.activity),
    ['provision', 'collectMetrics', 'createSchema', 'loadData', 'provision', 'loadData', 'quiesceMerges'],
  );
  assert.deepEqual(
    calls.filter((x) => x.activity === 'provision').map((x) => x.args[1]),
    [true, false],
    'the second provision keeps the data (fresh = false)',
  );
  assert.equal(
    calls.filter((x) => x.activity === 'createSchema').length,
    1,
    'steps before the lost one are not re-run',
  );
  const w = written(c);
  assert.equal(w.targetRestarts.length, 1);
  assert.equal(w.targetRestarts[0].step, 'load');
  assert.match(w.targetRestarts[0].error, /unreachable/);
  assert.equal(w.attempts.load, 2, 'the lost attempt and the one after the restart');
});

test('provisioning that fails leaves nothing but its result and teardownUnprovisioned', async () => {
  const c = cell();
  stubs.failWith = (activity) =>
    activity === 'provision'
      ? ApplicationFailure.create({
          type: FAILURE.InvalidSetting,
          nonRetryable: true,
          message: 'settings refused before loading',
        })
      : undefined;
  const r = await runCell(c);
  assert.equal(r.status, 'failed');
  assert.deepEqual(
    stubs.callsOf(id(c)).map((x) => x.activity),
    ['provision', 'writeCellResult', 'teardownUnprovisioned'],
  );
  assert.match(written(c).error ?? '', /activity provision failed: .*settings refused before loading/);
  assert.equal(written(c).stoppedIn, 'provision', 'the result names the step the cell stopped in');
  // The cell's workflow failed (Failed in the Web UI) with the cell's failure, after its result was written.
  const f = cellFailures.get(id(c));
  assert.equal(f?.type, FAILURE.InvalidSetting);
  assert.equal(f?.nonRetryable, true);
  assert.match(
    f?.message ?? '',
    /^cell v26\.7-lz4 failed: activity provision failed: .*settings refused before loading; result at \/stub\//,
  );
  assert.equal((await env.client.workflow.getHandle(id(c)).describe()).status.name, 'FAILED');
});

test('a step that fails without a retry counts its one attempt (result attempts, not "none")', async () => {
  const c = cell();
  stubs.failWith = (activity) =>
    activity === 'provision'
      ? ApplicationFailure.create({
          type: FAILURE.VersionMismatch,
          nonRetryable: true,
          message:
            'local target: /usr/sbin/clickhouse-server is ClickHouse 18.16.1, but the cell asks for version 24.8',
        })
      : undefined;
  assert.equal((await runCell(c)).status, 'failed');
  assert.deepEqual((written(c) as unknown as { attempts: Record<string, number> }).attempts, { provision: 1 });

  const d = cell();
  stubs.failWith = (activity) =>
    activity === 'loadData'
      ? ApplicationFailure.create({ type: 'ClickHouse.UNKNOWN_IDENTIFIER', message: 'Missing columns: x' })
      : undefined;
  assert.equal((await runCell(d)).status, 'failed');
  const w = (written(d) as unknown as { attempts: Record<string, number> }).attempts;
  assert.equal(w.load, 1, JSON.stringify(w));
  assert.equal(w['create-schema'], 1);
});

test('a ClickHouse.SYNTAX_ERROR is not retried (by its name in the retry policy); a MEMORY_LIMIT_EXCEEDED is', async () => {
  const c = cell();
  // nonRetryable: false on purpose: only the policy's nonRetryableErrorTypes can stop the retry.
  stubs.failWith = (activity) =>
    activity === 'createSchema'
      ? ApplicationFailure.create({
          type: 'ClickHouse.SYNTAX_ERROR',
          nonRetryable: false,
          message: 'Syntax error',
          details: [{ code: 62, name: 'SYNTAX_ERROR' }],
        })
      : undefined;
  const r = await runCell(c);
  assert.equal(r.status, 'failed');
  const creates = stubs.callsOf(id(c)).filter((x) => x.activity === 'createSchema');
  assert.deepEqual(
    creates.map((x) => x.attempt),
    [1],
    'one attempt',
  );
  assert.match(written(c).error ?? '', /Syntax error/);
  assert.equal(written(c).stoppedIn, 'create-schema');

  const d = cell();
  stubs.failWith = (activity, key, n) =>
    activity === 'createSchema' && key === id(d) && n === 1
      ? ApplicationFailure.create({ type: 'ClickHouse.MEMORY_LIMIT_EXCEEDED', message: 'Memory limit exceeded' })
      : undefined;
  assert.equal((await runCell(d)).status, 'succeeded');
  assert.deepEqual(
    stubs
      .callsOf(id(d))
      .filter((x) => x.activity === 'createSchema')
      .map((x) => x.attempt),
    [1, 2],
  );
  assert.equal(written(d).attempts['create-schema'], 2);
});

test('a lost target that is not restartable (external) fails the cell with TargetUnavailable, without provisioning again', async () => {
  const c = cell({
    target: { kind: 'external', url: 'http://127.0.0.1:1', username: 'default', databasePrefix: 'chb' },
  });
  stubs.failWith = (activity, key, n) =>
    activity === 'loadData' && key === id(c) && n === 1
      ? ApplicationFailure.create({
          type: FAILURE.TargetUnavailable,
          nonRetryable: true,
          message: 'loadData: the ClickHouse server is unreachable (ECONNREFUSED)',
        })
      : undefined;
  const r = await runCell(c);
  assert.equal(r.status, 'failed');
  const calls = stubs.callsOf(id(c)).map((x) => x.activity);
  assert.deepEqual(calls.slice(0, 5), ['provision', 'collectMetrics', 'createSchema', 'loadData', 'writeCellResult']);
  assert.equal(calls.filter((a) => a === 'provision').length, 1, 'the external target is not provisioned again');
  const w = written(c);
  assert.deepEqual(w.targetRestarts, []);
  assert.match(
    w.error ?? '',
    /the external target was lost during load and is not restartable .*: .*the ClickHouse server is unreachable/,
  );
});
