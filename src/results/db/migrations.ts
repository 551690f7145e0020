/**
 * The results database's schema as versioned migrations, applied on open ({@link migrate}).
 *
 * Plain column types only (String, UInt8/UInt32/UInt64, Float64, Nullable, DateTime64(3, 'UTC')) and
 * plain MergeTree tables, so a team's ClickHouse server of any recent version takes it. Booleans are
 * UInt8 (0/1). Times are UTC. Counts are right without FINAL: the writer deletes a run's rows
 * (synchronously) before inserting them again.
 *
 * `schema_migrations(version, applied_at, chbench)` has one row per applied migration. Every
 * statement of a migration is idempotent (`IF NOT EXISTS`), so two openers racing on a fresh
 * database both succeed; the version row is written only when absent.
 */
import type { ClickHouseClient } from '@clickhouse/client';

/** One migration: its version (1, 2, …) and its statements, run in order. */
export interface Migration {
  version: number;
  description: string;
  statements: string[];
}

/** Every migration, in version order. Append, never edit an applied one. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'runs, cells, samples, comparisons, comparison_queries',
    statements: [
      `CREATE TABLE IF NOT EXISTS runs (
        run_id String, name String, workload String, scale UInt64, target_kind String,
        spec_hash String, spec_json String, chbench_version String, chbench_commit Nullable(String),
        schedule_id Nullable(String), started_at DateTime64(3, 'UTC'), finished_at Nullable(DateTime64(3, 'UTC')),
        status Nullable(String), cells_total UInt32, cells_succeeded UInt32, stored_at DateTime64(3, 'UTC')
      ) ENGINE = MergeTree ORDER BY run_id`,
      `CREATE TABLE IF NOT EXISTS cells (
        run_id String, cell_key String, version_label String, server_version Nullable(String), codec String,
        target_kind String, workload String, scale UInt64, settings_json String, status String, error Nullable(String),
        facts_json String, written_at Nullable(DateTime64(3, 'UTC')),
        load_rows Nullable(UInt64), load_elapsed_ms Nullable(Float64), load_rows_per_s Nullable(Float64),
        bytes_on_disk Nullable(UInt64), compressed_bytes Nullable(UInt64), uncompressed_bytes Nullable(UInt64),
        compression_ratio Nullable(Float64)
      ) ENGINE = MergeTree ORDER BY (run_id, cell_key)`,
      `CREATE TABLE IF NOT EXISTS samples (
        run_id String, cell_key String, phase String, query_id String, kind String, n UInt32,
        server_elapsed_ms Nullable(Float64), server_elapsed_source Nullable(String), wall_ms Float64,
        read_rows Nullable(UInt64), read_bytes Nullable(UInt64), result_rows UInt64, result_bytes Nullable(UInt64),
        result_sha256 String, valid UInt8, invalid_reason Nullable(String), started_at Nullable(DateTime64(3, 'UTC')),
        statement_id String
      ) ENGINE = MergeTree ORDER BY (run_id, cell_key, phase, query_id, kind, n)`,
      `CREATE TABLE IF NOT EXISTS comparisons (
        comparison_id String, run_id String, baseline_run_id String, baseline_chosen_by String, method String,
        options_json String, unpaired_json String, flagged_json String, confirmed_json String, verdict String,
        created_at DateTime64(3, 'UTC'), confirm_error Nullable(String), record_json String
      ) ENGINE = MergeTree ORDER BY (run_id, comparison_id)`,
      `CREATE TABLE IF NOT EXISTS comparison_queries (
        comparison_id String, run_id String, pair_key String, baseline_run String, baseline_cell String,
        new_run String, new_cell String, differences_json String, query_id String, phase String, figure String,
        n_baseline UInt32, n_new UInt32, median_baseline_ms Nullable(Float64), median_new_ms Nullable(Float64),
        ratio Nullable(Float64), ci_low Nullable(Float64), ci_high Nullable(Float64), threshold Nullable(Float64),
        verdict String, reason String, confirm_rounds Nullable(UInt32), confirm_ratio Nullable(Float64),
        confirm_ci_low Nullable(Float64), confirm_ci_high Nullable(Float64), confirm_verdict Nullable(String),
        confirmed Nullable(UInt8), confirm_reason Nullable(String), final String
      ) ENGINE = MergeTree ORDER BY (run_id, comparison_id, pair_key, phase, query_id)`,
    ],
  },
  {
    version: 2,
    description: 'samples: the figure the report uses (elapsed_ms, elapsed_source), the server time\'s resolution, the query\'s position in the report',
    statements: [
      `ALTER TABLE samples ADD COLUMN IF NOT EXISTS query_pos Nullable(UInt32) AFTER query_id`,
      `ALTER TABLE samples ADD COLUMN IF NOT EXISTS elapsed_ms Nullable(Float64) AFTER wall_ms`,
      `ALTER TABLE samples ADD COLUMN IF NOT EXISTS elapsed_source Nullable(String) AFTER elapsed_ms`,
      `ALTER TABLE samples ADD COLUMN IF NOT EXISTS server_resolution_ms Nullable(Float64) AFTER elapsed_source`,
      `ALTER TABLE samples ADD COLUMN IF NOT EXISTS server_elapsed_below_ms Nullable(Float64) AFTER server_resolution_ms`,
    ],
  },
  {
    version: 3,
    description:
      'samples: where read_rows/read_bytes come from and why a read is unknown (a 0 reported), the hash of the result values, memory_usage',
    statements: [
      `ALTER TABLE samples ADD COLUMN IF NOT EXISTS read_source Nullable(String) AFTER read_bytes`,
      `ALTER TABLE samples ADD COLUMN IF NOT EXISTS read_unknown Nullable(String) AFTER read_source`,
      `ALTER TABLE samples ADD COLUMN IF NOT EXISTS result_values_sha256 Nullable(String) AFTER result_sha256`,
      `ALTER TABLE samples ADD COLUMN IF NOT EXISTS memory_usage Nullable(UInt64) AFTER result_values_sha256`,
    ],
  },
  {
    version: 4,
    description:
      'figures: one row per (run, cell, phase, query, run kind/number, figure) with value, unit and source, backfilled from the samples columns',
    statements: [
      `CREATE TABLE IF NOT EXISTS figures (
        run_id String, cell_key String, phase String, query_id String, kind String, n UInt32,
        figure String, value Nullable(Float64), unit String, source Nullable(String), unknown Nullable(String)
      ) ENGINE = MergeTree ORDER BY (run_id, cell_key, phase, query_id, kind, n, figure)`,
      // The figures of rows stored before schema 4, as the samples columns hold them (frozen here: a
      // later figure is written by the store, never by this backfill). Runs already in `figures` are
      // skipped, so a second run of this statement (two openers racing) adds nothing.
      `INSERT INTO figures (run_id, cell_key, phase, query_id, kind, n, figure, value, unit, source, unknown)
      SELECT run_id, cell_key, phase, query_id, kind, n, f.1, f.2, f.3, f.4, f.5
      FROM samples
      ARRAY JOIN [
        tuple('server_elapsed_ms', toNullable(toFloat64OrNull(toString(server_elapsed_ms))), 'ms', server_elapsed_source, CAST(NULL, 'Nullable(String)')),
        tuple('wall_ms', toNullable(toFloat64(wall_ms)), 'ms', toNullable('client wall time'), CAST(NULL, 'Nullable(String)')),
        tuple('elapsed_ms', toFloat64OrNull(toString(elapsed_ms)), 'ms', elapsed_source, CAST(NULL, 'Nullable(String)')),
        tuple('read_rows', if(read_rows = 0, NULL, toFloat64OrNull(toString(read_rows))), 'rows', read_source, if(read_rows = 0, toNullable('recorded as 0 (a result written before a 0 read was recorded as unknown): a 0 read is unknown, not a figure'), read_unknown)),
        tuple('read_bytes', if(read_bytes = 0 OR read_rows = 0, NULL, toFloat64OrNull(toString(read_bytes))), 'bytes', read_source, if(read_bytes = 0 OR read_rows = 0, toNullable('recorded as 0 (a result written before a 0 read was recorded as unknown): a 0 read is unknown, not a figure'), read_unknown)),
        tuple('result_rows', toNullable(toFloat64(result_rows)), 'rows', toNullable('client result'), CAST(NULL, 'Nullable(String)')),
        tuple('result_bytes', toFloat64OrNull(toString(result_bytes)), 'bytes', toNullable('client result'), CAST(NULL, 'Nullable(String)')),
        tuple('memory_usage', toFloat64OrNull(toString(memory_usage)), 'bytes', if(isNull(memory_usage), NULL, toNullable('system.query_log.memory_usage')), CAST(NULL, 'Nullable(String)'))
      ] AS f
      WHERE run_id NOT IN (SELECT DISTINCT run_id FROM figures)`,
    ],
  },
  {
    version: 5,
    description:
      'query_runs: one row per measured query run without its figures (position, validity, result hashes, start, statement id, the server clock\'s resolution), backfilled from samples; the store stops writing samples',
    statements: [
      `CREATE TABLE IF NOT EXISTS query_runs (
        run_id String, cell_key String, phase String, query_id String, query_pos Nullable(UInt32), kind String, n UInt32,
        server_resolution_ms Nullable(Float64), server_elapsed_below_ms Nullable(Float64),
        result_sha256 String, result_values_sha256 Nullable(String), valid UInt8, invalid_reason Nullable(String),
        started_at Nullable(DateTime64(3, 'UTC')), statement_id String
      ) ENGINE = MergeTree ORDER BY (run_id, cell_key, phase, query_id, kind, n)`,
      // Runs stored before schema 5 (their figures are in figures since migration 4). Runs already in
      // query_runs are skipped, so a second run of this statement (two openers racing) adds nothing.
      `INSERT INTO query_runs (run_id, cell_key, phase, query_id, query_pos, kind, n, server_resolution_ms, server_elapsed_below_ms,
        result_sha256, result_values_sha256, valid, invalid_reason, started_at, statement_id)
      SELECT run_id, cell_key, phase, query_id, query_pos, kind, n, server_resolution_ms, server_elapsed_below_ms,
        result_sha256, result_values_sha256, valid, invalid_reason, started_at, statement_id
      FROM samples
      WHERE run_id NOT IN (SELECT DISTINCT run_id FROM query_runs)`,
    ],
  },
  {
    version: 6,
    description:
      "what makes a stored cell reusable (chbench bisect): runs.workload_sha256 (run.json's workload_files.sha256), cells.cell_spec_sha256 (result.json's hash of the cell's measured inputs) and cells.host_kind (CPU model, cores, memory of result.json's host); null for rows stored before, which are never reused",
    statements: [
      `ALTER TABLE runs ADD COLUMN IF NOT EXISTS workload_sha256 Nullable(String) AFTER spec_json`,
      `ALTER TABLE cells ADD COLUMN IF NOT EXISTS cell_spec_sha256 Nullable(String) AFTER settings_json`,
      `ALTER TABLE cells ADD COLUMN IF NOT EXISTS host_kind Nullable(String) AFTER cell_spec_sha256`,
    ],
  },
  {
    version: 7,
    description:
      "bisects: one row per bisect run (chbench bisect, bisectVersions): its query, metric, ends, the versions in range, the bracketing pair, the verdict (attribution's, or why there is none), cells run and reused, and the report's record as JSON",
    statements: [
      `CREATE TABLE IF NOT EXISTS bisects (
        run_id String, query String, metric String, good String, bad String, versions Array(String),
        bracket_older Nullable(String), first_changed Nullable(String), verdict String,
        cells_run UInt32, cells_new Nullable(UInt32), cells_reused UInt32, record_json String,
        stored_at DateTime64(3, 'UTC')
      ) ENGINE = MergeTree ORDER BY run_id`,
    ],
  },
  {
    version: 8,
    description:
      "verdicts: one row per comparison of a run's verdicts.json (axis, reference and compared cell, query or null for ingest/disk, phase, verdict, ratio and its interval, MDE, runs per side, confirmed as 1/0/null, the reason)",
    statements: [
      `CREATE TABLE IF NOT EXISTS verdicts (
        run_id String, axis String, reference String, cell String, query Nullable(String), phase String,
        verdict String, ratio Nullable(Float64), low Nullable(Float64), high Nullable(Float64),
        mde Nullable(Float64), runs_reference UInt32, runs_cell UInt32, confirmed Nullable(UInt8),
        remeasured UInt8, figure Nullable(String), reason String, stage String
      ) ENGINE = MergeTree ORDER BY (run_id, cell, phase)`,
    ],
  },
];

/** The newest schema version this chbench knows. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;

/**
 * Bring the database to {@link SCHEMA_VERSION}: create `schema_migrations` if missing, run every
 * migration whose version has no row, and record it with the chbench version that applied it.
 * @param client a client whose default database is the results database (it must exist)
 * @param upTo apply migrations up to this version only (default {@link SCHEMA_VERSION}; a lower one
 *   builds a database as an older chbench left it, for the upgrade tests)
 * @returns the versions applied now (empty when the schema was current)
 * @throws Error when the database is newer than this chbench (a version above {@link SCHEMA_VERSION})
 *   or a statement fails (the error names the version and the statement's first line)
 */
