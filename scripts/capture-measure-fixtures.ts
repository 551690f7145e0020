/**
 * Capture the fixtures of the measurement unit tests (test/fixtures/measure/) from real servers:
 * Debian's clickhouse-server 18.16 (a local target; query_log with ProfileEvents as two arrays, no
 * EXPLAIN) and the embedded 26.7 engine (no query_log; `system.events` differences; EXPLAIN).
 *
 *   npm run build && node dist/scripts/capture-measure-fixtures.js [outDir]
 *
 * Each fixture holds what the pure functions read, exactly as the server sent it: raw query_log rows
 * (before normalisation), `system.events` rows around a run, EXPLAIN texts, and the records the
 * protocol wrote (RunSamples with their counters, cold preparations and statistics).
 */
import { mkdtempSync, rmSync, writeFileSync, existsSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ClickHouseClient } from '@clickhouse/client';
import { provisionEmbedded, teardownEmbedded } from '../src/targets/embedded';
import { provisionLocal, teardownLocal } from '../src/targets/local';
import type { TargetHandle } from '../src/schema/target';
import { connect, queryRows } from '../src/clickhouse/client';
import { sqlString } from '../src/lib/sql';
import { probeServer } from '../src/clickhouse/probe';
import { queryLogSelect } from '../src/clickhouse/query-log';
import { loadWorkload, renderTemplate, workloadQueries } from '../src/lib/workload';
import { measureQueries, type MeasureOptions } from '../src/measure/protocol';
import { coldCacheDrops } from '../src/measure/cold-cycle';
import { explainIndexes } from '../src/measure/index-proof';
import { RUN_COUNTERS } from '../src/measure/validity';
import { REPO_ROOT } from '../src/config';

const OUT = process.argv[2] ?? path.join(REPO_ROOT, 'test', 'fixtures', 'measure');
const BINARY = process.env.CHBENCH_CLICKHOUSE_SERVER ?? '/usr/sbin/clickhouse-server';
const ROWS = 200_000;

function write(name: string, value: unknown): void {
  mkdirSync(OUT, { recursive: true });
  writeFileSync(path.join(OUT, name), JSON.stringify(value, null, 2) + '\n');
  console.log(`wrote ${path.join(OUT, name)}`);
}

async function load(c: ClickHouseClient, workload: string, tableSettings?: Record<string, number>): Promise<void> {
  const m = loadWorkload(workload);
  const v = { table: m.table, rows: ROWS, codec: 'LZ4' as const, ...(tableSettings ? { tableSettings } : {}) };
  await c.command({ query: renderTemplate(workload, m.schema, v) });
  await c.command({
    query: renderTemplate(workload, m.load, v),
    clickhouse_settings: m.loadSettings as Record<string, number>,
  });
}

const opts = (extra: Partial<MeasureOptions>): MeasureOptions => ({
  coldRuns: 1,
  warmupRuns: 0,
  warmRuns: 2,
  dropOsPageCache: false,
  maxExecutionTimeS: 600,
  queryLog: false,
  counters: 'none',
  queryIdPrefix: `capture-${Date.now()}`,
  ...extra,
});

/** 18.16: query_log rows (arrays), a cold run with drops, a "cold" run without drops, EXPLAIN refused. */
async function legacy(tmp: string): Promise<void> {
  const t: TargetHandle = await provisionLocal(
    { runId: 'capture', cellKey: 'legacy', version: '18.16', workDir: tmp },
    BINARY,
  );
  const c = connect(t);
  try {
    const m = loadWorkload('logs-legacy');
    await load(c, 'logs-legacy', {});
    const probe = await probeServer(c, '18.16');
    const q = workloadQueries(m, { table: m.table, rows: ROWS, codec: 'LZ4' }, ['q3']);
    const o = {
      queryLog: true,
      counters: 'query_log' as const,
      cacheDrops: coldCacheDrops(probe),
      knownCounters: probe.events_complete ? (probe.events ?? undefined) : undefined,
      knownSettings: probe.query_settings ?? undefined,
    };
    const [fresh] = await measureQueries(c, m.table, q, opts(o));
    const [stale] = await measureQueries(c, m.table, q, opts({ ...o, dropCaches: false, warmRuns: 0 }));
    // A query faster than 10 × query_duration_ms's 1 ms resolution: its headline must be client wall time.
    const [fast] = await measureQueries(
      c,
      m.table,
      [
        {
          id: 'fast',
          title: 'fast',
          usesIndex: false,
          deterministic: true,
          sql: "SELECT count() FROM logs WHERE namespace = 'payment'",
        },
      ],
      opts({ ...o, coldRuns: 0, warmRuns: 5 }),
    );
    const ids = [...fresh.samples, ...stale.samples].map((s) => s.query_id);
    const cols = await queryRows<{ name: string; type: string }>(
      c,
      "SELECT name, type FROM system.columns WHERE database = 'system' AND table = 'query_log'",
    );
    const raw = await queryRows<Record<string, unknown>>(
      c,
      queryLogSelect(
        ids,
        cols.map((x) => x.name),
        cols.find((x) => x.name === 'type')?.type,
      ),
    );
    write('query-log-18.16.json', {
      server: 'clickhouse-server 18.16 (Debian)',
      version: probe.version,
      query_log_columns: cols,
      raw_rows: raw,
    });
    write('queries-18.16.json', {
      server: 'clickhouse-server 18.16 (Debian)',
      version: probe.version,
      probe: { cache_drops: probe.cache_drops, events_complete: probe.events_complete },
      fresh,
      stale,
      fast,
    });
  } finally {
    await c.close();
    await teardownLocal(t);
  }
}

