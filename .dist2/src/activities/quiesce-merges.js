"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.createQuiesceMerges = createQuiesceMerges;
/**
 * quiesceMerges: wait until no merge or mutation runs on the table and the set of active parts has
 * stayed the same for `protocol.quiesce.stableForMs`. Heartbeats while waiting; bounded by
 * `protocol.quiesce.timeoutMs` with a clear error.
 */
const node_path_1 = __importDefault(require("node:path"));
const node_perf_hooks_1 = require("node:perf_hooks");
const common_1 = require("@temporalio/common");
const failures_1 = require("../schema/failures");
const client_1 = require("../clickhouse/client");
const store_1 = require("../results/store");
const workload_1 = require("../lib/workload");
const table_state_1 = require("../clickhouse/table-state");
const activity_context_1 = require("../temporal/activity-context");
const poll_1 = require("../lib/poll");
/** Activity factory. */
function createQuiesceMerges() {
    return {
        /**
         * Wait for a quiet table. Writes `quiesce-<label>.json`.
         * @returns the active part count measured against and how long it waited (ms).
         * @throws ApplicationFailure `QuiesceTimeout` (non-retryable) when the table is not quiet in time.
         */
        async quiesceMerges({ cell, target }, label = 'after-load') {
            const m = (0, workload_1.loadWorkload)(cell.workload);
            const q = cell.protocol.quiesce;
            const client = (0, client_1.connect)(target);
            const t0 = node_perf_hooks_1.performance.now();
            // Worker wall clock of the wait (quiesce-<label>.json started_at/finished_at: a step window for the cloud metrics).
            const startedAt = new Date().toISOString();
            try {
                let last = '';
                let stableSince = node_perf_hooks_1.performance.now();
                let seen = { parts: 0, merges: 0, mutations: 0 };
                return await (0, poll_1.pollUntil)(async () => {
                    const [parts, merges, mutations] = [
                        await (0, table_state_1.activeParts)(client, m.table),
                        await (0, table_state_1.runningMerges)(client, m.table),
                        await (0, table_state_1.pendingMutations)(client, m.table),
                    ];
                    seen = { parts: parts.names.length, merges, mutations };
                    const key = parts.names.join(',');
                    const now = node_perf_hooks_1.performance.now();
                    if (key !== last || merges > 0 || mutations > 0) {
                        last = key;
                        stableSince = now;
                    }
                    const stableMs = now - stableSince;
                    (0, activity_context_1.heartbeat)({
                        step: 'quiesce',
                        active_parts: parts.names.length,
                        merges,
                        mutations,
                        stable_ms: Math.round(stableMs),
                    });
                    if (stableMs < q.stableForMs)
                        return undefined;
                    const out = { active_parts: parts.names.length, waited_ms: now - t0 };
                    (0, store_1.writeJsonAtomic)(node_path_1.default.join((0, store_1.cellDir)(cell.resultsDir, cell.runId, cell.cellKey), `quiesce-${label}.json`), {
                        ...out,
                        part_names: parts.names,
                        stable_for_ms: q.stableForMs,
                        started_at: startedAt,
                        finished_at: new Date().toISOString(),
                    });
                    return out;
                }, {
                    timeoutMs: q.timeoutMs,
                    intervalMs: q.pollMs,
                    sleep: activity_context_1.sleep,
                    stopOn: () => true,
                    onTimeout: () => common_1.ApplicationFailure.create({
                        type: failures_1.FAILURE.QuiesceTimeout,
                        nonRetryable: true,
                        message: `quiesce: table ${m.table} not quiet after ${q.timeoutMs} ms (active parts ${seen.parts}, merges running ${seen.merges}, unfinished mutations ${seen.mutations}); raise protocol.quiesce.timeoutMs or check system.merges`,
                    }),
                });
            }
            finally {
                await client.close();
            }
        },
    };
}
//# sourceMappingURL=quiesce-merges.js.map