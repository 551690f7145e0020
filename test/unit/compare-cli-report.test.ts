/**
 * `chbench compare` (its work function `runCompare`, over the in-memory results database test
 * double) and the report's comparison section (`comparisonSection`). No server.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import seedrandom from 'seedrandom';
import { runCompare } from '../../src/cli/commands/compare';
import { COMPARE_EXIT } from '../../src/cli/exit-codes';
import { comparisonSection } from '../../src/results/report-comparison';
import { applyConfirmation, compareRuns, flaggedQueries, lognormalSamples } from '../../src/measure/compare';
import { ComparisonRecord } from '../../src/schema/comparison';
import { MemoryResultsDb, syntheticRun } from '../helpers/memory-results-db';

const QUERIES = [
  { id: 'Q1', medianMs: 40 },
  { id: 'Q2', medianMs: 90 },
  { id: 'Q5', phase: 'index' as const, medianMs: 60 },
];
const CELLS = [{ version: '26.7', codec: 'LZ4' }];
/** Table cells are padded: compare with runs of spaces squashed to one. */
const squash = (t: string) => t.replace(/ {2,}/g, ' ');

function db3(): MemoryResultsDb {
  const db = new MemoryResultsDb();
  for (const [id, slow] of [
    ['a1', undefined],
    ['a2', undefined],
    ['b', { Q2: 2 }],
    ['f', { Q1: 0.5 }],
  ] as const) {
    const r = syntheticRun({ runId: id, cells: CELLS, queries: QUERIES, warm: 10, sigma: 0.05, seed: id, slow });
    db.add(r.run, r.cells, r.samples);
  }
  return db;
}

test('chbench compare: exit 0 for A/A and an improvement, 6 (unconfirmed) for a first-pass regression, with a table per pair and the no-re-run note', async () => {
  const db = db3();
  const open = async () => db;
  const aa = await runCompare('a1', 'a2', { resultsDir: 'r' }, open);
  assert.equal(aa.code, COMPARE_EXIT.noRegression);
  assert.match(aa.stdout.join('\n'), /verdict: unchanged; flagged: none/);
  const ab = await runCompare('a1', 'b', { resultsDir: 'r' }, open);
  assert.equal(ab.code, COMPARE_EXIT.unconfirmed);
  assert.match(ab.stdout.join('\n'), /exit 6: unconfirmed/);
  const text = squash(ab.stdout.join('\n'));
  assert.match(text, /^baseline run a1 → new run b/);
  assert.match(
    text,
    /\| query \| source \| runs \(base\/new\) \| baseline median \| new median \| ratio \[95 % CI\] \| threshold \| first pass \|/,
  );
  assert.match(
    text,
    /\| Q2 \| server-side elapsed \| 10\/10 \| \d+\.\d ms \| 1\d\d\.\d ms \| [12]\.\d{3}× \[\d\.\d{3}–\d\.\d{3}\] \| ±\d+\.\d % \| \*\*regression\*\* \|/,
  );
  assert.match(text, /Q5 \(after index\)/);
  assert.match(text, /does no confirming re-run/);
  assert.match(text, /verdict: regression; flagged: Q2\nnote/);
  assert.doesNotMatch(text, /\| re-run \|/);
  const imp = await runCompare('a1', 'f', { resultsDir: 'r', json: true }, open);
  assert.equal(imp.code, COMPARE_EXIT.noRegression);
  const rec = ComparisonRecord.parse(JSON.parse(imp.stdout.join('\n')));
  assert.equal(rec.verdict, 'improvement');
  assert.deepEqual(rec.flagged, ['Q1']);
  // --min-change 1.5 (150 %): the 2× slowdown no longer counts.
  assert.equal(
    (await runCompare('a1', 'b', { resultsDir: 'r', minChange: '1.5' }, open)).code,
    COMPARE_EXIT.noRegression,
  );
  assert.ok(db.closed);
});

