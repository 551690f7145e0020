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

/** A scraped sample (a pod's counters through cAdvisor): requested at T0 + `at`, answered `rtt` ms later. */
function sc(at: number, read: number, cpu: number, extra: Partial<CounterSample> = {}): CounterSample {
  return s(at, read, cpu, {
    pid: 0,
    source: 'cadvisor node-a pod ns/p uid 1234abcd',
    host_busy_ns: 0,
    host_total_ns: 0,
    rtt_ms: 4,
    stats_at: null,
    machine_cores: 2,
    ...extra,
  });
}

test('scraped samples with identical counters are "not enough samples: counters not refreshed", never neither', () => {
  const step = [{ step: 'hash warm (baseline)', startMs: T0 + 10, endMs: T0 + 1010 }];
  const cap = { limits: { cpus: 1 }, hostCores: 2, hostReadBytesPerSec: 100 * MiB };
  // cAdvisor answered both requests from one housekeeping reading (10 s apart on a real kubelet).
  const same = [sc(0, 5, 3, { stats_at: T0 - 7000 }), sc(1020, 5, 3, { stats_at: T0 - 7000 })];
  const [l] = labelStepWindows(step, same, cap, true);
  assert.equal(l!.label, 'unknown');
  assert.equal(l!.counters, null);
  assert.match(l!.evidence, /^not enough samples: counters not refreshed: the two samples .* show identical counters/);
  // Without exposition timestamps the rule is the same.
  const [m] = labelStepWindows(step, [sc(0, 5, 3), sc(1020, 5, 3)], cap, true);
  assert.match(m!.evidence, /^not enough samples: counters not refreshed/);
  // The same identical counters from this host's files stay a measurement (the local rule is unchanged).
  const [local] = labelStepWindows(step, [s(0, 5, 3), s(1020, 5, 3)], cap, true);
  assert.equal(local!.label, 'neither', local!.evidence);
});

test("scraped readings covering less than half the window are not refreshed; otherwise rates use the readings' times", () => {
  const step = [{ step: 'q', startMs: T0 + 10, endMs: T0 + 2010 }];
  const cap = { limits: { cpus: 1 }, hostCores: 2 };
  // Read at T0 - 5 s and T0 + 500 ms: they cover 490 of the window's 2000 ms.
  const stale = [sc(0, 0, 0, { stats_at: T0 - 5000 }), sc(2020, 0, 0.9, { stats_at: T0 + 500 })];
  const [l] = labelStepWindows(step, stale, cap, true);
  assert.equal(l!.label, 'unknown');
  assert.match(l!.evidence, /cover 25 % of the window/);
  // Fresh readings: the span is the readings' timestamps (2000 ms), CPU 1.9 s of a 1-core limit.
  const fresh = [sc(0, 0, 0, { stats_at: T0 + 2 }), sc(2020, 0, 1.9, { stats_at: T0 + 2022 })];
  const [f] = labelStepWindows(step, fresh, cap, true);
  assert.equal(f!.label, 'cpu-bound', f!.evidence);
  assert.equal(f!.counters!.ms, 2020);
  assert.match(f!.evidence, /request round trips 4\.0 \/ 4\.0 ms, read at /);
  // No timestamps: the middle of each request (t + rtt / 2), on the monotonic clock of one worker.
  const mid = [sc(0, 0, 0, { rtt_ms: 2 }), sc(2020, 0, 1.9, { rtt_ms: 10 })];
  const [g] = labelStepWindows(step, mid, cap, true);
  assert.equal(g!.counters!.ms, 2020 + 5 - 1);
  assert.match(g!.evidence, /read at request time \(no exposition timestamp\): times ± half the round trip/);
});

test("a short excess over a volume's provisioned rate is not explained by the kernel's throttle slice", () => {
  const step = [{ step: 'q3 cold (baseline)', startMs: T0 + 10, endMs: T0 + 60 }];
  const samples = [sc(0, 0, 0, { stats_at: T0 + 2 }), sc(70, 10, 0.01, { stats_at: T0 + 72 })];
  const limits = resourceLimits({ volume: { profile: 'gp3', iops: 3000, throughputMiBps: 125 } });
  const [pod] = labelStepWindows(step, samples, { limits, hostCores: 2, volumeEnforcedBy: 'volume' }, true);
  assert.match(pod!.evidence, /above the provisioned rate by less than 12\.5 MiB in this short window/);
  const [local] = labelStepWindows(step, samples, { limits, hostCores: 2 }, true);
  assert.match(local!.evidence, /within the throttle's first 100 ms slice/);
});
