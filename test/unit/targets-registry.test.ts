/**
 * The target registry and the Target contract, without any server: registration refuses a second
 * target of a kind and an incomplete capability set; every kind is registered; each kind's verbs do
 * what its capability flags say (embedded lists running statements from its endpoint and archives
 * its own statement log; the others ask system.processes and system.query_log); the spec checks of
 * each kind.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { ClickHouseClient } from '@clickhouse/client';
import {
  capabilitiesOf,
  targetOf,
  targets,
  TargetRegistry,
  type Target,
  type TargetCapabilities,
  type TargetHandle,
  type TargetKind,
} from '../../src/targets';
import { CAPABILITY_VALUES } from '../../src/targets/registry';

/** Every kind of `TargetKind`: a missing or extra key is a compile error. */
const ALL_KINDS: Record<TargetKind, true> = {
  embedded: true,
  local: true,
  external: true,
  kubernetes: true,
  docker: true,
};

const FULL: TargetCapabilities = {
  onWorkerHost: false,
  loopbackMeansWorkerHost: true,
  canKillRunning: true,
  countersWithoutQueryLog: 'none',
  summaryReadSource: 'http summary',
  runningStatementsFrom: 'system.processes',
  restartable: false,
  statementArchive: false,
};

function fake(kind: TargetKind, capabilities: Partial<TargetCapabilities> | Record<string, unknown>): Target {
  const no = () => {
    throw new Error('not used');
  };
  return {
    kind,
    capabilities: capabilities as TargetCapabilities,
    provision: no,
    teardown: no,
    teardownCell: no,
    describeTeardown: no,
    check: no,
    runningStatements: no,
    statementProgress: no,
    kill: no,
    archiveStatements: no,
    checkSpec: () => [],
  };
}

function handle(kind: TargetKind, over: Partial<TargetHandle> = {}): TargetHandle {
  return {
    kind,
    url: 'http://127.0.0.1:1',
    database: 'default',
    username: 'default',
    runId: 'r',
    cellKey: 'c',
    provisionedBy: 'test',
    ...over,
  };
}

/** A client whose `query` records the SQL and answers `rows`. */
function recordingClient(rows: unknown[]): { client: ClickHouseClient; sql: string[] } {
  const sql: string[] = [];
  const client = {
    query: async (p: { query: string }) => {
      sql.push(p.query);
      return { json: async () => rows };
    },
  } as unknown as ClickHouseClient;
  return { client, sql };
}

const unusedClient = new Proxy({}, { get: () => assert.fail('the client must not be used') }) as ClickHouseClient;

/** A closed loopback port (connections are refused). */
async function closedPort(): Promise<number> {
  const srv = http.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as AddressInfo).port;
  await new Promise((r) => srv.close(r));
  return port;
}

describe('TargetRegistry', () => {
  test('refuses a second target of the same kind', () => {
    const r = new TargetRegistry();
    r.register(fake('external', FULL));
    assert.throws(() => r.register(fake('external', FULL)), /target kind "external" is registered twice/);
    assert.deepEqual(r.kinds(), ['external']);
  });

  test('refuses incomplete, out-of-range and unknown capability flags', () => {
    const r = new TargetRegistry();
    const { statementArchive: _, ...missing } = FULL;
    assert.throws(() => r.register(fake('local', missing)), /capability statementArchive is not declared/);
    assert.throws(
      () => r.register(fake('local', { ...FULL, runningStatementsFrom: 'ps' })),
      /capability runningStatementsFrom = "ps" is not one of/,
    );
    assert.throws(
      () => r.register(fake('local', { ...FULL, dropsPageCache: true })),
      /capability dropsPageCache is unknown/,
    );
    assert.deepEqual(r.kinds(), [], 'nothing was registered');
  });

  test('an unregistered kind is an error naming the registered ones', () => {
    const r = new TargetRegistry();
    r.register(fake('embedded', { ...FULL, onWorkerHost: true }));
    assert.throws(() => r.get('local'), /no target of kind "local" is registered \(registered: embedded\)/);
    assert.equal(r.find('nonsense'), undefined);
    assert.equal(r.find('toString'), undefined, 'no prototype key is a kind');
  });
});

