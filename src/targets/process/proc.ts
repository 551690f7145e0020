/**
 * `/proc` checks and stopping a server safely. A pid is only signalled while `/proc/<pid>/cmdline`
 * names the cell's `dataDir`, so a recycled pid that now belongs to another program is never killed.
 * Linux only.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { processArgs, stopIfOurs } from '../../process/proc';
import { readLabel, readPidFile } from './cell-dir';

export { isAlive, processArgs, processMentions, waitForExit, stopIfOurs } from '../../process/proc';

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
  for (const p of candidates) await stopIfOurs(p, dir, graceMs);
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
