/**
 * Unit layer (no server): the results schema against records captured from a real run
 * (`test/fixtures/results/embedded-26.7`: `npm run demo`, embedded target, ClickHouse 26.7, cells
 * LZ4 and ZSTD(3); the LZ4 cell keeps every step file), the report rendered from them, clear errors on
 * broken or foreign files, and the flat samples.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../../src/config';
import * as R from '../../src/schema/results';
import { readRecord, readRecordIfExists, writeRunSamples } from '../../src/results/store';
import { fmtMs, renderReport } from '../../src/results/report';
import { flatSamples, RUN_METRICS, toJsonLines } from '../../src/results/samples';
import type { z } from 'zod';
// Shapes declared outside the schema that must stay the same as the records' (compile-time check below).
import type { PreviousAttempts } from '../../src/activities/support/attempts';
import type { ServerInfo } from '../../src/schema/cell';
import type { TargetHandle } from '../../src/schema/target';

const RUN = path.join(REPO_ROOT, 'test', 'fixtures', 'results', 'embedded-26.7');
const CELL = path.join(RUN, 'cells', 'v26.7-lz4');

// Compile-time: the record schemas and the interfaces the measuring code uses describe the same JSON.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameShapes: [
  Same<R.PreviousAttempts, PreviousAttempts>,
  Same<R.ServerRecord, ServerInfo>,
  // A recorded target's kind is any string (results outlive target kinds): a handle is a record.
  TargetHandle extends R.TargetRecord ? true : false,
] = [true, true, true];
void sameShapes;

const STEP_FILES: [string, z.ZodType][] = [
  ['probe.json', R.CapabilityProbe],
  ['settings.json', R.CellSettings],
  ['provision.json', R.ProvisionRecord],
  ['schema.json', R.SchemaRecord],
  ['metrics-start.json', R.MetricsSnapshot],
  ['metrics-end.json', R.MetricsSnapshot],
  ['load.json', R.LoadRecord],
  ['quiesce-after-load.json', R.QuiesceRecord],
  ['quiesce-after-index.json', R.QuiesceRecord],
  ['storage.json', R.StorageRecord],
  ['queries-baseline.json', R.QueriesRecord],
  ['index.json', R.IndexRecord],
  ['queries-index.json', R.QueriesRecord],
  ['teardown.json', R.TeardownRecord],
  ['result.json', R.CellResult],
];

/** A copy of the fixture run in a temporary directory, with `edit` applied to the LZ4 cell's result.json. */
function brokenCopy(edit: (doc: Record<string, any>) => void): { dir: string; file: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chbench-results-'));
  cpSync(RUN, dir, { recursive: true });
  const file = path.join(dir, 'cells', 'v26.7-lz4', 'result.json');
  const doc = JSON.parse(readFileSync(file, 'utf8'));
  edit(doc);
  writeFileSync(file, JSON.stringify(doc));
  return { dir, file };
}

test('every fixture record parses with its schema, losing no field', () => {
  for (const [f, schema] of STEP_FILES) {
    const raw = JSON.parse(readFileSync(path.join(CELL, f), 'utf8'));
    const parsed = readRecord(path.join(CELL, f), schema);
    // Parsing strips unknown keys: equal to the file means the schema knows every field written.
    assert.deepEqual(parsed, raw, `${f}: the schema drops or changes a field`);
  }
  const run = readRecord(path.join(RUN, 'run.json'), R.RunRecord);
  assert.deepEqual(run, JSON.parse(readFileSync(path.join(RUN, 'run.json'), 'utf8')));
  assert.deepEqual(run.cells, ['v26.7-lz4', 'v26.7-zstd3']);
  assert.equal(readRecord(path.join(RUN, 'cells', 'v26.7-zstd3', 'result.json'), R.CellResult).matrix.codec, 'ZSTD(3)');
  assert.equal(readRecordIfExists(path.join(CELL, 'no-such.json'), R.LoadRecord), undefined);
});

