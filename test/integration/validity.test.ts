/**
 * Measurement validity on the real embedded engine: each flag is raised by a real condition.
 * (The embedded engine gives per-run counters as `system.events` differences; see src/measure/validity.ts.)
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { assertFailureType } from '../helpers/assert-failure';
import type { ClickHouseClient } from '@clickhouse/client';
import { provisionEmbedded, teardownEmbedded } from '../../src/targets/embedded';
import type { TargetHandle } from '../../src/schema/target';
import { connect, authHeaders } from '../../src/clickhouse/client';
import { loadWorkload, renderTemplate, workloadQueries } from '../../src/lib/workload';
import { measureQueries, type MeasureOptions } from '../../src/measure/protocol';
import { confirmQuerySamples, measureInterleaved, type InterleavedSide } from '../../src/measure/confirmation';
import { killOnCancel } from '../../src/activities/support/attempts';
import { createProvision } from '../../src/activities/provision';
import { resultMismatches } from '../../src/results/report';
import { probeServer } from '../../src/clickhouse/probe';
import type { CellResult as CellResultDoc } from '../../src/schema/results';
import type { CellInput } from '../../src/schema/cell';
import { parseRunSpec } from '../../src/schema/run-spec';

const ROWS = 200_000;
let tmp: string;
const targets: TargetHandle[] = [];
const clients: ClickHouseClient[] = [];

async function loadedTarget(cellKey: string): Promise<{ t: TargetHandle; c: ClickHouseClient }> {
  const t = await provisionEmbedded({ runId: 'validity', cellKey, version: '26.7', workDir: tmp });
  const c = connect(t);
  targets.push(t);
  clients.push(c);
  const m = loadWorkload('logs');
  const v = { table: m.table, rows: ROWS, codec: 'LZ4' as const, tableSettings: m.tableSettings };
  await c.command({ query: renderTemplate('logs', m.schema, v) });
  await c.command({
    query: renderTemplate('logs', m.load, v),
    clickhouse_settings: m.loadSettings as Record<string, number>,
  });
  return { t, c };
}

const opts = (t: TargetHandle, extra: Partial<MeasureOptions> = {}): MeasureOptions => ({
  coldRuns: 1,
  warmupRuns: 0,
  warmRuns: 2,
  dropOsPageCache: false,
  maxExecutionTimeS: 600,
  queryLog: false,
  counters: 'system.events',
  queryIdPrefix: `validity-${Math.random().toString(36).slice(2, 8)}`,
  // As runQueries does: a cancelled run is killed on the server.
  killOnCancel: (id, run) => killOnCancel(t, id, run),
  ...extra,
});

const query = (id: string) => {
  const m = loadWorkload('logs');
  return workloadQueries(m, { table: m.table, rows: ROWS, codec: 'LZ4' }, [id]);
};

before(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'chbench-validity-'));
});
after(async () => {
  for (const c of clients) await c.close();
  for (const t of targets) await teardownEmbedded(t);
  rmSync(tmp, { recursive: true, force: true });
});

test('a cold run taken without dropping the caches is labelled not cold; with the drops it is cold', async () => {
  const { t, c } = await loadedTarget('cold');
  // Warm the caches, then a "cold" run without any drop.
  await measureQueries(c, 'logs', query('q3'), opts(t, { coldRuns: 0 }));
  const [stale] = await measureQueries(c, 'logs', query('q3'), opts(t, { dropCaches: false }));
  const coldStale = stale.samples.find((s) => s.kind === 'cold')!;
  assert.equal(coldStale.validity.cold?.valid, false, JSON.stringify(coldStale.counters));
  assert.equal(coldStale.validity.cold?.label, 'not cold');
  assert.ok(
    coldStale.validity.cold!.reasons.some((r) => /mark cache/.test(r)),
    coldStale.validity.cold!.reasons.join('; '),
  );
  assert.equal(stale.stats.cold_ms, null, 'a run that was not cold is not reported as cold');
  assert.equal(stale.stats.cold_runs_rejected, 1);
  const [fresh] = await measureQueries(c, 'logs', query('q3'), opts(t));
  const coldFresh = fresh.samples.find((s) => s.kind === 'cold')!;
  assert.equal(coldFresh.validity.cold?.valid, true, coldFresh.validity.cold?.reasons.join('; '));
  assert.ok(coldFresh.counters!.CreatedReadBufferDirectIO! > 0, 'direct I/O buffers were created');
});

test('the probe of the real 26.7 engine: its caches dropped and recorded, an undroppable one in validity (issue 23)', async () => {
  const { t, c } = await loadedTarget('caches');
  const probe = await probeServer(c, '26.7');
  const ok = probe.cache_drops.filter((d) => d.ok).map((d) => d.sql);
  for (const sql of ['SYSTEM DROP FILESYSTEM CACHE', 'SYSTEM DROP TEXT INDEX CACHES', 'SYSTEM DROP PAGE CACHE'])
    assert.ok(ok.includes(sql), `${sql}: ${JSON.stringify(probe.cache_drops)}`);
  assert.equal(probe.cache_settings?.use_statistics_cache, '1');
  const [r] = await measureQueries(c, 'logs', query('q3'), opts(t, { cacheDrops: ok, cacheProbe: probe }));
  const cold = r.samples.find((s) => s.kind === 'cold')!;
  assert.deepEqual(
    cold.cold_preparation!.server_caches.map((x) => [x.sql, x.ok]),
    ok.map((x) => [x, true]),
  );
  assert.ok(
    cold.validity.cold!.reasons.some((x) =>
      x.startsWith('note: statistics cache on (use_statistics_cache = 1 (default))'),
    ),
    cold.validity.cold!.reasons.join('; '),
  );
  assert.ok(
    r.samples.every((s) => s.read_rows === null || s.read_rows > 0),
    'a 0 read is never a figure',
  );
});

test('a query run while inserts create new parts is flagged not quiet', async () => {
  const { t, c } = await loadedTarget('busy');
  let stop = false;
  const writer = connect(t);
  clients.push(writer);
  const inserting = (async () => {
    for (let i = 0; !stop; i++)
      await writer.command({
        query: `INSERT INTO logs (timestamp, namespace, pod, container, level, message, trace_id, duration_ms) SELECT toDateTime64('2026-08-26 00:00:00', 3), 'payment', 'p', 'app', 'INFO', 'x', 'y', ${i}`,
      });
  })();
  try {
    const [busy] = await measureQueries(c, 'logs', query('q1'), opts(t, { warmRuns: 5 }));
    const flagged = busy.samples.filter((s) => s.validity.quiet.valid === false);
    assert.ok(flagged.length > 0, 'at least one run saw the parts change');
    assert.ok(flagged[0].validity.quiet.reasons.some((r) => /active parts changed/.test(r)));
  } finally {
    stop = true;
    await inserting;
  }
});

test('a table changed under the query phase (rows doubled between two queries) makes every later run not quiet, naming the change', async () => {
  const { t, c } = await loadedTarget('changed');
  const [q1, q3] = [...query('q1'), ...query('q3')];
  // Another client doubles the table after q1's runs, before q3's (a separate process, waited for): no
  // run sees the parts change while it runs, yet every run of q3 measures 2× the rows the phase began with.
  const intrude = () => {
    const r = spawnSync(
      process.execPath,
      [
        '-e',
        `fetch(${JSON.stringify(`${t.url}/?query=${encodeURIComponent('INSERT INTO logs SELECT * FROM logs')}`)}, { method: 'POST', headers: ${JSON.stringify(authHeaders(t))} }).then(async (r) => { if (r.status !== 200) { console.error(await r.text()); process.exit(1); } })`,
      ],
      { encoding: 'utf8', timeout: 60_000 },
    );
    assert.equal(r.status, 0, r.stderr);
  };
  let inserted = false;
  const records = await measureQueries(
    c,
    'logs',
    [q1!, q3!],
    opts(t, {
      onRun: (id) => {
        if (id === 'q3' && !inserted) {
          inserted = true;
          intrude();
        }
      },
    }),
  );
  const rows = Number(
    (
      (await (await c.query({ query: 'SELECT count() AS n FROM logs', format: 'JSONEachRow' })).json()) as {
        n: string;
      }[]
    )[0]!.n,
  );
  assert.equal(rows, 2 * ROWS);
  const [r1, r3] = records;
  assert.ok(
    r1!.samples.every((x) => x.validity.quiet.valid !== false),
    "q1 ran on the phase's table",
  );
  const late = r3!.samples;
  assert.ok(
    late.length > 0 && late.every((x) => x.validity.quiet.valid === false),
    JSON.stringify(r3!.samples.map((x) => x.validity.quiet)),
  );
  assert.match(
    late[0]!.validity.quiet.reasons.join('; '),
    /the table changed since the query phase began: \d+ part\(s\) added \(.*\) \(system\.parts, active; \d+ at the phase's start\)/,
  );
});

test('an unknown setting, or one at the wrong level, is refused before anything is loaded', async () => {
  const { provision } = createProvision({ workDir: tmp });
  const spec = parseRunSpec({
    name: 'settings',
    workload: 'logs',
    scale: 1000,
    target: { kind: 'embedded' },
    matrix: { version: ['26.7'], codec: ['LZ4'] },
    resultsDir: path.join(tmp, 'results'),
  });
  const cell = (settings: CellInput['settings'], key: string): CellInput => ({
    runId: 'settings',
    cellKey: key,
    version: '26.7',
    codec: 'LZ4',
    workload: 'logs',
    scale: 1000,
    skipIndex: false,
    protocol: spec.protocol,
    target: spec.target,
    teardown: 'always',
    resultsDir: spec.resultsDir,
    settings,
  });
  const refused = async (settings: CellInput['settings'], key: string, pattern: RegExp) => {
    await assertFailureType(provision(cell(settings, key), true), 'InvalidSetting', pattern);
    await teardownEmbedded({
      kind: 'embedded',
      url: '',
      database: 'default',
      username: 'default',
      runId: 'settings',
      cellKey: key,
      provisionedBy: '',
      dataDir: path.join(tmp, 'settings', key),
    }).catch(() => undefined);
  };
  await refused(
    { query: { no_such_setting_xyz: 1 }, mergeTree: {}, optional: [] },
    'unknown',
    /unknown setting "no_such_setting_xyz" on ClickHouse 26\.7/,
  );
  await refused(
    { query: { min_bytes_for_wide_part: 0 }, mergeTree: {}, optional: [] },
    'level',
    /"min_bytes_for_wide_part" is not a query setting .* it is a MergeTree table setting/,
  );
  await refused(
    { query: {}, mergeTree: { max_threads: 2 }, optional: [] },
    'level2',
    /"max_threads" is not a MergeTree table setting .* it is a query setting/,
  );
  // Optional and missing: recorded as not applied, not refused.
  const ok = await provision(
    cell({ query: { no_such_setting_xyz: 1 }, mergeTree: {}, optional: ['no_such_setting_xyz'] }, 'optional'),
    true,
  );
  assert.ok(ok.target.pid);
  await teardownEmbedded(ok.target);
});

test('a cell whose query returns a different result from its sibling fails the correctness check, showing both values', async () => {
  const a = await loadedTarget('same');
  const b = await loadedTarget('different');
  await b.c.command({
    query:
      "INSERT INTO logs (timestamp, namespace, pod, container, level, message, trace_id, duration_ms) SELECT toDateTime64('2026-08-26 00:00:00', 3), 'payment', 'p', 'app', 'ERROR', 'one more timeout', 'z', 1",
  });
  const ra = await measureQueries(a.c, 'logs', query('q3'), opts(a.t, { coldRuns: 0, warmRuns: 1 }));
  const rb = await measureQueries(b.c, 'logs', query('q3'), opts(b.t, { coldRuns: 0, warmRuns: 1 }));
  const doc = (key: string, q: typeof ra) =>
    ({ cellKey: key, queries_baseline: { queries: q }, queries_index: null }) as unknown as CellResultDoc;
  const mm = resultMismatches([doc('v26.7-lz4', ra), doc('v26.7-zstd3', rb)]);
  assert.equal(mm.length, 1);
  assert.equal(mm[0].id, 'q3');
  const counts = mm[0].values.map((v) => Number(/\[\["?(\d+)"?\]\]/.exec(v)![1]));
  assert.equal(Math.abs(counts[0] - counts[1]), 1, mm[0].values.join(' ≠ '));
  assert.deepEqual(resultMismatches([doc('v26.7-lz4', ra), doc('v26.7-lz4-r2', ra)]), []);
});

/** One side of an interleaved re-run over a loaded target: no settling, merges left running. */
function interleavedSide(
  name: 'baseline' | 'candidate',
  x: { t: TargetHandle; c: ClickHouseClient },
  queries: InterleavedSide['queries'],
  prefix: string,
): InterleavedSide {
  return {
    name,
    settle: async () => undefined,
    stopMerges: false,
    client: x.c,
    table: 'logs',
    workload: 'logs',
    queries,
    prefix: `${prefix}-${name}-${Math.random().toString(36).slice(2, 8)}`,
    options: opts(x.t),
  };
}

