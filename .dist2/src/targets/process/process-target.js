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
exports.teardownProcess = teardownProcess;
exports.teardownProcessCell = teardownProcessCell;
exports.describeProcessTeardown = describeProcessTeardown;
/** Verbs every process target (embedded, local) shares: stopping its server and removing its directory. */
const path = __importStar(require("node:path"));
const cell_dir_1 = require("./cell-dir");
const fs_1 = require("../../lib/fs");
const proc_1 = require("./proc");
/** Milliseconds between SIGTERM and SIGKILL when a cell is torn down without a handle. */
const CELL_STOP_GRACE_MS = 15_000;
/**
 * Stop the handle's server and remove its directory (data included). Idempotent. Only a pid whose
 * command line names the handle's `dataDir` is signalled.
 * @param graceMs milliseconds between SIGTERM and SIGKILL
 * @throws Error when the handle has no dataDir, or the process survives SIGKILL
 */
async function teardownProcess(handle, graceMs) {
    if (!handle.dataDir)
        throw new Error(`teardown of ${handle.kind} target: handle has no dataDir`);
    await (0, proc_1.stopProcess)(handle.pid, handle.dataDir, graceMs);
}
/**
 * Stop every process and remove every directory under `<workDir>/<run>/<cell>` (a cell whose
 * provision never returned a handle). Idempotent; nothing there is fine.
 * @returns `stopped and removed <dirs>` or `nothing to remove`
 */
async function teardownProcessCell(req) {
    const dirs = (0, cell_dir_1.listCellDirs)(req.workDir, req.runId).filter((d) => path.basename(d) === (0, fs_1.sanitizePathSegment)(req.cellKey));
    for (const d of dirs)
        await (0, proc_1.stopProcess)(undefined, d, CELL_STOP_GRACE_MS);
    return dirs.length ? `stopped and removed ${dirs.join(', ')}` : 'nothing to remove';
}
/** `stopped pid <pid>, removed <dataDir>`. */
function describeProcessTeardown(handle) {
    return `stopped pid ${handle.pid}, removed ${handle.dataDir}`;
}
//# sourceMappingURL=process-target.js.map