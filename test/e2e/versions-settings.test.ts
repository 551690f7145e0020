/**
 * Settings per version (issue 23), on real engines: a matrix over the embedded target's PyPI builds
 * 23.10 (chdb 1.4.1, ClickHouse 23.10.1.1) and 26.9 (chdb-core 26.9.0) with a query setting only
 * 26.9 has (`use_query_condition_cache`, added in 25.x). Run through the real matrix workflow (dev
 * server, a worker in this process, every activity real):
 * - required: the 23.10 cell fails before loading, with the reason naming ClickHouse 23.10.1.1 and the
 *   setting's level (`settings.query`); the 26.9 cell runs to the end;
 * - in `settings.optional`: neither cell is refused, 23.10's `settings.json` records it as not applied
 *   (and the report says so) while 26.9's applies it, and both cells run to the end (23.10 with the
 *   figures chdb 1.4.1 cannot give recorded as n/a, each with its reason).
 *
 * - `pinDefaults: 24.8` on 26.9: the cell key ends `-pin24.8`, `compatibility = '24.8'` goes with the
 *   load and every run, the report says per cell which defaults it ran with.
 *
 * Installs both builds on demand (as the provision step would).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { startTemporalEnv, type TemporalEnv } from '../helpers/temporal-env';
import type { MatrixResult } from '../../src/workflows';
import { findPypiBuild, installEngine } from '../../src/engine/install';
import { cellDir } from '../../src/results/store';
import type { CellSettings } from '../../src/schema/results';
import { connect, queryRows } from '../../src/clickhouse/client';
import { provisionEmbedded, teardownEmbedded } from '../../src/targets/embedded';

// The builds are installed on demand (into CHBENCH_ENGINES_DIR; `.ci/run` gives each run its own cache).
const skip = false;
const BUILDS = ['23.10', '26.9'];

let env: TemporalEnv;
before(async () => {
  for (const v of BUILDS) await installEngine(findPypiBuild(v)!);
  env = await startTemporalEnv('versions-settings');
});
after(async () => {
  await env?.stop();
});

const spec = (runId: string, optional: string[]) => ({
  name: runId,
  workload: 'trivial',
  scale: 1000,
  target: { kind: 'embedded' },
  matrix: { version: ['23.10', '26.9'], codec: ['LZ4'] },
  skipIndex: false,
  protocol: { warmRuns: 1, warmupRuns: 0, dropOsPageCache: false },
  settings: { query: { use_query_condition_cache: 0 }, optional },
  resultsDir: env.resultsDir,
});

const settingsOf = (runId: string, key: string): CellSettings =>
  JSON.parse(readFileSync(path.join(cellDir(env.resultsDir, runId, key), 'settings.json'), 'utf8')) as CellSettings;

test(
  'a setting only 26.9 has: the run is refused before any cell, naming 23.10 (23.10.1.1); optional: not refused, 23.10 records it not applied and the report says so',
  { skip, timeout: 600_000 },
  async () => {
    const required = `vs-req-${Date.now()}`;
    // The builds' settings catalog knows 23.10 lacks it: refused at validateSpec, nothing provisioned.
    await assert.rejects(
      env.client.workflow.execute('benchmarkMatrix', {
        taskQueue: env.taskQueue,
        workflowId: required,
        args: [spec(required, [])],
      }),
      (e: Error & { cause?: { cause?: { type?: string; message?: string } } }) => {
        const f = e.cause?.cause;
        assert.equal(f?.type, 'InvalidSpec', String(e));
        assert.match(
          f?.message ?? '',
          /settings\.query: use_query_condition_cache is not a setting of 23\.10 \(ClickHouse 23\.10\.1\.1, pypi chdb==1\.4\.1\) — absent from its system\.settings.*list it in settings\.optional/,
        );
        return true;
      },
    );
    assert.equal(existsSync(cellDir(env.resultsDir, required, 'v23.10-lz4')), false, 'no cell was provisioned');

    const opt = `vs-opt-${Date.now()}`;
    const r2 = (await env.client.workflow.execute('benchmarkMatrix', {
      taskQueue: env.taskQueue,
      workflowId: opt,
      args: [spec(opt, ['use_query_condition_cache'])],
    })) as MatrixResult;
    const byKey2 = Object.fromEntries(r2.cells.map((c) => [c.cellKey, c]));
    assert.equal(byKey2['v26.9-lz4'].status, 'succeeded', byKey2['v26.9-lz4'].error);
    // The 23.10 cell passes the settings check and runs every step (chdb 1.4.1 keeps its tables in the
    // Atomic database `default` the engine host creates).
    assert.equal(byKey2['v23.10-lz4'].status, 'succeeded', byKey2['v23.10-lz4'].error);
    const res23 = JSON.parse(
      readFileSync(path.join(cellDir(env.resultsDir, opt, 'v23.10-lz4'), 'result.json'), 'utf8'),
    );
    console.log(
      `23.10 cell: ${JSON.stringify({ attempts: res23.attempts, storage: res23.storage, quiesce: res23.quiesce })}`,
    );
    // Each step once (no retry), the queries measured.
    for (const [step, n] of Object.entries(res23.attempts)) assert.equal(n, 1, `${step} ran once`);
    assert.ok(res23.queries_baseline.queries.length > 0, 'queries measured');
    assert.ok(res23.metrics_delta !== null || res23.metrics_delta_unavailable, 'metrics collected or n/a with why');
    // Every figure 23.10 cannot give is n/a with its reason, never 0: no system.parts / merges / mutations.
    assert.equal(res23.load.rows_in_table, 1000);
    assert.equal(res23.load.partitions, null);
    assert.equal(res23.load.active_parts, null);
    assert.match(res23.load.parts_source, /system\.tables .*no system\.parts/);
    const q23 = res23.quiesce['after-load'];
    assert.equal(q23.active_parts, null);
    assert.match(q23.not_observable, /no system\.parts, system\.merges or system\.mutations/);
    assert.equal(res23.storage.rows, 1000);
    assert.equal(res23.storage.active_parts, null);
    assert.ok(res23.storage.bytes_on_disk > 0, 'bytes on disk from system.tables.total_bytes');
    assert.match(res23.storage.sources.parts, /n\/a: this server has no system\.parts/);
    if (res23.storage.compressed_bytes === null) {
      assert.equal(res23.storage.ratio, null);
      assert.match(res23.storage.columns_unavailable_reason, /Compact parts/);
    }
    const old = settingsOf(opt, 'v23.10-lz4');
    assert.deepEqual(old.runs, {});
    assert.match(
      old.not_applied.use_query_condition_cache,
      /not applied on this version: ClickHouse 23\.10\.1\.1 has no such setting \(system\.settings\)/,
    );
    assert.deepEqual(settingsOf(opt, 'v26.9-lz4').runs, { use_query_condition_cache: 0 });
    assert.deepEqual(settingsOf(opt, 'v26.9-lz4').not_applied, {});
    const md = readFileSync(r2.reportPath, 'utf8');
    assert.match(
      md,
      /use_query_condition_cache[^\n]*not applied[^\n]*23\.10/i,
      'the report notes it was not applied on 23.10',
    );
  },
);

test(
  'pinDefaults 24.8 on 26.9: the cell key says so, compatibility goes with every run, the report says which defaults',
  { skip, timeout: 300_000 },
  async () => {
    const runId = `vs-pin-${Date.now()}`;
    const r = (await env.client.workflow.execute('benchmarkMatrix', {
      taskQueue: env.taskQueue,
      workflowId: runId,
      args: [{ ...spec(runId, []), matrix: { version: ['26.9'], codec: ['LZ4'] }, settings: {}, pinDefaults: '24.8' }],
    })) as MatrixResult;
    assert.deepEqual(
      r.cells.map((c) => [c.cellKey, c.status, c.error ?? '']),
      [['v26.9-lz4-pin24.8', 'succeeded', '']],
    );
    const s = settingsOf(runId, 'v26.9-lz4-pin24.8');
    assert.deepEqual(s.pinned_defaults, { version: '24.8', setting: "compatibility = '24.8'" });
    assert.equal(s.runs.compatibility, '24.8');
    assert.equal(s.load.compatibility, '24.8');
    const md = readFileSync(r.reportPath, 'utf8');
    assert.match(
      md,
      /v26\.9-lz4-pin24\.8: ClickHouse 26\.9\.2\.1 pinned to 24\.8's defaults \(compatibility = '24\.8'/,
    );
    // What the setting does on this engine, through the same path the measured runs use (settings per
    // query): 26.9 ships the query condition cache on; with 24.8's defaults it is off.
    const h = await provisionEmbedded({ runId, cellKey: 'pin-check', version: '26.9', workDir: env.workDir });
    const client = connect(h);
    try {
      const get = async (settings: Record<string, string>) =>
        (
          await queryRows<{ v: string }>(
            client,
            "SELECT toString(getSetting('use_query_condition_cache')) AS v",
            settings,
          )
        )[0].v;
      const shipped = await get({});
      const pinned = await get({ compatibility: '24.8' });
      console.log(`26.9 use_query_condition_cache: shipped ${shipped}, compatibility 24.8 ${pinned}`);
      assert.equal(shipped, 'true');
      assert.equal(pinned, 'false');
    } finally {
      await client.close();
      await teardownEmbedded(h);
    }
  },
);
