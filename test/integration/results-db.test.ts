/**
 * The results database end to end: a real embedded database (the chdb engine in its own process,
 * started on demand, talked to over HTTP), filled from run folders built from the committed
 * fixture `test/fixtures/results/embedded-26.7`, read back through the API, the CLI (`node
 * dist/src/cli.js` child processes), the exports and every Grafana panel's SQL; then the same
 * engine opened as a `server` database. Every engine process started here is stopped in `after`.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { ClickHouseLogLevel, createClient } from '@clickhouse/client';
import { migrate } from '../../src/results/db/migrations';
import { serverCredential } from '../../src/engine/credential';
import { samplesExport, samplesExportSql } from '../../src/results/db/export';
import {
  readRunRows,
  SAMPLE_FIGURES,
  SAMPLES_COLUMN_FIGURES,
  toDbTime,
  WORK_COUNTERS,
  type FigureDef,
} from '../../src/results/db/rows';
import type { StoredFigure, StoredSample } from '../../src/results/db/types';
import {
  embeddedResultsDbProcess,
  ensureEmbeddedResultsDb,
  openResultsDb,
  ResultsDbUnavailableError,
  SCHEMA_VERSION,
  stopEmbeddedResultsDb,
  type ResultsDb,
} from '../../src/results/db';
import { COMPARISON_SCHEMA, type ComparisonRecord } from '../../src/schema/comparison';
import { RunRecord as RunRecordSchema, type CellResult, type RunRecord } from '../../src/schema/results';
import { readRecord } from '../../src/results/store';
import { REPO_ROOT } from '../../src/config';
import { pollUntil } from '../../src/lib/poll';
import { createStoreRun } from '../../src/activities/matrix/store-run';
import { runCompare } from '../../src/cli/commands/compare';
import { COMPARE_EXIT } from '../../src/cli/exit-codes';
import { bisectRow } from '../../src/results/bisect-steps';
import { verdictInputOf } from '../../src/results/verdict-cells';
import { judgeMatrix } from '../../src/measure/verdicts';
import { VERDICT_DEFAULTS, type VerdictsRecord } from '../../src/schema/verdicts';

const run = promisify(execFile);
const FIXTURE = path.join(REPO_ROOT, 'test', 'fixtures', 'results', 'embedded-26.7');
const CLI = path.join(REPO_ROOT, 'dist', 'src', 'cli.js');
const FIXTURE_RUN = 'demo-20261130-064639';

/** A run folder under `resultsDir` copied from the fixture with another run id, start, schedule and status. */
function makeRun(
  resultsDir: string,
  id: string,
  o: { startedAt: string; scheduleId?: string; status: string; edit?: (c: CellResult) => void },
): string {
  const dir = path.join(resultsDir, id);
  fs.cpSync(FIXTURE, dir, { recursive: true });
  const rf = path.join(dir, 'run.json');
  const r = JSON.parse(fs.readFileSync(rf, 'utf8')) as RunRecord;
  fs.writeFileSync(
    rf,
    JSON.stringify({
      ...r,
      runId: id,
      startedAt: o.startedAt,
      status: o.status,
      ...(o.scheduleId ? { scheduleId: o.scheduleId } : {}),
    }),
  );
  for (const k of r.cells) {
    const cf = path.join(dir, 'cells', k, 'result.json');
    const c = JSON.parse(fs.readFileSync(cf, 'utf8')) as CellResult;
    c.runId = id;
    o.edit?.(c);
    fs.writeFileSync(cf, JSON.stringify(c));
  }
  return dir;
}

/** Every result.json of the fixture. */
function fixtureCells(): CellResult[] {
  const r = JSON.parse(fs.readFileSync(path.join(FIXTURE, 'run.json'), 'utf8')) as RunRecord;
  return r.cells.map(
    (k) => JSON.parse(fs.readFileSync(path.join(FIXTURE, 'cells', k, 'result.json'), 'utf8')) as CellResult,
  );
}

/** Measured query runs of the fixture, counted from the files. */
function fixtureSampleCount(): number {
  return fixtureCells().reduce(
    (n, c) =>
      n +
      [c.queries_baseline, c.queries_index].reduce(
        (m, q) => m + (q?.queries ?? []).reduce((k, x) => k + x.samples.length, 0),
        0,
      ),
    0,
  );
}

/** `chbench export` of the fixture run as written before the export read `figures` (see its README). */
const EXPORT_FIXTURE = path.join(REPO_ROOT, 'test', 'fixtures', 'results', 'export-embedded-26.7');

/**
 * Edit a copied fixture run as the export fixture's `edited.*`: in each cell, q1's first warm run not
 * quiet, with a memory_usage of 123456789 bytes and a start time; q2's cold run reading 0 rows and 0 bytes.
 */
function editedRun(dir: string, more?: (c: CellResult) => void): void {
  const r = JSON.parse(fs.readFileSync(path.join(dir, 'run.json'), 'utf8')) as RunRecord;
  for (const k of r.cells) {
    const f = path.join(dir, 'cells', k, 'result.json');
    const c = JSON.parse(fs.readFileSync(f, 'utf8')) as CellResult;
    const w = c.queries_baseline!.queries[0].samples.find((x) => x.kind === 'warm' && x.n === 1)!;
    w.validity.quiet = { valid: false, label: 'not quiet', reasons: ['a merge ran'] };
    w.query_log = { ...(typeof w.query_log === 'object' && w.query_log ? w.query_log : {}), memory_usage: '123456789' };
    w.started_at = '2026-11-30T06:47:00.123Z';
    const z = c.queries_baseline!.queries[1].samples.find((x) => x.kind === 'cold')!;
    [z.read_rows, z.read_bytes] = [0, 0];
    more?.(c);
    fs.writeFileSync(f, JSON.stringify(c));
  }
}

/**
 * Assert that every line of `now` (an export, csv or jsonl) is the same line of `before` byte for
 * byte with columns appended: csv `<before>,<more>`, jsonl `<before without its closing brace>,"<more>}`.
 * @returns the appended text of each line (csv: header first)
 */
function assertExtends(now: string, before: string, format: 'csv' | 'jsonl'): string[] {
  const a = now.split('\n');
  const b = before.split('\n');
  assert.equal(a.length, b.length, `${format}: as many lines`);
  return a.map((line, i) => {
    if (b[i] === '') {
      assert.equal(line, '', `${format} line ${i + 1}`);
      return '';
    }
    const head = format === 'csv' ? `${b[i]},` : `${b[i].slice(0, -1)},"`;
    assert.ok(
      line.startsWith(head),
      `${format} line ${i + 1}:\n  now    ${line.slice(0, head.length + 40)}\n  before ${b[i]}`,
    );
    return format === 'csv' ? line.slice(head.length) : `"${line.slice(head.length)}`;
  });
}

/** `figures` rows in the order `ResultsDb.figures` returns them. */
async function sortedFigures(fs_: StoredFigure[]): Promise<StoredFigure[]> {
  const kinds = ['cold', 'warmup', 'warm'];
  const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  return [...fs_].sort(
    (a, b) =>
      cmp(a.cell_key, b.cell_key) ||
      cmp(a.phase, b.phase) ||
      cmp(a.query_id, b.query_id) ||
      kinds.indexOf(a.kind) - kinds.indexOf(b.kind) ||
      a.n - b.n ||
      cmp(a.figure, b.figure),
  );
}

function comparisonOf(runId: string, baseline: string): ComparisonRecord {
  const q = (query_id: string, verdict: 'regression' | 'unchanged') => ({
    query_id,
    phase: 'baseline' as const,
    figure: 'server_elapsed_ms' as const,
    n_baseline: 3,
    n_new: 3,
    median_baseline_ms: 10,
    median_new_ms: verdict === 'regression' ? 21 : 10.2,
    ratio: verdict === 'regression' ? 2.1 : 1.02,
    ci_low: verdict === 'regression' ? 1.8 : 0.95,
    ci_high: verdict === 'regression' ? 2.4 : 1.1,
    threshold: 0.1,
    verdict,
    reason: verdict === 'regression' ? 'CI 1.8–2.4 above 1 + threshold 0.1' : 'CI contains 1',
    ...(verdict === 'regression'
      ? {
          confirm: {
            rounds: 12,
            n_baseline: 12,
            n_new: 12,
            ratio: 2.0,
            ci_low: 1.9,
            ci_high: 2.1,
            threshold: 0.1,
            verdict: 'regression' as const,
            confirmed: true,
            reason: 'confirmed',
          },
        }
      : {}),
    final: verdict,
  });
  return {
    schema: COMPARISON_SCHEMA,
    comparison_id: `cmp-${runId}`,
    run_id: runId,
    baseline_run_id: baseline,
    baseline_chosen_by: 'previous successful run of schedule nightly',
    method: 'ratio of medians, percentile bootstrap',
    options: {
      minChange: 0.1,
      unstableAbove: 0.3,
      confidence: 0.95,
      resamples: 2000,
      minRuns: 3,
      confirmRounds: 12,
      seed: 1,
    },
    pairs: [
      {
        pair_key: 'v26.7-lz4→v26.7-lz4',
        baseline_run: baseline,
        baseline_cell: 'v26.7-lz4',
        new_run: runId,
        new_cell: 'v26.7-lz4',
        differences: [],
        queries: [q('q1', 'regression'), q('q2', 'unchanged')],
      },
    ],
    unpaired: [],
    flagged: ['q1'],
    confirmed: ['q1'],
    verdict: 'regression',
    created_at: '2026-02-01T01:00:00.000Z',
  };
}

