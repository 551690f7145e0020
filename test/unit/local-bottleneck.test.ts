/**
 * The local cells' bottleneck label (src/measure/local-bottleneck.ts), pure: counters in, label and
 * evidence out.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { labelLocalWindow } from '../../src/measure/local-bottleneck';
import { resourceLimits } from '../../src/schema/resources';

const MiB = 1024 * 1024;
const gp3 = resourceLimits({ volume: { profile: 'gp3', iops: 3000, throughputMiBps: 125 }, cpus: 2 });
const src = 'cgroup v1 blkio.throttle.io_service_bytes, cpuacct.usage';

test('reading at the gp3 limit is disk-bound; the evidence is the counters over the window', () => {
  const l = labelLocalWindow(
    { ms: 2000, readBytes: 240 * MiB, writeBytes: 0, cpuNs: 0.5e9, source: src },
    { limits: gp3, hostCores: 8 },
    false,
  );
  assert.equal(l.label, 'disk-bound');
  assert.equal(l.readBytesPerSec, 120 * MiB);
  assert.equal(l.coresUsed, 0.25);
  assert.equal(
    l.evidence,
    `read 120 MiB/s = 96 % of the gp3 read limit 125 MiB/s; CPU 0.25 of 2.00 cores (limit) = 13 % [${src}]`,
  );
  assert.ok(l.limitHeld);
});

test('CPU at the core limit is cpu-bound; a read above the limit is flagged "limit did not hold"', () => {
  const cpu = labelLocalWindow(
    { ms: 1000, readBytes: 10 * MiB, writeBytes: 0, cpuNs: 1.9e9, source: src },
    { limits: gp3, hostCores: 8 },
    false,
  );
  assert.equal(cpu.label, 'cpu-bound');
  const over = labelLocalWindow(
    { ms: 1000, readBytes: 200 * MiB, writeBytes: 0, cpuNs: 0, source: src },
    { limits: gp3, hostCores: 8 },
    false,
  );
  assert.equal(over.limitHeld, false);
  assert.match(over.evidence, /160 % of the gp3 read limit 125 MiB\/s \(limit did not hold\)/);
});

test('unthrottled cells compare with the host disk; cgroup v1 buffered writes are not compared; no capacity is unknown', () => {
  const host = labelLocalWindow(
    { ms: 1000, readBytes: 20 * MiB, writeBytes: 50 * MiB, cpuNs: 0.1e9, source: '/proc' },
    { hostReadBytesPerSec: 170 * MiB, hostCores: 2 },
    false,
  );
  assert.equal(host.label, 'neither');
  assert.match(
    host.evidence,
    /read 20\.0 MiB\/s = 12 % of the host disk \(unthrottled, measured\) 170 MiB\/s; write 50\.0 MiB\/s; CPU 0\.10 of 2\.00 cores = 5 %/,
  );
  const v1 = labelLocalWindow(
    { ms: 1000, readBytes: 0, writeBytes: 300 * MiB, cpuNs: 0, source: src },
    { limits: gp3, hostCores: 2 },
    false,
  );
  assert.match(v1.evidence, /write 300 MiB\/s \(buffered writes are not throttled by cgroup v1; not compared\)/);
  assert.ok(v1.limitHeld);
  const v2 = labelLocalWindow(
    { ms: 1000, readBytes: 0, writeBytes: 120 * MiB, cpuNs: 0, source: 'cgroup v2' },
    { limits: gp3, hostCores: 2 },
    true,
  );
  assert.equal(v2.label, 'disk-bound');
  assert.equal(
    labelLocalWindow({ ms: 1000, readBytes: 1, writeBytes: 0, cpuNs: 0, source: '/proc' }, { hostCores: 2 }, false)
      .label,
    'unknown',
  );
  assert.equal(
    labelLocalWindow({ ms: 0, readBytes: 1, writeBytes: 0, cpuNs: 0, source: '/proc' }, { hostCores: 2 }, false).label,
    'unknown',
  );
});

test("the CPU label is the server's own share: a server starved by a busy host is not CPU-bound (unknown, saying why); a read at its limit stays disk-bound", () => {
  const limitReadOnly = resourceLimits({ volume: { profile: 'explicit', readMiBps: 20 } });
  // The server used 0.2 of 2 cores while the host was 95 % busy: starved of CPU.
  const starved = labelLocalWindow(
    { ms: 1000, readBytes: 0, writeBytes: 0, cpuNs: 0.2e9, hostBusyNs: 1.9e9, hostTotalNs: 2e9, source: '/proc' },
    { hostReadBytesPerSec: 500 * MiB, hostCores: 2 },
    false,
  );
  assert.equal(starved.label, 'unknown');
  assert.match(
    starved.evidence,
    /CPU 0\.20 of 2\.00 cores = 10 %; host CPU busy 95 % of 2 cores \(\/proc\/stat, all processes: other processes used 1\.70 cores, the server was starved of CPU — not labelled from the host's load\)/,
  );
  // The server's own 1.8 of 2 cores: CPU-bound whatever the host does.
  const own = labelLocalWindow(
    { ms: 1000, readBytes: 0, writeBytes: 0, cpuNs: 1.8e9, hostBusyNs: 1.95e9, hostTotalNs: 2e9, source: '/proc' },
    { hostReadBytesPerSec: 500 * MiB, hostCores: 2 },
    false,
  );
  assert.equal(own.label, 'cpu-bound');
  // A read at its limit on the same busy host: both sides over, the disk's 98 % beats the server's own 10 %.
  const throttled = labelLocalWindow(
    {
      ms: 1000,
      readBytes: 19.6 * MiB,
      writeBytes: 0,
      cpuNs: 0.2e9,
      hostBusyNs: 2e9,
      hostTotalNs: 2e9,
      source: 'cgroup v1',
    },
    { limits: limitReadOnly, hostCores: 2 },
    false,
  );
  assert.equal(throttled.label, 'disk-bound', throttled.evidence);
  // Under a CPU limit the host's busy share is not used: only the quota counts.
  const quota = labelLocalWindow(
    { ms: 1000, readBytes: 0, writeBytes: 0, cpuNs: 0.1e9, hostBusyNs: 2e9, hostTotalNs: 2e9, source: 'cgroup v1' },
    { limits: gp3, hostReadBytesPerSec: 500 * MiB, hostCores: 2 },
    false,
  );
  assert.equal(quota.label, 'neither', quota.evidence);
  assert.doesNotMatch(quota.evidence, /host CPU busy/);
});

test("a short window above the rate but within the throttle's first 100 ms slice is not a failed limit", () => {
  // 11.7 MiB in 62 ms under 125 MiB/s (as a 1 M-row cold run read): 151 %, but 12.5 MiB is one slice.
  const short = labelLocalWindow(
    { ms: 62.3, readBytes: 11.7 * MiB, writeBytes: 0, cpuNs: 0, source: 'cgroup v1' },
    { limits: gp3, hostCores: 2 },
    false,
  );
  assert.equal(short.limitHeld, true, short.evidence);
  assert.match(
    short.evidence,
    /150 % of the gp3 read limit 125 MiB\/s \(within the throttle's first 100 ms slice of 12\.5 MiB: not a failed limit\)/,
  );
  assert.equal(short.label, 'disk-bound');
});
