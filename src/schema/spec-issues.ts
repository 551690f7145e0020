/**
 * One human line per zod issue of a run spec: the field's path, what was wrong with the value the
 * user wrote (quoted), "missing" for a field left out, and "did you mean …" for a misspelt key or an
 * unknown enum value (the closest allowed name by edit distance, `fastest-levenshtein`). Pure: the
 * allowed keys of an object are read from the schema at the issue's path.
 */
import type { z } from 'zod';
import { distance } from 'fastest-levenshtein';

/** A schema node as zod 4 exposes it (`_zod.def`); only the fields walked here. */
interface Def {
  type: string;
  innerType?: z.core.$ZodType;
  in?: z.core.$ZodType;
  getter?: () => z.core.$ZodType;
  shape?: Record<string, z.core.$ZodType>;
  element?: z.core.$ZodType;
  valueType?: z.core.$ZodType;
  options?: z.core.$ZodType[];
  items?: z.core.$ZodType[];
  values?: unknown[];
}
const defOf = (s: z.core.$ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

/** Strip wrappers that do not change which keys or values are allowed (optional, default, pipe, …). */
function unwrap(s: z.core.$ZodType | undefined): z.core.$ZodType | undefined {
  for (let i = 0; s && i < 20; i++) {
    const d = defOf(s);
    if (d.innerType) s = d.innerType;
    else if (d.type === 'pipe' && d.in) s = d.in;
    else if (d.type === 'lazy' && d.getter) s = d.getter();
    else return s;
  }
  return s;
}

/** The value at `path` in what the user wrote (undefined when absent). */
export function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let v = input;
  for (const k of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[k];
  }
  return v;
}

/** Of a union's object options, the one whose literal fields (e.g. `kind`) match `value`; undefined when not exactly one. */
function pickOption(options: z.core.$ZodType[], value: unknown): z.core.$ZodType | undefined {
  const objs = options.map(unwrap).filter((o): o is z.core.$ZodType => !!o && defOf(o).type === 'object');
  const fits = objs.filter((o) =>
    Object.entries(defOf(o).shape ?? {}).every(([k, f]) => {
      const fd = defOf(unwrap(f)!);
      return fd.type !== 'literal' || (fd.values ?? []).includes(valueAt(value, [k]));
    }),
  );
  return fits.length === 1 ? fits[0] : undefined;
}

/** The schema node that validates `path` of `input` (unions resolved by the input's literal fields); undefined when unknown. */
function schemaAt(root: z.core.$ZodType, input: unknown, path: readonly PropertyKey[]): z.core.$ZodType | undefined {
  let s = unwrap(root);
  for (let i = 0; s && i <= path.length; i++) {
    const d = defOf(s);
    if (d.type === 'union' && d.options) {
      s = unwrap(pickOption(d.options, valueAt(input, path.slice(0, i))));
      if (!s) return undefined;
    }
    if (i === path.length) return s;
    const k = path[i];
    const dd = defOf(s);
    if (dd.type === 'object') s = dd.shape?.[String(k)];
    else if (dd.type === 'array') s = dd.element;
    else if (dd.type === 'record') s = dd.valueType;
    else if (dd.type === 'tuple') s = dd.items?.[Number(k)];
    else return undefined;
    s = unwrap(s);
  }
  return s;
}

/**
 * The allowed name closest to `word` when it is plausibly a typo: edit distance (Levenshtein, case
 * ignored) at most 1 for names up to 4 characters, else at most a third of the word's length, and
 * the single best. Undefined when nothing is that close.
 */
export function closestName(word: string, allowed: readonly string[]): string | undefined {
  const w = word.toLowerCase();
  const max = w.length <= 4 ? 1 : Math.max(2, Math.floor(w.length / 3));
  let best: { name: string; d: number } | undefined;
  let tie = false;
  for (const a of allowed) {
    const d = distance(w, a.toLowerCase());
    if (d > max) continue;
    if (!best || d < best.d) [best, tie] = [{ name: a, d }, false];
    else if (d === best.d) tie = true;
  }
  return best && !tie ? best.name : undefined;
}

/**
 * A rejected value for a message: JSON, shortened to 60 characters; the user and password of a URL
 * (`scheme://user:password@host`) replaced by `***` — a message must not repeat a secret.
 */
