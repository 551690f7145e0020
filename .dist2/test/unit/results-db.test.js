"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * Results database pieces that need no engine: the read-only statement check, where the database
 * is, the rows a run folder gives (from the committed fixture), spec hashing and time conversion.
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const node_path_1 = __importDefault(require("node:path"));
const node_fs_1 = require("node:fs");
const db_1 = require("../../src/results/db");
const rows_1 = require("../../src/results/db/rows");
const results_1 = require("../../src/cli/results");
const run_spec_1 = require("../../src/schema/run-spec");
const config_1 = require("../../src/config");
const FIXTURE = node_path_1.default.join(config_1.REPO_ROOT, 'test', 'fixtures', 'results', 'embedded-26.7');
(0, node_test_1.test)('read-only check: reads pass, writes and second statements are refused', () => {
    for (const ok of [
        'SELECT 1',
        '  (SELECT 1)',
        'with x AS (SELECT 1) SELECT * FROM x',
        '-- c\nSHOW TABLES',
        '/* x */ DESCRIBE runs',
        'EXPLAIN SELECT 1',
        'EXISTS runs',
        "SELECT ';' AS s;",
        "SELECT 'x' -- ; DROP",
    ])
        strict_1.default.equal((0, db_1.readOnlyProblem)(ok), undefined, ok);
    strict_1.default.match((0, db_1.readOnlyProblem)('DROP TABLE runs'), /starts with DROP/);
    strict_1.default.match((0, db_1.readOnlyProblem)('insert into runs select 1'), /starts with INSERT/);
    strict_1.default.match((0, db_1.readOnlyProblem)('ALTER TABLE samples DELETE WHERE 1'), /starts with ALTER/);
    strict_1.default.match((0, db_1.readOnlyProblem)('SELECT 1; DROP TABLE runs'), /one statement only/);
    strict_1.default.match((0, db_1.readOnlyProblem)('   '), /no statement/);
});
(0, node_test_1.test)('read-only check: nothing outside the database (INTO OUTFILE, readonly, file/network/process table functions)', () => {
    for (const ok of [
        "SELECT cos(1), URLHash('x'), 'file(x)' AS s, toString(getSetting('readonly'))",
        'SELECT * FROM samples AS file_rows',
        "SELECT 1 -- INTO OUTFILE 'x'",
    ])
        strict_1.default.equal((0, db_1.readOnlyProblem)(ok), undefined, ok);
    strict_1.default.match((0, db_1.readOnlyProblem)("SELECT 1 INTO OUTFILE '/tmp/x.csv'"), /INTO OUTFILE/);
    strict_1.default.match((0, db_1.readOnlyProblem)("select 1 into\n outfile 'x' format CSV"), /INTO OUTFILE/);
    for (const q of [
        'SELECT 1 SETTINGS readonly=0',
        'SELECT 1 SETTINGS `readonly` = 0',
        'WITH 1 AS x SELECT x SETTINGS READONLY = 2',
    ])
        strict_1.default.match((0, db_1.readOnlyProblem)(q), /readonly setting/, q);
    for (const [q, fn] of [
        ["SELECT * FROM file('/etc/hostname', 'LineAsString')", 'file'],
        ["SELECT * FROM url('http://127.0.0.1:1/', CSV)", 'url'],
        ["SELECT * FROM s3Cluster('c', 'x')", 's3Cluster'],
        ["SELECT * FROM remoteSecure('h', system.one)", 'remoteSecure'],
        ["SELECT * FROM clusterAllReplicas('c', system.one)", 'clusterAllReplicas'],
        ["SELECT * FROM executable('x.sh', TabSeparated, 'a String')", 'executable'],
        ["SELECT * FROM icebergS3('x')", 'icebergS3'],
        ["SELECT * FROM mysql ('h', 'd', 't', 'u', 'p')", 'mysql'],
        ["SELECT * FROM `postgresql`('h', 'd', 't', 'u', 'p')", 'postgresql'],
        ["SELECT * FROM input('a String')", 'input'],
        ["SELECT (SELECT count() FROM deltaLake('x'))", 'deltaLake'],
    ])
        strict_1.default.match((0, db_1.readOnlyProblem)(q), new RegExp(`table function ${fn} is not allowed`), q);
});
(0, node_test_1.test)('location: the spec server when given, else <resultsDir>/db', () => {
    strict_1.default.deepEqual((0, db_1.resultsDbLocation)(undefined, 'results'), { kind: 'embedded', dir: node_path_1.default.resolve('results', 'db') });
    const spec = run_spec_1.ResultsDbSpec.parse({ url: 'http://ch.internal:8123', passwordEnv: 'RESULTS_PW' });
    strict_1.default.deepEqual((0, db_1.resultsDbLocation)(spec, 'results'), {
        kind: 'server',
        url: 'http://ch.internal:8123',
        database: 'chbench',
        user: 'default',
        passwordEnv: 'RESULTS_PW',
    });
});
(0, node_test_1.test)('rows of the fixture run folder: one sample row per measured query run', () => {
    const rows = (0, db_1.readRunRows)(FIXTURE);
    const run = JSON.parse((0, node_fs_1.readFileSync)(node_path_1.default.join(FIXTURE, 'run.json'), 'utf8'));
    strict_1.default.equal(rows.run.run_id, run.runId);
    strict_1.default.equal(rows.run.schedule_id, null);
    strict_1.default.equal(rows.run.spec_hash, (0, db_1.specHash)(run.spec));
    strict_1.default.deepEqual(rows.cells.map((c) => c.cell_key), run.cells);
    const cells = run.cells.map((k) => JSON.parse((0, node_fs_1.readFileSync)(node_path_1.default.join(FIXTURE, 'cells', k, 'result.json'), 'utf8')));
    const expected = cells.flatMap((c) => [c.queries_baseline, c.queries_index].flatMap((q) => (q?.queries ?? []).flatMap((x) => x.samples.map((s) => `${c.cellKey}/${q.phase}/${x.id}/${s.kind}${s.n}`))));
    strict_1.default.deepEqual(rows.samples.map((s) => `${s.cell_key}/${s.phase}/${s.query_id}/${s.kind}${s.n}`), expected);
    strict_1.default.equal(rows.comparison, undefined);
    strict_1.default.ok(rows.samples.every((s) => s.valid && s.invalid_reason === null));
});
(0, node_test_1.test)('validity: not cold (cold runs only) or not quiet makes a run invalid; unknown does not', () => {
    const s = (v, kind = 'cold') => (0, rows_1.sampleValidity)({ kind, validity: v });
    const quiet = { valid: true, label: 'quiet', reasons: [] };
    strict_1.default.deepEqual(s({ quiet, cold: { valid: null, label: 'cold?', reasons: ['no counters'] } }), {
        valid: true,
        invalid_reason: null,
    });
    strict_1.default.deepEqual(s({ quiet, cold: { valid: false, label: 'not cold', reasons: ['read from cache'] } }), {
        valid: false,
        invalid_reason: 'not cold: read from cache',
    });
    strict_1.default.deepEqual(s({ quiet: { valid: false, label: 'not quiet', reasons: ['merge'] } }, 'warm'), {
        valid: false,
        invalid_reason: 'not quiet: merge',
    });
});
(0, node_test_1.test)('canonical JSON ignores key order; times round-trip through DateTime64(3) UTC', () => {
    strict_1.default.equal((0, db_1.canonicalJson)({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: null } }), '{"a":{"c":null,"d":[2,{"e":0,"f":1}]},"b":1}');
    strict_1.default.equal((0, db_1.specHash)({ a: 1, b: 2 }), (0, db_1.specHash)({ b: 2, a: 1 }));
    strict_1.default.equal((0, rows_1.toDbTime)('2026-11-30T06:46:39.818Z'), '2026-11-30 06:46:39.818');
    strict_1.default.equal((0, rows_1.toDbTime)('2026-11-30T07:46:39.818+01:00'), '2026-11-30 06:46:39.818');
    strict_1.default.equal((0, rows_1.fromDbTime)('2026-11-30 06:46:39.818'), '2026-11-30T06:46:39.818Z');
    strict_1.default.equal((0, rows_1.toDbTime)(null), null);
    strict_1.default.throws(() => (0, rows_1.toDbTime)('yesterday'), /not a time/);
});
(0, node_test_1.test)('CLI helpers: table format and run folders', () => {
    strict_1.default.equal((0, results_1.formatTable)([
        { a: 1, bb: null },
        { a: 22, bb: 'x' },
    ]), 'a   bb\n--  ----\n1   NULL\n22  x\n(2 rows)');
    strict_1.default.equal((0, results_1.formatTable)([]), '(0 rows)');
    strict_1.default.deepEqual((0, results_1.runFolders)(FIXTURE), [FIXTURE]);
    // Every run folder of the fixtures' results directory (the grids demo's run is there too).
    strict_1.default.deepEqual((0, results_1.runFolders)(node_path_1.default.dirname(FIXTURE)), [FIXTURE, node_path_1.default.join(node_path_1.default.dirname(FIXTURE), 'grids-26.7')]);
    strict_1.default.deepEqual((0, results_1.runFolders)(node_path_1.default.join(FIXTURE, 'nope')), []);
});
//# sourceMappingURL=results-db.test.js.map