/**
 * The pure parts of what the CLI says when a run ends: the one-line summary and its durations, the
 * servers a run kept (read from its cells' provision records), and when a resume has nothing to do.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  countOutcomes,
  formatDuration,
  keptServerLines,
  keptServers,
  nothingToResume,
  summaryLine,
  workerNotice,
  failedCellLine,
} from '../../src/cli/follow';

test('summaryLine: succeeded of total, then what else happened, then the duration', () => {
  assert.equal(
    summaryLine(countOutcomes([{ status: 'succeeded' }, { status: 'succeeded' }]), 21_400),
    '2/2 succeeded in 21 s',
  );
  assert.equal(
    summaryLine(countOutcomes([{ status: 'succeeded' }, { status: 'failed' }, { status: 'skipped' }]), 184_000),
    '1/3 succeeded, 1 failed, 1 skipped in 3 min 4 s',
  );
  assert.equal(
    summaryLine({ total: 3, succeeded: 0, failed: 0, skipped: 0, cancelled: 1 }, 7_260_000),
    '0/3 succeeded, 1 cancelled, 2 not run in 2 h 1 min',
  );
  assert.equal(summaryLine(countOutcomes([{ status: 'succeeded' }])), '1/1 succeeded');
  assert.equal(formatDuration(850), '850 ms');
});

test('keptServers: cells provisioned and not torn down, with where they are; nothing to resume only when all finished', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chbench-follow-'));
  try {
    const cell = (k: string, files: Record<string, unknown>) => {
      mkdirSync(path.join(dir, 'cells', k), { recursive: true });
      for (const [f, v] of Object.entries(files)) writeFileSync(path.join(dir, 'cells', k, f), JSON.stringify(v));
    };
    const target = { kind: 'embedded', url: 'http://127.0.0.1:41000', pid: 4242, dataDir: '/tmp/d1' };
    const dataDirLive = path.join(dir, 'live-cell');
    cell('a', { 'provision.json': { target }, 'result.json': { status: 'succeeded' } });
    cell('b', {
      'provision.json': { target: { ...target, pid: 1 } },
      'teardown.json': {},
      'result.json': { status: 'succeeded' },
    });
    cell('c', {
      'provision.json': {
        target: {
          kind: 'kubernetes',
          url: 'http://10.0.0.7:8123',
          kubernetes: { namespace: 'bench-database', pod: 'chb-c', pvc: 'chb-c-data' },
        },
      },
      'result.json': { status: 'failed' },
    });
    writeFileSync(
      path.join(dir, 'run.json'),
      JSON.stringify({ runId: 'r1', status: 'completed', cells: ['a', 'b', 'c'] }),
    );
    const kept = keptServers(dir);
    assert.deepEqual(
      kept.map((k) => k.cellKey),
      ['a', 'c'],
    );
    // Cell a's pid names no /tmp/d1 process: it is not said to run ("kept running" only when alive).
    assert.equal(kept[0]!.running, false);
    assert.deepEqual(keptServerLines(kept), [
      '1 server(s) not torn down (may still be running); remove them with `chbench gc` (pods: `chbench gc --kubernetes`) once the run is closed:',
      `  c: kubernetes at http://10.0.0.7:8123 (pod bench-database/chb-c (PVC chb-c-data)); recorded in ${path.join(dir, 'cells', 'c', 'provision.json')}`,
      '1 server(s) not torn down whose process is gone (only the data folder is left); remove it with `chbench gc`:',
      `  a: embedded at http://127.0.0.1:41000 (pid 4242, data dir /tmp/d1); recorded in ${path.join(dir, 'cells', 'a', 'provision.json')}`,
    ]);
    // A live process started for the data dir is "kept running".
    const live = spawn('sh', ['-c', 'sleep 30', dataDirLive], { stdio: 'ignore' });
    try {
      cell('a', { 'provision.json': { target: { ...target, pid: live.pid, dataDir: dataDirLive } } });
      const again = keptServers(dir);
      assert.equal(again[0]!.running, true);
      assert.match(keptServerLines(again)[0]!, /^1 server\(s\) kept running \(not torn down; the process is alive\)/);
    } finally {
      live.kill('SIGKILL');
    }
    assert.equal(nothingToResume(dir), undefined, 'cell c failed: resume runs it again');
    cell('c', { 'result.json': { status: 'skipped' } });
    assert.equal(
      nothingToResume(dir),
      `nothing to resume: run r1 completed and all 3 cell(s) finished (2 succeeded, 1 skipped); report: ${path.join(dir, 'report.md')}`,
    );
    writeFileSync(
      path.join(dir, 'run.json'),
      JSON.stringify({ runId: 'r1', status: 'cancelled', cells: ['a', 'b', 'c'] }),
    );
    assert.equal(nothingToResume(dir), undefined, 'a cancelled run is resumed (its report and comparison are redone)');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('workerNotice: a worker that stops polling is reported once after 75 s, and again when one polls', () => {
  const place = { temporalAddress: '127.0.0.1:7233', namespace: 'default', taskQueue: 'chbench' };
  const now = 1_000_000;
  const w = (ago: number) => [{ identity: '123@host', lastAccessMs: now - ago }];
  // A live worker: nothing to say.
  assert.deepEqual(workerNotice('unknown', w(2000), now, place), { state: 'polling' });
  // A live worker waiting in an idle long poll (up to the server's 60 s expiry): still polling, no warning.
  assert.deepEqual(workerNotice('polling', w(21_000), now, place), { state: 'polling' });
  assert.deepEqual(workerNotice('polling', w(60_000), now, place), { state: 'polling' });
  // A worker whose activity poll is fresh while its workflow poll is old: the newest poll counts.
  assert.deepEqual(
    workerNotice('polling', [...w(70_000), { identity: '123@host', lastAccessMs: now - 3000 }], now, place),
    { state: 'polling' },
  );
  // 80 s without a poll while a step is pending: one line naming the queue, the seconds and the last identity.
  const silent = workerNotice('polling', w(80_000), now, place);
  assert.equal(silent.state, 'silent');
  assert.match(
    silent.line!,
    /no worker has polled task queue `chbench` for 80 s \(last: 123@host; .*start one with `chbench worker`/,
  );
  // Said once per state change.
  assert.deepEqual(workerNotice('silent', w(90_000), now, place), { state: 'silent' });
  // Nothing pending: no line.
  assert.deepEqual(workerNotice('polling', w(80_000), now, place, false), { state: 'polling' });
  // A worker polls again.
  assert.match(workerNotice('silent', w(1000), now, place).line!, /a worker is polling task queue `chbench` now/);
  // None listed at all.
  assert.match(workerNotice('unknown', [], now, place).line!, /no worker is polling task queue `chbench`/);
  assert.deepEqual(workerNotice('none', [], now, place), { state: 'none' });
});

test('failedCellLine: a failed cell reason on one line, cut at 300 characters', () => {
  assert.equal(
    failedCellLine('codec refused:\n  Unknown codec family: ZTSD'),
    'codec refused: Unknown codec family: ZTSD',
  );
  const long = failedCellLine('x'.repeat(1000));
  assert.equal(long.length, 300);
  assert.ok(long.endsWith('…'));
});
