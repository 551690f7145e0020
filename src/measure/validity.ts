/**
 * The validity record of a measured run: proof, from the server's own counters, that a run measured
 * what its label claims. Pure functions over counters already collected; "unknown" when a counter is
 * missing, never zero.
 *
 * Counter sources (see `RunSample.counters_source`): the run's `system.query_log` ProfileEvents where
 * the server keeps a query log; on the embedded engine, which has none but runs one statement at a
 * time, the difference of `system.events` just before and just after the run.
 */
import type { RunCounters, RunValidity } from '../schema/results';
import { fmtInt } from '../results/format';

/** Counters read per run. */
export const RUN_COUNTERS = [
  'CreatedReadBufferDirectIO',
  'CreatedReadBufferDirectIOFailed',
  'CreatedReadBufferAIO',
  'CreatedReadBufferAIOFailed',
  'ReadBufferAIOReadBytes',
  'CreatedReadBufferMMap',
  'CreatedReadBufferOrdinary',
  'OSReadBytes',
  'OSReadChars',
  'ReadBufferFromFileDescriptorReadBytes',
  'MarkCacheHits',
  'MarkCacheMisses',
  'UncompressedCacheHits',
  'UncompressedCacheMisses',
  // Rows and bytes the query selected from tables: read_rows / read_bytes where the engine reports
  // none (see `readFromCounters` in ./figures).
  'SelectedRows',
  'SelectedBytes',
  // Marks (granules) and parts the query selected, and the query condition cache's answers (25.4 and
  // later): what the versions section explains a change in read_rows with (src/results/report-versions.ts).
  'SelectedMarks',
  'SelectedParts',
  // Ranges of marks the query selected and the compressed bytes it read: with the three above and
  // read_rows / read_bytes, the run's work (deterministic for the same data and query: ./work).
  'SelectedRanges',
  'ReadCompressedBytes',
  'QueryConditionCacheHits',
  'QueryConditionCacheMisses',
] as const;

/**
 * Counters whose start→end difference over the whole cell is kept in `result.json`
 * (`metrics_delta.server_events`, from `system.events` snapshots of collect-metrics): what the cell
 * did (queries, inserted and merged rows, OS writes) and the read path that {@link RUN_COUNTERS}
 * judges per run (every read-path name here is also in RUN_COUNTERS, so both speak of the same
 * counters). Order is the order of the record's keys.
 */
export const CELL_COUNTERS = [
  'Query',
  'SelectQuery',
  'InsertedRows',
  'MergedRows',
  'OSReadBytes',
  'OSReadChars',
  'OSWriteBytes',
  'ReadBufferFromFileDescriptorReadBytes',
  'CreatedReadBufferDirectIO',
  'CreatedReadBufferDirectIOFailed',
  'CreatedReadBufferOrdinary',
  'MarkCacheHits',
  'MarkCacheMisses',
  'UncompressedCacheHits',
  'UncompressedCacheMisses',
] as const;

const n = (c: RunCounters | null | undefined, k: (typeof RUN_COUNTERS)[number]): number | null => {
  const v = c?.[k];
  return v === undefined || v === null || !Number.isFinite(v) ? null : v;
};

/**
 * Judge a cold run. Cold requires:
 * - marks and uncompressed blocks not served from ClickHouse's warm caches: the drops succeeded and
 *   any cache hit comes with misses (the run re-using what it loaded itself), see below;
 * - table data read from files (ReadBufferFromFileDescriptorReadBytes or ReadBufferAIOReadBytes > 0,
 *   or direct-I/O/AIO buffers created) and
 * - that read bypassed or could not find the OS page cache: direct I/O (or AIO, its older form) was
 *   used with no fallback, or the OS page cache was dropped before the run.
 * OSReadBytes is not used: after a page-cache drop it also counts the server re-reading its own code.
 * `undroppable`: caches on for the runs that this version cannot drop (`undroppableCaches` in
 * ./caches): one holding table data makes the run "cold?" at best, one holding plans is a note.
 */
