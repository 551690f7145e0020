/** The shape of a statement, read by a small lexer (strings, quoted identifiers, comments, parentheses): first keywords, output/insert format, multi-statement. */

/** What the server needs to know about a statement without parsing it fully. */
export interface SqlShape {
  /** First keyword, upper-case (`SELECT`, `INSERT`, …); '' when none. */
  first: string;
  /** Second keyword at depth 0, upper-case ('' when none). */
  second: string;
  /** Output format named by a top-level `FORMAT x` clause (not for INSERT). */
  outputFormat?: string;
  /** Input format of an `INSERT … FORMAT x`. */
  insertFormat?: string;
  /** Another statement follows a top-level `;`. */
  multi: boolean;
  /** Offset of the top-level `FORMAT` keyword of {@link outputFormat} (not for INSERT). */
  formatAt?: number;
  /** Offset where the statement ends: its first top-level `;`, else the text's length. */
  end: number;
  /** A SELECT/WITH carries its own top-level `INTO OUTFILE`. */
  intoOutfile: boolean;
}

/**
 * Where the (nested) `/* … *\/` comment starting at `i` ends: the index after its last `*\/`, or -1
 * when it is not closed.
 */
export function blockCommentEnd(sql: string, i: number): number {
  let d = 1;
  i += 2;
  while (i < sql.length && d > 0) {
    if (sql[i] === '/' && sql[i + 1] === '*') {
      d++;
      i += 2;
    } else if (sql[i] === '*' && sql[i + 1] === '/') {
      d--;
      i += 2;
    } else i++;
  }
  return d > 0 ? -1 : i;
}

/**
 * Where the string or quoted identifier starting at `i` (its quote `'`, `"` or `` ` ``) ends: the
 * index after its closing quote (backslash escapes and doubled quotes inside), or -1 when not closed.
 */
export function quotedEnd(sql: string, i: number): number {
  const q = sql[i];
  i++;
  while (i < sql.length) {
    if (sql[i] === '\\') i += 2;
    else if (sql[i] === q && sql[i + 1] === q) i += 2;
    else if (sql[i] === q) return i + 1;
    else i++;
  }
  return -1;
}

export function analyzeSql(sql: string): SqlShape {
  const n = sql.length;
  const words: { v: string; raw: string; at: number }[] = [];
  let end = -1;
  let first = '';
  let depth = 0;
  let semis = 0;
  let afterSemi = false;
  let i = 0;
  let insertFormat: string | undefined;
  const isWordStart = (c: string) => /[A-Za-z_]/.test(c);
  scan: while (i < n) {
    const c = sql[i];
    if (c === '-' && sql[i + 1] === '-') {
      while (i < n && sql[i] !== '\n') i++;
    } else if (c === '#') {
      while (i < n && sql[i] !== '\n') i++;
    } else if (c === '/' && sql[i + 1] === '*') {
      const e = blockCommentEnd(sql, i);
      i = e < 0 ? n : e;
    } else if (c === "'" || c === '"' || c === '`') {
      if (semis > 0) afterSemi = true;
      const e = quotedEnd(sql, i);
      i = e < 0 ? n : e;
    } else if (c === '(') {
      if (semis > 0) afterSemi = true;
      depth++;
      i++;
    } else if (c === ')') {
      depth = Math.max(0, depth - 1);
      i++;
    } else if (c === ';' && depth === 0) {
      if (semis === 0) end = i;
      semis++;
      i++;
    } else if (isWordStart(c)) {
      let j = i + 1;
      while (j < n && /[A-Za-z0-9_]/.test(sql[j])) j++;
      const raw = sql.slice(i, j);
      const w = raw.toUpperCase();
      i = j;
      if (semis > 0) afterSemi = true;
      if (!first) first = w;
      if (depth === 0 && semis === 0) {
        words.push({ v: w, raw, at: i - raw.length });
        if (first === 'INSERT') {
          if (w === 'VALUES') break scan; // the rest is data
          if (w === 'FORMAT') {
            const m = /^\s+([A-Za-z_][A-Za-z0-9_]*)/.exec(sql.slice(i));
            if (m) insertFormat = m[1];
            break scan; // the rest is data
          }
        }
      }
    } else if (/\s/.test(c)) {
      i++;
    } else {
      if (semis > 0) afterSemi = true;
      i++;
    }
  }
  let outputFormat: string | undefined;
  let formatAt: number | undefined;
  if (first !== 'INSERT') {
    for (let k = words.length - 2; k >= 0; k--) {
      if (words[k].v === 'FORMAT' && (k + 2 === words.length || words[k + 2].v === 'SETTINGS')) {
        outputFormat = words[k + 1].raw;
        formatAt = words[k].at;
        break;
      }
    }
  }
  const intoOutfile =
    (first === 'SELECT' || first === 'WITH') && words.some((w, k) => w.v === 'INTO' && words[k + 1]?.v === 'OUTFILE');
  return {
    first,
    second: words[1]?.v ?? '',
    outputFormat,
    insertFormat,
    multi: afterSemi,
    ...(formatAt !== undefined ? { formatAt } : {}),
    end: end < 0 ? n : end,
    intoOutfile,
  };
}

/**
 * The SELECT/WITH `sql` with its result sent to `file` instead of the client: `INTO OUTFILE '<file>'`
 * inserted before the top-level `FORMAT` clause (ClickHouse's grammar is `SELECT … [INTO OUTFILE …]
 * [FORMAT …] [SETTINGS …]`, so a `SETTINGS` after `FORMAT` stays where it is), or, without one,
 * `INTO OUTFILE '<file>' FORMAT <format>` at the end of the statement (before a trailing `;`, on a
 * new line so a trailing `--` comment cannot swallow it). The format is always named: without it
 * ClickHouse would choose the file's format from its name.
 * @param shape `analyzeSql(sql)` of this very text (offsets are into it)
 * @throws Error when the statement is not a SELECT/WITH or has its own INTO OUTFILE
 */
export function withOutfile(sql: string, shape: SqlShape, fileLiteral: string, format: string): string {
  if ((shape.first !== 'SELECT' && shape.first !== 'WITH') || shape.intoOutfile || shape.multi)
    throw new Error('withOutfile: only a single SELECT/WITH without its own INTO OUTFILE');
  if (shape.formatAt !== undefined)
    return `${sql.slice(0, shape.formatAt)}INTO OUTFILE ${fileLiteral} ${sql.slice(shape.formatAt)}`;
  return `${sql.slice(0, shape.end)}\nINTO OUTFILE ${fileLiteral} FORMAT ${format}${sql.slice(shape.end)}`;
}
