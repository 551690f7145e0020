/**
 * ClickHouse SQL quoting: the one place that turns a value into a literal or an identifier. Used
 * where a value cannot travel as a query parameter (ClickHouse 18.16 has no `query_params`).
 */

/**
 * A ClickHouse string literal whose value is exactly `s`: backslashes and single quotes are
 * escaped with a backslash, everything else is sent as is.
 * @example sqlString("it's") === "'it\\'s'"
 */
export function sqlString(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/**
 * A ClickHouse identifier quoted with backticks (backslashes and backticks escaped), naming
 * exactly `s`.
 */
export function sqlIdent(s: string): string {
  return `\`${s.replace(/\\/g, '\\\\').replace(/`/g, '\\`')}\``;
}

/**
 * A setting or parameter value as SQL: a finite number as is, anything else as a string literal
 * ({@link sqlString}).
 */
export function sqlValue(v: string | number): string {
  return typeof v === 'number' && Number.isFinite(v) ? String(v) : sqlString(String(v));
}

/**
 * Split `s` at top-level occurrences of `sep` (outside parentheses, brackets and quotes). Pure.
 * @example splitTopLevel("a Int8, b Decimal(9, 2)", ',') → ['a Int8', ' b Decimal(9, 2)']
 */
export function splitTopLevel(s: string, sep: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quote: string | null = null;
  let cur = '';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    if (quote) {
      if (ch === '\\') {
        cur += ch + (s[++i] ?? '');
        continue;
      }
      if (ch === quote) quote = null;
    } else if (ch === "'" || ch === '`' || ch === '"') quote = ch;
    else if (ch === '(' || ch === '[') depth++;
    else if (ch === ')' || ch === ']') depth--;
    else if (ch === sep && depth === 0) {
      out.push(cur);
      cur = '';
      continue;
    }
    cur += ch;
  }
  if (cur.trim()) out.push(cur);
  return out;
}

/** Words after `FORMAT` that make it a column or alias named `format`, not a FORMAT clause. */
const NOT_A_FORMAT = new Set(['ASC', 'DESC', 'ASCENDING', 'DESCENDING', 'NULLS', 'COLLATE', 'WITH']);

/**
 * The output format a statement names in a top-level `FORMAT <name>` clause at its end (optionally
 * followed by `SETTINGS …` and a `;`), or `undefined` when it has none: comments, string literals,
 * quoted identifiers and anything in parentheses are skipped, and `ORDER BY format DESC` is not a
 * clause. Pure.
 * @example trailingFormat('SELECT 1 FORMAT JSON') → 'JSON'
 */
export function trailingFormat(sql: string): string | undefined {
  const words: { v: string; raw: string }[] = [];
  let depth = 0;
  for (let i = 0; i < sql.length;) {
    const c = sql[i];
    if (c === '-' && sql[i + 1] === '-') while (i < sql.length && sql[i] !== '\n') i++;
    else if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? sql.length : end + 2;
    } else if (c === "'" || c === '"' || c === '`') {
      for (i++; i < sql.length; i++) {
        if (sql[i] === '\\') i++;
        else if (sql[i] === c) {
          i++;
          break;
        }
      }
      if (depth === 0) words.push({ v: '', raw: '' });
    } else if (c === '(' || c === '[') {
      depth++;
      i++;
    } else if (c === ')' || c === ']') {
      depth = Math.max(0, depth - 1);
      i++;
    } else if (/[A-Za-z_]/.test(c)) {
      let j = i + 1;
      while (j < sql.length && /[A-Za-z0-9_]/.test(sql[j])) j++;
      if (depth === 0) words.push({ v: sql.slice(i, j).toUpperCase(), raw: sql.slice(i, j) });
      i = j;
    } else {
      if (depth === 0 && !/[\s;]/.test(c)) words.push({ v: c, raw: c });
      i++;
    }
  }
  for (let k = words.length - 2; k >= 0; k--)
    if (
      words[k].v === 'FORMAT' &&
      /^[A-Za-z_]/.test(words[k + 1].raw) &&
      !NOT_A_FORMAT.has(words[k + 1].v) &&
      (k + 2 === words.length || words[k + 2].v === 'SETTINGS')
    )
      return words[k + 1].raw;
  return undefined;
}
