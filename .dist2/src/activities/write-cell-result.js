"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.deltaUnavailable = deltaUnavailable;
exports.createWriteCellResult = createWriteCellResult;
/**
 * writeCellResult: assemble the cell's step files into one versioned record,
 * `results/<runId>/cells/<cellKey>/result.json` (schema `chbench.cell-result/v1`, the `CellResult` of
 * `src/schema/results.ts`), and beside it `samples.jsonl`, one flat sample per figure of each
 * measured run. Written before teardown, so measured results survive whatever teardown does.
 */
const node_path_1 = __importDefault(require("node:path"));
const node_fs_1 = require("node:fs");
const store_1 = require("../results/store");
const samples_1 = require("../results/samples");
const results_1 = require("../schema/results");
const grids_1 = require("../schema/grids");
const attempt_log_1 = require("./support/attempt-log");
const validity_1 = require("../measure/validity");
const activity_context_1 = require("../temporal/activity-context");
/**
 * Why a cell has no start→end counter difference, recorded at collection time so the report never
 * guesses: a restart, a cell that stopped before its end snapshot (`not collected (cancelled)`), or a
 * snapshot that is missing. Undefined when both snapshots exist and the server was not restarted.
 */
function deltaUnavailable(status, stoppedIn, restarted, start, end) {
    if (restarted)
        return 'the server was restarted during the cell; its counters started again from zero';
    if (start && end)
        return undefined;
    if (status !== 'succeeded')
        return `not collected (${status}${stoppedIn ? ` during ${stoppedIn}` : ''}, before the end-of-cell snapshot)`;
    return `not collected: no ${start ? 'end' : 'start'}-of-cell snapshot was written`;
}
/** Difference of two snapshots: key server events and host disk bytes; `null` where unknown. */
function metricsDelta(a, b) {
    if (!a || !b)
        return null;
    const events = {};
    for (const k of validity_1.CELL_COUNTERS)
        events[k] =
            a.server_events && b.server_events && k in b.server_events
                ? b.server_events[k] - (a.server_events[k] ?? 0)
                : null;
    let disks = null;
    if (a.host_disks && b.host_disks) {
        disks = {};
        for (const [d, v] of Object.entries(b.host_disks)) {
            const p = a.host_disks[d];
            if (p && (v.read_bytes - p.read_bytes || v.write_bytes - p.write_bytes))
                disks[d] = { read_bytes: v.read_bytes - p.read_bytes, write_bytes: v.write_bytes - p.write_bytes };
        }
    }
    return {
        from: a.taken_at,
        to: b.taken_at,
        server_events: events,
        server_events_source: b.server_events_source,
        host_disks: disks,
        host_source: b.host_source,
    };
}
/**
 * The grid records of a cell, in the order the grids run them (concurrency steps by client count,
 * insert points in spec order); undefined when the cell has no grids.
 */
