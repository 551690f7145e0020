"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.CellResult = exports.AttemptRecord = exports.ConcurrencyStepRecord = exports.InsertPointRecord = exports.ProtocolRecord = exports.CellStatus = exports.CELL_RESULT_SCHEMA = exports.RunCostRecord = exports.RUN_COST_SCHEMA = exports.CellCostRecord = exports.CELL_COST_SCHEMA = exports.CloudMetricsRecord = exports.CLOUD_METRICS_SCHEMA = exports.CloudStepRecord = exports.CloudFigures = exports.CloudResourcesRecord = exports.BottleneckLabel = exports.TeardownRecord = exports.IndexRecord = exports.MutationRow = exports.IndexVerification = exports.QueriesRecord = exports.QueryPhase = exports.QueryRecord = exports.QueryError = exports.QueryStats = exports.RunSample = exports.RunKind = exports.ServerTimeSource = exports.ColdPreparation = exports.StorageRecord = exports.ColumnStorage = exports.QuiesceRecord = exports.LoadRecord = exports.MetricsDelta = exports.MetricsSnapshot = exports.DataDisk = exports.SchemaRecord = exports.ProvisionRecord = exports.ServerRecord = exports.TargetRecord = exports.CellSettings = exports.CapabilityProbe = exports.IndexProof = exports.RunCounters = exports.RunValidity = exports.PreviousAttempts = exports.CommandOutcome = exports.Settings = exports.WallClockAt = void 0;
exports.RECORD_IDS = exports.FlatSample = exports.FlatSampleMetadata = exports.SampleKind = exports.RunRecord = exports.RUN_RECORD_SCHEMA = exports.WorkloadFingerprint = exports.ChbenchVersion = void 0;
/**
 * The results schema: every record chbench writes under `results/<runId>/`, defined once as a zod
 * schema with its inferred type under the same name (value and type share the name, as in
 * `run-spec.ts`). Writers build these types; readers parse with the schemas (see `readRecord` in
 * `src/results/store.ts`), so an old or foreign file fails with the field named.
 *
 * Conventions of every record:
 * - `null` = "unknown / not available on this server", never 0; the field's `*_source` (or a
 *   `reason`) says why. An absent optional field = "does not apply".
 * - Durations are milliseconds (`*_ms`), sizes bytes (`*_bytes`), times ISO 8601 strings (`*_at`).
 * - Open maps (settings, counters, query_log rows, `system.events`) are `z.record`s: their keys are
 *   the server's, and differ between versions.
 *
 * Pure module: imports only zod and other `schema/` modules, so workflows, activities, the report
 * and the CLI all import it.
 *
 * Files (per cell, `cells/<cellKey>/`): `probe.json` {@link CapabilityProbe}, `settings.json`
 * {@link CellSettings}, `provision.json` {@link ProvisionRecord}, `schema.json` {@link SchemaRecord},
 * `metrics-<label>.json` {@link MetricsSnapshot}, `load.json` {@link LoadRecord}, `quiesce-<label>.json`
 * {@link QuiesceRecord}, `storage.json` {@link StorageRecord}, `queries-<phase>.json`
 * {@link QueriesRecord}, `index.json` {@link IndexRecord}, `teardown.json` {@link TeardownRecord},
 * `result.json` {@link CellResult}, `samples.jsonl` (one {@link FlatSample} per line); with a `cloud`
 * spec, after the cells: `cloud-metrics.json` {@link CloudMetricsRecord}, `cost.json`
 * {@link CellCostRecord}. Per run: `run.json` {@link RunRecord}, `samples.jsonl`, `cost.json`
 * {@link RunCostRecord}.
 */
const zod_1 = require("zod");
const target_1 = require("./target");
const run_spec_1 = require("./run-spec");
const host_1 = require("./host");
// ---------------------------------------------------------------------------------------------
// Shared pieces
/**
 * A wall-clock instant of the worker's clock (`new Date().toISOString()`, ms resolution, UTC), taken
 * by the client around a statement or a wait. Optional in every record that carries one: results
 * written before these fields existed still parse. The cloud metrics use them as step windows.
 */
exports.WallClockAt = zod_1.z.iso.datetime({ offset: true });
/** Settings as sent to the server (name → value). Values are numbers except where a spec gave a string. */
exports.Settings = zod_1.z.record(zod_1.z.string(), zod_1.z.union([zod_1.z.number(), zod_1.z.string()]));
/** Outcome of a statement whose failure is acceptable (recorded, not thrown). Same shape as `CommandOutcome` of `clickhouse/client`. */
exports.CommandOutcome = zod_1.z.object({
    sql: zod_1.z.string(),
    ok: zod_1.z.boolean(),
    /** Server error text (first line) when `ok` is false. */
    error: zod_1.z.string().optional(),
    /** ClickHouse error code when `ok` is false. */
    code: zod_1.z.string().optional(),
});
/** Statements of earlier attempts of a step found running when it started, and what was done. */
exports.PreviousAttempts = zod_1.z.object({
    /** Query ids that were still running when the step started. */
    found: zod_1.z.array(zod_1.z.string()),
    /** `killed` (real servers) or `waited` (engines that cannot interrupt a statement). */
    action: zod_1.z.enum(['none', 'killed', 'waited']),
    /** How long the step waited for them, ms (client wall time). */
    waited_ms: zod_1.z.number(),
});
/** Verdict on one run (see `src/measure/validity.ts`). `valid: null` = could not be judged (counters unknown). */
exports.RunValidity = zod_1.z.object({
    valid: zod_1.z.boolean().nullable(),
    /** Short label shown next to the number: `cold`, `not cold`, `cold?`, `warm`, `not warm`, … */
    label: zod_1.z.string(),
    /** Reasons, one per failed or unknown check. */
    reasons: zod_1.z.array(zod_1.z.string()),
});
/**
 * Per-run counters (ProfileEvents names such as `OSReadBytes`, `MarkCacheHits`; the list is
 * `RUN_COUNTERS` in `src/measure/validity.ts`); `null` = the server does not have that counter.
 */
exports.RunCounters = zod_1.z.record(zod_1.z.string(), zod_1.z.number().nullable());
/** Skip-index proof from the measured runs (see `judgeIndexUse` in `src/measure/index-proof.ts`). */
exports.IndexProof = zod_1.z.object({
    index: zod_1.z.string(),
    /** `kept/total` granules of the index in the EXPLAIN, null when the EXPLAIN does not show the index. */
    explain_granules: zod_1.z.string().nullable(),
    /** EXPLAIN shows the index dropping granules. null = EXPLAIN not available. */
    explain_skips: zod_1.z.boolean().nullable(),
    /** read_rows of the last warm run after the index (null when unknown). */
    read_rows_after: zod_1.z.number().nullable(),
    /** read_rows of the last warm run in the baseline phase (null when unknown). */
    read_rows_before: zod_1.z.number().nullable(),
    /**
     * `true`: EXPLAIN skips and the measured runs read fewer rows than before; `false`: the index was not
     * used under the runs' settings, or EXPLAIN claims skipping while the measured runs read as many
     * rows as before ("index not effective in the measured runs"); `null`: cannot be judged.
     */
    effective: zod_1.z.boolean().nullable(),
    reason: zod_1.z.string(),
});
// ---------------------------------------------------------------------------------------------
// Provisioning: probe.json, settings.json, provision.json, schema.json
/** `probe.json`: the capability probe of one target. A list that could not be read is `null` ("unknown"), never empty. */
exports.CapabilityProbe = zod_1.z.object({
    /** `SELECT version()`. */
    version: zod_1.z.string(),
    /** Query-level settings (`system.settings`). */
    query_settings: zod_1.z.array(zod_1.z.string()).nullable(),
    /** MergeTree table settings (`system.merge_tree_settings`). */
    merge_tree_settings: zod_1.z.array(zod_1.z.string()).nullable(),
    /** Server settings (`system.server_settings`, newer versions only). */
    server_settings: zod_1.z.array(zod_1.z.string()).nullable(),
    /** Each cache-drop statement chbench may use and whether the server accepted it. */
    cache_drops: zod_1.z.array(exports.CommandOutcome),
    /** `system.query_log`: exists (after a logged query and a flush), and how it stores ProfileEvents. */
    query_log: zod_1.z.object({ enabled: zod_1.z.boolean(), profile_events: zod_1.z.enum(['map', 'arrays', 'none']).nullable() }),
    /** `system.part_log` exists. */
    part_log: zod_1.z.object({ enabled: zod_1.z.boolean() }),
    /** Counter names in `system.events` (all of them where `system_events_show_zero_values` exists). */
    events: zod_1.z.array(zod_1.z.string()).nullable(),
    /** Whether `events` lists every counter (true) or only the non-zero ones (false). */
    events_complete: zod_1.z.boolean(),
    /** Data types (`system.data_type_families`); null if unreadable. */
    data_types: zod_1.z.array(zod_1.z.string()).nullable(),
    /** Table functions (`system.table_functions`); null if unreadable. */
    table_functions: zod_1.z.array(zod_1.z.string()).nullable(),
    /** Whether a column `CODEC(...)` clause is accepted (trial `CREATE TEMPORARY TABLE`). */
    column_codecs: zod_1.z.boolean(),
    /** The trial's outcome (the server's error when refused). */
    column_codecs_trial: exports.CommandOutcome,
});
/** `settings.json`: what each statement kind will send, after checking against the probe. */
exports.CellSettings = zod_1.z.object({
    /** Settings of the load INSERT (workload loadSettings + spec settings.query). */
    load: exports.Settings,
    /** Settings added to every measured run (spec settings.query). */
    runs: exports.Settings,
    /** The table's SETTINGS clause (workload tableSettings + spec settings.mergeTree). */
    table: exports.Settings,
    /** Optional settings left out on this version (name → reason). */
    not_applied: zod_1.z.record(zod_1.z.string(), zod_1.z.string()),
    problems: zod_1.z.array(zod_1.z.string()),
});
/**
 * The target handle as recorded (same shape as `TargetHandle` in `schema/target.ts`). `kind` is a
 * plain string here: a result written by a target kind this chbench does not know still reads.
 */
