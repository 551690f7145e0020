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
import { z } from 'zod';
import { TargetRecord } from './target';
import { RunSpec } from './run-spec';
import { HostActivity, HostFacts, HostLoss } from './host';
import { ConcurrencyStepInput, ConcurrencyStepSummary, InsertPoint, InsertPointSummary, LatencySummary } from './grids';

// ---------------------------------------------------------------------------------------------
// Shared pieces

/**
 * A wall-clock instant of the worker's clock (`new Date().toISOString()`, ms resolution, UTC), taken
 * by the client around a statement or a wait. Optional in every record that carries one: results
 * written before these fields existed still parse. The cloud metrics use them as step windows.
 */
export const WallClockAt = z.iso.datetime({ offset: true });

/** Settings as sent to the server (name → value). Values are numbers except where a spec gave a string. */
export const Settings = z.record(z.string(), z.union([z.number(), z.string()]));
export type Settings = z.infer<typeof Settings>;

/** Outcome of a statement whose failure is acceptable (recorded, not thrown). Same shape as `CommandOutcome` of `clickhouse/client`. */
export const CommandOutcome = z.object({
  sql: z.string(),
  ok: z.boolean(),
  /** Server error text (first line) when `ok` is false. */
  error: z.string().optional(),
  /** ClickHouse error code when `ok` is false. */
  code: z.string().optional(),
});
export type CommandOutcome = z.infer<typeof CommandOutcome>;

/** Statements of earlier attempts of a step found running when it started, and what was done. */
export const PreviousAttempts = z.object({
  /** Query ids that were still running when the step started. */
  found: z.array(z.string()),
  /** `killed` (real servers) or `waited` (engines that cannot interrupt a statement). */
  action: z.enum(['none', 'killed', 'waited']),
  /** How long the step waited for them, ms (client wall time). */
  waited_ms: z.number(),
});
export type PreviousAttempts = z.infer<typeof PreviousAttempts>;

/** Verdict on one run (see `src/measure/validity.ts`). `valid: null` = could not be judged (counters unknown). */
export const RunValidity = z.object({
  valid: z.boolean().nullable(),
  /** Short label shown next to the number: `cold`, `not cold`, `cold?`, `warm`, `not warm`, … */
  label: z.string(),
  /** Reasons, one per failed or unknown check. */
  reasons: z.array(z.string()),
});
export type RunValidity = z.infer<typeof RunValidity>;

/**
 * Per-run counters (ProfileEvents names such as `OSReadBytes`, `MarkCacheHits`; the list is
 * `RUN_COUNTERS` in `src/measure/validity.ts`); `null` = the server does not have that counter.
 */
export const RunCounters = z.record(z.string(), z.number().nullable());
export type RunCounters = z.infer<typeof RunCounters>;

/** Skip-index proof from the measured runs (see `judgeIndexUse` in `src/measure/index-proof.ts`). */
export const IndexProof = z.object({
  index: z.string(),
  /** `kept/total` granules of the index in the EXPLAIN, null when the EXPLAIN does not show the index. */
  explain_granules: z.string().nullable(),
  /** EXPLAIN shows the index dropping granules. null = EXPLAIN not available. */
  explain_skips: z.boolean().nullable(),
  /** read_rows of the last warm run after the index (null when unknown). */
  read_rows_after: z.number().nullable(),
  /** read_rows of the last warm run in the baseline phase (null when unknown). */
  read_rows_before: z.number().nullable(),
  /**
   * `true`: EXPLAIN skips and the measured runs read fewer rows than before; `false`: the index was not
   * used under the runs' settings, or EXPLAIN claims skipping while the measured runs read as many
   * rows as before ("index not effective in the measured runs"); `null`: cannot be judged.
   */
  effective: z.boolean().nullable(),
  /**
   * Set when chbench could not read the EXPLAIN text (another format, a cut-off body, an entry without
   * its granules: `explainGranules` in `src/measure/index-proof.ts`): why. `effective` is then `null` and
   * the report says "EXPLAIN not understood". Absent in results written before this field existed.
   */
  explain_not_understood: z.string().optional(),
  reason: z.string(),
});
export type IndexProof = z.infer<typeof IndexProof>;

// ---------------------------------------------------------------------------------------------
// Provisioning: probe.json, settings.json, provision.json, schema.json

/** `probe.json`: the capability probe of one target. A list that could not be read is `null` ("unknown"), never empty. */
export const CapabilityProbe = z.object({
  /** `SELECT version()`. */
  version: z.string(),
  /** Query-level settings (`system.settings`). */
  query_settings: z.array(z.string()).nullable(),
  /** MergeTree table settings (`system.merge_tree_settings`). */
  merge_tree_settings: z.array(z.string()).nullable(),
  /** Server settings (`system.server_settings`, newer versions only). */
  server_settings: z.array(z.string()).nullable(),
  /** Each cache-drop statement chbench may use and whether the server accepted it. */
  cache_drops: z.array(CommandOutcome),
  /**
   * The server's defaults of the settings that turn caches on (`CACHE_SETTINGS` in
   * src/measure/caches.ts, from `system.settings` and `system.merge_tree_settings`): only those this
   * version has. Absent in probes written before it existed (then whether such a cache is on is unknown).
   */
  cache_settings: z.record(z.string(), z.string()).optional(),
  /** `system.query_log`: exists (after a logged query and a flush), and how it stores ProfileEvents. */
  query_log: z.object({ enabled: z.boolean(), profile_events: z.enum(['map', 'arrays', 'none']).nullable() }),
  /** `system.part_log` exists. */
  part_log: z.object({ enabled: z.boolean() }),
  /** Counter names in `system.events` (all of them where `system_events_show_zero_values` exists). */
  events: z.array(z.string()).nullable(),
  /** Whether `events` lists every counter (true) or only the non-zero ones (false). */
  events_complete: z.boolean(),
  /** Data types (`system.data_type_families`); null if unreadable. */
  data_types: z.array(z.string()).nullable(),
  /** Table functions (`system.table_functions`); null if unreadable. */
  table_functions: z.array(z.string()).nullable(),
  /** Whether a column `CODEC(...)` clause is accepted (trial `CREATE TEMPORARY TABLE`). */
  column_codecs: z.boolean(),
  /** The trial's outcome (the server's error when refused). */
  column_codecs_trial: CommandOutcome,
  /**
   * The probe's other statements that failed although the server answered (a ClickHouse exception:
   * what they read is recorded as absent, e.g. a `null` list), in probe order, each with the server's
   * code and first line (cache drops and the codec trial have their own outcomes above). A probe the server
   * stopped answering is never recorded. Absent in probes written before it existed.
   */
  failed_statements: z.array(CommandOutcome).optional(),
});
export type CapabilityProbe = z.infer<typeof CapabilityProbe>;

/** `settings.json`: what each statement kind will send, after checking against the probe. */
export const CellSettings = z.object({
  /** Settings of the load INSERT (workload loadSettings + spec settings.query). */
  load: Settings,
  /** Settings added to every measured run (spec settings.query). */
  runs: Settings,
  /** The table's SETTINGS clause (workload tableSettings + spec settings.mergeTree). */
  table: Settings,
  /** Settings that did not reach the server (name → reason): optional ones this version lacks (at provisioning), and table settings `SHOW CREATE TABLE` does not show (at createSchema). */
  not_applied: z.record(z.string(), z.string()),
  problems: z.array(z.string()),
  /**
   * Present when the spec pins defaults (`pinDefaults`): the version whose defaults the cell ran with
   * and the setting sent for it (`compatibility = '23.10'`, with the load and every measured run).
   * Absent: the version's shipped defaults.
   */
  pinned_defaults: z.object({ version: z.string(), setting: z.string() }).optional(),
});
export type CellSettings = z.infer<typeof CellSettings>;

/** The target handle as recorded: one definition, in `schema/target.ts`. */
export { TargetRecord } from './target';

/** Server facts recorded at provisioning (`provision.json` `server`; `ServerInfo` in the workflow's types). */
export const ServerRecord = z.object({
  /** `SELECT version()`. */
  version: z.string(),
  /** `SELECT timezone()`. */
  timezone: z.string(),
  /** Logical CPUs (see `cpu_source`: `system.asynchronous_metrics`, or the worker host's `os.cpus()`); null = unknown. */
  cpus: z.number().nullable(),
  cpu_source: z.string(),
  /** Memory, bytes (see `memory_source`); null = unknown. */
  memory_bytes: z.number().nullable(),
  memory_source: z.string(),
  /** Whether `system.query_log` can be read on this target. */
  query_log: z.enum(['available', 'not available']),
});
export type ServerRecord = z.infer<typeof ServerRecord>;

/** `provision.json`: the provision step's result plus when. */
export const ProvisionRecord = z.object({
  target: TargetRecord,
  server: ServerRecord,
  /** Set when this version cannot run the cell (the cell is reported as skipped). */
  skipReason: z.string().optional(),
  /** ISO time the record was written. */
  provisioned_at: z.string(),
  /** The host whose worker provisioned a target on its own host (embedded, local); absent for targets not bound to a host. */
  host: HostFacts.optional(),
});
export type ProvisionRecord = z.infer<typeof ProvisionRecord>;

/** `schema.json`: the table DDL. */
export const SchemaRecord = z.object({
  /** The CREATE TABLE statement exactly as sent. */
  ddl_sent: z.string(),
  /** `SHOW CREATE TABLE` afterwards (what the server made of it). */
  show_create_table: z.string(),
  /** The cell's codec profile against each column's codec read back from the server (absent in older results). */
  codecs: z
    .object({
      /** The profile the cell declares: name, default expression, per-column overrides. */
      profile: z.object({ name: z.string(), default: z.string(), columns: z.record(z.string(), z.string()) }),
      /** Where `server` comes from: `system.columns.compression_codec`. */
      source: z.string(),
      /** False where the server has no `compression_codec` (ClickHouse 18.16): nothing was read back, `reason` says so. */
      available: z.boolean(),
      reason: z.string().optional(),
      columns: z.array(
        z.object({
          column: z.string(),
          /** `system.columns.type`. */
          type: z.string(),
          /** Expression the cell declares for the column (`LZ4` = the server default). */
          declared: z.string(),
          /** `system.columns.compression_codec` as read back (`''` = the server default, LZ4). */
          server: z.string(),
          matches: z.boolean(),
        }),
      ),
    })
    .optional(),
  /** Table settings: declared (workload + spec), applied = shown with that value by `SHOW CREATE TABLE`. */
  table_settings: z
    .object({
      declared: Settings,
      applied: Settings,
      /** Declared settings the server does not show (name → why): not counted as applied. */
      not_shown: z.record(z.string(), z.string()),
      source: z.string(),
    })
    .optional(),
  /** Each selected query's EXPLAIN on the empty table, before loading (absent in older results). */
  query_check: z
    .object({
      /** False where the server has no EXPLAIN (ClickHouse 18.16): `reason` says so. */
      available: z.boolean(),
      reason: z.string().optional(),
      source: z.string(),
      queries: z.array(
        z.object({
          id: z.string(),
          /** The query's file in the workload folder. */
          file: z.string(),
          ok: z.boolean(),
          /** Server error (first line) when refused. */
          error: z.string().optional(),
          code: z.string().optional(),
        }),
      ),
      /** The table the queries were checked against: the empty table, or its scratch copy after the after-load statements. */
      against: z.string().optional(),
    })
    .optional(),
  /**
   * The workload's after-load statements applied, in order, to an empty scratch copy of the table
   * before loading (absent when the workload has none): a statement the server refuses fails the cell here.
   */
  after_load_check: z
    .object({
      scratch_table: z.string(),
      statements: z.array(
        z.object({
          file: z.string(),
          sql: z.string(),
          ok: z.boolean(),
          error: z.string().optional(),
          code: z.string().optional(),
        }),
      ),
      source: z.string(),
    })
    .optional(),
});
export type SchemaRecord = z.infer<typeof SchemaRecord>;

