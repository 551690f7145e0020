"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.startDemoEnv = startDemoEnv;
/**
 * What the demos share: a Temporal dev server with its Web UI on free loopback ports (unless
 * TEMPORAL_ADDRESS names a server you run), a worker in this process, and a client; `stop()` closes
 * them and stops the results database engine processes this process started.
 */
const client_1 = require("@temporalio/client");
const dev_server_1 = require("./temporal/dev-server");
const worker_1 = require("./worker");
const config_1 = require("./config");
const db_1 = require("./results/db");
/**
 * Start the demo's environment. `label` prefixes the line naming the server (e.g. `demo`).
 * @throws Error when the dev server or the worker cannot start.
 */
async function startDemoEnv(label) {
    (0, worker_1.installRuntime)((0, config_1.logLevel)('WARN'));
    const cfg = (0, config_1.loadConfig)();
    let server;
    if (!process.env.TEMPORAL_ADDRESS) {
        server = await (0, dev_server_1.startDevServer)({ ui: true });
        cfg.temporalAddress = server.address;
        console.error(`${label}: Temporal dev server on ${server.address}, Web UI ${server.uiUrl}`);
    }
    const { worker, connection: wconn } = await (0, worker_1.createWorker)(cfg);
    const running = worker.run();
    const connection = await client_1.Connection.connect({ address: cfg.temporalAddress });
    return {
        client: new client_1.Client({ connection, namespace: cfg.namespace }),
        cfg,
        server,
        async stop() {
            await connection.close();
            worker.shutdown();
            await running;
            await wconn.close();
            await server?.stop();
            // The results database's engine process (started by a run's storeRun) would exit after its idle period; the demo does not wait.
            await (0, db_1.stopResultsDbsStartedHere)();
        },
    };
}
//# sourceMappingURL=demo-env.js.map