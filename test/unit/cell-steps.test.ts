/**
 * One name per cell step: the "What a cell measures" table of docs/method.md is CELL_STEPS, every step's file
 * exists, and the workflow's activity calls are the table's activities (checked on the source).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../src/config';
import { CELL_STEPS } from '../../src/schema/cell';

/** Rows of the first Markdown table after `heading`, cells trimmed. */
function tableAfter(md: string, heading: string): string[][] {
  const at = md.indexOf(heading);
  assert.ok(at >= 0, `README has "${heading}"`);
  const lines = md.slice(at).split('\n');
  const start = lines.findIndex((l) => l.startsWith('|'));
  const rows: string[][] = [];
  for (const l of lines.slice(start)) {
    if (!l.startsWith('|')) break;
    rows.push(
      l
        .split(/(?<!\\)\|/)
        .slice(1, -1)
        .map((c) => c.trim()),
    );
  }
  return rows.slice(2); // header and separator
}

test("docs/method.md's step table is CELL_STEPS, row for row", () => {
  const rows = tableAfter(readFileSync(path.join(REPO_ROOT, 'docs', 'method.md'), 'utf8'), '## What a cell measures');
  assert.deepEqual(
    rows,
    CELL_STEPS.map((s) => [`\`${s.phase}\``, `\`${s.activity}\``, `\`${s.file}\``, s.record]),
  );
});

test('every step names an existing file and a unique phase', () => {
  for (const s of CELL_STEPS) assert.ok(existsSync(path.join(REPO_ROOT, s.file)), s.file);
  assert.equal(new Set(CELL_STEPS.map((s) => s.phase)).size, CELL_STEPS.length);
});

test('the cell workflow runs each phase with the activity the table names, in table order', () => {
  const src = readFileSync(path.join(REPO_ROOT, 'src', 'workflows', 'benchmark-cell.ts'), 'utf8');
  // One call per step, however the formatter wraps it: the phase, then the activity before the next step.
  const calls = [
    ...src.matchAll(/run\.step\(\s*'([a-z-]+)',(?:(?!run\.step)[\s\S])*?acts\.(\w+)\.executeWithOptions/g),
  ].map((m) => [m[1], m[2]]);
  const middle = CELL_STEPS.filter((s) => !['provision', 'write-results', 'teardown'].includes(s.phase)).map((s) => [
    s.phase,
    s.activity,
  ]);
  assert.deepEqual(calls, middle);
});
