/**
 * The matrix workflow's orchestration with stub activities (no ClickHouse): continue-as-new past its
 * event budget, reusing the cells finished in earlier runs; the cloud metrics step before the report.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { startStubEnv, type StubEnv } from '../helpers/temporal-env';
import { stubActivities } from '../helpers/stub-activities';
import type { MatrixResult } from '../../src/schema/progress';

const stubs = stubActivities();
let env: StubEnv;
before(async () => {
  env = await startStubEnv('matrix', stubs.activities);
});
after(async () => {
  await env?.stop();
});

test('the matrix continues as new past its event budget and reuses the cells finished before', async () => {
  const runId = `wf-matrix-${randomUUID().slice(0, 8)}`;
  const spec = {
    name: 'wf',
    workload: 'logs',
    scale: 1000,
    target: { kind: 'embedded' },
    matrix: { version: ['26.7'], codec: ['LZ4', 'ZSTD(1)', 'ZSTD(3)'] },
    skipIndex: false,
    resultsDir: '/stub',
  };
  // A budget of one event: every run starts one cell, then continues as new.
  const handle = await env.client.workflow.start('benchmarkMatrix', {
    taskQueue: env.taskQueue,
    workflowId: runId,
    args: [spec, { eventBudget: 1 }],
  });
  const r = (await handle.result()) as MatrixResult;
  assert.equal(r.status, 'completed');
  // Three codecs and the A/A control cell (the first codec measured again).
  assert.deepEqual(r.cells.map((c) => [c.cellKey, c.status]).sort(), [
    ['v26.7-lz4', 'succeeded'],
    ['v26.7-lz4-r2', 'succeeded'],
    ['v26.7-zstd1', 'succeeded'],
    ['v26.7-zstd3', 'succeeded'],
  ]);

  const validations = stubs
    .callsOf(runId)
    .filter((c) => c.activity === 'validateSpec')
    .map((c) => c.args[0] as { reuseFailedSince?: string });
  assert.equal(validations.length, 4, 'four runs: one per cell');
  assert.equal(validations[0].reuseFailedSince, undefined);
  assert.ok(
    validations[1].reuseFailedSince &&
      validations.slice(2).every((v) => v.reuseFailedSince === validations[1].reuseFailedSince),
    "later runs reuse failures since the first run's start",
  );
  for (const k of ['v26.7-lz4', 'v26.7-zstd1', 'v26.7-zstd3', 'v26.7-lz4-r2'])
    assert.equal(stubs.callsOf(`${runId}/${k}`).filter((c) => c.activity === 'provision').length, 1, `${k} ran once`);
  assert.equal(
    stubs.callsOf(runId).filter((c) => c.activity === 'writeReport').length,
    1,
    'one report, by the last run',
  );

  const runs: string[] = [];
  for await (const w of env.client.workflow.list({ query: `WorkflowId = '${runId}'` })) runs.push(w.runId);
  assert.equal(runs.length, 4, 'four executions of the one workflow id');
  // The verdicts are judged once, by the last execution, after every cell.
  assert.equal(stubs.callsOf(runId).filter((c) => c.activity === 'judgeVerdicts').length, 1);
  assert.equal(r.verdicts?.decision, 'stub decision: 0 pair(s) re-run, 0 not');
});

/** A one-cell spec, with or without a `cloud` section. */
function cloudSpec(cloud: boolean) {
  return {
    name: 'wf-cloud',
    workload: 'logs',
    scale: 1000,
    // The cloud section is for kubernetes cells (the stub activities provision nothing).
    target: { kind: cloud ? 'kubernetes' : 'embedded' },
    matrix: { version: ['26.7'], codec: ['LZ4'] },
    skipIndex: false,
    resultsDir: '/stub',
    ...(cloud ? { cloud: { settleMs: 0 } } : {}),
  };
}

test('with a cloud section, collectCloudMetrics runs once after the cells and before the report; without, never', async () => {
  for (const cloud of [true, false]) {
    const runId = `wf-cloud-${cloud}-${randomUUID().slice(0, 8)}`;
    const r = (await env.client.workflow.execute('benchmarkMatrix', {
      taskQueue: env.taskQueue,
      workflowId: runId,
      args: [cloudSpec(cloud)],
    })) as MatrixResult;
    assert.equal(r.status, 'completed');
    const order = stubs.calls
      .filter((c) => c.key === runId || c.key.startsWith(`${runId}/`))
      .map((c) => c.activity)
      .filter((a) => a === 'teardown' || a === 'collectCloudMetrics' || a === 'writeReport');
    assert.deepEqual(order, cloud ? ['teardown', 'collectCloudMetrics', 'writeReport'] : ['teardown', 'writeReport']);
  }
});

