/**
 * Change points of stored series (`seriesChangePoints` in `src/measure/change-points.ts`, the one
 * detector `chbench series` and report.html use): on generated lognormal series (CV 3 %, a warm
 * median's spread here; seeded), a 15 % step after 6 runs is found at index 6, A/A series give none,
 * a 20 % drift whose adjacent pairs all differ by < 10 % is found by Mann-Kendall; the fewest runs
 * each test needs; the report's grouping (`changesOfSeries`) and chart markers; the CLI's text. No server.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import seedrandom from 'seedrandom';
import {
  detectChangePoints,
  MIN_CHANGE_POINT_RUNS,
  MIN_DRIFT_RUNS,
  mannKendall,
  seriesChangePoints,
  SERIES_CHANGE_POINTS,
  type RunValue,
} from '../../src/measure/change-points';
import { changesOfSeries } from '../../src/results/series-changes';
import { seriesChart } from '../../src/results/charts';
import type { SeriesPoint } from '../../src/results/db/types';
import { formatSeries, seriesOfPoints } from '../../src/cli/commands/series';
import type { FigureSeriesPoint } from '../../src/results/db/figure-series';

const SEEDS = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];

/** `n` quarterly runs of 100 × factor(i) with lognormal noise of CV `cv`. */
function series(seed: string, factor: (i: number) => number, n = 12, cv = 0.03): RunValue[] {
  const rng = seedrandom(seed);
  return Array.from({ length: n }, (_, i) => {
    const g = Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
    return {
      runId: `r${i}`,
      at: new Date(Date.UTC(2024, 3 * i, 1)).toISOString(),
      value: 100 * factor(i) * Math.exp(cv * g),
    };
  });
}

test('a 15 % step after 6 runs is found at index 6 (8 of 8 seeds found, at least 7 at the right index)', () => {
  const found = SEEDS.map((s) => seriesChangePoints(series(`step-${s}`, (i) => (i >= 6 ? 1.15 : 1))));
  for (const [i, f] of found.entries()) {
    assert.equal(f.changePointsTested, true);
    assert.ok(f.changePoints.length >= 1, `seed ${SEEDS[i]}: a change point`);
  }
  const atSix = found.filter((f) => f.changePoints.some((c) => c.index === 6));
  assert.ok(atSix.length >= 7, `at index 6 in ${atSix.length} of 8`);
  const c = found[0]!.changePoints.find((x) => x.index === 6)!;
  assert.equal(c.runId, 'r6');
  assert.equal(c.at, '2025-07-01T00:00:00.000Z');
  assert.ok(c.relativeChange > 0.1 && c.relativeChange < 0.2, `relative change ${c.relativeChange}`);
  assert.ok(c.meanAfter > c.meanBefore);
  assert.ok(c.pValue < SERIES_CHANGE_POINTS.alpha);
});

test('A/A series (8 seeds) give no change point and no drift', () => {
  for (const s of SEEDS) {
    const f = seriesChangePoints(series(`aa-${s}`, () => 1));
    assert.deepEqual(f.changePoints, [], `seed ${s}`);
    assert.equal(f.drift?.significant, false, `seed ${s}`);
  }
});

test('a 20 % drift over 12 runs is found by Mann-Kendall although no adjacent pair differs by 10 %', () => {
  const pts = series('drift-a', (i) => 1 + (0.2 * i) / 11);
  const x = pts.map((p) => p.value);
  for (let i = 1; i < x.length; i++) assert.ok(Math.abs(x[i]! / x[i - 1]! - 1) < 0.1, `pair ${i - 1}→${i} below 10 %`);
  const f = seriesChangePoints(pts);
  assert.equal(f.drift?.significant, true);
  assert.ok(f.drift!.pValue < 0.01, `p ${f.drift!.pValue}`);
  assert.ok(
    f.drift!.relativeChange > 0.1 && f.drift!.relativeChange < 0.3,
    `over the series ${f.drift!.relativeChange}`,
  );
  for (const s of SEEDS)
    assert.equal(seriesChangePoints(series(`drift-${s}`, (i) => 1 + (0.2 * i) / 11)).drift?.significant, true, s);
});

test('the fewest runs: a doubling is a change point from MIN_CHANGE_POINT_RUNS runs on, a rise a drift from MIN_DRIFT_RUNS', () => {
  const step = (n: number): RunValue[] =>
    Array.from({ length: n }, (_, i) => ({
      runId: `r${i}`,
      at: new Date(Date.UTC(2024, i, 1)).toISOString(),
      value: (i >= Math.floor(n / 2) ? 200 : 100) + i / 1000,
    }));
  assert.deepEqual(detectChangePoints(step(MIN_CHANGE_POINT_RUNS - 1), SERIES_CHANGE_POINTS).changePoints, []);
  assert.equal(detectChangePoints(step(MIN_CHANGE_POINT_RUNS), SERIES_CHANGE_POINTS).changePoints.length, 1);
  const rise = (n: number) => Array.from({ length: n }, (_, i) => 100 + i);
  assert.equal(mannKendall(rise(MIN_DRIFT_RUNS - 1)).significant, false);
  assert.equal(mannKendall(rise(MIN_DRIFT_RUNS)).significant, true);

  const short = seriesChangePoints(step(MIN_DRIFT_RUNS));
  assert.equal(short.changePointsTested, false);
  assert.ok(short.drift, 'drift tested');
  assert.match(
    short.tooFew!,
    new RegExp(`^${MIN_DRIFT_RUNS} run\\(s\\): change points need at least ${MIN_CHANGE_POINT_RUNS} runs`),
  );
  const tiny = seriesChangePoints(step(3));
  assert.equal(tiny.drift, null);
  assert.match(tiny.tooFew!, /a drift at least 5/);
});

