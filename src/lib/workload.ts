/**
 * Workloads live in `sql/workloads/<name>/`: a `manifest.yaml`, a schema template, a generator
 * template, one file per query and, optionally, a skip-index definition. See
 * `sql/workloads/logs/manifest.yaml` for the placeholders.
 */
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import type { Codec, CodecProfile } from '../schema/run-spec';
import { versionMatchesLabel } from '../schema/version';
import { settingsClause } from '../clickhouse/settings';
import { splitTopLevel, trailingFormat } from './sql';
import { REPO_ROOT } from '../config';

/** Root of the SQL folder: `<repo>/sql` (see `REPO_ROOT`; works from `src/` and `dist/src/`). */
export const SQL_ROOT = path.join(REPO_ROOT, 'sql');

/**
 * The folder holding `workloads/<name>/`: `CHBENCH_SQL_ROOT` when set (read at each call, resolved
 * against the working directory; a team's own workloads, or the tests' under `test/fixtures`), else
 * {@link SQL_ROOT}.
 */
export function sqlRoot(): string {
  const v = process.env.CHBENCH_SQL_ROOT?.trim();
  return v ? path.resolve(v) : SQL_ROOT;
}

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
  /**
   * Statements run after the load and its quiesce, before storage stats and queries (the `after-load`
   * cell step), in order: each a file holding one statement (placeholders as in the other templates),
   * with what to wait for after it: `mutations` (every mutation of the table done, `system.mutations`),
   * `merges` (no merge or mutation running), `none` (the default). The pre-load check applies them to
   * an empty scratch copy of the table before EXPLAINing the queries.
   */
  afterLoad: z
    .array(
      z.strictObject({
        file: z.string(),
        wait: z.enum(['none', 'mutations', 'merges']).default('none'),
      }),
    )
    .default([]),
});
export type WorkloadManifest = z.infer<typeof WorkloadManifest>;

/** A rendered query, ready to send. */
export interface WorkloadQuery {
  id: string;
  /** The query's file in the workload folder (`q1.sql`); absent for SQL not from a workload file. */
  file?: string;
  title: string;
  usesIndex: boolean;
  deterministic: boolean;
  /** Exact SQL sent to the server (comments stripped, placeholders rendered). */
  sql: string;
}

/** Names of the workloads found under `sql/workloads/`. */
function listWorkloads(root = sqlRoot()): string[] {
  const dir = path.join(root, 'workloads');
  return readdirSync(dir)
    .filter((d) => existsSync(path.join(dir, d, 'manifest.yaml')))
    .sort();
}

/**
 * Load a workload manifest.
 * @throws Error naming the workload and the available ones when it does not exist or is invalid, or
 *   when its manifest's `name` is not its folder's name.
 */
export function loadWorkload(name: string, root = sqlRoot()): WorkloadManifest {
  const file = path.join(root, 'workloads', name, 'manifest.yaml');
  if (!existsSync(file))
    throw new Error(`workload: unknown workload "${name}"; available: ${listWorkloads(root).join(', ')}`);
  const r = WorkloadManifest.safeParse(parseYaml(readFileSync(file, 'utf8')));
  if (!r.success) throw new Error(`workload ${name}: invalid manifest ${file}: ${r.error.message}`);
  // Steps find a workload's files by its name: a copied folder that kept the old name would mix two workloads.
  if (r.data.name !== name)
    throw new Error(
      `workload ${name}: ${file} says name: ${r.data.name}; a workload's name must be its folder's name (set name: ${name})`,
    );
  for (const f of [
    r.data.schema,
    r.data.load,
    ...r.data.queries.map((q) => q.file),
    ...(r.data.index ? [r.data.index.add] : []),
    ...r.data.afterLoad.map((a) => a.file),
  ])
    if (!existsSync(path.join(root, 'workloads', name, f))) throw new Error(`workload ${name}: missing file ${f}`);
  return r.data;
}

