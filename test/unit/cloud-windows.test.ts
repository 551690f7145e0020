/**
 * CloudWatch's rules as chbench applies them (src/cloud/windows.ts), pure: minute alignment, the
 * partial newest minute, a sub-minute window that cannot be attributed, and empty ≠ zero.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  alignWindow,
  finalAt,
  maxPresent,
  meanPresent,
  planWindows,
  present,
  ratePerSecond,
  sumPresent,
  toMinuteSeries,
} from '../../src/cloud/windows';

const T0 = Date.UTC(2026, 10, 30, 12, 0, 0); // 12:00:00Z, a minute boundary
const at = (m: number, s = 0) => T0 + m * 60_000 + s * 1000;

test('alignWindow: start rounded down, end rounded up to the minute (12:32:34 → 12:32:00)', () => {
  assert.deepEqual(alignWindow(at(32, 34), at(35, 10)), { alignedStartMs: at(32), alignedEndMs: at(36) });
  // Already aligned: unchanged; the end is exclusive.
  assert.deepEqual(alignWindow(at(1), at(3)), { alignedStartMs: at(1), alignedEndMs: at(3) });
  // An empty window on a boundary still covers one period.
  assert.deepEqual(alignWindow(at(5), at(5)), { alignedStartMs: at(5), alignedEndMs: at(6) });
  // 5-minute periods (basic-monitoring EC2).
  assert.deepEqual(alignWindow(at(7, 5), at(8), 300), { alignedStartMs: at(5), alignedEndMs: at(10) });
  assert.throws(() => alignWindow(at(2), at(1)), RangeError);
  assert.throws(() => alignWindow(at(1), at(2), 0), RangeError);
});

test('planWindows: a 12 s window is not attributable, naming the steps that share its minute', () => {
  const steps = [
    { step: 'load', startMs: at(0, 5), endMs: at(3, 40) },
    { step: 'q1 cold #1', startMs: at(3, 41), endMs: at(3, 53) },
    { step: 'q1 warm #1', startMs: at(3, 54), endMs: at(3, 58) },
    { step: 'cell', startMs: at(0), endMs: at(4) },
  ];
  const [load, cold, warm, cell] = planWindows(steps, { nowMs: at(30) });
  assert.equal(cold.attributable, false);
  assert.equal(
    !cold.attributable && cold.reason,
    'not attributable: window 12 s < period 60 s, shared with load, q1 warm #1',
  );
  assert.equal(
    !warm.attributable && warm.reason,
    'not attributable: window 4 s < period 60 s, shared with load, q1 cold #1',
  );
  // The long load is attributable over 12:00–12:04, sharing its last minute with both runs; the
  // enclosing "cell" is not counted as a neighbour.
  assert.ok(load.attributable);
  assert.equal(load.alignedStartMs, at(0));
  assert.equal(load.alignedEndMs, at(4));
  assert.equal(load.periods, 4);
  assert.deepEqual(load.sharedWith, ['q1 cold #1', 'q1 warm #1']);
  assert.ok(Math.abs(load.coverage - 215 / 240) < 1e-12);
  assert.ok(cell.attributable);
  assert.deepEqual(cell.sharedWith, []);
  assert.equal(cell.partial, false);
});

test('planWindows: the newest minute is partial until the settle delay has passed; finalAt says when', () => {
  const steps = [{ step: 'load', startMs: at(0), endMs: at(2, 30) }];
  const before = planWindows(steps, { nowMs: at(4), settleMs: 120_000 })[0];
  assert.ok(before.attributable);
  assert.equal(before.partial, true);
  assert.equal(before.finalAtMs, at(5)); // aligned end 12:03 + 2 min
  assert.equal(finalAt([before], at(4)), at(5));
  const after = planWindows(steps, { nowMs: at(5), settleMs: 120_000 })[0];
  assert.ok(after.attributable);
  assert.equal(after.partial, false);
  assert.equal(finalAt([after], at(5)), at(5));
  // Default settle delay is 3 minutes.
  const d = planWindows(steps, { nowMs: at(5, 59) })[0];
  assert.ok(d.attributable && d.partial && d.finalAtMs === at(6));
});

test('empty is not zero: a minute without a data point is null, a 0 data point is 0', () => {
  // CloudWatch returned points for 12:00 (0 bytes) and 12:02 (6 MiB), none for 12:01; 12:05 is outside.
  const s = toMinuteSeries(at(0), at(3), 60, [at(2), at(0), at(5)], [6 * 1048576, 0, 99]);
  assert.deepEqual(s.timestampsMs, [at(0), at(1), at(2)]);
  assert.deepEqual(s.values, [0, null, 6 * 1048576]);
  assert.deepEqual(present(s), { withData: 2, of: 3 });
  assert.equal(sumPresent(s), 6 * 1048576);
  // Rate over the minutes with data only: 6 MiB / 120 s.
  assert.equal(ratePerSecond(s, 60), (6 * 1048576) / 120);

  const none = toMinuteSeries(at(0), at(3), 60, [], []);
  assert.deepEqual(none.values, [null, null, null]);
  assert.equal(sumPresent(none), null);
  assert.equal(ratePerSecond(none, 60), null);
  assert.equal(meanPresent(none), null);
  assert.equal(maxPresent(none), null);

  const zeros = toMinuteSeries(at(0), at(2), 60, [at(0), at(1)], [0, 0]);
  assert.equal(sumPresent(zeros), 0);
  assert.equal(ratePerSecond(zeros, 60), 0);
});
