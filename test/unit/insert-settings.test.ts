/**
 * The load's insert settings and written_rows, read as each version does them
 * (`src/clickhouse/insert-settings.ts`), on `system.settings` rows as the real 24.8, 26.3, 26.9 and
 * 18.16 servers print them (checked on the builds, see the module's table).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  effectiveInsertSettings,
  loadInsertAdditions,
  writtenRows,
  type InsertSettingsRow,
  type WrittenRowsInput,
} from '../../src/clickhouse/insert-settings';

const rows = (async_: string, wait: string, threads: string): InsertSettingsRow[] => [
  { name: 'max_insert_threads', value: threads, changed: 0 },
  { name: 'async_insert', value: async_, changed: 0 },
  { name: 'wait_for_async_insert', value: wait, changed: 0 },
];
const DEFAULT = 'server default (system.settings, changed = 0)';

test('insert settings in effect: value and source per setting; absent = not a setting of this version', () => {
  assert.deepEqual(effectiveInsertSettings(rows('0', '1', '0'), {}), {
    async_insert: { value: '0', source: DEFAULT },
    wait_for_async_insert: { value: '1', source: DEFAULT },
    max_insert_threads: { value: '0', source: DEFAULT },
  });
  // 26.9 prints the automatic thread count as auto(N).
  assert.equal(effectiveInsertSettings(rows('1', '1', 'auto(2)'), {}).max_insert_threads.value, 'auto(2)');
  // Sent by the spec, or set in the server's profile.
  const sent = effectiveInsertSettings(
    [
      { name: 'max_insert_threads', value: '4', changed: 1 },
      { name: 'async_insert', value: '1', changed: '1' },
    ],
    { max_insert_threads: 4 },
  );
  assert.deepEqual(sent.max_insert_threads, { value: '4', source: 'sent with the INSERT (load settings)' });
  assert.deepEqual(sent.async_insert, {
    value: '1',
    source: 'server profile or configuration (system.settings, changed = 1)',
  });
  // 18.16 has no async inserts at all.
  assert.deepEqual(effectiveInsertSettings([{ name: 'max_insert_threads', value: '0', changed: 0 }], {}).async_insert, {
    value: null,
    source: 'not a setting of this version (absent from system.settings)',
  });
});

test('the load adds async_insert = 0 only where async inserts are on and the spec did not choose', () => {
  // 24.8 / 25.8: off by default, nothing added.
  assert.deepEqual(loadInsertAdditions(effectiveInsertSettings(rows('0', '1', '0'), {}), {}), {
    settings: {},
    notes: [],
  });
  // 26.3+: on by default.
  const on = loadInsertAdditions(effectiveInsertSettings(rows('1', '1', '0'), {}), {});
  assert.deepEqual(on.settings, { async_insert: 0 });
  assert.match(
    on.notes[0],
    /^async_insert is 1 on this server \(server default \(system\.settings, changed = 0\)\); the load sends async_insert = 0/,
  );
  // The spec asked for async inserts: kept, but the INSERT waits for its rows.
  const asked = loadInsertAdditions(effectiveInsertSettings(rows('1', '0', '0'), { async_insert: 1 }), {
    async_insert: 1,
  });
  assert.deepEqual(asked.settings, { wait_for_async_insert: 1 });
  assert.match(asked.notes[0], /wait_for_async_insert = 1/);
  assert.deepEqual(
    loadInsertAdditions(effectiveInsertSettings(rows('1', '1', '0'), { async_insert: 1 }), { async_insert: 1 })
      .settings,
    {},
  );
  // 18.16: nothing to add (sending an unknown setting would be refused).
  assert.deepEqual(loadInsertAdditions(effectiveInsertSettings([], {}), {}).settings, {});
});

const base: WrittenRowsInput = {
  summary: null,
  summaryUnmeasured: [],
  queryLog: null,
  insertedRowsDelta: null,
  eventsAreTheStatements: false,
  count: 1000,
  asyncInsert: '0',
  duplicatedBlocks: 0,
};

test('written_rows: the summary, else query_log, else the InsertedRows difference; a 0 is unknown; count() is the truth', () => {
  assert.deepEqual(writtenRows({ ...base, summary: 1000 }), {
    value: 1000,
    source: 'http summary written_rows',
    check: 'written_rows (http summary written_rows) = count()',
  });
  // The engine server measures none for INSERT … SELECT: the events difference, each passed-over source named.
  const embedded = writtenRows({
    ...base,
    summaryUnmeasured: ['written_rows', 'result_rows'],
    insertedRowsDelta: 1000,
    eventsAreTheStatements: true,
  });
  assert.equal(embedded.value, 1000);
  assert.equal(embedded.source, 'system.events InsertedRows difference around the INSERT');
  assert.match(embedded.unknown!, /X-Chbench-Unmeasured/);
  // 0 reported under async insert: not a figure.
  const zero = writtenRows({ ...base, summary: 0, asyncInsert: '1', queryLog: 0, insertedRowsDelta: 0 });
  assert.equal(zero.value, null);
  assert.match(zero.check, /^not available: http summary written_rows 0 \(0 reported while async_insert = 1/);
  assert.match(zero.unknown!, /system\.query_log written_rows 0/);
  // query_log fills in where the summary said nothing.
  assert.equal(writtenRows({ ...base, queryLog: 1000 }).source, 'system.query_log.written_rows');
  assert.match(
    writtenRows(base).check,
    /^not available: http summary: no written_rows sent; system\.events InsertedRows: not readable/,
  );
});

test('written_rows ≠ count(): explained by async inserts, deduplication or a server-wide counter (a note), else MISMATCH — never an error', () => {
  assert.match(
    writtenRows({ ...base, summary: 600, asyncInsert: '1' }).check,
    /^differs, explained: written_rows 600 \(http summary written_rows\) ≠ count\(\) 1000: async_insert = 1 was in effect/,
  );
  assert.match(
    writtenRows({ ...base, summary: 1500, duplicatedBlocks: 2 }).check,
    /^differs, explained: .*2 inserted blocks were dropped as duplicates/,
  );
  assert.match(
    writtenRows({ ...base, insertedRowsDelta: 1017 }).check,
    /^differs, explained: .*system\.events is server-wide/,
  );
  // On the embedded engine the difference is the statement's own: a difference is not explained by it.
  assert.match(
    writtenRows({ ...base, insertedRowsDelta: 1017, eventsAreTheStatements: true }).check,
    /^MISMATCH: written_rows 1017 .* nothing recorded explains it; count\(\) is the figure$/,
  );
});
