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
 * What a cell claims, checked on real servers right after its table is created (issue 13, sections 1
 * and 6): each column's codec read back from `system.columns.compression_codec`, the table settings
 * the server shows, every query's EXPLAIN on the empty table, and the codec trial at provisioning.
 * Servers: the chdb engine (ClickHouse 26.7) and Debian's clickhouse-server 18.16, which has neither
 * column codecs nor EXPLAIN and must say so. Test workloads: test/fixtures/workloads.
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const fs = __importStar(require("node:fs"));
const os = __importStar(require("node:os"));
const path = __importStar(require("node:path"));
const node_crypto_1 = require("node:crypto");
const embedded_1 = require("../../src/targets/embedded");
const local_1 = require("../../src/targets/local");
const client_1 = require("../../src/clickhouse/client");
const codec_check_1 = require("../../src/clickhouse/codec-check");
const query_log_1 = require("../../src/clickhouse/query-log");
const figures_1 = require("../../src/measure/figures");
const create_schema_1 = require("../../src/activities/create-schema");
const matrix_1 = require("../../src/schema/matrix");
const run_spec_1 = require("../../src/schema/run-spec");
const failures_1 = require("../../src/schema/failures");
const store_1 = require("../../src/results/store");
const config_1 = require("../../src/config");
const assert_failure_1 = require("../helpers/assert-failure");
const FIXTURES = path.join(config_1.REPO_ROOT, 'test', 'fixtures');
const { createSchema } = (0, create_schema_1.createCreateSchema)();
let workDir;
let savedRoot;
(0, node_test_1.before)(() => {
    savedRoot = process.env.CHBENCH_SQL_ROOT;
    process.env.CHBENCH_SQL_ROOT = FIXTURES;
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-codec-check-'));
});
(0, node_test_1.after)(() => {
    if (savedRoot === undefined)
        delete process.env.CHBENCH_SQL_ROOT;
    else
        process.env.CHBENCH_SQL_ROOT = savedRoot;
    fs.rmSync(workDir, { recursive: true, force: true });
});
/** The one cell of a spec with this workload and codec entry. */
function cellOf(workload, codec, target = { kind: 'embedded' }, version = '26.7') {
    const spec = (0, run_spec_1.parseRunSpec)({
        name: 'codec-check',
        workload,
        scale: 1000,
        target,
        matrix: { version: [version], codec: [codec] },
        resultsDir: path.join(workDir, 'results'),
    });
    return (0, matrix_1.cellInputs)(spec, `run-${(0, node_crypto_1.randomUUID)().slice(0, 8)}`, [])[0];
}
function schemaRecord(cell) {
    return JSON.parse(fs.readFileSync(path.join((0, store_1.cellDir)(cell.resultsDir, cell.runId, cell.cellKey), 'schema.json'), 'utf8'));
}
(0, node_test_1.describe)('createSchema on chdb (ClickHouse 26.7)', { timeout: 180_000 }, () => {
    let target;
    (0, node_test_1.before)(async () => {
        target = await (0, embedded_1.provisionEmbedded)({
            runId: `codec-${(0, node_crypto_1.randomUUID)().slice(0, 8)}`,
            cellKey: 'c',
            version: '26.7',
            workDir,
        });
    });
    (0, node_test_1.after)(async () => {
        if (target)
            await (0, embedded_1.teardownEmbedded)(target).catch(() => undefined);
    });
    const dropTable = async () => {
        const c = (0, client_1.connect)(target);
        await c.command({ query: 'DROP TABLE IF EXISTS t' });
        await c.close();
    };
    (0, node_test_1.it)('a ZSTD(3) cell whose schema forgets {{codec}} fails, naming the column and both codecs', async () => {
        await dropTable();
        const cell = cellOf('no-codec', 'ZSTD(3)');
        const f = await (0, assert_failure_1.assertFailureType)(createSchema({ cell, target }), failures_1.FAILURE.CodecMismatch, /column id has the server default \(LZ4; system\.columns\.compression_codec is empty\) but the cell declares CODEC\(ZSTD\(3\)\)/);
        strict_1.default.equal(f.nonRetryable, true);
        strict_1.default.match(f.message, /place \{\{codec\}\} on its columns/);
        const rec = schemaRecord(cell);
        strict_1.default.equal(rec.codecs?.available, true);
        strict_1.default.deepEqual(rec.codecs?.columns.map((c) => [c.column, c.declared, c.server, c.matches]), [
            ['id', 'ZSTD(3)', '', false],
            ['ts', 'ZSTD(3)', '', false],
            ['v', 'ZSTD(3)', '', false],
        ]);
    });
    (0, node_test_1.it)('a table left with another codec fails the cell with both values', async () => {
        await dropTable();
        const c = (0, client_1.connect)(target);
        await c.command({
            query: 'CREATE TABLE t (id UInt64 CODEC(ZSTD(1)), ts DateTime, v Int32) ENGINE = MergeTree ORDER BY id',
        });
        await c.close();
        await (0, assert_failure_1.assertFailureType)(createSchema({ cell: cellOf('codecs', 'ZSTD(3)'), target }), failures_1.FAILURE.CodecMismatch, /column id has CODEC\(ZSTD\(1\)\) but the cell declares CODEC\(ZSTD\(3\)\); column ts has the server default/);
    });
    (0, node_test_1.it)('a per-column profile is read back column by column, with the table settings the server shows', async () => {
        await dropTable();
        const cell = cellOf('codecs', {
            name: 'delta-zstd',
            default: 'ZSTD(4)',
            columns: { ts: 'Delta, ZSTD(1)', v: 'T64' },
        });
        (0, store_1.writeJsonAtomic)(path.join((0, store_1.cellDir)(cell.resultsDir, cell.runId, cell.cellKey), 'settings.json'), {
            load: {},
            runs: {},
            table: { min_bytes_for_wide_part: 0 },
            not_applied: {},
            problems: [],
        });
        strict_1.default.deepEqual(await createSchema({ cell, target }), { table: 't' });
        const rec = schemaRecord(cell);
        strict_1.default.deepEqual(rec.codecs?.columns.map((c) => [c.column, c.declared, c.server, c.matches]), [
            ['id', 'ZSTD(4)', 'CODEC(ZSTD(4))', true],
            ['ts', 'Delta, ZSTD(1)', 'CODEC(Delta(4), ZSTD(1))', true],
            ['v', 'T64', 'CODEC(T64)', true],
        ]);
        strict_1.default.deepEqual(rec.table_settings?.applied, { min_bytes_for_wide_part: 0 });
        strict_1.default.deepEqual(rec.table_settings?.not_shown, {});
        strict_1.default.deepEqual(rec.query_check?.queries, [{ id: 'q1', file: 'q1.sql', ok: true }]);
    });
    (0, node_test_1.it)('a query with a wrong column fails at createSchema, naming the query id and its file', async () => {
        await dropTable();
        const cell = cellOf('bad-query', 'LZ4');
        const f = await (0, assert_failure_1.assertFailureType)(createSchema({ cell, target }), failures_1.FAILURE.InvalidWorkloadQuery, /^query q2 \(.*test\/fixtures\/workloads\/bad-query\/wrong-column\.sql\) fails on the empty table t: .*nosuch/);
        strict_1.default.equal(f.nonRetryable, true);
        const rec = schemaRecord(cell);
        strict_1.default.deepEqual(rec.query_check?.queries.map((q) => [q.id, q.file, q.ok, q.code]), [
            ['q1', 'q1.sql', true, undefined],
            ['q2', 'wrong-column.sql', false, '47'],
        ]);
    });
    (0, node_test_1.it)('the codec trial names the column whose type the server refuses a codec for', async () => {
        const c = (0, client_1.connect)(target);
        try {
            const ok = await (0, codec_check_1.trialCodecs)(c, [
                { name: 'id', type: 'UInt64', codec: 'ZSTD(4)' },
                { name: 'ts', type: 'DateTime', codec: 'Delta, ZSTD(3)' },
            ]);
            strict_1.default.equal(ok.ok, true);
            const bad = await (0, codec_check_1.trialCodecs)(c, [
                { name: 'id', type: 'UInt64', codec: 'ZSTD(4)' },
                { name: 'msg', type: 'String', codec: 'Delta, ZSTD(1)' },
            ]);
            strict_1.default.equal(bad.ok, false);
            if (!bad.ok) {
                strict_1.default.equal(bad.column.name, 'msg');
                strict_1.default.match(bad.error, /Delta is not applicable for String/);
            }
            const unknown = await (0, codec_check_1.trialCodecs)(c, [{ name: 'id', type: 'UInt64', codec: 'ZSDT(3)' }]);
            strict_1.default.ok(!unknown.ok && /Unknown codec family: ZSDT/.test(unknown.error));
        }
        finally {
            await c.close();
        }
    });
});
const SERVER_1816 = ['/usr/bin/clickhouse-server', '/usr/sbin/clickhouse-server'].find((p) => fs.existsSync(p));
(0, node_test_1.describe)('createSchema on clickhouse-server 18.16 (no column codecs, no EXPLAIN)', { timeout: 180_000 }, () => {
    let target;
    (0, node_test_1.after)(async () => {
        if (target)
            await (0, local_1.teardownLocal)(target).catch(() => undefined);
    });
    (0, node_test_1.it)('records "not available on this server" for the codec read-back and the query check, not a silent pass', async (t) => {
        if (!SERVER_1816) {
            t.skip('no clickhouse-server binary: run ./scripts/setup.sh --with-debian-clickhouse');
            return;
        }
        target = await (0, local_1.provisionLocal)({ runId: `codec-${(0, node_crypto_1.randomUUID)().slice(0, 8)}`, cellKey: 'c', version: '18.16', workDir }, SERVER_1816);
        const cell = cellOf('codecs', 'LZ4', { kind: 'local', binaries: { '18.16': SERVER_1816 } }, '18.16');
        strict_1.default.deepEqual(await createSchema({ cell, target }), { table: 't' });
        const rec = schemaRecord(cell);
        strict_1.default.equal(rec.codecs?.available, false);
        strict_1.default.match(rec.codecs?.reason ?? '', /^not available on this server: its system\.columns has no compression_codec/);
        strict_1.default.deepEqual(rec.codecs?.columns, []);
        strict_1.default.equal(rec.query_check?.available, false);
        strict_1.default.match(rec.query_check?.reason ?? '', /^not available on this server: it has no EXPLAIN/);
        strict_1.default.match(rec.show_create_table, /CREATE TABLE .*t/);
    });
    (0, node_test_1.it)('a run\u2019s query settings are recorded as applied from its query_log row', async (t) => {
        if (!target) {
            t.skip('no clickhouse-server binary: run ./scripts/setup.sh --with-debian-clickhouse');
            return;
        }
        const c = (0, client_1.connect)(target);
        try {
            const id = `chbench-settings-${(0, node_crypto_1.randomUUID)()}`;
            const rs = await c.query({
                query: 'SELECT count() FROM t',
                query_id: id,
                format: 'JSONCompact',
                clickhouse_settings: { max_threads: 1, log_queries: 1 },
            });
            await rs.json();
            const row = (await (0, query_log_1.fetchQueryLog)(c, [id])).get(id);
            strict_1.default.ok(row, 'the run has a query_log row');
            const check = (0, figures_1.settingsCheck)({ max_threads: 1, max_block_size: 1000 }, row);
            strict_1.default.equal(check.source, 'system.query_log Settings.Names/Settings.Values');
            strict_1.default.deepEqual(check.applied, { max_threads: '1' });
            strict_1.default.deepEqual(check.not_shown, {
                max_block_size: 'not in the run\u2019s query_log Settings (servers may list only settings that differ from their default)',
            });
        }
        finally {
            await c.close();
        }
    });
});
//# sourceMappingURL=codec-check.test.js.map