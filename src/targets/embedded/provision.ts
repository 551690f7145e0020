/**
 * Provisioning the embedded target: a chdb engine in a separate, detached Node process (the engine
 * server, `src/engine/server.ts`, started by the engine launcher `src/engine/launch.ts`) that serves the ClickHouse HTTP interface
 * on 127.0.0.1. Which engine serves the cell's label is resolved by the version sources
 * (`../versions/`): the bundled npm chdb in-process (`--engine npm`), or a PyPI chdb build hosted by
 * the Python of its installed environment (`--engine python --python <env>/bin/python`), installed
 * on demand here (heartbeating while pip runs; one install per build across processes, atomic:
 * `src/engine/install.ts`). One process and one directory per cell:
 * `<workDir>/<runId sanitized>/<cellKey sanitized>/` holding `data/` (the chdb data), `port`,
 * `server.pid`, `server.log`, `statements.jsonl` and the label `chbench-target.json`.
 *
 * The server outlives a worker crash; a retried provision adopts it instead of starting a second one
 * (the skeleton in `../process/provision-process.ts`).
 */
import type { ResourcesSpec } from '../../schema/resources';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CREDENTIAL_FILE, serverCredential } from '../../engine/credential';
import { ApplicationFailure } from '@temporalio/common';
import { FAILURE } from '../../schema/failures';
import type { ProvisionRequest, TargetHandle } from '../../schema/target';
import { hostAddress } from '../../config';
import { EngineInstallError, installEngine, installedEngine } from '../../engine/install';
import { damageLine, verifyEngine } from '../../engine/verify';
import { cancellationSignal, heartbeat } from '../../temporal/activity-context';
import { embeddedSources, pypiBuildFor, type EmbeddedEngines, type VersionResolution } from '../versions';
import { ENGINE_START_TIMEOUT_MS, engineServerScript, readEngineInfo, startEngineServer } from '../../engine/launch';
import {
  LABEL_FILE,
  LOG_FILE,
  provisionProcess,
  teardownProcess,
  type ProcessServer,
  type ServerFacts,
} from '../process';

/** Milliseconds to wait for a fresh server to write its port and answer `/ping`. */
const START_TIMEOUT_MS = ENGINE_START_TIMEOUT_MS;
/** Milliseconds between SIGTERM and SIGKILL at teardown. */
export const EMBEDDED_STOP_GRACE_MS = 15_000;

/**
 * Absolute path of the compiled server script (`dist/src/engine/server.js`).
 * @throws Error when it does not exist (the TypeScript was not compiled: run `npm run build`)
 */
export const embeddedServerScript = engineServerScript;

/** The facts of an embedded server: its ClickHouse version, engine line and package, as it reports them. */
type EmbeddedFacts = ServerFacts & { engine: string; package?: string };

/** The cell server's password (`serverCredential` of its directory; a re-provision keeps it, so an adopted server still answers). */
export const cellCredential = serverCredential;
export { CREDENTIAL_FILE };

/** `GET <url>/chbench/info` (the launcher's `readEngineInfo`) as {@link ServerFacts} (version = the engine's ClickHouse version, read back), with the cell's credential. */
async function readFacts(url: string, dataDir: string): Promise<EmbeddedFacts> {
  const info = await readEngineInfo(url, 5000, {
    'X-ClickHouse-User': 'default',
    'X-ClickHouse-Key': cellCredential(dataDir),
  });
  return {
    version: info.clickhouse,
    pid: info.pid,
    dataDir: info.dataDir,
    engine: info.engine,
    ...(info.package ? { package: info.package } : {}),
  };
}

/** The engine a cell's label resolved to, and the engine server's arguments that select it. */
export interface EmbeddedEngine {
  resolution: VersionResolution;
  /** `['--engine', 'npm']`, or `['--engine', 'python', '--python', <interpreter>]`. */
  args: string[];
  /** The same for the engine launcher (`src/engine/launch.ts`). */
  launch: { engine: 'npm' } | { engine: 'python'; python: string };
}

/**
 * Resolve `label` to an engine under `engines` (`../versions/`) without installing anything.
 * @returns the resolution, or `undefined` when no source of `engines` serves the label
 */
export function resolveEmbedded(label: string, engines: EmbeddedEngines = 'auto'): VersionResolution | undefined {
  const s = embeddedSources(engines).find((x) => x.canServe(label));
  return s?.resolve(label);
}

/**
 * The engine of a cell: the bundled npm engine, or a PyPI build installed on demand. The install
 * heartbeats its progress lines (`step: provision`, `progress: installing pypi chdb==…: <line>`)
 * and stops when the activity is cancelled.
 * @throws ApplicationFailure `InvalidSpec` (non-retryable) when no source serves the label (a spec
 *   that passed validation never gets here); the install's `EngineInstallError` (package, version,
 *   cause; retryable: a registry outage can pass)
 */
