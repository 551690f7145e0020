/**
 * materializeSkipIndex: `ADD INDEX` + `MATERIALIZE INDEX`, then poll `system.mutations` until the
 * mutation is done, heartbeating with `parts_to_do` and failing clearly on `latest_fail_reason`.
 * Adopts a MATERIALIZE INDEX mutation that is already running (from an earlier attempt) instead of
 * issuing a second one. Records materialization time (client wall, ms, from issuing the statement
 * to `is_done = 1`) and index size (`system.data_skipping_indices`, else `system.parts`).
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { ApplicationFailure } from '@temporalio/common';
import { FAILURE } from '../schema/failures';
import type { ClickHouseClient } from '@clickhouse/client';
import { connect, queryRows, tryCommand } from '../clickhouse/client';
import { sqlString } from '../lib/sql';
import { cellDir, writeJsonAtomic } from '../results/store';
import { loadWorkload, renderTemplate, workloadQueries } from '../lib/workload';
import { pollUntil } from '../lib/poll';
import { cancellationSignal, heartbeat, sleep } from '../temporal/activity-context';
import { cellCodecProfile, type IndexSummary, type StepInput } from '../schema/cell';
import type { IndexRecord, IndexVerification, MutationRow } from '../schema/results';
import { explainGranules, explainIndexes } from '../measure/index-proof';
import { readCellSettings } from './provision';

async function materializeMutations(client: ClickHouseClient, table: string, index: string): Promise<MutationRow[]> {
  const rows = await queryRows<MutationRow>(
    client,
    `SELECT mutation_id, command, is_done, parts_to_do, latest_fail_reason FROM system.mutations
     WHERE database = currentDatabase() AND table = ${sqlString(table)} AND command LIKE ${sqlString(`%MATERIALIZE INDEX ${index}%`)}`,
  );
  // parts_to_do is an Int64: quoted in JSON where output_format_json_quote_64bit_integers is 1 (before 25.8, or pinned to such defaults).
  return rows.map((r) => ({ ...r, is_done: Number(r.is_done), parts_to_do: Number(r.parts_to_do) }));
}

/** Index size in bytes, with its source. */
async function indexSize(
  client: ClickHouseClient,
  table: string,
  index: string,
): Promise<{ bytes: number | null; uncompressed_bytes: number | null; source: string }> {
  try {
    const [r] = await queryRows<{ c: string; u: string }>(
      client,
      `SELECT data_compressed_bytes AS c, data_uncompressed_bytes AS u FROM system.data_skipping_indices WHERE database = currentDatabase() AND table = ${sqlString(table)} AND name = ${sqlString(index)}`,
    );
    if (r)
      return {
        bytes: Number(r.c),
        uncompressed_bytes: Number(r.u),
        source: 'system.data_skipping_indices.data_compressed_bytes',
      };
  } catch {
    /* older servers */
  }
  try {
    const [r] = await queryRows<{ c: string; u: string }>(
      client,
      `SELECT sum(secondary_indices_compressed_bytes) AS c, sum(secondary_indices_uncompressed_bytes) AS u FROM system.parts WHERE database = currentDatabase() AND table = ${sqlString(table)} AND active`,
    );
    return {
      bytes: Number(r.c),
      uncompressed_bytes: Number(r.u),
      source: 'system.parts sum(secondary_indices_compressed_bytes) (all indices of the table)',
    };
  } catch {
    return { bytes: null, uncompressed_bytes: null, source: 'not available on this version' };
  }
}

/**
 * Check that every active part carries the index and that EXPLAIN shows it skipping granules.
 * The EXPLAIN runs with `settings`: the query settings of the measured runs (the spec's
 * `settings.query`), so a setting such as `use_skip_indexes = 0` shows here too. Whether the measured
 * runs themselves read fewer rows is judged after them (`index_proof` in `queries-index.json`).
 */
async function verifyIndex(
  client: ClickHouseClient,
  table: string,
  index: string,
  queries: { id: string; sql: string }[],
  settings: Record<string, string | number> = {},
): Promise<IndexVerification> {
  const reasons: string[] = [];
  let without: number | null = null;
  let active: number | null = null;
  try {
    const [r] = await queryRows<{ w: string; n: string }>(
      client,
      `SELECT countIf(secondary_indices_compressed_bytes = 0) AS w, count() AS n FROM system.parts WHERE database = currentDatabase() AND table = ${sqlString(table)} AND active`,
    );
    [without, active] = [Number(r.w), Number(r.n)];
    if (without > 0) reasons.push(`${without} of ${active} active parts have no index data`);
  } catch {
    reasons.push('per-part index size unknown on this version');
  }
  const explain: IndexVerification['explain'] = {};
  for (const q of queries) {
    try {
      const r = explainGranules(await explainIndexes(client, q.sql, settings), index);
      if (r.outcome === 'not understood') {
        explain[q.id] = { granules: null, skips: null, error: `EXPLAIN not understood: ${r.reason}` };
        reasons.push(`${q.id}: EXPLAIN not understood (${r.reason})`);
        continue;
      }
      const g = r.outcome === 'used' ? r : null;
      explain[q.id] = { granules: g ? `${g.kept}/${g.total}` : null, skips: g ? g.kept < g.total : false };
      if (!g) reasons.push(`${q.id}: EXPLAIN does not show index ${index}`);
      else if (g.kept >= g.total) reasons.push(`${q.id}: index ${index} skipped no granule (${g.kept}/${g.total})`);
    } catch (e) {
      explain[q.id] = { granules: null, skips: null, error: (e as Error).message.split('\n')[0] };
      reasons.push(`${q.id}: EXPLAIN indexes = 1 not available`);
    }
  }
  const bad = (without ?? 0) > 0 || Object.values(explain).some((x) => x.skips === false);
  const unknown = without === null || Object.values(explain).some((x) => x.skips === null);
  return {
    parts_without_index: without,
    active_parts: active,
    explain,
    verified: bad ? false : unknown ? null : true,
    reasons,
  };
}

