"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.writeTextAtomic = exports.writeJsonAtomic = void 0;
exports.runDir = runDir;
exports.cellDir = cellDir;
exports.readJsonIfExists = readJsonIfExists;
exports.readJson = readJson;
exports.readRecord = readRecord;
exports.readRecordIfExists = readRecordIfExists;
exports.parseRecord = parseRecord;
exports.writeRunSamples = writeRunSamples;
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
const node_fs_1 = require("node:fs");
const node_path_1 = __importDefault(require("node:path"));
const results_1 = require("../schema/results");
const fs_1 = require("../lib/fs");
Object.defineProperty(exports, "writeTextAtomic", { enumerable: true, get: function () { return fs_1.writeFileAtomic; } });
Object.defineProperty(exports, "writeJsonAtomic", { enumerable: true, get: function () { return fs_1.writeJsonAtomic; } });
/** Absolute directory of a run. `resultsDir` relative paths resolve against the worker's cwd; the run id becomes one safe path segment. */
function runDir(resultsDir, runId) {
    return node_path_1.default.resolve(resultsDir, (0, fs_1.sanitizePathSegment)(runId));
}
/** Absolute directory of one cell. */
function cellDir(resultsDir, runId, cellKey) {
    return node_path_1.default.join(runDir(resultsDir, runId), 'cells', (0, fs_1.sanitizePathSegment)(cellKey));
}
/** Read a JSON file, or `undefined` if it does not exist. */
function readJsonIfExists(file) {
    if (!(0, node_fs_1.existsSync)(file))
        return undefined;
    return JSON.parse((0, node_fs_1.readFileSync)(file, 'utf8'));
}
/** Read a JSON file. @throws Error if missing. */
function readJson(file) {
    return JSON.parse((0, node_fs_1.readFileSync)(file, 'utf8'));
}
/**
 * Read and parse a record with its schema (`src/schema/results.ts`).
 * @returns the parsed record (unknown keys outside open maps dropped).
 * @throws Error naming the file, the record's schema id and the first problems, each with the
 *   field's path, e.g. `…/result.json (chbench.cell-result/v1): queries_baseline.queries[0].stats.cold_ms: expected number, got string`;
 *   for a record carrying a `schema` id that is not the expected one, which id it has and which is wanted;
 *   for a missing file or invalid JSON, that.
 */
function readRecord(file, schema) {
    const id = results_1.RECORD_IDS.get(schema) ?? 'record';
    let raw;
    try {
        raw = JSON.parse((0, node_fs_1.readFileSync)(file, 'utf8'));
    }
    catch (e) {
        throw new Error(`${file} (${id}): ${e.code === 'ENOENT' ? 'no such file' : `not valid JSON: ${e.message}`}`, { cause: e });
    }
    return parseRecord(raw, schema, file);
}
/** {@link readRecord}, or `undefined` when the file does not exist. */
function readRecordIfExists(file, schema) {
    return (0, node_fs_1.existsSync)(file) ? readRecord(file, schema) : undefined;
}
/**
 * Parse an already-read value with a record schema; `where` names it in errors (a file path).
 * @throws Error as {@link readRecord}.
 */
function parseRecord(raw, schema, where) {
    const id = results_1.RECORD_IDS.get(schema) ?? 'record';
    // A versioned record of another version: say so rather than listing every field that moved.
    if (id.includes('/') && raw && typeof raw === 'object' && raw.schema !== id) {
        const has = raw.schema;
        throw new Error(`${where}: schema id ${has === undefined ? 'missing' : JSON.stringify(has)}, expected "${id}" (written by another chbench version, or not a chbench ${id.replace(/^chbench\.|\/.*$/g, '')} record)`);
    }
    const r = schema.safeParse(raw);
    if (r.success)
        return r.data;
    const issues = r.error.issues.slice(0, 5).map((i) => `${issuePath(i.path) || '(top level)'}: ${issueText(i, raw)}`);
    const more = r.error.issues.length > 5 ? `; and ${r.error.issues.length - 5} more` : '';
    throw new Error(`${where} (${id}): ${issues.join('; ')}${more}`);
}
/** `a.b[0].c` from a zod issue path. */
function issuePath(p) {
    return p.map((k, i) => (typeof k === 'number' ? `[${k}]` : `${i ? '.' : ''}${String(k)}`)).join('');
}
/** An issue's text in the form `expected number, got string`. */
function issueText(i, raw) {
    let v = raw;
    for (const k of i.path)
        v = v === null || v === undefined ? undefined : v[k];
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
function writeRunSamples(dir, cellKeys) {
    const file = node_path_1.default.join(dir, 'samples.jsonl');
    const parts = cellKeys.map((k) => node_path_1.default.join(dir, 'cells', (0, fs_1.sanitizePathSegment)(k), 'samples.jsonl')).filter((f) => (0, node_fs_1.existsSync)(f)).map((f) => (0, node_fs_1.readFileSync)(f, 'utf8'));
    (0, fs_1.writeFileAtomic)(file, parts.join(''));
    return file;
}
//# sourceMappingURL=store.js.map