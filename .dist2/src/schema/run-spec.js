"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.EMBEDDED_VERSION = exports.SpecError = exports.RunSpec = exports.BaselineSpec = exports.ResultsDbSpec = exports.CloudSpec = exports.DEFAULT_CLOUD_SETTLE_MS = exports.PriceOverrideSpec = exports.ProtocolSpec = exports.TargetSpec = exports.KubernetesTargetSpec = exports.CodecEntry = exports.CodecProfileSpec = exports.CodecExpression = exports.CODECS = void 0;
exports.codecProfileOf = codecProfileOf;
exports.codecKey = codecKey;
exports.parseRunSpec = parseRunSpec;
exports.runSpecJsonSchema = runSpecJsonSchema;
/**
 * The run spec: one document (YAML or JSON) that describes a benchmark run.
 *
 * The same JSON is the input of the `benchmarkMatrix` workflow, so a run can be started with
 * `temporal workflow start --type benchmarkMatrix --task-queue chbench --input-file run.json`.
 * This module is pure (no I/O) so the workflow bundle can import it.
 */
const zod_1 = require("zod");
const version_1 = require("./version");
const grids_1 = require("./grids");
const spec_issues_1 = require("./spec-issues");
/**
 * Codec names of chbench before codec profiles (0.6.0 and older). Still accepted as they were — a plain
 * string is now any codec expression the server accepts — and kept for the examples and tests.
 * `LZ4` means the server default (no CODEC clause).
 */
exports.CODECS = ['LZ4', 'LZ4HC', 'ZSTD(1)', 'ZSTD(3)', 'ZSTD(6)', 'ZSTD(9)', 'NONE'];
/**
 * A codec expression: codec names (letters, digits, `_`) with optional numeric arguments, separated by
 * commas. The syntax only: whether the server knows the codec is the target's trial's business.
 */
exports.CodecExpression = zod_1.z
    .string()
    .trim()
    .regex(/^[A-Za-z][A-Za-z0-9_]*(\(\s*-?\d+(\s*,\s*-?\d+)*\s*\))?(\s*,\s*[A-Za-z][A-Za-z0-9_]*(\(\s*-?\d+(\s*,\s*-?\d+)*\s*\))?)*$/, 'a codec expression as written inside CODEC(...), such as "ZSTD(3)", "LZ4HC(9)", "T64" or "Delta, ZSTD(1)"');
/** A named codec profile: a default expression for every column plus per-column overrides. */
exports.CodecProfileSpec = zod_1.z.strictObject({
    /** Name of the profile: part of the cell key (`v26.7-<name>`) and the reports' codec column. */
    name: zod_1.z
        .string()
        .regex(/^[a-z0-9][a-z0-9-]{0,40}$/, 'lower-case letters, digits and dashes (part of the cell key), at most 41 characters'),
    /** Codec of every column the profile does not name. `LZ4`: the server default (no CODEC clause). */
    default: exports.CodecExpression.default('LZ4'),
    /** Column name → codec expression, over `default`. Each column must exist in the workload's schema. */
    columns: zod_1.z.record(zod_1.z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a column name'), exports.CodecExpression).default({}),
});
/** A codec profile as the spec gives it: a plain expression (name and default at once) or a named profile. */
exports.CodecEntry = zod_1.z.union([exports.CodecExpression, exports.CodecProfileSpec]);
/** The profile of a spec entry: a plain string is both name and default, with no overrides. Pure. */
function codecProfileOf(e) {
    return typeof e === 'string' ? { name: e, default: e, columns: {} } : { name: e.name, default: e.default, columns: e.columns };
}
/**
 * The cell-key segment of a codec profile name: lower case, parentheses dropped, every other run of
 * characters outside `[a-z0-9]` a dash (`ZSTD(3)` → `zstd3`, `Delta, ZSTD(1)` → `delta-zstd1`).
 * Keys of the 0.6.0 codec names are unchanged. Pure.
 */
function codecKey(name) {
    return name
        .toLowerCase()
        .replace(/[()]/g, '')
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-|-$/g, '');
}
const versionLabel = zod_1.z
    .string()
    .regex(/^\d+(\.\d+){0,3}$/, 'a ClickHouse version such as "26.7" or "24.8.14.39"');
