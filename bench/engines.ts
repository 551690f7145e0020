/**
 * `npm run bench:engines`: the cost of hosting a PyPI chdb build in Python (`--engine python`)
 * against the in-process npm engine, through the engine server's HTTP interface on loopback, written
 * to `bench/results/engines.json`.
 *
 * 1. `SELECT 1` round trip (HTTP keep-alive, one request at a time), `BENCH_ITERATIONS` (200) per
 *    engine, interleaved engine by engine; median and p90, ms. Goal: python within 1 ms of npm.
 * 2. Throughput of a 200 MB result (`repeat('x', 999)` × 200,000 rows, TabSeparated), streamed
 *    where the build streams (npm, 26.9; `max_block_size = 8192`), buffered on 24.8; `BENCH_REPS`
 *    (5) runs, median MB/s (10^6 bytes / s, wall time of the whole response). Goal: ≥ 0.8× npm.
 *
 * 3. The same result buffered (`wait_end_of_query=1`, the path measured runs take: the engine writes
 *    it to a file with INTO OUTFILE, the server sends the file), median MB/s.
 * 4. Install time per build: a fresh install into a temporary engine cache (venv + pip + version()
 *    read back; pip's own download cache is warm, so this is not download time), ms.
 * 5. Engine start to the first `/ping` answered: spawn of the engine server to its first 200, ms.
 *
 * Versions: BENCH_VERSIONS (default 24.8,25.8,26.3,26.9).
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { median, quantile } from 'simple-statistics';
import { findPypiBuild, installEngine } from '../src/engine/install';
import { REPO_ROOT } from '../src/config';
import { startEngineServer, type EngineServer } from '../test/helpers/engine-server';

const ITER = Number(process.env.BENCH_ITERATIONS ?? 200);
const REPS = Number(process.env.BENCH_REPS ?? 5);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

/** One GET; resolves with the body's byte count and the wall time, ms. */
function get(url: string): Promise<{ ms: number; bytes: number; status: number }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (res) => {
        let bytes = 0;
        res.on('data', (b: Buffer) => (bytes += b.length));
        res.on('end', () => resolve({ ms: performance.now() - t0, bytes, status: res.statusCode ?? 0 }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

const q = (s: EngineServer, sql: string) => `${s.url}/?query=${encodeURIComponent(sql)}`;

/** Spawn an engine server and time it to its first `/ping` answered 200, ms. */
async function startTimed(python?: string): Promise<{ server: EngineServer; startMs: number }> {
  const t0 = performance.now();
  const server = await startEngineServer(python ? { python } : {});
  for (;;) {
    const r = await get(`${server.url}/ping`).catch(() => undefined);
    if (r?.status === 200) return { server, startMs: performance.now() - t0 };
    await new Promise((x) => setTimeout(x, 5));
  }
}

async function main(): Promise<void> {
  const labels = (process.env.BENCH_VERSIONS ?? '24.8,25.8,26.3,26.9').split(',');
  const engines: { name: string; python?: string; installMs: number | null }[] = [
    { name: 'npm chdb 3.4.0 (26.7)', installMs: null },
  ];
  const fresh = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-bench-engines-'));
  const cache = process.env.CHBENCH_ENGINES_DIR;
  for (const label of labels) {
    const b = findPypiBuild(label)!;
    process.env.CHBENCH_ENGINES_DIR = fresh;
    const t0 = performance.now();
    await installEngine(b);
    const installMs = performance.now() - t0;
    if (cache === undefined) delete process.env.CHBENCH_ENGINES_DIR;
    else process.env.CHBENCH_ENGINES_DIR = cache;
    const e = await installEngine(b);
    engines.push({ name: `pypi ${b.package} ${b.version} (${label})`, python: e.python, installMs });
  }
  fs.rmSync(fresh, { recursive: true, force: true });
  const servers: EngineServer[] = [];
  const startMs: number[] = [];
  try {
    for (const e of engines) {
      const t = await startTimed(e.python);
      servers.push(t.server);
      startMs.push(t.startMs);
    }
    const rt: number[][] = servers.map(() => []);
    for (const s of servers) for (let i = 0; i < 20; i++) await get(q(s, 'SELECT 1')); // warm up
    for (let i = 0; i < ITER; i++)
      for (const [k, s] of servers.entries()) {
        const r = await get(q(s, 'SELECT 1'));
        if (r.status !== 200) throw new Error(`${engines[k].name}: SELECT 1 answered ${r.status}`);
        rt[k].push(r.ms);
      }
    const big = "SELECT repeat('x', 999) FROM numbers(200000) SETTINGS max_block_size = 8192";
    const tp: number[][] = servers.map(() => []);
    for (let i = 0; i < REPS; i++)
      for (const [k, s] of servers.entries()) {
        const r = await get(q(s, big));
        if (r.status !== 200 || r.bytes !== 200_000_000)
          throw new Error(`${engines[k].name}: 200 MB result answered ${r.status}, ${r.bytes} bytes`);
        tp[k].push(r.bytes / 1e6 / (r.ms / 1000));
      }
    const tb: number[][] = servers.map(() => []);
    for (let i = 0; i < REPS; i++)
      for (const [k, s] of servers.entries()) {
        const r = await get(`${q(s, big)}&wait_end_of_query=1`);
        if (r.status !== 200 || r.bytes !== 200_000_000)
          throw new Error(`${engines[k].name}: 200 MB buffered result answered ${r.status}, ${r.bytes} bytes`);
        tb[k].push(r.bytes / 1e6 / (r.ms / 1000));
      }
    const rows = engines.map((e, k) => ({
      engine: e.name,
      install_ms: e.installMs === null ? null : Math.round(e.installMs),
      start_to_first_ping_ms: Math.round(startMs[k]),
      select1_median_ms: +median(rt[k]).toFixed(3),
      select1_p90_ms: +quantile(rt[k], 0.9).toFixed(3),
      result_200mb_mb_per_s: +median(tp[k]).toFixed(1),
      result_200mb_buffered_mb_per_s: +median(tb[k]).toFixed(1),
    }));
    const npm = rows[0];
    const out = {
      measuredAt: new Date().toISOString(),
      note: "install_ms: a fresh install with pip's download cache warm (not download time); npm: bundled, no install",
      iterations: ITER,
      reps: REPS,
      engines: rows.map((r) => ({
        ...r,
        select1_vs_npm_ms: +(r.select1_median_ms - npm.select1_median_ms).toFixed(3),
        throughput_vs_npm: +(r.result_200mb_mb_per_s / npm.result_200mb_mb_per_s).toFixed(2),
        buffered_throughput_vs_npm: +(r.result_200mb_buffered_mb_per_s / npm.result_200mb_buffered_mb_per_s).toFixed(2),
      })),
    };
    const file = path.join(REPO_ROOT, 'bench', 'results', 'engines.json');
    fs.writeFileSync(file, JSON.stringify(out, null, 2) + '\n');
    console.log(JSON.stringify(out, null, 2));
  } finally {
    agent.destroy();
    for (const s of servers) await s.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
