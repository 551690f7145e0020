/**
 * The results store: plain files under `<resultsDir>/<runId>/`. Raw samples, query_log rows and
 * step outputs live here; workflow history only carries small summaries and these paths.
 *
 * Layout:
 * ```
 * results/<runId>/run.json                 spec + run metadata (written by the matrix workflow's first activity)
 * results/<runId>/cells/<cellKey>/<step>.json   one file per step (provision, load, storage, queries-baseline, …)
 * results/<runId>/cells/<cellKey>/result.json   the cell result (schema chbench.cell-result/v1)
 * results/<runId>/cells/<cellKey>/samples.jsonl one flat sample per figure of each measured run
 * results/<runId>/report.md                 the report
 * results/<runId>/samples.jsonl             every cell's samples.jsonl, concatenated
 * ```
 * Every record's shape is in `src/schema/results.ts`; readers parse with {@link readRecord}.
 */
import { readFileSync, existsSync, mkdirSync, readdirSync, statSync, statfsSync } from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { ApplicationFailure } from '@temporalio/common';
import { FAILURE } from '../schema/failures';
import { RECORD_IDS } from '../schema/results';
import { sanitizePathSegment, writeFileAtomic, writeJsonAtomic as writeJsonFile } from '../lib/fs';

/** Bytes free and in all on the filesystem holding `p` (its nearest existing ancestor), or null. */
export function freeSpace(p: string): { free: number; total: number } | null {
  let d = path.resolve(p);
  while (!existsSync(d) && path.dirname(d) !== d) d = path.dirname(d);
  try {
    const s = statfsSync(d);
    return { free: s.bavail * s.bsize, total: s.blocks * s.bsize };
  } catch {
    return null;
  }
}

const mib = (b: number) => `${(b / 2 ** 20).toFixed(1)} MiB`;

/**
 * A write's error as the step should fail: a full filesystem (ENOSPC) or spent quota (EDQUOT) becomes
 * the non-retryable `DiskFull`, naming the file and the free space — a retry would fail the same way
 * while the run stalls; everything else is returned as it was.
 */
export function diskFullOr(e: unknown, file: string): unknown {
  const code = (e as NodeJS.ErrnoException)?.code;
  if (code !== 'ENOSPC' && code !== 'EDQUOT') return e;
  const room = freeSpace(file);
  return ApplicationFailure.create({
    type: FAILURE.DiskFull,
    nonRetryable: true,
    message: `cannot write ${file}: ${code === 'ENOSPC' ? 'no space left on its device' : 'disk quota exceeded'}${
      room ? ` (${mib(room.free)} free of ${mib(room.total)}, statfs)` : ''
    }; the records already written are kept: free space there, then resume the run (chbench resume <run id>)`,
    cause: e as Error,
  });
}

/** {@link writeJsonFile} (atomic, pretty JSON); a full disk fails as {@link diskFullOr} says. */
export function writeJsonAtomic(file: string, value: unknown): void {
  try {
    writeJsonFile(file, value);
  } catch (e) {
    throw diskFullOr(e, file);
  }
}

/** {@link writeFileAtomic} (atomic text); a full disk fails as {@link diskFullOr} says. */
export function writeTextAtomic(file: string, text: string): void {
  try {
    writeFileAtomic(file, text);
  } catch (e) {
    throw diskFullOr(e, file);
  }
}

/** The file that marks a folder as a chbench results folder (written by the run's first step). */
export const RESULTS_MARKER = '.chbench-results';

/**
 * Why chbench must not write into `resultsDir`, or undefined when it may: it does not exist yet, is empty,
 * holds the {@link RESULTS_MARKER}, or holds only what chbench writes there (run folders with a `run.json`,
 * `cells/` or `bisect.md`, the embedded database `db/`; dot-files aside — a results folder of a chbench
 * before the marker). Any
 * other entry makes it someone else's folder (`/etc`, a home directory, a project), refused whatever its path.
 */
export function resultsDirProblem(resultsDir: string): string | undefined {
  const abs = path.resolve(resultsDir);
  if (/^\/(proc|sys|dev)(\/|$)/.test(abs)) return `resultsDir: "${resultsDir}" is under /proc, /sys or /dev`;
  if (!existsSync(abs)) return undefined;
  let entries: string[];
  try {
    if (!statSync(abs).isDirectory()) return `resultsDir: "${resultsDir}" (${abs}) exists and is not a directory`;
    entries = readdirSync(abs);
  } catch (e) {
    return `resultsDir: "${resultsDir}" (${abs}) cannot be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`;
  }
  if (entries.includes(RESULTS_MARKER)) return undefined;
  // What chbench writes there: run folders (`run.json`; a bisect's `bisect.md`), re-run folders
  // (`<runId>.confirm`: `cells/`), the embedded database `db/`.
  const ours = (e: string) =>
    e === 'db' || ['run.json', 'cells', 'bisect.md'].some((f) => existsSync(path.join(abs, e, f)));
  const foreign = entries.filter((e) => !e.startsWith('.') && !ours(e));
  if (!foreign.length) return undefined;
  return `resultsDir: "${resultsDir}" (${abs}) is not a chbench results folder: it holds ${foreign.length} entr${foreign.length === 1 ? 'y' : 'ies'} chbench did not write (${foreign.slice(0, 3).join(', ')}${foreign.length > 3 ? ', …' : ''}) and no ${RESULTS_MARKER}; give an empty or new folder`;
}

