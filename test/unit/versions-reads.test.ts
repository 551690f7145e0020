/**
 * read_rows / read_bytes as each real version reports them (fixtures captured by
 * scripts/capture-version-fixtures.py: one full scan of the seed's 100,000-row table), counters a
 * version lacks, and the skip-index judgement: a 0 read is unknown, never a figure nor a verdict.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { _internal, type MeasuredResult } from '../../src/clickhouse/client';
import { counterDelta, eventSnapshot } from '../../src/measure/counters';
import { applyQueryLog, readFromCounters, runFigures } from '../../src/measure/figures';
import { judgeIndexUse } from '../../src/measure/index-proof';
import { readProof, renderReport } from '../../src/results/report';
import { flatSamples } from '../../src/results/samples';
import type { CellResult, RunSample } from '../../src/schema/results';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../../src/config';
import { VERSIONS, countersOf, explainOf, type FixtureVersion } from '../fixtures/versions';

/** The measured result of the captured scan, as runMeasured builds it from the body. */
function measured(v: FixtureVersion): MeasuredResult {
  const c = countersOf(v);
  const p = new _internal.JsonCompactStream();
  p.push(Buffer.from(c.JSONCompact));
  assert.ok(p.complete);
  return {
    query_id: `scan-${v}`,
    wall_ms: 10,
    summary: undefined,
    output_statistics: JSON.parse(p.captured.get('statistics')!),
    result_rows: p.rows,
    result_bytes: p.bytes,
    result_sha256: p.digest(),
    first_rows: p.firstRows,
    wait_end_of_query: true,
  };
}

const snapshot = (rows: Record<string, string>) => eventSnapshot(Object.entries(rows).map(([k, v]) => ({ k, v })));

test('JSON statistics say rows_read 0 before 26.5: unknown with the reason, never a figure', () => {
  for (const v of VERSIONS) {
    const f = runFigures(measured(v), 'output statistics');
    if (v === '26.9') {
      assert.deepEqual(
        [f.read_rows, f.read_bytes, f.read_source, f.read_unknown],
        [100_000, 9_593_924, 'output statistics', undefined],
      );
      continue;
    }
    assert.equal(measured(v).output_statistics?.rows_read, 0, `${v} reports 0`);
    assert.deepEqual([f.read_rows, f.read_bytes, f.read_source], [null, null, null], v);
    assert.match(f.read_unknown!, /output statistics rows_read 0: a 0 read is unknown, not a figure/);
  }
});

test("where the engine reports no read: the system.events difference less the snapshot's own read, with its source", () => {
  for (const v of VERSIONS) {
    const c = countersOf(v);
    const counters = counterDelta(snapshot(c.events_before), snapshot(c.events_after), c.events_all);
    const fresh = () =>
      ({ ...runFigures(measured(v), 'output statistics'), counters }) as Pick<
        RunSample,
        'read_rows' | 'read_bytes' | 'read_source' | 'counters' | 'read_unknown'
      >;
    // The fixtures' snapshots were filtered reads: what they added is the difference beyond the 100,000 rows scanned.
    const own = counters.SelectedRows! - 100_000;
    const ownBytes = counters.SelectedBytes!; // bytes: the arithmetic (the calibration is measured live)
    const s = fresh();
    readFromCounters(s, own, { rows: own, bytes: 1000 });
    if (v === '26.9') {
      assert.equal(s.read_source, 'output statistics', 'a real figure is kept');
      continue;
    }
    assert.equal(s.read_source, 'system.events difference', v);
    assert.equal(s.read_rows, 100_000, `${v}: the snapshot's own rows are taken off`);
    assert.equal(s.read_bytes, ownBytes - 1000, `${v}: the calibrated bytes are taken off`);
    // A snapshot whose row count differs from the calibration: rows still exact, bytes unknown with the reason.
    const t = fresh();
    readFromCounters(t, own, { rows: own + 1, bytes: 1000 });
    assert.equal(t.read_rows, 100_000);
    assert.equal(t.read_bytes, null);
    assert.match(String(t.read_unknown), /not calibrated/);
    // Without the snapshot's row count there is no figure at all.
    const u = fresh();
    readFromCounters(u);
    assert.equal(u.read_rows, null, v);
  }
});

