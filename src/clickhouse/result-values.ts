/**
 * Canonical text of JSONCompact rows by their column types (the document's `meta`), so that two
 * versions' results hash equal when their VALUES are equal, whatever each version's JSON formatting:
 *
 * - integers ((U)Int8 … (U)Int256) are written quoted by some versions and settings
 *   (`output_format_json_quote_64bit_integers`: a server's default was 1 until 25.8, 0 from 25.8; the
 *   PyPI chdb builds default it to 0 from 23.10 on) and unquoted by others. Canonical: the decimal
 *   digits as a JSON string, read from the TEXT — never through a JavaScript number (a UInt64 beyond
 *   2^53 would lose its last digits: 18446744073709551615 and …614 would compare equal);
 * - floats (Float32, Float64) may be printed with other digits or quoted
 *   (`output_format_json_quote_64bit_floats`): canonical is the value itself (Float32 rounded to single
 *   precision), as JavaScript prints that double; `"nan"`/`"inf"`/`"-inf"` strings stay such strings;
 * - decimals may be quoted (`output_format_json_quote_decimals`) or carry trailing zeros
 *   (`output_format_decimal_trailing_zeros`): canonical is the decimal text without trailing zeros, as a
 *   JSON string;
 * - strings (and every type written as a string: Date, DateTime, UUID, Enum, IP …) are decoded and
 *   re-encoded (escapes such as `\/` or `\u00e9` do not matter);
 * - Nullable, LowCardinality, Array, Tuple (array or object form), Map (object form, keys read by the
 *   key type) are read through; a type chbench does not know (Variant, Dynamic, JSON, …) is read
 *   generically: numbers keep their text, strings are re-encoded.
 *
 * The canonical text is itself JSON (integers and decimals as strings), so `JSON.parse` of it is
 * lossless (used for the first rows a mismatch shows). Column types are not part of it: a column whose
 * type differs between two versions but whose values print the same compares equal. Pure.
 */

/** A parsed ClickHouse column type, reduced to what the canonical text needs. */
export type ColumnType =
  | { kind: 'int' }
  | { kind: 'float'; bits: 32 | 64 }
  | { kind: 'decimal' }
  | { kind: 'nullable'; of: ColumnType }
  | { kind: 'array'; of: ColumnType }
  | { kind: 'tuple'; of: ColumnType[] }
  | { kind: 'map'; key: ColumnType; value: ColumnType }
  | { kind: 'other' };

/** Split `a, b(c, d), 'e,f'` at its top-level commas (parentheses and quoted strings respected). */
function splitArgs(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quote: string | null = null;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
    } else if (c === "'" || c === '`' || c === '"') quote = c;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      out.push(s.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(s.slice(start).trim());
  return out.filter((x) => x.length);
}

/** A Tuple element `name Type` (or `` `a b` Type``) without its name; an unnamed `Type` as is. */
function stripElementName(arg: string): string {
  if (arg.startsWith('`')) {
    const end = arg.indexOf('`', 1);
    return end > 0 ? arg.slice(end + 1).trim() : arg;
  }
  const m = /^([A-Za-z_][A-Za-z0-9_]*)\s+(\S.*)$/s.exec(arg);
  return m && !m[1].includes('(') ? m[2] : arg;
}

/**
 * Parse a type as JSONCompact's `meta` names it (`UInt64`, `Nullable(Decimal(18, 2))`,
 * `Array(Tuple(a UInt64, b String))`, `Map(String, UInt64)`, `DateTime64(3, 'UTC')`, …). Pure; never
 * throws: a type it does not know is `other`.
 */
export function parseColumnType(type: string): ColumnType {
  const t = type.trim();
  const open = t.indexOf('(');
  const name = open < 0 ? t : t.slice(0, open);
  const args = open < 0 || !t.endsWith(')') ? [] : splitArgs(t.slice(open + 1, -1));
  if (/^U?Int(8|16|32|64|128|256)$/.test(name)) return { kind: 'int' };
  if (name === 'Float32') return { kind: 'float', bits: 32 };
  if (name === 'Float64') return { kind: 'float', bits: 64 };
  if (/^Decimal(32|64|128|256)?$/.test(name)) return { kind: 'decimal' };
  if (name === 'Nullable' && args.length === 1) return { kind: 'nullable', of: parseColumnType(args[0]) };
  if (name === 'LowCardinality' && args.length === 1) return parseColumnType(args[0]);
  if (name === 'Array' && args.length === 1) return { kind: 'array', of: parseColumnType(args[0]) };
  if (name === 'Tuple' && args.length)
    return { kind: 'tuple', of: args.map((a) => parseColumnType(stripElementName(a))) };
  if (name === 'Map' && args.length === 2)
    return { kind: 'map', key: parseColumnType(args[0]), value: parseColumnType(args[1]) };
  return { kind: 'other' };
}

