/**
 * Workloads live in `sql/workloads/<name>/`: a `manifest.yaml`, a schema template, a generator
 * template, one file per query and, optionally, a skip-index definition. See
 * `sql/workloads/logs/manifest.yaml` for the placeholders.
 */
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import type { Codec } from '../schema/run-spec';
import { settingsClause } from '../clickhouse/settings';
import { REPO_ROOT } from '../config';

/** Root of the SQL folder: `<repo>/sql` (see `REPO_ROOT`; works from `src/` and `dist/src/`). */
export const SQL_ROOT = path.join(REPO_ROOT, 'sql');

const QueryEntry = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9_-]+$/),
  file: z.string(),
  title: z.string(),
  /** The query benefits from the workload's skip index and is re-run after materialization. */
  usesIndex: z.boolean().default(false),
  /** False for queries whose result legitimately varies between runs (e.g. sampled quantiles): not hash-compared. */
  deterministic: z.boolean().default(true),
});

/** A workload manifest (`manifest.yaml`). */
export const WorkloadManifest = z.strictObject({
  name: z.string(),
  title: z.string(),
  table: z.string().regex(/^[a-z_][a-z0-9_]*$/),
  /** What the server must have, checked against the capability probe (not against version numbers). */
  requires: z
    .strictObject({
      /** Data types the schema uses (`system.data_type_families`). */
      dataTypes: z.array(z.string()).default([]),
      /** Table functions the generator uses (`system.table_functions`). */
      tableFunctions: z.array(z.string()).default([]),
    })
    .prefault({}),
  schema: z.string(),
  load: z.string(),
  /** Query-level settings of the generator INSERT … SELECT. */
  loadSettings: z.record(z.string(), z.union([z.number(), z.string()])).default({}),
  /** MergeTree settings of the table (rendered into `{{settings}}`), checked against the probe. */
  tableSettings: z.record(z.string(), z.union([z.number(), z.string()])).default({}),
  /** Settings of this workload a version may lack (then recorded as not applied). */
  optionalSettings: z.array(z.string()).default([]),
  queries: z.array(QueryEntry).min(1),
  index: z.strictObject({ name: z.string(), add: z.string() }).optional(),
});
export type WorkloadManifest = z.infer<typeof WorkloadManifest>;

/** A rendered query, ready to send. */
export interface WorkloadQuery {
  id: string;
  title: string;
  usesIndex: boolean;
  deterministic: boolean;
  /** Exact SQL sent to the server (comments stripped, placeholders rendered). */
  sql: string;
}

/** Names of the workloads found under `sql/workloads/`. */
function listWorkloads(root = SQL_ROOT): string[] {
  const dir = path.join(root, 'workloads');
  return readdirSync(dir)
    .filter((d) => existsSync(path.join(dir, d, 'manifest.yaml')))
    .sort();
}

/**
 * Load a workload manifest.
 * @throws Error naming the workload and the available ones when it does not exist or is invalid.
 */
export function loadWorkload(name: string, root = SQL_ROOT): WorkloadManifest {
  const file = path.join(root, 'workloads', name, 'manifest.yaml');
  if (!existsSync(file))
    throw new Error(`workload: unknown workload "${name}"; available: ${listWorkloads(root).join(', ')}`);
  const r = WorkloadManifest.safeParse(parseYaml(readFileSync(file, 'utf8')));
  if (!r.success) throw new Error(`workload ${name}: invalid manifest ${file}: ${r.error.message}`);
  for (const f of [
    r.data.schema,
    r.data.load,
    ...r.data.queries.map((q) => q.file),
    ...(r.data.index ? [r.data.index.add] : []),
  ])
    if (!existsSync(path.join(root, 'workloads', name, f))) throw new Error(`workload ${name}: missing file ${f}`);
  return r.data;
}

/** Values substituted into templates. */
export interface RenderValues {
  table: string;
  rows: number;
  codec: Codec;
  /** MergeTree settings for `{{settings}}` (empty: no SETTINGS clause). */
  tableSettings?: Record<string, string | number>;
}

