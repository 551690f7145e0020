/**
 * The load grids in the report: the insert grid's table and the concurrency stepping's table, with
 * the knee and the reason stepping stopped (derived from the step records with the same functions the
 * workflow used, `findKnee` and `nextStepDecision` in src/schema/grids.ts). Pure: reads records only.
 */
import markdownTable from 'markdown-table';
import { findKnee, nextStepDecision, ConcurrencyGridSpec, type ConcurrencyStepSummary, type Knee } from '../schema/grids';
import type { CellResult, ConcurrencyStepRecord, InsertPointRecord } from '../schema/results';
import type { RunSpec } from '../schema/run-spec';
import { fmtBytes, fmtInt } from './format';
import { insertPointFlags, type InsertPointFlags } from '../measure/validity';

/**
 * Delayed / rejected / retried INSERTs of a point, judged from its record (so records written before
 * the activity stored the judgement get it too): `insertPointFlags` over the record's loop, events
 * deltas and attempt.
 */
export function pointFlags(r: InsertPointRecord): InsertPointFlags {
  return insertPointFlags({
    inserts: r.summary.inserts,
    errors: r.summary.errors,
    errorsByCode: r.loop.errors_by_code,
    deltas: r.events.deltas,
    attempt: r.attempt,
  });
}

/** The flag of a step's QPS (window shorter than 3 median latencies), or null. Older records: none recorded. */
export function stepFlag(r: ConcurrencyStepRecord): string | null {
  return r.summary.windowFlag ?? null;
}

/** Grid figures the validity banner must name: flagged insert points and concurrency steps, in words. */
export function gridValidity(cells: CellResult[]): string[] {
  const pts = cells.flatMap((c) => c.grids?.insert ?? []).filter((r) => pointFlags(r).marks.length);
  const steps = cells.flatMap((c) => c.grids?.concurrency ?? []).filter((r) => stepFlag(r) !== null);
  return [
    ...(pts.length
      ? [
          `${pts.length} insert point(s) whose INSERTs were delayed, rejected or retried (${pts.map((r) => `${r.summary.key}: ${pointFlags(r).marks.join(', ')}`).join('; ')}): their rows/s measure the throttling`,
        ]
      : []),
    ...(steps.length
      ? [
          `${steps.length} concurrency step(s) whose window was shorter than 3 median latencies (${steps.map((r) => `${r.summary.clients} clients`).join(', ')}): their QPS rests on a few completions`,
        ]
      : []),
  ];
}

/** A table: header and body rows of text. */
export interface TextTable {
  head: string[];
  rows: string[][];
}

/**
 * Fewest samples a P95/P99 is shown from: below it the tail percentiles are interpolated between a
 * handful of values and say nothing about a tail, so the table shows `—` (P50 and max stay).
 */
export const MIN_TAIL_SAMPLES = 20;

/** ms with 2 decimals under 10, 1 under 100, whole above; whole always when the source counts whole ms. */
function ms(x: number | null, wholeMs = false): string {
  if (x === null) return 'n/a';
  if (wholeMs) return x.toFixed(0);
  return x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2);
}

function lat(
  l: { count: number; p50: number | null; p95: number | null; p99: number | null; max: number | null },
  wholeMs = false,
): string {
  const tail = l.count >= MIN_TAIL_SAMPLES;
  return `${ms(l.p50, wholeMs)} / ${tail ? ms(l.p95, wholeMs) : '—'} / ${tail ? ms(l.p99, wholeMs) : '—'} / ${ms(l.max, wholeMs)}`;
}

/** The step's server latency counts whole milliseconds (`query_duration_ms`, e.g. on 18.16). */
function wholeMsSource(r: ConcurrencyStepRecord): boolean {
  return r.summary.latencySource === 'query_log' && /query_duration_ms/.test(r.query_log?.source ?? '');
}

function codes(by: Record<string, number>): string {
  const e = Object.entries(by);
  return e.length ? e.map(([c, n]) => `${n}× ${/^\d+$/.test(c) ? `code ${c}` : c}`).join(', ') : '';
}

