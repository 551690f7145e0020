/**
 * Starting a server process that outlives the caller: detached spawning with the output appended to
 * `<dir>/server.log`, and log tails for error messages. Library code (no target knowledge): the
 * process targets, the engine launcher (`src/engine/launch.ts`) and the results database use it.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

/** File name of a server's log (stdout + stderr) in its directory. */
export const LOG_FILE = 'server.log';
/** File name of a server's pid file in its directory. */
export const PID_FILE = 'server.pid';

/** Exit code of the wrapper shell of {@link spawnDetached} when the kernel refused to put it in a cgroup. */
export const CGROUP_JOIN_EXIT = 97;

/**
 * The wrapper of {@link spawnDetached} `cgroupProcs`: `$1` = how many `cgroup.procs` files follow,
 * then the files, then the command and its arguments. `$$` is the shell's pid, which `exec` keeps.
 */
const JOIN_THEN_EXEC = [
  'n=$1; shift',
  'while [ "$n" -gt 0 ]; do echo $$ > "$1" || { echo "chbench: cannot join cgroup ($1)" >&2; exit ' +
    CGROUP_JOIN_EXIT +
    '; }; shift; n=$((n-1)); done',
  'exec "$@"',
].join('\n');

/**
 * The command line that makes a process join `cgroupProcs` (each a `cgroup.procs` file) before it
 * execs `command`: `/bin/sh -c '<echo $$ into each> && exec "$@"'` — the pid stays the same across the
 * `exec`, so the server's first instruction already runs in the groups; a refused write exits the
 * shell with {@link CGROUP_JOIN_EXIT} after naming the file on stderr.
 * @returns `[command, args]` to spawn (`command` and `args` unchanged when `cgroupProcs` is empty)
 */
export function joinCgroupsThenExec(
  cgroupProcs: readonly string[] | undefined,
  command: string,
  args: readonly string[],
): [string, string[]] {
  if (!cgroupProcs?.length) return [command, [...args]];
  return ['/bin/sh', ['-c', JOIN_THEN_EXEC, 'sh', String(cgroupProcs.length), ...cgroupProcs, command, ...args]];
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
 * @param opts.cgroupProcs `cgroup.procs` files the process joins BEFORE it execs `command` (a cell's
 *   cgroup under `target.resources`): it is started as `/bin/sh -c '<echo $$ into each> && exec "$@"'`,
 *   so the server's first instruction, its first read and every child already run under the limits;
 *   the pid stays the same across the `exec`. A refused write makes the shell exit with code
 *   {@link CGROUP_JOIN_EXIT} after naming the file in `server.log` (the server never starts).
 * @throws Error when the process cannot be spawned (e.g. ENOENT) — with the log tail
 */
export async function spawnDetached(opts: {
  command: string;
  args: string[];
  dataDir: string;
  env?: Record<string, string>;
  cgroupProcs?: readonly string[];
}): Promise<SpawnedProcess> {
  fs.mkdirSync(opts.dataDir, { recursive: true });
  const logPath = path.join(opts.dataDir, LOG_FILE);
  const fd = fs.openSync(logPath, 'a');
  const env: NodeJS.ProcessEnv = { ...process.env, ...(opts.env ?? {}) };
  delete env.NODE_TEST_CONTEXT;
  delete env.NODE_OPTIONS;
  try {
    fs.writeSync(fd, `--- ${new Date().toISOString()} chbench starts: ${[opts.command, ...opts.args].join(' ')}\n`);
    const [command, args] = joinCgroupsThenExec(opts.cgroupProcs, opts.command, opts.args);
    const child = spawn(command, args, {
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
        fs.appendFileSync(
          logPath,
          `--- ${new Date().toISOString()} pid ${pid} exited (code ${code}, signal ${signal})\n`,
        );
      } catch {
        /* the directory may already be gone (teardown) */
      }
    });
    fs.writeFileSync(path.join(opts.dataDir, PID_FILE), `${pid}\n`);
    return { pid, logPath };
  } catch (e) {
    throw new Error(`${(e as Error).message}\n${describeLogTail(logPath)}`, { cause: e });
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

/**
 * Characters of log tail one error message carries, over all its files: 1,200. Temporal keeps a
 * retryable activity failure only up to 4 KiB (`limit.mutableStateActivityFailureSize.error`) and
 * replaces a larger one with "Failure exceeds size limit."; the failure holds the message twice (the
 * message and the stack, which starts with it), so a 3,000-character tail lost the whole failure.
 */
export const LOG_TAIL_CHARS = 1200;

/** `tail of <file>:\n<text>` for each file that has content ({@link LOG_TAIL_CHARS} in all), or a note that none has. */
export function describeLogTail(...files: string[]): string {
  const each = Math.floor(LOG_TAIL_CHARS / Math.max(1, files.length));
  const parts = files
    .map(
      (f) =>
        [
          f,
          tailFile(f, each * 4)
            .trimEnd()
            .slice(-each),
        ] as const,
    )
    .filter(([, t]) => t.length > 0)
    .map(([f, t]) => `--- tail of ${f}:\n${t}`);
  return parts.length ? parts.join('\n') : `(no log output in ${files.join(', ')})`;
}
