/**
 * Buffered results of the embedded server (`wait_end_of_query=1`) go through a file, never whole
 * into the server's memory, and the statement stays listed in `/chbench/running` (`sending`) while
 * its body goes out. Real chdb engine in its own process, real HTTP on 127.0.0.1. No mocks.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { randomUUID } from 'node:crypto';
import { provisionEmbedded, teardownEmbedded } from '../../src/targets/embedded';
import { httpGet } from '../../src/targets/process';
import type { TargetHandle } from '../../src/schema/target';
import { pollUntil } from '../../src/lib/poll';
import { MockActivityEnvironment } from '@temporalio/testing';
import { authHeaders, connect } from '../../src/clickhouse/client';
import { runWatched, type HeartbeatDetails } from '../../src/clickhouse/statement-watch';
import type { EmbeddedRunning } from '../../src/targets/embedded/running';
import { analyzeSql, withOutfile } from '../../src/engine/sql-shape';

/** The cell's `/chbench/running`, with its credential (`handle`: the provisioned cell). */
let auth: Record<string, string> = {};
async function running(url: string): Promise<EmbeddedRunning[]> {
  return JSON.parse((await httpGet(`${url}/chbench/running`, 10_000, auth)).body) as EmbeddedRunning[];
}

/** VmRSS of a process, bytes. */
function rss(pid: number): number {
  const s = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(s)?.[1]) * 1024;
}

/** POST `sql` with URL parameters; resolves with the response (body not read). */
function post(url: string, sql: string, params: Record<string, string>, headers: Record<string, string> = {}) {
  const u = new URL(url);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return new Promise<http.IncomingMessage>((resolve, reject) => {
    // The cell's credential (its server requires it), unless the caller gives its own headers.
    const r = http.request(u, { method: 'POST', headers: { ...auth, ...headers } }, resolve);
    r.on('error', reject);
    r.end(sql);
  });
}

async function readAll(res: http.IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of res) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

const resultFiles = (h: TargetHandle) => fs.readdirSync(path.join(h.dataDir!, 'results'));

