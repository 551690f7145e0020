"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.WorkloadManifest = exports.SQL_ROOT = void 0;
exports.sqlRoot = sqlRoot;
exports.loadWorkload = loadWorkload;
exports.codecFor = codecFor;
exports.renderTemplate = renderTemplate;
exports.templateColumns = templateColumns;
exports.codecPlacementProblems = codecPlacementProblems;
exports.declaredCodecs = declaredCodecs;
exports.workloadProblems = workloadProblems;
exports.workloadQueries = workloadQueries;
exports.cannotRunReason = cannotRunReason;
exports.indexQueryIds = indexQueryIds;
/**
 * Workloads live in `sql/workloads/<name>/`: a `manifest.yaml`, a schema template, a generator
 * template, one file per query and, optionally, a skip-index definition. See
 * `sql/workloads/logs/manifest.yaml` for the placeholders.
 */
const node_fs_1 = require("node:fs");
const node_path_1 = __importDefault(require("node:path"));
const yaml_1 = require("yaml");
const zod_1 = require("zod");
const settings_1 = require("../clickhouse/settings");
const sql_1 = require("./sql");
const config_1 = require("../config");
/** Root of the SQL folder: `<repo>/sql` (see `REPO_ROOT`; works from `src/` and `dist/src/`). */
exports.SQL_ROOT = node_path_1.default.join(config_1.REPO_ROOT, 'sql');
/**
 * The folder holding `workloads/<name>/`: `CHBENCH_SQL_ROOT` when set (read at each call, resolved
 * against the working directory; a team's own workloads, or the tests' under `test/fixtures`), else
 * {@link SQL_ROOT}.
 */
function sqlRoot() {
    const v = process.env.CHBENCH_SQL_ROOT?.trim();
    return v ? node_path_1.default.resolve(v) : exports.SQL_ROOT;
}
const QueryEntry = zod_1.z.strictObject({
    id: zod_1.z.string().regex(/^[A-Za-z0-9_-]+$/),
    file: zod_1.z.string(),
    title: zod_1.z.string(),
    /** The query benefits from the workload's skip index and is re-run after materialization. */
    usesIndex: zod_1.z.boolean().default(false),
    /** False for queries whose result legitimately varies between runs (e.g. sampled quantiles): not hash-compared. */
    deterministic: zod_1.z.boolean().default(true),
});
/** A workload manifest (`manifest.yaml`). */
exports.WorkloadManifest = zod_1.z.strictObject({
    name: zod_1.z.string(),
    title: zod_1.z.string(),
    table: zod_1.z.string().regex(/^[a-z_][a-z0-9_]*$/),
    /** What the server must have, checked against the capability probe (not against version numbers). */
    requires: zod_1.z
        .strictObject({
        /** Data types the schema uses (`system.data_type_families`). */
        dataTypes: zod_1.z.array(zod_1.z.string()).default([]),
        /** Table functions the generator uses (`system.table_functions`). */
        tableFunctions: zod_1.z.array(zod_1.z.string()).default([]),
    })
        .prefault({}),
    schema: zod_1.z.string(),
    load: zod_1.z.string(),
    /** Query-level settings of the generator INSERT … SELECT. */
    loadSettings: zod_1.z.record(zod_1.z.string(), zod_1.z.union([zod_1.z.number(), zod_1.z.string()])).default({}),
    /** MergeTree settings of the table (rendered into `{{settings}}`), checked against the probe. */
    tableSettings: zod_1.z.record(zod_1.z.string(), zod_1.z.union([zod_1.z.number(), zod_1.z.string()])).default({}),
    /** Settings of this workload a version may lack (then recorded as not applied). */
    optionalSettings: zod_1.z.array(zod_1.z.string()).default([]),
    queries: zod_1.z.array(QueryEntry).min(1),
    index: zod_1.z.strictObject({ name: zod_1.z.string(), add: zod_1.z.string() }).optional(),
});
/** Names of the workloads found under `sql/workloads/`. */
function listWorkloads(root = sqlRoot()) {
    const dir = node_path_1.default.join(root, 'workloads');
    return (0, node_fs_1.readdirSync)(dir)
        .filter((d) => (0, node_fs_1.existsSync)(node_path_1.default.join(dir, d, 'manifest.yaml')))
        .sort();
}
/**
 * Load a workload manifest.
 * @throws Error naming the workload and the available ones when it does not exist or is invalid, or
 *   when its manifest's `name` is not its folder's name.
 */