/** Values substituted into templates. */
export interface RenderValues {
  table: string;
  rows: number;
  /** The cell's codec: one expression for every column, or a profile with per-column overrides. */
  codec: Codec | CodecProfile;
  /** MergeTree settings for `{{settings}}` (empty: no SETTINGS clause). */
  tableSettings?: Record<string, string | number>;
}

/** `CODEC(...)` clause for a codec; empty for LZ4, which is the server default. */
function codecClause(codec: Codec): string {
  return codec.trim() === 'LZ4' ? '' : ` CODEC(${codec.trim()})`;
}

/** The codec expression a profile (or a single expression) gives `column`. Pure. */
export function codecFor(codec: Codec | CodecProfile, column: string | undefined): Codec {
  if (typeof codec === 'string') return codec;
  return (column !== undefined ? codec.columns[column] : undefined) ?? codec.default;
}

/**
 * The column whose definition holds position `at` of a CREATE TABLE text: the first identifier after
 * the nearest `(` or `,` before `at` at the same nesting level (`undefined` outside a column list).
 */
function columnAt(text: string, at: number): string | undefined {
  let depth = 0;
  let i = at - 1;
  for (; i >= 0; i--) {
    const ch = text[i];
    if (ch === ')') depth++;
    else if (ch === '(') {
      if (depth === 0) break;
      depth--;
    } else if (ch === ',' && depth === 0) break;
  }
  if (i < 0) return undefined;
  const m = /^\s*(`[^`]+`|[A-Za-z_][A-Za-z0-9_]*)\s/.exec(text.slice(i + 1, at));
  return m ? m[1].replace(/^`|`$/g, '') : undefined;
}

/** Placeholders a template may use: `{{table}}`, `{{rows}}`, `{{codec}}`, `{{codec:<column>}}`, `{{settings}}`. */
const PLACEHOLDER = /\{\{(\w+)(?::([A-Za-z_][A-Za-z0-9_]*))?\}\}/g;
const KNOWN_PLACEHOLDERS = new Set(['table', 'rows', 'codec', 'settings']);

/** Drop `--` comment lines. */
function stripComments(text: string): string {
  return text
    .split('\n')
    .filter((l) => !/^\s*--/.test(l))
    .join('\n');
}

/**
 * Render one template file of a workload: strips `--` comment lines, substitutes `{{table}}`,
 * `{{rows}}`, `{{settings}}` and the codec placeholders: `{{codec}}` is ` CODEC(<expression>)` of the
 * column whose definition it ends (the first identifier after the enclosing `(` or `,`, so one column
 * per line or several on one line both work), `{{codec:<column>}}` that of the named column; empty
 * where the expression is `LZ4` (the server default).
 * @throws Error on an unknown placeholder.
 */
export function renderTemplate(workload: string, file: string, v: RenderValues, root = sqlRoot()): string {
  const text = readFileSync(path.join(root, 'workloads', workload, file), 'utf8');
  return renderText(text, v);
}

/** Template rendering on a string (see {@link renderTemplate}). */
function renderText(text: string, v: RenderValues): string {
  const values: Record<string, string> = {
    table: v.table,
    rows: String(Math.trunc(v.rows)),
    settings: settingsClause(v.tableSettings ?? {}),
  };
  const body = stripComments(text);
  return body
    .replace(PLACEHOLDER, (_, k: string, arg: string | undefined, at: number) => {
      if (k === 'codec') return codecClause(codecFor(v.codec, arg ?? columnAt(body, at)));
      if (!(k in values) || arg !== undefined)
        throw new Error(`template: unknown placeholder {{${k}${arg ? `:${arg}` : ''}}}`);
      return values[k];
    })
    .trim();
}

/** One column of a workload's schema template, as the codec checks see it. */
export interface TemplateColumn {
  name: string;
  /** The definition carries `{{codec}}` (or `{{codec:<name>}}`): the cell's profile decides its codec. */
  placeholder: boolean;
  /** A `CODEC(...)` the template writes literally (the expression inside), when it has one. */
  fixed?: string;
}

/**
 * The columns of a workload's schema template (the first parenthesised list of its CREATE TABLE;
 * `INDEX`, `PROJECTION`, `CONSTRAINT` entries left out) and how each gets its codec. Pure.
 * @param text the template text, placeholders not rendered
 */
export function templateColumns(text: string): TemplateColumn[] {
  const body = stripComments(text);
  const open = body.indexOf('(');
  let depth = 0;
  let close = -1;
  for (let i = open; open >= 0 && i < body.length; i++) {
    if (body[i] === '(') depth++;
    else if (body[i] === ')' && --depth === 0) {
      close = i;
      break;
    }
  }
  if (open < 0 || close < 0) return [];
  const out: TemplateColumn[] = [];
  for (const entry of splitTopLevel(body.slice(open + 1, close), ',')) {
    const m = /^\s*(`[^`]+`|[A-Za-z_][A-Za-z0-9_]*)\s/.exec(entry);
    if (!m || /^(INDEX|PROJECTION|CONSTRAINT)$/i.test(m[1])) continue;
    const name = m[1].replace(/^`|`$/g, '');
    const fixedAt = entry.search(/\bCODEC\s*\(/i);
    let fixed: string | undefined;
    if (fixedAt >= 0) {
      const start = entry.indexOf('(', fixedAt);
      let d = 0;
      for (let i = start; i < entry.length; i++) {
        if (entry[i] === '(') d++;
        else if (entry[i] === ')' && --d === 0) {
          fixed = entry.slice(start + 1, i).trim();
          break;
        }
      }
    }
    out.push({ name, placeholder: /\{\{codec(:[A-Za-z_][A-Za-z0-9_]*)?\}\}/.test(entry), ...(fixed ? { fixed } : {}) });
  }
  return out;
}

/**
 * Why a workload's schema cannot carry a codec profile, one line per problem (empty: it can): a
 * column the profile gives a codec other than the server default whose definition has no `{{codec}}`
 * (the cell would silently measure LZ4), or an override naming a column the schema does not have or
 * whose codec the schema fixes. Pure.
 * @param text the schema template text
 */
export function codecPlacementProblems(workload: string, text: string, profile: CodecProfile): string[] {
  const cols = templateColumns(text);
  const out: string[] = [];
  const bad = Object.keys(profile.columns).filter((c) => !cols.some((x) => x.name === c));
  if (bad.length)
    out.push(
      `codec profile "${profile.name}" names column(s) ${bad.join(', ')} that the schema of workload ${workload} does not have (columns: ${cols.map((c) => c.name).join(', ')})`,
    );
  const fixed = Object.keys(profile.columns).filter((c) => cols.some((x) => x.name === c && !x.placeholder && x.fixed));
  if (fixed.length)
    out.push(
      `codec profile "${profile.name}" sets column(s) ${fixed.join(', ')}, whose codec the schema of workload ${workload} writes literally (no {{codec}})`,
    );
  const lacking = cols.filter((c) => !c.placeholder && !c.fixed && codecFor(profile, c.name).trim() !== 'LZ4');
  if (lacking.length)
    out.push(
      lacking.length === cols.length
        ? `workload ${workload}: its schema has no {{codec}} placeholder, so codec profile "${profile.name}" would not be applied (every cell would measure the server default, LZ4); end each column definition with {{codec}}`
        : `workload ${workload}: column(s) ${lacking.map((c) => c.name).join(', ')} of its schema have no {{codec}}, so codec profile "${profile.name}" would not reach them (they would stay LZ4); end their definitions with {{codec}}`,
    );
  return out;
}

/** MergeTree settings given at one place (the manifest, the spec, a profile), for {@link settingsPlacementProblems}. */
export interface MergeTreeSettingsSource {
  /** Where they were given, as the user wrote it: `tableSettings of manifest.yaml`, `settings.mergeTree`, … */
  where: string;
  settings: Record<string, string | number>;
}

/**
 * Why MergeTree settings given for a workload would not reach its table, one line per place they
 * were given (empty: they would, or none were given): its schema template has no `{{settings}}`
 * placeholder, so the CREATE TABLE would carry no SETTINGS clause and every cell would measure the
 * server's defaults while `settings.json` claimed otherwise. Pure.
 * @param text the schema template text
 */
export function settingsPlacementProblems(
  workload: string,
  text: string,
  sources: MergeTreeSettingsSource[],
): string[] {
  if (/\{\{settings\}\}/.test(stripComments(text))) return [];
  return sources
    .filter((s) => Object.keys(s.settings).length)
    .map(
      (s) =>
        `${s.where}: MergeTree setting(s) ${Object.keys(s.settings).join(', ')} would not reach the table: the schema of workload ${workload} has no {{settings}} placeholder (so its CREATE TABLE would have no SETTINGS clause and the cell would measure the server's defaults); end its CREATE TABLE with {{settings}}`,
    );
}

/**
 * The codec each column of the schema must carry for a cell of this profile: the template's literal
 * `CODEC(...)` for a column that writes one instead of a placeholder, else the profile's expression —
 * also for a column the template forgot to give `{{codec}}`: the cell claims the profile, so the
 * read-back must show it. Pure.
 */
export function declaredCodecs(text: string, profile: Codec | CodecProfile): Map<string, Codec> {
  return new Map(
    templateColumns(text).map(
      (c) => [c.name, !c.placeholder && c.fixed ? c.fixed : codecFor(profile, c.name)] as const,
    ),
  );
}

/**
 * What a workload's files say before any server is asked: the manifest parses, every file it names
 * exists, every placeholder is known and `{{codec:<column>}}` names a column of the schema. One line
 * per problem; empty when the workload is sound.
 */
export function workloadProblems(name: string, root = sqlRoot()): string[] {
  const dir = path.join(root, 'workloads', name);
  const file = path.join(dir, 'manifest.yaml');
  if (!existsSync(file)) {
    let have: string[] = [];
    try {
      have = listWorkloads(root);
    } catch {
      /* no workloads folder */
    }
    return [`workload: unknown workload "${name}" (no ${file}); available: ${have.join(', ') || 'none'}`];
  }
  let raw: unknown;
  try {
    raw = parseYaml(readFileSync(file, 'utf8'));
  } catch (e) {
    return [`workload ${name}: ${file} is not valid YAML: ${(e as Error).message.split('\n')[0]}`];
  }
  const r = WorkloadManifest.safeParse(raw);
  if (!r.success)
    return r.error.issues.map(
      (i) => `workload ${name}: manifest.yaml ${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`,
    );
  const m = r.data;
  const out: string[] = [];
  if (m.name !== name)
    out.push(
      `workload ${name}: manifest.yaml says name: ${m.name}; a workload's name must be its folder's name (set name: ${name})`,
    );
  const ids = m.queries.map((q) => q.id);
  const dup = ids.filter((id, i) => ids.indexOf(id) !== i);
  if (dup.length) out.push(`workload ${name}: manifest.yaml queries: duplicate id(s) ${[...new Set(dup)].join(', ')}`);
  const files: [string, string][] = [
    ['schema', m.schema],
    ['load', m.load],
    ...m.queries.map((q) => [`query ${q.id}`, q.file] as [string, string]),
    ...(m.index ? [['index.add', m.index.add] as [string, string]] : []),
    ...m.afterLoad.map((a, i) => [`afterLoad[${i}]`, a.file] as [string, string]),
  ];
  let columns: string[] | undefined;
  if (existsSync(path.join(dir, m.schema)))
    columns = templateColumns(readFileSync(path.join(dir, m.schema), 'utf8')).map((c) => c.name);
  for (const [what, f] of files) {
    const p = path.join(dir, f);
    if (!existsSync(p)) {
      out.push(`workload ${name}: ${what} file ${f} is missing (${p})`);
      continue;
    }
    const text = stripComments(readFileSync(p, 'utf8'));
    const format = what.startsWith('query ') ? trailingFormat(text) : undefined;
    if (format) out.push(`workload ${name}: ${what} (${f}): ${formatClauseProblem(format)}`);
    if (what.startsWith('afterLoad')) {
      const n = splitTopLevel(text, ';').filter((x) => x.trim()).length;
      if (n !== 1)
        out.push(`workload ${name}: ${what} file ${f} holds ${n} statements; each after-load file holds one`);
    }
    for (const hit of text.matchAll(PLACEHOLDER)) {
      const [whole, k, arg] = hit;
      if (!KNOWN_PLACEHOLDERS.has(k) || (arg !== undefined && k !== 'codec'))
        out.push(
          `workload ${name}: ${f}: unknown placeholder ${whole} (known: {{table}}, {{rows}}, {{codec}}, {{codec:<column>}}, {{settings}})`,
        );
      else if (arg !== undefined && columns && !columns.includes(arg))
        out.push(
          `workload ${name}: ${f}: ${whole} names a column the schema does not have (columns: ${columns.join(', ')})`,
        );
    }
  }
  return out;
}

/**
 * Why a workload query may not end in its own `FORMAT <name>` clause (one sentence, for validate and
 * createSchema): chbench sends every query with its own output format, so the server would refuse
 * the statement as a syntax error — after the load.
 */
export function formatClauseProblem(format: string): string {
  return `it ends with FORMAT ${format}, but chbench sends every query with its own output format (FORMAT JSONCompact, to hash and count the result), so the server would refuse it as a syntax error after the load; remove the FORMAT clause`;
}

/** The workload's queries (optionally only `ids`), rendered. @throws Error on an unknown id. */
export function workloadQueries(
  m: WorkloadManifest,
  v: RenderValues,
  ids?: string[],
  root = sqlRoot(),
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
      file: q.file,
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
export function cannotRunReason(
  m: WorkloadManifest,
  f: ServerFeatures,
  codec: Codec | CodecProfile,
): string | undefined {
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
  const nonDefault =
    typeof codec === 'string'
      ? codec.trim() !== 'LZ4'
      : [codec.default, ...Object.values(codec.columns)].some((c) => c.trim() !== 'LZ4');
  if (nonDefault && !f.column_codecs)
    return `ClickHouse ${f.version} has no column CODEC clause (a trial CREATE TEMPORARY TABLE … CODEC(ZSTD(1)) was refused${f.column_codecs_trial?.error ? `: ${f.column_codecs_trial.error.slice(0, 120)}` : ''}); only the LZ4 cell can run`;
  return undefined;
}

/**
 * Why a provisioned server cannot run a cell, or `undefined` if it can: {@link cannotRunReason} (the
 * capability probe), then the version rule: a cell is never reported under a version it did not run
 * (external servers included), so `serverVersion` (`version()`) must match the matrix label
 * `cell.version` (`versionMatchesLabel`, src/schema/version.ts). Pure.
 */
export function cellCannotRunReason(
  m: WorkloadManifest,
  f: ServerFeatures,
  codec: Codec | CodecProfile,
  serverVersion: string,
  cell: { version: string; target: { kind: string } },
): string | undefined {
  const reason = cannotRunReason(m, f, codec);
  if (reason || versionMatchesLabel(serverVersion, cell.version)) return reason;
  return `matrix version ${cell.version} asked for, but the ${cell.target.kind} target runs ClickHouse ${serverVersion}`;
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

/** A rendered after-load statement of a workload (see `WorkloadManifest.afterLoad`). */
export interface AfterLoadStatement {
  /** 1-based position in `afterLoad`. */
  n: number;
  file: string;
  wait: 'none' | 'mutations' | 'merges';
  /** Exact SQL sent (comments and a trailing `;` stripped, placeholders rendered). */
  sql: string;
}

/** The workload's after-load statements in order, rendered with `v` (e.g. a scratch table's name). Pure but for reading the files. */
export function afterLoadStatements(m: WorkloadManifest, v: RenderValues, root = sqlRoot()): AfterLoadStatement[] {
  return m.afterLoad.map((a, i) => ({
    n: i + 1,
    file: a.file,
    wait: a.wait,
    sql: renderTemplate(m.name, a.file, v, root).replace(/;\s*$/, ''),
  }));
}
