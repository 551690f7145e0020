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

/** A table: header and body rows of text. */
export interface TextTable {
  head: string[];
  rows: string[][];
}

function ms(x: number | null): string {
  if (x === null) return 'n/a';
  return x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2);
}

function lat(l: { p50: number | null; p95: number | null; p99: number | null; max: number | null }): string {
  return `${ms(l.p50)} / ${ms(l.p95)} / ${ms(l.p99)} / ${ms(l.max)}`;
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
        fmtInt(Math.round(s.rowsPerS)),
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
        s.qps.toFixed(1),
        lat(s.latencyMs),
        s.latencySource === 'query_log' ? 'server (query_log query_duration_ms)' : 'client wall',
        ms(s.wallLatencyMs.p99),
        fmtInt(s.requests),
        s.errors ? `${fmtInt(s.errors)} (${codes(s.errorsByCode)})` : '0',
        s.clientBound ? '**yes**' : 'no',
      ];
    }),
  };
}

/** The knee of a cell's stepping and why stepping stopped, from its records and the spec. */
export function steppingOutcome(
  steps: ConcurrencyStepRecord[],
  g: ConcurrencyGridSpec,
): { knee: Knee; stopReason: string } {
  const done = steps.map((r) => r.summary as unknown as ConcurrencyStepSummary);
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
  concurrencySteps: number;
  /** The knee's client count per cell with a stepping (null: no knee within the steps). */
  knees: (number | null)[];
}

/** Totals over the cells of a run. */
export function gridsOutcome(cells: CellResult[], spec: RunSpec): GridsOutcome {
  const g = spec.grids?.concurrency;
  return {
    insertPoints: cells.reduce((n, c) => n + (c.grids?.insert.length ?? 0), 0),
    insertVerified: cells.reduce((n, c) => n + (c.grids?.insert.filter((r) => r.summary.verified).length ?? 0), 0),
    concurrencySteps: cells.reduce((n, c) => n + (c.grids?.concurrency.length ?? 0), 0),
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
      `Closed-loop clients (each sends its next query when the last one returned, one connection each) over the mix ${(g.mix ?? []).map((e) => `${e.id.toUpperCase()}×${e.weight}`).join(', ') || 'of every selected query, weight 1'}; each step warms up ${g.warmupS} s (not counted), then is measured for ${g.durationS} s. QPS = successful queries completed in the measured window / its seconds. Latency: server-side \`query_duration_ms\` from \`system.query_log\` where the server keeps it, else client wall time (send → last byte), as the "latency source" column says; client wall P99 is shown beside it (the difference is time spent waiting outside the server). Knee: the step after which QPS rose by less than ${(g.kneeMinGain * 100).toFixed(0)} % or P99 grew by more than ${g.kneeP99Factor}×.`,
      '',
    );
    if (!withSteps.length) out.push('No cell measured a step (see the cells above for why).', '');
    for (const c of withSteps) {
      const t = concurrencyTable(c.grids!.concurrency);
      const o = steppingOutcome(c.grids!.concurrency, g);
      out.push(`### ${label(c)}`, '', markdownTable([t.head, ...t.rows]), '');
      out.push(`Knee: ${o.knee.clients === null ? 'none within the steps run' : `**${o.knee.clients} client${o.knee.clients === 1 ? '' : 's'}**`} — ${o.knee.reason}. Stepping ended: ${o.stopReason}.`, '');
      if (c.target_kind === 'embedded')
        out.push('The embedded engine runs one statement at a time (its HTTP front end serialises statements on one chdb session), so more clients queue rather than run in parallel: expect QPS to stay flat and client wall latency to grow with clients. A real server runs them concurrently.', '');
      const bound = c.grids!.concurrency.filter((r) => r.summary.clientBound);
      for (const r of bound) out.push(`- ⚠ ${r.summary.clients} clients: client-bound — ${r.cpu?.reason ?? 'no CPU figures'}`);
      if (bound.length) out.push('');
    }
  }
  const withPoints = cells.filter((c) => c.grids?.insert.length);
  if (spec.grids?.insert) {
    out.push(
      '## Insert grid',
      '',
      "Each point inserts into its own fresh table (the workload's schema, the cell's codec and table settings plus the profile's). Rows are generated on the server in the point's format before the timed loop (distinct rows per batch unless the spec says `data: repeat`), then closed-loop clients, one connection each, POST the batches. rows/s = rows the server acknowledged / client wall time of the loop (for async inserts, until the rows were visible); MB/s = body bytes sent / the same time (10^6 bytes). INSERT latency: client wall per request. parts / INSERT = parts the INSERTs created (`system.part_log` NewPart rows where the server keeps it, else Δ `MergeTreeDataWriterBlocks` in `system.events`, server-wide) / successful INSERTs; peak active parts and merges from `system.parts` / `system.merges` sampled during the loop; delayed / rejected = Δ `DelayedInserts` / `RejectedInserts` (`system.events`); peak memory = `MemoryTracking` (`system.metrics`) at a sample. Verified: `count()` of the table equals the rows acknowledged minus the rows sent as duplicates to a deduplicating table.",
      '',
    );
    if (!withPoints.length) out.push('No cell measured an insert point (see the cells above for why).', '');
    for (const c of withPoints) {
      const t = insertGridTable(c.grids!.insert);
      out.push(`### ${label(c)}`, '', markdownTable([t.head, ...t.rows]), '');
      const notes = [
        ...new Set(c.grids!.insert.flatMap((r) => (r.async_insert.note ? [`${r.point.profile.name}: ${r.async_insert.note}`] : []))),
      ];
      for (const n of notes) out.push(`- ${n}`);
      for (const r of c.grids!.insert.filter((x) => x.summary.clientBound))
        out.push(`- ⚠ ${r.summary.key}: client-bound — ${r.cpu.reason}`);
      for (const r of c.grids!.insert.filter((x) => x.loop.stopped_by === 'duration'))
        out.push(`- ${r.summary.key}: stopped by the point's duration limit before every row was sent`);
      if (notes.length || c.grids!.insert.some((x) => x.summary.clientBound || x.loop.stopped_by === 'duration')) out.push('');
    }
  }
  return out;
}