/** The table's state as the after-load step compares it: `SHOW CREATE TABLE` and its mutation ids (`system.mutations`). */
export const TableState = z.object({
  show_create_table: z.string(),
  mutation_ids: z.array(z.string()),
});
export type TableState = z.infer<typeof TableState>;

/** One after-load statement in `after-load.json`. */
export const AfterLoadStatementRecord = z.object({
  /** 1-based position in the workload's `afterLoad`. */
  n: z.number().int(),
  file: z.string(),
  /** SQL sent, exactly. */
  sql: z.string(),
  query_id: z.string(),
  wait: z.enum(['none', 'mutations', 'merges']),
  /** `pending`: about to be sent (a crash leaves it so); `done`: sent, waited for, recorded. */
  status: z.enum(['pending', 'done']),
  state_before: TableState,
  state_after: TableState.optional(),
  /** True when a retry found the table already changed by this statement (sent by an earlier attempt) and did not send it again. */
  applied_by_earlier_attempt: z.boolean().optional(),
  /** Client wall time of the statement, ms (null when not sent by this attempt). */
  elapsed_ms: z.number().nullable().optional(),
  elapsed_source: z.string().optional(),
  /** Server elapsed, ms (null: not given). */
  server_elapsed_ms: z.number().nullable().optional(),
  server_elapsed_source: z.string().optional(),
  /** What was waited for after the statement, and for how long (client wall, ms). */
  wait_result: z
    .object({
      kind: z.enum(['none', 'mutations', 'merges']),
      waited_ms: z.number(),
      /** Mutations of the table this statement created (`system.mutations`). */
      mutations: z.array(z.object({ mutation_id: z.string(), command: z.string(), is_done: z.number() })),
      source: z.string(),
    })
    .optional(),
  attempt: z.number().int().optional(),
  started_at: z.string().optional(),
  finished_at: z.string().optional(),
});
export type AfterLoadStatementRecord = z.infer<typeof AfterLoadStatementRecord>;

/** `after-load.json`: the workload's after-load statements as run on the loaded table. */
export const AfterLoadRecord = z.object({
  table: z.string(),
  statements: z.array(AfterLoadStatementRecord),
  /** Each attempt that found the step's records disagreeing with the table and what it did. */
  notes: z.array(z.string()).default([]),
});
export type AfterLoadRecord = z.infer<typeof AfterLoadRecord>;

// ---------------------------------------------------------------------------------------------
// Counters: metrics-<label>.json

/**
 * The disk and filesystem holding a server's data directory, as the worker's host sees it. Sources:
 * `/proc/self/mountinfo` (the mount with the longest mount point containing the directory: its
 * filesystem type and source device), `/sys/class/block/<device>` (the whole disk of a partition,
 * `device/model`, `queue/rotational`). `null` per fact where the host does not say.
 */
export const DataDisk = z.object({
  /** The data directory (the target handle's `dataDir`). */
  path: z.string(),
  /** Mount point holding it (`/proc/self/mountinfo` field 5). */
  mount_point: z.string().nullable(),
  /** Filesystem type, e.g. `ext4`, `xfs`, `overlay`, `tmpfs`. */
  filesystem: z.string().nullable(),
  /** Mount source, e.g. `/dev/nvme0n1p1` (a non-device source such as `overlay` as written). */
  device: z.string().nullable(),
  /** The whole disk of that device, e.g. `nvme0n1` (`/sys/class/block`). */
  disk: z.string().nullable(),
  /** `/sys/class/block/<disk>/device/model`, trimmed. */
  disk_model: z.string().nullable(),
  /** `/sys/class/block/<disk>/queue/rotational` = 1 (spinning disk). */
  rotational: z.boolean().nullable(),
  /** Where the facts come from, or why they are missing. */
  source: z.string(),
});
export type DataDisk = z.infer<typeof DataDisk>;

/** How a cell was bound by its hardware in one step window, from CloudWatch (`labelBottleneck` in `src/cloud/metrics.ts`) or from the server's own counters on this host (`labelLocalWindow` in `src/measure/local-bottleneck.ts`). */
export const BottleneckLabel = z.enum(['disk-bound', 'cpu-bound', 'neither', 'unknown']);
export type BottleneckLabel = z.infer<typeof BottleneckLabel>;

/** One step window's local label (`labelStepWindows` in `src/measure/step-labels.ts`). */
export const LocalStepLabel = z.object({
  /** The cloud step's window names: `load`, `quiesce after-load`, `q1 cold (baseline)`, `queries (index)`, `index build`, `cell`. */
  step: z.string(),
  /** The window as the step records time it (worker wall clock, `started_at`/`finished_at`). */
  started_at: z.string(),
  finished_at: z.string(),
  label: BottleneckLabel,
  /** The figures behind the label, e.g. `read 19.6 MiB/s = 98 % of the explicit read limit 20 MiB/s; CPU 0.12 of 2 cores = 6 % [cgroup v1 …]`, or why unknown. */
  evidence: z.string(),
  /** The counters' differences between the two bracketing samples; null when no two samples bracket the window. */
  counters: z
    .object({
      /** Indexes of the two samples among the parsed lines of `counters.jsonl` (file order). */
      from_sample: z.number(),
      to_sample: z.number(),
      /** Their wall-clock times (ISO). */
      from_at: z.string(),
      to_at: z.string(),
      /** Time between them, ms (monotonic clock of the worker process when one took both). */
      ms: z.number(),
      /** `cgroup v1 chbench/<run>/<cell>`, `cgroup v2 …` or `/proc/<pid>`. */
      source: z.string(),
      /** Bytes read from / written to the block device (differences of the samples' cumulative counters). */
      read_bytes: z.number(),
      write_bytes: z.number(),
      /** CPU time of the server (and its children), ns. */
      cpu_ns: z.number(),
      /** Busy and all CPU time of the host, ns (`/proc/stat`). */
      host_busy_ns: z.number(),
      host_total_ns: z.number(),
      /** read_bytes / (ms / 1000), write_bytes / (ms / 1000), cpu_ns / 10^6 / ms. */
      read_bytes_per_s: z.number(),
      write_bytes_per_s: z.number(),
      cores_used: z.number(),
    })
    .nullable(),
  /** Under a volume limit: false when the achieved rate exceeded it by more than the tolerance (the limit did not hold); null without one. */
  limit_held: z.boolean().nullable(),
});
export type LocalStepLabel = z.infer<typeof LocalStepLabel>;

/**
 * `metrics-end.json` `local_bottleneck`: every step window labelled from the server's own counters on
 * this host; `pod_bottleneck`: the same from counters scraped over the network (a kubernetes pod's
 * cgroup through the node's cAdvisor).
 */
export const LocalBottleneckRecord = z.object({
  /** Where the counters came from (`cgroup v1 chbench/<run>/<cell>` or `/proc/<pid>`). */
  source: z.string(),
  /** The limits applied (`describeLimits`, with the device and the cgroup), or `not throttled`. */
  limits: z.string(),
  /** Read limit, bytes/s; null when reads are not limited. */
  read_limit_bytes_per_s: z.number().nullable(),
  /** Write limit, bytes/s; null when writes are not limited. */
  write_limit_bytes_per_s: z.number().nullable(),
  /** CPU limit, cores; null without one. */
  cpu_limit_cores: z.number().nullable(),
  /** Which limits the kernel enforces here, one line each, e.g. `reads: held (cgroup v1 blkio throttle)`, `buffered writes: not throttled by cgroup v1 blkio (direct I/O only)`. */
  enforcement: z.array(z.string()),
  /** The block device holding the data directory (`vda (254:0)`); null when unknown. */
  device: z.string().nullable(),
  /** The host disk's unthrottled direct-I/O read rate, bytes/s (`hostDiskCapacity`, measured once per host and cached); null when it could not be measured. */
  host_read_bytes_per_s: z.number().nullable(),
  /** How that rate was measured (or why not). */
  host_capacity_source: z.string(),
  /** Cores of the host (`os.availableParallelism()`); for a scraped cell the server's machine (cAdvisor `machine_cpu_cores`), null when not served. */
  host_cores: z.number().nullable(),
  /** Label thresholds: disk-bound at this share of the binding limit, CPU-bound at this % of the cores, tolerance above a limit. */
  thresholds: z.object({ disk_utilisation: z.number(), cpu_pct: z.number(), tolerance: z.number() }),
  /** Samples in `counters.jsonl` when labelled. */
  samples: z.number(),
  steps: z.array(LocalStepLabel),
  /** False when some window's achieved read (or throttled write) rate exceeded its limit: the limit did not hold. */
  limits_held: z.boolean(),
  /** Steps without a window (their record carries no wall-clock times). */
  untimed_steps: z.array(z.string()),
  /** Scraped counters only: requests that failed (`counters-errors.jsonl`), how many and the first error; absent when none failed. */
  failed_samples: z.object({ count: z.number(), first: z.string() }).optional(),
});
export type LocalBottleneckRecord = z.infer<typeof LocalBottleneckRecord>;

