/**
 * `chbench engines list | install | remove` as a user runs them, on a temporary CHBENCH_ENGINES_DIR:
 * an empty cache lists nothing installed and every label available; `install 26.9` is a real pip
 * install (wheels from pip's configured sources and cache, ~10-30 s) after which `list` shows the
 * ClickHouse version read back from the installed engine; `remove` refuses while a process runs
 * from the environment and deletes it once none does.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCliToEnd } from '../helpers/cli-process';
import { REPO_ROOT } from '../../src/config';
import type { EngineList } from '../../src/cli/commands/engines';

describe('chbench engines', () => {
  let dir: string;
  const cli = (...args: string[]) => runCliToEnd(['engines', ...args], { CHBENCH_ENGINES_DIR: dir });

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-engines-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('list on an empty cache: nothing installed, every label available', async () => {
    const t = await cli('list');
    assert.equal(t.code, 0, t.stderr);
    assert.match(t.stdout, new RegExp(`engines directory: ${dir} \\(CHBENCH_ENGINES_DIR\\)`));
    assert.match(t.stdout, /installed: none/);
    assert.match(t.stdout, /26\.7\s+npm-chdb\s+npm chdb@3\.4\.\d+\s+26\.7\.2\.1\s+bundled/);
    assert.match(t.stdout, /24\.8\s+pypi-chdb\s+pypi chdb==3\.1\.2\s+24\.8\.4\.1\s+not installed/);
    const j = JSON.parse((await cli('list', '--json')).stdout) as EngineList;
    assert.deepEqual(j.installed, []);
    assert.deepEqual(
      j.available.map((a) => a.label),
      ['23.10', '24.8', '25.8', '26.1', '26.3', '26.5', '26.7', '26.9'],
    );
    assert.deepEqual(fs.readdirSync(dir), [], 'list creates nothing');
  });

  it('install of an unknown label is refused before anything is installed (exit 2)', async () => {
    const r = await cli('install', '26.9', '25.3');
    assert.equal(r.code, 2);
    assert.match(r.stderr, /no engine serves "25\.3": npm-chdb .* serves 26\.7 .*pypi-chdb serves 23\.10/);
    assert.deepEqual(fs.readdirSync(dir), []);
    const none = await cli('install', '--spec', path.join(REPO_ROOT, 'examples', 'demo.yaml'));
    assert.equal(none.code, 0, none.stderr);
    assert.match(none.stdout, /demo\.yaml: its matrix uses no PyPI build; nothing to install/);
    assert.equal((await cli('install')).code, 2);
  });

  it('install 26.9 (real pip), list shows ClickHouse 26.9.2.1 read back, remove deletes it', async () => {
    const t0 = Date.now();
    const spec = path.join(dir, '..', `${path.basename(dir)}-spec.json`);
    fs.writeFileSync(
      spec,
      JSON.stringify({
        name: 's',
        workload: 'logs',
        scale: 1000,
        target: { kind: 'embedded' },
        matrix: { version: ['26.7', '26.9'], codec: ['LZ4'] },
      }),
    );
    // `--spec`: the PyPI builds of the matrix (26.9), not the bundled 26.7.
    const r = await cli('install', '--spec', spec);
    fs.rmSync(spec);
    const ms = Date.now() - t0;
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /26\.9: installing pypi chdb-core==26\.9\.0/, 'progress on stderr');
    assert.match(
      r.stdout,
      /26\.9: installed pypi chdb-core==26\.9\.0 → ClickHouse 26\.9\.2\.1 \(read back\) in [\d.]+ s/,
    );
    console.log(`engines install 26.9: ${ms} ms`);
    const j = JSON.parse((await cli('list', '--json')).stdout) as EngineList;
    assert.equal(j.installed.length, 1);
    const e = j.installed[0];
    assert.equal(e.label, '26.9');
    assert.equal(e.package, 'chdb-core==26.9.0');
    assert.equal(e.clickhouse, '26.9.2.1');
    assert.ok(e.dir.startsWith(dir) && fs.existsSync(e.python));
    assert.ok(e.bytes > 100e6, `${e.bytes} bytes`);
    assert.deepEqual(e.inUseBy, []);
    assert.equal(j.available.find((a) => a.label === '26.9')?.installed, true);
    const again = await cli('install', '26.9.2.1', '26.7');
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /26\.9\.2\.1: pypi chdb-core==26\.9\.0 → ClickHouse 26\.9\.2\.1, already installed/);
    assert.match(again.stdout, /26\.7: npm chdb@3\.4\.\d+ → ClickHouse 26\.7\.2\.1, bundled .*nothing to install/);

    // A process running the environment's interpreter: remove refuses, naming its pid.
    const user = spawn(e.python, ['-c', 'import time; time.sleep(60)'], { stdio: 'ignore' });
    try {
      await new Promise((r) => setTimeout(r, 300));
      const refused = await cli('remove', '26.9');
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, new RegExp(`in use by pid ${user.pid}`));
      assert.ok(fs.existsSync(e.dir));
    } finally {
      user.kill('SIGKILL');
      await new Promise((r) => user.once('exit', r));
    }
    const rm = await cli('remove', '26.9');
    assert.equal(rm.code, 0, rm.stderr);
    assert.match(rm.stdout, /26\.9: removed pypi chdb-core==26\.9\.0 \(\d+ MB\)/);
    assert.ok(!fs.existsSync(e.dir));
    assert.match((await cli('list')).stdout, /installed: none/);
    assert.match((await cli('remove', '26.9')).stdout, /not installed .* nothing removed/);
  });
});
