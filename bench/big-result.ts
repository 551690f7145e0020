/**
 * Big results through `runMeasured` (the function the query step uses), on the embedded target:
 * result sizes of about 10 MB, 100 MB and 600 MB (`SELECT number, <1,000 chars> FROM numbers(n)`).
 * For each: client wall ms until the last byte, MB/s (result bytes / wall), result bytes and rows,
 * and the worker's peak RSS growth (this process, sampled every 50 ms, over its RSS just before).
 *
 * Writes bench/results/big-result.json. Run: `npm run bench:big-result`.
 *
 * `node dist/bench/big-result.js server` measures the embedded SERVER instead, for a 1 GB result
 * (1,000,000 rows × 1,000 chars, JSONCompact) through runMeasured, buffered (`wait_end_of_query=1`,
 * the measured path on this target) and streamed: the server process's RSS before and its peak
 * (`/proc/<pid>/status` VmRSS sampled every 50 ms, and VmHWM after resetting it through
 * `/proc/<pid>/clear_refs`), client wall ms, and `GET /chbench/running` response times (polled
 * every 200 ms: max over the whole statement and over the body, the body starting at the first
 * runMeasured onProgress with bytes, ±1 s), plus in how many body polls the statement was listed.
 * Writes bench/results/big-result-server.json.
 * Figures depend on the machine and its load (this is a shared 2-core box): `load_average_1m`
 * is recorded next to them.
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { authHeaders, connect, runMeasured } from '../src/clickhouse/client';
import { provisionEmbedded, teardownEmbedded } from '../src/targets/embedded';

const X1000 = 'x'.repeat(1000);
const SIZES = [
  { label: '10 MB', rows: 10_000 },
  { label: '100 MB', rows: 100_000 },
  { label: '600 MB', rows: 600_000 },
];

/** RSS and its high-water mark of a process, bytes (`/proc/<pid>/status` VmRSS, VmHWM). */
function rssOf(pid: number): { rss: number; hwm: number } {
  const s = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

/** GET with its response time, ms (client wall); an error or a 30 s timeout is reported, not thrown. */
function timedGet(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ ms: number; body?: string; error?: string }> {
  const t = performance.now();
  return new Promise((resolve) => {
    const r = http.get(url, { timeout: 30_000, headers }, (res) => {
      let b = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (b += c));
      res.on('end', () => resolve({ ms: performance.now() - t, body: b }));
    });
    r.on('error', (e) => resolve({ ms: performance.now() - t, error: e.message }));
    r.on('timeout', () => r.destroy(new Error('timeout after 30 s')));
  });
}

