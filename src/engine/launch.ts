/**
 * The one launcher of the chbench engine server (`server.ts` next to this file, compiled to
 * `server.js`): every process that runs an engine — the embedded target's cells
 * (`src/targets/embedded/provision.ts`), the embedded results database (`src/results/db/embedded.ts`)
 * and the simulated kubelet of the Kubernetes tests (`test/k8s/eks-sim.ts`) — is started here, with
 * the same arguments, port file, `/ping` wait and log tail in errors.
 *
 * Library code: it imports only `src/lib` and `src/process` (never target code), so the results layer
 * may use it (see `.dependency-cruiser.cjs`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pollUntil, pollWithin } from '../lib/poll';
import { httpGet, waitForPing } from '../process/http';
import { isAlive, pidExists, processMentions, stopIfOurs } from '../process/proc';
import { describeLogTail, joinCgroupsThenExec, spawnDetached } from '../process/spawn';

/** How long a start may take by default (engine load, port written, `/ping` answered), ms. */
export const ENGINE_START_TIMEOUT_MS = 60_000;

/**
 * Absolute path of the compiled engine server script (`dist/src/engine/server.js`).
 * @throws Error when it does not exist (the TypeScript was not compiled: run `npm run build`)
 */
export function engineServerScript(): string {
  const p = path.join(__dirname, 'server.js');
  if (!fs.existsSync(p)) throw new Error(`engine server: ${p} not found; compile first (npm run build)`);
  return p;
}

/** How to start one engine server (the options of `server.ts`, see its header). */
export interface EngineServerOptions {
  /** The server's directory (`data/`, `statements.jsonl`, `results/`; `server.log` and `server.pid` when detached). Made absolute. */
  dataDir: string;
  /** Loopback address to listen on. @default 127.0.0.1 */
  host?: string;
  /** Port, 0 = chosen by the kernel. @default 0 */
  port?: number;
  /** Where the server writes its port once it listens. @default `<dataDir>/port` */
  portFile?: string;
  /** `--idle-exit-s`: exit after this many seconds without a request. @default never */
  idleExitS?: number;
  /** `--auth-from-env`: require `CLICKHOUSE_USER` / `CLICKHOUSE_PASSWORD` of the server's environment. */
  authFromEnv?: boolean;
  /** `--engine`. @default npm */
  engine?: 'npm' | 'python';
  /** `--python <interpreter>` (with engine `python`). */
  python?: string;
  /**
   * Environment: detached, added to this process's environment; not detached, the WHOLE environment
   * of the child (a simulated container gets only what its pod spec gives). @default {}
   */
  env?: Record<string, string>;
  /**
   * Detached (default): own session, outlives the caller, stdout/stderr appended to
   * `<dataDir>/server.log`, `<dataDir>/server.pid` written, cwd = dataDir. Not detached: a child of
   * the caller with piped stdout/stderr (returned as `child`), cwd = `cwd`.
   * @default true
   */
  detached?: boolean;
  /**
   * `cgroup.procs` files the server joins before it execs (`joinCgroupsThenExec`: a cell's cgroup
   * when detached, a simulated pod's container cgroup when not).
   */
  cgroupProcs?: readonly string[];
  /** Working directory of a child that is not detached. @default this process's */
  cwd?: string;
  /** Wait for the port file and `/ping`. Off for a simulated container, whose probes do it. @default true */
  wait?: boolean;
  /** Bound of that wait, ms. @default {@link ENGINE_START_TIMEOUT_MS} */
  startTimeoutMs?: number;
}

/** A started engine server. */
export interface StartedEngineServer {
  pid: number;
  /** `http://<host>:<port>` (`[::1]` in brackets); the requested port when not waited for. */
  url: string;
  port: number;
  /** `<dataDir>/server.log` when detached; '' when the output is piped (`child`). */
  logPath: string;
  /** The child process when not detached (its stdout/stderr are pipes). */
  child?: ChildProcess;
}

/** The server's command-line arguments for `opts` (after the script path). */
export function engineServerArgs(opts: EngineServerOptions): string[] {
  const dataDir = path.resolve(opts.dataDir);
  const args = [
    '--data-dir',
    dataDir,
    '--host',
    opts.host ?? '127.0.0.1',
    '--port',
    String(opts.port ?? 0),
    '--port-file',
    path.resolve(opts.portFile ?? path.join(dataDir, 'port')),
  ];
  if (opts.idleExitS !== undefined) args.push('--idle-exit-s', String(opts.idleExitS));
  if (opts.authFromEnv) args.push('--auth-from-env');
  if (opts.engine && opts.engine !== 'npm') args.push('--engine', opts.engine);
  if (opts.python) args.push('--python', opts.python);
  return args;
}

/**
 * Start an engine server and (by default) wait until it wrote its port file and answers `/ping`.
 * A stale port file is removed first. When the wait fails, a detached server is stopped (SIGTERM,
 * 5 s, SIGKILL; only while its command line names `dataDir`) and a piped one is killed.
 * @throws Error when the script is missing, the process cannot be spawned, it exits before
 *   listening, or it does not answer within the start timeout; the message has the log tail
 */
