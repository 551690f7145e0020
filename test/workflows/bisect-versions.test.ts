/**
 * The bisect workflow (`bisectVersions`) on a real Temporal dev server with stub cell activities:
 * the versions come from the embedded target's real version sources, each probe is a real
 * `benchmarkCell` child workflow, and the query's read_rows per version is scripted (the only stub
 * figure). Asserts the bracketing pair, the number of cells (≤ ⌈log2 N⌉ + 2 for the bisect), that
 * each version's cell ran once, and that a default flipped by hand on the newer side is found as the
 * cause (or "engine code" when pinning the defaults leaves the change).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startStubEnv, type StubEnv } from '../helpers/temporal-env';
import { stubActivities } from '../helpers/stub-activities';
import { createBisectActivities } from '../../src/activities/bisect/bisect';
import { bisectBudget, compareVersions, type DefaultDiff } from '../../src/schema/bisect';
import type { CellInput } from '../../src/schema/cell';
import type { BisectResult } from '../../src/workflows/bisect-versions';
import type { BisectCompareInput, BisectComparison } from '../../src/activities/bisect/bisect';
import { compareSamples } from '../../src/measure/compare';
import seedrandom from 'seedrandom';

const stubs = stubActivities();
const real = createBisectActivities();
let env: StubEnv;
/** Awaited before each figure is read (the resume test holds the third one). */
let gate: ((resultFile: string) => Promise<void>) | undefined;

/** The change: read_rows drops from 26.3 on; the setting that carries it (null: engine code). */
const CHANGE_AT = '26.3';
let carrier: string | null = 'optimize_read_in_order_x';
/** Versions whose query fails (as a version that cannot run the workload). */
let cannotRun = new Set<string>();
const DIFFS: DefaultDiff[] = ['a_setting', 'b_setting', 'optimize_read_in_order_x', 'z_setting', 'y_setting'].map(
  (name) => ({ name, old: '0', new: '1' }),
);

/** The cell a result file belongs to, as the workflow provisioned it. */
function cellOf(resultFile: string): CellInput {
  const key = resultFile.split('/').slice(2, 4).join('/');
  const call = stubs.calls.find((c) => c.activity === 'provision' && c.key === key);
  assert.ok(call, `no provision for ${key}`);
  return call.args[0] as CellInput;
}

function scriptedReadRows(cell: CellInput): number {
  if (compareVersions(cell.version, CHANGE_AT) < 0) return 122_880;
  const oldDefaults = cell.pinDefaults !== undefined || (carrier !== null && cell.settings?.query[carrier] === '0');
  return carrier !== null && oldDefaults ? 122_880 : 114_688;
}

/** Versions whose confirming re-run sees no change (the first pass's change is not confirmed). */
let unconfirmed = new Set<string>();

/** Versions whose cell keeps only 3 valid warm runs (too few for the comparison: `unstable`). */
let fewRuns = new Set<string>();

/** Versions whose cell's runs the host disturbed (`bisectFigure`'s host load, as metrics-end.json gives it). */
let disturbedAt = new Set<string>();

/** Versions whose confirming re-run is too noisy to decide (±60 % per run). */
let noisyRerun = new Set<string>();

/** Pinned cells run 0.6× the older version's time (the change reverses under pinned defaults). */
let pinnedReverses = false;

/**
 * Scripted warm times of a cell, ms: 100 ms, or 150 ms (1.5×) where read_rows is the changed one
 * (from CHANGE_AT on, unless the carrier is set back), each with ±3 % seeded noise; 10 runs.
 */
function scriptedWarmMs(cell: CellInput): number[] {
  const rng = seedrandom(cell.cellKey);
  const base = pinnedReverses && cell.pinDefaults !== undefined ? 60 : scriptedReadRows(cell) === 114_688 ? 150 : 100;
  return Array.from({ length: fewRuns.has(cell.version) ? 3 : 10 }, () => base * (1 + 0.06 * (rng() - 0.5)));
}