exports.TargetRecord = zod_1.z.object({
    kind: zod_1.z.string(),
    /** Base URL of the ClickHouse HTTP interface. */
    url: zod_1.z.string(),
    database: zod_1.z.string(),
    username: zod_1.z.string(),
    /** Name of the environment variable holding the password; never the password. */
    passwordEnv: zod_1.z.string().optional(),
    /** PID of the server process chbench started (embedded/local). */
    pid: zod_1.z.number().optional(),
    /** Directory chbench created for this cell's server. */
    dataDir: zod_1.z.string().optional(),
    runId: zod_1.z.string(),
    cellKey: zod_1.z.string(),
    /** One human line on how it was provisioned. */
    provisionedBy: zod_1.z.string(),
    /** Secret holding the password (kubernetes): namespace, name, key. Never the password. */
    passwordSecret: zod_1.z.object({ namespace: zod_1.z.string(), name: zod_1.z.string(), key: zod_1.z.string() }).optional(),
    /** The cell's pod, PVC, node and volume (kubernetes); see `KubernetesFacts` in `schema/target.ts`. */
    kubernetes: target_1.KubernetesFacts.optional(),
});
/** Server facts recorded at provisioning (same shape as `ServerInfo` in `schema/cell.ts`). */
exports.ServerRecord = zod_1.z.object({
    /** `SELECT version()`. */
    version: zod_1.z.string(),
    /** `SELECT timezone()`. */
    timezone: zod_1.z.string(),
    /** Logical CPUs (see `cpu_source`: `system.asynchronous_metrics`, or the worker host's `os.cpus()`); null = unknown. */
    cpus: zod_1.z.number().nullable(),
    cpu_source: zod_1.z.string(),
    /** Memory, bytes (see `memory_source`); null = unknown. */
    memory_bytes: zod_1.z.number().nullable(),
    memory_source: zod_1.z.string(),
    /** Whether `system.query_log` can be read on this target. */
    query_log: zod_1.z.enum(['available', 'not available']),
});
/** `provision.json`: the provision step's result plus when. */
exports.ProvisionRecord = zod_1.z.object({
    target: exports.TargetRecord,
    server: exports.ServerRecord,
    /** Set when this version cannot run the cell (the cell is reported as skipped). */
    skipReason: zod_1.z.string().optional(),
    /** ISO time the record was written. */
    provisioned_at: zod_1.z.string(),
    /** The host whose worker provisioned a target on its own host (embedded, local); absent for targets not bound to a host. */
    host: host_1.HostFacts.optional(),
});
/** `schema.json`: the table DDL. */
exports.SchemaRecord = zod_1.z.object({
    /** The CREATE TABLE statement exactly as sent. */
    ddl_sent: zod_1.z.string(),
    /** `SHOW CREATE TABLE` afterwards (what the server made of it). */
    show_create_table: zod_1.z.string(),
    /** The cell's codec profile against each column's codec read back from the server (absent in older results). */
    codecs: zod_1.z
        .object({
        /** The profile the cell declares: name, default expression, per-column overrides. */
        profile: zod_1.z.object({ name: zod_1.z.string(), default: zod_1.z.string(), columns: zod_1.z.record(zod_1.z.string(), zod_1.z.string()) }),
        /** Where `server` comes from: `system.columns.compression_codec`. */
        source: zod_1.z.string(),
        /** False where the server has no `compression_codec` (ClickHouse 18.16): nothing was read back, `reason` says so. */
        available: zod_1.z.boolean(),
        reason: zod_1.z.string().optional(),
        columns: zod_1.z.array(zod_1.z.object({
            column: zod_1.z.string(),
            /** `system.columns.type`. */
            type: zod_1.z.string(),
            /** Expression the cell declares for the column (`LZ4` = the server default). */
            declared: zod_1.z.string(),
            /** `system.columns.compression_codec` as read back (`''` = the server default, LZ4). */
            server: zod_1.z.string(),
            matches: zod_1.z.boolean(),
        })),
    })
        .optional(),
    /** Table settings: declared (workload + spec), applied = shown with that value by `SHOW CREATE TABLE`. */
    table_settings: zod_1.z
        .object({
        declared: exports.Settings,
        applied: exports.Settings,
        /** Declared settings the server does not show (name → why): not counted as applied. */
        not_shown: zod_1.z.record(zod_1.z.string(), zod_1.z.string()),
        source: zod_1.z.string(),
    })
        .optional(),
    /** Each selected query's EXPLAIN on the empty table, before loading (absent in older results). */
    query_check: zod_1.z
        .object({
        /** False where the server has no EXPLAIN (ClickHouse 18.16): `reason` says so. */
        available: zod_1.z.boolean(),
        reason: zod_1.z.string().optional(),
        source: zod_1.z.string(),
        queries: zod_1.z.array(zod_1.z.object({
            id: zod_1.z.string(),
            /** The query's file in the workload folder. */
            file: zod_1.z.string(),
            ok: zod_1.z.boolean(),
            /** Server error (first line) when refused. */
            error: zod_1.z.string().optional(),
            code: zod_1.z.string().optional(),
        })),
    })
        .optional(),
});
// ---------------------------------------------------------------------------------------------
// Counters: metrics-<label>.json
/**
 * The disk and filesystem holding a server's data directory, as the worker's host sees it. Sources:
 * `/proc/self/mountinfo` (the mount with the longest mount point containing the directory: its
 * filesystem type and source device), `/sys/class/block/<device>` (the whole disk of a partition,
 * `device/model`, `queue/rotational`). `null` per fact where the host does not say.
 */
