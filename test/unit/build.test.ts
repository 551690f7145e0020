/**
 * The build keeps the CLI runnable and never pulls files from under a running worker: after the
 * build, `dist/src/cli.js` (package.json "bin") runs as an executable (`npx chbench`); the build
 * script removes nothing from dist/; the demo scripts build only when a source is newer than the
 * last build (`scripts/build-if-stale.sh`), so `npm run demo` after setup does not rebuild. `npm
 * test` still builds (CI runs it from a clean clone).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../src/config';

const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
  bin: { chbench: string };
  scripts: Record<string, string>;
};

test('the built CLI has its run bit and runs as an executable (npx chbench)', () => {
  const bin = path.join(REPO_ROOT, pkg.bin.chbench);
  assert.equal(statSync(bin).mode & 0o111, 0o111, `${bin} is executable by all`);
  const out = execFileSync(bin, ['--version'], { encoding: 'utf8' });
  assert.match(out.trim(), /^\d+\.\d+\.\d+/);
});

test('the build overwrites dist/ in place (no rm of dist); demo scripts and npm test build only when stale', () => {
  assert.doesNotMatch(pkg.scripts.build, /\brm\b/, 'the build deletes nothing under a running worker');
  for (const [name, cmd] of Object.entries(pkg.scripts).filter(([n]) => n === 'test' || n.startsWith('demo')))
    assert.doesNotMatch(cmd, /npm run build(\s|&|$)/, `${name} does not rebuild unconditionally`);
  for (const [name, cmd] of Object.entries(pkg.scripts).filter(([n]) => n === 'test' || n.startsWith('demo')))
    assert.match(cmd, /^npm run build:if-stale\b/, `${name} builds first, when a source is newer than the last build`);
});

test('build-if-stale does nothing when no source is newer than the last build', () => {
  const stamp = path.join(REPO_ROOT, 'dist', '.build-stamp');
  let before: number | undefined;
  try {
    before = statSync(stamp).mtimeMs;
  } catch {
    /* no stamp: this checkout was built with tsc directly; skip the run */
  }
  if (before === undefined) return;
  const bundle = statSync(path.join(REPO_ROOT, 'dist', 'src', 'workflow-bundle.js')).mtimeMs;
  const out = execFileSync('sh', [path.join(REPO_ROOT, 'scripts', 'build-if-stale.sh')], { encoding: 'utf8' });
  if (/up to date/.test(out))
    assert.equal(statSync(path.join(REPO_ROOT, 'dist', 'src', 'workflow-bundle.js')).mtimeMs, bundle, 'not rebuilt');
  else assert.ok(statSync(stamp).mtimeMs >= before, 'a stale dist/ was rebuilt and stamped');
});