/** The insert grid of one cell as a table (one row per point, in the order the points ran). */
export function insertGridTable(points: InsertPointRecord[]): TextTable {
  return {
    head: [
      'batch',
      'clients',
      'settings',
      'format',
      'rows/s',
      'MB/s',
      'INSERT ms P50 / P95 / P99 / max',
      'INSERTs',
      'errors',
      'parts / INSERT',
      'peak active parts',
      'peak merges',
      'delayed / rejected',
      'peak memory',
      'verified',
      'client-bound',
    ],
    rows: points.map((r) => {
      const s = r.summary;
      const d = r.events.deltas;
      const ev = (k: string) => (d[k] === undefined || d[k] === null ? 'n/a' : fmtInt(d[k]));
      return [
        fmtInt(r.point.batchSize),
        String(r.point.concurrency),
        r.point.profile.name,
        r.point.format,
        `${fmtInt(Math.round(s.rowsPerS))}${pointFlags(r).marks.length ? ` ⚠ ${pointFlags(r).marks.join(', ')}` : ''}`,
        s.mbPerS.toFixed(1),
        lat(s.latencyMs),
        fmtInt(s.inserts),
        s.errors ? `${fmtInt(s.errors)} (${codes(r.loop.errors_by_code)})` : '0',
        r.parts.per_insert === null ? 'n/a' : r.parts.per_insert.toFixed(2),
        r.parts.peak_active === null ? 'n/a' : fmtInt(r.parts.peak_active),
        r.parts.peak_merges === null ? 'n/a' : fmtInt(r.parts.peak_merges),
        `${ev('DelayedInserts')} / ${ev('RejectedInserts')}`,
        r.parts.peak_memory_bytes === null ? 'n/a' : fmtBytes(r.parts.peak_memory_bytes),
        s.verified ? `yes (${fmtInt(r.verification.count)} rows)` : `**NO** — ${r.verification.reasons.join('; ')}`,
        s.clientBound ? '**yes**' : 'no',
      ];
    }),
  };
}

/** The stepping of one cell as a table (one row per step run). */
export function concurrencyTable(steps: ConcurrencyStepRecord[]): TextTable {
  return {
    head: ['clients', 'QPS', 'latency ms P50 / P95 / P99 / max', 'latency source', 'client wall P99 ms', 'requests', 'errors', 'client-bound'],
    rows: steps.map((r) => {
      const s = r.summary;
      return [
        String(s.clients),
        `${s.qps.toFixed(1)}${stepFlag(r) ? ' ⚠ short window' : ''}`,
        lat(s.latencyMs, wholeMsSource(r)),
        s.latencySource === 'query_log'
          ? `server (query_log ${wholeMsSource(r) ? 'query_duration_ms, whole ms' : 'µs timestamps'})`
          : 'client wall',
        s.wallLatencyMs.count >= MIN_TAIL_SAMPLES ? ms(s.wallLatencyMs.p99) : '—',
        fmtInt(s.requests),
        s.errors ? `${fmtInt(s.errors)} (${codes(s.errorsByCode)})` : '0',
        s.clientBound ? '**yes**' : 'no',
      ];
    }),
  };
}

/** One line per settings profile of the matrix (`matrix.settings`): its name and what it sets. */
export function profileLines(spec: RunSpec): string[] {
  const kv = (o: Record<string, string | number>) =>
    Object.entries(o)
      .map(([k, v]) => `${k} = ${v}`)
      .join(', ');
  return (spec.matrix.settings ?? []).map((p) => {
    const parts = [
      ...(Object.keys(p.query).length ? [`query ${kv(p.query)}`] : []),
      ...(Object.keys(p.mergeTree).length ? [`MergeTree ${kv(p.mergeTree)}`] : []),
    ];
    return `\`${p.name}\`: ${parts.join('; ') || 'nothing beyond the spec\'s settings'}`;
  });
}

