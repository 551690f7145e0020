/**
 * Column codecs as the server has them: the trial of a codec profile on a throwaway table before a
 * cell loads anything, and the read-back of every column's codec (`system.columns.compression_codec`)
 * after its table is created, compared with what the cell declares.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import { queryRows, tryCommand } from './client';
import { sqlIdent, sqlString, splitTopLevel } from '../lib/sql';
import { suggestName } from './settings';

/** One codec of a chain: its family name and arguments as written (`ZSTD`, `['3']`). */
export interface CodecStep {
  name: string;
  args: string[];
}

/**
 * A codec expression or a server's `compression_codec` taken apart: `CODEC(Delta(4), ZSTD(1))` and
 * `Delta(4), ZSTD(1)` both give `[{Delta, [4]}, {ZSTD, [1]}]`; empty for `''` (the server default). Pure.
 */
export function parseCodecChain(expr: string): CodecStep[] {
  let s = expr.trim();
  const wrapped = /^CODEC\s*\(([\s\S]*)\)$/i.exec(s);
  if (wrapped) s = wrapped[1].trim();
  if (!s) return [];
  return splitTopLevel(s, ',').map((part) => {
    const m = /^\s*([A-Za-z][A-Za-z0-9_]*)\s*(?:\(([^()]*)\))?\s*$/.exec(part);
    if (!m) return { name: part.trim(), args: [] };
    return {
      name: m[1],
      args:
        m[2] === undefined
          ? []
          : m[2]
              .split(',')
              .map((a) => a.trim())
              .filter(Boolean),
    };
  });
}

/**
 * Whether a server's `compression_codec` (`''` = the server default, LZ4) carries the declared
 * expression. Family names compare case-insensitively; a declared codec without arguments matches
 * the server's filled-in defaults (`Delta` → `Delta(4)`, `ZSTD` → `ZSTD(1)`); arguments that were
 * declared must be equal. `LZ4` matches the empty default and an explicit `CODEC(LZ4)`. Pure.
 */
export function codecMatches(declared: string, server: string): boolean {
  const d = parseCodecChain(declared);
  const s = parseCodecChain(server);
  const isLz4 = (c: CodecStep[]) => c.length === 1 && c[0].name.toUpperCase() === 'LZ4' && !c[0].args.length;
  if (isLz4(d)) return s.length === 0 || isLz4(s);
  if (d.length !== s.length) return false;
  return d.every(
    (x, i) =>
      x.name.toUpperCase() === s[i].name.toUpperCase() &&
      (x.args.length === 0 || x.args.join(',') === s[i].args.join(',')),
  );
}

/** A column's codec as the server reports it. */
export interface ServerColumnCodec {
  column: string;
  /** `system.columns.type`. */
  type: string;
  /** `system.columns.compression_codec` as sent: `CODEC(ZSTD(3))`, or `''` for the server default (LZ4). */
  compression_codec: string;
}

/**
 * Every column's codec of `table` in the current database, from `system.columns.compression_codec`;
 * `null` when this server's `system.columns` has no such column (ClickHouse 18.16 and other versions
 * before column codecs).
 * @throws ClickHouseError when system.columns cannot be read
 */
export async function readColumnCodecs(client: ClickHouseClient, table: string): Promise<ServerColumnCodec[] | null> {
  const have = await queryRows<{ c: string }>(
    client,
    "SELECT count() AS c FROM system.columns WHERE database = 'system' AND table = 'columns' AND name = 'compression_codec'",
  );
  if (Number(have[0]?.c ?? 0) === 0) return null;
  return queryRows<ServerColumnCodec>(
    client,
    `SELECT name AS column, type, compression_codec FROM system.columns WHERE database = currentDatabase() AND table = ${sqlString(table)} ORDER BY position`,
  );
}

/** A column a codec trial creates: its name, type and the expression to try. */
export interface TrialColumn {
  name: string;
  type: string;
  codec: string;
}

