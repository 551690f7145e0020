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
 * The insert grid's point activity (`insertPoint`) and its inserter engine against real servers: the
 * embedded engine (chdb; text formats only, one statement at a time) and Debian's clickhouse-server
 * 18.16 (local target). Each point runs in a `MockActivityEnvironment` through `createActivities`, as
 * the worker runs it. Records are read back from `grids/insert-<key>.json`.
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const fs = __importStar(require("node:fs"));
const http = __importStar(require("node:http"));
const os = __importStar(require("node:os"));
const path = __importStar(require("node:path"));
const node_crypto_1 = require("node:crypto");
const common_1 = require("@temporalio/common");
const activities_1 = require("../../src/activities");
const insert_load_1 = require("../../src/measure/insert-load");
const store_1 = require("../../src/results/store");
const run_spec_1 = require("../../src/schema/run-spec");
const grids_1 = require("../../src/schema/grids");
const embedded_1 = require("../../src/targets/embedded");
const local_1 = require("../../src/targets/local");
const activity_env_1 = require("../helpers/activity-env");
const testing_1 = require("@temporalio/testing");
const client_1 = require("../../src/clickhouse/client");
const insert_grid_1 = require("../../src/activities/insert-grid");
const LOCAL_BIN = ['/usr/bin/clickhouse-server', '/usr/sbin/clickhouse-server'].find((p) => fs.existsSync(p));
function point(batchSize, concurrency, profile, format) {
    const p = { batchSize, concurrency, profile: { query: {}, mergeTree: {}, ...profile }, format };
    return { key: (0, grids_1.insertPointKey)(p), ...p };
}
(0, node_test_1.describe)('insert grid points (embedded engine and clickhouse-server 18.16)', { timeout: 180_000 }, () => {
    let tmp;
    let workDir;
    let acts;
    let embedded;
    let local;
    const runId = `ins-${(0, node_crypto_1.randomUUID)().slice(0, 8)}`;
    const input = (target, version, workload, grid) => {
        const spec = (0, run_spec_1.parseRunSpec)({
            name: 'insert-grid',
            workload,
            scale: 1000,
            target: target.kind === 'local' ? { kind: 'local', binaries: { [version]: LOCAL_BIN } } : { kind: 'embedded' },
            matrix: { version: [version], codec: ['LZ4'] },
            resultsDir: path.join(tmp, 'results'),
            // The points are passed one by one; the spec's own axes only have to pass validation.
            grids: { insert: { batchSizes: [1], concurrency: [1], ...grid } },
        });
        const cell = {
            runId,
            cellKey: `v${version}-${workload}`,
            version,
            codec: 'LZ4',
            workload,
            scale: 1000,
            skipIndex: false,
            protocol: spec.protocol,
            target: spec.target,
            teardown: 'always',
            resultsDir: spec.resultsDir,
            grids: spec.grids,
        };
        return { cell, target };
    };
    const record = (si, file) => JSON.parse(fs.readFileSync(path.join((0, store_1.cellDir)(si.cell.resultsDir, runId, si.cell.cellKey), file), 'utf8'));
    (0, node_test_1.before)(async () => {
        tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-insert-grid-'));
        workDir = path.join(tmp, 'targets');
        acts = (0, activities_1.createActivities)({ workDir, temporalAddress: '127.0.0.1:1', namespace: 'default' });
        strict_1.default.ok(LOCAL_BIN, 'clickhouse-server (Debian 18.16) is installed: run ./scripts/setup.sh --with-debian-clickhouse');
        [embedded, local] = await Promise.all([
            (0, embedded_1.provisionEmbedded)({ runId, cellKey: 'emb', version: '26.7', workDir }),
            (0, local_1.provisionLocal)({ runId, cellKey: 'loc', version: '18.16', workDir }, LOCAL_BIN),
        ]);
    });
    (0, node_test_1.after)(async () => {
        await Promise.all([
            embedded && (0, embedded_1.teardownEmbedded)(embedded).catch(() => undefined),
            local && (0, local_1.teardownLocal)(local).catch(() => undefined),
        ]);
        fs.rmSync(tmp, { recursive: true, force: true });
    });
    (0, node_test_1.test)('repeated batches on a deduplicating table: count() is one batch, verified, DuplicatedInsertedBlocks > 0', async () => {
        const p = point(1000, 1, { name: 'dedup', mergeTree: { non_replicated_deduplication_window: 100 } }, 'JSONEachRow');
        const si = input(embedded, '26.7', 'trivial', { rows: 5000, data: 'repeat', sampleMs: 50 });
        const out = await (0, activity_env_1.startActivity)(acts.insertPoint, si, p).result;
        strict_1.default.equal(out.inserts, 5);
        strict_1.default.equal(out.errors, 0);
        strict_1.default.equal(out.verified, true);
        const r = record(si, out.file);
        strict_1.default.equal(r.verification.count, 1000, 'one batch landed, four were dropped as duplicates');
        strict_1.default.equal(r.verification.expected, 1000);
        strict_1.default.equal(r.loop.rows_acked, 5000);
        strict_1.default.ok(r.events.deltas.DuplicatedInsertedBlocks > 0, JSON.stringify(r.events.deltas));
    });
    (0, node_test_1.test)('rows that would not fit the memory allowed fail the point before the rest is generated, non-retryably, naming maxBufferMiB', async () => {
        // logs rows in RowBinary are ~180 bytes: 200 batches of 10,000 rows ≈ 340 MiB > 1 MiB.
        const p = point(10_000, 1, { name: 'big' }, 'RowBinary');
        const si = input(embedded, '26.7', 'logs', { rows: 2_000_000, maxBufferMiB: 1 });
        const run = (0, activity_env_1.startActivity)(acts.insertPoint, si, p);
        const out = await run.settled;
        strict_1.default.equal(out.ok, false);
        const err = out.error;
        strict_1.default.equal(err.type, 'InvalidSpec');
        strict_1.default.equal(err.nonRetryable, true);
        strict_1.default.match(err.message, /200 batches would take about \d+ MiB .* more than grids\.insert\.maxBufferMiB = 1 MiB/);
        strict_1.default.ok(!run.beats.some((b) => /generated batch 2\//.test(String(b.d.progress))), 'stopped after the first batch');
    });
    (0, node_test_1.test)('too many parts: code 252 counted per INSERT, RejectedInserts > 0, count() == rows acknowledged', async () => {
        // Parts larger than 1 byte never merge, so they pile up: 2 → delayed, 3 → refused.
        const p = point(500, 2, {
            name: 'tinyparts',
            mergeTree: {
                parts_to_delay_insert: 2,
                parts_to_throw_insert: 3,
                max_bytes_to_merge_at_max_space_in_pool: 1,
                max_bytes_to_merge_at_min_space_in_pool: 1,
            },
        }, 'JSONEachRow');
        const si = input(embedded, '26.7', 'trivial', { rows: 5000, sampleMs: 50 });
        const out = await (0, activity_env_1.startActivity)(acts.insertPoint, si, p).result;
        const r = record(si, out.file);
        strict_1.default.ok((r.loop.errors_by_code['252'] ?? 0) > 0, `TOO_MANY_PARTS counted: ${JSON.stringify(r.loop.errors_by_code)}`);
        strict_1.default.equal(out.errors, r.loop.errors_by_code['252'], 'every failure is 252');
        strict_1.default.equal(out.inserts + out.errors, 10, 'the loop went on after the errors');
        strict_1.default.ok(r.events.deltas.RejectedInserts > 0, JSON.stringify(r.events.deltas));
        strict_1.default.equal(out.verified, true, r.verification.reasons.join('; '));
        strict_1.default.equal(r.verification.count, r.loop.rows_acked);
        strict_1.default.ok(r.parts.peak_active >= 2, `peak active parts ${r.parts.peak_active}`);
    });
    (0, node_test_1.test)('async_insert=1 on the embedded engine runs synchronously and says so; 18.16 refuses the setting', async () => {
        const profile = { name: 'async', query: { async_insert: 1, wait_for_async_insert: 1 } };
        const si = input(embedded, '26.7', 'trivial', { rows: 3000 });
        const out = await (0, activity_env_1.startActivity)(acts.insertPoint, si, point(1000, 2, profile, 'JSONEachRow')).result;
        const r = record(si, out.file);
        strict_1.default.equal(out.verified, true, r.verification.reasons.join('; '));
        strict_1.default.equal(r.verification.count, 3000);
        strict_1.default.equal(r.async_insert.effective, 'synchronous');
        strict_1.default.equal(r.async_insert.note, 'async_insert=1 requested; the server ran the inserts synchronously (system.events AsyncInsertQuery +0)');
        const old = input(local, '18.16', 'logs-legacy', { rows: 3000 });
        const failed = await (0, activity_env_1.startActivity)(acts.insertPoint, old, point(1000, 1, profile, 'RowBinary')).settled;
        strict_1.default.ok(!failed.ok && failed.error instanceof common_1.ApplicationFailure, String(!failed.ok && failed.error));
        const e = failed.error;
        strict_1.default.equal(e.type, 'InvalidSetting');
        strict_1.default.equal(e.nonRetryable, true);
        strict_1.default.match(e.message, /insert point b1000-c1-async-rowbinary: settings profile "async" query: unknown setting "async_insert" on ClickHouse 18\.16/);
    });
    (0, node_test_1.test)('a pool smaller than the concurrency is refused before anything is sent, and by the spec', async () => {
        let requests = 0;
        const srv = http.createServer((req, res) => {
            requests++;
            res.end();
        });
        await new Promise((r) => srv.listen(0, '127.0.0.1', r));
        try {
            const port = srv.address().port;
            const t = { ...embedded, url: `http://127.0.0.1:${port}` };
            const prepared = {
                format: 'JSONEachRow',
                columns: ['n'],
                batches: [Buffer.from('{"n":1}\n')],
                batchRows: [1],
                rows: 1,
                bytes: 8,
                generateMs: 0,
            };
            await strict_1.default.rejects((0, insert_load_1.runInsertLoop)(t, { table: 't', prepared, concurrency: 4, maxConnections: 2, settings: {}, queryIdPrefix: 'x' }), /a pool of 2 connections cannot serve 4 concurrent clients/);
            strict_1.default.equal(requests, 0, 'nothing was sent');
            // The same engine with a pool that fits does send.
            const ok = await (0, insert_load_1.runInsertLoop)(t, {
                table: 't',
                prepared,
                concurrency: 1,
                maxConnections: 1,
                settings: {},
                queryIdPrefix: 'x',
            });
            strict_1.default.equal(requests, 1);
            strict_1.default.equal(ok.inserts, 1);
        }
        finally {
            srv.close();
        }
        strict_1.default.throws(() => (0, run_spec_1.parseRunSpec)({
            name: 'pool',
            workload: 'trivial',
            scale: 1000,
            target: { kind: 'embedded' },
            matrix: { version: ['26.7'], codec: ['LZ4'] },
            grids: { insert: { concurrency: [1, 4], maxConnections: 2 } },
        }), /grids\.insert\.maxConnections: 2 connections cannot serve 4 concurrent clients/);
    });
    (0, node_test_1.test)('a later attempt of the same activity keeps a point its earlier attempt finished; another activity measures it again', async () => {
        const p = point(2000, 1, { name: 'again' }, 'RowBinary');
        const si = input(embedded, '26.7', 'trivial', { rows: 10_000 });
        const run = (info) => new testing_1.MockActivityEnvironment({
            workflowExecution: { workflowId: 'wf-a', runId: 'run-a' },
            activityId: 'ins-1',
            ...info,
        }).run(acts.insertPoint, si, p);
        const first = await run({ attempt: 1 });
        const file = path.join((0, store_1.cellDir)(si.cell.resultsDir, runId, si.cell.cellKey), first.file);
        const text = fs.readFileSync(file, 'utf8');
        // The worker died after the record was written, before the completion reached Temporal (and
        // before the point's table was dropped): attempt 2.
        const c0 = (0, client_1.connect)(embedded);
        await c0.command({ query: `CREATE TABLE ${(0, insert_grid_1.pointTable)('t', p.key)} (n UInt64) ENGINE = MergeTree ORDER BY n` });
        await c0.close();
        const retried = await run({ attempt: 2 });
        strict_1.default.deepEqual({ ...retried, attempt: 1 }, { ...first, attempt: 1 });
        strict_1.default.equal(fs.readFileSync(file, 'utf8'), text, 'the record is kept as the first attempt wrote it');
        // The table the first attempt left is dropped by the second.
        const c = (0, client_1.connect)(embedded);
        try {
            strict_1.default.equal(Number(await (0, client_1.queryScalar)(c, `EXISTS TABLE ${(0, insert_grid_1.pointTable)('t', p.key)}`)), 0);
        }
        finally {
            await c.close();
        }
        // A different scheduled activity (another run of the cell) measures the point afresh.
        const other = await run({ activityId: 'ins-2', attempt: 1 });
        strict_1.default.notEqual(fs.readFileSync(file, 'utf8'), text);
        strict_1.default.equal(other.verified, true);
    });
    (0, node_test_1.test)('a normal point on 18.16 (logs-legacy, RowBinary, 3 batches, concurrency 2): verified, rows/s > 0, ≥ 1 part per INSERT', async () => {
        const si = input(local, '18.16', 'logs-legacy', { rows: 30_000, sampleMs: 50 });
        const out = await (0, activity_env_1.startActivity)(acts.insertPoint, si, point(10_000, 2, { name: 'default' }, 'RowBinary')).result;
        const r = record(si, out.file);
        strict_1.default.equal(out.verified, true, r.verification.reasons.join('; '));
        strict_1.default.equal(r.verification.count, 30_000);
        strict_1.default.equal(out.inserts, 3);
        strict_1.default.ok(out.rowsPerS > 0 && out.mbPerS > 0, `${out.rowsPerS} rows/s, ${out.mbPerS} MB/s`);
        strict_1.default.ok(out.latencyMs.count === 3 && out.latencyMs.p50 > 0);
        strict_1.default.ok(r.parts.per_insert !== null && r.parts.per_insert >= 1, `parts per insert ${r.parts.per_insert}`);
        strict_1.default.ok(r.samples.length >= 1, 'the sampler ran');
        console.log(`18.16 logs-legacy RowBinary b10000 c2: ${Math.round(out.rowsPerS)} rows/s, parts/insert ${r.parts.per_insert}`);
    });
});
//# sourceMappingURL=insert-grid.test.js.map