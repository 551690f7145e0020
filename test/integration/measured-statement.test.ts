/**
 * `runMeasured` streams: big results, errors after the response started, truncated bodies, the hash
 * definition, `wait_end_of_query` — against the real embedded engine (chdb in its own process) and
 * Debian's clickhouse-server 18.16. No mocks.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createHash, randomUUID } from 'node:crypto';
import { ClickHouseError, ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';
import {
  _internal,
  connect,
  runMeasured,
  type MeasuredResult,
  type MidStreamClickHouseError,
  authHeaders,
  targetPassword,
} from '../../src/clickhouse/client';
import { provisionEmbedded, teardownEmbedded } from '../../src/targets/embedded';
import { resultsOf } from '../fixtures/versions';
import { provisionLocal, teardownLocal } from '../../src/targets/local';
import { httpGet } from '../../src/targets/process';
import type { TargetHandle } from '../../src/schema/target';

const QUIET = { level: ClickHouseLogLevel.OFF };
const Q64 = { output_format_json_quote_64bit_integers: 1 } as const;
const X1000 = 'x'.repeat(1000);
const MB = 1e6;

function serverBinary(): string {
  const p =
    process.env.CHBENCH_CLICKHOUSE_SERVER ??
    ['/usr/bin/clickhouse-server', '/usr/sbin/clickhouse-server'].find((c) => fs.existsSync(c));
  assert.ok(
    p && fs.existsSync(p),
    'no clickhouse-server binary: run ./scripts/setup.sh --with-debian-clickhouse, or set CHBENCH_CLICKHOUSE_SERVER',
  );
  return p;
}

/** The old definition: sha256 of JSON.stringify(data) of the whole JSONCompact body. */
async function oldHash(client: ClickHouseClient, sql: string): Promise<string> {
  const rs = await client.query({ query: sql, format: 'JSONCompact', clickhouse_settings: Q64 });
  const body = (await rs.json()) as unknown as { data: unknown[][] };
  return createHash('sha256').update(JSON.stringify(body.data)).digest('hex');
}

/**
 * Run `fn` while sampling this process's RSS every 50 ms; returns its result and the peak growth
 * over the RSS just before (bytes).
 */
async function withPeakRss<T>(fn: () => Promise<T>): Promise<{ value: T; peakGrowth: number }> {
  const base = process.memoryUsage.rss();
  let peak = base;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 50);
  try {
    const value = await fn();
    peak = Math.max(peak, process.memoryUsage.rss());
    return { value, peakGrowth: peak - base };
  } finally {
    clearInterval(timer);
  }
}

/** Expected hash of `SELECT number, <1000 x> FROM numbers(n)` with quoted UInt64, built independently of the parser. */
function expectedBigHash(n: number): string {
  const h = createHash('sha256');
  h.update('[');
  for (let i = 0; i < n; i++) h.update(`${i ? ',' : ''}["${i}","${X1000}"]`);
  h.update(']');
  return h.digest('hex');
}

const BIG_SQL = (n: number) => `SELECT number, '${X1000}' AS s FROM numbers(${n})`;

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    const v = await p;
    assert.fail(`expected a rejection, got a result: ${JSON.stringify(v).slice(0, 200)}`);
  } catch (e) {
    if (e instanceof assert.AssertionError) throw e;
    return e;
  }
}

describe('runMeasured: streaming parser (no server)', () => {
  const doc = {
    meta: [{ name: 'a', type: 'String' }],
    data: [
      ['x,]"\\', [1, 2]],
      ['{}', []],
      ['\u00e9\u4e2d', [3]],
    ],
    rows: 3,
    statistics: { elapsed: 0.1, rows_read: 3, bytes_read: 9 },
  };
  const expected = createHash('sha256').update(JSON.stringify(doc.data)).digest('hex');

  for (const [name, text] of [
    ['compact', JSON.stringify(doc)],
    ['pretty', JSON.stringify(doc, null, '\t')],
    ['odd whitespace', JSON.stringify(doc, null, ' \n ')],
  ] as const) {
    it(`hashes like JSON.stringify(data) whatever the whitespace and chunking (${name})`, () => {
      const bytes = Buffer.from(text);
      for (const size of [1, 2, 7, 64, bytes.length]) {
        const p = new _internal.JsonCompactStream();
        for (let i = 0; i < bytes.length; i += size) p.push(bytes.subarray(i, i + size));
        assert.equal(p.complete, true, `complete with ${size}-byte chunks`);
        assert.equal(p.rows, 3);
        assert.equal(p.digest(), expected, `hash with ${size}-byte chunks`);
        assert.deepEqual(p.firstRows, doc.data);
        assert.equal(p.captured.get('rows'), '3');
      }
    });
  }

  it('a truncated document is not complete, and bytes after the document are noticed', () => {
    const text = JSON.stringify(doc, null, '\t');
    for (const cut of [text.length - 1, text.indexOf('"rows"'), text.indexOf('["{}"') + 3, 10]) {
      const p = new _internal.JsonCompactStream();
      p.push(Buffer.from(text.slice(0, cut)));
      assert.equal(p.complete, false, `cut at ${cut}`);
    }
    const p = new _internal.JsonCompactStream();
    p.push(Buffer.from(`${text}\nCode: 1. oops`));
    assert.equal(p.complete, false);
    assert.equal(p.brokenReason, 'bytes follow the complete document');
  });
});

