/**
 * What a cell claims, checked on real servers right after its table is created (issue 13, sections 1
 * and 6): each column's codec read back from `system.columns.compression_codec`, the table settings
 * the server shows, every query's EXPLAIN on the empty table, and the codec trial at provisioning.
 * Servers: the chdb engine (ClickHouse 26.7) and Debian's clickhouse-server 18.16, which has neither
 * column codecs nor EXPLAIN and must say so. Test workloads: test/fixtures/workloads.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { provisionEmbedded, teardownEmbedded } from '../../src/targets/embedded';
import { provisionLocal, teardownLocal } from '../../src/targets/local';
import { connect } from '../../src/clickhouse/client';
import { trialCodecs } from '../../src/clickhouse/codec-check';
import { fetchQueryLog } from '../../src/clickhouse/query-log';
import { settingsCheck } from '../../src/measure/figures';
import { createCreateSchema } from '../../src/activities/create-schema';
import { cellInputs } from '../../src/schema/matrix';
import { parseRunSpec, type RunSpecInput } from '../../src/schema/run-spec';
import { FAILURE } from '../../src/schema/failures';
import type { CellInput } from '../../src/schema/cell';
import type { TargetHandle } from '../../src/schema/target';
import type { SchemaRecord } from '../../src/schema/results';
import { cellDir, writeJsonAtomic } from '../../src/results/store';
import { REPO_ROOT } from '../../src/config';
import { assertFailureType } from '../helpers/assert-failure';

const FIXTURES = path.join(REPO_ROOT, 'test', 'fixtures');
const { createSchema } = createCreateSchema();

let workDir: string;
let savedRoot: string | undefined;
before(() => {
  savedRoot = process.env.CHBENCH_SQL_ROOT;
  process.env.CHBENCH_SQL_ROOT = FIXTURES;
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-codec-check-'));
});
after(() => {
  if (savedRoot === undefined) delete process.env.CHBENCH_SQL_ROOT;
  else process.env.CHBENCH_SQL_ROOT = savedRoot;
  fs.rmSync(workDir, { recursive: true, force: true });
});

/** The one cell of a spec with this workload and codec entry. */
function cellOf(
  workload: string,
  codec: RunSpecInput['matrix']['codec'][number],
  target: RunSpecInput['target'] = { kind: 'embedded' },
  version = '26.7',
): CellInput {
  const spec = parseRunSpec({
    name: 'codec-check',
    workload,
    scale: 1000,
    target,
    matrix: { version: [version], codec: [codec] },
    resultsDir: path.join(workDir, 'results'),
  });
  return cellInputs(spec, `run-${randomUUID().slice(0, 8)}`, [])[0];
}

function schemaRecord(cell: CellInput): SchemaRecord {
  return JSON.parse(
    fs.readFileSync(path.join(cellDir(cell.resultsDir, cell.runId, cell.cellKey), 'schema.json'), 'utf8'),
  ) as SchemaRecord;
}

