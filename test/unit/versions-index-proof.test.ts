/**
 * The index proof reads `EXPLAIN indexes = 1` as each real version prints it (fixtures captured by
 * scripts/capture-version-fixtures.py), and says "not understood" — never a verdict — for text it
 * cannot read.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { explainGranules, judgeIndexUse } from '../../src/measure/index-proof';
import { VERSIONS, explainOf } from '../fixtures/versions';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../../src/config';
import { renderReport } from '../../src/results/report';
import { renderHtmlReport } from '../../src/results/report-html';
import type { CellResult } from '../../src/schema/results';

test('EXPLAIN indexes = 1: the skip index granules in every version, in its default form', () => {
  const forms: Record<string, string> = {};
  for (const v of VERSIONS) {
    const e = explainOf(v);
    const r = explainGranules(e.default, e.index);
    assert.equal(r.outcome, 'used', `${v}: ${JSON.stringify(r)}`);
    if (r.outcome !== 'used') continue;
    assert.deepEqual([r.kept, r.total, r.reads], [2, 14, 1], v);
    forms[v] = r.form;
    assert.deepEqual(explainGranules(e.use_skip_indexes_0, e.index), { outcome: 'absent', form: r.form }, v);
    assert.deepEqual(explainGranules(e.q1_default, e.index), { outcome: 'absent', form: r.form }, v);
  }
  // explain_query_plan_default exists from 26.7 (pretty); every earlier version prints legacy only.
  assert.deepEqual(forms, {
    '23.10': 'legacy',
    '24.8': 'legacy',
    '25.8': 'legacy',
    '26.3': 'legacy',
    '26.9': 'pretty',
  });
  assert.equal(explainOf('26.3').explain_query_plan_default, null);
  assert.equal(explainOf('26.9').explain_query_plan_default, 'pretty');
});

test('EXPLAIN indexes = 1 on 26.7 and 26.9 in both forms (explain_query_plan_default legacy and pretty)', () => {
  for (const v of ['26.7', '26.9'] as const) {
    const e = explainOf(v);
    assert.equal(e.explain_query_plan_default, 'pretty', v);
    const used = (form: string) => ({ outcome: 'used', form, kept: 2, total: 14, reads: 1 });
    assert.deepEqual(explainGranules(e.default, e.index), used('pretty'), v);
    assert.deepEqual(explainGranules(e.legacy!, e.index), used('legacy'), v);
    assert.deepEqual(explainGranules(e.pretty!, e.index), used('pretty'), v);
    assert.deepEqual(explainGranules(e.q1_default, e.index), { outcome: 'absent', form: 'pretty' }, v);
    assert.equal(judgeIndexUse(e.index, e.legacy!, 8_192, 100_000).effective, true);
    assert.equal(judgeIndexUse(e.index, e.pretty!, 8_192, 100_000).effective, true);
    assert.equal(judgeIndexUse(e.index, e.json, 8_192, 100_000).effective, null);
  }
});

test('EXPLAIN text chbench cannot read is "not understood", never "not used" nor "verified"', () => {
  const e = explainOf('26.9');
  // EXPLAIN json = 1 (a real output, another form).
  const json = judgeIndexUse(e.index, e.json, 8_192, 100_000);
  assert.equal(json.effective, null);
  assert.equal(json.explain_skips, null);
  assert.match(json.explain_not_understood!, /no ReadFromMergeTree step/);
  assert.match(json.reason, /^EXPLAIN not understood/);
  // A body cut right after the index's name (both forms): its granules are missing.
  for (const text of [e.pretty!, e.legacy!]) {
    const cut = text.slice(0, text.indexOf('Name: trace_bf') + 'Name: trace_bf'.length);
    const r = judgeIndexUse(e.index, cut, 8_192, 100_000);
    assert.equal(r.effective, null);
    assert.match(r.explain_not_understood!, /Skip entry of trace_bf on line \d+ has no Granules line/);
  }
  // The granules of the next entry must not be taken for the index's.
  const two = e.legacy!.replace(
    '        Granules: 2/14\n',
    '        Granules: ?\n      Skip\n        Name: other_bf\n        Description: bloom_filter GRANULARITY 4\n        Parts: 1/1\n        Granules: 2/2\n',
  );
  assert.notEqual(two, e.legacy);
  assert.match(
    judgeIndexUse(e.index, two, 8_192, 100_000).explain_not_understood!,
    /has Granules: \?, not kept\/total/,
  );
  // The index named where no Skip entry is.
  const stray = judgeIndexUse(e.index, `${e.legacy!}\n-- trace_bf`, 8_192, 100_000);
  assert.match(stray.explain_not_understood!, /trace_bf is named on line \d+ .* outside a Skip entry/);
  assert.equal(judgeIndexUse(e.index, '', 1, 2).effective, null);
});

test('a query reading the table twice: the granules of every read are summed', () => {
  const e = explainOf('24.8');
  const r = explainGranules(`${e.default}\n${e.default}`, e.index);
  assert.deepEqual(r, { outcome: 'used', form: 'legacy', kept: 4, total: 28, reads: 2 });
});

test('the report says "EXPLAIN not understood" with the reason, and neither verified nor invalid', async () => {
  const FIXTURE = path.join(REPO_ROOT, 'test', 'fixtures', 'results', 'embedded-26.7');
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'chbench-explain-'));
  try {
    const dir = path.join(tmp, 'run');
    cpSync(FIXTURE, dir, { recursive: true });
    const e = explainOf('26.9');
    for (const cell of ['v26.7-lz4', 'v26.7-zstd3']) {
      const f = path.join(dir, 'cells', cell, 'result.json');
      const r = JSON.parse(readFileSync(f, 'utf8')) as CellResult;
      for (const q of r.queries_index!.queries)
        if (q.index_proof)
          q.index_proof = judgeIndexUse(e.index, e.json, q.stats.read_rows, q.index_proof.read_rows_before);
      writeFileSync(f, JSON.stringify(r));
    }
    const md = renderReport(dir);
    assert.match(
      md,
      /\*\*⚠ v26\.7-lz4: index not verifiable: EXPLAIN not understood\*\* — q5: EXPLAIN not understood \(no ReadFromMergeTree step/,
    );
    assert.doesNotMatch(md, /index verified|NOT verified|not effective/);
    const html = await renderHtmlReport(dir);
    assert.match(html, /Skip index in v26\.7-lz4: not verifiable: EXPLAIN not understood — q5: EXPLAIN not understood/);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