before(async () => {
  env = await startStubEnv('bisect', {
    ...stubs.activities,
    bisectRange: real.bisectRange,
    bisectFigure: async (i: { resultFile: string }) => {
      await gate?.(i.resultFile);
      const cell = cellOf(i.resultFile);
      if (cannotRun.has(cell.version))
        return { status: 'succeeded', readRows: null, problem: `query q3: Code: 115. DB::Exception: Unknown setting` };
      const words = (d: boolean) =>
        `other processes used ${d ? '1.40' : '0.20'} of 2 cores during q3 warm (baseline) on ${cell.cellKey}`;
      const d = disturbedAt.has(cell.version) && !cell.pinDefaults && !cell.cellKey.includes('-attr');
      return {
        status: 'succeeded',
        readRows: scriptedReadRows(cell),
        hostLoad: { warm: { words: words(d), disturbed: d }, cold: { words: words(false), disturbed: false } },
      };
    },
    bisectDefaults: async () => DIFFS,
    // The real judgement of the re-run's samples.
    bisectConfirm: real.bisectConfirm,
    // The confirming re-run's interleaved samples (12 rounds): 100 ms on the good end's setup, the
    // probe's scripted time on its own (1.5× where changed) unless its version is in `unconfirmed`
    // (the re-run then sees no change).
    runInterleaved: async (i: {
      phase: 'baseline' | 'index';
      queries: string[];
      rounds: number;
      kind?: 'warm' | 'cold';
      baseline: { cell: CellInput };
      candidate: { cell: CellInput };
    }) => {
      interleavedKinds.push([i.candidate.cell.runId, i.kind]);
      return i.queries.map((query_id) => {
        const rng = seedrandom(`confirm-${i.candidate.cell.cellKey}`);
        const slow = scriptedReadRows(i.candidate.cell) === 114_688 && !unconfirmed.has(i.candidate.cell.version);
        const spread = noisyRerun.has(i.candidate.cell.version) ? 1.2 : 0.06;
        const at = (ms: number) => Array.from({ length: i.rounds }, () => ms * (1 + spread * (rng() - 0.5)));
        return {
          query_id,
          phase: i.phase,
          figure: 'server_elapsed_ms',
          baseline_ms: at(100),
          new_ms: at(pinnedReverses && i.candidate.cell.pinDefaults !== undefined ? 60 : slow ? 150 : 100),
          ...(i.kind === 'cold' ? { kind: 'cold' } : {}),
        };
      });
    },
    // No stored run holds these cells (the reuse is tested on real engines: test/e2e/bisect-reuse.test.ts).
    bisectStoredCell: async () => null,
    // The real comparison method over scripted samples (only reading result.json is stubbed).
    bisectCompare: async (i: BisectCompareInput): Promise<BisectComparison> => {
      const c = compareSamples(scriptedWarmMs(cellOf(i.baselineResultFile)), scriptedWarmMs(cellOf(i.newResultFile)), {
        minChange: i.minChange,
        unstableAbove: i.unstableAbove,
        minRuns: i.minRuns,
        seed: `${i.baselineResultFile}|${i.newResultFile}`,
      });
      return { ...c, figure: 'server_elapsed_ms', sources: ['system.query_log.query_duration_ms'] };
    },
    writeBisectReport: async (i: { report: { runId: string } }) => `/stub/${i.report.runId}/bisect.md`,
  });
});
after(async () => {
  await env?.stop();
});

const spec = {
  name: 'wf-bisect',
  workload: 'logs',
  scale: 1000,
  target: { kind: 'embedded' },
  matrix: { version: ['26.7'], codec: ['LZ4'] },
  skipIndex: false,
  resultsDir: '/stub',
};

async function bisect(good: string, bad: string): Promise<{ r: BisectResult; runId: string }> {
  const runId = `wf-bisect-${randomUUID().slice(0, 8)}`;
  const r = (await env.client.workflow.execute('bisectVersions', {
    taskQueue: env.taskQueue,
    workflowId: runId,
    args: [{ spec, good, bad, query: 'q3' }],
  })) as BisectResult;
  return { r, runId };
}

