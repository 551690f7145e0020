/**
 * The embedded results database's engine process: ONE chdb engine per directory, served over HTTP.
 *
 * chdb takes an exclusive lock on its data directory, so two processes (a worker's activity and a
 * CLI command, say) cannot both open `<resultsDir>/db/data`. Instead the first one to need it starts
 * the embedded target's HTTP server script (`dist/src/engine/server.js`, spawned by path:
 * the results layer may not import target code, see `.dependency-cruiser.cjs`) as a detached process
 * that outlives it, and everyone talks to that process over HTTP exactly like to a ClickHouse server.
 * The process exits by itself after `idleExitS` seconds without a request (`--idle-exit-s`).
 *
 * Files in the directory:
 * - `data/`        the engine's data (chdb's lock lives here);
 * - `server.json`  `{pid, url, port, startedAt, idleExitS}` of the running process ({@link EmbeddedDbProcess});
 * - `port`         the port the server writes once it listens (its `--port-file`);
 * - `start.lock`   held (created with O_EXCL, holding the starter's pid) while one starter spawns the
 *                  process; a lock whose pid is dead, or older than {@link START_TIMEOUT_MS}, is stale and removed;
 * - `server.log`   the process's stdout and stderr; `statements.jsonl` the server's statement log.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { pollUntil } from '../../lib/poll';
import { resultsIdleExitS } from '../../config';

/** How long a start may take (engine start, port written), ms. */
const START_TIMEOUT_MS = 60_000;
/** SIGTERM → SIGKILL grace when stopping, ms. */
const STOP_GRACE_MS = 15_000;

/** `server.json`: the engine process serving a results directory. */
export interface EmbeddedDbProcess {
  pid: number;
  /** `http://127.0.0.1:<port>`. */
  url: string;
  port: number;
  /** ISO time it was started. */
  startedAt: string;
  idleExitS: number;
}

/**
 * Absolute path of the embedded server script: `../../targets/embedded/server.js` from this file's
 * compiled location (`dist/src/results/db/`).
 * @throws Error when it is missing (the TypeScript was not compiled: `npm run build`)
 */
export function embeddedServerScriptPath(): string {
  const p = path.resolve(__dirname, '..', '..', 'engine', 'server.js');
  if (!fs.existsSync(p)) throw new Error(`results database: ${p} not found; compile first (npm run build)`);
  return p;
}

/** True when a process with this pid exists (signal 0). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** True when `pid`'s command line names `dir` (Linux `/proc`); true where `/proc` is not available. */
function isOurServer(pid: number, dir: string): boolean {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(dir);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== 'ENOENT' || !fs.existsSync('/proc/self');
  }
}

/** `GET <url>/ping` answers `Ok.` within `timeoutMs`. */
function ping(url: string, timeoutMs = 2000): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get(`${url}/ping`, { timeout: timeoutMs }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve(res.statusCode === 200 && body.startsWith('Ok.')));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

function readProcessFile(dir: string): EmbeddedDbProcess | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, 'server.json'), 'utf8')) as EmbeddedDbProcess;
  } catch {
    return undefined;
  }
}

/** The live, answering process of `dir`, or undefined. */
async function liveProcess(dir: string): Promise<EmbeddedDbProcess | undefined> {
  const p = readProcessFile(dir);
  return p && isAlive(p.pid) && isOurServer(p.pid, dir) && (await ping(p.url)) ? p : undefined;
}

/**
 * Take `<dir>/start.lock` (O_EXCL, content = our pid). A lock left by a dead process or older than
 * the start timeout is removed and taken.
 * @returns true when taken, false when a live starter holds it.
 */
