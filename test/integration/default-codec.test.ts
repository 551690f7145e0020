/**
 * Codec truth (issue 23): a column that names no codec is compressed with the server's default for
 * that version and part, and the report says which, as read back — never an assumed LZ4. On the real
 * 26.9 (chdb-core 26.9.0) and 24.8 (chdb 2.x) builds: a single-column table of random strings,
 * about 120 MB uncompressed, OPTIMIZE FINAL into one part, plus one small part inserted after it.
 * The `storageStats` activity (as the worker runs it) records each part's
 * `system.parts.default_compression_codec`, and the Per-column compression table shows it.
 *
 * Installs both builds on demand (as the provision step would).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { createActivities } from '../../src/activities';
import { provisionEmbedded, teardownEmbedded } from '../../src/targets/embedded';
import { findPypiBuild, installEngine } from '../../src/engine/install';
import { connect } from '../../src/clickhouse/client';
import { cellDir } from '../../src/results/store';
import { perColumnRows } from '../../src/results/report';
import type { CellInput } from '../../src/schema/cell';
import type { CellResult, StorageRecord } from '../../src/schema/results';
import type { TargetHandle } from '../../src/schema/target';
import { startActivity } from '../helpers/activity-env';

// The builds are installed on demand (into CHBENCH_ENGINES_DIR; `.ci/run` gives each run its own cache).
const skip = false;
const BUILDS = ['24.8', '26.9'];

describe('default codec per part, read back (26.9 size-aware default vs 24.8)', { skip, timeout: 600_000 }, () => {
  let tmp: string;
  const started: TargetHandle[] = [];
  const runId = `codec-${randomUUID().slice(0, 8)}`;
  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-default-codec-'));
    for (const v of BUILDS) await installEngine(findPypiBuild(v)!);
  });
  after(async () => {
    for (const h of started) await teardownEmbedded(h).catch(() => undefined);
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  /** Load the table on `version`, run storageStats, return its record and the report's codec cell. */
  async function storageOn(version: string): Promise<{ rec: StorageRecord; shown: string }> {
    const cellKey = `v${version}-lz4`;
    const target = await provisionEmbedded({ runId, cellKey, version, workDir: path.join(tmp, 'targets') });
    started.push(target);
    const client = connect(target);
    try {
      // `trivial`'s table name (t), one String column naming no codec; every part Wide (per-column sizes).
      await client.command({
        query: 'CREATE TABLE t (s String) ENGINE = MergeTree ORDER BY tuple() SETTINGS min_bytes_for_wide_part = 0',
      });
      await client.command({
        query: 'INSERT INTO t SELECT randomPrintableASCII(100) FROM numbers(1200000)',
        clickhouse_settings: { max_insert_block_size: '100000' },
      });
      await client.command({ query: 'OPTIMIZE TABLE t FINAL' });
      await client.command({ query: 'INSERT INTO t SELECT randomPrintableASCII(100) FROM numbers(1000)' });
    } finally {
      await client.close();
    }
    const cell: CellInput = {
      runId,
      cellKey,
      version,
      codec: 'LZ4',
      workload: 'trivial',
      scale: 1000,
      skipIndex: false,
      protocol: {} as CellInput['protocol'],
      target: { kind: 'embedded' } as CellInput['target'],
      teardown: 'always',
      resultsDir: path.join(tmp, 'results'),
    };
    const acts = createActivities({
      workDir: path.join(tmp, 'targets'),
      temporalAddress: '127.0.0.1:1',
      namespace: 'default',
    });
    await startActivity(acts.storageStats, { cell, target }).result;
    const rec = JSON.parse(
      fs.readFileSync(path.join(cellDir(cell.resultsDir, runId, cellKey), 'storage.json'), 'utf8'),
    ) as StorageRecord;
    const rows = perColumnRows([{ cellKey, storage: rec } as unknown as CellResult], () => cellKey);
    const shown = rows.find((r) => r[0] === 's')![1];
    console.log(`${version}: parts ${JSON.stringify(rec.part_default_codecs)}; report codec: ${shown}`);
    return { rec, shown };
  }

  it('26.9: the ~120 MB part gets ZSTD(3), the small part LZ4, and the report says so', async () => {
    const { rec, shown } = await storageOn('26.9');
    assert.equal(rec.columns?.find((c) => c.column === 's')?.codec, '', 'the column names no codec');
    const parts = rec.part_default_codecs!;
    assert.equal(parts.length, 2, JSON.stringify(parts));
    const big = parts.find((p) => p.rows === 1_200_000)!;
    const small = parts.find((p) => p.rows === 1000)!;
    assert.ok(big.uncompressed_bytes > 100e6, `big part uncompressed ${big.uncompressed_bytes}`);
    assert.equal(big.codec, 'ZSTD(3)');
    assert.equal(small.codec, 'LZ4');
    assert.match(
      shown,
      /^default: (ZSTD\(3\) on 1 part \([\d.]+ MiB\), LZ4 on 1 part|LZ4 on 1 part \([\d.]+ MiB\), ZSTD\(3\) on 1 part)/,
    );
    assert.doesNotMatch(shown, /LZ4 \(default\)/);
  });

  it('24.8: the same ~120 MB part keeps LZ4 (no size-aware default)', async () => {
    const { rec, shown } = await storageOn('24.8');
    const parts = rec.part_default_codecs!;
    assert.ok(parts.find((p) => p.rows === 1_200_000)!.uncompressed_bytes > 100e6);
    assert.deepEqual([...new Set(parts.map((p) => p.codec))], ['LZ4']);
    assert.equal(shown, 'default: LZ4');
  });
});
