/**
 * Embedded target end to end, with the real chdb engine in a separate process and the real
 * @clickhouse/client over HTTP on 127.0.0.1. No mocks.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { ClickHouseError, ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';
import { provisionEmbedded, teardownEmbedded } from '../../src/targets/embedded';
import { _internal } from '../../src/engine/server';
import { httpGet, isAlive, LABEL_FILE, processMentions, readLabel } from '../../src/targets/process';
import type { ProvisionRequest, TargetHandle } from '../../src/schema/target';
import { pollUntil } from '../../src/lib/poll';
import { authHeaders, targetPassword } from '../../src/clickhouse/client';
import { spawnSync } from 'node:child_process';

/** The expected errors would otherwise be logged by the client. */
const QUIET = { level: ClickHouseLogLevel.OFF };

interface Running {
  query_id: string;
  state: 'running' | 'queued';
  started_at_ms: number | null;
  sql_head: string;
}

/** The provisioned cell's credential headers (its server requires them: `--auth-from-env`). */
let auth: Record<string, string> = {};

async function running(url: string): Promise<Running[]> {
  return JSON.parse((await httpGet(`${url}/chbench/running`, 5000, auth)).body) as Running[];
}

/** Wait (at most 20 s, checking every 20 ms) until `cond` holds; an error of `cond` ends the wait. */
async function waitUntil(what: string, cond: () => Promise<boolean>): Promise<void> {
  await pollUntil(cond, { what, timeoutMs: 20_000, intervalMs: 20, stopOn: () => true });
}

function summaryOf(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const raw = headers['x-clickhouse-summary'];
  assert.equal(typeof raw, 'string', 'x-clickhouse-summary header present');
  return JSON.parse(raw as string) as Record<string, string>;
}

