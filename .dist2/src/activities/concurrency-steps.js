"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.createConcurrencySteps = createConcurrencySteps;
/**
 * concurrencyStep: one step of concurrency stepping (seed 002, `grids.concurrency`, src/schema/grids.ts).
 * A thin activity around the closed-loop engine (src/measure/closed-loop.ts, where the timeline and
 * the definitions are stated): `clients` closed-loop clients send the cell's weighted query mix for
 * `warmupS` + `durationS`, with the settings of the cell's measured runs; then the server-side
 * latency of every counted request is read from `system.query_log` where the cell has it.
 *
 * Idempotent: a step only reads. A retry first settles statements an earlier attempt of the same
 * step left running (by query_id prefix), then re-measures the step and overwrites its record.
 * Merges are left as the cell set them (a cell that stopped merges for its query steps keeps them
 * stopped).
 *
 * Writes `grids/concurrency-c<clients>.json` in the cell folder ({@link ConcurrencyStepRecord}) and
 * returns the small {@link ConcurrencyStepSummary}.
 */
const node_path_1 = __importDefault(require("node:path"));
const client_1 = require("../clickhouse/client");
const store_1 = require("../results/store");
const workload_1 = require("../lib/workload");
const closed_loop_1 = require("../measure/closed-loop");
const stats_1 = require("../measure/stats");
const client_load_1 = require("../measure/client-load");
const activity_context_1 = require("../temporal/activity-context");
const targets_1 = require("../targets");
const cell_1 = require("../schema/cell");
const sql_1 = require("../lib/sql");
const provision_1 = require("./provision");
const cold_cycle_1 = require("../measure/cold-cycle");
const attempts_1 = require("./support/attempts");
/**
 * Server-side durations of `ids` from `system.query_log` (`QueryFinish` rows), after `SYSTEM FLUSH
 * LOGS`. Selects by `query_id LIKE '<prefix>-%'` (an `IN` list of thousands of ids would exceed the
 * server's `max_query_size`) and keeps only `ids`. `type` is an Enum on newer servers and a UInt8 (2 =
 * QueryFinish) on old ones such as 18.16, as in src/clickhouse/query-log.ts; microsecond timestamps
 * are used where the version has them.
 * @throws ClickHouseError when the server has no query_log or refuses the flush.
 */
