"use strict";
var __createBinding = (this && this.__createBinding) || (Object.create ? (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    var desc = Object.getOwnPropertyDescriptor(m, k);
    if (!desc || ("get" in desc ? !m.__esModule : desc.writable || desc.configurable)) {
      desc = { enumerable: true, get: function() { return m[k]; } };
    }
    Object.defineProperty(o, k2, desc);
}) : (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    o[k2] = m[k];
}));
var __setModuleDefault = (this && this.__setModuleDefault) || (Object.create ? (function(o, v) {
    Object.defineProperty(o, "default", { enumerable: true, value: v });
}) : function(o, v) {
    o["default"] = v;
});
var __importStar = (this && this.__importStar) || (function () {
    var ownKeys = function(o) {
        ownKeys = Object.getOwnPropertyNames || function (o) {
            var ar = [];
            for (var k in o) if (Object.prototype.hasOwnProperty.call(o, k)) ar[ar.length] = k;
            return ar;
        };
        return ownKeys(o);
    };
    return function (mod) {
        if (mod && mod.__esModule) return mod;
        var result = {};
        if (mod != null) for (var k = ownKeys(mod), i = 0; i < k.length; i++) if (k[i] !== "default") __createBinding(result, mod, k[i]);
        __setModuleDefault(result, mod);
        return result;
    };
})();
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * Unit layer (no server): the results schema against records captured from a real run
 * (`test/fixtures/results/embedded-26.7`: `npm run demo`, embedded target, ClickHouse 26.7, cells
 * LZ4 and ZSTD(3); the LZ4 cell keeps every step file), the report rendered from them, clear errors on
 * broken or foreign files, and the flat samples.
 */
