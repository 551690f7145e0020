/**
 * Provisioning the local target: a ClickHouse server binary started per cell on loopback, with a
 * generated configuration that works on both old (Debian's 18.16) and modern versions (`config.ts`).
 *
 * Cell directory `<workDir>/<runId sanitized>/<cellKey sanitized>/`:
 * `config.xml`, `users.xml`, `data/` (path), `tmp/`, `user_files/`, `format_schemas/`,
 * `log/clickhouse-server.log` + `log/clickhouse-server.err.log` (the server's logger),
 * `server.log` (stdout/stderr), `server.pid`, and the label `chbench-target.json`.
 *
 * The server outlives a worker crash; a retried provision adopts it instead of starting a second one
 * (the skeleton in `../process/provision-process.ts`).
 */
import type { ResourcesSpec } from '../../schema/resources';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { CREDENTIAL_FILE, serverCredential } from '../../engine/credential';
import { ApplicationFailure } from '@temporalio/common';
import { FAILURE } from '../../schema/failures';
import { freePorts } from '../../lib/net';
import type { ProvisionRequest, TargetHandle } from '../../schema/target';
import {
  cellDataDir,
  httpGet,
  LABEL_FILE,
  LOG_FILE,
  provisionProcess,
  spawnDetached,
  teardownProcess,
  type ProcessServer,
} from '../process';
import { localServerCommand, localServerConfig, resolveExecutable } from './config';

export { localServerCommand, localServerConfig, type LocalServerConfig, type LocalServerConfigInput } from './config';

/** Milliseconds a fresh server gets to answer `/ping`. */
const START_TIMEOUT_MS = 60_000;
/** Milliseconds between SIGTERM and SIGKILL at teardown (a server flushes its logs on SIGTERM). */
const STOP_GRACE_MS = 30_000;
/** Starts tried when the chosen ports were taken meanwhile ("Address already in use"). */
const START_ATTEMPTS = 3;

/** `SELECT version()` over HTTP. @throws Error on a non-200 answer */
async function serverVersion(url: string, dataDir: string): Promise<string> {
  const r = await httpGet(`${url}/?query=${encodeURIComponent('SELECT version()')}`, 10_000, {
    'X-ClickHouse-User': 'default',
    'X-ClickHouse-Key': serverCredential(dataDir),
  });
  if (r.status !== 200) throw new Error(`${url}: SELECT version() answered HTTP ${r.status}: ${r.body.slice(0, 300)}`);
  return r.body.trim();
}

function fileSize(f: string): number {
  try {
    return fs.statSync(f).size;
  } catch {
    return 0;
  }
}

function readFrom(f: string, offset: number): string {
  try {
    return fs.readFileSync(f).subarray(offset).toString('utf8');
  } catch {
    return '';
  }
}

