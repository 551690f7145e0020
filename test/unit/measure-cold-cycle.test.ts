/**
 * The cold cycle's inputs and its "what cold meant" text, the query_log reader's pure parts, the
 * EXPLAIN granule parser and the query_id grammar, on output captured from Debian's 18.16 and the
 * embedded 26.7 engine. No server.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ClickHouseClient } from '@clickhouse/client';
import {
  coldCacheDrops,
  coldDefinition,
  osPageCacheStep,
  prepareColdRun,
  serverPodOf,
  COLD_RUN_SETTINGS,
} from '../../src/measure/cold-cycle';
import { PROBED_CACHE_DROPS } from '../../src/clickhouse/probe';
import { normaliseQueryLogRow, queryLogSelect } from '../../src/clickhouse/query-log';
import { explainGranules, judgeIndexUse } from '../../src/measure/index-proof';
import { parseQueryId, queryIdPrefix } from '../../src/schema/cell';
import { explain267, profileEventsMap267, queries1816, queries267, queryLog1816 } from '../fixtures/measure';
import type { CapabilityProbe, QueryRecord } from '../../src/schema/results';
import type { KubernetesFacts } from '../../src/schema/target';

const asProbe = (p: { cache_drops: CapabilityProbe['cache_drops'] }) => p as unknown as CapabilityProbe;

test('cache drops: those the probe saw accepted, every known one without a probe', () => {
  assert.deepEqual(coldCacheDrops(asProbe(queries1816().probe)), [
    'SYSTEM DROP MARK CACHE',
    'SYSTEM DROP UNCOMPRESSED CACHE',
  ]);
  const d267 = coldCacheDrops(asProbe(queries267().probe));
  assert.equal(d267.length, 10);
  assert.ok(!d267.includes('SYSTEM DROP SKIPPING INDEX CACHE'), 'the embedded 26.7 engine refuses it');
  assert.deepEqual(coldCacheDrops(undefined), PROBED_CACHE_DROPS);
  // What the protocol issued before the recorded cold runs is exactly that list.
  assert.deepEqual(
    queries267().fresh.samples[0].cold_preparation!.server_caches.map((c) => c.sql),
    d267,
  );
  assert.deepEqual(
    queries267().fresh.samples[0].cold_preparation!.settings.min_bytes_to_use_direct_io,
    COLD_RUN_SETTINGS.min_bytes_to_use_direct_io,
  );
});

test('coldDefinition on 18.16: two caches dropped, the newer ones "not on this version" (from the probe)', () => {
  const f = queries1816();
  assert.equal(
    coldDefinition([f.fresh], asProbe(f.probe)),
    'direct I/O requested (min_bytes_to_use_direct_io=1); caches dropped before each cold run: mark cache, uncompressed cache; ' +
      'not dropped: index mark cache (not on this version), index uncompressed cache (not on this version), mmap cache (not on this version), ' +
      'compiled expression cache (not on this version), query cache (not on this version), filesystem cache (not probed: the probe predates it), ' +
      'query condition cache (not on this version), page cache (not on this version), primary index cache (not on this version), ' +
      'vector similarity index cache (not probed: the probe predates it), text index caches (not probed: the probe predates it), ' +
      'skipping index cache (not on this version); ' +
      'OS page cache not dropped: protocol.dropOsPageCache is false',
  );
});

test('coldDefinition on 26.7: a drop counts only when it succeeded before *every* cold run', () => {
  const f = queries267();
  assert.equal(
    coldDefinition([f.fresh], asProbe(f.probe)),
    'direct I/O requested (min_bytes_to_use_direct_io=1); caches dropped before each cold run: mark cache, uncompressed cache, index mark cache, ' +
      'index uncompressed cache, mmap cache, compiled expression cache, query cache, query condition cache, page cache, primary index cache; ' +
      'not dropped: filesystem cache (not probed: the probe predates it), vector similarity index cache (not probed: the probe predates it), ' +
      'text index caches (not probed: the probe predates it), skipping index cache (not on this version); ' +
      'OS page cache not dropped: protocol.dropOsPageCache is false',
  );
  // With the run that dropped nothing, no cache was dropped before every cold run.
  assert.match(
    coldDefinition([f.fresh, f.stale], asProbe(f.probe)),
    /caches dropped before each cold run: none; not dropped: mark cache \(refused: not issued\)/,
  );
  assert.equal(
    coldDefinition([{ ...f.fresh, samples: f.fresh.samples.filter((s) => s.kind !== 'cold') }]),
    'no cold runs',
  );
});

test('OS page cache: dropped only when asked and the server is on the worker host', async () => {
  assert.equal(await osPageCacheStep(false, true), 'not dropped: protocol.dropOsPageCache is false');
  assert.equal(await osPageCacheStep(true, false), 'not dropped: the server is not known to run on the worker host');
});

test('OS page cache of a server in a pod: says where it runs and exactly what the cold run got instead', async () => {
  const facts = {
    namespace: 'bench-database',
    pod: 'chb-v26-7-lz4-1a2b3c4d',
    node: 'ip-10-0-1-10.ec2.internal',
  } as KubernetesFacts;
  const pod = serverPodOf({ kind: 'kubernetes', kubernetes: facts }, { onWorkerHost: false });
  assert.deepEqual(pod, {
    namespace: 'bench-database',
    pod: 'chb-v26-7-lz4-1a2b3c4d',
    node: 'ip-10-0-1-10.ec2.internal',
  });
  // Other kinds, or a pod declared on the worker's host, keep the generic wording.
  assert.equal(serverPodOf({ kind: 'external' }, { onWorkerHost: false }), undefined);
  assert.equal(serverPodOf({ kind: 'kubernetes', kubernetes: facts }, { onWorkerHost: true }), undefined);

  // A server that accepts the mark and uncompressed cache drops and refuses the mmap one.
  const issued: string[] = [];
  const client = {
    command: async ({ query }: { query: string }) => {
      issued.push(query);
      if (query.includes('MMAP')) throw new Error('Code: 497. DB::Exception: Not enough privileges. (ACCESS_DENIED)');
      return {};
    },
  } as unknown as ClickHouseClient;
  const drops = ['SYSTEM DROP MARK CACHE', 'SYSTEM DROP UNCOMPRESSED CACHE', 'SYSTEM DROP MMAP CACHE'];
  const prep = await prepareColdRun(
    client,
    { max_threads: 4 },
    {
      drops,
      dropCaches: true,
      dropOsPageCache: true,
      serverOnThisHost: false,
      serverPod: pod,
    },
  );
  assert.deepEqual(issued, drops);
  assert.equal(
    prep.os_page_cache,
    "not dropped: the server runs in pod bench-database/chb-v26-7-lz4-1a2b3c4d on node ip-10-0-1-10.ec2.internal, not on the worker's host; " +
      'ClickHouse caches were dropped (SYSTEM DROP MARK CACHE, SYSTEM DROP UNCOMPRESSED CACHE), not dropped: SYSTEM DROP MMAP CACHE (refused) ' +
      'and direct I/O was requested (min_bytes_to_use_direct_io=1)',
  );
  assert.deepEqual(prep.settings, { max_threads: 4, ...COLD_RUN_SETTINGS });
  // The step's cold_definition carries it.
  const record = { samples: [{ kind: 'cold', cold_preparation: prep }] } as unknown as QueryRecord;
  assert.match(
    coldDefinition([record]),
    /OS page cache not dropped: the server runs in pod bench-database\/chb-v26-7-lz4-1a2b3c4d on node ip-10-0-1-10\.ec2\.internal, not on the worker's host; ClickHouse caches were dropped \(SYSTEM DROP MARK CACHE, SYSTEM DROP UNCOMPRESSED CACHE\)/,
  );
  // Nothing dropped (no drops issued), node unknown; the protocol's choice still wins.
  assert.equal(
    await osPageCacheStep(true, false, { ...pod!, node: null }, []),
    "not dropped: the server runs in pod bench-database/chb-v26-7-lz4-1a2b3c4d on node (unknown), not on the worker's host; " +
      'no ClickHouse cache was dropped and direct I/O was requested (min_bytes_to_use_direct_io=1)',
  );
  assert.equal(await osPageCacheStep(false, false, pod, []), 'not dropped: protocol.dropOsPageCache is false');
});

test('query_log rows: 18.16 arrays become one object; a 26.7 Map is already one', () => {
  const raw = queryLog1816().raw_rows[0];
  const names = raw['ProfileEvents.Names'] as string[];
  const values = raw['ProfileEvents.Values'] as string[];
  const row = normaliseQueryLogRow(raw);
  assert.deepEqual(row.ProfileEvents, Object.fromEntries(names.map((n, i) => [n, Number(values[i])])));
  assert.equal(row.query_duration_ms, raw.query_duration_ms, 'other columns as sent');
  assert.deepEqual(row['Settings.Names'], raw['Settings.Names']);
  const map = profileEventsMap267();
  assert.match(map.columns.find((c) => c.name === 'ProfileEvents')!.type, /^Map\(/);
  const m = map.raw_rows[0];
  assert.deepEqual(normaliseQueryLogRow(m), m, 'a Map arrives as an object: kept as sent');
  assert.equal(Number((m.ProfileEvents as Record<string, string>).Query), 1);
});

test("query_log SELECT follows the server's columns: 18.16 UInt8 type, no microseconds", () => {
  const cols = queryLog1816().query_log_columns;
  const sql = queryLogSelect(
    ['a', "b'c"],
    cols.map((c) => c.name),
    cols.find((c) => c.name === 'type')!.type,
  );
  assert.match(sql, /`ProfileEvents\.Names`, `ProfileEvents\.Values`/);
  assert.match(sql, / AND type = 2 AND query_id IN \('a', 'b\\'c'\)$/);
  assert.doesNotMatch(sql, /query_duration_us/);
  // A newer server (Enum type, microsecond columns, ProfileEvents Map).
  const newer = queryLogSelect(
    ['a'],
    ['query_id', 'query_duration_ms', 'ProfileEvents', 'event_time_microseconds', 'query_start_time_microseconds'],
    "Enum8('QueryStart' = 1, 'QueryFinish' = 2)",
  );
  assert.match(
    newer,
    /^SELECT query_id, query_duration_ms, ProfileEvents, toUnixTimestamp64Micro\(event_time_microseconds\) - toUnixTimestamp64Micro\(query_start_time_microseconds\) AS query_duration_us FROM/,
  );
  assert.match(newer, /type = 'QueryFinish'/);
});

test("EXPLAIN indexes = 1 (26.7): the skip index's granules, and no index under use_skip_indexes = 0", () => {
  const e = explain267();
  assert.deepEqual(explainGranules(e.with_index, e.index), {
    outcome: 'used',
    form: 'pretty',
    kept: 4,
    total: 28,
    reads: 1,
  });
  assert.deepEqual(explainGranules(e.use_skip_indexes_0, e.index), { outcome: 'absent', form: 'pretty' });
  assert.deepEqual(explainGranules(e.with_index, 'other_index'), { outcome: 'absent', form: 'pretty' });
  assert.deepEqual(judgeIndexUse(e.index, e.with_index, 16_384, 200_000), {
    index: 'trace_bf',
    explain_granules: '4/28',
    explain_skips: true,
    read_rows_after: 16_384,
    read_rows_before: 200_000,
    effective: true,
    reason: 'EXPLAIN granules 4/28; measured read_rows 16,384 after vs 200,000 before',
  });
  assert.equal(
    judgeIndexUse(e.index, e.with_index, 200_000, 200_000).effective,
    false,
    'EXPLAIN claims skipping, the runs read as much',
  );
  assert.match(judgeIndexUse(e.index, e.use_skip_indexes_0, 200_000, 200_000).reason, /does not use index trace_bf/);
  // 18.16 has no EXPLAIN: the measured record keeps the server's refusal, and the proof is "cannot be judged".
  assert.match(queries1816().fresh.explain_error!, /^Code: 62, e\.displayText\(\) = DB::Exception: Syntax error/);
  assert.equal(judgeIndexUse(e.index, null, 1, 2).effective, null);
});

test('query_ids: queryIdPrefix and parseQueryId are inverses for every statement a step issues', () => {
  const p = queryIdPrefix('demo 2026/08', 'v26.7-lz4', 'baseline');
  assert.equal(p, 'chb-demo_2026_08-v26.7-lz4-baseline');
  assert.deepEqual(parseQueryId(`${p}-q1-cold1-a2`), {
    stepPrefix: p,
    step: 'baseline',
    attempt: 2,
    run: { query: 'q1', kind: 'cold', n: 1 },
  });
  assert.deepEqual(parseQueryId(`${p}-q12-warmup3-a1`)?.run, { query: 'q12', kind: 'warmup', n: 3 });
  const load = queryIdPrefix('r', 'v18.16-zstd', 'load');
  assert.deepEqual(parseQueryId(`${load}-a1`), { stepPrefix: load, step: 'load', attempt: 1 });
  assert.deepEqual(parseQueryId(`${load}-truncate-a3`), {
    stepPrefix: load,
    step: 'load',
    attempt: 3,
    statement: 'truncate',
  });
  assert.equal(parseQueryId('chb-watch-7f1c'), null);
  assert.equal(
    parseQueryId(queries267().fresh.samples[0].query_id),
    null,
    'not a chbench step id (captured with a test prefix)',
  );
});