/** `metrics-<label>.json`: a snapshot of cumulative counters. Missing sources are `null` with a reason, never zeros. */
export const MetricsSnapshot = z.object({
  /** `start` or `end` of the cell. */
  label: z.string(),
  /** ISO time of the snapshot. */
  taken_at: z.string(),
  /** `system.events` (name → value), `null` if unreadable. */
  server_events: z.record(z.string(), z.number()).nullable(),
  server_events_source: z.string(),
  /** Host disk counters (device → bytes read/written, io ms), from /proc/diskstats (sectors × 512); targets on the worker's host only. */
  host_disks: z.record(z.string(), z.object({ read_bytes: z.number(), write_bytes: z.number(), io_ms: z.number() })).nullable(),
  /** Host CPU jiffies from the `cpu` line of /proc/stat. */
  host_cpu: z.object({ user: z.number(), system: z.number(), idle: z.number(), iowait: z.number() }).nullable(),
  host_source: z.string(),
  /** What else the worker's host was running (targets on the worker's host only). */
  host_activity: HostActivity.optional(),
  /** The disk and filesystem of the server's data directory (start snapshot; targets on the worker's host with a data directory). */
  data_disk: DataDisk.optional(),
  /** End snapshot of a cell whose server runs on this host: every step window labelled disk-bound / CPU-bound / neither from the server's counters (`counters.jsonl`). */
  local_bottleneck: LocalBottleneckRecord.optional(),
  /**
   * End snapshot of a cell whose server is not on this host but whose target scrapes its counters (a
   * kubernetes pod's cgroup from the node's cAdvisor, `counters.jsonl` samples with `rtt_ms`): every
   * step window labelled as `local_bottleneck`, against the pod's CPU limit and the volume's rates.
   */
  pod_bottleneck: LocalBottleneckRecord.optional(),
});
export type MetricsSnapshot = z.infer<typeof MetricsSnapshot>;

/** `result.json.metrics_delta`: start→end difference of {@link MetricsSnapshot}s; `null` per counter where unknown. */
export const MetricsDelta = z.object({
  /** `taken_at` of the start snapshot. */
  from: z.string(),
  /** `taken_at` of the end snapshot. */
  to: z.string(),
  /** Key `system.events` counters (`KEY_EVENTS`), end − start; null when the server does not have it. */
  server_events: z.record(z.string(), z.number().nullable()),
  server_events_source: z.string(),
  /** Per whole disk of the worker host (only disks that moved), bytes; null when not on the worker host. */
  host_disks: z.record(z.string(), z.object({ read_bytes: z.number(), write_bytes: z.number() })).nullable(),
  host_source: z.string(),
});
export type MetricsDelta = z.infer<typeof MetricsDelta>;

// ---------------------------------------------------------------------------------------------
// Load, quiesce, storage

/** `load.json`. The first six fields are the `LoadSummary` returned to the workflow. */
export const LoadRecord = z.object({
  /** Rows loaded (`SELECT count()` after the INSERT). */
  rows: z.number(),
  /** Client wall time of the INSERT … SELECT, ms. */
  elapsed_ms: z.number(),
  /** rows / elapsed (client wall time). */
  rows_per_s: z.number(),
  /** Partitions of the active parts (`system.parts`); null where the server has none (see `parts_source`). */
  partitions: z.number().nullable(),
  /** Active parts after loading (`system.parts`); null where the server has none. */
  active_parts: z.number().nullable(),
  /** Where partitions, parts and bytes_on_disk come from (absent in older results: `system.parts`). */
  parts_source: z.string().optional(),
  /** True when the table already held the expected rows from an earlier attempt and nothing was inserted. */
  reused: z.boolean(),
  sql: z.string(),
  settings: Settings,
  query_id: z.string(),
  /** Server-side elapsed of the INSERT, ms (see `server_elapsed_source`); null when the server gives none. */
  server_elapsed_ms: z.number().nullable(),
  /** `http summary elapsed_ns`, `system.query_log.query_duration_ms` or `not available`. */
  server_elapsed_source: z.string(),
  /** `written_rows` from the HTTP summary as sent (0 included); null when the server did not send it. See `written_rows` for the figure and its check. */
  written_rows_summary: z.number().nullable(),
  /** Rows in the table after loading (`SELECT count()`): must equal the spec's scale. */
  rows_in_table: z.number(),
  /** `system.parts` sum(bytes_on_disk) of active parts after loading (else `system.tables.total_bytes`, see `parts_source`); null when neither. */
  bytes_on_disk: z.number().nullable(),
  truncated_before_load: z.object({ rows_found: z.number(), reason: z.string() }).nullable(),
  /** Statements of earlier attempts found running when this attempt started, and what was done. */
  previous_attempts: PreviousAttempts,
  /**
   * Load verification: `count()` equals the spec's scale; `written_rows` of the HTTP summary checked
   * against the table where the server sends it; insert blocks dropped by deduplication
   * (`DuplicatedInsertedBlocks`, null = unknown).
   */
  verification: z.object({
    rows_equal_scale: z.boolean(),
    written_rows_check: z.string(),
    duplicated_inserted_blocks: z.number().nullable(),
    counters_source: z.string(),
  }),
  /**
   * How this server did the INSERT, read from it (`src/clickhouse/insert-settings.ts`): `values` the
   * insert settings in effect (`async_insert`, `wait_for_async_insert`, `max_insert_threads`: value as
   * `system.settings` prints it, read with the INSERT's settings, and its source; value null = not a
   * setting of this version), `added` what the load sent beyond the spec's load settings (e.g.
   * `async_insert = 0` where a version turns it on by default) with a note each. Absent in older results.
   */
  insert_settings: z
    .object({
      values: z.record(z.string(), z.object({ value: z.string().nullable(), source: z.string() })),
      added: z.record(z.string(), z.number()),
      notes: z.array(z.string()),
      /** Where `values` come from, or why they could not be read. */
      source: z.string(),
    })
    .optional(),
  /**
   * written_rows as the server reported it (HTTP summary, else query_log, else the `system.events`
   * `InsertedRows` difference; a 0 is unknown), and its check against `count()`, which stays the
   * figure: a difference is a note (`differs, explained: …` / `MISMATCH: …`), never an error. Absent in older results.
   */
  written_rows: z
    .object({
      value: z.number().nullable(),
      source: z.string().nullable(),
      unknown: z.string().optional(),
      check: z.string(),
    })
    .optional(),
  /** Activity attempt that wrote the record (1 = first). */
  attempt: z.number(),
  /** Worker wall clock just before the INSERT was sent (absent in older results, and when the load was reused). */
  started_at: WallClockAt.optional(),
  /** Worker wall clock when the INSERT's response had ended. */
  finished_at: WallClockAt.optional(),
});
export type LoadRecord = z.infer<typeof LoadRecord>;

/** `quiesce-<label>.json`: the table was quiet (no merge or mutation, same active parts for `stable_for_ms`). */
export const QuiesceRecord = z.object({
  /** Active parts when quiet; null where the server has no `system.parts` (see `not_observable`). */
  active_parts: z.number().nullable(),
  /** Client wall time spent waiting, ms. */
  waited_ms: z.number(),
  /** Active part names (`system.parts`) when the table was judged quiet. */
  part_names: z.array(z.string()),
  /** How long the parts had to stay unchanged, ms (`protocol.quiesce.stableForMs`). */
  stable_for_ms: z.number(),
  /** Why nothing was waited for: the server has no system.parts / merges / mutations (chdb 1.4.1); absent when it was watched. */
  not_observable: z.string().optional(),
  /** Worker wall clock when the wait began (absent in older results). */
  started_at: WallClockAt.optional(),
  /** Worker wall clock when the table was judged quiet. */
  finished_at: WallClockAt.optional(),
});
export type QuiesceRecord = z.infer<typeof QuiesceRecord>;

/** One column's storage, bytes (`system.parts_columns`, active parts). */
export const ColumnStorage = z.object({
  column: z.string(),
  type: z.string(),
  /** sum(column_data_compressed_bytes). */
  compressed_bytes: z.number(),
  /** sum(column_data_uncompressed_bytes). */
  uncompressed_bytes: z.number(),
  /** uncompressed / compressed. */
  ratio: z.number(),
  /** Share of the table's compressed bytes. */
  share: z.number(),
  /**
   * The column's codec read back from the server (`system.columns.compression_codec`; `''` = the
   * column names none, so each part is compressed with the part's default: see
   * {@link StorageRecord} `part_default_codecs`); absent where the server has no such column and in older results.
   */
  codec: z.string().optional(),
});
export type ColumnStorage = z.infer<typeof ColumnStorage>;

/** One active part's default codec (`system.parts.default_compression_codec`) with its size. */
export const PartDefaultCodec = z.object({
  /** Part name (`system.parts.name`). */
  part: z.string(),
  rows: z.number(),
  /** data_compressed_bytes of the part. */
  compressed_bytes: z.number(),
  /** data_uncompressed_bytes of the part. */
  uncompressed_bytes: z.number(),
  /** `system.parts.default_compression_codec`, e.g. `LZ4`, `ZSTD(3)`. */
  codec: z.string(),
});
export type PartDefaultCodec = z.infer<typeof PartDefaultCodec>;

/** `storage.json`. Totals from `system.parts` (active parts); without it (chdb 1.4.1) from `system.tables` / `system.columns`. */
export const StorageRecord = z.object({
  table: z.string(),
  rows: z.number(),
  /** Active parts; null where the server has no `system.parts` (chdb 1.4.1; `sources.parts` says so). */
  active_parts: z.number().nullable(),
  /** sum(data_compressed_bytes); null where the server cannot give it (`sources.totals` says why). */
  compressed_bytes: z.number().nullable(),
  /** sum(data_uncompressed_bytes); null as compressed_bytes. */
  uncompressed_bytes: z.number().nullable(),
  /** sum(bytes_on_disk) (without system.parts: `system.tables.total_bytes`); null when neither. */
  bytes_on_disk: z.number().nullable(),
  /** uncompressed / compressed (0 for an empty table); null when either is unknown. */
  ratio: z.number().nullable(),
  /** Part formats seen (`system.parts.part_type`), e.g. `{"Wide": 7}`; `unknown` on versions without the column. */
  part_types: z.record(z.string(), z.number()),
  /** Per-column sizes, or `null` with `columns_unavailable_reason`. */
  columns: z.array(ColumnStorage).nullable(),
  columns_unavailable_reason: z.string().optional(),
  /**
   * The codec each active part uses for a column that names none, as the server reports it per part
   * (`system.parts.default_compression_codec`): 26.9 gives ZSTD(3) to large parts and LZ4 to small
   * ones. `null` where the server has no such column (then the default was not read back); absent in
   * older results.
   */
  part_default_codecs: z.array(PartDefaultCodec).nullable().optional(),
  /** Source of each figure group (totals, columns). */
  sources: z.record(z.string(), z.string()),
});
export type StorageRecord = z.infer<typeof StorageRecord>;

// ---------------------------------------------------------------------------------------------
// Queries: queries-<phase>.json

/** How a cold run was prepared. */
export const ColdPreparation = z.object({
  /** Each cache-drop statement and its outcome. */
  server_caches: z.array(CommandOutcome),
  /** OS page cache: `dropped`, or `not dropped: <reason>`. */
  os_page_cache: z.string(),
  /** Settings sent with the cold run. */
  settings: Settings,
});
export type ColdPreparation = z.infer<typeof ColdPreparation>;

/** Where a run's server-side elapsed comes from. */
export const ServerTimeSource = z.enum([
  'system.query_log event_time_microseconds - query_start_time_microseconds',
  'system.query_log.query_duration_ms',
  'http summary elapsed_ns',
]);
export type ServerTimeSource = z.infer<typeof ServerTimeSource>;