/** The server of binary `bin` (absolute path) for the provisioning skeleton. */
function localServer(bin: string): ProcessServer {
  return {
    kind: 'local',
    who: `local target: ${bin}`,
    startTimeoutMs: START_TIMEOUT_MS,
    stopGraceMs: STOP_GRACE_MS,
    failedStartGraceMs: 10_000,
    startAttempts: START_ATTEMPTS,
    async spawn(dataDir, cgroupProcs) {
      const configFile = path.join(dataDir, 'config.xml');
      const logFiles = [path.join(dataDir, LOG_FILE), path.join(dataDir, 'log', 'clickhouse-server.err.log')];
      for (const sub of ['data', 'tmp', 'user_files', 'format_schemas', 'log'])
        fs.mkdirSync(path.join(dataDir, sub), { recursive: true });
      fs.rmSync(path.join(dataDir, LABEL_FILE), { force: true });
      const [httpPort, tcpPort] = await freePorts(2);
      // Nobody in without the cell's password (a local user of this host included).
      const passwordSha256Hex = createHash('sha256').update(serverCredential(dataDir)).digest('hex');
      const cfg = localServerConfig({ dataDir, httpPort, tcpPort, passwordSha256Hex });
      fs.writeFileSync(configFile, cfg.configXml);
      fs.writeFileSync(path.join(dataDir, 'users.xml'), cfg.usersXml);
      const { command, args } = localServerCommand(bin, configFile);
      // server.log is searched from its start (as before), the error log only for this start's lines.
      const logOffsets = [0, fileSize(logFiles[1])];
      const { pid } = await spawnDetached({ command, args, dataDir, cgroupProcs });
      return {
        pid,
        url: `http://127.0.0.1:${httpPort}`,
        ports: { http: httpPort, tcp: tcpPort },
        logFiles,
        logOffsets,
      };
    },
    readFacts: async (url, dataDir) => ({ version: await serverVersion(url, dataDir) }),
    passwordFile: (dataDir) => path.join(dataDir, CREDENTIAL_FILE),
    describe: (s, facts, dataDir) =>
      `${bin} ${facts.version} in pid ${s.pid} (generated config ${path.join(dataDir, 'config.xml')})`,
    retryStart: (s) =>
      /Address already in use/i.test(s.logFiles.map((f, i) => readFrom(f, s.logOffsets?.[i] ?? 0)).join('\n')),
  };
}

/**
 * Start (or adopt) a ClickHouse server from `binaryPath` for one cell, on free loopback ports with
 * a generated configuration ({@link localServerConfig}).
 *
 * Idempotent: when the cell's label names a live process started with this cell's config that
 * answers `/ping`, its handle is returned and nothing is started. A process left half-started is
 * stopped first (its data directory is kept and reused). Concurrent attempts for the same cell are
 * serialised by `<dataDir>/provision.lock`. A start whose ports were taken meanwhile is tried again
 * (3 starts in all).
 *
 * @param req run id, cell key, version label (it must prefix the server's `version()`), absolute work directory
 * @param binaryPath the server executable: `clickhouse-server` (e.g. Debian's
 *   `/usr/sbin/clickhouse-server`) or the multi-call `clickhouse` binary; a bare name is looked up on PATH
 * @returns handle `{kind: 'local', url: 'http://127.0.0.1:<http port>', database: 'default',
 *   username: 'default', pid, dataDir, runId, cellKey, provisionedBy}` where provisionedBy reads e.g.
 *   `/usr/sbin/clickhouse-server 18.16.1 in pid 1234 (generated config /work/r/c/config.xml)`
 * @throws ApplicationFailure `MissingBinary` (non-retryable) when the binary is missing or not
 *   executable; `VersionMismatch` (non-retryable) when the version does not match the label (the
 *   server is then stopped); Error when the server does not answer `/ping` within 60 s or exits
 *   (message has the tails of its logs)
 */
export async function provisionLocal(
  req: ProvisionRequest,
  binaryPath: string,
  resources?: ResourcesSpec,
): Promise<TargetHandle> {
  cellDataDir(req.workDir, req.runId, req.cellKey); // an invalid work dir is reported before a missing binary
  const bin = resolveExecutable(binaryPath);
  if (!bin) {
    throw ApplicationFailure.create({
      type: FAILURE.MissingBinary,
      nonRetryable: true,
      message:
        `local target: ClickHouse server binary ${binaryPath} not found or not executable ` +
        `(Debian: apt-get install -y clickhouse-server installs /usr/sbin/clickhouse-server)`,
    });
  }
  return provisionProcess(localServer(bin), req, resources);
}

/**
 * Stop the cell's server and remove its directory (data, config, logs). Idempotent.
 * Only a pid whose command line names the handle's `dataDir` is signalled (SIGTERM, SIGKILL after 30 s).
 * @param handle a handle from {@link provisionLocal} (needs `dataDir`; `pid` optional)
 * @throws Error when the handle has no dataDir, or the process survives SIGKILL
 */
export function teardownLocal(handle: TargetHandle): Promise<void> {
  return teardownProcess(handle, STOP_GRACE_MS);
}
