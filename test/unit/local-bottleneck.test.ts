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
