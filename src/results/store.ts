/**
 * The results store: plain files under `<resultsDir>/<runId>/`. Raw samples, query_log rows and
 * step outputs live here; workflow history only carries small summaries and these paths.
 *
 * Layout:
 * ```
 * results/<runId>/run.json                 spec + run metadata (written by the matrix workflow's first activity)
 * results/<runId>/cells/<cellKey>/<step>.json   one file per step (provision, load, storage, queries-baseline, …)
 * results/<runId>/cells/<cellKey>/result.json   the cell result (schema chbench.cell-result/v1)
 * results/<runId>/report.md                 the report
 * ```
 */
import { mkdirSync, readFileSync, writeFileSync, renameSync, existsSync } from 'node:fs';
import path from 'node:path';

/** Absolute directory of a run. `resultsDir` relative paths resolve against the worker's cwd. */
export function runDir(resultsDir: string, runId: string): string {
  return path.resolve(resultsDir, safeSegment(runId));
}

/** Absolute directory of one cell. */
export function cellDir(resultsDir: string, runId: string, cellKey: string): string {
  return path.join(runDir(resultsDir, runId), 'cells', safeSegment(cellKey));
}

/** Make a string safe as one path segment (run ids may contain `/` when started by hand). */
export function safeSegment(s: string): string {
  return s.replace(/[^A-Za-z0-9._-]/g, '_');
}

/** Write JSON atomically (tmp file + rename), so a crash never leaves a half-written file. */
export function writeJsonAtomic(file: string, value: unknown): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(value, null, 2) + '\n');
  renameSync(tmp, file);
}

/** Write text atomically. */
export function writeTextAtomic(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}

/** Read a JSON file, or `undefined` if it does not exist. */
export function readJsonIfExists<T>(file: string): T | undefined {
  if (!existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, 'utf8')) as T;
}

/** Read a JSON file. @throws Error if missing. */
export function readJson<T>(file: string): T {
  return JSON.parse(readFileSync(file, 'utf8')) as T;
}
