/**
 * `chbench bisect`'s arguments are refused on the CLI's side, before a workflow starts, with the rules
 * the workflow applies: labels the target's version sources serve, `--good` older than `--bad`, a
 * `--query` of the workload. Also through the real CLI (exit 2, no Temporal needed).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { bisectArgumentProblems } from '../../src/cli/commands/bisect';
import { versionSourcesOf } from '../../src/targets/versions';

const raw = { workload: 'logs', target: { kind: 'embedded' } };
const labels = versionSourcesOf(raw.target).flatMap((s) => s.labels());

test('a served pair, oldest first, and a query of the workload: no problem', () => {
  assert.ok(labels.includes('24.8') && labels.includes('26.3'), labels.join(', '));
  assert.deepEqual(bisectArgumentProblems(raw, { good: '24.8', bad: '26.3', query: 'q3' }), []);
});

test('reversed ends, an unknown label and an unknown query are named', () => {
  assert.deepEqual(bisectArgumentProblems(raw, { good: '26.3', bad: '24.8' }), [
    '--good 26.3 must be older than --bad 24.8',
  ]);
  assert.match(
    bisectArgumentProblems(raw, { good: '24.8', bad: '99.9' }).join(),
    /--bad 99\.9: not a version the target can serve/,
  );
  assert.deepEqual(bisectArgumentProblems(raw, { good: '24.8', bad: '26.3', query: 'q9' }), [
    '--query q9: not a query of workload logs (q1, q2, q3, q4, q5)',
  ]);
});

test('a query of the workload the spec does not select is named (its cells would never measure it)', () => {
  assert.deepEqual(bisectArgumentProblems({ ...raw, queries: ['q1'] }, { good: '24.8', bad: '26.3', query: 'q3' }), [
    "--query q3: not among the spec's queries (q1); add it to queries or bisect one of those",
  ]);
  assert.deepEqual(
    bisectArgumentProblems({ ...raw, queries: ['q1', 'q3'] }, { good: '24.8', bad: '26.3', query: 'q3' }),
    [],
  );
});

test('the CLI exits 2 with the reason before it reaches Temporal', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bisect-cli-'));
  try {
    const spec = path.join(dir, 'spec.yaml');
    writeFileSync(
      spec,
      'name: b\nworkload: logs\nscale: 1000\ntarget:\n  kind: embedded\nmatrix:\n  version: ["24.8"]\n  codec: ["LZ4"]\n',
    );
    const r = spawnSync(process.execPath, ['dist/src/cli.js', 'bisect', '--good', '26.9', '--bad', '23.10', spec], {
      encoding: 'utf8',
      env: { ...process.env, TEMPORAL_ADDRESS: '127.0.0.1:1' },
    });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /--good 26\.9 must be older than --bad 23\.10/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
