/**
 * The engine server with PyPI chdb builds hosted by Python (`--engine python`): chdb-core 26.9.0
 * (ClickHouse 26.9: streaming, a 2nd session for progress and KILL) and chdb 3.1.2 (24.8: buffered
 * only, one connection), installed with src/engine/install.ts under CHBENCH_ENGINES_DIR. Real
 * engines, real @clickhouse/client over HTTP on loopback; no mocks.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import { ClickHouseError, ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';
import { findPypiBuild, installEngine } from '../../src/engine/install';
import { pollUntil } from '../../src/lib/poll';
import { childPids, rssBytes, startEngineServer, type EngineServer } from '../helpers/engine-server';

const QUIET = { level: ClickHouseLogLevel.OFF };
const MB = 1024 * 1024;

async function pythonOf(label: string): Promise<string> {
  const b = findPypiBuild(label);
  assert.ok(b, `a PyPI build serves ${label}`);
  return (await installEngine(b)).python;
}

/** GET a URL, counting the body's bytes (not keeping them) and sampling the RSS of `pids()` every 50 ms. */
function getCounting(
  url: string,
  pids: () => number[],
): Promise<{ status: number; bytes: number; headers: http.IncomingHttpHeaders; peakRss: number; tail: string }> {
  return new Promise((resolve, reject) => {
    let peakRss = 0;
    const sample = () =>
      (peakRss = Math.max(
        peakRss,
        pids().reduce((a, p) => a + rssBytes(p), 0),
      ));
    const timer = setInterval(sample, 50);
    http
      .get(url, (res) => {
        let bytes = 0;
        let tail = '';
        res.on('data', (b: Buffer) => {
          bytes += b.length;
          tail = (tail + b.toString('latin1', Math.max(0, b.length - 300))).slice(-300);
        });
        res.on('end', () => {
          clearInterval(timer);
          sample();
          resolve({ status: res.statusCode ?? 0, bytes, headers: res.headers, peakRss, tail });
        });
        res.on('error', (e) => {
          clearInterval(timer);
          reject(e);
        });
      })
      .on('error', (e) => {
        clearInterval(timer);
        reject(e);
      });
  });
}

const q = (url: string, sql: string, extra = '') => `${url}/?query=${encodeURIComponent(sql)}${extra}`;

async function text(url: string, sql: string): Promise<{ status: number; body: string }> {
  const r = await fetch(url, { method: 'POST', body: sql });
  return { status: r.status, body: await r.text() };
}

interface RunningEntry {
  query_id: string;
  state: string;
  read_rows?: number | null;
  progress_error?: string;
}

async function running(url: string): Promise<RunningEntry[]> {
  return (await (await fetch(`${url}/chbench/running`)).json()) as RunningEntry[];
}

/** 15 s: 60 rows, one per block, 0.25 s each. */
const LONG = 'SELECT sum(sleepEachRow(0.25)) FROM numbers(60) SETTINGS max_block_size = 1';

const BUILDS = [
  { label: '26.9', chdb: '26.9.0', pkg: 'pypi chdb-core==26.9.0', ch: /^26\.9\./, streaming: true, concurrent: true },
  { label: '25.8', chdb: '3.7.2', pkg: 'pypi chdb==3.7.2', ch: /^25\.8\./, streaming: true, concurrent: false },
  { label: '24.8', chdb: '3.1.2', pkg: 'pypi chdb==3.1.2', ch: /^24\.8\./, streaming: false, concurrent: false },
];