/** Embedded 26.7: system.events around a run, EXPLAIN with the skip index, protocol records (events differences). */
async function embedded(tmp: string): Promise<void> {
  const t = await provisionEmbedded({ runId: 'capture', cellKey: 'embedded', version: '26.7', workDir: tmp });
  const c = connect(t);
  try {
    const m = loadWorkload('logs');
    await load(c, 'logs', m.tableSettings as Record<string, number>);
    const probe = await probeServer(c, '26.7');
    const q3 = workloadQueries(m, { table: m.table, rows: ROWS, codec: 'LZ4' }, ['q3']);
    const o = {
      counters: 'system.events' as const,
      cacheDrops: coldCacheDrops(probe),
      knownCounters: probe.events_complete ? (probe.events ?? undefined) : undefined,
      knownSettings: probe.query_settings ?? undefined,
    };
    const [fresh] = await measureQueries(c, m.table, q3, opts(o));
    const [stale] = await measureQueries(c, m.table, q3, opts({ ...o, dropCaches: false, warmRuns: 0 }));
    // system.events snapshots around one cold run (caches dropped, direct I/O), exactly as the server lists them.
    const events = `SELECT event AS k, value AS v FROM system.events WHERE event IN (${RUN_COUNTERS.map(sqlString).join(', ')})`;
    for (const d of coldCacheDrops(probe)) await c.command({ query: d }).catch(() => undefined);
    const before = await queryRows<{ k: string; v: string }>(c, events);
    await (
      await c.query({
        query: q3[0].sql,
        format: 'JSONCompact',
        clickhouse_settings: { min_bytes_to_use_direct_io: 1, use_query_cache: 0 } as Record<string, number>,
      })
    ).text();
    const after = await queryRows<{ k: string; v: string }>(c, events);
    // The skip index, materialized; EXPLAIN of q5 with it used and with use_skip_indexes = 0.
    await c.command({ query: renderTemplate('logs', m.index!.add, { table: m.table, rows: ROWS, codec: 'LZ4' }) });
    await c.command({
      query: `ALTER TABLE ${m.table} MATERIALIZE INDEX ${m.index!.name}`,
      clickhouse_settings: { mutations_sync: 1 } as Record<string, number>,
    });
    const [q5] = workloadQueries(m, { table: m.table, rows: ROWS, codec: 'LZ4' }, ['q5']);
    const explain = await explainIndexes(c, q5.sql, {});
    const explainOff = await explainIndexes(c, q5.sql, { use_skip_indexes: 0 });
    // 26.x stores ProfileEvents as a Map. The embedded engine has no system.query_log, but its
    // system.processes row of the running statement has the same column type: read it as the runs do
    // (64-bit integers quoted), so the Map shape comes from a real 26.7 server.
    const processes = await queryRows<Record<string, unknown>>(
      c,
      'SELECT query_id, read_rows, read_bytes, ProfileEvents FROM system.processes',
      { output_format_json_quote_64bit_integers: 1 },
    );
    const processColumns = await queryRows<{ name: string; type: string }>(
      c,
      "SELECT name, type FROM system.columns WHERE database = 'system' AND table = 'processes' AND name IN ('query_id', 'read_rows', 'read_bytes', 'ProfileEvents')",
    );
    let queryLog: unknown;
    try {
      queryLog = await queryRows(c, 'SELECT count() AS n FROM system.query_log');
    } catch (e) {
      queryLog = `not available: ${(e as Error).message.split('\n')[0]}`;
    }
    write('events-26.7.json', {
      server: `embedded engine (${t.provisionedBy})`,
      version: probe.version,
      query: q3[0].sql,
      settings: { min_bytes_to_use_direct_io: 1 },
      before,
      after,
      events_complete: probe.events_complete,
      events: probe.events,
    });
    write('profile-events-map-26.7.json', {
      server: `embedded engine (${t.provisionedBy})`,
      version: probe.version,
      source:
        'system.processes (the embedded engine has no system.query_log; ProfileEvents has the type query_log has on 26.x)',
      columns: processColumns,
      raw_rows: processes,
    });
    write('explain-26.7.json', {
      server: `embedded engine (${t.provisionedBy})`,
      version: probe.version,
      index: m.index!.name,
      query: q5.sql,
      with_index: explain,
      use_skip_indexes_0: explainOff,
    });
    write('queries-26.7.json', {
      server: `embedded engine (${t.provisionedBy})`,
      version: probe.version,
      query_log: queryLog,
      probe: { cache_drops: probe.cache_drops, events_complete: probe.events_complete },
      fresh,
      stale,
    });
  } finally {
    await c.close();
    await teardownEmbedded(t);
  }
}

async function main(): Promise<void> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'chbench-capture-'));
  try {
    if (existsSync(BINARY)) await legacy(tmp);
    else console.error(`${BINARY} missing: 18.16 fixtures not captured`);
    await embedded(tmp);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
