"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.WORKFLOW_BUNDLE_HASH = exports.WORKFLOW_BUNDLE = exports.ensureSearchAttributes = void 0;
exports.workflowSourcesHash = workflowSourcesHash;
exports.prebuiltBundleIsCurrent = prebuiltBundleIsCurrent;
exports.installRuntime = installRuntime;
exports.createWorker = createWorker;
exports.runWorker = runWorker;
/**
 * The worker: wiring only. Connects to Temporal, makes sure chbench's search attributes exist,
 * registers the workflows (bundled from `./workflows`) and the activities built from real
 * dependencies, and polls the `chbench` task queue.
 */
const worker_1 = require("@temporalio/worker");
const activities_1 = require("./activities");
const config_1 = require("./config");
const search_attribute_registry_1 = require("./temporal/search-attribute-registry");
const target_access_1 = require("./temporal/target-access");
const targets_1 = require("./targets");
const node_os_1 = __importDefault(require("node:os"));
const node_path_1 = __importDefault(require("node:path"));
const node_fs_1 = require("node:fs");
const node_crypto_1 = require("node:crypto");
const node_util_1 = require("node:util");
const host_1 = require("./schema/host");
var search_attribute_registry_2 = require("./temporal/search-attribute-registry");
Object.defineProperty(exports, "ensureSearchAttributes", { enumerable: true, get: function () { return search_attribute_registry_2.ensureSearchAttributes; } });
/** The prebuilt workflow bundle (`npm run build` writes it: scripts/bundle-workflows.ts). */
exports.WORKFLOW_BUNDLE = node_path_1.default.join(__dirname, 'workflow-bundle.js');
/** Where the bundle's fingerprint is kept: the hash of what it was built from. */
exports.WORKFLOW_BUNDLE_HASH = `${exports.WORKFLOW_BUNDLE}.sha256`;
/**
 * Fingerprint of what the workflow bundle is built from: sha256 over the path and content of every
 * compiled `.js` file under this folder (the bundle itself excepted) and the installed
 * `@temporalio/workflow` version. A `tsc` that rewrites the same files leaves it unchanged; any
 * changed compiled file or SDK version changes it.
 */
function workflowSourcesHash(dir = __dirname) {
    const h = (0, node_crypto_1.createHash)('sha256');
    const files = (0, node_fs_1.readdirSync)(dir, { withFileTypes: true, recursive: true })
        .filter((e) => e.isFile() && e.name.endsWith('.js') && e.name !== node_path_1.default.basename(exports.WORKFLOW_BUNDLE))
        .map((e) => node_path_1.default.join(e.parentPath, e.name))
        .sort();
    for (const f of files)
        h.update(node_path_1.default.relative(dir, f)).update('\0').update((0, node_fs_1.readFileSync)(f)).update('\0');
    h.update(`@temporalio/workflow@${JSON.parse((0, node_fs_1.readFileSync)(require.resolve('@temporalio/workflow/package.json'), 'utf8')).version}`);
    return h.digest('hex');
}
/** True when the prebuilt bundle exists and was built from the compiled files as they are now. */
function prebuiltBundleIsCurrent() {
    return ((0, node_fs_1.existsSync)(exports.WORKFLOW_BUNDLE) &&
        (0, node_fs_1.existsSync)(exports.WORKFLOW_BUNDLE_HASH) &&
        (0, node_fs_1.readFileSync)(exports.WORKFLOW_BUNDLE_HASH, 'utf8').trim() === workflowSourcesHash());
}
/**
 * Where the worker gets its workflow code: the prebuilt bundle when it was built from the compiled
 * files as they are now ({@link prebuiltBundleIsCurrent}), else the workflows module, bundled at start
 * (webpack in the worker: a few seconds and ~100 MB more resident memory; it says so).
 */