test('the confirming re-run in cold mode measures one cold run per side and round (caches dropped), no warm-up; warm mode is unchanged', async () => {
  const a = await loadedTarget('il-a');
  const b = await loadedTarget('il-b');
  const sides = [interleavedSide('baseline', a, query('q3'), 'il'), interleavedSide('candidate', b, query('q3'), 'il')];
  const order: string[] = [];
  const cold = await measureInterleaved(sides, ['q3'], 3, (at) => order.push(`${at.round}${at.side[0]}`), 'cold');
  assert.deepEqual(order, ['1b', '1c', '2b', '2c', '3b', '3c'], 'A, B per round, no round 0');
  for (const s of ['baseline', 'candidate'] as const) {
    const runs = cold.q3[s];
    assert.deepEqual(
      runs.map((x) => [x.kind, x.n]),
      [
        ['cold', 1],
        ['cold', 2],
        ['cold', 3],
      ],
    );
    // Read as the cell's cold runs are: direct I/O requested, never judged not cold (a fresh
    // server has no MarkCacheHits row yet: "cold?", kept as the cell's own first cold run is).
    for (const x of runs) {
      assert.notEqual(x.validity.cold?.valid, false, JSON.stringify(x.validity.cold));
      assert.ok(x.counters!.CreatedReadBufferDirectIO! > 0, `${s} round ${x.n}: direct I/O buffers were created`);
    }
  }
  const [kept] = confirmQuerySamples(cold, ['q3'], 'baseline', 'cold');
  assert.equal(kept.kind, 'cold');
  assert.equal(kept.baseline_ms.length, 3);
  assert.equal(kept.new_ms.length, 3);
  // The warm re-run as before: round 0 is a warm-up per side, then one warm run per side and round.
  const warm = await measureInterleaved(sides, ['q3'], 2, () => undefined);
  assert.deepEqual(
    warm.q3.baseline.map((x) => [x.kind, x.n]),
    [
      ['warmup', 0],
      ['warm', 1],
      ['warm', 2],
    ],
  );
  const [w] = confirmQuerySamples(warm, ['q3'], 'baseline');
  assert.deepEqual([w.kind, w.baseline_ms.length, w.new_ms.length], [undefined, 2, 2]);
  // Cold runs are not warm runs: the warm reader keeps none of them.
  assert.deepEqual(confirmQuerySamples(cold, ['q3'], 'baseline')[0].baseline_ms, []);
});