/** `CODEC(...)` clause for a codec; empty for LZ4, which is the server default. */
function codecClause(codec: Codec): string {
  return codec === 'LZ4' ? '' : ` CODEC(${codec})`;
}

/**
 * Render one template file of a workload: strips `--` comment lines, substitutes `{{table}}`,
 * `{{rows}}`, `{{codec}}`.
 * @throws Error on an unknown placeholder.
 */
export function renderTemplate(workload: string, file: string, v: RenderValues, root = SQL_ROOT): string {
  const text = readFileSync(path.join(root, 'workloads', workload, file), 'utf8');
  return renderText(text, v);
}

/** Template rendering on a string (see {@link renderTemplate}). */
function renderText(text: string, v: RenderValues): string {
  const values: Record<string, string> = {
    table: v.table,
    rows: String(Math.trunc(v.rows)),
    codec: codecClause(v.codec),
    settings: settingsClause(v.tableSettings ?? {}),
  };
  return text
    .split('\n')
    .filter((l) => !/^\s*--/.test(l))
    .join('\n')
    .replace(/\{\{(\w+)\}\}/g, (_, k: string) => {
      if (!(k in values)) throw new Error(`template: unknown placeholder {{${k}}}`);
      return values[k];
    })
    .trim();
}

/** The workload's queries (optionally only `ids`), rendered. @throws Error on an unknown id. */
export function workloadQueries(
  m: WorkloadManifest,
  v: RenderValues,
  ids?: string[],
  root = SQL_ROOT,
): WorkloadQuery[] {
  if (ids) {
    const known = new Set(m.queries.map((q) => q.id));
    const bad = ids.filter((i) => !known.has(i));
    if (bad.length)
      throw new Error(
        `queries: unknown query id(s) ${bad.join(', ')} in workload ${m.name}; allowed: ${[...known].join(', ')}`,
      );
  }
  return m.queries
    .filter((q) => !ids || ids.includes(q.id))
    .map((q) => ({
      id: q.id,
      title: q.title,
      usesIndex: q.usesIndex,
      deterministic: q.deterministic,
      sql: renderTemplate(m.name, q.file, v, root),
    }));
}

/** What {@link cannotRunReason} needs from the capability probe. */
export interface ServerFeatures {
  version: string;
  data_types: string[] | null;
  table_functions: string[] | null;
  column_codecs: boolean;
  column_codecs_trial?: { ok: boolean; error?: string };
}

/**
 * Why a server cannot run a workload cell, or `undefined` if it can — from the capability probe:
 * the data types and table functions the workload needs, and column CODECs for a non-LZ4 cell.
 */
export function cannotRunReason(m: WorkloadManifest, f: ServerFeatures, codec: Codec): string | undefined {
  const missing = [
    ...m.requires.dataTypes
      .filter((t) => f.data_types !== null && !f.data_types.includes(t))
      .map((t) => `data type ${t}`),
    ...m.requires.tableFunctions
      .filter((t) => f.table_functions !== null && !f.table_functions.includes(t))
      .map((t) => `table function ${t}()`),
  ];
  if (missing.length)
    return `ClickHouse ${f.version} cannot run workload ${m.name}: it has no ${missing.join(', ')} (system.data_type_families / system.table_functions)`;
  if (codec !== 'LZ4' && !f.column_codecs)
    return `ClickHouse ${f.version} has no column CODEC clause (a trial CREATE TEMPORARY TABLE … CODEC(ZSTD(1)) was refused${f.column_codecs_trial?.error ? `: ${f.column_codecs_trial.error.slice(0, 120)}` : ''}); only the LZ4 cell can run`;
  return undefined;
}

/**
 * Ids of the selected queries that use the workload's skip index (`usesIndex`), in workload order;
 * empty when the workload has no index (then a cell has no index step).
 * @throws Error for an unknown workload or query id (as {@link loadWorkload} and {@link workloadQueries})
 */
export function indexQueryIds(workload: string, queries?: string[]): string[] {
  const m = loadWorkload(workload);
  return m.index
    ? workloadQueries(m, { table: m.table, rows: 1, codec: 'LZ4' }, queries)
        .filter((q) => q.usesIndex)
        .map((q) => q.id)
    : [];
}
