/**
 * Folders and secrets refused before anything runs, as a user sees it through the real CLI
 * (`chbench validate`): a results folder that is someone else's (not empty, no marker, entries chbench
 * did not write) whatever its path, and a user or password written into a server URL — the message
 * never repeats the password. A folder chbench wrote (run folders, `db/`, the marker) stays accepted.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { REPO_ROOT } from '../../src/config';
import { markResultsDir, RESULTS_MARKER, resultsDirProblem } from '../../src/results/store';

const run = promisify(execFile);
const CLI = path.join(REPO_ROOT, 'dist', 'src', 'cli.js');

async function validate(yaml: string): Promise<{ code: number; out: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-validate-'));
  const file = path.join(dir, 'spec.yaml');
  fs.writeFileSync(file, yaml);
  try {
    const r = await run(process.execPath, [CLI, 'validate', file], { cwd: REPO_ROOT });
    return { code: 0, out: r.stdout + r.stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, out: x.stdout + x.stderr };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const base = (extra: string) =>
  `name: s\nworkload: logs\nscale: 1000\ntarget: { kind: embedded }\nmatrix: { version: ["26.7"], codec: [LZ4] }\n${extra}`;

test("a results folder that is someone else's is refused, whatever its path; chbench's own is accepted", async () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-folders-'));
  try {
    const foreign = path.join(tmp, 'project');
    fs.mkdirSync(foreign);
    fs.writeFileSync(path.join(foreign, 'notes.txt'), 'mine');
    const r = await validate(base(`resultsDir: ${JSON.stringify(foreign)}\n`));
    assert.equal(r.code, 2, r.out);
    assert.match(
      r.out,
      /resultsDir: ".*project" \(.*\) is not a chbench results folder: it holds 1 entry chbench did not write \(notes\.txt\) and no \.chbench-results; give an empty or new folder/,
    );
    const etc = await validate(base('resultsDir: /etc\n'));
    assert.equal(etc.code, 2);
    assert.match(etc.out, /resultsDir: "\/etc" \(\/etc\) is not a chbench results folder/);
    // New, empty, or what chbench wrote (a run folder, db/, dot-files): accepted.
    assert.equal(resultsDirProblem(path.join(tmp, 'new')), undefined);
    const ours = path.join(tmp, 'results');
    fs.mkdirSync(path.join(ours, 'run-1'), { recursive: true });
    fs.writeFileSync(path.join(ours, 'run-1', 'run.json'), '{}');
    fs.mkdirSync(path.join(ours, 'run-1.confirm', 'cells'), { recursive: true });
    fs.mkdirSync(path.join(ours, 'db'));
    fs.writeFileSync(path.join(ours, '.keep'), '');
    assert.equal(resultsDirProblem(ours), undefined);
    // Marked by the run's first step: then anything may sit beside the runs.
    fs.writeFileSync(path.join(ours, 'notes.txt'), 'x');
    assert.match(resultsDirProblem(ours)!, /notes\.txt/);
    markResultsDir(ours);
    assert.ok(fs.existsSync(path.join(ours, RESULTS_MARKER)));
    assert.equal(resultsDirProblem(ours), undefined);
    assert.equal((await validate(base(`resultsDir: ${JSON.stringify(ours)}\n`))).code, 0);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test('a user or password in a server URL is refused before anything runs, and the message does not repeat it', async () => {
  const ext = await validate(
    'name: s\nworkload: logs\nscale: 1000\ntarget: { kind: external, url: "http://bob:hunter2@127.0.0.1:8123" }\nmatrix: { version: ["26.7"], codec: [LZ4] }\n',
  );
  assert.equal(ext.code, 2, ext.out);
  assert.match(
    ext.out,
    /target\.url: a user or password in the URL would be kept in workflow history, run-spec\.json, the reports and the results database: put the user in `username` and the password in an environment variable named by `passwordEnv`/,
  );
  assert.doesNotMatch(ext.out, /hunter2|bob/);
  const db = await validate(base('results: { url: "https://u:s3cret@127.0.0.1:8443" }\n'));
  assert.equal(db.code, 2, db.out);
  assert.match(db.out, /results\.url: a user or password in the URL .*put the user in `user`/);
  assert.doesNotMatch(db.out, /s3cret/);
  // Without credentials in it, the same URL is fine.
  assert.equal((await validate(base('results: { url: "https://127.0.0.1:8443", passwordEnv: CH_PW }\n'))).code, 0);
});