const envVarName = zod_1.z.string().regex(/^[A-Z_][A-Z0-9_]*$/, 'an environment variable NAME such as CLICKHOUSE_PASSWORD');
/** A Kubernetes resource quantity (`2500m`, `9Gi`, `100Gi`, `1.5`). */
const quantity = zod_1.z
    .string()
    .regex(/^[0-9]+(\.[0-9]+)?(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$/, 'a Kubernetes quantity such as "2500m", "9Gi" or "100Gi"');
/** A DNS-1123 name (namespace, Secret, StorageClass). */
const dnsName = zod_1.z
    .string()
    .regex(/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/, 'a DNS-1123 name: lower-case letters, digits, "-" and "."');
/**
 * `target.kind: kubernetes`: per cell its own PVC and pod, rendered from `manifests/`. Every default
 * is the seed article's environment (namespace `bench-database`, gp3 StorageClass, 100 Gi, one
 * m5.xlarge, requests 2.5 vCPU / 9 Gi, limits 3.5 vCPU / 12 Gi). The password lives in a Secret,
 * never here. Implemented in `src/targets/kubernetes/`.
 */
exports.KubernetesTargetSpec = zod_1.z
    .strictObject({
    kind: zod_1.z.literal('kubernetes'),
    /** Path of a kubeconfig file on the worker. Default: `KUBECONFIG`, `~/.kube/config`, else in-cluster (client-node `loadFromDefault`). */
    kubeconfig: zod_1.z.string().min(1).optional(),
    /** Context of the kubeconfig. Default: its current-context. */
    context: zod_1.z.string().min(1).optional(),
    /** Namespace of the pods, PVCs and the credentials Secret; created when missing. */
    namespace: zod_1.z
        .string()
        .regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, 'a namespace name: at most 63 lower-case letters, digits and "-"')
        .default('bench-database'),
    /** `podIP`: the worker runs in the cluster and connects to `<podIP>:8123`; `portForward`: through the API server. */
    access: zod_1.z.enum(['podIP', 'portForward']).default('podIP'),
    /** Secret holding the ClickHouse user (`username`) and password (`password`). */
    credentialsSecret: dnsName.default('chbench-clickhouse'),
    /** Create the Secret (user `chbench`, a random password) when it is missing; `false`: a missing Secret is an error. */
    createSecret: zod_1.z.boolean().default(true),
    /** version label → container image. Default for a version not listed: `clickhouse/clickhouse-server:<version>`. */
    images: zod_1.z.record(versionLabel, zod_1.z.string().min(1)).optional(),
    /** StorageClass of the PVCs; `create`: create it from `manifests/storageclass.yaml` when missing. */
    storageClass: zod_1.z
        .strictObject({ name: dnsName.default('bench-clickhouse-gp3'), create: zod_1.z.boolean().default(true) })
        .prefault({}),
    /** PVC size (`resources.requests.storage`). */
    storageSize: quantity.default('100Gi'),
    /** Node selector `node.kubernetes.io/instance-type`. */
    instanceType: zod_1.z.string().min(1).default('m5.xlarge'),
    /** Container resources. */
    resources: zod_1.z
        .strictObject({
        requests: zod_1.z.strictObject({ cpu: quantity.default('2500m'), memory: quantity.default('9Gi') }).prefault({}),
        limits: zod_1.z.strictObject({ cpu: quantity.default('3500m'), memory: quantity.default('12Gi') }).prefault({}),
    })
        .prefault({}),
    /** Extra node selector labels (merged over the instance type). */
    nodeSelector: zod_1.z.record(zod_1.z.string(), zod_1.z.string()).default({}),
    /** Pod tolerations (Kubernetes objects, passed through). */
    tolerations: zod_1.z.array(zod_1.z.record(zod_1.z.string(), zod_1.z.unknown())).default([]),
    /** Pod affinity (Kubernetes object, passed through; a re-provision adds the volume's zone to its node affinity). */
    affinity: zod_1.z.record(zod_1.z.string(), zod_1.z.unknown()).optional(),
    /** Pod annotations, merged over `karpenter.sh/do-not-disrupt: "true"`. */
    annotations: zod_1.z.record(zod_1.z.string(), zod_1.z.string()).default({}),
    /** Waits, ms. */
    timeouts: zod_1.z
        .strictObject({
        /** A pod that stays unschedulable this long fails (`Unschedulable`). */
        scheduleMs: zod_1.z.int().min(100).default(300_000),
        /** A PVC still Pending this long after its pod was scheduled fails (`VolumePending`). */
        pvcMs: zod_1.z.int().min(100).default(300_000),
        /** An image still pulling this long fails (`ImagePull`). */
        pullMs: zod_1.z.int().min(100).default(600_000),
        /** The whole wait for Ready. */
        readyMs: zod_1.z.int().min(100).default(600_000),
        /** A watch with no event and no bookmark for this long is dropped and re-listed. */
        watchSilenceMs: zod_1.z.int().min(100).default(60_000),
    })
        .prefault({}),
})
    .describe('a pod and a PVC per cell in a Kubernetes cluster (the seed article\'s EKS setting)');
