/**
 * The matrix's verdicts (`src/measure/verdicts.ts`, `verdict-stats.ts`): which cells are compared with
 * which, the A/A control cell in the expansion, the interval and false-discovery rule (A/A gives no
 * faster/slower, a planted slowdown is found, tight equal runs are `unchanged`, one run per side never a
 * verdict, no control never faster/slower), `not comparable` with its reason, the confirming re-run
 * (confirmed, withdrawn, not run), the Decision rows and the spec's refusals. Synthetic cells are seeded
 * lognormal runs. No server.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import seedrandom from 'seedrandom';
import { lognormalSamples } from '../../src/measure/compare';
import {
  benjaminiHochberg,
  betweenNoise,
  combineIntervals,
  dispersion,
  inflate,
  logRatio,
  ratioInterval,
  runsToDecide,
} from '../../src/measure/verdict-stats';
import {
  applyVerdictConfirmation,
  controlLine,
  controlNoiseOf,
  decisionLine,
  interleavedControlKey,
  interleavedNoiseOf,
  judgeMatrix,
  planPairs,
  rerunPairs,
  verdictPlanLines,
  verdictsToConfirm,
  withInterleavedControl,
  type VerdictCell,
  type VerdictCoords,
} from '../../src/measure/verdicts';
import { cellKey, expandMatrix, matrixAxes, wantsControl, type MatrixAxes } from '../../src/schema/matrix';
import { parseRunSpec } from '../../src/schema/run-spec';
import { VERDICT_DEFAULTS, VerdictsRecord, type VerdictEntry } from '../../src/schema/verdicts';
import { decisionBlocks, verdictBlocks } from '../../src/results/sections/decision';
import { blocksMarkdown } from '../../src/results/sections/blocks';
import { disturbanceOf } from '../../src/results/verdict-cells';
import { REPO_ROOT } from '../../src/config';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const QUERIES: Record<string, number> = { q1: 3, q2: 12, q3: 80, q4: 20, q5: 40 };

/** A succeeded cell: per query `warm` and `cold` lognormal runs around `median × factor(q)` (σ 2 %), and a server-start offset. */
function cell(
  key: string,
  coords: Partial<VerdictCoords>,
  rng: () => number,
  o: {
    warm?: number;
    cold?: number;
    sigma?: number;
    start?: number;
    factor?: (q: string) => number;
    bytes?: number;
  } = {},
): VerdictCell {
  const sigma = o.sigma ?? 0.02;
  const start = o.start ?? 1;
  const queries: VerdictCell['queries'] = {};
  for (const [q, ms] of Object.entries(QUERIES)) {
    const m = ms * start * (o.factor?.(q) ?? 1);
    const warm = lognormalSamples(rng, o.warm ?? 7, m, sigma);
    const cold = lognormalSamples(rng, o.cold ?? 1, m * 3, sigma);
    queries[q] = {
      warm: { server: warm, wall: warm.map((x) => x + 1), readRows: 1000 },
      cold: { server: cold, wall: cold.map((x) => x + 1), readRows: 1000 },
      resultHash: `h-${q}`,
      deterministic: true,
    };
  }
  return {
    key,
    coords: { version: '24.8', codec: 'LZ4', profile: null, defaults: 'shipped', repetition: 1, ...coords },
    status: 'succeeded',
    queries,
    ingestRowsPerS: 1e6 * start,
    bytesOnDisk: o.bytes ?? 1e8,
  };
}

const AXES: MatrixAxes = {
  versions: ['24.8', '26.3'],
  codecs: ['LZ4'],
  profiles: [],
  defaults: ['shipped'],
  repeat: 1,
};
const judge = (cells: VerdictCell[], axes = AXES, options = VERDICT_DEFAULTS) =>
  judgeMatrix({ runId: 'r', cells, axes, options, createdAt: '2026-12-07T00:00:00Z' });

