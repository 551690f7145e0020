/**
 * The read-only guard that parses: a statement for the results database (`chbench results sql`,
 * `ResultsDb.query`) is parsed by the database's own ClickHouse parser (`EXPLAIN AST <statement>`:
 * parsed, never run) and its syntax tree judged ({@link astReadProblem}). Comments, quoted
 * identifiers, heredoc strings and nesting cannot hide a table function or a write from a parser,
 * as they could from a regular expression. The text check (`readOnlyProblem`) still runs first, offline.
 */

/** Node types of a read (the tree's root and any `…Query` node inside it). */
const READ_NODES = new Set([
  'SelectWithUnionQuery',
  'SelectQuery',
  'SelectIntersectExceptQuery',
  'ShowTables',
  'ShowTablesQuery',
  'ShowCreateTableQuery',
  'ShowCreateDatabaseQuery',
  'ShowColumnsQuery',
  'ExistsTableQuery',
  'ExistsDatabaseQuery',
  'DescribeQuery',
  'Explain',
]);

/** Table functions that stay inside the server and read nothing but their arguments. */
export const ALLOWED_TABLE_FUNCTIONS = ['numbers', 'numbers_mt', 'zeros', 'zeros_mt', 'generateSeries', 'generate_series', 'values', 'view', 'null'];

/** One line of `EXPLAIN AST`: depth (leading spaces), node type and the rest (a function's name, an alias). */
interface AstLine {
  depth: number;
  type: string;
  rest: string;
}

function parseAst(text: string): AstLine[] {
  return text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => {
      const depth = l.length - l.trimStart().length;
      const [type = '', ...rest] = l.trim().split(/\s+/);
      return { depth, type, rest: rest.join(' ') };
    });
}

/**
 * Why a statement's syntax tree (the text of `EXPLAIN AST`) is not one read that stays inside the
 * database, or undefined when it is:
 * - its root is a read (SELECT / UNION / INTERSECT, SHOW, DESCRIBE, EXISTS, EXPLAIN) and so is every
 *   `…Query` node in it (no INSERT inside an EXPLAIN);
 * - no function of `refused` anywhere (table or scalar: chdb's scalar `file()` reads a file);
 * - every table function (a `Function` right under a `TableExpression`) is one of {@link ALLOWED_TABLE_FUNCTIONS};
 * - no INTO OUTFILE (a string literal right under the root).
 * @param refused function names; a name ending in `*` covers every name with that prefix
 */
export function astReadProblem(ast: string, refused: readonly string[]): string | undefined {
  const lines = parseAst(ast);
  const root = lines[0];
  if (!root) return 'the parser returned no syntax tree';
  if (!READ_NODES.has(root.type)) return `only read statements are allowed; this one is a ${root.type}`;
  const isRefused = (name: string) =>
    refused.some((r) =>
      r.endsWith('*') ? name.toLowerCase().startsWith(r.slice(0, -1).toLowerCase()) : name.toLowerCase() === r.toLowerCase(),
    );
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (/Query$/.test(l.type) && !READ_NODES.has(l.type) && l.type !== 'TablesInSelectQuery') return `only reads are allowed; this statement holds a ${l.type}`;
    if (l.depth === 1 && root.type === 'SelectWithUnionQuery' && l.type === 'Literal')
      return 'INTO OUTFILE is not allowed (it writes a file)';
    if (l.type !== 'Function') continue;
    const name = l.rest.split(/\s+/)[0] ?? '';
    if (isRefused(name))
      return `function ${name} is not allowed (it reads or writes outside the results database: files, network or processes)`;
    // The parent: the nearest line above with depth one less.
    let p = i - 1;
    while (p >= 0 && lines[p]!.depth >= l.depth) p--;
    if (p >= 0 && lines[p]!.type === 'TableExpression' && !ALLOWED_TABLE_FUNCTIONS.includes(name))
      return `table function ${name} is not allowed (allowed: ${ALLOWED_TABLE_FUNCTIONS.join(', ')}); query the results database's tables`;
  }
  return undefined;
}
