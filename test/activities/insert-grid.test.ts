/**
 * The insert grid's point activity (`insertPoint`) and its inserter engine against real servers: the
 * embedded engine (chdb; text formats only, one statement at a time) and Debian's clickhouse-server
 * 18.16 (local target). Each point runs in a `MockActivityEnvironment` through `createActivities`, as
 * the worker runs it. Records are read back from `grids/insert-<key>.json`.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { ApplicationFailure } from '@temporalio/common';
import { createActivities } from '../../src/activities';
import { runInsertLoop } from '../../src/measure/insert-load';
import { cellDir } from '../../src/results/store';
import { parseRunSpec } from '../../src/schema/run-spec';
import {
  insertPointKey,
  type InsertFormat,
  type InsertPoint,
  type InsertPointSummary,
  type SettingsProfile,
} from '../../src/schema/grids';
import type { CellInput, StepInput } from '../../src/schema/cell';
import type { TargetHandle } from '../../src/schema/target';
import { provisionEmbedded, teardownEmbedded } from '../../src/targets/embedded';
import { provisionLocal, teardownLocal } from '../../src/targets/local';
import { startActivity } from '../helpers/activity-env';
import { MockActivityEnvironment } from '@temporalio/testing';
import type * as activity from '@temporalio/activity';
import { connect, queryScalar } from '../../src/clickhouse/client';
import { pointTable } from '../../src/measure/insert-point';
import { InsertPointRecord, type CellResult } from '../../src/schema/results';
import { insertGridTable } from '../../src/results/report-grids';
import { validitySummary } from '../../src/results/report';

const LOCAL_BIN = ['/usr/bin/clickhouse-server', '/usr/sbin/clickhouse-server'].find((p) => fs.existsSync(p));

/** What the tests read from a point's record. */
interface PointRecord {
  loop: { errors_by_code: Record<string, number>; rows_acked: number; inserts: number; errors: number };
  events: { deltas: Record<string, number> };
  verification: { verified: boolean; count: number; expected: number; reasons: string[] };
  parts: { created: number; per_insert: number | null; peak_active: number };
  async_insert: { requested: boolean; effective?: string; note?: string };
  samples: unknown[];
}

function point(
  batchSize: number,
  concurrency: number,
  profile: Partial<SettingsProfile> & { name: string },
  format: InsertFormat,
): InsertPoint {
  const p = { batchSize, concurrency, profile: { query: {}, mergeTree: {}, ...profile }, format };
  return { key: insertPointKey(p), ...p };
}