test('a failing cloud step does not lose the run: the report is still written and the run completes', async () => {
  const runId = `wf-cloud-fail-${randomUUID().slice(0, 8)}`;
  stubs.failWith = (activity) =>
    activity === 'collectCloudMetrics' ? new Error('CloudWatch unreachable (stub)') : undefined;
  try {
    const r = (await env.client.workflow.execute('benchmarkMatrix', {
      taskQueue: env.taskQueue,
      workflowId: runId,
      args: [cloudSpec(true)],
    })) as MatrixResult;
    assert.equal(r.status, 'completed');
    assert.deepEqual(
      r.cells.map((c) => c.status),
      ['succeeded'],
    );
    assert.ok(stubs.callsOf(runId).filter((c) => c.activity === 'collectCloudMetrics').length >= 1);
    assert.equal(stubs.callsOf(runId).filter((c) => c.activity === 'writeReport').length, 1);
  } finally {
    stubs.failWith = undefined;
  }
});

/** A one-cell spec compared with a baseline run. */
function baselineSpec() {
  return {
    name: 'wf-compare',
    workload: 'logs',
    scale: 1000,
    target: { kind: 'embedded' },
    matrix: { version: ['26.7'], codec: ['LZ4'] },
    resultsDir: '/stub',
    protocol: { warmRuns: 7 },
    baseline: { from: 'run', run: 'baseline-run', confirmRounds: 4 },
  };
}

/** Activities of a run and its children (cells, the confirming re-run) in call order. */
function activitiesOf(runId: string, names: string[]): string[] {
  return stubs.calls
    .filter((c) => c.key === runId || c.key.startsWith(`${runId}/`) || c.key.startsWith(`${runId}.confirm/`))
    .map((c) => c.activity)
    .filter((a) => names.includes(a));
}

test('a flagged query is re-run interleaved on two fresh cells; the confirmed verdict reaches the result and ChbenchVerdict', async () => {
  for (const confirms of [true, false]) {
    const runId = `wf-compare-${confirms}-${randomUUID().slice(0, 8)}`;
    stubs.flagged = [
      {
        pairKey: 'v26.7-lz4→v26.7-lz4',
        baselineCell: { runId: 'baseline-run', cellKey: 'v26.7-lz4' },
        newCell: { runId, cellKey: 'v26.7-lz4' },
        queries: [{ query_id: 'q5', phase: 'index' }],
      },
    ];
    stubs.confirms = confirms;
    try {
      const handle = await env.client.workflow.start('benchmarkMatrix', {
        taskQueue: env.taskQueue,
        workflowId: runId,
        args: [baselineSpec()],
      });
      const r = (await handle.result()) as MatrixResult;
      assert.equal(r.status, 'completed');
      assert.deepEqual(r.comparison, {
        verdict: confirms ? 'regression' : 'unchanged',
        baselineRunId: 'baseline-run',
        flagged: ['Q5@index'],
        confirmed: confirms ? ['Q5@index'] : [],
      });
      // Stored before the comparison and again after the report; the re-run between first pass and final verdict.
      assert.deepEqual(
        activitiesOf(runId, [
          'storeRun',
          'compareWithBaseline',
          'planConfirmation',
          'runInterleaved',
          'finishComparison',
          'writeReport',
        ]),
        [
          'storeRun',
          'compareWithBaseline',
          'planConfirmation',
          'runInterleaved',
          'finishComparison',
          'writeReport',
          'storeRun',
        ],
      );
      // Two fresh cells, each provisioned, loaded, indexed (Q5 runs after the index) and torn down.
      for (const side of ['p1-baseline', 'p1-new']) {
        const acts = stubs.callsOf(`${runId}.confirm/${side}`).map((c) => c.activity);
        for (const a of ['provision', 'createSchema', 'loadData', 'materializeSkipIndex', 'teardown'])
          assert.ok(acts.includes(a), `${side}: ${a} in ${acts.join(', ')}`);
      }
      const interleaved = stubs.callsOf(`${runId}.confirm/p1-new`).find((c) => c.activity === 'runInterleaved');
      assert.equal((interleaved?.args[0] as { rounds: number }).rounds, 4);
      const desc = await handle.describe();
      assert.deepEqual(desc.searchAttributes.ChbenchVerdict, [confirms ? 'regression' : 'unchanged']);
    } finally {
      stubs.flagged = [];
      stubs.confirms = true;
    }
  }
});

