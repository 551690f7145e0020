/**
 * The text of a ClickHouse server exception, parsed: one regex for every server version. No
 * imports, so the embedded server process (src/engine/server.ts) loads nothing more for it;
 * re-exported by ./failures.ts, which turns a parsed error into a typed Temporal failure.
 */

/** A ClickHouse server error text, parsed. */
export interface ServerError {
  /** The server's error code (`Code: N`). */
  code: number;
  /** The error name written by the server (`(SYNTAX_ERROR)`, 19.x and later); absent on 18.16. */
  name?: string;
  /** The exception text without the `Code: N. DB::Exception: ` prefix and the name/version suffix. */
  message: string;
}

/**
 * One regex for the server's exception text of every version:
 * - 26.x: `Code: 62. DB::Exception: Syntax error: … (SYNTAX_ERROR) (version 26.7.1.1 (official build))`
 * - 18.16: `Code: 62, e.displayText() = DB::Exception: Syntax error: …, e.what() = DB::Exception`
 * The first `Code:` gives the code; the name is the `(NAME)` before the optional version suffix at
 * the end, and only that one (a `(NAME)` elsewhere is a quoted word of the statement: 18.16 quotes
 * `CODEC(ZTSD)`, 26.x `failed at position 28 (FORMAT)`).
 */
const SERVER_ERROR =
  /Code: (?<code>\d+)[.,] (?:e\.displayText\(\) = )?(?:[\w:]*Exception: )?(?<message>[\s\S]*?)(?:\s*\((?<name>[A-Z][A-Z0-9_]{2,})\))?(?:\s*\(version [^\n]*\))?(?:, e\.what\(\) = [\w:]+)?\s*$/;

/**
 * Parse a ClickHouse exception text (HTTP error body, mid-stream exception, client error message).
 * @returns code, name (only when the text names it) and message; `undefined` when the text holds no
 *   `Code: N.`/`Code: N,` marker.
 */
export function parseServerError(text: string): ServerError | undefined {
  const m = SERVER_ERROR.exec(text);
  if (!m?.groups) return undefined;
  const { code, message } = m.groups;
  // Only the name in the server's place (the end) is the error's name: a `(FORMAT)` or `(ZTSD)`
  // inside the message is a word of the statement the server quotes, not the error's identity.
  const name = m.groups.name;
  return { code: Number(code), ...(name ? { name } : {}), message: message.trim() };
}

