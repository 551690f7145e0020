/**
 * The run spec: one document (YAML or JSON) that describes a benchmark run.
 *
 * The same JSON is the input of the `benchmarkMatrix` workflow, so a run can be started with
 * `temporal workflow start --type benchmarkMatrix --task-queue chbench --input-file run.json`.
 * This module is pure (no I/O) so the workflow bundle can import it.
 */
import { z } from 'zod';
import { VerdictSpec } from './verdicts';
import { GridsSpec, SettingsProfile } from './grids';
import { formatSpecIssue } from './spec-issues';
import { ResourcesSpec } from './resources';

/**
 * Codec names of chbench before codec profiles (0.6.0 and older). Still accepted as they were — a plain
 * string is now any codec expression the server accepts — and kept for the examples and tests.
 * `LZ4` means the server default (no CODEC clause).
 */
export const CODECS = ['LZ4', 'LZ4HC', 'ZSTD(1)', 'ZSTD(3)', 'ZSTD(6)', 'ZSTD(9)', 'NONE'] as const;
/**
 * A codec expression as written inside `CODEC(...)`: one codec or a chain (`ZSTD(3)`, `Delta, ZSTD(1)`,
 * `T64, LZ4`). `LZ4` alone is the server default and renders no CODEC clause. Which expressions a
 * server accepts is checked by a trial on the target at provisioning (src/clickhouse/codec-check.ts),
 * not by a list here.
 */
export type Codec = string;

/** The syntax of a codec expression: names with optional integer arguments, comma-separated. */
const CODEC_SYNTAX =
  /^[A-Za-z][A-Za-z0-9_]*(\(\s*-?\d+(\s*,\s*-?\d+)*\s*\))?(\s*,\s*[A-Za-z][A-Za-z0-9_]*(\(\s*-?\d+(\s*,\s*-?\d+)*\s*\))?)*$/;

/**
 * The arguments each ClickHouse codec family takes (ClickHouse's codec documentation, "Column
 * Compression Codecs", for 19.x–26.x): how many integer arguments, and the range or set of the first.
 * Checked on the embedded 26.7.2.1: `ZSTD(23)`, `Delta(3)`, `Gorilla(3)`, `GCD(1)`, `ZSTD(1,2,3)` are
 * refused by the server; `LZ4HC(0)` and `LZ4HC(13)` are accepted but run level 9 and 12.
 * The spec check refuses a family outside this table and an argument outside its range from the text
 * alone; what only a server knows (a family this version lacks, an experimental codec that needs a
 * setting) is left to the trial at provisioning (src/clickhouse/codec-check.ts).
 */
export const CODEC_ARGUMENTS: Readonly<
  Record<string, { maxArgs: number; first?: { min: number; max: number } | { oneOf: number[] } }>
> = {
  NONE: { maxArgs: 0 },
  LZ4: { maxArgs: 0 },
  LZ4HC: { maxArgs: 1, first: { min: 1, max: 12 } },
  ZSTD: { maxArgs: 2, first: { min: 1, max: 22 } },
  ZSTD_QAT: { maxArgs: 1, first: { min: 1, max: 12 } },
  DEFLATE_QPL: { maxArgs: 0 },
  Delta: { maxArgs: 1, first: { oneOf: [1, 2, 4, 8] } },
  DoubleDelta: { maxArgs: 1, first: { oneOf: [1, 2, 4, 8] } },
  Gorilla: { maxArgs: 1, first: { oneOf: [1, 2, 4, 8] } },
  T64: { maxArgs: 0 },
  FPC: { maxArgs: 2, first: { min: 1, max: 28 } },
  GCD: { maxArgs: 0 },
  AES_128_GCM_SIV: { maxArgs: 0 },
  AES_256_GCM_SIV: { maxArgs: 0 },
};

/**
 * Problems of one codec expression judged from its text (unknown family, with the nearest one;
 * too many arguments; a level out of range), one line each; empty when it passes. Pure.
 */
export function codecExpressionProblems(expr: string): string[] {
  const problems: string[] = [];
  const families = Object.keys(CODEC_ARGUMENTS);
  for (const part of expr.split(/,(?![^(]*\))/)) {
    const m = /^\s*([A-Za-z][A-Za-z0-9_]*)\s*(?:\(([^()]*)\))?\s*$/.exec(part);
    if (!m) continue;
    const family = families.find((f) => f.toUpperCase() === m[1].toUpperCase());
    if (!family) {
      const near = families.find((f) => sameLetters(f.toUpperCase(), m[1].toUpperCase()));
      problems.push(
        `unknown codec family ${m[1]}${near ? ` (did you mean ${near}?)` : ''}; ClickHouse has ${families.join(', ')}`,
      );
      continue;
    }
    const args = m[2] === undefined ? [] : m[2].split(',').map((a) => Number(a.trim()));
    const rule = CODEC_ARGUMENTS[family];
    if (args.length > rule.maxArgs) {
      problems.push(`${family} takes ${rule.maxArgs ? `at most ${rule.maxArgs} argument(s)` : 'no arguments'}, not ${args.length}`);
      continue;
    }
    const first = args[0];
    if (first === undefined || !rule.first) continue;
    if ('oneOf' in rule.first && !rule.first.oneOf.includes(first))
      problems.push(`${family}(${first}): the byte size must be one of ${rule.first.oneOf.join(', ')}`);
    if ('min' in rule.first && (first < rule.first.min || first > rule.first.max))
      problems.push(
        `${family}(${first}): the level must be ${rule.first.min}–${rule.first.max}${
          family === 'LZ4HC' ? ' (LZ4 takes 0 as its default 9 and caps higher levels at 12: the cell would measure another level than its name)' : ''
        }`,
      );
  }
  return problems;
}

