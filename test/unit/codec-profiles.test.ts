/**
 * Codec profiles without a server (issue 13, sections 1, 2 and 6): the spec's codec axis, cell keys,
 * per-column rendering of `{{codec}}`, the read-back comparison, and what `chbench validate` refuses
 * from a workload's files alone. Test workloads: test/fixtures/workloads (CHBENCH_SQL_ROOT).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { parseRunSpec } from '../../src/schema/run-spec';
import { cellInputs, cellKey, expandMatrix } from '../../src/schema/matrix';
import { cellCodecProfile } from '../../src/schema/cell';
import { checkSpec } from '../../src/targets/check-spec';
import {
  declaredCodecs,
  loadWorkload,
  renderTemplate,
  templateColumns,
  workloadProblems,
} from '../../src/lib/workload';
import { codecMatches, parseCodecChain } from '../../src/clickhouse/codec-check';
import { appliedTableSettings } from '../../src/measure/schema-check';
import { shownTableSettings } from '../../src/clickhouse/show-create';
import { REPO_ROOT } from '../../src/config';
import { settingsCheck } from '../../src/measure/figures';

const FIXTURES = path.join(REPO_ROOT, 'test', 'fixtures');
let saved: string | undefined;
before(() => {
  saved = process.env.CHBENCH_SQL_ROOT;
  process.env.CHBENCH_SQL_ROOT = FIXTURES;
});
after(() => {
  if (saved === undefined) delete process.env.CHBENCH_SQL_ROOT;
  else process.env.CHBENCH_SQL_ROOT = saved;
});

const spec = (workload: string, codec: unknown[]) => ({
  name: 'codec-test',
  workload,
  scale: 1000,
  target: { kind: 'embedded' },
  matrix: { version: ['26.7'], codec },
});

test('any codec expression and a named per-column profile are accepted; cell keys of 0.6.0 codecs are unchanged', () => {
  const s = parseRunSpec(
    spec('codecs', [
      'LZ4',
      'ZSTD(3)',
      'ZSTD(4)',
      'LZ4HC(9)',
      'T64',
      'Delta, ZSTD(3)',
      { name: 'delta-zstd', default: 'ZSTD(1)', columns: { ts: 'Delta, ZSTD(1)' } },
    ]),
  );
  assert.deepEqual(expandMatrix(s).map(cellKey), [
    'v26.7-lz4',
    'v26.7-zstd3',
    'v26.7-zstd4',
    'v26.7-lz4hc9',
    'v26.7-t64',
    'v26.7-delta-zstd3',
    'v26.7-delta-zstd',
  ]);
  const cells = cellInputs(s, 'r', []);
  // A plain expression travels as before (no codecProfile in the cell input); a profile carries its columns.
  assert.equal(cells[1].codec, 'ZSTD(3)');
  assert.equal('codecProfile' in cells[1], false);
  assert.deepEqual(cells[6].codecProfile, { default: 'ZSTD(1)', columns: { ts: 'Delta, ZSTD(1)' } });
  assert.deepEqual(cellCodecProfile(cells[6]), {
    name: 'delta-zstd',
    default: 'ZSTD(1)',
    columns: { ts: 'Delta, ZSTD(1)' },
  });
  assert.deepEqual(cellCodecProfile(cells[5]), { name: 'Delta, ZSTD(3)', default: 'Delta, ZSTD(3)', columns: {} });
});

test('the example specs keep their cell keys', () => {
  const demo = parseRunSpec(JSON.parse(readFileSync(path.join(REPO_ROOT, 'examples', 'demo.json'), 'utf8')));
  assert.deepEqual(expandMatrix(demo).map(cellKey), ['v26.7-lz4', 'v26.7-zstd3']);
  for (const c of ['LZ4HC', 'ZSTD(1)', 'ZSTD(6)', 'ZSTD(9)', 'NONE'])
    assert.equal(cellKey({ version: '24.8', codec: c }), `v24.8-${c.toLowerCase().replace(/[()]/g, '')}`);
});

test('two profiles that would share a cell key are refused', () => {
  const r = checkSpec(spec('codecs', ['Delta, ZSTD(3)', 'Delta,ZSTD(3)']));
  assert.ok(
    r.problems.some((p) => p.startsWith('matrix.codec:') && /distinct names/.test(p)),
    r.problems.join('\n'),
  );
});

test('{{codec}} renders each column its own codec from the profile', () => {
  const m = loadWorkload('codecs');
  const ddl = renderTemplate('codecs', m.schema, {
    table: 't',
    rows: 1,
    codec: { name: 'p', default: 'ZSTD(1)', columns: { ts: 'Delta, ZSTD(1)' } },
  });
  assert.match(ddl, /id UInt64 CODEC\(ZSTD\(1\)\),/);
  assert.match(ddl, /ts DateTime CODEC\(Delta, ZSTD\(1\)\),/);
  assert.match(ddl, /v Int32 CODEC\(ZSTD\(1\)\)\n/);
  // LZ4 is the server default: no clause at all.
  const lz4 = renderTemplate('codecs', m.schema, { table: 't', rows: 1, codec: 'LZ4' });
  assert.doesNotMatch(lz4, /CODEC/);
  // Several columns on one line: each placeholder takes the column it ends.
  const one = renderTemplate(
    'trivial',
    'schema.sql',
    { table: 't', rows: 1, codec: { name: 'p', default: 'LZ4', columns: { n: 'T64, LZ4' } } },
    path.join(REPO_ROOT, 'sql'),
  );
  assert.match(one, /\(n UInt64 CODEC\(T64, LZ4\)\)/);
  assert.deepEqual(
    [...declaredCodecs(readFileSync(path.join(FIXTURES, 'workloads', 'no-codec', 'schema.sql'), 'utf8'), 'ZSTD(3)')],
    [
      ['id', 'ZSTD(3)'],
      ['ts', 'ZSTD(3)'],
      ['v', 'ZSTD(3)'],
    ],
  );
  assert.deepEqual(
    templateColumns(
      'CREATE TABLE x (a UInt8 CODEC(ZSTD(1)), b String{{codec}}, INDEX i b TYPE set(0) GRANULARITY 1) ENGINE = Log',
    ),
    [
      { name: 'a', placeholder: false, fixed: 'ZSTD(1)' },
      { name: 'b', placeholder: true },
    ],
  );
});

test('validate refuses a schema without {{codec}} when the spec asks for more than the default codec', () => {
  const r = checkSpec(spec('no-codec', ['LZ4', 'ZSTD(3)']));
  assert.ok(
    r.problems.some(
      (p) =>
        p.startsWith('matrix.codec:') &&
        p.includes('no {{codec}} placeholder') &&
        p.includes('"ZSTD(3)"') &&
        p.includes('no-codec'),
    ),
    r.problems.join('\n'),
  );
  // The LZ4 cell alone is honest without the placeholder.
  assert.deepEqual(checkSpec(spec('no-codec', ['LZ4'])).problems, []);
  assert.deepEqual(checkSpec(spec('codecs', ['LZ4', 'ZSTD(3)'])).problems, []);
  // An override must name a column of the schema.
  const o = checkSpec(spec('codecs', [{ name: 'p', columns: { timestamp: 'Delta, ZSTD(1)' } }]));
  assert.ok(
    o.problems.some((p) => p.includes('timestamp') && p.includes('does not have')),
    o.problems.join('\n'),
  );
});

test('validate checks the workload\u2019s files and placeholders without a server', () => {
  const probs = workloadProblems('broken');
  assert.ok(
    probs.some((p) => p.includes('schema.sql: unknown placeholder {{codecs}}')),
    probs.join('\n'),
  );
  assert.ok(
    probs.some((p) => p.includes('q1.sql: {{codec:nosuch}} names a column the schema does not have')),
    probs.join('\n'),
  );
  assert.ok(
    probs.some((p) => p.includes('query q2 file missing.sql is missing')),
    probs.join('\n'),
  );
  const r = checkSpec(spec('broken', ['LZ4']));
  assert.equal(r.problems.filter((p) => p.startsWith('workload broken:')).length, 3, r.problems.join('\n'));
  assert.deepEqual(workloadProblems('codecs'), []);
  assert.deepEqual(workloadProblems('logs', path.join(REPO_ROOT, 'sql')), []);
});

test('a copied workload folder that kept the old name is refused (its steps would read two workloads)', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'chbench-copied-workload-'));
  try {
    cpSync(path.join(REPO_ROOT, 'sql', 'workloads', 'trivial'), path.join(root, 'workloads', 'mine'), {
      recursive: true,
    });
    const why = /workload mine: .*says name: trivial; a workload's name must be its folder's name \(set name: mine\)/;
    assert.ok(
      workloadProblems('mine', root).some((p) => why.test(p)),
      workloadProblems('mine', root).join('\n'),
    );
    assert.throws(() => loadWorkload('mine', root), why);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('a read-back codec matches the declared expression, with the server\u2019s filled-in defaults', () => {
  assert.deepEqual(parseCodecChain('CODEC(Delta(4), ZSTD(1))'), [
    { name: 'Delta', args: ['4'] },
    { name: 'ZSTD', args: ['1'] },
  ]);
  assert.equal(codecMatches('Delta, ZSTD(1)', 'CODEC(Delta(4), ZSTD(1))'), true);
  assert.equal(codecMatches('ZSTD(3)', 'CODEC(ZSTD(3))'), true);
  assert.equal(codecMatches('LZ4', ''), true);
  assert.equal(codecMatches('ZSTD(3)', ''), false);
  assert.equal(codecMatches('ZSTD(3)', 'CODEC(ZSTD(1))'), false);
  assert.equal(codecMatches('LZ4', 'CODEC(ZSTD(1))'), false);
  assert.equal(codecMatches('T64, LZ4', 'CODEC(T64, LZ4)'), true);
});

test('table settings count as applied only as the server shows them', () => {
  const shown = shownTableSettings(
    "CREATE TABLE default.t (`n` UInt64) ENGINE = MergeTree ORDER BY n SETTINGS index_granularity = 8192, min_bytes_for_wide_part = 0, storage_policy = 'default'",
  );
  assert.deepEqual(shown, { index_granularity: '8192', min_bytes_for_wide_part: '0', storage_policy: 'default' });
  assert.deepEqual(
    appliedTableSettings({ min_bytes_for_wide_part: 0, index_granularity: 1024, merge_max_block_size: 10 }, shown),
    {
      applied: { min_bytes_for_wide_part: 0 },
      not_shown: {
        index_granularity: 'the server shows index_granularity = 8192',
        merge_max_block_size: 'not in the SETTINGS of SHOW CREATE TABLE',
      },
    },
  );
});

test('a run\u2019s settings count as applied only as its query_log row shows them', () => {
  const sent = { max_threads: 2, use_query_cache: 0, min_bytes_to_use_direct_io: 1 };
  // Newer servers: a Settings map; a sent setting missing from it, or with another value, is not applied.
  assert.deepEqual(settingsCheck(sent, { Settings: { max_threads: '2', use_query_cache: '1' } }), {
    source: 'system.query_log.Settings',
    applied: { max_threads: '2' },
    not_shown: {
      use_query_cache: 'query_log shows 1',
      min_bytes_to_use_direct_io:
        'not in the run\u2019s query_log Settings (servers may list only settings that differ from their default)',
    },
  });
  // 18.16: two arrays.
  assert.deepEqual(
    settingsCheck({ max_threads: 2 }, { 'Settings.Names': ['max_threads'], 'Settings.Values': ['2'] }).applied,
    { max_threads: '2' },
  );
  assert.match(settingsCheck(sent, { query_id: 'x' }).source, /^not available on this server/);
});

test('issue 21 item 1: validate refuses MergeTree settings given anywhere for a schema without {{settings}}', () => {
  // The manifest's own tableSettings.
  const m = checkSpec(spec('no-settings', ['LZ4']));
  assert.equal(m.problems.length, 1, m.problems.join('\n'));
  assert.match(
    m.problems[0],
    /^workload no-settings: manifest\.yaml tableSettings: MergeTree setting\(s\) min_bytes_for_wide_part would not reach the table: the schema of workload no-settings has no \{\{settings\}\} placeholder/,
  );
  // The spec's settings.mergeTree, and a matrix.settings profile's mergeTree, for a workload with none of its own.
  const base = spec('no-settings-spec', ['LZ4']);
  assert.deepEqual(checkSpec(base).problems, []);
  assert.deepEqual(checkSpec({ ...base, settings: { query: { max_threads: 1 } } }).problems, []);
  const s = checkSpec({ ...base, settings: { mergeTree: { min_bytes_for_wide_part: 0 } } });
  assert.deepEqual(s.problems.length, 1, s.problems.join('\n'));
  assert.match(
    s.problems[0],
    /^settings\.mergeTree: MergeTree setting\(s\) min_bytes_for_wide_part would not reach the table/,
  );
  const p = checkSpec({
    ...base,
    matrix: {
      ...base.matrix,
      settings: [
        { name: 'wide', mergeTree: { min_bytes_for_wide_part: 0 } },
        { name: 'q', query: { max_threads: 2 } },
      ],
    },
  });
  assert.deepEqual(p.problems.length, 1, p.problems.join('\n'));
  assert.match(
    p.problems[0],
    /^matrix\.settings profile "wide" mergeTree: MergeTree setting\(s\) min_bytes_for_wide_part would not reach/,
  );
  // A schema that has {{settings}} is not refused.
  assert.deepEqual(
    checkSpec({ ...spec('codecs', ['LZ4']), settings: { mergeTree: { index_granularity: 1024 } } }).problems,
    [],
  );
});

test('issue 21 item 7: validate refuses a query ending in its own FORMAT clause, not a column named format', () => {
  const r = checkSpec(spec('format-query', ['LZ4']));
  assert.equal(r.problems.length, 1, r.problems.join('\n'));
  assert.match(
    r.problems[0],
    /^workload format-query: query q2 \(with-format\.sql\): it ends with FORMAT JSON, but chbench sends every query with its own output format/,
  );
  assert.deepEqual(workloadProblems('format-query').length, 1);
});
