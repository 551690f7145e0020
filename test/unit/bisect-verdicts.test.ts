/**
 * A time bisect's steps as verdicts (`judgeStep` of src/schema/bisect.ts), the attribution's
 * candidates that are new settings (`newSettingsTurnedOn`, over real servers' `system.settings` and
 * `system.settings_changes` from test/fixtures/versions), and bisect.md for a bisect judged by
 * verdicts (host load, intervals, the probes' evidence). No server.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { compareVersions, judgeStep, newSettingsTurnedOn, type StepComparison } from '../../src/schema/bisect';
import { bisectMarkdown } from '../../src/results/report-bisect';
import { ServerDefaults } from '../../src/schema/results';

const cmp = (over: Partial<StepComparison>): StepComparison => ({
  verdict: 'unchanged',
  reason: 'r',
  ratio: 1.01,
  ci_low: 0.97,
  ci_high: 1.05,
  threshold: 0.1,
  n_baseline: 10,
  n_new: 10,
  ...over,
});

test('judgeStep: slower / faster from the comparison, unchanged only with the interval inside the band, else inconclusive', () => {
  const fp = { from: 'first pass' as const };
  assert.equal(judgeStep(cmp({ verdict: 'regression', ratio: 1.5, ci_low: 1.4, ci_high: 1.6 }), fp).verdict, 'slower');
  assert.equal(judgeStep(cmp({ verdict: 'improvement', ratio: 0.5, ci_low: 0.4, ci_high: 0.6 }), fp).verdict, 'faster');
  const u = judgeStep(cmp({}), fp);
  assert.deepEqual([u.verdict, u.ratio, u.low, u.high, u.threshold], ['unchanged', 1.01, 0.97, 1.05, 0.1]);
  assert.match(u.reason, /^1\.010 \[0\.970, 1\.050\] inside ±10\.0 %/);
  // Not significant is not unchanged: an interval across the band.
  const x = judgeStep(cmp({ ratio: 1.08, ci_low: 0.99, ci_high: 1.18 }), fp);
  assert.equal(x.verdict, 'inconclusive');
  assert.match(x.reason, /straddles ±10\.0 %/);
  // Too few runs (the comparison's `unstable`): never a verdict, even with a narrow interval.
  assert.equal(judgeStep(cmp({ verdict: 'unstable', reason: 'too few valid warm runs' }), fp).verdict, 'inconclusive');
  // One cold run per side: no interval.
  const one = judgeStep(
    cmp({ verdict: 'unstable', ci_low: null, ci_high: null, n_new: 1, n_baseline: 1, reason: 'too few' }),
    fp,
  );
  assert.deepEqual([one.verdict, one.low], ['inconclusive', null]);
  // Runs the host disturbed: never a verdict, whatever the interval.
  const d = judgeStep(cmp({ verdict: 'regression', ratio: 2, ci_low: 1.9, ci_high: 2.1 }), {
    ...fp,
    disturbed: 'busy',
  });
  assert.equal(d.verdict, 'inconclusive');
  assert.match(d.reason, /from runs the host disturbed \(busy\): never a verdict/);
  // A band as wide as the ends' change cannot tell a step like the good end from one like the bad end.
  const wide = judgeStep(cmp({ threshold: 0.3, ci_low: 0.9, ci_high: 1.1 }), { ...fp, endsRatio: 1.25 });
  assert.equal(wide.verdict, 'inconclusive');
  assert.match(wide.reason, /as wide as the ends' change 1\.250/);
  assert.equal(judgeStep(cmp({}), { ...fp, endsRatio: 1.5 }).verdict, 'unchanged');
  assert.equal(judgeStep(cmp({}), { ...fp, endsRatio: 0.7 }).verdict, 'unchanged');
  assert.equal(
    judgeStep(cmp({ threshold: 0.5, ci_low: 0.9, ci_high: 1.1 }), { ...fp, endsRatio: 0.7 }).verdict,
    'inconclusive',
  );
});

const defaults = (v: string) =>
  ServerDefaults.parse(JSON.parse(readFileSync(`test/fixtures/versions/defaults-${v}.json`, 'utf8')));

test('newSettingsTurnedOn on real servers (24.8 → 26.3): new settings whose default turns a behaviour on are candidates, at the value compatibility gives them', () => {
  const o = defaults('24.8');
  const n = defaults('26.3');
  const got = newSettingsTurnedOn(o.settings!, n.settings!, n.settings_changes!, '24.8', '26.3');
  const by = new Map(got.map((d) => [d.name, d]));
  // The query condition cache: new in 25.3 (off), on from 25.4; compatibility=24.8 turns it off.
  assert.deepEqual(by.get('use_query_condition_cache'), {
    name: 'use_query_condition_cache',
    old: '0',
    new: '1',
    newIn: '25.3',
  });
  assert.deepEqual(by.get('query_plan_join_swap_table'), {
    name: 'query_plan_join_swap_table',
    old: 'false',
    new: 'auto',
    newIn: '24.12',
  });
  // New with the old behaviour as its default: no candidate (nothing to turn back).
  assert.equal(by.has('use_skip_indexes_for_top_k'), false);
  for (const d of got) {
    assert.equal(d.name in o.settings!, false, `${d.name} exists on 24.8`);
    assert.notEqual(d.old, d.new, d.name);
  }
  assert.ok(got.length > 100, `${got.length} candidates`);
  // Only changes after the older version and at or before the newer: 25.8 → 26.3 has fewer, none from ≤ 25.8.
  const later = newSettingsTurnedOn(defaults('25.8').settings!, n.settings!, n.settings_changes!, '25.8', '26.3');
  assert.ok(later.length > 0 && later.length < got.length);
  for (const d of later)
    assert.ok(compareVersions(d.newIn!, '25.8') > 0 && compareVersions(d.newIn!, '26.3') <= 0, `${d.name} ${d.newIn}`);
  // MergeTree entries are table settings: never session candidates.
  const mt = newSettingsTurnedOn(
    {},
    { x: '1' },
    [{ type: 'MergeTree', version: '25.1', name: 'x', previous_value: '0' }],
    '24.8',
    '26.3',
  );
  assert.deepEqual(mt, []);
});

test('bisect.md of a bisect judged by verdicts: each step with its verdict, interval, band, source and host load; probes with their evidence; new settings named', () => {
  const md = bisectMarkdown({
    runId: 'b2',
    query: 'q3',
    metric: 'warm',
    versions: ['26.1', '26.3'],
    steps: [
      {
        version: '26.1',
        index: 0,
        side: 'good',
        figure: 'warm runs',
        reason: 'good end',
        hostLoad: { words: 'quiet: other processes used 0.20 of 2 cores', disturbed: false },
      },
      {
        version: '26.3',
        index: 1,
        side: 'bad',
        figure: 'warm median 150.0 ms vs good end 100.0 ms',
        reason: 'bad end, slower: …',
        verdict: { verdict: 'slower', ratio: 1.5, low: 1.41, high: 1.58, threshold: 0.1, from: 're-run', reason: '…' },
        confirmation: { verdict: 'regression', confirmed: true, final: 'regression', reason: '…', rounds: 12 },
        hostLoad: { words: 'disturbed: other processes used 1.40 of 2 cores', disturbed: true },
      },
    ],
    outcome: { bracket: ['26.1', '26.3'], skipped: [], cellsRun: 2 },
    attribution: {
      candidates: [],
      probes: [
        {
          settings: ['compatibility=26.1'],
          disappeared: true,
          evidence: 'unchanged 1.010 [0.970, 1.050] (first pass)',
        },
      ],
      verdict: 'x',
    },
    diffs: [{ name: 'use_query_condition_cache', old: '0', new: '1', newIn: '25.3' }],
    passedOver: [
      { cellKey: 'v26.3-lz4', runId: 'old', fromCell: 'v26.3-lz4', why: 'other processes used 1.3 of 2 cores' },
    ],
  });
  assert.match(
    md,
    /\| 2 \| 26\.3 \| bad \| slower \| 1\.500 \[1\.410, 1\.580\] \| ±10\.0 % \| interleaved re-run, 12 rounds \| disturbed: other processes used 1\.40/,
  );
  assert.match(md, /Host load: 1 of 2 steps' cells quiet; disturbed: 26\.3/);
  assert.match(md, /\| compatibility=26\.1 \| yes \| unchanged 1\.010 \[0\.970, 1\.050\] \(first pass\) \|/);
  assert.match(md, /\| use_query_condition_cache \| 0 \| 1 \| new in 25\.3: the older server has no such setting/);
  assert.match(
    md,
    /v26\.3-lz4: stored run old cell v26\.3-lz4 matched but was measured again: other processes used 1\.3/,
  );
});