/** Where cells get their ClickHouse. */
exports.TargetSpec = zod_1.z.discriminatedUnion('kind', [
    zod_1.z
        .strictObject({
        kind: zod_1.z.literal('embedded'),
    })
        .describe('chdb engine (ClickHouse 26.x) in a separate process per cell, serving the HTTP interface on loopback'),
    zod_1.z
        .strictObject({
        kind: zod_1.z.literal('local'),
        /** version label → path of a ClickHouse server binary (`clickhouse-server` or the multi-call `clickhouse`). */
        binaries: zod_1.z.record(versionLabel, zod_1.z.string().min(1)),
    })
        .describe('a local ClickHouse server binary started per cell with a generated config'),
    zod_1.z
        .strictObject({
        kind: zod_1.z.literal('external'),
        url: zod_1.z.url({ protocol: /^https?$/ }),
        username: zod_1.z.string().default('default'),
        /** Name of the environment variable that holds the password; the password never enters the spec. */
        passwordEnv: envVarName.optional(),
        /** Prefix of the per-cell database chbench creates and drops. */
        databasePrefix: zod_1.z.string().regex(/^[a-z_][a-z0-9_]*$/).default('chbench'),
    })
        .describe('an existing server; each cell gets its own database, dropped at teardown'),
    exports.KubernetesTargetSpec,
]);
/** The measurement protocol. */
exports.ProtocolSpec = zod_1.z.strictObject({
    /** Cold runs per query (caches dropped before each, `min_bytes_to_use_direct_io=1`). */
    coldRuns: zod_1.z.int().min(0).max(10).default(1),
    /** Warm runs per query, after the cold runs, without dropping caches. */
    warmRuns: zod_1.z.int().min(1).max(100).default(3),
    /**
     * Unmeasured runs between the cold and the warm runs (kept in the samples as kind `warmup`, left out
     * of every statistic). A cold run reads with direct I/O, so the first run after it still finds the
     * OS page cache empty: without a warm-up, "warm" run 1 is not warm.
     */
    warmupRuns: zod_1.z.int().min(0).max(10).default(1),
    /** Statistic shown as the headline warm figure. Every sample is kept regardless. */
    statistic: zod_1.z.enum(['min', 'median']).default('min'),
    /**
     * Before each cold run, also drop the OS page cache (`sync` + `echo 1 > /proc/sys/vm/drop_caches`) when the
     * server runs on the worker's host (embedded/local) and the worker may write that file. The outcome is
     * recorded with every cold run; without it "cold" only means "direct I/O requested".
     */
    dropOsPageCache: zod_1.z.boolean().default(true),
    /** `SYSTEM STOP MERGES <table>` while queries are measured (merges restarted before index materialization). */
    stopMergesDuringQueries: zod_1.z.boolean().default(true),
    quiesce: zod_1.z
        .strictObject({
        /** The set of active parts must stay unchanged, with no merge running, for this long (ms). */
        stableForMs: zod_1.z.int().min(0).default(3000),
        /** Give up (cell fails with a clear error) after this long (ms). */
        timeoutMs: zod_1.z.int().min(1000).default(600_000),
        /** Poll interval (ms). */
        pollMs: zod_1.z.int().min(100).default(500),
    })
        .prefault({}),
    /** Per-statement server-side limit (`max_execution_time`, s); the client's request timeout is longer. */
    maxExecutionTimeS: zod_1.z.int().min(1).default(3600),
    /**
     * A statement none of whose counters (rows read/written, memory, mutation parts, merge progress)
     * changed for this long (s) is stuck: chbench kills it where the target can and fails the step with
     * `StatementStuck`. Elapsed time alone is not progress. The default, 600 s, is longer than the phases
     * where a healthy statement moves no counter (the final merge of a large sort or aggregation, one
     * large part's mutation on a slow volume) and well below `maxExecutionTimeS`.
     */
    stuckAfterS: zod_1.z.int().min(1).default(600),
});
/** Prices of one EBS volume type (USD); see `VolumePrice` in `src/cloud/cost.ts`. */
const VolumePriceSpec = zod_1.z.strictObject({
    /** USD per GB-month of provisioned size. */
    gbMonthUsd: zod_1.z.number().nonnegative(),
    /** IOPS included in the storage price (gp3: 3,000). */
    includedIops: zod_1.z.number().nonnegative().optional(),
    /** USD per provisioned IOPS-month above `includedIops`. */
    iopsMonthUsd: zod_1.z.number().nonnegative().optional(),
    /** Throughput included, MiB/s (gp3: 125). */
    includedThroughputMiBs: zod_1.z.number().nonnegative().optional(),
    /** USD per provisioned MiB/s-month above `includedThroughputMiBs`. */
    throughputMonthUsd: zod_1.z.number().nonnegative().optional(),
});
/**
 * What a run spec may say about prices: any subset of the price table; named entries replace the
 * defaults' entries of the same key (the defaults are the article's: `ARTICLE_PRICES` in
 * `src/cloud/cost.ts`, m5.xlarge $0.236/h, gp3 $0.0912/GB-month). Unknown keys are refused.
 */