export function judgeCold(
  c: RunCounters | null | undefined,
  osPageCache: string,
  drops: { sql: string; ok: boolean }[] = [],
  undroppable: readonly { text: string; serves: 'data' | 'plan' }[] = [],
): RunValidity {
  const reasons: string[] = [];
  let valid: boolean | null = true;
  const unknown = (what: string) => {
    reasons.push(`${what} unknown`);
    if (valid) valid = null;
  };
  const fail = (why: string) => {
    valid = false;
    reasons.push(why);
  };
  // After a successful drop, a run can still hit marks it loaded itself moments earlier (several
  // threads reading one part): hits with misses are that. All hits and no miss, or hits when the
  // drop did not happen, mean a warm cache.
  const markHits = n(c, 'MarkCacheHits');
  const markMisses = n(c, 'MarkCacheMisses');
  const uncHits = n(c, 'UncompressedCacheHits');
  const uncMisses = n(c, 'UncompressedCacheMisses');
  const dropped = (sql: string) => drops.some((d) => d.sql === sql && d.ok);
  if (markHits === null) unknown('MarkCacheHits');
  else if (markHits > 0 && (!dropped('SYSTEM DROP MARK CACHE') || !markMisses))
    fail(
      `${markHits} mark(s) came from the mark cache${dropped('SYSTEM DROP MARK CACHE') ? ' and none from storage' : ' (it was not dropped)'}`,
    );
  else if (markHits > 0)
    reasons.push(`note: ${markHits} in-run mark cache hit(s) after the drop (marks this run loaded itself)`);
  if (uncHits !== null && uncHits > 0 && (!dropped('SYSTEM DROP UNCOMPRESSED CACHE') || !uncMisses))
    fail(`${uncHits} block(s) came from the uncompressed cache`);
  const dio = n(c, 'CreatedReadBufferDirectIO');
  const aio = n(c, 'CreatedReadBufferAIO');
  const dioFailed = (n(c, 'CreatedReadBufferDirectIOFailed') ?? 0) + (n(c, 'CreatedReadBufferAIOFailed') ?? 0);
  const ordinary = n(c, 'CreatedReadBufferOrdinary');
  const mmap = n(c, 'CreatedReadBufferMMap');
  const fdBytes = n(c, 'ReadBufferFromFileDescriptorReadBytes');
  const aioBytes = n(c, 'ReadBufferAIOReadBytes');
  const bypass = (dio ?? 0) + (aio ?? 0) > 0 && dioFailed === 0;
  const osDropped = osPageCache === 'dropped';
  if (fdBytes === null && aioBytes === null && dio === null && aio === null) unknown('file read counters');
  else if ((fdBytes ?? 0) + (aioBytes ?? 0) === 0 && !bypass) fail('no table data was read from files');
  if (mmap !== null && mmap > 0 && !osDropped)
    fail(`${mmap} mmap read buffer(s): pages may have come from the OS page cache`);
  if (!bypass && !osDropped) {
    if (dio === null && aio === null) unknown('direct I/O counters');
    else
      fail(
        dioFailed
          ? `direct I/O fell back for ${dioFailed} buffer(s) and the OS page cache was not dropped`
          : `no direct-I/O read buffer was created${ordinary ? ` (${ordinary} ordinary)` : ''} and the OS page cache was not dropped`,
      );
  }
  // A cache on for the runs that nothing could empty: a data cache may have served the run (not
  // provably cold); a plan cache only saves planning (noted).
  for (const u of undroppable)
    if (u.serves === 'data') {
      reasons.push(`${u.text}: the run may have been served from it`);
      if (valid) valid = null;
    } else reasons.push(`note: ${u.text} (it holds planning information, not table data)`);
  return { valid, label: valid === true ? 'cold' : valid === false ? 'not cold' : 'cold?', reasons };
}

/** Judge the warm runs of a query against its cold run: warm should be faster. */
export function judgeWarm(coldMs: number | null, warmMinMs: number | null): RunValidity {
  if (coldMs === null || warmMinMs === null)
    return { valid: null, label: 'warm?', reasons: ['no cold run to compare with'] };
  if (warmMinMs < coldMs) return { valid: true, label: 'warm', reasons: [] };
  return {
    valid: false,
    label: 'not warmer',
    reasons: [`warm min ${warmMinMs.toFixed(2)} ms is not below cold ${coldMs.toFixed(2)} ms`],
  };
}

/**
 * Judge quiescence of one run: the active parts must not change during it, must be the parts the query
 * phase started on (a table changed under the phase — rows inserted or parts merged between runs by
 * anyone — measures another table), and no merge/mutation may run.
 * @param changedSincePhase the parts before the run differ from the phase's first snapshot: what changed, in words
 */
