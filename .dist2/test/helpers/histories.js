"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.HISTORIES_DIR = void 0;
exports.packageVersion = packageVersion;
exports.historyFile = historyFile;
exports.saveHistory = saveHistory;
exports.recordedHistories = recordedHistories;
exports.recordRunHistories = recordRunHistories;
exports.showHistory = showHistory;
/**
 * Recorded workflow histories, kept per release: `test/histories/<workflow>_<chbench version>.json`
 * (e.g. `benchmark-cell_0.1.0.json`), with `workflow-ids.json` mapping each file to the workflow id
 * it was recorded under. A file is never overwritten: a release records its own, and every recorded
 * history must keep replaying against the current workflow code (test/replay/replay.test.ts).
 */
const node_child_process_1 = require("node:child_process");
const node_fs_1 = require("node:fs");
const node_path_1 = __importDefault(require("node:path"));
const proto_utils_1 = require("@temporalio/common/lib/proto-utils");
const config_1 = require("../../src/config");
exports.HISTORIES_DIR = node_path_1.default.join(config_1.REPO_ROOT, 'test', 'histories');
const IDS_FILE = node_path_1.default.join(exports.HISTORIES_DIR, 'workflow-ids.json');
/** chbench's version from package.json (the suffix of the history files recorded now). */
function packageVersion() {
    return JSON.parse((0, node_fs_1.readFileSync)(node_path_1.default.join(config_1.REPO_ROOT, 'package.json'), 'utf8')).version;
}
/** `<workflow>_<version>.json`, e.g. `benchmark-matrix_0.2.0.json`. */
function historyFile(workflow, version = packageVersion()) {
    return `${workflow}_${version}.json`;
}
function readIds() {
    return (0, node_fs_1.existsSync)(IDS_FILE) ? JSON.parse((0, node_fs_1.readFileSync)(IDS_FILE, 'utf8')) : {};
}
/**
 * Store a history recorded under `workflowId` as `file` and note its id in `workflow-ids.json`.
 * @throws Error when `file` already exists (bump the version in package.json to record new ones).
 */
function saveHistory(file, workflowId, historyJson) {
    const target = node_path_1.default.join(exports.HISTORIES_DIR, file);
    if ((0, node_fs_1.existsSync)(target))
        throw new Error(`${node_path_1.default.relative(config_1.REPO_ROOT, target)} exists: recorded histories are never overwritten (bump the version in package.json to record a new release's)`);
    (0, node_fs_1.writeFileSync)(target, historyJson);
    (0, node_fs_1.writeFileSync)(IDS_FILE, JSON.stringify({ ...readIds(), [file]: workflowId }, null, 2) + '\n');
}
/** Every recorded history, with the workflow id it was recorded under (from `workflow-ids.json`). */
function recordedHistories() {
    const ids = readIds();
    return (0, node_fs_1.readdirSync)(exports.HISTORIES_DIR)
        .filter((f) => f.endsWith('.json') && f !== 'workflow-ids.json')
        .sort()
        .map((file) => ({
        file,
        workflowId: ids[file],
        history: (0, proto_utils_1.historyFromJSON)(JSON.parse((0, node_fs_1.readFileSync)(node_path_1.default.join(exports.HISTORIES_DIR, file), 'utf8'))),
    }));
}
/**
 * Record a finished run's matrix history and one cell's history (`temporal workflow show --output
 * json` against `address`) as this release's files. See {@link saveHistory}.
 * @throws Error when a file exists already
 */
function recordRunHistories(address, runId, cellKey) {
    saveHistory(historyFile('benchmark-matrix'), runId, showHistory(address, runId));
    saveHistory(historyFile('benchmark-cell'), `${runId}/${cellKey}`, showHistory(address, `${runId}/${cellKey}`));
}
/** A workflow's history as JSON (`temporal workflow show --output json` against `address`). */
function showHistory(address, workflowId) {
    return (0, node_child_process_1.execFileSync)((0, config_1.temporalCliPath)(), [
        'workflow',
        'show',
        '--workflow-id',
        workflowId,
        '--output',
        'json',
        '--address',
        address,
    ]);
}
//# sourceMappingURL=histories.js.map