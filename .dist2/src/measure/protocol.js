"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.measureQueries = measureQueries;
const client_1 = require("../clickhouse/client");
const query_log_1 = require("../clickhouse/query-log");
const table_state_1 = require("../clickhouse/table-state");
const cold_cycle_1 = require("./cold-cycle");
const probe_1 = require("../clickhouse/probe");
const counters_1 = require("./counters");
const figures_1 = require("./figures");
const index_proof_1 = require("./index-proof");
const stats_1 = require("./stats");
const validity_1 = require("./validity");
/** The settings of every measured run (cold runs add direct I/O): spec, time limit, result caches off, JSON quoting, logging. */
async function runSettings(client, o) {
    return {
        ...(o.extraSettings ?? {}),
        max_execution_time: o.maxExecutionTimeS,
        ...(await (0, cold_cycle_1.resultCacheSettings)(client)),
        // 64-bit integers quoted in JSON on every version, so result hashes compare across versions.
        ...(o.knownSettings === undefined || o.knownSettings.includes('output_format_json_quote_64bit_integers')
            ? { output_format_json_quote_64bit_integers: 1 }
            : {}),
        ...(o.queryLog ? { log_queries: 1 } : {}),
    };
}
/** Settings an EXPLAIN of a measured query runs with: the runs' own, minus logging. */
function explainSettings(base) {
    const { log_queries: _l, ...rest } = base;
    return rest;
}
/** Merges running + unfinished mutations on a table (`system.merges`, `system.mutations`); null if unreadable. */
async function mergesOrMutations(client, table) {
    try {
        return (await (0, table_state_1.runningMerges)(client, table)) + (await (0, table_state_1.pendingMutations)(client, table));
    }
    catch {
        return null;
    }
}
/** The runs of one query in order: cold, warm-up, warm, each 1-based within its kind. */
function runPlan(o) {
    const kind = (k, count) => Array.from({ length: count }, (_, i) => [k, i + 1]);
    return [...kind('cold', o.coldRuns), ...kind('warmup', o.warmupRuns), ...kind('warm', o.warmRuns)];
}
/** Judge every cold run of a record from its counters and preparation (again once query_log counters are joined). */
function judgeColdRuns(samples) {
    for (const s of samples)
        if (s.kind === 'cold')
            s.validity.cold = (0, validity_1.judgeCold)(s.counters, s.cold_preparation?.os_page_cache ?? '', s.cold_preparation?.server_caches ?? []);
}
/**
 * Run the method on `queries` against `table`, one query after the other on one client. A query
 * whose run fails on the server gets an `error` (its later runs are not attempted) and the others
 * are still measured. Used by the `runQueries` activity, bench/ and tests.
 * @returns one record per query, with query_log rows, counters and statistics joined.
 * @throws whatever is not a query's own failure: a lost server, a cancellation, a network error.
 */