export function quote(v: unknown): string {
  const shown = typeof v === 'string' ? v.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^@/?#]*@/i, '$1***@') : v;
  const s = shown === undefined ? 'undefined' : (JSON.stringify(shown) ?? String(shown));
  return s.length > 60 ? `${s.slice(0, 59)}…` : s;
}

/**
 * One line for a zod issue of `input` parsed by `root`, prefixed with the dotted path (`(root)` for
 * the top level):
 * - unknown keys: `protocol: unknown key(s) "warmRun" (did you mean "warmRuns"?)`, the allowed keys
 *   listed when none is close;
 * - a value not among the allowed ones: `teardown: "nevr" is not allowed (did you mean "never"?); allowed: "always", …`;
 * - a field left out: `scale: missing (expected number)`;
 * - a discriminator (`target.kind`) matching no option: `target.kind: "embeded" is not allowed (did you mean "embedded"?); one of …`;
 * - any other rejected value: zod's message, then `got <the value as JSON>`.
 */
export function formatSpecIssue(i: z.core.$ZodIssue, root: z.core.$ZodType, input: unknown): string {
  const path = i.path.length ? i.path.join('.') : '(root)';
  const value = valueAt(input, i.path);
  if (i.code === 'unrecognized_keys') {
    const node = schemaAt(root, input, i.path);
    const shape = node && defOf(node).type === 'object' ? (defOf(node).shape ?? {}) : {};
    const known = Object.keys(shape).filter((k) => !i.keys.includes(k));
    const named = i.keys.map((k) => {
      const near = closestName(k, known);
      return near ? `"${k}" (did you mean "${near}"?)` : `"${k}"`;
    });
    const anyNear = named.some((n) => n.includes('did you mean'));
    return `${path}: unknown key(s) ${named.join(', ')}${!anyNear && known.length ? `; allowed: ${known.join(', ')}` : ''}`;
  }
  if (i.code === 'invalid_value') {
    const allowed = i.values.map((v) => JSON.stringify(v)).join(', ');
    if (value === undefined) return `${path}: missing; allowed: ${allowed}`;
    const strings = i.values.filter((v): v is string => typeof v === 'string');
    const near = typeof value === 'string' ? closestName(value, strings) : undefined;
    return `${path}: ${quote(value)} is not allowed${near ? ` (did you mean "${near}"?)` : ''}; allowed: ${allowed}`;
  }
  // A discriminated union (target.kind) whose discriminator matches no option: zod lists the options.
  const options = (i as { options?: unknown[] }).options;
  if (i.code === 'invalid_union' && Array.isArray(options) && options.length) {
    const allowed = options.map((o) => JSON.stringify(o)).join(', ');
    if (value === undefined) return `${path}: missing; one of ${allowed}`;
    const near =
      typeof value === 'string'
        ? closestName(
            value,
            options.filter((o): o is string => typeof o === 'string'),
          )
        : undefined;
    return `${path}: ${quote(value)} is not allowed${near ? ` (did you mean "${near}"?)` : ''}; one of ${allowed}`;
  }
  if (i.code === 'invalid_union' && /^matrix\.codec\.\d+$/.test(path) && value !== undefined) {
    // Say what failed in the variant the user meant: a string is an expression, an object a profile.
    const inner = i.errors.find((es) => es.some((e) => e.code !== 'invalid_type')) ?? i.errors[0] ?? [];
    const detail = inner.map((e) => `${e.path.length ? `${e.path.join('.')}: ` : ''}${e.message}`).join('; ');
    return `${path}: ${detail || i.message}; got ${quote(value)}; a codec profile is a codec expression such as "ZSTD(3)" or "Delta, ZSTD(1)", or { name, default, columns: { <column>: <expression> } }`;
  }
  if (value === undefined && (i.code === 'invalid_type' || i.code === 'invalid_union')) {
    const expected = i.code === 'invalid_type' ? ` (expected ${i.expected})` : '';
    return `${path}: missing${expected}`;
  }
  if (i.code === 'invalid_type') return `${path}: expected ${i.expected}, got ${quote(value)}`;
  if (i.code === 'invalid_format' && i.format === 'url')
    return `${path}: ${i.message}; expected an http:// or https:// URL of the ClickHouse HTTP interface; got ${quote(value)}`;
  const got = value !== null && typeof value === 'object' ? '' : `; got ${quote(value)}`;
  return `${path}: ${i.message}${got}`;
}
