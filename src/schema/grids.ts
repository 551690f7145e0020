/**
 * Load grids (seeds 002 and 004): what single-query timings cannot show.
 *
 * - The **insert grid** inserts pre-generated rows of the workload's schema from the worker, for every
 *   (batch size × concurrency × insert settings profile × format) point, each point its own durable
 *   activity (`insertPoint`, src/activities/insert-grid.ts) on its own fresh table.
 * - **Concurrency stepping** runs closed-loop clients over a weighted query mix at growing client
 *   counts, each step its own activity (`concurrencyStep`, src/activities/concurrency-steps.ts); the
 *   workflow finds the knee and stops on errors or a latency blow-up with {@link nextStepDecision}.
 *
 * Pure (zod and types only): the matrix and cell workflows import it.
 */
import { z } from 'zod';

const settingName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/);
const settingValue = z.union([z.number(), z.string()]);

/**
 * A named settings profile: query-level settings (sent with every statement the profile applies to)
 * and MergeTree settings (into the table's `SETTINGS` clause). Every name is checked against the
 * target's capability probe at its level before anything is loaded, like the spec's `settings`.
 */
export const SettingsProfile = z.strictObject({
  /** Shown in cell keys, point keys and reports: lower-case letters, digits, `-`, `_`. */
  name: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,23}$/, 'lower-case letters, digits, "-" and "_", at most 24 characters'),
  query: z.record(settingName, settingValue).default({}),
  mergeTree: z.record(settingName, settingValue).default({}),
});
export type SettingsProfile = z.infer<typeof SettingsProfile>;

/** Formats the inserter sends. The server encodes the rows itself before the timed loop (see `InsertGridSpec`). */
export const INSERT_FORMATS = ['RowBinary', 'Native', 'JSONEachRow'] as const;
export type InsertFormat = (typeof INSERT_FORMATS)[number];

const ascendingUnique = (xs: readonly number[]) => xs.every((x, i) => i === 0 || x > xs[i - 1]);

/**
 * `grids.insert`: the insert grid. Every combination of `batchSizes × concurrency × settings × formats`
 * is one point. A point creates its own table from the workload's schema (the cell's codec, the
 * spec's and the profile's MergeTree settings), generates `rows` distinct rows on the server in the
 * chosen format BEFORE its timed loop (one batch per `numbers(offset, batch)` slice of the workload's
 * generator), then `concurrency` closed-loop clients, each with its own connection, POST the batches.
 */
export const InsertGridSpec = z.strictObject({
  /** Rows per INSERT. */
  batchSizes: z
    .array(z.int().min(1).max(10_000_000))
    .min(1)
    .refine(ascendingUnique, 'batch sizes must be ascending and unique')
    .default([1_000, 10_000, 100_000]),
  /** Clients sending INSERTs at the same time (closed loop: each sends its next batch when the last one returned). */
  concurrency: z
    .array(z.int().min(1).max(256))
    .min(1)
    .refine(ascendingUnique, 'concurrency levels must be ascending and unique')
    .default([1, 4]),
  /** Insert settings profiles (e.g. `{name: async, query: {async_insert: 1, wait_for_async_insert: 1}}`). */
  settings: z
    .array(SettingsProfile)
    .min(1)
    .refine((ps) => new Set(ps.map((p) => p.name)).size === ps.length, 'profile names must be unique')
    .default([{ name: 'default', query: {}, mergeTree: {} }]),
  /** Formats of the INSERT bodies. RowBinary and Native are binary; JSONEachRow is the text comparison point. */
  formats: z
    .array(z.enum(INSERT_FORMATS))
    .min(1)
    .refine((xs) => new Set(xs).size === xs.length, 'formats must be unique')
    .default(['RowBinary']),
  /** Rows each point inserts (all generated before its timed loop; the bytes stay in the worker's memory). */
  rows: z.int().min(1).max(100_000_000).default(1_000_000),
  /**
   * Most memory the generated rows of one point may take in the worker, MiB. A point whose rows would
   * not fit fails before its timed loop, saying so (the rows are held in memory so that generating them
   * is not part of what is measured).
   */
  maxBufferMiB: z.int().min(1).max(1_048_576).default(2048),
  /** Stop a point after this long (s) even if rows are left; the point then records the rows it sent. */
  durationS: z.number().min(1).max(86_400).optional(),
  /**
   * `distinct`: every batch holds different rows, so deduplication never drops one. `repeat`: every
   * batch is the first batch again, to measure what deduplication costs and drops.
   */
  data: z.enum(['distinct', 'repeat']).default('distinct'),
  /**
   * Connections the inserter may open. Absent: one per client of the point. A value below a point's
   * concurrency is refused by validation: clients would wait for a connection and the point would
   * measure the pool, not the server.
   */
  maxConnections: z.int().min(1).max(1024).optional(),
  /** Interval of the server sampler (active parts, merges, memory) during a point, ms. */
  sampleMs: z.int().min(50).max(60_000).default(250),
  /** Wait for asynchronous inserts to land (rows visible in the table) at most this long, ms. */
  flushTimeoutMs: z.int().min(1_000).max(3_600_000).default(120_000),
  /** Keep each point's table after the point (default: dropped, so the grid's disk use stays bounded). */
  keepTables: z.boolean().default(false),
});
export type InsertGridSpec = z.infer<typeof InsertGridSpec>;

