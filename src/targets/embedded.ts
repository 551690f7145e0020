/**
 * Embedded target: a modern ClickHouse engine (npm `chdb`) in a separate, detached Node process
 * (embedded-server.ts) that serves the ClickHouse HTTP interface on 127.0.0.1. One process and one
 * directory per cell: `<workDir>/<runId sanitized>/<cellKey sanitized>/` holding `data/` (the chdb
 * data), `port`, `server.pid`, `server.log` and the label `chbench-target.json`.
 *
 * The server outlives a worker crash; a retried provision adopts it instead of starting a second one.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ProvisionRequest, TargetHandle } from '../schema/target';
import {
  cellDataDir,
  describeLogTail,
  findRunningServer,
  httpGet,
  isAlive,
  LOG_FILE,
  spawnDetached,
  stopProcess,
  tryAdopt,
  waitForPing,
  withCellLock,
  writeLabel,
  recordOwner,
  type TargetLabel,
  handleFromLabel,
  checkVersion,
} from './process';

/** Milliseconds to wait for a fresh server to write its port and answer `/ping`. */
const START_TIMEOUT_MS = 60_000;
/** Milliseconds between SIGTERM and SIGKILL at teardown. */
const STOP_GRACE_MS = 15_000;

/**
 * Absolute path of the compiled server script: `embedded-server.js` next to this file
 * (`dist/src/targets/` in a compiled checkout).
 * @throws Error when it does not exist (the TypeScript was not compiled: run `npm run build`)
 */
export function embeddedServerScript(): string {
  const p = path.join(__dirname, 'embedded-server.js');
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

async function serverInfo(url: string): Promise<ServerInfo> {
  const r = await httpGet(`${url}/chbench/info`, 5000);
  if (r.status !== 200) throw new Error(`${url}/chbench/info: HTTP ${r.status} ${r.body.slice(0, 200)}`);
  return JSON.parse(r.body) as ServerInfo;
}


async function waitForPortFile(file: string, pid: number, timeoutMs: number, logPath: string): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const n = Number.parseInt(fs.readFileSync(file, 'utf8').trim(), 10);
      if (Number.isInteger(n) && n > 0) return n;
    } catch {
      /* not written yet */
    }
    if (!isAlive(pid)) throw new Error(`embedded server pid ${pid} exited before listening\n${describeLogTail(logPath)}`);
    if (Date.now() >= deadline) throw new Error(`embedded server pid ${pid} did not write ${file} within ${timeoutMs} ms\n${describeLogTail(logPath)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Start (or adopt) the embedded ClickHouse engine for one cell.
 *
 * Idempotent: when `<dataDir>/chbench-target.json` names a live process started for this directory
 * that answers `/ping`, its handle is returned and nothing is started. A process left half-started
 * (no label, or not answering) is stopped first; its data directory is kept and reused. Concurrent
 * attempts for the same cell are serialised by `<dataDir>/provision.lock`.
 *
 * @param req run id, cell key, version label (informational: the engine is whatever chdb ships,
 *   ClickHouse 26.7 for chdb 3.4.0) and the absolute work directory
 * @returns handle `{kind: 'embedded', url: 'http://127.0.0.1:<port>', database: 'default',
 *   username: 'default', pid, dataDir, runId, cellKey, provisionedBy}` where provisionedBy reads e.g.
 *   `chdb 3.4.0 (ClickHouse 26.7.2.1) in pid 1234, separate process`
 * @throws Error when the server does not answer within 60 s or exits (message has the log tail),
 *   when the compiled server script is missing, or when `req.version` is numeric and not a prefix of
 *   the engine's version (e.g. `18.16` asked of chdb's 26.7.2.1; the server is then stopped)
 */
export async function provisionEmbedded(req: ProvisionRequest): Promise<TargetHandle> {
  const dataDir = cellDataDir(req.workDir, req.runId, req.cellKey);
  return withCellLock(dataDir, () => provisionLocked(req, dataDir));
}

async function provisionLocked(req: ProvisionRequest, dataDir: string): Promise<TargetHandle> {
  recordOwner(dataDir, req.owner);
  const adopted = await tryAdopt(dataDir, { runId: req.runId, cellKey: req.cellKey, kind: 'embedded' });
  if (adopted) {
    const info = await serverInfo(adopted.url);
    checkVersion(req.version, info.clickhouse, 'embedded target (the chdb package)');
    return handleFromLabel(adopted);
  }

  // Something half-started by an earlier attempt (or hung): stop it, keep the data.
  const stale = findRunningServer(dataDir);
  if (stale) await stopProcess(stale.pid, dataDir, STOP_GRACE_MS, { keepDir: true });

  const script = embeddedServerScript();
  fs.mkdirSync(dataDir, { recursive: true });
  const portFile = path.join(dataDir, 'port');
  fs.rmSync(portFile, { force: true });
  fs.rmSync(path.join(dataDir, 'chbench-target.json'), { force: true });
  const { pid, logPath } = await spawnDetached({
    command: process.execPath,
    args: [script, '--data-dir', dataDir, '--port', '0', '--port-file', portFile],
    dataDir,
  });
  try {
    const port = await waitForPortFile(portFile, pid, START_TIMEOUT_MS, logPath);
    const url = `http://127.0.0.1:${port}`;
    await waitForPing(url, START_TIMEOUT_MS, { pid, logFiles: [logPath] });
    const info = await serverInfo(url);
    try {
      checkVersion(req.version, info.clickhouse, 'embedded target (the chdb package)');
    } catch (e) {
      await stopProcess(pid, dataDir, 5000).catch(() => undefined); // retrying cannot help: remove all
      throw e;
    }
    if (info.pid !== pid || path.resolve(info.dataDir) !== dataDir) {
      throw new Error(`embedded server at ${url} reports pid ${info.pid} / ${info.dataDir}, expected pid ${pid} / ${dataDir}`);
    }
    const label: TargetLabel = {
      runId: req.runId,
      cellKey: req.cellKey,
      kind: 'embedded',
      pid,
      ports: { http: port },
      url,
      dataDir,
      startedAt: new Date().toISOString(),
      provisionedBy: `${info.engine} in pid ${pid}, separate process`,
      ...(req.owner ? { owner: req.owner } : {}),
    };
    writeLabel(label);
    return handleFromLabel(label);
  } catch (e) {
    await stopProcess(pid, dataDir, 5000, { keepDir: true }).catch(() => undefined);
    throw e;
  }
}

/**
 * Stop the cell's embedded server and remove its directory (data included). Idempotent.
 * Only a pid whose command line names the handle's `dataDir` is signalled.
 * @param handle a handle from {@link provisionEmbedded} (needs `dataDir`; `pid` optional)
 * @throws Error when the handle has no dataDir, or the process survives SIGKILL
 */
export async function teardownEmbedded(handle: TargetHandle): Promise<void> {
  if (!handle.dataDir) throw new Error('teardownEmbedded: handle has no dataDir');
  await stopProcess(handle.pid, handle.dataDir, STOP_GRACE_MS);
}

/** File name of the embedded server's log in the cell directory (stdout + stderr). */
export const EMBEDDED_LOG_FILE = LOG_FILE;
