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
exports.isAlive = isAlive;
exports.processArgs = processArgs;
exports.processMentions = processMentions;
exports.stopProcess = stopProcess;
/**
 * `/proc` checks and stopping a server safely. A pid is only signalled while `/proc/<pid>/cmdline`
 * names the cell's `dataDir`, so a recycled pid that now belongs to another program is never killed.
 * Linux only.
 */
const fs = __importStar(require("node:fs"));
const path = __importStar(require("node:path"));
const poll_1 = require("../../lib/poll");
const cell_dir_1 = require("./cell-dir");
/**
 * Whether a process exists and is not a zombie.
 * @param pid process id (≤ 0 → false)
 */
function isAlive(pid) {
    if (!Number.isInteger(pid) || pid <= 0)
        return false;
    try {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
        // Field 3 (after the parenthesised command name) is the state; Z = zombie, X = dead.
        const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
        return state !== 'Z' && state !== 'X';
    }
    catch {
        return false;
    }
}
/**
 * Arguments of a live process, from `/proc/<pid>/cmdline`.
 * @returns the argv array, or `undefined` when the process is gone (or is a zombie)
 */
function processArgs(pid) {
    if (!isAlive(pid))
        return undefined;
    try {
        const raw = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        if (raw.length === 0)
            return undefined;
        return raw.replace(/\0$/, '').split('\0');
    }
    catch {
        return undefined;
    }
}
/**
 * Whether the live process `pid` was started for `dataDir`: one of its arguments equals `dataDir`,
 * contains `<dataDir>/`, or ends with `=<dataDir>` (so `/x/cell` does not match `/x/cell2`).
 */
function processMentions(pid, dataDir) {
    const args = processArgs(pid);
    if (!args)
        return false;
    const d = path.resolve(dataDir);
    return args.some((a) => a === d || a.includes(`${d}/`) || a.endsWith(`=${d}`));
}
/** Wait until `pid` is gone or `timeoutMs` passed. @returns whether it is gone */
function waitForExit(pid, timeoutMs) {
    return (0, poll_1.pollWithin)(() => !isAlive(pid), { timeoutMs, intervalMs: 50, stopOn: () => true });
}
/**
 * Stop a server chbench started, then remove its directory. Idempotent: a process already gone, or
 * a directory already removed, is success.
 *
 * The pid is only signalled while `/proc/<pid>/cmdline` mentions `dataDir` ({@link processMentions});
 * a pid that now belongs to another program is left alone. Sequence: SIGTERM, wait up to `graceMs`,
 * SIGKILL, wait up to 10 s more.
 *
 * @param pid pid to stop; `undefined` → taken from the label or `server.pid` in `dataDir`
 * @param dataDir the cell's directory (removed recursively afterwards)
 * @param graceMs milliseconds between SIGTERM and SIGKILL (default 15000)
 * @param opts.keepDir stop the process but keep the directory
 * @throws Error when the process survives SIGKILL, or the directory cannot be removed
 */
async function stopProcess(pid, dataDir, graceMs = 15000, opts = {}) {
    const dir = path.resolve(dataDir);
    const candidates = new Set();
    if (pid !== undefined)
        candidates.add(pid);
    const lp = (0, cell_dir_1.readLabel)(dir)?.pid;
    if (lp !== undefined)
        candidates.add(lp);
    const pp = (0, cell_dir_1.readPidFile)(dir);
    if (pp !== undefined)
        candidates.add(pp);
    for (const p of candidates) {
        if (!processMentions(p, dir))
            continue;
        try {
            process.kill(p, 'SIGTERM');
        }
        catch {
            continue; // already gone
        }
        if (await waitForExit(p, graceMs))
            continue;
        if (processMentions(p, dir)) {
            try {
                process.kill(p, 'SIGKILL');
            }
            catch {
                /* gone meanwhile */
            }
        }
        if (!(await waitForExit(p, 10000)))
            throw new Error(`pid ${p} (${dir}) survived SIGKILL`);
    }
    if (!opts.keepDir) {
        fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
        // Remove the run's directory too when this was its last cell (ignore "not empty"/"gone").
        try {
            fs.rmdirSync(path.dirname(dir));
        }
        catch {
            /* not empty, or already gone */
        }
    }
}
//# sourceMappingURL=proc.js.map