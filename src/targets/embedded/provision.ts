/**
 * Provisioning the embedded target: a modern ClickHouse engine (npm `chdb`) in a separate, detached
 * Node process (`server.ts` next to this file, compiled to `server.js`) that serves the ClickHouse
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
import { pollUntil } from '../../lib/poll';
import { hostAddress } from '../../config';
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

/** What `GET /chbench/info` of the embedded server answers. */
interface ServerInfo {
  chdb: string;
  clickhouse: string;
  engine: string;
  pid: number;
  dataDir: string;
}

/** `GET <url>/chbench/info` as {@link ServerFacts} (version = the engine's ClickHouse version). */
async function readFacts(url: string): Promise<ServerFacts & { engine: string }> {
  const r = await httpGet(`${url}/chbench/info`, 5000);
  if (r.status !== 200) throw new Error(`${url}/chbench/info: HTTP ${r.status} ${r.body.slice(0, 200)}`);
  const info = JSON.parse(r.body) as ServerInfo;
  return { version: info.clickhouse, pid: info.pid, dataDir: info.dataDir, engine: info.engine };
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

/** The embedded server for the provisioning skeleton. */
const EMBEDDED_SERVER: ProcessServer<ServerFacts & { engine: string }> = {
  kind: 'embedded',
  who: 'embedded target (the chdb package)',
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
      args: [script, '--data-dir', dataDir, '--host', host, '--port', '0', '--port-file', portFile],
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