function workflowCode() {
    if (prebuiltBundleIsCurrent())
        return { workflowBundle: { codePath: exports.WORKFLOW_BUNDLE } };
    console.error(`chbench worker: ${node_path_1.default.relative(process.cwd(), exports.WORKFLOW_BUNDLE)} is missing or older than the compiled code: bundling the workflows at start (run \`npm run build\` to prebuild them)`);
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
function quietStartLog(entry) {
    if (entry.meta?.sdkComponent === 'worker' && ROUTINE_SDK_LINES.some((r) => r.test(entry.message)))
        return;
    const { level, timestampNanos, message, meta } = entry;
    const at = new Date(Number(timestampNanos / 1000000n)).toISOString();
    process.stderr.write(`${at} [${level}] ${message}${meta === undefined ? '' : ` ${(0, node_util_1.inspect)(meta, { breakLength: Infinity })}`}\n`);
}
/**
 * Install the SDK runtime with a log level (`CHBENCH_LOG_LEVEL`, default INFO for `chbench worker`,
 * WARN for the demo and tests: see `config.ts`). Must run before the first connection; later calls are ignored.
 * @throws Error when `CHBENCH_LOG_LEVEL` is set to something other than a level name (default only)
 */
function installRuntime(level = (0, config_1.logLevel)('INFO')) {
    if (runtimeInstalled)
        return;
    runtimeInstalled = true;
    try {
        worker_1.Runtime.install({ logger: new worker_1.DefaultLogger(level, quietStartLog) });
    }
    catch {
        /* already installed by the embedding program */
    }
}
/** Create (not run) a worker. */
async function createWorker(cfg = (0, config_1.loadConfig)()) {
    await (0, search_attribute_registry_1.ensureSearchAttributes)(cfg.temporalAddress, cfg.namespace);
    const connection = await worker_1.NativeConnection.connect({ address: cfg.temporalAddress });
    const hostId = cfg.hostId ?? node_os_1.default.hostname();
    const activities = (0, activities_1.createActivities)({
        workDir: cfg.workDir,
        temporalAddress: cfg.temporalAddress,
        namespace: cfg.namespace,
        host: { hostId, taskQueue: cfg.taskQueue },
    });
    const common = {
        connection,
        namespace: cfg.namespace,
        identity: (0, host_1.workerIdentity)(hostId, process.pid),
        activities,
        // Every target handle an activity receives is made reachable first (Secret, port-forward).
        interceptors: {
            activity: [
                (0, target_access_1.targetAccessInterceptors)((kind) => {
                    const t = targets_1.targets.find(kind);
                    return t?.prepare ? (h) => t.prepare(h) : undefined;
                }),
            ],
        },
    };
    const shared = await worker_1.Worker.create({
        ...common,
        taskQueue: cfg.taskQueue,
        ...workflowCode(),
        // Cells on one host disturb each other; the matrix decides concurrency, this only caps it.
        maxConcurrentActivityTaskExecutions: 8,
    });
    const hostQueue = (0, host_1.hostTaskQueue)(cfg.taskQueue, hostId);
    const own = await worker_1.Worker.create({
        ...common,
        taskQueue: hostQueue,
        // A step waiting here for a free slot would count against its schedule-to-start timeout (host
        // lost): never cap below the cells a host runs (the spec's concurrency, at most 64).
        maxConcurrentActivityTaskExecutions: 128,
    });
    const worker = {
        hostTaskQueue: hostQueue,
        async run() {
            const runs = [shared.run(), own.run()];
            try {
                await Promise.race(runs);
            }
            finally {
                for (const w of [shared, own])
                    if (w.getState() === 'RUNNING')
                        w.shutdown();
                await Promise.allSettled(runs);
            }
            await Promise.all(runs);
        },
        shutdown() {
            for (const w of [shared, own])
                if (w.getState() === 'RUNNING')
                    w.shutdown();
        },
    };
    return { worker, connection };
}
/** Run a worker until SIGINT/SIGTERM (graceful shutdown: running activities are not torn down). */
async function runWorker(cfg = (0, config_1.loadConfig)()) {
    installRuntime();
    const { worker, connection } = await createWorker(cfg);
    console.error(`chbench worker: task queues ${cfg.taskQueue} and ${worker.hostTaskQueue} (this host's) on ${cfg.temporalAddress} (namespace ${cfg.namespace})`);
    try {
        await worker.run();
    }
    finally {
        await connection.close();
    }
}
if (require.main === module) {
    runWorker().catch((e) => {
        console.error(e);
        process.exit(1);
    });
}
//# sourceMappingURL=worker.js.map