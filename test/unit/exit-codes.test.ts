/**
 * The exit codes have one source (`EXIT_CODES`, src/cli/exit-codes.ts): `chbench --help` prints that
 * list and docs/running.md ("Exit codes") holds it as a table (finding 12 of a first-time user: the
 * help listed fewer codes than the docs, and compare's 3 meant something else than the help's 3).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  COMPARE_EXIT,
  ENGINES_EXIT,
  EXIT,
  EXIT_CODES,
  EXIT_HELP,
  RESULTS_EXIT,
  exitCodesMarkdown,
} from '../../src/cli/exit-codes';
import { REPO_ROOT } from '../../src/config';

test('docs/running.md holds the exit-code table exactly as EXIT_CODES renders it', () => {
  const doc = fs.readFileSync(path.join(REPO_ROOT, 'docs', 'running.md'), 'utf8');
  assert.ok(
    doc.includes(exitCodesMarkdown()),
    'docs/running.md "Exit codes" differs from EXIT_CODES: paste exitCodesMarkdown() (src/cli/exit-codes.ts) there',
  );
});

test('every code any command uses is in the table, for that command, and --help prints every row', () => {
  const codes = new Set(EXIT_CODES.map((r) => r.code));
  for (const table of [EXIT, COMPARE_EXIT, RESULTS_EXIT, ENGINES_EXIT])
    for (const [name, code] of Object.entries(table))
      assert.ok(codes.has(code), `${name} = ${code} is not in EXIT_CODES`);
  const compareRows = EXIT_CODES.filter((r) => /\bcompare\b/.test(r.commands) || r.commands === 'all').map(
    (r) => r.code,
  );
  for (const code of Object.values(COMPARE_EXIT)) assert.ok(compareRows.includes(code), `compare's ${code} has a row`);
  for (const r of EXIT_CODES)
    assert.ok(EXIT_HELP.includes(`${r.commands}: ${r.meaning}`), `--help prints ${r.code} ${r.commands}`);
  assert.ok(EXIT_HELP.split('\n').filter((l) => /^\s+\d+\s{2}/.test(l)).length === EXIT_CODES.length);
});
