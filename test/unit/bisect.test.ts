/**
 * The bisect method (`src/schema/bisect.ts`): probe order, the ⌈log2 N⌉ + 2 budget over every
 * position of the change, skipped versions named, ends alike stop, and the settings attribution
 * finds the one setting that carries a change (and says so when none does alone). No server.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  attributionStart,
  bisectBudget,
  bisectOutcome,
  differingDefaults,
  endsAlike,
  handSettingsOf,
  judgeCounter,
  nextProbe,
  nextSettingsProbe,
  record,
  recordSettingsProbe,
  startBisect,
  versionRange,
  withHandSettings,
  type AttributionState,
} from '../../src/schema/bisect';
import { bisectMarkdown } from '../../src/results/report-bisect';

const INSTALLED = ['26.9', '23.10', '24.8', '25.8', '26.1', '26.3', '26.5', '26.7'];

/** Run a bisect where read_rows is `before` for versions older than `changeAt` and `after` from it on. */
function simulate(versions: string[], changeAt: number, cannotRun: Set<number> = new Set()) {
  const fig = (i: number) => (i < changeAt ? 122_951 : 41_000);
  let s = startBisect(versions);
  for (let i = nextProbe(s); i !== null; i = nextProbe(s)) {
    if (cannotRun.has(i)) {
      s = record(s, { index: i, side: 'skipped', figure: 'UNKNOWN_SETTING', reason: 'cannot run' });
      continue;
    }
    const side =
      i === 0
        ? 'good'
        : i === versions.length - 1
          ? 'bad'
          : judgeCounter(fig(0), fig(i), fig(versions.length - 1)).side;
    s = record(s, { index: i, side, figure: `read_rows ${fig(i)}`, reason: '' });
  }
  return s;
}

test('versionRange: numeric order, both ends included, bad input named', () => {
  assert.deepEqual(versionRange(INSTALLED, '24.8', '26.5'), ['24.8', '25.8', '26.1', '26.3', '26.5']);
  assert.throws(() => versionRange(INSTALLED, '22.1', '26.9'), /--good 22.1/);
  assert.throws(() => versionRange(INSTALLED, '26.9', '24.8'), /must be older/);
});

test('every position of the change is bracketed within ⌈log2 N⌉ + 2 cells', () => {
  const versions = versionRange(INSTALLED, '23.10', '26.9');
  for (let at = 1; at < versions.length; at++) {
    const out = bisectOutcome(simulate(versions, at));
    assert.deepEqual(out.bracket, [versions[at - 1], versions[at]], `change at ${versions[at]}`);
    assert.ok(out.cellsRun <= bisectBudget(versions.length), `${out.cellsRun} cells for change at ${at}`);
  }
  assert.equal(bisectBudget(8), 5);
});

test('a version that cannot run is skipped and named; the bracket spans it', () => {
  const versions = versionRange(INSTALLED, '23.10', '26.9');
  const out = bisectOutcome(simulate(versions, 4, new Set([3, 4])));
  assert.deepEqual(out.skipped.sort(), ['26.1', '26.3']);
  assert.deepEqual(out.bracket, ['25.8', '26.5']);
});

test('ends alike: the bisect stops and says so', () => {
  let s = startBisect(['24.8', '25.8', '26.1']);
  s = record(s, { index: 0, side: 'good', figure: 'read_rows 5', reason: '' });
  s = record(s, { index: 2, side: 'bad', figure: 'read_rows 5', reason: '' });
  s = endsAlike(s, 'read_rows 5 on both');
  assert.equal(nextProbe(s), null);
  const out = bisectOutcome(s);
  assert.equal(out.bracket, undefined);
  assert.match(out.stopped!, /no change between 24.8 and 26.1/);
});

function attribute(diffs: ReturnType<typeof differingDefaults>, carrier: string | null): AttributionState {
  const pair: [string, string] = ['26.1', '26.3'];
  let a = attributionStart(diffs, true, pair, 'read_rows 122,880');
  for (let p = nextSettingsProbe(a); p; p = nextSettingsProbe(a))
    a = recordSettingsProbe(a, p, carrier !== null && p.some((d) => d.name === carrier), pair);
  return a;
}

