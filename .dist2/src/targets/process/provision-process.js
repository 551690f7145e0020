"use strict";
var __createBinding = (this && this.__createBinding) || (Object.create ? (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    var desc = Object.getOwnPropertyDescriptor(m, k);
    if (!desc || ("get" in desc ? !m.__esModule : desc.writable || desc.configurable)) {
      desc = { enumerable: true, get: function() { return m[k]; } };
    }
    Object.defineProperty(o, k2, desc);
}) : (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    o[k2] = m[k];
}));
var __setModuleDefault = (this && this.__setModuleDefault) || (Object.create ? (function(o, v) {
    Object.defineProperty(o, "default", { enumerable: true, value: v });
}) : function(o, v) {
    o["default"] = v;
});
var __importStar = (this && this.__importStar) || (function () {
    var ownKeys = function(o) {
        ownKeys = Object.getOwnPropertyNames || function (o) {
            var ar = [];
            for (var k in o) if (Object.prototype.hasOwnProperty.call(o, k)) ar[ar.length] = k;
            return ar;
        };
        return ownKeys(o);
    };
    return function (mod) {
        if (mod && mod.__esModule) return mod;
        var result = {};
        if (mod != null) for (var k = ownKeys(mod), i = 0; i < k.length; i++) if (k[i] !== "default") __createBinding(result, mod, k[i]);
        __setModuleDefault(result, mod);
        return result;
    };
})();
Object.defineProperty(exports, "__esModule", { value: true });
exports.provisionProcess = provisionProcess;
/**
 * The one provisioning skeleton of every target whose server is a process chbench starts on the
 * worker's host (embedded, local):
 *
 *   lock the cell → record the owner → adopt a live server of an earlier attempt (check its version)
 *   → stop a stale one (keep its data) → spawn → wait for `/ping` → read and check the version →
 *   write the label → handle.
 *
 * A target supplies only what differs ({@link ProcessServer}): how to spawn its server in the cell
 * directory and how to read what it runs. The version rule is `versionMatchesLabel`
 * (`src/schema/version.ts`), the same one the provision activity applies to every target.
 */
const path = __importStar(require("node:path"));
const common_1 = require("@temporalio/common");
const failures_1 = require("../../schema/failures");
const version_1 = require("../../schema/version");
const cell_dir_1 = require("./cell-dir");
const adopt_1 = require("./adopt");
const cell_lock_1 = require("./cell-lock");
const ping_1 = require("./ping");
const proc_1 = require("./proc");
/**
 * Provision (or adopt) the process server of one cell.
 *
 * Idempotent: a live server an earlier attempt started for this cell that answers `/ping` is adopted
 * (nothing is started); a process left half-started is stopped first, its directory kept and reused.
 * Concurrent attempts for the same cell are serialised by `<dataDir>/provision.lock`.
 *
 * @returns the handle `{kind, url, database: 'default', username: 'default', pid, dataDir, runId, cellKey, provisionedBy}`
 * @throws ApplicationFailure `VersionMismatch` (non-retryable) `<who> is ClickHouse <actual>, but the
 *   cell asks for version <label>` when the server runs another version (a fresh server is then
 *   stopped and its directory removed: the same binary answers the same on every attempt); the start
 *   failure (log tails included) otherwise, the directory kept for inspection
 */
async function provisionProcess(server, req) {
    const dataDir = (0, cell_dir_1.cellDataDir)(req.workDir, req.runId, req.cellKey);
    return (0, cell_lock_1.withCellLock)(dataDir, () => provisionLocked(server, req, dataDir));
}
/** The non-retryable `VersionMismatch` when `actual` (the server's `version()`) does not match the cell's `label`. */
function versionError(server, actual, label) {
    return (0, version_1.versionMatchesLabel)(actual, label)
        ? undefined
        : common_1.ApplicationFailure.create({
            type: failures_1.FAILURE.VersionMismatch,
            nonRetryable: true,
            message: `${server.who} is ClickHouse ${actual}, but the cell asks for version ${label}; label the binary with the version it runs, or point the label at a binary of that version`,
            details: [{ actual, label }],
        });
}
async function provisionLocked(server, req, dataDir) {
    (0, cell_dir_1.recordOwner)(dataDir, req.owner);
    const adopted = await (0, adopt_1.tryAdopt)(dataDir, { runId: req.runId, cellKey: req.cellKey, kind: server.kind });
    if (adopted) {
        const wrong = versionError(server, (await server.readFacts(adopted.url)).version, req.version);
        if (wrong)
            throw wrong;
        return (0, adopt_1.handleFromLabel)(adopted);
    }
    // Something half-started by an earlier attempt (or hung): stop it, keep the data.
    const stale = (0, adopt_1.findRunningServer)(dataDir);
    if (stale)
        await (0, proc_1.stopProcess)(stale.pid, dataDir, server.stopGraceMs, { keepDir: true });
    for (let attempt = 1;; attempt++) {
        const spawned = await server.spawn(dataDir);
        let wrongVersion = false;
        try {
            await (0, ping_1.waitForPing)(spawned.url, server.startTimeoutMs, { pid: spawned.pid, logFiles: spawned.logFiles });
            const facts = await server.readFacts(spawned.url);
            const wrong = versionError(server, facts.version, req.version);
            if (wrong) {
                wrongVersion = true;
                throw wrong;
            }
            if ((facts.pid !== undefined && facts.pid !== spawned.pid) ||
                (facts.dataDir !== undefined && path.resolve(facts.dataDir) !== dataDir))
                throw new Error(`${server.kind} server at ${spawned.url} reports pid ${facts.pid} / ${facts.dataDir}, expected pid ${spawned.pid} / ${dataDir}`);
            const label = {
                runId: req.runId,
                cellKey: req.cellKey,
                kind: server.kind,
                pid: spawned.pid,
                ports: spawned.ports,
                url: spawned.url,
                dataDir,
                startedAt: new Date().toISOString(),
                provisionedBy: server.describe(spawned, facts, dataDir),
                ...(req.owner ? { owner: req.owner } : {}),
            };
            (0, cell_dir_1.writeLabel)(label);
            return (0, adopt_1.handleFromLabel)(label);
        }
        catch (e) {
            // A wrong version will not get better on retry: remove everything. Otherwise keep the
            // directory (logs, and data of an earlier attempt) for the retry and for inspection.
            await (0, proc_1.stopProcess)(spawned.pid, dataDir, server.failedStartGraceMs, { keepDir: !wrongVersion }).catch(() => undefined);
            if (!wrongVersion && attempt < (server.startAttempts ?? 1) && server.retryStart?.(spawned, e))
                continue;
            throw e;
        }
    }
}
//# sourceMappingURL=provision-process.js.map