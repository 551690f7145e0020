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

/** Milliseconds between two samples: monotonic when one worker process took both, else wall clock. */
export function sampleSpanMs(a: CounterSample, b: CounterSample): number {
  return a.proc === b.proc ? b.hr - a.hr : b.t - a.t;
}

const iso = (t: number) => new Date(t).toISOString();

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
    const ms = sampleSpanMs(a, b);
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
