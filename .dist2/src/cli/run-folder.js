"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.findStoredRun = findStoredRun;
/**
 * A stored run as the CLI finds it: given its run id, its folder name or (a scheduled run) its
 * Temporal workflow id, the run's folder and the ids its record (`run.json`) holds. `chbench resume`
 * and `chbench report` act on these recorded ids, never on what was typed.
 */
const node_fs_1 = require("node:fs");
const node_path_1 = __importDefault(require("node:path"));
const store_1 = require("../results/store");
/**
 * Find the run `given` names under `resultsDir`: the folder `runDir(resultsDir, given)` (so a run id,
 * its folder name and a scheduled run's workflow id with `:` all lead to it) with a readable `run.json`.
 * @returns undefined when there is no such folder or record
 * @throws Error when `run.json` is not JSON or has no `runId` (names the file)
 */
function findStoredRun(resultsDir, given) {
    const dir = (0, store_1.runDir)(resultsDir, given);
    const file = node_path_1.default.join(dir, 'run.json');
    if (!(0, node_fs_1.existsSync)(file))
        return undefined;
    let rec;
    try {
        rec = JSON.parse((0, node_fs_1.readFileSync)(file, 'utf8'));
    }
    catch (e) {
        throw new Error(`${file} is not JSON: ${e.message}`, { cause: e });
    }
    if (typeof rec.runId !== 'string' || !rec.runId)
        throw new Error(`${file} has no runId`);
    return {
        dir,
        runId: rec.runId,
        workflowId: typeof rec.workflowId === 'string' && rec.workflowId ? rec.workflowId : rec.runId,
    };
}
//# sourceMappingURL=run-folder.js.map