describe('embedded server: buffered results through a file', { timeout: 300_000 }, () => {
  let workDir: string;
  let handle: TargetHandle;

  before(async () => {
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-embedded-file-test-'));
    handle = await provisionEmbedded({
      runId: `test-file-${randomUUID().slice(0, 8)}`,
      cellKey: 'cell-f',
      version: '26.7',
      workDir,
    });
    auth = authHeaders(handle);
  });

  after(async () => {
    if (handle) await teardownEmbedded(handle).catch(() => undefined);
    fs.rmSync(workDir, { recursive: true, force: true });
  });

  it('keeps the engine figures: elapsed, result rows, the JSON statistics block (SETTINGS after FORMAT, a trailing ; and comment)', async () => {
    const res = await post(
      handle.url,
      'SELECT number FROM numbers(100000) WHERE number % 2 = 0 FORMAT JSON SETTINGS max_block_size = 1000; -- end',
      { wait_end_of_query: '1' },
    );
    const body = await readAll(res);
    assert.equal(res.statusCode, 200, body.toString().slice(0, 300));
    assert.equal(res.headers['x-chbench-buffered-in'], 'file');
    assert.equal(Number(res.headers['content-length']), body.length);
    const doc = JSON.parse(body.toString()) as { rows: number; statistics: { rows_read: number } };
    assert.equal(doc.rows, 50_000);
    assert.equal(doc.statistics.rows_read, 100_000);
    const summary = JSON.parse(String(res.headers['x-clickhouse-summary'])) as Record<string, string>;
    assert.equal(summary.read_rows, '100000');
    assert.equal(summary.result_rows, '50000');
    assert.ok(Number(summary.elapsed_ns) > 0);
    assert.deepEqual(resultFiles(handle), []);

    // No FORMAT clause: the request's default_format; gzip on request.
    const z = await post(
      handle.url,
      'SELECT number FROM numbers(5) SETTINGS max_threads = 1',
      { wait_end_of_query: '1', default_format: 'CSV', enable_http_compression: '1' },
      { 'Accept-Encoding': 'gzip' },
    );
    assert.equal(z.headers['content-encoding'], 'gzip');
    assert.equal(zlib.gunzipSync(await readAll(z)).toString(), '0\n1\n2\n3\n4\n');

    // A statement with its own INTO OUTFILE is refused (it would write a file anywhere); nothing is written.
    const own = path.join(handle.dataDir!, 'own.tsv');
    const o = await post(handle.url, `SELECT 1 INTO OUTFILE '${own}' FORMAT TSV`, { wait_end_of_query: '1' });
    assert.equal(o.statusCode, 403);
    assert.match((await readAll(o)).toString(), /Code: 291\..*INTO OUTFILE is not allowed/);
    assert.equal(fs.existsSync(own), false);

    // A statement failing half-way leaves no file.
    const bad = await post(
      handle.url,
      'SELECT throwIf(number = 70000) FROM numbers(100000) SETTINGS max_block_size = 1000',
      { wait_end_of_query: '1' },
    );
    assert.equal(bad.statusCode, 500);
    assert.match((await readAll(bad)).toString(), /Code: 395/);
    assert.deepEqual(resultFiles(handle), []);
  });

  it('a ~600 MB result: server RSS grows < 500 MB, listed as sending with sent_bytes rising, Content-Length bytes, file removed', async () => {
    const pid = handle.pid!;
    const queryId = `big-${randomUUID()}`;
    const base = rss(pid);
    let peak = base;
    let length!: number;
    const timer = setInterval(() => (peak = Math.max(peak, rss(pid))), 50);
    try {
      const res = await post(
        handle.url,
        // Small blocks keep the engine's own working memory small (with the default 65,409-row
        // blocks of 1 kB rows chdb alone takes ~600–800 MB on 2 cores, with or without a file).
        `SELECT number, repeat('x', 1000) AS s FROM numbers(600000) FORMAT JSONCompact SETTINGS max_block_size = 8192`,
        { wait_end_of_query: '1', query_id: queryId },
      );
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['x-chbench-buffered-in'], 'file');
      length = Number(res.headers['content-length']);
      assert.ok(length > 600e6, `content-length ${length}`);
      // Read slowly at first so the send is seen in progress.
      res.pause();
      const seen: EmbeddedRunning[] = [];
      const look = async () => {
        const e = (await running(handle.url)).find((x) => x.query_id === queryId);
        assert.ok(e, 'listed while the body is sent');
        seen.push(e);
      };
      await look();
      let got = 0;
      const reader = new Promise<void>((resolve, reject) => {
        res.on('data', (c: Buffer) => (got += c.length));
        res.on('end', resolve);
        res.on('error', reject);
      });
      // Read 20 MB at a time (by bytes, not by time: on an idle machine loopback moves the whole body in
      // a fraction of a second), looking at the running statements between the bursts.
      for (let k = 0; k < 3; k++) {
        const target = got + 20e6;
        res.resume();
        await pollUntil(async () => got >= target, { what: 'a 20 MB burst', timeoutMs: 30_000, intervalMs: 1 });
        res.pause();
        await new Promise((r) => setTimeout(r, 200));
        await look();
      }
      res.resume();
      await reader;
      assert.equal(got, length, 'bytes received = Content-Length');
      for (const e of seen) {
        assert.equal(e.state, 'sending');
        assert.equal(e.result_bytes, length);
      }
      const sent = seen.map((e) => e.sent_bytes!);
      assert.ok(sent[sent.length - 1] > sent[0], `sent_bytes rises: ${sent.join(', ')}`);
      await pollUntil(async () => !(await running(handle.url)).some((x) => x.query_id === queryId), {
        what: 'unlisted after the body',
        timeoutMs: 10_000,
        intervalMs: 50,
      });
      assert.deepEqual(resultFiles(handle), []);
    } finally {
      clearInterval(timer);
    }
    const growthMb = (peak - base) / 1e6;
    console.log(
      `server RSS ${(base / 1e6).toFixed(0)} MB → peak ${(peak / 1e6).toFixed(0)} MB (+${growthMb.toFixed(0)} MB)`,
    );
    // Holding the result in memory (the code before the file) grows it by more than the result
    // itself (chdb's copy plus the response Buffer: +3,140 MB for 1 GB, bench/results).
    assert.ok(growthMb < 500, `server RSS grew by ${growthMb.toFixed(0)} MB for a ${length} B result`);
  });

  it('a long send is progress, not a stall: a slow reader inside a watched activity is not judged stuck', async () => {
    const env = new MockActivityEnvironment({ heartbeatTimeoutMs: 10_000, startToCloseTimeoutMs: 120_000 });
    const beats: HeartbeatDetails[] = [];
    env.on('heartbeat', (d: HeartbeatDetails) => beats.push(d));
    const queryId = `slow-${randomUUID()}`;
    // ~150 MB read at ~25 MB/s: ~6 s of sending, with stuck detection after 2 s without progress.
    const got = (await env.run(() =>
      runWatched({ stuckAfterS: 2, tickMs: 300 }, async () => {
        const c = connect(handle);
        try {
          const rs = await c.query({
            query: `SELECT number, repeat('x', 1000) AS s FROM numbers(150000) SETTINGS max_block_size = 8192`,
            format: 'TabSeparated',
            query_id: queryId,
            clickhouse_settings: { wait_end_of_query: 1 },
          });
          const t0 = performance.now();
          let bytes = 0;
          for await (const rows of rs.stream()) {
            for (const r of rows as { text: string }[]) bytes += r.text.length + 1;
            const ahead = bytes / 25e6 - (performance.now() - t0) / 1000;
            if (ahead > 0) await new Promise((r) => setTimeout(r, ahead * 1000));
          }
          return bytes;
        } finally {
          await c.close();
        }
      }),
    )) as number;
    assert.ok(got > 150e6, `read ${got} bytes`);
    const sending = beats.filter((b) => b.query_id === queryId && /sending the result/.test(b.progress));
    assert.ok(sending.length >= 3, `heartbeats said "sending the result" ${sending.length} times`);
    console.log(`a heartbeat while sending: ${sending[Math.floor(sending.length / 2)].progress}`);
  });

  it('a client that disconnects mid-body, or a KILL QUERY while sending: the file is removed, the server stays healthy', async () => {
    const queryId = `cut-${randomUUID()}`;
    const res = await post(handle.url, `SELECT number, repeat('x', 1000) AS s FROM numbers(200000) FORMAT TSV`, {
      wait_end_of_query: '1',
      query_id: queryId,
    });
    assert.equal(res.statusCode, 200);
    assert.equal(resultFiles(handle).length, 1, 'the result file exists while it is sent');
    await new Promise<void>((resolve) => res.once('data', () => resolve()));
    res.destroy();
    await pollUntil(
      async () => resultFiles(handle).length === 0 && !(await running(handle.url)).some((x) => x.query_id === queryId),
      { what: 'file removed and statement unlisted', timeoutMs: 20_000, intervalMs: 50 },
    );
    assert.equal((await httpGet(`${handle.url}/ping`, 5000)).body, 'Ok.\n');

    // KILL QUERY of a statement that is sending its result cuts the response.
    const killedId = `kill-${randomUUID()}`;
    const big = await post(handle.url, `SELECT number, repeat('x', 1000) AS s FROM numbers(200000) FORMAT TSV`, {
      wait_end_of_query: '1',
      query_id: killedId,
    });
    big.pause();
    assert.equal((await running(handle.url)).find((x) => x.query_id === killedId)?.state, 'sending');
    const kill = await post(handle.url, `KILL QUERY WHERE query_id = '${killedId}' SYNC FORMAT JSONEachRow`, {});
    assert.match((await readAll(kill)).toString(), /"kill_status":"finished"/);
    const cut = await readAll(big).then(
      (b) => b.length,
      () => -1,
    );
    assert.ok(cut < Number(big.headers['content-length']), `the killed response was cut (${cut} bytes read)`);
    await pollUntil(async () => resultFiles(handle).length === 0, {
      what: 'killed result file removed',
      timeoutMs: 20_000,
      intervalMs: 50,
    });
    const again = await post(handle.url, 'SELECT 42', { wait_end_of_query: '1' });
    assert.equal((await readAll(again)).toString(), '42\n');
  });
});

