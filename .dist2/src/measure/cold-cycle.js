"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.RESULT_CACHE_SETTINGS = exports.COLD_RUN_SETTINGS = void 0;
exports.resultCacheSettings = resultCacheSettings;
exports.coldCacheDrops = coldCacheDrops;
exports.dropOsPageCache = dropOsPageCache;
exports.serverPodOf = serverPodOf;
exports.podPageCacheOutcome = podPageCacheOutcome;
exports.osPageCacheStep = osPageCacheStep;
exports.prepareColdRun = prepareColdRun;
exports.coldDefinition = coldDefinition;
/**
 * The cold cycle: what chbench does before every cold run so that the run reads its data from
 * storage, and the text that says afterwards what "cold" really meant.
 *
 * Before each cold run: issue every cache drop the server's capability probe accepted
 * ({@link coldCacheDrops}; each outcome is recorded), drop the OS page cache when the protocol asks
 * for it and the server runs on the worker's host ({@link osPageCacheStep}), then run the query with
 * {@link COLD_RUN_SETTINGS} (direct I/O requested) on top of the runs' settings. Every measured run
 * (cold and warm) also turns off the per-query result caches ({@link resultCacheSettings}), so a warm
 * run measures reading, not a cache hit. Whether a cold run was really cold is judged afterwards from
 * its counters (`judgeCold` in ./validity).
 */
const promises_1 = require("node:fs/promises");
const node_child_process_1 = require("node:child_process");
const node_util_1 = require("node:util");
const client_1 = require("../clickhouse/client");
const probe_1 = require("../clickhouse/probe");
const sql_1 = require("../lib/sql");
const execFileAsync = (0, node_util_1.promisify)(node_child_process_1.execFile);
/** Settings a cold run adds to the runs' settings: ask the server to read table files with direct I/O (bypassing the OS page cache). */
exports.COLD_RUN_SETTINGS = { min_bytes_to_use_direct_io: 1 };
/**
 * Query settings that let a repeated query skip work because an earlier run cached something (a
 * result, or which granules matched a filter). chbench turns them off for every measured run where
 * the version has them (checked in `system.settings`), so warm runs measure reading, not a cache hit.
 */
exports.RESULT_CACHE_SETTINGS = ['use_query_cache', 'use_query_condition_cache'];
/** Which of {@link RESULT_CACHE_SETTINGS} exist on the server (`system.settings`), each set to 0. */
async function resultCacheSettings(client) {
    const rows = await (0, client_1.queryRows)(client, `SELECT name FROM system.settings WHERE name IN (${exports.RESULT_CACHE_SETTINGS.map(sql_1.sqlString).join(', ')})`);
    return Object.fromEntries(rows.map((r) => [r.name, 0]));
}
/**
 * The cache drops to issue before each cold run: those the cell's capability probe saw the server
 * accept, or every known one ({@link PROBED_CACHE_DROPS}) when there is no probe. Pure.
 */
function coldCacheDrops(probe) {
    return probe ? probe.cache_drops.filter((c) => c.ok).map((c) => c.sql) : probe_1.PROBED_CACHE_DROPS;
}
/**
 * Try to drop the OS page cache on this host (`sync`, then `1` into `/proc/sys/vm/drop_caches`,
 * which needs root). Returns `dropped` or `not dropped: <errno or message>`; never throws. `sync`
 * runs as a child process without blocking the event loop (on a slow volume with many dirty pages
 * it can take longer than the heartbeat timeout), so heartbeats continue meanwhile.
 */
async function dropOsPageCache() {
    try {
        await execFileAsync('sync');
        await (0, promises_1.writeFile)('/proc/sys/vm/drop_caches', '1\n');
        return 'dropped';
    }
    catch (e) {
        return `not dropped: ${e.code ?? e.message}`;
    }
}
/**
 * The pod a cell's server runs in, when the OS page cache is not the worker's to drop: the target's
 * capabilities say `onWorkerHost: false` and the handle is a `kubernetes` one (its `kubernetes`
 * facts: namespace, pod, node). `undefined` otherwise (the generic wording applies). Pure.
 */
function serverPodOf(handle, caps) {
    const f = handle.kubernetes;
    if (caps.onWorkerHost || handle.kind !== 'kubernetes' || !f)
        return undefined;
    return { namespace: f.namespace, pod: f.pod, node: f.node };
}
/**
 * The OS page-cache outcome of a cold run whose server is a pod: this host's page cache is not the
 * pod's node's, so nothing is dropped there, and the line says exactly what the cold run did get —
 * the ClickHouse cache drops that succeeded (from `serverCaches`, the outcomes of this preparation),
 * those refused, and direct I/O requested ({@link COLD_RUN_SETTINGS}). Pure.
 * @example
 * podPageCacheOutcome({ namespace: 'bench-database', pod: 'chb-v26-7-lz4-1a2b3c4d', node: 'ip-10-0-1-10.ec2.internal' }, outcomes)
 * // 'not dropped: the server runs in pod bench-database/chb-v26-7-lz4-1a2b3c4d on node ip-10-0-1-10.ec2.internal,
 * //  not on the worker\'s host; ClickHouse caches were dropped (SYSTEM DROP MARK CACHE, …) and direct I/O was
 * //  requested (min_bytes_to_use_direct_io=1)'
 */
