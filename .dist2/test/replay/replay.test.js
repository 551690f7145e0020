"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * Recorded workflow histories (test/histories/<workflow>_<version>.json, kept per release and never
 * overwritten) must all replay against the current workflow code: a change of command order without
 * `patched()` fails here. Record the current release's with `CHBENCH_RECORD_HISTORIES=1` on the
 * embedded e2e test (test/e2e/e2e-embedded.test.ts), after bumping the version in package.json.
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const node_fs_1 = require("node:fs");
const node_path_1 = __importDefault(require("node:path"));
const worker_1 = require("@temporalio/worker");
const workflow_1 = require("@temporalio/workflow");
const config_1 = require("../../src/config");
const worker_2 = require("../../src/worker");
const histories_1 = require("../helpers/histories");
const WORKFLOWS = node_path_1.default.join(config_1.REPO_ROOT, 'dist', 'src', 'workflows');
(0, node_test_1.test)('every recorded history of every release replays against the current workflow code', async () => {
    (0, worker_2.installRuntime)('WARN');
    const hs = (0, histories_1.recordedHistories)();
    const files = hs.map((h) => h.file);
    for (const f of files)
        strict_1.default.match(f, /^(benchmark-cell|benchmark-matrix|confirm-comparison)_\d+\.\d+\.\d+\.json$/, 'history files are named <workflow>_<version>.json');
    for (const w of ['benchmark-cell', 'benchmark-matrix'])
        strict_1.default.ok(files.includes(`${w}_0.1.0.json`), `the 0.1.0 ${w} history is kept`);
    for (const h of hs)
        strict_1.default.ok(h.workflowId, `${h.file} has its workflow id in workflow-ids.json`);
    const results = [];
    for await (const r of worker_1.Worker.runReplayHistories({ workflowsPath: require.resolve(WORKFLOWS) }, hs))
        results.push(r);
    for (const r of results)
        strict_1.default.equal(r.error, undefined, `${r.workflowId}: ${r.error}`);
    strict_1.default.equal(results.length, hs.length);
});
(0, node_test_1.test)('a deliberately changed copy (two steps swapped, no patched()) fails replay with a determinism error', async () => {
    (0, worker_2.installRuntime)('WARN');
    // Copy the compiled workflows and swap createSchema with the first metrics snapshot in the copy.
    // Inside the checkout, so the bundler resolves node_modules.
    const tmp = (0, node_fs_1.mkdtempSync)(node_path_1.default.join(config_1.REPO_ROOT, 'dist', 'changed-workflows-'));
    try {
        (0, node_fs_1.cpSync)(node_path_1.default.join(config_1.REPO_ROOT, 'dist', 'src'), node_path_1.default.join(tmp, 'src'), { recursive: true });
        const cellFile = node_path_1.default.join(tmp, 'src', 'workflows', 'benchmark-cell.js');
        const code = (0, node_fs_1.readFileSync)(cellFile, 'utf8');
        const lines = code.split('\n');
        const a = lines.findIndex((l) => l.includes("run.step('collect-metrics',"));
        const b = lines.findIndex((l) => l.includes("run.step('create-schema',"));
        strict_1.default.ok(a > 0 && b === a + 1, 'the copy has the two steps next to each other');
        [lines[a], lines[b]] = [lines[b], lines[a]];
        (0, node_fs_1.writeFileSync)(cellFile, lines.join('\n'));
        for (const cell of (0, histories_1.recordedHistories)().filter((h) => h.file.startsWith('benchmark-cell_')))
            await strict_1.default.rejects(worker_1.Worker.runReplayHistory({ workflowsPath: node_path_1.default.join(tmp, 'src', 'workflows', 'index.js') }, cell.history, cell.workflowId), workflow_1.DeterminismViolationError, cell.file);
    }
    finally {
        (0, node_fs_1.rmSync)(tmp, { recursive: true, force: true });
    }
});
//# sourceMappingURL=replay.test.js.map