/**
 * Recorded workflow histories (test/histories/<workflow>_<version>.json, kept per release and never
 * overwritten) must all replay against the current workflow code: a change of command order without
 * `patched()` fails here. Record the current release's with `CHBENCH_RECORD_HISTORIES=1` on the
 * embedded e2e test (test/e2e/e2e-embedded.test.ts; the bisect's on test/e2e/bisect-attribution.test.ts),
 * after bumping the version in package.json.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, mkdtempSync, cpSync, writeFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { REPO_ROOT } from '../../src/config';
import { installRuntime } from '../../src/worker';
import { recordedHistories } from '../helpers/histories';

const WORKFLOWS = path.join(REPO_ROOT, 'dist', 'src', 'workflows');

test('every recorded history of every release replays against the current workflow code', async () => {
  installRuntime('WARN');
  const hs = recordedHistories();
  const files = hs.map((h) => h.file);
  for (const f of files)
    assert.match(
      f,
      /^(benchmark-cell|benchmark-matrix|confirm-comparison|bisect-versions)_\d+\.\d+\.\d+\.json$/,
      'history files are named <workflow>_<version>.json',
    );
  for (const w of ['benchmark-cell', 'benchmark-matrix'])
    assert.ok(files.includes(`${w}_0.1.0.json`), `the 0.1.0 ${w} history is kept`);
  for (const h of hs) assert.ok(h.workflowId, `${h.file} has its workflow id in workflow-ids.json`);
  const results = [];
  for await (const r of Worker.runReplayHistories({ workflowsPath: require.resolve(WORKFLOWS) }, hs)) results.push(r);
  for (const r of results) assert.equal(r.error, undefined, `${r.workflowId}: ${r.error}`);
  assert.equal(results.length, hs.length);
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
    const a = lines.findIndex((l) => l.includes("run.step('collect-metrics',"));
    const b = lines.findIndex((l) => l.includes("run.step('create-schema',"));
    assert.ok(a > 0 && b === a + 1, 'the copy has the two steps next to each other');
    [lines[a], lines[b]] = [lines[b], lines[a]];
    writeFileSync(cellFile, lines.join('\n'));
    // Only histories in which the two swapped steps ran (a cell that failed at provisioning never reached them).
    const reached = (h: { history: unknown }) => JSON.stringify(h.history).includes('"createSchema"');
    const cells = recordedHistories().filter((h) => h.file.startsWith('benchmark-cell_') && reached(h));
    assert.ok(cells.length >= 6, `cell histories that reach createSchema: ${cells.length}`);
    for (const cell of cells)
      await assert.rejects(
        Worker.runReplayHistory(
          { workflowsPath: path.join(tmp, 'src', 'workflows', 'index.js') },
          cell.history,
          cell.workflowId,
        ),
        DeterminismViolationError,
        cell.file,
      );
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