describe('embedded target (chdb in a separate process)', { timeout: 180_000 }, () => {
  let workDir: string;
  let req: ProvisionRequest;
  let handle: TargetHandle;
  let client: ClickHouseClient;
  const started: TargetHandle[] = [];

  before(async () => {
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-embedded-test-'));
    req = { runId: `test/run ${randomUUID().slice(0, 8)}`, cellKey: 'cell-a', version: '26.7', workDir };
  });

  after(async () => {
    await client?.close();
    for (const h of started) await teardownEmbedded(h).catch(() => undefined);
    fs.rmSync(workDir, { recursive: true, force: true });
  });

  it('provisions a separate process with a label, on loopback', async () => {
    handle = await provisionEmbedded(req);
    started.push(handle);
    assert.equal(handle.kind, 'embedded');
    assert.match(handle.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(handle.database, 'default');
    assert.equal(handle.username, 'default');
    assert.ok(handle.pid && handle.pid !== process.pid && isAlive(handle.pid));
    assert.ok(handle.dataDir && handle.dataDir.startsWith(workDir) && fs.existsSync(handle.dataDir));
    assert.ok(processMentions(handle.pid, handle.dataDir), 'the server command line names its data dir');
    assert.match(
      handle.provisionedBy,
      new RegExp(`^npm chdb@3\\.4\\.0 \\(ClickHouse 26\\.7\\.[\\d.]+\\) in pid ${handle.pid}, separate process$`),
    );
    const label = readLabel(handle.dataDir);
    assert.ok(label && fs.existsSync(path.join(handle.dataDir, LABEL_FILE)));
    assert.equal(label.runId, req.runId);
    assert.equal(label.cellKey, req.cellKey);
    assert.equal(label.pid, handle.pid);
    assert.equal(label.url, handle.url);
    auth = authHeaders(handle);
    client = createClient({
      url: handle.url,
      username: handle.username,
      password: targetPassword(handle),
      request_timeout: 120_000,
      log: QUIET,
    });
  });

  it('answers only with its credential: a random password in a file only the worker can read, the directory closed', async () => {
    assert.equal(handle.passwordFile, path.join(handle.dataDir!, 'credential'));
    assert.equal(fs.statSync(handle.passwordFile!).mode & 0o777, 0o600);
    assert.equal(fs.statSync(handle.dataDir!).mode & 0o777, 0o700);
    assert.match(fs.readFileSync(handle.passwordFile!, 'utf8').trim(), /^[0-9a-f]{48}$/);
    // No credential, or a wrong one: refused as ClickHouse refuses (516); the ping stays open.
    for (const headers of [{}, { 'X-ClickHouse-User': 'default', 'X-ClickHouse-Key': 'guess' }] as Record<
      string,
      string
    >[]) {
      const r = await fetch(`${handle.url}/?query=${encodeURIComponent('SELECT 1')}`, { headers });
      assert.equal(r.status, 403);
      assert.equal(r.headers.get('x-clickhouse-exception-code'), '516');
    }
    assert.equal((await httpGet(`${handle.url}/chbench/running`, 5000)).status, 403);
    assert.equal((await httpGet(`${handle.url}/ping`, 5000)).body, 'Ok.\n');
    const ok = await fetch(`${handle.url}/?query=${encodeURIComponent('SELECT 1')}`, { headers: auth });
    assert.equal((await ok.text()).trim(), '1');
  });

  it('as another local user (uid 65534): the credential and the port file cannot be read, and no statement answers', async (t) => {
    if (process.getuid?.() !== 0 || !fs.existsSync('/usr/bin/setpriv')) return t.skip('needs root and setpriv');
    const asNobody = (args: string[]) =>
      spawnSync('/usr/bin/setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', ...args], {
        encoding: 'utf8',
        timeout: 30_000,
      });
    for (const f of [handle.passwordFile!, path.join(handle.dataDir!, 'port')]) {
      const r = asNobody(['cat', f]);
      assert.notEqual(r.status, 0, `${f} read as nobody`);
      assert.match(r.stderr, /Permission denied/);
    }
    // The port is no secret on loopback (ss shows it): knowing it, nobody still gets 516 for any statement.
    const probe = asNobody([
      process.execPath,
      '-e',
      `fetch(${JSON.stringify(`${handle.url}/?query=${encodeURIComponent("SELECT * FROM file('/etc/shadow', 'LineAsString')")}`)}).then(async (r) => console.log(r.status, r.headers.get('x-clickhouse-exception-code')))`,
    ]);
    assert.equal(probe.stdout.trim(), '403 516', probe.stderr);
  });

  it('with the credential: nothing reaches a file, a URL or a process (291, nothing written); the engine data stays usable', async () => {
    const outside = path.join(handle.dataDir!, '..', `outside-${randomUUID()}`);
    const refused = [
      "SELECT * FROM file('/etc/shadow', 'LineAsString')",
      "SELECT file('/etc/hostname')",
      "SELECT 1 AS \"#\", line FROM file('/etc/shadow', 'LineAsString')",
      "SELECT $$'$$, line FROM `file`('/etc/shadow', 'LineAsString')",
      `SELECT 1 INTO OUTFILE '${outside}' FORMAT TSV`,
      `INSERT INTO FUNCTION file('${outside}', 'TSV', 'x UInt8') VALUES (1)`,
      `CREATE TABLE leak (x UInt8) ENGINE = File(TSV, '${outside}')`,
      "SELECT * FROM url('http://127.0.0.1:1/', 'TSV', 'x String')",
      "SELECT * FROM executable('cat /etc/shadow', 'TSV', 'x String')",
      "SELECT * FROM remote('127.0.0.1:9000', system.one)",
    ];
    for (const q of refused) {
      const r = await fetch(`${handle.url}/?query=${encodeURIComponent(q)}`, { method: 'POST', headers: auth });
      const text = await r.text();
      assert.equal(r.headers.get('x-clickhouse-exception-code'), '291', `${q} → ${r.status} ${text}`);
      assert.doesNotMatch(text, /root:/);
    }
    assert.equal(fs.existsSync(outside), false, 'nothing written outside the data folder');
    // The engine still answers a plain statement, and a string that merely mentions file( is data.
    const ok = await fetch(`${handle.url}/?query=${encodeURIComponent("SELECT 'file(1)' AS s")}`, { headers: auth });
    assert.equal((await ok.text()).trim(), 'file(1)');
  });

  it('answers ping', async () => {
    const r = await client.ping();
    assert.equal(r.success, true);
  });

  it('creates a MergeTree table and inserts JSONEachRow rows (written_rows measured)', async () => {
    await client.command({
      query: 'CREATE TABLE t (id UInt64, name String, ts DateTime64(3)) ENGINE = MergeTree ORDER BY id',
    });
    const rows = [1, 2, 3, 4, 5].map((i) => ({ id: i, name: `n${i}`, ts: '2026-11-29 12:00:00.000' }));
    const ins = await client.insert({ table: 't', values: rows, format: 'JSONEachRow' });
    assert.equal(ins.executed, true);
    assert.equal(ins.summary?.written_rows, '5');
    // INSERT … SELECT: written rows are not measured, so they must be absent (not "0").
    const cmd = await client.command({ query: "INSERT INTO t SELECT number + 100, 'gen', now64(3) FROM numbers(995)" });
    assert.equal(summaryOf(cmd.response_headers).written_rows, undefined);
    assert.match(String(cmd.response_headers['x-chbench-unmeasured']), /written_rows/);
  });

  it('inserts binary formats (RowBinary, Native), the statement in the query parameter or at the head of the body; backquoted names', async () => {
    await client.command({ query: 'CREATE TABLE bin (id UInt64, name String) ENGINE = MergeTree ORDER BY id' });
    // RowBinary: UInt64 little-endian, then String as a LEB128 length and its bytes (a NUL byte included).
    const rowBinary = (ids: number[]) =>
      Buffer.concat(
        ids.flatMap((i) => {
          const n = Buffer.alloc(8);
          n.writeBigUInt64LE(BigInt(i));
          const name = Buffer.from(`n\u0000${i}`);
          return [n, Buffer.from([name.length]), name];
        }),
      );
    const post = async (query: string | undefined, body: Buffer) => {
      const url = `${handle.url}/?${query ? `query=${encodeURIComponent(query)}&` : ''}query_id=bin-${randomUUID()}`;
      const r = await fetch(url, { method: 'POST', body, headers: auth });
      return { status: r.status, text: await r.text() };
    };
    assert.deepEqual(await post('INSERT INTO `bin` (`id`, name) FORMAT RowBinary', rowBinary([1, 2, 3])), {
      status: 200,
      text: '',
    });
    const inBody = await post(
      undefined,
      Buffer.concat([Buffer.from('INSERT INTO bin FORMAT RowBinary\n'), rowBinary([4, 5])]),
    );
    assert.equal(inBody.status, 200, inBody.text);
    // Native, produced by the engine itself, inserted back.
    const native = await fetch(
      `${handle.url}/?query=${encodeURIComponent("SELECT number + 10 AS id, concat('x', toString(number)) AS name FROM numbers(4) FORMAT Native")}`,
      { headers: auth },
    );
    assert.equal((await post('INSERT INTO bin FORMAT Native', Buffer.from(await native.arrayBuffer()))).status, 200);
    // A text format with a backquoted table name (what chbench's inserter sends) goes through chdb's raw insert.
    assert.equal(
      (await post('INSERT INTO `bin` (`id`, `name`) FORMAT JSONEachRow', Buffer.from('{"id":20,"name":"j"}\n'))).status,
      200,
    );
    const rs = await client.query({ query: 'SELECT id, name FROM bin ORDER BY id', format: 'JSONEachRow' });
    const rows = await rs.json<{ id: string | number; name: string }>();
    assert.deepEqual(
      rows.map((r) => [Number(r.id), r.name]),
      [
        [1, 'n\u00001'],
        [2, 'n\u00002'],
        [3, 'n\u00003'],
        [4, 'n\u00004'],
        [5, 'n\u00005'],
        [10, 'x0'],
        [11, 'x1'],
        [12, 'x2'],
        [13, 'x3'],
        [20, 'j'],
      ],
      'every row exactly once, bytes intact (no garbage rows from binary data read as SQL)',
    );
    const left = fs.existsSync(path.join(handle.dataDir!, 'insert-bodies'))
      ? fs.readdirSync(path.join(handle.dataDir!, 'insert-bodies'))
      : [];
    assert.deepEqual(left, [], 'body files are removed after each insert');
  });

  it('echoes query_id and reports the engine-measured summary', async () => {
    const queryId = `q-${randomUUID()}`;
    // wait_end_of_query=1: the result is buffered and the summary holds the engine's figures.
    const sql = "SELECT count() AS c, sum(id) AS s FROM t WHERE name != ''";
    const rs = await client.query({
      query: sql,
      query_id: queryId,
      format: 'JSON',
      clickhouse_settings: { wait_end_of_query: 1 },
    });
    assert.equal(rs.query_id, queryId);
    const body = await rs.json<{ c: string | number; s: string | number }>();
    // ClickHouse 26.7 defaults output_format_json_quote_64bit_integers to 0: UInt64 comes unquoted.
    assert.equal(Number(body.data[0].c), 1000);
    assert.equal(rs.response_headers['x-clickhouse-query-id'], queryId);
    const s = summaryOf(rs.response_headers);
    assert.equal(s.read_rows, '1000', 'read_rows = rows scanned');
    assert.ok(Number(s.read_bytes) > 0);
    assert.equal(s.result_rows, '1');
    assert.ok(Number(s.elapsed_ns) > 0);
    assert.equal(s.written_rows, undefined);
    assert.equal(rs.response_headers['x-clickhouse-format'], 'JSON');
    assert.match(String(rs.response_headers['x-clickhouse-timezone']), /\S/);
    assert.match(String(rs.response_headers['x-chbench-engine']), /^chdb 3\.4\.0$/);
    assert.equal(rs.response_headers['x-chbench-result'], 'buffered');
    assert.match(String(rs.response_headers['x-clickhouse-exception-tag']), /^[a-z0-9]{16}$/);

    // Without it the result is streamed: nothing was measured when the headers went out.
    const rsS = await client.query({ query: sql, format: 'JSON' });
    const bodyS = await rsS.json<{ c: string | number }>();
    assert.equal(Number(bodyS.data[0].c), 1000);
    assert.equal(rsS.response_headers['x-chbench-result'], 'streamed');
    assert.deepEqual(summaryOf(rsS.response_headers), {});
    assert.match(String(rsS.response_headers['x-chbench-unmeasured']), /read_rows.*elapsed_ns/);
    assert.ok((bodyS.statistics as { elapsed?: number }).elapsed! > 0);
    assert.equal((bodyS.statistics as { rows_read?: number }).rows_read, undefined);

    // A format without a statistics block: read_rows is unmeasured, hence omitted; result_rows stays.
    const rs2 = await client.query({
      query: 'SELECT id FROM t WHERE id > 1000 ORDER BY id',
      format: 'JSONEachRow',
      clickhouse_settings: { wait_end_of_query: 1 },
    });
    const ids = await rs2.json<{ id: string | number }>();
    assert.equal(ids.length, 94);
    const s2 = summaryOf(rs2.response_headers);
    assert.equal(s2.read_rows, undefined);
    assert.equal(s2.result_rows, '94');
    assert.match(String(rs2.response_headers['x-chbench-unmeasured']), /read_rows/);
  });

  it('applies clickhouse_settings for one statement only', async () => {
    const get = async (settings?: Record<string, number>) => {
      const rs = await client.query({
        query: "SELECT getSetting('max_threads') AS v",
        format: 'JSONEachRow',
        clickhouse_settings: settings,
      });
      return Number((await rs.json<{ v: string | number }>())[0].v);
    };
    const before = await get();
    assert.equal(await get({ max_threads: 3 }), 3);
    assert.equal(await get(), before, 'reset afterwards');
    assert.notEqual(before, 3);
  });

  it('compatibility for one statement: the defaults it changed are back for the next statement', async () => {
    // 26.7 ships output_format_json_quote_64bit_integers = 0 and use_query_condition_cache = 1; 24.8
    // had 1 and no cache. `SET compatibility = DEFAULT` alone leaves them at 24.8's values.
    const read = async (settings?: Record<string, string>) => {
      const rs = await client.query({
        query:
          "SELECT name, value FROM system.settings WHERE name IN ('output_format_json_quote_64bit_integers', 'use_query_condition_cache', 'compatibility') ORDER BY name",
        format: 'JSONEachRow',
        clickhouse_settings: settings,
      });
      return Object.fromEntries((await rs.json<{ name: string; value: string }>()).map((r) => [r.name, r.value]));
    };
    const shipped = await read();
    assert.equal(shipped.output_format_json_quote_64bit_integers, '0', JSON.stringify(shipped));
    const pinned = await read({ compatibility: '24.8' });
    assert.equal(pinned.compatibility, '24.8');
    assert.equal(pinned.output_format_json_quote_64bit_integers, '1', 'pinned to 24.8: quoted 64-bit integers');
    assert.deepEqual(await read(), shipped, 'the next statement has the shipped defaults again');
  });

  it('honours database and query parameters', async () => {
    await client.command({ query: 'CREATE DATABASE IF NOT EXISTS other' });
    const other = createClient({
      url: handle.url,
      username: 'default',
      password: targetPassword(handle),
      database: 'other',
      log: QUIET,
    });
    try {
      const rs = await other.query({
        query: 'SELECT currentDatabase() AS d, {x:String} AS x, {n:UInt8} + 1 AS n',
        format: 'JSONEachRow',
        query_params: { x: "it's\ta", n: 41 },
      });
      assert.deepEqual(await rs.json(), [{ d: 'other', x: "it's\ta", n: 42 }]);
    } finally {
      await other.close();
    }
    const rs = await client.query({ query: 'SELECT currentDatabase() AS d', format: 'JSONEachRow' });
    assert.deepEqual(await rs.json(), [{ d: 'default' }]);
  });

  it('maps engine errors to ClickHouseError with code and type', async () => {
    await assert.rejects(client.query({ query: 'SELECT * FROM no_such_table', format: 'JSON' }), (e: unknown) => {
      assert.ok(e instanceof ClickHouseError, `ClickHouseError, got ${String(e)}`);
      assert.equal(e.code, '60');
      assert.equal(e.type, 'UNKNOWN_TABLE');
      return true;
    });
    await assert.rejects(
      client.command({ query: 'SELECT 1; SELECT 2' }),
      (e: unknown) => e instanceof ClickHouseError && e.code === '62',
    );
  });

  it('answers /ping during a long query, lists running/queued ids, kills a queued one only', async () => {
    const longId = `long-${randomUUID()}`;
    const queuedId = `queued-${randomUUID()}`;
    const long = client.query({
      query: 'SELECT sum(cityHash64(number)) AS s FROM numbers(2000000000)',
      query_id: longId,
      format: 'JSONEachRow',
      // Buffered (wait_end_of_query=1): KILL reaches it through a second chdb session (system.processes).
      clickhouse_settings: { output_format_json_quote_64bit_integers: 1, wait_end_of_query: 1 },
    });
    await waitUntil('long query running', async () =>
      (await running(handle.url)).some((r) => r.query_id === longId && r.state === 'running'),
    );
    const t0 = Date.now();
    assert.equal((await client.ping()).success, true);
    const pingMs = Date.now() - t0;
    assert.ok(pingMs < 500, `ping took ${pingMs} ms while a query ran`);

    const queued = client.query({ query: 'SELECT 1', query_id: queuedId, format: 'JSONEachRow' });
    const queuedOutcome = queued.then(
      () => 'resolved',
      (e: unknown) => e,
    );
    await waitUntil('second query queued', async () =>
      (await running(handle.url)).some(
        (r) => r.query_id === queuedId && r.state === 'queued' && r.started_at_ms === null,
      ),
    );
    const list = await running(handle.url);
    const longEntry = list.find((r) => r.query_id === longId);
    assert.ok(
      longEntry && typeof longEntry.started_at_ms === 'number' && longEntry.sql_head.includes('numbers(2000000000)'),
    );

    // The same query_id cannot run twice.
    await assert.rejects(
      client.query({ query: 'SELECT 2', query_id: longId }),
      (e: unknown) => e instanceof ClickHouseError && e.code === '216',
    );
    const longOutcome = long.then(
      () => 'resolved',
      (e: unknown) => e,
    );
    // A queued one is removed and fails with QUERY_WAS_CANCELLED.
    const kill = await client.query({ query: `KILL QUERY WHERE query_id = '${queuedId}' SYNC`, format: 'JSONEachRow' });
    assert.deepEqual(
      (await kill.json<{ kill_status: string; query_id: string }>()).map((r) => [r.kill_status, r.query_id]),
      [['finished', queuedId]],
    );
    const err = await queuedOutcome;
    assert.ok(
      err instanceof ClickHouseError && err.code === '394' && err.type === 'QUERY_WAS_CANCELLED',
      `queued query cancelled, got ${String(err)}`,
    );

    // The running buffered statement is killed from a second session (chdb 3.4.0: concurrentSessions)
    // and fails with QUERY_WAS_CANCELLED.
    const killRunning = await client.query({
      query: `KILL QUERY WHERE query_id = '${longId}' SYNC`,
      format: 'JSONEachRow',
    });
    assert.deepEqual(
      (await killRunning.json<{ kill_status: string; query_id: string }>()).map((r) => [r.kill_status, r.query_id]),
      [['finished', longId]],
    );
    const longErr = await longOutcome;
    assert.ok(
      longErr instanceof ClickHouseError && longErr.code === '394',
      `running buffered query killed, got ${String(longErr)}`,
    );
    assert.deepEqual(await running(handle.url), []);
  });

  it('adopts the running server when provisioned again, even by two attempts at once', async () => {
    const [a, b] = await Promise.all([provisionEmbedded(req), provisionEmbedded(req)]);
    assert.deepEqual(a, handle);
    assert.deepEqual(b, handle);
  });

  it('restarts on the same data when the process died (retry after a crash)', async () => {
    const oldPid = handle.pid as number;
    process.kill(oldPid, 'SIGKILL');
    await waitUntil('killed server gone', async () => !isAlive(oldPid));
    const fresh = await provisionEmbedded(req);
    started.push(fresh);
    assert.notEqual(fresh.pid, oldPid);
    assert.equal(fresh.dataDir, handle.dataDir);
    // The same cell's credential (kept in its directory): the restarted server takes the same password.
    assert.equal(fresh.passwordFile, handle.passwordFile);
    const c2 = createClient({ url: fresh.url, username: 'default', password: targetPassword(fresh), log: QUIET });
    try {
      const rs = await c2.query({
        query: 'SELECT count() AS c FROM t',
        format: 'JSONEachRow',
        clickhouse_settings: { output_format_json_quote_64bit_integers: 1 },
      });
      assert.deepEqual(await rs.json(), [{ c: '1000' }]);
    } finally {
      await c2.close();
    }
    handle = fresh;
  });

  it('teardown lets the executing statement finish, stops the process, removes the directory; twice is fine', async () => {
    const pid = handle.pid as number;
    const dir = handle.dataDir as string;
    const c3 = createClient({
      url: handle.url,
      username: 'default',
      password: targetPassword(handle),
      log: QUIET,
      request_timeout: 120_000,
    });
    const inFlightId = `last-${randomUUID()}`;
    const last = c3.query({
      query: 'SELECT count() AS c FROM numbers(600000000) WHERE cityHash64(number) % 7 = 0',
      query_id: inFlightId,
      format: 'JSONEachRow',
    });
    await waitUntil('last query running', async () =>
      (await running(handle.url)).some((r) => r.query_id === inFlightId),
    );
    await teardownEmbedded(handle);
    const rows = await (await last).json<{ c: string | number }>();
    assert.ok(Number(rows[0].c) > 0, 'the statement executing at SIGTERM completed and was answered');
    await c3.close();
    assert.equal(isAlive(pid), false);
    assert.equal(fs.existsSync(dir), false);
    await teardownEmbedded(handle);
    started.length = 0;
  });
});

