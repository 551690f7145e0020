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

/** Characters of a run id (and of a folder name on every file system chbench writes to). */
const RUN_ID_CHARS = /^[A-Za-z0-9._-]+$/;

/** Longest run id, characters (a folder name is at most 255 bytes; cell keys are appended to child ids). */
export const MAX_RUN_ID_LENGTH = 200;

/**
 * Why `id` cannot be a run id, or `undefined` when it can: 1 to {@link MAX_RUN_ID_LENGTH} letters,
 * digits, `.`, `_` or `-`, not `.` or `..`, not starting with `-` (it would read as an option of
 * every command given it, e.g. `chbench watch -rf`).
 */
export function runIdProblem(id: string): string | undefined {
  if (!id) return 'a run id cannot be empty';
  if (id.length > MAX_RUN_ID_LENGTH) return `a run id has at most ${MAX_RUN_ID_LENGTH} characters (this one ${id.length})`;
  if (id === '.' || id === '..') return `"${id}" cannot name a folder`;
  if (id.startsWith('-'))
    return `a run id cannot start with '-' (commands given it would read it as an option), e.g. ${JSON.stringify(`run${id}`)}`;
  if (!RUN_ID_CHARS.test(id))
    return `a run id names the run's folder and its cells' workflows <runId>/<cellKey>: use letters, digits, '.', '_' or '-' (e.g. ${JSON.stringify(runIdOfWorkflowId(id).replace(/^[._-]+/, '') || 'run-1')})`;
  return undefined;
}

/**
 * The run id of a matrix workflow id: the id itself when it is one, else with every character
 * outside `[A-Za-z0-9._-]` replaced by `_` (the name `results/` gives its folder), so a scheduled
 * run's `q-2026-11-30T03:10:57Z` is run `q-2026-11-30T03_10_57Z`.
 */
export function runIdOfWorkflowId(workflowId: string): string {
  const out = workflowId.replace(/[^A-Za-z0-9._-]/g, '_');
  return out === '' || out === '.' || out === '..' ? '_' : out;
}
