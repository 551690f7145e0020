"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.DEFAULT_SETTLE_MS = exports.PERIOD_S = void 0;
exports.alignWindow = alignWindow;
exports.planWindows = planWindows;
exports.finalAt = finalAt;
exports.toMinuteSeries = toMinuteSeries;
exports.present = present;
exports.sumPresent = sumPresent;
exports.ratePerSecond = ratePerSecond;
exports.meanPresent = meanPresent;
exports.maxPresent = maxPresent;
exports.minPresent = minPresent;
/**
 * CloudWatch's rules, as part of the method: which step windows can be given cloud figures, over
 * which minutes, and when those figures are final. Pure (no AWS call, no clock: `nowMs` is passed in).
 *
 * The rules, each with its source (AWS wording restated):
 *
 * 1. **One minute is the finest period.** EBS volumes attached to current instances send their
 *    metrics to CloudWatch every minute (Amazon EBS User Guide, "Amazon CloudWatch metrics for
 *    Amazon EBS"); EC2 instance metrics come every 5 minutes with basic monitoring and every minute
 *    with detailed monitoring (Amazon EC2 User Guide, "Enable or turn off detailed monitoring").
 *    Sub-minute periods exist only for custom high-resolution metrics (CloudWatch API Reference,
 *    `GetMetricData`: periods under 60 s are for metrics stored with StorageResolution 1). So
 *    {@link PERIOD_S} is 60, and a caller reading EC2 metrics of an instance without detailed
 *    monitoring must pass 300.
 * 2. **Start times are rounded down to the whole minute** (CloudWatch API Reference,
 *    `GetMetricData` StartTime: a start less than 15 days ago is rounded down to the minute, e.g.
 *    12:32:34 → 12:32:00; older starts to 5 minutes or an hour). The end is exclusive (data points
 *    up to, not at, EndTime). moto does not round, so chbench aligns the window itself: start
 *    rounded down, end rounded up to the period, and asks for exactly those minutes.
 * 3. **The newest minute is not final at once.** A data point for minute M is sent after M ends and
 *    aggregated on arrival; AWS publishes no fixed delay. A window whose aligned end is less than
 *    {@link WindowOptions.settleMs} ago is marked `partial` with `finalAtMs`, the time to read it
 *    again (or wait until) for final figures. The 3-minute default is chbench's choice, not an AWS figure.
 * 4. **Empty is not zero.** CloudWatch returns no data point for a minute it has nothing for (a
 *    `GetMetricData` result has only the timestamps it holds; for Xen instances EBS reports only
 *    minutes with activity). A missing minute is `null`, never 0; rates divide by the minutes
 *    that have data and say how many that was ({@link MinuteSeries}).
 * 5. **A window shorter than one period cannot be attributed to one query.** A 12 s cold run lies
 *    inside a minute that also holds whatever ran before and after it; dividing that minute's bytes
 *    by 12 s (or by 60 s) would invent a figure. Such a window gets
 *    `not attributable: window 12 s < period 60 s, shared with …` instead of numbers.
 */
const run_spec_1 = require("../schema/run-spec");
/** The finest CloudWatch period for AWS/EBS and detailed-monitoring AWS/EC2 metrics, seconds (rule 1). */
exports.PERIOD_S = 60;
/** Default delay after a minute's end before its data point is taken as final, ms (rule 3; chbench's choice). */
exports.DEFAULT_SETTLE_MS = run_spec_1.DEFAULT_CLOUD_SETTLE_MS;
/**
 * Round a window to whole periods: start down, end up (rule 2). An empty window (start = end on a
 * boundary) still covers one period.
 * @param startMs epoch ms
 * @param endMs epoch ms, ≥ startMs
 * @param periodS seconds, > 0 @default 60
 * @returns aligned start and (exclusive) end, epoch ms
 * @throws RangeError when endMs < startMs or periodS ≤ 0
 */
function alignWindow(startMs, endMs, periodS = exports.PERIOD_S) {
    if (!(periodS > 0))
        throw new RangeError(`alignWindow: period ${periodS} s is not positive`);
    if (endMs < startMs)
        throw new RangeError(`alignWindow: end ${endMs} is before start ${startMs}`);
    const p = periodS * 1000;
    const alignedStartMs = Math.floor(startMs / p) * p;
    const alignedEndMs = Math.max(Math.ceil(endMs / p) * p, alignedStartMs + p);
    return { alignedStartMs, alignedEndMs };
}
function fmtSeconds(ms) {
    const s = ms / 1000;
    return Number.isInteger(s) ? `${s} s` : `${s.toFixed(1)} s`;
}
/**
 * Apply rules 1–5 to a cell's step windows.
 * @param steps windows as timed by chbench (wall clock, epoch ms)
 * @param opts now, period and settle delay
 * @returns one planned window per step, in the input order: attributable (aligned minutes, coverage,
 *   neighbours sharing the edge minutes, partial/final time) or not (with the reason)
 */