test('statistics: the log ratio, the A/A noise, the interval, Benjamini–Hochberg, runs to decide', () => {
  const lr = logRatio([10, 10, 10], [20, 20, 20]);
  assert.equal(Math.round(Math.exp(lr.d) * 1000) / 1000, 2);
  // Identical runs: only the floor of 0.5 % spread per side.
  assert.ok(lr.within! > 0 && lr.within! < 1e-4);
  // From 5 runs on, one slow run does not widen the median's interval (MAD, not the sample variance).
  const outlier = logRatio([10, 10.1, 9.9, 10, 10.05, 10, 30], [10, 10.1, 9.9, 10, 10.05, 10, 10.02]);
  assert.ok(outlier.within! < 1e-3, `${outlier.within}`);
  assert.equal(logRatio([10], [20]).within, null);
  // A/A pairs whose log ratios are ±0.1 with no within part: σ_b² = 0.01 / 2.
  const n = betweenNoise([
    { d: 0.1, within: 0 },
    { d: -0.1, within: 0 },
  ])!;
  assert.ok(Math.abs(n.sigma2 - 0.005) < 1e-12);
  assert.equal(n.df, 2);
  assert.equal(betweenNoise([]), null);
  // No variance known at all: no interval.
  assert.equal(ratioInterval({ d: 0.2, within: null, withinDf: 0 }, null), null);
  const iv = ratioInterval({ d: Math.log(1.5), within: 0.001, withinDf: 12 }, null)!;
  assert.ok(iv.low > 1.3 && iv.high < 1.7 && iv.p < 0.001);
  // The between part widens the interval.
  const wide = ratioInterval({ d: Math.log(1.5), within: 0.001, withinDf: 12 }, { sigma2: 0.02, df: 5 })!;
  assert.ok(wide.low < iv.low && wide.high > iv.high);
  // BH: the classic example (q 0.05, 10 p-values: the two smallest are discoveries).
  const bh = benjaminiHochberg([0.001, 0.008, 0.039, 0.041, 0.042, 0.06, 0.074, 0.205, 0.212, 0.216], 0.05);
  assert.deepEqual(bh.rejected.slice(0, 3), [true, true, false]);
  assert.equal(bh.count, 2);
  // Noisy runs near 1: more runs are asked for; a huge between-start noise: more runs cannot decide.
  const near = logRatio([10, 10.2, 9.9, 10.1], [10.05, 9.95, 10.1, 10]);
  assert.equal(runsToDecide(near, null, 0.03), 5);
  assert.equal(runsToDecide(near, { sigma2: 0.01, df: 10 }, 0.03), null);
  // A spread that would need more than 200 runs per side: no plan, said as such.
  assert.equal(runsToDecide(logRatio([10, 11, 9, 10.5], [10.2, 9.5, 11, 10]), null, 0.03), null);

  // Two passes combined: inverse-variance weights, the interval narrower than either.
  const c = combineIntervals({ ratio: 1.2, se: 0.1, df: 10 }, { ratio: 1.3, se: 0.1, df: 10 });
  assert.ok(Math.abs(c.ratio - Math.sqrt(1.2 * 1.3)) < 1e-9);
  assert.ok(Math.abs(c.se - 0.1 / Math.SQRT2) < 1e-9);
  assert.ok(c.df > 10 && c.df <= 20, String(c.df));
  // The dispersion of paired passes: seeded pairs whose spread matches their se → φ ≈ 1, factor 1;
  // the same pairs with twice the spread the se claims → factor ≈ 2. Fewer than 3 pairs: not learned.
  const drng = seedrandom('dispersion');
  const z = () => Math.sqrt(-2 * Math.log(drng())) * Math.cos(2 * Math.PI * drng());
  const pairs = (spread: number) =>
    Array.from({ length: 400 }, () => ({
      a: { ratio: Math.exp(spread * 0.1 * z()), se: 0.1 },
      b: { ratio: Math.exp(spread * 0.1 * z()), se: 0.1 },
    }));
  const ok = dispersion(pairs(1));
  assert.ok(ok.phi > 0.85 && ok.phi < 1.15 && ok.factor < 1.08, JSON.stringify(ok));
  const under = dispersion(pairs(2));
  assert.ok(under.factor > 1.85 && under.factor < 2.15, JSON.stringify(under));
  assert.equal(dispersion(pairs(2).slice(0, 2)).factor, 1);
  // The excess laid on the first passes alone (the second ones calibrated by their own control): first passes
  // whose spread is 0.3 while their se says 0.1, beside second passes that are right (0.1): factor ≈ 3, the first only.
  const firstWrong = Array.from({ length: 400 }, () => ({
    a: { ratio: Math.exp(0.3 * z()), se: 0.1 },
    b: { ratio: Math.exp(0.1 * z()), se: 0.1 },
  }));
  const first = dispersion(firstWrong, { firstOnly: true });
  assert.equal(first.scope, 'first');
  assert.ok(first.factor > 2.7 && first.factor < 3.3, JSON.stringify(first));
  // Both widened by √φ would under-widen the first pass (and widen a right second pass).
  assert.ok(dispersion(firstWrong).factor < 2.5 && dispersion(firstWrong).scope === 'both');
  const inflated = inflate({ ratio: 1.1, se: 0.05, df: Infinity }, 2);
  assert.ok(Math.abs(inflated.se - 0.1) < 1e-12 && Math.abs(inflated.low - 1.1 * Math.exp(-1.959964 * 0.1)) < 1e-4);
});

test('the A/A control cell: added last as the reference with repetition 2, only for a comparing matrix and not with repeat', () => {
  const spec = { matrix: { version: ['24.8', '26.3'], codec: ['LZ4', 'ZSTD(3)'], pinDefaults: ['shipped', '24.8'] } };
  assert.equal(wantsControl(spec), true);
  const keys = expandMatrix(spec, { control: true }).map(cellKey);
  assert.equal(keys.length, 9);
  assert.equal(keys[8], 'v24.8-lz4-r2');
  assert.deepEqual(expandMatrix(spec).map(cellKey), keys.slice(0, 8));
  // Versions' reference: baseline.version when given.
  const withBase = { ...spec, baseline: { from: 'version', version: '26.3' } };
  assert.equal(cellKey(expandMatrix(withBase, { control: true }).at(-1)!), 'v26.3-lz4-r2');
  assert.equal(wantsControl({ matrix: { version: ['26.7'], codec: ['LZ4'] } }), false);
  assert.equal(wantsControl({ matrix: { version: ['24.8', '26.3'], codec: ['LZ4'], repeat: 2 } }), false);
  assert.equal(wantsControl({ ...spec, verdicts: { control: false } }), false);
});

