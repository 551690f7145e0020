/**
 * A full disk (a 1 MiB tmpfs as the results folder, root only): writing a record fails at once as the
 * non-retryable `DiskFull`, naming the file and the free space — not as an error Temporal retries for
 * minutes — and the records written before stay whole; a teardown whose record cannot be written
 * still counts as done (its note says why), so a measured cell is not turned into a failed one.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { FAILURE } from '../../src/schema/failures';
import { freeSpace, writeJsonAtomic } from '../../src/results/store';
import { createTeardown } from '../../src/activities/teardown';
import type { CellInput } from '../../src/schema/cell';

const root = process.getuid?.() === 0;

describe('a full results disk', { skip: root ? false : 'needs root (mounts a tmpfs)' }, () => {
  let mnt: string;

  before(() => {
    mnt = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-full-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', mnt]);
  });

  after(() => {
    execFileSync('umount', [mnt]);
    fs.rmSync(mnt, { recursive: true, force: true });
  });

  it('a record that does not fit fails as DiskFull (not retried), naming the file and the free space; earlier records stay whole', () => {
    const first = path.join(mnt, 'run', 'cells', 'c1', 'queries-baseline.json');
    writeJsonAtomic(first, { measured: [1, 2, 3] });
    // Fill the disk.
    const filler = path.join(mnt, 'filler');
    try {
      fs.writeFileSync(filler, Buffer.alloc(2 * 2 ** 20));
    } catch {
      // ENOSPC: it is full now.
    }
    const next = path.join(mnt, 'run', 'cells', 'c1', 'teardown.json');
    let thrown: unknown;
    try {
      writeJsonAtomic(next, { big: 'x'.repeat(64 * 1024) });
    } catch (e) {
      thrown = e;
    }
    assert.ok(thrown instanceof ApplicationFailure, String(thrown));
    assert.equal(thrown.type, FAILURE.DiskFull);
    assert.equal(thrown.nonRetryable, true);
    assert.match(
      thrown.message,
      new RegExp(
        `^cannot write ${next.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: no space left on its device \\(\\d+\\.\\d MiB free of 1\\.0 MiB, statfs\\); the records already written are kept: free space there, then resume the run`,
      ),
    );
    // No temp file left behind, the earlier record intact.
    assert.deepEqual(fs.readdirSync(path.dirname(next)), ['queries-baseline.json']);
    assert.deepEqual(JSON.parse(fs.readFileSync(first, 'utf8')), { measured: [1, 2, 3] });
    assert.equal(freeSpace(mnt)!.total, 2 ** 20);
  });

  it('a teardown whose record cannot be written is done all the same, saying why', async () => {
    const cell = {
      runId: 'run',
      cellKey: 'c2',
      resultsDir: mnt,
      version: '26.7',
      target: { kind: 'embedded' },
    } as unknown as CellInput;
    // Nothing was provisioned: the teardown removes nothing and then cannot record it.
    fs.mkdirSync(path.join(mnt, 'run', 'cells', 'c2'), { recursive: true });
    const out = await createTeardown({
      workDir: fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-work-')),
    }).teardownUnprovisioned(cell);
    assert.equal(out.torn_down, true);
    assert.match(out.note ?? '', /^teardown done; cannot write .*teardown\.json: no space left on its device/);
  });
});
