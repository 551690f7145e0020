/**
 * The validity judgements and per-run counters, on counters captured from real runs (no server):
 * the embedded 26.7 engine (`system.events` differences, direct I/O) and Debian's 18.16 (query_log
 * ProfileEvents, AIO — direct I/O's older form).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { judgeCold, judgeQuiet, judgeWarm, RUN_COUNTERS, CELL_COUNTERS } from '../../src/measure/validity';
import type { RunCounters } from '../../src/schema/results';
import { counterDelta, eventSnapshot, queryLogCounters } from '../../src/measure/counters';
import { normaliseQueryLogRow } from '../../src/clickhouse/query-log';
import { events267, queries1816, queries267, queryLog1816, type QueriesFixture } from '../fixtures/measure';

const DROPS_OK = [
  { sql: 'SYSTEM DROP MARK CACHE', ok: true },
  { sql: 'SYSTEM DROP UNCOMPRESSED CACHE', ok: true },
];
const cold = (f: QueriesFixture, which: 'fresh' | 'stale') => f[which].samples.find((s) => s.kind === 'cold')!;

test('26.7 cold run after the drops, read with direct I/O: cold', () => {
  const s = cold(queries267(), 'fresh');
  assert.equal(s.counters!.CreatedReadBufferDirectIO, 28);
  assert.equal(s.counters!.MarkCacheMisses, 14);
  const v = judgeCold(s.counters, s.cold_preparation!.os_page_cache, s.cold_preparation!.server_caches);
  assert.deepEqual(v, { valid: true, label: 'cold', reasons: [] });
  assert.deepEqual(v, s.validity.cold, 'the same verdict the protocol recorded');
});

test('26.7 "cold" run without any drop: every mark came from the mark cache, not cold', () => {
  const s = cold(queries267(), 'stale');
  assert.equal(s.cold_preparation!.server_caches.length, 0, 'no drop was issued');
  const v = judgeCold(s.counters, s.cold_preparation!.os_page_cache, s.cold_preparation!.server_caches);
  assert.equal(v.valid, false);
  assert.equal(v.label, 'not cold');
  assert.deepEqual(v.reasons, ['14 mark(s) came from the mark cache (it was not dropped)']);
});

test("18.16 cold run read with AIO (direct I/O's older form), counters from query_log: cold", () => {
  const f = queries1816();
  const s = cold(f, 'fresh');
  assert.equal(s.counters_source, 'system.query_log ProfileEvents');
  assert.equal(s.counters!.CreatedReadBufferAIO, 7);
  assert.equal(s.counters!.CreatedReadBufferDirectIO, null, '18.16 has no such counter: unknown, not 0');
  assert.deepEqual(judgeCold(s.counters, s.cold_preparation!.os_page_cache, s.cold_preparation!.server_caches), {
    valid: true,
    label: 'cold',
    reasons: [],
  });
  assert.equal(
    judgeCold(cold(f, 'stale').counters, 'not dropped: protocol.dropOsPageCache is false', []).label,
    'not cold',
  );
});

test('hits with misses after a successful drop are the run re-using its own marks: a note, still cold', () => {
  // The 26.7 cold run's real counters, plus the mark-cache hits its warm runs had (14): hits *with* misses.
  const q = queries267().fresh;
  const c: RunCounters = {
    ...cold(queries267(), 'fresh').counters!,
    MarkCacheHits: q.samples.find((s) => s.kind === 'warm')!.counters!.MarkCacheHits,
  };
  const v = judgeCold(c, 'not dropped: protocol.dropOsPageCache is false', DROPS_OK);
  assert.equal(v.valid, true);
  assert.deepEqual(v.reasons, ['note: 14 in-run mark cache hit(s) after the drop (marks this run loaded itself)']);
  // The same hits with the drop refused: the cache was warm.
  const refused = judgeCold(c, '', [{ sql: 'SYSTEM DROP MARK CACHE', ok: false }]);
  assert.equal(refused.valid, false);
  assert.match(refused.reasons[0], /^14 mark\(s\) came from the mark cache \(it was not dropped\)/);
});

test('a warm run judged as cold: marks all hits, ordinary buffers, page cache not dropped', () => {
  const warm = queries267().fresh.samples.find((s) => s.kind === 'warm')!;
  const v = judgeCold(warm.counters, 'not dropped: protocol.dropOsPageCache is false', DROPS_OK);
  assert.equal(v.valid, false);
  assert.deepEqual(v.reasons, [
    '14 mark(s) came from the mark cache and none from storage',
    'no direct-I/O read buffer was created (14 ordinary) and the OS page cache was not dropped',
  ]);
  // Ordinary reads after the OS page cache was dropped are cold reads as far as the page cache goes.
  assert.deepEqual(judgeCold({ ...warm.counters!, MarkCacheHits: 0, MarkCacheMisses: 14 }, 'dropped', DROPS_OK), {
    valid: true,
    label: 'cold',
    reasons: [],
  });
});

test('no counters (a target that gives none): cold? with the unknowns named, never a guess', () => {
  const v = judgeCold(null, 'not dropped: protocol.dropOsPageCache is false', DROPS_OK);
  assert.equal(v.valid, null);
  assert.equal(v.label, 'cold?');
  assert.deepEqual(v.reasons, ['MarkCacheHits unknown', 'file read counters unknown', 'direct I/O counters unknown']);
});

test('judgeWarm and judgeQuiet on recorded figures', () => {
  const st = queries267().fresh.stats;
  assert.deepEqual(judgeWarm(st.cold_ms, st.warm_min_ms), { valid: true, label: 'warm', reasons: [] });
  assert.deepEqual(st.warm_validity, judgeWarm(st.cold_ms, st.warm_min_ms));
  assert.deepEqual(judgeWarm(st.warm_min_ms, st.cold_ms), {
    valid: false,
    label: 'not warmer',
    reasons: [`warm min ${st.cold_ms!.toFixed(2)} ms is not below cold ${st.warm_min_ms!.toFixed(2)} ms`],
  });
  assert.equal(judgeWarm(null, 3).label, 'warm?');
  assert.deepEqual(judgeQuiet(false, 0), { valid: true, label: 'quiet', reasons: [] });
  assert.deepEqual(judgeQuiet(true, 2), {
    valid: false,
    label: 'not quiet',
    reasons: ['the set of active parts changed during the run', '2 merge(s)/mutation(s) ran on the table'],
  });
  assert.deepEqual(judgeQuiet(false, null), {
    valid: null,
    label: 'quiet?',
    reasons: ['merges/mutations during the run unknown'],
  });
});

test("system.events snapshots around a 26.7 cold run: the difference is the run's counters", () => {
  const e = events267();
  const d = counterDelta(eventSnapshot(e.before), eventSnapshot(e.after), e.events);
  assert.equal(d.MarkCacheMisses, 14);
  assert.equal(d.MarkCacheHits, 0);
  assert.equal(d.CreatedReadBufferDirectIO, 28);
  assert.equal(d.ReadBufferFromFileDescriptorReadBytes, 46205647 - 36980045);
  assert.equal(d.CreatedReadBufferAIO, null, 'the engine lists no such counter: unknown');
  assert.equal(
    counterDelta(eventSnapshot(e.before), eventSnapshot(e.after)).CreatedReadBufferAIO,
    null,
    'without the list, a counter listed in neither snapshot is unknown (n/a), never 0',
  );
  assert.deepEqual(judgeCold(d, 'not dropped: protocol.dropOsPageCache is false', DROPS_OK).label, 'cold');
});

test('query_log ProfileEvents → run counters: absent = 0 only for counters known to exist', () => {
  const f = queries1816();
  const s = cold(f, 'fresh');
  const rows = queryLog1816().raw_rows.map(normaliseQueryLogRow);
  const pe = rows.find((r) => r.query_id === s.query_id)!.ProfileEvents as Record<string, number>;
  // A counter exists when any run of the step reported it (the probe's 18.16 list is incomplete).
  const step = new Set(f.fresh.samples.map((x) => x.query_id));
  const known = new Set(
    rows.filter((r) => step.has(String(r.query_id))).flatMap((r) => Object.keys(r.ProfileEvents as object)),
  );
  assert.equal(pe.MarkCacheHits, undefined, 'the cold run had no mark-cache hit: absent from its row');
  // The fixture was recorded before SelectedRows/SelectedBytes were run counters: compare its keys.
  const now = queryLogCounters(pe, known);
  assert.deepEqual(
    Object.fromEntries(Object.keys(s.counters!).map((k) => [k, now[k]])),
    s.counters,
    'the counters the protocol recorded',
  );
  assert.equal(queryLogCounters(pe, known).MarkCacheHits, 0, 'absent, but the warm runs reported it: 0');
  assert.equal(queryLogCounters(pe, new Set()).MarkCacheHits, null, 'absent and never seen: unknown');
});

test('the cell-level counter list speaks of the same read-path counters as the per-run one', () => {
  const runOnly = new Set<string>(RUN_COUNTERS);
  const workload = ['Query', 'SelectQuery', 'InsertedRows', 'MergedRows', 'OSWriteBytes'];
  for (const k of CELL_COUNTERS)
    assert.ok(workload.includes(k) || runOnly.has(k), `${k} is a read-path counter missing from RUN_COUNTERS`);
});