test('pairs: every axis against its reference, setup for a cell that differs on two, repetitions as A/A', () => {
  const rng = seedrandom('pairs');
  const axes: MatrixAxes = {
    versions: ['26.3', '24.8'],
    codecs: ['LZ4', 'ZSTD(3)'],
    profiles: [],
    defaults: ['shipped'],
    repeat: 1,
  };
  const cells = [
    cell('v26.3-lz4', { version: '26.3' }, rng),
    cell('v26.3-zstd3', { version: '26.3', codec: 'ZSTD(3)' }, rng),
    cell('v24.8-lz4', {}, rng),
    cell('v24.8-zstd3', { codec: 'ZSTD(3)' }, rng),
    cell('v24.8-lz4-r2', { repetition: 2 }, rng),
  ];
  const pairs = planPairs(cells, axes).map((p) => `${p.axis} ${p.reference.key}→${p.cell.key}`);
  assert.deepEqual(pairs, [
    'version v24.8-lz4→v26.3-lz4',
    'version v24.8-zstd3→v26.3-zstd3',
    'codec v26.3-lz4→v26.3-zstd3',
    'setup v24.8-lz4→v26.3-zstd3',
    'codec v24.8-lz4→v24.8-zstd3',
    'repetition v24.8-lz4→v24.8-lz4-r2',
  ]);
});

test('A/A: equal setups give no faster or slower; the control counts its own moves', () => {
  let falseMoves = 0;
  let comparisons = 0;
  for (let seed = 0; seed < 40; seed++) {
    const rng = seedrandom(`aa-${seed}`);
    const start = () => Math.exp(0.03 * (rng() - 0.5));
    const cells = [
      cell('v24.8-lz4', {}, rng, { start: start() }),
      cell('v26.3-lz4', { version: '26.3' }, rng, { start: start() }),
      cell('v24.8-lz4-r2', { repetition: 2 }, rng, { start: start() }),
    ];
    const r = judge(cells);
    const warm = r.entries.filter((e) => e.axis === 'version' && e.phase === 'warm');
    comparisons += warm.length;
    falseMoves += warm.filter((e) => e.verdict === 'faster' || e.verdict === 'slower').length;
    assert.ok(r.control);
    assert.equal(r.control!.reference, 'v24.8-lz4');
  }
  assert.equal(comparisons, 200);
  assert.ok(falseMoves <= 4, `${falseMoves} false moves in ${comparisons} A/A comparisons`);
});

test('a planted 1.5× slowdown of q3 is slower (awaiting its re-run), the others are not; disk and work compared exactly', () => {
  const rng = seedrandom('planted');
  const cells = [
    cell('v24.8-lz4', {}, rng),
    cell('v26.3-lz4', { version: '26.3' }, rng, { factor: (q) => (q === 'q3' ? 1.5 : 1), bytes: 1.3e8 }),
    cell('v24.8-lz4-r2', { repetition: 2 }, rng),
  ];
  const r = VerdictsRecord.parse(judge(cells));
  const q3 = r.entries.find((e) => e.axis === 'version' && e.query === 'q3' && e.phase === 'warm')!;
  assert.equal(q3.verdict, 'slower');
  assert.equal(q3.confirmed, false);
  assert.ok(q3.low! > 1 && q3.high! < 2.2, `${q3.low} … ${q3.high}`);
  assert.equal(q3.work, 'same 1,000 rows read');
  const others = r.entries.filter((e) => e.axis === 'version' && e.phase === 'warm' && e.query !== 'q3');
  assert.ok(
    others.every((e) => e.verdict !== 'slower' && e.verdict !== 'faster'),
    others.map((e) => `${e.query} ${e.verdict}`).join(', '),
  );
  // One cold run per side is never a verdict.
  const cold = r.entries.filter((e) => e.phase === 'cold' && e.axis === 'version');
  assert.ok(cold.every((e) => e.verdict === 'inconclusive' && /never a verdict/.test(e.reason)));
  const disk = r.entries.find((e) => e.axis === 'version' && e.phase === 'disk')!;
  assert.equal(disk.verdict, 'larger');
  assert.ok(Math.abs(disk.ratio! - 1.3) < 1e-9);
  // The pair is re-run for q3's confirmation and, in the same cells, for its still-inconclusive queries (the adaptive step).
  const toRerun = verdictsToConfirm(r, 'r', 'warm');
  assert.equal(toRerun.length, 1);
  // Where the re-run's two cells cannot run at once (kubernetes, docker): only the flagged query.
  assert.deepEqual(verdictsToConfirm(r, 'r', 'warm', { remeasure: false })[0]!.queries, [
    { query_id: 'q3', phase: 'baseline' },
  ]);
  assert.deepEqual(
    { ...toRerun[0]!, queries: [] },
    {
      pairKey: 'v24.8-lz4→v26.3-lz4',
      baselineCell: { runId: 'r', cellKey: 'v24.8-lz4' },
      newCell: { runId: 'r', cellKey: 'v26.3-lz4' },
      queries: [],
    },
  );
  const undecided = others.filter((e) => e.verdict === 'inconclusive').map((e) => e.query);
  assert.deepEqual(toRerun[0]!.queries.map((q) => q.query_id).sort(), ['q3', ...undecided].sort());

  // The re-run confirms it: 10 interleaved rounds, 1.5× again.
  const rr = seedrandom('rerun');
  const noise = controlNoiseOf(cells, AXES);
  /** The pair's re-run: 10 interleaved rounds of q3, 80 ms against `newMs` (σ 2 %). */
  const rerun = (newMs: number) =>
    applyVerdictConfirmation(
      r,
      [
        {
          pairKey: 'v24.8-lz4→v26.3-lz4',
          samples: [
            {
              query_id: 'q3',
              phase: 'baseline',
              figure: 'server_elapsed_ms',
              baseline_ms: lognormalSamples(rr, 10, 80, 0.02),
              new_ms: lognormalSamples(rr, 10, newMs, 0.02),
            },
          ],
        },
      ],
      {},
      noise,
    );
  const confirmed = rerun(120);
  const c3 = confirmed.entries.find((e) => e.axis === 'version' && e.query === 'q3' && e.phase === 'warm')!;
  assert.equal(c3.verdict, 'slower');
  assert.equal(c3.confirmed, true);
  assert.equal(c3.rerun!.runs, 10);
  assert.equal(confirmed.stage, 'final');
  assert.equal(confirmed.decision[0]!.counts.slower, 1);
  assert.match(decisionLine(confirmed), /^v26\.3-lz4: warm .*1 slower.*disk 1\.300×/);

  // The re-run does not see it: withdrawn, with the re-run's figures; a pair never re-run: withdrawn, saying why.
  const withdrawn = rerun(80);
  const w3 = withdrawn.entries.find((e) => e.axis === 'version' && e.query === 'q3' && e.phase === 'warm')!;
  assert.equal(w3.verdict, 'inconclusive');
  assert.equal(w3.confirmed, false);
  assert.match(w3.reason, /withdrawn: the interleaved re-run \(10 rounds\)/);
  const notRun = applyVerdictConfirmation(
    r,
    [],
    { 'v24.8-lz4→v26.3-lz4': 'not re-run: the confirmation budget of 0 cell pairs (verdicts.confirmPairs) was spent' },
    noise,
  );
  assert.match(
    notRun.entries.find((e) => e.query === 'q3' && e.phase === 'warm' && e.axis === 'version')!.reason,
    /budget of 0 cell pairs/,
  );
});

