/**
 * Live progress of `chbench run`: the rendering is a pure function of a snapshot (tested on the
 * heartbeat shapes the steps send today and the standardised one), the views print what changed,
 * and a snapshot taken from a real running cell (dev server, worker, embedded engine) holds its
 * current step, pending activity and decoded heartbeat details.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { startTemporalEnv } from '../helpers/temporal-env';
import {
  cellLine,
  heartbeatFraction,
  heartbeatLine,
  renderSnapshot,
  takeSnapshot,
  ProgressView,
  STALE_HEARTBEAT_MS,
  type CellSnapshot,
  type RunSnapshot,
} from '../../src/temporal/progress';
import type { MatrixProgress, MatrixResult } from '../../src/workflows';

const NOW = 1_800_000_000_000;
const matrix = (o: Partial<MatrixProgress> = {}): MatrixProgress => ({
  runId: 'r',
  phase: 'cells',
  total: 2,
  done: 0,
  running: ['v26.7-lz4'],
  failed: [],
  skipped: [],
  succeeded: [],
  cancelled: [],
  reused: 0,
  ...o,
});
const cell = (o: Partial<CellSnapshot>): CellSnapshot => ({ cellKey: 'v26.7-lz4', workflowId: 'r/v26.7-lz4', ...o });

test('heartbeatLine: progress first, else a line from the known fields, robust to any shape', () => {
  assert.equal(
    heartbeatLine({ step: 'load', progress: 'loading 12 % (12 M of 100 M rows)', written_rows: 1 }),
    'loading 12 % (12 M of 100 M rows)',
  );
  assert.equal(heartbeatLine({ step: 'queries-baseline', query: 'q3', run: 'cold 1' }), 'query q3, run cold 1');
  assert.equal(
    heartbeatLine({ step: 'load', written_rows: 25_000_000, total_rows: 100_000_000, elapsed_ms: 61_500 }),
    '25,000,000 / 100,000,000 rows written (25 %), 1 min 2 s elapsed',
  );
  assert.equal(
    heartbeatLine({ step: 'q', rows_read: 512, total_rows: 2048, result_bytes: 3 * 1024 * 1024 }),
    '512 / 2,048 rows read (25 %), result 3.0 MiB',
  );
  assert.equal(
    heartbeatLine({ step: 'materialize-index', parts_to_do: 3, mutations: 1 }),
    '3 parts to do, mutations 1',
  );
  assert.equal(
    heartbeatLine({ step: 'quiesce', active_parts: 8, merges: 0, mutations: 0, stable_ms: 1200 }),
    'active parts 8, merges 0, mutations 0',
  );
  assert.equal(
    heartbeatLine({ step: 'load', elapsed_ms: 2000, statement: 'INSERT INTO logs\n  SELECT * FROM generate()' }),
    '2.0 s elapsed, `INSERT INTO logs SELECT * FROM generate()`',
  );
  assert.equal(
    heartbeatLine({ step: 'x', progress: '   ', written_rows: '7' }),
    '7 rows written',
    'blank progress ignored, numeric strings accepted',
  );
  assert.equal(heartbeatLine(undefined), '');
  assert.equal(heartbeatLine(null), '');
  assert.equal(heartbeatLine('waiting'), 'waiting');
  assert.equal(heartbeatLine([{ step: 'load', query: 'q1' }]), 'query q1');
  assert.equal(
    heartbeatLine({ step: 'x', nested: { a: 1 }, total_rows: NaN }),
    '',
    'nested objects and non-finite numbers are skipped',
  );
  assert.equal(heartbeatLine({ waiting_for_previous_attempt: 'abc' }), 'waiting for previous attempt abc');
});

test('heartbeatFraction: a SELECT (written_rows 0) is judged by rows read; an INSERT by the larger counter', () => {
  assert.equal(heartbeatFraction({ rows_read: 50_000_000, written_rows: 0, total_rows: 100_000_000 }), 0.5);
  assert.equal(heartbeatFraction({ rows_read: 30, written_rows: 25, total_rows: 100 }), 0.3);
  assert.equal(heartbeatFraction({ written_rows: 10, total_rows: 100 }), 0.1);
  assert.equal(heartbeatFraction({ rows_read: 10 }), undefined);
});

test('cellLine: step, activity, attempt, bar, heartbeat, and the age only when stale', () => {
  const fresh = cell({
    step: 'load',
    activityType: 'loadData',
    activityState: 'started',
    attempt: 1,
    heartbeat: { step: 'load', written_rows: 50, total_rows: 200 },
    lastHeartbeatAt: NOW - 2000,
  });
  assert.equal(cellLine(fresh, NOW), 'v26.7-lz4  load (loadData) [###---------]: 50 / 200 rows written (25 %)');
  const stale = { ...fresh, lastHeartbeatAt: NOW - STALE_HEARTBEAT_MS - 32_000 };
  assert.match(cellLine(stale, NOW), /— last heartbeat 42 s ago$/);
  assert.match(
    cellLine(cell({ step: 'load', activityState: 'started', startedAt: NOW - 15_000 }), NOW),
    /load — no heartbeat for 15 s$/,
  );
  assert.equal(
    cellLine(
      cell({ step: 'provision', activityType: 'provision', activityState: 'scheduled', startedAt: NOW - 60_000 }),
      NOW,
    ),
    'v26.7-lz4  provision — waiting for a worker',
  );
  assert.equal(
    cellLine(
      cell({
        step: 'queries-baseline',
        activityType: 'runQueries',
        attempt: 3,
        lastFailure: 'socket hang up',
        heartbeat: { step: 'queries-baseline', query: 'q2', run: 'warm 2' },
      }),
      NOW,
    ),
    'v26.7-lz4  queries-baseline (runQueries): query q2, run warm 2 — attempt 3: socket hang up',
  );
  assert.equal(
    cellLine(
      cell({
        step: 'provision',
        activityType: 'provision',
        activityState: 'scheduled',
        attempt: 2,
        lastFailure: 'connect ECONNREFUSED 127.0.0.1:9000',
        nextAttemptAt: NOW + 1500,
      }),
      NOW,
    ),
    'v26.7-lz4  provision — attempt 2: connect ECONNREFUSED 127.0.0.1:9000 — next try in 2 s',
    'waiting out a retry backoff is not "waiting for a worker"',
  );
  assert.equal(
    renderSnapshot({
      runId: 'r',
      takenAt: NOW,
      progress: matrix({ phase: 'report', running: [] }),
      cells: [],
      matrixStep: cell({
        cellKey: 'run',
        workflowId: 'r',
        activityType: 'writeReport',
        activityState: 'started',
        attempt: 2,
        lastFailure: 'EACCES: permission denied',
      }),
    }).join('\n'),
    'cells 0/2 | report | 0 running, 0 failed, 0 skipped\n  run  writeReport — attempt 2: EACCES: permission denied',
    "the matrix's own retrying step has its line",
  );
  assert.equal(
    cellLine(cell({ heartbeat: { step: 'quiesce' } }), NOW),
    'v26.7-lz4  quiesce',
    'step from the heartbeat when the search attribute is missing',
  );
  assert.match(
    cellLine(cell({ error: 'workflow not found' }), NOW),
    /cannot describe r\/v26.7-lz4: workflow not found/,
  );
});

test('renderSnapshot: the overall line then one line per running cell', () => {
  const s: RunSnapshot = {
    runId: 'r',
    takenAt: NOW,
    progress: matrix({ done: 1, running: ['a', 'b'], succeeded: ['c'] }),
    cells: [cell({ cellKey: 'a', step: 'load' }), cell({ cellKey: 'b', step: 'provision' })],
  };
  assert.deepEqual(renderSnapshot(s), [
    'cells 1/2 | cells | 2 running, 0 failed, 0 skipped',
    '  a  load',
    '  b  provision',
  ]);
});

/** A writable that keeps what it was given. */
function sink(isTTY: boolean): Writable & { text: () => string; isTTY: boolean; columns: number } {
  const chunks: string[] = [];
  const w = new Writable({ write: (c, _e, cb) => (chunks.push(String(c)), cb()) }) as Writable & {
    text: () => string;
    isTTY: boolean;
    columns: number;
  };
  w.text = () => chunks.join('');
  w.isTTY = isTTY;
  w.columns = 200;
  return w;
}

