/**
 * The load grids' spec and the matrix's settings-profile axis: cell keys, the settings a profile
 * gives its cells, the grid's points, and the inputs refused before anything is provisioned.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRunSpec, SpecError } from '../../src/schema/run-spec';
import { cellInputs } from '../../src/schema/matrix';
import { insertPoints, InsertGridSpec } from '../../src/schema/grids';
import { checkSpec } from '../../src/targets/check-spec';

const base = {
  name: 'grids',
  workload: 'logs',
  scale: 1000,
  target: { kind: 'embedded' },
  matrix: { version: ['26.7'], codec: ['LZ4', 'ZSTD(3)'] },
};

test('a settings-profile axis makes one cell per profile, with the profile merged over the spec settings', () => {
  const spec = parseRunSpec({
    ...base,
    settings: { query: { max_threads: 4, max_block_size: 8192 }, mergeTree: { index_granularity: 8192 } },
    matrix: {
      ...base.matrix,
      settings: [
        { name: 'default' },
        { name: 'two-threads', query: { max_threads: 2 } },
        { name: 'small-granules', mergeTree: { index_granularity: 1024 } },
      ],
    },
  });
  const cells = cellInputs(spec, 'run-1', []);
  assert.deepEqual(
    cells.map((c) => c.cellKey),
    [
      'v26.7-lz4-default',
      'v26.7-lz4-two-threads',
      'v26.7-lz4-small-granules',
      'v26.7-zstd3-default',
      'v26.7-zstd3-two-threads',
      'v26.7-zstd3-small-granules',
    ],
  );
  const byKey = Object.fromEntries(cells.map((c) => [c.cellKey, c]));
  assert.deepEqual(byKey['v26.7-lz4-two-threads'].settings!.query, { max_threads: 2, max_block_size: 8192 });
  assert.deepEqual(byKey['v26.7-lz4-two-threads'].settings!.mergeTree, { index_granularity: 8192 });
  assert.deepEqual(byKey['v26.7-zstd3-small-granules'].settings!.mergeTree, { index_granularity: 1024 });
  assert.equal(byKey['v26.7-zstd3-small-granules'].profile, 'small-granules');
});

test('without a settings axis the cell keys stay as before (recorded histories and stored runs keep matching)', () => {
  const cells = cellInputs(parseRunSpec({ ...base, matrix: { ...base.matrix, repeat: 2 } }), 'run-1', []);
  assert.deepEqual(
    cells.map((c) => c.cellKey),
    ['v26.7-lz4-r1', 'v26.7-lz4-r2', 'v26.7-zstd3-r1', 'v26.7-zstd3-r2'],
  );
  assert.ok(cells.every((c) => c.profile === undefined && c.grids === undefined));
});

test('insert grid points: batch × concurrency × settings × format, in spec order, with readable keys', () => {
  const g = InsertGridSpec.parse({
    batchSizes: [1000, 50000],
    concurrency: [1, 4],
    settings: [{ name: 'sync' }, { name: 'async', query: { async_insert: 1 } }],
    formats: ['RowBinary', 'JSONEachRow'],
  });
  const points = insertPoints(g);
  assert.equal(points.length, 16);
  assert.deepEqual(
    points.slice(0, 5).map((p) => p.key),
    [
      'b1000-c1-sync-rowbinary',
      'b1000-c1-sync-jsoneachrow',
      'b1000-c1-async-rowbinary',
      'b1000-c1-async-jsoneachrow',
      'b1000-c4-sync-rowbinary',
    ],
  );
  assert.equal(new Set(points.map((p) => p.key)).size, 16);
});

test("a connection pool smaller than a point's concurrency is refused before anything runs", () => {
  assert.throws(
    () => parseRunSpec({ ...base, grids: { insert: { concurrency: [1, 4, 8], maxConnections: 4 } } }),
    (e: unknown) =>
      e instanceof SpecError &&
      /grids\.insert\.maxConnections: 4 connections cannot serve 8 concurrent clients/.test(e.message),
  );
  assert.doesNotThrow(() => parseRunSpec({ ...base, grids: { insert: { concurrency: [1, 4], maxConnections: 4 } } }));
});

test('grid inputs refused by validation: unordered axes, a mix of unknown queries, a one-step stepping', () => {
  const problems = (grids: unknown, extra: Record<string, unknown> = {}) =>
    checkSpec({ ...base, ...extra, grids }).problems.join('\n');
  assert.match(problems({ insert: { batchSizes: [10000, 1000] } }), /batch sizes must be ascending and unique/);
  assert.match(problems({ concurrency: { steps: [4] } }), /at least two steps/);
  assert.match(
    problems({ concurrency: { mix: [{ id: 'q9' }] } }),
    /grids\.concurrency\.mix: query id\(s\) q9 are not selected queries of workload logs/,
  );
  assert.match(
    problems({ concurrency: { mix: [{ id: 'q3' }] } }, { queries: ['q1', 'q2'] }),
    /grids\.concurrency\.mix: query id\(s\) q3 are not among the run's queries/,
  );
  assert.match(problems({ insert: { settings: [{ name: 'a' }, { name: 'a' }] } }), /profile names must be unique/);
  assert.equal(problems({ insert: {}, concurrency: { mix: [{ id: 'q1', weight: 3 }, { id: 'q4' }] } }), '');
});

test('a point with fewer batches than clients is refused (idle clients would not measure the concurrency)', () => {
  assert.throws(
    () =>
      parseRunSpec({ ...base, grids: { insert: { batchSizes: [1000, 50000], concurrency: [1, 4], rows: 100000 } } }),
    (e: unknown) =>
      e instanceof SpecError &&
      /grids\.insert\.rows: 100000 rows make fewer batches than clients at batch 50000 × 4 clients: .* raise rows to at least 200000/.test(
        e.message,
      ),
  );
});
