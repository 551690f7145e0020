/**
 * Cold runs drop the caches each version has (fixtures captured by scripts/capture-version-fixtures.py:
 * every `SYSTEM DROP … CACHE` chbench knows tried on the real engines, and the list each version's
 * parser gives for an unknown one), and a cache that is on but cannot be dropped is recorded.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PROBED_CACHE_DROPS } from '../../src/clickhouse/probe';
import {
  CACHE_SETTINGS,
  SERVER_CACHES,
  acceptedCacheNames,
  cacheStates,
  undroppableCaches,
  unknownCacheNames,
} from '../../src/measure/caches';
import { judgeCold } from '../../src/measure/validity';
import type { CapabilityProbe } from '../../src/schema/results';
import { VERSIONS, cachesOf, type FixtureVersion } from '../fixtures/versions';

/** The probe's cache facts as probeServer records them, from the captured outcomes. */
function probeOf(v: FixtureVersion): Pick<CapabilityProbe, 'cache_drops' | 'cache_settings'> {
  const c = cachesOf(v);
  return {
    cache_drops: PROBED_CACHE_DROPS.map((sql) => {
      const name = sql.replace(/^SYSTEM DROP /, '');
      assert.ok(name in c.drops, `${v}: the capture tried ${sql}`);
      const err = c.drops[name];
      return err === null ? { sql, ok: true } : { sql, ok: false, error: err };
    }),
    cache_settings: c.cache_settings,
  };
}

const accepted = (v: FixtureVersion) =>
  probeOf(v)
    .cache_drops.filter((d) => d.ok)
    .map((d) => d.sql.replace(/^SYSTEM DROP /, '').toLowerCase());

test('the caches each version drops (23.10 … 26.9, as the real engines accepted them)', () => {
  const base = [
    'mark',
    'uncompressed',
    'index mark',
    'index uncompressed',
    'mmap',
    'compiled expression',
    'query',
    'filesystem',
  ];
  const expected: Record<FixtureVersion, string[]> = {
    '23.10': base,
    '24.8': [...base, 'page'],
    '25.8': [...base, 'query condition', 'page', 'primary index', 'vector similarity index'],
    '26.3': [...base, 'query condition', 'page', 'primary index', 'vector similarity index', 'text index'],
    '26.9': [...base, 'query condition', 'page', 'primary index', 'vector similarity index', 'text index'],
  };
  for (const v of VERSIONS)
    assert.deepEqual(
      accepted(v),
      SERVER_CACHES.filter((c) => expected[v].includes(c.name)).map((c) =>
        c.drop!.replace(/^SYSTEM DROP /, '').toLowerCase(),
      ),
      v,
    );
});

test("every cache a version's SYSTEM DROP accepts is dropped by chbench or known not to hold what a query reads", () => {
  for (const v of VERSIONS) {
    const names = acceptedCacheNames(cachesOf(v).unknown_cache_error);
    assert.ok(names.includes('mark') && names.includes('query'), `${v}: ${names.join(', ')}`);
    assert.deepEqual(unknownCacheNames(names), [], v);
    // The probe's outcomes agree with the version's own list.
    for (const d of probeOf(v).cache_drops) {
      const n = d.sql
        .replace(/^SYSTEM DROP /, '')
        .replace(/ CACHES?$/, '')
        .toLowerCase();
      assert.equal(d.ok, names.includes(n), `${v}: ${d.sql}`);
    }
  }
  // A new cache in a future version is noticed.
  assert.deepEqual(unknownCacheNames(['mark', 'skip index result']), ['skip index result']);
});

test('the capture records every setting that turns a cache on', () => {
  const seen = new Set(VERSIONS.flatMap((v) => Object.keys(cachesOf(v).cache_settings)));
  // Not in any captured version: the ones of a newer build only.
  assert.deepEqual(
    CACHE_SETTINGS.filter((s) => !seen.has(s)),
    [],
  );
});

test('on but not droppable: the statistics cache from 26.3 (a plan cache: a note), nothing before', () => {
  // The runs' settings turn the result caches off (resultCacheSettings).
  const runs = { use_query_cache: 0, use_query_condition_cache: 0, max_execution_time: 60 };
  const stuck = Object.fromEntries(VERSIONS.map((v) => [v, undroppableCaches(cacheStates(probeOf(v), runs))]));
  assert.deepEqual(stuck['23.10'], []);
  assert.deepEqual(stuck['24.8'], []);
  assert.deepEqual(stuck['25.8'], []);
  for (const v of ['26.3', '26.9'])
    assert.deepEqual(stuck[v], [
      {
        text: 'statistics cache on (use_statistics_cache = 1 (default)) and no statement drops it on this version',
        serves: 'plan',
      },
    ]);
  // What the states say on 25.8 without the runs' settings: query condition cache on by default, droppable.
  const qc = cacheStates(probeOf('25.8'), {}).find((s) => s.name === 'query condition')!;
  assert.deepEqual(qc, {
    name: 'query condition',
    serves: 'data',
    on: true,
    why: 'use_query_condition_cache = 1 (default)',
    droppable: true,
  });
  // 26.9 has the text-index token and header caches on by default (26.3: off); both droppable there.
  const text = (v: FixtureVersion) => cacheStates(probeOf(v), runs).find((s) => s.name === 'text index')!;
  assert.deepEqual([text('26.3').on, text('26.9').on, text('26.9').droppable], [false, true, true]);
  assert.equal(text('26.9').why, 'use_text_index_tokens_cache = 1 (default)');
});

test('a data cache on but not droppable makes a cold run "cold?" with the reason; a plan cache is a note', () => {
  const counters = {
    MarkCacheHits: 0,
    MarkCacheMisses: 14,
    UncompressedCacheHits: 0,
    UncompressedCacheMisses: 0,
    CreatedReadBufferDirectIO: 28,
    CreatedReadBufferDirectIOFailed: 0,
    ReadBufferFromFileDescriptorReadBytes: 9_000_000,
  };
  const drops = [{ sql: 'SYSTEM DROP MARK CACHE', ok: true }];
  assert.equal(judgeCold(counters, 'not dropped: x', drops).label, 'cold');
  // 26.9's text index caches, if its drop were refused (a server that refuses SYSTEM statements):
  const p = probeOf('26.9');
  const refused = {
    ...p,
    cache_drops: p.cache_drops.map((d) =>
      d.sql === 'SYSTEM DROP TEXT INDEX CACHES' ? { ...d, ok: false, error: 'Code: 497. ACCESS_DENIED' } : d,
    ),
  };
  const stuck = undroppableCaches(cacheStates(refused, { use_query_condition_cache: 0 }));
  const j = judgeCold(counters, 'not dropped: x', drops, stuck);
  assert.equal(j.label, 'cold?');
  assert.ok(
    j.reasons.includes(
      'text index cache on (use_text_index_tokens_cache = 1 (default)) and its drop is refused on this version: the run may have been served from it',
    ),
    j.reasons.join(' | '),
  );
  assert.ok(j.reasons.some((r) => r.startsWith('note: statistics cache on')));
});