test('attribution: the one setting flipped by hand is found as the cause', () => {
  const older: Record<string, string> = {};
  const newer: Record<string, string> = {};
  for (let i = 0; i < 13; i++) {
    older[`s${String(i).padStart(2, '0')}`] = '0';
    newer[`s${String(i).padStart(2, '0')}`] = i === 9 ? '1' : '0';
  }
  for (const k of ['a', 'b', 'c', 'd', 'e', 'f', 'g']) {
    older[k] = 'old';
    newer[k] = 'new';
  }
  const diffs = differingDefaults(older, newer);
  assert.equal(diffs.length, 8);
  for (const d of diffs) {
    const a = attribute(diffs, d.name);
    assert.equal(a.verdict, `default change: ${d.name} ${d.old}→${d.new} (26.3)`);
    assert.ok(a.probes.length <= 1 + Math.ceil(Math.log2(diffs.length)) + 1);
  }
  assert.match(
    attribute(diffs, null).verdict!,
    /^could not attribute: no probe of .* removed the change, while compatibility=26\.1 did; .*not shown/,
  );
  assert.equal(
    attributionStart(diffs, false, ['26.1', '26.3'], '').verdict,
    'engine code (defaults pinned, still changed)',
  );
});

test('bisect.md names the path, the pair and the verdict', () => {
  const versions = versionRange(INSTALLED, '23.10', '26.9');
  const s = simulate(versions, 1);
  const md = bisectMarkdown({
    runId: 'b1',
    query: 'q3',
    metric: 'read_rows',
    versions,
    steps: s.steps,
    outcome: bisectOutcome(s),
    attribution: attributionStart([], false, ['23.10', '24.8'], ''),
    diffs: [],
  });
  assert.match(md, /Bracketing pair: 23.10 .* 24.8/);
  assert.match(md, /engine code/);
});

test('versionRange: the labels of one build count once', () => {
  assert.deepEqual(versionRange([...INSTALLED, '26.7.2', '26.7.2.1'], '26.5', '26.7.2.1'), ['26.5', '26.7']);
});

test('hand-set settings: the newest label at or before a version applies; they replace and join the differing defaults', () => {
  const hand = { '26.1': { use_skip_indexes: 1 }, '26.3': { use_skip_indexes: 0 } };
  assert.deepEqual(handSettingsOf(hand, '25.8'), {});
  assert.deepEqual(handSettingsOf(hand, '26.1'), { use_skip_indexes: 1 });
  assert.deepEqual(handSettingsOf(hand, '26.3'), { use_skip_indexes: 0 });
  assert.deepEqual(handSettingsOf(hand, '26.9'), { use_skip_indexes: 0 });
  assert.deepEqual(handSettingsOf(undefined, '26.9'), {});
  const older = { use_skip_indexes: '1', async_insert: '0', max_threads: '2' };
  const newer = { use_skip_indexes: '1', async_insert: '1', max_threads: '2' };
  const diffs = differingDefaults(older, newer);
  // Flipped by hand on both sides: a candidate marked byHand, beside the real default change.
  assert.deepEqual(withHandSettings(diffs, older, newer, { use_skip_indexes: 1 }, { use_skip_indexes: 0 }), [
    { name: 'async_insert', old: '0', new: '1' },
    { name: 'use_skip_indexes', old: '1', new: '0', byHand: true },
  ]);
  // Set on one side only: the other side's server default is its value.
  assert.deepEqual(withHandSettings(diffs, older, newer, {}, { max_threads: 1 }), [
    { name: 'async_insert', old: '0', new: '1' },
    { name: 'max_threads', old: '2', new: '1', byHand: true },
  ]);
  // A real default change pinned by hand to one value on both sides is no candidate any more.
  assert.deepEqual(withHandSettings(diffs, older, newer, { async_insert: 0 }, { async_insert: 0 }), []);
  // The verdict says the setting was set by hand.
  const pair: [string, string] = ['26.1', '26.3'];
  let s = attributionStart(
    [{ name: 'use_skip_indexes', old: '1', new: '0', byHand: true }],
    true,
    pair,
    'read_rows 1,024',
  );
  s = recordSettingsProbe(s, nextSettingsProbe(s)!, true, pair);
  assert.equal(s.verdict, 'default change: use_skip_indexes 1→0 (26.3, set by hand)');
  const md = bisectMarkdown({
    runId: 'b1',
    query: 'q2',
    metric: 'read_rows',
    versions: ['26.1', '26.3'],
    steps: [],
    outcome: { bracket: ['26.1', '26.3'], skipped: [], cellsRun: 2 },
    attribution: s,
    diffs: [
      { name: 'async_insert', old: '0', new: '1' },
      { name: 'use_skip_indexes', old: '1', new: '0', byHand: true },
    ],
  });
  assert.match(md, /\| async_insert \| 0 \| 1 \| system\.settings\.default \|/);
  assert.match(md, /\| use_skip_indexes \| 1 \| 0 \| set by hand \(handSettings\)/);
});

