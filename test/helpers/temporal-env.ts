/**
 * Shared test harness: a real Temporal dev server (started here on free ports, own SQLite file,
 * chbench's search attributes registered) and a real worker running in this process on a task
 * queue unique to the test file. Everything is stopped in `stop()`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { startDevServer, type DevServer } from '../../src/temporal/dev-server';
import { createWorker, installRuntime } from '../../src/worker';
import type { Worker, NativeConnection } from '@temporalio/worker';
import { listCellDirs, stopProcess } from '../../src/targets/process';
import { logLevel } from '../../src/config';
import { stopResultsDbsStartedHere } from '../../src/results/db';

export interface TemporalEnv {
  server: DevServer;
  client: Client;
  taskQueue: string;
  /** Temp directory for results and target data dirs of this test file. */
  tmp: string;
  workDir: string;
  resultsDir: string;
  worker: Pick<Worker, 'run' | 'shutdown'>;
  stop(): Promise<void>;
}

/** A dev server, a worker made by `makeWorker` on a fresh task queue, and a client; `stop()` closes all three. */
async function startServerAndWorker(
  taskQueuePrefix: string,
  makeWorker: (
    address: string,
    taskQueue: string,
  ) => Promise<{ worker: Pick<Worker, 'run' | 'shutdown'>; connection: NativeConnection }>,
) {
  installRuntime(logLevel('WARN'));
  const server = await startDevServer();
  const taskQueue = `${taskQueuePrefix}-${randomUUID().slice(0, 8)}`;
  const { worker, connection: wconn } = await makeWorker(server.address, taskQueue);
  const running = worker.run();
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection, namespace: 'default' });
  return {
    server,
    client,
    taskQueue,
    worker,
    async stop() {
      worker.shutdown();
      await running.catch(() => undefined);
      await wconn.close();
      await connection.close();
      await server.stop();
      // Results databases the worker's storeRun opened (one engine process per results directory).
      await stopResultsDbsStartedHere();
    },
  };
}

/** Start server + worker. `TEMPORAL_ADDRESS` is ignored on purpose: tests own their server. */
export async function startTemporalEnv(name: string): Promise<TemporalEnv> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), `chbench-${name}-`));
  const workDir = path.join(tmp, 'targets');
  const env = await startServerAndWorker(`chbench-test-${name}`, (address, taskQueue) =>
    createWorker({ temporalAddress: address, namespace: 'default', taskQueue, workDir }),
  );
  return {
    ...env,
    tmp,
    workDir,
    resultsDir: path.join(tmp, 'results'),
    async stop() {
      await env.stop();
      // A failed test may leave servers behind: stop every one under this file's work dir.
      for (const d of listCellDirs(workDir)) await stopProcess(undefined, d, 2000);
      rmSync(tmp, { recursive: true, force: true });
    },
  };
}

/** A dev server and a worker running chbench's real workflows with stub activities (no ClickHouse). */
export interface StubEnv {
  server: DevServer;
  client: Client;
  taskQueue: string;
  stop(): Promise<void>;
}

/**
 * Start a dev server and a worker whose activities are `activities` (stubs keyed by activity name),
 * for workflow tests: the workflows are the real ones, so their command sequence, retries, timers and
 * child workflows are the real Temporal behaviour. Unknown activities fail the workflow task loudly.
 */
export async function startStubEnv(
  name: string,
  activities: Record<string, (...a: any[]) => Promise<unknown>>,
): Promise<StubEnv> {
  return startServerAndWorker(`chbench-wf-${name}`, async (address, taskQueue) => {
    const { Worker: WorkerClass, NativeConnection: NativeConn } = await import('@temporalio/worker');
    const connection = await NativeConn.connect({ address });
    const worker = await WorkerClass.create({
      connection,
      namespace: 'default',
      taskQueue,
      workflowsPath: require.resolve('../../src/workflows'),
      activities,
    });
    return { worker, connection };
  });
}
