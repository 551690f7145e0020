"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.PROBED_CACHE_DROPS = void 0;
exports.probeServer = probeServer;
exports.settingLevels = settingLevels;
const client_1 = require("./client");
async function names(client, sql) {
    try {
        return (await (0, client_1.queryRows)(client, sql)).map((r) => r.name).sort();
    }
    catch {
        return null;
    }
}
/**
 * Every server cache that can serve a repeated query without reading its data from storage, as the
 * statement that empties it, oldest first: marks, uncompressed blocks, skip-index marks and blocks,
 * mmapped files, compiled expressions, query results, query conditions (which granules matched),
 * userspace page cache, primary index, skipping index. Newer versions have more; the probe tries
 * each once and records which the server accepts, and the cold cycle (`src/measure/cold-cycle.ts`)
 * issues only those before every cold run.
 */
exports.PROBED_CACHE_DROPS = [
    'SYSTEM DROP MARK CACHE',
    'SYSTEM DROP UNCOMPRESSED CACHE',
    'SYSTEM DROP INDEX MARK CACHE',
    'SYSTEM DROP INDEX UNCOMPRESSED CACHE',
    'SYSTEM DROP MMAP CACHE',
    'SYSTEM DROP COMPILED EXPRESSION CACHE',
    'SYSTEM DROP QUERY CACHE',
    'SYSTEM DROP QUERY CONDITION CACHE',
    'SYSTEM DROP PAGE CACHE',
    'SYSTEM DROP PRIMARY INDEX CACHE',
    'SYSTEM DROP SKIPPING INDEX CACHE',
];
/**
 * Probe a server. It runs one logged `SELECT 1` and tries each cache drop once (on an `external`
 * server shared with others this empties their caches too, as every cold run would).
 */
async function probeServer(client, version) {
    // Obsolete entries (server settings kept in system.settings for compatibility) have no effect per query.
    const query_settings = (await names(client, 'SELECT name FROM system.settings WHERE NOT is_obsolete')) ??
        (await names(client, 'SELECT name FROM system.settings'));
    const merge_tree_settings = await names(client, 'SELECT name FROM system.merge_tree_settings');
    const server_settings = await names(client, 'SELECT name FROM system.server_settings');
    const cache_drops = [];
    for (const c of exports.PROBED_CACHE_DROPS)
        cache_drops.push(await (0, client_1.tryCommand)(client, c));
    await (0, client_1.tryCommand)(client, 'SELECT 1', { log_queries: 1 });
    await (0, client_1.tryCommand)(client, 'SYSTEM FLUSH LOGS');
    const tables = (await names(client, "SELECT name FROM system.tables WHERE database = 'system'")) ?? [];
    const qlCols = tables.includes('query_log')
        ? ((await names(client, "SELECT name FROM system.columns WHERE database = 'system' AND table = 'query_log'")) ?? [])
        : [];
    const profile_events = !tables.includes('query_log')
        ? null
        : qlCols.includes('ProfileEvents.Names')
            ? 'arrays'
            : qlCols.includes('ProfileEvents')
                ? 'map'
                : 'none';
    const evCol = ((await names(client, "SELECT name FROM system.columns WHERE database = 'system' AND table = 'events'")) ?? []).includes('name')
        ? 'name'
        : 'event';
    let events = await names(client, `SELECT ${evCol} AS name FROM system.events SETTINGS system_events_show_zero_values = 1`);
    const events_complete = events !== null;
    if (!events)
        events = await names(client, `SELECT ${evCol} AS name FROM system.events`);
    const data_types = await names(client, 'SELECT name FROM system.data_type_families');
    const table_functions = await names(client, 'SELECT name FROM system.table_functions');
    // Column CODEC clauses: a trial on a temporary table (nothing is written). The name is unique: an
    // engine shared by several cells (an external target) may keep temporary tables across requests.
    const trialTable = `chbench_codec_probe_${Date.now()}_${Math.floor(Math.random() * 1e9)}`;
    const codecTrial = await (0, client_1.tryCommand)(client, `CREATE TEMPORARY TABLE ${trialTable} (x UInt8 CODEC(ZSTD(1)))`);
    if (codecTrial.ok)
        await (0, client_1.tryCommand)(client, `DROP TEMPORARY TABLE IF EXISTS ${trialTable}`);
    return {
        version,
        data_types,
        table_functions,
        column_codecs: codecTrial.ok,
        column_codecs_trial: codecTrial,
        query_settings,
        merge_tree_settings,
        server_settings,
        cache_drops,
        query_log: { enabled: tables.includes('query_log'), profile_events },
        part_log: { enabled: tables.includes('part_log') },
        events,
        events_complete,
    };
}
/** Where a setting name belongs according to a probe. */
function settingLevels(p, name) {
    const out = [];
    if (p.query_settings?.includes(name))
        out.push('query');
    if (p.merge_tree_settings?.includes(name))
        out.push('merge_tree');
    if (p.server_settings?.includes(name))
        out.push('server');
    return out;
}
//# sourceMappingURL=probe.js.map