function loadWorkload(name, root = sqlRoot()) {
    const file = node_path_1.default.join(root, 'workloads', name, 'manifest.yaml');
    if (!(0, node_fs_1.existsSync)(file))
        throw new Error(`workload: unknown workload "${name}"; available: ${listWorkloads(root).join(', ')}`);
    const r = exports.WorkloadManifest.safeParse((0, yaml_1.parse)((0, node_fs_1.readFileSync)(file, 'utf8')));
    if (!r.success)
        throw new Error(`workload ${name}: invalid manifest ${file}: ${r.error.message}`);
    // Steps find a workload's files by its name: a copied folder that kept the old name would mix two workloads.
    if (r.data.name !== name)
        throw new Error(`workload ${name}: ${file} says name: ${r.data.name}; a workload's name must be its folder's name (set name: ${name})`);
    for (const f of [
        r.data.schema,
        r.data.load,
        ...r.data.queries.map((q) => q.file),
        ...(r.data.index ? [r.data.index.add] : []),
    ])
        if (!(0, node_fs_1.existsSync)(node_path_1.default.join(root, 'workloads', name, f)))
            throw new Error(`workload ${name}: missing file ${f}`);
    return r.data;
}
/** `CODEC(...)` clause for a codec; empty for LZ4, which is the server default. */
function codecClause(codec) {
    return codec.trim() === 'LZ4' ? '' : ` CODEC(${codec.trim()})`;
}
/** The codec expression a profile (or a single expression) gives `column`. Pure. */
function codecFor(codec, column) {
    if (typeof codec === 'string')
        return codec;
    return (column !== undefined ? codec.columns[column] : undefined) ?? codec.default;
}
/**
 * The column whose definition holds position `at` of a CREATE TABLE text: the first identifier after
 * the nearest `(` or `,` before `at` at the same nesting level (`undefined` outside a column list).
 */