/** Report-side series: 12 quarterly runs, q2 of one cell 15 % slower from run 6, the rest flat. */
function storedSeries(): SeriesPoint[] {
  const out: SeriesPoint[] = [];
  const noise = series('report', () => 1, 24);
  for (let r = 0; r < 12; r++)
    for (const [query_id, base] of [
      ['q1', 8],
      ['q2', 45],
    ] as const)
      out.push({
        run_id: `quarterly-${r}`,
        started_at: new Date(Date.UTC(2024, 3 * r, 1)).toISOString(),
        cell_key: 'v26.7-lz4',
        version_label: '26.7',
        server_version: '26.7.2.1',
        codec: 'LZ4',
        phase: 'baseline',
        query_id,
        warm_median_ms:
          ((base * noise[2 * r + (query_id === 'q1' ? 0 : 1)]!.value) / 100) * (query_id === 'q2' && r >= 6 ? 1.15 : 1),
        figure: 'server_elapsed_ms',
      });
  return out;
}

test('report.html: the series gets the change point of seriesChangePoints, drawn as a rule with its label', () => {
  const pts = storedSeries();
  const changes = changesOfSeries(pts);
  assert.deepEqual(
    changes.map((c) => [c.query_id, c.found.runs]),
    [
      ['q1', 12],
      ['q2', 12],
    ],
  );
  const q2 = changes.find((c) => c.query_id === 'q2')!;
  assert.deepEqual(
    q2.found,
    seriesChangePoints(
      pts
        .filter((p) => p.query_id === 'q2')
        .map((p) => ({ runId: p.run_id, at: p.started_at, value: p.warm_median_ms })),
    ),
    'the same function and parameters as the CLI',
  );
  assert.deepEqual(
    q2.found.changePoints.map((c) => c.runId),
    ['quarterly-6'],
  );
  assert.deepEqual(changes.find((c) => c.query_id === 'q1')!.found.changePoints, []);
  const chart = seriesChart(pts, changes)!;
  const json = JSON.stringify(chart.spec);
  assert.match(json, /"name":"change_points"/);
  assert.match(json, /change: q2 \d+\.\d→\d+\.\d ms \(\+1\d\.\d %, p 0\.0\d\d\)/);
  assert.match(chart.source, /1 found/);
  assert.doesNotMatch(JSON.stringify(seriesChart(pts)!.spec), /change_points/, 'no markers without changes');
});

test('chbench series text: runs with value, unit and source, the change point and the drift verdict', () => {
  const pts: FigureSeriesPoint[] = storedSeries()
    .filter((p) => p.query_id === 'q2')
    .map((p) => ({
      run_id: p.run_id,
      started_at: p.started_at,
      status: 'completed',
      cell_key: p.cell_key,
      version_label: p.version_label,
      server_version: p.server_version,
      phase: p.phase,
      query_id: p.query_id,
      figure: 'warm',
      from_figure: 'server_elapsed_ms',
      value: p.warm_median_ms,
      unit: 'ms',
      sources: ['system.query_log query_duration_ms'],
      runs: 3,
      unknown: [],
    }));
  const [s] = seriesOfPoints(pts);
  const text = formatSeries(s!);
  assert.match(text, /^q2 · cell v26\.7-lz4 · before the skip index · warm \(12 run\(s\)\)/);
  assert.match(
    text,
    /\| +0 \| quarterly-0 +\| 2024-01-01T00:00:00Z \| completed \| 26\.7\.2\.1 \| +\d+\.\d \| ms +\| server_elapsed_ms, median of 3 run\(s\): system\.query_log query_duration_ms \|/,
  );
  assert.match(
    text,
    /change points \(1; E-divisive means, permutation test \(199 shuffles, seed 1\), α 0\.05; 12 runs\)/,
  );
  assert.match(
    text,
    /\| +6 \| quarterly-6 \| 2025-07-01T00:00:00Z \| +\d+\.\d → \d+\.\d \| +\+1\d\.\d % \| +0\.0\d\d \| E-divisive means \|/,
  );
  assert.match(text, /drift: (yes|no) \(Mann-Kendall trend test with Sen's slope, α 0\.05: S = -?\d+, p /);
  const few = formatSeries(seriesOfPoints(pts.slice(0, 3))[0]!);
  assert.match(few, /change points: not tested, 3 run\(s\): change points need at least 8 runs, a drift at least 5/);
  assert.match(few, /drift: not tested, 3 run\(s\) \(Mann-Kendall needs at least 5\)/);
});