/** One query of the stepping mix with its weight (a client picks the next query with probability weight / Σ weights). */
export const MixEntry = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9_-]+$/),
  weight: z.number().positive().default(1),
});

/**
 * `grids.concurrency`: closed-loop clients per step over a weighted query mix. Each step warms up for
 * `warmupS` (not counted), then measures for `durationS`, with its own connection pool sized to the
 * step. The workflow stops stepping when a step's error rate exceeds `stopErrorRate` or its P99 exceeds
 * `stopP99Factor` × the first step's P99.
 */
export const ConcurrencyGridSpec = z.strictObject({
  /** Client counts, ascending (the seed: 10, 30, 50, 100, 200). */
  steps: z
    .array(z.int().min(1).max(1024))
    .min(2, 'at least two steps (a knee needs something to compare with)')
    .refine(ascendingUnique, 'steps must be ascending and unique')
    .default([1, 2, 4, 8, 16, 32]),
  /** The query mix; default: every selected query of the workload, weight 1. */
  mix: z.array(MixEntry).min(1).optional(),
  /** Measured seconds per step. */
  durationS: z.number().min(0.5).max(86_400).default(30),
  /** Unmeasured seconds at the start of each step. */
  warmupS: z.number().min(0).max(3_600).default(5),
  /** Knee: the first step whose QPS rose by less than this share over the previous step (0.1 = 10 %)… */
  kneeMinGain: z.number().min(0).max(10).default(0.1),
  /** …or whose P99 grew by more than this factor over the previous step. */
  kneeP99Factor: z.number().min(1).max(1_000).default(2),
  /** Stop stepping after a step whose error share (errors / requests) exceeds this. */
  stopErrorRate: z.number().min(0).max(1).default(0.01),
  /** Stop stepping after a step whose P99 exceeds this factor × the first step's P99. */
  stopP99Factor: z.number().min(1).max(10_000).default(20),
});
export type ConcurrencyGridSpec = z.infer<typeof ConcurrencyGridSpec>;

/** `grids`: load grids run in every cell after its query steps. */
export const GridsSpec = z.strictObject({
  insert: InsertGridSpec.optional(),
  concurrency: ConcurrencyGridSpec.optional(),
});
export type GridsSpec = z.infer<typeof GridsSpec>;

/** One point of the insert grid, as the workflow passes it to `insertPoint`. */
export const InsertPoint = z.object({
  /** `b<batch>-c<concurrency>-<profile>-<format>`, e.g. `b10000-c4-async-rowbinary`: file names, table suffixes, reports. */
  key: z.string(),
  batchSize: z.number(),
  concurrency: z.number(),
  profile: SettingsProfile,
  format: z.enum(INSERT_FORMATS),
});
export type InsertPoint = z.infer<typeof InsertPoint>;

/** Key of an insert point (see {@link InsertPoint.key}). */
export function insertPointKey(p: Omit<InsertPoint, 'key'>): string {
  return `b${p.batchSize}-c${p.concurrency}-${p.profile.name}-${p.format.toLowerCase()}`;
}

/** The grid's points: batch sizes outer, then concurrency, settings profiles, formats (spec order). */
export function insertPoints(g: InsertGridSpec): InsertPoint[] {
  const out: InsertPoint[] = [];
  for (const batchSize of g.batchSizes)
    for (const concurrency of g.concurrency)
      for (const profile of g.settings)
        for (const format of g.formats) {
          const p = { batchSize, concurrency, profile, format };
          out.push({ key: insertPointKey(p), ...p });
        }
  return out;
}

