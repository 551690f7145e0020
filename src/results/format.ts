/** Number formats shared by the report's sections (report.md and report.html). */

/** Format bytes as GiB/MiB/KiB with 2 decimals. */
export function fmtBytes(b: number | null | undefined): string {
  if (b === null || b === undefined || !Number.isFinite(b)) return 'n/a';
  const u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  let v = b;
  while (v >= 1024 && i < u.length - 1) [v, i] = [v / 1024, i + 1];
  return `${i === 0 ? v : v.toFixed(2)} ${u[i]}`;
}

/**
 * Format ms: 2 decimals under 10 ms, 1 under 1 s, seconds above; never finer than `resolutionMs`
 * (the source's step): whole ms for a 1 ms source, and `< 1 ms` for a value below it.
 */
export function fmtMs(ms: number | null | undefined, resolutionMs: number | null = null): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return 'n/a';
  // Never finer than the source: below its resolution the figure is "< resolution".
  if (resolutionMs !== null && resolutionMs > 0 && ms < resolutionMs) return `< ${resolutionMs} ms`;
  // A source that counts whole milliseconds (query_log.query_duration_ms) is printed without decimals.
  if (resolutionMs === 1 && ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 10) return `${ms.toFixed(2)} ms`;
  if (ms < 1000) return `${ms.toFixed(1)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}

/** An integer with thousands separators (en-US); `n/a` for null or non-finite. */
export function fmtInt(n: number | null | undefined): string {
  return n === null || n === undefined || !Number.isFinite(n) ? 'n/a' : Math.round(n).toLocaleString('en-US');
}

/**
 * `text` on one line (runs of whitespace and newlines as one space), cut to at most `max` characters
 * at a word boundary with `…` when longer: never mid-word. A first word longer than `max` is cut
 * inside it (with `…`), the only case that does.
 * @returns `{ text, cut }`: the shortened text, and whether anything was left out.
 */
export function shortenAtWord(text: string, max: number): { text: string; cut: boolean } {
  const one = text.replace(/\s+/g, ' ').trim();
  if (one.length <= max) return { text: one, cut: false };
  const room = one.slice(0, Math.max(1, max - 1));
  const at = room.lastIndexOf(' ');
  const head = (at > 0 ? room.slice(0, at) : room).replace(/[\s,;:.(–-]+$/, '');
  return { text: `${head}…`, cut: true };
}

/** A duration for people: `2 min 12 s` from a minute up, `12.3 s` below (ms, ≥ 0). */
export function fmtDuration(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return `${h ? `${h} h ` : ''}${m} min ${s % 60} s`;
}

/**
 * The report's start phrase: `Started <start>` for a run started by hand; for a scheduled run
 * (run.json `scheduled_start`, from Temporal's `TemporalScheduledStartTime`) `Scheduled for <due>,
 * started <start> (<lateness> late)`, with the lateness run.json's `start_lateness_ms`.
 */
export function startPhrase(run: { startedAt: string; scheduled_start?: string; start_lateness_ms?: number }): string {
  if (!run.scheduled_start) return `Started ${run.startedAt}`;
  const ms = run.start_lateness_ms;
  const late =
    ms === undefined || !Number.isFinite(ms)
      ? 'lateness n/a'
      : ms >= 0
        ? `${fmtDuration(ms)} late`
        : `${fmtDuration(-ms)} early`;
  return `Scheduled for ${run.scheduled_start}, started ${run.startedAt} (${late})`;
}

/** The warning of a run flagged `late` in run.json (undefined when it is not): plain text, no markup. */
export function lateStartWarning(run: { late?: boolean; start_lateness_ms?: number }): string | undefined {
  if (!run.late || run.start_lateness_ms === undefined) return undefined;
  return `Started late: ${fmtDuration(run.start_lateness_ms)} after its scheduled time (Temporal's TemporalScheduledStartTime; start = the matrix workflow's first task, when a worker first picked the run up). A worker was likely down or busy across the due time; the run measured later than planned.`;
}
