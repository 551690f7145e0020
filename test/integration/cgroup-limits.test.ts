/**
 * Cell cgroups against the real kernel (as root; this machine and CI have cgroup v1 blkio/cpu/cpuacct/memory
 * writable by root): limits are written, a direct-I/O read in the group is throttled to the limit and the
 * group's counters match the bytes read; teardown and gc leave no chbench cgroup; a root without the
 * controllers is refused before anything is made. ~3 s.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import {
  addToCgroup,
  blockDeviceOf,
  CgroupUnavailableError,
  cgroupPids,
  createCellCgroup,
  gcCgroups,
  planCgroup,
  readCgroupCounters,
  removeCellCgroup,
} from '../../src/process/cgroup';
import { resourceLimits } from '../../src/schema/resources';
import { labelLocalWindow } from '../../src/measure/local-bottleneck';
import { descendants, hostDiskCapacity, readProcCounters } from '../../src/process/server-counters';
import { CGROUP_JOIN_EXIT, spawnDetached } from '../../src/process/spawn';

const MiB = 1024 * 1024;
const ROOT = '/sys/fs/cgroup';

function chbenchDirs(): string[] {
  const out: string[] = [];
  for (const m of fs.readdirSync(ROOT))
    if (fs.existsSync(path.join(ROOT, m, 'chbench'))) out.push(path.join(ROOT, m, 'chbench'));
  return out;
}

describe('cell cgroups (real kernel, root)', () => {
  it('refuses before making anything when the cgroup root has no controllers', () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'cg-empty-'));
    try {
      const limits = resourceLimits({ volume: { profile: 'gp3', iops: 3000, throughputMiBps: 125 }, cpus: 1 });
      assert.throws(
        () => planCgroup(limits, empty),
        (e: unknown) => e instanceof CgroupUnavailableError && /blkio/.test(e.message) && /"cpu"/.test(e.message),
      );
      assert.deepEqual(fs.readdirSync(empty), []);
      // Without limits nothing is required (counters are optional).
      assert.equal(planCgroup({}, empty).version, 1);
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });

  it('throttles a direct-I/O read to the limit, counts it, and is removed without a trace', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cg-data-'));
    const file = path.join(dir, 'blob');
    const mib = 40;
    const w = spawnSync('dd', ['if=/dev/zero', `of=${file}`, 'bs=1M', `count=${mib}`, 'oflag=direct'], {
      stdio: 'ignore',
    });
    assert.equal(w.status, 0);
    const device = blockDeviceOf(dir);
    assert.ok(fs.existsSync(`/sys/dev/block/${device.major}:${device.minor}/queue`), `${device.name} is a whole disk`);
    const limits = resourceLimits({ volume: { profile: 'explicit', readMiBps: 20 }, cpus: 1.5, memory: '512Mi' });
    const run = `test-${randomUUID().slice(0, 8)}`;
    const cg = createCellCgroup(planCgroup(limits), run, 'c0', limits, device);
    try {
      assert.equal(
        fs.readFileSync(path.join(ROOT, 'blkio', cg.name, 'blkio.throttle.read_bps_device'), 'utf8').trim(),
        `${device.major}:${device.minor} ${20 * MiB}`,
      );
      assert.equal(fs.readFileSync(path.join(ROOT, 'cpu', cg.name, 'cpu.cfs_quota_us'), 'utf8').trim(), '150000');
      assert.equal(
        fs.readFileSync(path.join(ROOT, 'memory', cg.name, 'memory.limit_in_bytes'), 'utf8').trim(),
        String(512 * MiB),
      );
      // The shell waits for a line on stdin, so it is in the group before it forks dd (a child inherits it).
      const sh = spawn('sh', ['-c', `read go; exec dd if=${file} of=/dev/null bs=1M iflag=direct`], {
        stdio: ['pipe', 'ignore', 'ignore'],
      });
      await new Promise((r) => sh.once('spawn', r));
      addToCgroup(cg, sh.pid!);
      assert.ok(cgroupPids(cg).includes(sh.pid!));
      const before = readCgroupCounters(cg);
      const t0 = performance.now();
      sh.stdin!.end('go\n');
      const code = await new Promise((r) => sh.once('exit', r));
      const seconds = (performance.now() - t0) / 1000;
      assert.equal(code, 0);
      const after = readCgroupCounters(cg);
      const read = after.readBytes - before.readBytes;
      assert.ok(read >= mib * MiB, `the group's blkio counter saw the read: ${read} bytes`);
      const rate = read / seconds;
      // 40 MiB at 20 MiB/s: ≥ ~1.5 s (the throttle allows an initial slice), never above the limit by more than 10 %.
      assert.ok(seconds >= 1.5, `throttled: ${seconds.toFixed(2)} s`);
      assert.ok(rate <= 20 * MiB * 1.1, `achieved ${(rate / MiB).toFixed(1)} MiB/s under 20 MiB/s`);
      assert.ok(after.cpuNs > before.cpuNs, 'cpuacct.usage advanced');
      // The window's label: disk-bound, its evidence is the counters' rate against the limit.
      const ms = seconds * 1000;
      const l = labelLocalWindow(
        {
          ms,
          readBytes: read,
          writeBytes: after.writeBytes - before.writeBytes,
          cpuNs: after.cpuNs - before.cpuNs,
          source: 'cgroup v1 blkio.throttle.io_service_bytes, cpuacct.usage',
        },
        { limits, hostCores: os.availableParallelism() },
        cg.writesThrottled,
      );
      assert.equal(l.label, 'disk-bound', l.evidence);
      assert.ok(l.limitHeld, l.evidence);
      assert.ok(l.evidence.startsWith(`read ${(read / MiB / seconds).toFixed(1)} MiB/s = `), l.evidence);
      assert.match(l.evidence, /of the explicit read limit 20\.0 MiB\/s/);
    } finally {
      const removed = removeCellCgroup(cg);
      assert.ok(removed.length > 0);
      fs.rmSync(dir, { recursive: true, force: true });
    }
    for (const m of ['blkio', 'cpu', 'cpuacct', 'memory'])
      assert.equal(fs.existsSync(path.join(ROOT, m, 'chbench', run)), false, `${m} group removed`);
  });

  it('gc removes the chbench cgroups of a run, moving a left-over process out, and nothing else', async () => {
    const limits = resourceLimits({ cpus: 1 });
    const run = `test-${randomUUID().slice(0, 8)}`;
    const foreign = path.join(ROOT, 'cpu', `not-chbench-${run}`);
    fs.mkdirSync(foreign);
    const cg = createCellCgroup(planCgroup(limits), run, 'c1', limits);
    const sleeper = spawn('sleep', ['30'], { stdio: 'ignore' });
    await new Promise((r) => sleeper.once('spawn', r));
    try {
      addToCgroup(cg, sleeper.pid!);
      // A crashed worker leaves the server in its group: gc still removes it (the process survives, moved to the root group).
      const removed = gcCgroups([run]);
      assert.ok(removed.some((d) => d.endsWith(path.join(run, 'c1'))));
      for (const m of ['cpu', 'cpuacct']) assert.equal(fs.existsSync(path.join(ROOT, m, 'chbench', run)), false);
      assert.ok(fs.existsSync(foreign), 'a cgroup chbench did not make is left');
      assert.equal(sleeper.exitCode, null, 'the process itself is not killed by gc');
      assert.equal(chbenchDirs().filter((d) => fs.existsSync(path.join(d, run))).length, 0);
    } finally {
      sleeper.kill();
      fs.rmdirSync(foreign);
    }
  });

  it('reads /proc counters over a process and its children, and caches the host disk capacity', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cg-proc-'));
    try {
      const file = path.join(dir, 'blob');
      spawnSync('dd', ['if=/dev/zero', `of=${file}`, 'bs=1M', 'count=16', 'oflag=direct'], { stdio: 'ignore' });
      // sh forks a python3 child that reads the file with O_DIRECT (16 MiB from the disk) and stays alive.
      const py = `import os,mmap,time\nfd=os.open('${file}',os.O_RDONLY|os.O_DIRECT)\nb=mmap.mmap(-1,1<<20)\nwhile os.readv(fd,[b])>0: pass\nprint('done',flush=True)\ntime.sleep(10)`;
      const sh = spawn('sh', ['-c', 'python3 -c "$0"; true', py], { stdio: ['ignore', 'pipe', 'inherit'] });
      await new Promise<void>((r) => sh.stdout!.once('data', () => r()));
      const c = readProcCounters(sh.pid!);
      const pids = descendants(sh.pid!);
      for (const p of pids.reverse()) process.kill(p);
      assert.ok(pids.length >= 2, 'sh and its python3 child');
      assert.ok(c.readBytes >= 16 * MiB, `read_bytes summed over the child: ${c.readBytes}`);
      const device = blockDeviceOf(dir);
      const state = path.join(dir, 'state');
      const m1 = hostDiskCapacity(state, device, 32);
      assert.ok(m1.readBytesPerSec > 20 * MiB, `host disk reads ${(m1.readBytesPerSec / MiB).toFixed(0)} MiB/s direct`);
      const m2 = hostDiskCapacity(state, device, 32);
      assert.deepEqual(m2, m1, 'cached: measured once per host and device');
      assert.ok(fs.existsSync(path.join(state, 'host-disk-capacity.json')));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a spawned server is in its cgroup before it execs: its first instruction already runs there', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cg-spawn-'));
    const run = `spawn-${randomUUID().slice(0, 8)}`;
    const cg = createCellCgroup(planCgroup({}), run, 'c', {});
    try {
      // The exec'd program prints its own cgroups at once: the group is already there, not added after.
      const { pid } = await spawnDetached({
        command: 'cat',
        args: ['/proc/self/cgroup', dir],
        dataDir: dir,
        cgroupProcs: cg.dirs.map((d) => path.join(d, 'cgroup.procs')),
      });
      const log = path.join(dir, 'server.log');
      for (let i = 0; i < 100 && !/exited/.test(fs.readFileSync(log, 'utf8')); i++)
        await new Promise((r) => setTimeout(r, 50));
      const out = fs.readFileSync(log, 'utf8');
      assert.match(out, new RegExp(`^\\d+:blkio:/chbench/${run}/c$`, 'm'), out);
      assert.match(out, new RegExp(`^\\d+:[^:]*cpuacct[^:]*:/chbench/${run}/c$`, 'm'), out);
      // `cat` also names the directory it cannot print (the argument the adopt checks look for): exit code 1.
      assert.match(out, new RegExp(`pid ${pid} exited \\(code 1,`), "the wrapper's pid is the program's (exec)");
      // A group the kernel refuses (a file that is not a cgroup.procs) stops the start with a clear line.
      await spawnDetached({ command: 'true', args: [dir], dataDir: dir, cgroupProcs: ['/proc/version'] });
      for (let i = 0; i < 100 && !/exited \(code 97/.test(fs.readFileSync(log, 'utf8')); i++)
        await new Promise((r) => setTimeout(r, 50));
      const refused = fs.readFileSync(log, 'utf8');
      assert.match(refused, /chbench: cannot join cgroup \(\/proc\/version\)/);
      assert.match(refused, new RegExp(`exited \\(code ${CGROUP_JOIN_EXIT}`));
    } finally {
      removeCellCgroup(cg);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
