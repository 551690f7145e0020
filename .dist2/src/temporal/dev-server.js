"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.startDevServer = startDevServer;
/**
 * Start and stop a real Temporal dev server (`temporal server start-dev`) on free loopback ports,
 * with its own SQLite file and chbench's search attributes registered. Used by the demo and the
 * test harness; users with their own server never need it.
 */
const node_child_process_1 = require("node:child_process");
const node_fs_1 = require("node:fs");
const node_os_1 = __importDefault(require("node:os"));
const node_path_1 = __importDefault(require("node:path"));
const client_1 = require("@temporalio/client");
const config_1 = require("../config");
const search_attributes_1 = require("../schema/search-attributes");
const search_attribute_registry_1 = require("./search-attribute-registry");
const net_1 = require("../lib/net");
const poll_1 = require("../lib/poll");
/**
 * Start a dev server and wait until its frontend answers and (by default) a visibility query using
 * chbench's search attributes is accepted.
 * @throws Error with the server's output when it does not come up in time.
 */
async function startDevServer(o = {}) {
    const tmp = (0, node_fs_1.mkdtempSync)(node_path_1.default.join(node_os_1.default.tmpdir(), 'chbench-temporal-'));
    const dbFile = o.dbFile ?? node_path_1.default.join(tmp, 'temporal.sqlite');
    const port = o.port ?? (await (0, net_1.freePort)());
    const args = [
        'server',
        'start-dev',
        '--ip',
        '127.0.0.1',
        '--port',
        String(port),
        '--db-filename',
        dbFile,
        '--log-level',
        'error',
    ];
    let uiUrl;
    if (o.ui) {
        const uiPort = await (0, net_1.freePort)();
        args.push('--ui-port', String(uiPort), '--ui-ip', '127.0.0.1');
        uiUrl = `http://127.0.0.1:${uiPort}`;
    }
    else
        args.push('--headless');
    const withAttributes = o.searchAttributes ?? true;
    if (withAttributes)
        for (const [k, t] of Object.entries(search_attributes_1.SEARCH_ATTRIBUTES))
            args.push('--search-attribute', `${k}=${t}`);
    for (const [k, v] of Object.entries(o.dynamicConfig ?? {}))
        args.push('--dynamic-config-value', `${k}=${v}`);
    // Eager activity dispatch: the worker that schedules an activity may start it at once (no poll).
    args.push('--dynamic-config-value', 'system.enableActivityEagerExecution=true');
    // WAL keeps commits durable across a process crash (what the chaos tests do) and cuts write latency.
    args.push('--sqlite-pragma', 'journal_mode=wal', '--sqlite-pragma', 'synchronous=normal');
    const logFile = node_path_1.default.join(tmp, 'server.log');
    const fd = (0, node_fs_1.openSync)(logFile, 'a');
    const child = (0, node_child_process_1.spawn)((0, config_1.temporalCliPath)(), args, { stdio: ['ignore', fd, fd] });
    const address = `127.0.0.1:${port}`;
    let exited = null;
    child.on('exit', (c) => (exited = c ?? -1));
    const timeoutMs = o.timeoutMs ?? 60_000;
    const deadline = Date.now() + timeoutMs;
    const exitedError = () => new Error(`temporal dev server exited with ${exited}; log: ${logFile} (binary ${(0, config_1.temporalCliPath)()})`);
    try {
        await (0, poll_1.pollUntil)(async () => {
            if (exited !== null)
                throw exitedError();
            const c = await client_1.Connection.connect({ address, connectTimeout: 1000 });
            try {
                await c.workflowService.getSystemInfo({});
                // The frontend answering is not enough: the attributes must be usable before a run starts.
                if (withAttributes)
                    await (0, search_attribute_registry_1.waitForSearchAttributes)(c, 'default', Object.keys(search_attributes_1.SEARCH_ATTRIBUTES), {
                        address,
                        timeoutMs: Math.max(1000, deadline - Date.now()),
                    });
            }
            finally {
                await c.close();
            }
            return true;
        }, { timeoutMs, intervalMs: 250, what: `temporal dev server on ${address}`, stopOn: () => exited !== null });
    }
    catch (e) {
        if (exited !== null)
            throw exitedError();
        child.kill('SIGKILL');
        throw new Error(`temporal dev server did not answer on ${address} within ${timeoutMs} ms (${e.message}); log: ${logFile}`, { cause: e });
    }
    return {
        address,
        uiUrl,
        port,
        dbFile,
        process: child,
        async stop() {
            if (exited === null) {
                const done = new Promise((r) => child.once('exit', r));
                child.kill('SIGTERM');
                const t = setTimeout(() => child.kill('SIGKILL'), 5000);
                await done;
                clearTimeout(t);
            }
            if (!o.keepDb)
                (0, node_fs_1.rmSync)(tmp, { recursive: true, force: true });
        },
    };
}
//# sourceMappingURL=dev-server.js.map