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
import { probeServer } from '../../src/clickhouse/probe';
import { checkSettings } from '../../src/clickhouse/settings';
import { clickHouseFailureOf } from '../../src/activities';
import { renderReport } from '../../src/results/report';
import { renderHtmlReport } from '../../src/results/report-html';
import type { CellResult, CellSettings } from '../../src/schema/results';
import { fetchQueryLog } from '../../src/clickhouse/query-log';
import { settingsCheck } from '../../src/measure/figures';
import { createCreateSchema } from '../../src/activities/create-schema';
import { cellActivity } from '../../src/activities/step-context';
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
const createSchema = cellActivity('createSchema', createCreateSchema().createSchema);

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

function settingsRecord(cell: CellInput): CellSettings {
  return JSON.parse(
    fs.readFileSync(path.join(cellDir(cell.resultsDir, cell.runId, cell.cellKey), 'settings.json'), 'utf8'),
  ) as CellSettings;
}

/** The error a statement gets from the server, as the measured runs see it (format appended by the client). */
async function errorOf(
  target: TargetHandle,
  run: (c: ReturnType<typeof connect>) => Promise<unknown>,
): Promise<unknown> {
  const c = connect(target);
  try {
    await run(c);
  } catch (e) {
    return e;
  } finally {
    await c.close();
  }
  assert.fail('the server accepted the statement');
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
    assert.deepEqual(await createSchema({ cell, target }), { table: 't', attempt: 1 });
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

  it('issue 21 item 1: table settings a schema without {{settings}} never sends are recorded as not applied, and the report flags the cell', async () => {
    await dropTable();
    const cell = cellOf('no-settings', 'LZ4');
    writeJsonAtomic(path.join(cellDir(cell.resultsDir, cell.runId, cell.cellKey), 'settings.json'), {
      load: {},
      runs: {},
      table: { min_bytes_for_wide_part: 0 },
      not_applied: {},
      problems: [],
    });
    assert.deepEqual(await createSchema({ cell, target }), { table: 't', attempt: 1 });
    const rec = schemaRecord(cell);
    assert.doesNotMatch(rec.ddl_sent, /SETTINGS/);
    assert.deepEqual(rec.table_settings?.applied, {});
    assert.deepEqual(Object.keys(rec.table_settings?.not_shown ?? {}), ['min_bytes_for_wide_part']);
    const settings = settingsRecord(cell);
    assert.match(
      settings.not_applied.min_bytes_for_wide_part ?? '',
      /^not applied to the table: declared, but SHOW CREATE TABLE does not show it/,
    );
    // What the cell would have measured: parts as the server's defaults make them, not Wide.
    const c = connect(target);
    try {
      await c.command({
        query:
          "INSERT INTO t SELECT number, toDateTime('2026-01-01 00:00:00') + number, toInt32(number % 1000) FROM numbers(1000)",
      });
      const rs = await c.query({
        query: "SELECT part_type FROM system.parts WHERE database = currentDatabase() AND table = 't' AND active",
        format: 'JSONEachRow',
      });
      assert.deepEqual(
        (await rs.json<{ part_type: string }>()).map((r) => r.part_type),
        ['Compact'],
      );
    } finally {
      await c.close();
    }
    // The report of a run holding this cell's schema.json says so, next to the cell.
    const dir = path.join(workDir, `report-${randomUUID().slice(0, 8)}`);
    fs.cpSync(path.join(FIXTURES, 'results', 'embedded-26.7'), dir, { recursive: true });
    const f = path.join(dir, 'cells', 'v26.7-lz4', 'result.json');
    const r = JSON.parse(fs.readFileSync(f, 'utf8')) as CellResult;
    r.schema_ddl = rec;
    fs.writeFileSync(f, JSON.stringify(r));
    const md = renderReport(dir);
    assert.match(md, /\| v26\.7-lz4\s+\| succeeded ⚠ table setting\(s\) not applied: min_bytes_for_wide_part\s+\|/);
    assert.match(
      md,
      /> - v26\.7-lz4: measured WITHOUT min_bytes_for_wide_part = 0 \(not in the SETTINGS of SHOW CREATE TABLE\)/,
    );
    assert.match(md, /\| v26\.7-zstd3\s+\| succeeded\s+\|/);
    assert.match(await renderHtmlReport(dir), /⚠ Table settings not applied/);
  });

  it('issue 21 item 7: a syntax error is classified by its code, not by "(FORMAT)" in its message', async () => {
    const e = await errorOf(target, (c) => c.query({ query: 'SELECT 1 AS x FORMAT JSON', format: 'JSONCompact' }));
    const f = clickHouseFailureOf(e);
    assert.equal(f?.type, 'ClickHouse.SYNTAX_ERROR');
    assert.equal(f?.nonRetryable, true);
  });

  it('issue 21 item 7: a query ending in FORMAT fails createSchema before anything is loaded; a column named format does not', async () => {
    await dropTable();
    const cell = cellOf('format-query', 'LZ4');
    await assertFailureType(
      createSchema({ cell, target }),
      FAILURE.InvalidWorkloadQuery,
      /^query q2 \(.*format-query\/with-format\.sql\) is refused before loading: it ends with FORMAT JSON/,
    );
    assert.deepEqual(
      schemaRecord(cell).query_check?.queries.map((q) => [q.id, q.ok]),
      [
        ['q1', true],
        ['q2', false],
        ['q3', true],
      ],
    );
  });

  it('issue 21 item 12: an unknown setting or codec family names the nearest one this server has', async () => {
    const c = connect(target);
    try {
      const probe = await probeServer(c, '26.7');
      const r = checkSettings(
        { query: { max_thread: 1 }, mergeTree: { min_bytes_for_wide_prt: 0 }, optional: [] },
        probe,
        'spec',
      );
      assert.equal(r.problems.length, 2, r.problems.join('\n'));
      assert.match(
        r.problems[0],
        /unknown setting "max_thread" .*did you mean "max_threads" \(a query setting .*system\.settings\)\?/,
      );
      assert.match(
        r.problems[1],
        /unknown setting "min_bytes_for_wide_prt" .*did you mean "min_bytes_for_wide_part" \(a MergeTree table setting .*system\.merge_tree_settings\)\?/,
      );
      const t = await trialCodecs(c, [{ name: 'id', type: 'UInt64', codec: 'ZTSD(3)' }]);
      assert.ok(!t.ok);
      if (!t.ok) {
        assert.match(t.error, /Unknown codec family: ZTSD/);
        assert.equal(t.suggestion, 'did you mean ZSTD (not ZTSD)?');
      }
      const far = await trialCodecs(c, [{ name: 'id', type: 'UInt64', codec: 'Brotli' }]);
      assert.ok(!far.ok && far.suggestion === undefined, 'no guess when nothing is close');
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
    assert.deepEqual(await createSchema({ cell, target }), { table: 't', attempt: 1 });
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
  it('issue 21 item 7: on 18.16 a query ending in FORMAT fails createSchema (no EXPLAIN there), and a syntax error is classified by its code', async (t) => {
    if (!target) {
      t.skip('no clickhouse-server binary: run ./scripts/setup.sh --with-debian-clickhouse');
      return;
    }
    const c = connect(target);
    await c.command({ query: 'DROP TABLE IF EXISTS t' });
    await c.close();
    const cell = cellOf('format-query', 'LZ4', { kind: 'local', binaries: { '18.16': SERVER_1816! } }, '18.16');
    await assertFailureType(
      createSchema({ cell, target }),
      FAILURE.InvalidWorkloadQuery,
      /^query q2 \(.*with-format\.sql\) is refused before loading: it ends with FORMAT JSON/,
    );
    const rec = schemaRecord(cell);
    assert.equal(rec.query_check?.available, false);
    assert.deepEqual(
      rec.query_check?.queries.map((q) => [q.id, q.ok]),
      [['q2', false]],
    );
    // 18.16 quotes the statement; the client takes "(ZTSD)" of `CODEC(ZTSD)` as the error's type.
    const e = await errorOf(target, (x) =>
      x.command({ query: 'CREATE TABLE t2 (a UInt8 CODEC(ZTSD)) ENGINE = Memory' }),
    );
    assert.equal(clickHouseFailureOf(e)?.type, 'ClickHouse.SYNTAX_ERROR');
  });

  it('issue 21 item 12: on 18.16 an unknown setting names the nearest one of its system.settings', async (t) => {
    if (!target) {
      t.skip('no clickhouse-server binary: run ./scripts/setup.sh --with-debian-clickhouse');
      return;
    }
    const c = connect(target);
    try {
      const r = checkSettings(
        { query: { max_thread: 1 }, mergeTree: {}, optional: [] },
        await probeServer(c, '18.16'),
        'spec',
      );
      assert.equal(r.problems.length, 1);
      assert.match(r.problems[0], /unknown setting "max_thread" on ClickHouse 18\.16.*did you mean "max_threads"/);
    } finally {
      await c.close();
    }
  });
});
