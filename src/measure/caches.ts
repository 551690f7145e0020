/**
 * The server caches that can serve a repeated query, per version: which setting turns each on, which
 * statement drops it, and — from a cell's capability probe and its runs' settings — which are on but
 * cannot be dropped (recorded in each cold run's validity and in `cold_definition`).
 *
 * Facts from the real engines (test/fixtures/versions/<v>/caches.json, scripts/capture-version-fixtures.py):
 * `SYSTEM DROP … CACHE` for MARK, UNCOMPRESSED, QUERY, INDEX MARK, INDEX UNCOMPRESSED, MMAP, FILESYSTEM,
 * COMPILED EXPRESSION on 23.10 … 26.9; PAGE from 24.8; QUERY CONDITION, PRIMARY INDEX, VECTOR SIMILARITY
 * INDEX from 25.8; TEXT INDEX CACHES from 26.3; "SKIPPING INDEX" in none. Defaults: `use_query_condition_cache`
 * = 1 from 25.8 (absent before), `compile_expressions` 0 → 1 (24.8 → 25.8), `use_text_index_tokens_cache` /
 * `use_text_index_header_cache` = 1 on 26.9 (0 on 26.3), `use_statistics_cache` = 1 from 26.3 with no
 * statement that drops it.
 */
import type { CapabilityProbe } from '../schema/results';

/** What a cache holds: table `data` (a hit replaces a read) or `plan` information (a hit saves planning only). */
export type CacheServes = 'data' | 'plan';

/** One server cache: the statement that drops it, and when it is on. */
export interface ServerCache {
  /** Name as the `SYSTEM DROP <name> CACHE` statement spells it (lower case). */
  name: string;
  /** The statement that empties it; null when no version has one. */
  drop: string | null;
  /** Always on (a server-level cache), or on when any of these query / MergeTree settings is non-zero. */
  on: 'always' | { settings: string[] };
  serves: CacheServes;
}

/** Every cache chbench knows, oldest first. The drop statements are the ones the probe tries. */
export const SERVER_CACHES: readonly ServerCache[] = [
  { name: 'mark', drop: 'SYSTEM DROP MARK CACHE', on: 'always', serves: 'data' },
  {
    name: 'uncompressed',
    drop: 'SYSTEM DROP UNCOMPRESSED CACHE',
    on: { settings: ['use_uncompressed_cache'] },
    serves: 'data',
  },
  { name: 'index mark', drop: 'SYSTEM DROP INDEX MARK CACHE', on: 'always', serves: 'data' },
  { name: 'index uncompressed', drop: 'SYSTEM DROP INDEX UNCOMPRESSED CACHE', on: 'always', serves: 'data' },
  { name: 'mmap', drop: 'SYSTEM DROP MMAP CACHE', on: { settings: ['min_bytes_to_use_mmap_io'] }, serves: 'data' },
  {
    name: 'compiled expression',
    drop: 'SYSTEM DROP COMPILED EXPRESSION CACHE',
    on: { settings: ['compile_expressions'] },
    serves: 'plan',
  },
  { name: 'query', drop: 'SYSTEM DROP QUERY CACHE', on: { settings: ['use_query_cache'] }, serves: 'data' },
  { name: 'filesystem', drop: 'SYSTEM DROP FILESYSTEM CACHE', on: 'always', serves: 'data' },
  {
    name: 'query condition',
    drop: 'SYSTEM DROP QUERY CONDITION CACHE',
    on: { settings: ['use_query_condition_cache'] },
    serves: 'data',
  },
  {
    name: 'page',
    drop: 'SYSTEM DROP PAGE CACHE',
    on: {
      settings: [
        'use_page_cache_for_disks_without_file_cache',
        'use_page_cache_for_local_disks',
        'use_page_cache_for_object_storage',
      ],
    },
    serves: 'data',
  },
  {
    name: 'primary index',
    drop: 'SYSTEM DROP PRIMARY INDEX CACHE',
    on: { settings: ['use_primary_key_cache'] },
    serves: 'data',
  },
  { name: 'vector similarity index', drop: 'SYSTEM DROP VECTOR SIMILARITY INDEX CACHE', on: 'always', serves: 'data' },
  {
    name: 'text index',
    drop: 'SYSTEM DROP TEXT INDEX CACHES',
    on: {
      settings: [
        'use_text_index_tokens_cache',
        'use_text_index_negative_tokens_cache',
        'use_text_index_header_cache',
        'use_text_index_postings_cache',
        'use_text_index_dictionary_cache',
      ],
    },
    serves: 'data',
  },
  { name: 'skipping index', drop: 'SYSTEM DROP SKIPPING INDEX CACHE', on: 'always', serves: 'data' },
  { name: 'statistics', drop: null, on: { settings: ['use_statistics_cache'] }, serves: 'plan' },
];

/**
 * Caches a version's `SYSTEM DROP` accepts that do not hold what a MergeTree query reads (name → why),
 * so that {@link unknownCacheNames} can tell a new cache chbench must learn about from these.
 */