test('bisectCompare reads both cells’ warm runs from result.json and judges them with compareSamples', async () => {
  const { createBisectActivities } = await import('../../src/activities/bisect/bisect');
  const { compareSamples } = await import('../../src/measure/compare');
  const { readFileSync } = await import('node:fs');
  const dir = 'test/fixtures/results/embedded-26.7/cells';
  const lz4 = `${dir}/v26.7-lz4/result.json`;
  const zstd = `${dir}/v26.7-zstd3/result.json`;
  const acts = createBisectActivities();
  const opts = { query: 'q3', metric: 'warm' as const, minChange: 0.1, unstableAbove: 10, minRuns: 4 };
  const c = await acts.bisectCompare({ baselineResultFile: lz4, newResultFile: zstd, ...opts });
  // The fixture's warm runs carry the HTTP summary's elapsed: that is the figure compared.
  assert.equal(c.figure, 'server_elapsed_ms');
  assert.deepEqual(c.sources, ['http summary elapsed_ns']);
  type S = { kind: string; server_elapsed_ms: number; validity: { quiet: { valid: boolean | null } } };
  const warm = (f: string) =>
    (
      JSON.parse(readFileSync(f, 'utf8')) as { queries_baseline: { queries: { id: string; samples: S[] }[] } }
    ).queries_baseline.queries
      .find((q) => q.id === 'q3')!
      .samples.filter((s) => s.kind === 'warm' && s.validity.quiet.valid !== false)
      .map((s) => s.server_elapsed_ms);
  // Only the valid warm runs count (3 a side in the fixture; its warm-up and cold run are left out).
  assert.equal(c.n_baseline, warm(lz4).length);
  assert.equal(c.n_new, warm(zstd).length);
  assert.equal(c.n_new, 3);
  assert.equal(c.n_baseline, 3);
  const direct = compareSamples(warm(lz4), warm(zstd), { ...opts, seed: 1 });
  assert.equal(c.median_baseline_ms, direct.median_baseline_ms);
  assert.equal(c.median_new_ms, direct.median_new_ms);
  assert.equal(c.ratio, direct.ratio);
  // The spec's default minRuns (7) is more than the fixture has: unstable, said why.
  const few = await acts.bisectCompare({ baselineResultFile: lz4, newResultFile: zstd, ...opts, minRuns: 7 });
  assert.equal(few.verdict, 'unstable');
  assert.match(few.reason, /too few valid warm runs to decide: 3 in the baseline, 3 in the new run/);
  const missing = await acts.bisectCompare({
    baselineResultFile: lz4,
    newResultFile: `${dir}/none/result.json`,
    ...opts,
  });
  assert.equal(missing.verdict, 'unstable');
  assert.match(missing.problem ?? '', /no valid warm runs of q3 on a side/);
});