async function measureQueries(client, table, queries, o) {
    const records = [];
    const base = await runSettings(client, o);
    // EXPLAINs that prove something about the runs use the runs' own settings (computed once).
    const explainWith = explainSettings(base);
    // A summary is a headline only when it is complete: without a query log, request it (wait_end_of_query=1;
    // the embedded engine also reports its elapsed and rows read only then).
    const summaryComplete = !o.queryLog;
    const measuredOptions = { waitEndOfQuery: summaryComplete, onProgress: o.onProgress };
    for (const q of queries) {
        const samples = [];
        const examples = {};
        const partsBefore = (await (0, table_state_1.activeParts)(client, table)).names;
        let queryError;
        for (const [kind, n] of runPlan(o)) {
            o.onRun?.(q.id, kind, n);
            let prep;
            if (kind === 'cold')
                prep = await (0, cold_cycle_1.prepareColdRun)(client, base, {
                    drops: o.cacheDrops ?? probe_1.PROBED_CACHE_DROPS,
                    dropCaches: o.dropCaches !== false,
                    dropOsPageCache: o.dropOsPageCache,
                    serverOnThisHost: o.serverOnThisHost ?? false,
                    serverPod: o.serverPod,
                });
            const settings = prep?.settings ?? base;
            const before = (await (0, table_state_1.activeParts)(client, table)).names.join(',');
            const busyBefore = await mergesOrMutations(client, table);
            const eventsBefore = o.counters === 'system.events' ? await (0, counters_1.eventCounters)(client) : null;
            const queryId = `${o.queryIdPrefix}-${q.id}-${kind}${n}-a${o.attempt ?? 1}`;
            let r;
            // Worker wall clock around the statement (the sample's started_at/finished_at): the window the cloud metrics attribute.
            const startedAt = new Date().toISOString();
            try {
                const run = (0, client_1.runMeasured)(client, q.sql, queryId, settings, o.signal, measuredOptions);
                r = await (o.killOnCancel ? o.killOnCancel(queryId, run) : run);
            }
            catch (e) {
                // A server error in the query itself (also one that arrived after the response started) is a
                // failed run: recorded with the server's code and message; the other queries are still measured.
                const failure = (0, figures_1.queryFailure)(e, o.isTargetGone);
                if (!failure)
                    throw e;
                queryError = { ...failure, run: `${kind} ${n}`, query_id: queryId };
                break;
            }
            const finishedAt = new Date().toISOString();
            const eventsAfter = o.counters === 'system.events' ? await (0, counters_1.eventCounters)(client) : null;
            const after = (await (0, table_state_1.activeParts)(client, table)).names.join(',');
            const busyAfter = await mergesOrMutations(client, table);
            const busy = busyBefore === null || busyAfter === null ? null : Math.max(busyBefore, busyAfter);
            const f = (0, figures_1.runFigures)(r, o.summaryReadSource);
            if (!(r.result_sha256 in examples))
                examples[r.result_sha256] = JSON.stringify(r.first_rows).slice(0, 400);
            samples.push({
                kind,
                n,
                query_id: r.query_id,
                wall_ms: f.wall_ms,
                server_elapsed_ms: f.server_elapsed_ms,
                server_elapsed_source: f.server_elapsed_source,
                read_rows: f.read_rows,
                read_bytes: f.read_bytes,
                read_source: f.read_source,
                result_rows: f.result_rows,
                result_bytes: f.result_bytes,
                result_sha256: f.result_sha256,
                parts_changed: before !== after,
                merges_or_mutations: busy,
                counters: eventsBefore && eventsAfter ? (0, counters_1.counterDelta)(eventsBefore, eventsAfter, o.knownCounters) : null,
                counters_source: eventsBefore && eventsAfter
                    ? 'system.events difference (embedded engine runs one statement at a time)'
                    : null,
                validity: { quiet: (0, validity_1.judgeQuiet)(before !== after, busy) },
                settings,
                ...(f.http_summary ? { http_summary: f.http_summary } : {}),
                summary_complete: f.summary_complete,
                ...(f.output_statistics ? { output_statistics: f.output_statistics } : {}),
                ...(prep ? { cold_preparation: prep } : {}),
                started_at: startedAt,
                finished_at: finishedAt,
            });
        }
        // EXPLAIN after the measured runs: it loads marks (of skip indexes too) that would warm a cold run.
        let explain = null;
        let explainError;
        try {
            // Under exactly the settings of the warm runs, so what it proves holds for the measured runs.
            explain = await (0, index_proof_1.explainIndexes)(client, q.sql, explainWith);
        }
        catch (e) {
            explainError = e.message.split('\n')[0];
        }
        judgeColdRuns(samples);
        const record = {
            id: q.id,
            title: q.title,
            uses_index: q.usesIndex,
            deterministic: q.deterministic,
            sql: q.sql,
            ...(queryError ? { error: queryError } : {}),
            explain_indexes: explain,
            explain_settings: explainWith,
            ...(explainError ? { explain_error: explainError } : {}),
            samples,
            stats: (0, stats_1.stats)(samples),
            parts_before: partsBefore,
            parts_after: (await (0, table_state_1.activeParts)(client, table)).names,
            result_examples: examples,
        };
        records.push(record);
        o.finished?.push(record);
    }
    if (o.queryLog)
        await joinQueryLog(client, records, o);
    return records;
}
/**
 * Join each run's `system.query_log` row (fetched once for the step): the row becomes the run's
 * headline (./figures `applyQueryLog`), its ProfileEvents the run's counters when `counters` is
 * `query_log`; then cold runs are judged again and the statistics recomputed.
 */
async function joinQueryLog(client, records, o) {
    const log = await (0, query_log_1.fetchQueryLog)(client, records.flatMap((r) => r.samples.map((s) => s.query_id)));
    // A counter exists on this server if the probe listed it or any run of this step reported it.
    const seen = new Set([
        ...(o.knownCounters ?? []),
        ...[...log.values()].flatMap((r) => Object.keys((r.ProfileEvents ?? {}))),
    ]);
    for (const rec of records)
        for (const s of rec.samples) {
            const pe = (log.get(s.query_id)?.ProfileEvents ?? null);
            if (pe && o.counters === 'query_log') {
                s.counters = (0, counters_1.queryLogCounters)(pe, seen);
                s.counters_source = 'system.query_log ProfileEvents';
            }
        }
    for (const rec of records) {
        for (const s of rec.samples)
            (0, figures_1.applyQueryLog)(s, log.get(s.query_id) ?? null);
        judgeColdRuns(rec.samples);
        rec.stats = (0, stats_1.stats)(rec.samples);
    }
}
//# sourceMappingURL=protocol.js.map