/**
 * The worker: wiring only. Connects to Temporal, makes sure chbench's search attributes exist,
 * registers the workflows (bundled from `./workflows`) and the activities built from real
 * dependencies, and polls the `chbench` task queue.
 */
import { NativeConnection, Worker, Runtime, DefaultLogger, type LogLevel } from '@temporalio/worker';
import { Connection } from '@temporalio/client';
import { createActivities } from './activities';
import { loadConfig, type Config } from './config';
import { SEARCH_ATTRIBUTES } from './workflows/search-attributes';

/**
 * Register chbench's search attributes on the namespace if missing (dev servers and self-hosted
 * clusters allow it; on Temporal Cloud create them beforehand).
 * @throws Error naming the attributes when they are missing and cannot be created.
 */
export async function ensureSearchAttributes(address: string, namespace: string): Promise<void> {
  const c = await Connection.connect({ address });
  try {
    const have = await c.operatorService.listSearchAttributes({ namespace });
    const missing = Object.keys(SEARCH_ATTRIBUTES).filter((k) => !(k in (have.customAttributes ?? {})));
    if (!missing.length) return;
    try {
      await c.operatorService.addSearchAttributes({
        namespace,
        searchAttributes: Object.fromEntries(missing.map((k) => [k, 2 /* INDEXED_VALUE_TYPE_KEYWORD */])),
      });
    } catch (e) {
      throw new Error(
        `search attributes ${missing.join(', ')} are missing on namespace ${namespace} and could not be created (${(e as Error).message}); create them with: ${missing
          .map((k) => `temporal operator search-attribute create --name ${k} --type Keyword`)
          .join(' && ')}`,
      );
    }
  } finally {
    await c.close();
  }
}

let runtimeInstalled = false;

/**
 * Install the SDK runtime with a log level (`CHBENCH_LOG_LEVEL`, default INFO for `chbench worker`,
 * WARN for the demo and tests). Must run before the first connection; later calls are ignored.
 */
export function installRuntime(level: LogLevel = (process.env.CHBENCH_LOG_LEVEL as LogLevel) ?? 'INFO'): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  try {
    Runtime.install({ logger: new DefaultLogger(level) });
  } catch {
    /* already installed by the embedding program */
  }
}

/** Create (not run) a worker. */
export async function createWorker(cfg: Config = loadConfig()): Promise<{ worker: Worker; connection: NativeConnection }> {
  await ensureSearchAttributes(cfg.temporalAddress, cfg.namespace);
  const connection = await NativeConnection.connect({ address: cfg.temporalAddress });
  const worker = await Worker.create({
    connection,
    namespace: cfg.namespace,
    taskQueue: cfg.taskQueue,
    workflowsPath: require.resolve('./workflows'),
    activities: createActivities({ workDir: cfg.workDir, temporalAddress: cfg.temporalAddress, namespace: cfg.namespace }),
    // Cells on one host disturb each other; the matrix decides concurrency, this only caps it.
    maxConcurrentActivityTaskExecutions: 8,
  });
  return { worker, connection };
}

/** Run a worker until SIGINT/SIGTERM (graceful shutdown: running activities are not torn down). */
export async function runWorker(cfg: Config = loadConfig()): Promise<void> {
  const { worker, connection } = await createWorker(cfg);
  console.error(`chbench worker: task queue ${cfg.taskQueue} on ${cfg.temporalAddress} (namespace ${cfg.namespace})`);
  try {
    await worker.run();
  } finally {
    await connection.close();
  }
}

if (require.main === module) {
  runWorker().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