for (const { label, chdb, pkg, ch, streaming, concurrent } of BUILDS) {
  describe(`engine server, --engine python, PyPI chdb ${chdb} (ClickHouse ${label})`, { timeout: 300_000 }, () => {
    let srv: EngineServer;
    let client: ClickHouseClient;
    const modern = concurrent;
    const pkgRe = new RegExp(pkg.replace(/[.=]/g, (c) => `\\${c}`));

    before(async () => {
      srv = await startEngineServer({
        python: await pythonOf(label),
        // 24.8 buffers every result: a 300 MiB cap on what the host passes buffered.
        ...(streaming ? {} : { env: { CHBENCH_ENGINE_MAX_RESULT_BYTES: String(300 * MB) } }),
      });
      client = createClient({ url: srv.url, request_timeout: 120_000, log: QUIET });
    });
    after(async () => {
      await client?.close();
      await srv?.stop();
    });

    it('reports its build in /chbench/info and version()', async () => {
      const info = (await (await fetch(`${srv.url}/chbench/info`)).json()) as Record<string, unknown>;
      assert.equal(info.backend, 'python');
      assert.equal(info.chdb, chdb);
      assert.match(String(info.clickhouse), ch);
      assert.equal(info.package, pkg);
      const caps = info.capabilities as Record<string, boolean>;
      assert.equal(caps.streaming, streaming);
      assert.equal(caps.concurrentSessions, concurrent);
      assert.equal(caps.jsonStatistics, label === '26.9');
      const rs = await client.query({ query: 'SELECT version() AS v', format: 'JSONEachRow' });
      assert.match(((await rs.json()) as { v: string }[])[0].v, ch);
    });

    it('@clickhouse/client: DDL, INSERT, SELECT, settings per request, query_id echo, errors', async () => {
      await client.command({ query: 'CREATE TABLE t (id UInt32, name String) ENGINE = MergeTree ORDER BY id' });
      const rows = [1, 2, 3].map((i) => ({ id: i, name: `n${i}` }));
      const ins = await client.insert({ table: 't', values: rows, format: 'JSONEachRow' });
      // chdb-core 26.x: raw insert (send_insert) reports the engine's rows written; older builds: unmeasured.
      assert.equal(ins.summary?.written_rows, label === '26.9' ? '3' : undefined);
      const rs = await client.query({
        query: 'SELECT id, name FROM t ORDER BY id',
        format: 'JSONEachRow',
        query_id: 'qid-1',
      });
      assert.equal(rs.query_id, 'qid-1');
      assert.deepEqual(await rs.json(), [
        { id: 1, name: 'n1' },
        { id: 2, name: 'n2' },
        { id: 3, name: 'n3' },
      ]);
      const set = await client.query({
        query: "SELECT getSetting('max_threads') AS m",
        format: 'JSONEachRow',
        clickhouse_settings: { max_threads: 1 },
      });
      assert.equal(String(((await set.json()) as { m: unknown }[])[0].m), '1');
      const after = await client.query({ query: "SELECT getSetting('max_threads') AS m", format: 'JSONEachRow' });
      assert.notEqual(String(((await after.json()) as { m: unknown }[])[0].m), '1', 'the setting did not leak');
      const p = await client.query({
        query: 'SELECT {x:UInt32} + 1 AS y',
        format: 'JSONEachRow',
        query_params: { x: 41 },
      });
      assert.deepEqual(await p.json(), [{ y: 42 }]);
      await assert.rejects(
        client.query({ query: 'SELECT * FROM nope', format: 'JSONEachRow' }),
        (e: unknown) => e instanceof ClickHouseError && e.code === '60',
      );
      // rows read: measured by the engine where it can (≥ 25.8: storage_rows_read), absent otherwise (never 0).
      const r = await fetch(q(srv.url, 'SELECT count() FROM numbers(1000000)', '&wait_end_of_query=1'));
      const summary = JSON.parse(String(r.headers.get('x-clickhouse-summary'))) as Record<string, string>;
      await r.text();
      if (streaming) assert.equal(summary.read_rows, '1000000');
      else assert.equal(summary.read_rows, undefined);
    });

    if (streaming) {
      it('streams a 600 MB result with the server + host RSS well below it', async () => {
        const sql = "SELECT repeat('x', 999) FROM numbers(600000) SETTINGS max_block_size = 8192";
        const pids = () => [srv.pid, ...childPids(srv.pid)];
        const base = pids().reduce((a, p) => a + rssBytes(p), 0);
        const r = await getCounting(q(srv.url, sql), pids);
        assert.equal(r.status, 200);
        assert.equal(r.headers['x-chbench-result'], 'streamed');
        assert.equal(r.bytes, 600000 * 1000);
        const grew = r.peakRss - base;
        console.log(
          `${label} 600 MB streamed: RSS server + host ${(base / MB).toFixed(0)} MiB before, peak ${(r.peakRss / MB).toFixed(0)} MiB (+${(grew / MB).toFixed(0)})`,
        );
        // The engine's baseline (≈ 300 MiB idle: chdb's code and caches) plus bounded chunks in flight.
        assert.ok(grew < 250 * MB, `RSS grew by ${(grew / MB).toFixed(0)} MiB while streaming 572 MiB`);
      });
      it('KILL QUERY of a streaming statement stops it between chunks; a client that goes away too; the next statement runs', async () => {
        const slow = 'SELECT number, sleepEachRow(0.05) FROM numbers(400) SETTINGS max_block_size = 1';
        const res = fetch(q(srv.url, slow, '&query_id=stream-1')).then(async (r) => ({
          status: r.status,
          body: await r.text().catch((e: unknown) => `broken: ${String(e)}`),
        }));
        await pollUntil(
          async () => (await running(srv.url)).some((e) => e.query_id === 'stream-1' && e.state === 'running'),
          { what: 'the stream running', timeoutMs: 10_000, intervalMs: 50 },
        );
        const t0 = Date.now();
        const k = await text(srv.url, "KILL QUERY WHERE query_id = 'stream-1' SYNC");
        assert.equal(k.status, 200, k.body);
        assert.match(k.body, /^finished\tstream-1/);
        const r = await res;
        assert.ok(Date.now() - t0 < 5_000, `stopped within 5 s (${Date.now() - t0} ms), not after 20 s`);
        assert.match(r.body, /Code: 394|broken/);
        // A client that disconnects mid-stream: the stream is cancelled and the engine is free again.
        const ac = new AbortController();
        const gone = fetch(q(srv.url, slow), { signal: ac.signal }).then((x) => x.body?.getReader().read());
        await pollUntil(async () => (await running(srv.url)).some((e) => e.state === 'running'), {
          what: 'the second stream running',
          timeoutMs: 10_000,
          intervalMs: 50,
        });
        ac.abort();
        await gone.catch(() => undefined);
        const one = await text(srv.url, 'SELECT 1');
        assert.equal(one.body.trim(), '1');
        assert.deepEqual(await running(srv.url), []);
      });
    } else {
      it('a 600 MB result on a build that cannot stream: the engine writes it to a file, the server sends it from there', async () => {
        const pids = () => [srv.pid, ...childPids(srv.pid)];
        const before = pids().reduce((a, p) => a + rssBytes(p), 0);
        // Blocks of 8,192 rows: with the default 65,409 rows of 1 kB each the engine's own working
        // memory (blocks per thread, kept by chdb 3.1.2) grows by ~600 MiB whatever happens to the result.
        const r = await getCounting(
          q(srv.url, "SELECT repeat('x', 999) FROM numbers(600000) SETTINGS max_block_size = 8192"),
          pids,
        );
        assert.equal(r.status, 200);
        assert.equal(r.headers['x-chbench-result'], 'buffered');
        assert.equal(r.bytes, 600000 * 1000, 'every byte arrived');
        assert.equal(Number(r.headers['content-length']), r.bytes, 'sent with its length, from the file');
        const growth = r.peakRss - before;
        console.log(
          `24.8 600 MB buffered through a file: server + host RSS ${(before / MB).toFixed(0)} → peak ${(r.peakRss / MB).toFixed(0)} MiB`,
        );
        assert.ok(
          growth < 600 * MB,
          `server + host grew ${(growth / MB).toFixed(0)} MiB for a 572 MiB result: it must not hold it`,
        );
        assert.equal((await text(srv.url, 'SELECT 1')).body.trim(), '1');
      });
    }

    it(`a 15 s statement: ${modern ? 'progress in /chbench/running, then KILL QUERY → 394' : 'progress_error, KILL QUERY → 48, it runs to the end'}`, async () => {
      const t0 = Date.now();
      const long = fetch(q(srv.url, LONG, '&query_id=long-1&wait_end_of_query=1')).then(async (r) => ({
        code: r.headers.get('x-clickhouse-exception-code'),
        body: await r.text(),
      }));
      const entry = await pollUntil(
        async () => {
          const e = (await running(srv.url)).find((x) => x.query_id === 'long-1' && x.state === 'running');
          if (!e) return undefined;
          return (modern ? (e.read_rows ?? 0) > 0 : !!e.progress_error) ? e : undefined;
        },
        { what: 'the long statement in /chbench/running', timeoutMs: 20_000, intervalMs: 100 },
      );
      if (!modern) {
        assert.equal(entry.read_rows, null);
        assert.match(String(entry.progress_error), pkgRe);
      }
      const k = await text(srv.url, "KILL QUERY WHERE query_id = 'long-1'");
      const res = await long;
      if (modern) {
        assert.equal(k.status, 200, k.body);
        assert.equal(res.code, '394', res.body);
        assert.ok(Date.now() - t0 < 12_000, `killed early (${Date.now() - t0} ms)`);
      } else {
        assert.equal(k.status, 501, k.body);
        assert.match(k.body, /Code: 48\./);
        assert.match(k.body, pkgRe);
        assert.equal(res.code, null, res.body);
        assert.equal(res.body.trim(), '0');
        assert.ok(Date.now() - t0 >= 14_000);
      }
    });
  });
}

