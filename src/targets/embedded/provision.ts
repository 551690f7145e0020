/**
 * Provisioning the embedded target: a modern ClickHouse engine (npm `chdb`) in a separate, detached
 * Node process (`src/engine/server.ts`, started by the engine launcher `src/engine/launch.ts`) that serves the ClickHouse
 * HTTP interface on 127.0.0.1. One process and one directory per cell:
 * `<workDir>/<runId sanitized>/<cellKey sanitized>/` holding `data/` (the chdb data), `port`,
 * `server.pid`, `server.log`, `statements.jsonl` and the label `chbench-target.json`.
 *
 * The server outlives a worker crash; a retried provision adopts it instead of starting a second one
 * (the skeleton in `../process/provision-process.ts`).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ProvisionRequest, TargetHandle } from '../../schema/target';
import { hostAddress } from '../../config';
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

/** `GET <url>/chbench/info` as {@link ServerFacts} (version = the engine's ClickHouse version). */
async function readFacts(url: string): Promise<ServerFacts & { engine: string }> {
  const info = await readEngineInfo(url);
  return { version: info.clickhouse, pid: info.pid, dataDir: info.dataDir, engine: info.engine };
}

/** The embedded server for the provisioning skeleton. */
const EMBEDDED_SERVER: ProcessServer<ServerFacts & { engine: string }> = {
  kind: 'embedded',
  who: 'embedded target (the chdb package)',
  startTimeoutMs: START_TIMEOUT_MS,
  stopGraceMs: EMBEDDED_STOP_GRACE_MS,
  failedStartGraceMs: 5000,
  async spawn(dataDir) {
    // This host's loopback address (CHBENCH_HOST_ADDRESS): simulated hosts on one machine keep apart.
    const host = hostAddress();
    fs.rmSync(path.join(dataDir, LABEL_FILE), { force: true });
    // The launcher stops a server that does not come up (keeping its directory) and says why.
    const { pid, port, logPath } = await startEngineServer({
      dataDir,
      host,
      port: 0,
      portFile: path.join(dataDir, 'port'),
      startTimeoutMs: START_TIMEOUT_MS,
    });
    return { pid, url: `http://${host}:${port}`, ports: { http: port }, logFiles: [logPath] };
  },
  readFacts,
  describe: (s, facts) => `${facts.engine} in pid ${s.pid}, separate process`,
};

/**
 * Start (or adopt) the embedded ClickHouse engine for one cell.
 *
 * Idempotent: when `<dataDir>/chbench-target.json` names a live process started for this directory
 * that answers `/ping`, its handle is returned and nothing is started. A process left half-started
 * (no label, or not answering) is stopped first; its data directory is kept and reused. Concurrent
 * attempts for the same cell are serialised by `<dataDir>/provision.lock`.
 *
 * @param req run id, cell key, version label (the engine is whatever chdb ships, ClickHouse 26.7
 *   for chdb 3.4.0) and the absolute work directory
 * @returns handle `{kind: 'embedded', url: 'http://127.0.0.1:<port>', database: 'default',
 *   username: 'default', pid, dataDir, runId, cellKey, provisionedBy}` where provisionedBy reads e.g.
 *   `chdb 3.4.0 (ClickHouse 26.7.2.1) in pid 1234, separate process`
 * @throws Error when the server does not answer within 60 s or exits (message has the log tail),
 *   when the compiled server script is missing, or when `req.version` is not a prefix of the
 *   engine's version (e.g. `18.16` asked of chdb's 26.7.2.1; the server is then stopped)
 */
export function provisionEmbedded(req: ProvisionRequest): Promise<TargetHandle> {
  return provisionProcess(EMBEDDED_SERVER, req);
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