export async function embeddedEngine(label: string, engines: EmbeddedEngines = 'auto'): Promise<EmbeddedEngine> {
  const resolution = resolveEmbedded(label, engines);
  if (!resolution)
    throw ApplicationFailure.create({
      type: FAILURE.InvalidSpec,
      nonRetryable: true,
      message: `embedded target (engines ${engines}): no version source serves version "${label}" (${embeddedSources(
        engines,
      )
        .map((s) => s.offer())
        .join('; ')})`,
    });
  if (resolution.source === 'npm-chdb') return { resolution, args: ['--engine', 'npm'], launch: { engine: 'npm' } };
  const build = pypiBuildFor(label)!;
  let engine = installedEngine(build);
  if (engine) {
    // A damaged install (a truncated library, a missing file) would die at every start: say so now.
    const check = verifyEngine(engine.dir);
    if (check.damaged)
      throw ApplicationFailure.create({
        type: FAILURE.EngineDamaged,
        nonRetryable: true,
        message: `embedded target: the installed engine ${resolution.artifact} at ${engine.dir} is damaged — ${damageLine(check)}; repair it with \`chbench engines install ${resolution.label}\``,
      });
  }
  if (!engine) {
    heartbeat({ step: 'provision', progress: `installing ${resolution.artifact}` });
    const signal = cancellationSignal();
    try {
      engine = await installEngine(build, {
        onProgress: (line) =>
          heartbeat({ step: 'provision', progress: `installing ${resolution.artifact}: ${line.slice(0, 200)}` }),
        ...(signal ? { signal } : {}),
      });
    } catch (e) {
      // The package index has no such build: retrying cannot help (an unreachable index or a full disk can pass).
      if (e instanceof EngineInstallError && /No matching distribution|Could not find a version/i.test(e.reason))
        throw ApplicationFailure.create({
          type: FAILURE.MissingBinary,
          nonRetryable: true,
          message: e.message,
          cause: e,
        });
      throw e;
    }
  }
  return {
    resolution: {
      ...resolution,
      installed: { dir: engine.dir, python: engine.python, clickhouse: engine.clickhouse },
      description: `${resolution.artifact} → ClickHouse ${engine.clickhouse}, installed at ${engine.dir}`,
    },
    args: ['--engine', 'python', '--python', engine.python],
    launch: { engine: 'python', python: engine.python },
  };
}

/**
 * What an engine that cannot load prints when it dies at start: a fatal signal, or the Python host
 * failing to import chdb or load its library. Other early exits (a data directory a newer version
 * wrote, a taken port) are the cell's own and are not retried here.
 */
const LOAD_FAULT =
  /\bsignal (SIGBUS|SIGSEGV|SIGILL|SIGABRT|SIGFPE)\b|\b(ImportError|ModuleNotFoundError|SyntaxError)\b|cannot open shared object|undefined symbol|invalid ELF header|file too short|Bus error|Segmentation fault/;

/**
 * The fault of a start that died before listening as a load failure ({@link LOAD_FAULT}): its last
 * meaningful log lines (the launcher's `---` markers left out, digits blanked: pids and times differ
 * between two starts of one fault); undefined for any other failure.
 */
function startFault(e: unknown): string | undefined {
  const msg = e instanceof Error ? e.message : String(e);
  if (!/exited before listening/.test(msg) || !LOAD_FAULT.test(msg)) return undefined;
  const lines = msg
    .split('\n')
    .slice(1)
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('---'));
  return lines.slice(-3).join(' / ').replace(/\d+/g, '#');
}

/**
 * Start the engine server; when it dies before listening as an engine that cannot load ({@link LOAD_FAULT}),
 * start it once more at once. Dying twice the same way (the same last log lines) is the engine's own fault — a damaged install, a library that
 * cannot load — that every retry would repeat: a non-retryable `EngineDamaged` within seconds, naming
 * the engine, what pip's RECORD says of its files and the command that repairs it. Any other failure
 * (a timeout, a different second death) is thrown as is (retried by the activity's policy).
 */