/** Latency distribution of one point or step, ms. Source named by the record that holds it. */
export const LatencySummary = z.object({
  count: z.number(),
  p50: z.number().nullable(),
  p95: z.number().nullable(),
  p99: z.number().nullable(),
  max: z.number().nullable(),
});
export type LatencySummary = z.infer<typeof LatencySummary>;

/**
 * What `insertPoint` returns to the workflow (small: the full record is `grids/insert-<key>.json`
 * in the cell's folder).
 */
export const InsertPointSummary = z.object({
  key: z.string(),
  /** Rows the server acknowledged per second of the timed loop (until the rows were visible, for async inserts). */
  rowsPerS: z.number(),
  /** Body bytes sent per second, MB/s (10^6 bytes), in the point's format. */
  mbPerS: z.number(),
  /** Client wall time per INSERT (request sent → response read), ms. */
  latencyMs: LatencySummary,
  inserts: z.number(),
  errors: z.number(),
  /** `count()` after the point equals rows acknowledged minus rows dropped as duplicates. */
  verified: z.boolean(),
  /** The worker's CPU was saturated during the timed loop: the figure may measure the client. */
  clientBound: z.boolean(),
  /** INSERTs the server delayed (Δ `system.events` DelayedInserts over the point, server-wide); null: unknown. Absent in older records. */
  delayedInserts: z.number().nullable().optional(),
  /** Their delay in all, ms (Δ DelayedInsertsMilliseconds); null: unknown. */
  delayedMs: z.number().nullable().optional(),
  /** INSERTs rejected for too many parts (the larger of Δ RejectedInserts and the code-252 failures). */
  rejectedInserts: z.number().optional(),
  /** What qualifies rows/s (delayed, rejected, retried), in words; empty: nothing (`insertPointFlags`, src/measure/validity.ts). */
  flags: z.array(z.string()).optional(),
  /** Record file, relative to the cell folder. */
  file: z.string(),
  attempt: z.number().optional(),
});
export type InsertPointSummary = z.infer<typeof InsertPointSummary>;

/** What the workflow passes to `concurrencyStep`. */
export const ConcurrencyStepInput = z.object({
  clients: z.number(),
  /** 1-based step index. */
  n: z.number(),
  /** The spec's mix (weights as in the spec); empty: every selected query of the cell, weight 1. */
  mix: z.array(z.object({ id: z.string(), weight: z.number() })),
  durationS: z.number(),
  warmupS: z.number(),
});
export type ConcurrencyStepInput = z.infer<typeof ConcurrencyStepInput>;

/** What `concurrencyStep` returns (the full record is `grids/concurrency-c<clients>.json`). */
export const ConcurrencyStepSummary = z.object({
  clients: z.number(),
  /** Successful queries that completed inside the measured window / its measured length (`windowMs`), per s. */
  qps: z.number(),
  /** The measured window's length, ms (open → close on the worker, `performance.now()`): the QPS denominator. Absent in older records. */
  windowMs: z.number().optional(),
  /**
   * Why the step's QPS is not trustworthy: the window was shorter than {@link MIN_WINDOW_LATENCIES} ×
   * the step's median client wall latency, so a handful of completions decide it. null: no flag.
   * Absent in older records.
   */
  windowFlag: z.string().nullable().optional(),
  requests: z.number(),
  errors: z.number(),
  /** Errors by ClickHouse code (or `client:<name>` for a client-side failure). */
  errorsByCode: z.record(z.string(), z.number()),
  /** Latency of successful queries, ms; `latencySource` says which clock. */
  latencyMs: LatencySummary,
  /** `query_log` (server-side `query_duration_ms`) or `client wall` (request sent → last byte read). */
  latencySource: z.enum(['query_log', 'client wall']),
  /** Client wall latency, always (ms): with the server-side figure it shows queueing. */
  wallLatencyMs: LatencySummary,
  clientBound: z.boolean(),
  file: z.string(),
  attempt: z.number().optional(),
});
export type ConcurrencyStepSummary = z.infer<typeof ConcurrencyStepSummary>;

/** A step's window must last at least this many median latencies for its QPS to stand unflagged. */
export const MIN_WINDOW_LATENCIES = 3;