function planWindows(steps, opts) {
    const periodS = opts.periodS ?? exports.PERIOD_S;
    const settleMs = opts.settleMs ?? exports.DEFAULT_SETTLE_MS;
    const aligned = steps.map((s) => ({ s, ...alignWindow(s.startMs, s.endMs, periodS) }));
    return aligned.map(({ s, alignedStartMs, alignedEndMs }) => {
        const sharedWith = aligned
            .filter((o) => o.s !== s && o.alignedStartMs < alignedEndMs && o.alignedEndMs > alignedStartMs)
            // A step that contains this one (e.g. the whole cell) is not a neighbour sharing its minutes.
            .filter((o) => !(o.s.startMs <= s.startMs && o.s.endMs >= s.endMs && o.s.endMs - o.s.startMs > s.endMs - s.startMs))
            // Nor is one this step contains.
            .filter((o) => !(s.startMs <= o.s.startMs && s.endMs >= o.s.endMs && s.endMs - s.startMs > o.s.endMs - o.s.startMs))
            .map((o) => o.s.step);
        const durationMs = s.endMs - s.startMs;
        if (durationMs < periodS * 1000) {
            const named = sharedWith.slice(0, 3).join(', ');
            const shared = sharedWith.length === 0
                ? 'shared with whatever else ran then'
                : `shared with ${named}${sharedWith.length > 3 ? ` and ${sharedWith.length - 3} more step(s)` : ''}`;
            return {
                ...s,
                attributable: false,
                reason: `not attributable: window ${fmtSeconds(durationMs)} < period ${periodS} s, ${shared}`,
                sharedWith,
            };
        }
        const finalAtMs = alignedEndMs + settleMs;
        return {
            ...s,
            attributable: true,
            alignedStartMs,
            alignedEndMs,
            periodS,
            periods: (alignedEndMs - alignedStartMs) / (periodS * 1000),
            coverage: durationMs / (alignedEndMs - alignedStartMs),
            sharedWith,
            partial: opts.nowMs < finalAtMs,
            finalAtMs,
        };
    });
}
/**
 * When to read again so that every attributable window is final (rule 3: "or wait").
 * @returns epoch ms; `nowMs` when everything is already final or nothing is attributable
 */
function finalAt(planned, nowMs) {
    let t = nowMs;
    for (const w of planned)
        if (w.attributable && w.finalAtMs > t)
            t = w.finalAtMs;
    return t;
}
/**
 * Lay CloudWatch's data points on the aligned window's periods; periods without a point stay null
 * (rule 4), points outside the window are dropped.
 * @param alignedStartMs epoch ms, on a period boundary
 * @param alignedEndMs epoch ms, exclusive, on a period boundary
 * @param timestampsMs CloudWatch's `Timestamps` (any order), epoch ms
 * @param values CloudWatch's `Values`, same order
 */
function toMinuteSeries(alignedStartMs, alignedEndMs, periodS, timestampsMs, values) {
    const p = periodS * 1000;
    const n = Math.round((alignedEndMs - alignedStartMs) / p);
    const out = {
        timestampsMs: Array.from({ length: n }, (_, i) => alignedStartMs + i * p),
        values: Array.from({ length: n }, () => null),
    };
    timestampsMs.forEach((t, i) => {
        const k = Math.floor((t - alignedStartMs) / p);
        if (k >= 0 && k < n && values[i] !== undefined)
            out.values[k] = values[i];
    });
    return out;
}
/** Periods with data / periods asked for. */
function present(series) {
    return { withData: series.values.filter((v) => v !== null).length, of: series.values.length };
}
/**
 * Sum over the periods that have data.
 * @returns the sum, or null when no period has data (never 0 for "no data")
 */
function sumPresent(series) {
    const v = series.values.filter((x) => x !== null);
    return v.length === 0 ? null : v.reduce((a, b) => a + b, 0);
}
/**
 * A per-second rate from per-period sums (e.g. `VolumeReadBytes` Sum → bytes/s), over the periods
 * that have data only (rule 4).
 * @returns units per second, or null when no period has data
 */
function ratePerSecond(series, periodS) {
    const { withData } = present(series);
    const sum = sumPresent(series);
    return sum === null ? null : sum / (withData * periodS);
}
/** Mean of the periods that have data, or null (e.g. `CPUUtilization` Average per minute → window average). */
function meanPresent(series) {
    const { withData } = present(series);
    const sum = sumPresent(series);
    return sum === null ? null : sum / withData;
}
/** Largest value of the periods that have data, or null. */
function maxPresent(series) {
    const v = series.values.filter((x) => x !== null);
    return v.length === 0 ? null : Math.max(...v);
}
/** Smallest value of the periods that have data, or null (e.g. the lowest burst balance seen). */
function minPresent(series) {
    const v = series.values.filter((x) => x !== null);
    return v.length === 0 ? null : Math.min(...v);
}
//# sourceMappingURL=windows.js.map