export function judgeQuiet(
  partsChanged: boolean,
  mergesOrMutations: number | null,
  changedSincePhase?: string,
): RunValidity {
  const reasons: string[] = [];
  if (partsChanged) reasons.push('the set of active parts changed during the run');
  if (changedSincePhase) reasons.push(`the table changed since the query phase began: ${changedSincePhase}`);
  if (mergesOrMutations === null) reasons.push('merges/mutations during the run unknown');
  else if (mergesOrMutations > 0) reasons.push(`${mergesOrMutations} merge(s)/mutation(s) ran on the table`);
  const valid =
    partsChanged || changedSincePhase || (mergesOrMutations ?? 0) > 0
      ? false
      : mergesOrMutations === null
        ? null
        : true;
  return { valid, label: valid === false ? 'not quiet' : valid === null ? 'quiet?' : 'quiet', reasons };
}

/** What {@link insertPointFlags} reads of an insert point (its record's loop, events and attempt). */
export interface InsertPointFacts {
  /** Successful and failed INSERTs of the timed loop. */
  inserts: number;
  errors: number;
  /** Failures by ClickHouse code (`252` = TOO_MANY_PARTS). */
  errorsByCode: Record<string, number>;
  /** Δ `system.events` over the point (`DelayedInserts`, `DelayedInsertsMilliseconds`, `RejectedInserts`; null or absent: unknown). */
  deltas: Record<string, number | null | undefined>;
  /** Temporal attempt of the activity that measured the point (1 = first). */
  attempt: number;
}

/** How a point's INSERTs were throttled, rejected or retried; every list entry qualifies its rows/s. */
export interface InsertPointFlags {
  /** INSERTs the server delayed (Δ `DelayedInserts`, server-wide over the point), and the delay in ms (Δ `DelayedInsertsMilliseconds`). */
  delayed: number | null;
  delayedMs: number | null;
  /** INSERTs refused for too many parts: the larger of Δ `RejectedInserts` and the client's count of code 252. */
  rejected: number;
  /** A short mark for the table (`delayed 19/20`, `rejected 18/20`, `retried`), empty when none applies. */
  marks: string[];
  /** The same in words, with the sources. */
  reasons: string[];
}

/**
 * Judge an insert point's figure: rows/s of INSERTs the server delayed (parts_to_delay_insert) or
 * rejected (parts_to_throw_insert, code 252), or of a point measured by a retried activity, measures
 * that too, so it is flagged. Sources: `system.events` deltas over the point (server-wide; on a
 * server doing nothing else they are the point's) and the inserter's errors by code. Pure.
 */
export function insertPointFlags(f: InsertPointFacts): InsertPointFlags {
  const num = (k: string): number | null => {
    const v = f.deltas[k];
    return typeof v === 'number' && Number.isFinite(v) ? v : null;
  };
  const sent = f.inserts + f.errors;
  const delayed = num('DelayedInserts');
  const delayedMs = num('DelayedInsertsMilliseconds');
  const rejected = Math.max(num('RejectedInserts') ?? 0, f.errorsByCode['252'] ?? 0);
  const marks: string[] = [];
  const reasons: string[] = [];
  if (delayed !== null && delayed > 0) {
    marks.push(`delayed ${fmtInt(delayed)}/${fmtInt(sent)}`);
    reasons.push(
      `${fmtInt(delayed)} of ${fmtInt(sent)} INSERTs delayed by the server${delayedMs !== null ? ` for ${fmtInt(delayedMs)} ms in all` : ''} (system.events DelayedInserts +${delayed}${delayedMs !== null ? `, DelayedInsertsMilliseconds +${delayedMs}` : ''}: too many parts, parts_to_delay_insert)`,
    );
  }
  if (rejected > 0) {
    marks.push(`rejected ${fmtInt(rejected)}/${fmtInt(sent)}`);
    reasons.push(
      `${fmtInt(rejected)} of ${fmtInt(sent)} INSERTs rejected (code 252 TOO_MANY_PARTS ×${f.errorsByCode['252'] ?? 0}, system.events RejectedInserts +${num('RejectedInserts') ?? 'n/a'}): rows/s counts only the accepted ones`,
    );
  }
  if (f.attempt > 1) {
    marks.push('retried');
    reasons.push(`measured by attempt ${f.attempt} of its activity (the earlier attempt failed)`);
  }
  return { delayed, delayedMs, rejected, marks, reasons };
}
