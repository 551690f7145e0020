/**
 * `/proc` checks and stopping a server safely. A pid is only signalled while `/proc/<pid>/cmdline`
 * names the cell's `dataDir`, so a recycled pid that now belongs to another program is never killed.
 * Linux only.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pollWithin } from '../../lib/poll';
import { readLabel, readPidFile } from './cell-dir';

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
function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  return pollWithin(() => !isAlive(pid), { timeoutMs, intervalMs: 50, stopOn: () => true });
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
export async function stopProcess(
  pid: number | undefined,
  dataDir: string,
  graceMs = 15000,
  opts: { keepDir?: boolean } = {},
): Promise<void> {
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
 * Live processes whose command line names a path inside `dir` (an argument equal to `dir` or starting
 * with `<dir>/`), read from `/proc/<pid>/cmdline`; this process excluded. Linux only; cheap (one
 * small read per process).
 * @returns their pids, ascending
 */
export function processesUsing(dir: string): number[] {
  const d = path.resolve(dir);
  let pids: number[];
  try {
    pids = fs
      .readdirSync('/proc')
      .filter((n) => /^\d+$/.test(n))
      .map(Number)
      .filter((p) => p !== process.pid);
  } catch {
    return [];
  }
  return pids.filter((p) => (processArgs(p) ?? []).some((a) => a === d || a.startsWith(`${d}/`))).sort((a, b) => a - b);
}