exports.PriceOverrideSpec = zod_1.z.strictObject({
    /** Region the prices are for (shown beside the cost). */
    region: zod_1.z.string().min(1).optional(),
    /** On-demand USD per instance-hour, by instance type. */
    instanceHourlyUsd: zod_1.z.record(zod_1.z.string(), zod_1.z.number().nonnegative()).optional(),
    /** By EBS volume type (`gp3`, `gp2`, …). */
    volume: zod_1.z.record(zod_1.z.string(), VolumePriceSpec).optional(),
    /** Where the figures come from (shown in the report's Cost section). */
    source: zod_1.z.string().min(1).optional(),
});
/** Default of `cloud.settleMs`: 3 minutes after a window's last minute ends (chbench's choice; AWS publishes no delay). */
exports.DEFAULT_CLOUD_SETTLE_MS = 3 * 60_000;
/**
 * Cloud metrics and cost beside a Kubernetes-on-AWS run: after every cell, the matrix reads each
 * cell's EBS volume and EC2 instance (DescribeVolumes/DescribeInstances) and their CloudWatch metrics
 * per step window (GetMetricData), labels each step disk-/CPU-bound, and prices each cell. AWS
 * credentials and endpoint come from the worker's environment (the SDK's standard chain;
 * `AWS_ENDPOINT_URL` points it at another endpoint), never from the spec.
 */
exports.CloudSpec = zod_1.z.strictObject({
    /** AWS region of the cluster's instances and volumes. */
    region: zod_1.z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'an AWS region such as "us-east-1"').default('us-east-1'),
    /**
     * Wait this long (ms) after the newest step window's last minute before reading it, so
     * CloudWatch's figures are final (the newest minute is aggregated after it ends).
     */
    settleMs: zod_1.z.int().min(0).max(3_600_000).default(exports.DEFAULT_CLOUD_SETTLE_MS),
    /** Price table overrides (defaults: the article's prices). */
    prices: exports.PriceOverrideSpec.optional(),
    /**
     * Ask the AWS Price List API (`GetProducts`, service `AmazonEC2`/`AmazonEBS`) for the instance and
     * gp3 prices of `region`; where it gives none (or fails), the table is used and the cost says so.
     */
    priceList: zod_1.z.boolean().default(false),
    /** Bottleneck label thresholds (`BottleneckThresholds` in `src/cloud/metrics.ts`). */
    thresholds: zod_1.z
        .strictObject({
        /** Disk-bound at this share (0..1) of the lowest throughput/IOPS limit. @default 0.9 */
        diskUtilisation: zod_1.z.number().gt(0).max(1).optional(),
        /** CPU-bound at this mean CPUUtilization, %. @default 80 */
        cpuPct: zod_1.z.number().gt(0).max(100).optional(),
        /** Disk-bound when a burst balance is at or below this, %. @default 10 */
        balancePct: zod_1.z.number().min(0).max(100).optional(),
    })
        .optional(),
});
/**
 * Where the results database is (see `src/results/db/`). Absent: the embedded database in
 * `<resultsDir>/db`, served by the chdb engine chbench ships. A team points every worker at one
 * ClickHouse server; the password comes from the environment variable named here, never the spec.
 */
