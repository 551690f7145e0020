"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * One name per cell step: the README's "What a cell measures" table is CELL_STEPS, every step's file
 * exists, and the workflow's activity calls are the table's activities (checked on the source).
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const node_fs_1 = require("node:fs");
const node_path_1 = __importDefault(require("node:path"));
const config_1 = require("../../src/config");
const cell_1 = require("../../src/schema/cell");
/** Rows of the first Markdown table after `heading`, cells trimmed. */
function tableAfter(md, heading) {
    const at = md.indexOf(heading);
    strict_1.default.ok(at >= 0, `README has "${heading}"`);
    const lines = md.slice(at).split('\n');
    const start = lines.findIndex((l) => l.startsWith('|'));
    const rows = [];
    for (const l of lines.slice(start)) {
        if (!l.startsWith('|'))
            break;
        rows.push(l
            .split(/(?<!\\)\|/)
            .slice(1, -1)
            .map((c) => c.trim()));
    }
    return rows.slice(2); // header and separator
}
(0, node_test_1.test)("the README's step table is CELL_STEPS, row for row", () => {
    const rows = tableAfter((0, node_fs_1.readFileSync)(node_path_1.default.join(config_1.REPO_ROOT, 'README.md'), 'utf8'), '### What a cell measures');
    strict_1.default.deepEqual(rows, cell_1.CELL_STEPS.map((s) => [`\`${s.phase}\``, `\`${s.activity}\``, `\`${s.file}\``, s.record]));
});
(0, node_test_1.test)('every step names an existing file and a unique phase', () => {
    for (const s of cell_1.CELL_STEPS)
        strict_1.default.ok((0, node_fs_1.existsSync)(node_path_1.default.join(config_1.REPO_ROOT, s.file)), s.file);
    strict_1.default.equal(new Set(cell_1.CELL_STEPS.map((s) => s.phase)).size, cell_1.CELL_STEPS.length);
});
(0, node_test_1.test)('the cell workflow runs each phase with the activity the table names, in table order', () => {
    const src = (0, node_fs_1.readFileSync)(node_path_1.default.join(config_1.REPO_ROOT, 'src', 'workflows', 'benchmark-cell.ts'), 'utf8');
    // One call per step, however the formatter wraps it: the phase, then the activity before the next step.
    const calls = [
        ...src.matchAll(/run\.step\(\s*'([a-z-]+)',(?:(?!run\.step)[\s\S])*?acts\.(\w+)\.executeWithOptions/g),
    ].map((m) => [m[1], m[2]]);
    const middle = cell_1.CELL_STEPS.filter((s) => !['provision', 'write-results', 'teardown'].includes(s.phase)).map((s) => [
        s.phase,
        s.activity,
    ]);
    strict_1.default.deepEqual(calls, middle);
});
//# sourceMappingURL=cell-steps.test.js.map