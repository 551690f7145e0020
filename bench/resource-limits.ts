/**
 * Do `target.resources`' CPU, IOPS and memory limits hold? Each case provisions a real embedded cell
 * (the npm chdb engine, ClickHouse 26.7) with the limit, through `provisionEmbedded` (the target's own
 * path: the server joins its cgroup before it execs), runs one statement and reads what the kernel
 * counted for the cell's cgroup (cgroup v1 here; root needed):
 *
 * - **cpu**: `SELECT sum(cityHash64(number)) FROM numbers_mt(n)` unthrottled, under `cpus: 1` and
 *   `cpus: 0.5`. Cores used = `cpuacct.usage` difference (ns) / client wall time (ns); held when at
 *   most the limit × 1.05 (one CFS period of 100 ms of slack over a multi-second window).
 * - **iops**: a cold (direct I/O requested: `min_bytes_to_use_direct_io = 1`, `pread`) full scan of 64 MiB
 *   of uncompressed UInt64 columns under `readIops: 100`, after `sync`. Read operations =
 *   `blkio.throttle.io_serviced` Read difference; rate = operations / client wall s; bytes from
 *   `blkio.throttle.io_service_bytes`. Held when the rate is at most 100 × 1.1.
 * - **memory**: a GROUP BY with 20 M keys (its count()) (several GiB of hash table unlimited) under `memory: 512Mi`,
 *   with ClickHouse's own per-query limit off (`max_memory_usage = 0`). Records what happened (the
 *   server's exception, or the server killed by the kernel's OOM killer: `memory.oom_control`
 *   oom_kill / the process gone) and the group's peak, `memory.max_usage_in_bytes`. Held when the peak
 *   is at most the limit.
 *
 * Writes bench/results/resource-limits.json. Run: `npm run bench:resource-limits`. Figures depend on
 * the machine and its load (`load_average_1m` is recorded); a limit is an upper bound, so other load
 * on the host can only lower the throttled figures.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';
import { provisionEmbedded, teardownEmbedded } from '../src/targets/embedded';
import { readCellCgroup, readCgroupCounters, type CellCgroup } from '../src/process/cgroup';
import type { ResourcesSpec } from '../src/schema/resources';
import type { TargetHandle } from '../src/schema/target';

const MiB = 1024 * 1024;
const ROOT = process.env.CHBENCH_CGROUP_ROOT ?? '/sys/fs/cgroup';
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-bench-limits-'));
const runId = `bench-limits-${randomUUID().slice(0, 8)}`;

/** A cell provisioned with `resources`, its client and cgroup; `close()` tears it down. */
async function cell(key: string, resources?: ResourcesSpec) {
  const handle: TargetHandle = await provisionEmbedded(
    { runId, cellKey: key, version: '26.7', workDir },
    'npm',
    resources,
  );
  const client: ClickHouseClient = createClient({
    url: handle.url,
    log: { level: ClickHouseLogLevel.OFF },
    request_timeout: 600_000,
  });
  const cg: CellCgroup | undefined = handle.dataDir ? readCellCgroup(handle.dataDir) : undefined;
  return {
    handle,
    client,
    cg,
    async close() {
      await client.close().catch(() => undefined);
      await teardownEmbedded(handle).catch(() => undefined);
    },
  };
}

/** Read operations and bytes on the cell's device, from `blkio.throttle.io_serviced` / `io_service_bytes` (v1). */
function blkioReads(cg: CellCgroup): { ops: number; bytes: number } {
  const dev = `${cg.device!.major}:${cg.device!.minor}`;
  const sum = (file: string): number => {
    const text = fs.readFileSync(path.join(cg.stats.io!, file), 'utf8');
    return text
      .split('\n')
      .map((l) => l.trim().split(/\s+/))
      .filter(([d, op]) => d === dev && op === 'Read')
      .reduce((a, [, , n]) => a + Number(n), 0);
  };
  return { ops: sum('blkio.throttle.io_serviced'), bytes: sum('blkio.throttle.io_service_bytes') };
}

const CPU_SQL = "SELECT count() FROM numbers_mt(300000000) WHERE sipHash64(number, 'x') % 7 = 3";

async function cpuCase(cpus: number | undefined) {
  const c = await cell(`cpu-${cpus ?? 'none'}`.replace('.', '_'), cpus === undefined ? undefined : { cpus });
  try {
    // Unthrottled cells have no cgroup: the server's own CPU time comes from /proc/<pid>/stat then.
    const cpuNs = (): number => {
      if (c.cg) return readCgroupCounters(c.cg).cpuNs;
      const f = fs.readFileSync(`/proc/${c.handle.pid}/stat`, 'utf8').split(') ')[1].split(' ');
      return (Number(f[11]) + Number(f[12])) * (1e9 / 100); // utime + stime, clock ticks of 10 ms
    };
    const n0 = cpuNs();
    const t0 = performance.now();
    await (await c.client.query({ query: CPU_SQL, format: 'JSONEachRow' })).json();
    const wallMs = performance.now() - t0;
    const cores = (cpuNs() - n0) / (wallMs * 1e6);
    return {
      limit_cpus: cpus ?? null,
      wall_ms: Math.round(wallMs),
      cores_used: Number(cores.toFixed(3)),
      cores_source: c.cg
        ? 'cpuacct.usage difference / client wall time'
        : '/proc/<pid>/stat utime+stime / client wall time',
      held: cpus === undefined ? null : cores <= cpus * 1.05,
    };
  } finally {
    await c.close();
  }
}