describe('engine server, --engine python: two versions at once, and the host dying', { timeout: 120_000 }, () => {
  const servers: EngineServer[] = [];
  after(async () => {
    for (const s of servers) await s.stop();
  });

  it('two servers of different versions on their own data dirs each report their own version()', async () => {
    const [a, b] = await Promise.all([
      startEngineServer({ python: await pythonOf('26.9') }),
      startEngineServer({ python: await pythonOf('24.8') }),
    ]);
    servers.push(a, b);
    const [va, vb] = await Promise.all([text(a.url, 'SELECT version()'), text(b.url, 'SELECT version()')]);
    assert.match(va.body, /^26\.9\./);
    assert.match(vb.body, /^24\.8\./);
  });

  it('SIGKILL of the python host mid-statement: the request fails naming it, the server exits non-zero', async () => {
    const srv = servers[0];
    const long = fetch(q(srv.url, LONG, '&wait_end_of_query=1')).then(async (r) => ({
      status: r.status,
      body: await r.text(),
    }));
    await pollUntil(async () => (await running(srv.url)).some((e) => e.state === 'running'), {
      what: 'a running statement',
      timeoutMs: 10_000,
      intervalMs: 50,
    });
    const host = childPids(srv.pid);
    assert.equal(host.length, 1);
    process.kill(host[0], 'SIGKILL');
    const r = await long;
    assert.equal(r.status, 500);
    assert.match(
      r.body,
      /Code: 1001\..*chdb host process \(pypi chdb-core==26\.9\.0, pid \d+\) exited on signal SIGKILL/,
    );
    const exit = await srv.exited;
    assert.equal(exit.code, 70);
  });
});

