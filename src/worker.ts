/**
 * The worker: wiring only. Connects to Temporal, makes sure chbench's search attributes exist,
 * registers the workflows (bundled from `./workflows`) and the activities built from real
 * dependencies, and polls the `chbench` task queue.
 */
import { NativeConnection, Worker, Runtime, DefaultLogger, type LogEntry, type LogLevel } from '@temporalio/worker';
import { createActivities } from './activities';
import { loadConfig, logLevel, type Config } from './config';
import { ensureSearchAttributes } from './temporal/search-attribute-registry';
import { targetAccessInterceptors } from './temporal/target-access';
import { targets } from './targets';
import { temporalAccess } from './temporal/worker-client';
import os from 'node:os';
import path from 'node:path';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { inspect } from 'node:util';
import { hostTaskQueue, workerIdentity } from './schema/host';

export { ensureSearchAttributes } from './temporal/search-attribute-registry';

/** The prebuilt workflow bundle (`npm run build` writes it: scripts/bundle-workflows.ts). */
export const WORKFLOW_BUNDLE = path.join(__dirname, 'workflow-bundle.js');

/** Where the bundle's fingerprint is kept: the hash of what it was built from. */
export const WORKFLOW_BUNDLE_HASH = `${WORKFLOW_BUNDLE}.sha256`;

/**
 * Fingerprint of what the workflow bundle is built from: sha256 over the path and content of every
 * compiled `.js` file under this folder (the bundle itself excepted) and the installed
 * `@temporalio/workflow` version. A `tsc` that rewrites the same files leaves it unchanged; any
 * changed compiled file or SDK version changes it.
 */
export function workflowSourcesHash(dir = __dirname): string {
  const h = createHash('sha256');
  const files = readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.js') && e.name !== path.basename(WORKFLOW_BUNDLE))
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
  for (const f of files) h.update(path.relative(dir, f)).update('\0').update(readFileSync(f)).update('\0');
  h.update(
    `@temporalio/workflow@${(JSON.parse(readFileSync(require.resolve('@temporalio/workflow/package.json'), 'utf8')) as { version: string }).version}`,
  );
  return h.digest('hex');
}

/** True when the prebuilt bundle exists and was built from the compiled files as they are now. */
export function prebuiltBundleIsCurrent(): boolean {
  return (
    existsSync(WORKFLOW_BUNDLE) &&
    existsSync(WORKFLOW_BUNDLE_HASH) &&
    readFileSync(WORKFLOW_BUNDLE_HASH, 'utf8').trim() === workflowSourcesHash()
  );
}

/**
 * Where the worker gets its workflow code: the prebuilt bundle when it was built from the compiled
 * files as they are now ({@link prebuiltBundleIsCurrent}), else the workflows module, bundled at start
 * (webpack in the worker: a few seconds and ~100 MB more resident memory; it says so).
 */
function workflowCode(): { workflowBundle: { codePath: string } } | { workflowsPath: string } {
  if (prebuiltBundleIsCurrent()) return { workflowBundle: { codePath: WORKFLOW_BUNDLE } };
  console.error(
    `chbench worker: ${path.relative(process.cwd(), WORKFLOW_BUNDLE)} is missing or older than the compiled code: bundling the workflows at start (run \`npm run build\` to prebuild them)`,
  );
  return { workflowsPath: require.resolve('./workflows') };
}

let runtimeInstalled = false;

/**
 * SDK lines a chbench worker leaves out: its start-up and shutdown chatter (state changes, "no Nexus
 * services", and the host queue's expected "no workflows registered") — `chbench worker` prints its own
 * line saying which queues it polls. Everything else goes out as the SDK's default logger writes it.
 */
const ROUTINE_SDK_LINES = [/^Worker state changed$/, /^No Nexus services registered/, /^No workflows registered/];

/** Log sink of the worker's runtime: the SDK's default format, without {@link ROUTINE_SDK_LINES}. */
function quietStartLog(entry: LogEntry): void {
  if (entry.meta?.sdkComponent === 'worker' && ROUTINE_SDK_LINES.some((r) => r.test(entry.message))) return;
  const { level, timestampNanos, message, meta } = entry;
  const at = new Date(Number(timestampNanos / 1_000_000n)).toISOString();
  process.stderr.write(
    `${at} [${level}] ${message}${meta === undefined ? '' : ` ${inspect(meta, { breakLength: Infinity })}`}\n`,
  );
}