/** Kind of a run: `warmup` runs are kept but left out of every statistic. */
export const RunKind = z.enum(['cold', 'warmup', 'warm']);
export type RunKind = z.infer<typeof RunKind>;

/** One run of one query. Figures the server did not give are `null` ("not available"), never 0. */
export const RunSample = z.object({
  /** `warmup` runs are kept but left out of every statistic. */
  kind: RunKind,
  /** 1-based index within its kind. */
  n: z.number(),
  query_id: z.string(),
  /** Client wall time, ms (performance.now() around request + full body read). */
  wall_ms: z.number(),
  /** Server-side elapsed, ms; see `server_elapsed_source` (and `SERVER_TIME_RESOLUTION_MS` for its resolution). */
  server_elapsed_ms: z.number().nullable(),
  server_elapsed_source: ServerTimeSource.nullable(),
  /** Rows read by the server (see `read_source`). */
  read_rows: z.number().nullable(),
  /** Bytes read by the server (see `read_source`). */
  read_bytes: z.number().nullable(),
  /**
   * Where read_rows / read_bytes come from. `system.events difference`: the SelectedRows / SelectedBytes
   * difference of the snapshots around the run (engines that report no read of their own: the PyPI
   * chdb builds before 26.5), which also counts the snapshot statement's own read of `system.events`
   * (≈ 70–150 rows on 23.10 … 26.9).
   */
  read_source: z.enum(['http summary', 'output statistics', 'system.query_log', 'system.events difference']).nullable(),
  /**
   * Why read_rows / read_bytes are null although a source answered: it said 0 (the JSON statistics of
   * the chdb builds before 26.5 always do). A 0 read is unknown, never a figure nor a verdict's basis.
   */
  read_unknown: z.string().optional(),
  /** Rows of the result received. */
  result_rows: z.number(),
  /** Bytes of the result body received (the measured format, JSONCompact), counted as it streamed in. */
  result_bytes: z.number().nullable(),
  /**
   * sha256 of the result as `JSON.stringify` of its JSON.parse'd rows: compares runs of ONE ClickHouse
   * version (its formatting is part of it: a UInt64 quoted by one version and not by another differs,
   * and integers beyond 2^53 lose their last digits). Kept, with this meaning, so older results compare.
   */
  result_sha256: z.string(),
  /**
   * sha256 of the result's canonical VALUES by its column types (src/clickhouse/result-values.ts):
   * the hash results are compared by when both sides have it (across versions too); `null` = could not
   * be computed (`result_values_unknown` says why); absent in results written before it existed.
   */
  result_values_sha256: z.string().nullable().optional(),
  result_values_unknown: z.string().optional(),
  /** True when the set of active parts differed before and after this run. */
  parts_changed: z.boolean(),
  /** Settings sent with this run. */
  settings: Settings,
  /** The server's `X-ClickHouse-Summary` header as sent (absent on old servers); values are strings on every version seen, numbers accepted. */
  http_summary: z.record(z.string(), z.union([z.string(), z.number()])).optional(),
  /**
   * Whether the summary can be complete: `wait_end_of_query=1` was requested (the server sends its
   * headers only when the query has ended). Without it the header is a snapshot taken when the first
   * bytes went out and under-reports long or big queries, so it is never a headline then.
   */
  summary_complete: z.boolean(),
  /**
   * Where the headline comes from `system.query_log`, the HTTP summary (and the JSON statistics block)
   * checked against it: `agrees`, `disagrees: …`, or `not checked: …`.
   */
  cross_check: z.string().optional(),
  /** The statistics block of the JSON output (`rows_read`, `bytes_read`, `elapsed` s). */
  output_statistics: z.object({ rows_read: z.number().optional(), bytes_read: z.number().optional(), elapsed: z.number().optional() }).optional(),
  cold_preparation: ColdPreparation.optional(),
  /** Merges running plus unfinished mutations on the table just before/after the run (max); null if unreadable. */
  merges_or_mutations: z.number().nullable(),
  /** Per-run counters (see `counters_source`); null when the target gives none. */
  counters: RunCounters.nullable(),
  counters_source: z.enum(['system.query_log ProfileEvents', 'system.events difference (embedded engine runs one statement at a time)']).nullable(),
  /** Validity record: for cold runs whether it was really cold; for every run whether the table was quiet. */
  validity: z.object({ cold: RunValidity.optional(), quiet: RunValidity }),
  /** The `QueryFinish` row of `system.query_log` for this query_id (ProfileEvents as an object), when available. */
  query_log: z.record(z.string(), z.unknown()).nullable().optional(),
  /**
   * The settings sent (`settings`) as the server recorded them for this run (`system.query_log`'s
   * `Settings`): `applied` = shown with the value sent, `not_shown` = the others and why. Absent where
   * the run has no query_log row (and in older results).
   */
  settings_check: z
    .object({ source: z.string(), applied: z.record(z.string(), z.string()), not_shown: z.record(z.string(), z.string()) })
    .optional(),
  /** Worker wall clock just before the run's request was sent (after its cold preparation); absent in older results. */
  started_at: WallClockAt.optional(),
  /** Worker wall clock when the run's response body had been read (the end of `wall_ms`). */
  finished_at: WallClockAt.optional(),
});
export type RunSample = z.infer<typeof RunSample>;

/** Per-query statistics, ms. `timing_source` says which clock the figures come from. */
export const QueryStats = z.object({
  timing_source: z.enum(['server-side elapsed', 'client wall time']),
  /** Why this source was chosen when it is not the server's (e.g. the server's resolution is too coarse). */
  timing_note: z.string().optional(),
  /** The server-time sources the runs had (even when the headline is client wall time). */
  server_time_sources: z.array(ServerTimeSource),
  /** Cold figure: the only cold run, or the minimum when there are several (`cold_runs`). */
  cold_ms: z.number().nullable(),
  cold_runs: z.number(),
  /** Cold runs the counters showed were not cold (left out of `cold_ms`). */
  cold_runs_rejected: z.number(),
  /** Smallest step the headline's source resolves, ms (1 for query_log's query_duration_ms; null for client wall time). */
  resolution_ms: z.number().nullable(),
  warm_min_ms: z.number().nullable(),
  warm_median_ms: z.number().nullable(),
  warm_max_ms: z.number().nullable(),
  /** Client wall time of the cold figure's run, ms. */
  cold_wall_ms: z.number().nullable(),
  warm_min_wall_ms: z.number().nullable(),
  warm_median_wall_ms: z.number().nullable(),
  /** read_rows of the last warm run (null when unavailable). */
  read_rows: z.number().nullable(),
  read_bytes: z.number().nullable(),
  result_rows: z.number(),
  /** Distinct result hashes across runs (1 expected); see `RunSample.result_sha256`. */
  result_sha256: z.array(z.string()),
  /**
   * Distinct value hashes across runs (`RunSample.result_values_sha256`), present only when every run has
   * one: comparisons use it when both sides have it, else `result_sha256`.
   */
  result_values_sha256: z.array(z.string()).optional(),
  /** Warm runs faster than the cold run. */
  warm_validity: RunValidity,
});
export type QueryStats = z.infer<typeof QueryStats>;

/** A query that failed on the server: ClickHouse's code and name, its message, and which run. */
export const QueryError = z.object({
  /** ClickHouse error code (e.g. `241`); null when the error carried none. */
  code: z.string().nullable(),
  /** ClickHouse error name (e.g. `MEMORY_LIMIT_EXCEEDED`); null when unknown. */
  type: z.string().nullable(),
  /** The server's message (first 500 characters). */
  message: z.string(),
  /** Which run, e.g. `warm 2`. */
  run: z.string(),
  query_id: z.string(),
  /** Set when the error arrived inside an HTTP 200 body, after `result_bytes` of result had been received. */
  after_response_started: z
    .object({
      http_status: z.number(),
      result_bytes: z.number(),
      exception_source: z.enum(['exception tag block', 'json exception key', 'text appended to the body']),
    })
    .optional(),
});
export type QueryError = z.infer<typeof QueryError>;

/** One query's record in `queries-<phase>.json`. */
export const QueryRecord = z.object({
  /** Workload query id, e.g. `q1`. */
  id: z.string(),
  title: z.string(),
  uses_index: z.boolean(),
  /** False when the workload says the result may vary (e.g. sampled quantiles); hashes are then not compared. */
  deterministic: z.boolean(),
  sql: z.string(),
  /** Set when a run of this query failed on the server (its later runs were not attempted). */
  error: QueryError.optional(),
  /** `EXPLAIN indexes = 1` of the query, run with exactly the settings of its warm runs (`explain_settings`). */
  explain_indexes: z.string().nullable(),
  explain_error: z.string().optional(),
  /** Settings the EXPLAIN ran with: the measured runs' settings (cold runs add only direct I/O). */
  explain_settings: Settings.optional(),
  /** Index phase, queries that use the skip index: what EXPLAIN claims and whether the measured runs show it. */
  index_proof: IndexProof.optional(),
  samples: z.array(RunSample),
  stats: QueryStats,
  /** Active part names before the first and after the last run of this query (`system.parts`). */
  parts_before: z.array(z.string()),
  parts_after: z.array(z.string()),
  /**
   * sha256 (either hash) → the first rows of that result (JSON, ≤ 400 chars; canonical values when
   * known: 64-bit integers as strings), so a mismatch shows both values.
   */
  result_examples: z.record(z.string(), z.string()),
});
export type QueryRecord = z.infer<typeof QueryRecord>;

/** Phase of a query step: before (`baseline`) or after (`index`) the skip index. */
export const QueryPhase = z.enum(['baseline', 'index']);
export type QueryPhase = z.infer<typeof QueryPhase>;

/** `queries-<phase>.json`. */
export const QueriesRecord = z.object({
  phase: QueryPhase,
  /** Activity attempt that wrote the record (1 = first). */
  attempt: z.number(),
  /** Set when the step stopped (cancelled, or an error) before every query was measured: why, and how many were. */
  incomplete: z.string().optional(),
  /** What "cold" meant in this step, from the recorded outcomes. */
  cold_definition: z.string(),
  /** Other chbench servers alive on this host when the step started and ended (they disturb timings). */
  other_chbench_servers: z.object({ at_start: z.array(z.string()), at_end: z.array(z.string()) }),
  merges_stopped: CommandOutcome.nullable(),
  /** Statements of earlier attempts of this step found running at start, and what was done. */
  previous_attempts: PreviousAttempts,
  /** Settings sent with every measured run (cold runs add min_bytes_to_use_direct_io=1). */
  run_settings: Settings,
  query_log: z.enum(['available', 'not available']),
  queries: z.array(QueryRecord),
});
export type QueriesRecord = z.infer<typeof QueriesRecord>;

// ---------------------------------------------------------------------------------------------
// Skip index: index.json