exports.ResultsDbSpec = zod_1.z.strictObject({
    /** HTTP(S) URL of a ClickHouse server, e.g. `http://clickhouse.internal:8123`. */
    url: zod_1.z.url({ protocol: /^https?$/ }),
    database: zod_1.z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).default('chbench'),
    user: zod_1.z.string().min(1).default('default'),
    /** Name of the environment variable (on every worker and CLI host) holding the password. */
    passwordEnv: zod_1.z.string().regex(/^[A-Z_][A-Z0-9_]*$/).optional(),
});
/** Options shared by every kind of baseline (see `src/schema/comparison.ts` for the method). */
const comparisonOptions = {
    /** Smallest relative change ever flagged (0.1 = 10 %), whatever the learned noise threshold. */
    minChange: zod_1.z.number().min(0).max(10).default(0.1),
    /** A query whose baseline noise threshold is above this is `unstable`, not compared. */
    unstableAbove: zod_1.z.number().min(0).max(10).default(0.3),
    /** Fewer valid warm runs than this on either side: `unstable` (too few samples for the test to have power). */
    minRuns: zod_1.z.int().min(3).max(1000).default(7),
    /** Interleaved A, B rounds per flagged query in the confirming re-run; 0 = no re-run (first-pass flags stand, marked unconfirmed). */
    confirmRounds: zod_1.z.int().min(0).max(200).default(12),
};
/**
 * What a run is compared with after its cells: a run id, the previous successful run of the
 * schedule that started this run, or a version label inside this run's own matrix.
 */