/** Whether two names differ by one edit or one swap of neighbours (`ZTSD` / `ZSTD`, `LZ4H` / `LZ4HC`). */
function sameLetters(a: string, b: string): boolean {
  if (a === b) return true;
  if (Math.abs(a.length - b.length) > 1) return false;
  if (a.length === b.length) {
    const diff = [...a].map((c, i) => (c === b[i] ? -1 : i)).filter((i) => i >= 0);
    return diff.length === 1 || (diff.length === 2 && diff[1] === diff[0] + 1 && a[diff[0]] === b[diff[1]] && a[diff[1]] === b[diff[0]]);
  }
  const [s, l] = a.length < b.length ? [a, b] : [b, a];
  for (let i = 0; i < l.length; i++) if (l.slice(0, i) + l.slice(i + 1) === s) return true;
  return false;
}

/**
 * A codec expression: codec names (letters, digits, `_`) with optional numeric arguments, separated by
 * commas, each a ClickHouse codec family with arguments in range ({@link codecExpressionProblems}).
 * Whether this server version has the family is the target's trial's business.
 */
export const CodecExpression = z
  .string()
  .trim()
  .regex(
    CODEC_SYNTAX,
    'a codec expression as written inside CODEC(...), such as "ZSTD(3)", "LZ4HC(9)", "T64" or "Delta, ZSTD(1)"',
  )
  .superRefine((expr, ctx) => {
    if (!CODEC_SYNTAX.test(expr)) return;
    for (const message of codecExpressionProblems(expr)) ctx.addIssue({ code: 'custom', message });
  });

/** A named codec profile: a default expression for every column plus per-column overrides. */
export const CodecProfileSpec = z.strictObject({
  /** Name of the profile: part of the cell key (`v26.7-<name>`) and the reports' codec column. */
  name: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]{0,40}$/, 'lower-case letters, digits and dashes (part of the cell key), at most 41 characters'),
  /** Codec of every column the profile does not name. `LZ4`: the server default (no CODEC clause). */
  default: CodecExpression.default('LZ4'),
  /** Column name → codec expression, over `default`. Each column must exist in the workload's schema. */
  columns: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a column name'), CodecExpression).default({}),
});
/** A codec profile as the spec gives it: a plain expression (name and default at once) or a named profile. */
export const CodecEntry = z.union([CodecExpression, CodecProfileSpec]);
export type CodecEntry = z.infer<typeof CodecEntry>;

/** A codec profile with defaults applied: what a cell applies to its table. */
export interface CodecProfile {
  /** The matrix coordinate: the plain expression, or the profile's `name`. */
  name: string;
  /** Codec expression of every column not in `columns` (`LZ4`: server default, no clause). */
  default: Codec;
  /** Per-column overrides (column name → expression); empty for a plain expression. */
  columns: Record<string, Codec>;
}

/** The profile of a spec entry: a plain string is both name and default, with no overrides. Pure. */
export function codecProfileOf(e: CodecEntry): CodecProfile {
  return typeof e === 'string' ? { name: e, default: e, columns: {} } : { name: e.name, default: e.default, columns: e.columns };
}

/**
 * The cell-key segment of a codec profile name: lower case, parentheses dropped, every other run of
 * characters outside `[a-z0-9]` a dash (`ZSTD(3)` → `zstd3`, `Delta, ZSTD(1)` → `delta-zstd1`).
 * Keys of the 0.6.0 codec names are unchanged. Pure.
 */
