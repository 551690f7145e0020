/**
 * The embedded results database's engine process: ONE chdb engine per directory, served over HTTP.
 *
 * chdb takes an exclusive lock on its data directory, so two processes (a worker's activity and a
 * CLI command, say) cannot both open `<resultsDir>/db/data`. Instead the first one to need it starts
 * the engine server (`src/engine/server.ts`, through the one engine launcher `src/engine/launch.ts`)
 * as a detached process that outlives it, and everyone talks to that process over HTTP exactly like to a ClickHouse server.
 * The process exits by itself after `idleExitS` seconds without a request (`--idle-exit-s`).
 *
 * Files in the directory:
 * - `data/`        the engine's data (chdb's lock lives here);
 * - `server.json`  `{pid, url, port, startedAt, idleExitS}` of the running process ({@link EmbeddedDbProcess});
 * - `port`         the port the server writes once it listens (its `--port-file`);
 * - `start.lock`   held (created with O_EXCL, holding the starter's pid) while one starter spawns the
 *                  process; a lock whose pid is dead, or older than {@link START_TIMEOUT_MS}, is stale and removed;
 * - `server.log`   the process's stdout and stderr (`server.pid` its pid); `statements.jsonl` the server's statement log.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pollUntil } from '../../lib/poll';
import { resultsIdleExitS } from '../../config';
import {
  ENGINE_START_TIMEOUT_MS,
  engineServerScript,
  isEngineServer,
  startEngineServer,
  stopEngineServer,
} from '../../engine/launch';
import { httpGet } from '../../process/http';
import { isAlive } from '../../process/proc';
import { credentialEnv } from '../../engine/credential';

/** How long a start may take (engine start, port written), ms. */
const START_TIMEOUT_MS = ENGINE_START_TIMEOUT_MS;
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
 * Absolute path of the engine server script (`dist/src/engine/server.js`).
 * @throws Error when it is missing (the TypeScript was not compiled: `npm run build`)
 */
export const embeddedServerScriptPath = engineServerScript;

/** `GET <url>/ping` answers `Ok.` within `timeoutMs`. */
async function ping(url: string, timeoutMs = 2000): Promise<boolean> {
  try {
    const r = await httpGet(`${url}/ping`, timeoutMs);
    return r.status === 200 && r.body.startsWith('Ok.');
  } catch {
    return false;
  }
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
  return p && isEngineServer(p.pid, dir) && (await ping(p.url)) ? p : undefined;
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

/** Start one server (the launcher waits for its port and `/ping`); its description, or a string saying why it did not come up. */
async function spawnServer(dir: string, idleExitS: number): Promise<EmbeddedDbProcess | string> {
  try {
    // Nobody in without the database's password (`<dir>/credential`, 0600; the directory 0700).
    const s = await startEngineServer({
      dataDir: dir,
      port: 0,
      portFile: path.join(dir, 'port'),
      idleExitS,
      authFromEnv: true,
      env: credentialEnv(dir),
    });
    return { pid: s.pid, url: s.url, port: s.port, startedAt: new Date().toISOString(), idleExitS };
  } catch (e) {
    return (e as Error).message;
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
  if (p && (await stopEngineServer(p.pid, dir, STOP_GRACE_MS))) stopped = p.pid;
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
