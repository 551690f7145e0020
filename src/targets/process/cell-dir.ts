/**
 * A process target's cell directory and the files chbench keeps in it.
 *
 * Layout of a cell's directory (`dataDir` = `<workDir>/<runId sanitized>/<cellKey sanitized>`):
 *
 * | file                  | written by                 | content                                                        |
 * | --------------------- | -------------------------- | -------------------------------------------------------------- |
 * | `server.pid`          | `spawnDetached` (spawn.ts) | decimal pid of the server process, newline                     |
 * | `server.log`          | the server (stdout+stderr, appended)                                                        |
 * | `chbench-target.json` | {@link writeLabel}         | {@link TargetLabel}: lets a later `gc` find it by run id       |
 * | `chbench-owner.json`  | {@link writeOwnerFile}     | {@link TemporalOwner}, written before the server starts        |
 * | `provision.lock`      | `withCellLock` (cell-lock.ts) | holder pid and time, while a provision attempt runs         |
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ProcessTargetKind, TargetLabel, TemporalOwner } from '../../schema/target';
import { sanitizePathSegment, writeJsonAtomic } from '../../lib/fs';
import { LOG_FILE, PID_FILE } from '../../process/spawn';

export { LOG_FILE, PID_FILE };

/** Name of the label file in a cell's directory. */
export const LABEL_FILE = 'chbench-target.json';
/** Name of the owner file in a cell's directory (written before the server is started). */
export const OWNER_FILE = 'chbench-owner.json';

// The label's shape (and the kinds it names) live in `schema/target.ts`, with the other records.
export { ProcessTargetKind, TargetLabel };

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
 * Write `<label.dataDir>/chbench-target.json` atomically (temp file + rename).
 * @throws Error on I/O failure
 */
export function writeLabel(label: TargetLabel): void {
  writeJsonAtomic(path.join(label.dataDir, LABEL_FILE), label);
}

/**
 * Read a cell's label, parsed with the {@link TargetLabel} schema.
 * @returns the label, or `undefined` when the file is missing, not valid JSON or not a label
 */
export function readLabel(dataDir: string): TargetLabel | undefined {
  try {
    const v = TargetLabel.safeParse(JSON.parse(fs.readFileSync(path.join(dataDir, LABEL_FILE), 'utf8')));
    return v.success ? v.data : undefined;
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
  writeJsonAtomic(path.join(dataDir, OWNER_FILE), owner);
}

/**
 * Where the workflow owning a cell's directory lives: the label's `owner`, else the owner file.
 * @returns undefined when neither records it (old label, or a directory made outside a workflow)
 */
export function readOwner(dataDir: string): TemporalOwner | undefined {
  const l = readLabel(dataDir);
  if (l?.owner) return l.owner;
  try {
    const v = TemporalOwner.safeParse(JSON.parse(fs.readFileSync(path.join(dataDir, OWNER_FILE), 'utf8')));
    return v.success ? v.data : undefined;
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