test('bisect brackets the change within ⌈log2 N⌉ + 2 cells and attributes it to the flipped default', async () => {
  carrier = 'optimize_read_in_order_x';
  const { r, runId } = await bisect('23.10', '26.9');
  assert.deepEqual(r.versions, ['23.10', '24.8', '25.8', '26.1', '26.3', '26.5', '26.7', '26.9']);
  assert.deepEqual(r.outcome.bracket, ['26.1', '26.3']);
  assert.equal(r.firstChanged, '26.3');
  assert.ok(r.outcome.cellsRun <= bisectBudget(8), `${r.outcome.cellsRun} bisect cells`);
  assert.equal(r.steps[0].version, '23.10');
  assert.equal(r.steps[1].version, '26.9');
  assert.equal(r.verdict, 'default change: optimize_read_in_order_x 0→1 (26.3)');
  // Every cell (versions, the pinned one, the settings probes) ran once, as a child workflow.
  const provisions = stubs.calls.filter((c) => c.activity === 'provision' && c.key.startsWith(`${runId}/`));
  assert.equal(new Set(provisions.map((c) => c.key)).size, provisions.length);
  assert.equal(provisions.length, r.cellsRun);
  assert.ok(
    provisions.some((c) => (c.args[0] as CellInput).pinDefaults === '26.1'),
    'the pinned re-run',
  );
  // The search attribute carries the verdict.
  const desc = await env.client.workflow.getHandle(runId).describe();
  assert.equal(desc.searchAttributes.ChbenchBisectVerdict?.[0], r.verdict);
});

test('pinning the older defaults leaves the change: engine code', async () => {
  carrier = null;
  const { r } = await bisect('24.8', '26.5');
  assert.deepEqual(r.outcome.bracket, ['26.1', '26.3']);
  assert.equal(r.verdict, 'engine code (defaults pinned, still changed)');
});

test('a version in the range that cannot run the workload is skipped and named; the bisect goes on around it', async () => {
  carrier = 'optimize_read_in_order_x';
  cannotRun = new Set(['26.1']);
  try {
    const { r } = await bisect('23.10', '26.9');
    assert.deepEqual(r.outcome.skipped, ['26.1']);
    const step = r.steps.find((x) => x.version === '26.1');
    assert.equal(step?.side, 'skipped');
    assert.match(step?.figure ?? '', /Unknown setting/);
    // 26.1 was the first midpoint; the next nearest (26.3) is bad, then 25.8 good: bracket across the gap.
    assert.deepEqual(r.outcome.bracket, ['25.8', '26.3']);
    assert.equal(r.verdict, 'default change: optimize_read_in_order_x 0→1 (26.3)');
  } finally {
    cannotRun = new Set();
  }
});

/** Start a bisect with `args` and expect it refused with a message matching `re`, before any cell is provisioned. */
async function assertRefusedBeforeProvision(args: Record<string, unknown>, re: RegExp): Promise<void> {
  const runId = `wf-bisect-${randomUUID().slice(0, 8)}`;
  await assert.rejects(
    env.client.workflow.execute('bisectVersions', { taskQueue: env.taskQueue, workflowId: runId, args: [args] }),
    (e: Error) => re.test(String((e.cause as Error)?.message ?? e.message)),
  );
  assert.equal(stubs.calls.filter((c) => c.activity === 'provision' && c.key.startsWith(`${runId}/`)).length, 0);
}

test("a query the spec does not select: refused before any cell is provisioned (never measured, it is not a version's failure)", async () => {
  await assertRefusedBeforeProvision(
    { spec: { ...spec, queries: ['q1'] }, good: '24.8', bad: '26.1', query: 'q3' },
    /--query q3: not among the spec's queries \(q1\)/,
  );
});