/** Thrown on text that is not the JSON the column types say; the caller treats the value hash as unknown. */
export class CanonicalValueError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CanonicalValueError';
  }
}

const INTEGER = /^-?\d+$/;
/** Characters of a JSON number, `true`, `false`, `null` (and a bare `nan` / `inf`). */
const SCALAR_CHAR = (() => {
  const ok = new Uint8Array(128);
  for (const c of '-+.0123456789eEabcdefghijklmnopqrstuvwxyz') ok[c.charCodeAt(0)] = 1;
  return ok;
})();
const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

/** `-003.1400` → `-3.14`, `-0.0` → `0`. */
function canonicalDecimal(text: string): string | null {
  const m = DECIMAL.exec(text);
  if (!m) return null;
  const int = m[2].replace(/^0+(?=\d)/, '');
  const frac = (m[3] ?? '').replace(/0+$/, '');
  const digits = frac ? `${int}.${frac}` : int;
  return `${m[1] && /[1-9]/.test(digits) ? '-' : ''}${digits}`;
}

/** A JSON scalar token: a string's decoded `text` (and its `json` when that is already canonical), or a literal's text. */
interface Scalar {
  str: boolean;
  text: string;
  json?: string;
}

/**
 * A cursor over JSON text producing canonical text by column type. Numbers are never converted to
 * JavaScript numbers except floats (whose value is a double by definition).
 */
class Reader {
  i = 0;
  constructor(readonly s: string) {}

  private ws(): void {
    const s = this.s;
    while (this.i < s.length) {
      const c = s.charCodeAt(this.i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) this.i++;
      else break;
    }
  }

  private fail(what: string): never {
    throw new CanonicalValueError(`${what} at offset ${this.i}: ${JSON.stringify(this.s.slice(this.i, this.i + 30))}`);
  }

  /** Expect `ch` (after whitespace). */
  expect(ch: string): void {
    this.ws();
    if (this.s[this.i] !== ch) this.fail(`expected ${ch}`);
    this.i++;
  }

  /** After whitespace: consume `ch` when it is next. */
  take(ch: string): boolean {
    this.ws();
    if (this.s[this.i] === ch) {
      this.i++;
      return true;
    }
    return false;
  }

  peek(): string {
    this.ws();
    return this.s[this.i];
  }

  /** A raw token: a string (its decoded value, `str: true`), a number / true / false / null (its text). */
  private scalar(): Scalar {
    this.ws();
    const s = this.s;
    const start = this.i;
    if (s[start] === '"') {
      // The closing quote: the next `"` not escaped (preceded by an even number of backslashes).
      let j = start;
      for (;;) {
        j = s.indexOf('"', j + 1);
        if (j < 0) this.fail('unterminated string');
        let b = 0;
        while (s.charCodeAt(j - 1 - b) === 0x5c) b++;
        if (b % 2 === 0) break;
      }
      this.i = j + 1;
      const raw = s.slice(start + 1, j);
      // Without a backslash the text is its own value, and (valid JSON having no raw control character)
      // its own canonical encoding.
      if (!raw.includes('\\')) return { str: true, text: raw, json: s.slice(start, j + 1) };
      return { str: true, text: JSON.parse(s.slice(start, j + 1)) as string };
    }
    let j = start;
    while (j < s.length && SCALAR_CHAR[s.charCodeAt(j)] === 1) j++;
    if (j === start) this.fail('expected a value');
    this.i = j;
    return { str: false, text: s.slice(start, j) };
  }

  /** Canonical text of one value of type `t`. */
  value(t: ColumnType): string {
    const c = this.peek();
    if (c === '[' || c === '{') return this.container(t, c);
    const v = this.scalar();
    if (!v.str && v.text === 'null') return 'null';
    switch (t.kind) {
      case 'nullable':
        return this.valueOfScalar(t.of, v);
      default:
        return this.valueOfScalar(t, v);
    }
  }