test('verdicts: a comparing matrix judges its axes after its cells, re-runs the flagged pair interleaved on two fresh cells, then the report', async () => {
  const runId = `wf-verdicts-${randomUUID().slice(0, 8)}`;
  stubs.verdictFlags = [
    {
      pairKey: 'v26.7-lz4→v26.7-zstd3',
      baselineCell: { runId, cellKey: 'v26.7-lz4' },
      newCell: { runId, cellKey: 'v26.7-zstd3' },
      queries: [{ query_id: 'q3', phase: 'baseline' }],
    },
  ];
  try {
    const r = (await env.client.workflow.execute('benchmarkMatrix', {
      taskQueue: env.taskQueue,
      workflowId: runId,
      args: [
        {
          ...baselineSpec(),
          name: 'wf-verdicts',
          baseline: undefined,
          matrix: { version: ['26.7'], codec: ['LZ4', 'ZSTD(3)'] },
          verdicts: { confirmRounds: 3 },
        },
      ],
    })) as MatrixResult;
    assert.deepEqual(r.verdicts, {
      decision: 'stub decision: 1 pair(s) re-run, 0 not',
      control: 'A/A control moves 0 of 0',
      counts: {},
    });
    // After every cell (the control included): judge, plan, the two fresh cells measured interleaved, finish; then the report.
    assert.deepEqual(
      activitiesOf(runId, [
        'judgeVerdicts',
        'planVerdictConfirmation',
        'runInterleaved',
        'finishVerdicts',
        'writeReport',
      ]),
      ['judgeVerdicts', 'planVerdictConfirmation', 'runInterleaved', 'finishVerdicts', 'writeReport'],
    );
    const lastCell = Math.max(
      ...stubs.calls.map((c, i) => (c.key.startsWith(`${runId}/v26.7-`) && c.activity === 'writeCellResult' ? i : -1)),
    );
    assert.ok(
      stubs.calls.findIndex((c) => c.activity === 'judgeVerdicts' && c.key === runId) > lastCell,
      'judged after the last cell',
    );
    assert.ok(
      stubs.calls.some((c) => c.key === `${runId}/v26.7-lz4-r2` && c.activity === 'writeCellResult'),
      'the A/A control cell ran',
    );
    for (const side of ['v1-baseline', 'v1-new']) {
      const acts = stubs.callsOf(`${runId}.confirm/${side}`).map((c) => c.activity);
      for (const a of ['provision', 'createSchema', 'loadData', 'teardown'])
        assert.ok(acts.includes(a), `${side}: ${a} in ${acts.join(', ')}`);
    }
    const interleaved = stubs.callsOf(`${runId}.confirm/v1-new`).find((c) => c.activity === 'runInterleaved');
    assert.equal((interleaved?.args[0] as { rounds: number }).rounds, 3);
  } finally {
    stubs.verdictFlags = [];
  }
});

test('nothing flagged: no re-run; a results database that cannot be written does not lose the run', async () => {
  const runId = `wf-compare-none-${randomUUID().slice(0, 8)}`;
  const r = (await env.client.workflow.execute('benchmarkMatrix', {
    taskQueue: env.taskQueue,
    workflowId: runId,
    args: [baselineSpec()],
  })) as MatrixResult;
  assert.equal(r.comparison?.verdict, 'unchanged');
  assert.deepEqual(activitiesOf(runId, ['planConfirmation', 'runInterleaved']), []);

  const failing = `wf-store-fail-${randomUUID().slice(0, 8)}`;
  stubs.failWith = (activity) =>
    activity === 'storeRun' ? ApplicationFailure.nonRetryable('results database unreachable (stub)') : undefined;
  try {
    const f = (await env.client.workflow.execute('benchmarkMatrix', {
      taskQueue: env.taskQueue,
      workflowId: failing,
      args: [{ ...baselineSpec(), baseline: undefined }],
    })) as MatrixResult;
    assert.equal(f.status, 'completed');
    assert.deepEqual(
      f.cells.map((c) => c.status),
      ['succeeded'],
    );
    assert.equal(stubs.callsOf(failing).filter((c) => c.activity === 'writeReport').length, 1);
  } finally {
    stubs.failWith = undefined;
  }
});

