/**
 * Bottleneck labels for every step window of a cell whose server runs on this host (embedded,
 * local): the windows are the cloud step's (`cellStepWindows`, `src/cloud/steps.ts`: load, each
 * quiesce, per query and phase its cold and warm runs, the query phases, index build, the whole
 * cell), the counters are the samples of `counters.jsonl` (`src/process/cell-counters.ts`), and the
 * rule is {@link labelLocalWindow}'s. Pure (the caller reads the samples and records).
 *
 * A window is measured between the two samples that bracket it: the last taken at or before its
 * start and the first taken at or after its end (worker wall clock, ms). A query run is bracketed by
 * the samples at its statement's registration and unregistration, microseconds outside its record's
 * `started_at`/`finished_at`; the rate divides the counters' differences by the time between those
 * two samples (monotonic clock when one worker process took both). No sample before the start (the
 * whole cell: provisioning samples nothing) → from the first sample inside; none after the end →
 * to the last one inside; the evidence says how far each end is from the window's.
 *
 * Scraped samples (a pod's counters read over the network, `rtt_ms` set) are bracketed by the time
 * their request was sent (`t`): the one sent at a statement's registration brackets its start, the
 * one sent at its unregistration its end. Their counters were read somewhere in `[t, t + rtt_ms]`, or
 * at `stats_at` when the endpoint says so, and rates divide by the time between those instants
 * ({@link sampleSpanMs}). An endpoint that refreshes its counters periodically (cAdvisor: per
 * housekeeping interval) can answer two requests with the same reading: a window whose two samples
 * show identical counters, or were read at the same instant, or whose readings cover less than half
 * of it ({@link MIN_SCRAPED_COVERAGE}), is `unknown` — "not enough samples: counters not refreshed" —
 * never `neither` (the server did work in every window: chbench ran a statement in it).
 */
import type { StepWindow } from '../cloud/windows';
import type { CounterSample } from '../process/cell-counters';
import type { LocalStepLabel } from '../schema/results';
import { labelLocalWindow, type LocalCapacity, type LocalThresholds } from './local-bottleneck';

/** The two samples a window is measured between, or why there are none. */
export type Bracket = { ok: true; from: number; to: number; notes: string[] } | { ok: false; reason: string };

/**
 * The indexes (into `samples`, in file order) of the samples bracketing `[startMs, endMs]`.
 * @param samples as read from `counters.jsonl`
 */
export function bracketWindow(samples: readonly CounterSample[], startMs: number, endMs: number): Bracket {
  if (!samples.length) return { ok: false, reason: 'no counter samples (counters.jsonl is empty or absent)' };
  const notes: string[] = [];
  let from = -1;
  for (let i = 0; i < samples.length; i++)
    if (samples[i]!.t <= startMs && (from < 0 || samples[i]!.t >= samples[from]!.t)) from = i;
  if (from < 0) {
    for (let i = 0; i < samples.length; i++)
      if (samples[i]!.t <= endMs && (from < 0 || samples[i]!.t < samples[from]!.t)) from = i;
    if (from < 0) return { ok: false, reason: 'no counter sample within the window' };
    notes.push(`from the first sample, ${samples[from]!.t - startMs} ms after the window's start`);
  }
  let to = -1;
  for (let i = 0; i < samples.length; i++)
    if (samples[i]!.t >= endMs && (to < 0 || samples[i]!.t < samples[to]!.t)) to = i;
  if (to < 0) {
    for (let i = 0; i < samples.length; i++)
      if (samples[i]!.t >= samples[from]!.t && (to < 0 || samples[i]!.t >= samples[to]!.t)) to = i;
    notes.push(`to the last sample, ${endMs - samples[to]!.t} ms before the window's end`);
  }
  if (to === from) return { ok: false, reason: 'one counter sample only in the window' };
  const a = samples[from]!;
  const b = samples[to]!;
  if (a.source !== b.source)
    return {
      ok: false,
      reason: `the counters' source changed within the window (${a.source} → ${b.source}: the server was restarted)`,
    };
  if (b.read_bytes < a.read_bytes || b.cpu_ns < a.cpu_ns)
    return {
      ok: false,
      reason: `the counters went backwards within the window (${a.source}: the server was restarted)`,
    };
  return { ok: true, from, to, notes };
}

const iso = (t: number) => new Date(t).toISOString();

/** Whether a sample was read over the network (`scrapedSample` in `src/process/cell-counters.ts`: it has a round trip). */
export const isScraped = (s: CounterSample): boolean => s.rtt_ms !== undefined;

/**
 * The least share of a window the readings of its two scraped samples must span (their `stats_at`
 * interval over the window); below it the window is "not enough samples: counters not refreshed".
 */
export const MIN_SCRAPED_COVERAGE = 0.5;

/**
 * Milliseconds between two samples: monotonic when one worker process took both, else wall clock.
 * Scraped samples: between the instants their counters were read — the endpoint's `stats_at` when
 * both have one, else the middle of each request (`t + rtt_ms / 2`, ± half the round trip).
 */
