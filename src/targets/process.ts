/**
 * Lifecycle of the server processes chbench starts for a cell (the embedded chdb server and a local
 * ClickHouse binary): free loopback ports, detached spawning, the pid and label files, waiting for
 * `/ping`, adopting a server an earlier attempt started, and stopping it safely.
 *
 * Layout of a cell's directory (`dataDir`), shared by every process-based target:
 *
 * | file                  | written by        | content                                                   |
 * | --------------------- | ----------------- | --------------------------------------------------------- |
 * | `server.pid`          | {@link spawnDetached} | decimal pid of the server process, newline             |
 * | `server.log`          | the server (stdout+stderr, appended)                                          |
 * | `chbench-target.json` | {@link writeLabel} | {@link TargetLabel}: lets a later `gc` find it by run id |
 * | `chbench-owner.json`  | {@link writeOwnerFile} | {@link TemporalOwner}, written before the server starts: where its workflow lives |
 *
 * Safety rules every function here keeps:
 * - a pid is only signalled when `/proc/<pid>/cmdline` names the cell's `dataDir` (a recycled pid that
 *   now belongs to another program is never killed);
 * - everything listens on, and is reached through, 127.0.0.1 only.
 *
 * Linux only (uses `/proc`).
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as path from 'node:path';
import type { TargetHandle, TemporalOwner } from '../schema/target';

/** Name of the label file in a cell's directory. */
export const LABEL_FILE = 'chbench-target.json';
/** Name of the owner file in a cell's directory (written before the server is started). */
export const OWNER_FILE = 'chbench-owner.json';
/** Name of the pid file in a cell's directory. */
export const PID_FILE = 'server.pid';
/** Name of the file receiving the server's stdout and stderr in a cell's directory. */
export const LOG_FILE = 'server.log';

/** Which process-based target a label describes. */
export type ProcessTargetKind = 'embedded' | 'local';

/**
 * Content of `<dataDir>/chbench-target.json`. Written once the server answers `/ping`.
 * JSON-serialisable, no secret.
 */
export interface TargetLabel {
  /** Run id the server belongs to (what `gc` filters on). */
  runId: string;
  /** Cell key the server belongs to. */
  cellKey: string;
  kind: ProcessTargetKind;
  /** PID of the server process. */
  pid: number;
  /** Loopback ports the server listens on: `http` always, `tcp` for a ClickHouse binary. */
  ports: { http: number; tcp?: number };
  /** Base URL of the HTTP interface, `http://127.0.0.1:<ports.http>`. */
  url: string;
  /** Absolute path of the cell's directory (the one holding this label). */
  dataDir: string;
  /** ISO-8601 UTC time the label was written (≈ the time the server became ready). */
  startedAt: string;
  /** The human line that goes into `TargetHandle.provisionedBy`. */
  provisionedBy: string;
  /**
   * Where the owning workflow lives (Temporal address, namespace, workflow ids). Absent in labels
   * written by older versions or outside a workflow: `gc` then keeps the server unless forced.
   */
  owner?: TemporalOwner;
}

/**
 * Make a string safe as one path segment: every character outside `[A-Za-z0-9._-]` becomes `_`,
 * and `.`/`..`/empty become `_`.
 * @param s any string (e.g. a run id such as `run/2026-11-29T18:00`)
 * @returns a non-empty segment without `/`
 */
export function sanitizePathSegment(s: string): string {
  const out = s.replace(/[^A-Za-z0-9._-]/g, '_');
  return out === '' || out === '.' || out === '..' ? '_' : out;
}

/**
 * Directory of one cell's server: `<workDir>/<runId sanitized>/<cellKey sanitized>`.
 * @param workDir absolute root directory for per-cell directories
 * @throws Error when `workDir` is not absolute
 */
export function cellDataDir(workDir: string, runId: string, cellKey: string): string {
  if (!path.isAbsolute(workDir)) throw new Error(`workDir must be an absolute path, got ${JSON.stringify(workDir)}`);
  return path.join(workDir, sanitizePathSegment(runId), sanitizePathSegment(cellKey));
}

