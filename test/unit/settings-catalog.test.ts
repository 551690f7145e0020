/**
 * The builds' settings catalog (`src/engine/settings-catalog.json`, `src/targets/versions/settings-catalog.ts`):
 * every build the embedded target serves is in it, with the names its own system tables list; the spec
 * check refuses a setting a version of the matrix lacks before any cell runs, names the versions and the
 * nearest name, and lets `settings.optional` through. No server.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkSpec } from '../../src/targets/check-spec';
import { settingsCatalog } from '../../src/targets/versions/settings-catalog';
import { npmChdbSource } from '../../src/targets/versions/npm-chdb';
import { pypiChdbSource } from '../../src/targets/versions/pypi-chdb';

const spec = (over: Record<string, unknown>) => ({
  name: 'settings-check',
  workload: 'logs',
  scale: 100000,
  target: { kind: 'embedded' },
  matrix: { version: ['23.10', '24.8', '26.9'], codec: ['LZ4'] },
  ...over,
});

test('the catalog holds every build the embedded target serves, with the names of its system tables', () => {
  const cat = settingsCatalog();
  const served = [
    ...pypiChdbSource.labels().map((l) => pypiChdbSource.resolve(l)),
    ...npmChdbSource.labels().map((l) => npmChdbSource.resolve(l)),
  ];
  assert.ok(served.length >= 8, served.map((r) => r.label).join(', '));
  for (const r of served)
    assert.ok(r.clickhouse && cat.has(r.clickhouse), `${r.label} → ${r.clickhouse} in the catalog`);
  // Facts read from the builds: max_threads everywhere, use_query_condition_cache from 25.8, a newer name only in 26.x.
  const has = (v: string, n: string) => cat.get(v)!.settings.has(n);
  assert.ok([...cat.keys()].every((v) => has(v, 'max_threads') && has(v, 'compatibility')));
  assert.equal(has('24.8.4.1', 'use_query_condition_cache'), false);
  assert.equal(has('25.8.2.1', 'use_query_condition_cache'), true);
  assert.equal(has('26.9.2.1', 'use_skip_indexes_on_data_read'), true);
  assert.equal(has('25.8.2.1', 'use_skip_indexes_on_data_read'), false);
  assert.ok(cat.get('24.8.4.1')!.mergeTree.has('index_granularity_bytes'));
  assert.ok(
    cat.get('24.8.4.1')!.settings.size > 1000 &&
      cat.get('23.10.1.1')!.settings.size < cat.get('26.9.2.1')!.settings.size,
  );
});

test('a setting a version lacks is refused before any cell, naming the versions; optional lets it through; a typo gets the nearest name', () => {
  const { problems } = checkSpec(
    spec({
      matrix: {
        version: ['23.10', '24.8', '26.9'],
        codec: ['LZ4'],
        settings: [
          { name: 'base', query: {} },
          { name: 'qcc', query: { use_query_condition_cache: 1, max_thread: 2 } },
        ],
      },
      settings: { mergeTree: { index_granularity_bytez: 100 } },
    }),
  );
  assert.equal(problems.length, 3, problems.join('\n'));
  const [mt, qcc, typo] = [
    problems.find((p) => p.includes('index_granularity_bytez'))!,
    problems.find((p) => p.includes('use_query_condition_cache'))!,
    problems.find((p) => p.includes('max_thread '))!,
  ];
  assert.match(
    mt,
    /^settings\.mergeTree: index_granularity_bytez is not a setting of any version of this matrix .*system\.merge_tree_settings.*did you mean index_granularity_bytes\?/,
  );
  assert.match(
    qcc,
    /^matrix\.settings profile "qcc" query: use_query_condition_cache is not a setting of 23\.10 \(ClickHouse 23\.10\.1\.1, pypi chdb==1\.4\.1\), 24\.8 \(ClickHouse 24\.8\.4\.1, pypi chdb==3\.1\.2\) — absent from its system\.settings/,
  );
  assert.match(qcc, /list it in settings\.optional/);
  assert.doesNotMatch(qcc, /26\.9/);
  assert.match(typo, /did you mean max_threads\?/);
  // Optional: run without it where it is missing.
  const ok = checkSpec(
    spec({
      matrix: { version: ['24.8', '26.9'], codec: ['LZ4'] },
      settings: { query: { use_query_condition_cache: 0 }, optional: ['use_query_condition_cache'] },
    }),
  );
  assert.deepEqual(ok.problems, []);
  // Every version has it: no problem.
  assert.deepEqual(checkSpec(spec({ settings: { query: { max_threads: 2 } } })).problems, []);
});