export function codecKey(name: string): string {
  return name
    .toLowerCase()
    .replace(/[()]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

const versionLabel = z
  .string()
  .regex(/^\d+(\.\d+){0,3}$/, 'a ClickHouse version such as "26.7" or "24.8.14.39"');

const envVarName = z.string().regex(/^[A-Z_][A-Z0-9_]*$/, 'an environment variable NAME such as CLICKHOUSE_PASSWORD');

/** A Kubernetes resource quantity (`2500m`, `9Gi`, `100Gi`, `1.5`). */
const quantity = z
  .string()
  .regex(/^[0-9]+(\.[0-9]+)?(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$/, 'a Kubernetes quantity such as "2500m", "9Gi" or "100Gi"');
/** A DNS-1123 name (namespace, Secret, StorageClass). */
const dnsName = z
  .string()
  .regex(/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/, 'a DNS-1123 name: lower-case letters, digits, "-" and "."');

/**
 * `target.kind: kubernetes`: per cell its own PVC and pod, rendered from `manifests/`. Every default
 * is the seed article's environment (namespace `bench-database`, gp3 StorageClass, 100 Gi, one
 * m5.xlarge, requests 2.5 vCPU / 9 Gi, limits 3.5 vCPU / 12 Gi). The password lives in a Secret,
 * never here. Implemented in `src/targets/kubernetes/`.
 */
export const KubernetesTargetSpec = z
  .strictObject({
    kind: z.literal('kubernetes'),
    /** Path of a kubeconfig file on the worker. Default: `KUBECONFIG`, `~/.kube/config`, else in-cluster (client-node `loadFromDefault`). */
    kubeconfig: z.string().min(1).optional(),
    /** Context of the kubeconfig. Default: its current-context. */
    context: z.string().min(1).optional(),
    /** Namespace of the pods, PVCs and the credentials Secret; created when missing. */
    namespace: z
      .string()
      .regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, 'a namespace name: at most 63 lower-case letters, digits and "-"')
      .default('bench-database'),
    /** `podIP`: the worker runs in the cluster and connects to `<podIP>:8123`; `portForward`: through the API server. */
    access: z.enum(['podIP', 'portForward']).default('podIP'),
    /** Secret holding the ClickHouse user (`username`) and password (`password`). */
    credentialsSecret: dnsName.default('chbench-clickhouse'),
    /** Create the Secret (user `chbench`, a random password) when it is missing; `false`: a missing Secret is an error. */
    createSecret: z.boolean().default(true),
    /** version label → container image. Default for a version not listed: `clickhouse/clickhouse-server:<version>`. */
    images: z.record(versionLabel, z.string().min(1)).optional(),
    /** StorageClass of the PVCs; `create`: create it from `manifests/storageclass.yaml` when missing. */
    storageClass: z
      .strictObject({ name: dnsName.default('bench-clickhouse-gp3'), create: z.boolean().default(true) })
      .prefault({}),
    /** PVC size (`resources.requests.storage`). */
    storageSize: quantity.default('100Gi'),
    /** Node selector `node.kubernetes.io/instance-type`. */
    instanceType: z.string().min(1).default('m5.xlarge'),
    /** Container resources. */
    resources: z
      .strictObject({
        requests: z.strictObject({ cpu: quantity.default('2500m'), memory: quantity.default('9Gi') }).prefault({}),
        limits: z.strictObject({ cpu: quantity.default('3500m'), memory: quantity.default('12Gi') }).prefault({}),
      })
      .prefault({}),
    /** Extra node selector labels (merged over the instance type). */
    nodeSelector: z.record(z.string(), z.string()).default({}),
    /** Pod tolerations (Kubernetes objects, passed through). */
    tolerations: z.array(z.record(z.string(), z.unknown())).default([]),
    /** Pod affinity (Kubernetes object, passed through; a re-provision adds the volume's zone to its node affinity). */
    affinity: z.record(z.string(), z.unknown()).optional(),
    /** Pod annotations, merged over `karpenter.sh/do-not-disrupt: "true"`. */
    annotations: z.record(z.string(), z.string()).default({}),
    /** Waits, ms. */
    timeouts: z
      .strictObject({
        /** A pod that stays unschedulable this long fails (`Unschedulable`). */
        scheduleMs: z.int().min(100).default(300_000),
        /** A PVC still Pending this long after its pod was scheduled fails (`VolumePending`). */
        pvcMs: z.int().min(100).default(300_000),
        /** An image still pulling this long fails (`ImagePull`). */
        pullMs: z.int().min(100).default(600_000),
        /** The whole wait for Ready. */
        readyMs: z.int().min(100).default(600_000),
        /** A watch with no event and no bookmark for this long is dropped and re-listed. */
        watchSilenceMs: z.int().min(100).default(60_000),
      })
      .prefault({}),
  })
  .describe('a pod and a PVC per cell in a Kubernetes cluster (the seed article\'s EKS setting)');
export type KubernetesTargetSpec = z.infer<typeof KubernetesTargetSpec>;

/**
 * `target.kind: docker`: per cell one ClickHouse container and its own named data volume on a Docker
 * engine (the one `DOCKER_HOST` names, else the local socket; never the spec), host networking with
 * the server bound to 127.0.0.1 on free ports, CPU/memory limits and a volume profile as Docker's
 * device read/write bps and IOPS limits. Implemented in `src/targets/docker/`.
 */
export const DockerTargetSpec = z
  .strictObject({
    kind: z.literal('docker'),
    /** version label → image. Default for a version not listed: `clickhouse/clickhouse-server:<version>`. */
    images: z.record(versionLabel, z.string().min(1)).optional(),
    /** Limits on each cell's container (src/schema/resources.ts, docs/targets.md): volume profile, CPUs, memory. */
    resources: ResourcesSpec.optional(),
    /**
     * Block device the volume profile limits, as a path on the engine's host (e.g. `/dev/nvme1n1`).
     * Default: the device holding the engine's data root (`DockerRootDir` of `GET /info`), found on
     * this host — so give it when the engine runs on another host.
     */
    device: z.string().regex(/^\/dev\/\S+$/, 'a device path such as /dev/vda').optional(),
    /** Pull an image the engine does not have (`POST /images/create`); `false`: a missing image fails (`ImagePull`). */
    pull: z.boolean().default(true),
    /** Waits, ms. */
    timeouts: z
      .strictObject({
        /** An image still pulling this long fails (`ImagePull`). */
        pullMs: z.int().min(100).default(600_000),
        /** A started container whose server does not answer `/ping` this long fails. */
        readyMs: z.int().min(100).default(120_000),
        /** `docker stop` grace before SIGKILL at teardown. */
        stopMs: z.int().min(0).default(30_000),
      })
      .prefault({}),
  })
  .describe('a container and a named volume per cell on a Docker engine (DOCKER_HOST), host networking on loopback');
export type DockerTargetSpec = z.infer<typeof DockerTargetSpec>;

/** Where cells get their ClickHouse. */
/**
 * An HTTP(S) URL of a ClickHouse server, without a user or password in it: credentials written into a
 * URL would travel with the spec into workflow history, `run-spec.json`, `result.json`, the reports and
 * the results database. The user goes in its own field, the password in an environment variable.
 */
const serverUrl = (userField: string) =>
  z.url({ protocol: /^https?$/ }).refine(
    (u) => {
      try {
        const x = new URL(u);
        return !x.username && !x.password;
      } catch {
        return true;
      }
    },
    {
      message: `a user or password in the URL would be kept in workflow history, run-spec.json, the reports and the results database: put the user in \`${userField}\` and the password in an environment variable named by \`passwordEnv\``,
    },
  );

export const TargetSpec = z.discriminatedUnion('kind', [
  z
    .strictObject({
      kind: z.literal('embedded'),
      /**
       * Where each version label's engine comes from (docs/targets.md, "Version sources"): `auto` (the
       * default) the bundled npm engine for the labels it serves (26.7), a PyPI chdb build for every
       * other label; `npm` only the bundled engine; `pypi` only PyPI builds (26.7 then has none).
       * A PyPI build is installed on demand by provision, or ahead with `chbench engines install`.
       */
      engines: z.enum(['auto', 'npm', 'pypi']).optional(),
      /** Limits the kernel applies to the cell's server process (src/schema/resources.ts, docs/targets.md). */
      resources: ResourcesSpec.optional(),
    })
    .describe(
      'a chdb engine (the bundled npm one, or a PyPI build of another ClickHouse release) in a separate process per cell, serving the HTTP interface on loopback',
    ),
  z
    .strictObject({
      kind: z.literal('local'),
      /** version label → path of a ClickHouse server binary (`clickhouse-server` or the multi-call `clickhouse`). */
      binaries: z.record(versionLabel, z.string().min(1)),
      /** Limits the kernel applies to the cell's server process (src/schema/resources.ts, docs/targets.md). */
      resources: ResourcesSpec.optional(),
    })
    .describe('a local ClickHouse server binary started per cell with a generated config'),
  z
    .strictObject({
      kind: z.literal('external'),
      url: serverUrl('username'),
      username: z.string().default('default'),
      /** Name of the environment variable that holds the password; the password never enters the spec. */
      passwordEnv: envVarName.optional(),
      /** Prefix of the per-cell database chbench creates and drops. */
      databasePrefix: z.string().regex(/^[a-z_][a-z0-9_]*$/).default('chbench'),
    })
    .describe('an existing server; each cell gets its own database, dropped at teardown'),
  KubernetesTargetSpec,
  DockerTargetSpec,
]);
export type TargetSpec = z.infer<typeof TargetSpec>;

/** The measurement protocol. */
export const ProtocolSpec = z.strictObject({
  /** Cold runs per query (caches dropped before each, `min_bytes_to_use_direct_io=1`). */
  coldRuns: z.int().min(0).max(10).default(1),
  /** Warm runs per query, after the cold runs, without dropping caches. */
  warmRuns: z.int().min(1).max(100).default(3),
  /**
   * Unmeasured runs between the cold and the warm runs (kept in the samples as kind `warmup`, left out
   * of every statistic). A cold run reads with direct I/O, so the first run after it still finds the
   * OS page cache empty: without a warm-up, "warm" run 1 is not warm.
   */
  warmupRuns: z.int().min(0).max(10).default(1),
  /** Statistic shown as the headline warm figure. Every sample is kept regardless. */
  statistic: z.enum(['min', 'median']).default('min'),
  /**
   * Before each cold run, also drop the OS page cache (`sync` + `echo 1 > /proc/sys/vm/drop_caches`) when the
   * server runs on the worker's host (embedded/local) and the worker may write that file. The outcome is
   * recorded with every cold run; without it "cold" only means "direct I/O requested".
   */
  dropOsPageCache: z.boolean().default(true),
  /** `SYSTEM STOP MERGES <table>` while queries are measured (merges restarted before index materialization). */
  stopMergesDuringQueries: z.boolean().default(true),
  quiesce: z
    .strictObject({
      /** The set of active parts must stay unchanged, with no merge running, for this long (ms). */
      stableForMs: z.int().min(0).default(3000),
      /** Give up (cell fails with a clear error) after this long (ms). */
      timeoutMs: z.int().min(1000).default(600_000),
      /** Poll interval (ms). */
      pollMs: z.int().min(100).default(500),
    })
    .prefault({}),
  /** Per-statement server-side limit (`max_execution_time`, s); the client's request timeout is longer. */
  maxExecutionTimeS: z.int().min(1).default(3600),
  /**
   * A statement none of whose counters (rows read/written, memory, mutation parts, merge progress)
   * changed for this long (s) is stuck: chbench kills it where the target can and fails the step with
   * `StatementStuck`. Elapsed time alone is not progress. The default, 600 s, is longer than the phases
   * where a healthy statement moves no counter (the final merge of a large sort or aggregation, one
   * large part's mutation on a slow volume) and well below `maxExecutionTimeS`.
   */
  stuckAfterS: z.int().min(1).default(600),
});
export type ProtocolSpec = z.infer<typeof ProtocolSpec>;

/** Prices of one EBS volume type (USD); see `VolumePrice` in `src/cloud/cost.ts`. */
const VolumePriceSpec = z.strictObject({
  /** USD per GB-month of provisioned size. */
  gbMonthUsd: z.number().nonnegative(),
  /** IOPS included in the storage price (gp3: 3,000). */
  includedIops: z.number().nonnegative().optional(),
  /** USD per provisioned IOPS-month above `includedIops`. */
  iopsMonthUsd: z.number().nonnegative().optional(),
  /** Throughput included, MiB/s (gp3: 125). */
  includedThroughputMiBs: z.number().nonnegative().optional(),
  /** USD per provisioned MiB/s-month above `includedThroughputMiBs`. */
  throughputMonthUsd: z.number().nonnegative().optional(),
});

/**
 * What a run spec may say about prices: any subset of the price table; named entries replace the
 * defaults' entries of the same key (the defaults are the article's: `ARTICLE_PRICES` in
 * `src/cloud/cost.ts`, m5.xlarge $0.236/h, gp3 $0.0912/GB-month). Unknown keys are refused.
 */
export const PriceOverrideSpec = z.strictObject({
  /** Region the prices are for (shown beside the cost). */
  region: z.string().min(1).optional(),
  /** On-demand USD per instance-hour, by instance type. */
  instanceHourlyUsd: z.record(z.string(), z.number().nonnegative()).optional(),
  /** By EBS volume type (`gp3`, `gp2`, …). */
  volume: z.record(z.string(), VolumePriceSpec).optional(),
  /** Where the figures come from (shown in the report's Cost section). */
  source: z.string().min(1).optional(),
});
export type PriceOverrideSpec = z.infer<typeof PriceOverrideSpec>;

/** Default of `cloud.settleMs`: 3 minutes after a window's last minute ends (chbench's choice; AWS publishes no delay). */
export const DEFAULT_CLOUD_SETTLE_MS = 3 * 60_000;

/**
 * Cloud metrics and cost beside a Kubernetes-on-AWS run: after every cell, the matrix reads each
 * cell's EBS volume and EC2 instance (DescribeVolumes/DescribeInstances) and their CloudWatch metrics
 * per step window (GetMetricData), labels each step disk-/CPU-bound, and prices each cell. AWS
 * credentials and endpoint come from the worker's environment (the SDK's standard chain;
 * `AWS_ENDPOINT_URL` points it at another endpoint), never from the spec.
 */
export const CloudSpec = z.strictObject({
  /** AWS region of the cluster's instances and volumes. */
  region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'an AWS region such as "us-east-1"').default('us-east-1'),
  /**
   * Wait this long (ms) after the newest step window's last minute before reading it, so
   * CloudWatch's figures are final (the newest minute is aggregated after it ends).
   */
  settleMs: z.int().min(0).max(3_600_000).default(DEFAULT_CLOUD_SETTLE_MS),
  /** Price table overrides (defaults: the article's prices). */
  prices: PriceOverrideSpec.optional(),
  /**
   * Ask the AWS Price List API (`GetProducts`, service `AmazonEC2`/`AmazonEBS`) for the instance and
   * gp3 prices of `region`; where it gives none (or fails), the table is used and the cost says so.
   */
  priceList: z.boolean().default(false),
  /** Bottleneck label thresholds (`BottleneckThresholds` in `src/cloud/metrics.ts`). */
  thresholds: z
    .strictObject({
      /** Disk-bound at this share (0..1) of the lowest throughput/IOPS limit. @default 0.9 */
      diskUtilisation: z.number().gt(0).max(1).optional(),
      /** CPU-bound at this mean CPUUtilization, %. @default 80 */
      cpuPct: z.number().gt(0).max(100).optional(),
      /** Disk-bound when a burst balance is at or below this, %. @default 10 */
      balancePct: z.number().min(0).max(100).optional(),
    })
    .optional(),
});
export type CloudSpec = z.infer<typeof CloudSpec>;

/**
 * Where the results database is (see `src/results/db/`). Absent: the embedded database in
 * `<resultsDir>/db`, served by the chdb engine chbench ships. A team points every worker at one
 * ClickHouse server; the password comes from the environment variable named here, never the spec.
 */
export const ResultsDbSpec = z.strictObject({
  /** HTTP(S) URL of a ClickHouse server, e.g. `http://clickhouse.internal:8123` (no user or password in it). */
  url: serverUrl('user'),
  database: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).default('chbench'),
  user: z.string().min(1).default('default'),
  /** Name of the environment variable (on every worker and CLI host) holding the password. */
  passwordEnv: z.string().regex(/^[A-Z_][A-Z0-9_]*$/).optional(),
});
export type ResultsDbSpec = z.infer<typeof ResultsDbSpec>;

