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
exports.localServerConfig = exports.localServerCommand = void 0;
exports.provisionLocal = provisionLocal;
exports.teardownLocal = teardownLocal;
/**
 * Provisioning the local target: a ClickHouse server binary started per cell on loopback, with a
 * generated configuration that works on both old (Debian's 18.16) and modern versions (`config.ts`).
 *
 * Cell directory `<workDir>/<runId sanitized>/<cellKey sanitized>/`:
 * `config.xml`, `users.xml`, `data/` (path), `tmp/`, `user_files/`, `format_schemas/`,
 * `log/clickhouse-server.log` + `log/clickhouse-server.err.log` (the server's logger),
 * `server.log` (stdout/stderr), `server.pid`, and the label `chbench-target.json`.
 *
 * The server outlives a worker crash; a retried provision adopts it instead of starting a second one
 * (the skeleton in `../process/provision-process.ts`).
 */
const fs = __importStar(require("node:fs"));
const path = __importStar(require("node:path"));
const common_1 = require("@temporalio/common");
const failures_1 = require("../../schema/failures");
const net_1 = require("../../lib/net");
const process_1 = require("../process");
const config_1 = require("./config");
var config_2 = require("./config");
Object.defineProperty(exports, "localServerCommand", { enumerable: true, get: function () { return config_2.localServerCommand; } });
Object.defineProperty(exports, "localServerConfig", { enumerable: true, get: function () { return config_2.localServerConfig; } });
/** Milliseconds a fresh server gets to answer `/ping`. */
const START_TIMEOUT_MS = 60_000;
/** Milliseconds between SIGTERM and SIGKILL at teardown (a server flushes its logs on SIGTERM). */
const STOP_GRACE_MS = 30_000;
/** Starts tried when the chosen ports were taken meanwhile ("Address already in use"). */
const START_ATTEMPTS = 3;
/** `SELECT version()` over HTTP. @throws Error on a non-200 answer */
async function serverVersion(url) {
    const r = await (0, process_1.httpGet)(`${url}/?query=${encodeURIComponent('SELECT version()')}`, 10_000);
    if (r.status !== 200)
        throw new Error(`${url}: SELECT version() answered HTTP ${r.status}: ${r.body.slice(0, 300)}`);
    return r.body.trim();
}
function fileSize(f) {
    try {
        return fs.statSync(f).size;
    }
    catch {
        return 0;
    }
}
function readFrom(f, offset) {
    try {
        return fs.readFileSync(f).subarray(offset).toString('utf8');
    }
    catch {
        return '';
    }
}
/** The server of binary `bin` (absolute path) for the provisioning skeleton. */
function localServer(bin) {
    return {
        kind: 'local',
        who: `local target: ${bin}`,
        startTimeoutMs: START_TIMEOUT_MS,
        stopGraceMs: STOP_GRACE_MS,
        failedStartGraceMs: 10_000,
        startAttempts: START_ATTEMPTS,
        async spawn(dataDir) {
            const configFile = path.join(dataDir, 'config.xml');
            const logFiles = [path.join(dataDir, process_1.LOG_FILE), path.join(dataDir, 'log', 'clickhouse-server.err.log')];
            for (const sub of ['data', 'tmp', 'user_files', 'format_schemas', 'log'])
                fs.mkdirSync(path.join(dataDir, sub), { recursive: true });
            fs.rmSync(path.join(dataDir, process_1.LABEL_FILE), { force: true });
            const [httpPort, tcpPort] = await (0, net_1.freePorts)(2);
            const cfg = (0, config_1.localServerConfig)({ dataDir, httpPort, tcpPort });
            fs.writeFileSync(configFile, cfg.configXml);
            fs.writeFileSync(path.join(dataDir, 'users.xml'), cfg.usersXml);
            const { command, args } = (0, config_1.localServerCommand)(bin, configFile);
            // server.log is searched from its start (as before), the error log only for this start's lines.
            const logOffsets = [0, fileSize(logFiles[1])];
            const { pid } = await (0, process_1.spawnDetached)({ command, args, dataDir });
            return {
                pid,
                url: `http://127.0.0.1:${httpPort}`,
                ports: { http: httpPort, tcp: tcpPort },
                logFiles,
                logOffsets,
            };
        },
        readFacts: async (url) => ({ version: await serverVersion(url) }),
        describe: (s, facts, dataDir) => `${bin} ${facts.version} in pid ${s.pid} (generated config ${path.join(dataDir, 'config.xml')})`,
        retryStart: (s) => /Address already in use/i.test(s.logFiles.map((f, i) => readFrom(f, s.logOffsets?.[i] ?? 0)).join('\n')),
    };
}
/**
 * Start (or adopt) a ClickHouse server from `binaryPath` for one cell, on free loopback ports with
 * a generated configuration ({@link localServerConfig}).
 *
 * Idempotent: when the cell's label names a live process started with this cell's config that
 * answers `/ping`, its handle is returned and nothing is started. A process left half-started is
 * stopped first (its data directory is kept and reused). Concurrent attempts for the same cell are
 * serialised by `<dataDir>/provision.lock`. A start whose ports were taken meanwhile is tried again
 * (3 starts in all).
 *
 * @param req run id, cell key, version label (it must prefix the server's `version()`), absolute work directory
 * @param binaryPath the server executable: `clickhouse-server` (e.g. Debian's
 *   `/usr/sbin/clickhouse-server`) or the multi-call `clickhouse` binary; a bare name is looked up on PATH
 * @returns handle `{kind: 'local', url: 'http://127.0.0.1:<http port>', database: 'default',
 *   username: 'default', pid, dataDir, runId, cellKey, provisionedBy}` where provisionedBy reads e.g.
 *   `/usr/sbin/clickhouse-server 18.16.1 in pid 1234 (generated config /work/r/c/config.xml)`
 * @throws ApplicationFailure `MissingBinary` (non-retryable) when the binary is missing or not
 *   executable; `VersionMismatch` (non-retryable) when the version does not match the label (the
 *   server is then stopped); Error when the server does not answer `/ping` within 60 s or exits
 *   (message has the tails of its logs)
 */
async function provisionLocal(req, binaryPath) {
    (0, process_1.cellDataDir)(req.workDir, req.runId, req.cellKey); // an invalid work dir is reported before a missing binary
    const bin = (0, config_1.resolveExecutable)(binaryPath);
    if (!bin) {
        throw common_1.ApplicationFailure.create({
            type: failures_1.FAILURE.MissingBinary,
            nonRetryable: true,
            message: `local target: ClickHouse server binary ${binaryPath} not found or not executable ` +
                `(Debian: apt-get install -y clickhouse-server installs /usr/sbin/clickhouse-server)`,
        });
    }
    return (0, process_1.provisionProcess)(localServer(bin), req);
}
/**
 * Stop the cell's server and remove its directory (data, config, logs). Idempotent.
 * Only a pid whose command line names the handle's `dataDir` is signalled (SIGTERM, SIGKILL after 30 s).
 * @param handle a handle from {@link provisionLocal} (needs `dataDir`; `pid` optional)
 * @throws Error when the handle has no dataDir, or the process survives SIGKILL
 */
function teardownLocal(handle) {
    return (0, process_1.teardownProcess)(handle, STOP_GRACE_MS);
}
//# sourceMappingURL=provision.js.map