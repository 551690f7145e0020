/**
 * The worker: wiring only. Connects to Temporal, makes sure chbench's search attributes exist,
 * registers the workflows (bundled from `./workflows`) and the activities built from real
 * dependencies, and polls the `chbench` task queue.
 */
import { NativeConnection, Worker, Runtime, DefaultLogger, type LogLevel } from '@temporalio/worker';
import { createActivities } from './activities';
import { loadConfig, logLevel, type Config } from './config';
import { ensureSearchAttributes } from './temporal/search-attribute-registry';
import { targetAccessInterceptors } from './temporal/target-access';
import { targets } from './targets';

export { ensureSearchAttributes } from './temporal/search-attribute-registry';

let runtimeInstalled = false;

/**
 * Install the SDK runtime with a log level (`CHBENCH_LOG_LEVEL`, default INFO for `chbench worker`,
 * WARN for the demo and tests: see `config.ts`). Must run before the first connection; later calls are ignored.
 * @throws Error when `CHBENCH_LOG_LEVEL` is set to something other than a level name (default only)
 */
export function installRuntime(level: LogLevel = logLevel('INFO')): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  try {
    Runtime.install({ logger: new DefaultLogger(level) });
  } catch {
    /* already installed by the embedding program */
  }
}

/** Create (not run) a worker. */
export async function createWorker(
  cfg: Config = loadConfig(),
): Promise<{ worker: Worker; connection: NativeConnection }> {
  await ensureSearchAttributes(cfg.temporalAddress, cfg.namespace);
  const connection = await NativeConnection.connect({ address: cfg.temporalAddress });
  const worker = await Worker.create({
    connection,
    namespace: cfg.namespace,
    taskQueue: cfg.taskQueue,
    workflowsPath: require.resolve('./workflows'),
    activities: createActivities({
      workDir: cfg.workDir,
      temporalAddress: cfg.temporalAddress,
      namespace: cfg.namespace,
    }),
    // Every target handle an activity receives is made reachable first (Secret, port-forward).
    interceptors: {
      activity: [
        targetAccessInterceptors((kind) => {
          const t = targets.find(kind);
          return t?.prepare ? (h) => t.prepare!(h) : undefined;
        }),
      ],
    },
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
