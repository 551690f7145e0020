/** The prebuilt workflow bundle's fingerprint: a rewrite with the same content keeps it, a change does not. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { workflowSourcesHash } from '../../src/worker';

describe('workflowSourcesHash', () => {
  it('ignores modification times and the bundle itself; changes with any compiled file', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'chbench-bundle-hash-'));
    try {
      mkdirSync(path.join(dir, 'workflows'));
      writeFileSync(path.join(dir, 'workflows', 'a.js'), 'exports.a = 1;\n');
      writeFileSync(path.join(dir, 'b.js'), 'exports.b = 2;\n');
      const first = workflowSourcesHash(dir);
      // What `tsc` does to an unchanged file: same bytes, new mtime.
      const later = new Date(Date.now() + 60_000);
      utimesSync(path.join(dir, 'b.js'), later, later);
      writeFileSync(path.join(dir, 'workflow-bundle.js'), 'bundle');
      assert.equal(workflowSourcesHash(dir), first);
      writeFileSync(path.join(dir, 'workflows', 'a.js'), 'exports.a = 2;\n');
      assert.notEqual(workflowSourcesHash(dir), first);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
