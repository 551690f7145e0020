/**
 * Sub-millisecond queries on a real server: Debian's clickhouse-server 18.16 times queries in whole
 * milliseconds only (`query_log.query_duration_ms`), so a sub-millisecond query logs 0. report.md
 * uses client wall time for it; samples.jsonl, the results database (embedded chdb engine), the csv
 * export and the ClickBench export must carry the same choice and label, and never write that 0.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { ClickHouseClient } from '@clickhouse/client';
import { REPO_ROOT } from '../../src/config';
import { connect } from '../../src/clickhouse/client';
import { provisionLocal, teardownLocal } from '../../src/targets/local';
import type { TargetHandle } from '../../src/schema/target';
import { measureQueries } from '../../src/measure/protocol';
import { flatSamples } from '../../src/results/samples';
import { runElapsed } from '../../src/measure/figures';
import { openResultsDb, stopEmbeddedResultsDb } from '../../src/results/db';
import { clickBenchResults, samplesExportSql } from '../../src/results/db/export';
import type { CellResult, QueryRecord } from '../../src/schema/results';

const FIXTURE = path.join(REPO_ROOT, 'test', 'fixtures', 'results', 'embedded-26.7');

function serverBinary(): string {
  const p =
    process.env.CHBENCH_CLICKHOUSE_SERVER ??
    ['/usr/bin/clickhouse-server', '/usr/sbin/clickhouse-server'].find((c) => fs.existsSync(c));
  assert.ok(
    p && fs.existsSync(p),
    'no clickhouse-server binary: run ./scripts/setup.sh --with-debian-clickhouse, or set CHBENCH_CLICKHOUSE_SERVER',
  );
  return p;
}

describe(
  "sub-millisecond queries on 18.16: every output carries the report's figure, never a server 0",
  { timeout: 600_000 },
  () => {
    let workDir: string;
    let handle: TargetHandle | undefined;
    let client: ClickHouseClient | undefined;
    let records: QueryRecord[];
    let runDir: string;
    let result: CellResult;

    before(async () => {
      workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-elapsed-18-'));
      handle = await provisionLocal(
        { runId: `elapsed-${randomUUID().slice(0, 8)}`, cellKey: 'l:18.16', version: '18.16', workDir },
        serverBinary(),
      );
      client = connect(handle);
      await client.command({ query: 'CREATE TABLE t (x UInt64) ENGINE = MergeTree ORDER BY x' });
      await client.command({ query: 'INSERT INTO t SELECT number FROM system.numbers LIMIT 100' });
      records = await measureQueries(
        client,
        't',
        [
          { id: 'q1', title: 'count', usesIndex: false, deterministic: true, sql: 'SELECT count() FROM t' },
          // After q1 in the run, before it alphabetically: the exports must keep the run's order (item 11).
          { id: 'a0', title: 'sum', usesIndex: false, deterministic: true, sql: 'SELECT sum(x) FROM t' },
        ],
        {
          coldRuns: 1,
          warmupRuns: 0,
          warmRuns: 3,
          dropOsPageCache: false,
          maxExecutionTimeS: 60,
          queryLog: true,
          queryIdPrefix: `elapsed-${randomUUID().slice(0, 8)}`,
          counters: 'query_log',
        },
      );
      // The captured run with its LZ4 cell's baseline queries replaced by the ones measured here.
      runDir = path.join(workDir, 'run');
      fs.cpSync(FIXTURE, runDir, { recursive: true });
      const f = path.join(runDir, 'cells', 'v26.7-lz4', 'result.json');
      result = JSON.parse(fs.readFileSync(f, 'utf8')) as CellResult;
      result.queries_baseline!.queries = records;
      result.queries_index = null;
      fs.writeFileSync(f, JSON.stringify(result));
    });

    after(async () => {
      await client?.close();
      if (handle) await teardownLocal(handle).catch(() => undefined);
      await stopEmbeddedResultsDb(path.join(workDir, 'db')).catch(() => undefined);
      fs.rmSync(workDir, { recursive: true, force: true });
    });

    it("the server logs 0 ms and the report's headline is client wall time", () => {
      const q = records[0];
      assert.equal(q.error, undefined);
      const zero = q.samples.filter(
        (s) => s.server_elapsed_source === 'system.query_log.query_duration_ms' && s.server_elapsed_ms === 0,
      );
      assert.ok(
        zero.length >= 1,
        `some runs logged query_duration_ms = 0: ${JSON.stringify(q.samples.map((s) => [s.server_elapsed_ms, s.wall_ms]))}`,
      );
      assert.equal(q.stats.timing_source, 'client wall time', q.stats.timing_note);
    });

    it('samples.jsonl: no server_elapsed line of 0; an elapsed line with the wall time, its source and the 1 ms resolution', () => {
      const lines = flatSamples(result, { chbench: null }).filter((l) => l.metadata.query === 'q1');
      assert.ok(!lines.some((l) => l.metric === 'server_elapsed' && l.value === 0), 'no server 0 written');
      for (const s of records[0].samples) {
        const mine = lines.filter((l) => l.metadata.query_id === s.query_id);
        const e = mine.find((l) => l.metric === 'elapsed')!;
        assert.equal(e.value, s.wall_ms);
        assert.match(e.metadata.source, /^client wall time/);
        assert.equal(e.metadata.server_resolution_ms, 1);
        if (s.server_elapsed_ms === 0) {
          assert.equal(
            mine.find((l) => l.metric === 'server_elapsed'),
            undefined,
          );
          assert.match(e.metadata.source, /below its 1 ms resolution/);
        }
      }
    });

    it('results database, csv and ClickBench exports: the same figure and label; a server time below 1 ms is null, with its bound', async () => {
      const db = await openResultsDb({ kind: 'embedded', dir: path.join(workDir, 'db') });
      try {
        await db.storeRun(runDir);
        const run = JSON.parse(fs.readFileSync(path.join(runDir, 'run.json'), 'utf8')) as { runId: string };
        const stored = (await db.samples(run.runId, 'v26.7-lz4')).filter((s) => s.query_id === 'q1');
        assert.equal(stored.length, records[0].samples.length);
        for (const s of stored) {
          const rec = records[0].samples.find((x) => x.query_id === s.statement_id)!;
          assert.equal(s.elapsed_ms, rec.wall_ms);
          assert.equal(s.server_resolution_ms, 1);
          if (rec.server_elapsed_ms === 0) {
            assert.equal(s.server_elapsed_ms, null, 'not 0');
            assert.equal(s.server_elapsed_below_ms, 1);
          }
        }
        const csv = (await db.queryText(samplesExportSql(run.runId), 'CSVWithNames')).trim().split('\n');
        const head = csv[0].split(',').map((x) => x.replace(/"/g, ''));
        const rows = csv
          .slice(1)
          .map((l) => Object.fromEntries(l.split(',').map((v, i) => [head[i], v.replace(/"/g, '')])))
          .filter((r) => r.cell_key === 'v26.7-lz4' && r.query_id === 'q1');
        assert.ok(rows.length >= 4);
        for (const r of rows) {
          assert.notEqual(r.server_elapsed_ms, '0', 'csv: no server 0');
          assert.equal(r.elapsed_source, 'client wall time');
          assert.equal(r.server_resolution_ms, '1');
          assert.ok(Number(r.elapsed_ms) > 0);
        }
        const docs = await clickBenchResults(db, run.runId);
        const doc = docs.find((d) => d.name === 'v26.7-lz4.baseline')!.doc;
        const tries = doc.result[0];
        const pick = (kind: string, n: number) =>
          records[0].samples.find((s) => s.kind === kind && s.n === n)!.wall_ms / 1000;
        assert.deepEqual(tries, [pick('cold', 1), pick('warm', 1), pick('warm', 2)]);
        assert.ok(
          tries.every((t) => t !== null && t > 0),
          `no 0 s try: ${JSON.stringify(tries)}`,
        );
        // Item 11: result[0] is the run's first query (q1), not the alphabetically first (a0).
        assert.equal(doc.result.length, 2);
        const a0 = (kind: string, n: number) => records[1].samples.find((s) => s.kind === kind && s.n === n)!;
        assert.deepEqual(
          doc.result[1],
          [a0('cold', 1), a0('warm', 1), a0('warm', 2)].map(
            (s) => runElapsed(records[1].stats.timing_source, s).elapsed_ms / 1000,
          ),
        );
        const qcol = head.indexOf('query_id');
        const order = csv
          .slice(1)
          .map((l) => l.split(',')[qcol].replace(/"/g, ''))
          .filter((q) => ['q1', 'a0'].includes(q))
          .filter((q, i, xs) => xs.indexOf(q) === i);
        assert.deepEqual(order, ['q1', 'a0'], "csv export in the run's query order");
      } finally {
        await db.close();
      }
    });
  },
);