test('counters a version lacks are n/a, never 0 (CreatedReadBufferAIO*: 18.16 has them, 23.10…26.9 do not)', () => {
  for (const v of VERSIONS) {
    const c = countersOf(v);
    assert.ok(!c.events_all.includes('CreatedReadBufferAIO'), v);
    const [a, b] = [snapshot(c.events_before), snapshot(c.events_after)];
    const withList = counterDelta(a, b, c.events_all);
    const noList = counterDelta(a, b);
    for (const d of [withList, noList]) {
      assert.equal(d.CreatedReadBufferAIO, null, v);
      assert.equal(d.ReadBufferAIOReadBytes, null, v);
    }
    // It exists and stayed 0 (system.events lists only non-zero counters): 0 with the list, unknown without.
    assert.ok(c.events_all.includes('CreatedReadBufferDirectIO') && !('CreatedReadBufferDirectIO' in c.events_after));
    assert.equal(withList.CreatedReadBufferDirectIO, 0, v);
    assert.equal(noList.CreatedReadBufferDirectIO, null, v);
    assert.equal(withList.MarkCacheMisses! > 0, true, v);
  }
});

test('the skip-index judgement never rests on a 0 read (24.8: EXPLAIN 2/14, statistics 0)', () => {
  const e = explainOf('24.8');
  const p = judgeIndexUse(e.index, e.default, 0, 0);
  assert.equal(p.effective, null);
  assert.deepEqual([p.read_rows_after, p.read_rows_before], [null, null]);
  assert.match(
    p.reason,
    /EXPLAIN granules 2\/14; measured read_rows unknown \(0 reported after and before: not a figure\)/,
  );
  // A proof recorded that way before: read again, it is no verdict.
  const old = { ...p, read_rows_after: 0, read_rows_before: 0, effective: false, explain_skips: true };
  assert.equal(readProof(old).effective, null);
  assert.equal(readProof({ ...old, read_rows_after: 5 }).effective, null);
  assert.equal(readProof({ ...old, read_rows_after: 5, read_rows_before: 5 }).effective, false);
});

test('a query_log row that says read_rows 0 keeps the run’s own figure, with the reason', () => {
  const s = {
    read_rows: 100_097,
    read_bytes: 10_206_528,
    read_source: 'system.events difference',
    settings: {},
  } as unknown as RunSample;
  applyQueryLog(s, { query_duration_ms: '5', read_rows: '0', read_bytes: '0' } as never);
  assert.deepEqual([s.read_rows, s.read_source], [100_097, 'system.events difference']);
  assert.match(s.read_unknown!, /system\.query_log read_rows 0/);
});

test('the report shows a recorded 0 read as unknown and takes no "not effective" verdict from it', () => {
  const FIXTURE = path.join(REPO_ROOT, 'test', 'fixtures', 'results', 'embedded-26.7');
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'chbench-reads-'));
  try {
    const dir = path.join(tmp, 'run');
    cpSync(FIXTURE, dir, { recursive: true });
    // As the 24.8 run of the issue recorded it: every read 0, the proof "not effective" from them.
    for (const cell of ['v26.7-lz4', 'v26.7-zstd3']) {
      const f = path.join(dir, 'cells', cell, 'result.json');
      const r = JSON.parse(readFileSync(f, 'utf8')) as CellResult;
      for (const p of [r.queries_baseline!, r.queries_index!])
        for (const q of p.queries) {
          q.stats.read_rows = 0;
          q.stats.read_bytes = 0;
          if (q.index_proof)
            q.index_proof = {
              ...q.index_proof,
              read_rows_after: 0,
              read_rows_before: 0,
              effective: false,
              explain_skips: true,
              reason:
                'index not effective in the measured runs: EXPLAIN claims granules 4/28 but measured read_rows 0 after vs 0 before',
            };
        }
      writeFileSync(f, JSON.stringify(r));
    }
    const md = renderReport(dir);
    assert.doesNotMatch(md, /not effective in the measured runs\*\*|⚠ index not effective|index\(es\)? NOT verified/);
    assert.match(md, /a read_rows of 0 is unknown, not a verdict/);
    const row = md.split('\n').find((l) => /^\| v26\.7-lz4\s*\| q5 /.test(l))!;
    assert.match(row, /unknown \(0 reported\)/);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('samples.jsonl writes no line for a recorded 0 read', () => {
  const f = path.join(REPO_ROOT, 'test', 'fixtures', 'results', 'embedded-26.7', 'cells', 'v26.7-lz4', 'result.json');
  const r = JSON.parse(readFileSync(f, 'utf8')) as CellResult;
  const count = (rec: CellResult, m: string) =>
    flatSamples(rec, { chbench: null }).filter((s) => s.metric === m).length;
  const before = count(r, 'read_rows');
  assert.ok(before > 0);
  for (const p of [r.queries_baseline!, r.queries_index!])
    for (const q of p.queries) for (const s of q.samples) [s.read_rows, s.read_bytes] = [0, 0];
  assert.equal(count(r, 'read_rows'), 0);
  assert.equal(count(r, 'read_bytes'), 0);
});
