"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.cellMeasureOptions = cellMeasureOptions;
/**
 * The measurement options of a cell's query runs, built once from the cell's inputs (protocol, the
 * capability probe in `probe.json`, the spec's settings as checked at provisioning, the target's
 * capabilities) and the activity's context (attempt, cancellation, heartbeats). Used by the query
 * step (`runQueries`) and by the confirming re-run (`runInterleaved`), so both measure a run the same way.
 */
const node_path_1 = __importDefault(require("node:path"));
const cold_cycle_1 = require("../../measure/cold-cycle");
const store_1 = require("../../results/store");
const activity_context_1 = require("../../temporal/activity-context");
const attempts_1 = require("./attempts");
const targets_1 = require("../../targets");
const provision_1 = require("../provision");
/**
 * Measurement options for the cell of `si`.
 * @param queryLog the server keeps `system.query_log` (the provision result's `server.query_log`).
 * @param queryIdPrefix prefix of every run's query_id (`queryIdPrefix(run, cell, phase)`).
 * @param step the step name heartbeats carry (e.g. `queries-baseline`).
 * @returns the options and the probe read from the cell's `probe.json` (undefined when missing).
 */
function cellMeasureOptions({ cell, target }, queryLog, queryIdPrefix, step) {
    const caps = (0, targets_1.capabilitiesOf)(target);
    const probe = (0, store_1.readJsonIfExists)(node_path_1.default.join((0, store_1.cellDir)(cell.resultsDir, cell.runId, cell.cellKey), 'probe.json'));
    const options = {
        coldRuns: cell.protocol.coldRuns,
        warmupRuns: cell.protocol.warmupRuns,
        warmRuns: cell.protocol.warmRuns,
        dropOsPageCache: cell.protocol.dropOsPageCache,
        maxExecutionTimeS: cell.protocol.maxExecutionTimeS,
        queryLog,
        counters: queryLog ? 'query_log' : caps.countersWithoutQueryLog,
        serverOnThisHost: caps.onWorkerHost,
        serverPod: (0, cold_cycle_1.serverPodOf)(target, caps),
        summaryReadSource: caps.summaryReadSource,
        extraSettings: (0, provision_1.readCellSettings)(cell).runs,
        cacheDrops: (0, cold_cycle_1.coldCacheDrops)(probe),
        knownCounters: probe?.events_complete ? (probe.events ?? undefined) : undefined,
        knownSettings: probe?.query_settings ?? undefined,
        queryIdPrefix,
        attempt: (0, activity_context_1.attempt)(),
        signal: (0, activity_context_1.cancellationSignal)(),
        killOnCancel: (queryId, run) => (0, attempts_1.killOnCancel)(target, queryId, run),
        isTargetGone: attempts_1.isTargetGone,
        onRun: (q, kind, n) => (0, activity_context_1.heartbeat)({ step, query: q, run: `${kind} ${n}` }),
        onProgress: (p) => (0, activity_context_1.heartbeat)({ result_rows: p.result_rows, result_bytes: p.result_bytes }),
    };
    return { options, probe };
}
//# sourceMappingURL=measure-options.js.map