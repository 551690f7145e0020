"use strict";
/**
 * ClickHouse SQL quoting: the one place that turns a value into a literal or an identifier. Used
 * where a value cannot travel as a query parameter (ClickHouse 18.16 has no `query_params`).
 */
Object.defineProperty(exports, "__esModule", { value: true });
exports.sqlString = sqlString;
exports.sqlIdent = sqlIdent;
exports.sqlValue = sqlValue;
exports.splitTopLevel = splitTopLevel;
/**
 * A ClickHouse string literal whose value is exactly `s`: backslashes and single quotes are
 * escaped with a backslash, everything else is sent as is.
 * @example sqlString("it's") === "'it\\'s'"
 */
function sqlString(s) {
    return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}
/**
 * A ClickHouse identifier quoted with backticks (backslashes and backticks escaped), naming
 * exactly `s`.
 */
function sqlIdent(s) {
    return `\`${s.replace(/\\/g, '\\\\').replace(/`/g, '\\`')}\``;
}
/**
 * A setting or parameter value as SQL: a finite number as is, anything else as a string literal
 * ({@link sqlString}).
 */
function sqlValue(v) {
    return typeof v === 'number' && Number.isFinite(v) ? String(v) : sqlString(String(v));
}
/**
 * Split `s` at top-level occurrences of `sep` (outside parentheses, brackets and quotes). Pure.
 * @example splitTopLevel("a Int8, b Decimal(9, 2)", ',') → ['a Int8', ' b Decimal(9, 2)']
 */
function splitTopLevel(s, sep) {
    const out = [];
    let depth = 0;
    let quote = null;
    let cur = '';
    for (let i = 0; i < s.length; i++) {
        const ch = s[i];
        if (quote) {
            if (ch === '\\') {
                cur += ch + (s[++i] ?? '');
                continue;
            }
            if (ch === quote)
                quote = null;
        }
        else if (ch === "'" || ch === '`' || ch === '"')
            quote = ch;
        else if (ch === '(' || ch === '[')
            depth++;
        else if (ch === ')' || ch === ']')
            depth--;
        else if (ch === sep && depth === 0) {
            out.push(cur);
            cur = '';
            continue;
        }
        cur += ch;
    }
    if (cur.trim())
        out.push(cur);
    return out;
}
//# sourceMappingURL=sql.js.map