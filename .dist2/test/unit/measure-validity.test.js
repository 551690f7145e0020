"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * The validity judgements and per-run counters, on counters captured from real runs (no server):
 * the embedded 26.7 engine (`system.events` differences, direct I/O) and Debian's 18.16 (query_log
 * ProfileEvents, AIO — direct I/O's older form).
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const validity_1 = require("../../src/measure/validity");
const counters_1 = require("../../src/measure/counters");
const query_log_1 = require("../../src/clickhouse/query-log");
const measure_1 = require("../fixtures/measure");
const DROPS_OK = [
    { sql: 'SYSTEM DROP MARK CACHE', ok: true },
    { sql: 'SYSTEM DROP UNCOMPRESSED CACHE', ok: true },
];
const cold = (f, which) => f[which].samples.find((s) => s.kind === 'cold');
(0, node_test_1.test)('26.7 cold run after the drops, read with direct I/O: cold', () => {
    const s = cold((0, measure_1.queries267)(), 'fresh');
    strict_1.default.equal(s.counters.CreatedReadBufferDirectIO, 28);
    strict_1.default.equal(s.counters.MarkCacheMisses, 14);
    const v = (0, validity_1.judgeCold)(s.counters, s.cold_preparation.os_page_cache, s.cold_preparation.server_caches);
    strict_1.default.deepEqual(v, { valid: true, label: 'cold', reasons: [] });
    strict_1.default.deepEqual(v, s.validity.cold, 'the same verdict the protocol recorded');
});
(0, node_test_1.test)('26.7 "cold" run without any drop: every mark came from the mark cache, not cold', () => {
    const s = cold((0, measure_1.queries267)(), 'stale');
    strict_1.default.equal(s.cold_preparation.server_caches.length, 0, 'no drop was issued');
    const v = (0, validity_1.judgeCold)(s.counters, s.cold_preparation.os_page_cache, s.cold_preparation.server_caches);
    strict_1.default.equal(v.valid, false);
    strict_1.default.equal(v.label, 'not cold');
    strict_1.default.deepEqual(v.reasons, ['14 mark(s) came from the mark cache (it was not dropped)']);
});
(0, node_test_1.test)("18.16 cold run read with AIO (direct I/O's older form), counters from query_log: cold", () => {
    const f = (0, measure_1.queries1816)();
    const s = cold(f, 'fresh');
    strict_1.default.equal(s.counters_source, 'system.query_log ProfileEvents');
    strict_1.default.equal(s.counters.CreatedReadBufferAIO, 7);
    strict_1.default.equal(s.counters.CreatedReadBufferDirectIO, null, '18.16 has no such counter: unknown, not 0');
    strict_1.default.deepEqual((0, validity_1.judgeCold)(s.counters, s.cold_preparation.os_page_cache, s.cold_preparation.server_caches), {
        valid: true,
        label: 'cold',
        reasons: [],
    });
    strict_1.default.equal((0, validity_1.judgeCold)(cold(f, 'stale').counters, 'not dropped: protocol.dropOsPageCache is false', []).label, 'not cold');
});
(0, node_test_1.test)('hits with misses after a successful drop are the run re-using its own marks: a note, still cold', () => {
    // The 26.7 cold run's real counters, plus the mark-cache hits its warm runs had (14): hits *with* misses.
    const q = (0, measure_1.queries267)().fresh;
    const c = {
        ...cold((0, measure_1.queries267)(), 'fresh').counters,
        MarkCacheHits: q.samples.find((s) => s.kind === 'warm').counters.MarkCacheHits,
    };
    const v = (0, validity_1.judgeCold)(c, 'not dropped: protocol.dropOsPageCache is false', DROPS_OK);
    strict_1.default.equal(v.valid, true);
    strict_1.default.deepEqual(v.reasons, ['note: 14 in-run mark cache hit(s) after the drop (marks this run loaded itself)']);
    // The same hits with the drop refused: the cache was warm.
    const refused = (0, validity_1.judgeCold)(c, '', [{ sql: 'SYSTEM DROP MARK CACHE', ok: false }]);
    strict_1.default.equal(refused.valid, false);
    strict_1.default.match(refused.reasons[0], /^14 mark\(s\) came from the mark cache \(it was not dropped\)/);
});
(0, node_test_1.test)('a warm run judged as cold: marks all hits, ordinary buffers, page cache not dropped', () => {
    const warm = (0, measure_1.queries267)().fresh.samples.find((s) => s.kind === 'warm');
    const v = (0, validity_1.judgeCold)(warm.counters, 'not dropped: protocol.dropOsPageCache is false', DROPS_OK);
    strict_1.default.equal(v.valid, false);
    strict_1.default.deepEqual(v.reasons, [
        '14 mark(s) came from the mark cache and none from storage',
        'no direct-I/O read buffer was created (14 ordinary) and the OS page cache was not dropped',
    ]);
    // Ordinary reads after the OS page cache was dropped are cold reads as far as the page cache goes.
    strict_1.default.deepEqual((0, validity_1.judgeCold)({ ...warm.counters, MarkCacheHits: 0, MarkCacheMisses: 14 }, 'dropped', DROPS_OK), {
        valid: true,
        label: 'cold',
        reasons: [],
    });
});
(0, node_test_1.test)('no counters (a target that gives none): cold? with the unknowns named, never a guess', () => {
    const v = (0, validity_1.judgeCold)(null, 'not dropped: protocol.dropOsPageCache is false', DROPS_OK);
    strict_1.default.equal(v.valid, null);
    strict_1.default.equal(v.label, 'cold?');
    strict_1.default.deepEqual(v.reasons, ['MarkCacheHits unknown', 'file read counters unknown', 'direct I/O counters unknown']);
});
(0, node_test_1.test)('judgeWarm and judgeQuiet on recorded figures', () => {
    const st = (0, measure_1.queries267)().fresh.stats;
    strict_1.default.deepEqual((0, validity_1.judgeWarm)(st.cold_ms, st.warm_min_ms), { valid: true, label: 'warm', reasons: [] });
    strict_1.default.deepEqual(st.warm_validity, (0, validity_1.judgeWarm)(st.cold_ms, st.warm_min_ms));
    strict_1.default.deepEqual((0, validity_1.judgeWarm)(st.warm_min_ms, st.cold_ms), {
        valid: false,
        label: 'not warmer',
        reasons: [`warm min ${st.cold_ms.toFixed(2)} ms is not below cold ${st.warm_min_ms.toFixed(2)} ms`],
    });
    strict_1.default.equal((0, validity_1.judgeWarm)(null, 3).label, 'warm?');
    strict_1.default.deepEqual((0, validity_1.judgeQuiet)(false, 0), { valid: true, label: 'quiet', reasons: [] });
    strict_1.default.deepEqual((0, validity_1.judgeQuiet)(true, 2), {
        valid: false,
        label: 'not quiet',
        reasons: ['the set of active parts changed during the run', '2 merge(s)/mutation(s) ran on the table'],
    });
    strict_1.default.deepEqual((0, validity_1.judgeQuiet)(false, null), {
        valid: null,
        label: 'quiet?',
        reasons: ['merges/mutations during the run unknown'],
    });
});
(0, node_test_1.test)("system.events snapshots around a 26.7 cold run: the difference is the run's counters", () => {
    const e = (0, measure_1.events267)();
    const d = (0, counters_1.counterDelta)((0, counters_1.eventSnapshot)(e.before), (0, counters_1.eventSnapshot)(e.after), e.events);
    strict_1.default.equal(d.MarkCacheMisses, 14);
    strict_1.default.equal(d.MarkCacheHits, 0);
    strict_1.default.equal(d.CreatedReadBufferDirectIO, 28);
    strict_1.default.equal(d.ReadBufferFromFileDescriptorReadBytes, 46205647 - 36980045);
    strict_1.default.equal(d.CreatedReadBufferAIO, null, 'the engine lists no such counter: unknown');
    strict_1.default.equal((0, counters_1.counterDelta)((0, counters_1.eventSnapshot)(e.before), (0, counters_1.eventSnapshot)(e.after)).CreatedReadBufferAIO, 0, 'without the list, absent = 0');
    strict_1.default.deepEqual((0, validity_1.judgeCold)(d, 'not dropped: protocol.dropOsPageCache is false', DROPS_OK).label, 'cold');
});
(0, node_test_1.test)('query_log ProfileEvents → run counters: absent = 0 only for counters known to exist', () => {
    const f = (0, measure_1.queries1816)();
    const s = cold(f, 'fresh');
    const rows = (0, measure_1.queryLog1816)().raw_rows.map(query_log_1.normaliseQueryLogRow);
    const pe = rows.find((r) => r.query_id === s.query_id).ProfileEvents;
    // A counter exists when any run of the step reported it (the probe's 18.16 list is incomplete).
    const step = new Set(f.fresh.samples.map((x) => x.query_id));
    const known = new Set(rows.filter((r) => step.has(String(r.query_id))).flatMap((r) => Object.keys(r.ProfileEvents)));
    strict_1.default.equal(pe.MarkCacheHits, undefined, 'the cold run had no mark-cache hit: absent from its row');
    strict_1.default.deepEqual((0, counters_1.queryLogCounters)(pe, known), s.counters, 'the counters the protocol recorded');
    strict_1.default.equal((0, counters_1.queryLogCounters)(pe, known).MarkCacheHits, 0, 'absent, but the warm runs reported it: 0');
    strict_1.default.equal((0, counters_1.queryLogCounters)(pe, new Set()).MarkCacheHits, null, 'absent and never seen: unknown');
});
(0, node_test_1.test)('the cell-level counter list speaks of the same read-path counters as the per-run one', () => {
    const runOnly = new Set(validity_1.RUN_COUNTERS);
    const workload = ['Query', 'SelectQuery', 'InsertedRows', 'MergedRows', 'OSWriteBytes'];
    for (const k of validity_1.CELL_COUNTERS)
        strict_1.default.ok(workload.includes(k) || runOnly.has(k), `${k} is a read-path counter missing from RUN_COUNTERS`);
});
//# sourceMappingURL=measure-validity.test.js.map