test('a repeated matrix compares setups: each repetition one unit, between-start noise from their spread', () => {
  // 10 % between-start noise (each cell's level drawn around the setup's), 3 repetitions per setup.
  let aaMoves = 0;
  let found = 0;
  let comparisons = 0;
  for (let seed = 0; seed < 30; seed++) {
    const rng = seedrandom(`rep-${seed}`);
    const start = () => Math.exp(0.1 * Math.sqrt(-2 * Math.log(rng() || 1e-9)) * Math.cos(2 * Math.PI * rng()));
    const axes: MatrixAxes = {
      versions: ['24.8', '26.3', '26.4'],
      codecs: ['LZ4'],
      profiles: [],
      defaults: ['shipped'],
      repeat: 3,
    };
    const cells: VerdictCell[] = [];
    for (const [v, f] of [
      ['24.8', 1],
      ['26.3', 1],
      ['26.4', 2],
    ] as const)
      for (let r = 1; r <= 3; r++)
        cells.push(cell(`v${v}-lz4-r${r}`, { version: v, repetition: r }, rng, { start: start(), factor: () => f }));
    const rec = judge(cells, axes);
    const warm = rec.entries.filter((e) => e.axis === 'version' && e.phase === 'warm');
    comparisons += warm.length;
    aaMoves += warm.filter(
      (e) => e.cell.startsWith('v26.3') && (e.verdict === 'faster' || e.verdict === 'slower'),
    ).length;
    found += warm.filter((e) => e.cell.startsWith('v26.4') && e.verdict === 'slower').length;
    const q3 = warm.find((e) => e.cell === 'v26.4-lz4-r1' && e.query === 'q3')!;
    assert.deepEqual(q3.runs, { reference: 3, cell: 3 });
    assert.match(q3.reason, /over 3 \/ 3 repetitions/);
  }
  assert.equal(comparisons, 300);
  assert.ok(aaMoves <= 3, `${aaMoves} false moves of 150`);
  assert.ok(found >= 140, `a 2× change found in ${found} of 150`);
});

