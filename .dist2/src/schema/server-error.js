"use strict";
/**
 * The text of a ClickHouse server exception, parsed: one regex for every server version. No
 * imports, so the embedded server process (src/targets/embedded/server.ts) loads nothing more for it;
 * re-exported by ./failures.ts, which turns a parsed error into a typed Temporal failure.
 */
Object.defineProperty(exports, "__esModule", { value: true });
exports.parseServerError = parseServerError;
/**
 * One regex for the server's exception text of every version:
 * - 26.x: `Code: 62. DB::Exception: Syntax error: … (SYNTAX_ERROR) (version 26.7.1.1 (official build))`
 * - 18.16: `Code: 62, e.displayText() = DB::Exception: Syntax error: …, e.what() = DB::Exception`
 * The first `Code:` gives the code; the name is the `(NAME)` before the optional version suffix at
 * the end (else the last `(NAME)` in the text).
 */
const SERVER_ERROR = /Code: (?<code>\d+)[.,] (?:e\.displayText\(\) = )?(?:[\w:]*Exception: )?(?<message>[\s\S]*?)(?:\s*\((?<name>[A-Z][A-Z0-9_]{2,})\))?(?:\s*\(version [^\n]*\))?(?:, e\.what\(\) = [\w:]+)?\s*$/;
/**
 * Parse a ClickHouse exception text (HTTP error body, mid-stream exception, client error message).
 * @returns code, name (only when the text names it) and message; `undefined` when the text holds no
 *   `Code: N.`/`Code: N,` marker.
 */
function parseServerError(text) {
    const m = SERVER_ERROR.exec(text);
    if (!m?.groups)
        return undefined;
    const { code, message } = m.groups;
    // A name not at the end (text after it): the last upper-case name in parentheses, as the client does.
    const name = m.groups.name ?? [...text.matchAll(/\(([A-Z][A-Z0-9_]{2,})\)/g)].pop()?.[1];
    return { code: Number(code), ...(name ? { name } : {}), message: message.trim() };
}
//# sourceMappingURL=server-error.js.map