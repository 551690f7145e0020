/**
 * The work comparison on real engines: the same PK-filtered `count()` on the same data read by
 * ClickHouse 23.10 (chdb 1.4.1) and 24.8 (chdb 3.1.2), hosted by the engine server. 24.8 answers
 * whole parts from the implicit min/max/count projection, so it reads fewer rows and marks: a
 * "work change" from one run per side, with the rows from the `system.events` difference around the
 * run (the embedded engine runs one statement at a time), through the store's figure list.
 * Needs CHBENCH_ENGINES_DIR with both builds (/work/engines on the team machine).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ClickHouseLogLevel, createClient } from '@clickhouse/client';
import { findPypiBuild, installEngine } from '../../src/engine/install';
import { counterDelta, eventCounters, SNAPSHOT_ROWS } from '../../src/measure/counters';
import { readFromCounters } from '../../src/measure/figures';
import { compareWork, workLabel } from '../../src/measure/work';
import { figureRows } from '../../src/results/db/rows';
import type { StoredFigure, StoredSample } from '../../src/results/db/types';
import type { RunSample } from '../../src/schema/results';
import { startEngineServer, type EngineServer } from '../helpers/engine-server';

const RANGE = "ts >= toDateTime64('2026-08-24 00:00:00', 3) AND ts < toDateTime64('2026-08-26 00:00:00', 3)";
/** A PK-filtered count() over two days of one namespace (the logs workload's q1 shape): 24.8 counts whole ranges without reading them. */
const COUNT = `SELECT count() FROM seed WHERE ns = 'ns-3' AND ${RANGE}`;
/** The same rows summed: every version reads them (the control: same work). */
const SUM = `SELECT sum(duration_ms) FROM seed WHERE ns = 'ns-3' AND ${RANGE}`;

/** Create the same seed table (2 M rows over ~7 days, partitioned by day, 4 inserts) and measure one run of each query: its figures rows. */
async function measure(server: EngineServer, label: string): Promise<Record<string, StoredFigure[]>> {
  const client = createClient({ url: server.url, log: { level: ClickHouseLogLevel.OFF }, request_timeout: 300_000 });
  try {
    await client.command({
      query:
        'CREATE TABLE seed (ns LowCardinality(String), ts DateTime64(3), duration_ms Float32) ENGINE = MergeTree PARTITION BY toDate(ts) ORDER BY (ns, ts)',
    });
    for (let i = 0; i < 4; i++)
      await client.command({
        query: `INSERT INTO seed SELECT concat('ns-', toString(cityHash64(number) % 10)), toDateTime64('2026-08-23 00:00:00', 3) + toIntervalMillisecond(intDiv((number + ${i} * 500000) * 600000000, 2000000)), number % 997 FROM numbers(500000)`,
      });
    const out: Record<string, StoredFigure[]> = {};
    for (const [name, query] of [
      ['count', COUNT],
      ['sum', SUM],
    ]) {
      const before = (await eventCounters(client))!;
      const rows = await (await client.query({ query: query, format: 'JSONEachRow' })).json<Record<string, string>>();
      const afterSnap = (await eventCounters(client))!;
      assert.equal(rows.length, 1);
      const counters = counterDelta(before, afterSnap);
      const run = {
        read_rows: null,
        read_bytes: null,
        read_source: null,
        read_unknown: null,
        counters,
        counters_source: 'system.events difference (embedded engine runs one statement at a time)',
      } as unknown as RunSample;
      readFromCounters(run, before[SNAPSHOT_ROWS]);
      const stored = {
        run_id: label,
        cell_key: `v${label}-lz4`,
        phase: 'baseline',
        query_id: name,
        kind: 'warm',
        n: 1,
        server_elapsed_ms: null,
        server_elapsed_source: null,
        wall_ms: 1,
        read_rows: run.read_rows,
        read_bytes: run.read_bytes,
        read_source: run.read_source,
        read_unknown: run.read_unknown,
        result_rows: 1,
        result_bytes: null,
      } as StoredSample;
      out[name] = figureRows(stored, run);
    }
    return out;
  } finally {
    await client.close();
  }
}

describe('work change between two versions on real engines (23.10 and 24.8)', { timeout: 900_000 }, () => {
  const servers: EngineServer[] = [];
  const figures: Record<string, Record<string, StoredFigure[]>> = {};
  before(async () => {
    for (const label of ['23.10', '24.8']) {
      const b = findPypiBuild(label);
      assert.ok(b, `a PyPI build serves ${label}`);
      const server = await startEngineServer({ python: (await installEngine(b)).python });
      servers.push(server);
      figures[label] = await measure(server, label);
    }
  });
  after(async () => {
    for (const s of servers) await s.stop();
  });

  it('the PK-filtered count() reads different rows and marks: a work change from one run per side; the sum reads the same: work unchanged', () => {
    const value = (label: string, f: string) => figures[label].count.find((x) => x.figure === f)!;
    const a = value('23.10', 'read_rows');
    const b = value('24.8', 'read_rows');
    assert.equal(a.source, 'system.events difference');
    assert.ok(a.value! > 0 && b.value! > 0, JSON.stringify([a, b]));
    assert.ok(b.value! < a.value!, `24.8 reads fewer rows than 23.10: ${b.value} vs ${a.value}`);
    const w = compareWork(figures['23.10'].count, figures['24.8'].count);
    assert.equal(w.verdict, 'work change', w.reason);
    assert.deepEqual(
      w.changed.map((d) => d.figure).filter((f) => f === 'read_rows' || f === 'SelectedMarks'),
      ['read_rows', 'SelectedMarks'],
    );
    assert.equal(workLabel('unchanged', w), 'work change');
    const same = compareWork(figures['23.10'].sum, figures['24.8'].sum);
    assert.equal(same.verdict, 'work unchanged', same.reason);
    assert.ok(same.compared.includes('read_rows') && same.compared.includes('SelectedMarks'), same.compared.join());
    assert.equal(workLabel('regression', same), 'time changed, work unchanged');
    console.log(`count(): ${w.reason}; sum(): ${same.reason}`);
  });
});
