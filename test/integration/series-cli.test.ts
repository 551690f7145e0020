/**
 * `chbench series` against a real results database: an embedded database (the chdb engine in its own
 * process) filled by the store (`ResultsDb.storeRun`) with 12 runs of a schedule built from the
 * committed fixture `test/fixtures/results/embedded-26.7`, whose q2 warm runs are 15 % slower from
 * the 7th run on (every query with 2 % seeded noise per run), and 3 runs of a second schedule. The CLI
 * runs as `node dist/src/cli.js` child processes. Every engine process started here is stopped in `after`.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import seedrandom from 'seedrandom';
import { openResultsDb, stopEmbeddedResultsDb, type ResultsDb } from '../../src/results/db';
import { figureSeries } from '../../src/results/db/figure-series';
import type { CellResult, RunRecord } from '../../src/schema/results';
import { REPO_ROOT } from '../../src/config';

const run = promisify(execFile);
const FIXTURE = path.join(REPO_ROOT, 'test', 'fixtures', 'results', 'embedded-26.7');
const CLI = path.join(REPO_ROOT, 'dist', 'src', 'cli.js');
const RUNS = 12;
/** Index of the first slower run. */
const STEP_AT = 6;
const STEP = 1.15;

/** Run `id` of `scheduleId`, copied from the fixture, every warm/cold time × `factor(query)`. */
function makeRun(
  resultsDir: string,
  id: string,
  scheduleId: string,
  startedAt: string,
  factor: (q: string) => number,
): string {
  const dir = path.join(resultsDir, id);
  fs.cpSync(FIXTURE, dir, { recursive: true });
  const rf = path.join(dir, 'run.json');
  const r = JSON.parse(fs.readFileSync(rf, 'utf8')) as RunRecord;
  fs.writeFileSync(rf, JSON.stringify({ ...r, runId: id, startedAt, scheduleId, status: 'completed' }));
  for (const k of r.cells) {
    const cf = path.join(dir, 'cells', k, 'result.json');
    const c = JSON.parse(fs.readFileSync(cf, 'utf8')) as CellResult;
    c.runId = id;
    for (const phase of [c.queries_baseline, c.queries_index])
      for (const q of phase?.queries ?? [])
        for (const s of q.samples) {
          const f = factor(q.id);
          if (s.server_elapsed_ms !== null) s.server_elapsed_ms *= f;
          s.wall_ms *= f;
        }
    fs.writeFileSync(cf, JSON.stringify(c));
  }
  return dir;
}