test('handSettings on a label outside the range: refused before any cell is provisioned', async () => {
  await assertRefusedBeforeProvision(
    { spec, good: '24.8', bad: '26.1', query: 'q3', handSettings: { '26.5': { use_skip_indexes: 0 } } },
    /handSettings: 26\.5 is not a version of the range \(24\.8, 25\.8, 26\.1\)/,
  );
});

test('ends alike: two cells and a stop that says so', async () => {
  const { r } = await bisect('23.10', '26.1');
  assert.equal(r.outcome.cellsRun, 2);
  assert.equal(r.outcome.bracket, undefined);
  assert.match(r.verdict, /^no change between 23.10 and 26.1: read_rows 122,880 at both ends/);
});

test('a cancelled bisect keeps its cells: started again with the same id, it reuses them', async () => {
  carrier = 'optimize_read_in_order_x';
  const runId = `wf-bisect-${randomUUID().slice(0, 8)}`;
  let release: () => void = () => {};
  let reads = 0;
  let held: (() => void) | undefined;
  const heldAt = new Promise<void>((r) => (held = r));
  gate = async () => {
    if (++reads === 3) {
      held?.();
      await new Promise<void>((r) => (release = r));
    }
  };
  const args = [{ spec, good: '23.10', bad: '26.9', query: 'q3' }];
  const h = await env.client.workflow.start('bisectVersions', { taskQueue: env.taskQueue, workflowId: runId, args });
  await heldAt;
  await h.cancel();
  await assert.rejects(h.result(), /cancel/i);
  release();
  gate = undefined;
  const provisionsOf = () => stubs.calls.filter((c) => c.activity === 'provision' && c.key.startsWith(`${runId}/`));
  const before = provisionsOf().map((c) => c.key);
  assert.equal(before.length, 3, 'both ends and the first midpoint were measured before the cancel');
  const r = (await env.client.workflow.execute('bisectVersions', {
    taskQueue: env.taskQueue,
    workflowId: runId,
    args,
  })) as BisectResult;
  assert.deepEqual(r.outcome.bracket, ['26.1', '26.3']);
  const keys = provisionsOf().map((c) => c.key);
  assert.equal(new Set(keys).size, keys.length, 'no cell provisioned twice');
  for (const k of before) assert.ok(keys.includes(k));
});

async function bisectWarm(good: string, bad: string, metric: 'warm' | 'cold' = 'warm'): Promise<BisectResult> {
  return (await env.client.workflow.execute('bisectVersions', {
    taskQueue: env.taskQueue,
    workflowId: `wf-bisect-${randomUUID().slice(0, 8)}`,
    args: [{ spec, good, bad, query: 'q3', metric }],
  })) as BisectResult;
}

/** The `kind` each `runInterleaved` call was given, with the confirm run id of its cells. */
const interleavedKinds: [string, 'warm' | 'cold' | undefined][] = [];
const kindsOf = (runId: string) => interleavedKinds.filter(([r]) => r === `${runId}.confirm`).map(([, k]) => k);

test('--metric cold: a changed first pass is confirmed by interleaved cold runs, never by warm ones', async () => {
  carrier = 'optimize_read_in_order_x';
  const r = await bisectWarm('23.10', '26.9', 'cold');
  assert.equal(r.metric, 'cold');
  const confirmed = r.steps.filter((x) => x.confirmation);
  assert.ok(confirmed.length >= 1, JSON.stringify(r.steps));
  for (const st of confirmed)
    assert.match(st.confirmation!.reason, /re-run \(cold runs, server-side elapsed, interleaved\)/, st.version);
  // Every re-run of the bisect (steps and attribution probes) measured cold runs.
  const kinds = kindsOf(r.runId);
  assert.ok(kinds.length >= confirmed.length);
  assert.deepEqual(new Set(kinds), new Set(['cold']));
});

/** The re-runs of a bisect's version steps (not of its attribution probes): `<runId>.confirm/v<version>-new`. */
const stepReruns = (runId: string) =>
  stubs.calls.filter((c) => c.activity === 'provision' && new RegExp(`^${runId}\\.confirm/v[0-9.]+-new$`).test(c.key));

