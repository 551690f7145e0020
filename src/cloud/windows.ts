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
import { DEFAULT_CLOUD_SETTLE_MS } from '../schema/run-spec';

/** The finest CloudWatch period for AWS/EBS and detailed-monitoring AWS/EC2 metrics, seconds (rule 1). */
export const PERIOD_S = 60;

/** Default delay after a minute's end before its data point is taken as final, ms (rule 3; chbench's choice). */
export const DEFAULT_SETTLE_MS = DEFAULT_CLOUD_SETTLE_MS;

/** One step of a cell as timed by chbench: the wall-clock window it ran in. */
export interface StepWindow {
  /** Step label, e.g. `load`, `q1 cold #1`, `index build`, `cell`. */
  step: string;
  /** Start, epoch ms (inclusive). */
  startMs: number;
  /** End, epoch ms (exclusive); ≥ startMs. */
  endMs: number;
}

/** Options of {@link planWindows}. */
export interface WindowOptions {
  /** "Now", epoch ms, to judge whether the newest minute can be final. */
  nowMs: number;
  /** CloudWatch period, seconds (60, or 300 for basic-monitoring EC2 metrics). @default 60 */
  periodS?: number;
  /** Delay after the aligned end before figures are final, ms. @default {@link DEFAULT_SETTLE_MS} */
  settleMs?: number;
}

/** A step window CloudWatch figures can be attributed to. */
export interface AttributableWindow extends StepWindow {
  attributable: true;
  /** Start rounded down to the period, epoch ms (the `StartTime` asked for). */
  alignedStartMs: number;
  /** End rounded up to the period, epoch ms (the exclusive `EndTime` asked for). */
  alignedEndMs: number;
  /** Period, seconds. */
  periodS: number;
  /** Number of periods in the aligned window. */
  periods: number;
  /** Share of the aligned window the step itself ran, 0..1 (the rest belongs to its neighbours). */
  coverage: number;
  /** Other steps whose aligned windows overlap this one's edge periods. */
  sharedWith: string[];
  /** True when the newest period may still change (rule 3). */
  partial: boolean;
  /** When the figures are expected final, epoch ms (aligned end + settle delay). */
  finalAtMs: number;
}

/** A step window too short to carry its own CloudWatch figures (rule 5). */
export interface UnattributableWindow extends StepWindow {
  attributable: false;
  /** E.g. `not attributable: window 12 s < period 60 s, shared with q1 warm #1, q1 warm #2`. */
  reason: string;
  /** Other steps within the same aligned periods. */
  sharedWith: string[];
}

/** The outcome of {@link planWindows} for one step. */
export type PlannedWindow = AttributableWindow | UnattributableWindow;

/**
 * Round a window to whole periods: start down, end up (rule 2). An empty window (start = end on a
 * boundary) still covers one period.
 * @param startMs epoch ms
 * @param endMs epoch ms, ≥ startMs
 * @param periodS seconds, > 0 @default 60
 * @returns aligned start and (exclusive) end, epoch ms
 * @throws RangeError when endMs < startMs or periodS ≤ 0
 */
export function alignWindow(
  startMs: number,
  endMs: number,
  periodS: number = PERIOD_S,
): { alignedStartMs: number; alignedEndMs: number } {
  if (!(periodS > 0)) throw new RangeError(`alignWindow: period ${periodS} s is not positive`);
  if (endMs < startMs) throw new RangeError(`alignWindow: end ${endMs} is before start ${startMs}`);
  const p = periodS * 1000;
  const alignedStartMs = Math.floor(startMs / p) * p;
  const alignedEndMs = Math.max(Math.ceil(endMs / p) * p, alignedStartMs + p);
  return { alignedStartMs, alignedEndMs };
}

