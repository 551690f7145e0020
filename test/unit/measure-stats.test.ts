/**
 * Statistics and the sources of each figure, on records and query_log rows captured from real runs
 * (Debian's 18.16 with whole-millisecond query_log durations; the embedded 26.7 engine's complete
 * HTTP summary). No server.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stats, MAX_RESOLUTION_SHARE, SERVER_TIME_RESOLUTION_MS } from '../../src/measure/stats';
import { applyQueryLog, crossCheck, queryFailure, runFigures } from '../../src/measure/figures';
import { normaliseQueryLogRow } from '../../src/clickhouse/query-log';
import type { MeasuredResult } from '../../src/clickhouse/client';
import type { RunSample } from '../../src/schema/results';
import { queries1816, queries267, queryLog1816 } from '../fixtures/measure';

test('stats() recomputes exactly what the protocol recorded (26.7 summary, 18.16 query_log)', () => {
  for (const f of [queries267(), queries1816()])
    for (const rec of [f.fresh, f.stale, ...(f.fast ? [f.fast] : [])])
      assert.deepEqual(stats(rec.samples), rec.stats, `${f.version} ${rec.id}`);
});

test("26.7: the summary's nanoseconds resolve finely enough: server time is the headline", () => {
  const st = stats(queries267().fresh.samples);
  assert.equal(st.timing_source, 'server-side elapsed');
  assert.equal(st.resolution_ms, SERVER_TIME_RESOLUTION_MS['http summary elapsed_ns']);
  const warm = queries267()
    .fresh.samples.filter((s) => s.kind === 'warm')
    .map((s) => s.server_elapsed_ms!);
  assert.equal(st.warm_min_ms, Math.min(...warm));
  assert.equal(st.warm_max_ms, Math.max(...warm));
  assert.equal(st.warm_median_ms, (warm[0] + warm[1]) / 2);
  assert.equal(st.cold_ms, queries267().fresh.samples[0].server_elapsed_ms);
});

test('18.16: whole-ms query_duration_ms coarser than 10 % of the fastest run: client wall time is the headline', () => {
  const fast = queries1816().fast!;
  const server = fast.samples.map((s) => s.server_elapsed_ms!);
  const smallest = Math.min(...server);
  assert.ok(1 > MAX_RESOLUTION_SHARE * smallest, `fastest run ${smallest} ms: 1 ms is more than 10 % of it`);
  const st = stats(fast.samples);
  assert.equal(st.timing_source, 'client wall time');
  assert.equal(
    st.timing_note,
    `server time (system.query_log.query_duration_ms) resolves 1 ms, coarser than 10 % of the fastest run (${smallest} ms): client wall time is the headline`,
  );
  assert.equal(st.resolution_ms, null);
  assert.equal(st.warm_min_ms, Math.min(...fast.samples.map((s) => s.wall_ms)));
  // The slower q3 (≥ 20 ms on the server): 1 ms is ≤ 10 %, the server's clock stays the headline.
  const q3 = stats(queries1816().fresh.samples);
  assert.equal(q3.timing_source, 'server-side elapsed');
  assert.equal(q3.resolution_ms, 1);
});

test('a cold run judged not cold is left out of cold_ms and counted as rejected', () => {
  const st = stats(queries267().stale.samples);
  assert.equal(st.cold_ms, null);
  assert.equal(st.cold_runs, 0);
  assert.equal(st.cold_runs_rejected, 1);
  // Warm-ups are kept but never in a statistic; without an elapsed for every run, wall time is the headline.
  const s = queries267().fresh.samples.map((x, i) =>
    i === 1 ? { ...x, kind: 'warmup' as const, server_elapsed_ms: null } : x,
  );
  assert.equal(stats(s).timing_source, 'server-side elapsed', 'the warm-up without elapsed does not count');
  const noServer = stats(
    queries267().fresh.samples.map((x) => ({ ...x, server_elapsed_ms: null, server_elapsed_source: null })),
  );
  assert.equal(noServer.timing_note, 'the server gave no elapsed time for every run: client wall time is the headline');
});

test("18.16 query_log rows: normalised (ProfileEvents arrays → one object) and joined as each run's headline", () => {
  const f = queries1816();
  const rows = queryLog1816().raw_rows;
  for (const s of [...f.fresh.samples, ...f.stale.samples]) {
    const raw = rows.find((r) => r.query_id === s.query_id)!;
    assert.ok(Array.isArray(raw['ProfileEvents.Names']), '18.16 stores ProfileEvents as two arrays');
    const row = normaliseQueryLogRow(raw);
    assert.equal(row['ProfileEvents.Names'], undefined);
    assert.equal(row['ProfileEvents.Values'], undefined);
    assert.equal((row.ProfileEvents as Record<string, number>).Query, 1);
    assert.deepEqual(row, s.query_log, 'the row the protocol recorded');
    // Rebuild the run as it was before the join, then join.
    const before: RunSample = {
      ...s,
      server_elapsed_ms: null,
      server_elapsed_source: null,
      read_rows: null,
      read_bytes: null,
      read_source: null,
      cross_check: undefined,
      query_log: undefined,
    };
    applyQueryLog(before, row);
    assert.equal(before.server_elapsed_ms, Number(raw.query_duration_ms));
    assert.equal(
      before.server_elapsed_source,
      'system.query_log.query_duration_ms',
      '18.16 has no microsecond columns',
    );
    assert.equal(before.read_rows, Number(raw.read_rows));
    assert.equal(before.read_source, 'system.query_log');
    assert.equal(before.cross_check, 'agrees (statistics rows_read)');
    assert.equal(before.cross_check, s.cross_check);
  }
});

test('crossCheck: a snapshot summary against query_log is a disagreement; none sent is "not checked"', () => {
  const s = queries1816().fresh.samples[0];
  const row = normaliseQueryLogRow(queryLog1816().raw_rows.find((r) => r.query_id === s.query_id)!);
  const rows = Number(row.read_rows);
  assert.equal(crossCheck(s, row), 'agrees (statistics rows_read)');
  assert.equal(
    crossCheck({ summary_complete: true }, row),
    'not checked: the server sent no summary and no statistics block',
  );
  const snapshot = { http_summary: { read_rows: '65505', elapsed_ns: '2000000' }, summary_complete: false };
  assert.equal(
    crossCheck(snapshot, row),
    `disagrees: summary (snapshot: wait_end_of_query not requested) read_rows 65505 vs query_log ${rows}; summary (snapshot: wait_end_of_query not requested) elapsed 2.000 ms vs query_log ${Number(row.query_duration_ms).toFixed(3)} ms`,
  );
});

test('runFigures: a complete summary gives elapsed and rows; a snapshot never does (the statistics block does)', () => {
  const s = queries267().fresh.samples[0];
  const r: MeasuredResult = {
    query_id: s.query_id,
    wall_ms: s.wall_ms,
    summary: s.http_summary,
    output_statistics: s.output_statistics,
    result_rows: s.result_rows,
    result_bytes: s.result_bytes!,
    result_sha256: s.result_sha256,
    first_rows: [],
    wait_end_of_query: s.summary_complete,
  };
  const f = runFigures(r);
  assert.equal(f.server_elapsed_ms, Number(s.http_summary!.elapsed_ns) / 1e6);
  assert.equal(f.server_elapsed_source, 'http summary elapsed_ns');
  assert.deepEqual([f.read_rows, f.read_bytes, f.read_source], [s.read_rows, s.read_bytes, s.read_source]);
  assert.equal(
    runFigures(r, 'output statistics').read_source,
    'output statistics',
    "the embedded engine's summary is its statistics",
  );
  const snap = runFigures({ ...r, wait_end_of_query: false });
  assert.equal(snap.server_elapsed_ms, null);
  assert.deepEqual([snap.read_rows, snap.read_source], [s.output_statistics!.rows_read, 'output statistics']);
  assert.equal(runFigures({ ...r, wait_end_of_query: false, output_statistics: undefined }).read_rows, null);
});

test('queryFailure: a server error of the query is data (code, name); anything else propagates', () => {
  // 18.16's refusal of EXPLAIN, as its client error text carries it.
  const text = queries1816().fresh.explain_error!;
  const f = queryFailure(new Error(text));
  assert.equal(f?.code, '62');
  assert.equal(f?.type, null, '18.16 names no error type');
  assert.equal(
    queryFailure(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' })),
    undefined,
  );
  assert.equal(
    queryFailure(new Error(text), () => true),
    undefined,
    'a lost server is not a query failure',
  );
  assert.equal(queryFailure(Object.assign(new Error('aborted'), { name: 'AbortError' })), undefined);
  assert.equal(
    queryFailure(new Error('Code: 60. DB::Exception: Unknown table (UNKNOWN_TABLE)'))?.type,
    'UNKNOWN_TABLE',
  );
});
