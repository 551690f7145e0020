"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.CELL_COUNTERS = exports.RUN_COUNTERS = void 0;
exports.judgeCold = judgeCold;
exports.judgeWarm = judgeWarm;
exports.judgeQuiet = judgeQuiet;
/** Counters read per run. */
exports.RUN_COUNTERS = [
    'CreatedReadBufferDirectIO',
    'CreatedReadBufferDirectIOFailed',
    'CreatedReadBufferAIO',
    'CreatedReadBufferAIOFailed',
    'ReadBufferAIOReadBytes',
    'CreatedReadBufferMMap',
    'CreatedReadBufferOrdinary',
    'OSReadBytes',
    'OSReadChars',
    'ReadBufferFromFileDescriptorReadBytes',
    'MarkCacheHits',
    'MarkCacheMisses',
    'UncompressedCacheHits',
    'UncompressedCacheMisses',
];
/**
 * Counters whose start→end difference over the whole cell is kept in `result.json`
 * (`metrics_delta.server_events`, from `system.events` snapshots of collect-metrics): what the cell
 * did (queries, inserted and merged rows, OS writes) and the read path that {@link RUN_COUNTERS}
 * judges per run (every read-path name here is also in RUN_COUNTERS, so both speak of the same
 * counters). Order is the order of the record's keys.
 */
exports.CELL_COUNTERS = [
    'Query',
    'SelectQuery',
    'InsertedRows',
    'MergedRows',
    'OSReadBytes',
    'OSReadChars',
    'OSWriteBytes',
    'ReadBufferFromFileDescriptorReadBytes',
    'CreatedReadBufferDirectIO',
    'CreatedReadBufferDirectIOFailed',
    'CreatedReadBufferOrdinary',
    'MarkCacheHits',
    'MarkCacheMisses',
    'UncompressedCacheHits',
    'UncompressedCacheMisses',
];
const n = (c, k) => {
    const v = c?.[k];
    return v === undefined || v === null || !Number.isFinite(v) ? null : v;
};
/**
 * Judge a cold run. Cold requires:
 * - marks and uncompressed blocks not served from ClickHouse's warm caches: the drops succeeded and
 *   any cache hit comes with misses (the run re-using what it loaded itself), see below;
 * - table data read from files (ReadBufferFromFileDescriptorReadBytes or ReadBufferAIOReadBytes > 0,
 *   or direct-I/O/AIO buffers created) and
 * - that read bypassed or could not find the OS page cache: direct I/O (or AIO, its older form) was
 *   used with no fallback, or the OS page cache was dropped before the run.
 * OSReadBytes is not used: after a page-cache drop it also counts the server re-reading its own code.
 */
function judgeCold(c, osPageCache, drops = []) {
    const reasons = [];
    let valid = true;
    const unknown = (what) => {
        reasons.push(`${what} unknown`);
        if (valid)
            valid = null;
    };
    const fail = (why) => {
        valid = false;
        reasons.push(why);
    };
    // After a successful drop, a run can still hit marks it loaded itself moments earlier (several
    // threads reading one part): hits with misses are that. All hits and no miss, or hits when the
    // drop did not happen, mean a warm cache.
    const markHits = n(c, 'MarkCacheHits');
    const markMisses = n(c, 'MarkCacheMisses');
    const uncHits = n(c, 'UncompressedCacheHits');
    const uncMisses = n(c, 'UncompressedCacheMisses');
    const dropped = (sql) => drops.some((d) => d.sql === sql && d.ok);
    if (markHits === null)
        unknown('MarkCacheHits');
    else if (markHits > 0 && (!dropped('SYSTEM DROP MARK CACHE') || !markMisses))
        fail(`${markHits} mark(s) came from the mark cache${dropped('SYSTEM DROP MARK CACHE') ? ' and none from storage' : ' (it was not dropped)'}`);
    else if (markHits > 0)
        reasons.push(`note: ${markHits} in-run mark cache hit(s) after the drop (marks this run loaded itself)`);
    if (uncHits !== null && uncHits > 0 && (!dropped('SYSTEM DROP UNCOMPRESSED CACHE') || !uncMisses))
        fail(`${uncHits} block(s) came from the uncompressed cache`);
    const dio = n(c, 'CreatedReadBufferDirectIO');
    const aio = n(c, 'CreatedReadBufferAIO');
    const dioFailed = (n(c, 'CreatedReadBufferDirectIOFailed') ?? 0) + (n(c, 'CreatedReadBufferAIOFailed') ?? 0);
    const ordinary = n(c, 'CreatedReadBufferOrdinary');
    const mmap = n(c, 'CreatedReadBufferMMap');
    const fdBytes = n(c, 'ReadBufferFromFileDescriptorReadBytes');
    const aioBytes = n(c, 'ReadBufferAIOReadBytes');
    const bypass = (dio ?? 0) + (aio ?? 0) > 0 && dioFailed === 0;
    const osDropped = osPageCache === 'dropped';
    if (fdBytes === null && aioBytes === null && dio === null && aio === null)
        unknown('file read counters');
    else if ((fdBytes ?? 0) + (aioBytes ?? 0) === 0 && !bypass)
        fail('no table data was read from files');
    if (mmap !== null && mmap > 0 && !osDropped)
        fail(`${mmap} mmap read buffer(s): pages may have come from the OS page cache`);
    if (!bypass && !osDropped) {
        if (dio === null && aio === null)
            unknown('direct I/O counters');
        else
            fail(dioFailed
                ? `direct I/O fell back for ${dioFailed} buffer(s) and the OS page cache was not dropped`
                : `no direct-I/O read buffer was created${ordinary ? ` (${ordinary} ordinary)` : ''} and the OS page cache was not dropped`);
    }
    return { valid, label: valid === true ? 'cold' : valid === false ? 'not cold' : 'cold?', reasons };
}
/** Judge the warm runs of a query against its cold run: warm should be faster. */
function judgeWarm(coldMs, warmMinMs) {
    if (coldMs === null || warmMinMs === null)
        return { valid: null, label: 'warm?', reasons: ['no cold run to compare with'] };
    if (warmMinMs < coldMs)
        return { valid: true, label: 'warm', reasons: [] };
    return {
        valid: false,
        label: 'not warmer',
        reasons: [`warm min ${warmMinMs.toFixed(2)} ms is not below cold ${coldMs.toFixed(2)} ms`],
    };
}
/** Judge quiescence of one run: the active parts must not change and no merge/mutation may run. */
function judgeQuiet(partsChanged, mergesOrMutations) {
    const reasons = [];
    if (partsChanged)
        reasons.push('the set of active parts changed during the run');
    if (mergesOrMutations === null)
        reasons.push('merges/mutations during the run unknown');
    else if (mergesOrMutations > 0)
        reasons.push(`${mergesOrMutations} merge(s)/mutation(s) ran on the table`);
    const valid = partsChanged || (mergesOrMutations ?? 0) > 0 ? false : mergesOrMutations === null ? null : true;
    return { valid, label: valid === false ? 'not quiet' : valid === null ? 'quiet?' : 'quiet', reasons };
}
//# sourceMappingURL=validity.js.map