function podPageCacheOutcome(pod, serverCaches) {
    const ok = serverCaches.filter((c) => c.ok).map((c) => c.sql);
    const refused = serverCaches.filter((c) => !c.ok).map((c) => c.sql);
    const caches = ok.length ? `ClickHouse caches were dropped (${ok.join(', ')})` : 'no ClickHouse cache was dropped';
    return (`not dropped: the server runs in pod ${pod.namespace}/${pod.pod} on node ${pod.node ?? '(unknown)'}, not on the worker's host; ` +
        `${caches}${refused.length ? `, not dropped: ${refused.join(', ')} (refused)` : ''} ` +
        `and direct I/O was requested (min_bytes_to_use_direct_io=${exports.COLD_RUN_SETTINGS.min_bytes_to_use_direct_io})`);
}
/**
 * The OS page-cache step of a cold run. Dropping this host's page cache only affects a server on this
 * host (the target's `onWorkerHost` capability); it is skipped, with the reason as the outcome, when
 * the protocol turns it off or the server is elsewhere — for a server in a Kubernetes pod (`pod`)
 * the reason is {@link podPageCacheOutcome} of `serverCaches`, the cache drops just issued.
 */
async function osPageCacheStep(wanted, serverOnThisHost, pod, serverCaches = []) {
    if (!wanted)
        return 'not dropped: protocol.dropOsPageCache is false';
    if (!serverOnThisHost)
        return pod
            ? podPageCacheOutcome(pod, serverCaches)
            : 'not dropped: the server is not known to run on the worker host';
    return dropOsPageCache();
}
/**
 * Prepare one cold run: issue each of `drops` (outcomes recorded in order; none when `dropCaches`
 * is false, which only tests use), then the OS page-cache step (`serverPod`: where the server runs
 * when it is a Kubernetes pod, for the outcome's wording). Returns the preparation with the settings
 * the cold run is sent with (`base` + {@link COLD_RUN_SETTINGS}).
 */
async function prepareColdRun(client, base, o) {
    const server_caches = [];
    if (o.dropCaches)
        for (const c of o.drops)
            server_caches.push(await (0, client_1.tryCommand)(client, c));
    const os_page_cache = await osPageCacheStep(o.dropOsPageCache, o.serverOnThisHost, o.serverPod, server_caches);
    return { server_caches, os_page_cache, settings: { ...base, ...exports.COLD_RUN_SETTINGS } };
}
/** A refusal text that means the statement does not exist on this version (rather than a failure). */
const NOT_ON_THIS_VERSION = /Syntax|Unknown|not supported|UNKNOWN|Expected one of/i;
const cacheName = (sql) => sql.replace('SYSTEM DROP ', '').toLowerCase();
/**
 * "Cold" as it really was in these records, one line for `queries-<phase>.json`
 * (`cold_definition`): direct I/O requested; the caches whose drop succeeded before *every* cold
 * run; those not dropped, each either "not on this version" or "refused: <server's reason>" (from
 * the runs' outcomes, else the probe's, else "not issued"); and the OS page-cache outcome(s).
 * `no cold runs` when there were none. Pure.
 */
function coldDefinition(records, probe) {
    const preps = records.flatMap((r) => r.samples.filter((x) => x.cold_preparation).map((x) => x.cold_preparation));
    if (!preps.length)
        return 'no cold runs';
    const okAll = probe_1.PROBED_CACHE_DROPS.filter((c) => preps.every((p) => p.server_caches.find((o) => o.sql === c)?.ok));
    const failed = probe_1.PROBED_CACHE_DROPS.filter((c) => !okAll.includes(c)).map((c) => {
        // Not issued because the probe saw the server refuse it, or issued and refused now.
        const err = preps.map((p) => p.server_caches.find((o) => o.sql === c)).find((o) => o && !o.ok)?.error ??
            probe?.cache_drops.find((o) => o.sql === c && !o.ok)?.error ??
            'not issued';
        return `${cacheName(c)} (${NOT_ON_THIS_VERSION.test(err) ? 'not on this version' : `refused: ${err.slice(0, 80)}`})`;
    });
    const os = [...new Set(preps.map((p) => p.os_page_cache))].join(' / ');
    return [
        `direct I/O requested (min_bytes_to_use_direct_io=${exports.COLD_RUN_SETTINGS.min_bytes_to_use_direct_io})`,
        `caches dropped before each cold run: ${okAll.map(cacheName).join(', ') || 'none'}`,
        ...(failed.length ? [`not dropped: ${failed.join(', ')}`] : []),
        `OS page cache ${os}`,
    ].join('; ');
}
//# sourceMappingURL=cold-cycle.js.map