exports.BaselineSpec = zod_1.z.discriminatedUnion('from', [
    zod_1.z.strictObject({ from: zod_1.z.literal('run'), run: zod_1.z.string().min(1), ...comparisonOptions }),
    zod_1.z.strictObject({ from: zod_1.z.literal('previous-scheduled'), ...comparisonOptions }),
    zod_1.z.strictObject({ from: zod_1.z.literal('version'), version: versionLabel, ...comparisonOptions }),
]);
/** A run spec. Unknown keys are refused everywhere. */
exports.RunSpec = zod_1.z.strictObject({
    /** Schema version of this document. */
    specVersion: zod_1.z.literal(1).default(1),
    /** Human name; also the prefix of the run id (`<name>-<timestamp>`). */
    name: zod_1.z.string().regex(/^[a-z0-9][a-z0-9-]{0,40}$/, 'lower-case letters, digits and dashes, at most 41 characters'),
    /** Workload folder under sql/workloads/. */
    workload: zod_1.z.string().regex(/^[a-z0-9-]+$/),
    /** Rows the generator inserts. */
    scale: zod_1.z.int().positive().max(10_000_000_000),
    target: exports.TargetSpec,
    matrix: zod_1.z.strictObject({
        version: zod_1.z.array(versionLabel).min(1, 'at least one version').refine(uniq, 'versions must be unique'),
        /**
         * Codec profiles, one cell each: a codec expression applied to every column (`"ZSTD(3)"`,
         * `"Delta, ZSTD(1)"`; also its name), or `{ name, default, columns: { <column>: <expression> } }`.
         * The workload's schema places each column's codec with `{{codec}}`.
         */
        codec: zod_1.z
            .array(exports.CodecEntry)
            .min(1, 'at least one codec')
            .refine((es) => uniq(es.map((e) => codecKey(codecProfileOf(e).name))), 'codec profiles must have distinct names (compared as cell-key segments: lower case, punctuation as "-")'),
        /** Run every (version, codec) cell this many times, as separate cells `…-r1`, `…-r2`, … (run-to-run variance). */
        repeat: zod_1.z.int().min(1).max(100).default(1),
        /**
         * Named settings profiles: one more axis of the matrix (cells `…-<profile>`). A profile's query
         * settings go with the load and every measured run, its MergeTree settings into the table, over
         * the spec's `settings`; both are checked against each target's probe at their level.
         */
        settings: zod_1.z
            .array(grids_1.SettingsProfile)
            .min(1)
            .refine((ps) => new Set(ps.map((p) => p.name)).size === ps.length, 'profile names must be unique')
            .optional(),
    }),
    /** Query ids to run (default: all queries of the workload). */
    queries: zod_1.z.array(zod_1.z.string().regex(/^[A-Za-z0-9_-]+$/)).min(1).optional(),
    /** Skip-index step: materialize the workload's index and re-run the queries that use it. */
    skipIndex: zod_1.z.boolean().default(true),
    protocol: exports.ProtocolSpec.prefault({}),
    /**
     * Extra settings, checked against each target's capability probe at their level before loading:
     * `query` settings go with the load and every measured run, `mergeTree` settings into the table's
     * SETTINGS clause. Names in `optional` may be missing on a version (recorded as not applied).
     */
    settings: zod_1.z
        .strictObject({
        query: zod_1.z.record(zod_1.z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), zod_1.z.union([zod_1.z.number(), zod_1.z.string()])).default({}),
        mergeTree: zod_1.z.record(zod_1.z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), zod_1.z.union([zod_1.z.number(), zod_1.z.string()])).default({}),
        optional: zod_1.z.array(zod_1.z.string()).default([]),
    })
        .prefault({}),
    /**
     * Cells that run at the same time. Default 1: cells on one host disturb each other's timings. For a
     * target on the worker's host (embedded, local) it counts cells per host, and each host with a
     * chbench worker runs that many; for other targets it counts cells of the whole run.
     */
    concurrency: zod_1.z.int().min(1).max(64).default(1),
    /**
     * Seconds a step of a host-bound cell (embedded, local) may wait on its host's task queue before
     * that host counts as lost (no worker of it polls): the cell is then provisioned again, fresh, on
     * another host. Keep it above the time a busy host's worker needs to pick up a step.
     */
    hostLossTimeoutS: zod_1.z.int().min(5).max(86_400).default(60),
    /** When to tear targets down. */
    teardown: zod_1.z.enum(['always', 'on-success', 'never']).default('always'),
    /**
     * The results store: where every step's record, the cell results and the report go. Relative paths
     * are resolved once, against the working directory of the worker that validates the spec; with
     * workers on several hosts give a directory every host mounts at the same path (NFS, EFS).
     */
    resultsDir: zod_1.z.string().min(1).default('results'),
    /** Cloud metrics and cost per cell (Kubernetes on AWS); absent = not collected. */
    cloud: exports.CloudSpec.optional(),
    /** The results database (default: embedded, in `<resultsDir>/db`). */
    results: exports.ResultsDbSpec.optional(),
    /** Compare this run with a baseline after its cells (absent: no comparison). */
    baseline: exports.BaselineSpec.optional(),
    /** Load grids run in every cell after its query steps: insert throughput and concurrency stepping (src/schema/grids.ts). */
    grids: grids_1.GridsSpec.optional(),
});
function uniq(xs) {
    return new Set(xs).size === xs.length;
}
/** Thrown for a spec that does not validate; `issues` holds one line per problem. */
class SpecError extends Error {
    issues;
    constructor(issues) {
        super(`invalid run spec:\n  - ${issues.join('\n  - ')}`);
        this.issues = issues;
        this.name = 'SpecError';
    }
}
exports.SpecError = SpecError;
/**
 * Parse and validate a run spec (already decoded from YAML/JSON) and apply defaults.
 * @throws SpecError naming each offending field and the allowed values.
 */
