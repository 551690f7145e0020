"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * The `local` target through the whole workflow, on a real ClickHouse server binary: Debian's
 * clickhouse-server (18.16), started per cell with a generated config. The old-server variant of the
 * workload runs; a cell this version cannot run is reported as skipped with the reason.
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const node_fs_1 = require("node:fs");
const node_path_1 = __importDefault(require("node:path"));
const temporal_env_1 = require("../helpers/temporal-env");
const BINARY = process.env.CHBENCH_CLICKHOUSE_SERVER ?? '/usr/sbin/clickhouse-server';
let env;
(0, node_test_1.before)(async () => {
    strict_1.default.ok((0, node_fs_1.existsSync)(BINARY), `${BINARY} is missing: run ./scripts/setup.sh --with-debian-clickhouse (CI does) or set CHBENCH_CLICKHOUSE_SERVER`);
    env = await (0, temporal_env_1.startTemporalEnv)('local');
});
(0, node_test_1.after)(async () => {
    await env?.stop();
});
(0, node_test_1.test)('a local 18.16 matrix measures the LZ4 cell with query_log rows and skips the CODEC cell', async () => {
    const runId = `local-${Date.now()}`;
    const spec = {
        name: 'local',
        workload: 'logs-legacy',
        scale: 200_000,
        target: { kind: 'local', binaries: { '18.16': BINARY } },
        matrix: { version: ['18.16'], codec: ['LZ4', 'ZSTD(3)'] },
        skipIndex: false,
        resultsDir: env.resultsDir,
    };
    const r = (await env.client.workflow.execute('benchmarkMatrix', {
        taskQueue: env.taskQueue,
        workflowId: runId,
        args: [spec],
    }));
    const byKey = Object.fromEntries(r.cells.map((c) => [c.cellKey, c]));
    strict_1.default.equal(byKey['v18.16-lz4'].status, 'succeeded', byKey['v18.16-lz4'].error);
    strict_1.default.equal(byKey['v18.16-zstd3'].status, 'skipped');
    const lz4 = JSON.parse((0, node_fs_1.readFileSync)(byKey['v18.16-lz4'].resultFile, 'utf8'));
    strict_1.default.match(lz4.provision.server.version, /^18\.16\./);
    strict_1.default.equal(lz4.provision.server.query_log, 'available');
    strict_1.default.equal(lz4.load.rows_in_table, 200_000);
    strict_1.default.equal(lz4.load.partitions, 7);
    for (const q of lz4.queries_baseline.queries) {
        for (const s of q.samples) {
            strict_1.default.equal(s.server_elapsed_source, 'system.query_log.query_duration_ms', `${q.id}: 18.16 sends no summary; elapsed comes from query_log`);
            strict_1.default.equal(s.read_source, 'system.query_log');
            strict_1.default.ok(s.read_rows > 0);
            const pe = s.query_log.ProfileEvents;
            strict_1.default.ok(pe && Object.keys(pe).length > 3, `${q.id}: ProfileEvents from the Names/Values arrays`);
        }
        strict_1.default.ok(q.explain_error, 'EXPLAIN does not exist on 18.16: recorded as an error, not faked');
    }
    const q1 = lz4.queries_baseline.queries.find((q) => q.id === 'q1');
    strict_1.default.ok(q1.stats.read_rows < 200_000, 'Q1 uses the primary key');
    const zstd = JSON.parse((0, node_fs_1.readFileSync)(byKey['v18.16-zstd3'].resultFile, 'utf8'));
    strict_1.default.match(zstd.skip_reason, /no column CODEC clause/);
    const md = (0, node_fs_1.readFileSync)(r.reportPath, 'utf8');
    strict_1.default.match(md, /v18\.16-zstd3 \| skipped: ClickHouse 18\.16\.\d+ has no column CODEC clause/);
    // Every server was stopped and its directory removed.
    const left = (0, node_fs_1.existsSync)(env.workDir)
        ? (0, node_fs_1.readdirSync)(env.workDir).flatMap((d) => (0, node_fs_1.readdirSync)(node_path_1.default.join(env.workDir, d)))
        : [];
    strict_1.default.deepEqual(left, []);
});
(0, node_test_1.test)('the seed workload on 18.16 is reported as skipped with the reason, not as a failure', async () => {
    const runId = `local-seed-${Date.now()}`;
    const spec = {
        name: 'local-seed',
        workload: 'logs',
        scale: 1000,
        target: { kind: 'local', binaries: { '18.16': BINARY } },
        matrix: { version: ['18.16'], codec: ['LZ4'] },
        resultsDir: env.resultsDir,
    };
    const r = (await env.client.workflow.execute('benchmarkMatrix', {
        taskQueue: env.taskQueue,
        workflowId: runId,
        args: [spec],
    }));
    strict_1.default.equal(r.cells[0].status, 'skipped');
    const doc = JSON.parse((0, node_fs_1.readFileSync)(r.cells[0].resultFile, 'utf8'));
    strict_1.default.match(doc.skip_reason, /cannot run workload logs: it has no data type DateTime64.*table function numbers_mt\(\)/);
});
(0, node_test_1.test)('a binary labelled 24.8 that is really 18.16 fails the cell in seconds, not retried, with its attempt recorded', async () => {
    const runId = `local-mislabelled-${Date.now()}`;
    const spec = {
        name: 'local-mislabelled',
        workload: 'logs-legacy',
        scale: 1000,
        target: { kind: 'local', binaries: { '24.8': BINARY } },
        matrix: { version: ['24.8'], codec: ['LZ4'] },
        skipIndex: false,
        resultsDir: env.resultsDir,
    };
    const t0 = Date.now();
    const r = (await env.client.workflow.execute('benchmarkMatrix', {
        taskQueue: env.taskQueue,
        workflowId: runId,
        args: [spec],
    }));
    const took = Date.now() - t0;
    const [cell] = r.cells;
    strict_1.default.equal(cell.status, 'failed');
    strict_1.default.match(cell.error, /is ClickHouse 18\.16\.[\d.]+, but the cell asks for version 24\.8/);
    // One start of the server (a few seconds), not 12 attempts with back-off (3 min 44 s before).
    strict_1.default.ok(took < 45_000, `the run took ${took} ms`);
    const doc = JSON.parse((0, node_fs_1.readFileSync)(cell.resultFile, 'utf8'));
    strict_1.default.deepEqual(doc.attempts, { provision: 1 });
    const log = doc.attempt_log?.provision ?? [];
    strict_1.default.equal(log.length, 1, JSON.stringify(doc.attempt_log));
    strict_1.default.equal(log[0].attempt, 1);
    strict_1.default.equal(log[0].outcome, 'failed');
    strict_1.default.equal(log[0].failure_type, 'VersionMismatch');
    strict_1.default.equal(log[0].retryable, false);
    strict_1.default.match(log[0].error, /is ClickHouse 18\.16/);
    strict_1.default.ok(log[0].duration_ms > 0 && log[0].duration_ms < 45_000, `${log[0].duration_ms} ms`);
    const md = (0, node_fs_1.readFileSync)(r.reportPath, 'utf8');
    strict_1.default.match(md, /provision ×1 failed: VersionMismatch \(not retryable\)/);
    strict_1.default.doesNotMatch(md, /\| none \|$/m, 'the Cells table does not say "retries: none"');
});
//# sourceMappingURL=e2e-local.test.js.map