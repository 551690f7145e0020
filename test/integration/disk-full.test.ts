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
import { cellSpaceNeeds, requireSpace, spaceProblem } from '../../src/results/space-check';
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

  it('before a cell: its estimated writes against the free space, refused with the paths and figures; a cell that fits passes', () => {
    fs.rmSync(path.join(mnt, 'filler'), { force: true });
    const input = {
      resultsDir: mnt,
      runId: 'space',
      cellKey: 'v26.7-zstd3',
      rows: 100_000,
      codec: 'ZSTD(3)',
      runs: 50,
    };
    // Records only: 16 MiB + 50 runs × 4 KiB does not fit a 1 MiB disk.
    assert.throws(
      () => requireSpace(input),
      (e: ApplicationFailure) => {
        assert.equal(e.type, FAILURE.DiskFull);
        assert.equal(e.nonRetryable, true);
        assert.match(
          e.message,
          new RegExp(
            `^cell v26\\.7-zstd3: not enough free space for this cell on ${path.join(mnt, 'space').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: it needs ≈ 16\\.2 MiB \\(records 16\\.2 MiB \\(16\\.0 MiB \\+ 50 runs × 4 KiB\\)\\), statfs says [\\d.]+ (KiB|MiB) free of 1\\.0 MiB\\. Nothing was started; .*chbench resume space`,
          ),
        );
        return true;
      },
    );
    // Data on this host: estimated from a finished cell of the run (bytes on disk per row), stated.
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-space-work-'));
    const results = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-space-results-'));
    try {
      const storage = path.join(results, 'space', 'cells', 'v26.3-zstd3', 'storage.json');
      writeJsonAtomic(storage, {
        table: 'logs',
        rows: 1_000_000,
        active_parts: 3,
        compressed_bytes: 9e6,
        uncompressed_bytes: 4e7,
        bytes_on_disk: 1e7,
        ratio: 4.4,
        part_types: { Wide: 3 },
        columns: null,
        columns_unavailable_reason: 'test',
        sources: {},
      });
      const needs = cellSpaceNeeds({ ...input, resultsDir: results, dataDir: work, rows: 1e9 });
      assert.equal(needs[1]!.bytes, 1e9 * 10 * 1.5);
      assert.match(
        needs[1]!.basis,
        /^data 13\.97 GiB \(1,000,000,000 rows × 10\.0 B\/row on disk measured by cell v26\.3-zstd3 × 1\.5 for merges\)$/,
      );
      const free = freeSpace(work)!.free;
      if (free < 1e9 * 15) assert.match(spaceProblem(needs) ?? '', /not enough free space .* data 13\.97 GiB/);
      assert.equal(
        spaceProblem(cellSpaceNeeds({ ...input, resultsDir: results, dataDir: work, rows: 1000 })),
        undefined,
      );
      // Another codec's measurement is used only when none of the same codec exists, and says so.
      assert.match(
        cellSpaceNeeds({ ...input, codec: 'LZ4', resultsDir: results, dataDir: work })[1]!.basis,
        /another codec/,
      );
    } finally {
      fs.rmSync(work, { recursive: true, force: true });
      fs.rmSync(results, { recursive: true, force: true });
    }
  });
});
