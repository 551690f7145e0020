"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.archiveServerLog = archiveServerLog;
exports.createTeardown = createTeardown;
/**
 * teardown: archive the server's statement log for this cell, then stop/drop what provision created
 * (process + data directory, or the cell's database). Idempotent; runs in a non-cancellable scope of
 * the cell workflow, after results were written.
 *
 * The archive — `system.query_log` rows of the cell's query ids where the server keeps it, else the
 * embedded engine's `statements.jsonl` — is written to the cell's results as `server-log.jsonl`
 * before the data directory goes away: it shows every statement chbench ran, with start and end.
 */
const node_path_1 = __importDefault(require("node:path"));
const targets_1 = require("../targets");
const store_1 = require("../results/store");
const statement_watch_1 = require("../clickhouse/statement-watch");
const cell_1 = require("../schema/cell");
/**
 * Copy the statements of a cell into `file` (JSON lines: query_id, started/finished ms, ok): the
 * target's `archiveStatements` verb (its own statement log, or `system.query_log`).
 * @returns the source used, or why there is none.
 */
function archiveServerLog(target, prefix, file) {
    return (0, targets_1.targetOf)(target).archiveStatements(target, prefix, file);
}
/** Activity factory. */
function createTeardown(deps) {
    return {
        /**
         * Tear down a cell whose provision never returned a handle (it failed, or the cell was cancelled
         * while provisioning): removes whatever the attempts created. Records `teardown.json`.
         */
        async teardownUnprovisioned(cell) {
            // Stopping processes / removing directories is not a statement: heartbeat while it runs (bounded by stop deadlines).
            const what = await (0, statement_watch_1.keepAliveDuring)('teardown', (0, targets_1.teardownCellResources)(cell.target, {
                runId: cell.runId,
                cellKey: cell.cellKey,
                version: cell.version,
                workDir: node_path_1.default.resolve(deps.workDir),
            }));
            (0, store_1.writeJsonAtomic)(node_path_1.default.join((0, store_1.cellDir)(cell.resultsDir, cell.runId, cell.cellKey), 'teardown.json'), {
                torn_down_at: new Date().toISOString(),
                kind: cell.target.kind,
                what,
                server_log_archive: 'not available: the cell was never provisioned',
            });
            return { torn_down: true };
        },
        /** Archive the statement log, tear the target down; records `teardown.json`. */
        async teardown({ cell, target }) {
            const dir = (0, store_1.cellDir)(cell.resultsDir, cell.runId, cell.cellKey);
            const prefix = (0, cell_1.queryIdPrefix)(cell.runId, cell.cellKey, '').replace(/-$/, '');
            const archive = await archiveServerLog(target, prefix, node_path_1.default.join(dir, 'server-log.jsonl')).catch((e) => `not available: ${e.message}`);
            await (0, statement_watch_1.keepAliveDuring)('teardown', (0, targets_1.teardownTarget)(target));
            (0, store_1.writeJsonAtomic)(node_path_1.default.join(dir, 'teardown.json'), {
                torn_down_at: new Date().toISOString(),
                kind: target.kind,
                what: (0, targets_1.targetOf)(target).describeTeardown(target),
                server_log_archive: archive,
            });
            return { torn_down: true };
        },
    };
}
//# sourceMappingURL=teardown.js.map