/**
 * Flag a step whose measured window is shorter than {@link MIN_WINDOW_LATENCIES} × its median client
 * wall latency (ms both). Pure.
 * @returns the reason, or null (no flag; also when no request succeeded: nothing to compare).
 */
export function windowFlag(windowMs: number, wallP50Ms: number | null): string | null {
  if (wallP50Ms === null || !(wallP50Ms > 0)) return null;
  if (windowMs >= MIN_WINDOW_LATENCIES * wallP50Ms) return null;
  return `window ${(windowMs / 1000).toFixed(2)} s < ${MIN_WINDOW_LATENCIES} × median latency ${(wallP50Ms / 1000).toFixed(2)} s: too few completions per client for a QPS`;
}

/** The workflow's decision after a step. */
export interface StepDecision {
  /** Run the next step? */
  go: boolean;
  /** Why stepping stopped (absent while it goes on, and after the last step: `all steps ran`). */
  stopReason?: string;
}

/**
 * After a concurrency step: go on, or stop because of errors or a latency blow-up. Pure.
 * @param done the steps measured so far, in order.
 */
export function nextStepDecision(done: readonly ConcurrencyStepSummary[], g: ConcurrencyGridSpec): StepDecision {
  const last = done[done.length - 1];
  if (!last) return { go: true };
  const errorRate = last.requests ? last.errors / last.requests : 0;
  if (last.requests === 0)
    return { go: false, stopReason: `no request completed at ${last.clients} clients` };
  if (errorRate > g.stopErrorRate)
    return {
      go: false,
      stopReason: `errors: ${(errorRate * 100).toFixed(1)} % of requests failed at ${last.clients} clients (stop above ${(g.stopErrorRate * 100).toFixed(1)} %)`,
    };
  const first = done[0].latencyMs.p99;
  if (first !== null && last.latencyMs.p99 !== null && last.latencyMs.p99 > g.stopP99Factor * first)
    return {
      go: false,
      stopReason: `latency blow-up: P99 ${last.latencyMs.p99.toFixed(1)} ms at ${last.clients} clients is more than ${g.stopP99Factor}× the P99 at ${done[0].clients} (${first.toFixed(1)} ms)`,
    };
  if (done.length >= g.steps.length) return { go: false, stopReason: 'all steps ran' };
  return { go: true };
}

/** Where throughput stops rising, and why. */
export interface Knee {
  /** Clients of the knee step: the last step worth adding clients for (the step before the first that gained too little or whose P99 blew up); null: no knee within the steps run. */
  clients: number | null;
  reason: string;
}

/**
 * The knee of a stepping: the step after which throughput stops rising (QPS gain below
 * `kneeMinGain`) or P99 grows by more than `kneeP99Factor`. Pure.
 */
export function findKnee(done: readonly ConcurrencyStepSummary[], g: ConcurrencyGridSpec): Knee {
  for (let i = 1; i < done.length; i++) {
    const prev = done[i - 1];
    const cur = done[i];
    const gain = prev.qps > 0 ? cur.qps / prev.qps - 1 : Infinity;
    if (gain < g.kneeMinGain)
      return {
        clients: prev.clients,
        reason: `QPS ${gain >= 0 ? 'rose' : 'fell'} ${(Math.abs(gain) * 100).toFixed(1)} % from ${prev.clients} to ${cur.clients} clients (${prev.qps.toFixed(1)} → ${cur.qps.toFixed(1)}), ${gain >= 0 ? `a gain below ${(g.kneeMinGain * 100).toFixed(0)} %` : 'no gain'}`,
      };
    if (prev.latencyMs.p99 !== null && cur.latencyMs.p99 !== null && cur.latencyMs.p99 > g.kneeP99Factor * prev.latencyMs.p99)
      return {
        clients: prev.clients,
        reason: `P99 grew ${(cur.latencyMs.p99 / prev.latencyMs.p99).toFixed(2)}× from ${prev.clients} to ${cur.clients} clients (${prev.latencyMs.p99.toFixed(1)} → ${cur.latencyMs.p99.toFixed(1)} ms), above ${g.kneeP99Factor}×`,
      };
  }
  return { clients: null, reason: `QPS still rose and P99 stayed within ${g.kneeP99Factor}× up to ${done[done.length - 1]?.clients ?? 0} clients` };
}
