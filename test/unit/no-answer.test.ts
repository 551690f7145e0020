/**
 * "The server answered with an error" versus "the server did not answer" (src/clickhouse/no-answer.ts),
 * on errors the real `@clickhouse/client` raises against loopback sockets made here (no ClickHouse):
 * a closed port, a connection reset on receipt, a request that is never answered, and HTTP answers
 * carrying ClickHouse exceptions in the 26.x and 18.16 forms (texts from test/fixtures/server-errors.json).
 * Also the capability probe on a closed port: it stops at its first statement, naming it and the target.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ClickHouseLogLevel, createClient as openClient, type ClickHouseClient } from '@clickhouse/client';
import { freePort } from '../../src/lib/net';
import {
  classifyFailure,
  isRequestTimeout,
  isServerAnswer,
  isTargetGone,
  serverDidNotAnswer,
} from '../../src/clickhouse/no-answer';
import { isTargetGone as isTargetGoneFromActivities } from '../../src/activities/support/attempts';
import { probeServer, ProbeInterruptedError } from '../../src/clickhouse/probe';
import { FAILURE, NON_RETRYABLE, RETRIED_FAILURES } from '../../src/schema/failures';
import { REPO_ROOT } from '../../src/config';

const fixtures = JSON.parse(
  readFileSync(path.join(REPO_ROOT, 'test', 'fixtures', 'server-errors.json'), 'utf8'),
) as Record<string, Record<string, { http_status: number; body: string }>>;

/** A client of `url` that does not log the errors this file provokes. */
const createClient = (o: { url: string; request_timeout?: number }) =>
  openClient({ ...o, log: { level: ClickHouseLogLevel.OFF } });

/** The error `client.query` rejects with (fails the test when it resolves). */
async function errorOf(client: ClickHouseClient, sql = 'SELECT 1'): Promise<unknown> {
  try {
    await (await client.query({ query: sql, format: 'JSONEachRow' })).json();
  } catch (e) {
    return e;
  } finally {
    await client.close();
  }
  assert.fail(`${sql} did not fail`);
}

/** `srv` listening on a free loopback port: its URL, and a close. */
async function listening(srv: net.Server): Promise<{ url: string; close: () => Promise<void> }> {
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => srv.close(() => r())),
  };
}

test('a closed port (ECONNREFUSED): no answer; gone', async () => {
  const e = await errorOf(createClient({ url: `http://127.0.0.1:${await freePort()}` }));
  assert.equal(classifyFailure(e), 'no-answer', String(e));
  assert.ok(isTargetGone(e) && serverDidNotAnswer(e) && !isServerAnswer(e));
});

test('a connection reset on receipt (a server process dying mid-request): no answer; gone', async () => {
  const srv = net.createServer((s) => s.resetAndDestroy());
  const { url, close } = await listening(srv);
  try {
    const e = await errorOf(createClient({ url }));
    assert.equal(classifyFailure(e), 'no-answer', String(e));
    assert.ok(isTargetGone(e), String(e));
  } finally {
    await close();
  }
});

test('a request never answered within request_timeout: no answer (timeout), not "gone"', async () => {
  const held: net.Socket[] = [];
  const srv = net.createServer((s) => void held.push(s));
  const { url, close } = await listening(srv);
  try {
    const e = await errorOf(createClient({ url, request_timeout: 300 }));
    assert.equal(classifyFailure(e), 'no-answer', String(e));
    assert.ok(isRequestTimeout(e), String(e));
    assert.ok(!isTargetGone(e), 'a timeout is not a lost server (steps do not re-provision on it)');
  } finally {
    for (const s of held) s.destroy();
    await close();
  }
});

/** An HTTP server answering every request with `status`, `body` and ClickHouse's exception header. */
function answering(status: number, body: string, code?: string): http.Server {
  return http.createServer((req, res) => {
    req.resume();
    res.writeHead(status, {
      'Content-Type': 'text/plain; charset=UTF-8',
      ...(code ? { 'X-ClickHouse-Exception-Code': code } : {}),
    });
    res.end(body);
  });
}

test('ClickHouse exceptions (26.x and 18.16 forms, one quoting a refused connection): the server answered', async () => {
  const cases = [
    {
      what: 'embedded 26.x UNKNOWN_TABLE',
      ...fixtures['26.x']['SELECT * FROM no_such_table'],
      code: '60',
    },
    { what: '18.16 code 60 (no name)', ...fixtures['18.16']['SELECT * FROM no_such_table'], code: '60' },
    {
      what: 'an exception whose text mentions a refused connection (a remote() table function)',
      http_status: 500,
      body: 'Code: 279. DB::Exception: All connection tries failed. Log: Connection refused (127.0.0.1:1, ECONNREFUSED). (ALL_CONNECTION_TRIES_FAILED) (version 26.7.2.1)\n',
      code: '279',
    },
  ];
  for (const c of cases) {
    const { url, close } = await listening(answering(c.http_status, c.body, c.code));
    try {
      const e = await errorOf(createClient({ url }));
      assert.equal(classifyFailure(e), 'server-error', `${c.what}: ${String(e)}`);
      assert.ok(isServerAnswer(e) && !serverDidNotAnswer(e), c.what);
    } finally {
      await close();
    }
  }
});

test('other errors (a body the client cannot parse) are neither an answer nor "no answer"', async () => {
  const srv = http.createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end('{"name": not json\n');
  });
  const { url, close } = await listening(srv);
  try {
    const e = await errorOf(createClient({ url }));
    assert.equal(classifyFailure(e), 'other', String(e));
  } finally {
    await close();
  }
});

test('isTargetGone: one definition, the activities export is the library one; the cause chain is followed', () => {
  assert.equal(isTargetGoneFromActivities, isTargetGone);
  const wrapped = new Error('provision failed', {
    cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }),
  });
  assert.ok(isTargetGone(wrapped) && serverDidNotAnswer(wrapped));
  assert.ok(!isTargetGone(new Error('Code: 60. DB::Exception: Unknown table (UNKNOWN_TABLE)')));
});

test('the probe on a server that does not answer stops at its first statement, naming it and the target; nothing is returned', async () => {
  const url = `http://127.0.0.1:${await freePort()}`;
  const client = createClient({ url });
  try {
    await assert.rejects(probeServer(client, '26.9.2.1', { target: `embedded target ${url}` }), (e: unknown) => {
      assert.ok(e instanceof ProbeInterruptedError, String(e));
      assert.equal(e.index, 1);
      assert.equal(e.statement, 'SELECT name FROM system.settings WHERE NOT is_obsolete');
      assert.equal(e.target, `embedded target ${url}`);
      assert.match(
        e.message,
        /^the ClickHouse server \(embedded target http:\/\/127\.0\.0\.1:\d+\) stopped answering during the capability probe, at statement 1 `SELECT name FROM system\.settings WHERE NOT is_obsolete`: .*ECONNREFUSED/,
      );
      assert.ok(isTargetGone(e), 'its cause is the client error: a step that probes sees a lost server');
      return true;
    });
  } finally {
    await client.close();
  }
});

test('ProbeInterrupted is the one failure type chbench raises that is retried (by type; the flag ends it)', () => {
  assert.deepEqual(RETRIED_FAILURES, [FAILURE.ProbeInterrupted]);
  assert.ok(!NON_RETRYABLE.includes(FAILURE.ProbeInterrupted));
});