exports.DataDisk = zod_1.z.object({
    /** The data directory (the target handle's `dataDir`). */
    path: zod_1.z.string(),
    /** Mount point holding it (`/proc/self/mountinfo` field 5). */
    mount_point: zod_1.z.string().nullable(),
    /** Filesystem type, e.g. `ext4`, `xfs`, `overlay`, `tmpfs`. */
    filesystem: zod_1.z.string().nullable(),
    /** Mount source, e.g. `/dev/nvme0n1p1` (a non-device source such as `overlay` as written). */
    device: zod_1.z.string().nullable(),
    /** The whole disk of that device, e.g. `nvme0n1` (`/sys/class/block`). */
    disk: zod_1.z.string().nullable(),
    /** `/sys/class/block/<disk>/device/model`, trimmed. */
    disk_model: zod_1.z.string().nullable(),
    /** `/sys/class/block/<disk>/queue/rotational` = 1 (spinning disk). */
    rotational: zod_1.z.boolean().nullable(),
    /** Where the facts come from, or why they are missing. */
    source: zod_1.z.string(),
});
/** `metrics-<label>.json`: a snapshot of cumulative counters. Missing sources are `null` with a reason, never zeros. */
exports.MetricsSnapshot = zod_1.z.object({
    /** `start` or `end` of the cell. */
    label: zod_1.z.string(),
    /** ISO time of the snapshot. */
    taken_at: zod_1.z.string(),
    /** `system.events` (name → value), `null` if unreadable. */
    server_events: zod_1.z.record(zod_1.z.string(), zod_1.z.number()).nullable(),
    server_events_source: zod_1.z.string(),
    /** Host disk counters (device → bytes read/written, io ms), from /proc/diskstats (sectors × 512); targets on the worker's host only. */
    host_disks: zod_1.z.record(zod_1.z.string(), zod_1.z.object({ read_bytes: zod_1.z.number(), write_bytes: zod_1.z.number(), io_ms: zod_1.z.number() })).nullable(),
    /** Host CPU jiffies from the `cpu` line of /proc/stat. */
    host_cpu: zod_1.z.object({ user: zod_1.z.number(), system: zod_1.z.number(), idle: zod_1.z.number(), iowait: zod_1.z.number() }).nullable(),
    host_source: zod_1.z.string(),
    /** What else the worker's host was running (targets on the worker's host only). */
    host_activity: host_1.HostActivity.optional(),
    /** The disk and filesystem of the server's data directory (start snapshot; targets on the worker's host with a data directory). */
    data_disk: exports.DataDisk.optional(),
});
/** `result.json.metrics_delta`: start→end difference of {@link MetricsSnapshot}s; `null` per counter where unknown. */
exports.MetricsDelta = zod_1.z.object({
    /** `taken_at` of the start snapshot. */
    from: zod_1.z.string(),
    /** `taken_at` of the end snapshot. */
    to: zod_1.z.string(),
    /** Key `system.events` counters (`KEY_EVENTS`), end − start; null when the server does not have it. */
    server_events: zod_1.z.record(zod_1.z.string(), zod_1.z.number().nullable()),
    server_events_source: zod_1.z.string(),
    /** Per whole disk of the worker host (only disks that moved), bytes; null when not on the worker host. */
    host_disks: zod_1.z.record(zod_1.z.string(), zod_1.z.object({ read_bytes: zod_1.z.number(), write_bytes: zod_1.z.number() })).nullable(),
    host_source: zod_1.z.string(),
});
// ---------------------------------------------------------------------------------------------
// Load, quiesce, storage
/** `load.json`. The first six fields are the `LoadSummary` returned to the workflow. */
exports.LoadRecord = zod_1.z.object({
    /** Rows loaded (`SELECT count()` after the INSERT). */
    rows: zod_1.z.number(),
    /** Client wall time of the INSERT … SELECT, ms. */
    elapsed_ms: zod_1.z.number(),
    /** rows / elapsed (client wall time). */
    rows_per_s: zod_1.z.number(),
    /** Partitions of the active parts (`system.parts`). */
    partitions: zod_1.z.number(),
    /** Active parts after loading (`system.parts`). */
    active_parts: zod_1.z.number(),
    /** True when the table already held the expected rows from an earlier attempt and nothing was inserted. */
    reused: zod_1.z.boolean(),
    sql: zod_1.z.string(),
    settings: exports.Settings,
    query_id: zod_1.z.string(),
    /** Server-side elapsed of the INSERT, ms (see `server_elapsed_source`); null when the server gives none. */
    server_elapsed_ms: zod_1.z.number().nullable(),
    /** `http summary elapsed_ns`, `system.query_log.query_duration_ms` or `not available`. */
    server_elapsed_source: zod_1.z.string(),
    /** `written_rows` from the HTTP summary; null when the server did not send it. Cross-checked against count(). */
    written_rows_summary: zod_1.z.number().nullable(),
    /** Rows in the table after loading (`SELECT count()`): must equal the spec's scale. */
    rows_in_table: zod_1.z.number(),
    /** `system.parts` sum(bytes_on_disk) of active parts after loading. */
    bytes_on_disk: zod_1.z.number(),
    truncated_before_load: zod_1.z.object({ rows_found: zod_1.z.number(), reason: zod_1.z.string() }).nullable(),
    /** Statements of earlier attempts found running when this attempt started, and what was done. */
    previous_attempts: exports.PreviousAttempts,
    /**
     * Load verification: `count()` equals the spec's scale; `written_rows` of the HTTP summary checked
     * against the table where the server sends it; insert blocks dropped by deduplication
     * (`DuplicatedInsertedBlocks`, null = unknown).
     */
    verification: zod_1.z.object({
        rows_equal_scale: zod_1.z.boolean(),
        written_rows_check: zod_1.z.string(),
        duplicated_inserted_blocks: zod_1.z.number().nullable(),
        counters_source: zod_1.z.string(),
    }),
    /** Activity attempt that wrote the record (1 = first). */
    attempt: zod_1.z.number(),
    /** Worker wall clock just before the INSERT was sent (absent in older results, and when the load was reused). */
    started_at: exports.WallClockAt.optional(),
    /** Worker wall clock when the INSERT's response had ended. */
    finished_at: exports.WallClockAt.optional(),
});
/** `quiesce-<label>.json`: the table was quiet (no merge or mutation, same active parts for `stable_for_ms`). */
exports.QuiesceRecord = zod_1.z.object({
    active_parts: zod_1.z.number(),
    /** Client wall time spent waiting, ms. */
    waited_ms: zod_1.z.number(),
    /** Active part names (`system.parts`) when the table was judged quiet. */
    part_names: zod_1.z.array(zod_1.z.string()),
    /** How long the parts had to stay unchanged, ms (`protocol.quiesce.stableForMs`). */
    stable_for_ms: zod_1.z.number(),
    /** Worker wall clock when the wait began (absent in older results). */
    started_at: exports.WallClockAt.optional(),
    /** Worker wall clock when the table was judged quiet. */
    finished_at: exports.WallClockAt.optional(),
});
/** One column's storage, bytes (`system.parts_columns`, active parts). */
exports.ColumnStorage = zod_1.z.object({
    column: zod_1.z.string(),
    type: zod_1.z.string(),
    /** sum(column_data_compressed_bytes). */
    compressed_bytes: zod_1.z.number(),
    /** sum(column_data_uncompressed_bytes). */
    uncompressed_bytes: zod_1.z.number(),
    /** uncompressed / compressed. */
    ratio: zod_1.z.number(),
    /** Share of the table's compressed bytes. */
    share: zod_1.z.number(),
    /** The column's codec read back from the server (`system.columns.compression_codec`; `''` = the server default, LZ4); absent where the server has no such column and in older results. */
    codec: zod_1.z.string().optional(),
});
/** `storage.json`. Totals from `system.parts` (active parts). */
exports.StorageRecord = zod_1.z.object({
    table: zod_1.z.string(),
    rows: zod_1.z.number(),
    active_parts: zod_1.z.number(),
    /** sum(data_compressed_bytes). */
    compressed_bytes: zod_1.z.number(),
    /** sum(data_uncompressed_bytes). */
    uncompressed_bytes: zod_1.z.number(),
    /** sum(bytes_on_disk). */
    bytes_on_disk: zod_1.z.number(),
    /** uncompressed / compressed (0 for an empty table). */
    ratio: zod_1.z.number(),
    /** Part formats seen (`system.parts.part_type`), e.g. `{"Wide": 7}`; `unknown` on versions without the column. */
    part_types: zod_1.z.record(zod_1.z.string(), zod_1.z.number()),
    /** Per-column sizes, or `null` with `columns_unavailable_reason`. */
    columns: zod_1.z.array(exports.ColumnStorage).nullable(),
    columns_unavailable_reason: zod_1.z.string().optional(),
    /** Source of each figure group (totals, columns). */
    sources: zod_1.z.record(zod_1.z.string(), zod_1.z.string()),
});
// ---------------------------------------------------------------------------------------------
// Queries: queries-<phase>.json
/** How a cold run was prepared. */
exports.ColdPreparation = zod_1.z.object({
    /** Each cache-drop statement and its outcome. */
    server_caches: zod_1.z.array(exports.CommandOutcome),
    /** OS page cache: `dropped`, or `not dropped: <reason>`. */
    os_page_cache: zod_1.z.string(),
    /** Settings sent with the cold run. */
    settings: exports.Settings,
});
/** Where a run's server-side elapsed comes from. */
exports.ServerTimeSource = zod_1.z.enum([
    'system.query_log event_time_microseconds - query_start_time_microseconds',
    'system.query_log.query_duration_ms',
    'http summary elapsed_ns',
]);
/** Kind of a run: `warmup` runs are kept but left out of every statistic. */
exports.RunKind = zod_1.z.enum(['cold', 'warmup', 'warm']);
/** One run of one query. Figures the server did not give are `null` ("not available"), never 0. */
exports.RunSample = zod_1.z.object({
    /** `warmup` runs are kept but left out of every statistic. */
    kind: exports.RunKind,
    /** 1-based index within its kind. */
    n: zod_1.z.number(),
    query_id: zod_1.z.string(),
    /** Client wall time, ms (performance.now() around request + full body read). */
    wall_ms: zod_1.z.number(),
    /** Server-side elapsed, ms; see `server_elapsed_source` (and `SERVER_TIME_RESOLUTION_MS` for its resolution). */
    server_elapsed_ms: zod_1.z.number().nullable(),
    server_elapsed_source: exports.ServerTimeSource.nullable(),
    /** Rows read by the server (see `read_source`). */
    read_rows: zod_1.z.number().nullable(),
    /** Bytes read by the server (see `read_source`). */
    read_bytes: zod_1.z.number().nullable(),
    read_source: zod_1.z.enum(['http summary', 'output statistics', 'system.query_log']).nullable(),
    /** Rows of the result received. */
    result_rows: zod_1.z.number(),
    /** Bytes of the result body received (the measured format, JSONCompact), counted as it streamed in. */
    result_bytes: zod_1.z.number().nullable(),
    result_sha256: zod_1.z.string(),
    /** True when the set of active parts differed before and after this run. */
    parts_changed: zod_1.z.boolean(),
    /** Settings sent with this run. */
    settings: exports.Settings,
    /** The server's `X-ClickHouse-Summary` header as sent (absent on old servers); values are strings on every version seen, numbers accepted. */
    http_summary: zod_1.z.record(zod_1.z.string(), zod_1.z.union([zod_1.z.string(), zod_1.z.number()])).optional(),
    /**
     * Whether the summary can be complete: `wait_end_of_query=1` was requested (the server sends its
     * headers only when the query has ended). Without it the header is a snapshot taken when the first
     * bytes went out and under-reports long or big queries, so it is never a headline then.
     */
    summary_complete: zod_1.z.boolean(),
    /**
     * Where the headline comes from `system.query_log`, the HTTP summary (and the JSON statistics block)
     * checked against it: `agrees`, `disagrees: …`, or `not checked: …`.
     */
    cross_check: zod_1.z.string().optional(),
    /** The statistics block of the JSON output (`rows_read`, `bytes_read`, `elapsed` s). */
    output_statistics: zod_1.z.object({ rows_read: zod_1.z.number().optional(), bytes_read: zod_1.z.number().optional(), elapsed: zod_1.z.number().optional() }).optional(),
    cold_preparation: exports.ColdPreparation.optional(),
    /** Merges running plus unfinished mutations on the table just before/after the run (max); null if unreadable. */
    merges_or_mutations: zod_1.z.number().nullable(),
    /** Per-run counters (see `counters_source`); null when the target gives none. */
    counters: exports.RunCounters.nullable(),
    counters_source: zod_1.z.enum(['system.query_log ProfileEvents', 'system.events difference (embedded engine runs one statement at a time)']).nullable(),
    /** Validity record: for cold runs whether it was really cold; for every run whether the table was quiet. */
    validity: zod_1.z.object({ cold: exports.RunValidity.optional(), quiet: exports.RunValidity }),
    /** The `QueryFinish` row of `system.query_log` for this query_id (ProfileEvents as an object), when available. */
    query_log: zod_1.z.record(zod_1.z.string(), zod_1.z.unknown()).nullable().optional(),
    /**
     * The settings sent (`settings`) as the server recorded them for this run (`system.query_log`'s
     * `Settings`): `applied` = shown with the value sent, `not_shown` = the others and why. Absent where
     * the run has no query_log row (and in older results).
     */
    settings_check: zod_1.z
        .object({ source: zod_1.z.string(), applied: zod_1.z.record(zod_1.z.string(), zod_1.z.string()), not_shown: zod_1.z.record(zod_1.z.string(), zod_1.z.string()) })
        .optional(),
    /** Worker wall clock just before the run's request was sent (after its cold preparation); absent in older results. */
    started_at: exports.WallClockAt.optional(),
    /** Worker wall clock when the run's response body had been read (the end of `wall_ms`). */
    finished_at: exports.WallClockAt.optional(),
});
/** Per-query statistics, ms. `timing_source` says which clock the figures come from. */
exports.QueryStats = zod_1.z.object({
    timing_source: zod_1.z.enum(['server-side elapsed', 'client wall time']),
    /** Why this source was chosen when it is not the server's (e.g. the server's resolution is too coarse). */
    timing_note: zod_1.z.string().optional(),
    /** The server-time sources the runs had (even when the headline is client wall time). */
    server_time_sources: zod_1.z.array(exports.ServerTimeSource),
    /** Cold figure: the only cold run, or the minimum when there are several (`cold_runs`). */
    cold_ms: zod_1.z.number().nullable(),
    cold_runs: zod_1.z.number(),
    /** Cold runs the counters showed were not cold (left out of `cold_ms`). */
    cold_runs_rejected: zod_1.z.number(),
    /** Smallest step the headline's source resolves, ms (1 for query_log's query_duration_ms; null for client wall time). */
    resolution_ms: zod_1.z.number().nullable(),
    warm_min_ms: zod_1.z.number().nullable(),
    warm_median_ms: zod_1.z.number().nullable(),
    warm_max_ms: zod_1.z.number().nullable(),
    /** Client wall time of the cold figure's run, ms. */
    cold_wall_ms: zod_1.z.number().nullable(),
    warm_min_wall_ms: zod_1.z.number().nullable(),
    warm_median_wall_ms: zod_1.z.number().nullable(),
    /** read_rows of the last warm run (null when unavailable). */
    read_rows: zod_1.z.number().nullable(),
    read_bytes: zod_1.z.number().nullable(),
    result_rows: zod_1.z.number(),
    /** Distinct result hashes across runs (1 expected). */
    result_sha256: zod_1.z.array(zod_1.z.string()),
    /** Warm runs faster than the cold run. */
    warm_validity: exports.RunValidity,
});
/** A query that failed on the server: ClickHouse's code and name, its message, and which run. */
exports.QueryError = zod_1.z.object({
    /** ClickHouse error code (e.g. `241`); null when the error carried none. */
    code: zod_1.z.string().nullable(),
    /** ClickHouse error name (e.g. `MEMORY_LIMIT_EXCEEDED`); null when unknown. */
    type: zod_1.z.string().nullable(),
    /** The server's message (first 500 characters). */
    message: zod_1.z.string(),
    /** Which run, e.g. `warm 2`. */
    run: zod_1.z.string(),
    query_id: zod_1.z.string(),
    /** Set when the error arrived inside an HTTP 200 body, after `result_bytes` of result had been received. */
    after_response_started: zod_1.z
        .object({
        http_status: zod_1.z.number(),
        result_bytes: zod_1.z.number(),
        exception_source: zod_1.z.enum(['exception tag block', 'json exception key', 'text appended to the body']),
    })
        .optional(),
});
/** One query's record in `queries-<phase>.json`. */
exports.QueryRecord = zod_1.z.object({
    /** Workload query id, e.g. `q1`. */
    id: zod_1.z.string(),
    title: zod_1.z.string(),
    uses_index: zod_1.z.boolean(),
    /** False when the workload says the result may vary (e.g. sampled quantiles); hashes are then not compared. */
    deterministic: zod_1.z.boolean(),
    sql: zod_1.z.string(),
    /** Set when a run of this query failed on the server (its later runs were not attempted). */
    error: exports.QueryError.optional(),
    /** `EXPLAIN indexes = 1` of the query, run with exactly the settings of its warm runs (`explain_settings`). */
    explain_indexes: zod_1.z.string().nullable(),
    explain_error: zod_1.z.string().optional(),
    /** Settings the EXPLAIN ran with: the measured runs' settings (cold runs add only direct I/O). */
    explain_settings: exports.Settings.optional(),
    /** Index phase, queries that use the skip index: what EXPLAIN claims and whether the measured runs show it. */
    index_proof: exports.IndexProof.optional(),
    samples: zod_1.z.array(exports.RunSample),
    stats: exports.QueryStats,
    /** Active part names before the first and after the last run of this query (`system.parts`). */
    parts_before: zod_1.z.array(zod_1.z.string()),
    parts_after: zod_1.z.array(zod_1.z.string()),
    /** sha256 → the first rows of that result (JSON, ≤ 400 chars), so a mismatch shows both values. */
    result_examples: zod_1.z.record(zod_1.z.string(), zod_1.z.string()),
});
/** Phase of a query step: before (`baseline`) or after (`index`) the skip index. */
exports.QueryPhase = zod_1.z.enum(['baseline', 'index']);
/** `queries-<phase>.json`. */
exports.QueriesRecord = zod_1.z.object({
    phase: exports.QueryPhase,
    /** Activity attempt that wrote the record (1 = first). */
    attempt: zod_1.z.number(),
    /** Set when the step stopped (cancelled, or an error) before every query was measured: why, and how many were. */
    incomplete: zod_1.z.string().optional(),
    /** What "cold" meant in this step, from the recorded outcomes. */
    cold_definition: zod_1.z.string(),
    /** Other chbench servers alive on this host when the step started and ended (they disturb timings). */
    other_chbench_servers: zod_1.z.object({ at_start: zod_1.z.array(zod_1.z.string()), at_end: zod_1.z.array(zod_1.z.string()) }),
    merges_stopped: exports.CommandOutcome.nullable(),
    /** Statements of earlier attempts of this step found running at start, and what was done. */
    previous_attempts: exports.PreviousAttempts,
    /** Settings sent with every measured run (cold runs add min_bytes_to_use_direct_io=1). */
    run_settings: exports.Settings,
    query_log: zod_1.z.enum(['available', 'not available']),
    queries: zod_1.z.array(exports.QueryRecord),
});
// ---------------------------------------------------------------------------------------------
// Skip index: index.json
/** Proof that the index is built and used, checked before its before/after figures are reported. */
exports.IndexVerification = zod_1.z.object({
    /** Active parts without the index (`system.parts.secondary_indices_compressed_bytes = 0`); null if unknown. */
    parts_without_index: zod_1.z.number().nullable(),
    active_parts: zod_1.z.number().nullable(),
    /** Per query that uses the index: the index's `Granules: kept/total` line of `EXPLAIN indexes = 1`. */
    explain: zod_1.z.record(zod_1.z.string(), zod_1.z.object({ granules: zod_1.z.string().nullable(), skips: zod_1.z.boolean().nullable(), error: zod_1.z.string().optional() })),
    /** True when every part carries the index and EXPLAIN shows it skipping granules for every query. */
    verified: zod_1.z.boolean().nullable(),
    reasons: zod_1.z.array(zod_1.z.string()),
});
/** A `system.mutations` row of the MATERIALIZE INDEX mutation. */
exports.MutationRow = zod_1.z.object({
    mutation_id: zod_1.z.string(),
    command: zod_1.z.string(),
    is_done: zod_1.z.number(),
    parts_to_do: zod_1.z.number(),
    latest_fail_reason: zod_1.z.string(),
});
/** `index.json`. */
exports.IndexRecord = zod_1.z.object({
    /** Index name from the workload. */
    index: zod_1.z.string(),
    add_sql: zod_1.z.string(),
    materialize_sql: zod_1.z.string(),
    /** True when a MATERIALIZE INDEX mutation of an earlier attempt was adopted (then `materialize_ms` is partial). */
    adopted_mutation: zod_1.z.boolean(),
    /** Client wall time, ms: see `materialize_ms_source`. */
    materialize_ms: zod_1.z.number(),
    materialize_ms_source: zod_1.z.string(),
    /** Index size, bytes (see `index_bytes_source`); null when not available on this version. */
    index_bytes: zod_1.z.number().nullable(),
    index_uncompressed_bytes: zod_1.z.number().nullable(),
    /** `system.data_skipping_indices.data_compressed_bytes`, else `system.parts` sum(secondary_indices_compressed_bytes). */
    index_bytes_source: zod_1.z.string(),
    /** `system.mutations` rows after the build. */
    mutations: zod_1.z.array(exports.MutationRow),
    /** `SYSTEM START MERGES` before the build (mutations run in the background pool). */
    start_merges: exports.CommandOutcome,
    verification: exports.IndexVerification,
    /** Worker wall clock when MATERIALIZE INDEX was issued (or the earlier attempt's mutation adopted); absent in older results. */
    started_at: exports.WallClockAt.optional(),
    /** Worker wall clock when `system.mutations` showed the mutation done (the end of `materialize_ms`). */
    finished_at: exports.WallClockAt.optional(),
});
/** `teardown.json`. */
exports.TeardownRecord = zod_1.z.object({
    torn_down_at: zod_1.z.string(),
    /** Target kind. */
    kind: zod_1.z.string(),
    /** What was removed or stopped (one line). */
    what: zod_1.z.unknown(),
    /** Path of the archived server statement log, or `not available: <reason>`. */
    server_log_archive: zod_1.z.string(),
});
// ---------------------------------------------------------------------------------------------
// Cloud (Kubernetes on AWS): cloud-metrics.json, cost.json
/** How a cell was bound by its hardware in one step window, as far as CloudWatch tells (`labelBottleneck` in `src/cloud/metrics.ts`). */
exports.BottleneckLabel = zod_1.z.enum(['disk-bound', 'cpu-bound', 'neither', 'unknown']);
/** The cell's EBS volume and EC2 instance as chbench found them, each with where the facts came from. */
exports.CloudResourcesRecord = zod_1.z.object({
    volume: zod_1.z.object({
        /** EBS volume id, from the PV's `spec.csi.volumeHandle` (`provision.json` kubernetes facts). */
        volume_id: zod_1.z.string(),
        /** `VolumeType` (`gp3`, …); null when unknown. */
        type: zod_1.z.string().nullable(),
        /** `Size`, GiB; null when unknown. */
        size_gib: zod_1.z.number().nullable(),
        /** `Iops` (gp3 without one: the baseline 3,000); null when unknown. */
        iops: zod_1.z.number().nullable(),
        /** `Throughput`, MiB/s (gp3 without one: the baseline 125); null when unknown. */
        throughput_mib_s: zod_1.z.number().nullable(),
        /** `AvailabilityZone`; null when unknown. */
        zone: zod_1.z.string().nullable(),
        /** `State` at collection (`in-use`, `available`, …), or `not describable` when it was gone. */
        state: zod_1.z.string(),
        /** `EC2 DescribeVolumes`, or the fallback used and why (e.g. the volume was deleted at teardown). */
        source: zod_1.z.string(),
    }),
    instance: zod_1.z.object({
        /** EC2 instance id, from the node's `spec.providerID`. */
        instance_id: zod_1.z.string(),
        /** `InstanceType`; null when unknown. */
        type: zod_1.z.string().nullable(),
        zone: zod_1.z.string().nullable(),
        state: zod_1.z.string(),
        /** `Monitoring.State = enabled` (1-minute AWS/EC2 points); null when unknown. */
        detailed_monitoring: zod_1.z.boolean().nullable(),
        /** `EC2 DescribeInstances`, or the fallback used and why. */
        source: zod_1.z.string(),
    }),
    /** The instance type's EBS limits (EBS-optimized); null when unknown. */
    instance_limits: zod_1.z
        .object({
        /** Baseline throughput, MB/s (10^6 bytes/s, as AWS quotes it). */
        baseline_mb_s: zod_1.z.number(),
        baseline_iops: zod_1.z.number(),
        /** Burst throughput, MB/s. */
        maximum_mb_s: zod_1.z.number(),
        maximum_iops: zod_1.z.number(),
        /** `EC2 DescribeInstanceTypes EbsOptimizedInfo` or chbench's table. */
        source: zod_1.z.string(),
    })
        .nullable(),
});
/**
 * Figures of one attributable step window (`StepCloudFigures` in `src/cloud/metrics.ts`); each is
 * null when CloudWatch had no data point for it in the window ("no data"), never 0.
 */
