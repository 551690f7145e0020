/**
 * The load step read as each version does it (issue 23): on real PyPI builds whose defaults differ —
 * 24.8 (async_insert 0, max_insert_threads 0), 26.3 (async_insert 1 by default) and 26.9 (async_insert 1,
 * max_insert_threads `auto(N)`) — the `loadData` activity, as the worker runs it, records the insert
 * settings in effect from each server's own `system.settings` with their source, sends
 * `async_insert = 0` only where the version turns async inserts on, takes written_rows as the server
 * reported it (the engine server measures none for INSERT … SELECT: the `system.events`
 * `InsertedRows` difference instead, named) and checks it against `count()`, the truth.
 *
 * Installs the builds on demand (as the provision step would).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { createActivities } from '../../src/activities';
import { provisionEmbedded, teardownEmbedded } from '../../src/targets/embedded';
import { findPypiBuild, installEngine } from '../../src/engine/install';
import { connect } from '../../src/clickhouse/client';
import { cellDir, readRecord } from '../../src/results/store';
import type { CellInput } from '../../src/schema/cell';
import { LoadRecord } from '../../src/schema/results';
import type { TargetHandle } from '../../src/schema/target';
import { startActivity } from '../helpers/activity-env';

const BUILDS = ['24.8', '26.3', '26.9'];
const ROWS = 200_000;

describe(
  'the load on 24.8, 26.3 and 26.9: insert settings in effect, written_rows as reported, count() the truth',
  { timeout: 600_000 },
  () => {
    let tmp: string;
    const started: TargetHandle[] = [];
    const runId = `load-${randomUUID().slice(0, 8)}`;
    const records = new Map<string, LoadRecord>();
    before(async () => {
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-load-versions-'));
      for (const v of BUILDS) await installEngine(findPypiBuild(v)!);
      for (const version of BUILDS) {
        const cellKey = `v${version}-lz4`;
        const target = await provisionEmbedded({ runId, cellKey, version, workDir: path.join(tmp, 'targets') });
        started.push(target);
        const client = connect(target);
        try {
          await client.command({ query: 'CREATE TABLE t (n UInt64) ENGINE = MergeTree ORDER BY n' });
        } finally {
          await client.close();
        }
        const cell: CellInput = {
          runId,
          cellKey,
          version,
          codec: 'LZ4',
          workload: 'trivial',
          scale: ROWS,
          skipIndex: false,
          protocol: { maxExecutionTimeS: 300 } as CellInput['protocol'],
          target: { kind: 'embedded' } as CellInput['target'],
          teardown: 'always',
          resultsDir: path.join(tmp, 'results'),
        };
        const acts = createActivities({
          workDir: path.join(tmp, 'targets'),
          temporalAddress: '127.0.0.1:1',
          namespace: 'default',
        });
        const out = await startActivity(acts.loadData, { cell, target }).result;
        assert.equal(out.rows, ROWS);
        const rec = readRecord(path.join(cellDir(cell.resultsDir, runId, cellKey), 'load.json'), LoadRecord);
        records.set(version, rec);
        const v = rec.insert_settings!.values;
        console.log(
          `${version}: async_insert ${v.async_insert.value} (${v.async_insert.source}), wait_for_async_insert ${v.wait_for_async_insert.value}, max_insert_threads ${v.max_insert_threads.value}; added ${JSON.stringify(rec.insert_settings!.added)}; written_rows ${rec.written_rows!.value} (${rec.written_rows!.source}); summary ${rec.written_rows_summary}; count() ${rec.rows_in_table}; ${rec.written_rows!.check}`,
        );
      }
    });
    after(async () => {
      for (const h of started) await teardownEmbedded(h).catch(() => undefined);
      fs.rmSync(tmp, { recursive: true, force: true });
    });

    it('24.8: async_insert off by default, nothing added; max_insert_threads 0 (server default)', () => {
      const r = records.get('24.8')!;
      const v = r.insert_settings!.values;
      assert.deepEqual(v.async_insert, { value: '0', source: 'server default (system.settings, changed = 0)' });
      assert.deepEqual(v.wait_for_async_insert, {
        value: '1',
        source: 'server default (system.settings, changed = 0)',
      });
      assert.deepEqual(v.max_insert_threads, { value: '0', source: 'server default (system.settings, changed = 0)' });
      assert.deepEqual(r.insert_settings!.added, {});
      assert.equal(r.settings.async_insert, undefined, 'nothing sent beyond the spec');
      assert.match(r.insert_settings!.source, /system\.settings of this server/);
    });

    for (const version of ['26.3', '26.9'])
      it(`${version}: async_insert on by default, so the load sends async_insert = 0 and says why`, () => {
        const r = records.get(version)!;
        assert.deepEqual(r.insert_settings!.added, { async_insert: 0 });
        assert.equal(r.settings.async_insert, 0, 'recorded among the settings sent');
        // In effect for the INSERT (read back with what was sent), with the source of the change.
        assert.deepEqual(r.insert_settings!.values.async_insert, {
          value: '0',
          source: 'added by chbench for the load (see notes)',
        });
        assert.match(
          r.insert_settings!.notes.join(' '),
          /async_insert is 1 on this server \(server default \(system\.settings, changed = 0\)\); the load sends async_insert = 0/,
        );
      });

    it('max_insert_threads as each version prints it: 0 before 26.9, auto(N) on 26.9', () => {
      assert.equal(records.get('26.3')!.insert_settings!.values.max_insert_threads.value, '0');
      assert.match(records.get('26.9')!.insert_settings!.values.max_insert_threads.value ?? '', /^auto\(\d+\)$/);
    });

    it('written_rows: the engine server reports none for INSERT … SELECT; the InsertedRows difference equals count() on every version', () => {
      for (const version of BUILDS) {
        const r = records.get(version)!;
        assert.equal(r.written_rows_summary, null, `${version}: no written_rows in the summary`);
        assert.equal(r.rows_in_table, ROWS);
        assert.deepEqual(
          { value: r.written_rows!.value, source: r.written_rows!.source, check: r.written_rows!.check },
          {
            value: ROWS,
            source: 'system.events InsertedRows difference around the INSERT',
            check: 'written_rows (system.events InsertedRows difference around the INSERT) = count()',
          },
          version,
        );
        assert.match(
          r.written_rows!.unknown ?? '',
          /does not measure written_rows for this statement \(X-Chbench-Unmeasured\)/,
        );
        assert.equal(r.verification.written_rows_check, r.written_rows!.check);
      }
    });
  },
);
