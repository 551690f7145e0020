/**
 * Every exit code of `chbench`, in one module. `EXIT` is the table of the run commands (`validate`,
 * `run`, `watch`, `cancel`, `resume`, `report`, `gc`, `worker`, `schedule`); the commands whose codes
 * mean something of their own (`compare`, `results`/`export`, `engines`) have their view of the same
 * numbers below. Tests, the docs and CI jobs depend on these values: change none of them.
 */

/** Ctrl-C while following a run (`run`, `watch`, `resume`, `cancel`): the CLI detached, the run goes on (128 + SIGINT, as a shell reports it). */
export const EXIT_DETACHED = 130;

/** `chbench schedule trigger`: the schedule's overlap policy skipped the triggered run. */
export const EXIT_TRIGGER_SKIPPED = 5;

/** Exit codes of the run commands and `schedule`. */
export const EXIT = {
  ok: 0,
  /** The run finished, but some cells failed. */
  cellsFailed: 1,
  /** Invalid spec or arguments (usage errors too). */
  invalid: 2,
  /** Temporal unreachable. */
  unreachable: 3,
  /** The workflow failed or was cancelled (any other failure of `schedule`). */
  workflowFailed: 4,
  triggerSkipped: EXIT_TRIGGER_SKIPPED,
  detached: EXIT_DETACHED,
} as const;

/**
 * Exit codes of `chbench compare`: `undecided` also when the results database is busy or
 * unreachable; `unconfirmed` a regression flagged by a first pass that no re-run confirmed.
 */
export const COMPARE_EXIT = { noRegression: 0, regression: 1, invalid: 2, undecided: 3, unconfirmed: 6 } as const;

/** Exit codes of `results` and `export`. */
export const RESULTS_EXIT = { ok: 0, failed: 1, invalid: 2, unavailable: 3 } as const;

/** Exit codes of `engines`. */
export const ENGINES_EXIT = { ok: 0, failed: 1, invalid: 2 } as const;

/** The exit codes as `chbench --help` prints them after the command list. */
export const EXIT_HELP = `
Exit codes: 0 ok; 1 the run finished but some cells failed; 2 invalid spec or arguments; 3 Temporal
unreachable; 4 the run failed or was cancelled; 130 Ctrl-C while following a run (run, watch, resume,
cancel): the CLI detached and the run goes on (\`chbench watch <runId>\` follows it again,
\`chbench cancel <runId>\` stops it).`;

/** Print `chbench: <msg>` on stderr and exit with `code`. */
export function fail(code: number, msg: string): never {
  console.error(`chbench: ${msg}`);
  process.exit(code);
}
