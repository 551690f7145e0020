"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.workloadFingerprint = workloadFingerprint;
exports.changedWorkloadFiles = changedWorkloadFiles;
/**
 * A workload's files as measured: the SHA-256 of each file a run reads (`manifest.yaml`, the schema
 * and load templates, every query file, the skip-index definition), recorded in `run.json` when a
 * run starts, so a resumed run can tell that the workload changed since its first cells ran.
 */
const node_crypto_1 = require("node:crypto");
const node_fs_1 = require("node:fs");
const node_path_1 = __importDefault(require("node:path"));
const workload_1 = require("./workload");
const sha256 = (b) => (0, node_crypto_1.createHash)('sha256').update(b).digest('hex');
/**
 * The fingerprint of workload `name`: each of its files' SHA-256 (hex, of the bytes on disk) by path
 * relative to the workload's folder, and one SHA-256 over them all (of the lines `<file> <sha256>`,
 * sorted by file).
 * @throws Error when the workload does not exist or names a missing file (as `loadWorkload`).
 */
function workloadFingerprint(name, root = (0, workload_1.sqlRoot)()) {
    const m = (0, workload_1.loadWorkload)(name, root);
    const dir = node_path_1.default.join(root, 'workloads', name);
    const files = ['manifest.yaml', m.schema, m.load, ...m.queries.map((q) => q.file), ...(m.index ? [m.index.add] : [])];
    const hashes = {};
    for (const f of [...new Set(files)].sort())
        hashes[f] = sha256((0, node_fs_1.readFileSync)(node_path_1.default.join(dir, f)));
    return {
        name,
        sha256: sha256(Object.entries(hashes)
            .map(([f, h]) => `${f} ${h}\n`)
            .join('')),
        files: hashes,
    };
}
/**
 * The files that differ between two fingerprints of a workload: changed, added (`<file> (new)`) or
 * no longer read (`<file> (removed)`), sorted; empty when they are the same.
 */
function changedWorkloadFiles(before, now) {
    const out = [];
    for (const f of new Set([...Object.keys(before.files), ...Object.keys(now.files)])) {
        const a = before.files[f];
        const b = now.files[f];
        if (a === b)
            continue;
        out.push(a === undefined ? `${f} (new)` : b === undefined ? `${f} (removed)` : f);
    }
    return out.sort();
}
//# sourceMappingURL=workload-hash.js.map