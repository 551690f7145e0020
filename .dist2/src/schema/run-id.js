"use strict";
/**
 * Run ids: one id names a run's folder (`results/<runId>/`), its record (`run.json`), its cells'
 * child workflows (`<runId>/<cellKey>`), its `ChbenchRunId` search attribute and its rows in the
 * results database. Pure (no I/O): the matrix workflow derives the run id from its workflow id here.
 *
 * A run started by `chbench run` has the workflow id it was given, which must already be a run id
 * ({@link runIdProblem}). A run a Temporal Schedule starts has the workflow id
 * `<scheduleId>-<RFC 3339 time>` (Temporal appends the time, e.g. `q-2026-11-30T03:10:57Z`), which
 * cannot be a folder name everywhere: its run id is that id made folder-safe
 * (`q-2026-11-30T03_10_57Z`, {@link runIdOfWorkflowId}), and `run.json` records both, so `chbench
 * resume`/`report` given either find the run and act on its real workflow id.
 */
Object.defineProperty(exports, "__esModule", { value: true });
exports.MAX_RUN_ID_LENGTH = void 0;
exports.runIdProblem = runIdProblem;
exports.runIdOfWorkflowId = runIdOfWorkflowId;
/** Characters of a run id (and of a folder name on every file system chbench writes to). */
const RUN_ID_CHARS = /^[A-Za-z0-9._-]+$/;
/** Longest run id, characters (a folder name is at most 255 bytes; cell keys are appended to child ids). */
exports.MAX_RUN_ID_LENGTH = 200;
/**
 * Why `id` cannot be a run id, or `undefined` when it can: 1 to {@link MAX_RUN_ID_LENGTH} letters,
 * digits, `.`, `_` or `-`, not `.` or `..`.
 */
function runIdProblem(id) {
    if (!id)
        return 'a run id cannot be empty';
    if (id.length > exports.MAX_RUN_ID_LENGTH)
        return `a run id has at most ${exports.MAX_RUN_ID_LENGTH} characters (this one ${id.length})`;
    if (id === '.' || id === '..')
        return `"${id}" cannot name a folder`;
    if (!RUN_ID_CHARS.test(id))
        return `a run id names the run's folder and its cells' workflows <runId>/<cellKey>: use letters, digits, '.', '_' or '-' (e.g. ${JSON.stringify(runIdOfWorkflowId(id))})`;
    return undefined;
}
/**
 * The run id of a matrix workflow id: the id itself when it is one, else with every character
 * outside `[A-Za-z0-9._-]` replaced by `_` (the name `results/` gives its folder), so a scheduled
 * run's `q-2026-11-30T03:10:57Z` is run `q-2026-11-30T03_10_57Z`.
 */
function runIdOfWorkflowId(workflowId) {
    const out = workflowId.replace(/[^A-Za-z0-9._-]/g, '_');
    return out === '' || out === '.' || out === '..' ? '_' : out;
}
//# sourceMappingURL=run-id.js.map