describe('embedded server: SQL shape detection', () => {
  // Pure functions of the server script (no process needed; importing it does not load chdb).

  it('finds the output FORMAT clause, not a column named format', () => {
    assert.equal(_internal.analyzeSql('SELECT 1\nFORMAT JSON').outputFormat, 'JSON');
    assert.equal(
      _internal.analyzeSql('SELECT 1 FORMAT JSONEachRow SETTINGS max_threads = 1').outputFormat,
      'JSONEachRow',
    );
    assert.equal(_internal.analyzeSql('SELECT format FROM t').outputFormat, undefined);
    assert.equal(_internal.analyzeSql("SELECT 'FORMAT CSV' -- FORMAT XML\n").outputFormat, undefined);
    assert.equal(_internal.analyzeSql('SELECT * FROM (SELECT 1 FORMAT CSV)').outputFormat, undefined);
    assert.equal(_internal.analyzeSql('INSERT INTO t FORMAT JSONEachRow').outputFormat, undefined);
    assert.equal(_internal.analyzeSql('INSERT INTO t FORMAT JSONEachRow').insertFormat, 'JSONEachRow');
  });

  it('detects multi-statements outside strings, comments and insert data', () => {
    assert.equal(_internal.analyzeSql('SELECT 1; SELECT 2').multi, true);
    assert.equal(_internal.analyzeSql('SELECT 1;').multi, false);
    assert.equal(_internal.analyzeSql("SELECT ';' /* ; x */ -- ; y\n").multi, false);
    assert.equal(_internal.analyzeSql('INSERT INTO t FORMAT CSV\n1;2\n').multi, false);
    assert.equal(_internal.analyzeSql("INSERT INTO t VALUES (1, 'a'); (2, 'b')").multi, false);
  });

  it('reads rows_read from a JSON statistics block only', () => {
    const out = Buffer.from(
      '{"data":[{"x":"\\"statistics\\": 1"}],"rows":1,\n\t"statistics":\n\t{\n\t\t"elapsed": 0.1,\n\t\t"rows_read": 1234,\n\t\t"bytes_read": 9872\n\t}\n}\n',
    );
    assert.deepEqual(_internal.statisticsFromOutput('JSON', out), { rows: '1234', bytes: '9872' });
    assert.equal(_internal.statisticsFromOutput('JSONEachRow', out), undefined);
  });
});