test('host placement: a cell whose placed host takes nothing is placed again elsewhere; an unplaced cell that loses its host starts over on the shared queue; lost hosts get no more cells', async () => {
  const runId = `wf-hosts-${randomUUID().slice(0, 8)}`;
  const ghost = (id: string) => ({ id, taskQueue: `${env.taskQueue}@${id}` });
  // The only host found has no worker: lz4, placed there, is never provisioned by it.
  stubs.hosts = [ghost('ghost')];
  // zstd1's first provisioning reports host ghost2 (no worker polls its queue): its next step is never taken.
  stubs.provisionHost = (cellKey, n) =>
    cellKey === 'v26.7-zstd1' && n === 1
      ? { ...ghost('ghost2'), hostname: 'g2', cpuModel: 'x', cores: 1, memoryBytes: 1, kernel: 'Linux' }
      : undefined;
  try {
    const handle = await env.client.workflow.start('benchmarkMatrix', {
      taskQueue: env.taskQueue,
      workflowId: runId,
      args: [
        {
          name: 'wf',
          workload: 'logs',
          scale: 1000,
          target: { kind: 'embedded' },
          matrix: { version: ['26.7'], codec: ['LZ4', 'ZSTD(1)'] },
          skipIndex: false,
          hostLossTimeoutS: 5,
          resultsDir: '/stub',
        },
      ],
    });
    const r = (await handle.result()) as MatrixResult;
    assert.deepEqual(
      r.cells.map((c) => [c.cellKey, c.status, c.hostLosses?.map((l) => `${l.hostId}@${l.step}`)]),
      [
        ['v26.7-lz4', 'succeeded', ['ghost@provision']],
        ['v26.7-zstd1', 'succeeded', ['ghost2@collect-metrics']],
        // The A/A control cell, placed after the only host was lost: on the shared queue, no loss.
        ['v26.7-lz4-r2', 'succeeded', undefined],
      ],
    );
    // The requeued execution is not an outcome of its own: done counts each cell once.
    const progress = (await handle.query('progress')) as { done: number; total: number; running: string[] };
    assert.deepEqual([progress.done, progress.total, progress.running], [3, 3, []]);
    const results = (k: string) =>
      stubs
        .callsOf(`${runId}/${k}`)
        .filter((c) => c.activity === 'writeCellResult')
        .map((c) => c.args[1] as { status: string; hostLost?: boolean; hostLosses?: { hostId: string }[] });
    // lz4 ran twice: once ended by the lost host (result failed, hostLost), once elsewhere, keeping the loss.
    assert.deepEqual(
      results('v26.7-lz4').map((o) => [o.status, o.hostLost ?? false, o.hostLosses?.map((l) => l.hostId)]),
      [
        ['failed', true, ['ghost']],
        ['succeeded', false, ['ghost']],
      ],
    );
    assert.deepEqual(
      results('v26.7-zstd1').map((o) => [o.status, o.hostLosses?.map((l) => l.hostId)]),
      [['succeeded', ['ghost2']]],
    );
    // Only the shared queue's worker started anything: lz4 provisioned once (the placed attempt was
    // never taken), zstd1 twice (again after the loss), and the teardown on ghost2 never started.
    const started = (k: string, a: string) => stubs.callsOf(`${runId}/${k}`).filter((c) => c.activity === a);
    assert.equal(started('v26.7-lz4', 'provision').length, 1);
    assert.equal(started('v26.7-zstd1', 'provision').length, 2);
    assert.equal(started('v26.7-zstd1', 'teardown').length, 1, 'only the final teardown, on the shared queue');
    // The matrix looked for hosts again once its only host was lost, and placed nothing more there.
    assert.equal(stubs.callsOf(runId).filter((c) => c.activity === 'discoverHosts').length, 2);
    for (const k of ['v26.7-lz4', 'v26.7-zstd1', 'v26.7-lz4-r2'])
      for (const c of started(k, 'provision'))
        assert.equal((c.args[0] as { placement?: unknown }).placement, undefined);
  } finally {
    stubs.hosts = [];
    stubs.provisionHost = undefined;
  }
});