/** The embedded results database's credential (its engine requires it), as client options. */
const dbAuth = (dir: string) => ({ username: 'default', password: serverCredential(dir) });

describe('results database (embedded engine process, real chdb)', { timeout: 300_000 }, () => {
  let tmp: string;
  let resultsDir: string;
  let dbDir: string;
  let db: ResultsDb;
  let verdicts2: VerdictsRecord;
  const dbDirs: string[] = [];
  const pids: number[] = [];
  const perRun = fixtureSampleCount();

  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-results-db-'));
    resultsDir = path.join(tmp, 'results');
    dbDir = path.join(resultsDir, 'db');
    dbDirs.push(dbDir);
    fs.cpSync(FIXTURE, path.join(resultsDir, FIXTURE_RUN), { recursive: true });
    makeRun(resultsDir, 'nightly-1', {
      startedAt: '2026-01-01T00:00:00.000Z',
      scheduleId: 'nightly',
      status: 'completed',
    });
    const a2 = makeRun(resultsDir, 'nightly-2', {
      startedAt: '2026-02-01T00:00:00.000Z',
      scheduleId: 'nightly',
      status: 'completed',
    });
    fs.writeFileSync(path.join(a2, 'comparison.json'), JSON.stringify(comparisonOf('nightly-2', 'nightly-1')));
    // Its verdicts, judged from its own cells (codecs compared; its A/A control cell was never run).
    const v = verdictInputOf(a2);
    verdicts2 = judgeMatrix({
      runId: v.runId,
      cells: v.cells,
      axes: v.axes,
      options: VERDICT_DEFAULTS,
      createdAt: '2026-02-01T01:00:00.000Z',
    });
    fs.writeFileSync(path.join(a2, 'verdicts.json'), JSON.stringify(verdicts2));
    // The third run failed, and one of its warm runs was not quiet.
    makeRun(resultsDir, 'nightly-3', {
      startedAt: '2026-03-01T00:00:00.000Z',
      scheduleId: 'nightly',
      status: 'failed',
      edit: (c) => {
        const s = c.queries_baseline!.queries[0].samples.find((x) => x.kind === 'warm' && x.n === 1)!;
        s.validity.quiet = { valid: false, label: 'not quiet', reasons: ['a merge ran'] };
      },
    });
    db = await openResultsDb({ kind: 'embedded', dir: dbDir });
    const p = embeddedResultsDbProcess(dbDir);
    assert.ok(p, 'server.json names a live process');
    pids.push(p.pid);
  });

  after(async () => {
    await db?.close();
    for (const d of dbDirs) await stopEmbeddedResultsDb(d);
    for (const pid of pids) assert.throws(() => process.kill(pid, 0), 'engine process stopped');
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('applies the migrations once and creates the tables', async () => {
    const tables = (
      await db.query<{ name: string }>(
        'SELECT name FROM system.tables WHERE database = currentDatabase() ORDER BY name',
      )
    ).map((r) => r.name);
    assert.deepEqual(tables, [
      'bisects',
      'cells',
      'comparison_queries',
      'comparisons',
      'figures',
      'query_runs',
      'runs',
      'samples',
      'schema_migrations',
      'verdicts',
    ]);
    const again = await openResultsDb({ kind: 'embedded', dir: dbDir });
    await again.close();
    const m = await db.query<{ version: number; n: string }>(
      'SELECT version, count() AS n FROM schema_migrations GROUP BY version ORDER BY version',
    );
    assert.deepEqual(
      m.map((r) => [Number(r.version), Number(r.n)]),
      Array.from({ length: SCHEMA_VERSION }, (_, i) => [i + 1, 1]),
    );
    assert.equal(embeddedResultsDbProcess(dbDir)?.pid, pids[0], 'the second opener used the same engine process');
  });

  it("its engine answers only with the database's own password (a 0600 file in a 0700 folder)", async () => {
    const p = embeddedResultsDbProcess(dbDir)!;
    assert.equal(fs.statSync(path.join(dbDir, 'credential')).mode & 0o777, 0o600);
    assert.equal(fs.statSync(dbDir).mode & 0o777, 0o700);
    const anon = await fetch(`${p.url}/?query=${encodeURIComponent('SELECT count() FROM chbench.runs')}`);
    assert.equal(anon.status, 403);
    assert.equal(anon.headers.get('x-clickhouse-exception-code'), '516');
    const withIt = await fetch(`${p.url}/?query=${encodeURIComponent('SELECT 1')}`, {
      headers: { 'X-ClickHouse-User': 'default', 'X-ClickHouse-Key': serverCredential(dbDir) },
    });
    assert.equal((await withIt.text()).trim(), '1');
  });

  it('stores run folders, and storing them again does not double a row', async () => {
    for (const id of [FIXTURE_RUN, 'nightly-1', 'nightly-2', 'nightly-3']) {
      const n = await db.storeRun(path.join(resultsDir, id));
      assert.deepEqual(n, {
        runs: 1,
        cells: 2,
        samples: perRun,
        comparisons: id === 'nightly-2' ? 1 : 0,
        verdicts: id === 'nightly-2' ? verdicts2.entries.length : 0,
      });
    }
    // UInt64 arrives as a number or a quoted string depending on the server's output_format_json_quote_64bit_integers.
    const counts = async () =>
      Object.fromEntries(
        Object.entries(
          (
            await db.query<Record<string, string | number>>(
              'SELECT (SELECT count() FROM runs) AS runs, (SELECT count() FROM cells) AS cells, (SELECT count() FROM query_runs) AS samples, (SELECT count() FROM samples) AS wide, (SELECT count() FROM comparisons) AS comparisons, (SELECT count() FROM comparison_queries) AS cq, (SELECT count() FROM verdicts) AS verdicts',
            )
          )[0],
        ).map(([k, v]) => [k, Number(v)]),
      );
    const first = await counts();
    // The wide samples table (schema 1–4) is no longer written.
    assert.deepEqual(first, {
      runs: 4,
      cells: 8,
      samples: 4 * perRun,
      wide: 0,
      comparisons: 1,
      cq: 2,
      verdicts: verdicts2.entries.length,
    });
    // One verdicts row per comparison, as verdicts.json has it: the codec's disk ratio is exact.
    const disk = verdicts2.entries.find((e) => e.axis === 'codec' && e.phase === 'disk')!;
    const [row] = await db.query<{ verdict: string; ratio: number; stage: string; confirmed: number | null }>(
      "SELECT verdict, ratio, stage, confirmed FROM verdicts WHERE run_id = 'nightly-2' AND axis = 'codec' AND phase = 'disk'",
    );
    assert.deepEqual(row, { verdict: disk.verdict, ratio: disk.ratio, stage: 'first-pass', confirmed: null });
    for (const id of [FIXTURE_RUN, 'nightly-2']) await db.storeRun(path.join(resultsDir, id));
    assert.deepEqual(await counts(), first);
  });

  it('the warm-median SQL of docs/regression.md, run as documented, gives one row per run, cell, phase and query', async () => {
    const md = fs.readFileSync(path.join(REPO_ROOT, 'docs', 'regression.md'), 'utf8');
    const documented = [...md.matchAll(/chbench results sql "([^"]*)"/g)].map((m) => m[1]);
    const q = documented.find((x) => /warm_median_ms/.test(x));
    assert.ok(q, `docs/regression.md has a warm-median example: ${documented.join(' | ')}`);
    const { stdout } = await run(
      process.execPath,
      [CLI, 'results', 'sql', q, '--results-dir', resultsDir, '--format', 'json'],
      {
        cwd: tmp,
        maxBuffer: 32 << 20,
      },
    );
    const parsed = JSON.parse(stdout) as unknown;
    const rows = (Array.isArray(parsed) ? parsed : (parsed as { data: unknown[] }).data) as Record<string, unknown>[];
    // Expected from the files: per stored run, cell, phase and query, the valid warm runs.
    const expected = new Map<string, number>();
    for (const id of [FIXTURE_RUN, 'nightly-1', 'nightly-2', 'nightly-3'])
      for (const c of fixtureCells())
        for (const rec of [c.queries_baseline, c.queries_index])
          for (const x of rec?.queries ?? []) {
            // nightly-3's first baseline query had one warm run marked not quiet (see before()).
            const bad = id === 'nightly-3' && rec === c.queries_baseline && x === rec!.queries[0] ? 1 : 0;
            expected.set(
              `${id}|${c.cellKey}|${rec!.phase}|${x.id}`,
              x.samples.filter((s) => s.kind === 'warm').length - bad,
            );
          }
    assert.deepEqual(
      new Map(rows.map((r) => [`${r.run_id}|${r.cell_key}|${r.phase}|${r.query_id}`, Number(r.warm_runs)])),
      expected,
      'one row per run × cell × phase × query, counting its valid warm runs (cells and phases never mixed)',
    );
    for (const r of rows) {
      assert.ok(Number(r.warm_median_ms) > 0, `a median in ms: ${JSON.stringify(r)}`);
      assert.ok(Array.isArray(r.elapsed_sources) && r.elapsed_sources.length >= 1, JSON.stringify(r));
    }
    // Both phases of q5 are separate rows, with their own medians.
    assert.equal(
      rows.filter((r) => r.run_id === FIXTURE_RUN && r.cell_key === 'v26.7-lz4' && r.query_id === 'q5').length,
      2,
    );
  });

  it('reads back the run, its cells and samples with validity', async () => {
    const r = await db.run('nightly-2');
    // The spec as the store reads it: run.json parsed with the results schema (defaults of fields
    // added since the fixture was recorded filled in), the same object spec_json holds.
    const spec = readRecord(path.join(FIXTURE, 'run.json'), RunRecordSchema).spec;
    assert.deepEqual(JSON.parse(r!.spec_json), spec);
    const sorted = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(sorted)
        : v && typeof v === 'object'
          ? Object.fromEntries(
              Object.keys(v)
                .sort()
                .map((k) => [k, sorted((v as Record<string, unknown>)[k])]),
            )
          : v;
    assert.ok(r);
    assert.equal(
      r.spec_hash,
      createHash('sha256')
        .update(JSON.stringify(sorted(spec)))
        .digest('hex'),
    );
    assert.deepEqual(
      {
        schedule_id: r.schedule_id,
        started_at: r.started_at,
        status: r.status,
        cells_total: r.cells_total,
        cells_succeeded: r.cells_succeeded,
        scale: r.scale,
      },
      {
        schedule_id: 'nightly',
        started_at: '2026-02-01T00:00:00.000Z',
        status: 'completed',
        cells_total: 2,
        cells_succeeded: 2,
        scale: 2_000_000,
      },
    );
    assert.equal((await db.run(FIXTURE_RUN))?.schedule_id, null);
    const cells = await db.cells('nightly-2');
    const fx = fixtureCells();
    assert.deepEqual(
      cells.map((c) => [c.cell_key, c.codec, c.server_version, c.load_rows_per_s, c.bytes_on_disk]),
      fx.map((c) => [
        c.cellKey,
        c.matrix.codec,
        c.provision!.server.version,
        c.load!.rows_per_s,
        c.storage!.bytes_on_disk,
      ]),
    );
    const s = await db.samples('nightly-3', 'v26.7-lz4');
    const q1 = fx[0].queries_baseline!.queries[0];
    const bad = s.filter((x) => !x.valid);
    assert.equal(bad.length, 1);
    assert.deepEqual(
      [bad[0].query_id, bad[0].kind, bad[0].n, bad[0].invalid_reason],
      [q1.id, 'warm', 1, 'not quiet: a merge ran'],
    );
    const cold = s.find((x) => x.phase === 'baseline' && x.query_id === q1.id && x.kind === 'cold')!;
    assert.equal(cold.server_elapsed_ms, q1.samples.find((x) => x.kind === 'cold')!.server_elapsed_ms);
    assert.equal(cold.statement_id, q1.samples.find((x) => x.kind === 'cold')!.query_id);
  });

  it('the storeRun activity stores a run folder in <resultsDir>/db and says where', async () => {
    const r = await createStoreRun().storeRun({ resultsDir, runId: 'nightly-1' });
    assert.deepEqual(
      { ...r, description: undefined },
      { runs: 1, cells: 2, samples: perRun, comparisons: 0, verdicts: 0, description: undefined },
    );
    assert.ok(r.description.startsWith(`embedded database ${dbDir} (pid ${pids[0]}, http://127.0.0.1:`), r.description);
    assert.equal((await db.samples('nightly-1')).length, perRun);
  });

  it('finds the previous successful run of a schedule', async () => {
    assert.equal((await db.previousSuccessfulRun('nightly', '2026-03-01T00:00:00.000Z'))?.run_id, 'nightly-2');
    assert.equal((await db.previousSuccessfulRun('nightly', '2026-02-01T00:00:00.000Z'))?.run_id, 'nightly-1');
    assert.equal(await db.previousSuccessfulRun('nightly', '2026-01-01T00:00:00.000Z'), undefined);
    // nightly-3 failed: still nightly-2 after it.
    assert.equal((await db.previousSuccessfulRun('nightly', '2026-04-01T00:00:00.000Z'))?.run_id, 'nightly-2');
    assert.equal(await db.previousSuccessfulRun('weekly', '2026-04-01T00:00:00.000Z'), undefined);
  });

  it('gives a series of warm medians, oldest first, leaving out invalid runs', async () => {
    const pts = await db.series({ scheduleId: 'nightly', name: 'demo' });
    const queriesPerCell = fx().reduce(
      (n, c) => n + (c.queries_baseline?.queries.length ?? 0) + (c.queries_index?.queries.length ?? 0),
      0,
    );
    assert.equal(pts.length, 3 * queriesPerCell);
    assert.deepEqual([...new Set(pts.map((p) => p.run_id))], ['nightly-1', 'nightly-2', 'nightly-3']);
    const q1 = fx()[0].queries_baseline!.queries[0];
    const warm = q1.samples.filter((x) => x.kind === 'warm').map((x) => x.server_elapsed_ms!);
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const at = (runId: string) =>
      pts.find(
        (p) => p.run_id === runId && p.cell_key === 'v26.7-lz4' && p.phase === 'baseline' && p.query_id === q1.id,
      )!;
    assert.equal(warm.length, 3);
    assert.equal(at('nightly-1').warm_median_ms, med(warm));
    assert.equal(at('nightly-1').figure, 'server_elapsed_ms');
    // nightly-3 lost its first warm run (not quiet): the median of the other two.
    assert.equal(at('nightly-3').warm_median_ms, (warm[1] + warm[2]) / 2);
    const last2 = await db.series({ scheduleId: 'nightly', name: 'demo', limit: 2 });
    assert.deepEqual([...new Set(last2.map((p) => p.run_id))], ['nightly-2', 'nightly-3']);
    const byName = await db.series({ scheduleId: null, name: 'demo', limit: 100 });
    assert.equal(new Set(byName.map((p) => p.run_id)).size, 4);
  });

  it('keeps the comparison record and its per-query rows', async () => {
    assert.deepEqual(await db.comparison('nightly-2'), comparisonOf('nightly-2', 'nightly-1'));
    assert.equal(await db.comparison('nightly-1'), undefined);
    const rows = await db.query<{ query_id: string; final: string; confirmed: number | null }>(
      "SELECT query_id, final, confirmed FROM comparison_queries WHERE run_id = 'nightly-2' ORDER BY query_id",
    );
    assert.deepEqual(rows, [
      { query_id: 'q1', final: 'regression', confirmed: 1 },
      { query_id: 'q2', final: 'unchanged', confirmed: null },
    ]);
  });

  it('refuses statements that write', async () => {
    await assert.rejects(db.query('DROP TABLE runs'), /refused: only read statements/);
    await assert.rejects(db.query('SELECT 1; DROP TABLE runs'), /one statement only/);
    // A read keyword first does not carry a write (a first-time user's `WITH … INSERT` wrote rows).
    const before = await db.query<{ n: string }>('SELECT count() AS n FROM runs');
    await assert.rejects(db.query('WITH x AS (SELECT 1) INSERT INTO runs SELECT * FROM runs'), /refused: .*has INSERT/);
    assert.deepEqual(await db.query<{ n: string }>('SELECT count() AS n FROM runs'), before);
    assert.deepEqual(await db.query("SELECT 'a;b' AS x -- ; trailing"), [{ x: 'a;b' }]);
  });

  it('CLI: results sql, import, stop and export', async () => {
    const cli = (...args: string[]) => run(process.execPath, [CLI, ...args], { cwd: tmp, maxBuffer: 32 << 20 });
    const j = await cli(
      'results',
      'sql',
      'SELECT count() AS n FROM query_runs',
      '--results-dir',
      resultsDir,
      '--format',
      'json',
    );
    assert.deepEqual(
      (JSON.parse(j.stdout) as { n: string | number }[]).map((r) => Number(r.n)),
      [4 * perRun],
    );
    const t = await cli('results', 'sql', 'SELECT run_id FROM runs ORDER BY run_id', '--results-dir', resultsDir);
    assert.match(t.stdout, /^run_id\n-+\ndemo-20261130-064639\nnightly-1\nnightly-2\nnightly-3\n\(4 rows\)\n$/);
    await assert.rejects(
      cli('results', 'sql', 'INSERT INTO runs SELECT * FROM runs', '--results-dir', resultsDir),
      (e: { code: number; stderr: string }) => e.code === 2 && /refused/.test(e.stderr),
    );

    // Import the whole results folder into a second embedded database, then stop it.
    const other = path.join(tmp, 'other');
    dbDirs.push(path.join(other, 'db'));
    const imp = await cli('results', 'import', resultsDir, '--results-dir', other);
    assert.match(imp.stdout, /4 of 4 run\(s\) stored/);
    const otherPid = embeddedResultsDbProcess(path.join(other, 'db'))?.pid;
    assert.ok(otherPid, 'the import started an engine process that outlives the CLI');
    pids.push(otherPid);
    const c2 = await cli(
      'results',
      'sql',
      'SELECT count() AS n FROM query_runs',
      '--results-dir',
      other,
      '--format',
      'csv',
    );
    assert.equal(c2.stdout, `"n"\n${4 * perRun}\n`);
    const stop = await cli('results', 'stop', '--results-dir', other);
    assert.match(stop.stdout, new RegExp(`stopped the results database engine \\(pid ${otherPid}\\)`));
    assert.throws(() => process.kill(otherPid, 0));

    // Exports.
    const out = path.join(tmp, 'cb');
    await cli('export', 'nightly-1', '--format', 'clickbench', '--out', out, '--results-dir', resultsDir);
    const files = fs.readdirSync(out).sort();
    assert.deepEqual(files, [
      'v26.7-lz4.baseline.json',
      'v26.7-lz4.index.json',
      'v26.7-zstd3.baseline.json',
      'v26.7-zstd3.index.json',
    ]);
    const cb = JSON.parse(fs.readFileSync(path.join(out, 'v26.7-lz4.baseline.json'), 'utf8')) as {
      result: number[][];
      load_time: number;
      data_size: number;
      cluster_size: number;
      date: string;
      comment: string;
      system: string;
      tags: string[];
    };
    const fx0 = fx()[0];
    assert.equal(cb.result.length, fx0.queries_baseline!.queries.length);
    for (const r of cb.result) assert.ok(r.length === 3 && r.every((x) => typeof x === 'number' && x > 0));
    const q1 = fx0.queries_baseline!.queries[0].samples;
    assert.deepEqual(
      cb.result[0],
      [
        q1.find((s) => s.kind === 'cold')!,
        q1.find((s) => s.kind === 'warm' && s.n === 1)!,
        q1.find((s) => s.kind === 'warm' && s.n === 2)!,
      ].map((s) => s.server_elapsed_ms! / 1000),
    );
    assert.equal(cb.load_time, fx0.load!.elapsed_ms / 1000);
    assert.equal(cb.data_size, fx0.storage!.bytes_on_disk);
    assert.equal(cb.date, '2026-01-01');
    assert.match(cb.comment, /server-side elapsed/);
    const jl = await cli('export', 'nightly-1', '--format', 'jsonl', '--results-dir', resultsDir);
    const lines = jl.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { kind: string; codec: string });
    assert.equal(lines.length, perRun);
    assert.deepEqual([...new Set(lines.map((l) => l.kind))].sort(), ['cold', 'warm', 'warmup']);
    const csvFile = path.join(tmp, 'x', 's.csv');
    await cli('export', 'nightly-1', '--format', 'csv', '--out', csvFile, '--results-dir', resultsDir);
    const csv = fs.readFileSync(csvFile, 'utf8').trim().split('\n');
    assert.equal(csv.length, perRun + 1);
    assert.match(csv[0], /^"run_id","cell_key","version_label",/);
    await assert.rejects(
      cli('export', 'no-such-run', '--format', 'csv', '--results-dir', resultsDir),
      (e: { code: number }) => e.code === 2,
    );
  });

  it("every Grafana panel's SQL returns rows", async () => {
    const dash = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'manifests', 'grafana-dashboard.json'), 'utf8')) as {
      panels: { title: string; datasource: { type: string }; targets: { rawSql: string }[] }[];
      templating: { list: { name: string; query?: string }[] };
    };
    assert.ok(dash.panels.length >= 5);
    const figureVar = dash.templating.list.find((v) => v.name === 'figure')!;
    assert.ok(figureVar?.query, 'a figure variable with a query');
    for (const p of dash.panels) {
      assert.equal(p.datasource.type, 'grafana-clickhouse-datasource', p.title);
      for (const t of p.targets) {
        // The plugin's macro, as it expands it (epoch seconds), over 2000..2100.
        const sql = t.rawSql.replace(
          /\$__timeFilter\(([^)]+)\)/g,
          '($1 >= toDateTime(946684800) AND $1 <= toDateTime(4102444800))',
        );
        // The Figure variable: every figure name its query lists (every SAMPLE_FIGURES name).
        const names: string[] = (await db.query<{ figure: string }>(figureVar.query!)).map((r) => r.figure);
        assert.deepEqual(names, SAMPLE_FIGURES.map((f) => f.name).sort());
        const each: (string | null)[] = sql.includes('${figure}') ? names : [null];
        for (const figure of each) {
          const one = figure === null ? sql : sql.replaceAll('${figure}', figure);
          assert.doesNotMatch(one, /\$/, `${p.title}: no other macro or variable`);
          const rows = await db.query<Record<string, unknown>>(one);
          // A figure no fixture run has (a counter the engine did not give) has no rows; the timings do.
          if (figure === null || ['elapsed_ms', 'wall_ms', 'server_elapsed_ms', 'read_rows'].includes(figure))
            assert.ok(rows.length > 0, `${p.title} (${figure ?? ''}): rows`);
          if (figure === 'wall_ms')
            assert.ok(
              rows.every((r) => String(r.series).endsWith(' (ms)')),
              `${p.title}: unit in the series name`,
            );
        }
      }
    }
  });

  it('upgrades a database of schema 2: migration 3 adds the read source, unknown reads, value hashes and memory_usage; old 0 reads read back as unknown', async () => {
    const dir = path.join(tmp, 'schema-2', 'db');
    dbDirs.push(dir);
    // The database as chbench left it at schema 2, with one sample row of that shape holding a 0 read.
    const proc = await ensureEmbeddedResultsDb(dir);
    pids.push(proc.pid);
    const admin = createClient({ url: proc.url, ...dbAuth(dir), log: { level: ClickHouseLogLevel.OFF } });
    await admin.command({ query: 'CREATE DATABASE IF NOT EXISTS chbench' });
    await admin.close();
    const old = createClient({
      url: proc.url,
      ...dbAuth(dir),
      database: 'chbench',
      log: { level: ClickHouseLogLevel.OFF },
    });
    try {
      assert.deepEqual(await migrate(old, '0.6.0', 2), [1, 2]);
      await old.insert({
        table: 'samples',
        format: 'JSONEachRow',
        values: [
          {
            run_id: 'old-run',
            cell_key: 'v24.8-lz4',
            phase: 'baseline',
            query_id: 'q1',
            query_pos: 0,
            kind: 'warm',
            n: 1,
            server_elapsed_ms: 3.5,
            server_elapsed_source: 'http summary elapsed_ns',
            wall_ms: 4,
            elapsed_ms: 3.5,
            elapsed_source: 'http summary elapsed_ns',
            read_rows: 0,
            read_bytes: 0,
            result_rows: 1,
            result_bytes: 20,
            result_sha256: 'x',
            valid: 1,
            invalid_reason: null,
            started_at: null,
            statement_id: 'old-q1',
          },
        ],
      });
      const cols = async () =>
        (
          await (
            await old.query({
              query: "SELECT name, type FROM system.columns WHERE database = 'chbench' AND table = 'samples'",
              format: 'JSONEachRow',
            })
          ).json<{ name: string; type: string }>()
        ).map((c) => `${c.name} ${c.type}`);
      assert.ok(!(await cols()).some((c) => /^(read_unknown|memory_usage|result_values_sha256) /.test(c)));
      // Opening it applies migration 3 only; the old row reads back with its 0 read as unknown, never as 0.
      const up = await openResultsDb({ kind: 'embedded', dir });
      try {
        const now = await cols();
        for (const c of [
          'read_source Nullable(String)',
          'read_unknown Nullable(String)',
          'result_values_sha256 Nullable(String)',
          'memory_usage Nullable(UInt64)',
        ])
          assert.ok(now.includes(c), `${c} in ${now.join(', ')}`);
        const [o] = await up.samples('old-run');
        assert.equal(o.read_rows, null);
        assert.equal(o.read_bytes, null);
        // Read from its figures rows (migration 4's backfill, migration 5's query_runs row).
        assert.match(o.read_unknown ?? '', /^recorded as 0 .*unknown, not a figure/);
        assert.equal(o.result_values_sha256, null);
        assert.equal(o.memory_usage, null);
        // A run stored now keeps each of the new figures (values edited into the fixture's files).
        const id = 'schema-3-run';
        const ownResults = path.join(tmp, 'schema-2', 'results');
        makeRun(ownResults, id, {
          startedAt: '2026-04-01T00:00:00.000Z',
          status: 'completed',
          edit: (c) => {
            const [a, b] = c.queries_baseline!.queries[0].samples.filter((x) => x.kind === 'warm');
            a.query_log = { memory_usage: '4194304' };
            a.result_values_sha256 = 'f'.repeat(64);
            [b.read_rows, b.read_bytes, b.read_source] = [null, null, null];
            b.read_unknown = 'output statistics rows_read 0: a 0 read is unknown, not a figure';
          },
        });
        await up.storeRun(path.join(ownResults, id));
        const cell = fixtureCells()[0].cellKey;
        const warm = (await up.samples(id, cell)).filter(
          (x) =>
            x.phase === 'baseline' &&
            x.query_id === fixtureCells()[0].queries_baseline!.queries[0].id &&
            x.kind === 'warm',
        );
        assert.deepEqual(
          warm.slice(0, 2).map((x) => [x.memory_usage, x.result_values_sha256, x.read_rows, x.read_unknown]),
          [
            [4194304, 'f'.repeat(64), warm[0].read_rows, null],
            [null, null, null, 'output statistics rows_read 0: a 0 read is unknown, not a figure'],
          ],
        );
        assert.ok(warm[0].read_rows! > 0 && warm[0].read_source === 'output statistics', JSON.stringify(warm[0]));
        // The export carries them: an unknown read is an empty CSV field with its reason, never 0.
        const csv = await up.queryText(samplesExportSql(id), 'CSVWithNames');
        const [head, ...lines] = csv.trim().split('\n');
        const names = head.split(',').map((h) => h.replace(/"/g, ''));
        for (const n of ['read_source', 'read_unknown', 'result_values_sha256', 'memory_usage'])
          assert.ok(names.includes(n), n);
        const unknownLine = lines.find((l) => l.includes('a 0 read is unknown'))!;
        assert.ok(unknownLine, 'the unknown read is exported');
        assert.match(unknownLine, /,,/);
      } finally {
        await up.close();
      }
      // Migration 3 again (its version row gone, as when two openers raced): every statement is idempotent.
      await old.command({
        query: 'ALTER TABLE schema_migrations DELETE WHERE version = 3',
        clickhouse_settings: { mutations_sync: '2' },
      });
      assert.deepEqual(await migrate(old, '0.7.0'), [3]);
      assert.deepEqual(await migrate(old, '0.7.0'), []);
      const versions = await (
        await old.query({
          query: 'SELECT version, count() AS n FROM schema_migrations GROUP BY version ORDER BY version',
          format: 'JSONEachRow',
        })
      ).json<{ version: number; n: string }>();
      assert.deepEqual(
        versions.map((v) => [Number(v.version), Number(v.n)]),
        Array.from({ length: SCHEMA_VERSION }, (_, i) => [i + 1, 1]),
      );
    } finally {
      await old.close();
    }
  });

  it('upgrades a database of schema 3: migration 4 backfills one figures row per figure from the samples columns; re-storing and re-migrating add no rows', async () => {
    const dir = path.join(tmp, 'schema-3', 'db');
    dbDirs.push(dir);
    const proc = await ensureEmbeddedResultsDb(dir);
    pids.push(proc.pid);
    const admin = createClient({ url: proc.url, ...dbAuth(dir), log: { level: ClickHouseLogLevel.OFF } });
    await admin.command({ query: 'CREATE DATABASE IF NOT EXISTS chbench' });
    await admin.close();
    const old = createClient({
      url: proc.url,
      ...dbAuth(dir),
      database: 'chbench',
      log: { level: ClickHouseLogLevel.OFF },
    });
    const figuresOf = async (runId: string) =>
      (
        await (
          await old.query({
            query: `SELECT figure, value, unit, source, unknown FROM figures WHERE run_id = '${runId}' ORDER BY kind, n, figure`,
            format: 'JSONEachRow',
          })
        ).json<{ figure: string; value: number | null; unit: string; source: string | null; unknown: string | null }>()
      ).map((r) => [r.figure, r.value, r.unit, r.source, r.unknown]);
    try {
      assert.deepEqual(await migrate(old, '0.7.0', 3), [1, 2, 3]);
      const base = {
        cell_key: 'v24.8-lz4',
        phase: 'baseline',
        query_id: 'q1',
        query_pos: 0,
        n: 1,
        server_elapsed_source: 'system.query_log query_duration_ms',
        wall_ms: 4,
        elapsed_source: 'client wall time',
        result_rows: 1,
        result_bytes: 20,
        result_sha256: 'x',
        valid: 1,
        invalid_reason: null,
        started_at: null,
        statement_id: 's',
      };
      await old.insert({
        table: 'samples',
        format: 'JSONEachRow',
        values: [
          {
            ...base,
            run_id: 'old-3',
            kind: 'warm',
            server_elapsed_ms: 3,
            elapsed_ms: 4,
            read_rows: 122951,
            read_bytes: 983608,
            read_source: 'system.query_log',
            memory_usage: 4194304,
          },
          {
            ...base,
            run_id: 'old-3',
            kind: 'cold',
            server_elapsed_ms: null,
            elapsed_ms: 4,
            read_rows: 0,
            read_bytes: 0,
            read_source: null,
            memory_usage: null,
          },
        ],
      });
      const up = await openResultsDb({ kind: 'embedded', dir });
      try {
        const back = await figuresOf('old-3');
        const zero =
          'recorded as 0 (a result written before a 0 read was recorded as unknown): a 0 read is unknown, not a figure';
        assert.deepEqual(back, [
          ['elapsed_ms', 4, 'ms', 'client wall time', null],
          ['memory_usage', null, 'bytes', null, null],
          ['read_bytes', null, 'bytes', null, zero],
          ['read_rows', null, 'rows', null, zero],
          ['result_bytes', 20, 'bytes', 'client result', null],
          ['result_rows', 1, 'rows', 'client result', null],
          ['server_elapsed_ms', null, 'ms', 'system.query_log query_duration_ms', null],
          ['wall_ms', 4, 'ms', 'client wall time', null],
          ['elapsed_ms', 4, 'ms', 'client wall time', null],
          ['memory_usage', 4194304, 'bytes', 'system.query_log.memory_usage', null],
          ['read_bytes', 983608, 'bytes', 'system.query_log', null],
          ['read_rows', 122951, 'rows', 'system.query_log', null],
          ['result_bytes', 20, 'bytes', 'client result', null],
          ['result_rows', 1, 'rows', 'client result', null],
          ['server_elapsed_ms', 3, 'ms', 'system.query_log query_duration_ms', null],
          ['wall_ms', 4, 'ms', 'client wall time', null],
        ]);
        // A run stored now writes its figures; storing it again leaves one row per figure, not two.
        const id = 'schema-4-run';
        const ownResults = path.join(tmp, 'schema-3', 'results');
        makeRun(ownResults, id, { startedAt: '2026-04-02T00:00:00.000Z', status: 'completed' });
        const { samples } = await up.storeRun(path.join(ownResults, id));
        await up.storeRun(path.join(ownResults, id));
        const stored = await figuresOf(id);
        assert.equal(stored.length, samples * SAMPLE_FIGURES.length);
        const reads = stored.filter((r) => r[0] === 'read_rows' && r[1] !== null);
        assert.ok(
          reads.length > 0 && reads.every((r) => Number(r[1]) > 0 && typeof r[3] === 'string'),
          JSON.stringify(reads.slice(0, 3)),
        );
      } finally {
        await up.close();
      }
      // Migration 4 again (its version row gone, as when two openers raced): the backfill adds nothing.
      await old.command({
        query: 'ALTER TABLE schema_migrations DELETE WHERE version = 4',
        clickhouse_settings: { mutations_sync: '2' },
      });
      assert.deepEqual(await migrate(old, '0.8.0'), [4]);
      assert.equal((await figuresOf('old-3')).length, 16);
    } finally {
      await old.close();
    }
  });

  it('upgrades databases of schema 3 and 4 in place: migration 5 backfills query_runs; no figure lost, the export unchanged, the wide samples table no longer written', async () => {
    const fixtureExport = (f: string) => fs.readFileSync(path.join(EXPORT_FIXTURE, f), 'utf8');
    for (const from of [3, 4]) {
      const dir = path.join(tmp, `schema-${from}-to-5`, 'db');
      dbDirs.push(dir);
      const proc = await ensureEmbeddedResultsDb(dir);
      pids.push(proc.pid);
      const admin = createClient({ url: proc.url, ...dbAuth(dir), log: { level: ClickHouseLogLevel.OFF } });
      await admin.command({ query: 'CREATE DATABASE IF NOT EXISTS chbench' });
      await admin.close();
      const old = createClient({
        url: proc.url,
        ...dbAuth(dir),
        database: 'chbench',
        log: { level: ClickHouseLogLevel.OFF },
      });
      const count = async (table: string) =>
        Number(
          (
            await (
              await old.query({ query: `SELECT count() AS n FROM ${table}`, format: 'JSONEachRow' })
            ).json<{ n: string }>()
          )[0].n,
        );
      try {
        // The fixture run as chbench stored it at schema `from`: wide samples rows (and, at 4, its figures rows).
        assert.deepEqual(await migrate(old, '0.8.0', from), from === 3 ? [1, 2, 3] : [1, 2, 3, 4]);
        const rows = readRunRows(path.join(FIXTURE));
        const runId = rows.run.run_id;
        assert.equal(runId, FIXTURE_RUN);
        await old.insert({
          table: 'samples',
          format: 'JSONEachRow',
          values: rows.samples.map((x) => ({ ...x, valid: x.valid ? 1 : 0, started_at: toDbTime(x.started_at) })),
        });
        if (from === 4) await old.insert({ table: 'figures', format: 'JSONEachRow', values: rows.figures });
        await old.insert({
          table: 'cells',
          format: 'JSONEachRow',
          values: rows.cells.map((c) => ({ ...c, written_at: toDbTime(c.written_at) })),
        });
        await old.insert({
          table: 'runs',
          format: 'JSONEachRow',
          values: [
            {
              ...rows.run,
              started_at: toDbTime(rows.run.started_at),
              finished_at: toDbTime(rows.run.finished_at),
              stored_at: toDbTime(new Date().toISOString()),
            },
          ],
        });
        const figuresBefore = from === 4 ? rows.figures.length : 0;
        const up = await openResultsDb({ kind: 'embedded', dir });
        try {
          assert.equal(await count('query_runs'), perRun);
          // Schema 3: migration 4's backfill writes the 8 figures the samples columns hold; schema 4: every figure stays.
          assert.equal(await count('figures'), from === 4 ? figuresBefore : perRun * SAMPLES_COLUMN_FIGURES.length);
          // Every measured run reads back as it was stored, each figure included.
          const back = (await up.samples(runId)).map(({ figures, ...rest }) => {
            assert.ok(figures && Object.keys(figures).length >= SAMPLES_COLUMN_FIGURES.length);
            return rest;
          });
          const key = (x: StoredSample) => `${x.cell_key}|${x.phase}|${x.query_id}|${x.kind}|${x.n}`;
          assert.deepEqual(
            new Map(back.map((x) => [key(x), x])),
            new Map(rows.samples.map((x) => [key(x), { ...x, result_values_sha256: x.result_values_sha256 ?? null }])),
          );
          if (from === 4) assert.deepEqual(await up.figures(runId), await sortedFigures(rows.figures));
          // The export reads the upgraded tables and writes the bytes it wrote when it read samples
          // (schema 3: no figure but the samples columns, so nothing appended; schema 4: the counters appended).
          for (const [format, file] of [
            ['csv', 'samples.csv'],
            ['jsonl', 'samples.jsonl'],
          ] as const) {
            const text = await samplesExport(up, runId, format);
            if (from === 3) assert.equal(text, fixtureExport(file), `${format} of schema 3 upgraded`);
            else assertExtends(text, fixtureExport(file), format);
          }
          // Storing the run again: the wide rows go, one query_runs row and one row per figure.
          await up.storeRun(FIXTURE);
          assert.deepEqual(
            [await count('samples'), await count('query_runs'), await count('figures')],
            [0, perRun, perRun * SAMPLE_FIGURES.length],
          );
        } finally {
          await up.close();
        }
        // Migration 5 again (its version row gone, as when two openers raced): the backfill adds nothing.
        await old.command({
          query: 'ALTER TABLE schema_migrations DELETE WHERE version = 5',
          clickhouse_settings: { mutations_sync: '2' },
        });
        assert.deepEqual(await migrate(old, '0.9.0'), [5]);
        assert.equal(await count('query_runs'), perRun);
      } finally {
        await old.close();
      }
    }
  });

  it('a figure only in figures (SelectedMarks) and a test-only SAMPLE_FIGURES entry reach the csv/jsonl export, the Grafana figure panel and the baseline lookup; the existing figures export byte for byte as before', async () => {
    const own = path.join(tmp, 'figures-flow');
    const ownResults = path.join(own, 'results');
    dbDirs.push(path.join(ownResults, 'db'));
    const cli = (...args: string[]) =>
      run(process.execPath, [CLI, ...args, '--results-dir', ownResults], { cwd: tmp, maxBuffer: 32 << 20 });
    // The committed run, and the same run edited as the export fixture's `edited.*` (see its README)
    // with per-run SelectedMarks counters, under another results folder.
    fs.cpSync(FIXTURE, path.join(ownResults, FIXTURE_RUN), { recursive: true });
    const edited = path.join(own, 'edited');
    fs.cpSync(FIXTURE, path.join(edited, FIXTURE_RUN), { recursive: true });
    const marks = (c: CellResult, s: { n: number; kind: string }, q: number) =>
      100 * (q + 1) + (c.cellKey.includes('zstd') ? 7 : 3) + (s.kind === 'cold' ? 0 : 0);
    editedRun(path.join(edited, FIXTURE_RUN), (c) => {
      for (const rec of [c.queries_baseline, c.queries_index])
        for (const [qi, q] of (rec?.queries ?? []).entries())
          for (const x of q.samples) x.counters = { ...(x.counters ?? {}), SelectedMarks: marks(c, x, qi) };
    });
    const base = makeRun(ownResults, 'flow-base', {
      startedAt: '2026-05-01T00:00:00.000Z',
      scheduleId: 'flow',
      status: 'completed',
    });
    fs.rmSync(base, { recursive: true });
    fs.cpSync(path.join(edited, FIXTURE_RUN), base, { recursive: true });
    const fixRunId = (dir: string, id: string, startedAt: string) => {
      const rf = path.join(dir, 'run.json');
      fs.writeFileSync(
        rf,
        JSON.stringify({
          ...JSON.parse(fs.readFileSync(rf, 'utf8')),
          runId: id,
          startedAt,
          scheduleId: 'flow',
          status: 'completed',
        }),
      );
    };
    fixRunId(base, 'flow-base', '2026-05-01T00:00:00.000Z');
    const TEST_FIGURE = 'test_result_rows_twice';
    const figures = SAMPLE_FIGURES as FigureDef[];
    figures.push({
      name: TEST_FIGURE,
      unit: 'rows',
      value: (x) => 2 * x.result_rows,
      source: () => 'test: 2 × client result rows',
    });
    let fdb: ResultsDb | undefined;
    try {
      fdb = await openResultsDb({ kind: 'embedded', dir: path.join(ownResults, 'db') });
      pids.push(embeddedResultsDbProcess(path.join(ownResults, 'db'))!.pid);
      // 1. The committed run: clickbench byte-identical, csv/jsonl = the fixture with the other figures' columns appended.
      await fdb.storeRun(path.join(ownResults, FIXTURE_RUN));
      const cbDir = path.join(own, 'cb');
      await cli('export', FIXTURE_RUN, '--format', 'clickbench', '--out', cbDir);
      for (const f of fs.readdirSync(path.join(EXPORT_FIXTURE, 'clickbench')))
        assert.equal(
          fs.readFileSync(path.join(cbDir, f), 'utf8'),
          fs.readFileSync(path.join(EXPORT_FIXTURE, 'clickbench', f), 'utf8'),
          f,
        );
      const extra = [...WORK_COUNTERS.map((c) => c.name), TEST_FIGURE];
      for (const [format, file] of [
        ['csv', 'samples.csv'],
        ['jsonl', 'samples.jsonl'],
      ] as const) {
        const out = (await cli('export', FIXTURE_RUN, '--format', format)).stdout;
        const added = assertExtends(out, fs.readFileSync(path.join(EXPORT_FIXTURE, file), 'utf8'), format);
        if (format === 'csv')
          assert.equal(
            added[0],
            extra.flatMap((x) => [x, `${x}_unit`, `${x}_source`, `${x}_unknown`].map((h) => `"${h}"`)).join(','),
          );
      }
      // 2. The edited run (invalid run, memory, a 0 read, SelectedMarks counters), stored over it.
      await fdb.storeRun(path.join(edited, FIXTURE_RUN));
      const cb = (await cli('export', FIXTURE_RUN, '--format', 'clickbench')).stdout;
      assert.equal(cb, fs.readFileSync(path.join(EXPORT_FIXTURE, 'edited.clickbench.json'), 'utf8'));
      const csv = (await cli('export', FIXTURE_RUN, '--format', 'csv')).stdout;
      assertExtends(csv, fs.readFileSync(path.join(EXPORT_FIXTURE, 'edited.csv'), 'utf8'), 'csv');
      const jsonl = (await cli('export', FIXTURE_RUN, '--format', 'jsonl')).stdout;
      assertExtends(jsonl, fs.readFileSync(path.join(EXPORT_FIXTURE, 'edited.jsonl'), 'utf8'), 'jsonl');
      const cells = fixtureCells();
      const lines = jsonl
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      assert.equal(lines.length, perRun);
      for (const l of lines) {
        const c = cells.find((x) => x.cellKey === l.cell_key)!;
        const qi = (l.phase === 'baseline' ? c.queries_baseline : c.queries_index)!.queries.findIndex(
          (q) => q.id === l.query_id,
        );
        assert.deepEqual(
          [l.SelectedMarks, l.SelectedMarks_unit, l.SelectedMarks_source, l.SelectedMarks_unknown],
          [
            marks(c, { n: 0, kind: '' }, qi),
            'marks',
            `${c.queries_baseline!.queries[0].samples[0].counters_source} SelectedMarks`,
            null,
          ],
          JSON.stringify(l),
        );
        assert.deepEqual(
          [l[TEST_FIGURE], l[`${TEST_FIGURE}_unit`], l[`${TEST_FIGURE}_source`]],
          [2 * Number(l.result_rows), 'rows', 'test: 2 × client result rows'],
        );
        // A counter the run did not record: null, with why.
        assert.equal(l.SelectedParts, null);
        assert.match(String(l.SelectedParts_unknown), /not recorded/);
      }
      const [head, ...rest] = csv.trim().split('\n');
      // Counted from the end (a quoted field before it may hold a comma).
      const heads = head.split(',');
      const fromEnd = heads.length - heads.indexOf('"SelectedMarks"');
      assert.ok(fromEnd < heads.length);
      assert.deepEqual(
        rest.map((r) => Number(r.split(',').at(-fromEnd))),
        lines.map((l) => l.SelectedMarks),
      );
      // 3. Grafana: the figure variable lists both; the figure panel gives their warm medians.
      const dash = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'manifests', 'grafana-dashboard.json'), 'utf8')) as {
        panels: { id: number; targets: { rawSql: string }[] }[];
        templating: { list: { name: string; query?: string }[] };
      };
      const names = (
        await fdb.query<{ figure: string }>(dash.templating.list.find((v) => v.name === 'figure')!.query!)
      ).map((r) => r.figure);
      assert.ok(names.includes('SelectedMarks') && names.includes(TEST_FIGURE), names.join(', '));
      const panel = dash.panels.find((p) => p.targets[0].rawSql.includes('${figure}'))!;
      const sqlOf = (figure: string) =>
        panel.targets[0].rawSql
          .replaceAll('${figure}', figure)
          .replace(/\$__timeFilter\(([^)]+)\)/g, '($1 >= toDateTime(946684800) AND $1 <= toDateTime(4102444800))');
      const pts = await fdb.query<{ series: string; warm_median: number }>(sqlOf('SelectedMarks'));
      const q1 = cells[0].queries_baseline!.queries[0].id;
      assert.deepEqual(
        pts.filter((p) => p.series.startsWith(`${q1} baseline `)).map((p) => [p.series, Number(p.warm_median)]),
        cells.map((c) => [`${q1} baseline ${c.matrix.codec} (marks)`, marks(c, { n: 0, kind: '' }, 0)]).sort(),
      );
      assert.ok((await fdb.query(sqlOf(TEST_FIGURE))).length > 0);
      // 4. The baseline lookup: the previous successful run of the schedule, read back with every figure,
      //    and the comparison against it (chbench compare) compares SelectedMarks as work.
      const next = makeRun(ownResults, 'flow-next', {
        startedAt: '2026-06-01T00:00:00.000Z',
        scheduleId: 'flow',
        status: 'completed',
      });
      fs.rmSync(next, { recursive: true });
      fs.cpSync(base, next, { recursive: true });
      fixRunId(next, 'flow-next', '2026-06-01T00:00:00.000Z');
      await fdb.storeRun(base);
      await fdb.storeRun(next);
      const prev = await fdb.previousSuccessfulRun('flow', '2026-06-01T00:00:00.000Z');
      assert.equal(prev?.run_id, 'flow-base');
      const looked = await fdb.samples(prev.run_id);
      assert.equal(looked.length, perRun);
      for (const x of looked) {
        assert.equal(x.figures?.SelectedMarks?.unit, 'marks');
        assert.ok(Number(x.figures?.SelectedMarks?.value) > 0, JSON.stringify(x.figures?.SelectedMarks));
        assert.deepEqual(x.figures?.[TEST_FIGURE], {
          value: 2 * x.result_rows,
          unit: 'rows',
          source: 'test: 2 × client result rows',
          unknown: null,
        });
      }
      const cmp = await runCompare('flow-base', 'flow-next', { resultsDir: ownResults, json: true });
      const qs = cmp.record!.pairs.flatMap((p) => p.queries);
      assert.ok(
        qs.length > 0 && qs.every((q) => q.work?.compared.includes('SelectedMarks')),
        JSON.stringify(qs[0]?.work),
      );
      assert.ok(qs.every((q) => q.work?.verdict === 'work unchanged'));
    } finally {
      figures.splice(
        figures.findIndex((f) => f.name === TEST_FIGURE),
        1,
      );
      await fdb?.close();
    }
  });

  it('opens the same engine as a server database; a missing password variable is named', async () => {
    const proc = embeddedResultsDbProcess(dbDir)!;
    // Its password, as a team's server's would be given: the name of a variable holding it.
    process.env.CHBENCH_TEST_RESULTS_PW = serverCredential(dbDir);
    const srv = await openResultsDb({
      kind: 'server',
      url: proc.url,
      database: 'chbench',
      passwordEnv: 'CHBENCH_TEST_RESULTS_PW',
    });
    try {
      assert.match(srv.description, /^http:\/\/127\.0\.0\.1:\d+ database chbench$/);
      assert.equal((await srv.run('nightly-1'))?.schedule_id, 'nightly');
      assert.equal((await srv.samples('nightly-1')).length, perRun);
      // A server read carries readonly=2; the embedded kind does not send it, and it does not stick to the shared session.
      assert.deepEqual(await srv.query("SELECT toString(getSetting('readonly')) AS r"), [{ r: '2' }]);
      assert.deepEqual(await db.query("SELECT toString(getSetting('readonly')) AS r"), [{ r: '0' }]);
      await assert.rejects(
        srv.queryText("SELECT 1 INTO OUTFILE '/tmp/x.csv'", 'CSVWithNames'),
        /refused: INTO OUTFILE/,
      );
    } finally {
      await srv.close();
    }
    delete process.env.CHBENCH_TEST_NO_SUCH_PASSWORD;
    await assert.rejects(
      openResultsDb({
        kind: 'server',
        url: proc.url,
        database: 'chbench',
        passwordEnv: 'CHBENCH_TEST_NO_SUCH_PASSWORD',
      }),
      /CHBENCH_TEST_NO_SUCH_PASSWORD is not set/,
    );
  });

  it('two openers share one engine process, which exits by itself after its idle period', async () => {
    const dir = path.join(tmp, 'idle', 'db');
    dbDirs.push(dir);
    // Two openers at once on a fresh directory: one engine process (start.lock), both work.
    const [d, e] = await Promise.all([
      openResultsDb({ kind: 'embedded', dir, idleExitS: 1 }),
      openResultsDb({ kind: 'embedded', dir, idleExitS: 1 }),
    ]);
    assert.equal(d.description, e.description);
    assert.deepEqual(await e.query('SELECT count() AS n FROM runs'), [{ n: 0 }]);
    await e.close();
    const pid = embeddedResultsDbProcess(dir)!.pid;
    pids.push(pid);
    await d.close();
    await pollUntil(
      () => {
        try {
          process.kill(pid, 0);
          return false;
        } catch {
          return true;
        }
      },
      { what: `idle engine pid ${pid} to exit`, timeoutMs: 20_000, intervalMs: 100 },
    );
    assert.match(fs.readFileSync(path.join(dir, 'server.log'), 'utf8'), /idle for 1 s: stopping/);
  });

  it('results sql stays inside the database, stops slow statements, prints one-line errors; busy → exit 3', async () => {
    const cli = (...args: string[]) => run(process.execPath, [CLI, ...args], { cwd: tmp, maxBuffer: 32 << 20 });
    const sql = (q: string, ...more: string[]) =>
      cli('results', 'sql', q, '--results-dir', resultsDir, ...more).then(
        (r) => ({ code: 0, ...r }),
        (e: { code: number; stdout: string; stderr: string }) => e,
      );
    const outfile = path.join(tmp, 'outfile.csv');
    for (const [q, why] of [
      [`SELECT 1 INTO OUTFILE '${outfile}'`, /INTO OUTFILE/],
      ['SELECT 1 SETTINGS readonly=0', /readonly/],
      ["SELECT * FROM file('/etc/hostname', 'LineAsString')", /table function file /],
      ["SELECT * FROM s3Cluster('c', 'http://127.0.0.1:1/x')", /table function s3Cluster /],
    ] as const) {
      const r = await sql(q);
      assert.equal(r.code, 2, q);
      assert.match(r.stderr, why, q);
    }
    assert.ok(!fs.existsSync(outfile), 'INTO OUTFILE wrote nothing');
    const bad = await sql('SELECT nosuch FROM runs');
    assert.equal(bad.code, 1);
    assert.match(
      bad.stderr,
      /^chbench: results database .*Code 47 \(UNKNOWN_IDENTIFIER\): Unknown expression identifier/,
    );
    assert.equal(bad.stderr.trim().split('\n').length, 1, `one line: ${bad.stderr}`);
    const slowSql = 'SELECT sum(sleepEachRow(0.5)) FROM numbers(8) SETTINGS max_block_size = 1';
    const slow = await sql(slowSql, '--max-execution-time', '1');
    assert.equal(slow.code, 1, slow.stderr);
    assert.match(slow.stderr, /Code 159 \(TIMEOUT_EXCEEDED\)/);

    // While an ~8 s statement holds the one embedded engine, a client that waits 1 s is told the database is busy.
    const holding = db.query('SELECT sum(sleepEachRow(0.5)) FROM numbers(16) SETTINGS max_block_size = 1');
    await new Promise((r) => setTimeout(r, 300));
    const openShort = () => openResultsDb({ kind: 'embedded', dir: dbDir }, { requestTimeoutMs: 1000 });
    const [opened, busy] = await Promise.all([
      openShort().then(
        () => undefined,
        (e: Error) => e,
      ),
      runCompare('nightly-1', 'nightly-2', { resultsDir }, openShort),
    ]);
    assert.ok(opened instanceof ResultsDbUnavailableError, String(opened));
    assert.match(opened.message, /^results database busy or unreachable: /);
    assert.equal(busy.code, COMPARE_EXIT.undecided, busy.stderr.join('\n'));
    assert.match(busy.stderr.join('\n'), /results database busy or unreachable/);
    await holding;
  });

  it('run ids in folder form (":" as "_") work for import, export and compare; a run is not compared with itself', async () => {
    const cli = (...args: string[]) => run(process.execPath, [CLI, ...args], { cwd: tmp, maxBuffer: 32 << 20 });
    const real = 'q1-2026-11-30T14:16:43Z';
    const folder = 'q1-2026-11-30T14_16_43Z';
    const src = path.join(tmp, 'colon');
    makeRun(src, real, { startedAt: '2026-11-30T14:16:43.000Z', scheduleId: 'q1', status: 'completed' });
    fs.renameSync(path.join(src, real), path.join(src, folder));
    const imp = await cli('results', 'import', path.join(src, folder), '--results-dir', resultsDir);
    assert.match(imp.stdout, new RegExp(`stored ${real} \\(folder ${folder}\\)`));
    assert.equal(await db.resolveRunId(folder), real);
    assert.equal(await db.resolveRunId(real), real);
    assert.equal(await db.resolveRunId('q1-2026-11-30T14_16_44Z'), undefined);
    const jsonl = await cli('export', folder, '--format', 'jsonl', '--results-dir', resultsDir);
    assert.equal(jsonl.stdout.trim().split('\n').length, perRun);
    assert.ok(jsonl.stdout.includes(`"run_id":"${real}"`));
    const open = () => openResultsDb({ kind: 'embedded', dir: dbDir });
    const cmp = await runCompare('nightly-1', folder, { resultsDir, json: true }, open);
    assert.notEqual(cmp.code, COMPARE_EXIT.invalid, cmp.stderr.join('\n'));
    assert.equal(cmp.record?.run_id, real);
    // --spec: the results directory is the spec's own resultsDir (here not the default `results`).
    const specFile = path.join(tmp, 'compare-spec.yaml');
    fs.writeFileSync(
      specFile,
      `name: s\nworkload: logs\nscale: 1000\ntarget: { kind: embedded }\nmatrix: { version: ['26.7'], codec: [LZ4] }\nresultsDir: ${JSON.stringify(resultsDir)}\n`,
    );
    const bySpec = await runCompare('nightly-1', folder, { resultsDir: 'results', spec: specFile, json: true });
    assert.notEqual(bySpec.code, COMPARE_EXIT.invalid, bySpec.stderr.join('\n'));
    assert.equal(bySpec.record?.run_id, real);
    const badSpec = await runCompare('nightly-1', folder, { resultsDir, spec: path.join(tmp, 'none.yaml') });
    assert.equal(badSpec.code, COMPARE_EXIT.invalid);
    assert.match(badSpec.stderr.join('\n'), /--spec .*none\.yaml: cannot read spec/);
    for (const [a, b] of [
      ['nightly-1', 'nightly-1'],
      [folder, real],
    ]) {
      const same = await runCompare(a, b, { resultsDir }, open);
      assert.equal(same.code, COMPARE_EXIT.invalid);
      assert.match(same.stderr.join('\n'), /itself|same run/);
    }
  });

  it('a reusable cell (schema 6) matches only on the same version, cell spec, workload files, host kind and target kind, in another run', async () => {
    const HOST = {
      id: 'h',
      hostname: 'h',
      taskQueue: 'q@h',
      cpuModel: 'CPU X',
      cores: 2,
      memoryBytes: 1024,
      kernel: 'Linux 6',
    };
    const dir = path.join(tmp, 'reuse', 'reuse-1');
    fs.cpSync(FIXTURE, dir, { recursive: true });
    const rf = path.join(dir, 'run.json');
    const r = JSON.parse(fs.readFileSync(rf, 'utf8')) as RunRecord;
    const workload_files = { name: r.spec.workload, sha256: 'w1', files: {} };
    fs.writeFileSync(rf, JSON.stringify({ ...r, runId: 'reuse-1', workload_files }));
    for (const k of r.cells) {
      const cf = path.join(dir, 'cells', k, 'result.json');
      const c = JSON.parse(fs.readFileSync(cf, 'utf8')) as CellResult;
      fs.writeFileSync(cf, JSON.stringify({ ...c, runId: 'reuse-1', cell_spec_sha256: `spec-${k}`, host: HOST }));
    }
    // Its own database: the suite's shared one counts runs.
    const dbAt = path.join(tmp, 'reuse', 'db');
    dbDirs.push(dbAt);
    const db = await openResultsDb({ kind: 'embedded', dir: dbAt });
    try {
      await db.storeRun(dir);
      await db.storeRun(path.join(resultsDir, FIXTURE_RUN));
      const [cell] = r.cells;
      const version = (await db.cells('reuse-1')).find((c) => c.cell_key === cell)!.version_label;
      const q = {
        version,
        cellSpecSha256: `spec-${cell}`,
        workloadSha256: 'w1',
        hostKind: 'CPU X × 2 cores, 1024 bytes',
        targetKind: 'embedded',
        notRunId: 'other',
      };
      assert.deepEqual(await db.reusableCell(q), { run_id: 'reuse-1', cell_key: cell });
      for (const [field, value] of [
        ['version', '0.0'],
        ['cellSpecSha256', 'spec-other'],
        ['workloadSha256', 'w2'],
        ['hostKind', 'CPU X × 4 cores, 1024 bytes'],
        ['targetKind', 'docker'],
        ['notRunId', 'reuse-1'],
      ] as const)
        assert.equal(await db.reusableCell({ ...q, [field]: value }), undefined, `${field} differs`);
      // The fixture's own run (stored before the hashes were recorded: nulls) never matches.
      assert.equal(
        (await db.cells(FIXTURE_RUN)).every((c) => c.cell_spec_sha256 === null && c.host_kind === null),
        true,
      );
    } finally {
      await db.close();
    }
  });

  it('a bisect row (schema 7) is stored once per run: storing it again replaces it, and it reads back as written', async () => {
    const report = {
      runId: 'bisect-row-1',
      query: 'q1',
      metric: 'read_rows',
      versions: ['23.10', '24.8', '25.8'],
      steps: [],
      outcome: { bracket: ['23.10', '24.8'] as [string, string], cellsRun: 3, skipped: [] },
      cellsNew: 2,
      reusedCells: [{ cellKey: 'v25.8-lz4', runId: 'other', fromCell: 'v25.8-lz4', matched: 'm' }],
    };
    const row = bisectRow(report, {
      good: '23.10',
      bad: '25.8',
      verdict: 'engine code (defaults pinned, still changed)',
      cellsRun: 3,
      storedAt: '2026-12-03T06:00:00.000Z',
    });
    const db = await openResultsDb({ kind: 'embedded', dir: dbDir });
    try {
      await db.storeBisect(row);
      await db.storeBisect({ ...row, verdict: 'could not attribute: retried', stored_at: '2026-12-03T06:00:01.000Z' });
      const rows = await db.bisects('bisect-row-1');
      assert.equal(rows.length, 1, 'a retried store replaces the row');
      assert.deepEqual(rows[0], {
        ...row,
        verdict: 'could not attribute: retried',
        stored_at: '2026-12-03T06:00:01.000Z',
      });
      assert.equal(rows[0].first_changed, '24.8');
      assert.equal(rows[0].cells_reused, 1);
      assert.deepEqual(JSON.parse(rows[0].record_json).outcome.bracket, ['23.10', '24.8']);
    } finally {
      await db.close();
    }
  });
});

function fx(): CellResult[] {
  return fixtureCells();
}
