/**
 * File-system helpers: atomic writes and path-segment sanitising, each written once.
 */
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

let tmpCounter = 0;

/**
 * Write a file atomically: the text goes to a temporary file beside it (same directory, so the
 * rename stays on one file system), which is then renamed over `file`. Readers see the old content
 * or the new one, never a half-written file, even when the process dies mid-write. Parent
 * directories are created.
 * @param file destination path
 * @param text the whole content (UTF-8)
 * @throws Error on I/O failure (the temporary file is removed)
 */
export function writeFileAtomic(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  // pid + counter: two writers of one file (two processes, or two activities in one) never share a temp file.
  const tmp = `${file}.${process.pid}.${++tmpCounter}.tmp`;
  try {
    writeFileSync(tmp, text);
    renameSync(tmp, file);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

/**
 * Write `value` as pretty JSON (2-space indent, trailing newline) atomically
 * (see {@link writeFileAtomic}).
 * @throws Error on I/O failure, or TypeError when `value` cannot be serialised (cycles, BigInt)
 */
export function writeJsonAtomic(file: string, value: unknown): void {
  writeFileAtomic(file, JSON.stringify(value, null, 2) + '\n');
}

/**
 * Make a string safe as one path segment: every character outside `[A-Za-z0-9._-]` becomes `_`,
 * and `.`, `..` and the empty string become `_`.
 * @param s any string (e.g. a run id such as `run/2026-11-29T18:00`)
 * @returns a non-empty segment without `/` that never points up or at the same directory
 */
export function sanitizePathSegment(s: string): string {
  const out = s.replace(/[^A-Za-z0-9._-]/g, '_');
  return out === '' || out === '.' || out === '..' ? '_' : out;
}
