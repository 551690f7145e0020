/**
 * Local target end to end with the real ClickHouse server binary (Debian's clickhouse-server 18.16
 * on this machine; CI installs it). No mocks. The binary is taken from CHBENCH_CLICKHOUSE_SERVER,
 * else the first of /usr/bin/clickhouse-server, /usr/sbin/clickhouse-server that exists; when none
 * exists the test FAILS (it does not skip).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';
import { ApplicationFailure } from '@temporalio/common';
import { localServerCommand, localTarget, provisionLocal, teardownLocal } from '../../src/targets/local';
import { FAILURE } from '../../src/schema/failures';
import { isAlive, processMentions, readLabel } from '../../src/targets/process';
import type { ProvisionRequest, TargetHandle } from '../../src/schema/target';

/** The expected errors would otherwise be logged by the client. */
const QUIET = { level: ClickHouseLogLevel.OFF };

const CANDIDATES = ['/usr/bin/clickhouse-server', '/usr/sbin/clickhouse-server'];

function serverBinary(): string {
  const fromEnv = process.env.CHBENCH_CLICKHOUSE_SERVER;
  if (fromEnv) {
    assert.ok(
      fs.existsSync(fromEnv),
      `CHBENCH_CLICKHOUSE_SERVER=${fromEnv} does not exist. Run ./scripts/setup.sh --with-debian-clickhouse (CI does) or point it at a server binary.`,
    );
    return fromEnv;
  }
  const found = CANDIDATES.find((p) => fs.existsSync(p));
  if (!found) {
    assert.fail(
      `No ClickHouse server binary at ${CANDIDATES.join(' or ')}: run ./scripts/setup.sh --with-debian-clickhouse ` +
        `(CI does), or set CHBENCH_CLICKHOUSE_SERVER to a server binary.`,
    );
  }
  return found;
}

