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
exports.EMBEDDED_LOG_FILE = exports.EMBEDDED_STOP_GRACE_MS = void 0;
exports.embeddedServerScript = embeddedServerScript;
exports.provisionEmbedded = provisionEmbedded;
exports.teardownEmbedded = teardownEmbedded;
/**
 * Provisioning the embedded target: a modern ClickHouse engine (npm `chdb`) in a separate, detached
 * Node process (`server.ts` next to this file, compiled to `server.js`) that serves the ClickHouse
 * HTTP interface on 127.0.0.1. One process and one directory per cell:
 * `<workDir>/<runId sanitized>/<cellKey sanitized>/` holding `data/` (the chdb data), `port`,
 * `server.pid`, `server.log`, `statements.jsonl` and the label `chbench-target.json`.
 *
 * The server outlives a worker crash; a retried provision adopts it instead of starting a second one
 * (the skeleton in `../process/provision-process.ts`).
 */
const fs = __importStar(require("node:fs"));
const path = __importStar(require("node:path"));
const poll_1 = require("../../lib/poll");
const config_1 = require("../../config");
const process_1 = require("../process");
/** Milliseconds to wait for a fresh server to write its port and answer `/ping`. */
const START_TIMEOUT_MS = 60_000;
/** Milliseconds between SIGTERM and SIGKILL at teardown. */
exports.EMBEDDED_STOP_GRACE_MS = 15_000;
/**
 * Absolute path of the compiled server script: `server.js` next to this file
 * (`dist/src/targets/embedded/` in a compiled checkout).
 * @throws Error when it does not exist (the TypeScript was not compiled: run `npm run build`)
 */
function embeddedServerScript() {
    const p = path.join(__dirname, 'server.js');
    if (!fs.existsSync(p))
        throw new Error(`embedded target: ${p} not found; compile first (npm run build)`);
    return p;
}
/** `GET <url>/chbench/info` as {@link ServerFacts} (version = the engine's ClickHouse version). */
async function readFacts(url) {
    const r = await (0, process_1.httpGet)(`${url}/chbench/info`, 5000);
    if (r.status !== 200)
        throw new Error(`${url}/chbench/info: HTTP ${r.status} ${r.body.slice(0, 200)}`);
    const info = JSON.parse(r.body);
    return { version: info.clickhouse, pid: info.pid, dataDir: info.dataDir, engine: info.engine };
}
/**
 * Wait until the fresh server at `pid` wrote its port to `file`.
 * @returns the port
 * @throws Error when `pid` exited first, or after `timeoutMs` ms; both name the tail of `logPath`
 */
function waitForPortFile(file, pid, timeoutMs, logPath) {
    return (0, poll_1.pollUntil)(() => {
        try {
            const n = Number.parseInt(fs.readFileSync(file, 'utf8').trim(), 10);
            if (Number.isInteger(n) && n > 0)
                return n;
        }
        catch {
            /* not written yet */
        }
        if (!(0, process_1.isAlive)(pid))
            throw new Error(`embedded server pid ${pid} exited before listening\n${(0, process_1.describeLogTail)(logPath)}`);
        return undefined;
    }, {
        timeoutMs,
        intervalMs: 50,
        stopOn: () => true, // only "the process exited" gets here
        onTimeout: () => new Error(`embedded server pid ${pid} did not write ${file} within ${timeoutMs} ms\n${(0, process_1.describeLogTail)(logPath)}`),
    });
}
/** The embedded server for the provisioning skeleton. */
const EMBEDDED_SERVER = {
    kind: 'embedded',
    who: 'embedded target (the chdb package)',
    startTimeoutMs: START_TIMEOUT_MS,
    stopGraceMs: exports.EMBEDDED_STOP_GRACE_MS,
    failedStartGraceMs: 5000,
    async spawn(dataDir) {
        const script = embeddedServerScript();
        // This host's loopback address (CHBENCH_HOST_ADDRESS): simulated hosts on one machine keep apart.
        const host = (0, config_1.hostAddress)();
        const portFile = path.join(dataDir, 'port');
        fs.rmSync(portFile, { force: true });
        fs.rmSync(path.join(dataDir, process_1.LABEL_FILE), { force: true });
        const { pid, logPath } = await (0, process_1.spawnDetached)({
            command: process.execPath,
            args: [script, '--data-dir', dataDir, '--host', host, '--port', '0', '--port-file', portFile],
            dataDir,
        });
        try {
            const port = await waitForPortFile(portFile, pid, START_TIMEOUT_MS, logPath);
            return { pid, url: `http://${host}:${port}`, ports: { http: port }, logFiles: [logPath] };
        }
        catch (e) {
            await (0, process_1.stopProcess)(pid, dataDir, 5000, { keepDir: true }).catch(() => undefined);
            throw e;
        }
    },
    readFacts,
    describe: (s, facts) => `${facts.engine} in pid ${s.pid}, separate process`,
};
/**
 * Start (or adopt) the embedded ClickHouse engine for one cell.
 *
 * Idempotent: when `<dataDir>/chbench-target.json` names a live process started for this directory
 * that answers `/ping`, its handle is returned and nothing is started. A process left half-started
 * (no label, or not answering) is stopped first; its data directory is kept and reused. Concurrent
 * attempts for the same cell are serialised by `<dataDir>/provision.lock`.
 *
 * @param req run id, cell key, version label (the engine is whatever chdb ships, ClickHouse 26.7
 *   for chdb 3.4.0) and the absolute work directory
 * @returns handle `{kind: 'embedded', url: 'http://127.0.0.1:<port>', database: 'default',
 *   username: 'default', pid, dataDir, runId, cellKey, provisionedBy}` where provisionedBy reads e.g.
 *   `chdb 3.4.0 (ClickHouse 26.7.2.1) in pid 1234, separate process`
 * @throws Error when the server does not answer within 60 s or exits (message has the log tail),
 *   when the compiled server script is missing, or when `req.version` is not a prefix of the
 *   engine's version (e.g. `18.16` asked of chdb's 26.7.2.1; the server is then stopped)
 */
function provisionEmbedded(req) {
    return (0, process_1.provisionProcess)(EMBEDDED_SERVER, req);
}
/**
 * Stop the cell's embedded server and remove its directory (data included). Idempotent.
 * Only a pid whose command line names the handle's `dataDir` is signalled.
 * @param handle a handle from {@link provisionEmbedded} (needs `dataDir`; `pid` optional)
 * @throws Error when the handle has no dataDir, or the process survives SIGKILL
 */
function teardownEmbedded(handle) {
    return (0, process_1.teardownProcess)(handle, exports.EMBEDDED_STOP_GRACE_MS);
}
/** File name of the embedded server's log in the cell directory (stdout + stderr). */
exports.EMBEDDED_LOG_FILE = process_1.LOG_FILE;
//# sourceMappingURL=provision.js.map