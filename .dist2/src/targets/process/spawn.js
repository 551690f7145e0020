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
exports.spawnDetached = spawnDetached;
exports.tailFile = tailFile;
exports.describeLogTail = describeLogTail;
/**
 * Starting a server process that outlives the worker: detached spawning with
 * the output appended to the cell's `server.log`, and log tails for error messages.
 */
const node_child_process_1 = require("node:child_process");
const fs = __importStar(require("node:fs"));
const path = __importStar(require("node:path"));
const cell_dir_1 = require("./cell-dir");
/**
 * Start a server process that outlives the caller: own session (`setsid`, via `detached`), not
 * referenced by the caller's event loop, stdin closed, stdout and stderr appended to
 * `<dataDir>/server.log`, cwd = `dataDir`. Writes `<dataDir>/server.pid` before returning.
 *
 * `NODE_TEST_CONTEXT` / `NODE_OPTIONS` of the caller are not passed on (a server started from a
 * `node --test` run must not behave as a test child).
 *
 * @param opts.command executable (absolute path, or a name found on PATH)
 * @param opts.args arguments; one of them must mention `dataDir` so the adopt/stop checks recognise it
 * @param opts.dataDir the cell's directory (created if missing)
 * @param opts.env extra environment variables
 * @throws Error when the process cannot be spawned (e.g. ENOENT) — with the log tail
 */
async function spawnDetached(opts) {
    fs.mkdirSync(opts.dataDir, { recursive: true });
    const logPath = path.join(opts.dataDir, cell_dir_1.LOG_FILE);
    const fd = fs.openSync(logPath, 'a');
    const env = { ...process.env, ...(opts.env ?? {}) };
    delete env.NODE_TEST_CONTEXT;
    delete env.NODE_OPTIONS;
    try {
        fs.writeSync(fd, `--- ${new Date().toISOString()} chbench starts: ${[opts.command, ...opts.args].join(' ')}\n`);
        const child = (0, node_child_process_1.spawn)(opts.command, opts.args, {
            cwd: opts.dataDir,
            detached: true,
            stdio: ['ignore', fd, fd],
            env,
        });
        const pid = await new Promise((resolve, reject) => {
            child.once('error', (e) => reject(new Error(`cannot start ${opts.command}: ${e.message}`)));
            child.once('spawn', () => resolve(child.pid));
        });
        child.unref();
        // Keep the exit status visible in the log when the caller is still alive to see it.
        child.once('exit', (code, signal) => {
            try {
                fs.appendFileSync(logPath, `--- ${new Date().toISOString()} pid ${pid} exited (code ${code}, signal ${signal})\n`);
            }
            catch {
                /* the directory may already be gone (teardown) */
            }
        });
        fs.writeFileSync(path.join(opts.dataDir, cell_dir_1.PID_FILE), `${pid}\n`);
        return { pid, logPath };
    }
    catch (e) {
        throw new Error(`${e.message}\n${describeLogTail(logPath)}`, { cause: e });
    }
    finally {
        fs.closeSync(fd);
    }
}
/**
 * Last bytes of a text file, for error messages.
 * @param file path (missing file → empty string)
 * @param maxBytes how much of the end to return (default 4000)
 */
function tailFile(file, maxBytes = 4000) {
    let fd;
    try {
        fd = fs.openSync(file, 'r');
        const size = fs.fstatSync(fd).size;
        const len = Math.min(size, maxBytes);
        const buf = Buffer.alloc(len);
        fs.readSync(fd, buf, 0, len, size - len);
        return buf.toString('utf8');
    }
    catch {
        return '';
    }
    finally {
        if (fd !== undefined)
            fs.closeSync(fd);
    }
}
/** `tail of <file>:\n<text>` for each file that has content, or a note that none has. */
function describeLogTail(...files) {
    const parts = files
        .map((f) => [f, tailFile(f, 3000).trimEnd()])
        .filter(([, t]) => t.length > 0)
        .map(([f, t]) => `--- tail of ${f}:\n${t}`);
    return parts.length ? parts.join('\n') : `(no log output in ${files.join(', ')})`;
}
//# sourceMappingURL=spawn.js.map