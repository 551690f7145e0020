/**
 * The comparison activities in `MockActivityEnvironment`, over the in-memory results database test
 * double (`test/helpers/memory-results-db.ts`): baseline resolution (run id, previous scheduled run,
 * version label, none), `comparison.json` written and stored, the small summary, and the confirming
 * re-run applied by `finishComparison`. The real embedded-26.7 results folder is stored when the run
 * is not yet in the database.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, cpSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import seedrandom from 'seedrandom';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createCompareBaseline, comparisonFile } from '../../src/activities/matrix/compare-baseline';
import { BaselineSpec } from '../../src/schema/run-spec';
import { ComparisonRecord } from '../../src/schema/comparison';
import { lognormalSamples } from '../../src/measure/compare';
import { MemoryResultsDb, syntheticRun } from '../helpers/memory-results-db';

const QUERIES = [
  { id: 'Q1', medianMs: 40 },
  { id: 'Q2', medianMs: 90 },
  { id: 'Q3', medianMs: 200 },
];
const CELLS = [
  { version: '26.7', codec: 'LZ4' },
  { version: '26.7', codec: 'ZSTD(3)' },
];

function setup() {
  const dir = mkdtempSync(path.join(tmpdir(), 'chbench-compare-'));
  const db = new MemoryResultsDb();
  const acts = createCompareBaseline({ openDb: async () => db });
  const mock = new MockActivityEnvironment();
  // MockActivityEnvironment.run is typed loosely: keep the activity's own result type.
  const env = {
    run: <A extends unknown[], R>(fn: (...a: A) => Promise<R>, ...a: A) => mock.run(fn, ...a) as Promise<R>,
  };
  return { dir, db, acts, env, done: () => rmSync(dir, { recursive: true, force: true }) };
}

function addRun(
  db: MemoryResultsDb,
  runId: string,
  startedAt: string,
  slow?: Record<string, number>,
  scheduleId = 'quarterly',
) {
  const r = syntheticRun({
    runId,
    startedAt,
    scheduleId,
    cells: CELLS,
    queries: QUERIES,
    warm: 10,
    sigma: 0.05,
    seed: runId,
    slow,
  });
  db.add(r.run, r.cells, r.samples);
}

test('previous-scheduled: A/A then A/B; the summary names the flagged pairs, finishComparison keeps what the re-run confirms', async () => {
  const { dir, db, acts, env, done } = setup();
  try {
    addRun(db, 'q-1', '2026-01-01T00:00:00.000Z');
    addRun(db, 'q-2', '2026-04-01T00:00:00.000Z');
    addRun(db, 'q-3', '2026-07-01T00:00:00.000Z', { Q2: 2 });
    const baseline = BaselineSpec.parse({ from: 'previous-scheduled' });
    const aa = await env.run(acts.compareWithBaseline, {
      resultsDir: dir,
      runId: 'q-2',
      baseline,
      scheduleId: 'quarterly',
      startedAt: '2026-04-01T00:00:00.000Z',
    });
    assert.equal(aa.baselineRunId, 'q-1');
    assert.equal(aa.verdict, 'unchanged');
    assert.deepEqual(aa.flagged, []);
    const ab = await env.run(acts.compareWithBaseline, {
      resultsDir: dir,
      runId: 'q-3',
      baseline,
      scheduleId: 'quarterly',
      startedAt: '2026-07-01T00:00:00.000Z',
    });
    assert.equal(ab.baselineRunId, 'q-2', 'the newest earlier completed run of the schedule');
    assert.equal(ab.verdict, 'regression');
    assert.equal(ab.confirmRounds, 12);
    assert.deepEqual(ab.flagged, [
      {
        pairKey: 'v26.7-lz4→v26.7-lz4',
        baselineCell: { runId: 'q-2', cellKey: 'v26.7-lz4' },
        newCell: { runId: 'q-3', cellKey: 'v26.7-lz4' },
        queries: [{ query_id: 'Q2', phase: 'baseline' }],
      },
      {
        pairKey: 'v26.7-zstd3→v26.7-zstd3',
        baselineCell: { runId: 'q-2', cellKey: 'v26.7-zstd3' },
        newCell: { runId: 'q-3', cellKey: 'v26.7-zstd3' },
        queries: [{ query_id: 'Q2', phase: 'baseline' }],
      },
    ]);
    assert.ok(JSON.stringify(ab).length < 2000, 'the summary is small');
    const first = ComparisonRecord.parse(JSON.parse(readFileSync(comparisonFile(dir, 'q-3'), 'utf8')));
    assert.equal(
      first.baseline_chosen_by,
      'previous successful run of schedule quarterly (started 2026-04-01T00:00:00.000Z)',
    );
    assert.deepEqual(db.comparisons.find((c) => c.run_id === 'q-3')?.flagged, ['Q2']);

    // The re-run: slow again on the LZ4 cell, back to normal on the ZSTD cell.
    const rng = seedrandom('confirm');
    const confirm = ab.flagged.map((f) => ({
      pairKey: f.pairKey,
      samples: f.queries.map((q) => ({
        ...q,
        baseline_ms: lognormalSamples(rng, 12, 90, 0.05),
        new_ms: lognormalSamples(rng, 12, f.pairKey.startsWith('v26.7-lz4') ? 180 : 90, 0.05),
        figure: 'server_elapsed_ms' as const,
      })),
    }));
    const fin = await env.run(acts.finishComparison, { resultsDir: dir, runId: 'q-3', confirm });
    assert.deepEqual(fin, { verdict: 'regression', flagged: ['Q2'], confirmed: ['Q2'] });
    const rec = ComparisonRecord.parse(JSON.parse(readFileSync(comparisonFile(dir, 'q-3'), 'utf8')));
    const finals = rec.pairs.map((p) => p.queries.find((q) => q.query_id === 'Q2')!.final);
    assert.deepEqual(finals, ['regression', 'unchanged']);
    assert.deepEqual(
      db.comparisons.find((c) => c.run_id === 'q-3'),
      rec,
      'the stored record is the file',
    );
    assert.ok(db.closed);
  } finally {
    done();
  }
});

test('no baseline is a record with verdict no-baseline and the reason, not an error', async () => {
  const { dir, db, acts, env, done } = setup();
  try {
    addRun(db, 'q-1', '2026-01-01T00:00:00.000Z');
    const prev = await env.run(acts.compareWithBaseline, {
      resultsDir: dir,
      runId: 'q-1',
      baseline: BaselineSpec.parse({ from: 'previous-scheduled' }),
      scheduleId: 'quarterly',
      startedAt: '2026-01-01T00:00:00.000Z',
    });
    assert.deepEqual(prev, {
      comparisonId: 'q-1-vs-none',
      baselineRunId: '',
      verdict: 'no-baseline',
      confirmRounds: 12,
      flagged: [],
      note: 'no baseline: previous successful run of schedule quarterly: none started before 2026-01-01T00:00:00.000Z (this is its first completed run)',
    });
    const rec = ComparisonRecord.parse(JSON.parse(readFileSync(comparisonFile(dir, 'q-1'), 'utf8')));
    assert.match(rec.baseline_chosen_by, /none started before 2026-01-01T00:00:00.000Z/);
    assert.equal(rec.unpaired.length, 2);
    const unscheduled = await env.run(acts.compareWithBaseline, {
      resultsDir: dir,
      runId: 'q-1',
      baseline: BaselineSpec.parse({ from: 'previous-scheduled' }),
      startedAt: '2026-01-01T00:00:00.000Z',
    });
    assert.equal(unscheduled.verdict, 'no-baseline');
    assert.match(readFileSync(comparisonFile(dir, 'q-1'), 'utf8'), /this run was not started by a schedule/);
    const unknown = await env.run(acts.compareWithBaseline, {
      resultsDir: dir,
      runId: 'q-1',
      baseline: BaselineSpec.parse({ from: 'run', run: 'nope' }),
      startedAt: '2026-01-01T00:00:00.000Z',
    });
    assert.equal(unknown.verdict, 'no-baseline');
    assert.deepEqual(await env.run(acts.finishComparison, { resultsDir: dir, runId: 'q-1', confirm: [] }), {
      verdict: 'no-baseline',
      flagged: [],
      confirmed: [],
    });
  } finally {
    done();
  }
});

test('version baseline inside one run: 24.8 is the baseline of 26.7, per codec', async () => {
  const { dir, db, acts, env, done } = setup();
  try {
    const r = syntheticRun({
      runId: 'm',
      cells: ['24.8', '26.7'].flatMap((version) => ['LZ4', 'ZSTD(3)'].map((codec) => ({ version, codec }))),
      queries: QUERIES,
      warm: 10,
      sigma: 0.05,
      seed: 'm',
      slowCell: { 'v26.7-lz4': { Q3: 0.5 } },
    });
    db.add(r.run, r.cells, r.samples);
    const s = await env.run(acts.compareWithBaseline, {
      resultsDir: dir,
      runId: 'm',
      baseline: BaselineSpec.parse({ from: 'version', version: '24.8', confirmRounds: 0 }),
      startedAt: r.run.started_at,
    });
    assert.equal(s.baselineRunId, 'm');
    assert.equal(s.comparisonId, 'm-vs-v24.8');
    assert.equal(s.verdict, 'improvement');
    assert.equal(s.confirmRounds, 0);
    assert.deepEqual(
      s.flagged.map((f) => [f.pairKey, f.queries]),
      [['v24.8-lz4→v26.7-lz4', [{ query_id: 'Q3', phase: 'baseline' }]]],
    );
    // No re-run (confirmRounds 0): the first-pass flags stand, unconfirmed.
    assert.deepEqual(
      await env.run(acts.finishComparison, {
        resultsDir: dir,
        runId: 'm',
        confirm: [],
        confirmError: 'confirmRounds is 0: no re-run',
      }),
      {
        verdict: 'improvement',
        flagged: ['Q3'],
        confirmed: [],
      },
    );
  } finally {
    done();
  }
});

test('a run not yet in the database is stored from its results folder (the real embedded-26.7 fixture); an unknown run fails', async () => {
  const { dir, db, acts, env, done } = setup();
  try {
    cpSync(
      path.join(__dirname, '../../../test/fixtures/results/embedded-26.7'),
      path.join(dir, 'demo-20261130-064639'),
      { recursive: true },
    );
    const s = await env.run(acts.compareWithBaseline, {
      resultsDir: dir,
      runId: 'demo-20261130-064639',
      baseline: BaselineSpec.parse({ from: 'version', version: '26.7' }),
      startedAt: '2026-11-30T06:46:39.818Z',
    });
    assert.equal(db.runs.length, 1);
    assert.equal(db.cellRows.length, 2);
    assert.equal(s.verdict, 'unstable', 'every cell is version 26.7, so nothing is paired');
    const rec = ComparisonRecord.parse(JSON.parse(readFileSync(comparisonFile(dir, 'demo-20261130-064639'), 'utf8')));
    assert.deepEqual(rec.pairs, []);
    await assert.rejects(
      env.run(acts.compareWithBaseline, {
        resultsDir: dir,
        runId: 'ghost',
        baseline: BaselineSpec.parse({ from: 'previous-scheduled' }),
        startedAt: '2026-01-01T00:00:00.000Z',
      }),
      /run ghost is neither in the results database/,
    );
    await assert.rejects(
      env.run(acts.finishComparison, { resultsDir: dir, runId: 'ghost', confirm: [] }),
      /comparison\.json: no such file/,
    );
  } finally {
    done();
  }
});