export const NOT_READ_CACHES: Readonly<Record<string, string>> = {
  dns: 'host names',
  connections: 'connections to other servers',
  schema: 'schema inference of files',
  'format schema': 'format schema files',
  'avro schema': 'Avro schema registry',
  's3 client': 'S3 clients',
  'iceberg metadata': 'Iceberg tables',
  'paimon metadata': 'Paimon tables',
  'parquet metadata': 'Parquet files',
  'point in polygon': 'a function’s polygon index',
  'disk metadata': 'metadata of remote disks',
  distributed: 'ClickHouse Cloud’s distributed cache',
  'encryption headers': 'encrypted disks’ file headers',
  // Parts of `TEXT INDEX CACHES`, which drops them all.
  'text index tokens': 'dropped by TEXT INDEX CACHES',
  'text index header': 'dropped by TEXT INDEX CACHES',
  'text index postings': 'dropped by TEXT INDEX CACHES',
};

/** Every setting that turns a cache of {@link SERVER_CACHES} on: the probe records their values. */
export const CACHE_SETTINGS: readonly string[] = [
  ...new Set(SERVER_CACHES.flatMap((c) => (c.on === 'always' ? [] : c.on.settings))),
];

/**
 * The cache names a version's `SYSTEM DROP` accepts, from the refusal of an unknown one
 * (`SYSTEM DROP FOO CACHE` → `Expected one of: DNS CACHE, MARK CACHE, …, REPLICA, …`): the entries
 * ending in ` CACHE` / ` CACHES`, lower case, without that word. Empty when the text has no such list. Pure.
 */
export function acceptedCacheNames(refusal: string): string[] {
  const m = /Expected one of: (.*?)(?:\. \(SYNTAX_ERROR\)|$)/s.exec(refusal);
  if (!m) return [];
  return m[1]
    .split(',')
    .map((x) => x.trim())
    .filter((x) => / CACHES?$/.test(x))
    .map((x) => x.replace(/ CACHES?$/, '').toLowerCase());
}

/** Accepted cache names ({@link acceptedCacheNames}) chbench neither drops nor knows to be irrelevant. Pure. */
export function unknownCacheNames(accepted: readonly string[]): string[] {
  const known = new Set(SERVER_CACHES.map((c) => c.name));
  return accepted.filter((n) => !known.has(n) && !(n in NOT_READ_CACHES));
}

/** One cache as a cell's runs had it. */
export interface CacheState {
  name: string;
  serves: CacheServes;
  /** On for the runs: `true`/`false`, or null when the setting's value is unknown (no probe value, not sent). */
  on: boolean | null;
  /** Why `on` is what it is: `server cache`, or `<setting> = <value> (default|sent)`. */
  why: string;
  /** The probe saw the server accept the drop statement; false when refused, or there is none. */
  droppable: boolean;
}

/**
 * Each known cache as the runs of a cell have it: on or off under `runSettings` (the settings sent
 * with the runs, which override the server's defaults recorded by the probe in `cache_settings`),
 * and whether it can be dropped (the probe's `cache_drops`). A setting this version lacks (absent from
 * `cache_settings` while the probe read them) means the cache does not exist here: it is left out.
 * Pure.
 */
export function cacheStates(
  probe: Pick<CapabilityProbe, 'cache_drops' | 'cache_settings'>,
  runSettings: Record<string, string | number>,
): CacheState[] {
  const out: CacheState[] = [];
  for (const c of SERVER_CACHES) {
    const accepted = c.drop !== null && probe.cache_drops.some((d) => d.sql === c.drop && d.ok);
    if (c.on === 'always') {
      // A server cache exists where its drop does, or where none exists in any version.
      if (accepted || c.drop === null)
        out.push({ name: c.name, serves: c.serves, on: true, why: 'server cache', droppable: accepted });
      continue;
    }
    const values = c.on.settings.flatMap((s) => {
      if (s in runSettings) return [{ s, v: String(runSettings[s]), how: 'sent' }];
      const d = probe.cache_settings?.[s];
      return d === undefined ? [] : [{ s, v: d, how: 'default' }];
    });
    if (!values.length) {
      if (probe.cache_settings && !accepted) continue; // no such setting nor drop here: no such cache
      out.push({
        name: c.name,
        serves: c.serves,
        on: null,
        why: `${c.on.settings.join(' / ')} unknown`,
        droppable: accepted,
      });
      continue;
    }
    const onBy = values.find((x) => x.v !== '0' && x.v !== '' && x.v.toLowerCase() !== 'false');
    const shown = onBy ?? values[0];
    out.push({
      name: c.name,
      serves: c.serves,
      on: !!onBy,
      why: `${shown.s} = ${shown.v} (${shown.how})`,
      droppable: accepted,
    });
  }
  return out;
}

/**
 * The caches that are on for the runs but cannot be dropped before a cold run, as the sentences the
 * cold validity and `cold_definition` record (e.g. `statistics cache on (use_statistics_cache = 1
 * (default)) and no statement drops it on this version`). Pure.
 */
export function undroppableCaches(states: readonly CacheState[]): { text: string; serves: CacheServes }[] {
  return states
    .filter((s) => s.on === true && !s.droppable)
    .map((s) => ({
      text: `${s.name} cache on (${s.why}) and ${SERVER_CACHES.find((c) => c.name === s.name)?.drop ? 'its drop is refused' : 'no statement drops it'} on this version`,
      serves: s.serves,
    }));
}
