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
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { sanitizePathSegment, writeFileAtomic, writeJsonAtomic } from '../lib/fs';

/** The atomic writers every results file goes through (defined in `lib/fs`). */
export { writeJsonAtomic, writeFileAtomic as writeTextAtomic };

/** Absolute directory of a run. `resultsDir` relative paths resolve against the worker's cwd; the run id becomes one safe path segment. */
export function runDir(resultsDir: string, runId: string): string {
  return path.resolve(resultsDir, sanitizePathSegment(runId));
}

/** Absolute directory of one cell. */
export function cellDir(resultsDir: string, runId: string, cellKey: string): string {
  return path.join(runDir(resultsDir, runId), 'cells', sanitizePathSegment(cellKey));
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