/** Outcome of {@link trialCodecs}: `ok`, or the first column the server refused, its error and, for a misspelt family, the nearest one. */
export type CodecTrial =
  | { ok: true; statement: string }
  | {
      ok: false;
      column: TrialColumn;
      statement: string;
      error: string;
      /** `did you mean ZSTD (not ZTSD)?` when a family of the refused expression is not one the server has and one is close. */
      suggestion?: string;
    };

/**
 * Codec families for "did you mean" when the server has no `system.codecs` (ClickHouse before 21.x;
 * the families of ClickHouse 19.x–26.x).
 */
export const KNOWN_CODEC_FAMILIES: readonly string[] = [
  'NONE',
  'LZ4',
  'LZ4HC',
  'ZSTD',
  'ZSTD_QAT',
  'DEFLATE_QPL',
  'Delta',
  'DoubleDelta',
  'Gorilla',
  'T64',
  'FPC',
  'GCD',
  'AES_128_GCM_SIV',
  'AES_256_GCM_SIV',
];

/**
 * The codec families the server has (`system.codecs.name`), or {@link KNOWN_CODEC_FAMILIES} when it has
 * no `system.codecs` (or it cannot be read).
 */
export async function codecFamilies(client: ClickHouseClient): Promise<{ names: string[]; source: string }> {
  try {
    const rows = await queryRows<{ name: string }>(client, 'SELECT name FROM system.codecs');
    if (rows.length) return { names: rows.map((r) => r.name), source: 'system.codecs' };
  } catch {
    /* no system.codecs on this version */
  }
  return { names: [...KNOWN_CODEC_FAMILIES], source: "chbench's list of codec families" };
}

/**
 * "did you mean" for the families of a codec expression that are not in `families` (case ignored):
 * `did you mean ZSTD (not ZTSD)?` ({@link suggestName}: edit distance or two letters swapped);
 * `undefined` when every family is known or none is close. Pure.
 */
export function codecSuggestion(expr: string, families: readonly string[]): string | undefined {
  const known = new Set(families.map((f) => f.toUpperCase()));
  const hints = parseCodecChain(expr)
    .filter((c) => !known.has(c.name.toUpperCase()))
    .flatMap((c) => {
      const near = suggestName(c.name, families);
      return near ? [`${near} (not ${c.name})`] : [];
    });
  return hints.length ? `did you mean ${hints.join(', ')}?` : undefined;
}

/**
 * Try codecs on their columns' types on a throwaway temporary table (nothing is written; the table is
 * dropped): all columns in one statement, and when that is refused each column alone, so the refused
 * column is named. Columns whose expression is `LZ4` (the server default) are left out.
 */
export async function trialCodecs(client: ClickHouseClient, columns: TrialColumn[]): Promise<CodecTrial> {
  const cols = columns.filter((c) => c.codec.trim() !== 'LZ4');
  if (!cols.length) return { ok: true, statement: '' };
  const name = `chbench_codec_trial_${Date.now()}_${Math.floor(Math.random() * 1e9)}`;
  const ddl = (cs: TrialColumn[]) =>
    `CREATE TEMPORARY TABLE ${name} (${cs.map((c) => `${sqlIdent(c.name)} ${c.type} CODEC(${c.codec})`).join(', ')})`;
  const all = ddl(cols);
  const r = await tryCommand(client, all);
  if (r.ok) {
    await tryCommand(client, `DROP TEMPORARY TABLE IF EXISTS ${name}`);
    return { ok: true, statement: all };
  }
  const refused = async (c: TrialColumn, statement: string, error: string): Promise<CodecTrial> => {
    const suggestion = codecSuggestion(c.codec, (await codecFamilies(client)).names);
    return { ok: false, column: c, statement, error, ...(suggestion ? { suggestion } : {}) };
  };
  for (const c of cols) {
    const one = ddl([c]);
    const rc = await tryCommand(client, one);
    if (!rc.ok) return refused(c, one, rc.error ?? 'refused');
    await tryCommand(client, `DROP TEMPORARY TABLE IF EXISTS ${name}`);
  }
  return refused(cols[0], all, r.error ?? 'refused');
}
