"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * The load grids' spec and the matrix's settings-profile axis: cell keys, the settings a profile
 * gives its cells, the grid's points, and the inputs refused before anything is provisioned.
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const run_spec_1 = require("../../src/schema/run-spec");
const matrix_1 = require("../../src/schema/matrix");
const grids_1 = require("../../src/schema/grids");
const validate_spec_1 = require("../../src/activities/matrix/validate-spec");
const base = {
    name: 'grids',
    workload: 'logs',
    scale: 1000,
    target: { kind: 'embedded' },
    matrix: { version: ['26.7'], codec: ['LZ4', 'ZSTD(3)'] },
};
(0, node_test_1.test)('a settings-profile axis makes one cell per profile, with the profile merged over the spec settings', () => {
    const spec = (0, run_spec_1.parseRunSpec)({
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
    const cells = (0, matrix_1.cellInputs)(spec, 'run-1', []);
    strict_1.default.deepEqual(cells.map((c) => c.cellKey), [
        'v26.7-lz4-default',
        'v26.7-lz4-two-threads',
        'v26.7-lz4-small-granules',
        'v26.7-zstd3-default',
        'v26.7-zstd3-two-threads',
        'v26.7-zstd3-small-granules',
    ]);
    const byKey = Object.fromEntries(cells.map((c) => [c.cellKey, c]));
    strict_1.default.deepEqual(byKey['v26.7-lz4-two-threads'].settings.query, { max_threads: 2, max_block_size: 8192 });
    strict_1.default.deepEqual(byKey['v26.7-lz4-two-threads'].settings.mergeTree, { index_granularity: 8192 });
    strict_1.default.deepEqual(byKey['v26.7-zstd3-small-granules'].settings.mergeTree, { index_granularity: 1024 });
    strict_1.default.equal(byKey['v26.7-zstd3-small-granules'].profile, 'small-granules');
});
(0, node_test_1.test)('without a settings axis the cell keys stay as before (recorded histories and stored runs keep matching)', () => {
    const cells = (0, matrix_1.cellInputs)((0, run_spec_1.parseRunSpec)({ ...base, matrix: { ...base.matrix, repeat: 2 } }), 'run-1', []);
    strict_1.default.deepEqual(cells.map((c) => c.cellKey), ['v26.7-lz4-r1', 'v26.7-lz4-r2', 'v26.7-zstd3-r1', 'v26.7-zstd3-r2']);
    strict_1.default.ok(cells.every((c) => c.profile === undefined && c.grids === undefined));
});
(0, node_test_1.test)('insert grid points: batch × concurrency × settings × format, in spec order, with readable keys', () => {
    const g = grids_1.InsertGridSpec.parse({
        batchSizes: [1000, 50000],
        concurrency: [1, 4],
        settings: [{ name: 'sync' }, { name: 'async', query: { async_insert: 1 } }],
        formats: ['RowBinary', 'JSONEachRow'],
    });
    const points = (0, grids_1.insertPoints)(g);
    strict_1.default.equal(points.length, 16);
    strict_1.default.deepEqual(points.slice(0, 5).map((p) => p.key), [
        'b1000-c1-sync-rowbinary',
        'b1000-c1-sync-jsoneachrow',
        'b1000-c1-async-rowbinary',
        'b1000-c1-async-jsoneachrow',
        'b1000-c4-sync-rowbinary',
    ]);
    strict_1.default.equal(new Set(points.map((p) => p.key)).size, 16);
});
(0, node_test_1.test)("a connection pool smaller than a point's concurrency is refused before anything runs", () => {
    strict_1.default.throws(() => (0, run_spec_1.parseRunSpec)({ ...base, grids: { insert: { concurrency: [1, 4, 8], maxConnections: 4 } } }), (e) => e instanceof run_spec_1.SpecError &&
        /grids\.insert\.maxConnections: 4 connections cannot serve 8 concurrent clients/.test(e.message));
    strict_1.default.doesNotThrow(() => (0, run_spec_1.parseRunSpec)({ ...base, grids: { insert: { concurrency: [1, 4], maxConnections: 4 } } }));
});
(0, node_test_1.test)('grid inputs refused by validation: unordered axes, a mix of unknown queries, a one-step stepping', () => {
    const problems = (grids, extra = {}) => (0, validate_spec_1.checkSpec)({ ...base, ...extra, grids }).problems.join('\n');
    strict_1.default.match(problems({ insert: { batchSizes: [10000, 1000] } }), /batch sizes must be ascending and unique/);
    strict_1.default.match(problems({ concurrency: { steps: [4] } }), /at least two steps/);
    strict_1.default.match(problems({ concurrency: { mix: [{ id: 'q9' }] } }), /grids\.concurrency\.mix: query id\(s\) q9 are not selected queries of workload logs/);
    strict_1.default.match(problems({ concurrency: { mix: [{ id: 'q3' }] } }, { queries: ['q1', 'q2'] }), /grids\.concurrency\.mix: query id\(s\) q3 are not among the run's queries/);
    strict_1.default.match(problems({ insert: { settings: [{ name: 'a' }, { name: 'a' }] } }), /profile names must be unique/);
    strict_1.default.equal(problems({ insert: {}, concurrency: { mix: [{ id: 'q1', weight: 3 }, { id: 'q4' }] } }), '');
});
(0, node_test_1.test)('a point with fewer batches than clients is refused (idle clients would not measure the concurrency)', () => {
    strict_1.default.throws(() => (0, run_spec_1.parseRunSpec)({ ...base, grids: { insert: { batchSizes: [1000, 50000], concurrency: [1, 4], rows: 100000 } } }), (e) => e instanceof run_spec_1.SpecError &&
        /grids\.insert\.rows: 100000 rows make fewer batches than clients at batch 50000 × 4 clients: .* raise rows to at least 200000/.test(e.message));
});
//# sourceMappingURL=grids-spec.test.js.map