async function serverBench(): Promise<void> {
  const rows = Number(process.env.BIG_RESULT_ROWS ?? 1_000_000);
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-bench-big-server-'));
  const handle = await provisionEmbedded({
    runId: `bench-bigsrv-${randomUUID().slice(0, 8)}`,
    cellKey: 'bench',
    version: '26.7',
    workDir,
  });
  const pid = handle.pid!;
  const client = connect(handle);
  const results: Record<string, unknown>[] = [];
  try {
    for (const waitEnd of [true, false]) {
      await runMeasured(client, 'SELECT 1', `bench-bigsrv-warm-${randomUUID()}`, {}, undefined, {
        waitEndOfQuery: waitEnd,
      });
      let hwmReset = true;
      try {
        fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
      } catch {
        hwmReset = false;
      }
      const base = rssOf(pid).rss;
      let peak = base;
      const timer = setInterval(() => (peak = Math.max(peak, rssOf(pid).rss)), 50);
      const polls: { at: number; ms: number; listed: boolean | null; error?: string }[] = [];
      let stop = false;
      let bodyAt: number | undefined;
      const queryId = `bench-bigsrv-${rows}-${randomUUID()}`;
      const t0 = performance.now();
      const poller = (async () => {
        while (!stop) {
          const g = await timedGet(`${handle.url}/chbench/running`, authHeaders(handle));
          const listed = g.body
            ? (JSON.parse(g.body) as { query_id: string }[]).some((e) => e.query_id === queryId)
            : null;
          polls.push({ at: performance.now() - t0, ms: g.ms, listed, ...(g.error ? { error: g.error } : {}) });
          await new Promise((r) => setTimeout(r, 200));
        }
      })();
      const r = await runMeasured(
        client,
        `SELECT number, '${X1000}' AS s FROM numbers(${rows})`,
        queryId,
        { output_format_json_quote_64bit_integers: 1 },
        undefined,
        {
          waitEndOfQuery: waitEnd,
          onProgress: (p) => {
            if (bodyAt === undefined && p.result_bytes > 0) bodyAt = performance.now() - t0;
          },
        },
      );
      stop = true;
      await poller;
      clearInterval(timer);
      const now = rssOf(pid);
      peak = Math.max(peak, now.rss, hwmReset ? now.hwm : 0);
      const body = polls.filter((p) => bodyAt !== undefined && p.at >= bodyAt);
      const max = (xs: number[]) => (xs.length ? Number(Math.max(...xs).toFixed(1)) : null);
      const row = {
        path: waitEnd ? 'buffered (wait_end_of_query=1)' : 'streamed',
        result_rows: r.result_rows,
        result_bytes: r.result_bytes,
        wall_ms: Math.round(r.wall_ms),
        engine_elapsed_ms: r.summary?.elapsed_ns !== undefined ? Math.round(Number(r.summary.elapsed_ns) / 1e6) : null,
        server_rss_before_mb: Number((base / 1e6).toFixed(1)),
        server_rss_peak_mb: Number((peak / 1e6).toFixed(1)),
        server_rss_growth_mb: Number(((peak - base) / 1e6).toFixed(1)),
        running_polls: polls.length,
        running_max_ms: max(polls.map((p) => p.ms)),
        body_started_ms: bodyAt === undefined ? null : Math.round(bodyAt),
        running_max_ms_during_body: max(body.map((p) => p.ms)),
        body_polls: body.length,
        body_polls_listing_the_statement: body.filter((p) => p.listed).length,
        running_errors: polls.filter((p) => p.error).length,
        load_average_1m: Number(os.loadavg()[0].toFixed(2)),
      };
      console.log(JSON.stringify(row));
      results.push(row);
    }
  } finally {
    await client.close();
    await teardownEmbedded(handle).catch(() => undefined);
    fs.rmSync(workDir, { recursive: true, force: true });
  }
  const out = path.join(__dirname, '..', '..', 'bench', 'results', 'big-result-server.json');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(
    out,
    `${JSON.stringify({ target: 'embedded (chdb 26.7)', through: 'runMeasured (JSONCompact)', measured: 'embedded server process (/proc/<pid>/status), /chbench/running client wall ms', rows, cpus: os.cpus().length, measured_at: new Date().toISOString(), results }, null, 2)}\n`,
  );
  console.log(`wrote ${out}`);
}

async function main(): Promise<void> {
  if (process.argv[2] === 'server') return serverBench();
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-bench-big-'));
  const handle = await provisionEmbedded({
    runId: `bench-big-${randomUUID().slice(0, 8)}`,
    cellKey: 'bench',
    version: '26.7',
    workDir,
  });
  const client = connect(handle);
  const results: Record<string, unknown>[] = [];
  try {
    for (const s of SIZES) {
      const base = process.memoryUsage.rss();
      let peak = base;
      const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 50);
      const r = await runMeasured(
        client,
        `SELECT number, '${X1000}' AS s FROM numbers(${s.rows})`,
        `bench-big-${s.rows}-${randomUUID()}`,
        { output_format_json_quote_64bit_integers: 1 },
      );
      clearInterval(timer);
      peak = Math.max(peak, process.memoryUsage.rss());
      const row = {
        size: s.label,
        result_rows: r.result_rows,
        result_bytes: r.result_bytes,
        wall_ms: Math.round(r.wall_ms),
        mb_per_s: Number((r.result_bytes / 1e6 / (r.wall_ms / 1000)).toFixed(1)),
        worker_peak_rss_growth_mb: Number(((peak - base) / 1e6).toFixed(1)),
        load_average_1m: Number(os.loadavg()[0].toFixed(2)),
      };
      console.log(JSON.stringify(row));
      results.push(row);
    }
  } finally {
    await client.close();
    await teardownEmbedded(handle).catch(() => undefined);
    fs.rmSync(workDir, { recursive: true, force: true });
  }
  const out = path.join(__dirname, '..', '..', 'bench', 'results', 'big-result.json');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(
    out,
    `${JSON.stringify({ target: 'embedded (chdb 26.7)', through: 'runMeasured (streamed, JSONCompact)', cpus: os.cpus().length, measured_at: new Date().toISOString(), results }, null, 2)}\n`,
  );
  console.log(`wrote ${out}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
