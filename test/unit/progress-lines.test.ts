/**
 * Rows-read progress lines (issue 21, item 14): rows read can exceed the server's estimate
 * (`system.processes.total_rows_approx`); the line then says "N rows read (estimate M)", never a
 * percentage over 100 (before: "2 / 1 rows read (200.0 %)" in the statement watcher's heartbeat,
 * "2 / 1 rows read (100 %)" in the CLI's line from raw heartbeat details).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rowsReadText } from '../../src/schema/progress';
import { heartbeatLine } from '../../src/temporal/progress';

test('rows read over the estimate: "2 rows read (estimate 1)"; within it, a percentage; without one, the count', () => {
  assert.equal(rowsReadText(2, 1), '2 rows read (estimate 1)');
  assert.equal(rowsReadText(2_500_000, 10_000_000), '2,500,000 / 10,000,000 rows read (25.0 %)');
  assert.equal(rowsReadText(1, 1), '1 / 1 rows read (100.0 %)');
  assert.equal(rowsReadText(7, 0), '7 rows read');
  assert.equal(rowsReadText(7, undefined), '7 rows read');
  assert.equal(heartbeatLine({ rows_read: 2, total_rows: 1 }), '2 rows read (estimate 1)');
  assert.equal(heartbeatLine({ rows_read: 1, total_rows: 4 }), '1 / 4 rows read (25 %)');
});