async function iopsCase(readIops: number) {
  const c = await cell('iops', { volume: { profile: 'explicit', readIops } });
  try {
    await c.client.command({
      query:
        'CREATE TABLE t (x UInt64 CODEC(NONE), y UInt64 CODEC(NONE), z UInt64 CODEC(NONE), w UInt64 CODEC(NONE)) ENGINE = MergeTree ORDER BY tuple()',
    });
    await c.client.command({
      query: 'INSERT INTO t SELECT rand64(), rand64(1), rand64(2), rand64(3) FROM numbers(2000000)',
    });
    await c.client.command({ query: 'OPTIMIZE TABLE t FINAL' });
    spawnSync('sync');
    const r0 = blkioReads(c.cg!);
    const t0 = performance.now();
    await (
      await c.client.query({
        query: 'SELECT sum(x), sum(y), sum(z), sum(w) FROM t',
        format: 'JSONEachRow',
        clickhouse_settings: {
          min_bytes_to_use_direct_io: '1',
          local_filesystem_read_method: 'pread',
          use_uncompressed_cache: 0,
        },
      })
    ).json();
    const s = (performance.now() - t0) / 1000;
    const r1 = blkioReads(c.cg!);
    const ops = r1.ops - r0.ops;
    return {
      limit_read_iops: readIops,
      wall_ms: Math.round(s * 1000),
      read_ops: ops,
      read_bytes: r1.bytes - r0.bytes,
      read_iops: Number((ops / s).toFixed(1)),
      read_mib_per_s: Number(((r1.bytes - r0.bytes) / s / MiB).toFixed(1)),
      mean_read_kib: ops ? Math.round((r1.bytes - r0.bytes) / ops / 1024) : null,
      source: 'blkio.throttle.io_serviced / io_service_bytes Read differences over client wall time',
      held: ops / s <= readIops * 1.1,
    };
  } finally {
    await c.close();
  }
}

async function memoryCase(limit: string, limitBytes: number) {
  const c = await cell('memory', { memory: limit });
  const memDir = path.join(ROOT, 'memory', c.cg!.name);
  const readMem = (f: string): string => fs.readFileSync(path.join(memDir, f), 'utf8');
  try {
    const t0 = performance.now();
    let outcome: string;
    try {
      await (
        await c.client.query({
          query: 'SELECT count() FROM (SELECT number % 20000000 AS k, count() FROM numbers_mt(40000000) GROUP BY k)',
          format: 'JSONEachRow',
          clickhouse_settings: { max_memory_usage: '0', max_bytes_before_external_group_by: '0' },
        })
      ).json();
      outcome = 'completed';
    } catch (e) {
      outcome = `failed: ${String((e as Error).message)
        .split('\n')[0]
        .slice(0, 200)}`;
    }
    const ms = performance.now() - t0;
    const peak = Number(readMem('memory.max_usage_in_bytes'));
    const oomKills = Number(/oom_kill (\d+)/.exec(readMem('memory.oom_control'))?.[1] ?? 0);
    // The server's state after it: 'R'/'S' running, 'Z' killed but not yet reaped, absent when gone.
    let state = 'gone';
    try {
      state = fs.readFileSync(`/proc/${c.handle.pid}/stat`, 'utf8').split(') ')[1][0];
    } catch {
      /* gone */
    }
    return {
      limit: limit,
      limit_bytes: limitBytes,
      wall_ms: Math.round(ms),
      outcome,
      peak_bytes: peak,
      peak_source: 'memory.max_usage_in_bytes of the cell cgroup',
      oom_kills: oomKills,
      server_state_after: state,
      server_state_source: '/proc/<pid>/stat state of the cell server',
      held: peak <= limitBytes,
    };
  } finally {
    await c.close();
  }
}

async function main(): Promise<void> {
  const cpu = [];
  for (const cpus of [undefined, 1, 0.5]) cpu.push(await cpuCase(cpus));
  const iops = await iopsCase(100);
  const memory = await memoryCase('512Mi', 512 * MiB);
  const out = {
    measured_at: new Date().toISOString(),
    host: {
      cores: os.availableParallelism(),
      load_average_1m: os.loadavg()[0],
      cgroup: 'v1 (cpu, cpuacct, blkio, memory)',
    },
    engine: 'embedded target, npm chdb (ClickHouse 26.7)',
    cpu,
    iops,
    memory,
  };
  const file = path.join(__dirname, '..', '..', 'bench', 'results', 'resource-limits.json');
  fs.writeFileSync(file, JSON.stringify(out, null, 2) + '\n');
  console.log(JSON.stringify(out, null, 2));
  console.log(`wrote ${path.relative(process.cwd(), file)}`);
  fs.rmSync(workDir, { recursive: true, force: true });
}

main().catch((e) => {
  console.error(e);
  fs.rmSync(workDir, { recursive: true, force: true });
  process.exit(1);
});