describe('local target (ClickHouse server binary per cell)', { timeout: 240_000 }, () => {
  let workDir: string;
  let req: ProvisionRequest;
  let handle: TargetHandle | undefined;
  let client: ClickHouseClient | undefined;

  before(() => {
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-local-test-'));
    req = { runId: `local-run-${randomUUID().slice(0, 8)}`, cellKey: 'cell:18.16', version: '18.16', workDir };
  });

  after(async () => {
    await client?.close();
    if (handle) await teardownLocal(handle).catch(() => undefined);
    fs.rmSync(workDir, { recursive: true, force: true });
  });

  it('builds the command line for both binary layouts', () => {
    assert.deepEqual(localServerCommand('/opt/ch/clickhouse', '/d/config.xml'), {
      command: '/opt/ch/clickhouse',
      args: ['server', '--config-file=/d/config.xml'],
    });
    assert.deepEqual(localServerCommand('/usr/sbin/clickhouse-server', '/d/config.xml'), {
      command: '/usr/sbin/clickhouse-server',
      args: ['--config-file=/d/config.xml'],
    });
  });

  it('starts the server with a generated config and answers ping and version()', async () => {
    const bin = serverBinary();
    handle = await provisionLocal(req, bin);
    assert.equal(handle.kind, 'local');
    assert.match(handle.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.ok(handle.pid && isAlive(handle.pid));
    assert.ok(handle.dataDir && processMentions(handle.pid, handle.dataDir));
    assert.ok(fs.existsSync(path.join(handle.dataDir, 'config.xml')));
    assert.match(
      handle.provisionedBy,
      new RegExp(
        `^${bin.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} 18\\.16[\\d.]* in pid ${handle.pid} \\(generated config .*config\\.xml\\)$`,
      ),
    );
    const label = readLabel(handle.dataDir);
    assert.equal(label?.runId, req.runId);
    assert.ok(label?.ports.tcp && label.ports.tcp !== label.ports.http);

    // The server requires the cell's password (kept in a 0600 file the handle names; only its sha256 in users.xml).
    assert.equal(handle.passwordFile, path.join(handle.dataDir, 'credential'));
    assert.equal(fs.statSync(handle.passwordFile).mode & 0o777, 0o600);
    const password = fs.readFileSync(handle.passwordFile, 'utf8').trim();
    assert.match(password, /^[0-9a-f]{48}$/);
    assert.doesNotMatch(fs.readFileSync(path.join(handle.dataDir, 'users.xml'), 'utf8'), new RegExp(password));
    const anonymous = await fetch(`${handle.url}/?query=${encodeURIComponent('SELECT 1')}`);
    assert.notEqual(anonymous.status, 200, 'no statement answers without the password');
    assert.match(await anonymous.text(), /Code: (192|193|194|516)/);
    client = createClient({ url: handle.url, username: 'default', password, log: QUIET });
    assert.equal((await client.ping()).success, true);
    const rs = await client.query({ query: 'SELECT version() AS v', format: 'JSONEachRow' });
    const [{ v }] = await rs.json<{ v: string }>();
    assert.match(v, /^18\./);
  });

  it('logs queries: the query_id is in system.query_log after SYSTEM FLUSH LOGS', async () => {
    assert.ok(client);
    const queryId = `chbench-${randomUUID()}`;
    const rs = await client.query({
      query: 'SELECT sum(number) AS s FROM numbers(1000)',
      query_id: queryId,
      format: 'JSONEachRow',
    });
    assert.equal(rs.query_id, queryId);
    assert.deepEqual(await rs.json(), [{ s: '499500' }]);
    await client.command({ query: 'SYSTEM FLUSH LOGS' });
    // 18.16 has no HTTP query parameters (param_id is taken for an unknown setting): inline the id
    // (a UUID with a fixed prefix, safe to quote).
    const log = await client.query({
      query: `SELECT type, read_rows FROM system.query_log WHERE query_id = '${queryId}' ORDER BY event_time`,
      format: 'JSONEachRow',
    });
    const rows = await log.json<{ type: number | string; read_rows: string }>();
    assert.ok(rows.length >= 1, `query_log rows for ${queryId}: ${JSON.stringify(rows)}`);
    // 18.16 has numeric `type` (2 = QueryFinish); newer versions an Enum name.
    assert.ok(rows.some((r) => String(r.type) === '2' || r.type === 'QueryFinish'));
    assert.ok(rows.some((r) => r.read_rows === '1000'));
  });

  it('adopts the running server when provisioned again', async () => {
    assert.ok(handle);
    const again = await provisionLocal(req, serverBinary());
    assert.deepEqual(again, handle);
  });

  it('a binary labelled with another version is refused as VersionMismatch (non-retryable), and its server stopped', async () => {
    const wrong = { ...req, cellKey: 'cell:24.8', version: '24.8' };
    const err = await provisionLocal(wrong, serverBinary()).then(
      () => assert.fail('provisioned a 18.16 binary as 24.8'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof ApplicationFailure, String(err));
    assert.equal(err.type, FAILURE.VersionMismatch);
    assert.equal(err.nonRetryable, true);
    assert.match(err.message, /is ClickHouse 18\.16\.[\d.]+, but the cell asks for version 24\.8/);
    // The wrong server was stopped and its directory removed: nothing of it is left to adopt.
    assert.equal(fs.existsSync(path.join(workDir, req.runId.replace(/[^A-Za-z0-9._-]/g, '_'), 'cell_24.8')), false);
  });

  it('a missing binary, or a version without one, is MissingBinary (non-retryable)', async () => {
    for (const attempt of [
      () => provisionLocal({ ...req, cellKey: 'cell:missing' }, path.join(workDir, 'no', 'clickhouse-server')),
      async () =>
        localTarget.provision({ kind: 'local', binaries: { '18.16': serverBinary() } } as never, {
          ...req,
          cellKey: 'cell:nolabel',
          version: '24.8',
        }),
    ]) {
      const err = await attempt().then(
        () => assert.fail('provisioned without a binary'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof ApplicationFailure, String(err));
      assert.equal(err.type, FAILURE.MissingBinary);
      assert.equal(err.nonRetryable, true);
    }
  });

  it('teardown stops the server and removes the directory; twice is fine', async () => {
    assert.ok(handle);
    const pid = handle.pid as number;
    const dir = handle.dataDir as string;
    await client?.close();
    client = undefined;
    await teardownLocal(handle);
    assert.equal(isAlive(pid), false);
    assert.equal(fs.existsSync(dir), false);
    await teardownLocal(handle);
    handle = undefined;
  });
});
