"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * Codec profiles without a server (issue 13, sections 1, 2 and 6): the spec's codec axis, cell keys,
 * per-column rendering of `{{codec}}`, the read-back comparison, and what `chbench validate` refuses
 * from a workload's files alone. Test workloads: test/fixtures/workloads (CHBENCH_SQL_ROOT).
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const node_path_1 = __importDefault(require("node:path"));
const node_fs_1 = require("node:fs");
const node_os_1 = __importDefault(require("node:os"));
const run_spec_1 = require("../../src/schema/run-spec");
const matrix_1 = require("../../src/schema/matrix");
const cell_1 = require("../../src/schema/cell");
const validate_spec_1 = require("../../src/activities/matrix/validate-spec");
const workload_1 = require("../../src/lib/workload");
const codec_check_1 = require("../../src/clickhouse/codec-check");
const create_schema_1 = require("../../src/activities/create-schema");
const config_1 = require("../../src/config");
const figures_1 = require("../../src/measure/figures");
const FIXTURES = node_path_1.default.join(config_1.REPO_ROOT, 'test', 'fixtures');
let saved;
(0, node_test_1.before)(() => {
    saved = process.env.CHBENCH_SQL_ROOT;
    process.env.CHBENCH_SQL_ROOT = FIXTURES;
});
(0, node_test_1.after)(() => {
    if (saved === undefined)
        delete process.env.CHBENCH_SQL_ROOT;
    else
        process.env.CHBENCH_SQL_ROOT = saved;
});
const spec = (workload, codec) => ({
    name: 'codec-test',
    workload,
    scale: 1000,
    target: { kind: 'embedded' },
    matrix: { version: ['26.7'], codec },
});
(0, node_test_1.test)('any codec expression and a named per-column profile are accepted; cell keys of 0.6.0 codecs are unchanged', () => {
    const s = (0, run_spec_1.parseRunSpec)(spec('codecs', [
        'LZ4',
        'ZSTD(3)',
        'ZSTD(4)',
        'LZ4HC(9)',
        'T64',
        'Delta, ZSTD(3)',
        { name: 'delta-zstd', default: 'ZSTD(1)', columns: { ts: 'Delta, ZSTD(1)' } },
    ]));
    strict_1.default.deepEqual((0, matrix_1.expandMatrix)(s).map(matrix_1.cellKey), [
        'v26.7-lz4',
        'v26.7-zstd3',
        'v26.7-zstd4',
        'v26.7-lz4hc9',
        'v26.7-t64',
        'v26.7-delta-zstd3',
        'v26.7-delta-zstd',
    ]);
    const cells = (0, matrix_1.cellInputs)(s, 'r', []);
    // A plain expression travels as before (no codecProfile in the cell input); a profile carries its columns.
    strict_1.default.equal(cells[1].codec, 'ZSTD(3)');
    strict_1.default.equal('codecProfile' in cells[1], false);
    strict_1.default.deepEqual(cells[6].codecProfile, { default: 'ZSTD(1)', columns: { ts: 'Delta, ZSTD(1)' } });
    strict_1.default.deepEqual((0, cell_1.cellCodecProfile)(cells[6]), {
        name: 'delta-zstd',
        default: 'ZSTD(1)',
        columns: { ts: 'Delta, ZSTD(1)' },
    });
    strict_1.default.deepEqual((0, cell_1.cellCodecProfile)(cells[5]), { name: 'Delta, ZSTD(3)', default: 'Delta, ZSTD(3)', columns: {} });
});
(0, node_test_1.test)('the example specs keep their cell keys', () => {
    const demo = (0, run_spec_1.parseRunSpec)(JSON.parse((0, node_fs_1.readFileSync)(node_path_1.default.join(config_1.REPO_ROOT, 'examples', 'demo.json'), 'utf8')));
    strict_1.default.deepEqual((0, matrix_1.expandMatrix)(demo).map(matrix_1.cellKey), ['v26.7-lz4', 'v26.7-zstd3']);
    for (const c of ['LZ4HC', 'ZSTD(1)', 'ZSTD(6)', 'ZSTD(9)', 'NONE'])
        strict_1.default.equal((0, matrix_1.cellKey)({ version: '24.8', codec: c }), `v24.8-${c.toLowerCase().replace(/[()]/g, '')}`);
});
(0, node_test_1.test)('two profiles that would share a cell key are refused', () => {
    const r = (0, validate_spec_1.checkSpec)(spec('codecs', ['Delta, ZSTD(3)', 'Delta,ZSTD(3)']));
    strict_1.default.ok(r.problems.some((p) => p.startsWith('matrix.codec:') && /distinct names/.test(p)), r.problems.join('\n'));
});
(0, node_test_1.test)('{{codec}} renders each column its own codec from the profile', () => {
    const m = (0, workload_1.loadWorkload)('codecs');
    const ddl = (0, workload_1.renderTemplate)('codecs', m.schema, {
        table: 't',
        rows: 1,
        codec: { name: 'p', default: 'ZSTD(1)', columns: { ts: 'Delta, ZSTD(1)' } },
    });
    strict_1.default.match(ddl, /id UInt64 CODEC\(ZSTD\(1\)\),/);
    strict_1.default.match(ddl, /ts DateTime CODEC\(Delta, ZSTD\(1\)\),/);
    strict_1.default.match(ddl, /v Int32 CODEC\(ZSTD\(1\)\)\n/);
    // LZ4 is the server default: no clause at all.
    const lz4 = (0, workload_1.renderTemplate)('codecs', m.schema, { table: 't', rows: 1, codec: 'LZ4' });
    strict_1.default.doesNotMatch(lz4, /CODEC/);
    // Several columns on one line: each placeholder takes the column it ends.
    const one = (0, workload_1.renderTemplate)('trivial', 'schema.sql', { table: 't', rows: 1, codec: { name: 'p', default: 'LZ4', columns: { n: 'T64, LZ4' } } }, node_path_1.default.join(config_1.REPO_ROOT, 'sql'));
    strict_1.default.match(one, /\(n UInt64 CODEC\(T64, LZ4\)\)/);
    strict_1.default.deepEqual([...(0, workload_1.declaredCodecs)((0, node_fs_1.readFileSync)(node_path_1.default.join(FIXTURES, 'workloads', 'no-codec', 'schema.sql'), 'utf8'), 'ZSTD(3)')], [
        ['id', 'ZSTD(3)'],
        ['ts', 'ZSTD(3)'],
        ['v', 'ZSTD(3)'],
    ]);
    strict_1.default.deepEqual((0, workload_1.templateColumns)('CREATE TABLE x (a UInt8 CODEC(ZSTD(1)), b String{{codec}}, INDEX i b TYPE set(0) GRANULARITY 1) ENGINE = Log'), [
        { name: 'a', placeholder: false, fixed: 'ZSTD(1)' },
        { name: 'b', placeholder: true },
    ]);
});
(0, node_test_1.test)('validate refuses a schema without {{codec}} when the spec asks for more than the default codec', () => {
    const r = (0, validate_spec_1.checkSpec)(spec('no-codec', ['LZ4', 'ZSTD(3)']));
    strict_1.default.ok(r.problems.some((p) => p.startsWith('matrix.codec:') &&
        p.includes('no {{codec}} placeholder') &&
        p.includes('"ZSTD(3)"') &&
        p.includes('no-codec')), r.problems.join('\n'));
    // The LZ4 cell alone is honest without the placeholder.
    strict_1.default.deepEqual((0, validate_spec_1.checkSpec)(spec('no-codec', ['LZ4'])).problems, []);
    strict_1.default.deepEqual((0, validate_spec_1.checkSpec)(spec('codecs', ['LZ4', 'ZSTD(3)'])).problems, []);
    // An override must name a column of the schema.
    const o = (0, validate_spec_1.checkSpec)(spec('codecs', [{ name: 'p', columns: { timestamp: 'Delta, ZSTD(1)' } }]));
    strict_1.default.ok(o.problems.some((p) => p.includes('timestamp') && p.includes('does not have')), o.problems.join('\n'));
});
(0, node_test_1.test)('validate checks the workload\u2019s files and placeholders without a server', () => {
    const probs = (0, workload_1.workloadProblems)('broken');
    strict_1.default.ok(probs.some((p) => p.includes('schema.sql: unknown placeholder {{codecs}}')), probs.join('\n'));
    strict_1.default.ok(probs.some((p) => p.includes('q1.sql: {{codec:nosuch}} names a column the schema does not have')), probs.join('\n'));
    strict_1.default.ok(probs.some((p) => p.includes('query q2 file missing.sql is missing')), probs.join('\n'));
    const r = (0, validate_spec_1.checkSpec)(spec('broken', ['LZ4']));
    strict_1.default.equal(r.problems.filter((p) => p.startsWith('workload broken:')).length, 3, r.problems.join('\n'));
    strict_1.default.deepEqual((0, workload_1.workloadProblems)('codecs'), []);
    strict_1.default.deepEqual((0, workload_1.workloadProblems)('logs', node_path_1.default.join(config_1.REPO_ROOT, 'sql')), []);
});
(0, node_test_1.test)('a copied workload folder that kept the old name is refused (its steps would read two workloads)', () => {
    const root = (0, node_fs_1.mkdtempSync)(node_path_1.default.join(node_os_1.default.tmpdir(), 'chbench-copied-workload-'));
    try {
        (0, node_fs_1.cpSync)(node_path_1.default.join(config_1.REPO_ROOT, 'sql', 'workloads', 'trivial'), node_path_1.default.join(root, 'workloads', 'mine'), {
            recursive: true,
        });
        const why = /workload mine: .*says name: trivial; a workload's name must be its folder's name \(set name: mine\)/;
        strict_1.default.ok((0, workload_1.workloadProblems)('mine', root).some((p) => why.test(p)), (0, workload_1.workloadProblems)('mine', root).join('\n'));
        strict_1.default.throws(() => (0, workload_1.loadWorkload)('mine', root), why);
    }
    finally {
        (0, node_fs_1.rmSync)(root, { recursive: true, force: true });
    }
});
(0, node_test_1.test)('a read-back codec matches the declared expression, with the server\u2019s filled-in defaults', () => {
    strict_1.default.deepEqual((0, codec_check_1.parseCodecChain)('CODEC(Delta(4), ZSTD(1))'), [
        { name: 'Delta', args: ['4'] },
        { name: 'ZSTD', args: ['1'] },
    ]);
    strict_1.default.equal((0, codec_check_1.codecMatches)('Delta, ZSTD(1)', 'CODEC(Delta(4), ZSTD(1))'), true);
    strict_1.default.equal((0, codec_check_1.codecMatches)('ZSTD(3)', 'CODEC(ZSTD(3))'), true);
    strict_1.default.equal((0, codec_check_1.codecMatches)('LZ4', ''), true);
    strict_1.default.equal((0, codec_check_1.codecMatches)('ZSTD(3)', ''), false);
    strict_1.default.equal((0, codec_check_1.codecMatches)('ZSTD(3)', 'CODEC(ZSTD(1))'), false);
    strict_1.default.equal((0, codec_check_1.codecMatches)('LZ4', 'CODEC(ZSTD(1))'), false);
    strict_1.default.equal((0, codec_check_1.codecMatches)('T64, LZ4', 'CODEC(T64, LZ4)'), true);
});
(0, node_test_1.test)('table settings count as applied only as the server shows them', () => {
    const shown = (0, create_schema_1.shownTableSettings)("CREATE TABLE default.t (`n` UInt64) ENGINE = MergeTree ORDER BY n SETTINGS index_granularity = 8192, min_bytes_for_wide_part = 0, storage_policy = 'default'");
    strict_1.default.deepEqual(shown, { index_granularity: '8192', min_bytes_for_wide_part: '0', storage_policy: 'default' });
    strict_1.default.deepEqual((0, create_schema_1.appliedTableSettings)({ min_bytes_for_wide_part: 0, index_granularity: 1024, merge_max_block_size: 10 }, shown), {
        applied: { min_bytes_for_wide_part: 0 },
        not_shown: {
            index_granularity: 'the server shows index_granularity = 8192',
            merge_max_block_size: 'not in the SETTINGS of SHOW CREATE TABLE',
        },
    });
});
(0, node_test_1.test)('a run\u2019s settings count as applied only as its query_log row shows them', () => {
    const sent = { max_threads: 2, use_query_cache: 0, min_bytes_to_use_direct_io: 1 };
    // Newer servers: a Settings map; a sent setting missing from it, or with another value, is not applied.
    strict_1.default.deepEqual((0, figures_1.settingsCheck)(sent, { Settings: { max_threads: '2', use_query_cache: '1' } }), {
        source: 'system.query_log.Settings',
        applied: { max_threads: '2' },
        not_shown: {
            use_query_cache: 'query_log shows 1',
            min_bytes_to_use_direct_io: 'not in the run\u2019s query_log Settings (servers may list only settings that differ from their default)',
        },
    });
    // 18.16: two arrays.
    strict_1.default.deepEqual((0, figures_1.settingsCheck)({ max_threads: 2 }, { 'Settings.Names': ['max_threads'], 'Settings.Values': ['2'] }).applied, { max_threads: '2' });
    strict_1.default.match((0, figures_1.settingsCheck)(sent, { query_id: 'x' }).source, /^not available on this server/);
});
//# sourceMappingURL=codec-profiles.test.js.map