/**
 * Install the SDK runtime with a log level (`CHBENCH_LOG_LEVEL`, default INFO for `chbench worker`,
 * WARN for the demo and tests: see `config.ts`). Must run before the first connection; later calls are ignored.
 * @throws Error when `CHBENCH_LOG_LEVEL` is set to something other than a level name (default only)
 */
export function installRuntime(level: LogLevel = logLevel('INFO')): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  try {
    Runtime.install({ logger: new DefaultLogger(level, quietStartLog) });
  } catch {
    /* already installed by the embedding program */
  }
}

/**
 * A chbench worker: two Temporal workers in one process sharing a connection — one polls the shared
 * task queue (workflows and every activity), one its host's own task queue `<taskQueue>@<hostId>`
 * (activities only: the steps of cells whose server runs on this host). Both report the identity
 * `chbench@<hostId>/<pid>`, which the matrix reads back to find the hosts.
 */
export interface ChbenchWorker {
  /** Run both until shutdown (or until either fails; then the other is shut down too). */
  run(): Promise<void>;
  /** Ask both to shut down gracefully. */
  shutdown(): void;
  /** This host's own task queue. */
  readonly hostTaskQueue: string;
}

/** Create (not run) a worker. */
export async function createWorker(
  cfg: Config = loadConfig(),
): Promise<{ worker: ChbenchWorker; connection: NativeConnection }> {
  await ensureSearchAttributes(cfg.temporalAddress, cfg.namespace);
  const connection = await NativeConnection.connect({ address: cfg.temporalAddress });
  const hostId = cfg.hostId ?? os.hostname();
  // One client for every activity that asks Temporal something (built here once, closed with the worker).
  const temporal = temporalAccess(cfg.temporalAddress, cfg.namespace);
  const activities = createActivities({
    workDir: cfg.workDir,
    temporalAddress: cfg.temporalAddress,
    namespace: cfg.namespace,
    temporal,
    host: { hostId, taskQueue: cfg.taskQueue },
  });
  const common = {
    connection,
    namespace: cfg.namespace,
    identity: workerIdentity(hostId, process.pid),
    activities,
    // Every target handle an activity receives is made reachable first (Secret, port-forward).
    interceptors: {
      activity: [
        targetAccessInterceptors((kind) => {
          const t = targets.find(kind);
          return t?.prepare ? (h) => t.prepare!(h) : undefined;
        }),
      ],
    },
  };
  const shared = await Worker.create({
    ...common,
    taskQueue: cfg.taskQueue,
    ...workflowCode(),
    // Cells on one host disturb each other; the matrix decides concurrency, this only caps it.
    maxConcurrentActivityTaskExecutions: 8,
  });
  const hostQueue = hostTaskQueue(cfg.taskQueue, hostId);
  const own = await Worker.create({
    ...common,
    taskQueue: hostQueue,
    // A step waiting here for a free slot would count against its schedule-to-start timeout (host
    // lost): never cap below the cells a host runs (the spec's concurrency, at most 64).
    maxConcurrentActivityTaskExecutions: 128,
  });
  const worker: ChbenchWorker = {
    hostTaskQueue: hostQueue,
    async run() {
      const runs = [shared.run(), own.run()];
      try {
        await Promise.race(runs);
      } finally {
        for (const w of [shared, own]) if (w.getState() === 'RUNNING') w.shutdown();
        await Promise.allSettled(runs);
        await temporal.close();
      }
      await Promise.all(runs);
    },
    shutdown() {
      for (const w of [shared, own]) if (w.getState() === 'RUNNING') w.shutdown();
    },
  };
  return { worker, connection };
}

/** Run a worker until SIGINT/SIGTERM (graceful shutdown: running activities are not torn down). */
export async function runWorker(cfg: Config = loadConfig()): Promise<void> {
  installRuntime();
  const { worker, connection } = await createWorker(cfg);
  console.error(
    `chbench worker: task queues ${cfg.taskQueue} and ${worker.hostTaskQueue} (this host's) on ${cfg.temporalAddress} (namespace ${cfg.namespace})`,
  );
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
