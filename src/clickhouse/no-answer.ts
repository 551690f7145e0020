/**
 * Whether an error of `@clickhouse/client` means the server did not answer (connection refused or
 * reset, socket hang up, a request timeout: the process is gone, its port closed, or it hangs) rather
 * than that it answered with an error (a ClickHouse exception: `Code: N. DB::Exception: …`, parsed
 * into `ClickHouseError`, or 18.16's `Code: N, e.displayText() = …` text). Pure; library code, so
 * activities (`src/activities/support/attempts.ts` re-exports {@link isTargetGone}) and the capability
 * probe (`./probe.ts`) share one definition.
 */
import { ClickHouseError } from '@clickhouse/client';
import { parseServerError } from '../schema/server-error';

/** Network errors that mean the server is gone (process died, port closed). */
const GONE = /ECONNREFUSED|ECONNRESET|socket hang up|EPIPE|ENOTCONN|other side closed/i;

/** `@clickhouse/client`'s request timeout (`request_timeout`: `Error('Timeout error.')`) and a socket's `ETIMEDOUT`. */
const TIMEOUT = /^Timeout error\.?$|ETIMEDOUT/i;

type ErrLike = NodeJS.ErrnoException & { cause?: unknown };

/**
 * True when `e` (or an error in its `cause` chain) says the target server is unreachable rather than
 * that a statement failed: `ECONNREFUSED`, `ECONNRESET`, `socket hang up`, `EPIPE`, `ENOTCONN`,
 * `other side closed` in its `code` or `message`. A timeout is not "gone" (see {@link serverDidNotAnswer}).
 */
export function isTargetGone(e: unknown): boolean {
  const err = e as ErrLike;
  return GONE.test(`${err?.code ?? ''} ${err?.message ?? ''}`) || (err?.cause !== undefined && isTargetGone(err.cause));
}

/** True when `e` (or its `cause` chain) is a request timeout of the client or a socket's `ETIMEDOUT`. */
export function isRequestTimeout(e: unknown): boolean {
  const err = e as ErrLike;
  return (
    TIMEOUT.test(String(err?.code ?? '')) ||
    TIMEOUT.test(String(err?.message ?? '').trim()) ||
    (err?.cause !== undefined && isRequestTimeout(err.cause))
  );
}

/** True when `e` is an answer of the server: a `ClickHouseError`, or an error whose text has a ClickHouse `Code: N` (any version's form). */
export function isServerAnswer(e: unknown): boolean {
  return e instanceof ClickHouseError || parseServerError((e as Error)?.message ?? '') !== undefined;
}

/**
 * How a failed request ended, for code that must tell "absent" from "unknown":
 * - `server-error`: the server answered with a ClickHouse exception (the statement, or what it asks
 *   for, is not there on this server);
 * - `no-answer`: the server did not answer ({@link isTargetGone} or {@link isRequestTimeout});
 * - `other`: anything else (e.g. a body the client could not parse).
 * A server answer wins: an exception whose text mentions a refused connection (a `remote()` table
 * function's) is still the server's answer.
 */
export function classifyFailure(e: unknown): 'server-error' | 'no-answer' | 'other' {
  if (isServerAnswer(e)) return 'server-error';
  if (isTargetGone(e) || isRequestTimeout(e)) return 'no-answer';
  return 'other';
}

/** True when the server did not answer the request (`classifyFailure(e) === 'no-answer'`). */
export function serverDidNotAnswer(e: unknown): boolean {
  return classifyFailure(e) === 'no-answer';
}
