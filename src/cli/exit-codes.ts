/**
 * Every exit code of `chbench`, in one module. `EXIT` is the table of the run commands (`validate`,
 * `run`, `watch`, `cancel`, `resume`, `report`, `gc`, `worker`, `schedule`, `bisect`); the commands whose codes
 * mean something of their own (`compare`, `results`/`export`/`series`, `engines`) have their view of the same
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

/** One line of the exit-code table: a code, the commands it is for, and what it means there. */
export interface ExitCodeRow {
  code: number;
  /** The commands (`run`, `schedule trigger`, …) or `the run commands`. */
  commands: string;
  meaning: string;
}

/**
 * Every exit code with its commands and meaning, in the order `chbench --help` prints them; the
 * table in docs/running.md ("Exit codes") is this list (a unit test compares them). The run commands
 * are `validate`, `run`, `watch`, `cancel`, `resume`, `report`, `gc`, `worker`, `schedule`, `bisect`.
 */
export const EXIT_CODES: readonly ExitCodeRow[] = [
  { code: EXIT.ok, commands: 'all', meaning: 'ok (compare: no regression)' },
  { code: EXIT.cellsFailed, commands: 'the run commands', meaning: 'the run finished but some cells failed' },
  { code: COMPARE_EXIT.regression, commands: 'compare', meaning: 'a regression, confirmed by the interleaved re-run' },
  { code: RESULTS_EXIT.failed, commands: 'results, export, series, engines', meaning: 'the command failed' },
  { code: EXIT.invalid, commands: 'all', meaning: 'invalid spec or arguments' },
  { code: EXIT.unreachable, commands: 'the run commands', meaning: 'Temporal unreachable' },
  {
    code: COMPARE_EXIT.undecided,
    commands: 'compare',
    meaning:
      'nothing could be decided (every query unstable or no cell paired), or the results database busy or unreachable',
  },
  {
    code: RESULTS_EXIT.unavailable,
    commands: 'results, export, series',
    meaning: 'the results database busy or unreachable',
  },
  { code: EXIT.workflowFailed, commands: 'the run commands', meaning: 'the run failed or was cancelled' },
  { code: EXIT.triggerSkipped, commands: 'schedule trigger', meaning: "the schedule's overlap policy skipped the run" },
  {
    code: COMPARE_EXIT.unconfirmed,
    commands: 'compare',
    meaning: 'a first-pass regression that no re-run confirmed',
  },
  {
    code: EXIT.detached,
    commands: 'run, watch, resume, cancel',
    meaning:
      'Ctrl-C while following a run: the CLI detached and the run goes on (`chbench watch <runId>` follows it again, `chbench cancel <runId>` stops it)',
  },
];

/** The exit codes as `chbench --help` prints them after the command list (from {@link EXIT_CODES}). */
export const EXIT_HELP = [
  '',
  'Exit codes (code, commands: meaning):',
  ...EXIT_CODES.map((r) => `  ${String(r.code).padStart(3)}  ${r.commands}: ${r.meaning}`),
].join('\n');

/** The exit codes as the markdown table of docs/running.md (from {@link EXIT_CODES}). */
export function exitCodesMarkdown(): string {
  return [
    '| code | commands | meaning |',
    '|---|---|---|',
    ...EXIT_CODES.map((r) => `| ${r.code} | ${r.commands} | ${r.meaning} |`),
  ].join('\n');
}

/** Print `chbench: <msg>` on stderr and exit with `code`. */
export function fail(code: number, msg: string): never {
  console.error(`chbench: ${msg}`);
  process.exit(code);
}