/** Options shared by every kind of baseline (see `src/schema/comparison.ts` for the method). */
const comparisonOptions = {
  /** Smallest relative change ever flagged (0.1 = 10 %), whatever the learned noise threshold. */
  minChange: z.number().min(0).max(10).default(0.1),
  /** A query whose baseline noise threshold is above this is `unstable`, not compared. */
  unstableAbove: z.number().min(0).max(10).default(0.3),
  /** Fewer valid warm runs than this on either side: `unstable` (too few samples for the test to have power). */
  minRuns: z.int().min(3).max(1000).default(7),
  /** Interleaved A, B rounds per flagged query in the confirming re-run; 0 = no re-run (first-pass flags stand, marked unconfirmed). */
  confirmRounds: z.int().min(0).max(200).default(12),
};

/**
 * What a run is compared with after its cells: a run id, the previous successful run of the
 * schedule that started this run, or a version label inside this run's own matrix.
 */
export const BaselineSpec = z.discriminatedUnion('from', [
  z.strictObject({ from: z.literal('run'), run: z.string().min(1), ...comparisonOptions }),
  z.strictObject({ from: z.literal('previous-scheduled'), ...comparisonOptions }),
  z.strictObject({ from: z.literal('version'), version: versionLabel, ...comparisonOptions }),
]);
export type BaselineSpec = z.infer<typeof BaselineSpec>;

