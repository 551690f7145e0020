"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.SCHEMA_VERSION = exports.MIGRATIONS = void 0;
exports.migrate = migrate;
/** Every migration, in version order. Append, never edit an applied one. */
exports.MIGRATIONS = [
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
];
/** The newest schema version this chbench knows. */
exports.SCHEMA_VERSION = exports.MIGRATIONS[exports.MIGRATIONS.length - 1].version;
/**
 * Bring the database to {@link SCHEMA_VERSION}: create `schema_migrations` if missing, run every
 * migration whose version has no row, and record it with the chbench version that applied it.
 * @param client a client whose default database is the results database (it must exist)
 * @returns the versions applied now (empty when the schema was current)
 * @throws Error when the database is newer than this chbench (a version above {@link SCHEMA_VERSION})
 *   or a statement fails (the error names the version and the statement's first line)
 */
async function migrate(client, chbenchVersion) {
    await client.command({
        query: `CREATE TABLE IF NOT EXISTS schema_migrations (version UInt32, applied_at DateTime64(3, 'UTC'), chbench String) ENGINE = MergeTree ORDER BY version`,
    });
    const applied = new Set((await (await client.query({ query: 'SELECT DISTINCT version FROM schema_migrations', format: 'JSONEachRow' })).json()).map((r) => Number(r.version)));
    const newest = Math.max(0, ...applied);
    if (newest > exports.SCHEMA_VERSION)
        throw new Error(`results database schema version ${newest} is newer than this chbench knows (${exports.SCHEMA_VERSION}): upgrade chbench`);
    const done = [];
    for (const m of exports.MIGRATIONS) {
        if (applied.has(m.version))
            continue;
        for (const sql of m.statements) {
            try {
                await client.command({ query: sql });
            }
            catch (e) {
                throw new Error(`results database migration ${m.version} (${m.description}): ${sql.split('\n')[0]} …: ${e.message}`, { cause: e });
            }
        }
        const again = await (await client.query({ query: `SELECT count() AS n FROM schema_migrations WHERE version = ${m.version}`, format: 'JSONEachRow' })).json();
        if (Number(again[0]?.n ?? 0) === 0)
            await client.insert({ table: 'schema_migrations', values: [{ version: m.version, applied_at: new Date().toISOString().replace('T', ' ').replace('Z', ''), chbench: chbenchVersion }], format: 'JSONEachRow' });
        done.push(m.version);
    }
    return done;
}
//# sourceMappingURL=migrations.js.map