/**
 * `/proc` checks of a process (Linux only): alive, its arguments, whether it was started for a
 * directory, waiting for its exit, and stopping it only while it still names that directory.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pollWithin } from '../lib/poll';

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

/** Wait until `pid` is gone or `timeoutMs` passed. @returns whether it is gone */
export function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  return pollWithin(() => !isAlive(pid), { timeoutMs, intervalMs: 50, stopOn: () => true });
}

/**
 * Stop `pid` if its command line names `dir` ({@link processMentions}): SIGTERM, wait up to
 * `graceMs`, SIGKILL (again only while it names `dir`), wait up to 10 s more.
 * @returns whether a process was signalled (false: gone, or not ours)
 * @throws Error when the process survives SIGKILL
 */
export async function stopIfOurs(pid: number, dir: string, graceMs: number): Promise<boolean> {
  if (!processMentions(pid, dir)) return false;
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return false; // already gone
  }
  if (await waitForExit(pid, graceMs)) return true;
  if (processMentions(pid, dir)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone meanwhile */
    }
  }
  if (!(await waitForExit(pid, 10000))) throw new Error(`pid ${pid} (${dir}) survived SIGKILL`);
  return true;
}

/**
 * Whether the pid exists at all, a zombie included (signal 0; EPERM: it exists, owned by another
 * user). {@link isAlive} says whether it still runs.
 */
export function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
