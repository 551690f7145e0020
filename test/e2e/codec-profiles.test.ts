/**
 * Codec profiles end to end (issue 13, section 2): the real Temporal dev server, the real worker and
 * the chdb engine run a matrix of codec expressions the 0.6.0 spec refused (`ZSTD(4)`, `T64`,
 * `Delta, ZSTD(3)`), a named per-column profile, and one profile the server refuses for the column
 * types (`Gorilla, ZSTD(1)` on integers). The report's per-column table shows each column's codec
 * as read back from the server. Test workload: test/fixtures/workloads/codecs.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startTemporalEnv, type TemporalEnv } from '../helpers/temporal-env';
import { REPO_ROOT } from '../../src/config';
import type { MatrixResult } from '../../src/workflows';
import type { CellResult } from '../../src/schema/results';

let env: TemporalEnv;
let savedRoot: string | undefined;
before(async () => {
  savedRoot = process.env.CHBENCH_SQL_ROOT;
  // The worker runs in this process: its activities read the test workloads.
  process.env.CHBENCH_SQL_ROOT = path.join(REPO_ROOT, 'test', 'fixtures');
  env = await startTemporalEnv('codec-profiles');
});
after(async () => {
  await env?.stop();
  if (savedRoot === undefined) delete process.env.CHBENCH_SQL_ROOT;
  else process.env.CHBENCH_SQL_ROOT = savedRoot;
});

test(
  'ZSTD(4), T64, Delta, ZSTD(3) and a per-column profile run on chdb; the report shows the codecs read back',
  { timeout: 600_000 },
  async () => {
    const runId = `codecs-${Date.now()}`;
    const handle = await env.client.workflow.start('benchmarkMatrix', {
      taskQueue: env.taskQueue,
      workflowId: runId,
      args: [
        {
          name: 'codecs',
          workload: 'codecs',
          scale: 50_000,
          target: { kind: 'embedded' },
          matrix: {
            version: ['26.7'],
            codec: [
              'ZSTD(4)',
              'T64',
              'Delta, ZSTD(3)',
              { name: 'mixed', default: 'ZSTD(1)', columns: { ts: 'DoubleDelta, ZSTD(1)', v: 'T64, LZ4' } },
              'Gorilla, ZSTD(1)',
            ],
          },
          protocol: { coldRuns: 0, warmupRuns: 0, warmRuns: 1, dropOsPageCache: false, quiesce: { stableForMs: 200 } },
          resultsDir: env.resultsDir,
        },
      ],
    });
    const r = (await handle.result()) as MatrixResult;
    assert.deepEqual(
      r.cells.map((c) => [c.cellKey, c.status]),
      [
        ['v26.7-zstd4', 'succeeded'],
        ['v26.7-t64', 'succeeded'],
        ['v26.7-delta-zstd3', 'succeeded'],
        ['v26.7-mixed', 'succeeded'],
        ['v26.7-gorilla-zstd1', 'failed'],
        // The A/A control: the codec axis's reference (the first codec) measured again.
        ['v26.7-zstd4-r2', 'succeeded'],
      ],
    );
    // The refused profile fails at provisioning, before anything is created, naming the column and codec.
    const refused = r.cells.find((c) => c.cellKey === 'v26.7-gorilla-zstd1')!;
    assert.match(
      refused.error ?? '',
      /codec profile "Gorilla, ZSTD\(1\)": ClickHouse 26\.7[\d.]* refuses CODEC\(Gorilla, ZSTD\(1\)\) on column id UInt64/,
    );
    const gorilla = JSON.parse(readFileSync(refused.resultFile, 'utf8')) as CellResult;
    assert.equal(gorilla.attempts.provision ?? 1, 1, 'not retried');

    const read = (key: string) =>
      JSON.parse(readFileSync(r.cells.find((c) => c.cellKey === key)!.resultFile, 'utf8')) as CellResult;
    const codecs = (key: string) => Object.fromEntries(read(key).storage!.columns!.map((c) => [c.column, c.codec]));
    assert.deepEqual(codecs('v26.7-zstd4'), { id: 'CODEC(ZSTD(4))', ts: 'CODEC(ZSTD(4))', v: 'CODEC(ZSTD(4))' });
    assert.deepEqual(codecs('v26.7-t64'), { id: 'CODEC(T64)', ts: 'CODEC(T64)', v: 'CODEC(T64)' });
    assert.deepEqual(codecs('v26.7-delta-zstd3'), {
      id: 'CODEC(Delta(8), ZSTD(3))',
      ts: 'CODEC(Delta(4), ZSTD(3))',
      v: 'CODEC(Delta(4), ZSTD(3))',
    });
    assert.deepEqual(codecs('v26.7-mixed'), {
      id: 'CODEC(ZSTD(1))',
      ts: 'CODEC(DoubleDelta, ZSTD(1))',
      v: 'CODEC(T64, LZ4)',
    });
    // The record of the claim: declared against read back, every column matching.
    const mixed = read('v26.7-mixed');
    assert.deepEqual(mixed.matrix, { version: '26.7', codec: 'mixed' });
    assert.ok(mixed.schema_ddl!.codecs!.columns.every((c) => c.matches));
    // Different codecs, different sizes: the profile reached the data.
    const size = (key: string) => read(key).storage!.compressed_bytes;
    assert.notEqual(size('v26.7-t64'), size('v26.7-zstd4'));

    const md = readFileSync(r.reportPath, 'utf8');
    const i = md.indexOf('## Per-column compression');
    const section = md.slice(i, md.indexOf('\n## ', i + 3));
    assert.match(section, /system\.columns\.compression_codec/);
    const header = section.split('\n').find((l) => l.startsWith('| column'))!;
    const cols = header.split('|').map((c) => c.trim());
    const row = (name: string) =>
      section
        .split('\n')
        .find((l) => l.startsWith(`| ${name} `))!
        .split('|')
        .map((c) => c.trim());
    const codecOf = (cell: string, column: string) => row(column)[cols.indexOf(`${cell} codec`)];
    assert.ok(cols.includes('v26.7-mixed codec'), header);
    assert.equal(codecOf('v26.7-mixed', 'ts'), 'DoubleDelta, ZSTD(1)');
    assert.equal(codecOf('v26.7-mixed', 'v'), 'T64, LZ4');
    assert.equal(codecOf('v26.7-delta-zstd3', 'id'), 'Delta(8), ZSTD(3)');
    assert.equal(codecOf('v26.7-t64', 'ts'), 'T64');
  },
);
