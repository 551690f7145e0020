/**
 * The cold cycle: what chbench does before every cold run so that the run reads its data from
 * storage, and the text that says afterwards what "cold" really meant.
 *
 * Before each cold run: issue every cache drop the server's capability probe accepted
 * ({@link coldCacheDrops}; each outcome is recorded), drop the OS page cache when the protocol asks
 * for it and the server runs on the worker's host ({@link osPageCacheStep}), then run the query with
 * {@link COLD_RUN_SETTINGS} (direct I/O requested) on top of the runs' settings. Every measured run
 * (cold and warm) also turns off the per-query result caches ({@link resultCacheSettings}), so a warm
 * run measures reading, not a cache hit. Whether a cold run was really cold is judged afterwards from
 * its counters (`judgeCold` in ./validity).
 */
import { writeFile } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { ClickHouseClient } from '@clickhouse/client';
import { queryRows, tryCommand } from '../clickhouse/client';
import { PROBED_CACHE_DROPS } from '../clickhouse/probe';
import { cacheStates, undroppableCaches } from './caches';
import { sqlString } from '../lib/sql';
import type { CapabilityProbe, ColdPreparation, CommandOutcome, QueryRecord } from '../schema/results';
import type { TargetCapabilities, TargetHandle } from '../schema/target';

const execFileAsync = promisify(execFile);

/** Settings a cold run adds to the runs' settings: ask the server to read table files with direct I/O (bypassing the OS page cache). */
export const COLD_RUN_SETTINGS = { min_bytes_to_use_direct_io: 1 } as const;

/**
 * Query settings that let a repeated query skip work because an earlier run cached something (a
 * result, or which granules matched a filter). chbench turns them off for every measured run where
 * the version has them (checked in `system.settings`), so warm runs measure reading, not a cache hit.
 */
export const RESULT_CACHE_SETTINGS = ['use_query_cache', 'use_query_condition_cache'] as const;

/** Which of {@link RESULT_CACHE_SETTINGS} exist on the server (`system.settings`), each set to 0. */
export async function resultCacheSettings(client: ClickHouseClient): Promise<Record<string, number>> {
  const rows = await queryRows<{ name: string }>(
    client,
    `SELECT name FROM system.settings WHERE name IN (${RESULT_CACHE_SETTINGS.map(sqlString).join(', ')})`,
  );
  return Object.fromEntries(rows.map((r) => [r.name, 0]));
}

/**
 * The cache drops to issue before each cold run: those the cell's capability probe saw the server
 * accept, or every known one ({@link PROBED_CACHE_DROPS}) when there is no probe. Pure.
 */
export function coldCacheDrops(probe: CapabilityProbe | undefined): readonly string[] {
  return probe ? probe.cache_drops.filter((c) => c.ok).map((c) => c.sql) : PROBED_CACHE_DROPS;
}

/**
 * Try to drop the OS page cache on this host (`sync`, then `1` into `/proc/sys/vm/drop_caches`,
 * which needs root). Returns `dropped` or `not dropped: <errno or message>`; never throws. `sync`
 * runs as a child process without blocking the event loop (on a slow volume with many dirty pages
 * it can take longer than the heartbeat timeout), so heartbeats continue meanwhile.
 */
export async function dropOsPageCache(): Promise<string> {
  try {
    await execFileAsync('sync');
    await writeFile('/proc/sys/vm/drop_caches', '1\n');
    return 'dropped';
  } catch (e) {
    return `not dropped: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`;
  }
}

/** Where the server of a cell runs when it is a Kubernetes pod (the handle's `kubernetes` facts). */
export interface ServerPod {
  /** Namespace of the pod. */
  namespace: string;
  /** Pod name. */
  pod: string;
  /** `spec.nodeName` of the pod, `null` when unknown. */
  node: string | null;
}

/**
 * The pod a cell's server runs in, when the OS page cache is not the worker's to drop: the target's
 * capabilities say `onWorkerHost: false` and the handle is a `kubernetes` one (its `kubernetes`
 * facts: namespace, pod, node). `undefined` otherwise (the generic wording applies). Pure.
 */
export function serverPodOf(
  handle: Pick<TargetHandle, 'kind' | 'kubernetes'>,
  caps: Pick<TargetCapabilities, 'onWorkerHost'>,
): ServerPod | undefined {
  const f = handle.kubernetes;
  if (caps.onWorkerHost || handle.kind !== 'kubernetes' || !f) return undefined;
  return { namespace: f.namespace, pod: f.pod, node: f.node };
}

/**
 * The OS page-cache outcome of a cold run whose server is a pod: this host's page cache is not the
 * pod's node's, so nothing is dropped there, and the line says exactly what the cold run did get —
 * the ClickHouse cache drops that succeeded (from `serverCaches`, the outcomes of this preparation),
 * those refused, and direct I/O requested ({@link COLD_RUN_SETTINGS}). Pure.
 * @example
 * podPageCacheOutcome({ namespace: 'bench-database', pod: 'chb-v26-7-lz4-1a2b3c4d', node: 'ip-10-0-1-10.ec2.internal' }, outcomes)
 * // 'not dropped: the server runs in pod bench-database/chb-v26-7-lz4-1a2b3c4d on node ip-10-0-1-10.ec2.internal,
 * //  not on the worker\'s host; ClickHouse caches were dropped (SYSTEM DROP MARK CACHE, …) and direct I/O was
 * //  requested (min_bytes_to_use_direct_io=1)'
 */