function readGrids(dir, cell) {
    if (!cell.grids)
        return undefined;
    const read = (f) => (0, store_1.readJsonIfExists)(node_path_1.default.join(dir, 'grids', f));
    return {
        insert: (cell.grids.insert ? (0, grids_1.insertPoints)(cell.grids.insert) : []).flatMap((p) => {
            const r = read(`insert-${p.key}.json`);
            return r ? [r] : [];
        }),
        concurrency: (cell.grids.concurrency?.steps ?? []).flatMap((c) => {
            const r = read(`concurrency-c${c}.json`);
            return r ? [r] : [];
        }),
    };
}
/** Activity factory. */
function createWriteCellResult() {
    return {
        /**
         * Write `result.json` from the step files present in the cell directory, and `samples.jsonl`
         * (see `flatSamples`). Step files are read as written (not parsed): a record is never lost here
         * because one step file has an unexpected shape; readers of `result.json` parse it.
         * @returns a reference to it with the cell's status.
         */
        async writeCellResult(cell, outcome) {
            const dir = (0, store_1.cellDir)(cell.resultsDir, cell.runId, cell.cellKey);
            const read = (f) => (0, store_1.readJsonIfExists)(node_path_1.default.join(dir, f));
            const quiesce = {};
            if ((0, node_fs_1.existsSync)(dir))
                for (const f of (0, node_fs_1.readdirSync)(dir))
                    if (/^quiesce-.*\.json$/.test(f))
                        quiesce[f.slice(8, -5)] = read(f);
            const grids = readGrids(dir, cell);
            const start = read('metrics-start.json');
            const end = read('metrics-end.json');
            const provision = read('provision.json');
            const restarted = (outcome.targetRestarts ?? []).length > 0;
            const unavailable = deltaUnavailable(outcome.status, outcome.stoppedIn, restarted, !!start, !!end);
            const workflowId = (0, activity_context_1.activityIdentity)()?.workflowId;
            // Every attempt of this execution of the cell, as its activities logged them.
            const attemptLog = (0, attempt_log_1.attemptsByPhase)((0, attempt_log_1.readAttemptLog)(dir, (0, activity_context_1.activityIdentity)()?.runId));
            // A step that failed is counted by the workflow as at least one attempt; the log knows how many ran.
            const attempts = { ...(outcome.attempts ?? {}) };
            for (const [phase, recs] of Object.entries(attemptLog))
                attempts[phase] = Math.max(attempts[phase] ?? 0, ...recs.map((r) => r.attempt));
            const result = {
                schema: results_1.CELL_RESULT_SCHEMA,
                runId: cell.runId,
                cellKey: cell.cellKey,
                matrix: { version: cell.version, codec: cell.codec },
                workload: cell.workload,
                scale: cell.scale,
                protocol: cell.protocol,
                target_kind: cell.target.kind,
                status: outcome.status,
                ...(outcome.error ? { error: outcome.error } : {}),
                ...(outcome.skipReason ? { skip_reason: outcome.skipReason } : {}),
                attempts,
                ...(Object.keys(attemptLog).length ? { attempt_log: attemptLog } : {}),
                target_restarts: outcome.targetRestarts ?? [],
                written_at: new Date().toISOString(),
                ...(outcome.startedAt ? { started_at: outcome.startedAt } : {}),
                ...(provision?.host ? { host: provision.host } : {}),
                ...(outcome.hostLosses?.length ? { host_losses: outcome.hostLosses } : {}),
                ...(start?.host_activity || end?.host_activity
                    ? {
                        host_activity: {
                            ...(start?.host_activity ? { start: start.host_activity } : {}),
                            ...(end?.host_activity ? { end: end.host_activity } : {}),
                        },
                    }
                    : {}),
                provision: provision ?? null,
                schema_ddl: read('schema.json') ?? null,
                load: read('load.json') ?? null,
                quiesce,
                storage: read('storage.json') ?? null,
                queries_baseline: read('queries-baseline.json') ?? null,
                index: read('index.json') ?? null,
                queries_index: read('queries-index.json') ?? null,
                // Server counters restart with the server: after a restart the start→end difference means nothing.
                metrics_delta: restarted ? null : metricsDelta(start, end),
                ...(unavailable ? { metrics_delta_unavailable: unavailable } : {}),
                ...(outcome.status !== 'succeeded' && outcome.stoppedIn ? { stopped_in: outcome.stoppedIn } : {}),
                skip_index_planned: cell.skipIndex,
                ...(workflowId ? { workflow_id: workflowId } : {}),
                ...(start?.data_disk ? { data_disk: start.data_disk } : {}),
                ...(grids ? { grids } : {}),
            };
            const file = node_path_1.default.join(dir, 'result.json');
            (0, store_1.writeJsonAtomic)(file, result);
            const run = (0, store_1.readJsonIfExists)(node_path_1.default.join((0, store_1.runDir)(cell.resultsDir, cell.runId), 'run.json'));
            (0, store_1.writeTextAtomic)(node_path_1.default.join(dir, 'samples.jsonl'), (0, samples_1.toJsonLines)((0, samples_1.flatSamples)(result, { chbench: run?.chbench ?? null })));
            return {
                cellKey: cell.cellKey,
                status: outcome.status,
                resultFile: file,
                ...(outcome.error ? { error: outcome.error } : {}),
                ...(outcome.hostLosses?.length ? { hostLosses: outcome.hostLosses } : {}),
                ...(outcome.hostLost ? { hostLost: true } : {}),
            };
        },
    };
}
//# sourceMappingURL=write-cell-result.js.map