describe('runMeasured on the embedded engine (chdb 26.7 in its own process)', { timeout: 900_000 }, () => {
  let workDir: string;
  let handle: TargetHandle;
  let client: ClickHouseClient;

  before(async () => {
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-measured-emb-'));
    handle = await provisionEmbedded({
      runId: `measured-${randomUUID().slice(0, 8)}`,
      cellKey: 'emb',
      version: '26.7',
      workDir,
    });
    client = connect(handle);
  });

  after(async () => {
    await client?.close();
    if (handle) await teardownEmbedded(handle).catch(() => undefined);
    fs.rmSync(workDir, { recursive: true, force: true });
  });

  it('small results hash exactly as before (streamed and with wait_end_of_query)', async () => {
    const sql =
      "SELECT number, toString(number) AS s, 'a\"b\\\\c/d\\n\\t' AS e, [number, 2] AS arr, 1.5 AS f, NULL AS n FROM numbers(7)";
    const old = await oldHash(client, sql);
    const streamed = await runMeasured(client, sql, `small-s-${randomUUID()}`, Q64);
    const waited = await runMeasured(client, sql, `small-w-${randomUUID()}`, Q64, undefined, { waitEndOfQuery: true });
    for (const r of [streamed, waited]) {
      assert.equal(r.result_sha256, old);
      assert.equal(r.result_rows, 7);
      assert.deepEqual(r.first_rows[0], ['0', '0', 'a"b\\c/d\n\t', ['0', '2'], 1.5, null]);
      assert.equal(r.first_rows.length, 5);
    }
    assert.equal(streamed.wait_end_of_query, false);
    assert.equal(waited.wait_end_of_query, true);
    // Streamed: the summary went out before the query ended, so the server put nothing measured in it.
    assert.equal(streamed.summary?.result_rows, undefined);
    // wait_end_of_query=1: buffered, complete summary and the engine's statistics.
    assert.equal(waited.summary?.result_rows, '7');
    assert.equal(waited.output_statistics?.rows_read, 7);
    assert.equal(typeof streamed.output_statistics?.elapsed, 'number');
    assert.equal(
      streamed.output_statistics?.rows_read,
      undefined,
      'chdb does not report rows_read for a stream: omitted, never 0',
    );
    const empty = await runMeasured(client, 'SELECT 1 WHERE 0', `empty-${randomUUID()}`, Q64);
    assert.equal(empty.result_rows, 0);
    assert.equal(empty.result_sha256, createHash('sha256').update('[]').digest('hex'));
  });

  it('values hash: a UInt64 beyond 2^53, quoted or not, hashes as the 24.8 engine’s captured body (issue 23)', async () => {
    for (const sql of ['SELECT toUInt64(18446744073709551615) AS u', 'SELECT 9007199254740993::UInt64 AS u']) {
      const quoted = await runMeasured(client, sql, `u64-q-${randomUUID()}`, Q64);
      const bare = await runMeasured(client, sql, `u64-b-${randomUUID()}`, {
        output_format_json_quote_64bit_integers: 0,
      });
      assert.notEqual(quoted.result_sha256, bare.result_sha256, 'formatting differs');
      assert.equal(quoted.result_values_sha256, bare.result_values_sha256);
      const key = sql.includes('9007199254740993') ? 'u64_2p53p1' : 'u64_max';
      const p = new _internal.JsonCompactStream();
      p.push(Buffer.from(resultsOf('24.8').queries[key].JSONCompact_quote_1));
      assert.equal(bare.result_values_sha256, p.valuesDigest());
    }
  });

  it('600,000 rows x 1,000 chars: measured, hashed and counted while streaming; worker memory stays flat', async () => {
    const n = 600_000;
    let progressCalls = 0;
    const { value: r, peakGrowth } = await withPeakRss(() =>
      runMeasured(client, BIG_SQL(n), `big-${randomUUID()}`, Q64, undefined, { onProgress: () => progressCalls++ }),
    );
    console.log(
      `embedded 600k x 1000: ${(r.result_bytes / MB).toFixed(1)} MB in ${(r.wall_ms / 1000).toFixed(1)} s = ${(r.result_bytes / MB / (r.wall_ms / 1000)).toFixed(1)} MB/s; worker peak RSS growth ${(peakGrowth / MB).toFixed(1)} MB; progress calls ${progressCalls}`,
    );
    assert.equal(r.result_rows, n);
    assert.ok(r.result_bytes > 600 * MB, `result_bytes ${r.result_bytes}`);
    assert.equal(r.result_sha256, expectedBigHash(n));
    assert.ok(peakGrowth < 150 * MB, `worker peak RSS growth ${peakGrowth} bytes for a ${r.result_bytes}-byte result`);
    assert.ok(progressCalls >= 1, 'onProgress was called');
    assert.ok(
      progressCalls <= Math.ceil(r.wall_ms / 1000) + 1,
      `onProgress throttled to <= 1/s (${progressCalls} calls in ${r.wall_ms} ms)`,
    );
  });

  it('an error after the response started is a ClickHouseError (code 395, HTTP 200, bytes already received), not a result', async () => {
    const sql = 'SELECT number, throwIf(number = 150000) FROM numbers(200000)';
    const e = (await rejection(
      runMeasured(client, sql, `late-${randomUUID()}`, { ...Q64, max_block_size: '1000' }),
    )) as MidStreamClickHouseError;
    assert.ok(e instanceof ClickHouseError, String(e));
    assert.equal(e.constructor.name, 'ClickHouseError');
    assert.equal(e.code, '395');
    assert.equal(e.type, 'FUNCTION_THROW_IF_VALUE_IS_NON_ZERO');
    assert.match(e.message, /throwIf/);
    assert.equal(e.http_status, 200);
    assert.ok(
      e.result_bytes > 0 && e.result_rows > 0 && e.result_rows < 150_001,
      `received ${e.result_bytes} bytes, ${e.result_rows} rows`,
    );
    assert.equal(e.exception_source, 'exception tag block');
    // The engine is usable afterwards (first rows hold canonical values: integers as their digits).
    assert.deepEqual((await runMeasured(client, 'SELECT 42', `after-${randomUUID()}`)).first_rows, [['42']]);
  });

  it('an error before the first byte is an HTTP error (ClickHouseError, not a mid-stream one)', async () => {
    const e = (await rejection(
      runMeasured(client, 'SELECT * FROM no_such_table', `early-${randomUUID()}`),
    )) as MidStreamClickHouseError;
    assert.ok(e instanceof ClickHouseError);
    assert.equal(e.code, '60');
    assert.equal(e.http_status, undefined);
  });

  it('KILL QUERY stops a streaming statement between chunks (code 394 to the killed request)', async () => {
    const qid = `kill-${randomUUID()}`;
    const p = rejection(
      runMeasured(client, `SELECT number, '${X1000}' AS s FROM numbers(50000000)`, qid, {
        ...Q64,
        max_block_size: '2000',
      }),
    );
    const deadline = Date.now() + 30_000;
    while (
      !JSON.parse((await httpGet(`${handle.url}/chbench/running`, 5000, authHeaders(handle))).body).some(
        (r: { query_id: string; state: string }) => r.query_id === qid && r.state === 'running',
      )
    ) {
      assert.ok(Date.now() < deadline, 'statement did not start');
      await new Promise((r) => setTimeout(r, 20));
    }
    const killer = createClient({ url: handle.url, username: 'default', password: targetPassword(handle), log: QUIET });
    const rs = await killer.query({ query: `KILL QUERY WHERE query_id = '${qid}' SYNC`, format: 'JSONEachRow' });
    const rows = await rs.json<{ kill_status: string }>();
    await killer.close();
    assert.deepEqual(
      rows.map((r) => r.kill_status),
      ['finished'],
    );
    const e = (await p) as ClickHouseError;
    assert.ok(e instanceof ClickHouseError, String(e));
    assert.equal(e.code, '394');
    assert.deepEqual(JSON.parse((await httpGet(`${handle.url}/chbench/running`, 5000, authHeaders(handle))).body), []);
  });

  it('a client that goes away mid-stream cancels the stream (the engine is free right after)', async () => {
    const ac = new AbortController();
    const qid = `gone-${randomUUID()}`;
    const p = rejection(
      runMeasured(
        client,
        `SELECT number, '${X1000}' AS s FROM numbers(50000000)`,
        qid,
        { ...Q64, max_block_size: '2000' },
        ac.signal,
        { onProgress: () => ac.abort() },
      ),
    );
    await p;
    const deadline = Date.now() + 30_000;
    while (JSON.parse((await httpGet(`${handle.url}/chbench/running`, 5000, authHeaders(handle))).body).length > 0) {
      assert.ok(Date.now() < deadline, 'the stream was not cancelled after the client disconnected');
      await new Promise((r) => setTimeout(r, 50));
    }
    const log = (await httpGet(`${handle.url}/chbench/statements`, 5000, authHeaders(handle))).body
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { query_id: string; ok: boolean });
    assert.equal(log.find((l) => l.query_id === qid)?.ok, false);
  });

  it('a body cut off by a dying server is an error, never a result', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-measured-kill-'));
    const h = await provisionEmbedded({
      runId: `measured-kill-${randomUUID().slice(0, 8)}`,
      cellKey: 'victim',
      version: '26.7',
      workDir: dir,
    });
    const c = connect(h);
    try {
      let killed = false;
      const e = await rejection(
        runMeasured(c, BIG_SQL(5_000_000), `cut-${randomUUID()}`, { ...Q64, max_block_size: '2000' }, undefined, {
          onProgress: (p) => {
            if (!killed && p.result_bytes > 0) {
              killed = true;
              process.kill(h.pid as number, 'SIGKILL');
            }
          },
        }),
      );
      assert.ok(killed, 'the server was killed mid-stream');
      assert.ok(!(e instanceof ClickHouseError), `a cut body is not a server error: ${String(e)}`);
      assert.ok(e instanceof Error);
    } finally {
      await c.close();
      await teardownEmbedded(h).catch(() => undefined);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('runMeasured on Debian clickhouse-server 18.16', { timeout: 600_000 }, () => {
  let workDir: string;
  let handle: TargetHandle;
  let client: ClickHouseClient;

  before(async () => {
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-measured-local-'));
    handle = await provisionLocal(
      { runId: `measured-${randomUUID().slice(0, 8)}`, cellKey: 'l:18.16', version: '18.16', workDir },
      serverBinary(),
    );
    client = connect(handle);
  });

  after(async () => {
    await client?.close();
    if (handle) await teardownLocal(handle).catch(() => undefined);
    fs.rmSync(workDir, { recursive: true, force: true });
  });

  it('small results hash exactly as before', async () => {
    const sql =
      "SELECT number, toString(number) AS s, 'a\"b\\\\c/d\\n\\t' AS e, [number, 2] AS arr, 1.5 AS f FROM numbers(7)";
    const r = await runMeasured(client, sql, `small-${randomUUID()}`, Q64);
    assert.equal(r.result_sha256, await oldHash(client, sql));
    assert.equal(r.result_rows, 7);
    assert.equal(r.output_statistics?.rows_read, 7);
    assert.equal(r.summary, undefined, '18.16 sends no X-ClickHouse-Summary');
  });

  it('100,000 rows x 1,000 chars: streamed, hashed, memory flat', async () => {
    const n = 100_000;
    const { value: r, peakGrowth } = await withPeakRss(() =>
      runMeasured(client, BIG_SQL(n), `big-${randomUUID()}`, Q64),
    );
    console.log(
      `18.16 100k x 1000: ${(r.result_bytes / MB).toFixed(1)} MB in ${(r.wall_ms / 1000).toFixed(1)} s = ${(r.result_bytes / MB / (r.wall_ms / 1000)).toFixed(1)} MB/s; worker peak RSS growth ${(peakGrowth / MB).toFixed(1)} MB`,
    );
    assert.equal(r.result_rows, n);
    assert.ok(r.result_bytes > 100 * MB);
    assert.equal(r.result_sha256, expectedBigHash(n));
    assert.ok(peakGrowth < 150 * MB, `worker peak RSS growth ${peakGrowth}`);
  });

  it('an error after the response started (18.16 appends the text) is a ClickHouseError 395 with HTTP 200', async () => {
    const sql = 'SELECT number, throwIf(number = 150000) FROM numbers(200000)';
    const e = (await rejection(
      runMeasured(client, sql, `late-${randomUUID()}`, { ...Q64, max_block_size: '1000' }),
    )) as MidStreamClickHouseError;
    assert.ok(e instanceof ClickHouseError, String(e));
    assert.equal(e.code, '395');
    assert.match(e.message, /throwIf/);
    assert.equal(e.http_status, 200);
    assert.ok(
      e.result_bytes > 0 && e.result_rows > 0,
      `received ${e.result_bytes} bytes, ${e.result_rows} rows before the error`,
    );
    assert.equal(e.exception_source, 'text appended to the body');
  });

  it('a server error before the response is a ClickHouseError too (18.16 text has no type name)', async () => {
    const e = (await rejection(
      runMeasured(client, 'SELECT * FROM no_such_table', `early-${randomUUID()}`),
    )) as ClickHouseError;
    assert.ok(e instanceof ClickHouseError, String(e));
    assert.equal(e.code, '60');
  });
});

// Type-only use, so the import is checked.
export type _M = MeasuredResult;
