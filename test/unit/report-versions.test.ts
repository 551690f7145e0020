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
import { diffDefaults, formatChange, isRelevant, versionsSection } from '../../src/results/report-versions';
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
      formatChange(diffDefaults(fixture('24.8'), fixture('25.8'))),
      undefined,
      'no format change for the workload types',
    );
  });

  it('25.8 → 26.3: async inserts on, and String columns stored with a size stream (a format change)', () => {
    const r = relevant('25.8', '26.3');
    assert.deepEqual(
      [r.async_insert?.from, r.async_insert?.to, r.async_insert?.changedIn?.version],
      ['0', '1', '26.2'],
    );
    const f = formatChange(diffDefaults(fixture('25.8'), fixture('26.3')));
    assert.match(f ?? '', /string_serialization_version` = with_size_stream is new/);
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
      assert.match(md, /Not comparable across 25\.8\.2\.1 → 26\.3\.9\.1: compression ratio and read_bytes/);
      // q3 moved most between 25.8 and 26.3 (90 → 30 ms), and its read_bytes there is marked.
      assert.match(
        md,
        /\| q3 +\| LZ4 +\| 25\.8\.2\.1 → 26\.3\.9\.1 \|[^\n]*0\.33×[^\n]*not comparable: format changed/,
      );
      assert.deepEqual(versionsSection(dir, cells.slice(0, 1), 'min'), [], 'one version: no section');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