exports.CloudFigures = zod_1.z.object({
    /** MiB/s: AWS/EBS VolumeReadBytes Sum ÷ seconds of the minutes with data. */
    read_mib_s: zod_1.z.number().nullable(),
    /** MiB/s: AWS/EBS VolumeWriteBytes Sum ÷ seconds with data. */
    write_mib_s: zod_1.z.number().nullable(),
    /** AWS/EBS VolumeReadOps Sum ÷ seconds with data. */
    read_iops: zod_1.z.number().nullable(),
    /** AWS/EBS VolumeWriteOps Sum ÷ seconds with data. */
    write_iops: zod_1.z.number().nullable(),
    /** AWS/EBS VolumeQueueLength Average, mean of the minutes. */
    queue_length: zod_1.z.number().nullable(),
    /** %: AWS/EBS VolumeIdleTime Sum ÷ seconds with data × 100. */
    idle_pct: zod_1.z.number().nullable(),
    /** %: AWS/EBS BurstBalance Average, lowest minute (gp2/st1/sc1 only). */
    burst_balance_pct: zod_1.z.number().nullable(),
    /** %: AWS/EC2 CPUUtilization Average, mean of the minutes. */
    cpu_pct: zod_1.z.number().nullable(),
    /** %: AWS/EC2 CPUUtilization Maximum, highest minute. */
    cpu_max_pct: zod_1.z.number().nullable(),
    /** MiB/s: AWS/EC2 EBSReadBytes Sum ÷ seconds with data. */
    instance_ebs_read_mib_s: zod_1.z.number().nullable(),
    /** %: AWS/EC2 EBSByteBalance% Average, lowest minute. */
    ebs_byte_balance_pct: zod_1.z.number().nullable(),
    /** %: AWS/EC2 EBSIOBalance% Average, lowest minute. */
    ebs_io_balance_pct: zod_1.z.number().nullable(),
});
/** One step window of `cloud-metrics.json`. */
exports.CloudStepRecord = zod_1.z.object({
    /** `load`, `quiesce after-load`, `q1 cold (baseline)`, `q1 warm (index)`, `index build`, `cell`. */
    step: zod_1.z.string(),
    /** The step as timed by chbench (worker wall clock, from the step records' `started_at`/`finished_at`). */
    started_at: zod_1.z.string(),
    finished_at: zod_1.z.string(),
    /** False for a window shorter than one period: it shares its minute with other steps. */
    attributable: zod_1.z.boolean(),
    /** Why no figures (unattributable window), e.g. `not attributable: window 12 s < period 60 s, shared with …`. */
    reason: zod_1.z.string().nullable(),
    /** Other steps whose minutes overlap this window's. */
    shared_with: zod_1.z.array(zod_1.z.string()),
    /** The minutes asked for: start rounded down, end rounded up (exclusive); null when not attributable. */
    window: zod_1.z
        .object({
        start: zod_1.z.string(),
        end: zod_1.z.string(),
        period_s: zod_1.z.number(),
        periods: zod_1.z.number(),
        /** Share of the asked minutes the step itself ran, 0..1. */
        coverage: zod_1.z.number(),
        /** The newest minute may still change (read before `final_at`). */
        partial: zod_1.z.boolean(),
        final_at: zod_1.z.string(),
    })
        .nullable(),
    figures: exports.CloudFigures.nullable(),
    /** Data points CloudWatch returned per metric query id (`vol_read_bytes`, `cpu_avg`, …) of the `periods` asked for. */
    datapoints: zod_1.z.record(zod_1.z.string(), zod_1.z.number()),
    /** Null when not attributable. */
    label: exports.BottleneckLabel.nullable(),
    /** The figures behind the label, e.g. `read 121 MiB/s = 97 % of gp3 125 MiB/s; CPU 31 %`. */
    evidence: zod_1.z.string().nullable(),
});
/** Schema id of `cloud-metrics.json`. */
exports.CLOUD_METRICS_SCHEMA = 'chbench.cloud-metrics/v1';
/** `cloud-metrics.json` (per cell, written by the matrix's `collectCloudMetrics` after the cells). */
exports.CloudMetricsRecord = zod_1.z.object({
    schema: zod_1.z.literal(exports.CLOUD_METRICS_SCHEMA),
    cell: zod_1.z.string(),
    /** ISO time the figures were read. */
    collected_at: zod_1.z.string(),
    region: zod_1.z.string(),
    resources: exports.CloudResourcesRecord,
    /** The metrics read: namespace, name, statistic, dimension, unit (one `GetMetricData` query each, full dimensions). */
    metrics: zod_1.z.array(zod_1.z.object({ id: zod_1.z.string(), namespace: zod_1.z.string(), metric: zod_1.z.string(), stat: zod_1.z.string(), dimension: zod_1.z.string(), unit: zod_1.z.string() })),
    /** Period of every query, s (60; 300 for AWS/EC2 under basic monitoring). */
    period_s: zod_1.z.number(),
    /** Waited until this long after the newest window's last minute before reading, ms. */
    settle_ms: zod_1.z.number(),
    /** True when some window was read before its figures were final. */
    partial: zod_1.z.boolean(),
    /** Label thresholds used (`BottleneckThresholds`). */
    thresholds: zod_1.z.object({ disk_utilisation: zod_1.z.number(), cpu_pct: zod_1.z.number(), balance_pct: zod_1.z.number() }),
    steps: zod_1.z.array(exports.CloudStepRecord),
    /** Steps whose records carry no wall-clock times (written before `started_at`/`finished_at` existed): no window. */
    untimed_steps: zod_1.z.array(zod_1.z.string()),
});
/** Schema id of a cell's `cost.json`. */
exports.CELL_COST_SCHEMA = 'chbench.cell-cost/v1';
/** `cost.json` (per cell): what the cell's instance and volume cost for the time it held them. USD, unrounded. */
exports.CellCostRecord = zod_1.z.object({
    schema: zod_1.z.literal(exports.CELL_COST_SCHEMA),
    cell: zod_1.z.string(),
    instance_type: zod_1.z.string().nullable(),
    volume: zod_1.z.object({ type: zod_1.z.string().nullable(), size_gib: zod_1.z.number().nullable(), iops: zod_1.z.number().nullable(), throughput_mib_s: zod_1.z.number().nullable() }),
    /** The time charged (instance and volume alike). */
    held: zod_1.z.object({
        from: zod_1.z.string(),
        to: zod_1.z.string(),
        ms: zod_1.z.number(),
        /** Which record each end comes from, e.g. `provision.json provisioned_at`, `teardown.json torn_down_at`. */
        from_source: zod_1.z.string(),
        to_source: zod_1.z.string(),
    }),
    instance_usd: zod_1.z.number().nullable(),
    storage_usd: zod_1.z.number().nullable(),
    iops_usd: zod_1.z.number().nullable(),
    throughput_usd: zod_1.z.number().nullable(),
    /** Sum of the parts; null when a part's price is unknown. */
    total_usd: zod_1.z.number().nullable(),
    /** The arithmetic, one line per part. */
    lines: zod_1.z.array(zod_1.z.string()),
    /** Where the prices came from (table and region, or the Price List API), with any fallback noted. */
    price_source: zod_1.z.string(),
});
/** Schema id of the run's `cost.json`. */
exports.RUN_COST_SCHEMA = 'chbench.run-cost/v1';
/** `cost.json` (per run): every priced cell and their sum. */
exports.RunCostRecord = zod_1.z.object({
    schema: zod_1.z.literal(exports.RUN_COST_SCHEMA),
    runId: zod_1.z.string(),
    computed_at: zod_1.z.string(),
    cells: zod_1.z.array(zod_1.z.object({ cell: zod_1.z.string(), total_usd: zod_1.z.number().nullable() })),
    /** Sum of the cells' unrounded totals; null when any is unknown. */
    total_usd: zod_1.z.number().nullable(),
    price_source: zod_1.z.string(),
});
// ---------------------------------------------------------------------------------------------
// The cell result: result.json
/** Schema id of a cell result. Bump on incompatible change. */
exports.CELL_RESULT_SCHEMA = 'chbench.cell-result/v1';
/** Final status of a cell. */
exports.CellStatus = zod_1.z.enum(['succeeded', 'failed', 'skipped', 'cancelled']);
/** The measurement protocol as recorded with the cell (the spec's `protocol`; other fields kept as written). */
exports.ProtocolRecord = zod_1.z.looseObject({
    coldRuns: zod_1.z.number(),
    warmRuns: zod_1.z.number(),
    warmupRuns: zod_1.z.number().optional(),
    statistic: zod_1.z.enum(['min', 'median']),
});
/** `result.json`: the cell's step files assembled into one versioned record (written before teardown). */
// ---------------------------------------------------------------------------------------------
// Load grids: grids/insert-<point>.json and grids/concurrency-c<clients>.json (src/schema/grids.ts)
const LatencyRecord = zod_1.z.object({
    count: zod_1.z.number(),
    p50: zod_1.z.number().nullable(),
    p95: zod_1.z.number().nullable(),
    p99: zod_1.z.number().nullable(),
    max: zod_1.z.number().nullable(),
});
/**
 * What the report reads of an insert point's record (`grids/insert-<key>.json`, written by
 * `insertPoint`, src/activities/insert-grid.ts, where every field is documented); the record holds
 * more (per-INSERT latencies, the sampler's series, settings sent), kept as written.
 */
