/**
 * Result hashes compare values, not formatting: JSONCompact bodies captured from the real engines
 * (scripts/capture-version-fixtures.py: 23.10, 24.8, 25.8, 26.3, 26.9, each with
 * `output_format_json_quote_64bit_integers` 0 and 1) hash equal by value; a real difference still differs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { _internal } from '../../src/clickhouse/client';
import { canonicalRows, parseColumnType } from '../../src/clickhouse/result-values';
import { REPO_ROOT } from '../../src/config';
import { renderReport, resultMismatches } from '../../src/results/report';
import type { CellResult } from '../../src/schema/results';
import { VERSIONS, resultsOf } from '../fixtures/versions';

/** Stream `body` through the client's parser in `chunk`-byte pieces: its two hashes and first rows. */
function hashes(body: string, chunk = 7) {
  const p = new _internal.JsonCompactStream();
  const b = Buffer.from(body, 'utf8');
  for (let i = 0; i < b.length; i += chunk) p.push(b.subarray(i, i + chunk));
  assert.ok(p.complete, 'a complete document');
  return { text: p.digest(), values: p.valuesDigest(), unknown: p.valuesUnknown, first: p.firstRows, rows: p.rows };
}

test('UInt64 beyond 2^53: 24.8 quoted (a server default before 25.8) and 26.9 unquoted hash equal by value', () => {
  for (const q of ['u64_max', 'u64_2p53p1']) {
    const old = resultsOf('24.8').queries[q];
    const now = resultsOf('26.9').queries[q];
    assert.match(old.JSONCompact_quote_1, /\["(18446744073709551615|9007199254740993)"\]/);
    assert.match(now.JSONCompact, /\[(18446744073709551615|9007199254740993)\]/);
    const a = hashes(old.JSONCompact_quote_1);
    const b = hashes(now.JSONCompact);
    assert.notEqual(a.text, b.text, 'the formatting hash differs (what chbench compared before)');
    assert.equal(a.values, b.values, q);
    // Shown without precision loss.
    assert.deepEqual(b.first, [[q === 'u64_max' ? '18446744073709551615' : '9007199254740993']]);
  }
});

test('every captured query: equal value hashes across 23.10…26.9 and both integer quotings', () => {
  // q4 (quantiles: sampled, `deterministic: false` in the workload) differs between two runs of one version.
  for (const q of ['u64_max', 'u64_2p53p1', 'mixed', 'floats', 'q2']) {
    const seen = new Map<string, string>();
    for (const v of VERSIONS) {
      const r = resultsOf(v).queries[q];
      for (const k of ['JSONCompact', 'JSONCompact_quote_0', 'JSONCompact_quote_1'] as const) {
        const h = hashes(r[k], 13);
        assert.equal(h.unknown, null, `${q} ${v} ${k}: ${h.unknown}`);
        seen.set(`${v} ${k}`, h.values!);
      }
    }
    assert.equal(new Set(seen.values()).size, 1, `${q}: ${JSON.stringify([...seen])}`);
  }
});

test('a real difference in a value still differs, even one the double cannot tell (…615 vs …614)', () => {
  const body = resultsOf('26.9').queries.u64_max.JSONCompact;
  const other = body.replace('18446744073709551615', '18446744073709551614');
  assert.notEqual(other, body);
  // JSON.parse reads both as 18446744073709552000: the formatting hash calls them equal.
  assert.equal(hashes(body).text, hashes(other).text);
  assert.notEqual(hashes(body).values, hashes(other).values);
  const mixed = resultsOf('24.8').queries.mixed.JSONCompact_quote_1;
  for (const [from, to] of [
    ['0.30000000000000004', '0.3'],
    ['"a\\"b\\\\c\\\\u00e9"', '"a\\"b\\\\c\\\\u00e8"'],
    ['3.1', '3.11'],
    ['["1","x"]', '["2","x"]'],
  ]) {
    const changed = mixed.replace(from, to);
    assert.notEqual(changed, mixed, from);
    assert.notEqual(hashes(changed).values, hashes(mixed).values, `${from} → ${to}`);
  }
});