function fmtSeconds(ms: number): string {
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
export function planWindows(steps: readonly StepWindow[], opts: WindowOptions): PlannedWindow[] {
  const periodS = opts.periodS ?? PERIOD_S;
  const settleMs = opts.settleMs ?? DEFAULT_SETTLE_MS;
  const aligned = steps.map((s) => ({ s, ...alignWindow(s.startMs, s.endMs, periodS) }));
  return aligned.map(({ s, alignedStartMs, alignedEndMs }) => {
    const sharedWith = aligned
      .filter((o) => o.s !== s && o.alignedStartMs < alignedEndMs && o.alignedEndMs > alignedStartMs)
      // A step that contains this one (e.g. the whole cell) is not a neighbour sharing its minutes.
      .filter(
        (o) => !(o.s.startMs <= s.startMs && o.s.endMs >= s.endMs && o.s.endMs - o.s.startMs > s.endMs - s.startMs),
      )
      // Nor is one this step contains.
      .filter(
        (o) => !(s.startMs <= o.s.startMs && s.endMs >= o.s.endMs && s.endMs - s.startMs > o.s.endMs - o.s.startMs),
      )
      .map((o) => o.s.step);
    const durationMs = s.endMs - s.startMs;
    if (durationMs < periodS * 1000) {
      const named = sharedWith.slice(0, 3).join(', ');
      const shared =
        sharedWith.length === 0
          ? 'shared with whatever else ran then'
          : `shared with ${named}${sharedWith.length > 3 ? ` and ${sharedWith.length - 3} more step(s)` : ''}`;
      return {
        ...s,
        attributable: false as const,
        reason: `not attributable: window ${fmtSeconds(durationMs)} < period ${periodS} s, ${shared}`,
        sharedWith,
      };
    }
    const finalAtMs = alignedEndMs + settleMs;
    return {
      ...s,
      attributable: true as const,
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
export function finalAt(planned: readonly PlannedWindow[], nowMs: number): number {
  let t = nowMs;
  for (const w of planned) if (w.attributable && w.finalAtMs > t) t = w.finalAtMs;
  return t;
}

/** One metric's values per period of an aligned window; `null` = CloudWatch had no data point (rule 4). */
export interface MinuteSeries {
  /** Period start, epoch ms, one per period of the aligned window, ascending. */
  timestampsMs: number[];
  /** Value per period, or null when CloudWatch returned none for it. */
  values: (number | null)[];
}

/**
 * Lay CloudWatch's data points on the aligned window's periods; periods without a point stay null
 * (rule 4), points outside the window are dropped.
 * @param alignedStartMs epoch ms, on a period boundary
 * @param alignedEndMs epoch ms, exclusive, on a period boundary
 * @param timestampsMs CloudWatch's `Timestamps` (any order), epoch ms
 * @param values CloudWatch's `Values`, same order
 */
export function toMinuteSeries(
  alignedStartMs: number,
  alignedEndMs: number,
  periodS: number,
  timestampsMs: readonly number[],
  values: readonly number[],
): MinuteSeries {
  const p = periodS * 1000;
  const n = Math.round((alignedEndMs - alignedStartMs) / p);
  const out: MinuteSeries = {
    timestampsMs: Array.from({ length: n }, (_, i) => alignedStartMs + i * p),
    values: Array.from({ length: n }, () => null),
  };
  timestampsMs.forEach((t, i) => {
    const k = Math.floor((t - alignedStartMs) / p);
    if (k >= 0 && k < n && values[i] !== undefined) out.values[k] = values[i];
  });
  return out;
}

/** Periods with data / periods asked for. */
export function present(series: MinuteSeries): { withData: number; of: number } {
  return { withData: series.values.filter((v) => v !== null).length, of: series.values.length };
}

/**
 * Sum over the periods that have data.
 * @returns the sum, or null when no period has data (never 0 for "no data")
 */
export function sumPresent(series: MinuteSeries): number | null {
  const v = series.values.filter((x): x is number => x !== null);
  return v.length === 0 ? null : v.reduce((a, b) => a + b, 0);
}

/**
 * A per-second rate from per-period sums (e.g. `VolumeReadBytes` Sum → bytes/s), over the periods
 * that have data only (rule 4).
 * @returns units per second, or null when no period has data
 */
export function ratePerSecond(series: MinuteSeries, periodS: number): number | null {
  const { withData } = present(series);
  const sum = sumPresent(series);
  return sum === null ? null : sum / (withData * periodS);
}

/** Mean of the periods that have data, or null (e.g. `CPUUtilization` Average per minute → window average). */
export function meanPresent(series: MinuteSeries): number | null {
  const { withData } = present(series);
  const sum = sumPresent(series);
  return sum === null ? null : sum / withData;
}

/** Largest value of the periods that have data, or null. */
export function maxPresent(series: MinuteSeries): number | null {
  const v = series.values.filter((x): x is number => x !== null);
  return v.length === 0 ? null : Math.max(...v);
}

/** Smallest value of the periods that have data, or null (e.g. the lowest burst balance seen). */
export function minPresent(series: MinuteSeries): number | null {
  const v = series.values.filter((x): x is number => x !== null);
  return v.length === 0 ? null : Math.min(...v);
}
