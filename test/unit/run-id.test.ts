/**
 * Run ids (`src/schema/run-id.ts`) and workload fingerprints (`src/lib/workload-hash.ts`), on the
 * repository's own workloads and a scratch copy of one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { REPO_ROOT } from '../../src/config';
import { runIdOfWorkflowId, runIdProblem } from '../../src/schema/run-id';
import { changedWorkloadFiles, workloadFingerprint } from '../../src/lib/workload-hash';
import { SQL_ROOT } from '../../src/lib/workload';
import { runDir } from '../../src/results/store';

test("a scheduled run's workflow id becomes the run id of its folder; a run id that cannot name a folder is refused", () => {
  const scheduled = 'chbench-quarterly-2026-11-30T03:10:57Z';
  assert.equal(runIdOfWorkflowId(scheduled), 'chbench-quarterly-2026-11-30T03_10_57Z');
  // The same name the results store gives the folder: one id for both.
  assert.equal(path.basename(runDir('/r', scheduled)), runIdOfWorkflowId(scheduled));
  assert.equal(runIdOfWorkflowId('demo-20261201-031000'), 'demo-20261201-031000');
  assert.equal(runIdProblem('demo-20261201-031000'), undefined);
  assert.equal(runIdProblem(runIdOfWorkflowId(scheduled)), undefined);
  assert.match(runIdProblem(scheduled)!, /use letters, digits.*"chbench-quarterly-2026-11-30T03_10_57Z"/);
  assert.match(runIdProblem('a/b')!, /<runId>\/<cellKey>/);
  assert.match(runIdProblem('..')!, /cannot name a folder/);
  // The suggestion is itself a run id and names no hidden or parent folder (it was ".._x").
  assert.match(runIdProblem('../x')!, /\(e\.g\. "x"\)/);
  assert.equal(runIdProblem('x'), undefined);
  assert.match(runIdProblem('/..')!, /\(e\.g\. "run-1"\)/);
  assert.match(runIdProblem('')!, /empty/);
  assert.match(runIdProblem('x'.repeat(201))!, /at most 200/);
});

test('a workload fingerprint hashes each file a run reads; an edited query is named as changed', () => {
  const fp = workloadFingerprint('logs');
  assert.deepEqual(Object.keys(fp.files), [
    'index.sql',
    'load.sql',
    'manifest.yaml',
    'q1.sql',
    'q2.sql',
    'q3.sql',
    'q4.sql',
    'q5.sql',
    'schema.sql',
  ]);
  const q1 = readFileSync(path.join(SQL_ROOT, 'workloads', 'logs', 'q1.sql'));
  assert.equal(fp.files['q1.sql'], createHash('sha256').update(q1).digest('hex'));
  assert.deepEqual(workloadFingerprint('logs'), fp, 'stable');

  const root = mkdtempSync(path.join(os.tmpdir(), 'chbench-wl-'));
  try {
    cpSync(path.join(SQL_ROOT, 'workloads', 'logs'), path.join(root, 'workloads', 'logs'), { recursive: true });
    assert.deepEqual(workloadFingerprint('logs', root), fp, 'the same bytes elsewhere hash the same');
    writeFileSync(path.join(root, 'workloads', 'logs', 'q1.sql'), q1.toString('utf8') + '\n-- edited\n');
    const edited = workloadFingerprint('logs', root);
    assert.notEqual(edited.sha256, fp.sha256);
    assert.deepEqual(changedWorkloadFiles(fp, edited), ['q1.sql']);
    assert.deepEqual(changedWorkloadFiles(fp, fp), []);
    const { ['index.sql']: _gone, ...rest } = fp.files;
    assert.deepEqual(changedWorkloadFiles({ ...fp, files: rest }, fp), ['index.sql (new)']);
    assert.deepEqual(changedWorkloadFiles(fp, { ...fp, files: rest }), ['index.sql (removed)']);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('chbench run refuses a --run-id that cannot name a folder, before reaching Temporal', () => {
  const r = spawnSync(
    process.execPath,
    [
      path.join(REPO_ROOT, 'dist', 'src', 'cli.js'),
      'run',
      path.join(REPO_ROOT, 'examples', 'demo.json'),
      '--run-id',
      'q-2026-11-30T03:10:57Z',
    ],
    // An address nothing listens on: reaching Temporal would exit 3, not 2.
    { encoding: 'utf8', env: { ...process.env, TEMPORAL_ADDRESS: '127.0.0.1:1' }, timeout: 30_000 },
  );
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /--run-id "q-2026-11-30T03:10:57Z": .*\(e\.g\. "q-2026-11-30T03_10_57Z"\)/);
});

test('a run id starting with "-" is refused (by runIdProblem and by chbench run --run-id -rf), as is one over the length limit', () => {
  assert.match(runIdProblem('-rf') ?? '', /cannot start with '-'/);
  assert.equal(runIdProblem('r-f'), undefined);
  assert.match(runIdProblem('x'.repeat(255)) ?? '', /at most 200 characters \(this one 255\)/);
  const r = spawnSync(
    process.execPath,
    [
      path.join(REPO_ROOT, 'dist', 'src', 'cli.js'),
      'run',
      path.join(REPO_ROOT, 'examples', 'demo.json'),
      '--run-id',
      '-rf',
    ],
    { encoding: 'utf8', env: { ...process.env, TEMPORAL_ADDRESS: '127.0.0.1:1' }, timeout: 30_000 },
  );
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /--run-id "-rf": a run id cannot start with '-'/);
});

test('chbench validate --json prints the parsed, defaulted spec as one JSON document (what temporal workflow start --input takes)', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chbench-validate-json-'));
  try {
    const file = path.join(dir, 'spec.yaml');
    writeFileSync(
      file,
      'name: vj\nworkload: trivial\nscale: 1000\ntarget: { kind: embedded }\nmatrix: { version: ["26.7"], codec: [LZ4] }\n',
    );
    const r = spawnSync(process.execPath, [path.join(REPO_ROOT, 'dist', 'src', 'cli.js'), 'validate', '--json', file], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(r.status, 0, r.stderr);
    const spec = JSON.parse(r.stdout) as { name: string; protocol?: { warmRuns?: number }; resultsDir?: string };
    assert.equal(spec.name, 'vj');
    assert.equal(typeof spec.protocol?.warmRuns, 'number', 'defaults applied');
    assert.equal(typeof spec.resultsDir, 'string');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