test('chbench compare: exit 2 for an unknown run, a bad --min-change, an unreadable database; exit 3 when nothing could be decided', async () => {
  const db = db3();
  const open = async () => db;
  const unknown = await runCompare('a1', 'zz', { resultsDir: 'r' }, open);
  assert.equal(unknown.code, COMPARE_EXIT.invalid);
  assert.match(unknown.stderr[0], /no run zz in the results database \(in-memory test double\)/);
  assert.equal((await runCompare('a1', 'b', { resultsDir: 'r', minChange: 'lots' }, open)).code, COMPARE_EXIT.invalid);
  assert.equal((await runCompare('a1', 'b', { resultsDir: 'r', minChange: '-1' }, open)).code, COMPARE_EXIT.invalid);
  const broken = await runCompare('a1', 'b', { resultsDir: 'r' }, async () => {
    throw new Error('connection refused');
  });
  assert.equal(broken.code, COMPARE_EXIT.invalid);
  assert.match(broken.stderr[0], /cannot open the results database of r: connection refused/);
  // The real embedded-26.7 folder has 3 warm runs a query: every query unstable.
  await db.storeRun(path.join(__dirname, '../../../test/fixtures/results/embedded-26.7'));
  // The same rows again as a second run (a run is never compared with itself: exit 2).
  const [fr] = db.runs.filter((r) => r.run_id === 'demo-20261130-064639');
  const again = (x: { run_id: string }) => ({ ...x, run_id: 'demo-again' });
  db.add(
    again(fr) as typeof fr,
    db.cellRows.filter((c) => c.run_id === fr.run_id).map((c) => again(c) as typeof c),
    db.sampleRows.filter((x) => x.run_id === fr.run_id).map((x) => again(x) as typeof x),
  );
  assert.equal((await runCompare(fr.run_id, fr.run_id, { resultsDir: 'r' }, open)).code, COMPARE_EXIT.invalid);
  const real = await runCompare('demo-20261130-064639', 'demo-again', { resultsDir: 'r' }, open);
  assert.equal(real.code, COMPARE_EXIT.undecided);
  assert.match(real.stdout.join('\n'), /too few valid warm runs to decide: 3 in the baseline, 3 in the new run/);
  // A run whose cells pair with nothing: also undecided.
  const other = syntheticRun({
    runId: 'o',
    cells: [{ version: '26.7', codec: 'ZSTD(3)' }],
    queries: QUERIES,
    warm: 10,
    sigma: 0.05,
    seed: 'o',
  });
  db.add(other.run, other.cells, other.samples);
  const none = await runCompare('a1', 'o', { resultsDir: 'r' }, open);
  assert.equal(none.code, COMPARE_EXIT.undecided);
  assert.match(none.stdout.join('\n'), /unpaired: v26\.7-zstd3: no succeeded baseline cell/);
});