describe('chbench series on a real results database', { timeout: 300_000 }, () => {
  let tmp: string;
  let resultsDir: string;
  let dbDir: string;
  let db: ResultsDb;
  const cli = (...args: string[]) => run(process.execPath, [CLI, 'series', ...args], { cwd: tmp, maxBuffer: 32 << 20 });

  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-series-'));
    resultsDir = path.join(tmp, 'results');
    dbDir = path.join(resultsDir, 'db');
    db = await openResultsDb({ kind: 'embedded', dir: dbDir });
    const rng = seedrandom('series-cli');
    const noise = () => Math.exp(0.02 * Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng()));
    for (let i = 0; i < RUNS; i++) {
      const n: Record<string, number> = {};
      const dir = makeRun(
        resultsDir,
        `quarterly-${String(i + 1).padStart(2, '0')}`,
        'quarterly',
        new Date(Date.UTC(2024, 3 * i, 1, 6)).toISOString(),
        (q) => {
          n[q] ??= noise();
          return n[q]! * (q === 'q2' && i >= STEP_AT ? STEP : 1);
        },
      );
      await db.storeRun(dir);
    }
    for (let i = 0; i < 3; i++)
      await db.storeRun(
        makeRun(
          resultsDir,
          `weekly-${i + 1}`,
          'weekly',
          new Date(Date.UTC(2026, 10, 1 + 7 * i, 6)).toISOString(),
          () => 1,
        ),
      );
  });

  after(async () => {
    await db?.close();
    await stopEmbeddedResultsDb(dbDir);
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('the figure series reader gives one warm median per run, with its source, oldest first', async () => {
    const pts = await figureSeries(db, { scheduleId: 'quarterly' }, 'warm', { query: 'q2' });
    const lz4 = pts.filter((p) => p.cell_key === 'v26.7-lz4' && p.phase === 'baseline');
    assert.equal(lz4.length, RUNS);
    assert.deepEqual(
      lz4.map((p) => p.run_id),
      Array.from({ length: RUNS }, (_, i) => `quarterly-${String(i + 1).padStart(2, '0')}`),
    );
    for (const p of lz4) {
      assert.equal(p.from_figure, 'server_elapsed_ms');
      assert.equal(p.unit, 'ms');
      assert.equal(p.runs, 3, 'three valid warm runs');
      assert.ok(p.sources.length === 1 && p.sources[0]!.length > 0, `a source: ${p.sources.join(', ')}`);
    }
    const before = lz4.slice(0, STEP_AT).map((p) => p.value!);
    const after = lz4.slice(STEP_AT).map((p) => p.value!);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const rel = mean(after) / mean(before) - 1;
    assert.ok(rel > 0.08 && rel < 0.22, `the stored step is about 15 % (${rel})`);
  });

  it('prints the series of a schedule with the change point of q2 at the 7th run, and none for read_rows', async () => {
    const { stdout } = await cli('quarterly', '--query', 'q2', '--db', dbDir);
    assert.match(
      stdout,
      /^series of schedule quarterly: 12 run\(s\) from 2024-01-01T06:00:00Z to 2026-10-01T06:00:00Z, figure warm \(median of the run's valid warm runs, ms/,
    );
    const blocks = stdout.split('\n\n').filter((b) => /^q2 · cell /.test(b));
    assert.ok(blocks.length >= 2, 'one series per cell and phase');
    const lz4 = stdout.slice(stdout.indexOf('q2 · cell v26.7-lz4 · before the skip index · warm (12 run(s))'));
    assert.ok(lz4.length < stdout.length, 'the lz4 series is printed');
    const own = lz4.slice(0, lz4.indexOf('\nq2 · cell', 10) > 0 ? lz4.indexOf('\nq2 · cell', 10) : undefined);
    for (let i = 1; i <= RUNS; i++)
      assert.match(
        own,
        new RegExp(`quarterly-${String(i).padStart(2, '0')} \\| 20\\d\\d-\\d\\d-01T06:00:00Z \\| completed \\|`),
      );
    assert.match(own, /\| +ms +\| server_elapsed_ms, median of 3 run\(s\): \S/);
    assert.match(
      own,
      /change points \(1; E-divisive means, permutation test \(199 shuffles, seed 1\), α 0\.05; 12 runs\)/,
    );
    assert.match(
      own,
      /\| +6 \| quarterly-07 \| 2025-07-01T06:00:00Z \| +\d+\.\d → \d+\.\d \| +\+1\d\.\d % \| +0\.0\d\d \| E-divisive means \|/,
    );
    assert.match(own, /drift: (yes|no) \(Mann-Kendall trend test with Sen's slope, α 0\.05: S = \d+/);

    const rows = await cli('quarterly', '--query', 'q2', '--figure', 'read_rows', '--results-dir', resultsDir);
    assert.match(rows.stdout, /figure read_rows/);
    assert.match(rows.stdout, /\| +576,000 \| rows +\| read_rows, median of 3 run\(s\): /);
    assert.match(rows.stdout, /change points: none \(E-divisive means/);
    assert.doesNotMatch(rows.stdout, /quarterly-07 \| 2025-07-01T06:00:00Z \| +\d/, 'no change point row');
  });

  it('says so when a series has fewer runs than the method needs; unknown names and bad figures exit 2', async () => {
    const { stdout } = await cli('weekly', '--query', 'q1', '--db', dbDir);
    assert.match(
      stdout,
      /change points: not tested, 3 run\(s\): change points need at least 8 runs, a drift at least 5/,
    );
    assert.match(stdout, /drift: not tested, 3 run\(s\) \(Mann-Kendall needs at least 5\)/);

    const workload = await cli('logs', '--query', 'q1', '--limit', '40', '--db', dbDir);
    assert.match(workload.stdout, /^series of workload logs: 15 run\(s\)/);

    await assert.rejects(cli('monthly', '--db', dbDir), (e: { code: number; stderr: string }) => {
      assert.equal(e.code, 2);
      assert.match(
        e.stderr,
        /no stored run of a schedule or workload named monthly .*schedules: quarterly \(12\), weekly \(3\); workloads: logs \(15\)/,
      );
      return true;
    });
    await assert.rejects(cli('quarterly', '--figure', 'hot', '--db', dbDir), (e: { code: number; stderr: string }) => {
      assert.equal(e.code, 2);
      assert.match(e.stderr, /--figure hot: expected one of warm, cold, server_elapsed_ms/);
      return true;
    });
  });
});
