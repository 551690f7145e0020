"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const node_fs_1 = require("node:fs");
const node_path_1 = __importDefault(require("node:path"));
const run_spec_1 = require("../../src/schema/run-spec");
const matrix_1 = require("../../src/schema/matrix");
const validate_spec_1 = require("../../src/activities/matrix/validate-spec");
const spec_file_1 = require("../../src/lib/spec-file");
const config_1 = require("../../src/config");
const base = () => ({
    name: 'demo',
    workload: 'logs',
    scale: 2_000_000,
    target: { kind: 'embedded' },
    matrix: { version: ['26.7'], codec: ['LZ4', 'ZSTD(3)'] },
});
function problems(input) {
    return (0, validate_spec_1.checkSpec)(input, { worker: true }).problems;
}
(0, node_test_1.test)('the demo spec is valid and gets the documented defaults', () => {
    const s = (0, run_spec_1.parseRunSpec)((0, spec_file_1.readSpecFile)(node_path_1.default.join(config_1.REPO_ROOT, 'examples', 'demo.yaml')));
    strict_1.default.equal(s.protocol.coldRuns, 1);
    strict_1.default.equal(s.protocol.warmRuns, 3);
    strict_1.default.equal(s.concurrency, 1);
    strict_1.default.equal(s.teardown, 'always');
    strict_1.default.deepEqual((0, matrix_1.expandMatrix)(s).map(matrix_1.cellKey), ['v26.7-lz4', 'v26.7-zstd3']);
    strict_1.default.deepEqual((0, validate_spec_1.checkSpec)((0, spec_file_1.readSpecFile)(node_path_1.default.join(config_1.REPO_ROOT, 'examples', 'demo.yaml'))).problems, []);
});
(0, node_test_1.test)('an unknown key is refused, naming it', () => {
    const p = problems({ ...base(), protocl: {} });
    strict_1.default.ok(p.some((l) => /\(root\): unknown key\(s\) "protocl"/.test(l)), p.join('\n'));
    const q = problems({ ...base(), protocol: { warmRun: 3 } });
    strict_1.default.ok(q.some((l) => /protocol: unknown key\(s\) "warmRun"/.test(l)), q.join('\n'));
});
(0, node_test_1.test)('a codec that is not a codec expression names the field and what an expression looks like', () => {
    const p = problems({ ...base(), matrix: { version: ['26.7'], codec: ['ZSTD(3'] } });
    strict_1.default.ok(p.some((l) => l.startsWith('matrix.codec.0:') && l.includes('a codec expression') && l.includes('"Delta, ZSTD(1)"')), p.join('\n'));
    const q = problems({ ...base(), matrix: { version: ['26.7'], codec: [{ name: 'Bad Name', default: 'ZSTD(1)' }] } });
    strict_1.default.ok(q.some((l) => l.startsWith('matrix.codec.0.name:') && l.includes('lower-case')), q.join('\n'));
});
(0, node_test_1.test)('an empty matrix is refused', () => {
    const p = problems({ ...base(), matrix: { version: [], codec: [] } });
    strict_1.default.ok(p.some((l) => l.startsWith('matrix.version:') && /at least one version/.test(l)), p.join('\n'));
    strict_1.default.ok(p.some((l) => l.startsWith('matrix.codec:')), p.join('\n'));
});
(0, node_test_1.test)('a version with no way to provision it is refused', () => {
    const p = problems({
        ...base(),
        target: { kind: 'local', binaries: { '18.16': '/usr/sbin/clickhouse-server' } },
        matrix: { version: ['24.8'], codec: ['LZ4'] },
    });
    strict_1.default.ok(p.some((l) => l.includes('matrix.version') && l.includes('"24.8"') && l.includes('18.16')), p.join('\n'));
    const e = problems({ ...base(), matrix: { version: ['24.8'], codec: ['LZ4'] } });
    strict_1.default.ok(e.some((l) => l.includes('embedded target') && l.includes('26.7')), e.join('\n'));
});
(0, node_test_1.test)('a local binary that does not exist is refused before provisioning', () => {
    const p = problems({
        ...base(),
        target: { kind: 'local', binaries: { '24.8': '/nonexistent/clickhouse' } },
        matrix: { version: ['24.8'], codec: ['LZ4'] },
    });
    strict_1.default.ok(p.some((l) => l.startsWith('target.binaries.24.8:') && l.includes('/nonexistent/clickhouse')), p.join('\n'));
});
(0, node_test_1.test)('every problem is reported in one pass, even when the schema already failed', () => {
    const p = problems({
        name: 'multi',
        workload: 'nosuch',
        scale: 0,
        target: { kind: 'local', binaries: { '24.8': '/nope' } },
        matrix: { version: ['25.1'], codec: ['ZSTD(3'] },
    });
    for (const field of ['scale:', 'matrix.codec.0:', 'matrix.version:', 'workload:'])
        strict_1.default.ok(p.some((l) => l.startsWith(field)), `${field} in\n${p.join('\n')}`);
});
(0, node_test_1.test)('embedded version labels match the engine component by component', () => {
    strict_1.default.ok(problems({ ...base(), matrix: { version: ['2'], codec: ['LZ4'] } }).some((l) => l.includes('"2" cannot be provisioned by the embedded target')));
    strict_1.default.deepEqual(problems({ ...base(), matrix: { version: ['26.7.2.1'], codec: ['LZ4'] } }), []);
    strict_1.default.deepEqual(problems({ ...base(), matrix: { version: ['26'], codec: ['LZ4'] } }), []);
});
(0, node_test_1.test)('a results directory the worker cannot write is refused without touching it', () => {
    strict_1.default.ok(problems({ ...base(), resultsDir: '/proc/nope' }).some((l) => l.startsWith('resultsDir:')));
    strict_1.default.ok(problems({ ...base(), resultsDir: '/etc/hostname/x' }).some((l) => l.startsWith('resultsDir:')));
    strict_1.default.deepEqual((0, validate_spec_1.checkSpec)({ ...base(), resultsDir: '/proc/nope' }).problems, [], "the CLI (not the worker) does not judge the worker's filesystem");
});
(0, node_test_1.test)('scale <= 0 is refused', () => {
    for (const scale of [0, -5, 1.5]) {
        const p = problems({ ...base(), scale });
        strict_1.default.ok(p.some((l) => l.startsWith('scale:')), `${scale}: ${p.join('\n')}`);
    }
});
(0, node_test_1.test)('unknown workload and unknown query id are refused with the allowed values', () => {
    const w = problems({ ...base(), workload: 'nope' });
    strict_1.default.ok(w.some((l) => l.startsWith('workload:') && l.includes('logs') && l.includes('logs-legacy')), w.join('\n'));
    const q = problems({ ...base(), queries: ['q1', 'q9'] });
    strict_1.default.ok(q.some((l) => l.startsWith('queries:') && l.includes('q9') && l.includes('q1, q2, q3, q4, q5')), q.join('\n'));
});
(0, node_test_1.test)('an unset password variable of an external target is refused; the spec never holds a password', () => {
    delete process.env.CHBENCH_TEST_NO_SUCH_VAR;
    const p = problems({
        ...base(),
        target: { kind: 'external', url: 'http://127.0.0.1:8123', passwordEnv: 'CHBENCH_TEST_NO_SUCH_VAR' },
        matrix: { version: ['26.3'], codec: ['LZ4'] },
    });
    strict_1.default.ok(p.some((l) => l.includes('CHBENCH_TEST_NO_SUCH_VAR')), p.join('\n'));
    const q = problems({ ...base(), target: { kind: 'external', url: 'http://127.0.0.1:8123', password: 'secret' } });
    strict_1.default.ok(q.some((l) => /unknown key\(s\) "password"/.test(l)), q.join('\n'));
});
(0, node_test_1.test)('parseRunSpec throws SpecError with one line per problem', () => {
    strict_1.default.throws(() => (0, run_spec_1.parseRunSpec)({ ...base(), scale: 0, workload: 'Bad Name' }), (e) => e instanceof run_spec_1.SpecError && e.issues.length === 2);
});
(0, node_test_1.test)('the committed JSON Schema is up to date (npm run schema)', () => {
    const committed = JSON.parse((0, node_fs_1.readFileSync)(node_path_1.default.join(config_1.REPO_ROOT, 'schema', 'run-spec.schema.json'), 'utf8'));
    strict_1.default.deepEqual(committed, JSON.parse(JSON.stringify((0, run_spec_1.runSpecJsonSchema)())));
    strict_1.default.equal(committed.additionalProperties, false);
});
(0, node_test_1.test)('a kubernetes spec the schema accepts still gets its target checks (an image that is no image reference) before anything is provisioned, each problem once', () => {
    const k8s = {
        name: 'k',
        workload: 'logs',
        scale: 1000,
        target: { kind: 'kubernetes', images: { '26.7': 'not an image!! ;rm -rf' } },
        matrix: { version: ['26.7'], codec: ['LZ4'] },
    };
    strict_1.default.doesNotThrow(() => (0, run_spec_1.parseRunSpec)(k8s), 'the schema alone accepts it');
    const problems = (0, validate_spec_1.checkSpec)(k8s).problems;
    strict_1.default.equal(problems.filter((p) => /target\.images: version 26\.7 gives image/.test(p)).length, 1, problems.join('\n'));
    strict_1.default.deepEqual((0, validate_spec_1.checkSpec)((0, spec_file_1.readSpecFile)(node_path_1.default.join(config_1.REPO_ROOT, 'examples', 'eks.yaml'))).problems, []);
    // A namespace with a dot is a DNS subdomain, not a namespace name.
    strict_1.default.match((0, validate_spec_1.checkSpec)({ ...k8s, target: { kind: 'kubernetes', namespace: 'bench.db' } }).problems.join('\n'), /target\.namespace: a namespace name/);
});
(0, node_test_1.test)('a baseline: defaults, a version that is not in the matrix, too few warm runs, a password in the results URL spec refused', () => {
    const ok = (0, run_spec_1.parseRunSpec)({ ...base(), protocol: { warmRuns: 15 }, baseline: { from: 'previous-scheduled' } });
    strict_1.default.deepEqual(ok.baseline, {
        from: 'previous-scheduled',
        minChange: 0.1,
        unstableAbove: 0.3,
        minRuns: 7,
        confirmRounds: 12,
    });
    strict_1.default.ok(problems({ ...base(), protocol: { warmRuns: 15 }, baseline: { from: 'version', version: '24.8' } }).some((l) => /baseline\.version: "24\.8" is not a version of this matrix/.test(l)));
    strict_1.default.ok(problems({ ...base(), protocol: { warmRuns: 15 }, baseline: { from: 'version', version: '26.7' } }).some((l) => /only version "26\.7", so there is nothing to compare/.test(l)));
    strict_1.default.ok(problems({ ...base(), baseline: { from: 'run', run: 'r1' } }).some((l) => /protocol\.warmRuns: 3 warm runs per query cannot give the comparison the 7 valid warm runs/.test(l)));
    strict_1.default.ok(problems({ ...base(), baseline: { from: 'yesterday' } }).some((l) => /baseline/.test(l)));
    // The results database's password is named by an environment variable, never written in the spec.
    strict_1.default.ok(problems({ ...base(), results: { url: 'http://127.0.0.1:8123', password: 'secret' } }).some((l) => /results.*unknown key.*"password"/.test(l)));
    strict_1.default.deepEqual((0, run_spec_1.parseRunSpec)({ ...base(), results: { url: 'http://127.0.0.1:8123', passwordEnv: 'CH_RESULTS_PASSWORD' } }).results, { url: 'http://127.0.0.1:8123', database: 'chbench', user: 'default', passwordEnv: 'CH_RESULTS_PASSWORD' });
});
//# sourceMappingURL=spec.test.js.map