export function podPageCacheOutcome(pod: ServerPod, serverCaches: readonly CommandOutcome[]): string {
  const ok = serverCaches.filter((c) => c.ok).map((c) => c.sql);
  const refused = serverCaches.filter((c) => !c.ok).map((c) => c.sql);
  const caches = ok.length ? `ClickHouse caches were dropped (${ok.join(', ')})` : 'no ClickHouse cache was dropped';
  return (
    `not dropped: the server runs in pod ${pod.namespace}/${pod.pod} on node ${pod.node ?? '(unknown)'}, not on the worker's host; ` +
    `${caches}${refused.length ? `, not dropped: ${refused.join(', ')} (refused)` : ''} ` +
    `and direct I/O was requested (min_bytes_to_use_direct_io=${COLD_RUN_SETTINGS.min_bytes_to_use_direct_io})`
  );
}

/**
 * The OS page-cache step of a cold run. Dropping this host's page cache only affects a server on this
 * host (the target's `onWorkerHost` capability); it is skipped, with the reason as the outcome, when
 * the protocol turns it off or the server is elsewhere — for a server in a Kubernetes pod (`pod`)
 * the reason is {@link podPageCacheOutcome} of `serverCaches`, the cache drops just issued.
 */
export async function osPageCacheStep(
  wanted: boolean,
  serverOnThisHost: boolean,
  pod?: ServerPod,
  serverCaches: readonly CommandOutcome[] = [],
): Promise<string> {
  if (!wanted) return 'not dropped: protocol.dropOsPageCache is false';
  if (!serverOnThisHost)
    return pod
      ? podPageCacheOutcome(pod, serverCaches)
      : 'not dropped: the server is not known to run on the worker host';
  return dropOsPageCache();
}

/**
 * Prepare one cold run: issue each of `drops` (outcomes recorded in order; none when `dropCaches`
 * is false, which only tests use), then the OS page-cache step (`serverPod`: where the server runs
 * when it is a Kubernetes pod, for the outcome's wording). Returns the preparation with the settings
 * the cold run is sent with (`base` + {@link COLD_RUN_SETTINGS}).
 */
export async function prepareColdRun(
  client: ClickHouseClient,
  base: Record<string, number>,
  o: {
    drops: readonly string[];
    dropCaches: boolean;
    dropOsPageCache: boolean;
    serverOnThisHost: boolean;
    serverPod?: ServerPod;
  },
): Promise<ColdPreparation> {
  const server_caches: CommandOutcome[] = [];
  if (o.dropCaches) for (const c of o.drops) server_caches.push(await tryCommand(client, c));
  const os_page_cache = await osPageCacheStep(o.dropOsPageCache, o.serverOnThisHost, o.serverPod, server_caches);
  return { server_caches, os_page_cache, settings: { ...base, ...COLD_RUN_SETTINGS } };
}

/** A refusal text that means the statement does not exist on this version (rather than a failure). */
const NOT_ON_THIS_VERSION = /Syntax|Unknown|not supported|UNKNOWN|Expected one of/i;

const cacheName = (sql: string) => sql.replace('SYSTEM DROP ', '').toLowerCase();

/**
 * "Cold" as it really was in these records, one line for `queries-<phase>.json`
 * (`cold_definition`): direct I/O requested; the caches whose drop succeeded before *every* cold
 * run; those not dropped, each either "not on this version" or "refused: <server's reason>" (from
 * the runs' outcomes, else the probe's, else "not issued"); the caches on for the runs that this
 * version cannot drop (./caches `undroppableCaches`); and the OS page-cache outcome(s).
 * `no cold runs` when there were none. Pure.
 */
export function coldDefinition(records: QueryRecord[], probe?: CapabilityProbe): string {
  const preps = records.flatMap((r) => r.samples.filter((x) => x.cold_preparation).map((x) => x.cold_preparation!));
  if (!preps.length) return 'no cold runs';
  const okAll = PROBED_CACHE_DROPS.filter((c) => preps.every((p) => p.server_caches.find((o) => o.sql === c)?.ok));
  const failed = PROBED_CACHE_DROPS.filter((c) => !okAll.includes(c)).map((c) => {
    // A probe written before chbench knew this cache never tried it.
    if (
      probe &&
      !probe.cache_drops.some((o) => o.sql === c) &&
      !preps.some((p) => p.server_caches.some((o) => o.sql === c))
    )
      return `${cacheName(c)} (not probed: the probe predates it)`;
    // Not issued because the probe saw the server refuse it, or issued and refused now.
    const err =
      preps.map((p) => p.server_caches.find((o) => o.sql === c)).find((o) => o && !o.ok)?.error ??
      probe?.cache_drops.find((o) => o.sql === c && !o.ok)?.error ??
      'not issued';
    return `${cacheName(c)} (${NOT_ON_THIS_VERSION.test(err) ? 'not on this version' : `refused: ${err.slice(0, 80)}`})`;
  });
  const os = [...new Set(preps.map((p) => p.os_page_cache))].join(' / ');
  const stuck = probe ? undroppableCaches(cacheStates(probe, preps[0].settings)).map((u) => u.text) : [];
  return [
    `direct I/O requested (min_bytes_to_use_direct_io=${COLD_RUN_SETTINGS.min_bytes_to_use_direct_io})`,
    `caches dropped before each cold run: ${okAll.map(cacheName).join(', ') || 'none'}`,
    ...(failed.length ? [`not dropped: ${failed.join(', ')}`] : []),
    ...(stuck.length ? [`on but not droppable: ${stuck.join(', ')}`] : []),
    `OS page cache ${os}`,
  ].join('; ');
}