exports.InsertPointRecord = zod_1.z
    .object({
    /** What `insertPoint` returned to the workflow. */
    summary: zod_1.z
        .object({
        key: zod_1.z.string(),
        rowsPerS: zod_1.z.number(),
        mbPerS: zod_1.z.number(),
        latencyMs: LatencyRecord,
        inserts: zod_1.z.number(),
        errors: zod_1.z.number(),
        verified: zod_1.z.boolean(),
        clientBound: zod_1.z.boolean(),
    })
        .loose(),
    point: zod_1.z
        .object({
        batchSize: zod_1.z.number(),
        concurrency: zod_1.z.number(),
        profile: zod_1.z.object({ name: zod_1.z.string() }).loose(),
        format: zod_1.z.string(),
    })
        .loose(),
    attempt: zod_1.z.number(),
    loop: zod_1.z.object({ stopped_by: zod_1.z.string(), errors_by_code: zod_1.z.record(zod_1.z.string(), zod_1.z.number()) }).loose(),
    /** Parts created per successful INSERT (`system.part_log` where the server keeps it, else Δ `MergeTreeDataWriterBlocks`); peaks from the sampler (`system.parts`, `system.merges`, `system.metrics` MemoryTracking). */
    parts: zod_1.z
        .object({
        per_insert: zod_1.z.number().nullable(),
        created_source: zod_1.z.string(),
        peak_active: zod_1.z.number().nullable(),
        peak_merges: zod_1.z.number().nullable(),
        peak_memory_bytes: zod_1.z.number().nullable(),
    })
        .loose(),
    /** Δ `system.events` over the point (DelayedInserts, RejectedInserts, DuplicatedInsertedBlocks, …). */
    events: zod_1.z.object({ deltas: zod_1.z.record(zod_1.z.string(), zod_1.z.number().nullable()) }).loose(),
    /** `async_insert=1`: what the server did with it, in words (`note`). */
    async_insert: zod_1.z.object({ requested: zod_1.z.boolean(), note: zod_1.z.string().optional() }).loose(),
    /** `count()` of the point's table against the rows acknowledged minus known duplicates. */
    verification: zod_1.z
        .object({ verified: zod_1.z.boolean(), count: zod_1.z.number().nullable(), expected: zod_1.z.number(), reasons: zod_1.z.array(zod_1.z.string()) })
        .loose(),
    /** The worker's CPU over the timed loop (`ClientCpu`, src/measure/client-load.ts). */
    cpu: zod_1.z.object({ clientBound: zod_1.z.boolean(), reason: zod_1.z.string() }).loose(),
    /** Profile settings this version lacks that the spec marks optional: name → why (`settings.optional`). */
    settings_not_applied: zod_1.z.record(zod_1.z.string(), zod_1.z.string()),
})
    .loose();
