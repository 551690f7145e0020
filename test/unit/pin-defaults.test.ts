/**
 * `pinDefaults` in the cell key: a new `-pin<version>` component only when the spec sets it, so every
 * key of an unpinned spec (and the recorded histories that carry them) stays the same. Pure.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cellInputs, cellKey, expandMatrix } from '../../src/schema/matrix';
import { parseRunSpec } from '../../src/schema/run-spec';

const base = {
  name: 'pin',
  workload: 'trivial',
  scale: 1000,
  target: { kind: 'embedded' },
  matrix: { version: ['24.8', '26.9'], codec: ['LZ4'], repeat: 2 },
  resultsDir: '/tmp/pin',
};

test('unpinned keys are unchanged; pinned keys end with -pin<version> before the repetition', () => {
  assert.deepEqual(expandMatrix(parseRunSpec(base)).map(cellKey), [
    'v24.8-lz4-r1',
    'v24.8-lz4-r2',
    'v26.9-lz4-r1',
    'v26.9-lz4-r2',
  ]);
  const pinned = parseRunSpec({ ...base, pinDefaults: '24.8' });
  assert.deepEqual(expandMatrix(pinned).map(cellKey), [
    'v24.8-lz4-pin24.8-r1',
    'v24.8-lz4-pin24.8-r2',
    'v26.9-lz4-pin24.8-r1',
    'v26.9-lz4-pin24.8-r2',
  ]);
  const inputs = cellInputs(pinned, 'run', []);
  assert.ok(inputs.every((c) => c.pinDefaults === '24.8'));
  assert.ok(
    cellInputs(parseRunSpec(base), 'run', []).every((c) => !('pinDefaults' in c)),
    'no field when unpinned',
  );
  assert.throws(() => parseRunSpec({ ...base, pinDefaults: 'latest' }), /ClickHouse version/);
});