/** Proof that the index is built and used, checked before its before/after figures are reported. */
export const IndexVerification = z.object({
  /** Active parts without the index (`system.parts.secondary_indices_compressed_bytes = 0`); null if unknown. */
  parts_without_index: z.number().nullable(),
  active_parts: z.number().nullable(),
  /** Per query that uses the index: the index's `Granules: kept/total` line of `EXPLAIN indexes = 1`. */
  explain: z.record(z.string(), z.object({ granules: z.string().nullable(), skips: z.boolean().nullable(), error: z.string().optional() })),
  /** True when every part carries the index and EXPLAIN shows it skipping granules for every query. */
  verified: z.boolean().nullable(),
  reasons: z.array(z.string()),
});
export type IndexVerification = z.infer<typeof IndexVerification>;

/** A `system.mutations` row of the MATERIALIZE INDEX mutation. */
export const MutationRow = z.object({
  mutation_id: z.string(),
  command: z.string(),
  is_done: z.number(),
  parts_to_do: z.number(),
  latest_fail_reason: z.string(),
});
export type MutationRow = z.infer<typeof MutationRow>;

/** `index.json`. */
export const IndexRecord = z.object({
  /** Index name from the workload. */
  index: z.string(),
  add_sql: z.string(),
  materialize_sql: z.string(),
  /** True when a MATERIALIZE INDEX mutation of an earlier attempt was adopted (then `materialize_ms` is partial). */
  adopted_mutation: z.boolean(),
  /** Client wall time, ms: see `materialize_ms_source`. */
  materialize_ms: z.number(),
  materialize_ms_source: z.string(),
  /** Index size, bytes (see `index_bytes_source`); null when not available on this version. */
  index_bytes: z.number().nullable(),
  index_uncompressed_bytes: z.number().nullable(),
  /** `system.data_skipping_indices.data_compressed_bytes`, else `system.parts` sum(secondary_indices_compressed_bytes). */
  index_bytes_source: z.string(),
  /** `system.mutations` rows after the build. */
  mutations: z.array(MutationRow),
  /** `SYSTEM START MERGES` before the build (mutations run in the background pool). */
  start_merges: CommandOutcome,
  verification: IndexVerification,
  /** Worker wall clock when MATERIALIZE INDEX was issued (or the earlier attempt's mutation adopted); absent in older results. */
  started_at: WallClockAt.optional(),
  /** Worker wall clock when `system.mutations` showed the mutation done (the end of `materialize_ms`). */
  finished_at: WallClockAt.optional(),
});
export type IndexRecord = z.infer<typeof IndexRecord>;

/** `teardown.json`. */
export const TeardownRecord = z.object({
  torn_down_at: z.string(),
  /** Target kind. */
  kind: z.string(),
  /** What was removed or stopped (one line). */
  what: z.unknown(),
  /** Path of the archived server statement log, or `not available: <reason>`. */
  server_log_archive: z.string(),
});
export type TeardownRecord = z.infer<typeof TeardownRecord>;


// ---------------------------------------------------------------------------------------------
// Cloud (Kubernetes on AWS): cloud-metrics.json, cost.json


/** The cell's EBS volume and EC2 instance as chbench found them, each with where the facts came from. */
export const CloudResourcesRecord = z.object({
  volume: z.object({
    /** EBS volume id, from the PV's `spec.csi.volumeHandle` (`provision.json` kubernetes facts). */
    volume_id: z.string(),
    /** `VolumeType` (`gp3`, …); null when unknown. */
    type: z.string().nullable(),
    /** `Size`, GiB; null when unknown. */
    size_gib: z.number().nullable(),
    /** `Iops` (gp3 without one: the baseline 3,000); null when unknown. */
    iops: z.number().nullable(),
    /** `Throughput`, MiB/s (gp3 without one: the baseline 125); null when unknown. */
    throughput_mib_s: z.number().nullable(),
    /** `AvailabilityZone`; null when unknown. */
    zone: z.string().nullable(),
    /** `State` at collection (`in-use`, `available`, …), or `not describable` when it was gone. */
    state: z.string(),
    /** `EC2 DescribeVolumes`, or the fallback used and why (e.g. the volume was deleted at teardown). */
    source: z.string(),
  }),
  instance: z.object({
    /** EC2 instance id, from the node's `spec.providerID`. */
    instance_id: z.string(),
    /** `InstanceType`; null when unknown. */
    type: z.string().nullable(),
    zone: z.string().nullable(),
    state: z.string(),
    /** `Monitoring.State = enabled` (1-minute AWS/EC2 points); null when unknown. */
    detailed_monitoring: z.boolean().nullable(),
    /** `EC2 DescribeInstances`, or the fallback used and why. */
    source: z.string(),
  }),
  /** The instance type's EBS limits (EBS-optimized); null when unknown. */
  instance_limits: z
    .object({
      /** Baseline throughput, MB/s (10^6 bytes/s, as AWS quotes it). */
      baseline_mb_s: z.number(),
      baseline_iops: z.number(),
      /** Burst throughput, MB/s. */
      maximum_mb_s: z.number(),
      maximum_iops: z.number(),
      /** `EC2 DescribeInstanceTypes EbsOptimizedInfo` or chbench's table. */
      source: z.string(),
    })
    .nullable(),
});
export type CloudResourcesRecord = z.infer<typeof CloudResourcesRecord>;

/**
 * Figures of one attributable step window (`StepCloudFigures` in `src/cloud/metrics.ts`); each is
 * null when CloudWatch had no data point for it in the window ("no data"), never 0.
 */
export const CloudFigures = z.object({
  /** MiB/s: AWS/EBS VolumeReadBytes Sum ÷ seconds of the minutes with data. */
  read_mib_s: z.number().nullable(),
  /** MiB/s: AWS/EBS VolumeWriteBytes Sum ÷ seconds with data. */
  write_mib_s: z.number().nullable(),
  /** AWS/EBS VolumeReadOps Sum ÷ seconds with data. */
  read_iops: z.number().nullable(),
  /** AWS/EBS VolumeWriteOps Sum ÷ seconds with data. */
  write_iops: z.number().nullable(),
  /** AWS/EBS VolumeQueueLength Average, mean of the minutes. */
  queue_length: z.number().nullable(),
  /** %: AWS/EBS VolumeIdleTime Sum ÷ seconds with data × 100. */
  idle_pct: z.number().nullable(),
  /** %: AWS/EBS BurstBalance Average, lowest minute (gp2/st1/sc1 only). */
  burst_balance_pct: z.number().nullable(),
  /** %: AWS/EC2 CPUUtilization Average, mean of the minutes. */
  cpu_pct: z.number().nullable(),
  /** %: AWS/EC2 CPUUtilization Maximum, highest minute. */
  cpu_max_pct: z.number().nullable(),
  /** MiB/s: AWS/EC2 EBSReadBytes Sum ÷ seconds with data. */
  instance_ebs_read_mib_s: z.number().nullable(),
  /** %: AWS/EC2 EBSByteBalance% Average, lowest minute. */
  ebs_byte_balance_pct: z.number().nullable(),
  /** %: AWS/EC2 EBSIOBalance% Average, lowest minute. */
  ebs_io_balance_pct: z.number().nullable(),
});
export type CloudFigures = z.infer<typeof CloudFigures>;

/** One step window of `cloud-metrics.json`. */
export const CloudStepRecord = z.object({
  /** `load`, `quiesce after-load`, `q1 cold (baseline)`, `q1 warm (index)`, `index build`, `cell`. */
  step: z.string(),
  /** The step as timed by chbench (worker wall clock, from the step records' `started_at`/`finished_at`). */
  started_at: z.string(),
  finished_at: z.string(),
  /** False for a window shorter than one period: it shares its minute with other steps. */
  attributable: z.boolean(),
  /** Why no figures (unattributable window), e.g. `not attributable: window 12 s < period 60 s, shared with …`. */
  reason: z.string().nullable(),
  /** Other steps whose minutes overlap this window's. */
  shared_with: z.array(z.string()),
  /** The minutes asked for: start rounded down, end rounded up (exclusive); null when not attributable. */
  window: z
    .object({
      start: z.string(),
      end: z.string(),
      period_s: z.number(),
      periods: z.number(),
      /** Share of the asked minutes the step itself ran, 0..1. */
      coverage: z.number(),
      /** The newest minute may still change (read before `final_at`). */
      partial: z.boolean(),
      final_at: z.string(),
    })
    .nullable(),
  figures: CloudFigures.nullable(),
  /** Data points CloudWatch returned per metric query id (`vol_read_bytes`, `cpu_avg`, …) of the `periods` asked for. */
  datapoints: z.record(z.string(), z.number()),
  /** Null when not attributable. */
  label: BottleneckLabel.nullable(),
  /** The figures behind the label, e.g. `read 121 MiB/s = 97 % of gp3 125 MiB/s; CPU 31 %`. */
  evidence: z.string().nullable(),
});
export type CloudStepRecord = z.infer<typeof CloudStepRecord>;

/** Schema id of `cloud-metrics.json`. */
export const CLOUD_METRICS_SCHEMA = 'chbench.cloud-metrics/v1';

/** `cloud-metrics.json` (per cell, written by the matrix's `collectCloudMetrics` after the cells). */
export const CloudMetricsRecord = z.object({
  schema: z.literal(CLOUD_METRICS_SCHEMA),
  cell: z.string(),
  /** ISO time the figures were read. */
  collected_at: z.string(),
  region: z.string(),
  resources: CloudResourcesRecord,
  /** The metrics read: namespace, name, statistic, dimension, unit (one `GetMetricData` query each, full dimensions). */
  metrics: z.array(z.object({ id: z.string(), namespace: z.string(), metric: z.string(), stat: z.string(), dimension: z.string(), unit: z.string() })),
  /** Period of every query, s (60; 300 for AWS/EC2 under basic monitoring). */
  period_s: z.number(),
  /** Waited until this long after the newest window's last minute before reading, ms. */
  settle_ms: z.number(),
  /** True when some window was read before its figures were final. */
  partial: z.boolean(),
  /** Label thresholds used (`BottleneckThresholds`). */
  thresholds: z.object({ disk_utilisation: z.number(), cpu_pct: z.number(), balance_pct: z.number() }),
  steps: z.array(CloudStepRecord),
  /** Steps whose records carry no wall-clock times (written before `started_at`/`finished_at` existed): no window. */
  untimed_steps: z.array(z.string()),
});
export type CloudMetricsRecord = z.infer<typeof CloudMetricsRecord>;

/** Schema id of a cell's `cost.json`. */
export const CELL_COST_SCHEMA = 'chbench.cell-cost/v1';

