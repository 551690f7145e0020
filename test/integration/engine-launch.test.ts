/**
 * The one engine launcher (`src/engine/launch.ts`) with the real engine server process. No mocks.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isEngineServer, readEngineInfo, startEngineServer, stopEngineServer } from '../../src/engine/launch';
import { pollUntil } from '../../src/lib/poll';

describe('engine launcher', { timeout: 120_000 }, () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-launch-test-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a server that exits before listening: the error names it and carries its log tail', async () => {
    await assert.rejects(
      startEngineServer({ dataDir: path.join(dir, 'bad'), host: '10.0.0.1' }),
      /exited before listening[\s\S]*only loopback addresses/,
    );
  });

  it('starts detached (pid file, log), answers /chbench/info, exits by itself when idle', async () => {
    const d = path.join(dir, 'idle');
    const s = await startEngineServer({ dataDir: d, idleExitS: 2 });
    assert.match(s.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(s.logPath, path.join(d, 'server.log'));
    assert.equal(fs.readFileSync(path.join(d, 'server.pid'), 'utf8').trim(), String(s.pid));
    assert.ok(isEngineServer(s.pid, d));
    const info = await readEngineInfo(s.url);
    assert.equal(info.pid, s.pid);
    assert.match(info.clickhouse, /^26\.7\./);
    assert.equal(info.dataDir, d);
    await pollUntil(() => !isEngineServer(s.pid, d), { what: 'idle exit', timeoutMs: 30_000, intervalMs: 100 });
    assert.equal(await stopEngineServer(s.pid, d), false, 'nothing left to stop');
  });

  it('stopEngineServer stops only a server started for that directory', async () => {
    const d = path.join(dir, 'stop');
    const s = await startEngineServer({ dataDir: d });
    assert.equal(await stopEngineServer(s.pid, path.join(dir, 'other')), false, 'another directory: not signalled');
    assert.ok(isEngineServer(s.pid, d));
    assert.equal(await stopEngineServer(s.pid, d, 10_000), true);
    assert.ok(!isEngineServer(s.pid, d));
  });
});