/**
 * Ask the kernel for a free TCP port on 127.0.0.1 (listen on port 0, read it, close).
 * The port is free when returned; another process could still take it before the caller binds it,
 * so a caller that cannot bind port 0 itself should retry on "address in use".
 * @returns a port number in 1..65535
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => (port > 0 ? resolve(port) : reject(new Error('freePort: no port assigned'))));
    });
  });
}

/**
 * Several distinct free loopback ports (see {@link freePort}).
 * @param n how many (≥ 1)
 */
export async function freePorts(n: number): Promise<number[]> {
  const out: number[] = [];
  while (out.length < n) {
    const p = await freePort();
    if (!out.includes(p)) out.push(p);
  }
  return out;
}

/** What {@link spawnDetached} started. */
export interface SpawnedProcess {
  pid: number;
  /** Absolute path of the file receiving stdout and stderr. */
  logPath: string;
}

/**
 * Start a server process that outlives the caller: own session (`setsid`, via `detached`), not
 * referenced by the caller's event loop, stdin closed, stdout and stderr appended to
 * `<dataDir>/server.log`, cwd = `dataDir`. Writes `<dataDir>/server.pid` before returning.
 *
 * `NODE_TEST_CONTEXT` / `NODE_OPTIONS` of the caller are not passed on (a server started from a
 * `node --test` run must not behave as a test child).
 *
 * @param opts.command executable (absolute path, or a name found on PATH)
 * @param opts.args arguments; one of them must mention `dataDir` so the adopt/stop checks recognise it
 * @param opts.dataDir the cell's directory (created if missing)
 * @param opts.env extra environment variables
 * @throws Error when the process cannot be spawned (e.g. ENOENT) — with the log tail
 */