/** `cost.json` (per cell): what the cell's instance and volume cost for the time it held them. USD, unrounded. */
export const CellCostRecord = z.object({
  schema: z.literal(CELL_COST_SCHEMA),
  cell: z.string(),
  instance_type: z.string().nullable(),
  volume: z.object({ type: z.string().nullable(), size_gib: z.number().nullable(), iops: z.number().nullable(), throughput_mib_s: z.number().nullable() }),
  /** The time charged (instance and volume alike). */
  held: z.object({
    from: z.string(),
    to: z.string(),
    ms: z.number(),
    /** Which record each end comes from, e.g. `provision.json provisioned_at`, `teardown.json torn_down_at`. */
    from_source: z.string(),
    to_source: z.string(),
  }),
  instance_usd: z.number().nullable(),
  storage_usd: z.number().nullable(),
  iops_usd: z.number().nullable(),
  throughput_usd: z.number().nullable(),
  /** Sum of the parts; null when a part's price is unknown. */
  total_usd: z.number().nullable(),
  /** The arithmetic, one line per part. */
  lines: z.array(z.string()),
  /** Where the prices came from (table and region, or the Price List API), with any fallback noted. */
  price_source: z.string(),
});
export type CellCostRecord = z.infer<typeof CellCostRecord>;

/** Schema id of the run's `cost.json`. */
export const RUN_COST_SCHEMA = 'chbench.run-cost/v1';

/** `cost.json` (per run): every priced cell and their sum. */
export const RunCostRecord = z.object({
  schema: z.literal(RUN_COST_SCHEMA),
  runId: z.string(),
  computed_at: z.string(),
  cells: z.array(z.object({ cell: z.string(), total_usd: z.number().nullable() })),
  /** Sum of the cells' unrounded totals; null when any is unknown. */
  total_usd: z.number().nullable(),
  price_source: z.string(),
});
export type RunCostRecord = z.infer<typeof RunCostRecord>;

// ---------------------------------------------------------------------------------------------
// The cell result: result.json

/** Schema id of a cell result. Bump on incompatible change. */
export const CELL_RESULT_SCHEMA = 'chbench.cell-result/v1';

/** Final status of a cell. */
export const CellStatus = z.enum(['succeeded', 'failed', 'skipped', 'cancelled']);
export type CellStatus = z.infer<typeof CellStatus>;

/** The measurement protocol as recorded with the cell (the spec's `protocol`; other fields kept as written). */
export const ProtocolRecord = z.looseObject({
  coldRuns: z.number(),
  warmRuns: z.number(),
  warmupRuns: z.number().optional(),
  statistic: z.enum(['min', 'median']),
});
export type ProtocolRecord = z.infer<typeof ProtocolRecord>;

/** `result.json`: the cell's step files assembled into one versioned record (written before teardown). */
// ---------------------------------------------------------------------------------------------
// Load grids: grids/insert-<point>.json and grids/concurrency-c<clients>.json (src/schema/grids.ts)

/**
 * The part of `provision.json` the grid steps read: whether the server keeps `system.query_log`.
 * Projected from {@link ProvisionRecord} (one definition), so a step reads only what it uses.
 */
export const ProvisionQueryLog = z.object({ server: ServerRecord.pick({ query_log: true }) });
export type ProvisionQueryLog = z.infer<typeof ProvisionQueryLog>;

/** The worker's CPU over a timed loop or window (`ClientCpu`, src/measure/client-load.ts, where each field is documented). */
const ClientCpuRecord = z.object({
  wallMs: z.number(),
  processCores: z.number(),
  hostBusy: z.number(),
  hostCpus: z.number(),
  clientBound: z.boolean(),
  reason: z.string(),
});

const SettingsSent = z.record(z.string(), z.union([z.string(), z.number()]));

/** One sample of the server during a point's timed loop (and the async flush wait). */
export const InsertSample = z.object({
  /** ms since the timed loop started. */
  t_ms: z.number(),
  /** Active parts of the point's table (`system.parts`, `active`). */
  active_parts: z.number(),
  /** Merges running on the point's table (`system.merges`). */
  merges: z.number(),
  /**
   * Server memory, bytes (`system.metrics` `MemoryTracking`): the server's total tracked memory on newer
   * versions; on 18.16 only the memory of the queries executing (its own description says so); null when
   * the server has no such metric.
   */
  memory_bytes: z.number().nullable(),
});
export type InsertSample = z.infer<typeof InsertSample>;

/**
 * `grids/insert-<key>.json`: one point of the insert grid, written by `insertPoint`
 * (src/activities/insert-grid.ts; the method is src/measure/insert-point.ts). Fields added after the
 * first grids runs are optional ("absent in older records").
 */
export const InsertPointRecord = z.object({
  /** What `insertPoint` returned to the workflow. */
  summary: InsertPointSummary,
  /** The scheduled activity that measured the point (a later attempt of the same one keeps this record); null outside Temporal. Absent in older records. */
  activity: z.object({ workflowId: z.string(), runId: z.string(), activityId: z.string() }).nullable().optional(),
  point: InsertPoint,
  /** Attempt of the activity that measured the point (1 = first). */
  attempt: z.number(),
  /** The point's own table (`<workload table>_ins_<key>`). */
  table: z.string(),
  /** `SELECT version()` of the server (the capability probe's). */
  server_version: z.string(),
  /** Rows generated for the point before the timed loop (`prepareBatches`, the grid's `rows`). */
  rows_planned: z.number(),
  /** The grid's `data`: distinct rows per batch, or one batch repeated. */
  data: z.enum(['distinct', 'repeat']),
  /** Query settings sent with every INSERT, MergeTree settings of the table, and its DDL. */
  settings_sent: z.object({ query: SettingsSent, table: SettingsSent, ddl: z.string() }),
  /** Profile settings this version lacks that the spec marks optional: name → why (`settings.optional`). */
  settings_not_applied: z.record(z.string(), z.string()),
  /** Generating the bodies before the timed loop: ms, batches, body bytes (`prepareBatches`, src/measure/insert-load.ts). */
  generation: z.object({ ms: z.number(), batches: z.number(), bytes: z.number(), source: z.string() }),
  /** The timed loop (`runInsertLoop`): requests, errors by code with a sample message each, rows and body bytes. */
  loop: z.object({
    concurrency: z.number(),
    connections: z.number(),
    wall_ms: z.number(),
    stopped_by: z.enum(['rows', 'duration', 'cancelled']),
    inserts: z.number(),
    errors: z.number(),
    errors_by_code: z.record(z.string(), z.number()),
    error_samples: z.record(z.string(), z.string()),
    rows_acked: z.number(),
    bytes_sent: z.number(),
    bytes_acked: z.number(),
    /** inserts / (inserts + errors); null when nothing was sent. */
    success_rate: z.number().nullable(),
    /** query_id of each INSERT: `<prefix>-<batch index>`. */
    query_id_prefix: z.string(),
  }),
  /** rows/s and MB/s over `window_ms` (the loop's wall time, or until the rows were visible for async inserts). */
  rates: z.object({ rows_per_s: z.number(), mb_per_s: z.number(), window_ms: z.number(), source: z.string() }),
  /** Client wall latency per successful INSERT; server-side latency from `system.query_log` where the server keeps it. */
  latency_ms: z.object({
    client_wall: LatencySummary,
    client_wall_source: z.string(),
    server: LatencySummary.nullable(),
    server_source: z.string(),
  }),
  /** Client wall time of every successful INSERT, ms, in completion order. */
  latencies_ms: z.array(z.number()),
  /** Parts created per successful INSERT (`system.part_log` where the server keeps it, else Δ `MergeTreeDataWriterBlocks`); peaks from the sampler (`system.parts`, `system.merges`, `system.metrics` MemoryTracking). */
  parts: z.object({
    created: z.number(),
    created_source: z.string(),
    per_insert: z.number().nullable(),
    peak_active: z.number().nullable(),
    peak_merges: z.number().nullable(),
    peak_memory_bytes: z.number().nullable(),
    source: z.string(),
  }),
  /** The sampler's series. */
  samples: z.array(InsertSample),
  /** Δ `system.events` over the point (DelayedInserts, RejectedInserts, DuplicatedInsertedBlocks, …). */
  events: z.object({ deltas: z.record(z.string(), z.number().nullable()), source: z.string(), note: z.string() }),
  /** Delayed / rejected / retried INSERTs (`insertPointFlags`, src/measure/validity.ts). Absent in older records. */
  throttling: z
    .object({
      delayed_inserts: z.number().nullable(),
      delayed_ms: z.number().nullable(),
      rejected_inserts: z.number(),
      marks: z.array(z.string()),
      reasons: z.array(z.string()),
      source: z.string(),
    })
    .optional(),
  /** `async_insert=1`: what the server did with it, in words (`note`); only `requested` without it. */
  async_insert: z.object({
    requested: z.boolean(),
    /** `SYSTEM FLUSH ASYNC INSERT QUEUE` (a version without it answers an error). */
    flush: CommandOutcome.optional(),
    /** Time spent waiting for the rows to be visible in `count()`, ms. */
    waited_ms: z.number().optional(),
    /** From the first request until the rows were visible (or stopped changing), ms: the rates' window. */
    visible_after_ms: z.number().optional(),
    /** Δ `AsyncInsertQuery` over the loop: > 0 means the server queued inserts asynchronously. */
    async_insert_query_delta: z.number().optional(),
    effective: z.enum(['asynchronous', 'synchronous']).optional(),
    note: z.string().optional(),
    /** `system.asynchronous_insert_log` of the table by status, or why it was not read. */
    asynchronous_insert_log: z
      .union([
        z.string(),
        z.array(
          z.object({
            status: z.string(),
            flushes: z.union([z.string(), z.number()]),
            rows: z.union([z.string(), z.number()]),
          }),
        ),
      ])
      .optional(),
  }),
  /** `count()` of the point's table against the rows acknowledged minus known duplicates. */
  verification: z.object({
    verified: z.boolean(),
    count: z.number().nullable(),
    expected: z.number(),
    rows_acked: z.number(),
    duplicate_rows_known: z.number(),
    table_deduplicates: z.boolean(),
    duplicated_inserted_blocks: z.number(),
    reasons: z.array(z.string()),
    source: z.string(),
  }),
  /** The worker's CPU over the timed loop. */
  cpu: ClientCpuRecord,
  /** ISO time the record was written. */
  finished_at: z.string(),
});
export type InsertPointRecord = z.infer<typeof InsertPointRecord>;

/** One counted request of a concurrency step: the closed-loop engine's sample (`RequestSample`, src/measure/closed-loop.ts) plus its server-side duration. */
export const ConcurrencySample = z.object({
  queryId: z.string(),
  /** Workload query id of the mix entry. */
  query: z.string(),
  /** Client number, 1-based. */
  client: z.number(),
  /** Start, ms after the window opened. */
  startMs: z.number(),
  /** Client wall latency: request written → last body byte read (or the failure), ms. */
  wallMs: z.number(),
  ok: z.boolean(),
  /** Finished after the window closed (counted in requests and latency, not in QPS). */
  afterWindow: z.boolean(),
  /** On failure: the ClickHouse error code, `http:<status>`, or `client:<name>` for a socket error. */
  code: z.string().optional(),
  /** On failure: the first line of the error (≤ 300 characters). */
  message: z.string().optional(),
  /** Server-side duration from `system.query_log` (`QueryFinish` row of its query_id), ms; null when not logged or failed. */
  serverMs: z.number().nullable(),
});
export type ConcurrencySample = z.infer<typeof ConcurrencySample>;