export function sampleSpanMs(a: CounterSample, b: CounterSample): number {
  if (isScraped(a) && isScraped(b)) {
    if (typeof a.stats_at === 'number' && typeof b.stats_at === 'number') return b.stats_at - a.stats_at;
    const mid = (x: CounterSample) => (a.proc === b.proc ? x.hr : x.t) + (x.rtt_ms ?? 0) / 2;
    return mid(b) - mid(a);
  }
  return a.proc === b.proc ? b.hr - a.hr : b.t - a.t;
}

/**
 * Why two scraped samples cannot measure `[startMs, endMs]` (the rule in the module comment), or
 * undefined when they can.
 */
export function notRefreshed(a: CounterSample, b: CounterSample, startMs: number, endMs: number): string | undefined {
  if (!isScraped(a) || !isScraped(b)) return undefined;
  const lead = 'not enough samples: counters not refreshed';
  const why = `(${a.source} refreshes its counters periodically: cAdvisor per housekeeping interval, 10–15 s on a real kubelet)`;
  const stamps = typeof a.stats_at === 'number' && typeof b.stats_at === 'number';
  if (a.read_bytes === b.read_bytes && a.write_bytes === b.write_bytes && a.cpu_ns === b.cpu_ns)
    return `${lead}: the two samples bracketing the window, requested ${(b.t - a.t).toFixed(0)} ms apart, show identical counters although the server ran statements in it${
      stamps ? ` (read at ${iso(a.stats_at as number)} and ${iso(b.stats_at as number)})` : ''
    } ${why}`;
  if (stamps) {
    const from = a.stats_at as number;
    const to = b.stats_at as number;
    if (to <= from) return `${lead}: both samples carry the reading of ${iso(from)} ${why}`;
    const len = endMs - startMs;
    if (len > 0) {
      const covered = Math.max(0, Math.min(to, endMs) - Math.max(from, startMs)) / len;
      if (covered < MIN_SCRAPED_COVERAGE)
        return `${lead}: the readings (${iso(from)} … ${iso(to)}) cover ${Math.round(covered * 100)} % of the window ${why}`;
    }
  }
  return undefined;
}

/**
 * Label every window.
 * @param steps the cell's windows (`cellStepWindows`)
 * @param samples `counters.jsonl`, file order
 * @param cap the cell's limits, the host disk's unthrottled read rate, the host's cores
 * @param writesThrottled whether the write limit binds buffered writes (cgroup v2 only)
 * @returns one label per window, in `steps` order; `unknown` with the reason where no two samples bracket it
 */
export function labelStepWindows(
  steps: readonly StepWindow[],
  samples: readonly CounterSample[],
  cap: LocalCapacity,
  writesThrottled: boolean,
  thresholds: Partial<LocalThresholds> = {},
): LocalStepLabel[] {
  return steps.map((s): LocalStepLabel => {
    const base = { step: s.step, started_at: iso(s.startMs), finished_at: iso(s.endMs) };
    const br = bracketWindow(samples, s.startMs, s.endMs);
    if (!br.ok) return { ...base, label: 'unknown', evidence: br.reason, counters: null, limit_held: null };
    const a = samples[br.from]!;
    const b = samples[br.to]!;
    const stale = notRefreshed(a, b, s.startMs, s.endMs);
    if (stale) return { ...base, label: 'unknown', evidence: stale, counters: null, limit_held: null };
    const ms = sampleSpanMs(a, b);
    if (isScraped(a) && isScraped(b))
      br.notes.push(
        `request round trips ${a.rtt_ms!.toFixed(1)} / ${b.rtt_ms!.toFixed(1)} ms${
          typeof a.stats_at === 'number' && typeof b.stats_at === 'number'
            ? `, read at ${iso(a.stats_at)} / ${iso(b.stats_at)}`
            : ', read at request time (no exposition timestamp): times ± half the round trip'
        }`,
      );
    const d = {
      read_bytes: b.read_bytes - a.read_bytes,
      write_bytes: b.write_bytes - a.write_bytes,
      cpu_ns: b.cpu_ns - a.cpu_ns,
      host_busy_ns: b.host_busy_ns - a.host_busy_ns,
      host_total_ns: b.host_total_ns - a.host_total_ns,
    };
    const l = labelLocalWindow(
      {
        ms,
        readBytes: d.read_bytes,
        writeBytes: d.write_bytes,
        cpuNs: d.cpu_ns,
        hostBusyNs: d.host_busy_ns,
        hostTotalNs: d.host_total_ns,
        source: `${a.source}, samples ${br.from} → ${br.to} of counters.jsonl over ${ms.toFixed(1)} ms${br.notes.length ? `; ${br.notes.join('; ')}` : ''}`,
      },
      cap,
      writesThrottled,
      thresholds,
    );
    return {
      ...base,
      label: l.label,
      evidence: l.evidence,
      counters: {
        from_sample: br.from,
        to_sample: br.to,
        from_at: iso(a.t),
        to_at: iso(b.t),
        ms,
        source: a.source,
        ...d,
        read_bytes_per_s: l.readBytesPerSec,
        write_bytes_per_s: l.writeBytesPerSec,
        cores_used: l.coresUsed,
      },
      limit_held: cap.limits?.volume ? l.limitHeld : null,
    };
  });
}