describe(
  'engine server, --engine python, PyPI chdb 1.4.1 (ClickHouse 23.10: a fresh engine per statement)',
  { timeout: 120_000 },
  () => {
    let srv: EngineServer;
    let client: ClickHouseClient;
    before(async () => {
      srv = await startEngineServer({ python: await pythonOf('23.10') });
      client = createClient({ url: srv.url, request_timeout: 60_000, log: QUIET });
    });
    after(async () => {
      await client?.close();
      await srv?.stop();
    });

    it('reports 1.4.1 (not the 0.6.0 its module says), per-query engine, no system.parts', async () => {
      const info = (await (await fetch(`${srv.url}/chbench/info`)).json()) as Record<string, unknown>;
      assert.equal(info.chdb, '1.4.1');
      assert.equal(info.clickhouse, '23.10.1.1');
      const caps = info.capabilities as Record<string, boolean>;
      assert.equal(caps.perQueryEngine, true);
      assert.equal(caps.systemParts, false);
      assert.equal(caps.streaming, false);
    });

    it('a statement that would abort the engine (reading system.server_settings) is refused, and the engine lives on', async () => {
      const r = await fetch(srv.url, { method: 'POST', body: 'SELECT name FROM system.server_settings' });
      assert.equal(r.headers.get('x-clickhouse-exception-code'), '48');
      assert.match(await r.text(), /aborts the process on reading system\.server_settings/);
      const one = await fetch(srv.url, { method: 'POST', body: 'SELECT 1' });
      assert.equal((await one.text()).trim(), '1');
    });

    it('settings per request are reset (1.4.1 ignores SET k = DEFAULT), params and database work', async () => {
      await client.command({ query: 'CREATE DATABASE d ENGINE = Atomic' });
      await client.command({ query: 'CREATE TABLE d.t (a UInt32) ENGINE = MergeTree ORDER BY a' });
      await client.insert({ table: 'd.t', values: [{ a: 1 }, { a: 2 }], format: 'JSONEachRow' });
      const get = async (clickhouse_settings?: Record<string, number>) =>
        (
          (await (
            await client.query({
              query: "SELECT toString(getSetting('max_block_size')) AS b",
              format: 'JSONEachRow',
              clickhouse_settings,
            })
          ).json()) as { b: string }[]
        )[0].b;
      const before = await get();
      assert.equal(await get({ max_block_size: 7 }), '7');
      assert.equal(await get(), before);
      const n = await fetch(q(srv.url, 'SELECT count() FROM t', '&database=d'));
      assert.equal((await n.text()).trim(), '2');
      const p = await client.query({
        query: 'SELECT {x:UInt8} + 1 AS y',
        format: 'JSONEachRow',
        query_params: { x: 5 },
      });
      assert.deepEqual(await p.json(), [{ y: 6 }]);
      // After `database=d` the next statement is back in the session's home: `default`, the Atomic
      // database the host creates (1.4.1's own `_local`, engine Overlay, keeps no tables).
      const cur = await text(srv.url, 'SELECT currentDatabase()');
      assert.equal(cur.body.trim(), 'default');
      const db = await text(srv.url, "SELECT engine FROM system.databases WHERE name = 'default'");
      assert.equal(db.body.trim(), 'Atomic');
      // A table created without a database is kept from one statement (one fresh engine) to the next.
      assert.equal(
        (await text(srv.url, 'CREATE TABLE IF NOT EXISTS kept (n UInt8) ENGINE = MergeTree ORDER BY n')).status,
        200,
      );
      assert.equal((await text(srv.url, 'INSERT INTO kept SELECT number FROM numbers(3)')).status, 200);
      assert.equal((await text(srv.url, 'SELECT count() FROM default.kept')).body.trim(), '3');
      assert.match((await text(srv.url, 'SHOW CREATE TABLE kept')).body, /CREATE TABLE default\.kept/);
    });
  },
);