async function serverDurations(client, prefix, ids) {
    await client.command({ query: 'SYSTEM FLUSH LOGS' });
    const cols = await (0, client_1.queryRows)(client, "SELECT name, type FROM system.columns WHERE database = 'system' AND table = 'query_log'");
    const have = new Set(cols.map((c) => c.name));
    const micro = have.has('event_time_microseconds') && have.has('query_start_time_microseconds');
    const finish = cols.find((c) => c.name === 'type')?.type.startsWith('Enum') ? "'QueryFinish'" : '2';
    const duration = micro
        ? 'toUnixTimestamp64Micro(event_time_microseconds) - toUnixTimestamp64Micro(query_start_time_microseconds)'
        : 'query_duration_ms';
    const rows = await (0, client_1.queryRows)(client, `SELECT query_id, ${duration} AS d FROM system.query_log WHERE event_date >= yesterday() AND type = ${finish} AND query_id LIKE ${(0, sql_1.sqlString)(`${prefix}-%`)}`);
    const source = micro
        ? 'system.query_log event_time_microseconds - query_start_time_microseconds'
        : 'system.query_log.query_duration_ms';
    const out = new Map();
    for (const r of rows)
        if (ids.has(r.query_id))
            out.set(r.query_id, { ms: micro ? Number(r.d) / 1000 : Number(r.d), source });
    return out;
}
/** Activity factory. */
function createConcurrencySteps(deps) {
    return {
        /**
         * Run one concurrency step and record it in `grids/concurrency-c<clients>.json`.
         * Latency is server-side (`system.query_log`, when the cell's `provision.json` says it is
         * available and it answered) for `latencySource: 'query_log'`, else client wall time; the wall
         * latency is always returned too. Heartbeats about every second with the step's progress.
         * @throws Error for an unknown query id of the mix (src/lib/workload.ts).
         * @throws CancelledFailure (via the cell-step wrapper) when the activity is cancelled; nothing is written.
         */
        async concurrencyStep({ cell, target }, step) {
            const label = `concurrency-c${step.clients}`;
            (0, activity_context_1.heartbeat)({ step: label, progress: `step ${step.n}: ${step.clients} clients` });
            const m = (0, workload_1.loadWorkload)(cell.workload);
            // An empty mix (the spec named none): every selected query of the cell, weight 1.
            const entries = step.mix.length
                ? step.mix
                : (0, workload_1.workloadQueries)(m, { table: m.table, rows: cell.scale, codec: (0, cell_1.cellCodecProfile)(cell) }, cell.queries).map((q) => ({
                    id: q.id,
                    weight: 1,
                }));
            const rendered = (0, workload_1.workloadQueries)(m, { table: m.table, rows: cell.scale, codec: (0, cell_1.cellCodecProfile)(cell) }, entries.map((e) => e.id));
            const mix = entries.map((e) => ({ id: e.id, weight: e.weight, sql: rendered.find((q) => q.id === e.id).sql }));
            const dir = (0, store_1.cellDir)(cell.resultsDir, cell.runId, cell.cellKey);
            const rel = `grids/concurrency-c${step.clients}.json`;
            const prefix = (0, cell_1.queryIdPrefix)(cell.runId, cell.cellKey, `conc-c${step.clients}`);
            const suffix = `-a${(0, activity_context_1.attempt)()}`;
            const provision = (0, store_1.readJsonIfExists)(node_path_1.default.join(dir, 'provision.json'));
            const queryLogAvailable = provision?.server.query_log === 'available';
            const caps = (0, targets_1.capabilitiesOf)(target);
            const client = (0, client_1.connect)(target, { maxExecutionTimeS: cell.protocol.maxExecutionTimeS });
            try {
                // As the measured runs: the cell's run settings, the time limit, and the result caches off
                // (a query repeated by many clients must be executed, not answered from a cache).
                const settings = {
                    ...(0, provision_1.readCellSettings)(cell).runs,
                    max_execution_time: cell.protocol.maxExecutionTimeS,
                    ...(await (0, cold_cycle_1.resultCacheSettings)(client)),
                };
                const othersAtStart = (0, targets_1.otherChbenchServers)(deps.workDir, target);
                // `<prefix>-`: never the statements of a step with more clients (`conc-c4` vs `conc-c40`).
                const previous = await (0, attempts_1.settlePreviousAttempts)(target, client, `${prefix}-`);
                let stopCpu;
                let cpu = null;
                const run = await (0, closed_loop_1.runClosedLoop)({
                    target,
                    clients: step.clients,
                    mix,
                    warmupS: step.warmupS,
                    durationS: step.durationS,
                    settings,
                    seed: `${cell.runId}/${cell.cellKey}/${label}`,
                    queryIdPrefix: prefix,
                    queryIdSuffix: suffix,
                    signal: (0, activity_context_1.cancellationSignal)(),
                    requestTimeoutMs: (cell.protocol.maxExecutionTimeS + 60) * 1000,
                    onWindowStart: () => (stopCpu = (0, client_load_1.startCpuMonitor)(caps.onWorkerHost)),
                    onWindowEnd: () => (cpu = stopCpu?.() ?? null),
                    onProgress: (p) => (0, activity_context_1.heartbeat)({
                        step: label,
                        in_flight: p.inFlight,
                        progress: `${step.clients} clients, ${p.phase} ${(p.elapsedMs / 1000).toFixed(0)} s: ${p.requests} requests, ${p.errors} errors`,
                    }),
                });
                // Server-side latency from query_log where the cell has it.
                let server = new Map();
                let queryLogError;
                if (queryLogAvailable) {
                    (0, activity_context_1.heartbeat)({ step: label, progress: 'reading system.query_log' });
                    try {
                        server = await serverDurations(client, prefix, new Set(run.samples.filter((s) => s.ok).map((s) => s.queryId)));
                    }
                    catch (e) {
                        queryLogError = (e?.message ?? String(e)).split('\n')[0].slice(0, 300);
                    }
                }
                const samples = run.samples.map((s) => ({
                    ...s,
                    serverMs: server.get(s.queryId)?.ms ?? null,
                }));
                const okSamples = samples.filter((s) => s.ok);
                const useServer = queryLogAvailable && queryLogError === undefined && server.size > 0;
                const missing = useServer ? okSamples.filter((s) => s.serverMs === null).length : 0;
                const serverOf = (xs) => (0, stats_1.latencySummary)(xs.filter((s) => s.ok && s.serverMs !== null).map((s) => s.serverMs));
                const wallOf = (xs) => (0, stats_1.latencySummary)(xs.filter((s) => s.ok).map((s) => s.wallMs));
                const errorsByCode = {};
                const errorsDetail = {};
                for (const s of samples)
                    if (!s.ok) {
                        const code = s.code ?? 'unknown';
                        errorsByCode[code] = (errorsByCode[code] ?? 0) + 1;
                        errorsDetail[code] ??= { count: 0, sample: s.message ?? '' };
                        errorsDetail[code].count++;
                    }
                const queries = {};
                for (const { id } of entries) {
                    const xs = samples.filter((s) => s.query === id);
                    queries[id] = {
                        requests: xs.length,
                        ok: xs.filter((s) => s.ok).length,
                        errors: xs.filter((s) => !s.ok).length,
                        wallLatencyMs: wallOf(xs),
                        serverLatencyMs: useServer ? serverOf(xs) : null,
                    };
                }
                const wallLatencyMs = wallOf(samples);
                const summary = {
                    clients: step.clients,
                    qps: run.qps,
                    requests: run.requests,
                    errors: run.errors,
                    errorsByCode,
                    latencyMs: useServer ? serverOf(samples) : wallLatencyMs,
                    latencySource: useServer ? 'query_log' : 'client wall',
                    wallLatencyMs,
                    clientBound: cpu?.clientBound ?? false,
                    file: rel,
                };
                const record = {
                    step,
                    attempt: (0, activity_context_1.attempt)(),
                    query_id_prefix: prefix,
                    settings,
                    previous_attempts: previous,
                    other_chbench_servers: { at_start: othersAtStart, at_end: (0, targets_1.otherChbenchServers)(deps.workDir, target) },
                    definitions: {
                        ...run.definitions,
                        server_latency: useServer
                            ? `server-side duration of each successful counted request from ${[...server.values()][0].source} (QueryFinish row of its query_id, after SYSTEM FLUSH LOGS)`
                            : queryLogAvailable
                                ? `system.query_log could not be used (${queryLogError ?? 'no row for any request'}): latency is client wall time`
                                : 'system.query_log is not available on this target (provision.json server.query_log): latency is client wall time',
                    },
                    window: {
                        start_at: run.windowStartAt,
                        end_at: run.windowEndAt,
                        warmup_requests: run.warmupRequests,
                        drain_ms: run.drainMs,
                    },
                    summary,
                    query_log: {
                        used: useServer,
                        source: useServer ? [...server.values()][0].source : null,
                        missing,
                        ...(queryLogError ? { error: queryLogError } : {}),
                    },
                    queries,
                    errors_by_code: errorsDetail,
                    cpu,
                    samples,
                };
                (0, store_1.writeJsonAtomic)(node_path_1.default.join(dir, rel), record);
                return summary;
            }
            finally {
                await client.close();
            }
        },
    };
}
//# sourceMappingURL=concurrency-steps.js.map