/** A run spec. Unknown keys are refused everywhere. */
export const RunSpec = z.strictObject({
  /** Schema version of this document. */
  specVersion: z.literal(1).default(1),
  /** Human name; also the prefix of the run id (`<name>-<timestamp>`). */
  name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,40}$/, 'lower-case letters, digits and dashes, at most 41 characters'),
  /** Workload folder under sql/workloads/. */
  workload: z.string().regex(/^[a-z0-9-]+$/),
  /** Rows the generator inserts. */
  scale: z.int().positive().max(10_000_000_000),
  target: TargetSpec,
  matrix: z.strictObject({
    version: z.array(versionLabel).min(1, 'at least one version').refine(uniq, 'versions must be unique'),
    /**
     * Codec profiles, one cell each: a codec expression applied to every column (`"ZSTD(3)"`,
     * `"Delta, ZSTD(1)"`; also its name), or `{ name, default, columns: { <column>: <expression> } }`.
     * The workload's schema places each column's codec with `{{codec}}`.
     */
    codec: z
      .array(CodecEntry)
      .min(1, 'at least one codec')
      .refine(
        (es) => uniq(es.map((e) => codecKey(codecProfileOf(e).name))),
        'codec profiles must have distinct names (compared as cell-key segments: lower case, punctuation as "-")',
      ),
    /** Run every (version, codec) cell this many times, as separate cells `…-r1`, `…-r2`, … (run-to-run variance). */
    repeat: z.int().min(1).max(100).default(1),
    /**
     * Named settings profiles: one more axis of the matrix (cells `…-<profile>`). A profile's query
     * settings go with the load and every measured run, its MergeTree settings into the table, over
     * the spec's `settings`; both are checked against each target's probe at their level.
     */
    settings: z
      .array(SettingsProfile)
      .min(1)
      .refine((ps) => new Set(ps.map((p) => p.name)).size === ps.length, 'profile names must be unique')
      .optional(),
    /**
     * Defaults as an axis of the matrix: one cell per entry (cells `…-pin<version>`; `shipped`: no
     * suffix). `shipped` runs the version's own defaults; a version label runs the cell with
     * `compatibility = '<version>'` (as the spec-level `pinDefaults` does for every cell). With
     * `[shipped, "24.8"]` one run holds, for each version and codec, a shipped cell and a pinned cell,
     * and the report puts them side by side. Give this or the spec-level `pinDefaults`, not both.
     */
    pinDefaults: z
      .array(
        z
          .string()
          .regex(
            /^(shipped|\d+(\.\d+){0,3})$/,
            '"shipped" (the version\'s own defaults) or a ClickHouse version such as "24.8" whose defaults the cell runs with (compatibility)',
          ),
      )
      .min(1, 'at least one entry: "shipped" or a version')
      .refine(uniq, 'pinDefaults entries must be unique')
      .optional(),
  }),
  /** Query ids to run (default: all queries of the workload). */
  queries: z.array(z.string().regex(/^[A-Za-z0-9_-]+$/)).min(1).optional(),
  /** Skip-index step: materialize the workload's index and re-run the queries that use it. */
  skipIndex: z.boolean().default(true),
  protocol: ProtocolSpec.prefault({}),
  /**
   * Run every cell with another version's defaults: `compatibility = '<pinDefaults>'` is sent with
   * the load and every measured run, on versions whose probe lists the `compatibility` setting (a
   * version without it fails its cell before loading). Cell keys get `-pin<version>`, so a pinned run
   * and a shipped-defaults run of one matrix read side by side. Absent: each version's own defaults.
   */
  pinDefaults: versionLabel.optional(),
  /**
   * Extra settings, checked against each target's capability probe at their level before loading:
   * `query` settings go with the load and every measured run, `mergeTree` settings into the table's
   * SETTINGS clause. Names in `optional` may be missing on a version (recorded as not applied).
   */
  settings: z
    .strictObject({
      query: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.union([z.number(), z.string()])).default({}),
      mergeTree: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.union([z.number(), z.string()])).default({}),
      optional: z.array(z.string()).default([]),
    })
    .prefault({}),
  /**
   * Cells that run at the same time. Default 1: cells on one host disturb each other's timings. For a
   * target on the worker's host (embedded, local) it counts cells per host, and each host with a
   * chbench worker runs that many; for other targets it counts cells of the whole run.
   */
  concurrency: z.int().min(1).max(64).default(1),
  /**
   * Seconds a step of a host-bound cell (embedded, local) may wait on its host's task queue before
   * that host counts as lost (no worker of it polls): the cell is then provisioned again, fresh, on
   * another host. Keep it above the time a busy host's worker needs to pick up a step.
   */
  hostLossTimeoutS: z.int().min(5).max(86_400).default(60),
  /** When to tear targets down. */
  teardown: z.enum(['always', 'on-success', 'never']).default('always'),
  /**
   * The results store: where every step's record, the cell results and the report go. Relative paths
   * are resolved once, against the working directory of the worker that validates the spec; with
   * workers on several hosts give a directory every host mounts at the same path (NFS, EFS).
   */
  resultsDir: z.string().min(1).default('results'),
  /** Cloud metrics and cost per cell (Kubernetes on AWS); absent = not collected. */
  cloud: CloudSpec.optional(),
  /** The results database (default: embedded, in `<resultsDir>/db`). */
  results: ResultsDbSpec.optional(),
  /** Compare this run with a baseline after its cells (absent: no comparison). */
  baseline: BaselineSpec.optional(),
  /**
   * How a matrix that varies an axis (versions, codecs, settings profiles, pinned defaults) judges it:
   * equivalence margin, false-discovery rate, the A/A control cell and the confirming re-run
   * (`src/schema/verdicts.ts`). Applies whenever the matrix compares something; absent: the defaults.
   */
  verdicts: VerdictSpec.optional(),
  /** Load grids run in every cell after its query steps: insert throughput and concurrency stepping (src/schema/grids.ts). */
  grids: GridsSpec.optional(),
});
export type RunSpec = z.infer<typeof RunSpec>;
/** What a user writes (defaults not yet applied). */
export type RunSpecInput = z.input<typeof RunSpec>;