test('the re-run within its seconds budget: a statement slower than the budget finishes, the rounds stop once 3 are measured, and the samples say so', async () => {
  const a = await loadedTarget('budget-a');
  const b = await loadedTarget('budget-b');
  // 0.9 s per run (sleepEachRow over 3 rows): every round of both sides outlasts the 1 s budget.
  const slow = [
    {
      id: 'slow',
      title: 'sleep',
      usesIndex: false,
      deterministic: true,
      sql: 'SELECT sleepEachRow(0.3) FROM numbers(3)',
    },
  ];
  const started = Date.now();
  const runs = await measureInterleaved(
    [interleavedSide('baseline', a, slow, 'budget'), interleavedSide('candidate', b, slow, 'budget')],
    ['slow'],
    10,
    () => undefined,
    'warm',
    {
      seconds: 1,
      minRounds: 3,
    },
  );
  const took = (Date.now() - started) / 1000;
  // Warm-up round 0, then rounds 1–3; never cut inside a statement (every run is whole, ≥ 0.9 s).
  assert.deepEqual(
    runs.slow.baseline.map((x) => x.n),
    [0, 1, 2, 3],
  );
  assert.equal(runs.slow.candidate.length, 4);
  for (const x of [...runs.slow.baseline, ...runs.slow.candidate])
    assert.ok(x.wall_ms >= 850, `run ${x.n}: ${x.wall_ms} ms`);
  assert.ok(took < 15, `${took} s: the 10 rounds asked would take about 20 s`);
  const [s] = confirmQuerySamples(runs, ['slow'], 'baseline', 'warm', { rounds: 10, seconds: 1 });
  assert.deepEqual(s.budget_spent, { rounds: 3, of: 10, seconds: 1 });
  assert.equal(s.baseline_ms.length, 3);
  // A budget not reached leaves no mark.
  assert.equal(
    confirmQuerySamples(runs, ['slow'], 'baseline', 'warm', { rounds: 3, seconds: 1 })[0].budget_spent,
    undefined,
  );
});