/** What the report reads of a concurrency step's record (`grids/concurrency-c<clients>.json`, `concurrencyStep` in src/activities/concurrency-steps.ts). */
exports.ConcurrencyStepRecord = zod_1.z
    .object({
    attempt: zod_1.z.number(),
    summary: zod_1.z
        .object({
        clients: zod_1.z.number(),
        qps: zod_1.z.number(),
        requests: zod_1.z.number(),
        errors: zod_1.z.number(),
        errorsByCode: zod_1.z.record(zod_1.z.string(), zod_1.z.number()),
        latencyMs: LatencyRecord,
        latencySource: zod_1.z.enum(['query_log', 'client wall']),
        wallLatencyMs: LatencyRecord,
        clientBound: zod_1.z.boolean(),
    })
        .loose(),
    /** The worker's CPU over the measured window (null when the step measured nothing). */
    cpu: zod_1.z.object({ clientBound: zod_1.z.boolean(), reason: zod_1.z.string() }).loose().nullable(),
    /** Whether `system.query_log` gave the server latency, and which column (`query_duration_ms` counts whole ms). */
    query_log: zod_1.z.object({ used: zod_1.z.boolean(), source: zod_1.z.string().nullable() }).loose(),
})
    .loose();
/**
 * One attempt of a cell step's activity, as the activity itself saw it (`attempts.jsonl` in the cell
 * folder, written by `src/activities/support/attempt-log.ts`; collected into `result.json` by
 * writeCellResult). Times are the worker's clock.
 */