function uniq(xs: readonly string[]): boolean {
  return new Set(xs).size === xs.length;
}

/** Thrown for a spec that does not validate; `issues` holds one line per problem. */
export class SpecError extends Error {
  constructor(public readonly issues: string[]) {
    super(`invalid run spec:\n  - ${issues.join('\n  - ')}`);
    this.name = 'SpecError';
  }
}

/**
 * Parse and validate a run spec (already decoded from YAML/JSON) and apply defaults.
 * @throws SpecError naming each offending field and the allowed values.
 */
export function parseRunSpec(input: unknown): RunSpec {
  const r = RunSpec.safeParse(input);
  if (r.success) {
    if (r.data.target.kind === 'local') {
      const missing = r.data.matrix.version.filter((v) => !(v in (r.data.target as { binaries: Record<string, string> }).binaries));
      if (missing.length)
        throw new SpecError(
          missing.map(
            (v) =>
              `matrix.version: version "${v}" has no way to be provisioned: target.binaries has no entry for it (has: ${Object.keys(
                (r.data.target as { binaries: Record<string, string> }).binaries,
              ).join(', ') || 'none'})`,
          ),
        );
    }
    if (r.data.cloud && r.data.target.kind !== 'kubernetes')
      throw new SpecError([
        `cloud: CloudWatch metrics and cost are read for kubernetes cells (their node's EC2 instance and their PV's EBS volume); target.kind is "${r.data.target.kind}", so remove the cloud section`,
      ]);
    if (r.data.pinDefaults !== undefined && r.data.matrix.pinDefaults)
      throw new SpecError([
        `pinDefaults: "${r.data.pinDefaults}" pins every cell, and matrix.pinDefaults (${r.data.matrix.pinDefaults.join(', ')}) makes defaults an axis: give one of them (for shipped and pinned cells side by side: matrix.pinDefaults: [shipped, "${r.data.pinDefaults}"])`,
      ]);
    const pinQuery = [
      ...('compatibility' in r.data.settings.query ? ['settings.query'] : []),
      ...(r.data.matrix.settings ?? []).filter((p) => 'compatibility' in p.query).map((p) => `matrix.settings profile "${p.name}"`),
    ];
    if (pinQuery.length && (r.data.pinDefaults !== undefined || r.data.matrix.pinDefaults?.some((p) => p !== 'shipped')))
      throw new SpecError([
        `${pinQuery.join(', ')}: sets compatibility, which pinDefaults also sets: pin defaults in one place (pinDefaults / matrix.pinDefaults) and remove compatibility from the settings`,
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
    const m = r.data.matrix;
    const comparing = m.version.length > 1 || m.codec.length > 1 || (m.settings?.length ?? 0) > 1 || (m.pinDefaults?.length ?? 0) > 1;
    if (comparing && r.data.verdicts?.control === false && m.repeat < 2)
      throw new SpecError([
        `verdicts.control: false with matrix.repeat 1 leaves the matrix without any A/A pair, so none of its comparisons could reach a faster or slower verdict; keep the control (the default) or set matrix.repeat to 2 or more`,
      ]);
    if (b && r.data.protocol.warmRuns < b.minRuns)
      throw new SpecError([
        `protocol.warmRuns: ${r.data.protocol.warmRuns} warm runs per query cannot give the comparison the ${b.minRuns} valid warm runs per side it needs (baseline.minRuns); use at least ${b.minRuns}, better 15`,
      ]);
    const ins = r.data.grids?.insert;
    if (ins?.maxConnections !== undefined) {
      const over = ins.concurrency.filter((c) => c > ins.maxConnections!);
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
      const idle = ins.batchSizes.flatMap((b) =>
        ins.concurrency.filter((c) => Math.ceil(ins.rows / b) < c).map((c) => ({ b, c })),
      );
      if (idle.length)
        throw new SpecError([
          `grids.insert.rows: ${ins.rows} rows make fewer batches than clients at ${idle.map((x) => `batch ${x.b} × ${x.c} clients`).join(', ')}: some clients would never send anything and the point would not measure its concurrency; raise rows to at least ${Math.max(...idle.map((x) => x.b * x.c))} or drop those points`,
        ]);
    }
    const mix = r.data.grids?.concurrency?.mix;
    if (mix && r.data.queries) {
      const missing = mix.filter((e) => !r.data.queries!.includes(e.id)).map((e) => e.id);
      if (missing.length)
        throw new SpecError([
          `grids.concurrency.mix: query id(s) ${missing.join(', ')} are not among the run's queries (queries: ${r.data.queries.join(', ')})`,
        ]);
    }
    // The embedded target's labels are checked against its version sources (bundled npm engine, PyPI
    // builds) by the target's checkSpec (src/targets/embedded/index.ts), which `checkSpec` runs in the
    // CLI and in the worker's validateSpec before anything is provisioned: the catalogue of builds is
    // not pure data of this module.
    return r.data;
  }
  throw new SpecError(r.error.issues.map((i) => formatSpecIssue(i, RunSpec, input)));
}

/** ClickHouse version of the engine shipped in the pinned `chdb` npm package (the `npm-chdb` version source). */
export const EMBEDDED_VERSION = '26.7.2.1';

/** The run spec as a JSON Schema (draft 2020-12), describing what a user writes (input side, defaults shown). */
export function runSpecJsonSchema(): Record<string, unknown> {
  return {
    title: 'chbench run spec',
    ...(z.toJSONSchema(RunSpec, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>),
  };
}
