/**
 * The load grids in report.md, from a real run of the grids demo (test/fixtures/results/grids-26.7:
 * 18 insert points, 5 concurrency steps on the embedded engine): both tables, the knee, the async
 * note; and what an unverified or client-bound point looks like.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../../src/config';
import { loadRun, renderReport } from '../../src/results/report';
import { gridsOutcome, steppingOutcome } from '../../src/results/report-grids';
import { ConcurrencyGridSpec } from '../../src/schema/grids';
import { ConcurrencyStepRecord, InsertPointRecord, type CellResult } from '../../src/schema/results';

const FIXTURE = path.join(REPO_ROOT, 'test', 'fixtures', 'results', 'grids-26.7');

test('report.md shows both grids of the demo run: every point and step, the knee and the async note', () => {
  const md = renderReport(FIXTURE);
  const section = (h: string) => md.slice(md.indexOf(h), md.indexOf('\n## ', md.indexOf(h) + 1));
  const ins = section('## Insert grid');
  const rows = ins.split('\n').filter((l) => /^\| [\d,]+ +\| \d/.test(l));
  assert.equal(rows.length, 18);
  assert.ok(rows.every((l) => l.includes('yes (100,000 rows)')));
  assert.match(
    ins,
    /async: async_insert=1 requested; the server ran the inserts synchronously \(system\.events AsyncInsertQuery \+0\)/,
  );
  const conc = section('## Concurrency stepping');
  assert.equal(conc.split('\n').filter((l) => /^\| \d+ +\| [\d.]+ /.test(l)).length, 5);
  assert.match(conc, /Knee: \*\*1 client\*\* — QPS fell [\d.]+ % from 1 to 2 clients/);
  assert.match(conc, /Stepping ended: all steps ran\./);
  assert.match(conc, /The embedded engine runs one statement at a time/);
  // The fixture's steps were recorded before completions were counted: their QPS says so.
  assert.match(
    conc,
    /- QPS of these steps was recorded before completions were counted: it counts only queries that started and finished in the window/,
  );
  assert.doesNotMatch(md, /\d ⚠ (delayed|rejected|retried|short window)/, 'nothing in the demo run was throttled');

  const { run, cells } = loadRun(FIXTURE);
  assert.deepEqual(gridsOutcome(cells, run.spec), {
    insertPoints: 18,
    insertVerified: 18,
    insertFlagged: 0,
    concurrencySteps: 5,
    stepsFlagged: 0,
    knees: [1],
  });
});

test('an unverified or client-bound point says so in its row and below the table', () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'chbench-report-grids-'));
  try {
    cpSync(FIXTURE, tmp, { recursive: true });
    const file = path.join(tmp, 'cells', 'v26.7-lz4', 'result.json');
    const r = JSON.parse(readFileSync(file, 'utf8')) as CellResult;
    const p = r.grids!.insert[0];
    p.summary.verified = false;
    p.verification.verified = false;
    p.verification.reasons = ['count() 99,000 ≠ expected 100,000'];
    p.summary.clientBound = true;
    p.cpu.reason = 'the worker process used 0.97 cores (process.cpuUsage), ≥ 0.9: its JavaScript thread was saturated';
    writeFileSync(file, JSON.stringify(r));
    const md = renderReport(tmp);
    assert.match(md, /\*\*NO\*\* — count\(\) 99,000 ≠ expected 100,000 +\| \*\*yes\*\* +\|/);
    assert.match(md, /- ⚠ b1000-c1-sync-rowbinary: client-bound — the worker process used 0\.97 cores/);
    const { run, cells } = loadRun(tmp);
    assert.equal(gridsOutcome(cells, run.spec).insertVerified, 17);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test("the stepping outcome is derived again from the records with the workflow's own rules", () => {
  const { run, cells } = loadRun(FIXTURE);
  const g = ConcurrencyGridSpec.parse(run.spec.grids!.concurrency);
  const steps = cells[0].grids!.concurrency;
  // Cut after two steps: the workflow would have gone on, so the record says the cell ended early.
  assert.match(steppingOutcome(steps.slice(0, 2), g).stopReason, /stopped after 2 of 5 steps/);
  // A step with errors above the threshold ends stepping there.
  const failing = structuredClone(steps.slice(0, 3));
  failing[2].summary.errors = Math.ceil(failing[2].summary.requests * 0.05);
  assert.match(steppingOutcome(failing, g).stopReason, /^errors: 5\.\d % of requests failed at 4 clients/);
});

test('the grid records real runs wrote parse with the full record schemas, and no field is left out of them', () => {
  const raw = JSON.parse(readFileSync(path.join(FIXTURE, 'cells', 'v26.7-lz4', 'result.json'), 'utf8')) as {
    grids: { insert: unknown[]; concurrency: unknown[] };
  };
  assert.equal(raw.grids.insert.length, 18);
  assert.equal(raw.grids.concurrency.length, 5);
  // The schemas strip unknown keys: a field the writer sends but the schema lacks would vanish here.
  for (const r of raw.grids.insert) assert.deepEqual(InsertPointRecord.parse(r), r);
  for (const r of raw.grids.concurrency) assert.deepEqual(ConcurrencyStepRecord.parse(r), r);
  // A record missing a field it always had fails with the field named.
  const broken = structuredClone(raw.grids.insert[0]) as { verification: Record<string, unknown> };
  delete broken.verification.expected;
  assert.throws(() => InsertPointRecord.parse(broken), /expected/);
});