/** Create `resultsDir` if needed and mark it as chbench's ({@link RESULTS_MARKER}); idempotent. @throws Error when it cannot be written. */
export function markResultsDir(resultsDir: string): void {
  const abs = path.resolve(resultsDir);
  mkdirSync(abs, { recursive: true });
  const marker = path.join(abs, RESULTS_MARKER);
  if (!existsSync(marker)) writeTextAtomic(marker, 'A chbench results folder: one folder per run, db/ the embedded results database.\n');
}

/** Absolute directory of a run. `resultsDir` relative paths resolve against the worker's cwd; the run id becomes one safe path segment. */
export function runDir(resultsDir: string, runId: string): string {
  return path.resolve(resultsDir, sanitizePathSegment(runId));
}

/** Absolute directory of one cell. */
export function cellDir(resultsDir: string, runId: string, cellKey: string): string {
  return path.join(runDir(resultsDir, runId), 'cells', sanitizePathSegment(cellKey));
}

/**
 * A cell the matrix placed on a host (`placement`) writes into the run's results store: a host that
 * does not see the run's folder there (not mounted, another path) would keep its records to itself.
 * Checked before anything is provisioned; `hostId` names the host in the message.
 * @throws ApplicationFailure `InvalidSpec` (non-retryable) when `<resultsDir>/<runId>/run.json` is missing.
 */
export function requireRunStore(
  cell: { resultsDir: string; runId: string; placement?: unknown },
  hostId: string | undefined,
): void {
  const runJson = path.join(runDir(cell.resultsDir, cell.runId), 'run.json');
  if (cell.placement && !existsSync(runJson))
    throw ApplicationFailure.create({
      type: FAILURE.InvalidSpec,
      nonRetryable: true,
      message: `host ${hostId ?? '?'} does not see the run's results store: ${runJson} is missing there; mount the results directory at the same path on every host running chbench workers`,
    });
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

/**
 * Read and parse a record with its schema (`src/schema/results.ts`).
 * @returns the parsed record (unknown keys outside open maps dropped).
 * @throws Error naming the file, the record's schema id and the first problems, each with the
 *   field's path, e.g. `…/result.json (chbench.cell-result/v1): queries_baseline.queries[0].stats.cold_ms: expected number, got string`;
 *   for a record carrying a `schema` id that is not the expected one, which id it has and which is wanted;
 *   for a missing file or invalid JSON, that.
 */
export function readRecord<S extends z.ZodType>(file: string, schema: S): z.infer<S> {
  const id = RECORD_IDS.get(schema) ?? 'record';
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Error(`${file} (${id}): ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : `not valid JSON: ${(e as Error).message}`}`, { cause: e });
  }
  return parseRecord(raw, schema, file);
}

/** {@link readRecord}, or `undefined` when the file does not exist. */
export function readRecordIfExists<S extends z.ZodType>(file: string, schema: S): z.infer<S> | undefined {
  return existsSync(file) ? readRecord(file, schema) : undefined;
}

/**
 * Parse an already-read value with a record schema; `where` names it in errors (a file path).
 * @throws Error as {@link readRecord}.
 */
export function parseRecord<S extends z.ZodType>(raw: unknown, schema: S, where: string): z.infer<S> {
  const id = RECORD_IDS.get(schema) ?? 'record';
  // A versioned record of another version: say so rather than listing every field that moved.
  if (id.includes('/') && raw && typeof raw === 'object' && (raw as { schema?: unknown }).schema !== id) {
    const has = (raw as { schema?: unknown }).schema;
    throw new Error(`${where}: schema id ${has === undefined ? 'missing' : JSON.stringify(has)}, expected "${id}" (written by another chbench version, or not a chbench ${id.replace(/^chbench\.|\/.*$/g, '')} record)`);
  }
  const r = schema.safeParse(raw);
  if (r.success) return r.data;
  const issues = r.error.issues.slice(0, 5).map((i) => `${issuePath(i.path) || '(top level)'}: ${issueText(i, raw)}`);
  const more = r.error.issues.length > 5 ? `; and ${r.error.issues.length - 5} more` : '';
  throw new Error(`${where} (${id}): ${issues.join('; ')}${more}`);
}

/** `a.b[0].c` from a zod issue path. */
function issuePath(p: readonly PropertyKey[]): string {
  return p.map((k, i) => (typeof k === 'number' ? `[${k}]` : `${i ? '.' : ''}${String(k)}`)).join('');
}

/** An issue's text in the form `expected number, got string`. */
function issueText(i: z.core.$ZodIssue, raw: unknown): string {
  let v: unknown = raw;
  for (const k of i.path) v = v === null || v === undefined ? undefined : (v as Record<PropertyKey, unknown>)[k];
  if (i.code === 'invalid_type') {
    const got = v === undefined ? 'nothing (field missing)' : v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
    return `expected ${i.expected}, got ${got}`;
  }
  const text = i.message.replace(/^Invalid (input|option): /, '');
  return i.code === 'invalid_value' ? `${text}, got ${JSON.stringify(v)}` : text;
}

/**
 * Write a run's `samples.jsonl` next to its report: the cells' `samples.jsonl` files concatenated,
 * in `cellKeys` order (a cell without one contributes nothing).
 * @returns the file's absolute path.
 */
export function writeRunSamples(dir: string, cellKeys: string[]): string {
  const file = path.join(dir, 'samples.jsonl');
  const parts = cellKeys.map((k) => path.join(dir, 'cells', sanitizePathSegment(k), 'samples.jsonl')).filter((f) => existsSync(f)).map((f) => readFileSync(f, 'utf8'));
  writeTextAtomic(file, parts.join(''));
  return file;
}
