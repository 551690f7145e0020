/**
 * The embedded provision step installs a missing PyPI build on demand and heartbeats pip's progress
 * while it runs (real pip into a temporary CHBENCH_ENGINES_DIR, inside a mock activity with the
 * statement watch of every cell step); a cancelled activity stops the install and leaves nothing
 * that looks installed. The engine's arguments select the installed interpreter.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runWatched } from '../../src/clickhouse/statement-watch';
import { embeddedEngine } from '../../src/targets/embedded/provision';
import { findPypiBuild, installedEngine } from '../../src/engine/install';
import { startActivity } from '../helpers/activity-env';

describe('embedded provision: a PyPI build installed on demand', { timeout: 240_000 }, () => {
  let engines: string;
  const saved = process.env.CHBENCH_ENGINES_DIR;
  before(() => {
    engines = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-install-act-'));
    process.env.CHBENCH_ENGINES_DIR = engines;
  });
  after(() => {
    if (saved === undefined) delete process.env.CHBENCH_ENGINES_DIR;
    else process.env.CHBENCH_ENGINES_DIR = saved;
    fs.rmSync(engines, { recursive: true, force: true });
  });

  it('a cancelled install leaves nothing installed', async () => {
    const a = startActivity(() => runWatched({ step: 'provision' }, () => embeddedEngine('26.9')));
    // Cancel once pip is running.
    for (let i = 0; i < 200 && !a.beats.some((b) => /pip install/.test(String(b.d.progress))); i++)
      await new Promise((r) => setTimeout(r, 50));
    a.cancel();
    const s = await a.settled;
    assert.equal(s.ok, false);
    assert.equal(installedEngine(findPypiBuild('26.9')!), undefined);
    assert.deepEqual(
      fs.readdirSync(engines).filter((n) => !n.startsWith('.') && !n.endsWith('.lock')),
      [],
      'no directory that looks installed',
    );
  });

  it('26.9: heartbeats while pip runs, then the interpreter of the installed environment', async () => {
    const t0 = Date.now();
    const a = startActivity(() => runWatched({ step: 'provision' }, () => embeddedEngine('26.9', 'auto')));
    const e = await a.result;
    console.log(`install on demand: ${Date.now() - t0} ms, ${a.beats.length} heartbeats`);
    const lines = a.beats.map((b) => String(b.d.progress));
    assert.ok(
      lines.some((l) => /^installing pypi chdb-core==26\.9\.0: pip install chdb-core==26\.9\.0/.test(l)),
      lines.join('\n'),
    );
    assert.ok(a.beats.every((b) => b.d.step === 'provision'));
    const inst = installedEngine(findPypiBuild('26.9')!)!;
    assert.deepEqual(e.args, ['--engine', 'python', '--python', inst.python]);
    assert.equal(e.resolution.installed?.clickhouse, '26.9.2.1');
    assert.match(e.resolution.description, /installed at /);
    // Installed: the next provision resolves at once, without heartbeats of an install.
    const b = startActivity(() => runWatched({ step: 'provision' }, () => embeddedEngine('26.9')));
    await b.result;
    assert.ok(!b.beats.some((x) => /installing/.test(String(x.d.progress))));
    // The bundled engine needs nothing.
    assert.deepEqual((await embeddedEngine('26.7')).args, ['--engine', 'npm']);
  });
});