export async function spawnDetached(opts: {
  command: string;
  args: string[];
  dataDir: string;
  env?: Record<string, string>;
}): Promise<SpawnedProcess> {
  fs.mkdirSync(opts.dataDir, { recursive: true });
  const logPath = path.join(opts.dataDir, LOG_FILE);
  const fd = fs.openSync(logPath, 'a');
  const env: NodeJS.ProcessEnv = { ...process.env, ...(opts.env ?? {}) };
  delete env.NODE_TEST_CONTEXT;
  delete env.NODE_OPTIONS;
  try {
    fs.writeSync(fd, `--- ${new Date().toISOString()} chbench starts: ${[opts.command, ...opts.args].join(' ')}\n`);
    const child = spawn(opts.command, opts.args, {
      cwd: opts.dataDir,
      detached: true,
      stdio: ['ignore', fd, fd],
      env,
    });
    const pid = await new Promise<number>((resolve, reject) => {
      child.once('error', (e) => reject(new Error(`cannot start ${opts.command}: ${e.message}`)));
      child.once('spawn', () => resolve(child.pid as number));
    });
    child.unref();
    // Keep the exit status visible in the log when the caller is still alive to see it.
    child.once('exit', (code, signal) => {
      try {
        fs.appendFileSync(logPath, `--- ${new Date().toISOString()} pid ${pid} exited (code ${code}, signal ${signal})\n`);
      } catch {
        /* the directory may already be gone (teardown) */
      }
    });
    fs.writeFileSync(path.join(opts.dataDir, PID_FILE), `${pid}\n`);
    return { pid, logPath };
  } catch (e) {
    throw new Error(`${(e as Error).message}\n${describeLogTail(logPath)}`);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Last bytes of a text file, for error messages.
 * @param file path (missing file → empty string)
 * @param maxBytes how much of the end to return (default 4000)
 */
export function tailFile(file: string, maxBytes = 4000): string {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, 'r');
    const size = fs.fstatSync(fd).size;
    const len = Math.min(size, maxBytes);
    const buf = Buffer.alloc(len);
    fs.readSync(fd, buf, 0, len, size - len);
    return buf.toString('utf8');
  } catch {
    return '';
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** `tail of <file>:\n<text>` for each file that has content, or a note that none has. */
export function describeLogTail(...files: string[]): string {
  const parts = files
    .map((f) => [f, tailFile(f, 3000).trimEnd()] as const)
    .filter(([, t]) => t.length > 0)
    .map(([f, t]) => `--- tail of ${f}:\n${t}`);
  return parts.length ? parts.join('\n') : `(no log output in ${files.join(', ')})`;
}

/**
 * Whether a process exists and is not a zombie.
 * @param pid process id (≤ 0 → false)
 */
export function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 3 (after the parenthesised command name) is the state; Z = zombie, X = dead.
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/**
 * Arguments of a live process, from `/proc/<pid>/cmdline`.
 * @returns the argv array, or `undefined` when the process is gone (or is a zombie)
 */
export function processArgs(pid: number): string[] | undefined {
  if (!isAlive(pid)) return undefined;
  try {
    const raw = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    if (raw.length === 0) return undefined;
    return raw.replace(/\0$/, '').split('\0');
  } catch {
    return undefined;
  }
}

/**
 * Whether the live process `pid` was started for `dataDir`: one of its arguments equals `dataDir`,
 * contains `<dataDir>/`, or ends with `=<dataDir>` (so `/x/cell` does not match `/x/cell2`).
 */
export function processMentions(pid: number, dataDir: string): boolean {
  const args = processArgs(pid);
  if (!args) return false;
  const d = path.resolve(dataDir);
  return args.some((a) => a === d || a.includes(`${d}/`) || a.endsWith(`=${d}`));
}

/**
 * Write `<label.dataDir>/chbench-target.json` atomically (temp file + rename).
 * @throws Error on I/O failure
 */
export function writeLabel(label: TargetLabel): void {
  const file = path.join(label.dataDir, LABEL_FILE);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(label, null, 2)}\n`);
  fs.renameSync(tmp, file);
}

/**
 * Read a cell's label.
 * @returns the label, or `undefined` when the file is missing or not valid JSON
 */
export function readLabel(dataDir: string): TargetLabel | undefined {
  try {
    const v = JSON.parse(fs.readFileSync(path.join(dataDir, LABEL_FILE), 'utf8')) as TargetLabel;
    return typeof v === 'object' && v && typeof v.pid === 'number' ? v : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Record, before a server is started in `dataDir`, which workflow it belongs to (so a directory
 * whose provision failed before its label was written can still be attributed). Atomic.
 * @throws Error on I/O failure
 */
export function writeOwnerFile(dataDir: string, owner: TemporalOwner): void {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, OWNER_FILE);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(owner, null, 2)}\n`);
  fs.renameSync(tmp, file);
}

/**
 * Where the workflow owning a cell's directory lives: the label's `owner`, else the owner file.
 * @returns undefined when neither records it (old label, or a directory made outside a workflow)
 */
