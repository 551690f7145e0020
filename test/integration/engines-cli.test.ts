/**
 * `chbench engines list | install | remove` as a user runs them, on a temporary CHBENCH_ENGINES_DIR:
 * an empty cache lists nothing installed and every label available; `install 26.9` is a real pip
 * install (wheels from pip's configured sources and cache, ~10-30 s) after which `list` shows the
 * ClickHouse version read back from the installed engine; a damaged install (a changed file, a
 * truncated library) is listed as damaged, fails a provision at once with `EngineDamaged` naming the
 * file and the repair, and `install` repairs it; `remove` refuses while a process runs from the
 * environment and deletes it once none does.
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
import type { ApplicationFailure } from '@temporalio/common';
import { sitePackages } from '../../src/engine/verify';
import { provisionEmbedded } from '../../src/targets/embedded/provision';
import { FAILURE } from '../../src/schema/failures';

/** The largest regular file under `dir` (an engine's native library). */
function largestFile(dir: string): string {
  let best = { file: '', size: -1 };
  const walk = (d: string) => {
    for (const n of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, n.name);
      if (n.isDirectory()) walk(p);
      else if (n.isFile()) {
        const size = fs.statSync(p).size;
        if (size > best.size) best = { file: p, size };
      }
    }
  };
  walk(dir);
  return best.file;
}

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

    assert.equal(e.check.damaged, 0, JSON.stringify(e.check.problems));
    assert.ok(e.check.files > 100, `${e.check.files} files checked`);

    // Damaged in place, same size (a changed byte): sizes pass, sha256 does not; the engine server dies
    // before listening twice the same way → a non-retryable EngineDamaged within seconds, naming the file.
    const site = sitePackages(e.dir)!;
    const init = path.join(site, 'chdb', '__init__.py');
    const original = fs.readFileSync(init);
    const broken = Buffer.from('raise ImportError("damaged by the test")\n'.padEnd(original.length, '#'));
    fs.writeFileSync(init, broken.subarray(0, original.length));
    assert.match((await cli('list')).stdout, /26\.9 .* ok \(\d+, sizes\)/);
    const hashed = await cli('list', '--hashes');
    assert.match(hashed.stdout, /DAMAGED/);
    assert.match(
      hashed.stdout,
      /damaged: 26\.9: 1 of \d+ file\(s\) differ from pip's RECORD \(sizes and sha256\): chdb\/__init__\.py: sha256 differs/,
    );
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-engines-work-'));
    const saved = process.env.CHBENCH_ENGINES_DIR;
    process.env.CHBENCH_ENGINES_DIR = dir;
    try {
      const req = { runId: 'damaged', cellKey: 'v26.9-lz4', version: '26.9', workDir: work };
      const t1 = Date.now();
      await assert.rejects(provisionEmbedded(req), (err: ApplicationFailure) => {
        assert.equal(err.type, FAILURE.EngineDamaged);
        assert.equal(err.nonRetryable, true);
        assert.match(err.message, /died before listening twice in a row, the same way/);
        assert.match(err.message, /chdb\/__init__\.py: sha256 differs/);
        assert.match(err.message, /repair it with `chbench engines install 26\.9`/);
        return true;
      });
      const startMs = Date.now() - t1;
      assert.ok(startMs < 60_000, `gave up after ${startMs} ms`);
      console.log(`damaged engine (changed file): EngineDamaged after ${startMs} ms`);

      // Truncated native library: found by size before anything starts.
      fs.writeFileSync(init, original);
      const lib = largestFile(site);
      fs.truncateSync(lib, 4096);
      const t2 = Date.now();
      await assert.rejects(provisionEmbedded({ ...req, cellKey: 'v26.9-zstd' }), (err: ApplicationFailure) => {
        assert.equal(err.type, FAILURE.EngineDamaged);
        assert.match(err.message, new RegExp(`${path.basename(lib).replace(/[.+]/g, '\\$&')}: 4096 of \\d+ bytes`));
        return true;
      });
      assert.ok(Date.now() - t2 < 5_000, 'refused before a start');
    } finally {
      if (saved === undefined) delete process.env.CHBENCH_ENGINES_DIR;
      else process.env.CHBENCH_ENGINES_DIR = saved;
      fs.rmSync(work, { recursive: true, force: true });
    }
    assert.match(
      (await cli('list')).stdout,
      /damaged: 26\.9: 1 of \d+ file\(s\) .*: 4096 of \d+ bytes; repair it with `chbench engines install 26\.9`/,
    );
    // `engines install` repairs it: removed and installed again, then intact.
    const repaired = await cli('install', '26.9');
    assert.equal(repaired.code, 0, repaired.stderr);
    assert.match(repaired.stderr, /26\.9: repairing pypi chdb-core==26\.9\.0: 1 of \d+ file\(s\) differ/);
    assert.match(repaired.stdout, /26\.9: installed pypi chdb-core==26\.9\.0 → ClickHouse 26\.9\.2\.1/);
    assert.equal(
      (JSON.parse((await cli('list', '--json', '--hashes')).stdout) as EngineList).installed[0]!.check.damaged,
      0,
    );

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
