/**
 * The work comparison (src/measure/work.ts) on figures rows built, through the store's own figure
 * list (SAMPLE_FIGURES), from real 18.16 query_log rows (test/fixtures/measure/query-log-18.16.json).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { normaliseQueryLogRow } from '../../src/clickhouse/query-log';
import { queryLogCounters } from '../../src/measure/counters';
import { compareWork, workLabel } from '../../src/measure/work';
import { figureRows, SAMPLE_FIGURES, WORK_COUNTERS } from '../../src/results/db/rows';
import { workCell } from '../../src/results/report-comparison';
import type { StoredFigure, StoredSample } from '../../src/results/db/types';
import type { RunSample } from '../../src/schema/results';
import { queryLog1816 } from '../fixtures/measure';

/** The figures rows of one query_log row as the store writes them (kind and n from its query_id). */
function figuresOf(
  raw: Record<string, unknown>,
  runId: string,
  edit?: (c: Record<string, number | null>) => void,
): StoredFigure[] {
  const row = normaliseQueryLogRow(raw);
  const pe = row.ProfileEvents as Record<string, number>;
  const counters = queryLogCounters(pe, new Set(Object.keys(pe)));
  edit?.(counters);
  const [, kind, n] = /-(cold|warm)(\d+)-/.exec(String(row.query_id))!;
  const stored = {
    run_id: runId,
    cell_key: 'v18.16-lz4',
    phase: 'baseline',
    query_id: 'q3',
    kind,
    n: Number(n),
    server_elapsed_ms: Number(row.query_duration_ms),
    server_elapsed_source: 'system.query_log query_duration_ms',
    wall_ms: Number(row.query_duration_ms) + 1,
    read_rows: Number(row.read_rows),
    read_bytes: Number(row.read_bytes),
    read_source: 'system.query_log',
    result_rows: 1,
    result_bytes: 8,
  } as StoredSample;
  return figureRows(stored, { counters, counters_source: 'system.query_log ProfileEvents' } as unknown as RunSample);
}

test('figures rows of a real 18.16 query_log row: every work counter with its value, unit and source', () => {
  const f = figuresOf(queryLog1816().raw_rows[2], 'r1');
  assert.equal(f.length, SAMPLE_FIGURES.length);
  const by = Object.fromEntries(f.map((x) => [x.figure, [x.value, x.unit, x.source]]));
  assert.deepEqual(by.read_rows, [200000, 'rows', 'system.query_log']);
  assert.deepEqual(by.SelectedParts, [7, 'parts', 'system.query_log ProfileEvents SelectedParts']);
  assert.deepEqual(by.SelectedRanges, [7, 'ranges', 'system.query_log ProfileEvents SelectedRanges']);
  assert.deepEqual(by.SelectedMarks, [28, 'marks', 'system.query_log ProfileEvents SelectedMarks']);
  assert.deepEqual(by.ReadCompressedBytes, [8063025, 'bytes', 'system.query_log ProfileEvents ReadCompressedBytes']);
  for (const c of WORK_COUNTERS) assert.ok(f.some((x) => x.figure === c.name));
});

test('a counter the server lacks, a run recorded before the counter was read, and no per-run counters are n/a with the reason', () => {
  const raw = queryLog1816().raw_rows[2];
  const lacks = figuresOf(raw, 'r1', (c) => (c.SelectedRanges = null)).find((x) => x.figure === 'SelectedRanges')!;
  assert.deepEqual(
    [lacks.value, lacks.source, lacks.unknown],
    [null, null, 'n/a: the server does not have the counter SelectedRanges'],
  );
  const old = figuresOf(raw, 'r1', (c) => delete c.ReadCompressedBytes).find(
    (x) => x.figure === 'ReadCompressedBytes',
  )!;
  assert.match(old.unknown ?? '', /not recorded/);
  const stored = {
    run_id: 'r',
    cell_key: 'c',
    phase: 'baseline',
    query_id: 'q',
    kind: 'warm',
    n: 1,
    wall_ms: 3,
  } as StoredSample;
  const none = figureRows(stored, { counters: null, counters_source: null } as unknown as RunSample).find(
    (x) => x.figure === 'SelectedMarks',
  )!;
  assert.match(none.unknown ?? '', /no per-run counters/);
});

test('same work, different time (real runs 57 ms and 127 ms of the same q3): work unchanged; beside a regression, "time changed, work unchanged"', () => {
  const rows = queryLog1816().raw_rows;
  const w = compareWork(figuresOf(rows[0], 'a'), [...figuresOf(rows[1], 'b'), ...figuresOf(rows[2], 'b')]);
  assert.equal(w.verdict, 'work unchanged');
  assert.deepEqual(w.compared, [
    'read_rows',
    'read_bytes',
    'SelectedParts',
    'SelectedRanges',
    'SelectedMarks',
    'ReadCompressedBytes',
  ]);
  assert.equal(workLabel('regression', w), 'time changed, work unchanged');
  assert.equal(workLabel('unchanged', w), null);
});

test('fewer marks read on one side is a work change from a single run, whatever the time verdict', () => {
  const rows = queryLog1816().raw_rows;
  // The new side's row with the marks and compressed bytes a better primary key analysis would give (edited counts).
  const next = figuresOf(rows[2], 'b', (c) => {
    c.SelectedMarks = 10;
    c.ReadCompressedBytes = 2880000;
  });
  const w = compareWork(figuresOf(rows[0], 'a'), next);
  assert.equal(w.verdict, 'work change');
  assert.deepEqual(
    w.changed.map((d) => [d.figure, d.baseline, d.new, d.deciding]),
    [
      ['SelectedMarks', 28, 10, true],
      ['ReadCompressedBytes', 8063025, 2880000, false],
    ],
  );
  assert.match(w.reason, /bytes differ \(part format, not deciding\): ReadCompressedBytes 8063025 → 2880000/);
  // Bytes alone do not make a work change.
  const bytesOnly = compareWork(
    figuresOf(rows[0], 'a'),
    figuresOf(rows[2], 'b', (c) => (c.ReadCompressedBytes = 1)),
  );
  assert.equal(bytesOnly.verdict, 'work unchanged');
  assert.match(w.reason, /SelectedMarks 28 → 10 marks \(system\.query_log ProfileEvents SelectedMarks\)/);
  assert.equal(workLabel('unchanged', w), 'work change');
  // The compare table's work column names the figure (finding 8: it said only "work change").
  assert.equal(workCell({ ...w, label: 'work change' }), 'work change: SelectedMarks 28 → 10');
  const merged = compareWork(
    figuresOf(rows[0], 'a'),
    figuresOf(rows[2], 'b', (c) => {
      c.SelectedParts = Number(c.SelectedParts) + 1;
      c.SelectedRanges = Number(c.SelectedRanges) + 1;
    }),
  );
  const parts = merged.changed.find((d) => d.figure === 'SelectedParts')!;
  assert.equal(parts.new, parts.baseline! + 1);
  assert.equal(
    workCell({ ...merged, label: 'work change' }),
    `work change: SelectedParts ${parts.baseline} → ${parts.new}, +1 more (SelectedParts differs, read_rows equal: the same rows read from another set of parts)`,
  );
  assert.equal(compareWork([], next).verdict, 'work unknown');
});