export function readOwner(dataDir: string): TemporalOwner | undefined {
  const l = readLabel(dataDir);
  if (l?.owner) return l.owner;
  try {
    const v = JSON.parse(fs.readFileSync(path.join(dataDir, OWNER_FILE), 'utf8')) as TemporalOwner;
    return v && typeof v.address === 'string' && typeof v.namespace === 'string' && typeof v.workflowId === 'string' && typeof v.matrixWorkflowId === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Record the owner of a cell's directory: the owner file always, and the label when there is one
 * whose owner differs (a server adopted by a later execution of the cell, e.g. after a resume).
 * No-op without an owner.
 */
export function recordOwner(dataDir: string, owner: TemporalOwner | undefined): void {
  if (!owner) return;
  writeOwnerFile(dataDir, owner);
  const l = readLabel(dataDir);
  if (l && JSON.stringify(l.owner) !== JSON.stringify(owner)) writeLabel({ ...l, owner });
}

/**
 * Read `<dataDir>/server.pid`.
 * @returns the pid, or `undefined` when missing/unparsable
 */
export function readPidFile(dataDir: string): number | undefined {
  try {
    const n = Number.parseInt(fs.readFileSync(path.join(dataDir, PID_FILE), 'utf8').trim(), 10);
    return Number.isInteger(n) && n > 0 ? n : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Every label under `workDir` (`<workDir>/<run>/<cell>/chbench-target.json`), e.g. for a `gc`
 * command that removes what a run left behind. Unreadable entries are skipped.
 * @param workDir root passed as `ProvisionRequest.workDir`
 * @param runId when given, only labels of that run
 */
export function listLabels(workDir: string, runId?: string): TargetLabel[] {
  const out: TargetLabel[] = [];
  let runs: string[];
  try {
    runs = fs.readdirSync(workDir);
  } catch {
    return out;
  }
  for (const r of runs) {
    if (runId !== undefined && r !== sanitizePathSegment(runId)) continue;
    let cells: string[];
    try {
      cells = fs.readdirSync(path.join(workDir, r));
    } catch {
      continue;
    }
    for (const c of cells) {
      const l = readLabel(path.join(workDir, r, c));
      if (l && (runId === undefined || l.runId === runId)) out.push(l);
    }
  }
  return out;
}

/**
 * Every cell directory under `workDir` (`<workDir>/<run>/<cell>`), with or without a label: a
 * provision that failed before writing its label still leaves `server.pid` and logs there. A `gc`
 * removes a run with `stopProcess(undefined, dir)` on each (it finds the pid in the label or
 * `server.pid`, and only signals a process whose command line names the directory).
 * @param workDir root passed as `ProvisionRequest.workDir`
 * @param runId when given, only that run's cells
 * @returns absolute directory paths
 */
export function listCellDirs(workDir: string, runId?: string): string[] {
  const out: string[] = [];
  let runs: string[];
  try {
    runs = runId === undefined ? fs.readdirSync(workDir) : [sanitizePathSegment(runId)];
  } catch {
    return out;
  }
  for (const r of runs) {
    try {
      for (const c of fs.readdirSync(path.join(workDir, r), { withFileTypes: true })) {
        if (c.isDirectory()) out.push(path.resolve(workDir, r, c.name));
      }
    } catch {
      /* not a directory, or gone */
    }
  }
  return out;
}

/** Result of one HTTP GET on loopback. */
export interface HttpGetResult {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * One HTTP GET without connection reuse (so nothing keeps the caller's event loop alive).
 * @param url absolute `http://` URL
 * @param timeoutMs abort after this many milliseconds
 * @throws Error on connection failure or timeout
 */
export function httpGet(url: string, timeoutMs: number): Promise<HttpGetResult> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false, headers: { connection: 'close' }, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${url}: no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
  });
}

/**
 * Whether `GET <url>/ping` answers `200 Ok.` within `timeoutMs`.
 * @param url base URL, e.g. `http://127.0.0.1:18123`
 */
export async function pingOnce(url: string, timeoutMs = 2000): Promise<boolean> {
  try {
    const r = await httpGet(`${url.replace(/\/$/, '')}/ping`, timeoutMs);
    return r.status === 200 && r.body.startsWith('Ok.');
  } catch {
    return false;
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Poll `GET <url>/ping` until it answers `Ok.`.
 * @param url base URL of the HTTP interface
 * @param timeoutMs give up after this many milliseconds
 * @param opts.pid when given, fail as soon as this process has exited
 * @param opts.logFiles files whose tails go into the error message
 * @throws Error on timeout or when `opts.pid` exited; the message names the URL, the pid state, the
 *   last connection error and the tail of each log file
 */
export async function waitForPing(url: string, timeoutMs: number, opts: { pid?: number; logFiles?: string[] } = {}): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError = 'no attempt made';
  let delay = 50;
  for (;;) {
    try {
      const r = await httpGet(`${url.replace(/\/$/, '')}/ping`, Math.max(100, Math.min(2000, deadline - Date.now())));
      if (r.status === 200 && r.body.startsWith('Ok.')) return;
      lastError = `HTTP ${r.status}: ${r.body.slice(0, 200)}`;
    } catch (e) {
      lastError = (e as Error).message;
    }
    const exited = opts.pid !== undefined && !isAlive(opts.pid);
    if (exited || Date.now() >= deadline) {
      const state = opts.pid === undefined ? '' : exited ? ` (pid ${opts.pid} has exited)` : ` (pid ${opts.pid} still running)`;
      const why = exited ? 'server process exited before answering' : `no answer within ${timeoutMs} ms`;
      throw new Error(`${url}/ping: ${why}${state}; last error: ${lastError}\n${describeLogTail(...(opts.logFiles ?? []))}`);
    }
    await sleep(delay);
    delay = Math.min(delay * 2, 250);
  }
}

/** Wait until `pid` is gone or `timeoutMs` passed. @returns whether it is gone */
async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() >= deadline) return false;
    await sleep(50);
  }
  return true;
}

/**
 * Stop a server chbench started, then remove its directory. Idempotent: a process already gone, or
 * a directory already removed, is success.
 *
 * The pid is only signalled while `/proc/<pid>/cmdline` mentions `dataDir` ({@link processMentions});
 * a pid that now belongs to another program is left alone. Sequence: SIGTERM, wait up to `graceMs`,
 * SIGKILL, wait up to 10 s more.
 *
 * @param pid pid to stop; `undefined` → taken from the label or `server.pid` in `dataDir`
 * @param dataDir the cell's directory (removed recursively afterwards)
 * @param graceMs milliseconds between SIGTERM and SIGKILL (default 15000)
 * @param opts.keepDir stop the process but keep the directory
 * @throws Error when the process survives SIGKILL, or the directory cannot be removed
 */
export async function stopProcess(pid: number | undefined, dataDir: string, graceMs = 15000, opts: { keepDir?: boolean } = {}): Promise<void> {
  const dir = path.resolve(dataDir);
  const candidates = new Set<number>();
  if (pid !== undefined) candidates.add(pid);
  const lp = readLabel(dir)?.pid;
  if (lp !== undefined) candidates.add(lp);
  const pp = readPidFile(dir);
  if (pp !== undefined) candidates.add(pp);
  for (const p of candidates) {
    if (!processMentions(p, dir)) continue;
    try {
      process.kill(p, 'SIGTERM');
    } catch {
      continue; // already gone
    }
    if (await waitForExit(p, graceMs)) continue;
    if (processMentions(p, dir)) {
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        /* gone meanwhile */
      }
    }
    if (!(await waitForExit(p, 10000))) throw new Error(`pid ${p} (${dir}) survived SIGKILL`);
  }
  if (!opts.keepDir) {
    fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    // Remove the run's directory too when this was its last cell (ignore "not empty"/"gone").
    try {
      fs.rmdirSync(path.dirname(dir));
    } catch {
      /* not empty, or already gone */
    }
  }
}