function parseRunSpec(input) {
    const r = exports.RunSpec.safeParse(input);
    if (r.success) {
        if (r.data.target.kind === 'local') {
            const missing = r.data.matrix.version.filter((v) => !(v in r.data.target.binaries));
            if (missing.length)
                throw new SpecError(missing.map((v) => `matrix.version: version "${v}" has no way to be provisioned: target.binaries has no entry for it (has: ${Object.keys(r.data.target.binaries).join(', ') || 'none'})`));
        }
        if (r.data.cloud && r.data.target.kind !== 'kubernetes')
            throw new SpecError([
                `cloud: CloudWatch metrics and cost are read for kubernetes cells (their node's EC2 instance and their PV's EBS volume); target.kind is "${r.data.target.kind}", so remove the cloud section`,
            ]);
        const b = r.data.baseline;
        if (b?.from === 'version') {
            if (!r.data.matrix.version.includes(b.version))
                throw new SpecError([
                    `baseline.version: "${b.version}" is not a version of this matrix (matrix.version: ${r.data.matrix.version.join(', ')})`,
                ]);
            if (r.data.matrix.version.length < 2)
                throw new SpecError([
                    `baseline.version: the matrix has only version "${b.version}", so there is nothing to compare it with; add another version or use baseline.from "run" or "previous-scheduled"`,
                ]);
        }
        if (b && r.data.protocol.warmRuns < b.minRuns)
            throw new SpecError([
                `protocol.warmRuns: ${r.data.protocol.warmRuns} warm runs per query cannot give the comparison the ${b.minRuns} valid warm runs per side it needs (baseline.minRuns); use at least ${b.minRuns}, better 15`,
            ]);
        const ins = r.data.grids?.insert;
        if (ins?.maxConnections !== undefined) {
            const over = ins.concurrency.filter((c) => c > ins.maxConnections);
            if (over.length)
                throw new SpecError([
                    `grids.insert.maxConnections: ${ins.maxConnections} connections cannot serve ${over.join(', ')} concurrent clients: clients would wait for a connection and the point would measure the pool, not the server; raise maxConnections to at least ${Math.max(...over)} or remove it (default: one connection per client)`,
                ]);
        }
        if (ins) {
            const tooBig = ins.batchSizes.filter((b) => b > ins.rows);
            if (tooBig.length)
                throw new SpecError([
                    `grids.insert.batchSizes: ${tooBig.join(', ')} ${tooBig.length > 1 ? 'are' : 'is'} more than the ${ins.rows} rows a point inserts (grids.insert.rows): such a batch is never sent at its size; raise rows or drop the batch size`,
                ]);
            const idle = ins.batchSizes.flatMap((b) => ins.concurrency.filter((c) => Math.ceil(ins.rows / b) < c).map((c) => ({ b, c })));
            if (idle.length)
                throw new SpecError([
                    `grids.insert.rows: ${ins.rows} rows make fewer batches than clients at ${idle.map((x) => `batch ${x.b} × ${x.c} clients`).join(', ')}: some clients would never send anything and the point would not measure its concurrency; raise rows to at least ${Math.max(...idle.map((x) => x.b * x.c))} or drop those points`,
                ]);
        }
        const mix = r.data.grids?.concurrency?.mix;
        if (mix && r.data.queries) {
            const missing = mix.filter((e) => !r.data.queries.includes(e.id)).map((e) => e.id);
            if (missing.length)
                throw new SpecError([
                    `grids.concurrency.mix: query id(s) ${missing.join(', ')} are not among the run's queries (queries: ${r.data.queries.join(', ')})`,
                ]);
        }
        if (r.data.target.kind === 'embedded') {
            const bad = r.data.matrix.version.filter((v) => !(0, version_1.versionMatchesLabel)(exports.EMBEDDED_VERSION, v));
            if (bad.length)
                throw new SpecError(bad.map((v) => `matrix.version: version "${v}" cannot be provisioned by the embedded target, which always runs ClickHouse ${exports.EMBEDDED_VERSION} (use "${exports.EMBEDDED_VERSION.split('.').slice(0, 2).join('.')}", or a local/external target for other versions)`));
        }
        return r.data;
    }
    throw new SpecError(r.error.issues.map((i) => (0, spec_issues_1.formatSpecIssue)(i, exports.RunSpec, input)));
}
/** ClickHouse version of the engine shipped in the pinned `chdb` npm package. */
exports.EMBEDDED_VERSION = '26.7.2.1';
/** The run spec as a JSON Schema (draft 2020-12), describing what a user writes (input side, defaults shown). */
function runSpecJsonSchema() {
    return {
        title: 'chbench run spec',
        ...zod_1.z.toJSONSchema(exports.RunSpec, { io: 'input', unrepresentable: 'any' }),
    };
}
//# sourceMappingURL=run-spec.js.map