test('the report rendered from the fixture is the one the run wrote, with the fixture figures', () => {
  const md = renderReport(RUN);
  assert.equal(md, readFileSync(path.join(RUN, 'report.md'), 'utf8'));
  const lz4 = readRecord(path.join(CELL, 'result.json'), R.CellResult);
  const q1 = lz4.queries_baseline!.queries.find((q) => q.id === 'q1')!;
  // Queries table, LZ4 columns: cold, warm min (the spec's statistic), warm median, read_rows.
  const row = md.split('\n').find((l) => l.startsWith('| q1 '))!;
  const cols = row.split('|').map((c) => c.trim());
  assert.equal(cols[2], fmtMs(q1.stats.cold_ms, q1.stats.resolution_ms));
  assert.equal(cols[3], fmtMs(q1.stats.warm_min_ms, q1.stats.resolution_ms));
  assert.equal(cols[3], '7.32 ms');
  assert.equal(cols[4], fmtMs(q1.stats.warm_median_ms, q1.stats.resolution_ms));
  assert.equal(cols[5], q1.stats.read_rows!.toLocaleString('en-US'));
  // Compression table: LZ4 ratio from storage.json.
  const comp = md.split('\n').find((l) => l.startsWith('| v26.7-lz4 ') && l.includes('×'))!;
  assert.ok(comp.includes(`${lz4.storage!.ratio!.toFixed(2)}×`), comp);
});