test('--metric warm: a 1.5× warm-time step at 26.3 is bracketed there, each step a verdict with its interval', async () => {
  carrier = 'optimize_read_in_order_x';
  const r = await bisectWarm('23.10', '26.9');
  assert.equal(r.metric, 'warm');
  assert.deepEqual(r.outcome.bracket, ['26.1', '26.3']);
  assert.ok(r.outcome.cellsRun <= bisectBudget(8), `${r.outcome.cellsRun} bisect cells`);
  assert.match(
    r.steps[1].reason,
    /^bad end, slower: re-run \(server-side elapsed, interleaved\): ratio 1\.[45]\d\d, CI .*confirms the first pass's regression \(interleaved re-run, 12 rounds; first pass slower: ratio 1\.[45]/,
  );
  for (const st of r.steps.slice(1)) {
    assert.match(
      st.figure,
      /^warm median \d+\.\d ms vs good end \d+\.\d ms, server-side elapsed \(system\.query_log\.query_duration_ms\), n 10\/10$/,
    );
    const slow = compareVersions(st.version, CHANGE_AT) >= 0;
    assert.equal(st.side, slow ? 'bad' : 'good', `${st.version}: ${st.reason}`);
    assert.equal(st.verdict?.verdict, slow ? 'slower' : 'unchanged', st.version);
    // The interval is the verdict's: beyond the band for slower, inside it for unchanged.
    const v = st.verdict!;
    if (slow) assert.ok(v.low! > 1 + v.threshold!, `${st.version}: ${JSON.stringify(v)}`);
    else {
      assert.ok(v.low! >= 1 / (1 + v.threshold!) && v.high! <= 1 + v.threshold!, `${st.version}: ${JSON.stringify(v)}`);
      assert.match(
        st.reason,
        /^like the good end, unchanged: \d\.\d{3} \[\d\.\d{3}, \d\.\d{3}\] inside ±10\.0 % .*narrower than the ends' 1\.[45]\d\d/,
      );
    }
    assert.equal(v.from, slow ? 're-run' : 'first pass', st.version);
    assert.match(st.hostLoad?.words ?? '', /^quiet: other processes used 0\.20 of 2 cores/);
  }
  // Attribution with the same verdicts: pinned and the carrier set back are `unchanged` against 26.1.
  assert.equal(r.verdict, 'default change: optimize_read_in_order_x 0→1 (26.3)');
  for (const p of r.attribution!.probes)
    assert.match(p.evidence ?? '', /^(unchanged .*\(first pass\)|slower .*\(re-run\))$/);
  // Every slower first pass (the bad side, bad end included) was confirmed once; the good side never re-run.
  for (const st of r.steps.slice(1)) {
    if (st.side === 'bad') {
      assert.equal(st.confirmation?.confirmed, true, `${st.version}: ${st.reason}`);
      assert.equal(st.confirmation?.rounds, 12);
    } else assert.equal(st.confirmation, undefined, st.version);
  }
  assert.equal(stepReruns(r.runId).length, r.steps.filter((x) => x.confirmation).length, 'one re-run per changed step');
  // A warm bisect's re-runs measure warm runs (no kind: the comparison's default).
  assert.deepEqual(new Set(kindsOf(r.runId)), new Set([undefined]));
});