export async function startEngineServer(opts: EngineServerOptions): Promise<StartedEngineServer> {
  const script = engineServerScript();
  const dataDir = path.resolve(opts.dataDir);
  const host = opts.host ?? '127.0.0.1';
  const portFile = path.resolve(opts.portFile ?? path.join(dataDir, 'port'));
  const args = [script, ...engineServerArgs({ ...opts, dataDir, portFile })];
  fs.mkdirSync(dataDir, { recursive: true });
  fs.rmSync(portFile, { force: true });
  let pid: number;
  let logPath = '';
  let child: ChildProcess | undefined;
  if (opts.detached ?? true) {
    ({ pid, logPath } = await spawnDetached({
      command: process.execPath,
      args,
      dataDir,
      env: opts.env,
      cgroupProcs: opts.cgroupProcs,
    }));
  } else {
    const [command, argv] = joinCgroupsThenExec(opts.cgroupProcs, process.execPath, args);
    const c = spawn(command, argv, {
      cwd: opts.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: opts.env ?? {},
    });
    await new Promise<void>((resolve, reject) => {
      c.once('spawn', () => resolve());
      c.once('error', (e) => reject(new Error(`cannot start the engine server: ${e.message}`)));
    });
    child = c;
    pid = c.pid!;
  }
  const hostInUrl = host.includes(':') ? `[${host}]` : host;
  if (opts.wait === false)
    return { pid, url: `http://${hostInUrl}:${opts.port ?? 0}`, port: opts.port ?? 0, logPath, child };
  const timeoutMs = opts.startTimeoutMs ?? ENGINE_START_TIMEOUT_MS;
  const deadline = Date.now() + timeoutMs;
  const tail = () => (logPath ? describeLogTail(logPath) : '(output piped to the caller)');
  try {
    const port = await pollUntil(
      () => {
        try {
          const n = Number.parseInt(fs.readFileSync(portFile, 'utf8').trim(), 10);
          if (Number.isInteger(n) && n > 0) return n;
        } catch {
          /* not written yet */
        }
        if (!isAlive(pid)) throw new Error(`engine server pid ${pid} exited before listening\n${tail()}`);
        return undefined;
      },
      {
        timeoutMs,
        intervalMs: 50,
        stopOn: () => true, // only "the process exited" gets here
        onTimeout: () =>
          new Error(`engine server pid ${pid} did not write ${portFile} within ${timeoutMs} ms\n${tail()}`),
      },
    );
    const url = `http://${hostInUrl}:${port}`;
    await waitForPing(url, Math.max(1000, deadline - Date.now()), { pid, logFiles: logPath ? [logPath] : [] });
    return { pid, url, port, logPath, child };
  } catch (e) {
    if (child) child.kill('SIGKILL');
    else await stopIfOurs(pid, dataDir, 5000).catch(() => undefined);
    throw e;
  }
}

/** What `GET /chbench/info` of an engine server answers. */
export interface EngineInfo {
  /** chdb package version, e.g. `3.4.0`. */
  chdb: string;
  /** ClickHouse version of the engine, e.g. `26.7.2.1`. */
  clickhouse: string;
  /** e.g. `chdb 3.4.0 (ClickHouse 26.7.2.1)`. */
  engine: string;
  backend?: 'npm' | 'python';
  package?: string;
  pid: number;
  dataDir: string;
  timezone: string;
  startedAt: string;
}

/**
 * `GET <url>/chbench/info`.
 * @param headers e.g. the credentials of a server started with `authFromEnv`
 * @throws Error when the server does not answer 200 within `timeoutMs`
 */
export async function readEngineInfo(
  url: string,
  timeoutMs = 5000,
  headers: Record<string, string> = {},
): Promise<EngineInfo> {
  const r = await httpGet(`${url}/chbench/info`, timeoutMs, headers);
  if (r.status !== 200) throw new Error(`${url}/chbench/info: HTTP ${r.status} ${r.body.slice(0, 200)}`);
  return JSON.parse(r.body) as EngineInfo;
}

/** Whether `pid` is alive and is the engine server started for `dataDir` (its command line names it). */
export function isEngineServer(pid: number, dataDir: string): boolean {
  return isAlive(pid) && processMentions(pid, path.resolve(dataDir));
}

/**
 * Stop the engine server `pid` of `dataDir`: SIGTERM (it lets the executing statement finish and
 * closes the engine), SIGKILL after `graceMs`; only while its command line names `dataDir`. Then
 * waits (at most 10 s) until the pid is reaped too, so `kill(pid, 0)` fails afterwards (a detached
 * server whose starter exited is reaped by init a moment after it becomes a zombie).
 * @returns whether it was signalled (false: gone already, or not ours)
 * @throws Error when it survives SIGKILL
 */
export async function stopEngineServer(pid: number, dataDir: string, graceMs = 15_000): Promise<boolean> {
  const signalled = await stopIfOurs(pid, path.resolve(dataDir), graceMs);
  if (signalled) await pollWithin(() => !pidExists(pid), { timeoutMs: 10_000, intervalMs: 20, stopOn: () => true });
  return signalled;
}
