/**
 * The engine server never opens a data directory that a newer ClickHouse wrote (an older engine
 * would move every part to detached/ without an error): real server processes, real chdb.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { provisionEmbedded, teardownEmbedded } from '../../src/targets/embedded';
import { cellDataDir } from '../../src/targets/process/cell-dir';
import { compareVersions, markerPath, readDataVersion } from '../../src/engine/data-version';
import type { ProvisionRequest } from '../../src/schema/target';

describe('engine data directory version', () => {
  let workDir: string;
  before(() => {
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-data-version-'));
  });
  after(() => fs.rmSync(workDir, { recursive: true, force: true }));

  it('compares dotted versions numerically', () => {
    assert.equal(compareVersions('24.8.4.1', '26.9.2.1'), -1);
    assert.equal(compareVersions('26.10', '26.9.2.1'), 1);
    assert.equal(compareVersions('26.7.2.1', '26.7.2.1'), 0);
  });

  it('records the engine that wrote a fresh directory, and refuses one a newer version wrote', async () => {
    const req: ProvisionRequest = { runId: `dv-${randomUUID().slice(0, 8)}`, cellKey: 'a', version: '26.7', workDir };
    const h = await provisionEmbedded(req);
    const m = readDataVersion(h.dataDir!);
    assert.equal(m?.clickhouse, '26.7.2.1');
    assert.match(m!.package, /chdb/);
    await teardownEmbedded(h);

    const req2: ProvisionRequest = { ...req, cellKey: 'b' };
    const dir = cellDataDir(workDir, req2.runId, req2.cellKey);
    fs.mkdirSync(dir, { recursive: true });
    const marker = {
      clickhouse: '26.9.2.1',
      package: 'pypi chdb-core==26.9.0',
      firstWrittenAt: 'x',
      lastOpenedAt: 'x',
    };
    fs.writeFileSync(markerPath(dir), JSON.stringify(marker));
    await assert.rejects(provisionEmbedded(req2), (e: Error) => {
      assert.match(e.message, /written by ClickHouse 26\.9\.2\.1; this engine is ClickHouse 26\.7\.2\.1, older/);
      return true;
    });
    assert.deepEqual(readDataVersion(dir), marker, 'the marker is left as the newer engine wrote it');
    assert.ok(!fs.existsSync(path.join(dir, 'data', 'store')), 'the engine never opened the directory');
  });
});
