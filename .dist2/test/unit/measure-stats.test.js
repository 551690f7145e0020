"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * Statistics and the sources of each figure, on records and query_log rows captured from real runs
 * (Debian's 18.16 with whole-millisecond query_log durations; the embedded 26.7 engine's complete
 * HTTP summary). No server.
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const stats_1 = require("../../src/measure/stats");
const figures_1 = require("../../src/measure/figures");
const query_log_1 = require("../../src/clickhouse/query-log");
const measure_1 = require("../fixtures/measure");
(0, node_test_1.test)('stats() recomputes exactly what the protocol recorded (26.7 summary, 18.16 query_log)', () => {
    for (const f of [(0, measure_1.queries267)(), (0, measure_1.queries1816)()])
        for (const rec of [f.fresh, f.stale, ...(f.fast ? [f.fast] : [])])
            strict_1.default.deepEqual((0, stats_1.stats)(rec.samples), rec.stats, `${f.version} ${rec.id}`);
});
(0, node_test_1.test)("26.7: the summary's nanoseconds resolve finely enough: server time is the headline", () => {
    const st = (0, stats_1.stats)((0, measure_1.queries267)().fresh.samples);
    strict_1.default.equal(st.timing_source, 'server-side elapsed');
    strict_1.default.equal(st.resolution_ms, stats_1.SERVER_TIME_RESOLUTION_MS['http summary elapsed_ns']);
    const warm = (0, measure_1.queries267)()
        .fresh.samples.filter((s) => s.kind === 'warm')
        .map((s) => s.server_elapsed_ms);
    strict_1.default.equal(st.warm_min_ms, Math.min(...warm));
    strict_1.default.equal(st.warm_max_ms, Math.max(...warm));
    strict_1.default.equal(st.warm_median_ms, (warm[0] + warm[1]) / 2);
    strict_1.default.equal(st.cold_ms, (0, measure_1.queries267)().fresh.samples[0].server_elapsed_ms);
});
(0, node_test_1.test)('18.16: whole-ms query_duration_ms coarser than 10 % of the fastest run: client wall time is the headline', () => {
    const fast = (0, measure_1.queries1816)().fast;
    const server = fast.samples.map((s) => s.server_elapsed_ms);
    const smallest = Math.min(...server);
    strict_1.default.ok(1 > stats_1.MAX_RESOLUTION_SHARE * smallest, `fastest run ${smallest} ms: 1 ms is more than 10 % of it`);
    const st = (0, stats_1.stats)(fast.samples);
    strict_1.default.equal(st.timing_source, 'client wall time');
    strict_1.default.equal(st.timing_note, `server time (system.query_log.query_duration_ms) resolves 1 ms, coarser than 10 % of the fastest run (${smallest} ms): client wall time is the headline`);
    strict_1.default.equal(st.resolution_ms, null);
    strict_1.default.equal(st.warm_min_ms, Math.min(...fast.samples.map((s) => s.wall_ms)));
    // The slower q3 (≥ 20 ms on the server): 1 ms is ≤ 10 %, the server's clock stays the headline.
    const q3 = (0, stats_1.stats)((0, measure_1.queries1816)().fresh.samples);
    strict_1.default.equal(q3.timing_source, 'server-side elapsed');
    strict_1.default.equal(q3.resolution_ms, 1);
});
(0, node_test_1.test)('a cold run judged not cold is left out of cold_ms and counted as rejected', () => {
    const st = (0, stats_1.stats)((0, measure_1.queries267)().stale.samples);
    strict_1.default.equal(st.cold_ms, null);
    strict_1.default.equal(st.cold_runs, 0);
    strict_1.default.equal(st.cold_runs_rejected, 1);
    // Warm-ups are kept but never in a statistic; without an elapsed for every run, wall time is the headline.
    const s = (0, measure_1.queries267)().fresh.samples.map((x, i) => i === 1 ? { ...x, kind: 'warmup', server_elapsed_ms: null } : x);
    strict_1.default.equal((0, stats_1.stats)(s).timing_source, 'server-side elapsed', 'the warm-up without elapsed does not count');
    const noServer = (0, stats_1.stats)((0, measure_1.queries267)().fresh.samples.map((x) => ({ ...x, server_elapsed_ms: null, server_elapsed_source: null })));
    strict_1.default.equal(noServer.timing_note, 'the server gave no elapsed time for every run: client wall time is the headline');
});
(0, node_test_1.test)("18.16 query_log rows: normalised (ProfileEvents arrays → one object) and joined as each run's headline", () => {
    const f = (0, measure_1.queries1816)();
    const rows = (0, measure_1.queryLog1816)().raw_rows;
    for (const s of [...f.fresh.samples, ...f.stale.samples]) {
        const raw = rows.find((r) => r.query_id === s.query_id);
        strict_1.default.ok(Array.isArray(raw['ProfileEvents.Names']), '18.16 stores ProfileEvents as two arrays');
        const row = (0, query_log_1.normaliseQueryLogRow)(raw);
        strict_1.default.equal(row['ProfileEvents.Names'], undefined);
        strict_1.default.equal(row['ProfileEvents.Values'], undefined);
        strict_1.default.equal(row.ProfileEvents.Query, 1);
        strict_1.default.deepEqual(row, s.query_log, 'the row the protocol recorded');
        // Rebuild the run as it was before the join, then join.
        const before = {
            ...s,
            server_elapsed_ms: null,
            server_elapsed_source: null,
            read_rows: null,
            read_bytes: null,
            read_source: null,
            cross_check: undefined,
            query_log: undefined,
        };
        (0, figures_1.applyQueryLog)(before, row);
        strict_1.default.equal(before.server_elapsed_ms, Number(raw.query_duration_ms));
        strict_1.default.equal(before.server_elapsed_source, 'system.query_log.query_duration_ms', '18.16 has no microsecond columns');
        strict_1.default.equal(before.read_rows, Number(raw.read_rows));
        strict_1.default.equal(before.read_source, 'system.query_log');
        strict_1.default.equal(before.cross_check, 'agrees (statistics rows_read)');
        strict_1.default.equal(before.cross_check, s.cross_check);
    }
});
(0, node_test_1.test)('crossCheck: a snapshot summary against query_log is a disagreement; none sent is "not checked"', () => {
    const s = (0, measure_1.queries1816)().fresh.samples[0];
    const row = (0, query_log_1.normaliseQueryLogRow)((0, measure_1.queryLog1816)().raw_rows.find((r) => r.query_id === s.query_id));
    const rows = Number(row.read_rows);
    strict_1.default.equal((0, figures_1.crossCheck)(s, row), 'agrees (statistics rows_read)');
    strict_1.default.equal((0, figures_1.crossCheck)({ summary_complete: true }, row), 'not checked: the server sent no summary and no statistics block');
    const snapshot = { http_summary: { read_rows: '65505', elapsed_ns: '2000000' }, summary_complete: false };
    strict_1.default.equal((0, figures_1.crossCheck)(snapshot, row), `disagrees: summary (snapshot: wait_end_of_query not requested) read_rows 65505 vs query_log ${rows}; summary (snapshot: wait_end_of_query not requested) elapsed 2.000 ms vs query_log ${Number(row.query_duration_ms).toFixed(3)} ms`);
});
(0, node_test_1.test)('runFigures: a complete summary gives elapsed and rows; a snapshot never does (the statistics block does)', () => {
    const s = (0, measure_1.queries267)().fresh.samples[0];
    const r = {
        query_id: s.query_id,
        wall_ms: s.wall_ms,
        summary: s.http_summary,
        output_statistics: s.output_statistics,
        result_rows: s.result_rows,
        result_bytes: s.result_bytes,
        result_sha256: s.result_sha256,
        first_rows: [],
        wait_end_of_query: s.summary_complete,
    };
    const f = (0, figures_1.runFigures)(r);
    strict_1.default.equal(f.server_elapsed_ms, Number(s.http_summary.elapsed_ns) / 1e6);
    strict_1.default.equal(f.server_elapsed_source, 'http summary elapsed_ns');
    strict_1.default.deepEqual([f.read_rows, f.read_bytes, f.read_source], [s.read_rows, s.read_bytes, s.read_source]);
    strict_1.default.equal((0, figures_1.runFigures)(r, 'output statistics').read_source, 'output statistics', "the embedded engine's summary is its statistics");
    const snap = (0, figures_1.runFigures)({ ...r, wait_end_of_query: false });
    strict_1.default.equal(snap.server_elapsed_ms, null);
    strict_1.default.deepEqual([snap.read_rows, snap.read_source], [s.output_statistics.rows_read, 'output statistics']);
    strict_1.default.equal((0, figures_1.runFigures)({ ...r, wait_end_of_query: false, output_statistics: undefined }).read_rows, null);
});
(0, node_test_1.test)('queryFailure: a server error of the query is data (code, name); anything else propagates', () => {
    // 18.16's refusal of EXPLAIN, as its client error text carries it.
    const text = (0, measure_1.queries1816)().fresh.explain_error;
    const f = (0, figures_1.queryFailure)(new Error(text));
    strict_1.default.equal(f?.code, '62');
    strict_1.default.equal(f?.type, null, '18.16 names no error type');
    strict_1.default.equal((0, figures_1.queryFailure)(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' })), undefined);
    strict_1.default.equal((0, figures_1.queryFailure)(new Error(text), () => true), undefined, 'a lost server is not a query failure');
    strict_1.default.equal((0, figures_1.queryFailure)(Object.assign(new Error('aborted'), { name: 'AbortError' })), undefined);
    strict_1.default.equal((0, figures_1.queryFailure)(new Error('Code: 60. DB::Exception: Unknown table (UNKNOWN_TABLE)'))?.type, 'UNKNOWN_TABLE');
});
//# sourceMappingURL=measure-stats.test.js.map