test('the adaptive step: an inconclusive comparison measured again interleaved is judged on both passes combined', () => {
  const rng = seedrandom('adaptive');
  // A noisy first pass (3 warm runs, σ 8 %): a planted 1.3× on q3 cannot be told apart yet.
  const cells = [
    cell('v24.8-lz4', {}, rng, { warm: 3, sigma: 0.08 }),
    cell('v26.3-lz4', { version: '26.3' }, rng, { warm: 3, sigma: 0.08, factor: (q) => (q === 'q3' ? 1.3 : 1) }),
    cell('v24.8-lz4-r2', { repetition: 2 }, rng, { warm: 3, sigma: 0.08 }),
  ];
  const r = VerdictsRecord.parse(judge(cells));
  const first = (q: string) => r.entries.find((e) => e.axis === 'version' && e.query === q && e.phase === 'warm')!;
  assert.equal(first('q3').verdict, 'inconclusive', first('q3').reason);
  assert.ok(first('q3').se! > 0);
  const [pair] = verdictsToConfirm(r, 'r', 'warm');
  assert.ok(pair!.queries.some((q) => q.query_id === 'q3'));
  const rr = seedrandom('adaptive-rerun');
  /** The re-run's samples: `n` rounds per side at noise `sigma`, the cell's times × `factor`; `extra` on each query's samples. */
  const again = (factor: (q: string) => number, n = 20, sigma = 0.02, extra: Record<string, unknown> = {}) =>
    applyVerdictConfirmation(
      r,
      [
        {
          pairKey: pair!.pairKey,
          samples: pair!.queries.map((q) => ({
            query_id: q.query_id,
            phase: 'baseline' as const,
            figure: 'server_elapsed_ms' as const,
            baseline_ms: lognormalSamples(rr, n, QUERIES[q.query_id]!, sigma),
            new_ms: lognormalSamples(rr, n, QUERIES[q.query_id]! * factor(q.query_id), sigma),
            ...extra,
          })),
        },
      ],
      {},
      controlNoiseOf(cells, AXES),
    );
  const found = again((q) => (q === 'q3' ? 1.3 : 1));
  const q3 = found.entries.find((e) => e.axis === 'version' && e.query === 'q3' && e.phase === 'warm')!;
  assert.equal(q3.verdict, 'slower', q3.reason);
  assert.equal(q3.confirmed, true);
  assert.equal(q3.remeasured, true);
  assert.equal(q3.runs.reference, 3 + 20);
  assert.match(
    q3.reason,
    /inconclusive in the first pass .*; the interleaved re-run \(20 rounds\) 1\.[23]\d\d× .*both passes combined/,
  );
  assert.ok(q3.low! > 1 && q3.ratio! > 1.15 && q3.ratio! < 1.45, `${q3.ratio} [${q3.low}, ${q3.high}]`);
  // No re-measured equal query is called faster or slower.
  const rest = found.entries.filter(
    (e) => e.axis === 'version' && e.phase === 'warm' && e.query !== 'q3' && e.remeasured,
  );
  assert.ok(rest.length > 0);
  assert.ok(
    rest.every((e) => e.verdict === 'unchanged' || e.verdict === 'inconclusive'),
    rest.map((e) => `${e.query} ${e.verdict}`).join(', '),
  );
  // The re-run pointing the other way: never a verdict in either direction.
  const opposite = again((q) => (q === 'q3' ? 0.85 : 1));
  const o3 = opposite.entries.find((e) => e.axis === 'version' && e.query === 'q3' && e.phase === 'warm')!;
  assert.notEqual(o3.verdict, 'slower');
  assert.equal(o3.remeasured, true);
  // Cold runs (one per side) wait for their own re-run: untouched by warm samples.
  const cold = found.entries.filter((e) => e.axis === 'version' && e.phase === 'cold');
  assert.ok(cold.every((e) => e.verdict === 'inconclusive' && !e.remeasured));
  // A re-run its seconds budget stopped after 3 of 10 rounds: said in the reason, and what would decide it.
  const cut = again((q) => (q === 'q3' ? 1.05 : 1), 3, 0.08, { budget_spent: { rounds: 3, of: 10, seconds: 60 } });
  const c3 = cut.entries.find((e) => e.axis === 'version' && e.query === 'q3' && e.phase === 'warm')!;
  assert.equal(c3.remeasured, true);
  assert.deepEqual(c3.rerun?.budget_spent, { rounds: 3, of: 10, seconds: 60 });
  assert.match(
    c3.reason,
    /the interleaved re-run \(3 rounds; 3 of 10 rounds: its 60 s budget \(verdicts\.confirmSeconds\) was spent\)/,
  );
  assert.equal(c3.verdict, 'inconclusive', c3.reason);
  assert.match(c3.more ?? '', /a larger verdicts\.confirmSeconds \(the re-run measured 3 of 10 rounds\)/);
});

