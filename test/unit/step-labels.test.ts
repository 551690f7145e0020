/**
 * Step windows labelled from counter samples (src/measure/step-labels.ts), pure: which two samples
 * bracket a window, that the label's counters are their differences, and the windows no two samples
 * bracket (none, one, a restarted server).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bracketWindow, labelStepWindows } from '../../src/measure/step-labels';
import { resourceLimits } from '../../src/schema/resources';
import type { CounterSample } from '../../src/process/cell-counters';

const MiB = 1024 * 1024;
const T0 = Date.parse('2026-12-02T12:00:00.000Z');

/** A sample at T0 + `at` ms with cumulative `read` MiB and `cpu` s. */
function s(at: number, read: number, cpu: number, extra: Partial<CounterSample> = {}): CounterSample {
  return {
    t: T0 + at,
    hr: 1e6 + at,
    proc: '1@0',
    pid: 42,
    activity: 'runQueries',
    edge: 'statement begin',
    source: 'cgroup v1 chbench/r/c',
    read_bytes: read * MiB,
    write_bytes: 0,
    cpu_ns: cpu * 1e9,
    host_busy_ns: cpu * 1e9,
    host_total_ns: at * 2e6,
    ...extra,
  };
}

test('a window is measured between the last sample at or before its start and the first at or after its end', () => {
  const samples = [s(0, 0, 0), s(100, 0, 0.01), s(100, 1, 0.01), s(2100, 41, 0.1), s(2100, 41, 0.1), s(2600, 41, 0.2)];
  const b = bracketWindow(samples, T0 + 100, T0 + 2100);
  assert.deepEqual(b, { ok: true, from: 2, to: 3, notes: [] });
  const [l] = labelStepWindows(
    [{ step: 'q1 cold (baseline)', startMs: T0 + 100, endMs: T0 + 2100 }],
    samples,
    { limits: resourceLimits({ volume: { profile: 'explicit', readMiBps: 20 } }), hostCores: 2 },
    false,
  );
  assert.equal(l!.label, 'disk-bound', l!.evidence);
  assert.deepEqual(
    { r: l!.counters!.read_bytes, ms: l!.counters!.ms, rate: l!.counters!.read_bytes_per_s, held: l!.limit_held },
    { r: 40 * MiB, ms: 2000, rate: 20 * MiB, held: true },
  );
  assert.match(
    l!.evidence,
    /^read 20\.0 MiB\/s = 100 % of the explicit read limit 20\.0 MiB\/s; .*\[cgroup v1 chbench\/r\/c, samples 2 → 3 of counters\.jsonl over 2000\.0 ms\]$/,
  );
});

test('windows without two bracketing samples: partial ends are said, a restart or no sample is unknown', () => {
  const samples = [s(500, 0, 0), s(1500, 10, 0.5)];
  const partial = bracketWindow(samples, T0, T0 + 2000);
  assert.deepEqual(partial, {
    ok: true,
    from: 0,
    to: 1,
    notes: [
      "from the first sample, 500 ms after the window's start",
      "to the last sample, 500 ms before the window's end",
    ],
  });
  assert.deepEqual(bracketWindow([], T0, T0 + 1), {
    ok: false,
    reason: 'no counter samples (counters.jsonl is empty or absent)',
  });
  assert.equal(bracketWindow([s(5000, 0, 0)], T0, T0 + 1000).ok, false);
  const restarted = bracketWindow(
    [s(0, 50, 1, { source: '/proc/42' }), s(1000, 1, 0.1, { source: '/proc/43', pid: 43 })],
    T0,
    T0 + 1000,
  );
  assert.equal(restarted.ok, false);
  const [u] = labelStepWindows([{ step: 'load', startMs: T0, endMs: T0 + 1000 }], [], { hostCores: 2 }, false);
  assert.deepEqual(
    { label: u!.label, counters: u!.counters, held: u!.limit_held },
    { label: 'unknown', counters: null, held: null },
  );
});

test('samples of two worker processes are timed by the wall clock, one process by its monotonic clock', () => {
  const a = s(0, 0, 0);
  const b = s(1000, 10, 0, { hr: 1e6 + 999.5 });
  const [same] = labelStepWindows(
    [{ step: 'x', startMs: T0, endMs: T0 + 1000 }],
    [a, b],
    { hostCores: 2, hostReadBytesPerSec: 100 * MiB },
    false,
  );
  assert.equal(same!.counters!.ms, 999.5);
  const [other] = labelStepWindows(
    [{ step: 'x', startMs: T0, endMs: T0 + 1000 }],
    [a, { ...b, proc: '2@5' }],
    { hostCores: 2, hostReadBytesPerSec: 100 * MiB },
    false,
  );
  assert.equal(other!.counters!.ms, 1000);
});
