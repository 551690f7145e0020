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
exports.TargetLabel = exports.ProcessTargetKind = exports.LOG_FILE = exports.PID_FILE = exports.OWNER_FILE = exports.LABEL_FILE = void 0;
exports.cellDataDir = cellDataDir;
exports.writeLabel = writeLabel;
exports.readLabel = readLabel;
exports.writeOwnerFile = writeOwnerFile;
exports.readOwner = readOwner;
exports.recordOwner = recordOwner;
exports.readPidFile = readPidFile;
exports.listLabels = listLabels;
exports.listCellDirs = listCellDirs;
/**
 * A process target's cell directory and the files chbench keeps in it.
 *
 * Layout of a cell's directory (`dataDir` = `<workDir>/<runId sanitized>/<cellKey sanitized>`):
 *
 * | file                  | written by                 | content                                                        |
 * | --------------------- | -------------------------- | -------------------------------------------------------------- |
 * | `server.pid`          | `spawnDetached` (spawn.ts) | decimal pid of the server process, newline                     |
 * | `server.log`          | the server (stdout+stderr, appended)                                                        |
 * | `chbench-target.json` | {@link writeLabel}         | {@link TargetLabel}: lets a later `gc` find it by run id       |
 * | `chbench-owner.json`  | {@link writeOwnerFile}     | {@link TemporalOwner}, written before the server starts        |
 * | `provision.lock`      | `withCellLock` (cell-lock.ts) | holder pid and time, while a provision attempt runs         |
 */
const fs = __importStar(require("node:fs"));
const path = __importStar(require("node:path"));
const target_1 = require("../../schema/target");
Object.defineProperty(exports, "ProcessTargetKind", { enumerable: true, get: function () { return target_1.ProcessTargetKind; } });
Object.defineProperty(exports, "TargetLabel", { enumerable: true, get: function () { return target_1.TargetLabel; } });
const fs_1 = require("../../lib/fs");
/** Name of the label file in a cell's directory. */
exports.LABEL_FILE = 'chbench-target.json';
/** Name of the owner file in a cell's directory (written before the server is started). */
exports.OWNER_FILE = 'chbench-owner.json';
/** Name of the pid file in a cell's directory. */
exports.PID_FILE = 'server.pid';
/** Name of the file receiving the server's stdout and stderr in a cell's directory. */
exports.LOG_FILE = 'server.log';
/**
 * Directory of one cell's server: `<workDir>/<runId sanitized>/<cellKey sanitized>`.
 * @param workDir absolute root directory for per-cell directories
 * @throws Error when `workDir` is not absolute
 */
function cellDataDir(workDir, runId, cellKey) {
    if (!path.isAbsolute(workDir))
        throw new Error(`workDir must be an absolute path, got ${JSON.stringify(workDir)}`);
    return path.join(workDir, (0, fs_1.sanitizePathSegment)(runId), (0, fs_1.sanitizePathSegment)(cellKey));
}
/**
 * Write `<label.dataDir>/chbench-target.json` atomically (temp file + rename).
 * @throws Error on I/O failure
 */
function writeLabel(label) {
    (0, fs_1.writeJsonAtomic)(path.join(label.dataDir, exports.LABEL_FILE), label);
}
/**
 * Read a cell's label, parsed with the {@link TargetLabel} schema.
 * @returns the label, or `undefined` when the file is missing, not valid JSON or not a label
 */
function readLabel(dataDir) {
    try {
        const v = target_1.TargetLabel.safeParse(JSON.parse(fs.readFileSync(path.join(dataDir, exports.LABEL_FILE), 'utf8')));
        return v.success ? v.data : undefined;
    }
    catch {
        return undefined;
    }
}
/**
 * Record, before a server is started in `dataDir`, which workflow it belongs to (so a directory
 * whose provision failed before its label was written can still be attributed). Atomic.
 * @throws Error on I/O failure
 */
function writeOwnerFile(dataDir, owner) {
    (0, fs_1.writeJsonAtomic)(path.join(dataDir, exports.OWNER_FILE), owner);
}
/**
 * Where the workflow owning a cell's directory lives: the label's `owner`, else the owner file.
 * @returns undefined when neither records it (old label, or a directory made outside a workflow)
 */
function readOwner(dataDir) {
    const l = readLabel(dataDir);
    if (l?.owner)
        return l.owner;
    try {
        const v = target_1.TemporalOwner.safeParse(JSON.parse(fs.readFileSync(path.join(dataDir, exports.OWNER_FILE), 'utf8')));
        return v.success ? v.data : undefined;
    }
    catch {
        return undefined;
    }
}
/**
 * Record the owner of a cell's directory: the owner file always, and the label when there is one
 * whose owner differs (a server adopted by a later execution of the cell, e.g. after a resume).
 * No-op without an owner.
 */
function recordOwner(dataDir, owner) {
    if (!owner)
        return;
    writeOwnerFile(dataDir, owner);
    const l = readLabel(dataDir);
    if (l && JSON.stringify(l.owner) !== JSON.stringify(owner))
        writeLabel({ ...l, owner });
}
/**
 * Read `<dataDir>/server.pid`.
 * @returns the pid, or `undefined` when missing/unparsable
 */
function readPidFile(dataDir) {
    try {
        const n = Number.parseInt(fs.readFileSync(path.join(dataDir, exports.PID_FILE), 'utf8').trim(), 10);
        return Number.isInteger(n) && n > 0 ? n : undefined;
    }
    catch {
        return undefined;
    }
}
/**
 * Every label under `workDir` (`<workDir>/<run>/<cell>/chbench-target.json`), e.g. for a `gc`
 * command that removes what a run left behind. Unreadable entries are skipped.
 * @param workDir root passed as `ProvisionRequest.workDir`
 * @param runId when given, only labels of that run
 */
function listLabels(workDir, runId) {
    const out = [];
    let runs;
    try {
        runs = fs.readdirSync(workDir);
    }
    catch {
        return out;
    }
    for (const r of runs) {
        if (runId !== undefined && r !== (0, fs_1.sanitizePathSegment)(runId))
            continue;
        let cells;
        try {
            cells = fs.readdirSync(path.join(workDir, r));
        }
        catch {
            continue;
        }
        for (const c of cells) {
            const l = readLabel(path.join(workDir, r, c));
            if (l && (runId === undefined || l.runId === runId))
                out.push(l);
        }
    }
    return out;
}
/**
 * Every cell directory under `workDir` (`<workDir>/<run>/<cell>`), with or without a label: a
 * provision that failed before writing its label still leaves `server.pid` and logs there. A `gc`
 * removes a run with `stopProcess(undefined, dir)` on each (it finds the pid in the label or
 * `server.pid`, and only signals a process whose command line names the directory).
 * @param workDir root passed as `ProvisionRequest.workDir`
 * @param runId when given, only that run's cells
 * @returns absolute directory paths
 */
function listCellDirs(workDir, runId) {
    const out = [];
    let runs;
    try {
        runs = runId === undefined ? fs.readdirSync(workDir) : [(0, fs_1.sanitizePathSegment)(runId)];
    }
    catch {
        return out;
    }
    for (const r of runs) {
        try {
            for (const c of fs.readdirSync(path.join(workDir, r), { withFileTypes: true })) {
                if (c.isDirectory())
                    out.push(path.resolve(workDir, r, c.name));
            }
        }
        catch {
            /* not a directory, or gone */
        }
    }
    return out;
}
//# sourceMappingURL=cell-dir.js.map