test('without a terminal: changed lines only, at most once per interval', () => {
  const out = sink(false);
  const v = new ProgressView({ stream: out as unknown as NodeJS.WriteStream, minIntervalMs: 5000 });
  const snap = (hb: unknown): RunSnapshot => ({
    runId: 'r',
    takenAt: NOW,
    progress: matrix(),
    cells: [cell({ step: 'load', heartbeat: hb })],
  });
  v.update(snap({ elapsed_ms: 1000 }), NOW);
  v.update(snap({ elapsed_ms: 2000 }), NOW + 1000); // within the interval: not printed
  v.update(snap({ elapsed_ms: 2000 }), NOW + 6000); // printed: the cell line changed, the overall did not
  v.update(snap({ elapsed_ms: 2000 }), NOW + 12_000); // nothing changed
  v.stop();
  assert.deepEqual(out.text().split('\n').filter(Boolean), [
    'cells 0/2 | cells | 1 running, 0 failed, 0 skipped',
    '  v26.7-lz4  load: 1.0 s elapsed',
    '  v26.7-lz4  load: 2.0 s elapsed',
  ]);
});

test('on a terminal: a multibar with the overall bar and one line per running cell', () => {
  const out = sink(true);
  const v = new ProgressView({ stream: out as unknown as NodeJS.WriteStream });
  v.update(
    {
      runId: 'r',
      takenAt: NOW,
      progress: matrix({ running: ['a', 'b'] }),
      cells: [
        cell({ cellKey: 'a', step: 'load', heartbeat: { query: 'q1' } }),
        cell({ cellKey: 'b', step: 'provision' }),
      ],
    },
    NOW,
  );
  v.update(
    {
      runId: 'r',
      takenAt: NOW,
      progress: matrix({ done: 1, running: ['b'] }),
      cells: [cell({ cellKey: 'b', step: 'create-schema' })],
    },
    NOW,
  );
  v.stop();
  // cli-progress redraws on its own schedule: check the last frame, drawn at stop.
  const text = out.text();
  assert.match(text, /cells .*█.* 1\/2 \| cells \| 1 running, 0 failed, 0 skipped/);
  assert.match(
    text,
    // eslint-disable-next-line no-control-regex -- the ANSI escapes are what is asserted
    /\n\x1B\[1G {2}b {2}create-schema\x1B\[0K\n$/,
    'the last line drawn is the running cell; the finished one was removed',
  );
  assert.doesNotMatch(text.slice(text.lastIndexOf('cells ')), /a {2}load/);
});

test('a snapshot of a real running cell holds its current step and heartbeat details', async () => {
  const env = await startTemporalEnv('progress');
  try {
    const runId = `progress-${Date.now()}`;
    const spec = {
      name: 'progress',
      workload: 'logs',
      scale: 300_000,
      target: { kind: 'embedded' },
      matrix: { version: ['26.7'], codec: ['LZ4'] },
      skipIndex: false,
      protocol: { quiesce: { stableForMs: 3000 } },
      resultsDir: env.resultsDir,
    };
    const handle = await env.client.workflow.start('benchmarkMatrix', {
      taskQueue: env.taskQueue,
      workflowId: runId,
      args: [spec],
    });
    const seen = new Map<string, { snap: RunSnapshot; c: CellSnapshot }>(); // step → first snapshot with a heartbeat
    const closed = handle.result().then(() => true);
    let done = false;
    void closed.then(
      () => (done = true),
      () => (done = true),
    );
    while (!done) {
      const s = await takeSnapshot(env.client, runId);
      for (const c of s?.cells ?? [])
        if (c.heartbeat && typeof c.heartbeat === 'object' && c.step && !seen.has(c.step))
          seen.set(c.step, { snap: s!, c });
      await new Promise((r) => setTimeout(r, 150));
    }
    const r = (await handle.result()) as MatrixResult;
    assert.deepEqual(
      r.cells.map((c) => c.status),
      ['succeeded'],
    );
    assert.ok(seen.size >= 1, 'at least one step was seen with its heartbeat');
    for (const [step, { snap, c }] of seen) {
      const hb = c.heartbeat as Record<string, unknown>;
      assert.equal(c.cellKey, 'v26.7-lz4');
      // The watcher labels a step by its activity name until the activity names its step itself.
      assert.ok(
        hb.step === step || hb.step === c.activityType,
        `the heartbeat belongs to the cell's current step (${JSON.stringify(c)})`,
      );
      assert.equal(typeof c.activityType, 'string');
      assert.ok((c.attempt ?? 0) >= 1);
      assert.equal(typeof c.lastHeartbeatAt, 'number');
      assert.ok(Math.abs(c.lastHeartbeatAt! - snap.takenAt) < 120_000, 'heartbeat time is a real recent time');
      const line = renderSnapshot(snap)[1];
      assert.ok(line.includes(`v26.7-lz4  ${step}`), line);
    }
    const q = [...seen.values()].find(({ c }) => (c.heartbeat as Record<string, unknown>).query !== undefined);
    if (q) assert.match(renderSnapshot(q.snap)[1], /query q\d, run (cold|warm|warmup)/);
    else {
      // The query step is short at this scale; a snapshot may miss it. Every step seen is listed.
    }
    console.log(
      `steps seen with a heartbeat: ${[...seen.keys()].join(', ')}; e.g. ${[...seen.values()].map(({ snap }) => renderSnapshot(snap)[1].trim()).join(' | ')}`,
    );
  } finally {
    await env.stop();
  }
});
