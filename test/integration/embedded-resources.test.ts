/**
 * `target.resources` on a real embedded cell (chdb in its own process, as root, cgroup v1 here): the
 * server pid is in its cell's cgroup with a 20 MiB/s read limit on the data directory's disk, the
 * provision line says what was applied, a cold (direct I/O requested) full scan of 2 M rows (four UInt64 columns, 64 MiB uncompressed: the throttle's first slice, ≈ 2–4 MiB, stays within the 10 % tolerance) is
 * labelled disk-bound from the cgroup's counters with the achieved rate under the limit, and teardown
 * leaves no cgroup. Without the controllers (an empty cgroup root) provisioning is refused before a
 * server starts. A PyPI build (24.8, whose engine runs in a Python child of the server) has every
 * process of the server's tree in the cell's cgroup and its cold read counted and throttled there:
 * the child must not escape the limit (it did when the server joined its group after starting). ~5 s,
 * plus the 24.8 install when the engine cache lacks it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';
import { ApplicationFailure } from '@temporalio/common';
import { provisionEmbedded, teardownEmbedded } from '../../src/targets/embedded';
import { FAILURE } from '../../src/schema/failures';
import { resourceLimits, type ResourcesSpec } from '../../src/schema/resources';
import { labelLocalWindow } from '../../src/measure/local-bottleneck';
import { readCgroupCounters, type CellCgroup } from '../../src/process/cgroup';
import { descendants } from '../../src/process/server-counters';
import type { ProvisionRequest, TargetHandle } from '../../src/schema/target';
import { targetPassword } from '../../src/clickhouse/client';

const MiB = 1024 * 1024;
const ROOT = '/sys/fs/cgroup';
const RESOURCES: ResourcesSpec = { volume: { profile: 'explicit', readMiBps: 20 } };

describe('embedded cell with target.resources (real kernel, root)', { timeout: 120_000 }, () => {
  let workDir: string;
  let req: ProvisionRequest;
  let handle: TargetHandle | undefined;
  let client: ClickHouseClient | undefined;

  before(() => {
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-resources-test-'));
    req = { runId: `test-${randomUUID().slice(0, 8)}`, cellKey: 'cell-r', version: '26.7', workDir };
  });

  after(async () => {
    await client?.close();
    if (handle) await teardownEmbedded(handle).catch(() => undefined);
    fs.rmSync(workDir, { recursive: true, force: true });
  });

  it('refuses before a server starts when the cgroup controllers are missing', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'cg-empty-'));
    process.env.CHBENCH_CGROUP_ROOT = empty;
    try {
      await assert.rejects(
        provisionEmbedded({ ...req, cellKey: 'refused' }, 'npm', RESOURCES),
        (e: unknown) =>
          e instanceof ApplicationFailure &&
          e.type === FAILURE.TargetUnavailable &&
          e.nonRetryable &&
          /blkio.*not mounted/.test(e.message),
      );
      assert.equal(fs.existsSync(path.join(workDir, req.runId)), false, 'nothing provisioned');
    } finally {
      delete process.env.CHBENCH_CGROUP_ROOT;
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });

  it('places the server in its cell cgroup and labels a cold full scan disk-bound under the limit', async (t) => {
    handle = await provisionEmbedded(req, 'npm', RESOURCES);
    const name = path.join('chbench', req.runId, req.cellKey);
    const blkio = path.join(ROOT, 'blkio', name);
    assert.ok(fs.readFileSync(path.join(blkio, 'cgroup.procs'), 'utf8').split('\n').includes(String(handle.pid)));
    assert.match(
      handle.provisionedBy,
      /volume limits: read 20 MiB\/s on vda \(254:0\), cgroup v1 blkio \(buffered writeback not throttled\)/,
    );
    client = createClient({
      url: handle.url,
      username: 'default',
      password: targetPassword(handle),
      log: { level: ClickHouseLogLevel.OFF },
    });
    await client.command({
      query:
        'CREATE TABLE t (x UInt64 CODEC(NONE), y UInt64 CODEC(NONE), z UInt64 CODEC(NONE), w UInt64 CODEC(NONE)) ENGINE = MergeTree ORDER BY tuple()',
    });
    await client.command({
      query: 'INSERT INTO t SELECT rand64(), rand64(1), rand64(2), rand64(3) FROM numbers(2000000)',
    });
    await client.command({ query: 'OPTIMIZE TABLE t FINAL' });
    const cg: CellCgroup = {
      version: 1,
      name,
      dirs: [blkio],
      stats: { io: blkio, cpuacct: path.join(ROOT, 'cpuacct', name) },
      device: { major: 254, minor: 0, name: 'vda' },
      writesThrottled: false,
    };
    // The parts' dirty pages go to disk first: a direct read would otherwise flush them inside the window.
    assert.equal(spawnSync('sync').status, 0);
    const before = readCgroupCounters(cg);
    const t0 = performance.now();
    const rs = await client.query({
      query: 'SELECT sum(x), sum(y), sum(z), sum(w) FROM t',
      format: 'JSONEachRow',
      clickhouse_settings: {
        min_bytes_to_use_direct_io: '1',
        local_filesystem_read_method: 'pread',
        use_uncompressed_cache: 0,
      },
    });
    await rs.json();
    const ms = performance.now() - t0;
    const afterC = readCgroupCounters(cg);
    const read = afterC.readBytes - before.readBytes;
    assert.ok(read >= 60 * MiB, `the cold scan read ${read} bytes from vda in the cell's cgroup`);
    const l = labelLocalWindow(
      {
        ms,
        readBytes: read,
        writeBytes: afterC.writeBytes - before.writeBytes,
        cpuNs: afterC.cpuNs - before.cpuNs,
        source: 'cgroup v1',
      },
      { limits: resourceLimits(RESOURCES), hostCores: os.availableParallelism() },
      false,
    );
    t.diagnostic(`${l.label}: ${l.evidence} (${Math.round(ms)} ms, ${read} bytes)`);
    assert.equal(l.label, 'disk-bound', l.evidence);
    assert.ok(l.readBytesPerSec <= 20 * MiB * 1.1, l.evidence);
    assert.ok(l.limitHeld, l.evidence);
    await client.close();
    client = undefined;
    await teardownEmbedded(handle);
    handle = undefined;
    for (const m of ['blkio', 'cpuacct'])
      assert.equal(fs.existsSync(path.join(ROOT, m, 'chbench', req.runId)), false, `${m} cgroup removed`);
  });

  it('a PyPI build: the engine child runs in the cell cgroup and its cold read is throttled there', async (t) => {
    const r = { ...req, cellKey: 'cell-pypi', version: '24.8' };
    const h = await provisionEmbedded(r, 'auto', RESOURCES);
    const c = createClient({
      url: h.url,
      username: 'default',
      password: targetPassword(h),
      log: { level: ClickHouseLogLevel.OFF },
    });
    try {
      const name = path.join('chbench', r.runId, r.cellKey);
      const blkio = path.join(ROOT, 'blkio', name);
      const tree = [h.pid!, ...descendants(h.pid!)];
      assert.ok(tree.length >= 2, `the server ${h.pid} runs its engine in a child (${tree.join(', ')})`);
      for (const pid of tree)
        assert.match(fs.readFileSync(`/proc/${pid}/cgroup`, 'utf8'), new RegExp(`:blkio:/${name}\n`), `pid ${pid}`);
      await c.command({
        query: 'CREATE TABLE t (x UInt64 CODEC(NONE), y UInt64 CODEC(NONE)) ENGINE = MergeTree ORDER BY tuple()',
      });
      await c.command({ query: 'INSERT INTO t SELECT rand64(), rand64(1) FROM numbers(2000000)' });
      await c.command({ query: 'OPTIMIZE TABLE t FINAL' });
      assert.equal(spawnSync('sync').status, 0);
      const cg: CellCgroup = {
        version: 1,
        name,
        dirs: [blkio],
        stats: { io: blkio, cpuacct: path.join(ROOT, 'cpuacct', name) },
        device: { major: 254, minor: 0, name: 'vda' },
        writesThrottled: false,
      };
      const before = readCgroupCounters(cg);
      const t0 = performance.now();
      const rs = await c.query({
        query: 'SELECT sum(x), sum(y) FROM t',
        format: 'JSONEachRow',
        clickhouse_settings: { min_bytes_to_use_direct_io: '1', use_uncompressed_cache: 0 },
      });
      await rs.json();
      const s = (performance.now() - t0) / 1000;
      const read = readCgroupCounters(cg).readBytes - before.readBytes;
      const rate = read / s / MiB;
      t.diagnostic(`24.8 cold scan: ${read} bytes in the cell's cgroup, ${s.toFixed(2)} s, ${rate.toFixed(1)} MiB/s`);
      assert.ok(read >= 28 * MiB, `the engine's read (≈ 30 MiB) is counted in the cell's cgroup: ${read} bytes`);
      assert.ok(
        rate <= 20 * 1.1 + 4 / s,
        `read at ${rate.toFixed(1)} MiB/s under a 20 MiB/s limit (+ one throttle slice)`,
      );
    } finally {
      await c.close();
      await teardownEmbedded(h);
    }
    assert.equal(fs.existsSync(path.join(ROOT, 'blkio', 'chbench', r.runId, r.cellKey)), false, 'cgroup removed');
  });
});