describe('insert grid points (embedded engine and clickhouse-server 18.16)', { timeout: 180_000 }, () => {
  let tmp: string;
  let workDir: string;
  let acts: ReturnType<typeof createActivities>;
  let embedded: TargetHandle | undefined;
  let local: TargetHandle | undefined;
  const runId = `ins-${randomUUID().slice(0, 8)}`;

  const input = (target: TargetHandle, version: string, workload: string, grid: Record<string, unknown>): StepInput => {
    const spec = parseRunSpec({
      name: 'insert-grid',
      workload,
      scale: 1000,
      target: target.kind === 'local' ? { kind: 'local', binaries: { [version]: LOCAL_BIN } } : { kind: 'embedded' },
      matrix: { version: [version], codec: ['LZ4'] },
      resultsDir: path.join(tmp, 'results'),
      // The points are passed one by one; the spec's own axes only have to pass validation.
      grids: { insert: { batchSizes: [1], concurrency: [1], ...grid } },
    });
    const cell: CellInput = {
      runId,
      cellKey: `v${version}-${workload}`,
      version,
      codec: 'LZ4',
      workload,
      scale: 1000,
      skipIndex: false,
      protocol: spec.protocol,
      target: spec.target,
      teardown: 'always',
      resultsDir: spec.resultsDir,
      grids: spec.grids,
    };
    return { cell, target };
  };
  const record = (si: StepInput, file: string): PointRecord =>
    JSON.parse(
      fs.readFileSync(path.join(cellDir(si.cell.resultsDir, runId, si.cell.cellKey), file), 'utf8'),
    ) as PointRecord;

  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-insert-grid-'));
    workDir = path.join(tmp, 'targets');
    acts = createActivities({ workDir, temporalAddress: '127.0.0.1:1', namespace: 'default' });
    assert.ok(
      LOCAL_BIN,
      'clickhouse-server (Debian 18.16) is installed: run ./scripts/setup.sh --with-debian-clickhouse',
    );
    [embedded, local] = await Promise.all([
      provisionEmbedded({ runId, cellKey: 'emb', version: '26.7', workDir }),
      provisionLocal({ runId, cellKey: 'loc', version: '18.16', workDir }, LOCAL_BIN),
    ]);
  });

  after(async () => {
    await Promise.all([
      embedded && teardownEmbedded(embedded).catch(() => undefined),
      local && teardownLocal(local).catch(() => undefined),
    ]);
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  test('repeated batches on a deduplicating table: count() is one batch, verified, DuplicatedInsertedBlocks > 0', async () => {
    const p = point(1000, 1, { name: 'dedup', mergeTree: { non_replicated_deduplication_window: 100 } }, 'JSONEachRow');
    const si = input(embedded!, '26.7', 'trivial', { rows: 5000, data: 'repeat', sampleMs: 50 });
    const out = await startActivity(acts.insertPoint, si, p).result;
    assert.equal(out.inserts, 5);
    assert.equal(out.errors, 0);
    assert.equal(out.verified, true);
    const r = record(si, out.file);
    assert.equal(r.verification.count, 1000, 'one batch landed, four were dropped as duplicates');
    assert.equal(r.verification.expected, 1000);
    assert.equal(r.loop.rows_acked, 5000);
    assert.ok(r.events.deltas.DuplicatedInsertedBlocks > 0, JSON.stringify(r.events.deltas));
  });

  test('rows that would not fit the memory allowed fail the point before the rest is generated, non-retryably, naming maxBufferMiB', async () => {
    // logs rows in RowBinary are ~180 bytes: 200 batches of 10,000 rows ≈ 340 MiB > 1 MiB.
    const p = point(10_000, 1, { name: 'big' }, 'RowBinary');
    const si = input(embedded!, '26.7', 'logs', { rows: 2_000_000, maxBufferMiB: 1 });
    const run = startActivity(acts.insertPoint, si, p);
    const out = await run.settled;
    assert.equal(out.ok, false);
    const err = (out as { error: unknown }).error as { type?: string; nonRetryable?: boolean; message: string };
    assert.equal(err.type, 'InvalidSpec');
    assert.equal(err.nonRetryable, true);
    assert.match(err.message, /200 batches would take about \d+ MiB .* more than grids\.insert\.maxBufferMiB = 1 MiB/);
    assert.ok(
      !run.beats.some((b) => /generated batch 2\//.test(String(b.d.progress))),
      'stopped after the first batch',
    );
  });

  test('too many parts: code 252 counted per INSERT, RejectedInserts > 0, count() == rows acknowledged', async () => {
    // Parts larger than 1 byte never merge, so they pile up: 2 → delayed, 3 → refused.
    const p = point(
      500,
      2,
      {
        name: 'tinyparts',
        mergeTree: {
          parts_to_delay_insert: 2,
          parts_to_throw_insert: 3,
          max_bytes_to_merge_at_max_space_in_pool: 1,
          max_bytes_to_merge_at_min_space_in_pool: 1,
        },
      },
      'JSONEachRow',
    );
    const si = input(embedded!, '26.7', 'trivial', { rows: 5000, sampleMs: 50 });
    const out = await startActivity(acts.insertPoint, si, p).result;
    const r = record(si, out.file);
    assert.ok(
      (r.loop.errors_by_code['252'] ?? 0) > 0,
      `TOO_MANY_PARTS counted: ${JSON.stringify(r.loop.errors_by_code)}`,
    );
    assert.equal(out.errors, r.loop.errors_by_code['252'], 'every failure is 252');
    assert.equal(out.inserts + out.errors, 10, 'the loop went on after the errors');
    assert.ok(r.events.deltas.RejectedInserts > 0, JSON.stringify(r.events.deltas));
    // The rejections qualify the figure: summary, record, the table's rows/s and the validity banner.
    assert.equal(out.rejectedInserts, out.errors);
    assert.ok(
      out.flags!.some((f) => f.startsWith(`${out.errors} of 10 INSERTs rejected (code 252 TOO_MANY_PARTS`)),
      JSON.stringify(out.flags),
    );
    const full = InsertPointRecord.parse(
      JSON.parse(fs.readFileSync(path.join(cellDir(si.cell.resultsDir, runId, si.cell.cellKey), out.file), 'utf8')),
    );
    assert.match(insertGridTable([full]).rows[0][4], new RegExp(`^[\\d,]+ ⚠ .*rejected ${out.errors}/10`));
    assert.ok(
      validitySummary([{ grids: { insert: [full], concurrency: [] } } as unknown as CellResult]).invalid.some((x) =>
        /^1 insert point\(s\) whose INSERTs were delayed, rejected or retried \(b500-c2-tinyparts-jsoneachrow: .*rejected/.test(
          x,
        ),
      ),
    );
    assert.equal(out.verified, true, r.verification.reasons.join('; '));
    assert.equal(r.verification.count, r.loop.rows_acked);
    assert.ok(r.parts.peak_active >= 2, `peak active parts ${r.parts.peak_active}`);
  });

  test('parts_to_delay_insert 1: the delayed INSERTs are counted and flag rows/s in the summary, the record, the table and the banner', async () => {
    // Merges off (parts larger than 1 byte never merge): from the second INSERT on, every INSERT finds
    // at least one part and is delayed.
    const p = point(
      250,
      1,
      {
        name: 'delay',
        mergeTree: {
          parts_to_delay_insert: 1,
          max_bytes_to_merge_at_max_space_in_pool: 1,
          max_bytes_to_merge_at_min_space_in_pool: 1,
        },
      },
      'JSONEachRow',
    );
    const si = input(embedded!, '26.7', 'trivial', { rows: 5000 });
    const out = await startActivity(acts.insertPoint, si, p).result;
    const file = path.join(cellDir(si.cell.resultsDir, runId, si.cell.cellKey), out.file);
    const full = InsertPointRecord.parse(JSON.parse(fs.readFileSync(file, 'utf8')));
    console.log(
      `26.7 parts_to_delay_insert 1: ${out.delayedInserts} of ${out.inserts + out.errors} INSERTs delayed, ${out.delayedMs} ms, ${Math.round(out.rowsPerS)} rows/s`,
    );
    assert.equal(out.inserts, 20);
    assert.equal(out.errors, 0);
    assert.ok(out.delayedInserts! >= 15 && out.delayedInserts! <= 20, `delayed ${out.delayedInserts}`);
    assert.ok(out.delayedMs !== null && out.delayedMs! > 0, `delay ${out.delayedMs} ms`);
    assert.equal(out.rejectedInserts, 0);
    assert.match(
      out.flags![0],
      new RegExp(
        `^${out.delayedInserts} of 20 INSERTs delayed by the server for [\\d,]+ ms in all \\(system\\.events DelayedInserts \\+${out.delayedInserts}`,
      ),
    );
    assert.deepEqual((full as unknown as { throttling: { marks: string[] } }).throttling.marks, [
      `delayed ${out.delayedInserts}/20`,
    ]);
    const t = insertGridTable([full]);
    assert.equal(t.head[4], 'rows/s');
    assert.equal(
      t.rows[0][4],
      `${Math.round(out.rowsPerS).toLocaleString('en-US')} ⚠ delayed ${out.delayedInserts}/20`,
    );
    const v = validitySummary([{ grids: { insert: [full], concurrency: [] } } as unknown as CellResult]);
    assert.equal(v.invalid.length, 1, JSON.stringify(v));
    assert.match(
      v.invalid[0],
      /^1 insert point\(s\) whose INSERTs were delayed, rejected or retried \(b250-c1-delay-jsoneachrow: delayed \d+\/20\): their rows\/s measure the throttling$/,
    );
  });

  test('async_insert=1 on the embedded engine runs synchronously and says so; 18.16 refuses the setting', async () => {
    const profile = { name: 'async', query: { async_insert: 1, wait_for_async_insert: 1 } };
    const si = input(embedded!, '26.7', 'trivial', { rows: 3000 });
    const out = await startActivity(acts.insertPoint, si, point(1000, 2, profile, 'JSONEachRow')).result;
    const r = record(si, out.file);
    assert.equal(out.verified, true, r.verification.reasons.join('; '));
    assert.equal(r.verification.count, 3000);
    assert.equal(r.async_insert.effective, 'synchronous');
    assert.equal(
      r.async_insert.note,
      'async_insert=1 requested; the server ran the inserts synchronously (system.events AsyncInsertQuery +0)',
    );

    const old = input(local!, '18.16', 'logs-legacy', { rows: 3000 });
    const failed = await startActivity(acts.insertPoint, old, point(1000, 1, profile, 'RowBinary')).settled;
    assert.ok(!failed.ok && failed.error instanceof ApplicationFailure, String(!failed.ok && failed.error));
    const e = failed.error as ApplicationFailure;
    assert.equal(e.type, 'InvalidSetting');
    assert.equal(e.nonRetryable, true);
    assert.match(
      e.message,
      /insert point b1000-c1-async-rowbinary: settings profile "async" query: unknown setting "async_insert" on ClickHouse 18\.16/,
    );
  });

  test('a pool smaller than the concurrency is refused before anything is sent, and by the spec', async () => {
    let requests = 0;
    const srv = http.createServer((req, res) => {
      requests++;
      res.end();
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    try {
      const port = (srv.address() as AddressInfo).port;
      const t = { ...embedded!, url: `http://127.0.0.1:${port}` };
      const prepared = {
        format: 'JSONEachRow' as const,
        columns: ['n'],
        batches: [Buffer.from('{"n":1}\n')],
        batchRows: [1],
        rows: 1,
        bytes: 8,
        generateMs: 0,
      };
      await assert.rejects(
        runInsertLoop(t, { table: 't', prepared, concurrency: 4, maxConnections: 2, settings: {}, queryIdPrefix: 'x' }),
        /a pool of 2 connections cannot serve 4 concurrent clients/,
      );
      assert.equal(requests, 0, 'nothing was sent');
      // The same engine with a pool that fits does send.
      const ok = await runInsertLoop(t, {
        table: 't',
        prepared,
        concurrency: 1,
        maxConnections: 1,
        settings: {},
        queryIdPrefix: 'x',
      });
      assert.equal(requests, 1);
      assert.equal(ok.inserts, 1);
    } finally {
      srv.close();
    }
    assert.throws(
      () =>
        parseRunSpec({
          name: 'pool',
          workload: 'trivial',
          scale: 1000,
          target: { kind: 'embedded' },
          matrix: { version: ['26.7'], codec: ['LZ4'] },
          grids: { insert: { concurrency: [1, 4], maxConnections: 2 } },
        }),
      /grids\.insert\.maxConnections: 2 connections cannot serve 4 concurrent clients/,
    );
  });

  test('a later attempt of the same activity keeps a point its earlier attempt finished; another activity measures it again', async () => {
    const p = point(2000, 1, { name: 'again' }, 'RowBinary');
    const si = input(embedded!, '26.7', 'trivial', { rows: 10_000 });
    const run = (info: Partial<activity.Info>): Promise<InsertPointSummary> =>
      new MockActivityEnvironment({
        workflowExecution: { workflowId: 'wf-a', runId: 'run-a' },
        activityId: 'ins-1',
        ...info,
      }).run(acts.insertPoint, si, p) as Promise<InsertPointSummary>;
    const first = await run({ attempt: 1 });
    const file = path.join(cellDir(si.cell.resultsDir, runId, si.cell.cellKey), first.file);
    const text = fs.readFileSync(file, 'utf8');
    // The worker died after the record was written, before the completion reached Temporal (and
    // before the point's table was dropped): attempt 2.
    const c0 = connect(embedded!);
    await c0.command({ query: `CREATE TABLE ${pointTable('t', p.key)} (n UInt64) ENGINE = MergeTree ORDER BY n` });
    await c0.close();
    const retried = await run({ attempt: 2 });
    assert.deepEqual({ ...retried, attempt: 1 }, { ...first, attempt: 1 });
    assert.equal(fs.readFileSync(file, 'utf8'), text, 'the record is kept as the first attempt wrote it');
    // The table the first attempt left is dropped by the second.
    const c = connect(embedded!);
    try {
      assert.equal(Number(await queryScalar(c, `EXISTS TABLE ${pointTable('t', p.key)}`)), 0);
    } finally {
      await c.close();
    }
    // A different scheduled activity (another run of the cell) measures the point afresh.
    const other = await run({ activityId: 'ins-2', attempt: 1 });
    assert.notEqual(fs.readFileSync(file, 'utf8'), text);
    assert.equal(other.verified, true);
  });

  test('a normal point on 18.16 (logs-legacy, RowBinary, 3 batches, concurrency 2): verified, rows/s > 0, ≥ 1 part per INSERT', async () => {
    const si = input(local!, '18.16', 'logs-legacy', { rows: 30_000, sampleMs: 50 });
    const out = await startActivity(acts.insertPoint, si, point(10_000, 2, { name: 'default' }, 'RowBinary')).result;
    const r = record(si, out.file);
    assert.equal(out.verified, true, r.verification.reasons.join('; '));
    assert.equal(r.verification.count, 30_000);
    assert.equal(out.inserts, 3);
    assert.ok(out.rowsPerS > 0 && out.mbPerS > 0, `${out.rowsPerS} rows/s, ${out.mbPerS} MB/s`);
    assert.ok(out.latencyMs.count === 3 && out.latencyMs.p50! > 0);
    assert.ok(r.parts.per_insert !== null && r.parts.per_insert >= 1, `parts per insert ${r.parts.per_insert}`);
    assert.ok(r.samples.length >= 1, 'the sampler ran');
    console.log(
      `18.16 logs-legacy RowBinary b10000 c2: ${Math.round(out.rowsPerS)} rows/s, parts/insert ${r.parts.per_insert}`,
    );
  });
});
