/**
 * What the engine server refuses to run: statements that reach outside the engine's own data — files,
 * URLs, processes, other servers. chdb is ClickHouse's *local* mode, whose `file()`, `INTO OUTFILE`
 * and friends are not confined to a user-files folder as a server's are, so the embedded engine
 * server ({@link ./server.ts}) checks every statement a client sends with {@link reachProblem} before
 * it runs. The server's own result files (`INTO OUTFILE '<dataDir>/results/<uuid>'`, added after the
 * check) are the one exception: chbench asked for them.
 *
 * The check reads the statement with a lexer that knows ClickHouse's quoting: `'…'` strings,
 * `"…"` and `` `…` `` identifiers (backslash and doubled-quote escapes), `$tag$…$tag$` heredocs,
 * `--` and `# ` comments, nested `/* … *\/` comments. A name is refused when it is *called* (a `(`
 * follows it, comments and spaces between allowed), wherever it stands: table function, table
 * engine, dictionary source, scalar function (chdb's scalar `file()` reads a file). Text inside
 * strings and comments is never a call; a quoted identifier is a name (`` `file`(…) `` calls file).
 * An INSERT's data after a top-level `FORMAT <name>` is not read, except `Values` (its rows may be
 * expressions the engine evaluates). A lexer that cannot tell (an unterminated string or comment) refuses.
 */

import { blockCommentEnd, quotedEnd } from './sql-shape';

/**
 * Names that reach outside when called, lower-case: table functions and engines over files, object
 * stores, URLs, other databases and servers, processes; dictionary sources; `disk(…)` (a disk made
 * at any path).
 */
export const REFUSED_CALLS: readonly string[] = [
  'file',
  'filecluster',
  'filelog',
  'url',
  'urlcluster',
  'http',
  'https',
  'remote',
  'remotesecure',
  'cluster',
  'clusterallreplicas',
  'distributed',
  'clickhouse',
  'executable',
  'executablepool',
  'mysql',
  'postgresql',
  'materializedpostgresql',
  'materializedmysql',
  'jdbc',
  'odbc',
  'mongodb',
  'mongo',
  'redis',
  'sqlite',
  'cassandra',
  'ytsaurus',
  'arrowflight',
  'hive',
  'kafka',
  'rabbitmq',
  'nats',
  'gcs',
  'oss',
  'cosn',
  'disk',
  'externaldistributed',
];

/**
 * Name prefixes refused the same way (families with many members: `s3Cluster`, `icebergS3`, …;
 * chdb's `Python(…)` reads objects of the engine's host process).
 */
export const REFUSED_PREFIXES: readonly string[] = [
  's3',
  'hdfs',
  'azure',
  'iceberg',
  'deltalake',
  'hudi',
  'paimon',
  'python',
];

/** Statements refused by their first keyword: they copy data to or from places outside the engine. */
const REFUSED_FIRST = new Set(['BACKUP', 'RESTORE']);

/** A word of the statement outside strings, identifiers and comments. */
interface Word {
  /** Upper-case. */
  v: string;
  /** As written. */
  raw: string;
  /** Parenthesis depth where it stands. */
  depth: number;
  /** A `(` follows it (after spaces or comments): it is called. */
  called: boolean;
}

/**
 * The words of `sql` outside strings, quoted identifiers, heredocs and comments, or the reason the
 * lexer cannot tell where they end.
 */