function tryLock(lock: string): boolean {
  try {
    fs.writeFileSync(lock, `${process.pid}\n`, { flag: 'wx' });
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  let holder: number;
  let ageMs: number;
  try {
    holder = Number.parseInt(fs.readFileSync(lock, 'utf8'), 10);
    ageMs = Date.now() - fs.statSync(lock).mtimeMs;
  } catch {
    return false; // removed meanwhile: try again next poll
  }
  if (Number.isInteger(holder) && isAlive(holder) && ageMs < START_TIMEOUT_MS) return false;
  fs.rmSync(lock, { force: true });
  return false;
}

/**
 * Find or start the engine process of an embedded results database.
 *
 * Found: `server.json` names a live process whose command line names `dir` and that answers `/ping`.
 * Otherwise the caller takes `start.lock`, checks again, and spawns
 * `node server.js --data-dir <dir> --port 0 --port-file <dir>/port --idle-exit-s <n>` detached
 * (its own process group, stdio to `server.log`, not waited for), waits for the port file and a
 * `/ping`, writes `server.json` and releases the lock. A process that exits before listening (e.g.
 * the previous one still holds chdb's lock while it shuts down after its idle period) is started
 * again until the start timeout.
 * @param dir absolute directory of the database (`<resultsDir>/db`)
 * @param opts.idleExitS idle period of a process started now, seconds (default `CHBENCH_RESULTS_IDLE_EXIT_S`, 600)
 * @throws Error after 60 s without an answering process, with the tail of `server.log`
 */
export async function ensureEmbeddedResultsDb(dir: string, opts: { idleExitS?: number } = {}): Promise<EmbeddedDbProcess> {
  dir = path.resolve(dir);
  fs.mkdirSync(dir, { recursive: true });
  const lock = path.join(dir, 'start.lock');
  const idleExitS = opts.idleExitS ?? resultsIdleExitS();
  let lastError = '';
  return pollUntil(
    async () => {
      const live = await liveProcess(dir);
      if (live) return live;
      if (!tryLock(lock)) return undefined;
      try {
        const again = await liveProcess(dir);
        if (again) return again;
        const started = await spawnServer(dir, idleExitS);
        if (typeof started === 'string') {
          lastError = started;
          return undefined;
        }
        fs.writeFileSync(path.join(dir, 'server.json'), JSON.stringify(started, null, 2) + '\n');
        startedHere.add(dir);
        return started;
      } finally {
        fs.rmSync(lock, { force: true });
      }
    },
    {
      what: `the results database engine in ${dir}`,
      timeoutMs: START_TIMEOUT_MS,
      intervalMs: 100,
      onTimeout: () => new Error(`results database: no engine process answering for ${dir} within ${START_TIMEOUT_MS} ms${lastError ? `; last start: ${lastError}` : ''}`),
    },
  );
}

/** Spawn one server; its description, or a string saying why it did not come up. */
async function spawnServer(dir: string, idleExitS: number): Promise<EmbeddedDbProcess | string> {
  const portFile = path.join(dir, 'port');
  const logFile = path.join(dir, 'server.log');
  fs.rmSync(portFile, { force: true });
  const log = fs.openSync(logFile, 'a');
  let pid: number;
  try {
    const child = spawn(process.execPath, [embeddedServerScriptPath(), '--data-dir', dir, '--port', '0', '--port-file', portFile, '--idle-exit-s', String(idleExitS)], {
      detached: true,
      stdio: ['ignore', log, log],
    });
    child.unref();
    if (child.pid === undefined) return 'spawn gave no pid';
    pid = child.pid;
  } finally {
    fs.closeSync(log);
  }
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const port = Number.parseInt(fs.existsSync(portFile) ? fs.readFileSync(portFile, 'utf8') : '', 10);
    if (port > 0) {
      const url = `http://127.0.0.1:${port}`;
      if (await ping(url)) return { pid, url, port, startedAt: new Date().toISOString(), idleExitS };
    }
    if (!isAlive(pid)) return `pid ${pid} exited before listening: ${logTail(logFile)}`;
    await new Promise((r) => setTimeout(r, 50));
  }
  process.kill(pid, 'SIGKILL');
  return `pid ${pid} did not listen within ${START_TIMEOUT_MS} ms: ${logTail(logFile)}`;
}

function logTail(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8').trim().split('\n').slice(-3).join(' | ');
  } catch {
    return '(no log)';
  }
}

/**
 * Stop the engine process of an embedded results database, if one runs: SIGTERM (the server lets
 * the executing statement finish and closes the engine), SIGKILL after 15 s; then removes
 * `server.json` and `port`. Data is kept.
 * @returns the pid stopped, or undefined when none was running.
 */
export async function stopEmbeddedResultsDb(dir: string): Promise<number | undefined> {
  dir = path.resolve(dir);
  const p = readProcessFile(dir);
  let stopped: number | undefined;
  if (p && isAlive(p.pid) && isOurServer(p.pid, dir)) {
    process.kill(p.pid, 'SIGTERM');
    const deadline = Date.now() + STOP_GRACE_MS;
    while (isAlive(p.pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    if (isAlive(p.pid)) process.kill(p.pid, 'SIGKILL');
    while (isAlive(p.pid)) await new Promise((r) => setTimeout(r, 20));
    stopped = p.pid;
  }
  fs.rmSync(path.join(dir, 'server.json'), { force: true });
  fs.rmSync(path.join(dir, 'port'), { force: true });
  return stopped;
}

/** Directories whose engine process this process started (see {@link stopResultsDbsStartedHere}). */
const startedHere = new Set<string>();

/**
 * Stop every engine process this process started (a test harness or the demo at its end: a worker in
 * this process may have opened results databases in several directories).
 * @returns the directories whose process was stopped.
 */
export async function stopResultsDbsStartedHere(): Promise<string[]> {
  const stopped: string[] = [];
  for (const dir of startedHere) if ((await stopEmbeddedResultsDb(dir)) !== undefined) stopped.push(dir);
  startedHere.clear();
  return stopped;
}

/** The process description in `server.json` when that process is alive (no ping), else undefined. For tests and `chbench results stop`. */
export function embeddedResultsDbProcess(dir: string): EmbeddedDbProcess | undefined {
  const p = readProcessFile(path.resolve(dir));
  return p && isAlive(p.pid) ? p : undefined;
}