test('a field of the wrong type fails naming the file, the schema id and the field', () => {
  const { dir, file } = brokenCopy((d) => (d.queries_baseline.queries[0].stats.cold_ms = '12.5'));
  try {
    assert.throws(
      () => readRecord(file, R.CellResult),
      (e: Error) => {
        assert.ok(e.message.startsWith(`${file} (chbench.cell-result/v1): `), e.message);
        assert.match(e.message, /queries_baseline\.queries\[0\]\.stats\.cold_ms: expected number, got string/);
        return true;
      },
    );
    assert.throws(
      () => renderReport(dir),
      /result\.json \(chbench\.cell-result\/v1\): queries_baseline\.queries\[0\]\.stats\.cold_ms: expected number, got string/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a missing field and a bad enum value are named too', () => {
  const { dir, file } = brokenCopy((d) => {
    delete d.load.rows_in_table;
    d.queries_index.queries[0].samples[2].kind = 'lukewarm';
  });
  try {
    assert.throws(
      () => readRecord(file, R.CellResult),
      (e: Error) => {
        assert.match(e.message, /load\.rows_in_table: expected number, got nothing \(field missing\)/);
        assert.match(e.message, /queries_index\.queries\[0\]\.samples\[2\]\.kind: /);
        return true;
      },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a result of another schema id fails saying which id it has and which it wants', () => {
  const { dir, file } = brokenCopy((d) => (d.schema = 'chbench.cell-result/v0'));
  try {
    assert.throws(
      () => readRecord(file, R.CellResult),
      /schema id "chbench\.cell-result\/v0", expected "chbench\.cell-result\/v1"/,
    );
    assert.throws(() => renderReport(dir), /schema id "chbench\.cell-result\/v0", expected "chbench\.cell-result\/v1"/);
    writeFileSync(file, JSON.stringify({ hello: 'world' }));
    assert.throws(() => readRecord(file, R.CellResult), /schema id missing, expected "chbench\.cell-result\/v1"/);
    writeFileSync(file, '{"schema": ');
    assert.throws(() => readRecord(file, R.CellResult), /not valid JSON/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('flatSamples: one line per figure of each measured run, with its metadata', () => {
  const r = readRecord(path.join(CELL, 'result.json'), R.CellResult);
  const run = readRecord(path.join(RUN, 'run.json'), R.RunRecord);
  const samples = flatSamples(r, { chbench: run.chbench });
  for (const s of samples) R.FlatSample.parse(s);
  const runs = [r.queries_baseline!, r.queries_index!].flatMap((p) => p.queries.flatMap((q) => q.samples));
  assert.equal(runs.length, 30, '6 query steps × (1 cold + 1 warm-up + 3 warm)');
  // Embedded target: no query_log, so no memory_usage; every other run metric is measured.
  const perRun = RUN_METRICS.filter((m) => m !== 'memory_usage');
  const runLines = samples.filter((s) => ['cold', 'warm', 'warmup'].includes(s.metadata.kind));
  assert.equal(runLines.length, runs.length * perRun.length);
  assert.deepEqual([...new Set(runLines.map((s) => s.metric))], perRun);
  assert.deepEqual(
    samples.filter((s) => s.metadata.kind === 'load').map((s) => s.metric),
    ['load_wall_time', 'load_server_elapsed', 'load_rows_per_s'],
  );
  assert.deepEqual(
    samples.filter((s) => s.metadata.kind === 'storage').map((s) => s.metric),
    ['bytes_on_disk', 'compressed_bytes', 'uncompressed_bytes', 'compression_ratio'],
  );
  assert.equal(samples.length, runLines.length + 3 + 4);

  // One known sample: q1's second warm run in the baseline, server-side elapsed.
  const rec = r
    .queries_baseline!.queries.find((q) => q.id === 'q1')!
    .samples.find((s) => s.kind === 'warm' && s.n === 2)!;
  const line = samples.find(
    (s) =>
      s.metric === 'server_elapsed' &&
      s.metadata.query === 'q1' &&
      s.metadata.phase === 'baseline' &&
      s.metadata.kind === 'warm' &&
      s.metadata.try === 2,
  )!;
  assert.equal(line.value, rec.server_elapsed_ms);
  assert.equal(line.unit, 'ms');
  assert.equal(line.timestamp, Date.parse(r.written_at) / 1000);
  assert.deepEqual(line.metadata, {
    run: r.runId,
    cell: 'v26.7-lz4',
    version_label: '26.7',
    version: r.provision!.server.version,
    codec: 'LZ4',
    target: 'embedded',
    workload: 'logs',
    scale: 2_000_000,
    query: 'q1',
    phase: 'baseline',
    kind: 'warm',
    try: 2,
    query_id: rec.query_id,
    cold_valid: null,
    quiet_valid: rec.validity.quiet.valid,
    source: rec.server_elapsed_source,
    chbench_version: '0.1.0',
    chbench_commit: run.chbench.commit,
    server_resolution_ms: 0.000001,
  });
  // The report's figure for the run (q1's headline clock is server-side here), with the same resolution.
  const chosen = samples.find((s) => s.metric === 'elapsed' && s.metadata.query_id === rec.query_id)!;
  assert.equal(chosen.value, rec.server_elapsed_ms);
  assert.equal(chosen.metadata.source, rec.server_elapsed_source);
  assert.equal(chosen.metadata.server_resolution_ms, 0.000001);
  const load = samples.find((s) => s.metric === 'load_rows_per_s')!;
  assert.equal(load.value, r.load!.rows_per_s);
  assert.equal(load.metadata.query_id, r.load!.query_id);
  const cold = samples.find(
    (s) => s.metadata.kind === 'cold' && s.metadata.query === 'q3' && s.metric === 'read_rows',
  )!;
  const coldRec = r.queries_baseline!.queries.find((q) => q.id === 'q3')!.samples.find((s) => s.kind === 'cold')!;
  assert.equal(cold.value, coldRec.read_rows);
  assert.equal(cold.metadata.cold_valid, coldRec.validity.cold?.valid ?? null);
});

test('flatSamples writes no line for an unknown figure (null), and picks up query_log memory_usage', () => {
  const r = readRecord(path.join(CELL, 'result.json'), R.CellResult);
  const s0 = r.queries_baseline!.queries[0].samples[0];
  s0.server_elapsed_ms = null;
  s0.query_log = { memory_usage: '1048576' };
  const lines = flatSamples(r, { chbench: null }).filter((s) => s.metadata.query_id === s0.query_id);
  assert.deepEqual(
    lines.map((s) => s.metric),
    ['elapsed', 'wall_time', 'read_rows', 'read_bytes', 'result_rows', 'result_bytes', 'memory_usage'],
  );
  // No server time: the report's figure is the client wall time, so labelled.
  assert.equal(lines[0].value, s0.wall_ms);
  assert.match(lines[0].metadata.source, /^client wall time/);
  assert.equal(lines.at(-1)!.value, 1048576);
  assert.equal(lines[0].metadata.chbench_version, null);
});

test("writeRunSamples concatenates the cells' samples.jsonl in run.json order", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chbench-samples-'));
  try {
    cpSync(RUN, dir, { recursive: true });
    const perCell: Record<string, string> = {};
    for (const k of ['v26.7-lz4', 'v26.7-zstd3']) {
      const r = readRecord(path.join(dir, 'cells', k, 'result.json'), R.CellResult);
      perCell[k] = toJsonLines(flatSamples(r, { chbench: null }));
      writeFileSync(path.join(dir, 'cells', k, 'samples.jsonl'), perCell[k]);
    }
    const file = writeRunSamples(dir, ['v26.7-zstd3', 'v26.7-lz4', 'v26.7-missing']);
    const text = readFileSync(file, 'utf8');
    assert.equal(text, perCell['v26.7-zstd3'] + perCell['v26.7-lz4']);
    for (const l of text.trimEnd().split('\n')) R.FlatSample.parse(JSON.parse(l));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
