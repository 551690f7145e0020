/**
 * The validity record of a measured run: proof, from the server's own counters, that a run measured
 * what its label claims. Pure functions over counters already collected; "unknown" when a counter is
 * missing, never zero.
 *
 * Counter sources (see `RunSample.counters_source`): the run's `system.query_log` ProfileEvents where
 * the server keeps a query log; on the embedded engine, which has none but runs one statement at a
 * time, the difference of `system.events` just before and just after the run.
 */

/** Counters read per run. */
export const RUN_COUNTERS = [
  'CreatedReadBufferDirectIO',
  'CreatedReadBufferDirectIOFailed',
  'CreatedReadBufferOrdinary',
  'OSReadBytes',
  'OSReadChars',
  'ReadBufferFromFileDescriptorReadBytes',
  'MarkCacheHits',
  'MarkCacheMisses',
  'UncompressedCacheHits',
  'UncompressedCacheMisses',
] as const;

export type RunCounters = Partial<Record<(typeof RUN_COUNTERS)[number], number | null>>;

/** Verdict on one run. `valid: null` = could not be judged (counters unknown). */
export interface RunValidity {
  valid: boolean | null;
  /** Short label shown next to the number: `cold`, `not cold`, `cold?`, `warm`, `not warm`, … */
  label: string;
  /** Reasons, one per failed or unknown check. */
  reasons: string[];
}

const n = (c: RunCounters | null | undefined, k: (typeof RUN_COUNTERS)[number]): number | null => {
  const v = c?.[k];
  return v === undefined || v === null || !Number.isFinite(v) ? null : v;
};

/**
 * Judge a cold run. Cold requires: marks and blocks not served from ClickHouse's caches alone (a
 * warm cache shows hits and no miss), and data actually read from storage — either
 * direct-I/O read buffers were created with no fallback, or the OS page cache was dropped and bytes
 * came from the block device (OSReadBytes > 0).
 */
export function judgeCold(c: RunCounters | null | undefined, osPageCache: string): RunValidity {
  const reasons: string[] = [];
  let valid: boolean | null = true;
  const unknown = (what: string) => {
    reasons.push(`${what} unknown`);
    if (valid) valid = null;
  };
  // A query may hit marks it loaded itself moments earlier; a cold run must load at least some marks
  // from storage, and a warm cache shows as hits with no miss at all.
  const markHits = n(c, 'MarkCacheHits');
  const markMisses = n(c, 'MarkCacheMisses');
  const uncHits = n(c, 'UncompressedCacheHits');
  const uncMisses = n(c, 'UncompressedCacheMisses');
  if (markMisses !== null && markMisses > 0) {
    // Some marks were loaded from storage: the mark cache did not serve the run.
  } else if (markHits !== null && markHits > 0) {
    valid = false;
    reasons.push(`all ${markHits} mark(s) came from the mark cache (no miss)`);
  } else if (markHits === null || markMisses === null) unknown('MarkCacheHits/Misses');
  if (uncHits !== null && uncHits > 0 && (uncMisses ?? 0) === 0) {
    valid = false;
    reasons.push(`all ${uncHits} block(s) came from the uncompressed cache (no miss)`);
  }
  const dio = n(c, 'CreatedReadBufferDirectIO');
  const dioFailed = n(c, 'CreatedReadBufferDirectIOFailed');
  const ordinary = n(c, 'CreatedReadBufferOrdinary');
  const osRead = n(c, 'OSReadBytes');
  const directIo = dio !== null && dio > 0 && (dioFailed ?? 0) === 0;
  const osDropped = osPageCache === 'dropped';
  if (!directIo && !osDropped) {
    if (dio === null && osRead === null) unknown('direct I/O and disk read counters');
    else {
      valid = false;
      reasons.push(
        dio === 0 || dio === null
          ? `no direct-I/O read buffer was created${ordinary ? ` (${ordinary} ordinary)` : ''} and the OS page cache was not dropped: reads may have come from the page cache`
          : `direct I/O failed for ${dioFailed} buffer(s) and the OS page cache was not dropped`,
      );
    }
  }
  if (osDropped && !directIo && osRead !== null && osRead === 0) {
    valid = false;
    reasons.push('OSReadBytes = 0: nothing came from the block device');
  }
  return { valid, label: valid === true ? 'cold' : valid === false ? 'not cold' : 'cold?', reasons };
}

/** Judge the warm runs of a query against its cold run: warm should be faster. */
export function judgeWarm(coldMs: number | null, warmMinMs: number | null): RunValidity {
  if (coldMs === null || warmMinMs === null) return { valid: null, label: 'warm?', reasons: ['no cold run to compare with'] };
  if (warmMinMs < coldMs) return { valid: true, label: 'warm', reasons: [] };
  return { valid: false, label: 'not warmer', reasons: [`warm min ${warmMinMs.toFixed(2)} ms is not below cold ${coldMs.toFixed(2)} ms`] };
}

/** Judge quiescence of one run: the active parts must not change and no merge/mutation may run. */
export function judgeQuiet(partsChanged: boolean, mergesOrMutations: number | null): RunValidity {
  const reasons: string[] = [];
  if (partsChanged) reasons.push('the set of active parts changed during the run');
  if (mergesOrMutations === null) reasons.push('merges/mutations during the run unknown');
  else if (mergesOrMutations > 0) reasons.push(`${mergesOrMutations} merge(s)/mutation(s) ran on the table`);
  const valid = partsChanged || (mergesOrMutations ?? 0) > 0 ? false : mergesOrMutations === null ? null : true;
  return { valid, label: valid === false ? 'not quiet' : 'quiet', reasons };
}