async function startTwice<T>(start: () => Promise<T>, engine: EmbeddedEngine): Promise<T> {
  let first: unknown;
  try {
    return await start();
  } catch (e) {
    if (startFault(e) === undefined) throw e;
    first = e;
  }
  try {
    return await start();
  } catch (e) {
    const fault = startFault(e);
    if (fault === undefined || fault !== startFault(first)) throw e;
    const dir = engine.resolution.installed?.dir;
    const check = dir ? verifyEngine(dir, { hashes: true }) : undefined;
    const repair =
      engine.resolution.source === 'pypi-chdb'
        ? `repair it with \`chbench engines install ${engine.resolution.label}\``
        : 'the bundled npm chdb: run `npm ci` to restore node_modules';
    throw ApplicationFailure.create({
      type: FAILURE.EngineDamaged,
      nonRetryable: true,
      message: `embedded target: the engine server of ${engine.resolution.artifact} died before listening twice in a row, the same way (${fault.replace(/#/g, 'N').slice(-400)})${
        check
          ? check.damaged
            ? `; its files: ${damageLine(check)}`
            : `; its files match pip's RECORD (sizes and sha256)`
          : ''
      }; ${repair}`,
      cause: e instanceof Error ? e : undefined,
    });
  }
}

/** The embedded server of one engine for the provisioning skeleton. */
const embeddedServer = (engine: EmbeddedEngine): ProcessServer<EmbeddedFacts> => ({
  kind: 'embedded',
  who: `embedded target (${engine.resolution.artifact})`,
  mismatchHint:
    engine.resolution.source === 'pypi-chdb'
      ? `the environment ${engine.resolution.installed?.dir ?? ''} does not hold the build it was installed for: remove it (\`chbench engines remove ${engine.resolution.label}\`) and provision again`
      : 'the npm chdb package in node_modules is not the pinned one: run `npm install`',
  startTimeoutMs: START_TIMEOUT_MS,
  stopGraceMs: EMBEDDED_STOP_GRACE_MS,
  failedStartGraceMs: 5000,
  async spawn(dataDir, cgroupProcs) {
    // This host's loopback address (CHBENCH_HOST_ADDRESS): simulated hosts on one machine keep apart.
    const host = hostAddress();
    fs.rmSync(path.join(dataDir, LABEL_FILE), { force: true });
    // The launcher stops a server that does not come up (keeping its directory) and says why.
    // Nobody in without the cell's password (a local user of this host included): `--auth-from-env`.
    const password = cellCredential(dataDir);
    const start = () =>
      startEngineServer({
        ...engine.launch,
        dataDir,
        host,
        port: 0,
        portFile: path.join(dataDir, 'port'),
        startTimeoutMs: START_TIMEOUT_MS,
        cgroupProcs,
        authFromEnv: true,
        env: { CLICKHOUSE_USER: 'default', CLICKHOUSE_PASSWORD: password },
      });
    const { pid, port, logPath } = await startTwice(start, engine);
    return { pid, url: `http://${host}:${port}`, ports: { http: port }, logFiles: [logPath] };
  },
  readFacts,
  passwordFile: (dataDir) => path.join(dataDir, CREDENTIAL_FILE),
  // The package the server itself reports (else what the label resolved to), and the version read back.
  describe: (s, facts) =>
    `${facts.package ?? engine.resolution.artifact} (ClickHouse ${facts.version}) in pid ${s.pid}, separate process${
      engine.resolution.installed ? `, environment ${engine.resolution.installed.dir}` : ''
    }`,
});

/**
 * Start (or adopt) the embedded ClickHouse engine for one cell.
 *
 * Idempotent: when `<dataDir>/chbench-target.json` names a live process started for this directory
 * that answers `/ping`, its handle is returned and nothing is started. A process left half-started
 * (no label, or not answering) is stopped first; its data directory is kept and reused. Concurrent
 * attempts for the same cell are serialised by `<dataDir>/provision.lock`.
 *
 * @param req run id, cell key, version label (resolved under `engines`: `26.7` the bundled npm
 *   engine, `24.8` PyPI chdb 3.1.2, …) and the absolute work directory
 * @param engines the spec's `target.engines` (default `auto`)
 * @returns handle `{kind: 'embedded', url: 'http://127.0.0.1:<port>', database: 'default',
 *   username: 'default', pid, dataDir, runId, cellKey, provisionedBy}` where provisionedBy reads e.g.
 *   `npm chdb@3.4.0 (ClickHouse 26.7.2.1) in pid 1234, separate process` or
 *   `pypi chdb==3.1.2 (ClickHouse 24.8.4.1) in pid 1234, separate process, environment <dir>`
 * @throws ApplicationFailure `VersionMismatch` (non-retryable) when the version the server reports
 *   (`/chbench/info`, read back) does not match `req.version` (the server is then stopped); Error
 *   when the server does not answer within 60 s or exits (message has the log tail), when the
 *   compiled server script is missing, or when the engine cannot be installed (package, version, cause)
 */
export async function provisionEmbedded(
  req: ProvisionRequest,
  engines: EmbeddedEngines = 'auto',
  resources?: ResourcesSpec,
): Promise<TargetHandle> {
  const engine = await embeddedEngine(req.version, engines);
  return provisionProcess(embeddedServer(engine), req, resources);
}

/**
 * Stop the cell's embedded server and remove its directory (data included). Idempotent.
 * Only a pid whose command line names the handle's `dataDir` is signalled.
 * @param handle a handle from {@link provisionEmbedded} (needs `dataDir`; `pid` optional)
 * @throws Error when the handle has no dataDir, or the process survives SIGKILL
 */
export function teardownEmbedded(handle: TargetHandle): Promise<void> {
  return teardownProcess(handle, EMBEDDED_STOP_GRACE_MS);
}

/** File name of the embedded server's log in the cell directory (stdout + stderr). */
export const EMBEDDED_LOG_FILE = LOG_FILE;