exports.AttemptRecord = zod_1.z.object({
    /** The cell phase (`provision`, `create-schema`, `load`, `queries-baseline`, … as in `CELL_STEPS`). */
    phase: zod_1.z.string(),
    /** The activity (`provision`, `createSchema`, `runQueries`, …). */
    activity: zod_1.z.string(),
    /** Temporal's attempt number of the activity (`Context.info.attempt`, 1 = first). */
    attempt: zod_1.z.number(),
    /** ISO time the attempt started and ended on the worker. */
    started_at: zod_1.z.string(),
    ended_at: zod_1.z.string(),
    /** `ended_at − started_at`, ms (worker wall clock). */
    duration_ms: zod_1.z.number(),
    outcome: zod_1.z.enum(['succeeded', 'failed', 'cancelled']),
    /** The failure's type (`VersionMismatch`, `ClickHouse.SYNTAX_ERROR`, `Error`, …) when it failed. */
    failure_type: zod_1.z.string().optional(),
    /** The failure's message (first 2,000 characters) when it failed. */
    error: zod_1.z.string().optional(),
    /**
     * Whether Temporal may retry after this failure: false when the failure is non-retryable or its
     * type is in the cell steps' `nonRetryableErrorTypes` (`NON_RETRYABLE`); a retryable failure
     * of the last allowed attempt is not retried either (`attempts` says how many ran).
     */
    retryable: zod_1.z.boolean().optional(),
    /** The Temporal workflow run (execution) the attempt belongs to; a cell run again starts a new log. */
    workflow_run_id: zod_1.z.string().optional(),
});
exports.CellResult = zod_1.z.object({
    /** {@link CELL_RESULT_SCHEMA}. */
    schema: zod_1.z.literal(exports.CELL_RESULT_SCHEMA),
    runId: zod_1.z.string(),
    cellKey: zod_1.z.string(),
    /** The matrix coordinates: version label (e.g. `26.7`) and codec (e.g. `ZSTD(3)`). */
    matrix: zod_1.z.object({ version: zod_1.z.string(), codec: zod_1.z.string() }),
    workload: zod_1.z.string(),
    /** Rows generated (spec scale). */
    scale: zod_1.z.number(),
    protocol: exports.ProtocolRecord,
    target_kind: zod_1.z.string(),
    status: exports.CellStatus,
    error: zod_1.z.string().optional(),
    skip_reason: zod_1.z.string().optional(),
    /** Attempts each step took (1 = first try); > 1 means the figures of that step come from a retry. */
    attempts: zod_1.z.record(zod_1.z.string(), zod_1.z.number()),
    /**
     * Every attempt of every step by phase, in the order they ran, with each failed attempt's error and
     * its times (absent in results written before attempts were logged).
     */
    attempt_log: zod_1.z.record(zod_1.z.string(), zod_1.z.array(exports.AttemptRecord)).optional(),
    /** Times the server was lost and provisioned again, with the step it happened in. */
    target_restarts: zod_1.z.array(zod_1.z.object({ step: zod_1.z.string(), error: zod_1.z.string() })),
    /** ISO time the record was written. */
    written_at: zod_1.z.string(),
    /** ISO time the cell's workflow started (its first step), when known. */
    started_at: zod_1.z.string().optional(),
    /**
     * The host that ran the cell's steps (the last provisioning's; a target bound to the worker's host
     * only). Absent for targets not bound to a host and in results written before hosts were recorded.
     */
    host: host_1.HostFacts.optional(),
    /** Hosts lost during the cell (their worker stopped taking its steps); the cell was provisioned again on another. */
    host_losses: zod_1.z.array(host_1.HostLoss).optional(),
    /** What else the host ran at the cell's start and end snapshots (`collect-metrics`). */
    host_activity: zod_1.z.object({ start: host_1.HostActivity.optional(), end: host_1.HostActivity.optional() }).optional(),
    provision: exports.ProvisionRecord.nullable(),
    schema_ddl: exports.SchemaRecord.nullable(),
    load: exports.LoadRecord.nullable(),
    /** `quiesce-<label>.json` by label (e.g. `after-load`, `after-index`). */
    quiesce: zod_1.z.record(zod_1.z.string(), exports.QuiesceRecord),
    storage: exports.StorageRecord.nullable(),
    queries_baseline: exports.QueriesRecord.nullable(),
    index: exports.IndexRecord.nullable(),
    queries_index: exports.QueriesRecord.nullable(),
    /** Counters end − start; null when a snapshot is missing or the server restarted (`metrics_delta_unavailable` says so). */
    metrics_delta: exports.MetricsDelta.nullable(),
    metrics_delta_unavailable: zod_1.z.string().optional(),
    /**
     * The step the cell was in when it failed or was cancelled (a `CellPhase` of `CELL_STEPS`, e.g.
     * `materialize-index`), from the cell workflow's progress. Absent for a cell that finished, and in
     * results written before it was recorded.
     */
    stopped_in: zod_1.z.string().optional(),
    /**
     * Whether the cell was to build the workload's skip index (`CellInput.skipIndex`: the spec's
     * `skipIndex` and a selected query that uses the index). Absent in older results.
     */
    skip_index_planned: zod_1.z.boolean().optional(),
    /** The cell workflow's id (Temporal), from the activity context of `writeCellResult`. Absent in older results. */
    workflow_id: zod_1.z.string().optional(),
    /** Disk and filesystem of the server's data directory (`metrics-start.json` `data_disk`); absent where not known. */
    data_disk: exports.DataDisk.optional(),
    /** Load grids (only with `grids` in the spec): the records in `grids/`, points and steps in the order they ran. */
    grids: zod_1.z
        .object({ insert: zod_1.z.array(exports.InsertPointRecord), concurrency: zod_1.z.array(exports.ConcurrencyStepRecord) })
        .optional(),
});
// ---------------------------------------------------------------------------------------------
// The run: run.json
/** chbench's package version and, in a git checkout, the commit. */
exports.ChbenchVersion = zod_1.z.object({ version: zod_1.z.string(), commit: zod_1.z.string().nullable() });
/** A workload's files as a run read them (`src/lib/workload-hash.ts`). */
exports.WorkloadFingerprint = zod_1.z.object({
    /** The workload's name (`sql/workloads/<name>/`). */
    name: zod_1.z.string(),
    /** SHA-256 (hex) over the lines `<file> <sha256>` of `files`, sorted by file. */
    sha256: zod_1.z.string(),
    /** SHA-256 (hex) of each file's bytes by path in the workload folder: manifest, schema, load, queries, index. */
    files: zod_1.z.record(zod_1.z.string(), zod_1.z.string()),
});
/** Schema id of `run.json`. */
exports.RUN_RECORD_SCHEMA = 'chbench.run/v1';
/**
 * `run.json`: the run spec and run metadata, written by `validateSpec`, completed by `writeReport`.
 */
