"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * `npm run bench:overhead`: what chbench itself adds to the figures it reports, measured in one run
 * on the same engine (the embedded target), written to `bench/results/overhead.json`.
 *
 * 1. Measurement overhead per query run: chbench's `runMeasured` (the function the query step uses)
 *    against a plain `@clickhouse/client` loop running the same SQL with the same settings and
 *    format, interleaved run by run on one client. Overhead = median chbench wall time − median plain
 *    wall time (ms), per query and overall. Target: < 1 ms.
 * 2. Orchestration overhead per activity, from a real workflow history (real dev server, real worker):
 *    schedule→start (ActivityTaskStarted − ActivityTaskScheduled) plus completion→next command (the
 *    next ActivityTaskScheduled − ActivityTaskCompleted). Target: median < 50 ms.
 */
const db_1 = require("../src/results/db");
const node_fs_1 = require("node:fs");
const node_os_1 = __importDefault(require("node:os"));
const node_path_1 = __importDefault(require("node:path"));
const node_perf_hooks_1 = require("node:perf_hooks");
const simple_statistics_1 = require("simple-statistics");
const client_1 = require("@temporalio/client");
const embedded_1 = require("../src/targets/embedded");
const client_2 = require("../src/clickhouse/client");
const workload_1 = require("../src/lib/workload");
const cold_cycle_1 = require("../src/measure/cold-cycle");
const dev_server_1 = require("../src/temporal/dev-server");
const worker_1 = require("../src/worker");
const config_1 = require("../src/config");
const ROWS = Number(process.env.BENCH_ROWS ?? 500_000);
const ITER = Number(process.env.BENCH_ITERATIONS ?? 60);
async function measurementOverhead(tmp) {
    const target = await (0, embedded_1.provisionEmbedded)({
        runId: 'bench-overhead',
        cellKey: 'v26.7-lz4',
        version: '26.7',
        workDir: tmp,
    });
    const client = (0, client_2.connect)(target);
    try {
        const m = (0, workload_1.loadWorkload)('logs');
        const v = { table: m.table, rows: ROWS, codec: 'LZ4' };
        await client.command({ query: (0, workload_1.renderTemplate)('logs', m.schema, v) });
        await client.command({
            query: (0, workload_1.renderTemplate)('logs', m.load, v),
            clickhouse_settings: m.loadSettings,
        });
        const settings = { max_execution_time: 3600, ...(await (0, cold_cycle_1.resultCacheSettings)(client)) };
        const perQuery = {};
        const diffs = [];
        for (const q of (0, workload_1.workloadQueries)(m, v)) {
            const plain = [];
            const ours = [];
            for (let i = 0; i < 3; i++)
                await (0, client_2.runMeasured)(client, q.sql, `bench-warmup-${q.id}-${i}-${Date.now()}`, settings);
            const plainRun = async (i) => {
                const t0 = node_perf_hooks_1.performance.now();
                const rs = await client.query({
                    query: q.sql,
                    format: 'JSONCompact',
                    query_id: `bench-plain-${q.id}-${i}-${Date.now()}`,
                    clickhouse_settings: settings,
                });
                await rs.text();
                plain.push(node_perf_hooks_1.performance.now() - t0);
            };
            const ourRun = async (i) => {
                const r = await (0, client_2.runMeasured)(client, q.sql, `bench-chbench-${q.id}-${i}-${Date.now()}`, settings);
                ours.push(r.wall_ms);
            };
            // Alternate which goes first, so neither always runs right after the other.
            for (let i = 0; i < ITER; i++) {
                if (i % 2) {
                    await plainRun(i);
                    await ourRun(i);
                }
                else {
                    await ourRun(i);
                    await plainRun(i);
                }
            }
            const o = (0, simple_statistics_1.median)(ours) - (0, simple_statistics_1.median)(plain);
            perQuery[q.id] = {
                plain_median_ms: (0, simple_statistics_1.median)(plain),
                chbench_median_ms: (0, simple_statistics_1.median)(ours),
                overhead_ms: o,
                iterations: ITER,
            };
            diffs.push(o);
        }
        return {
            rows: ROWS,
            per_query: perQuery,
            measurement_overhead_ms_median: (0, simple_statistics_1.median)(diffs),
            measurement_overhead_ms_max: Math.max(...diffs),
        };
    }
    finally {
        await client.close();
        await (0, embedded_1.teardownEmbedded)(target);
    }
}
function ms(t) {
    const ts = t?.eventTime;
    return ts ? Number(ts.seconds) * 1000 + Math.floor((ts.nanos ?? 0) / 1e6) : NaN;
}
async function activityOverhead(tmp) {
    const server = await (0, dev_server_1.startDevServer)();
    const taskQueue = 'chbench-bench';
    const { worker, connection: wconn } = await (0, worker_1.createWorker)({
        temporalAddress: server.address,
        namespace: 'default',
        taskQueue,
        workDir: node_path_1.default.join(tmp, 'targets'),
    });
    const running = worker.run();
    const connection = await client_1.Connection.connect({ address: server.address });
    try {
        const client = new client_1.Client({ connection });
        const runId = `bench-${Date.now()}`;
        await client.workflow.execute('benchmarkMatrix', {
            taskQueue,
            workflowId: runId,
            args: [
                {
                    name: 'bench',
                    workload: 'logs',
                    scale: 100_000,
                    target: { kind: 'embedded' },
                    matrix: { version: ['26.7'], codec: ['LZ4'] },
                    resultsDir: node_path_1.default.join(tmp, 'results'),
                    protocol: { warmRuns: 1, quiesce: { stableForMs: 0 } },
                },
            ],
        });
        const hist = await client.workflow.getHandle(`${runId}/v26.7-lz4`).fetchHistory();
        const ev = hist.events ?? [];
        const rows = [];
        for (let i = 0; i < ev.length; i++) {
            const s = ev[i].activityTaskScheduledEventAttributes;
            if (!s)
                continue;
            const id = Number(ev[i].eventId);
            const started = ev.find((e) => Number(e.activityTaskStartedEventAttributes?.scheduledEventId) === id);
            const completedIdx = ev.findIndex((e) => Number(e.activityTaskCompletedEventAttributes?.scheduledEventId) === id);
            const next = ev
                .slice(completedIdx + 1)
                .find((e) => e.activityTaskScheduledEventAttributes || e.workflowExecutionCompletedEventAttributes);
            if (!started || completedIdx < 0 || !next)
                continue;
            const a = ms(started) - ms(ev[i]);
            const b = ms(next) - ms(ev[completedIdx]);
            rows.push({
                activity: s.activityType.name,
                schedule_to_start_ms: a,
                completion_to_next_command_ms: b,
                total_ms: a + b,
            });
        }
        return {
            per_activity: rows,
            activity_overhead_ms_median: (0, simple_statistics_1.median)(rows.map((r) => r.total_ms)),
            activity_overhead_ms_p90: (0, simple_statistics_1.quantile)(rows.map((r) => r.total_ms), 0.9),
            source: 'event times of the benchmarkCell workflow history (server clock, ms resolution)',
        };
    }
    finally {
        worker.shutdown();
        await running;
        await wconn.close();
        await connection.close();
        await server.stop();
        await (0, db_1.stopResultsDbsStartedHere)();
    }
}
async function main() {
    (0, worker_1.installRuntime)('WARN');
    const tmp = (0, node_fs_1.mkdtempSync)(node_path_1.default.join(node_os_1.default.tmpdir(), 'chbench-bench-'));
    try {
        const meas = await measurementOverhead(tmp);
        const act = await activityOverhead(tmp);
        const out = {
            measured_at: new Date().toISOString(),
            machine: { cpus: node_os_1.default.cpus().length, memory_bytes: node_os_1.default.totalmem(), node: process.version },
            engine: 'embedded (chdb 3.4.0, ClickHouse 26.7) in a separate process',
            measurement_overhead_ms_median: meas.measurement_overhead_ms_median,
            activity_overhead_ms_median: act.activity_overhead_ms_median,
            targets: { measurement_overhead_ms_median: '< 1', activity_overhead_ms_median: '< 50' },
            measurement: meas,
            orchestration: act,
        };
        const file = node_path_1.default.join(config_1.REPO_ROOT, 'bench', 'results', 'overhead.json');
        (0, node_fs_1.mkdirSync)(node_path_1.default.dirname(file), { recursive: true });
        (0, node_fs_1.writeFileSync)(file, JSON.stringify(out, null, 2) + '\n');
        console.log(`measurement overhead median ${meas.measurement_overhead_ms_median.toFixed(3)} ms per query run; activity overhead median ${act.activity_overhead_ms_median.toFixed(1)} ms`);
        console.log(file);
    }
    finally {
        (0, node_fs_1.rmSync)(tmp, { recursive: true, force: true });
    }
}
main().catch((e) => {
    console.error(e);
    process.exit(1);
});
//# sourceMappingURL=overhead.js.map