/**
 * Run `fn` holding `<dataDir>/provision.lock` (created with O_EXCL), so two provision attempts for
 * the same cell (e.g. a retry racing an attempt that is still running) never start two servers: the
 * second waits, then adopts. A lock older than `staleMs` (its holder died) is broken.
 * @param dataDir the cell's directory (created if missing)
 * @param fn the work to do while holding the lock
 * @param opts.waitMs give up waiting after this many milliseconds (default 150000)
 * @param opts.staleMs lock age after which it is considered abandoned (default 120000)
 * @throws Error when the lock is still held after `waitMs`; whatever `fn` throws
 */
export async function withCellLock<T>(dataDir: string, fn: () => Promise<T>, opts: { waitMs?: number; staleMs?: number } = {}): Promise<T> {
  const waitMs = opts.waitMs ?? 150_000;
  const staleMs = opts.staleMs ?? 120_000;
  const lock = path.join(dataDir, 'provision.lock');
  const deadline = Date.now() + waitMs;
  for (;;) {
    fs.mkdirSync(dataDir, { recursive: true });
    try {
      fs.writeFileSync(lock, `${process.pid} ${new Date().toISOString()}\n`, { flag: 'wx' });
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    let age = 0;
    try {
      age = Date.now() - fs.statSync(lock).mtimeMs;
    } catch {
      continue; // released meanwhile
    }
    if (age > staleMs) {
      fs.rmSync(lock, { force: true });
      continue;
    }
    if (Date.now() > deadline) throw new Error(`${lock} is held by another provision attempt (${tailFile(lock, 200).trim()}) for ${Math.round(age / 1000)} s`);
    await sleep(200);
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(lock, { force: true });
  }
}

/** What {@link findRunningServer} found in a cell's directory. */
export interface RunningServer {
  pid: number;
  /** The label, when the earlier attempt got as far as writing it. */
  label?: TargetLabel;
}

/**
 * The live server process an earlier attempt started for `dataDir`, if any: the pid from the label
 * (or from `server.pid` when the label was not written yet) that is alive and whose command line
 * mentions `dataDir`.
 */
export function findRunningServer(dataDir: string): RunningServer | undefined {
  const dir = path.resolve(dataDir);
  const label = readLabel(dir);
  if (label && processMentions(label.pid, dir)) return { pid: label.pid, label };
  const pp = readPidFile(dir);
  if (pp !== undefined && processMentions(pp, dir)) return { pid: pp };
  return undefined;
}

/**
 * Adopt the server an earlier attempt left for this cell, so a retried provision never starts a
 * second one. Returns the label when: the label file exists, matches `runId`/`cellKey`/`kind`, its pid
 * is alive and its command line mentions `dataDir`, and `/ping` answers within `pingTimeoutMs`.
 *
 * @returns the label to build the handle from, or `undefined` when there is nothing to adopt
 *   (the caller then stops any half-started process with {@link stopProcess} `keepDir` and starts anew)
 */
export async function tryAdopt(
  dataDir: string,
  expect: { runId: string; cellKey: string; kind: ProcessTargetKind },
  pingTimeoutMs = 5000,
): Promise<TargetLabel | undefined> {
  const running = findRunningServer(dataDir);
  const label = running?.label;
  if (!label || label.runId !== expect.runId || label.cellKey !== expect.cellKey || label.kind !== expect.kind) return undefined;
  try {
    await waitForPing(label.url, pingTimeoutMs, { pid: label.pid });
  } catch {
    return undefined;
  }
  // The port could have been taken by someone else after our server died; re-check the pid.
  return processMentions(label.pid, dataDir) ? label : undefined;
}

/** The {@link TargetHandle} of a server described by its label (database `default`, user `default`). */
export function handleFromLabel(l: TargetLabel): TargetHandle {
  return {
    kind: l.kind,
    url: l.url,
    database: 'default',
    username: 'default',
    pid: l.pid,
    dataDir: l.dataDir,
    runId: l.runId,
    cellKey: l.cellKey,
    provisionedBy: l.provisionedBy,
  };
}

/**
 * A numeric version label (`26.7`, `18.16`) must be a prefix of the server's `version()`, so a cell
 * is never reported under a version it did not run; a non-numeric label (e.g. `chdb`) is accepted.
 * @throws Error `<who> is ClickHouse <actual>, but the cell asks for version <label>`
 */
export function checkVersion(label: string, actual: string, who: string): void {
  if (!/^\d+(\.\d+)*$/.test(label)) return;
  if (actual === label || actual.startsWith(`${label}.`)) return;
  throw new Error(`${who} is ClickHouse ${actual}, but the cell asks for version ${label}`);
}