function words(sql: string): { words: Word[] } | { problem: string } {
  const n = sql.length;
  const out: Word[] = [];
  let depth = 0;
  let i = 0;
  let pending: Word | undefined; // the last word, until the next token says whether it is called
  const settle = (called: boolean) => {
    if (pending) pending.called = called;
    pending = undefined;
  };
  while (i < n) {
    const c = sql[i]!;
    if (c === '-' && sql[i + 1] === '-') {
      while (i < n && sql[i] !== '\n') i++;
    } else if (c === '#' && (sql[i + 1] === ' ' || sql[i + 1] === '!')) {
      while (i < n && sql[i] !== '\n') i++;
    } else if (c === '/' && sql[i + 1] === '*') {
      const e = blockCommentEnd(sql, i);
      if (e < 0) return { problem: 'an unterminated /* comment' };
      i = e;
    } else if (c === "'" || c === '"' || c === '`') {
      settle(false);
      const from = i;
      const e = quotedEnd(sql, i);
      if (e < 0) return { problem: `an unterminated ${c} quote` };
      i = e;
      if (c !== "'") {
        // A quoted identifier is a name like any other: `file`(…) calls file.
        const raw = unquote(sql.slice(from + 1, i - 1), c);
        const w: Word = { v: raw.toUpperCase(), raw, depth, called: false };
        out.push(w);
        pending = w;
      }
    } else if (c === '$' && /^\$[A-Za-z0-9_]*\$/.test(sql.slice(i, i + 256))) {
      settle(false);
      const tag = /^\$[A-Za-z0-9_]*\$/.exec(sql.slice(i, i + 256))![0];
      const close = sql.indexOf(tag, i + tag.length);
      if (close < 0) return { problem: `an unterminated ${tag} heredoc` };
      i = close + tag.length;
    } else if (/[A-Za-z_]/.test(c)) {
      settle(false);
      let j = i + 1;
      while (j < n && /[A-Za-z0-9_]/.test(sql[j]!)) j++;
      const raw = sql.slice(i, j);
      const w: Word = { v: raw.toUpperCase(), raw, depth, called: false };
      out.push(w);
      pending = w;
      i = j;
      // An INSERT's data after its top-level FORMAT <name> is not SQL, and is not read — except
      // Values, whose rows may be expressions that the engine evaluates (`VALUES (file('…'))`).
      if (
        out[0]!.v === 'INSERT' &&
        depth === 0 &&
        out.length >= 2 &&
        out[out.length - 2]!.v === 'FORMAT' &&
        w.v !== 'VALUES'
      )
        return { words: out };
    } else if (/\s/.test(c)) {
      i++;
    } else {
      settle(c === '(');
      if (c === '(') depth++;
      else if (c === ')') depth = Math.max(0, depth - 1);
      i++;
    }
  }
  settle(false);
  return { words: out };
}

/**
 * The text of a quoted identifier with doubled quotes resolved. Backslash escapes (`\x66`, …) are
 * kept as written: a called name holding one is refused ({@link refusedCall}) rather than decoded.
 */
function unquote(body: string, q: string): string {
  return body.split(q + q).join(q);
}

/** Whether `name` (any case) is refused when called (a name holding a backslash escape always is). */
export function refusedCall(name: string): boolean {
  if (name.includes('\\')) return true; // an escaped name could spell anything
  const l = name.toLowerCase();
  return REFUSED_CALLS.includes(l) || REFUSED_PREFIXES.some((p) => l.startsWith(p));
}

/**
 * Why the engine server must not run `sql`, or undefined when it may: a call of a name that reaches
 * outside ({@link REFUSED_CALLS}, {@link REFUSED_PREFIXES}), `INTO OUTFILE`, `FROM INFILE`,
 * `ATTACH … FROM '<path>'`, BACKUP / RESTORE, or a text the lexer cannot delimit.
 * @param sql the whole statement as the client sent it (query parameter and body; an INSERT's data may follow)
 */
export function reachProblem(sql: string): string | undefined {
  const r = words(sql);
  if ('problem' in r) return `the statement has ${r.problem}: refused, as its end cannot be told`;
  const ws = r.words;
  const first = ws[0]?.v ?? '';
  if (REFUSED_FIRST.has(first))
    return `${first} is not allowed on the chbench engine server (it copies data outside the engine)`;
  for (let k = 0; k < ws.length; k++) {
    const w = ws[k]!;
    const next = ws[k + 1]?.v;
    if (w.v === 'INTO' && next === 'OUTFILE')
      return 'INTO OUTFILE is not allowed on the chbench engine server (it writes a file)';
    if (w.v === 'FROM' && next === 'INFILE')
      return 'FROM INFILE is not allowed on the chbench engine server (it reads a file)';
    if (first === 'ATTACH' && w.v === 'FROM')
      return "ATTACH … FROM '<path>' is not allowed on the chbench engine server (it reads a folder)";
    // `ENGINE = Kafka SETTINGS …`: some engines take no arguments, so the name alone is refused there.
    if ((w.called || ws[k - 1]?.v === 'ENGINE') && refusedCall(w.raw))
      return `${w.raw}(…) is not allowed on the chbench engine server (it reaches files, URLs, processes or other servers)`;
  }
  return undefined;
}