describe('the registered targets', () => {
  test('every TargetKind is registered, with every flag declared', () => {
    assert.deepEqual([...targets.kinds()].sort(), Object.keys(ALL_KINDS).sort());
    for (const kind of targets.kinds()) {
      const t = targetOf({ kind });
      assert.equal(t.kind, kind);
      assert.deepEqual(Object.keys(t.capabilities).sort(), Object.keys(CAPABILITY_VALUES).sort(), kind);
      assert.equal(capabilitiesOf(handle(kind)), t.capabilities);
    }
  });

  test('the flags each kind declares', () => {
    assert.deepEqual(Object.fromEntries(targets.kinds().map((k) => [k, capabilitiesOf({ kind: k })])), {
      embedded: {
        onWorkerHost: true,
        loopbackMeansWorkerHost: true,
        canKillRunning: true,
        countersWithoutQueryLog: 'system.events',
        summaryReadSource: 'output statistics',
        runningStatementsFrom: 'target endpoint',
        restartable: true,
        statementArchive: true,
      },
      local: {
        onWorkerHost: true,
        loopbackMeansWorkerHost: true,
        canKillRunning: true,
        countersWithoutQueryLog: 'none',
        summaryReadSource: 'http summary',
        runningStatementsFrom: 'system.processes',
        restartable: true,
        statementArchive: false,
      },
      external: {
        onWorkerHost: false,
        loopbackMeansWorkerHost: true,
        canKillRunning: true,
        countersWithoutQueryLog: 'none',
        summaryReadSource: 'http summary',
        runningStatementsFrom: 'system.processes',
        restartable: false,
        statementArchive: false,
      },
      kubernetes: {
        onWorkerHost: false,
        loopbackMeansWorkerHost: false,
        canKillRunning: true,
        countersWithoutQueryLog: 'none',
        summaryReadSource: 'http summary',
        runningStatementsFrom: 'system.processes',
        restartable: true,
        statementArchive: false,
      },
      docker: {
        onWorkerHost: true,
        loopbackMeansWorkerHost: true,
        canKillRunning: true,
        countersWithoutQueryLog: 'none',
        summaryReadSource: 'http summary',
        runningStatementsFrom: 'system.processes',
        restartable: true,
        statementArchive: false,
      },
    });
  });

  test('capabilitiesOf(handle) follows what answers in a kubernetes pod', () => {
    const facts = (server: string) => ({ ...handle('kubernetes'), kubernetes: { server } }) as unknown as TargetHandle;
    assert.equal(capabilitiesOf(facts('clickhouse-server')).runningStatementsFrom, 'system.processes');
    assert.deepEqual(capabilitiesOf(facts('chbench embedded engine')), {
      ...capabilitiesOf({ kind: 'embedded' }),
      onWorkerHost: false,
      loopbackMeansWorkerHost: false,
    });
    // A bare kind (no handle) gets the declared, real-server set.
    assert.equal(capabilitiesOf({ kind: 'kubernetes' }).canKillRunning, true);
  });

  test('runningStatements follows runningStatementsFrom', async () => {
    // The embedded server's endpoint, served by a stub.
    const srv = http.createServer((req, res) => {
      assert.equal(req.url, '/chbench/running');
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify([
          { query_id: 'chb-x-1', state: 'running' },
          { query_id: 'other-2', state: 'queued' },
          { query_id: 'chb-x-3', state: 'queued' },
        ]),
      );
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
    try {
      for (const kind of targets.kinds()) {
        const t = targetOf({ kind });
        if (t.capabilities.runningStatementsFrom === 'target endpoint') {
          assert.deepEqual(
            await t.runningStatements(handle(kind, { url }), unusedClient, 'chb-x'),
            ['chb-x-1', 'chb-x-3'],
            kind,
          );
        } else {
          const { client, sql } = recordingClient([{ query_id: 'chb-x-9' }]);
          assert.deepEqual(await t.runningStatements(handle(kind, { url }), client, 'chb-x'), ['chb-x-9'], kind);
          assert.match(sql[0], /FROM system\.processes WHERE substring\(query_id, 1, 5\) = 'chb-x'/, kind);
        }
      }
    } finally {
      await new Promise((r) => srv.close(r));
    }
  });

  test('archiveStatements follows statementArchive', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-targets-'));
    try {
      const log = '{"query_id":"chb-r-c-load-a1","started_at_ms":1,"finished_at_ms":2,"ok":true}\n';
      fs.writeFileSync(path.join(dir, 'statements.jsonl'), log);
      const url = `http://127.0.0.1:${await closedPort()}`;
      for (const kind of targets.kinds()) {
        const t = targetOf({ kind });
        const out = path.join(dir, `${kind}-archive.jsonl`);
        const source = await t.archiveStatements(handle(kind, { url, dataDir: dir }), 'chb-r-c', out);
        if (t.capabilities.statementArchive) {
          assert.equal(source, 'embedded statements.jsonl', kind);
          assert.equal(fs.readFileSync(out, 'utf8'), log);
        } else {
          // system.query_log of an unreachable server: reported, never thrown, the directory's log untouched.
          assert.match(source, /^not available: /, kind);
          assert.equal(fs.existsSync(out), false, kind);
        }
      }
      assert.equal(
        await targetOf({ kind: 'embedded' }).archiveStatements(
          handle('embedded', { dataDir: path.join(dir, 'none') }),
          'p',
          path.join(dir, 'x'),
        ),
        'not available: no statements.jsonl',
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('describeTeardown names what teardown removes', () => {
    assert.equal(
      targetOf({ kind: 'embedded' }).describeTeardown(handle('embedded', { pid: 12, dataDir: '/w/r/c' })),
      'stopped pid 12, removed /w/r/c',
    );
    assert.equal(
      targetOf({ kind: 'local' }).describeTeardown(handle('local', { pid: 13, dataDir: '/w/r/d' })),
      'stopped pid 13, removed /w/r/d',
    );
    assert.equal(
      targetOf({ kind: 'external' }).describeTeardown(handle('external', { database: 'chbench_r_c' })),
      'DROP DATABASE chbench_r_c',
    );
  });

  test('check reports an unreachable server without throwing', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    for (const kind of targets.kinds()) {
      const c = await targetOf({ kind }).check(handle(kind, { url }));
      assert.equal(c.reachable, false, kind);
      // A kubernetes (docker) handle is judged by its pod (container) first; this one names none.
      assert.match(
        c.error ?? '',
        kind === 'kubernetes' ? /no kubernetes facts/ : kind === 'docker' ? /no docker facts/ : /ECONNREFUSED|connect/i,
        kind,
      );
    }
  });

  test('checkSpec: local binaries, external password variable', () => {
    const local = targetOf({ kind: 'local' });
    const binaries = {
      '18.16': '/nonexistent/clickhouse-server',
      '26.7': process.execPath,
      '99.1': '/nonexistent/other',
    };
    assert.deepEqual(local.checkSpec({ kind: 'local', binaries }, ['18.16', '26.7', '24.8'], 'input'), [
      'matrix.version: version "24.8" has no way to be provisioned: target.binaries has no entry for it (has: 18.16, 26.7, 99.1)',
    ]);
    assert.deepEqual(local.checkSpec({ kind: 'local', binaries }, ['18.16', '26.7'], 'worker host'), [
      'target.binaries.18.16: "/nonexistent/clickhouse-server" is not an executable file on the worker',
    ]);
    const external = targetOf({ kind: 'external' });
    const name = 'CHBENCH_TEST_UNSET_PASSWORD_VARIABLE';
    delete process.env[name];
    assert.deepEqual(
      external.checkSpec({ kind: 'external', url: 'http://x:8123', passwordEnv: name }, [], 'input'),
      [],
    );
    assert.deepEqual(
      external.checkSpec({ kind: 'external', url: 'http://x:8123', passwordEnv: name }, [], 'worker host'),
      [`target.passwordEnv: environment variable ${name} is not set on the worker`],
    );
    process.env[name] = 'secret';
    try {
      assert.deepEqual(
        external.checkSpec({ kind: 'external', url: 'http://x:8123', passwordEnv: name }, [], 'worker host'),
        [],
      );
    } finally {
      delete process.env[name];
    }
    assert.deepEqual(targetOf({ kind: 'embedded' }).checkSpec({ kind: 'embedded' }, ['26.7'], 'worker host'), []);
  });
});