test('canonical values: formatting variants of one value are one text', () => {
  const t = (type: string) => [parseColumnType(type)];
  const same = (type: string, a: string, b: string) =>
    assert.deepEqual(canonicalRows(`[${a}]`, t(type)), canonicalRows(`[${b}]`, t(type)), `${type}: ${a} vs ${b}`);
  same('Decimal(18, 4)', '3.1000', '"3.1"');
  same('Float64', '0.1', '"0.1000000000000000055511151231257827"');
  same('Float32', '0.14285715', '0.142857149243354797363');
  same('String', '"a\\/b"', '"a/b"');
  same('Map(UInt64, Array(Nullable(Int64)))', '{"1":[null,"-5"]}', '{"1":[null,-5]}');
  same("Tuple(a UInt64, b Enum8('x,y' = 1))", '{"a":"1","b":"x,y"}', '[1,"x,y"]');
  same('LowCardinality(Nullable(UInt64))', 'null', 'null');
  assert.notDeepEqual(canonicalRows('[1]', t('UInt64')), canonicalRows('[2]', t('UInt64')));
  assert.throws(() => canonicalRows('[1,2]', t('UInt64')), /more values than meta's 1 columns/);
});

test('a body without meta: the value hash is unknown with the reason, never the text hash', () => {
  const h = hashes('{"data": [[1]], "rows": 1}');
  assert.equal(h.values, null);
  assert.equal(h.unknown, 'the document has no meta before data');
});

test('the report compares by value hash when both sides have it, and names the query and cells when values differ', () => {
  const FIXTURE = path.join(REPO_ROOT, 'test', 'fixtures', 'results', 'embedded-26.7');
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'chbench-values-'));
  try {
    const edit = (dir: string, cell: string, f: (r: CellResult) => void) => {
      const file = path.join(dir, 'cells', cell, 'result.json');
      const r = JSON.parse(readFileSync(file, 'utf8')) as CellResult;
      f(r);
      writeFileSync(file, JSON.stringify(r));
    };
    const q1 = (r: CellResult) =>
      [r.queries_baseline, r.queries_index].flatMap((p) => p?.queries.filter((q) => q.id === 'q1') ?? []);
    // Two versions' formatting: the text hashes differ, the value hashes agree.
    const agree = path.join(tmp, 'agree');
    cpSync(FIXTURE, agree, { recursive: true });
    edit(agree, 'v26.7-lz4', (r) =>
      q1(r).forEach((q) => ((q.stats.result_sha256 = ['text-a']), (q.stats.result_values_sha256 = ['v1']))),
    );
    edit(agree, 'v26.7-zstd3', (r) =>
      q1(r).forEach((q) => ((q.stats.result_sha256 = ['text-b']), (q.stats.result_values_sha256 = ['v1']))),
    );
    const cells = (dir: string) =>
      ['v26.7-lz4', 'v26.7-zstd3'].map(
        (k) => JSON.parse(readFileSync(path.join(dir, 'cells', k, 'result.json'), 'utf8')) as CellResult,
      );
    assert.deepEqual(resultMismatches(cells(agree)), []);
    // Different values: reported with the query's SQL and the cells.
    const differ = path.join(tmp, 'differ');
    cpSync(agree, differ, { recursive: true });
    edit(differ, 'v26.7-zstd3', (r) =>
      q1(r).forEach((q) => {
        q.stats.result_values_sha256 = ['v2'];
        q.result_examples = { ...q.result_examples, v2: '[["41000"]]' };
      }),
    );
    const mm = resultMismatches(cells(differ));
    assert.equal(mm.length, 1);
    assert.equal(mm[0].by, 'values');
    assert.match(mm[0].values.join(' | '), /v26\.7-lz4: .* \| v26\.7-zstd3: \[\["41000"\]\]/);
    const md = renderReport(differ);
    assert.match(md, /Correctness failure: q1 returned different rows\*\* \(compared by value hash\)/);
    assert.match(md, /```sql\nSELECT count\(\) FROM/);
    // An older record without value hashes: the text hash decides (its meaning unchanged).
    edit(agree, 'v26.7-zstd3', (r) => q1(r).forEach((q) => delete q.stats.result_values_sha256));
    assert.equal(resultMismatches(cells(agree))[0]?.by, 'text');
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
