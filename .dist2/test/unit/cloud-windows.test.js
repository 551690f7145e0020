"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * CloudWatch's rules as chbench applies them (src/cloud/windows.ts), pure: minute alignment, the
 * partial newest minute, a sub-minute window that cannot be attributed, and empty ≠ zero.
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const windows_1 = require("../../src/cloud/windows");
const T0 = Date.UTC(2026, 10, 30, 12, 0, 0); // 12:00:00Z, a minute boundary
const at = (m, s = 0) => T0 + m * 60_000 + s * 1000;
(0, node_test_1.test)('alignWindow: start rounded down, end rounded up to the minute (12:32:34 → 12:32:00)', () => {
    strict_1.default.deepEqual((0, windows_1.alignWindow)(at(32, 34), at(35, 10)), { alignedStartMs: at(32), alignedEndMs: at(36) });
    // Already aligned: unchanged; the end is exclusive.
    strict_1.default.deepEqual((0, windows_1.alignWindow)(at(1), at(3)), { alignedStartMs: at(1), alignedEndMs: at(3) });
    // An empty window on a boundary still covers one period.
    strict_1.default.deepEqual((0, windows_1.alignWindow)(at(5), at(5)), { alignedStartMs: at(5), alignedEndMs: at(6) });
    // 5-minute periods (basic-monitoring EC2).
    strict_1.default.deepEqual((0, windows_1.alignWindow)(at(7, 5), at(8), 300), { alignedStartMs: at(5), alignedEndMs: at(10) });
    strict_1.default.throws(() => (0, windows_1.alignWindow)(at(2), at(1)), RangeError);
    strict_1.default.throws(() => (0, windows_1.alignWindow)(at(1), at(2), 0), RangeError);
});
(0, node_test_1.test)('planWindows: a 12 s window is not attributable, naming the steps that share its minute', () => {
    const steps = [
        { step: 'load', startMs: at(0, 5), endMs: at(3, 40) },
        { step: 'q1 cold #1', startMs: at(3, 41), endMs: at(3, 53) },
        { step: 'q1 warm #1', startMs: at(3, 54), endMs: at(3, 58) },
        { step: 'cell', startMs: at(0), endMs: at(4) },
    ];
    const [load, cold, warm, cell] = (0, windows_1.planWindows)(steps, { nowMs: at(30) });
    strict_1.default.equal(cold.attributable, false);
    strict_1.default.equal(!cold.attributable && cold.reason, 'not attributable: window 12 s < period 60 s, shared with load, q1 warm #1');
    strict_1.default.equal(!warm.attributable && warm.reason, 'not attributable: window 4 s < period 60 s, shared with load, q1 cold #1');
    // The long load is attributable over 12:00–12:04, sharing its last minute with both runs; the
    // enclosing "cell" is not counted as a neighbour.
    strict_1.default.ok(load.attributable);
    strict_1.default.equal(load.alignedStartMs, at(0));
    strict_1.default.equal(load.alignedEndMs, at(4));
    strict_1.default.equal(load.periods, 4);
    strict_1.default.deepEqual(load.sharedWith, ['q1 cold #1', 'q1 warm #1']);
    strict_1.default.ok(Math.abs(load.coverage - 215 / 240) < 1e-12);
    strict_1.default.ok(cell.attributable);
    strict_1.default.deepEqual(cell.sharedWith, []);
    strict_1.default.equal(cell.partial, false);
});
(0, node_test_1.test)('planWindows: the newest minute is partial until the settle delay has passed; finalAt says when', () => {
    const steps = [{ step: 'load', startMs: at(0), endMs: at(2, 30) }];
    const before = (0, windows_1.planWindows)(steps, { nowMs: at(4), settleMs: 120_000 })[0];
    strict_1.default.ok(before.attributable);
    strict_1.default.equal(before.partial, true);
    strict_1.default.equal(before.finalAtMs, at(5)); // aligned end 12:03 + 2 min
    strict_1.default.equal((0, windows_1.finalAt)([before], at(4)), at(5));
    const after = (0, windows_1.planWindows)(steps, { nowMs: at(5), settleMs: 120_000 })[0];
    strict_1.default.ok(after.attributable);
    strict_1.default.equal(after.partial, false);
    strict_1.default.equal((0, windows_1.finalAt)([after], at(5)), at(5));
    // Default settle delay is 3 minutes.
    const d = (0, windows_1.planWindows)(steps, { nowMs: at(5, 59) })[0];
    strict_1.default.ok(d.attributable && d.partial && d.finalAtMs === at(6));
});
(0, node_test_1.test)('empty is not zero: a minute without a data point is null, a 0 data point is 0', () => {
    // CloudWatch returned points for 12:00 (0 bytes) and 12:02 (6 MiB), none for 12:01; 12:05 is outside.
    const s = (0, windows_1.toMinuteSeries)(at(0), at(3), 60, [at(2), at(0), at(5)], [6 * 1048576, 0, 99]);
    strict_1.default.deepEqual(s.timestampsMs, [at(0), at(1), at(2)]);
    strict_1.default.deepEqual(s.values, [0, null, 6 * 1048576]);
    strict_1.default.deepEqual((0, windows_1.present)(s), { withData: 2, of: 3 });
    strict_1.default.equal((0, windows_1.sumPresent)(s), 6 * 1048576);
    // Rate over the minutes with data only: 6 MiB / 120 s.
    strict_1.default.equal((0, windows_1.ratePerSecond)(s, 60), (6 * 1048576) / 120);
    const none = (0, windows_1.toMinuteSeries)(at(0), at(3), 60, [], []);
    strict_1.default.deepEqual(none.values, [null, null, null]);
    strict_1.default.equal((0, windows_1.sumPresent)(none), null);
    strict_1.default.equal((0, windows_1.ratePerSecond)(none, 60), null);
    strict_1.default.equal((0, windows_1.meanPresent)(none), null);
    strict_1.default.equal((0, windows_1.maxPresent)(none), null);
    const zeros = (0, windows_1.toMinuteSeries)(at(0), at(2), 60, [at(0), at(1)], [0, 0]);
    strict_1.default.equal((0, windows_1.sumPresent)(zeros), 0);
    strict_1.default.equal((0, windows_1.ratePerSecond)(zeros, 60), 0);
});
//# sourceMappingURL=cloud-windows.test.js.map