export async function migrate(client: ClickHouseClient, chbenchVersion: string, upTo: number = SCHEMA_VERSION): Promise<number[]> {
  await client.command({
    query: `CREATE TABLE IF NOT EXISTS schema_migrations (version UInt32, applied_at DateTime64(3, 'UTC'), chbench String) ENGINE = MergeTree ORDER BY version`,
  });
  const applied = new Set((await (await client.query({ query: 'SELECT DISTINCT version FROM schema_migrations', format: 'JSONEachRow' })).json<{ version: number }>()).map((r) => Number(r.version)));
  const newest = Math.max(0, ...applied);
  if (newest > SCHEMA_VERSION) throw new Error(`results database schema version ${newest} is newer than this chbench knows (${SCHEMA_VERSION}): upgrade chbench`);
  const done: number[] = [];
  for (const m of MIGRATIONS) {
    if (applied.has(m.version) || m.version > upTo) continue;
    for (const sql of m.statements) {
      try {
        await client.command({ query: sql });
      } catch (e) {
        throw new Error(`results database migration ${m.version} (${m.description}): ${sql.split('\n')[0]} …: ${(e as Error).message}`, { cause: e });
      }
    }
    const again = await (await client.query({ query: `SELECT count() AS n FROM schema_migrations WHERE version = ${m.version}`, format: 'JSONEachRow' })).json<{ n: string }>();
    if (Number(again[0]?.n ?? 0) === 0)
      await client.insert({ table: 'schema_migrations', values: [{ version: m.version, applied_at: new Date().toISOString().replace('T', ' ').replace('Z', ''), chbench: chbenchVersion }], format: 'JSONEachRow' });
    done.push(m.version);
  }
  return done;
}
