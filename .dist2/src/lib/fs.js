"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.writeFileAtomic = writeFileAtomic;
exports.writeJsonAtomic = writeJsonAtomic;
exports.sanitizePathSegment = sanitizePathSegment;
/**
 * File-system helpers: atomic writes and path-segment sanitising, each written once.
 */
const node_fs_1 = require("node:fs");
const node_path_1 = __importDefault(require("node:path"));
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
function writeFileAtomic(file, text) {
    (0, node_fs_1.mkdirSync)(node_path_1.default.dirname(file), { recursive: true });
    // pid + counter: two writers of one file (two processes, or two activities in one) never share a temp file.
    const tmp = `${file}.${process.pid}.${++tmpCounter}.tmp`;
    try {
        (0, node_fs_1.writeFileSync)(tmp, text);
        (0, node_fs_1.renameSync)(tmp, file);
    }
    catch (e) {
        (0, node_fs_1.rmSync)(tmp, { force: true });
        throw e;
    }
}
/**
 * Write `value` as pretty JSON (2-space indent, trailing newline) atomically
 * (see {@link writeFileAtomic}).
 * @throws Error on I/O failure, or TypeError when `value` cannot be serialised (cycles, BigInt)
 */
function writeJsonAtomic(file, value) {
    writeFileAtomic(file, JSON.stringify(value, null, 2) + '\n');
}
/**
 * Make a string safe as one path segment: every character outside `[A-Za-z0-9._-]` becomes `_`,
 * and `.`, `..` and the empty string become `_`.
 * @param s any string (e.g. a run id such as `run/2026-11-29T18:00`)
 * @returns a non-empty segment without `/` that never points up or at the same directory
 */
function sanitizePathSegment(s) {
    const out = s.replace(/[^A-Za-z0-9._-]/g, '_');
    return out === '' || out === '.' || out === '..' ? '_' : out;
}
//# sourceMappingURL=fs.js.map