/** Activity factory. */
export function createMaterializeSkipIndex() {
  return {
    /**
     * Build the workload's skip index and wait for it. Writes `index.json`.
     * @throws ApplicationFailure `MutationFailed` (non-retryable) with the server's `latest_fail_reason`.
     */
    async materializeSkipIndex({ cell, target }: StepInput): Promise<IndexSummary> {
      const m = loadWorkload(cell.workload);
      if (!m.index)
        throw ApplicationFailure.create({
          type: FAILURE.NoIndex,
          nonRetryable: true,
          message: `workload ${m.name} defines no skip index`,
        });
      const idx = m.index.name;
      const client = connect(target, { maxExecutionTimeS: cell.protocol.maxExecutionTimeS });
      try {
        // Mutations run in the background pool: make sure merges are not stopped by an earlier step.
        const startMerges = await tryCommand(client, `SYSTEM START MERGES ${m.table}`);
        const add = renderTemplate(cell.workload, m.index.add, {
          table: m.table,
          rows: cell.scale,
          codec: cellCodecProfile(cell),
        });
        await client.command({ query: add });
        const t0 = performance.now();
        // Worker wall clock of the same span (index.json started_at/finished_at: the cloud metrics' index-build window).
        const startedAt = new Date().toISOString();
        const existing = (await materializeMutations(client, m.table, idx)).filter((r) => !Number(r.is_done));
        const adopted = existing.length > 0;
        const materialize = `ALTER TABLE ${m.table} MATERIALIZE INDEX ${idx}`;
        if (!adopted) {
          // Real servers return at once (asynchronous mutation); the embedded engine returns when done.
          // The watched client heartbeats while it runs; background merges/mutations count as its progress.
          heartbeat({ step: 'materialize-index' });
          // Cancelling the activity abandons the request (the step ends at once, as CancelledFailure);
          // the server's mutation itself is not killed (the embedded engine cannot interrupt it).
          await client.command({ query: materialize, abort_signal: cancellationSignal() });
        }
        await pollUntil(
          async () => {
            const rows = await materializeMutations(client, m.table, idx);
            const failed = rows.find((r) => r.latest_fail_reason);
            if (failed)
              throw ApplicationFailure.create({
                type: FAILURE.MutationFailed,
                nonRetryable: true,
                message: `materialize index ${idx}: mutation ${failed.mutation_id} failed: ${failed.latest_fail_reason}`,
              });
            const todo = rows.reduce((a, r) => a + Number(r.parts_to_do), 0);
            const done = rows.length > 0 && rows.every((r) => Number(r.is_done));
            heartbeat({ step: 'materialize-index', parts_to_do: todo, mutations: rows.length });
            // The embedded engine does not always list finished mutations; its command returned when done.
            return done || (rows.length === 0 && !adopted);
          },
          {
            timeoutMs: Infinity, // bounded by the activity's own timeouts and the statement watcher
            intervalMs: (polls) => Math.min(2000, 200 * polls),
            sleep,
            stopOn: () => true,
          },
        );
        const materializeMs = performance.now() - t0;
        const finishedAt = new Date().toISOString();
        const size = await indexSize(client, m.table, idx);
        const uses = workloadQueries(
          m,
          { table: m.table, rows: cell.scale, codec: cellCodecProfile(cell) },
          cell.queries,
        ).filter((q) => q.usesIndex);
        const verification = await verifyIndex(client, m.table, idx, uses, readCellSettings(cell).runs);
        const mutations = await materializeMutations(client, m.table, idx);
        const rec: IndexRecord = {
          index: idx,
          add_sql: add,
          materialize_sql: materialize,
          adopted_mutation: adopted,
          materialize_ms: materializeMs,
          materialize_ms_source:
            'client wall time from issuing MATERIALIZE INDEX (or adopting it) to system.mutations.is_done = 1',
          index_bytes: size.bytes,
          index_uncompressed_bytes: size.uncompressed_bytes,
          index_bytes_source: size.source,
          mutations,
          start_merges: startMerges,
          verification,
          started_at: startedAt,
          finished_at: finishedAt,
        };
        writeJsonAtomic(path.join(cellDir(cell.resultsDir, cell.runId, cell.cellKey), 'index.json'), rec);
        return { index: idx, materialize_ms: materializeMs, index_bytes: size.bytes, adopted_mutation: adopted };
      } finally {
        await client.close();
      }
    },
  };
}
