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

test('matrix.pinDefaults is an axis: a shipped and a pinned cell per version and codec, keys say which', () => {
  const spec = parseRunSpec({
    ...base,
    matrix: { version: ['24.8', '26.9'], codec: ['LZ4', 'ZSTD(3)'], pinDefaults: ['shipped', '24.8'] },
  });
  assert.deepEqual(expandMatrix(spec).map(cellKey), [
    'v24.8-lz4',
    'v24.8-lz4-pin24.8',
    'v24.8-zstd3',
    'v24.8-zstd3-pin24.8',
    'v26.9-lz4',
    'v26.9-lz4-pin24.8',
    'v26.9-zstd3',
    'v26.9-zstd3-pin24.8',
  ]);
  const inputs = cellInputs(spec, 'run', []);
  // The shipped cell's input is exactly an unpinned spec's (no field), the pinned one carries the version.
  assert.deepEqual(
    inputs.map((c) => [c.cellKey, c.pinDefaults ?? null]),
    [
      ['v24.8-lz4', null],
      ['v24.8-lz4-pin24.8', '24.8'],
      ['v24.8-zstd3', null],
      ['v24.8-zstd3-pin24.8', '24.8'],
      ['v26.9-lz4', null],
      ['v26.9-lz4-pin24.8', '24.8'],
      ['v26.9-zstd3', null],
      ['v26.9-zstd3-pin24.8', '24.8'],
    ],
  );
  assert.ok(!('pinDefaults' in inputs[0]));
  const unpinned = cellInputs(
    parseRunSpec({ ...base, matrix: { version: ['24.8', '26.9'], codec: ['LZ4', 'ZSTD(3)'] } }),
    'run',
    [],
  );
  assert.deepEqual(inputs[0], unpinned[0], 'the shipped cell of the axis is the unpinned spec cell, field for field');
  // With settings profiles and repetitions: profile, then pin, then repetition.
  const withProfiles = parseRunSpec({
    ...base,
    matrix: {
      version: ['26.9'],
      codec: ['LZ4'],
      repeat: 2,
      settings: [{ name: 'one', query: { max_threads: 1 } }],
      pinDefaults: ['25.8', 'shipped'],
    },
  });
  assert.deepEqual(expandMatrix(withProfiles).map(cellKey), [
    'v26.9-lz4-one-pin25.8-r1',
    'v26.9-lz4-one-pin25.8-r2',
    'v26.9-lz4-one-r1',
    'v26.9-lz4-one-r2',
  ]);
});

test('matrix.pinDefaults: bad entries, duplicates and a second place for the pin are refused, saying why', () => {
  const m = { version: ['26.9'], codec: ['LZ4'] };
  assert.throws(
    () => parseRunSpec({ ...base, matrix: { ...m, pinDefaults: ['none', '24.8'] } }),
    (e: Error) =>
      /matrix\.pinDefaults\.0/.test(e.message) &&
      /"shipped" \(the version's own defaults\) or a ClickHouse version/.test(e.message),
  );
  assert.throws(
    () => parseRunSpec({ ...base, matrix: { ...m, pinDefaults: ['24.8', '24.8'] } }),
    /entries must be unique/,
  );
  assert.throws(() => parseRunSpec({ ...base, matrix: { ...m, pinDefaults: [] } }), /at least one entry/);
  assert.throws(
    () => parseRunSpec({ ...base, pinDefaults: '24.8', matrix: { ...m, pinDefaults: ['shipped', '25.8'] } }),
    /pinDefaults: "24\.8" pins every cell, and matrix\.pinDefaults \(shipped, 25\.8\) makes defaults an axis: give one of them/,
  );
  assert.throws(
    () =>
      parseRunSpec({
        ...base,
        matrix: {
          ...m,
          pinDefaults: ['shipped', '24.8'],
          settings: [{ name: 'old', query: { compatibility: '23.8' } }],
        },
      }),
    /matrix\.settings profile "old": sets compatibility, which pinDefaults also sets/,
  );
  // compatibility in the settings without any pin stays allowed (it is then the user's own setting).
  assert.doesNotThrow(() => parseRunSpec({ ...base, matrix: m, settings: { query: { compatibility: '23.8' } } }));
  assert.doesNotThrow(() =>
    parseRunSpec({
      ...base,
      matrix: { ...m, pinDefaults: ['shipped'] },
      settings: { query: { compatibility: '23.8' } },
    }),
  );
});