describe('withOutfile: INTO OUTFILE before the top-level FORMAT', () => {
  const w = (sql: string) => withOutfile(sql, analyzeSql(sql), "'/r/f'", 'TSV');
  it('inserts before FORMAT, keeps SETTINGS after it, appends FORMAT when absent', () => {
    assert.equal(w('SELECT 1 FORMAT JSON'), "SELECT 1 INTO OUTFILE '/r/f' FORMAT JSON");
    assert.equal(
      w('SELECT 1 FORMAT JSON SETTINGS max_threads = 1'),
      "SELECT 1 INTO OUTFILE '/r/f' FORMAT JSON SETTINGS max_threads = 1",
    );
    assert.equal(w('SELECT 1 -- c'), "SELECT 1 -- c\nINTO OUTFILE '/r/f' FORMAT TSV");
    assert.equal(w('SELECT 1; -- c'), "SELECT 1\nINTO OUTFILE '/r/f' FORMAT TSV; -- c");
    assert.equal(
      w("SELECT * FROM (SELECT 1 FORMAT CSV) WHERE 'FORMAT' != ''"),
      "SELECT * FROM (SELECT 1 FORMAT CSV) WHERE 'FORMAT' != ''\nINTO OUTFILE '/r/f' FORMAT TSV",
    );
    assert.equal(analyzeSql("SELECT 1 INTO OUTFILE 'x' FORMAT CSV").intoOutfile, true);
    assert.throws(() => w("SELECT 1 INTO OUTFILE 'x'"));
  });
});
