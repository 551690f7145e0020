/** Errors answered in the ClickHouse HTTP error shape (status, `X-ClickHouse-Exception-Code`, `Code: N. DB::Exception: … (TYPE)`). */
import { parseServerError } from '../schema/server-error';

/** An error to answer with the ClickHouse HTTP error shape. */
export class ServerError extends Error {
  constructor(
    readonly code: number,
    readonly type: string,
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** Parse `Code: N. DB::Exception: … (TYPE)` (the first code, the last type). */
export function parseClickHouseError(msg: string): { code: number; type: string } | undefined {
  const parsed = parseServerError(msg);
  return parsed && { code: parsed.code, type: parsed.name ?? 'UNKNOWN_EXCEPTION' };
}

/** HTTP status for an exception type, approximately as a ClickHouse server maps it. */
export function statusFor(type: string): number {
  if (
    type === 'SYNTAX_ERROR' ||
    type.startsWith('CANNOT_PARSE') ||
    type === 'TYPE_MISMATCH' ||
    type === 'INCORRECT_DATA' ||
    type === 'BAD_QUERY_PARAMETER' ||
    type === 'UNKNOWN_QUERY_PARAMETER'
  )
    return 400;
  if (
    /^UNKNOWN_(TABLE|DATABASE|FUNCTION|IDENTIFIER|TYPE|STORAGE|SETTING|FORMAT|AGGREGATE_FUNCTION|DATABASE_ENGINE|TYPE_OF_QUERY)$/.test(
      type,
    )
  )
    return 404;
  if (type === 'ACCESS_DENIED' || type === 'DATABASE_ACCESS_DENIED') return 403;
  if (type === 'NOT_IMPLEMENTED') return 501;
  if (type === 'QUERY_IS_TOO_LARGE') return 413;
  return 500;
}

/** Turn anything thrown into `{code, type, status, body}`. Non-ClickHouse errors get code 1001. */
export function toErrorAnswer(e: unknown): { code: number; type: string; status: number; body: string } {
  if (e instanceof ServerError) {
    const body = `Code: ${e.code}. DB::Exception: ${e.message}. (${e.type})`;
    return { code: e.code, type: e.type, status: e.status ?? statusFor(e.type), body };
  }
  const msg = e instanceof Error ? e.message : String(e);
  const parsed = parseClickHouseError(msg);
  if (parsed && /DB::Exception/.test(msg)) return { ...parsed, status: statusFor(parsed.type), body: msg };
  return { code: 1001, type: 'STD_EXCEPTION', status: 500, body: `Code: 1001. DB::Exception: ${msg}. (STD_EXCEPTION)` };
}
