"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/** The prebuilt workflow bundle's fingerprint: a rewrite with the same content keeps it, a change does not. */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const node_fs_1 = require("node:fs");
const node_os_1 = __importDefault(require("node:os"));
const node_path_1 = __importDefault(require("node:path"));
const worker_1 = require("../../src/worker");
(0, node_test_1.describe)('workflowSourcesHash', () => {
    (0, node_test_1.it)('ignores modification times and the bundle itself; changes with any compiled file', () => {
        const dir = (0, node_fs_1.mkdtempSync)(node_path_1.default.join(node_os_1.default.tmpdir(), 'chbench-bundle-hash-'));
        try {
            (0, node_fs_1.mkdirSync)(node_path_1.default.join(dir, 'workflows'));
            (0, node_fs_1.writeFileSync)(node_path_1.default.join(dir, 'workflows', 'a.js'), 'exports.a = 1;\n');
            (0, node_fs_1.writeFileSync)(node_path_1.default.join(dir, 'b.js'), 'exports.b = 2;\n');
            const first = (0, worker_1.workflowSourcesHash)(dir);
            // What `tsc` does to an unchanged file: same bytes, new mtime.
            const later = new Date(Date.now() + 60_000);
            (0, node_fs_1.utimesSync)(node_path_1.default.join(dir, 'b.js'), later, later);
            (0, node_fs_1.writeFileSync)(node_path_1.default.join(dir, 'workflow-bundle.js'), 'bundle');
            strict_1.default.equal((0, worker_1.workflowSourcesHash)(dir), first);
            (0, node_fs_1.writeFileSync)(node_path_1.default.join(dir, 'workflows', 'a.js'), 'exports.a = 2;\n');
            strict_1.default.notEqual((0, worker_1.workflowSourcesHash)(dir), first);
        }
        finally {
            (0, node_fs_1.rmSync)(dir, { recursive: true, force: true });
        }
    });
});
//# sourceMappingURL=workflow-bundle.test.js.map