/** Figures of one query of the mix in a step. */
export const ConcurrencyQueryFigures = z.object({
  requests: z.number(),
  ok: z.number(),
  errors: z.number(),
  /** Client wall latency of its successful requests, ms. */
  wallLatencyMs: LatencySummary,
  /** Server-side latency (query_log) of its successful requests, ms; null without query_log. */
  serverLatencyMs: LatencySummary.nullable(),
});
export type ConcurrencyQueryFigures = z.infer<typeof ConcurrencyQueryFigures>;

/** Where a request's server-side duration came from (`serverDurations`, src/clickhouse/query-log.ts). */
export const ServerDurationSource = z.enum([
  'system.query_log.query_duration_ms',
  'system.query_log event_time_microseconds - query_start_time_microseconds',
]);
export type ServerDurationSource = z.infer<typeof ServerDurationSource>;

/**
 * `grids/concurrency-c<clients>.json`: one step of concurrency stepping, written by `concurrencyStep`
 * (src/activities/concurrency-steps.ts; the method is src/measure/concurrency-step.ts).
 */
export const ConcurrencyStepRecord = z.object({
  step: ConcurrencyStepInput,
  attempt: z.number(),
  /** query_id prefix of the step's requests (each: `<prefix>-<query>-k<client>r<n>-a<attempt>`). */
  query_id_prefix: z.string(),
  /** Settings sent with every request: the cell's run settings (`settings.json` `runs`), as the measured runs. */
  settings: SettingsSent,
  /** Statements of an earlier attempt of this step found running at the start, and what was done (`settlePreviousAttempts`). */
  previous_attempts: z.object({
    found: z.array(z.string()),
    action: z.enum(['none', 'killed', 'waited']),
    waited_ms: z.number(),
  }),
  /** Other chbench servers alive on this host at the start and the end (they compete for the CPU). */
  other_chbench_servers: z.object({ at_start: z.array(z.string()), at_end: z.array(z.string()) }),
  /** How QPS, the window and latency are defined (src/measure/closed-loop.ts). */
  definitions: z.object({ qps: z.string(), window: z.string(), latency: z.string(), server_latency: z.string() }),
  /**
   * The measured window: its two instants on the worker's clock, its measured length `ms` (the QPS
   * denominator), the successful completions inside it (`completed`, the QPS numerator; `carried_in`
   * of them started in the warm-up), and `flag` when it was shorter than 3 median latencies. `ms`,
   * `nominal_ms`, `completed`, `carried_in` and `flag` are absent in older records.
   */
  window: z.object({
    start_at: z.string(),
    end_at: z.string(),
    ms: z.number().optional(),
    nominal_ms: z.number().optional(),
    completed: z.number().optional(),
    carried_in: z.number().optional(),
    flag: z.string().nullable().optional(),
    warmup_requests: z.number(),
    drain_ms: z.number(),
  }),
  /** The figures returned to the workflow. */
  summary: ConcurrencyStepSummary.omit({ attempt: true }),
  /** Whether `system.query_log` gave the server latency, which column (`query_duration_ms` counts whole ms), and how many successful requests had no row. */
  query_log: z.object({
    used: z.boolean(),
    source: ServerDurationSource.nullable(),
    missing: z.number(),
    error: z.string().optional(),
  }),
  /** Per query of the mix. */
  queries: z.record(z.string(), ConcurrencyQueryFigures),
  /** Errors by code, with one sample message each. */
  errors_by_code: z.record(z.string(), z.object({ count: z.number(), sample: z.string() })),
  /** The worker's CPU over the measured window (null when the step measured nothing). */
  cpu: ClientCpuRecord.nullable(),
  /** Every counted request, in start order. */
  samples: z.array(ConcurrencySample),
});
export type ConcurrencyStepRecord = z.infer<typeof ConcurrencyStepRecord>;

/**
 * One attempt of a cell step's activity, as the activity itself saw it (`attempts.jsonl` in the cell
 * folder, written by `src/activities/support/attempt-log.ts`; collected into `result.json` by
 * writeCellResult). Times are the worker's clock.
 */
export const AttemptRecord = z.object({
  /** The cell phase (`provision`, `create-schema`, `load`, `queries-baseline`, … as in `CELL_STEPS`). */
  phase: z.string(),
  /** The activity (`provision`, `createSchema`, `runQueries`, …). */
  activity: z.string(),
  /** Temporal's attempt number of the activity (`Context.info.attempt`, 1 = first). */
  attempt: z.number(),
  /** ISO time the attempt started and ended on the worker. */
  started_at: z.string(),
  ended_at: z.string(),
  /** `ended_at − started_at`, ms (worker wall clock). */
  duration_ms: z.number(),
  outcome: z.enum(['succeeded', 'failed', 'cancelled']),
  /** The failure's type (`VersionMismatch`, `ClickHouse.SYNTAX_ERROR`, `Error`, …) when it failed. */
  failure_type: z.string().optional(),
  /** The failure's message (first 2,000 characters) when it failed. */
  error: z.string().optional(),
  /**
   * Whether Temporal may retry after this failure: false when the failure is non-retryable or its
   * type is in the cell steps' `nonRetryableErrorTypes` (`NON_RETRYABLE`); a retryable failure
   * of the last allowed attempt is not retried either (`attempts` says how many ran).
   */
  retryable: z.boolean().optional(),
  /** The Temporal workflow run (execution) the attempt belongs to; a cell run again starts a new log. */
  workflow_run_id: z.string().optional(),
  /**
   * Statements killed because the attempt was cancelled (`killOnCancel`): the kill verb's line,
   * `waited_ms` from sending the KILL until the target no longer listed the statement (worker
   * monotonic clock), `still_running` true when it was still listed at the 10 s bound (null: the
   * running statements could not be read, `unreadable` says why).
   */
  cancel_kills: z
    .array(
      z.object({
        query_id: z.string(),
        kill: z.string(),
        waited_ms: z.number(),
        still_running: z.boolean().nullable(),
        unreadable: z.string().optional(),
      }),
    )
    .optional(),
});
export type AttemptRecord = z.infer<typeof AttemptRecord>;

export const CellResult = z.object({
  /** {@link CELL_RESULT_SCHEMA}. */
  schema: z.literal(CELL_RESULT_SCHEMA),
  runId: z.string(),
  cellKey: z.string(),
  /** The matrix coordinates: version label (e.g. `26.7`) and codec (e.g. `ZSTD(3)`). */
  matrix: z.object({ version: z.string(), codec: z.string() }),
  workload: z.string(),
  /** Rows generated (spec scale). */
  scale: z.number(),
  protocol: ProtocolRecord,
  target_kind: z.string(),
  /**
   * sha256 of the cell's measured inputs (`cellSpecHash` of src/results/cell-spec.ts: version, codec,
   * scale, settings, protocol, target, …), for reusing the cell in a later bisect. Absent in results
   * written before it was recorded (such a cell is never reused).
   */
  cell_spec_sha256: z.string().optional(),
  status: CellStatus,
  error: z.string().optional(),
  skip_reason: z.string().optional(),
  /** Attempts each step took (1 = first try); > 1 means the figures of that step come from a retry. */
  attempts: z.record(z.string(), z.number()),
  /**
   * Every attempt of every step by phase, in the order they ran, with each failed attempt's error and
   * its times (absent in results written before attempts were logged).
   */
  attempt_log: z.record(z.string(), z.array(AttemptRecord)).optional(),
  /** Times the server was lost and provisioned again, with the step it happened in. */
  target_restarts: z.array(z.object({ step: z.string(), error: z.string() })),
  /** ISO time the record was written. */
  written_at: z.string(),
  /** ISO time the cell's workflow started (its first step), when known. */
  started_at: z.string().optional(),
  /**
   * The host that ran the cell's steps (the last provisioning's; a target bound to the worker's host
   * only). Absent for targets not bound to a host and in results written before hosts were recorded.
   */
  host: HostFacts.optional(),
  /** Hosts lost during the cell (their worker stopped taking its steps); the cell was provisioned again on another. */
  host_losses: z.array(HostLoss).optional(),
  /** What else the host ran at the cell's start and end snapshots (`collect-metrics`). */
  host_activity: z.object({ start: HostActivity.optional(), end: HostActivity.optional() }).optional(),
  provision: ProvisionRecord.nullable(),
  schema_ddl: SchemaRecord.nullable(),
  load: LoadRecord.nullable(),
  /** `quiesce-<label>.json` by label (e.g. `after-load`, `after-index`). */
  quiesce: z.record(z.string(), QuiesceRecord),
  storage: StorageRecord.nullable(),
  /** `settings.json`: what the cell sent and what it left out on this version (absent in older results). */
  settings: CellSettings.optional(),
  queries_baseline: QueriesRecord.nullable(),
  index: IndexRecord.nullable(),
  queries_index: QueriesRecord.nullable(),
  /** `after-load.json` (absent when the workload has no after-load statements, and in older results). */
  after_load: AfterLoadRecord.optional(),
  /** Counters end − start; null when a snapshot is missing or the server restarted (`metrics_delta_unavailable` says so). */
  metrics_delta: MetricsDelta.nullable(),
  metrics_delta_unavailable: z.string().optional(),
  /**
   * The step the cell was in when it failed or was cancelled (a `CellPhase` of `CELL_STEPS`, e.g.
   * `materialize-index`), from the cell workflow's progress. Absent for a cell that finished, and in
   * results written before it was recorded.
   */
  stopped_in: z.string().optional(),
  /**
   * Whether the cell was to build the workload's skip index (`CellInput.skipIndex`: the spec's
   * `skipIndex` and a selected query that uses the index). Absent in older results.
   */
  skip_index_planned: z.boolean().optional(),
  /** The cell workflow's id (Temporal), from the activity context of `writeCellResult`. Absent in older results. */
  workflow_id: z.string().optional(),
  /** Disk and filesystem of the server's data directory (`metrics-start.json` `data_disk`); absent where not known. */
  data_disk: DataDisk.optional(),
  /** Load grids (only with `grids` in the spec): the records in `grids/`, points and steps in the order they ran. */
  grids: z
    .object({ insert: z.array(InsertPointRecord), concurrency: z.array(ConcurrencyStepRecord) })
    .optional(),
});
export type CellResult = z.infer<typeof CellResult>;

// ---------------------------------------------------------------------------------------------
// The run: run.json

/** chbench's package version and, in a git checkout, the commit. */
export const ChbenchVersion = z.object({ version: z.string(), commit: z.string().nullable() });
export type ChbenchVersion = z.infer<typeof ChbenchVersion>;

