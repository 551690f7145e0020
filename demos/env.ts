/**
 * What the demos share: a Temporal dev server with its Web UI on free loopback ports (unless
 * TEMPORAL_ADDRESS names a server you run), a worker in this process, and a client; `stop()` closes
 * them and stops the results database engine processes this process started.
 */
import { Client, Connection } from '@temporalio/client';
import { startDevServer, type DevServer } from '../src/temporal/dev-server';
import { createWorker, installRuntime } from '../src/worker';
import { loadConfig, logLevel } from '../src/config';
import { stopResultsDbsStartedHere } from '../src/results/db';

/** A running demo environment. */
export interface DemoEnv {
  client: Client;
  cfg: ReturnType<typeof loadConfig>;
  /** The dev server started here; undefined when TEMPORAL_ADDRESS was set. */
  server?: DevServer;
  /** Close the client and the worker, stop the dev server and the results database engines started here. */
  stop(): Promise<void>;
}

/**
 * Start the demo's environment. `label` prefixes the line naming the server (e.g. `demo`).
 * @throws Error when the dev server or the worker cannot start.
 */
export async function startDemoEnv(label: string): Promise<DemoEnv> {
  installRuntime(logLevel('WARN'));
  const cfg = loadConfig();
  let server: DevServer | undefined;
  if (!process.env.TEMPORAL_ADDRESS) {
    server = await startDevServer({ ui: true });
    cfg.temporalAddress = server.address;
    console.error(`${label}: Temporal dev server on ${server.address}, Web UI ${server.uiUrl}`);
  }
  const { worker, connection: wconn } = await createWorker(cfg);
  const running = worker.run();
  const connection = await Connection.connect({ address: cfg.temporalAddress });
  return {
    client: new Client({ connection, namespace: cfg.namespace }),
    cfg,
    server,
    async stop() {
      await connection.close();
      worker.shutdown();
      await running;
      await wconn.close();
      await server?.stop();
      // The results database's engine process (started by a run's storeRun) would exit after its idle period; the demo does not wait.
      await stopResultsDbsStartedHere();
    },
  };
}
