/**
 * "What differs between these versions": the defaults that differ between adjacent versions, read
 * from the real engines' own tables (fixtures captured by scripts/capture-defaults.py from the PyPI
 * chdb builds 24.8.4.1, 25.8.2.1, 26.3.9.1, 26.9.2.1), and the section built from them.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { REPO_ROOT } from '../../src/config';
import {
  affects,
  diffDefaults,
  formatChange,
  formatChanges,
  isRelevant,
  queryShape,
  versionsSection,
  versionsView,
} from '../../src/results/report-versions';
import { ServerDefaults, type CellResult } from '../../src/schema/results';

const fixture = (v: string): ServerDefaults =>
  ServerDefaults.parse(
    JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'test', 'fixtures', 'versions', `defaults-${v}.json`), 'utf8')),
  );

const relevant = (a: string, b: string) =>
  Object.fromEntries(
    diffDefaults(fixture(a), fixture(b))
      .filter(isRelevant)
      .map((d) => [d.name, d]),
  );

describe('defaults that differ between versions (real engines)', () => {
  it('24.8 → 25.8: the query condition cache is new and on, JIT and skip indexes under FINAL switched on', () => {
    const r = relevant('24.8', '25.8');
    assert.deepEqual([r.use_query_condition_cache?.from, r.use_query_condition_cache?.to], [null, '1']);
    assert.equal(r.use_query_condition_cache?.changedIn?.version, '25.4');
    assert.deepEqual(
      [r.compile_expressions?.from, r.compile_expressions?.to, r.compile_expressions?.changedIn?.version],
      ['0', '1', '25.5'],
    );
    assert.equal(r.use_skip_indexes_if_final?.changedIn?.version, '25.6');
    assert.equal(
      formatChange(diffDefaults(fixture('24.8'), fixture('25.8')), { a: new Set(['Wide']), b: new Set(['Wide']) }),
      undefined,
      'no format change for the workload types in Wide parts',
    );
  });

  it('25.8 → 26.3: async inserts on, and String columns stored with a size stream (a format change)', () => {
    const r = relevant('25.8', '26.3');
    assert.deepEqual(
      [r.async_insert?.from, r.async_insert?.to, r.async_insert?.changedIn?.version],
      ['0', '1', '26.2'],
    );
    const f = formatChange(diffDefaults(fixture('25.8'), fixture('26.3')));
    // 25.8 has no such setting; 26.3's system.settings_changes says single_stream → with_size_stream in 25.11.
    assert.match(f ?? '', /`string_serialization_version` single_stream → with_size_stream \(changed in 25\.11/);
  });

  it('26.3 → 26.9: EXPLAIN prints the pretty form by default; quoting of a string default is not a difference', () => {
    const r = relevant('26.3', '26.9');
    assert.deepEqual(
      [r.explain_query_plan_default?.to, r.explain_query_plan_default?.changedIn?.version],
      ['pretty', '26.7'],
    );
    assert.equal(r.max_threads, undefined, "'auto(2)' and auto(2) are the same default");
  });

  it('builds the section from the cells: steps in version order, the largest change per query', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-versions-'));
    try {
      const versions = { '26.3.9.1': '26.3', '24.8.4.1': '24.8', '25.8.2.1': '25.8' };
      const times: Record<string, number> = { '24.8.4.1': 100, '25.8.2.1': 90, '26.3.9.1': 30 };
      const cells = Object.entries(versions).map(([served, label]) => {
        const key = `${label}-lz4`;
        fs.mkdirSync(path.join(dir, 'cells', key), { recursive: true });
        fs.writeFileSync(path.join(dir, 'cells', key, 'defaults.json'), JSON.stringify(fixture(label)));
        return {
          cellKey: key,
          matrix: { version: label, codec: 'LZ4' },
          provision: { server: { version: served } },
          queries_baseline: {
            queries: [
              {
                id: 'q3',
                title: 'scan',
                uses_index: false,
                sql: "SELECT count() FROM t WHERE message LIKE '%timeout%'",
                samples: [],
                stats: { warm_min_ms: times[served], warm_median_ms: times[served], read_rows: 2e6, read_bytes: 5e7 },
              },
            ],
          },
        } as unknown as CellResult;
      });
      const md = versionsSection(dir, cells, 'min').join('\n');
      assert.match(md, /## What differs between these versions/);
      assert.match(md, /24\.8\.4\.1 → 25\.8\.2\.1 → 26\.3\.9\.1/);
      assert.ok(md.indexOf('### 24.8.4.1 → 25.8.2.1') < md.indexOf('### 25.8.2.1 → 26.3.9.1'));
      assert.match(
        md,
        /Not comparable across 25\.8\.2\.1 → 26\.3\.9\.1: compression ratio, uncompressed bytes, read_bytes and MB\/s/,
      );
      // q3 moved most between 25.8 and 26.3 (90 → 30 ms), and its read_bytes there is marked.
      assert.match(
        md,
        /\| q3 +\| LZ4 +\| 25\.8\.2\.1 → 26\.3\.9\.1 \|[^\n]*0\.33×[^\n]*not comparable across 25\.8\.2\.1 → 26\.3\.9\.1: format changed/,
      );
      assert.deepEqual(versionsSection(dir, cells.slice(0, 1), 'min'), [], 'one version: no section');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a Compact-only setting is flagged only when the cells have Compact parts; one new with its old behaviour never', () => {
    const d = diffDefaults(fixture('24.8'), fixture('25.8'));
    const wide = formatChanges(d, { a: new Set(['Wide']), b: new Set(['Wide']) });
    assert.deepEqual(wide.notComparable, [], 'Wide parts: nothing not comparable');
    assert.ok(
      wide.skipped.some((x) => /write_marks_for_substreams_in_compact_parts[^\n]*Compact parts only[^\n]*Wide/.test(x)),
    );
    const compact = formatChanges(d, { a: new Set(['Wide']), b: new Set(['Compact', 'Wide']) });
    assert.match(
      compact.notComparable.map((x) => x.reason).join(),
      /write_marks_for_substreams_in_compact_parts[^\n]*Compact parts/,
    );
    assert.ok(formatChanges(d).notComparable.length > 0, 'part formats unknown: flagged');
    // 26.3 → 26.9: compress_per_column_in_compact_parts is new in 26.9 but system.settings_changes says 1 → 1 (26.4).
    const c = formatChanges(diffDefaults(fixture('26.3'), fixture('26.9')), {
      a: new Set(['Compact']),
      b: new Set(['Compact']),
    });
    assert.deepEqual(c.notComparable, []);
    assert.match(
      c.skipped.join(),
      /compress_per_column_in_compact_parts[^\n]*introduced in 26\.4 with the older behaviour[^\n]*1 → 1/,
    );
  });

  it('which defaults can act on a query comes from its shape, not its id', () => {
    const r = Object.fromEntries(diffDefaults(fixture('24.8'), fixture('25.8')).map((d) => [d.name, d]));
    const q1 = queryShape(
      "SELECT count() FROM t WHERE namespace = 'payment' AND timestamp >= toDateTime64('2026-08-26 00:00:00', 3)",
    );
    const q3 = queryShape("SELECT count() FROM t WHERE message LIKE '%timeout%'");
    const plain = queryShape('SELECT namespace FROM t');
    assert.match(affects(r.use_query_condition_cache, q3) ?? '', /granules an earlier run/);
    assert.match(affects(r.compile_expressions, q1) ?? '', /JIT/);
    assert.equal(
      affects(r.use_query_condition_cache, plain),
      undefined,
      'no filter: the cache has nothing to remember',
    );
    assert.equal(affects(r.compile_expressions, plain), undefined);
    assert.equal(affects(r.use_skip_indexes_if_final, q3), undefined, 'no FINAL');
    assert.match(affects(r.query_plan_merge_filters, q3) ?? '', /filter|plan/);
    const later = Object.fromEntries(diffDefaults(fixture('26.3'), fixture('26.9')).map((d) => [d.name, d]));
    assert.equal(affects(later.optimize_or_like_chain, q3), undefined, 'one LIKE, no OR chain');
    assert.ok(affects(later.optimize_or_like_chain, queryShape("SELECT 1 FROM t WHERE m LIKE '%a%' OR m LIKE '%b%'")));
    const async = diffDefaults(fixture('25.8'), fixture('26.3')).find((d) => d.name === 'async_insert')!;
    assert.equal(affects(async, q1), undefined, 'async_insert acts on the load, not on a query');
  });

  it('shipped and pinned cells side by side, each change explained with the figure that moved and the defaults', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-versions-pin-'));
    try {
      // q3 (filter on message): the query condition cache (new in 25.4) makes 25.8's warm runs read 4 marks
      // instead of 37; pinned to 24.8's defaults (the cache off) the change vanishes.
      const q = (warm: number, rows: number, marks: number, qcc: number | null) => ({
        id: 'q3',
        title: "LIKE '%timeout%'",
        uses_index: false,
        sql: "SELECT count() FROM logs WHERE message LIKE '%timeout%'",
        samples: [
          { kind: 'cold', counters: { SelectedMarks: 37, QueryConditionCacheHits: qcc === null ? null : 0 } },
          { kind: 'warm', counters: { SelectedMarks: marks, QueryConditionCacheHits: qcc } },
        ],
        stats: { warm_min_ms: warm, warm_median_ms: warm, cold_ms: warm * 3, read_rows: rows, read_bytes: rows * 50 },
      });
      const cell = (
        label: string,
        served: string,
        pin: string | undefined,
        qr: ReturnType<typeof q>,
        parts: Record<string, number>,
      ) => {
        const key = `v${label}-lz4${pin ? `-pin${pin}` : ''}`;
        fs.mkdirSync(path.join(dir, 'cells', key), { recursive: true });
        fs.writeFileSync(path.join(dir, 'cells', key, 'defaults.json'), JSON.stringify(fixture(label)));
        return {
          cellKey: key,
          matrix: { version: label, codec: 'LZ4' },
          provision: { server: { version: served } },
          settings: pin ? { pinned_defaults: { version: pin, setting: `compatibility = '${pin}'` } } : undefined,
          storage: { ratio: label === '24.8' ? 1.94 : 1.95, part_types: parts },
          queries_baseline: { queries: [qr] },
        } as unknown as CellResult;
      };
      const wide = { Wide: 4 };
      const cells = [
        cell('24.8', '24.8.4.1', undefined, q(60, 300_000, 37, null), wide),
        cell('24.8', '24.8.4.1', '24.8', q(61, 300_000, 37, null), wide),
        cell('25.8', '25.8.2.1', undefined, q(8, 32_768, 4, 1), wide),
        cell('25.8', '25.8.2.1', '24.8', q(58, 300_000, 37, 0), wide),
      ];
      const v = versionsView(dir, cells, 'min')!;
      assert.equal(v.steps.length, 1, 'pinned cells are no versions of their own');
      const md = versionsSection(dir, cells, 'min').join('\n');
      const line = md.split('\n').find((l) => l.startsWith('- **q3**')) ?? '';
      assert.match(line, /warm min 60\.0 ms → 8\.00 ms \(0\.13×\)/);
      assert.match(line, /read_rows 300,000 → 32,768 \(0\.11×\)/);
      assert.match(line, /marks 37 → 4 \(0\.11×\)/);
      assert.match(
        line,
        /query condition cache in the last warm run \(QueryConditionCacheHits \/ Misses\): n\/a \(no such cache\) → 1 \/ n\/a/,
      );
      assert.doesNotMatch(line, /`use_query_condition_cache`[^;]*not at work here/, 'the cache hit: it was at work');
      assert.match(line, /`use_query_condition_cache` \(new\) → 1 \(changed in 25\.4\)/);
      assert.match(line, /`compile_expressions` 0 → 1 \(changed in 25\.5\)/);
      assert.match(line, /both pinned to 24\.8's defaults: warm min 0\.95× pinned vs 0\.13× shipped: vanishes/);
      assert.match(line, /marks 1\.00× pinned vs 0\.11× shipped: vanishes/);
      assert.doesNotMatch(line, /async_insert/);
      // Compression ratio across 24.8 → 25.8 is a ratio (Wide parts: the Compact-only setting is not flagged).
      assert.match(md, /\| LZ4 +\| 1\.94× +\| 1\.95× +\| 1\.01× +\|/);
      assert.match(md, /Not flagged: [^\n]*write_marks_for_substreams_in_compact_parts/);
      assert.doesNotMatch(md, /Not comparable across 24\.8\.4\.1 → 25\.8\.2\.1/);
      // The side-by-side table: shipped beside pinned per version.
      assert.match(md, /### Shipped against pinned defaults \(24\.8\)/);
      assert.match(
        md,
        /\| q3 +\| LZ4 +\| 25\.8\.2\.1 +\| 8\.00 ms +\| 58\.0 ms +\| 24\.0 ms +\| 174\.0 ms +\| 32,768 +\| 300,000 +\| 4 +\| 37 +\|/,
      );
      // Largest change uses shipped cells only, and shows marks.
      assert.match(
        md,
        /\| q3 +\| LZ4 +\| 24\.8\.4\.1 → 25\.8\.2\.1 \| 60\.0 ms → 8\.00 ms \(0\.13×\) \| 300,000 → 32,768 \(0\.11×\) \| 37 → 4 \(0\.11×\)/,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('across the String size-stream step, compression ratio and read_bytes say "not comparable" with the reason, never a ratio', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-versions-nc-'));
    try {
      const cells = (['25.8', '26.3'] as const).map((label) => {
        const key = `v${label}-lz4`;
        fs.mkdirSync(path.join(dir, 'cells', key), { recursive: true });
        fs.writeFileSync(path.join(dir, 'cells', key, 'defaults.json'), JSON.stringify(fixture(label)));
        return {
          cellKey: key,
          matrix: { version: label, codec: 'LZ4' },
          provision: { server: { version: label === '25.8' ? '25.8.2.1' : '26.3.9.1' } },
          storage: { ratio: label === '25.8' ? 1.94 : 2.12, part_types: { Wide: 3 } },
          queries_baseline: {
            queries: [
              {
                id: 'q3',
                title: 'scan',
                uses_index: false,
                sql: "SELECT count() FROM t WHERE message LIKE '%x%'",
                samples: [],
                stats: {
                  warm_min_ms: 10,
                  warm_median_ms: 10,
                  cold_ms: 30,
                  read_rows: 1e6,
                  read_bytes: label === '25.8' ? 9e7 : 8.5e7,
                },
              },
            ],
          },
        } as unknown as CellResult;
      });
      const md = versionsSection(dir, cells, 'min').join('\n');
      assert.match(
        md,
        /\| LZ4 +\| 1\.94× +\| 2\.12× +\| not comparable across 25\.8\.2\.1 → 26\.3\.9\.1 \(MergeTree default `serialization_info_version`/,
      );
      assert.match(
        md,
        /> \*\*⚠ Not comparable across 25\.8\.2\.1 → 26\.3\.9\.1: compression ratio, uncompressed bytes, read_bytes and MB\/s — MergeTree default `string_serialization_version` single_stream → with_size_stream \(changed in 25\.11[^\n]*String lengths in a separate size stream/,
      );
      assert.doesNotMatch(md, /1\.09×/, 'no ratio of the compression ratios');
      const q3 = md.split('\n').find((l) => l.startsWith('- **q3**')) ?? '';
      assert.match(q3, /nothing moved/, 'read_bytes moved 5.6 % but is not comparable: left out');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
