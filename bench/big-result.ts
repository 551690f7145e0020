/**
 * Big results through `runMeasured` (the function the query step uses), on the embedded target:
 * result sizes of about 10 MB, 100 MB and 600 MB (`SELECT number, <1,000 chars> FROM numbers(n)`).
 * For each: client wall ms until the last byte, MB/s (result bytes / wall), result bytes and rows,
 * and the worker's peak RSS growth (this process, sampled every 50 ms, over its RSS just before).
 *
 * Writes bench/results/big-result.json. Run: `npm run bench:big-result`.
 * Figures depend on the machine and its load (this is a shared 2-core box): `load_average_1m`
 * is recorded next to them.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { connect, runMeasured } from '../src/clickhouse/client';
import { provisionEmbedded, teardownEmbedded } from '../src/targets/embedded';

const X1000 = 'x'.repeat(1000);
const SIZES = [
  { label: '10 MB', rows: 10_000 },
  { label: '100 MB', rows: 100_000 },
  { label: '600 MB', rows: 600_000 },
];

async function main(): Promise<void> {
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
