/**
 * Recorded workflow histories (test/histories/*.json, one per workflow type) must replay against the
 * current workflow code: a change of command order without `patched()` fails here. Refresh them with
 * `CHBENCH_RECORD_HISTORIES=1 npm test` after a deliberate, patched change.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, mkdtempSync, cpSync, writeFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { REPO_ROOT } from '../src/config';
import { installRuntime } from '../src/worker';

const HISTORIES = path.join(REPO_ROOT, 'test', 'histories');
const WORKFLOWS = path.join(REPO_ROOT, 'dist', 'src', 'workflows');

/** `workflow-ids.json` maps each history file to the workflow id it was recorded under. */
function histories() {
  const ids = JSON.parse(readFileSync(path.join(HISTORIES, 'workflow-ids.json'), 'utf8')) as Record<string, string>;
  return readdirSync(HISTORIES)
    .filter((f) => f.endsWith('.json') && f !== 'workflow-ids.json')
    .map((f) => ({ file: f, workflowId: ids[f], history: historyFromJSON(JSON.parse(readFileSync(path.join(HISTORIES, f), 'utf8'))) }));
}

test('every recorded history replays against the current workflow code', async () => {
  installRuntime('WARN');
  const hs = histories();
  assert.deepEqual(hs.map((h) => h.file).sort(), ['benchmark-cell.json', 'benchmark-matrix.json']);
  const results = [];
  for await (const r of Worker.runReplayHistories({ workflowsPath: require.resolve(WORKFLOWS) }, hs)) results.push(r);
  for (const r of results) assert.equal(r.error, undefined, `${r.workflowId}: ${r.error}`);
  assert.equal(results.length, 2);
});

test('a deliberately changed copy (two steps swapped, no patched()) fails replay with a determinism error', async () => {
  installRuntime('WARN');
  // Copy the compiled workflows and swap createSchema with the first metrics snapshot in the copy.
  // Inside the checkout, so the bundler resolves node_modules.
  const tmp = mkdtempSync(path.join(REPO_ROOT, 'dist', 'changed-workflows-'));
  try {
    cpSync(path.join(REPO_ROOT, 'dist', 'src'), path.join(tmp, 'src'), { recursive: true });
    const cellFile = path.join(tmp, 'src', 'workflows', 'benchmark-cell.js');
    const code = readFileSync(cellFile, 'utf8');
    const lines = code.split('\n');
    const a = lines.findIndex((l) => l.includes("await step('collect-metrics',"));
    const b = lines.findIndex((l) => l.includes("await step('create-schema',"));
    assert.ok(a > 0 && b === a + 1, 'the copy has the two steps next to each other');
    [lines[a], lines[b]] = [lines[b], lines[a]];
    writeFileSync(cellFile, lines.join('\n'));
    const cell = histories().find((h) => h.file === 'benchmark-cell.json')!;
    await assert.rejects(Worker.runReplayHistory({ workflowsPath: path.join(tmp, 'src', 'workflows', 'index.js') }, cell.history, cell.workflowId), DeterminismViolationError);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