/** A workload's files as a run read them (`src/lib/workload-hash.ts`). */
export const WorkloadFingerprint = z.object({
  /** The workload's name (`sql/workloads/<name>/`). */
  name: z.string(),
  /** SHA-256 (hex) over the lines `<file> <sha256>` of `files`, sorted by file. */
  sha256: z.string(),
  /** SHA-256 (hex) of each file's bytes by path in the workload folder: manifest, schema, load, queries, index. */
  files: z.record(z.string(), z.string()),
});
export type WorkloadFingerprint = z.infer<typeof WorkloadFingerprint>;

/** Schema id of `run.json`. */
export const RUN_RECORD_SCHEMA = 'chbench.run/v1';

/**
 * `run.json`: the run spec and run metadata, written by `validateSpec`, completed by `writeReport`.
 */
export const RunRecord = z.object({
  schema: z.literal(RUN_RECORD_SCHEMA),
  /** The run id: the folder's name, the cells' child workflow id prefix (`src/schema/run-id.ts`). */
  runId: z.string(),
  /**
   * The Temporal workflow id of the run's matrix: the run id, or for a scheduled run the id Temporal
   * gave it (`<scheduleId>-<RFC 3339 time>`, with `:`). `chbench resume` starts this id again.
   * Absent in records written before it was recorded (then it is `runId`).
   */
  workflowId: z.string().optional(),
  /** Which chbench produced these results (validity rules change between versions). */
  chbench: ChbenchVersion,
  /**
   * The workload's files when the run first started; a resume with other files is refused. Absent in
   * records written before it was recorded.
   */
  workload_files: WorkloadFingerprint.optional(),
  /** The chbench of each start (the first, then each resume), with its ISO time; absent in older records. */
  starts: z.array(z.object({ at: z.string(), chbench: ChbenchVersion })).optional(),
  /** ISO time of the first start. */
  startedAt: z.string(),
  /** The run spec as parsed when the run started (defaults filled in). */
  spec: RunSpec,
  /** Cell keys in matrix order. */
  cells: z.array(z.string()),
  /** Each start of the matrix workflow after the first (resume or continue-as-new), ISO times. */
  resumes: z.array(z.string()),
  /** Set by `writeReport`: ISO time and the matrix's status. */
  finishedAt: z.string().optional(),
  status: z.string().optional(),
  /** The Temporal schedule that started the run (`ChbenchSchedule`); absent for a run started by hand. */
  scheduleId: z.string().optional(),
  /**
   * A scheduled run's due time (ISO): Temporal search attribute `TemporalScheduledStartTime` on the
   * run's first start. Absent for a run started by hand and in records written before it was recorded.
   */
  scheduled_start: z.string().optional(),
  /**
   * `startedAt` − `scheduled_start`, ms (`startedAt`: the matrix workflow's clock at its first
   * workflow task, i.e. when a worker first picked the run up). Present with `scheduled_start`.
   */
  start_lateness_ms: z.number().optional(),
  /** True when `start_lateness_ms` > {@link LATE_START_THRESHOLD_MS} (or `CHBENCH_LATE_START_MS`). */
  late: z.boolean().optional(),
});
export type RunRecord = z.infer<typeof RunRecord>;

/**
 * A scheduled run that started more than this many ms after its due time is flagged `late` in
 * run.json and the report (60 s: a schedule's jitter is its own, a worker down across the due time is not).
 * Overridden by the worker's environment variable `CHBENCH_LATE_START_MS` (ms).
 */
export const LATE_START_THRESHOLD_MS = 60_000;

/** The late-start threshold in ms: `CHBENCH_LATE_START_MS` when a number ≥ 0, else {@link LATE_START_THRESHOLD_MS}. */
export function lateStartThresholdMs(env: NodeJS.ProcessEnv = process.env): number {
  const v = Number(env.CHBENCH_LATE_START_MS);
  return env.CHBENCH_LATE_START_MS !== undefined && env.CHBENCH_LATE_START_MS !== '' && Number.isFinite(v) && v >= 0
    ? v
    : LATE_START_THRESHOLD_MS;
}

/**
 * run.json's start fields of a scheduled run: its due time, how late it started (ms, `startedAt` −
 * due) and whether that is over `thresholdMs`. Empty when there is no due time (a run started by hand).
 */
export function startLateness(
  startedAt: string,
  scheduledStart: string | undefined,
  thresholdMs: number,
): Pick<RunRecord, 'scheduled_start' | 'start_lateness_ms' | 'late'> {
  if (!scheduledStart) return {};
  const ms = Date.parse(startedAt) - Date.parse(scheduledStart);
  if (!Number.isFinite(ms)) return { scheduled_start: scheduledStart };
  return { scheduled_start: scheduledStart, start_lateness_ms: ms, late: ms > thresholdMs };
}

// ---------------------------------------------------------------------------------------------
// Flat samples: samples.jsonl

/** Kinds of flat sample: a measured query run, the load, the table's storage. */
export const SampleKind = z.enum(['cold', 'warm', 'warmup', 'load', 'storage']);

/**
 * Metadata of a {@link FlatSample}: where it comes from. Every key is present in every sample
 * (`null` where it does not apply, e.g. `query` for a load sample), so the lines load into one table.
 */
export const FlatSampleMetadata = z.object({
  /** chbench run id. */
  run: z.string(),
  /** Cell key, e.g. `v26.7-lz4`. */
  cell: z.string(),
  /** The matrix's version label (e.g. `26.7`). */
  version_label: z.string(),
  /** The server's `SELECT version()`; null when the cell never reached it. */
  version: z.string().nullable(),
  codec: z.string(),
  /** Target kind (`embedded`, `local`, `external`, …). */
  target: z.string(),
  workload: z.string(),
  /** Rows in the table (spec scale). */
  scale: z.number(),
  /** Workload query id (`q1`…); null for load/storage samples. */
  query: z.string().nullable(),
  /** `baseline` or `index` for query runs; null otherwise. */
  phase: QueryPhase.nullable(),
  /** `cold`, `warm`, `warmup` (a query run), `load` or `storage`. */
  kind: SampleKind,
  /** 1-based run number within its kind (query runs); null otherwise. */
  try: z.number().nullable(),
  /** The statement's query_id (query runs, load); null for storage. */
  query_id: z.string().nullable(),
  /** Cold runs: was it cold (`RunValidity.valid`); null = unknown or not a cold run. */
  cold_valid: z.boolean().nullable(),
  /** Query runs: was the table quiet during the run; null = unknown or not a query run. */
  quiet_valid: z.boolean().nullable(),
  /** Where the value comes from: a system table column, the HTTP summary, or client wall time. */
  source: z.string(),
  /**
   * `elapsed` and `server_elapsed` lines: the smallest step of the run's server-time source, ms
   * (1 for `query_duration_ms`; null when the server gave no time). Absent on other lines and in older files.
   */
  server_resolution_ms: z.number().nullable().optional(),
  /** chbench package version and git commit that measured it (from `run.json`). */
  chbench_version: z.string().nullable(),
  chbench_commit: z.string().nullable(),
});
export type FlatSampleMetadata = z.infer<typeof FlatSampleMetadata>;

/**
 * One line of `samples.jsonl`: one figure of one measured run (PerfKit Benchmarker's `Sample`).
 * A figure the server did not give is not written (no line), never 0 or null.
 */
export const FlatSample = z.object({
  /** e.g. `server_elapsed`, `wall_time`, `read_rows`, `load_rows_per_s`, `bytes_on_disk`. */
  metric: z.string(),
  value: z.number(),
  /** `ms`, `rows`, `bytes`, `rows/s`, `ratio`. */
  unit: z.string(),
  /**
   * Unix time, seconds (fractional): when the cell result holding the figure was written
   * (`result.json.written_at`). The runs themselves carry no wall-clock time in the record; the
   * query_log row (`event_time_microseconds`) in `queries-<phase>.json` has it where the server keeps one.
   */
  timestamp: z.number(),
  metadata: FlatSampleMetadata,
});
export type FlatSample = z.infer<typeof FlatSample>;

// ---------------------------------------------------------------------------------------------
// Record ids

/**
 * The id each record schema is named by in read errors: the record's own `schema` field value where
 * it carries one (result.json, run.json), else `chbench.<file>`.
 */
export const RECORD_IDS: ReadonlyMap<z.ZodType, string> = new Map<z.ZodType, string>([
  [CellResult, CELL_RESULT_SCHEMA],
  [RunRecord, RUN_RECORD_SCHEMA],
  [CapabilityProbe, 'chbench.probe'],
  [CellSettings, 'chbench.settings'],
  [ProvisionRecord, 'chbench.provision'],
  [SchemaRecord, 'chbench.schema-ddl'],
  [MetricsSnapshot, 'chbench.metrics'],
  [LoadRecord, 'chbench.load'],
  [QuiesceRecord, 'chbench.quiesce'],
  [StorageRecord, 'chbench.storage'],
  [QueriesRecord, 'chbench.queries'],
  [IndexRecord, 'chbench.index'],
  [TeardownRecord, 'chbench.teardown'],
  [FlatSample, 'chbench.sample'],
  [CloudMetricsRecord, CLOUD_METRICS_SCHEMA],
  [CellCostRecord, CELL_COST_SCHEMA],
  [RunCostRecord, RUN_COST_SCHEMA],
]);

// ---------------------------------------------------------------------------------------------
// Defaults of one server: defaults.json (written at provisioning, read by the versions section)

/** One entry of `system.settings_changes`: a default that changed in `version`. */
export const SettingsChange = z.object({
  /** `Session` (query settings) or `MergeTree`; versions before 24.x have no type column: `Session`. */
  type: z.enum(['Session', 'MergeTree']),
  /** The version the default changed in, e.g. `25.8`. */
  version: z.string(),
  name: z.string(),
  previous_value: z.string(),
  new_value: z.string(),
  reason: z.string(),
});
export type SettingsChange = z.infer<typeof SettingsChange>;

/**
 * `defaults.json`: the server's own defaults, read at provisioning. Every map is name → value as the
 * server prints it. Null = the server has no such table (18.16 has no `default` column and no
 * `system.settings_changes`).
 */
export const ServerDefaults = z.object({
  /** `SELECT version()`. */
  version: z.string(),
  /** Query settings' defaults: `system.settings.default` (else `value` where `changed = 0`). */
  settings: z.record(z.string(), z.string()).nullable(),
  /** Where `settings` came from: `system.settings.default` or `system.settings.value (changed = 0)`. */
  settings_source: z.string(),
  /** Query settings this server (or the engine's embedding, e.g. chdb) runs with a non-default value: name → value. */
  settings_changed: z.record(z.string(), z.string()).nullable(),
  /** MergeTree settings' defaults: `system.merge_tree_settings.default` (else `value` where `changed = 0`). */
  merge_tree_settings: z.record(z.string(), z.string()).nullable(),
  /** `system.settings_changes` as the server lists it; null where the table does not exist. */
  settings_changes: z.array(SettingsChange).nullable(),
});
export type ServerDefaults = z.infer<typeof ServerDefaults>;
