/**
 * Change points over a series (`src/measure/change-points.ts`): seeded A/A series give none, a
 * 20 % step is found at its index, a 20 % drift is found, the same input gives the same output.
 * Synthetic lognormal series (sigma 5 %), seeded. No server.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import seedrandom from 'seedrandom';
import { detectChangePoints, type RunValue } from '../../src/measure/change-points';

function series(seed: string, factor: (i: number) => number, n = 12): RunValue[] {
  const rng = seedrandom(seed);
  return Array.from({ length: n }, (_, i) => {
    const g = Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
    return {
      runId: `r${i}`,
      at: new Date(Date.UTC(2024, 3 * i, 1)).toISOString(),
      value: 100 * factor(i) * Math.exp(0.05 * g),
    };
  });
}

test('A/A seeded series give no change point', () => {
  for (const s of ['a', 'b', 'c', 'd', 'e']) {
    const r = detectChangePoints(series(s, () => 1));
    assert.deepEqual(r.changePoints, [], `seed ${s}`);
  }
});

test('a 20 % step is found at the right index', () => {
  const r = detectChangePoints(series('step', (i) => (i >= 6 ? 1.2 : 1)));
  assert.equal(r.changePoints.length, 1);
  assert.equal(r.changePoints[0]!.index, 6);
  assert.ok(r.changePoints[0]!.relativeChange > 0.1 && r.changePoints[0]!.relativeChange < 0.3);
  assert.ok(r.changePoints[0]!.pValue < 0.05);
});

test('a 20 % linear drift is found', () => {
  const r = detectChangePoints(series('drift', (i) => 1 + (0.2 * i) / 11));
  assert.ok(r.drift.significant || r.changePoints.length > 0);
  assert.ok(r.drift.significant, `drift p ${r.drift.pValue}`);
  assert.ok(r.drift.relativeChange > 0.1);
});

test('the same input gives the same output; order of input does not matter', () => {
  const pts = series('same', (i) => (i >= 4 ? 1.15 : 1));
  const a = detectChangePoints(pts);
  const b = detectChangePoints(pts.slice().reverse());
  assert.deepEqual(a, b);
});