/** What a reader must know about a cell's insert points beyond the table: async inserts, settings not applied, repeated data, client-bound points, early stops. */
export function insertGridNotes(c: CellResult, spec: RunSpec): string[] {
  const pts = c.grids?.insert ?? [];
  const notes = [
    ...new Set(pts.flatMap((r) => (r.async_insert.note ? [`${r.point.profile.name}: ${r.async_insert.note}`] : []))),
    ...new Set(
      pts.flatMap((r) =>
        Object.entries(r.settings_not_applied ?? {}).map(
          ([k, why]) => `${r.point.profile.name}: setting ${k} not applied — ${why}`,
        ),
      ),
    ),
  ];
  if (spec.grids?.insert?.data === 'repeat')
    notes.push(
      'data: repeat — every batch repeats the first, so a deduplicating table drops all but one; "verified" then counts those rows once',
    );
  for (const r of pts.filter((x) => x.summary.clientBound)) notes.push(`⚠ ${r.summary.key}: client-bound — ${r.cpu.reason}`);
  for (const r of pts) for (const why of pointFlags(r).reasons) notes.push(`⚠ ${r.summary.key}: ${why}`);
  for (const r of pts.filter((x) => x.loop.stopped_by === 'duration'))
    notes.push(`${r.summary.key}: stopped by the point's duration limit before every row was sent`);
  if (pts.some((r) => r.summary.latencyMs.count < MIN_TAIL_SAMPLES))
    notes.push(`P95 / P99 are shown only from ${MIN_TAIL_SAMPLES} INSERTs or more ("—" otherwise: too few for a tail)`);
  return notes;
}

/** What a reader must know about a cell's stepping beyond the table. */
export function concurrencyNotes(c: CellResult): string[] {
  const steps = c.grids?.concurrency ?? [];
  const notes: string[] = [];
  if (c.target_kind === 'embedded')
    notes.push(
      'The embedded engine runs one statement at a time (its HTTP front end serialises statements on one chdb session), so more clients queue rather than run in parallel: expect QPS to stay flat and client wall latency to grow with clients. A real server runs them concurrently.',
    );
  for (const r of steps.filter((x) => x.summary.clientBound))
    notes.push(`⚠ ${r.summary.clients} clients: client-bound — ${r.cpu?.reason ?? 'no CPU figures'}`);
  for (const r of steps) if (stepFlag(r)) notes.push(`⚠ ${r.summary.clients} clients: short window — ${stepFlag(r)}`);
  const old = steps.filter((r) => r.summary.windowMs === undefined);
  if (old.length)
    notes.push(
      `QPS of ${old.length === steps.length ? 'these steps' : `${old.map((r) => r.summary.clients).join(', ')} clients`} was recorded before completions were counted: it counts only queries that started and finished in the window, over its nominal seconds (an undercount of about one query per client)`,
    );
  if (steps.some((r) => r.summary.latencyMs.count < MIN_TAIL_SAMPLES))
    notes.push(`P95 / P99 are shown only from ${MIN_TAIL_SAMPLES} requests or more ("—" otherwise)`);
  return notes;
}

/** The knee of a cell's stepping and why stepping stopped, from its records and the spec. */
export function steppingOutcome(
  steps: ConcurrencyStepRecord[],
  g: ConcurrencyGridSpec,
): { knee: Knee; stopReason: string } {
  const done: Omit<ConcurrencyStepSummary, 'attempt'>[] = steps.map((r) => r.summary);
  const d = nextStepDecision(done, g);
  return {
    knee: findKnee(done, g),
    stopReason: d.go ? `stopped after ${done.length} of ${g.steps.length} steps (the cell ended before the rest)` : d.stopReason!,
  };
}

/** Counts for a one-line summary of a run's grids (the demo's last line). */
export interface GridsOutcome {
  insertPoints: number;
  insertVerified: number;
  /** Insert points whose INSERTs were delayed, rejected or retried (`pointFlags`). */
  insertFlagged: number;
  concurrencySteps: number;
  /** Steps whose window was shorter than 3 median latencies (`stepFlag`). */
  stepsFlagged: number;
  /** The knee's client count per cell with a stepping (null: no knee within the steps). */
  knees: (number | null)[];
}

/** Totals over the cells of a run. */
export function gridsOutcome(cells: CellResult[], spec: RunSpec): GridsOutcome {
  const g = spec.grids?.concurrency;
  return {
    insertPoints: cells.reduce((n, c) => n + (c.grids?.insert.length ?? 0), 0),
    insertVerified: cells.reduce((n, c) => n + (c.grids?.insert.filter((r) => r.summary.verified).length ?? 0), 0),
    insertFlagged: cells.reduce((n, c) => n + (c.grids?.insert.filter((r) => pointFlags(r).marks.length).length ?? 0), 0),
    concurrencySteps: cells.reduce((n, c) => n + (c.grids?.concurrency.length ?? 0), 0),
    stepsFlagged: cells.reduce((n, c) => n + (c.grids?.concurrency.filter((r) => stepFlag(r) !== null).length ?? 0), 0),
    knees: g ? cells.filter((c) => c.grids?.concurrency.length).map((c) => steppingOutcome(c.grids!.concurrency, g).knee.clients) : [],
  };
}