test('runs the host disturbed: read from the query windows, never a verdict, re-measured on the re-run alone (unchanged at most)', () => {
  // The demo's real query windows (quiet host: other processes 0.05–0.56 of 2 cores): nothing disturbed.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-disturbed-'));
  try {
    const real = JSON.parse(
      fs.readFileSync(path.join(REPO_ROOT, 'test/fixtures/measure/local-bottleneck-26.7.json'), 'utf8'),
    );
    fs.writeFileSync(path.join(dir, 'metrics-end.json'), JSON.stringify(real));
    assert.equal(disturbanceOf(dir).size, 0);
    // The same record with the host 90 % busy during q1's warm runs: 1.80 − the engine's own 0.67 cores.
    const step = real.local_bottleneck.steps.find((x: { step: string }) => x.step === 'q1 warm (baseline)');
    step.counters.host_busy_ns = 0.9 * step.counters.host_total_ns;
    fs.writeFileSync(path.join(dir, 'metrics-end.json'), JSON.stringify(real));
    const d = disturbanceOf(dir);
    assert.deepEqual([...d.keys()], ['q1|warm']);
    assert.match(d.get('q1|warm')!, /^other processes used 1\.1\d of 2 cores during q1 warm \(baseline\)/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }

  // A planted 1.5× on q3 whose new cell's warm runs were disturbed: inconclusive, saying why, outside the FDR family.
  const rng = seedrandom('disturbed');
  const neu = cell('v26.3-lz4', { version: '26.3' }, rng, { factor: (q) => (q === 'q3' ? 1.5 : 1) });
  neu.queries.q3!.warm.disturbed = 'other processes used 1.20 of 2 cores during q3 warm (baseline) on v26.3-lz4';
  const cells = [cell('v24.8-lz4', {}, rng), neu, cell('v24.8-lz4-r2', { repetition: 2 }, rng)];
  const r = VerdictsRecord.parse(judge(cells));
  const q3 = r.entries.find((e) => e.axis === 'version' && e.query === 'q3' && e.phase === 'warm')!;
  assert.equal(q3.verdict, 'inconclusive');
  assert.match(q3.reason, /from runs the host disturbed \(other processes used 1\.20 of 2 cores/);
  assert.ok(q3.disturbed);
  const [pair] = verdictsToConfirm(r, 'r', 'warm');
  assert.ok(pair!.queries.some((q) => q.query_id === 'q3'));
  // The re-run sees the 1.5× again: still not published (one re-run after disturbed runs); an equal re-run shows it unchanged.
  const rr = seedrandom('disturbed-rerun');
  const again = (f: number) =>
    applyVerdictConfirmation(
      r,
      [
        {
          pairKey: pair!.pairKey,
          samples: [
            {
              query_id: 'q3',
              phase: 'baseline',
              figure: 'server_elapsed_ms',
              baseline_ms: lognormalSamples(rr, 30, 80, 0.004),
              new_ms: lognormalSamples(rr, 30, 80 * f, 0.004),
            },
          ],
        },
      ],
      {},
      controlNoiseOf(cells, AXES),
    ).entries.find((e) => e.axis === 'version' && e.query === 'q3' && e.phase === 'warm')!;
  const slow = again(1.5);
  assert.equal(slow.verdict, 'inconclusive', slow.reason);
  assert.match(
    slow.reason,
    /the re-run alone decides .*one re-run after disturbed runs is not a confirmed faster\/slower/,
  );
  const same = again(1);
  assert.equal(same.verdict, 'unchanged', same.reason);
  assert.equal(same.remeasured, true);
});

test('tight equal runs are unchanged (equivalence shown by the interval); noisy ones inconclusive, saying what would decide', () => {
  const rng = seedrandom('tight');
  const tight = judge([
    cell('v24.8-lz4', {}, rng, { warm: 15, sigma: 0.005 }),
    cell('v26.3-lz4', { version: '26.3' }, rng, { warm: 15, sigma: 0.005 }),
    cell('v24.8-lz4-r2', { repetition: 2 }, rng, { warm: 15, sigma: 0.005 }),
  ]);
  const warm = tight.entries.filter((e) => e.axis === 'version' && e.phase === 'warm');
  assert.ok(
    warm.every((e) => e.verdict === 'unchanged'),
    warm.map((e) => `${e.query} ${e.verdict} ${e.reason}`).join('; '),
  );
  const noisy = judge([
    cell('v24.8-lz4', {}, rng, { warm: 3, sigma: 0.15 }),
    cell('v26.3-lz4', { version: '26.3' }, rng, { warm: 3, sigma: 0.15 }),
    cell('v24.8-lz4-r2', { repetition: 2 }, rng, { warm: 3, sigma: 0.15 }),
  ]);
  const inc = noisy.entries.filter((e) => e.axis === 'version' && e.phase === 'warm' && e.verdict === 'inconclusive');
  assert.ok(inc.length >= 3);
  assert.ok(inc.every((e) => e.more && e.mde! > 0.1));
});

test('not comparable: a failed cell, a query failed on one side, results that differ; no control: never faster or slower', () => {
  const rng = seedrandom('nc');
  const failed = { ...cell('v26.3-lz4', { version: '26.3' }, rng), status: 'failed', error: 'boom' };
  const r1 = judge([cell('v24.8-lz4', {}, rng), failed, cell('v24.8-lz4-r2', { repetition: 2 }, rng)]);
  const mine = r1.entries.filter((e) => e.axis === 'version');
  assert.ok(
    mine.length > 0 && mine.every((e) => e.verdict === 'not comparable' && /v26\.3-lz4 failed: boom/.test(e.reason)),
  );

  const b = cell('v26.3-lz4', { version: '26.3' }, rng, { factor: () => 2 });
  b.queries.q2!.failed = 'Code: 241. MEMORY_LIMIT_EXCEEDED';
  b.queries.q4!.resultHash = 'other';
  const r2 = judge([cell('v24.8-lz4', {}, rng), b, cell('v24.8-lz4-r2', { repetition: 2 }, rng)]);
  const q2 = r2.entries.find((e) => e.axis === 'version' && e.query === 'q2' && e.phase === 'warm')!;
  assert.equal(q2.verdict, 'not comparable');
  assert.match(q2.reason, /q2 failed on v26\.3-lz4/);
  assert.deepEqual(r2.decision[0]!.failed, ['q2']);
  assert.match(
    r2.entries.find((e) => e.axis === 'version' && e.query === 'q4' && e.phase === 'warm')!.reason,
    /results differ/,
  );
  // A 2× change everywhere, but no A/A pair: inconclusive with why.
  const r3 = judge([cell('v24.8-lz4', {}, rng), cell('v26.3-lz4', { version: '26.3' }, rng, { factor: () => 2 })]);
  const w = r3.entries.filter((e) => e.phase === 'warm');
  assert.ok(w.every((e) => e.verdict === 'inconclusive' && /no A\/A pair/.test(e.reason)));
  assert.equal(r3.control, null);
});

test('the Decision opens with its table within a few lines; validate says what the verdicts will do; the spec refuses a matrix without any A/A pair', () => {
  const rng = seedrandom('decision');
  const r = judge([
    cell('v24.8-lz4', {}, rng),
    cell('v26.3-lz4', { version: '26.3' }, rng),
    cell('v24.8-lz4-r2', { repetition: 2 }, rng),
  ]);
  const md = blocksMarkdown(decisionBlocks(r)).join('\n').split('\n');
  assert.equal(md[0], '## Decision');
  assert.ok(md.findIndex((l) => l.startsWith('| v26.3-lz4')) < 8);
  const raw = {
    name: 'x',
    workload: 'logs',
    scale: 1000,
    target: { kind: 'embedded' },
    matrix: { version: ['24.8', '26.3'], codec: ['LZ4'] },
  };
  const spec = parseRunSpec(raw);
  const lines = verdictPlanLines(spec, matrixAxes(spec), expandMatrix(spec, { control: true }).map(cellKey));
  assert.match(lines[0]!, /version against 24\.8; A\/A control cell v24\.8-lz4-r2/);
  assert.ok(lines.some((l) => /cold: 1 run\(s\) per side, fewer than the 3 a cold verdict needs/.test(l)));
  // A repeated matrix: its repetitions are the units; confirmRounds 0 publishes no faster/slower.
  const rep = parseRunSpec({ ...raw, matrix: { ...raw.matrix, repeat: 3 }, verdicts: { confirmRounds: 0 } });
  const repLines = verdictPlanLines(rep, matrixAxes(rep), expandMatrix(rep).map(cellKey));
  assert.match(repLines[0]!, /A\/A pairs: r2…r3 of every setup against its r1/);
  assert.ok(repLines.some((l) => /nothing will be published as faster or slower/.test(l)));
  assert.ok(repLines.some((l) => /each repetition's median is one unit, 3 per setup/.test(l)));
  // The budget said: the interleaved A/A control by default; none with 1 pair; nothing published with 0; too few rounds.
  const planOf = (verdicts: Record<string, number>) => {
    const x = parseRunSpec({ ...raw, verdicts });
    return verdictPlanLines(x, matrixAxes(x), expandMatrix(x, { control: true }).map(cellKey)).join('\n');
  };
  assert.match(lines.join('\n'), /opens with the interleaved A\/A control/);
  assert.match(planOf({ confirmPairs: 1 }), /leaves no room for the interleaved A\/A control/);
  assert.match(
    planOf({ confirmPairs: 0 }),
    /verdicts\.confirmPairs 0\): nothing will be published as faster or slower/,
  );
  assert.match(planOf({ confirmRounds: 2 }), /2 interleaved round\(s\) per pair cannot give a re-run interval/);
  assert.throws(
    () => parseRunSpec({ ...raw, verdicts: { control: false } }),
    /without any A\/A pair|leaves the matrix without any A\/A pair/,
  );
  parseRunSpec({ ...raw, verdicts: { control: false }, matrix: { ...raw.matrix, repeat: 2 } });
});

test('the interleaved A/A control: first in the re-run, its between-start noise taken by the re-run intervals', () => {
  // A first pass of one start per side with 10 % between-start noise (the sequential control): a planted 1.3× on q3
  // is inconclusive; the re-run measures it interleaved, where the starts differ by 1 % at most.
  const rng = seedrandom('interleaved-control');
  const cells = [
    cell('v24.8-lz4', {}, rng, { sigma: 0.1, start: 1.1 }),
    cell('v26.3-lz4', { version: '26.3' }, rng, { sigma: 0.1, start: 0.95, factor: (q) => (q === 'q3' ? 1.3 : 1) }),
    cell('v24.8-lz4-r2', { repetition: 2 }, rng, { sigma: 0.1, start: 0.9 }),
  ];
  const r = VerdictsRecord.parse(judge(cells));
  const toRerun = verdictsToConfirm(r, 'r', 'warm');
  assert.equal(interleavedControlKey(r), 'v24.8-lz4→v24.8-lz4-r2');
  const pairs = withInterleavedControl(r, 'r', toRerun);
  assert.equal(pairs.length, toRerun.length + 1);
  assert.deepEqual(
    { ...pairs[0]!, queries: [] },
    {
      pairKey: 'v24.8-lz4→v24.8-lz4-r2',
      baselineCell: { runId: 'r', cellKey: 'v24.8-lz4' },
      newCell: { runId: 'r', cellKey: 'v24.8-lz4-r2' },
      queries: [],
    },
  );
  // The A/A pair measures every query the other pairs re-run; nothing to re-run: no A/A pair either.
  assert.deepEqual(
    pairs[0]!.queries.map((q) => q.query_id).sort(),
    [...new Set(toRerun.flatMap((p) => p.queries.map((q) => q.query_id)))].sort(),
  );
  assert.deepEqual(withInterleavedControl(r, 'r', []), []);
  // No A/A control in the run: the pairs as they are.
  assert.deepEqual(withInterleavedControl({ ...r, control: null }, 'r', toRerun), toRerun);

  const rr = seedrandom('interleaved-control-rerun');
  /** A pair's interleaved samples: 20 rounds per side (σ 5 % per run), the new side × factor(q) × a start offset. */
  const samplesOf = (queries: { query_id: string }[], factor: (q: string) => number, start: number) =>
    queries.map((q) => ({
      query_id: q.query_id,
      phase: 'baseline' as const,
      figure: 'server_elapsed_ms' as const,
      baseline_ms: lognormalSamples(rr, 20, QUERIES[q.query_id]!, 0.05),
      new_ms: lognormalSamples(rr, 20, QUERIES[q.query_id]! * factor(q.query_id) * start, 0.05),
    }));
  const outcomes = [
    { pairKey: pairs[0]!.pairKey, samples: samplesOf(pairs[0]!.queries, () => 1, 1.01) },
    ...pairs.slice(1).map((p) => ({
      pairKey: p.pairKey,
      samples: samplesOf(p.queries, (q) => (q === 'q3' ? 1.3 : 1), 0.99),
    })),
  ];
  const inter = interleavedNoiseOf(r, outcomes);
  const seq = controlNoiseOf(cells, AXES);
  assert.ok(inter.warm && seq.warm);
  assert.ok(inter.warm.sigma2 < seq.warm.sigma2 / 4, `interleaved ${inter.warm.sigma2} sequential ${seq.warm.sigma2}`);
  assert.equal(inter.cold, null);

  const withAA = applyVerdictConfirmation(r, outcomes, {}, seq);
  const withoutAA = applyVerdictConfirmation(r, outcomes.slice(1), {}, seq);
  const q3 = (x: VerdictsRecord) =>
    x.entries.find((e) => e.axis === 'version' && e.query === 'q3' && e.phase === 'warm')!;
  // The interleaved noise narrows the re-run's interval; without the A/A pair it keeps the sequential control's.
  const width = (e: VerdictEntry) => Math.log(e.rerun!.high! / e.rerun!.low!);
  assert.ok(width(q3(withAA)) < 0.75 * width(q3(withoutAA)), `${width(q3(withAA))} vs ${width(q3(withoutAA))}`);
  assert.equal(q3(withAA).verdict, 'slower', q3(withAA).reason);
  // Recorded: the pair, its noise, its own moves; the control line says it.
  const i = withAA.control!.interleaved!;
  assert.equal(i.pair, 'v24.8-lz4→v24.8-lz4-r2');
  assert.equal(i.pairs, pairs[0]!.queries.length);
  assert.equal(i.moved, 0);
  assert.ok(i.noise.warm !== null && i.noise.warm < 0.05 && i.noise.cold === null);
  assert.match(controlLine(withAA), /; interleaved A\/A moves 0 of \d+ \(between-start noise \d+(\.\d)? % warm\)$/);
  assert.match(withoutAA.control!.interleaved!.note, /not re-run .*sequential control's between-start noise/);
  // report.md says it: the Decision names the interleaved control, the Verdicts table each re-measured comparison.
  const md = blocksMarkdown([...decisionBlocks(withAA), ...verdictBlocks(withAA)]).join('\n');
  assert.match(md, /\*\*Interleaved A\/A control\*\* \(v24\.8-lz4→v24\.8-lz4-r2\): the reference against itself/);
  assert.match(md, /\| confirmed \(20 rounds\) +\|/);
  assert.match(md, /\| re-measured \(20 rounds\) +\|/);
});

test('the re-run budget goes to comparisons against an axis reference before those between adjacent versions', () => {
  // Three versions, every comparison inconclusive (3 noisy warm runs): the pairs with the reference (v24.8→…)
  // come before v25.8→v26.3, which only "What differs" reads, whatever their counts of undecided queries.
  const rng = seedrandom('budget-order');
  const axes: MatrixAxes = { ...AXES, versions: ['24.8', '25.8', '26.3'] };
  const o = { warm: 3, sigma: 0.15 };
  const cells = [
    cell('v24.8-lz4', {}, rng, o),
    cell('v25.8-lz4', { version: '25.8' }, rng, o),
    cell('v26.3-lz4', { version: '26.3' }, rng, o),
    cell('v24.8-lz4-r2', { repetition: 2 }, rng, o),
  ];
  const r = VerdictsRecord.parse(judge(cells, axes));
  const keys = verdictsToConfirm(r, 'r', 'warm').map((p) => p.pairKey);
  assert.ok(keys.includes('v25.8-lz4→v26.3-lz4'), keys.join(', '));
  assert.equal(keys.at(-1), 'v25.8-lz4→v26.3-lz4', keys.join(', '));
  assert.deepEqual(keys.slice(0, 2).sort(), ['v24.8-lz4→v25.8-lz4', 'v24.8-lz4→v26.3-lz4']);
  // With the interleaved A/A control first, a budget of 3 pairs re-runs both reference comparisons.
  const planned = rerunPairs({ ...r, options: { ...r.options, confirmPairs: 3 } }, 'r', { remeasure: true });
  assert.deepEqual(
    planned.warm.slice(0, 3).map((p) => p.pairKey),
    ['v24.8-lz4→v24.8-lz4-r2', ...keys.slice(0, 2)],
  );
  // The budget is spent there: the pair between adjacent versions and the cold runs are left out of the lists
  // (they stay as the first pass judged them), so the workflow's warm-first split cannot starve anything ranked higher.
  assert.equal(planned.warm.length, 3);
  assert.deepEqual(planned.cold, []);
  // A budget of 8: both reference comparisons of both kinds, each kind with its A/A pair, then the adjacent pair.
  const roomy = rerunPairs({ ...r, options: { ...r.options, confirmPairs: 8 } }, 'r', { remeasure: true });
  assert.deepEqual(
    roomy.cold.map((p) => p.pairKey),
    ['v24.8-lz4→v24.8-lz4-r2', ...keys.slice(0, 2), 'v25.8-lz4→v26.3-lz4'].slice(0, roomy.cold.length),
  );
  assert.ok(roomy.cold.length >= 3, roomy.cold.map((p) => p.pairKey).join(', '));
  assert.ok(roomy.warm.length + roomy.cold.length <= 8);
  // A faster/slower awaiting confirmation stays listed even past the budget (the workflow withdraws it, saying so).
  const srng = seedrandom('budget-confirm');
  const flagged = VerdictsRecord.parse(
    judge([
      cell('v24.8-lz4', {}, srng),
      cell('v26.3-lz4', { version: '26.3' }, srng, { factor: (q) => (q === 'q3' ? 1.5 : 1) }),
      cell('v24.8-lz4-r2', { repetition: 2 }, srng),
    ]),
  );
  assert.ok(flagged.entries.some((e) => e.verdict === 'slower' && e.confirmed === false));
  const none = rerunPairs({ ...flagged, options: { ...flagged.options, confirmPairs: 0 } }, 'r', { remeasure: true });
  assert.deepEqual(
    none.warm.map((p) => p.pairKey),
    ['v24.8-lz4→v26.3-lz4'],
  );
  const one = rerunPairs({ ...flagged, options: { ...flagged.options, confirmPairs: 1 } }, 'r', { remeasure: true });
  assert.deepEqual(
    one.warm.map((p) => p.pairKey),
    ['v24.8-lz4→v26.3-lz4'],
    "no room for the A/A pair beside it: the sequential control's noise serves",
  );
  // Docker or kubernetes (no side-by-side re-run cells): no A/A pair.
  assert.ok(!rerunPairs(r, 'r', { remeasure: false }).warm.some((p) => p.pairKey.endsWith('-r2')));
});
