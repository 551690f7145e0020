/**
 * The comparison statistics (`src/measure/compare.ts`): A/A flags nothing, a slowdown is flagged on
 * exactly the slowed queries, too few or too noisy runs are `unstable`, cells pair as documented,
 * the confirming re-run keeps only what it confirms, and the run verdict's precedence. Synthetic
 * runs are lognormal noise (seeded); one test reads the real embedded-26.7 fixture. No server.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import seedrandom from 'seedrandom';
import {
  applyConfirmation,
  compareRuns,
  compareSamples,
  confirmSamplesOf,
  flaggedQueries,
  lognormalSamples,
  pairCells,
  runVerdict,
  simulateDetection,
  type CompareRunsInput,
  type ConfirmSamples,
} from '../../src/measure/compare';
import { ComparisonRecord } from '../../src/schema/comparison';
import { MemoryResultsDb, syntheticRun, type SyntheticQuery } from '../helpers/memory-results-db';

const OPTS = { minChange: 0.1, unstableAbove: 0.3, minRuns: 7 };
const RUN_OPTS = { ...OPTS, confirmRounds: 12 };
const QUERIES: SyntheticQuery[] = [
  { id: 'Q1', medianMs: 12 },
  { id: 'Q2', medianMs: 80 },
  { id: 'Q3', medianMs: 450 },
  { id: 'Q4', medianMs: 35 },
  { id: 'Q5', medianMs: 300 },
  { id: 'Q5', phase: 'index', medianMs: 60 },
];

function input(
  a: ReturnType<typeof syntheticRun>,
  b: ReturnType<typeof syntheticRun>,
  extra: Partial<CompareRunsInput> = {},
): CompareRunsInput {
  return {
    comparisonId: `${b.run.run_id}-vs-${a.run.run_id}`,
    runId: b.run.run_id,
    baselineRunId: a.run.run_id,
    baselineChosenBy: `run ${a.run.run_id}`,
    mode: { kind: 'runs' },
    baselineCells: a.cells,
    newCells: b.cells,
    baselineSamples: a.samples,
    newSamples: b.samples,
    options: RUN_OPTS,
    createdAt: '2026-01-02T00:00:00.000Z',
    ...extra,
  };
}

test('A/A: 200 seeds of 5 % noise at n = 7 flag nothing (false-positive rate ≤ 1 %)', () => {
  const f = simulateDetection({ n: 7, sigma: 0.05, trueRatio: 1, seeds: 200, options: OPTS });
  assert.ok(f.rate <= 0.01, `A/A flagged ${f.rate * 100} % (${JSON.stringify(f.counts)})`);
  assert.equal(f.counts.unstable, 0, 'n = 7 at 5 % noise is decidable');
});

test('power: a true 1.5× slowdown with 5 % noise is detected at n = 7 and n = 15 in ≥ 95 % of 200 seeds', () => {
  for (const n of [7, 15]) {
    const f = simulateDetection({ n, sigma: 0.05, trueRatio: 1.5, seeds: 200, options: OPTS });
    assert.ok(f.rate >= 0.95, `n=${n}: detected ${f.rate * 100} % (${JSON.stringify(f.counts)})`);
    assert.equal(f.counts.improvement, 0);
  }
});

test('compareSamples: a 2× slowdown is a regression with the CI above 1 + threshold, a 0.5× an improvement; reason carries the numbers', () => {
  const rng = seedrandom('x');
  const b = lognormalSamples(rng, 10, 100, 0.05);
  const slow = compareSamples(b, lognormalSamples(rng, 10, 200, 0.05), { ...OPTS, seed: 1 });
  assert.equal(slow.verdict, 'regression');
  assert.ok(slow.ratio! > 1.8 && slow.ratio! < 2.2, String(slow.ratio));
  assert.ok(slow.ci_low! > 1 + slow.threshold! && slow.ci_low! <= slow.ratio! && slow.ratio! <= slow.ci_high!);
  assert.ok(slow.threshold! >= 0.1, 'threshold floored at minChange');
  assert.match(slow.reason, /CI \d\.\d{3}–\d\.\d{3} above 1 \+ threshold \d\.\d{3}/);
  const fast = compareSamples(b, lognormalSamples(rng, 10, 50, 0.05), { ...OPTS, seed: 1 });
  assert.equal(fast.verdict, 'improvement');
  assert.ok(fast.ci_high! < 1 / (1 + fast.threshold!));
});

test('compareSamples is deterministic for a seed and its threshold tracks the baseline noise', () => {
  const rng = seedrandom('d');
  const b = lognormalSamples(rng, 15, 100, 0.05);
  const c = lognormalSamples(rng, 15, 104, 0.05);
  assert.deepEqual(compareSamples(b, c, { ...OPTS, seed: 7 }), compareSamples(b, c, { ...OPTS, seed: 7 }));
  const noisy = lognormalSamples(seedrandom('n'), 15, 100, 0.12);
  const t = compareSamples(noisy, noisy, { ...OPTS, seed: 7 }).threshold!;
  assert.ok(t > 0.1, `a 12 % noise baseline learns a threshold above the 10 % floor, got ${t}`);
});

test('unstable: too few warm runs on a side, and a baseline whose own noise exceeds unstableAbove', () => {
  const rng = seedrandom('u');
  const few = compareSamples(lognormalSamples(rng, 5, 100, 0.01), lognormalSamples(rng, 9, 300, 0.01), {
    ...OPTS,
    seed: 1,
  });
  assert.equal(few.verdict, 'unstable', 'a 3× slowdown on 5 baseline runs is still not judged');
  assert.match(few.reason, /5 in the baseline, 9 in the new run \(at least 7/);
  const noisy = compareSamples(lognormalSamples(rng, 15, 100, 0.4), lognormalSamples(rng, 15, 100, 0.4), {
    ...OPTS,
    seed: 1,
  });
  assert.equal(noisy.verdict, 'unstable');
  assert.ok(noisy.threshold! > 0.3);
  assert.match(noisy.reason, /above unstableAbove 30 %/);
  // The same noisy baseline still decides a change far beyond its noise (an 18× speed-up): the interval
  // below 1 / (1 + noise)².
  const noisyBase = lognormalSamples(rng, 15, 100, 0.4);
  const far = compareSamples(noisyBase, lognormalSamples(rng, 15, 100 / 18, 0.1), { ...OPTS, seed: 1 });
  assert.equal(far.verdict, 'improvement', far.reason);
  assert.match(far.reason, /below 1 \/ \(1 \+ noise\)² .*far beyond the baseline's own disagreement/);
  const high = simulateDetection({ n: 7, sigma: 0.4, trueRatio: 1, seeds: 50, options: OPTS });
  assert.ok(high.counts.unstable >= 45, `40 % noise is mostly unstable: ${JSON.stringify(high.counts)}`);
});

test('a multi-query run: A/A flags nothing; A/B with Q2 and Q5@index 2× slower flags exactly those (and the record validates)', () => {
  const cells = [{ version: '26.7', codec: 'LZ4' }];
  const a = syntheticRun({ runId: 'a', cells, queries: QUERIES, warm: 10, sigma: 0.05, seed: 'a' });
  for (let s = 0; s < 20; s++) {
    const a2 = syntheticRun({ runId: `a2-${s}`, cells, queries: QUERIES, warm: 10, sigma: 0.05, seed: `a2-${s}` });
    const rec = compareRuns(input(a, a2));
    assert.deepEqual(rec.flagged, [], `A/A seed ${s}`);
    assert.equal(rec.verdict, 'unchanged');
  }
  const b = syntheticRun({
    runId: 'b',
    cells: [{ version: '26.7', codec: 'LZ4', settings: { max_threads: 1 } }],
    queries: QUERIES,
    warm: 10,
    sigma: 0.05,
    seed: 'b',
    slowCell: { 'v26.7-lz4': { Q2: 2 } },
  });
  // The index phase's Q5 is slowed alone: change the samples of that phase only.
  for (const s of b.samples)
    if (s.phase === 'index' && s.query_id === 'Q5') s.server_elapsed_ms = s.server_elapsed_ms! * 2;
  const rec = ComparisonRecord.parse(compareRuns(input(a, b)));
  assert.deepEqual(rec.flagged, ['Q2', 'Q5@index']);
  assert.equal(rec.verdict, 'regression');
  assert.deepEqual(rec.pairs[0].differences, ['setting max_threads: unset → 1']);
  assert.equal(rec.pairs[0].pair_key, 'v26.7-lz4→v26.7-lz4');
  const q5i = rec.pairs[0].queries.find((q) => q.query_id === 'Q5' && q.phase === 'index')!;
  assert.equal(q5i.figure, 'server_elapsed_ms');
  assert.equal(q5i.n_baseline, 10, 'cold and warm-up runs are left out');
  const q5 = rec.pairs[0].queries.find((q) => q.query_id === 'Q5' && q.phase === 'baseline')!;
  assert.equal(q5.verdict, 'unchanged');
  assert.equal(q5.final, 'unchanged');
  assert.equal(q5.confirm, undefined);
});

test('invalid warm runs are left out, and wall time is compared when a kept run lacks a server time', () => {
  const cells = [{ version: '26.7', codec: 'LZ4' }];
  const a = syntheticRun({
    runId: 'a',
    cells,
    queries: [{ id: 'Q1', medianMs: 100 }],
    warm: 9,
    sigma: 0.05,
    seed: 'a',
  });
  const b = syntheticRun({
    runId: 'b',
    cells,
    queries: [{ id: 'Q1', medianMs: 100 }],
    warm: 9,
    sigma: 0.05,
    seed: 'b',
  });
  const warmB = b.samples.filter((s) => s.kind === 'warm');
  warmB[0].valid = false;
  warmB[0].server_elapsed_ms = 10_000;
  warmB[1].valid = false;
  warmB[2].server_elapsed_ms = null;
  const q = compareRuns(input(a, b)).pairs[0].queries[0];
  assert.equal(q.n_new, 7);
  assert.equal(q.figure, 'wall_ms');
  assert.equal(q.verdict, 'unchanged');
});

test('the real embedded-26.7 fixture compared with itself: 3 warm runs a query is too few, every query unstable', async () => {
  const db = new MemoryResultsDb();
  await db.storeRun(path.join(__dirname, '../../../test/fixtures/results/embedded-26.7'));
  const runId = db.runs[0].run_id;
  const cells = await db.cells(runId);
  const samples = await db.samples(runId);
  const rec = compareRuns({
    comparisonId: 'self',
    runId,
    baselineRunId: runId,
    baselineChosenBy: `run ${runId}`,
    mode: { kind: 'runs' },
    baselineCells: cells,
    newCells: cells,
    baselineSamples: samples,
    newSamples: samples,
    options: RUN_OPTS,
    createdAt: '2026-01-01T00:00:00.000Z',
  });
  assert.equal(rec.pairs.length, 2);
  assert.deepEqual(
    rec.pairs.map((p) => p.pair_key),
    ['v26.7-lz4→v26.7-lz4', 'v26.7-zstd3→v26.7-zstd3'],
  );
  const qs = rec.pairs.flatMap((p) => p.queries);
  assert.equal(qs.length, 12, '5 baseline-phase queries and q5 after the index, per cell');
  assert.ok(
    qs.every(
      (q) => q.verdict === 'unstable' && q.n_baseline === 3 && q.ratio === 1 && q.figure === 'server_elapsed_ms',
    ),
  );
  assert.equal(rec.verdict, 'unstable');
  assert.deepEqual(rec.flagged, []);
});

test('pairCells: cells of a settings-profile axis pair with the same profile (across versions too)', () => {
  const cells = (runId: string, keys: string[]) =>
    syntheticRun({
      runId,
      cells: keys.map((k) => ({ version: k.slice(1, k.indexOf('-')), codec: 'LZ4' })),
      queries: [],
      warm: 0,
      sigma: 0,
      seed: runId,
    }).cells.map((c, i) => ({ ...c, cell_key: keys[i] }));
  const a = cells('a', ['v26.7-lz4-default', 'v26.7-lz4-two-threads']);
  const b = cells('b', ['v26.7-lz4-two-threads', 'v26.7-lz4-default']);
  assert.deepEqual(
    pairCells(a, b, { kind: 'runs' }).pairs.map((x) => `${x.baseline.cell_key}→${x.new.cell_key}`),
    ['v26.7-lz4-two-threads→v26.7-lz4-two-threads', 'v26.7-lz4-default→v26.7-lz4-default'],
  );
  const m = cells('m', ['v24.8-lz4-default', 'v24.8-lz4-two-threads', 'v26.7-lz4-two-threads', 'v26.7-lz4-default']);
  assert.deepEqual(
    pairCells(m, m, { kind: 'version', version: '24.8' }).pairs.map((x) => `${x.baseline.cell_key}→${x.new.cell_key}`),
    ['v24.8-lz4-two-threads→v26.7-lz4-two-threads', 'v24.8-lz4-default→v26.7-lz4-default'],
  );
});

test('pairCells: by codec, then version label, then repetition; failed cells and missing partners unpaired with reasons', () => {
  const a = syntheticRun({
    runId: 'a',
    cells: [
      { version: '24.8', codec: 'LZ4' },
      { version: '26.7', codec: 'LZ4' },
      { version: '26.7', codec: 'ZSTD(3)' },
    ],
    queries: [],
    warm: 0,
    sigma: 0,
    seed: 'a',
  }).cells;
  const b = syntheticRun({
    runId: 'b',
    cells: [
      { version: '26.7', codec: 'LZ4' },
      { version: '26.8', codec: 'ZSTD(3)' },
      { version: '26.8', codec: 'LZ4', status: 'failed' },
      { version: '26.8', codec: 'Delta,ZSTD' },
      { version: '25.1', codec: 'LZ4' },
    ],
    queries: [],
    warm: 0,
    sigma: 0,
    seed: 'b',
  }).cells;
  const p = pairCells(a, b, { kind: 'runs' });
  assert.deepEqual(
    p.pairs.map((x) => `${x.baseline.cell_key}→${x.new.cell_key}`),
    ['v26.7-lz4→v26.7-lz4', 'v26.7-zstd3→v26.8-zstd3'],
  );
  assert.deepEqual(p.pairs[0].differences, []);
  assert.deepEqual(p.pairs[1].differences, ['version 26.7 → 26.8', 'server version 26.7.1.1 → 26.8.1.1']);
  assert.deepEqual(
    p.unpaired.map((u) => u.cell),
    ['v26.8-lz4', 'v26.8-delta,zstd', 'v25.1-lz4'],
  );
  assert.match(p.unpaired[0].reason, /^cell failed/);
  assert.match(p.unpaired[1].reason, /no succeeded baseline cell .* codec Delta,ZSTD/);
  assert.match(p.unpaired[2].reason, /^ambiguous: 2 baseline cells match \(v24\.8-lz4, v26\.7-lz4\)/);
  // Repetitions pair with the same repetition.
  const ra = syntheticRun({
    runId: 'a',
    cells: [1, 2].map((repetition) => ({ version: '26.7', codec: 'LZ4', repetition })),
    queries: [],
    warm: 0,
    sigma: 0,
    seed: 'a',
  }).cells;
  const rb = syntheticRun({
    runId: 'b',
    cells: [2, 1].map((repetition) => ({ version: '26.7', codec: 'LZ4', repetition })),
    queries: [],
    warm: 0,
    sigma: 0,
    seed: 'b',
  }).cells;
  assert.deepEqual(
    pairCells(ra, rb, { kind: 'runs' }).pairs.map((x) => `${x.baseline.cell_key}→${x.new.cell_key}`),
    ['v26.7-lz4-r2→v26.7-lz4-r2', 'v26.7-lz4-r1→v26.7-lz4-r1'],
  );
});

test('pairCells in version mode: the baseline version\u2019s cells pair with every other version\u2019s cell of the same codec', () => {
  const run = syntheticRun({
    runId: 'm',
    cells: ['24.8', '25.3', '26.7'].flatMap((version) => ['LZ4', 'ZSTD(3)'].map((codec) => ({ version, codec }))),
    queries: [],
    warm: 0,
    sigma: 0,
    seed: 'm',
  }).cells;
  const p = pairCells(run, run, { kind: 'version', version: '24.8' });
  assert.deepEqual(
    p.pairs.map((x) => `${x.baseline.cell_key}→${x.new.cell_key}`),
    ['v24.8-lz4→v25.3-lz4', 'v24.8-zstd3→v25.3-zstd3', 'v24.8-lz4→v26.7-lz4', 'v24.8-zstd3→v26.7-zstd3'],
  );
  assert.deepEqual(p.unpaired, []);
  assert.equal(p.pairs[0].differences[0], 'version 24.8 → 25.3');
  const none = pairCells(run, run, { kind: 'version', version: '23.1' });
  assert.equal(none.pairs.length, 0);
  assert.equal(none.unpaired.length, 6);
  assert.match(none.unpaired[0].reason, /version 23\.1 \(the baseline\) is not in this run's matrix/);
});

function confirmFor(
  rec: ComparisonRecord,
  factor: (queryId: string) => number,
  seed: string,
  rounds = 12,
): ConfirmSamples[] {
  const rng = seedrandom(seed);
  return flaggedQueries(rec).map(({ pair, queries }) => ({
    pairKey: pair.pair_key,
    samples: queries.map((q) => ({
      query_id: q.query_id,
      phase: q.phase,
      baseline_ms: lognormalSamples(rng, rounds, q.median_baseline_ms!, 0.05),
      new_ms: lognormalSamples(rng, rounds, q.median_baseline_ms! * factor(q.query_id), 0.05),
      figure: 'server_elapsed_ms' as const,
    })),
  }));
}

test('applyConfirmation keeps only what the interleaved re-run confirms; the run verdict follows the finals', () => {
  const cells = [{ version: '26.7', codec: 'LZ4' }];
  const q = [
    { id: 'Q1', medianMs: 50 },
    { id: 'Q2', medianMs: 80 },
    { id: 'Q3', medianMs: 120 },
  ];
  const a = syntheticRun({ runId: 'a', cells, queries: q, warm: 10, sigma: 0.05, seed: 'a' });
  const b = syntheticRun({
    runId: 'b',
    cells,
    queries: q,
    warm: 10,
    sigma: 0.05,
    seed: 'b',
    slow: { Q1: 2, Q2: 2, Q3: 0.5 },
  });
  const first = compareRuns(input(a, b));
  assert.deepEqual(first.flagged, ['Q1', 'Q2', 'Q3']);
  assert.equal(first.verdict, 'regression');
  // The re-run sees Q1 slow again, Q2 back to normal (a transient), Q3 faster again.
  const done = ComparisonRecord.parse(
    applyConfirmation(
      first,
      confirmFor(first, (id) => ({ Q1: 2, Q2: 1, Q3: 0.5 })[id]!, 'c'),
    ),
  );
  assert.deepEqual(done.flagged, ['Q1', 'Q2', 'Q3'], 'flagged keeps the first pass');
  assert.deepEqual(done.confirmed, ['Q1', 'Q3']);
  const byId = Object.fromEntries(done.pairs[0].queries.map((x) => [x.query_id, x]));
  assert.equal(byId.Q1.final, 'regression');
  assert.equal(byId.Q1.confirm!.confirmed, true);
  assert.equal(byId.Q1.confirm!.rounds, 12);
  assert.equal(byId.Q2.final, 'unchanged');
  assert.equal(byId.Q2.confirm!.verdict, 'unchanged');
  assert.equal(byId.Q2.confirm!.confirmed, false);
  assert.equal(byId.Q3.final, 'improvement');
  assert.equal(done.verdict, 'regression');
  assert.equal(done.confirm_error, undefined);
  // Only the improvement confirmed: the run is an improvement.
  const onlyFaster = applyConfirmation(
    first,
    confirmFor(first, (id) => ({ Q1: 1, Q2: 1, Q3: 0.5 })[id]!, 'd'),
  );
  assert.deepEqual(onlyFaster.confirmed, ['Q3']);
  assert.equal(onlyFaster.verdict, 'improvement');
  // Nothing confirmed: unchanged.
  assert.equal(
    applyConfirmation(
      first,
      confirmFor(first, () => 1, 'e'),
    ).verdict,
    'unchanged',
  );
  // The first pass is not modified.
  assert.equal(first.pairs[0].queries[0].confirm, undefined);
});

test('applyConfirmation: a failed re-run leaves the first-pass flags standing; a missing query is named; a too-short re-run is unstable', () => {
  const cells = [{ version: '26.7', codec: 'LZ4' }];
  const q = [
    { id: 'Q1', medianMs: 50 },
    { id: 'Q2', medianMs: 80 },
  ];
  const a = syntheticRun({ runId: 'a', cells, queries: q, warm: 10, sigma: 0.05, seed: 'a' });
  const b = syntheticRun({ runId: 'b', cells, queries: q, warm: 10, sigma: 0.05, seed: 'b', slow: { Q1: 2, Q2: 2 } });
  const first = compareRuns(input(a, b));
  const failed = applyConfirmation(first, [], 'cell v26.7-lz4 could not be provisioned');
  assert.equal(failed.verdict, 'regression');
  assert.deepEqual(failed.confirmed, []);
  assert.equal(failed.confirm_error, 'cell v26.7-lz4 could not be provisioned');
  assert.ok(failed.pairs[0].queries.every((x) => x.final === 'regression' && x.confirm === undefined));
  const partial = confirmFor(first, () => 2, 'p').map((c) => ({
    ...c,
    samples: c.samples.filter((s) => s.query_id === 'Q1'),
  }));
  const half = applyConfirmation(first, partial);
  assert.deepEqual(half.confirmed, ['Q1']);
  assert.match(half.confirm_error!, /no re-run samples for v26\.7-lz4→v26\.7-lz4 Q2/);
  const short = applyConfirmation(
    first,
    confirmFor(first, () => 2, 's', 4),
  );
  assert.ok(short.pairs[0].queries.every((x) => x.confirm?.verdict === 'unstable' && x.final === 'unstable'));
  assert.equal(short.verdict, 'unstable');
});

test('run verdict precedence: regression > improvement > unstable > unchanged; no pairs is unstable', () => {
  assert.equal(runVerdict(['unchanged', 'improvement', 'regression', 'unstable'], 1), 'regression');
  assert.equal(runVerdict(['unchanged', 'improvement', 'unstable'], 1), 'improvement');
  assert.equal(runVerdict(['unchanged', 'unstable'], 1), 'unstable');
  assert.equal(runVerdict(['unchanged'], 1), 'unchanged');
  assert.equal(runVerdict([], 0), 'unstable');
});

test('confirmSamplesOf: valid warm runs of the flagged queries, one figure for both sides', () => {
  const cells = [{ version: '26.7', codec: 'LZ4' }];
  const q = [
    { id: 'Q1', medianMs: 50 },
    { id: 'Q2', medianMs: 80 },
  ];
  const a = syntheticRun({ runId: 'a', cells, queries: q, warm: 12, sigma: 0.05, seed: 'a' });
  const b = syntheticRun({ runId: 'b', cells, queries: q, warm: 12, sigma: 0.05, seed: 'b' });
  b.samples.find((s) => s.kind === 'warm' && s.query_id === 'Q2')!.valid = false;
  const c = confirmSamplesOf('k', [{ query_id: 'Q2', phase: 'baseline' }], a.samples, b.samples);
  assert.equal(c.pairKey, 'k');
  assert.equal(c.samples.length, 1);
  assert.equal(c.samples[0].figure, 'server_elapsed_ms');
  assert.equal(c.samples[0].baseline_ms.length, 12);
  assert.equal(c.samples[0].new_ms.length, 11);
  assert.deepEqual(
    c.samples[0].baseline_ms,
    a.samples.filter((s) => s.kind === 'warm' && s.query_id === 'Q2').map((s) => s.server_elapsed_ms),
  );
  a.samples.find((s) => s.kind === 'warm' && s.query_id === 'Q2')!.server_elapsed_ms = null;
  const wall = confirmSamplesOf('k', [{ query_id: 'Q2', phase: 'baseline' }], a.samples, b.samples).samples[0];
  assert.equal(wall.figure, 'wall_ms');
  assert.ok(
    wall.new_ms.every(
      (x, i) => x === b.samples.filter((s) => s.kind === 'warm' && s.query_id === 'Q2' && s.valid)[i].wall_ms,
    ),
  );
});

test("a baseline's noise threshold is its own: the same whatever run it is compared with", () => {
  const rng = seedrandom('threshold-is-the-baseline-s');
  const base = lognormalSamples(rng, 15, 20, 0.1);
  const opts = { minChange: 0.01, unstableAbove: 10, minRuns: 7, noiseSeed: 'run-a:v26.7-lz4:Q3' };
  const t = [
    compareSamples(base, lognormalSamples(rng, 15, 20, 0.1), { ...opts, seed: 'pair-1' }),
    compareSamples(base, lognormalSamples(rng, 15, 30, 0.3), { ...opts, seed: 'pair-2' }),
  ].map((c) => c.threshold);
  assert.ok(t[0] !== null && t[0] > 0.01, `learned, above the floor: ${t[0]}`);
  assert.equal(t[0], t[1]);
});