function columnAt(text, at) {
    let depth = 0;
    let i = at - 1;
    for (; i >= 0; i--) {
        const ch = text[i];
        if (ch === ')')
            depth++;
        else if (ch === '(') {
            if (depth === 0)
                break;
            depth--;
        }
        else if (ch === ',' && depth === 0)
            break;
    }
    if (i < 0)
        return undefined;
    const m = /^\s*(`[^`]+`|[A-Za-z_][A-Za-z0-9_]*)\s/.exec(text.slice(i + 1, at));
    return m ? m[1].replace(/^`|`$/g, '') : undefined;
}
/** Placeholders a template may use: `{{table}}`, `{{rows}}`, `{{codec}}`, `{{codec:<column>}}`, `{{settings}}`. */
const PLACEHOLDER = /\{\{(\w+)(?::([A-Za-z_][A-Za-z0-9_]*))?\}\}/g;
const KNOWN_PLACEHOLDERS = new Set(['table', 'rows', 'codec', 'settings']);
/** Drop `--` comment lines. */
function stripComments(text) {
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
function renderTemplate(workload, file, v, root = sqlRoot()) {
    const text = (0, node_fs_1.readFileSync)(node_path_1.default.join(root, 'workloads', workload, file), 'utf8');
    return renderText(text, v);
}
/** Template rendering on a string (see {@link renderTemplate}). */
function renderText(text, v) {
    const values = {
        table: v.table,
        rows: String(Math.trunc(v.rows)),
        settings: (0, settings_1.settingsClause)(v.tableSettings ?? {}),
    };
    const body = stripComments(text);
    return body
        .replace(PLACEHOLDER, (_, k, arg, at) => {
        if (k === 'codec')
            return codecClause(codecFor(v.codec, arg ?? columnAt(body, at)));
        if (!(k in values) || arg !== undefined)
            throw new Error(`template: unknown placeholder {{${k}${arg ? `:${arg}` : ''}}}`);
        return values[k];
    })
        .trim();
}
/**
 * The columns of a workload's schema template (the first parenthesised list of its CREATE TABLE;
 * `INDEX`, `PROJECTION`, `CONSTRAINT` entries left out) and how each gets its codec. Pure.
 * @param text the template text, placeholders not rendered
 */
function templateColumns(text) {
    const body = stripComments(text);
    const open = body.indexOf('(');
    let depth = 0;
    let close = -1;
    for (let i = open; open >= 0 && i < body.length; i++) {
        if (body[i] === '(')
            depth++;
        else if (body[i] === ')' && --depth === 0) {
            close = i;
            break;
        }
    }
    if (open < 0 || close < 0)
        return [];
    const out = [];
    for (const entry of (0, sql_1.splitTopLevel)(body.slice(open + 1, close), ',')) {
        const m = /^\s*(`[^`]+`|[A-Za-z_][A-Za-z0-9_]*)\s/.exec(entry);
        if (!m || /^(INDEX|PROJECTION|CONSTRAINT)$/i.test(m[1]))
            continue;
        const name = m[1].replace(/^`|`$/g, '');
        const fixedAt = entry.search(/\bCODEC\s*\(/i);
        let fixed;
        if (fixedAt >= 0) {
            const start = entry.indexOf('(', fixedAt);
            let d = 0;
            for (let i = start; i < entry.length; i++) {
                if (entry[i] === '(')
                    d++;
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
function codecPlacementProblems(workload, text, profile) {
    const cols = templateColumns(text);
    const out = [];
    const bad = Object.keys(profile.columns).filter((c) => !cols.some((x) => x.name === c));
    if (bad.length)
        out.push(`codec profile "${profile.name}" names column(s) ${bad.join(', ')} that the schema of workload ${workload} does not have (columns: ${cols.map((c) => c.name).join(', ')})`);
    const fixed = Object.keys(profile.columns).filter((c) => cols.some((x) => x.name === c && !x.placeholder && x.fixed));
    if (fixed.length)
        out.push(`codec profile "${profile.name}" sets column(s) ${fixed.join(', ')}, whose codec the schema of workload ${workload} writes literally (no {{codec}})`);
    const lacking = cols.filter((c) => !c.placeholder && !c.fixed && codecFor(profile, c.name).trim() !== 'LZ4');
    if (lacking.length)
        out.push(lacking.length === cols.length
            ? `workload ${workload}: its schema has no {{codec}} placeholder, so codec profile "${profile.name}" would not be applied (every cell would measure the server default, LZ4); end each column definition with {{codec}}`
            : `workload ${workload}: column(s) ${lacking.map((c) => c.name).join(', ')} of its schema have no {{codec}}, so codec profile "${profile.name}" would not reach them (they would stay LZ4); end their definitions with {{codec}}`);
    return out;
}
/**
 * The codec each column of the schema must carry for a cell of this profile: the template's literal
 * `CODEC(...)` for a column that writes one instead of a placeholder, else the profile's expression —
 * also for a column the template forgot to give `{{codec}}`: the cell claims the profile, so the
 * read-back must show it. Pure.
 */
function declaredCodecs(text, profile) {
    return new Map(templateColumns(text).map((c) => [c.name, !c.placeholder && c.fixed ? c.fixed : codecFor(profile, c.name)]));
}
/**
 * What a workload's files say before any server is asked: the manifest parses, every file it names
 * exists, every placeholder is known and `{{codec:<column>}}` names a column of the schema. One line
 * per problem; empty when the workload is sound.
 */
function workloadProblems(name, root = sqlRoot()) {
    const dir = node_path_1.default.join(root, 'workloads', name);
    const file = node_path_1.default.join(dir, 'manifest.yaml');
    if (!(0, node_fs_1.existsSync)(file)) {
        let have = [];
        try {
            have = listWorkloads(root);
        }
        catch {
            /* no workloads folder */
        }
        return [`workload: unknown workload "${name}" (no ${file}); available: ${have.join(', ') || 'none'}`];
    }
    let raw;
    try {
        raw = (0, yaml_1.parse)((0, node_fs_1.readFileSync)(file, 'utf8'));
    }
    catch (e) {
        return [`workload ${name}: ${file} is not valid YAML: ${e.message.split('\n')[0]}`];
    }
    const r = exports.WorkloadManifest.safeParse(raw);
    if (!r.success)
        return r.error.issues.map((i) => `workload ${name}: manifest.yaml ${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`);
    const m = r.data;
    const out = [];
    if (m.name !== name)
        out.push(`workload ${name}: manifest.yaml says name: ${m.name}; a workload's name must be its folder's name (set name: ${name})`);
    const ids = m.queries.map((q) => q.id);
    const dup = ids.filter((id, i) => ids.indexOf(id) !== i);
    if (dup.length)
        out.push(`workload ${name}: manifest.yaml queries: duplicate id(s) ${[...new Set(dup)].join(', ')}`);
    const files = [
        ['schema', m.schema],
        ['load', m.load],
        ...m.queries.map((q) => [`query ${q.id}`, q.file]),
        ...(m.index ? [['index.add', m.index.add]] : []),
    ];
    let columns;
    if ((0, node_fs_1.existsSync)(node_path_1.default.join(dir, m.schema)))
        columns = templateColumns((0, node_fs_1.readFileSync)(node_path_1.default.join(dir, m.schema), 'utf8')).map((c) => c.name);
    for (const [what, f] of files) {
        const p = node_path_1.default.join(dir, f);
        if (!(0, node_fs_1.existsSync)(p)) {
            out.push(`workload ${name}: ${what} file ${f} is missing (${p})`);
            continue;
        }
        for (const hit of stripComments((0, node_fs_1.readFileSync)(p, 'utf8')).matchAll(PLACEHOLDER)) {
            const [whole, k, arg] = hit;
            if (!KNOWN_PLACEHOLDERS.has(k) || (arg !== undefined && k !== 'codec'))
                out.push(`workload ${name}: ${f}: unknown placeholder ${whole} (known: {{table}}, {{rows}}, {{codec}}, {{codec:<column>}}, {{settings}})`);
            else if (arg !== undefined && columns && !columns.includes(arg))
                out.push(`workload ${name}: ${f}: ${whole} names a column the schema does not have (columns: ${columns.join(', ')})`);
        }
    }
    return out;
}
/** The workload's queries (optionally only `ids`), rendered. @throws Error on an unknown id. */
function workloadQueries(m, v, ids, root = sqlRoot()) {
    if (ids) {
        const known = new Set(m.queries.map((q) => q.id));
        const bad = ids.filter((i) => !known.has(i));
        if (bad.length)
            throw new Error(`queries: unknown query id(s) ${bad.join(', ')} in workload ${m.name}; allowed: ${[...known].join(', ')}`);
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
/**
 * Why a server cannot run a workload cell, or `undefined` if it can — from the capability probe:
 * the data types and table functions the workload needs, and column CODECs for a non-LZ4 cell.
 */
function cannotRunReason(m, f, codec) {
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
    const nonDefault = typeof codec === 'string'
        ? codec.trim() !== 'LZ4'
        : [codec.default, ...Object.values(codec.columns)].some((c) => c.trim() !== 'LZ4');
    if (nonDefault && !f.column_codecs)
        return `ClickHouse ${f.version} has no column CODEC clause (a trial CREATE TEMPORARY TABLE … CODEC(ZSTD(1)) was refused${f.column_codecs_trial?.error ? `: ${f.column_codecs_trial.error.slice(0, 120)}` : ''}); only the LZ4 cell can run`;
    return undefined;
}
/**
 * Ids of the selected queries that use the workload's skip index (`usesIndex`), in workload order;
 * empty when the workload has no index (then a cell has no index step).
 * @throws Error for an unknown workload or query id (as {@link loadWorkload} and {@link workloadQueries})
 */
function indexQueryIds(workload, queries) {
    const m = loadWorkload(workload);
    return m.index
        ? workloadQueries(m, { table: m.table, rows: 1, codec: 'LZ4' }, queries)
            .filter((q) => q.usesIndex)
            .map((q) => q.id)
        : [];
}
//# sourceMappingURL=workload.js.map