const node_test_1 = __importDefault(require("node:test"));
const strict_1 = __importDefault(require("node:assert/strict"));
const node_fs_1 = require("node:fs");
const node_os_1 = __importDefault(require("node:os"));
const node_path_1 = __importDefault(require("node:path"));
const config_1 = require("../../src/config");
const R = __importStar(require("../../src/schema/results"));
const store_1 = require("../../src/results/store");
const report_1 = require("../../src/results/report");
const samples_1 = require("../../src/results/samples");
const RUN = node_path_1.default.join(config_1.REPO_ROOT, 'test', 'fixtures', 'results', 'embedded-26.7');
const CELL = node_path_1.default.join(RUN, 'cells', 'v26.7-lz4');
const sameShapes = [true, true, true];
void sameShapes;
const STEP_FILES = [
    ['probe.json', R.CapabilityProbe],
    ['settings.json', R.CellSettings],
    ['provision.json', R.ProvisionRecord],
    ['schema.json', R.SchemaRecord],
    ['metrics-start.json', R.MetricsSnapshot],
    ['metrics-end.json', R.MetricsSnapshot],
    ['load.json', R.LoadRecord],
    ['quiesce-after-load.json', R.QuiesceRecord],
    ['quiesce-after-index.json', R.QuiesceRecord],
    ['storage.json', R.StorageRecord],
    ['queries-baseline.json', R.QueriesRecord],
    ['index.json', R.IndexRecord],
    ['queries-index.json', R.QueriesRecord],
    ['teardown.json', R.TeardownRecord],
    ['result.json', R.CellResult],
];
/** A copy of the fixture run in a temporary directory, with `edit` applied to the LZ4 cell's result.json. */
function brokenCopy(edit) {
    const dir = (0, node_fs_1.mkdtempSync)(node_path_1.default.join(node_os_1.default.tmpdir(), 'chbench-results-'));
    (0, node_fs_1.cpSync)(RUN, dir, { recursive: true });
    const file = node_path_1.default.join(dir, 'cells', 'v26.7-lz4', 'result.json');
    const doc = JSON.parse((0, node_fs_1.readFileSync)(file, 'utf8'));
    edit(doc);
    (0, node_fs_1.writeFileSync)(file, JSON.stringify(doc));
    return { dir, file };
}
(0, node_test_1.default)('every fixture record parses with its schema, losing no field', () => {
    for (const [f, schema] of STEP_FILES) {
        const raw = JSON.parse((0, node_fs_1.readFileSync)(node_path_1.default.join(CELL, f), 'utf8'));
        const parsed = (0, store_1.readRecord)(node_path_1.default.join(CELL, f), schema);
        // Parsing strips unknown keys: equal to the file means the schema knows every field written.
        strict_1.default.deepEqual(parsed, raw, `${f}: the schema drops or changes a field`);
    }
    const run = (0, store_1.readRecord)(node_path_1.default.join(RUN, 'run.json'), R.RunRecord);
    strict_1.default.deepEqual(run, JSON.parse((0, node_fs_1.readFileSync)(node_path_1.default.join(RUN, 'run.json'), 'utf8')));
    strict_1.default.deepEqual(run.cells, ['v26.7-lz4', 'v26.7-zstd3']);
    strict_1.default.equal((0, store_1.readRecord)(node_path_1.default.join(RUN, 'cells', 'v26.7-zstd3', 'result.json'), R.CellResult).matrix.codec, 'ZSTD(3)');
    strict_1.default.equal((0, store_1.readRecordIfExists)(node_path_1.default.join(CELL, 'no-such.json'), R.LoadRecord), undefined);
});
(0, node_test_1.default)('the report rendered from the fixture is the one the run wrote, with the fixture figures', () => {
    const md = (0, report_1.renderReport)(RUN);
    strict_1.default.equal(md, (0, node_fs_1.readFileSync)(node_path_1.default.join(RUN, 'report.md'), 'utf8'));
    const lz4 = (0, store_1.readRecord)(node_path_1.default.join(CELL, 'result.json'), R.CellResult);
    const q1 = lz4.queries_baseline.queries.find((q) => q.id === 'q1');
    // Queries table, LZ4 columns: cold, warm min (the spec's statistic), warm median, read_rows.
    const row = md.split('\n').find((l) => l.startsWith('| q1 '));
    const cols = row.split('|').map((c) => c.trim());
    strict_1.default.equal(cols[2], (0, report_1.fmtMs)(q1.stats.cold_ms, q1.stats.resolution_ms));
    strict_1.default.equal(cols[3], (0, report_1.fmtMs)(q1.stats.warm_min_ms, q1.stats.resolution_ms));
    strict_1.default.equal(cols[3], '7.32 ms');
    strict_1.default.equal(cols[4], (0, report_1.fmtMs)(q1.stats.warm_median_ms, q1.stats.resolution_ms));
    strict_1.default.equal(cols[5], q1.stats.read_rows.toLocaleString('en-US'));
    // Compression table: LZ4 ratio from storage.json.
    const comp = md.split('\n').find((l) => l.startsWith('| v26.7-lz4 ') && l.includes('×'));
    strict_1.default.ok(comp.includes(`${lz4.storage.ratio.toFixed(2)}×`), comp);
});
(0, node_test_1.default)('a field of the wrong type fails naming the file, the schema id and the field', () => {
    const { dir, file } = brokenCopy((d) => (d.queries_baseline.queries[0].stats.cold_ms = '12.5'));
    try {
        strict_1.default.throws(() => (0, store_1.readRecord)(file, R.CellResult), (e) => {
            strict_1.default.ok(e.message.startsWith(`${file} (chbench.cell-result/v1): `), e.message);
            strict_1.default.match(e.message, /queries_baseline\.queries\[0\]\.stats\.cold_ms: expected number, got string/);
            return true;
        });
        strict_1.default.throws(() => (0, report_1.renderReport)(dir), /result\.json \(chbench\.cell-result\/v1\): queries_baseline\.queries\[0\]\.stats\.cold_ms: expected number, got string/);
    }
    finally {
        (0, node_fs_1.rmSync)(dir, { recursive: true, force: true });
    }
});
(0, node_test_1.default)('a missing field and a bad enum value are named too', () => {
    const { dir, file } = brokenCopy((d) => {
        delete d.load.rows_in_table;
        d.queries_index.queries[0].samples[2].kind = 'lukewarm';
    });
    try {
        strict_1.default.throws(() => (0, store_1.readRecord)(file, R.CellResult), (e) => {
            strict_1.default.match(e.message, /load\.rows_in_table: expected number, got nothing \(field missing\)/);
            strict_1.default.match(e.message, /queries_index\.queries\[0\]\.samples\[2\]\.kind: /);
            return true;
        });
    }
    finally {
        (0, node_fs_1.rmSync)(dir, { recursive: true, force: true });
    }
});
(0, node_test_1.default)('a result of another schema id fails saying which id it has and which it wants', () => {
    const { dir, file } = brokenCopy((d) => (d.schema = 'chbench.cell-result/v0'));
    try {
        strict_1.default.throws(() => (0, store_1.readRecord)(file, R.CellResult), /schema id "chbench\.cell-result\/v0", expected "chbench\.cell-result\/v1"/);
        strict_1.default.throws(() => (0, report_1.renderReport)(dir), /schema id "chbench\.cell-result\/v0", expected "chbench\.cell-result\/v1"/);
        (0, node_fs_1.writeFileSync)(file, JSON.stringify({ hello: 'world' }));
        strict_1.default.throws(() => (0, store_1.readRecord)(file, R.CellResult), /schema id missing, expected "chbench\.cell-result\/v1"/);
        (0, node_fs_1.writeFileSync)(file, '{"schema": ');
        strict_1.default.throws(() => (0, store_1.readRecord)(file, R.CellResult), /not valid JSON/);
    }
    finally {
        (0, node_fs_1.rmSync)(dir, { recursive: true, force: true });
    }
});
(0, node_test_1.default)('flatSamples: one line per figure of each measured run, with its metadata', () => {
    const r = (0, store_1.readRecord)(node_path_1.default.join(CELL, 'result.json'), R.CellResult);
    const run = (0, store_1.readRecord)(node_path_1.default.join(RUN, 'run.json'), R.RunRecord);
    const samples = (0, samples_1.flatSamples)(r, { chbench: run.chbench });
    for (const s of samples)
        R.FlatSample.parse(s);
    const runs = [r.queries_baseline, r.queries_index].flatMap((p) => p.queries.flatMap((q) => q.samples));
    strict_1.default.equal(runs.length, 30, '6 query steps × (1 cold + 1 warm-up + 3 warm)');
    // Embedded target: no query_log, so no memory_usage; every other run metric is measured.
    const perRun = samples_1.RUN_METRICS.filter((m) => m !== 'memory_usage');
    const runLines = samples.filter((s) => ['cold', 'warm', 'warmup'].includes(s.metadata.kind));
    strict_1.default.equal(runLines.length, runs.length * perRun.length);
    strict_1.default.deepEqual([...new Set(runLines.map((s) => s.metric))], perRun);
    strict_1.default.deepEqual(samples.filter((s) => s.metadata.kind === 'load').map((s) => s.metric), ['load_wall_time', 'load_server_elapsed', 'load_rows_per_s']);
    strict_1.default.deepEqual(samples.filter((s) => s.metadata.kind === 'storage').map((s) => s.metric), ['bytes_on_disk', 'compressed_bytes', 'uncompressed_bytes', 'compression_ratio']);
    strict_1.default.equal(samples.length, runLines.length + 3 + 4);
    // One known sample: q1's second warm run in the baseline, server-side elapsed.
    const rec = r
        .queries_baseline.queries.find((q) => q.id === 'q1')
        .samples.find((s) => s.kind === 'warm' && s.n === 2);
    const line = samples.find((s) => s.metric === 'server_elapsed' &&
        s.metadata.query === 'q1' &&
        s.metadata.phase === 'baseline' &&
        s.metadata.kind === 'warm' &&
        s.metadata.try === 2);
    strict_1.default.equal(line.value, rec.server_elapsed_ms);
    strict_1.default.equal(line.unit, 'ms');
    strict_1.default.equal(line.timestamp, Date.parse(r.written_at) / 1000);
    strict_1.default.deepEqual(line.metadata, {
        run: r.runId,
        cell: 'v26.7-lz4',
        version_label: '26.7',
        version: r.provision.server.version,
        codec: 'LZ4',
        target: 'embedded',
        workload: 'logs',
        scale: 2_000_000,
        query: 'q1',
        phase: 'baseline',
        kind: 'warm',
        try: 2,
        query_id: rec.query_id,
        cold_valid: null,
        quiet_valid: rec.validity.quiet.valid,
        source: rec.server_elapsed_source,
        chbench_version: '0.1.0',
        chbench_commit: run.chbench.commit,
    });
    const load = samples.find((s) => s.metric === 'load_rows_per_s');
    strict_1.default.equal(load.value, r.load.rows_per_s);
    strict_1.default.equal(load.metadata.query_id, r.load.query_id);
    const cold = samples.find((s) => s.metadata.kind === 'cold' && s.metadata.query === 'q3' && s.metric === 'read_rows');
    const coldRec = r.queries_baseline.queries.find((q) => q.id === 'q3').samples.find((s) => s.kind === 'cold');
    strict_1.default.equal(cold.value, coldRec.read_rows);
    strict_1.default.equal(cold.metadata.cold_valid, coldRec.validity.cold?.valid ?? null);
});
(0, node_test_1.default)('flatSamples writes no line for an unknown figure (null), and picks up query_log memory_usage', () => {
    const r = (0, store_1.readRecord)(node_path_1.default.join(CELL, 'result.json'), R.CellResult);
    const s0 = r.queries_baseline.queries[0].samples[0];
    s0.server_elapsed_ms = null;
    s0.query_log = { memory_usage: '1048576' };
    const lines = (0, samples_1.flatSamples)(r, { chbench: null }).filter((s) => s.metadata.query_id === s0.query_id);
    strict_1.default.deepEqual(lines.map((s) => s.metric), ['wall_time', 'read_rows', 'read_bytes', 'result_rows', 'result_bytes', 'memory_usage']);
    strict_1.default.equal(lines.at(-1).value, 1048576);
    strict_1.default.equal(lines[0].metadata.chbench_version, null);
});
(0, node_test_1.default)("writeRunSamples concatenates the cells' samples.jsonl in run.json order", () => {
    const dir = (0, node_fs_1.mkdtempSync)(node_path_1.default.join(node_os_1.default.tmpdir(), 'chbench-samples-'));
    try {
        (0, node_fs_1.cpSync)(RUN, dir, { recursive: true });
        const perCell = {};
        for (const k of ['v26.7-lz4', 'v26.7-zstd3']) {
            const r = (0, store_1.readRecord)(node_path_1.default.join(dir, 'cells', k, 'result.json'), R.CellResult);
            perCell[k] = (0, samples_1.toJsonLines)((0, samples_1.flatSamples)(r, { chbench: null }));
            (0, node_fs_1.writeFileSync)(node_path_1.default.join(dir, 'cells', k, 'samples.jsonl'), perCell[k]);
        }
        const file = (0, store_1.writeRunSamples)(dir, ['v26.7-zstd3', 'v26.7-lz4', 'v26.7-missing']);
        const text = (0, node_fs_1.readFileSync)(file, 'utf8');
        strict_1.default.equal(text, perCell['v26.7-zstd3'] + perCell['v26.7-lz4']);
        for (const l of text.trimEnd().split('\n'))
            R.FlatSample.parse(JSON.parse(l));
    }
    finally {
        (0, node_fs_1.rmSync)(dir, { recursive: true, force: true });
    }
});
//# sourceMappingURL=results-schema.test.js.map