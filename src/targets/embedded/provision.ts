/**
 * Provisioning the embedded target: a chdb engine in a separate, detached Node process (the engine
 * server, `src/engine/server.ts`, compiled to `server.js`) that serves the ClickHouse HTTP interface
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
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { FAILURE } from '../../schema/failures';
import type { ProvisionRequest, TargetHandle } from '../../schema/target';
import { pollUntil } from '../../lib/poll';
import { hostAddress } from '../../config';
import { installEngine, installedEngine } from '../../engine/install';
import { cancellationSignal, heartbeat } from '../../temporal/activity-context';
import { embeddedSources, pypiBuildFor, type EmbeddedEngines, type VersionResolution } from '../versions';
import {
  describeLogTail,
  httpGet,
  isAlive,
  LABEL_FILE,
  LOG_FILE,
  provisionProcess,
  spawnDetached,
  stopProcess,
  teardownProcess,
  type ProcessServer,
  type ServerFacts,
} from '../process';

/** Milliseconds to wait for a fresh server to write its port and answer `/ping`. */
const START_TIMEOUT_MS = 60_000;
/** Milliseconds between SIGTERM and SIGKILL at teardown. */
export const EMBEDDED_STOP_GRACE_MS = 15_000;

/**
 * Absolute path of the compiled server script: `server.js` next to this file
 * (`dist/src/targets/embedded/` in a compiled checkout).
 * @throws Error when it does not exist (the TypeScript was not compiled: run `npm run build`)
 */
export function embeddedServerScript(): string {
  const p = path.join(__dirname, '..', '..', 'engine', 'server.js');
  if (!fs.existsSync(p)) throw new Error(`embedded target: ${p} not found; compile first (npm run build)`);
  return p;
}

/** What `GET /chbench/info` of the embedded server answers (the fields read here). */
interface ServerInfo {
  chdb: string;
  clickhouse: string;
  engine: string;
  /** The package that serves, e.g. `npm chdb@3.4.0` (absent from servers before the driver seam). */
  package?: string;
  pid: number;
  dataDir: string;
}

/** The facts of an embedded server: its ClickHouse version, engine line and package, as it reports them. */
type EmbeddedFacts = ServerFacts & { engine: string; package?: string };

/** `GET <url>/chbench/info` as {@link ServerFacts} (version = the engine's ClickHouse version, read back). */
async function readFacts(url: string): Promise<EmbeddedFacts> {
  const r = await httpGet(`${url}/chbench/info`, 5000);
  if (r.status !== 200) throw new Error(`${url}/chbench/info: HTTP ${r.status} ${r.body.slice(0, 200)}`);
  const info = JSON.parse(r.body) as ServerInfo;
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
  if (resolution.source === 'npm-chdb') return { resolution, args: ['--engine', 'npm'] };
  const build = pypiBuildFor(label)!;
  let engine = installedEngine(build);
  if (!engine) {
    heartbeat({ step: 'provision', progress: `installing ${resolution.artifact}` });
    const signal = cancellationSignal();
    engine = await installEngine(build, {
      onProgress: (line) =>
        heartbeat({ step: 'provision', progress: `installing ${resolution.artifact}: ${line.slice(0, 200)}` }),
      ...(signal ? { signal } : {}),
    });
  }
  return {
    resolution: {
      ...resolution,
      installed: { dir: engine.dir, python: engine.python, clickhouse: engine.clickhouse },
      description: `${resolution.artifact} → ClickHouse ${engine.clickhouse}, installed at ${engine.dir}`,
    },
    args: ['--engine', 'python', '--python', engine.python],
  };
}

/**
 * Wait until the fresh server at `pid` wrote its port to `file`.
 * @returns the port
 * @throws Error when `pid` exited first, or after `timeoutMs` ms; both name the tail of `logPath`
 */
function waitForPortFile(file: string, pid: number, timeoutMs: number, logPath: string): Promise<number> {
  return pollUntil(
    () => {
      try {
        const n = Number.parseInt(fs.readFileSync(file, 'utf8').trim(), 10);
        if (Number.isInteger(n) && n > 0) return n;
      } catch {
        /* not written yet */
      }
      if (!isAlive(pid))
        throw new Error(`embedded server pid ${pid} exited before listening\n${describeLogTail(logPath)}`);
      return undefined;
    },
    {
      timeoutMs,
      intervalMs: 50,
      stopOn: () => true, // only "the process exited" gets here
      onTimeout: () =>
        new Error(
          `embedded server pid ${pid} did not write ${file} within ${timeoutMs} ms\n${describeLogTail(logPath)}`,
        ),
    },
  );
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
  async spawn(dataDir) {
    const script = embeddedServerScript();
    // This host's loopback address (CHBENCH_HOST_ADDRESS): simulated hosts on one machine keep apart.
    const host = hostAddress();
    const portFile = path.join(dataDir, 'port');
    fs.rmSync(portFile, { force: true });
    fs.rmSync(path.join(dataDir, LABEL_FILE), { force: true });
    const { pid, logPath } = await spawnDetached({
      command: process.execPath,
      args: [script, '--data-dir', dataDir, '--host', host, '--port', '0', '--port-file', portFile, ...engine.args],
      dataDir,
    });
    try {
      const port = await waitForPortFile(portFile, pid, START_TIMEOUT_MS, logPath);
      return { pid, url: `http://${host}:${port}`, ports: { http: port }, logFiles: [logPath] };
    } catch (e) {
      await stopProcess(pid, dataDir, 5000, { keepDir: true }).catch(() => undefined);
      throw e;
    }
  },
  readFacts,
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
): Promise<TargetHandle> {
  const engine = await embeddedEngine(req.version, engines);
  return provisionProcess(embeddedServer(engine), req);
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
