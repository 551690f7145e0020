"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * Measurement validity on the real embedded engine: each flag is raised by a real condition.
 * (The embedded engine gives per-run counters as `system.events` differences; see src/measure/validity.ts.)
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const node_fs_1 = require("node:fs");
const node_os_1 = __importDefault(require("node:os"));
const node_path_1 = __importDefault(require("node:path"));
const assert_failure_1 = require("../helpers/assert-failure");
const embedded_1 = require("../../src/targets/embedded");
const client_1 = require("../../src/clickhouse/client");
const workload_1 = require("../../src/lib/workload");
const protocol_1 = require("../../src/measure/protocol");
const attempts_1 = require("../../src/activities/support/attempts");
const provision_1 = require("../../src/activities/provision");
const report_1 = require("../../src/results/report");
const run_spec_1 = require("../../src/schema/run-spec");
const ROWS = 200_000;
let tmp;
const targets = [];
const clients = [];
async function loadedTarget(cellKey) {
    const t = await (0, embedded_1.provisionEmbedded)({ runId: 'validity', cellKey, version: '26.7', workDir: tmp });
    const c = (0, client_1.connect)(t);
    targets.push(t);
    clients.push(c);
    const m = (0, workload_1.loadWorkload)('logs');
    const v = { table: m.table, rows: ROWS, codec: 'LZ4', tableSettings: m.tableSettings };
    await c.command({ query: (0, workload_1.renderTemplate)('logs', m.schema, v) });
    await c.command({
        query: (0, workload_1.renderTemplate)('logs', m.load, v),
        clickhouse_settings: m.loadSettings,
    });
    return { t, c };
}
const opts = (t, extra = {}) => ({
    coldRuns: 1,
    warmupRuns: 0,
    warmRuns: 2,
    dropOsPageCache: false,
    maxExecutionTimeS: 600,
    queryLog: false,
    counters: 'system.events',
    queryIdPrefix: `validity-${Math.random().toString(36).slice(2, 8)}`,
    // As runQueries does: a cancelled run is killed on the server.
    killOnCancel: (id, run) => (0, attempts_1.killOnCancel)(t, id, run),
    ...extra,
});
const query = (id) => {
    const m = (0, workload_1.loadWorkload)('logs');
    return (0, workload_1.workloadQueries)(m, { table: m.table, rows: ROWS, codec: 'LZ4' }, [id]);
};
(0, node_test_1.before)(async () => {
    tmp = (0, node_fs_1.mkdtempSync)(node_path_1.default.join(node_os_1.default.tmpdir(), 'chbench-validity-'));
});
(0, node_test_1.after)(async () => {
    for (const c of clients)
        await c.close();
    for (const t of targets)
        await (0, embedded_1.teardownEmbedded)(t);
    (0, node_fs_1.rmSync)(tmp, { recursive: true, force: true });
});
(0, node_test_1.test)('a cold run taken without dropping the caches is labelled not cold; with the drops it is cold', async () => {
    const { t, c } = await loadedTarget('cold');
    // Warm the caches, then a "cold" run without any drop.
    await (0, protocol_1.measureQueries)(c, 'logs', query('q3'), opts(t, { coldRuns: 0 }));
    const [stale] = await (0, protocol_1.measureQueries)(c, 'logs', query('q3'), opts(t, { dropCaches: false }));
    const coldStale = stale.samples.find((s) => s.kind === 'cold');
    strict_1.default.equal(coldStale.validity.cold?.valid, false, JSON.stringify(coldStale.counters));
    strict_1.default.equal(coldStale.validity.cold?.label, 'not cold');
    strict_1.default.ok(coldStale.validity.cold.reasons.some((r) => /mark cache/.test(r)), coldStale.validity.cold.reasons.join('; '));
    strict_1.default.equal(stale.stats.cold_ms, null, 'a run that was not cold is not reported as cold');
    strict_1.default.equal(stale.stats.cold_runs_rejected, 1);
    const [fresh] = await (0, protocol_1.measureQueries)(c, 'logs', query('q3'), opts(t));
    const coldFresh = fresh.samples.find((s) => s.kind === 'cold');
    strict_1.default.equal(coldFresh.validity.cold?.valid, true, coldFresh.validity.cold?.reasons.join('; '));
    strict_1.default.ok(coldFresh.counters.CreatedReadBufferDirectIO > 0, 'direct I/O buffers were created');
});
(0, node_test_1.test)('a query run while inserts create new parts is flagged not quiet', async () => {
    const { t, c } = await loadedTarget('busy');
    let stop = false;
    const writer = (0, client_1.connect)(t);
    clients.push(writer);
    const inserting = (async () => {
        for (let i = 0; !stop; i++)
            await writer.command({
                query: `INSERT INTO logs (timestamp, namespace, pod, container, level, message, trace_id, duration_ms) SELECT toDateTime64('2026-08-26 00:00:00', 3), 'payment', 'p', 'app', 'INFO', 'x', 'y', ${i}`,
            });
    })();
    try {
        const [busy] = await (0, protocol_1.measureQueries)(c, 'logs', query('q1'), opts(t, { warmRuns: 5 }));
        const flagged = busy.samples.filter((s) => s.validity.quiet.valid === false);
        strict_1.default.ok(flagged.length > 0, 'at least one run saw the parts change');
        strict_1.default.ok(flagged[0].validity.quiet.reasons.some((r) => /active parts changed/.test(r)));
    }
    finally {
        stop = true;
        await inserting;
    }
});
(0, node_test_1.test)('an unknown setting, or one at the wrong level, is refused before anything is loaded', async () => {
    const { provision } = (0, provision_1.createProvision)({ workDir: tmp });
    const spec = (0, run_spec_1.parseRunSpec)({
        name: 'settings',
        workload: 'logs',
        scale: 1000,
        target: { kind: 'embedded' },
        matrix: { version: ['26.7'], codec: ['LZ4'] },
        resultsDir: node_path_1.default.join(tmp, 'results'),
    });
    const cell = (settings, key) => ({
        runId: 'settings',
        cellKey: key,
        version: '26.7',
        codec: 'LZ4',
        workload: 'logs',
        scale: 1000,
        skipIndex: false,
        protocol: spec.protocol,
        target: spec.target,
        teardown: 'always',
        resultsDir: spec.resultsDir,
        settings,
    });
    const refused = async (settings, key, pattern) => {
        await (0, assert_failure_1.assertFailureType)(provision(cell(settings, key), true), 'InvalidSetting', pattern);
        await (0, embedded_1.teardownEmbedded)({
            kind: 'embedded',
            url: '',
            database: 'default',
            username: 'default',
            runId: 'settings',
            cellKey: key,
            provisionedBy: '',
            dataDir: node_path_1.default.join(tmp, 'settings', key),
        }).catch(() => undefined);
    };
    await refused({ query: { no_such_setting_xyz: 1 }, mergeTree: {}, optional: [] }, 'unknown', /unknown setting "no_such_setting_xyz" on ClickHouse 26\.7/);
    await refused({ query: { min_bytes_for_wide_part: 0 }, mergeTree: {}, optional: [] }, 'level', /"min_bytes_for_wide_part" is not a query setting .* it is a MergeTree table setting/);
    await refused({ query: {}, mergeTree: { max_threads: 2 }, optional: [] }, 'level2', /"max_threads" is not a MergeTree table setting .* it is a query setting/);
    // Optional and missing: recorded as not applied, not refused.
    const ok = await provision(cell({ query: { no_such_setting_xyz: 1 }, mergeTree: {}, optional: ['no_such_setting_xyz'] }, 'optional'), true);
    strict_1.default.ok(ok.target.pid);
    await (0, embedded_1.teardownEmbedded)(ok.target);
});
(0, node_test_1.test)('a cell whose query returns a different result from its sibling fails the correctness check, showing both values', async () => {
    const a = await loadedTarget('same');
    const b = await loadedTarget('different');
    await b.c.command({
        query: "INSERT INTO logs (timestamp, namespace, pod, container, level, message, trace_id, duration_ms) SELECT toDateTime64('2026-08-26 00:00:00', 3), 'payment', 'p', 'app', 'ERROR', 'one more timeout', 'z', 1",
    });
    const ra = await (0, protocol_1.measureQueries)(a.c, 'logs', query('q3'), opts(a.t, { coldRuns: 0, warmRuns: 1 }));
    const rb = await (0, protocol_1.measureQueries)(b.c, 'logs', query('q3'), opts(b.t, { coldRuns: 0, warmRuns: 1 }));
    const doc = (key, q) => ({ cellKey: key, queries_baseline: { queries: q }, queries_index: null });
    const mm = (0, report_1.resultMismatches)([doc('v26.7-lz4', ra), doc('v26.7-zstd3', rb)]);
    strict_1.default.equal(mm.length, 1);
    strict_1.default.equal(mm[0].id, 'q3');
    const counts = mm[0].values.map((v) => Number(/\[\["?(\d+)"?\]\]/.exec(v)[1]));
    strict_1.default.equal(Math.abs(counts[0] - counts[1]), 1, mm[0].values.join(' ≠ '));
    strict_1.default.deepEqual((0, report_1.resultMismatches)([doc('v26.7-lz4', ra), doc('v26.7-lz4-r2', ra)]), []);
});
//# sourceMappingURL=validity.test.js.map