/** The report.md sections of the load grids (empty when the run has none). */
export function gridsSections(spec: RunSpec, cells: CellResult[], label: (c: CellResult) => string): string[] {
  const out: string[] = [];
  const withSteps = cells.filter((c) => c.grids?.concurrency.length);
  if (spec.grids?.concurrency) {
    const g = ConcurrencyGridSpec.parse(spec.grids.concurrency);
    out.push(
      '## Concurrency stepping',
      '',
      `Closed-loop clients (each sends its next query when the last one returned, one connection each) over the mix ${(g.mix ?? []).map((e) => `${e.id}×${e.weight}`).join(', ') || 'of every selected query, weight 1'}; each step warms up ${g.warmupS} s (not counted), then is measured for ${g.durationS} s. QPS = successful queries that completed inside the measured window (whenever they started) / its measured seconds (a query still running at its end counts in the latency, not in QPS); a step whose window was shorter than 3 × its median latency is marked ⚠ short window. Latency: server-side \`query_duration_ms\` from \`system.query_log\` where the server keeps it, else client wall time (send → last byte), as the "latency source" column says; client wall P99 is shown beside it (the difference is time spent waiting outside the server). Knee: the step after which QPS rose by less than ${(g.kneeMinGain * 100).toFixed(0)} % or P99 grew by more than ${g.kneeP99Factor}×.`,
      '',
    );
    if (!withSteps.length) out.push('No cell measured a step (see the cells above for why).', '');
    for (const c of withSteps) {
      const t = concurrencyTable(c.grids!.concurrency);
      const o = steppingOutcome(c.grids!.concurrency, g);
      out.push(`### ${label(c)}`, '', markdownTable([t.head, ...t.rows]), '');
      out.push(`Knee: ${o.knee.clients === null ? 'none within the steps run' : `**${o.knee.clients} client${o.knee.clients === 1 ? '' : 's'}**`} — ${o.knee.reason}. Stepping ended: ${o.stopReason}.`, '');
      const notes = concurrencyNotes(c);
      if (notes.length) out.push(...notes.map((n) => `- ${n}`), '');
    }
  }
  const withPoints = cells.filter((c) => c.grids?.insert.length);
  if (spec.grids?.insert) {
    out.push(
      '## Insert grid',
      '',
      "Each point inserts into its own fresh table (the workload's schema, the cell's codec and table settings plus the profile's). Rows are generated on the server in the point's format before the timed loop (distinct rows per batch unless the spec says `data: repeat`), then closed-loop clients, one connection each, POST the batches. rows/s = rows the server acknowledged / client wall time of the loop (for async inserts, until the rows were visible); MB/s = body bytes sent / the same time (10^6 bytes). INSERT latency: client wall per request. parts / INSERT = parts the INSERTs created (`system.part_log` NewPart rows where the server keeps it, else Δ `MergeTreeDataWriterBlocks` in `system.events`, server-wide) / successful INSERTs; peak active parts and merges from `system.parts` / `system.merges` sampled during the loop; delayed / rejected = Δ `DelayedInserts` / `RejectedInserts` (`system.events`); peak memory = `MemoryTracking` (`system.metrics`) at a sample. Verified: `count()` of the table equals the rows acknowledged minus the rows sent as duplicates to a deduplicating table. ⚠ beside rows/s: INSERTs the server delayed (Δ `DelayedInserts`) or rejected (code 252 / Δ `RejectedInserts`), or a point measured by a retried activity — the figure then measures the throttling.",
      '',
    );
    if (!withPoints.length) out.push('No cell measured an insert point (see the cells above for why).', '');
    for (const c of withPoints) {
      const t = insertGridTable(c.grids!.insert);
      out.push(`### ${label(c)}`, '', markdownTable([t.head, ...t.rows]), '');
      const notes = insertGridNotes(c, spec);
      if (notes.length) out.push(...notes.map((n) => `- ${n}`), '');
    }
  }
  return out;
}