exports.RunRecord = zod_1.z.object({
    schema: zod_1.z.literal(exports.RUN_RECORD_SCHEMA),
    /** The run id: the folder's name, the cells' child workflow id prefix (`src/schema/run-id.ts`). */
    runId: zod_1.z.string(),
    /**
     * The Temporal workflow id of the run's matrix: the run id, or for a scheduled run the id Temporal
     * gave it (`<scheduleId>-<RFC 3339 time>`, with `:`). `chbench resume` starts this id again.
     * Absent in records written before it was recorded (then it is `runId`).
     */
    workflowId: zod_1.z.string().optional(),
    /** Which chbench produced these results (validity rules change between versions). */
    chbench: exports.ChbenchVersion,
    /**
     * The workload's files when the run first started; a resume with other files is refused. Absent in
     * records written before it was recorded.
     */
    workload_files: exports.WorkloadFingerprint.optional(),
    /** The chbench of each start (the first, then each resume), with its ISO time; absent in older records. */
    starts: zod_1.z.array(zod_1.z.object({ at: zod_1.z.string(), chbench: exports.ChbenchVersion })).optional(),
    /** ISO time of the first start. */
    startedAt: zod_1.z.string(),
    /** The run spec as parsed when the run started (defaults filled in). */
    spec: run_spec_1.RunSpec,
    /** Cell keys in matrix order. */
    cells: zod_1.z.array(zod_1.z.string()),
    /** Each start of the matrix workflow after the first (resume or continue-as-new), ISO times. */
    resumes: zod_1.z.array(zod_1.z.string()),
    /** Set by `writeReport`: ISO time and the matrix's status. */
    finishedAt: zod_1.z.string().optional(),
    status: zod_1.z.string().optional(),
    /** The Temporal schedule that started the run (`ChbenchSchedule`); absent for a run started by hand. */
    scheduleId: zod_1.z.string().optional(),
});
// ---------------------------------------------------------------------------------------------
// Flat samples: samples.jsonl
/** Kinds of flat sample: a measured query run, the load, the table's storage. */
exports.SampleKind = zod_1.z.enum(['cold', 'warm', 'warmup', 'load', 'storage']);
/**
 * Metadata of a {@link FlatSample}: where it comes from. Every key is present in every sample
 * (`null` where it does not apply, e.g. `query` for a load sample), so the lines load into one table.
 */
exports.FlatSampleMetadata = zod_1.z.object({
    /** chbench run id. */
    run: zod_1.z.string(),
    /** Cell key, e.g. `v26.7-lz4`. */
    cell: zod_1.z.string(),
    /** The matrix's version label (e.g. `26.7`). */
    version_label: zod_1.z.string(),
    /** The server's `SELECT version()`; null when the cell never reached it. */
    version: zod_1.z.string().nullable(),
    codec: zod_1.z.string(),
    /** Target kind (`embedded`, `local`, `external`, …). */
    target: zod_1.z.string(),
    workload: zod_1.z.string(),
    /** Rows in the table (spec scale). */
    scale: zod_1.z.number(),
    /** Workload query id (`q1`…); null for load/storage samples. */
    query: zod_1.z.string().nullable(),
    /** `baseline` or `index` for query runs; null otherwise. */
    phase: exports.QueryPhase.nullable(),
    /** `cold`, `warm`, `warmup` (a query run), `load` or `storage`. */
    kind: exports.SampleKind,
    /** 1-based run number within its kind (query runs); null otherwise. */
    try: zod_1.z.number().nullable(),
    /** The statement's query_id (query runs, load); null for storage. */
    query_id: zod_1.z.string().nullable(),
    /** Cold runs: was it cold (`RunValidity.valid`); null = unknown or not a cold run. */
    cold_valid: zod_1.z.boolean().nullable(),
    /** Query runs: was the table quiet during the run; null = unknown or not a query run. */
    quiet_valid: zod_1.z.boolean().nullable(),
    /** Where the value comes from: a system table column, the HTTP summary, or client wall time. */
    source: zod_1.z.string(),
    /** chbench package version and git commit that measured it (from `run.json`). */
    chbench_version: zod_1.z.string().nullable(),
    chbench_commit: zod_1.z.string().nullable(),
});
/**
 * One line of `samples.jsonl`: one figure of one measured run (PerfKit Benchmarker's `Sample`).
 * A figure the server did not give is not written (no line), never 0 or null.
 */
exports.FlatSample = zod_1.z.object({
    /** e.g. `server_elapsed`, `wall_time`, `read_rows`, `load_rows_per_s`, `bytes_on_disk`. */
    metric: zod_1.z.string(),
    value: zod_1.z.number(),
    /** `ms`, `rows`, `bytes`, `rows/s`, `ratio`. */
    unit: zod_1.z.string(),
    /**
     * Unix time, seconds (fractional): when the cell result holding the figure was written
     * (`result.json.written_at`). The runs themselves carry no wall-clock time in the record; the
     * query_log row (`event_time_microseconds`) in `queries-<phase>.json` has it where the server keeps one.
     */
    timestamp: zod_1.z.number(),
    metadata: exports.FlatSampleMetadata,
});
// ---------------------------------------------------------------------------------------------
// Record ids
/**
 * The id each record schema is named by in read errors: the record's own `schema` field value where
 * it carries one (result.json, run.json), else `chbench.<file>`.
 */
exports.RECORD_IDS = new Map([
    [exports.CellResult, exports.CELL_RESULT_SCHEMA],
    [exports.RunRecord, exports.RUN_RECORD_SCHEMA],
    [exports.CapabilityProbe, 'chbench.probe'],
    [exports.CellSettings, 'chbench.settings'],
    [exports.ProvisionRecord, 'chbench.provision'],
    [exports.SchemaRecord, 'chbench.schema-ddl'],
    [exports.MetricsSnapshot, 'chbench.metrics'],
    [exports.LoadRecord, 'chbench.load'],
    [exports.QuiesceRecord, 'chbench.quiesce'],
    [exports.StorageRecord, 'chbench.storage'],
    [exports.QueriesRecord, 'chbench.queries'],
    [exports.IndexRecord, 'chbench.index'],
    [exports.TeardownRecord, 'chbench.teardown'],
    [exports.FlatSample, 'chbench.sample'],
    [exports.CloudMetricsRecord, exports.CLOUD_METRICS_SCHEMA],
    [exports.CellCostRecord, exports.CELL_COST_SCHEMA],
    [exports.RunCostRecord, exports.RUN_COST_SCHEMA],
]);
//# sourceMappingURL=results.js.map