"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * Capture the fixtures of the measurement unit tests (test/fixtures/measure/) from real servers:
 * Debian's clickhouse-server 18.16 (a local target; query_log with ProfileEvents as two arrays, no
 * EXPLAIN) and the embedded 26.7 engine (no query_log; `system.events` differences; EXPLAIN).
 *
 *   npm run build && node dist/scripts/capture-measure-fixtures.js [outDir]
 *
 * Each fixture holds what the pure functions read, exactly as the server sent it: raw query_log rows
 * (before normalisation), `system.events` rows around a run, EXPLAIN texts, and the records the
 * protocol wrote (RunSamples with their counters, cold preparations and statistics).
 */
const node_fs_1 = require("node:fs");
const node_os_1 = __importDefault(require("node:os"));
const node_path_1 = __importDefault(require("node:path"));
const embedded_1 = require("../src/targets/embedded");
const local_1 = require("../src/targets/local");
const client_1 = require("../src/clickhouse/client");
const sql_1 = require("../src/lib/sql");
const probe_1 = require("../src/clickhouse/probe");
const query_log_1 = require("../src/clickhouse/query-log");
const workload_1 = require("../src/lib/workload");
const protocol_1 = require("../src/measure/protocol");
const cold_cycle_1 = require("../src/measure/cold-cycle");
const index_proof_1 = require("../src/measure/index-proof");
const validity_1 = require("../src/measure/validity");
const config_1 = require("../src/config");
const OUT = process.argv[2] ?? node_path_1.default.join(config_1.REPO_ROOT, 'test', 'fixtures', 'measure');
const BINARY = process.env.CHBENCH_CLICKHOUSE_SERVER ?? '/usr/sbin/clickhouse-server';
const ROWS = 200_000;
function write(name, value) {
    (0, node_fs_1.mkdirSync)(OUT, { recursive: true });
    (0, node_fs_1.writeFileSync)(node_path_1.default.join(OUT, name), JSON.stringify(value, null, 2) + '\n');
    console.log(`wrote ${node_path_1.default.join(OUT, name)}`);
}
async function load(c, workload, tableSettings) {
    const m = (0, workload_1.loadWorkload)(workload);
    const v = { table: m.table, rows: ROWS, codec: 'LZ4', ...(tableSettings ? { tableSettings } : {}) };
    await c.command({ query: (0, workload_1.renderTemplate)(workload, m.schema, v) });
    await c.command({
        query: (0, workload_1.renderTemplate)(workload, m.load, v),
        clickhouse_settings: m.loadSettings,
    });
}
const opts = (extra) => ({
    coldRuns: 1,
    warmupRuns: 0,
    warmRuns: 2,
    dropOsPageCache: false,
    maxExecutionTimeS: 600,
    queryLog: false,
    counters: 'none',
    queryIdPrefix: `capture-${Date.now()}`,
    ...extra,
});
/** 18.16: query_log rows (arrays), a cold run with drops, a "cold" run without drops, EXPLAIN refused. */
async function legacy(tmp) {
    const t = await (0, local_1.provisionLocal)({ runId: 'capture', cellKey: 'legacy', version: '18.16', workDir: tmp }, BINARY);
    const c = (0, client_1.connect)(t);
    try {
        const m = (0, workload_1.loadWorkload)('logs-legacy');
        await load(c, 'logs-legacy', {});
        const probe = await (0, probe_1.probeServer)(c, '18.16');
        const q = (0, workload_1.workloadQueries)(m, { table: m.table, rows: ROWS, codec: 'LZ4' }, ['q3']);
        const o = {
            queryLog: true,
            counters: 'query_log',
            cacheDrops: (0, cold_cycle_1.coldCacheDrops)(probe),
            knownCounters: probe.events_complete ? (probe.events ?? undefined) : undefined,
            knownSettings: probe.query_settings ?? undefined,
        };
        const [fresh] = await (0, protocol_1.measureQueries)(c, m.table, q, opts(o));
        const [stale] = await (0, protocol_1.measureQueries)(c, m.table, q, opts({ ...o, dropCaches: false, warmRuns: 0 }));
        // A query faster than 10 × query_duration_ms's 1 ms resolution: its headline must be client wall time.
        const [fast] = await (0, protocol_1.measureQueries)(c, m.table, [
            {
                id: 'fast',
                title: 'fast',
                usesIndex: false,
                deterministic: true,
                sql: "SELECT count() FROM logs WHERE namespace = 'payment'",
            },
        ], opts({ ...o, coldRuns: 0, warmRuns: 5 }));
        const ids = [...fresh.samples, ...stale.samples].map((s) => s.query_id);
        const cols = await (0, client_1.queryRows)(c, "SELECT name, type FROM system.columns WHERE database = 'system' AND table = 'query_log'");
        const raw = await (0, client_1.queryRows)(c, (0, query_log_1.queryLogSelect)(ids, cols.map((x) => x.name), cols.find((x) => x.name === 'type')?.type));
        write('query-log-18.16.json', {
            server: 'clickhouse-server 18.16 (Debian)',
            version: probe.version,
            query_log_columns: cols,
            raw_rows: raw,
        });
        write('queries-18.16.json', {
            server: 'clickhouse-server 18.16 (Debian)',
            version: probe.version,
            probe: { cache_drops: probe.cache_drops, events_complete: probe.events_complete },
            fresh,
            stale,
            fast,
        });
    }
    finally {
        await c.close();
        await (0, local_1.teardownLocal)(t);
    }
}
/** Embedded 26.7: system.events around a run, EXPLAIN with the skip index, protocol records (events differences). */
async function embedded(tmp) {
    const t = await (0, embedded_1.provisionEmbedded)({ runId: 'capture', cellKey: 'embedded', version: '26.7', workDir: tmp });
    const c = (0, client_1.connect)(t);
    try {
        const m = (0, workload_1.loadWorkload)('logs');
        await load(c, 'logs', m.tableSettings);
        const probe = await (0, probe_1.probeServer)(c, '26.7');
        const q3 = (0, workload_1.workloadQueries)(m, { table: m.table, rows: ROWS, codec: 'LZ4' }, ['q3']);
        const o = {
            counters: 'system.events',
            cacheDrops: (0, cold_cycle_1.coldCacheDrops)(probe),
            knownCounters: probe.events_complete ? (probe.events ?? undefined) : undefined,
            knownSettings: probe.query_settings ?? undefined,
        };
        const [fresh] = await (0, protocol_1.measureQueries)(c, m.table, q3, opts(o));
        const [stale] = await (0, protocol_1.measureQueries)(c, m.table, q3, opts({ ...o, dropCaches: false, warmRuns: 0 }));
        // system.events snapshots around one cold run (caches dropped, direct I/O), exactly as the server lists them.
        const events = `SELECT event AS k, value AS v FROM system.events WHERE event IN (${validity_1.RUN_COUNTERS.map(sql_1.sqlString).join(', ')})`;
        for (const d of (0, cold_cycle_1.coldCacheDrops)(probe))
            await c.command({ query: d }).catch(() => undefined);
        const before = await (0, client_1.queryRows)(c, events);
        await (await c.query({
            query: q3[0].sql,
            format: 'JSONCompact',
            clickhouse_settings: { min_bytes_to_use_direct_io: 1, use_query_cache: 0 },
        })).text();
        const after = await (0, client_1.queryRows)(c, events);
        // The skip index, materialized; EXPLAIN of q5 with it used and with use_skip_indexes = 0.
        await c.command({ query: (0, workload_1.renderTemplate)('logs', m.index.add, { table: m.table, rows: ROWS, codec: 'LZ4' }) });
        await c.command({
            query: `ALTER TABLE ${m.table} MATERIALIZE INDEX ${m.index.name}`,
            clickhouse_settings: { mutations_sync: 1 },
        });
        const [q5] = (0, workload_1.workloadQueries)(m, { table: m.table, rows: ROWS, codec: 'LZ4' }, ['q5']);
        const explain = await (0, index_proof_1.explainIndexes)(c, q5.sql, {});
        const explainOff = await (0, index_proof_1.explainIndexes)(c, q5.sql, { use_skip_indexes: 0 });
        // 26.x stores ProfileEvents as a Map. The embedded engine has no system.query_log, but its
        // system.processes row of the running statement has the same column type: read it as the runs do
        // (64-bit integers quoted), so the Map shape comes from a real 26.7 server.
        const processes = await (0, client_1.queryRows)(c, 'SELECT query_id, read_rows, read_bytes, ProfileEvents FROM system.processes', { output_format_json_quote_64bit_integers: 1 });
        const processColumns = await (0, client_1.queryRows)(c, "SELECT name, type FROM system.columns WHERE database = 'system' AND table = 'processes' AND name IN ('query_id', 'read_rows', 'read_bytes', 'ProfileEvents')");
        let queryLog;
        try {
            queryLog = await (0, client_1.queryRows)(c, 'SELECT count() AS n FROM system.query_log');
        }
        catch (e) {
            queryLog = `not available: ${e.message.split('\n')[0]}`;
        }
        write('events-26.7.json', {
            server: `embedded engine (${t.provisionedBy})`,
            version: probe.version,
            query: q3[0].sql,
            settings: { min_bytes_to_use_direct_io: 1 },
            before,
            after,
            events_complete: probe.events_complete,
            events: probe.events,
        });
        write('profile-events-map-26.7.json', {
            server: `embedded engine (${t.provisionedBy})`,
            version: probe.version,
            source: 'system.processes (the embedded engine has no system.query_log; ProfileEvents has the type query_log has on 26.x)',
            columns: processColumns,
            raw_rows: processes,
        });
        write('explain-26.7.json', {
            server: `embedded engine (${t.provisionedBy})`,
            version: probe.version,
            index: m.index.name,
            query: q5.sql,
            with_index: explain,
            use_skip_indexes_0: explainOff,
        });
        write('queries-26.7.json', {
            server: `embedded engine (${t.provisionedBy})`,
            version: probe.version,
            query_log: queryLog,
            probe: { cache_drops: probe.cache_drops, events_complete: probe.events_complete },
            fresh,
            stale,
        });
    }
    finally {
        await c.close();
        await (0, embedded_1.teardownEmbedded)(t);
    }
}
async function main() {
    const tmp = (0, node_fs_1.mkdtempSync)(node_path_1.default.join(node_os_1.default.tmpdir(), 'chbench-capture-'));
    try {
        if ((0, node_fs_1.existsSync)(BINARY))
            await legacy(tmp);
        else
            console.error(`${BINARY} missing: 18.16 fixtures not captured`);
        await embedded(tmp);
    }
    finally {
        (0, node_fs_1.rmSync)(tmp, { recursive: true, force: true });
    }
}
main().catch((e) => {
    console.error(e);
    process.exit(1);
});
//# sourceMappingURL=capture-measure-fixtures.js.map