test('--metric warm: a first pass the re-run does not confirm is withdrawn, the step takes the re-run verdict (unchanged), and is not re-run again', async () => {
  carrier = 'optimize_read_in_order_x';
  unconfirmed = new Set(['26.3']);
  try {
    const r = await bisectWarm('23.10', '26.9');
    const st = r.steps.filter((x) => x.version === '26.3');
    assert.equal(st.length, 1, 'measured once');
    assert.deepEqual(
      [st[0].side, st[0].verdict?.verdict, st[0].verdict?.from, st[0].confirmation?.confirmed],
      ['good', 'unchanged', 're-run', false],
    );
    assert.match(st[0].reason, /^like the good end, unchanged: .*first pass slower, withdrawn/);
    const confirms = stubs.calls.filter((c) => c.activity === 'provision' && c.key === `${r.runId}.confirm/v26.3-new`);
    assert.equal(confirms.length, 1, 'one confirming re-run for the step');
    // The bisect went on from the re-run's verdict: 26.5 (confirmed) is the first changed.
    assert.deepEqual(r.outcome.bracket, ['26.3', '26.5']);
  } finally {
    unconfirmed = new Set();
  }
});

test('--metric warm: an inconclusive first pass (too few runs) is measured again interleaved and then decides; the bisect goes on', async () => {
  carrier = 'optimize_read_in_order_x';
  fewRuns = new Set(['26.1']);
  try {
    const r = await bisectWarm('23.10', '26.9');
    const step = r.steps.find((x) => x.version === '26.1')!;
    assert.equal(step.side, 'good', step.reason);
    assert.deepEqual([step.verdict?.verdict, step.verdict?.from], ['unchanged', 're-run']);
    assert.match(
      step.reason,
      /first pass inconclusive: \d\.\d{3} \[.*\]: too few valid warm runs to decide: 10 in the baseline, 3 in the new run/,
    );
    assert.deepEqual(r.outcome.bracket, ['26.1', '26.3']);
    assert.equal(r.steps.filter((x) => x.version === '26.1').length, 1, 'measured once');
  } finally {
    fewRuns = new Set();
  }
});

test('--metric warm: runs the host disturbed are never a verdict: the step is re-run interleaved, and a re-run that cannot decide stops the bisect as inconclusive', async () => {
  carrier = 'optimize_read_in_order_x';
  disturbedAt = new Set(['26.1']);
  try {
    const r = await bisectWarm('23.10', '26.9');
    const step = r.steps.find((x) => x.version === '26.1')!;
    assert.equal(step.hostLoad?.disturbed, true);
    assert.match(step.hostLoad!.words, /disturbed: other processes used 1\.40 of 2 cores/);
    assert.deepEqual([step.side, step.verdict?.verdict, step.verdict?.from], ['good', 'unchanged', 're-run']);
    assert.match(step.reason, /first pass inconclusive: .*from runs the host disturbed/);
    noisyRerun = new Set(['26.1']);
    const r2 = await bisectWarm('23.10', '26.9');
    const s2 = r2.steps.find((x) => x.version === '26.1')!;
    assert.deepEqual([s2.side, s2.verdict?.verdict], ['undecided', 'inconclusive']);
    assert.equal(r2.outcome.bracket, undefined);
    assert.match(
      r2.verdict,
      /^could not decide at 26\.1: inconclusive: .*more interleaved rounds \(baseline\.confirmRounds\) or a quieter host/,
    );
    assert.equal(r2.attribution, undefined);
  } finally {
    disturbedAt = new Set();
    noisyRerun = new Set();
  }
});

test('--metric warm: a change that reverses under pinned defaults is said to reverse, never "engine code"', async () => {
  carrier = 'optimize_read_in_order_x';
  pinnedReverses = true;
  try {
    const r = await bisectWarm('24.8', '26.5');
    assert.deepEqual(r.outcome.bracket, ['26.1', '26.3']);
    assert.match(
      r.verdict,
      /^could not attribute: faster than 26\.1 \(faster 0\.6\d\d \[.*\] \(re-run\)\) while 26\.3 as shipped is slower \(1\.[45]\d\d×\): the change reverses direction/,
    );
  } finally {
    pinnedReverses = false;
  }
});

test('--metric warm: ends alike by the comparison stop after two cells', async () => {
  const r = await bisectWarm('23.10', '26.1');
  assert.equal(r.outcome.cellsRun, 2);
  assert.match(r.verdict, /^no change between 23\.10 and 26\.1: warm time unchanged: \d\.\d{3} \[/);
});
