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
exports.findRunningServer = findRunningServer;
exports.tryAdopt = tryAdopt;
exports.handleFromLabel = handleFromLabel;
/**
 * Adopting the server an earlier provision attempt started for a cell (a retry after a worker
 * crash, a lost activity result), so a cell never runs two servers.
 */
const path = __importStar(require("node:path"));
const cell_dir_1 = require("./cell-dir");
const proc_1 = require("./proc");
const ping_1 = require("./ping");
/**
 * The live server process an earlier attempt started for `dataDir`, if any: the pid from the label
 * (or from `server.pid` when the label was not written yet) that is alive and whose command line
 * mentions `dataDir`.
 */
function findRunningServer(dataDir) {
    const dir = path.resolve(dataDir);
    const label = (0, cell_dir_1.readLabel)(dir);
    if (label && (0, proc_1.processMentions)(label.pid, dir))
        return { pid: label.pid, label };
    const pp = (0, cell_dir_1.readPidFile)(dir);
    if (pp !== undefined && (0, proc_1.processMentions)(pp, dir))
        return { pid: pp };
    return undefined;
}
/**
 * Adopt the server an earlier attempt left for this cell, so a retried provision never starts a
 * second one. Returns the label when: the label file exists, matches `runId`/`cellKey`/`kind`, its pid
 * is alive and its command line mentions `dataDir`, and `/ping` answers within `pingTimeoutMs`.
 *
 * @returns the label to build the handle from, or `undefined` when there is nothing to adopt
 *   (the caller then stops any half-started process with {@link stopProcess} `keepDir` and starts anew)
 */
async function tryAdopt(dataDir, expect, pingTimeoutMs = 5000) {
    const running = findRunningServer(dataDir);
    const label = running?.label;
    if (!label || label.runId !== expect.runId || label.cellKey !== expect.cellKey || label.kind !== expect.kind)
        return undefined;
    try {
        await (0, ping_1.waitForPing)(label.url, pingTimeoutMs, { pid: label.pid });
    }
    catch {
        return undefined;
    }
    // The port could have been taken by someone else after our server died; re-check the pid.
    return (0, proc_1.processMentions)(label.pid, dataDir) ? label : undefined;
}
/** The {@link TargetHandle} of a server described by its label (database `default`, user `default`). */
function handleFromLabel(l) {
    return {
        kind: l.kind,
        url: l.url,
        database: 'default',
        username: 'default',
        pid: l.pid,
        dataDir: l.dataDir,
        runId: l.runId,
        cellKey: l.cellKey,
        provisionedBy: l.provisionedBy,
    };
}
//# sourceMappingURL=adopt.js.map