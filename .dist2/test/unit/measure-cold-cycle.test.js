"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * The cold cycle's inputs and its "what cold meant" text, the query_log reader's pure parts, the
 * EXPLAIN granule parser and the query_id grammar, on output captured from Debian's 18.16 and the
 * embedded 26.7 engine. No server.
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const cold_cycle_1 = require("../../src/measure/cold-cycle");
const probe_1 = require("../../src/clickhouse/probe");
const query_log_1 = require("../../src/clickhouse/query-log");
const index_proof_1 = require("../../src/measure/index-proof");
const cell_1 = require("../../src/schema/cell");
const measure_1 = require("../fixtures/measure");
const asProbe = (p) => p;
(0, node_test_1.test)('cache drops: those the probe saw accepted, every known one without a probe', () => {
    strict_1.default.deepEqual((0, cold_cycle_1.coldCacheDrops)(asProbe((0, measure_1.queries1816)().probe)), [
        'SYSTEM DROP MARK CACHE',
        'SYSTEM DROP UNCOMPRESSED CACHE',
    ]);
    const d267 = (0, cold_cycle_1.coldCacheDrops)(asProbe((0, measure_1.queries267)().probe));
    strict_1.default.equal(d267.length, 10);
    strict_1.default.ok(!d267.includes('SYSTEM DROP SKIPPING INDEX CACHE'), 'the embedded 26.7 engine refuses it');
    strict_1.default.deepEqual((0, cold_cycle_1.coldCacheDrops)(undefined), probe_1.PROBED_CACHE_DROPS);
    // What the protocol issued before the recorded cold runs is exactly that list.
    strict_1.default.deepEqual((0, measure_1.queries267)().fresh.samples[0].cold_preparation.server_caches.map((c) => c.sql), d267);
    strict_1.default.deepEqual((0, measure_1.queries267)().fresh.samples[0].cold_preparation.settings.min_bytes_to_use_direct_io, cold_cycle_1.COLD_RUN_SETTINGS.min_bytes_to_use_direct_io);
});
(0, node_test_1.test)('coldDefinition on 18.16: two caches dropped, the newer ones "not on this version" (from the probe)', () => {
    const f = (0, measure_1.queries1816)();
    strict_1.default.equal((0, cold_cycle_1.coldDefinition)([f.fresh], asProbe(f.probe)), 'direct I/O requested (min_bytes_to_use_direct_io=1); caches dropped before each cold run: mark cache, uncompressed cache; ' +
        'not dropped: index mark cache (not on this version), index uncompressed cache (not on this version), mmap cache (not on this version), ' +
        'compiled expression cache (not on this version), query cache (not on this version), query condition cache (not on this version), ' +
        'page cache (not on this version), primary index cache (not on this version), skipping index cache (not on this version); ' +
        'OS page cache not dropped: protocol.dropOsPageCache is false');
});
(0, node_test_1.test)('coldDefinition on 26.7: a drop counts only when it succeeded before *every* cold run', () => {
    const f = (0, measure_1.queries267)();
    strict_1.default.equal((0, cold_cycle_1.coldDefinition)([f.fresh], asProbe(f.probe)), 'direct I/O requested (min_bytes_to_use_direct_io=1); caches dropped before each cold run: mark cache, uncompressed cache, index mark cache, ' +
        'index uncompressed cache, mmap cache, compiled expression cache, query cache, query condition cache, page cache, primary index cache; ' +
        'not dropped: skipping index cache (not on this version); OS page cache not dropped: protocol.dropOsPageCache is false');
    // With the run that dropped nothing, no cache was dropped before every cold run.
    strict_1.default.match((0, cold_cycle_1.coldDefinition)([f.fresh, f.stale], asProbe(f.probe)), /caches dropped before each cold run: none; not dropped: mark cache \(refused: not issued\)/);
    strict_1.default.equal((0, cold_cycle_1.coldDefinition)([{ ...f.fresh, samples: f.fresh.samples.filter((s) => s.kind !== 'cold') }]), 'no cold runs');
});
(0, node_test_1.test)('OS page cache: dropped only when asked and the server is on the worker host', async () => {
    strict_1.default.equal(await (0, cold_cycle_1.osPageCacheStep)(false, true), 'not dropped: protocol.dropOsPageCache is false');
    strict_1.default.equal(await (0, cold_cycle_1.osPageCacheStep)(true, false), 'not dropped: the server is not known to run on the worker host');
});
(0, node_test_1.test)('OS page cache of a server in a pod: says where it runs and exactly what the cold run got instead', async () => {
    const facts = {
        namespace: 'bench-database',
        pod: 'chb-v26-7-lz4-1a2b3c4d',
        node: 'ip-10-0-1-10.ec2.internal',
    };
    const pod = (0, cold_cycle_1.serverPodOf)({ kind: 'kubernetes', kubernetes: facts }, { onWorkerHost: false });
    strict_1.default.deepEqual(pod, {
        namespace: 'bench-database',
        pod: 'chb-v26-7-lz4-1a2b3c4d',
        node: 'ip-10-0-1-10.ec2.internal',
    });
    // Other kinds, or a pod declared on the worker's host, keep the generic wording.
    strict_1.default.equal((0, cold_cycle_1.serverPodOf)({ kind: 'external' }, { onWorkerHost: false }), undefined);
    strict_1.default.equal((0, cold_cycle_1.serverPodOf)({ kind: 'kubernetes', kubernetes: facts }, { onWorkerHost: true }), undefined);
    // A server that accepts the mark and uncompressed cache drops and refuses the mmap one.
    const issued = [];
    const client = {
        command: async ({ query }) => {
            issued.push(query);
            if (query.includes('MMAP'))
                throw new Error('Code: 497. DB::Exception: Not enough privileges. (ACCESS_DENIED)');
            return {};
        },
    };
    const drops = ['SYSTEM DROP MARK CACHE', 'SYSTEM DROP UNCOMPRESSED CACHE', 'SYSTEM DROP MMAP CACHE'];
    const prep = await (0, cold_cycle_1.prepareColdRun)(client, { max_threads: 4 }, {
        drops,
        dropCaches: true,
        dropOsPageCache: true,
        serverOnThisHost: false,
        serverPod: pod,
    });
    strict_1.default.deepEqual(issued, drops);
    strict_1.default.equal(prep.os_page_cache, "not dropped: the server runs in pod bench-database/chb-v26-7-lz4-1a2b3c4d on node ip-10-0-1-10.ec2.internal, not on the worker's host; " +
        'ClickHouse caches were dropped (SYSTEM DROP MARK CACHE, SYSTEM DROP UNCOMPRESSED CACHE), not dropped: SYSTEM DROP MMAP CACHE (refused) ' +
        'and direct I/O was requested (min_bytes_to_use_direct_io=1)');
    strict_1.default.deepEqual(prep.settings, { max_threads: 4, ...cold_cycle_1.COLD_RUN_SETTINGS });
    // The step's cold_definition carries it.
    const record = { samples: [{ kind: 'cold', cold_preparation: prep }] };
    strict_1.default.match((0, cold_cycle_1.coldDefinition)([record]), /OS page cache not dropped: the server runs in pod bench-database\/chb-v26-7-lz4-1a2b3c4d on node ip-10-0-1-10\.ec2\.internal, not on the worker's host; ClickHouse caches were dropped \(SYSTEM DROP MARK CACHE, SYSTEM DROP UNCOMPRESSED CACHE\)/);
    // Nothing dropped (no drops issued), node unknown; the protocol's choice still wins.
    strict_1.default.equal(await (0, cold_cycle_1.osPageCacheStep)(true, false, { ...pod, node: null }, []), "not dropped: the server runs in pod bench-database/chb-v26-7-lz4-1a2b3c4d on node (unknown), not on the worker's host; " +
        'no ClickHouse cache was dropped and direct I/O was requested (min_bytes_to_use_direct_io=1)');
    strict_1.default.equal(await (0, cold_cycle_1.osPageCacheStep)(false, false, pod, []), 'not dropped: protocol.dropOsPageCache is false');
});
(0, node_test_1.test)('query_log rows: 18.16 arrays become one object; a 26.7 Map is already one', () => {
    const raw = (0, measure_1.queryLog1816)().raw_rows[0];
    const names = raw['ProfileEvents.Names'];
    const values = raw['ProfileEvents.Values'];
    const row = (0, query_log_1.normaliseQueryLogRow)(raw);
    strict_1.default.deepEqual(row.ProfileEvents, Object.fromEntries(names.map((n, i) => [n, Number(values[i])])));
    strict_1.default.equal(row.query_duration_ms, raw.query_duration_ms, 'other columns as sent');
    strict_1.default.deepEqual(row['Settings.Names'], raw['Settings.Names']);
    const map = (0, measure_1.profileEventsMap267)();
    strict_1.default.match(map.columns.find((c) => c.name === 'ProfileEvents').type, /^Map\(/);
    const m = map.raw_rows[0];
    strict_1.default.deepEqual((0, query_log_1.normaliseQueryLogRow)(m), m, 'a Map arrives as an object: kept as sent');
    strict_1.default.equal(Number(m.ProfileEvents.Query), 1);
});
(0, node_test_1.test)("query_log SELECT follows the server's columns: 18.16 UInt8 type, no microseconds", () => {
    const cols = (0, measure_1.queryLog1816)().query_log_columns;
    const sql = (0, query_log_1.queryLogSelect)(['a', "b'c"], cols.map((c) => c.name), cols.find((c) => c.name === 'type').type);
    strict_1.default.match(sql, /`ProfileEvents\.Names`, `ProfileEvents\.Values`/);
    strict_1.default.match(sql, / AND type = 2 AND query_id IN \('a', 'b\\'c'\)$/);
    strict_1.default.doesNotMatch(sql, /query_duration_us/);
    // A newer server (Enum type, microsecond columns, ProfileEvents Map).
    const newer = (0, query_log_1.queryLogSelect)(['a'], ['query_id', 'query_duration_ms', 'ProfileEvents', 'event_time_microseconds', 'query_start_time_microseconds'], "Enum8('QueryStart' = 1, 'QueryFinish' = 2)");
    strict_1.default.match(newer, /^SELECT query_id, query_duration_ms, ProfileEvents, toUnixTimestamp64Micro\(event_time_microseconds\) - toUnixTimestamp64Micro\(query_start_time_microseconds\) AS query_duration_us FROM/);
    strict_1.default.match(newer, /type = 'QueryFinish'/);
});
(0, node_test_1.test)("EXPLAIN indexes = 1 (26.7): the skip index's granules, and no index under use_skip_indexes = 0", () => {
    const e = (0, measure_1.explain267)();
    strict_1.default.deepEqual((0, index_proof_1.explainGranules)(e.with_index, e.index), { kept: 4, total: 28 });
    strict_1.default.equal((0, index_proof_1.explainGranules)(e.use_skip_indexes_0, e.index), null);
    strict_1.default.equal((0, index_proof_1.explainGranules)(e.with_index, 'other_index'), null);
    strict_1.default.deepEqual((0, index_proof_1.judgeIndexUse)(e.index, e.with_index, 16_384, 200_000), {
        index: 'trace_bf',
        explain_granules: '4/28',
        explain_skips: true,
        read_rows_after: 16_384,
        read_rows_before: 200_000,
        effective: true,
        reason: 'EXPLAIN granules 4/28; measured read_rows 16,384 after vs 200,000 before',
    });
    strict_1.default.equal((0, index_proof_1.judgeIndexUse)(e.index, e.with_index, 200_000, 200_000).effective, false, 'EXPLAIN claims skipping, the runs read as much');
    strict_1.default.match((0, index_proof_1.judgeIndexUse)(e.index, e.use_skip_indexes_0, 200_000, 200_000).reason, /does not use index trace_bf/);
    // 18.16 has no EXPLAIN: the measured record keeps the server's refusal, and the proof is "cannot be judged".
    strict_1.default.match((0, measure_1.queries1816)().fresh.explain_error, /^Code: 62, e\.displayText\(\) = DB::Exception: Syntax error/);
    strict_1.default.equal((0, index_proof_1.judgeIndexUse)(e.index, null, 1, 2).effective, null);
});
(0, node_test_1.test)('query_ids: queryIdPrefix and parseQueryId are inverses for every statement a step issues', () => {
    const p = (0, cell_1.queryIdPrefix)('demo 2026/08', 'v26.7-lz4', 'baseline');
    strict_1.default.equal(p, 'chb-demo_2026_08-v26.7-lz4-baseline');
    strict_1.default.deepEqual((0, cell_1.parseQueryId)(`${p}-q1-cold1-a2`), {
        stepPrefix: p,
        step: 'baseline',
        attempt: 2,
        run: { query: 'q1', kind: 'cold', n: 1 },
    });
    strict_1.default.deepEqual((0, cell_1.parseQueryId)(`${p}-q12-warmup3-a1`)?.run, { query: 'q12', kind: 'warmup', n: 3 });
    const load = (0, cell_1.queryIdPrefix)('r', 'v18.16-zstd', 'load');
    strict_1.default.deepEqual((0, cell_1.parseQueryId)(`${load}-a1`), { stepPrefix: load, step: 'load', attempt: 1 });
    strict_1.default.deepEqual((0, cell_1.parseQueryId)(`${load}-truncate-a3`), {
        stepPrefix: load,
        step: 'load',
        attempt: 3,
        statement: 'truncate',
    });
    strict_1.default.equal((0, cell_1.parseQueryId)('chb-watch-7f1c'), null);
    strict_1.default.equal((0, cell_1.parseQueryId)((0, measure_1.queries267)().fresh.samples[0].query_id), null, 'not a chbench step id (captured with a test prefix)');
});
//# sourceMappingURL=measure-cold-cycle.test.js.map