test('comparisonSection: baseline and how chosen, method, sources, one table per pair with re-run and final, flagged and confirmed', async () => {
  const db = db3();
  const [a, b] = ['a1', 'b'];
  const first = compareRuns({
    comparisonId: 'b-vs-a1',
    runId: b,
    baselineRunId: a,
    baselineChosenBy: 'previous successful run of schedule quarterly (started 2026-01-01T00:00:00.000Z)',
    mode: { kind: 'runs' },
    baselineCells: await db.cells(a),
    newCells: await db.cells(b),
    baselineSamples: await db.samples(a),
    newSamples: await db.samples(b),
    options: { minChange: 0.1, unstableAbove: 0.3, minRuns: 7, confirmRounds: 12 },
    createdAt: '2026-04-01T00:00:00.000Z',
  });
  const rng = seedrandom('c');
  const record = applyConfirmation(
    first,
    flaggedQueries(first).map(({ pair, queries }) => ({
      pairKey: pair.pair_key,
      samples: queries.map((q) => ({
        query_id: q.query_id,
        phase: q.phase,
        baseline_ms: lognormalSamples(rng, 12, 90, 0.05),
        new_ms: lognormalSamples(rng, 12, 180, 0.05),
        figure: 'server_elapsed_ms' as const,
      })),
    })),
  );
  const md = squash(comparisonSection(record).join('\n'));
  assert.match(md, /^## Comparison with the baseline/);
  assert.match(md, /Baseline: run `a1` \(chosen by: previous successful run of schedule quarterly/);
  assert.match(md, /Verdict: \*\*regression\*\*\. Flagged by the first pass: Q2; confirmed by the re-run: Q2\./);
  assert.match(md, /percentile bootstrap 2000 resamples/);
  assert.match(md, /valid warm runs/);
  assert.match(
    md,
    /\*\*server-side elapsed\*\* time when every kept run of both sides has one, else \*\*client wall\*\*/,
  );
  assert.match(md, /interleaved \(A, B, A, B …, 12 rounds\)/);
  assert.match(md, /### v26\.7-lz4 → v26\.7-lz4/);
  assert.match(
    md,
    /\| query \| source \| runs \(base\/new\) \| baseline median \| new median \| ratio \[95 % CI\] \| threshold \| first pass \| re-run \| final \|/,
  );
  assert.match(
    md,
    /\| Q2 \| server-side elapsed \|.*\*\*regression\*\* \| [12]\.\d{3}× \[\d\.\d{3}–\d\.\d{3}\] regression \(12 rounds, confirms\) \| \*\*regression\*\* \|/,
  );
  assert.match(md, /\| Q1 \| server-side elapsed \|.*\| unchanged \| – \| unchanged \|/);
  assert.match(md, /- Q2: ratio .* above 1 \+ threshold .*; re-run \(server-side elapsed, interleaved\)/);
  assert.match(md, /Differences: none declared/);
  // A re-run that failed: flags stand, marked unconfirmed.
  const failed = comparisonSection(applyConfirmation(first, [], 'provisioning failed')).join('\n');
  assert.match(failed, /Re-run problem: provisioning failed\./);
  assert.match(failed, /not re-run \(unconfirmed\)/);
});

test('comparisonSection: no baseline is one sentence with the reason', () => {
  const rec: ComparisonRecord = {
    schema: 'chbench.comparison/v1',
    comparison_id: 'x-vs-none',
    run_id: 'x',
    baseline_run_id: '',
    baseline_chosen_by:
      'no baseline: previous successful run of schedule q: none started before 2026-01-01T00:00:00.000Z (this is its first completed run)',
    method: 'm',
    options: {
      minChange: 0.1,
      unstableAbove: 0.3,
      confidence: 0.95,
      resamples: 2000,
      minRuns: 7,
      confirmRounds: 12,
      seed: 1,
    },
    pairs: [],
    unpaired: [],
    flagged: [],
    confirmed: [],
    verdict: 'no-baseline',
    created_at: '2026-01-01T00:00:00.000Z',
  };
  assert.deepEqual(comparisonSection(rec), [
    '## Comparison with the baseline',
    '',
    'No comparison: no baseline found — previous successful run of schedule q: none started before 2026-01-01T00:00:00.000Z (this is its first completed run).',
    '',
  ]);
});

/** Run b's own comparison with a1 (as its spec's baseline stores it), its flags re-run with these medians (ms) on each side. */
async function storedComparison(db: MemoryResultsDb, baselineMs: number, newMs: number): Promise<ComparisonRecord> {
  const first = compareRuns({
    comparisonId: 'b-vs-a1',
    runId: 'b',
    baselineRunId: 'a1',
    baselineChosenBy: 'run a1',
    mode: { kind: 'runs' },
    baselineCells: await db.cells('a1'),
    newCells: await db.cells('b'),
    baselineSamples: await db.samples('a1'),
    newSamples: await db.samples('b'),
    options: { minChange: 0.1, unstableAbove: 0.3, minRuns: 7, confirmRounds: 12 },
    createdAt: '2026-04-01T00:00:00.000Z',
  });
  const rng = seedrandom(`c${newMs}`);
  const record = applyConfirmation(
    first,
    flaggedQueries(first).map(({ pair, queries }) => ({
      pairKey: pair.pair_key,
      samples: queries.map((q) => ({
        query_id: q.query_id,
        phase: q.phase,
        baseline_ms: lognormalSamples(rng, 12, baselineMs, 0.05),
        new_ms: lognormalSamples(rng, 12, newMs, 0.05),
        figure: 'server_elapsed_ms' as const,
      })),
    })),
  );
  await db.storeComparison(record);
  return record;
}

test("chbench compare as a gate exits with the run's confirmed verdict: 0 when its re-run withdrew the flag, 1 when it confirmed it", async () => {
  const db = db3();
  const open = async () => db;
  // The first pass flags Q2; the run's interleaved re-run finds no change: the recorded verdict is unchanged.
  const withdrawn = await storedComparison(db, 90, 90);
  assert.deepEqual([withdrawn.flagged, withdrawn.confirmed], [['Q2'], []]);
  const ok = await runCompare('a1', 'b', { resultsDir: 'r' }, open);
  assert.equal(ok.code, COMPARE_EXIT.noRegression, ok.stdout.join('\n'));
  assert.match(ok.stdout.join('\n'), /verdict: unchanged; flagged: Q2; confirmed: none/);
  assert.match(ok.stdout.join('\n'), /run b's own comparison with a1/);
  // A different threshold than the recorded one is another question: first pass again, unconfirmed.
  assert.equal(
    (await runCompare('a1', 'b', { resultsDir: 'r', minChange: '0.2' }, open)).code,
    COMPARE_EXIT.unconfirmed,
  );
  // The re-run confirms the 2× slowdown: exit 1.
  await storedComparison(db, 90, 180);
  const bad = await runCompare('a1', 'b', { resultsDir: 'r' }, open);
  assert.equal(bad.code, COMPARE_EXIT.regression);
  assert.match(bad.stdout.join('\n'), /verdict: regression; flagged: Q2; confirmed: Q2/);
  assert.match(bad.stdout.join('\n'), /exit 1: regression, confirmed/);
});

test('chbench compare accepts the workflow id form a scheduled run has (`:` where its run id has `_`)', async () => {
  const db = db3();
  const r = syntheticRun({
    runId: 'q-2026-11-30T03_10_57Z',
    cells: CELLS,
    queries: QUERIES,
    warm: 10,
    sigma: 0.05,
    seed: 'q',
  });
  db.add(r.run, r.cells, r.samples);
  const out = await runCompare('a1', 'q-2026-11-30T03:10:57Z', { resultsDir: 'r' }, async () => db);
  assert.equal(out.code, COMPARE_EXIT.noRegression, out.stderr.join('\n'));
  assert.match(out.stdout[0], /new run q-2026-11-30T03_10_57Z/);
});