  private valueOfScalar(t: ColumnType, v: Scalar): string {
    if (t.kind === 'int' && INTEGER.test(v.text)) return `"${v.text === '-0' ? '0' : v.text}"`;
    if (t.kind === 'float') {
      if (v.str && /^[-+]?(nan|inf)$/i.test(v.text)) return JSON.stringify(v.text.toLowerCase().replace(/^\+/, ''));
      const n = Number(v.text);
      if (v.text.trim() !== '' && !Number.isNaN(n)) {
        const x = t.bits === 32 ? Math.fround(n) : n;
        return Number.isFinite(x) ? String(x === 0 ? 0 : x) : JSON.stringify(x > 0 ? 'inf' : '-inf');
      }
    }
    if (t.kind === 'decimal') {
      const d = canonicalDecimal(v.text);
      if (d !== null) return `"${d}"`;
    }
    if (t.kind === 'nullable') return this.valueOfScalar(t.of, v);
    // Strings (and anything not read as its type): the decoded value re-encoded; other tokens as sent.
    return v.str ? (v.json ?? JSON.stringify(v.text)) : v.text;
  }

  private container(t: ColumnType, open: string): string {
    const inner = t.kind === 'nullable' ? t.of : t;
    const parts: string[] = [];
    if (open === '[') {
      this.expect('[');
      let k = 0;
      if (!this.take(']')) {
        do {
          const et = inner.kind === 'array' ? inner.of : inner.kind === 'tuple' ? (inner.of[k] ?? OTHER) : OTHER;
          parts.push(this.value(et));
          k++;
        } while (this.take(','));
        this.expect(']');
      }
      return `[${parts.join(',')}]`;
    }
    // An object: a Map (key type, value type), a named Tuple (elements in order), or unknown (kept as pairs).
    this.expect('{');
    let k = 0;
    if (!this.take('}')) {
      do {
        const key = this.scalar();
        if (!key.str) this.fail('expected an object key');
        this.expect(':');
        if (inner.kind === 'map') parts.push(`[${this.valueOfScalar(inner.key, key)},${this.value(inner.value)}]`);
        else if (inner.kind === 'tuple') parts.push(this.value(inner.of[k] ?? OTHER));
        else parts.push(`[${JSON.stringify(key.text)},${this.value(OTHER)}]`);
        k++;
      } while (this.take(','));
      this.expect('}');
    }
    return `[${parts.join(',')}]`;
  }

  end(): void {
    this.ws();
    if (this.i !== this.s.length) this.fail('unexpected text after the value');
  }
}

const OTHER: ColumnType = { kind: 'other' };

/**
 * Canonical text of a comma-separated sequence of JSONCompact rows (`[v, …],[v, …]`, without the
 * enclosing brackets of `data`), one string per row, by the columns' types. Pure.
 * @throws CanonicalValueError when the text is not rows of that many values.
 */
export function canonicalRows(text: string, columns: readonly ColumnType[]): string[] {
  const r = new Reader(text);
  const rows: string[] = [];
  if (r.peek() === undefined) return rows;
  do {
    r.expect('[');
    const vals: string[] = [];
    if (!r.take(']')) {
      do {
        if (vals.length >= columns.length)
          throw new CanonicalValueError(`row ${rows.length + 1} has more values than meta's ${columns.length} columns`);
        vals.push(r.value(columns[vals.length]));
      } while (r.take(','));
      r.expect(']');
    }
    if (vals.length !== columns.length)
      throw new CanonicalValueError(`row ${rows.length + 1} has ${vals.length} values, meta ${columns.length} columns`);
    rows.push(`[${vals.join(',')}]`);
  } while (r.take(','));
  r.end();
  return rows;
}

/** The column types of a JSONCompact `meta` value (`[{"name": …, "type": …}, …]`), or an error text. */
export function metaColumnTypes(meta: string): ColumnType[] | string {
  let m: unknown;
  try {
    m = JSON.parse(meta);
  } catch (e) {
    return `meta is not JSON (${(e as Error).message})`;
  }
  if (!Array.isArray(m) || m.some((c) => typeof (c as { type?: unknown })?.type !== 'string'))
    return 'meta is not a list of {name, type}';
  return (m as { type: string }[]).map((c) => parseColumnType(c.type));
}