describe('createSchema on chdb (ClickHouse 26.7)', { timeout: 180_000 }, () => {
  let target: TargetHandle;
  before(async () => {
    target = await provisionEmbedded({
      runId: `codec-${randomUUID().slice(0, 8)}`,
      cellKey: 'c',
      version: '26.7',
      workDir,
    });
  });
  after(async () => {
    if (target) await teardownEmbedded(target).catch(() => undefined);
  });
  const dropTable = async () => {
    const c = connect(target);
    await c.command({ query: 'DROP TABLE IF EXISTS t' });
    await c.close();
  };

  it('a ZSTD(3) cell whose schema forgets {{codec}} fails, naming the column and both codecs', async () => {
    await dropTable();
    const cell = cellOf('no-codec', 'ZSTD(3)');
    const f = await assertFailureType(
      createSchema({ cell, target }),
      FAILURE.CodecMismatch,
      /column id has the server default \(LZ4; system\.columns\.compression_codec is empty\) but the cell declares CODEC\(ZSTD\(3\)\)/,
    );
    assert.equal(f.nonRetryable, true);
    assert.match(f.message, /place \{\{codec\}\} on its columns/);
    const rec = schemaRecord(cell);
    assert.equal(rec.codecs?.available, true);
    assert.deepEqual(
      rec.codecs?.columns.map((c) => [c.column, c.declared, c.server, c.matches]),
      [
        ['id', 'ZSTD(3)', '', false],
        ['ts', 'ZSTD(3)', '', false],
        ['v', 'ZSTD(3)', '', false],
      ],
    );
  });

  it('a table left with another codec fails the cell with both values', async () => {
    await dropTable();
    const c = connect(target);
    await c.command({
      query: 'CREATE TABLE t (id UInt64 CODEC(ZSTD(1)), ts DateTime, v Int32) ENGINE = MergeTree ORDER BY id',
    });
    await c.close();
    await assertFailureType(
      createSchema({ cell: cellOf('codecs', 'ZSTD(3)'), target }),
      FAILURE.CodecMismatch,
      /column id has CODEC\(ZSTD\(1\)\) but the cell declares CODEC\(ZSTD\(3\)\); column ts has the server default/,
    );
  });

  it('a per-column profile is read back column by column, with the table settings the server shows', async () => {
    await dropTable();
    const cell = cellOf('codecs', {
      name: 'delta-zstd',
      default: 'ZSTD(4)',
      columns: { ts: 'Delta, ZSTD(1)', v: 'T64' },
    });
    writeJsonAtomic(path.join(cellDir(cell.resultsDir, cell.runId, cell.cellKey), 'settings.json'), {
      load: {},
      runs: {},
      table: { min_bytes_for_wide_part: 0 },
      not_applied: {},
      problems: [],
    });
    assert.deepEqual(await createSchema({ cell, target }), { table: 't' });
    const rec = schemaRecord(cell);
    assert.deepEqual(
      rec.codecs?.columns.map((c) => [c.column, c.declared, c.server, c.matches]),
      [
        ['id', 'ZSTD(4)', 'CODEC(ZSTD(4))', true],
        ['ts', 'Delta, ZSTD(1)', 'CODEC(Delta(4), ZSTD(1))', true],
        ['v', 'T64', 'CODEC(T64)', true],
      ],
    );
    assert.deepEqual(rec.table_settings?.applied, { min_bytes_for_wide_part: 0 });
    assert.deepEqual(rec.table_settings?.not_shown, {});
    assert.deepEqual(rec.query_check?.queries, [{ id: 'q1', file: 'q1.sql', ok: true }]);
  });

  it('a query with a wrong column fails at createSchema, naming the query id and its file', async () => {
    await dropTable();
    const cell = cellOf('bad-query', 'LZ4');
    const f = await assertFailureType(
      createSchema({ cell, target }),
      FAILURE.InvalidWorkloadQuery,
      /^query q2 \(.*test\/fixtures\/workloads\/bad-query\/wrong-column\.sql\) fails on the empty table t: .*nosuch/,
    );
    assert.equal(f.nonRetryable, true);
    const rec = schemaRecord(cell);
    assert.deepEqual(
      rec.query_check?.queries.map((q) => [q.id, q.file, q.ok, q.code]),
      [
        ['q1', 'q1.sql', true, undefined],
        ['q2', 'wrong-column.sql', false, '47'],
      ],
    );
  });

  it('the codec trial names the column whose type the server refuses a codec for', async () => {
    const c = connect(target);
    try {
      const ok = await trialCodecs(c, [
        { name: 'id', type: 'UInt64', codec: 'ZSTD(4)' },
        { name: 'ts', type: 'DateTime', codec: 'Delta, ZSTD(3)' },
      ]);
      assert.equal(ok.ok, true);
      const bad = await trialCodecs(c, [
        { name: 'id', type: 'UInt64', codec: 'ZSTD(4)' },
        { name: 'msg', type: 'String', codec: 'Delta, ZSTD(1)' },
      ]);
      assert.equal(bad.ok, false);
      if (!bad.ok) {
        assert.equal(bad.column.name, 'msg');
        assert.match(bad.error, /Delta is not applicable for String/);
      }
      const unknown = await trialCodecs(c, [{ name: 'id', type: 'UInt64', codec: 'ZSDT(3)' }]);
      assert.ok(!unknown.ok && /Unknown codec family: ZSDT/.test(unknown.error));
    } finally {
      await c.close();
    }
  });
});

const SERVER_1816 = ['/usr/bin/clickhouse-server', '/usr/sbin/clickhouse-server'].find((p) => fs.existsSync(p));

describe('createSchema on clickhouse-server 18.16 (no column codecs, no EXPLAIN)', { timeout: 180_000 }, () => {
  let target: TargetHandle | undefined;
  after(async () => {
    if (target) await teardownLocal(target).catch(() => undefined);
  });

  it('records "not available on this server" for the codec read-back and the query check, not a silent pass', async (t) => {
    if (!SERVER_1816) {
      t.skip('no clickhouse-server binary: run ./scripts/setup.sh --with-debian-clickhouse');
      return;
    }
    target = await provisionLocal(
      { runId: `codec-${randomUUID().slice(0, 8)}`, cellKey: 'c', version: '18.16', workDir },
      SERVER_1816,
    );
    const cell = cellOf('codecs', 'LZ4', { kind: 'local', binaries: { '18.16': SERVER_1816 } }, '18.16');
    assert.deepEqual(await createSchema({ cell, target }), { table: 't' });
    const rec = schemaRecord(cell);
    assert.equal(rec.codecs?.available, false);
    assert.match(
      rec.codecs?.reason ?? '',
      /^not available on this server: its system\.columns has no compression_codec/,
    );
    assert.deepEqual(rec.codecs?.columns, []);
    assert.equal(rec.query_check?.available, false);
    assert.match(rec.query_check?.reason ?? '', /^not available on this server: it has no EXPLAIN/);
    assert.match(rec.show_create_table, /CREATE TABLE .*t/);
  });

  it('a run\u2019s query settings are recorded as applied from its query_log row', async (t) => {
    if (!target) {
      t.skip('no clickhouse-server binary: run ./scripts/setup.sh --with-debian-clickhouse');
      return;
    }
    const c = connect(target);
    try {
      const id = `chbench-settings-${randomUUID()}`;
      const rs = await c.query({
        query: 'SELECT count() FROM t',
        query_id: id,
        format: 'JSONCompact',
        clickhouse_settings: { max_threads: 1, log_queries: 1 },
      });
      await rs.json();
      const row = (await fetchQueryLog(c, [id])).get(id);
      assert.ok(row, 'the run has a query_log row');
      const check = settingsCheck({ max_threads: 1, max_block_size: 1000 }, row);
      assert.equal(check.source, 'system.query_log Settings.Names/Settings.Values');
      assert.deepEqual(check.applied, { max_threads: '1' });
      assert.deepEqual(check.not_shown, {
        max_block_size:
          'not in the run\u2019s query_log Settings (servers may list only settings that differ from their default)',
      });
    } finally {
      await c.close();
    }
  });
});
