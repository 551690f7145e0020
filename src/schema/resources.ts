/**
 * `target.resources`: the volume and instance a cell should behave like, for cells whose server runs
 * on this machine (the `embedded` and `local` process targets, the `docker` target). The kernel applies
 * the limits (cgroup `io.max` / `blkio.throttle.*`, `cpu.max` / `cpu.cfs_quota_us`, `memory.max` /
 * `memory.limit_in_bytes`, or Docker's `--device-read-bps` … `--cpus` `--memory`); this module only
 * turns a profile into numbers. Pure (no I/O): the workflow bundle may import it.
 *
 * Volume profiles follow the EBS volume types' published performance:
 * - `gp3`: 3,000 IOPS and 125 MiB/s baseline, or the provisioned `iops` / `throughputMiBps`.
 * - `io2`: the provisioned `iops` (required); throughput 0.256 MiB/s per IOPS, at most 1,000 MiB/s, or `throughputMiBps`.
 * - `gp2`: 3 IOPS per GiB of `sizeGiB` (100 … 16,000); 128 MiB/s up to 170 GiB, 250 MiB/s above. Burst
 *   credits are **not modelled**: the sustained baseline is applied and the label says so.
 * - `st1`: 40 MiB/s per TiB of `sizeGiB` (at most 500 MiB/s) and 500 IOPS. Burst not modelled either.
 * - `explicit`: the byte and IOPS rates given, per direction.
 */
import { z } from 'zod';

const MiB = 1024 * 1024;

/** A byte quantity: a number of bytes, or a string such as `"12Gi"`, `"512Mi"`, `"2G"`. */
export const ByteQuantity = z.union([
  z.int().positive(),
  z.string().regex(/^[0-9]+(\.[0-9]+)?(k|M|G|T|Ki|Mi|Gi|Ti)?$/, 'a byte quantity such as "12Gi", "512Mi" or 2147483648'),
]);
export type ByteQuantity = z.infer<typeof ByteQuantity>;

/** Bytes of a {@link ByteQuantity} (`Ki`/`Mi`/… binary, `k`/`M`/… decimal). */
export function bytesOf(q: ByteQuantity): number {
  if (typeof q === 'number') return q;
  const m = /^([0-9]+(?:\.[0-9]+)?)([A-Za-z]*)$/.exec(q);
  if (!m) throw new Error(`not a byte quantity: ${q}`);
  const unit: Record<string, number> = {
    '': 1,
    k: 1e3,
    M: 1e6,
    G: 1e9,
    T: 1e12,
    Ki: 1024,
    Mi: MiB,
    Gi: MiB * 1024,
    Ti: MiB * MiB,
  };
  return Math.round(Number(m[1]) * unit[m[2]]!);
}

const iops = z.int().min(1).max(1_000_000);
const mibps = z.number().positive().max(100_000);

/** The volume a cell's data directory should behave like. */
export const VolumeProfileSpec = z.discriminatedUnion('profile', [
  z.strictObject({
    profile: z.literal('gp3'),
    /** Provisioned IOPS (gp3 allows 3,000 … 16,000). Default 3,000. */
    iops: z.int().min(3000).max(16000).default(3000),
    /** Provisioned throughput, MiB/s (gp3 allows 125 … 1,000). Default 125. */
    throughputMiBps: z.number().min(125).max(1000).default(125),
  }),
  z.strictObject({
    profile: z.literal('io2'),
    /** Provisioned IOPS (required). */
    iops: z.int().min(100).max(256000),
    /** Throughput, MiB/s. Default 0.256 MiB/s per provisioned IOPS, at most 1,000. */
    throughputMiBps: mibps.optional(),
  }),
  z.strictObject({
    profile: z.literal('gp2'),
    /** Volume size, GiB: the baseline IOPS and throughput follow from it. */
    sizeGiB: z.int().min(1).max(16384),
  }),
  z.strictObject({
    profile: z.literal('st1'),
    /** Volume size, GiB (st1 allows 125 GiB … 16 TiB). */
    sizeGiB: z.int().min(125).max(16384),
  }),
  z
    .strictObject({
      profile: z.literal('explicit'),
      readMiBps: mibps.optional(),
      writeMiBps: mibps.optional(),
      readIops: iops.optional(),
      writeIops: iops.optional(),
    })
    .refine((v) => v.readMiBps ?? v.writeMiBps ?? v.readIops ?? v.writeIops, 'give at least one of readMiBps, writeMiBps, readIops, writeIops'),
]);
export type VolumeProfileSpec = z.infer<typeof VolumeProfileSpec>;

/**
 * The smallest `target.resources.memory` accepted: 256 MiB (268,435,456 bytes). Measured on this
 * machine (cgroup v1 `memory.limit_in_bytes`, the embedded 26.7.2.1 engine server started inside the
 * cgroup): at 64 MiB it did not open its port within 30 s; at 128 MiB it started and answered a
 * `SELECT count() FROM numbers(1e7)`, with `memory.max_usage_in_bytes` at the limit. 256 MiB leaves
 * twice that for loading a table; below it a server is OOM-killed or thrashes rather than measured.
 */
export const MIN_MEMORY_BYTES = 256 * MiB;

/** `target.resources`: a volume profile and optional CPU and memory limits (like a pod's limits). */
export const ResourcesSpec = z
  .strictObject({
    /** The volume the cell's data directory should behave like (read and write limits on its block device). */
    volume: VolumeProfileSpec.optional(),
    /** CPU limit in cores (e.g. 3.5 as the seed article's pod limit); a CFS quota. */
    cpus: z.number().min(0.01).max(1024).optional(),
    /** Memory limit of the server process and its children. */
    memory: ByteQuantity.refine(
      (q) => bytesOf(q) >= MIN_MEMORY_BYTES,
      'at least 256Mi (268435456 bytes): a ClickHouse server does not start and load a table in less',
    ).optional(),
  })
  .refine((r) => r.volume ?? r.cpus ?? r.memory, 'give volume, cpus or memory (or leave resources out)')
  .describe('limits the kernel applies to the cell server: a volume profile (gp3, io2, gp2, st1, explicit), CPU and memory');
export type ResourcesSpec = z.infer<typeof ResourcesSpec>;

/** The limits of a volume profile, per direction. `undefined`: not limited in that direction. */
export interface VolumeLimits {
  /** The profile's name (`gp3`, …, `explicit`). */
  profile: VolumeProfileSpec['profile'];
  /** Read limit, bytes/s. */
  readBytesPerSec?: number;
  /** Write limit, bytes/s. */
  writeBytesPerSec?: number;
  /** Read limit, I/O operations/s. */
  readIops?: number;
  /** Write limit, I/O operations/s. */
  writeIops?: number;
  /** What the profile does not model (gp2/st1 burst credits), said in the label. */
  notes: string[];
}

/** Resolved `target.resources`: the numbers the kernel is asked to enforce. */
export interface ResourceLimits {
  volume?: VolumeLimits;
  /** CPU limit, cores (quota / period). */
  cpus?: number;
  /** Memory limit, bytes. */
  memoryBytes?: number;
}

/** The limits a volume profile stands for (see the module comment for each type's rule). */
export function volumeLimits(v: VolumeProfileSpec): VolumeLimits {
  const both = (bytes: number, ops: number, notes: string[] = []): VolumeLimits => ({
    profile: v.profile,
    readBytesPerSec: Math.round(bytes),
    writeBytesPerSec: Math.round(bytes),
    readIops: ops,
    writeIops: ops,
    notes,
  });
  switch (v.profile) {
    case 'gp3':
      return both(v.throughputMiBps * MiB, v.iops);
    case 'io2':
      return both((v.throughputMiBps ?? Math.min(1000, v.iops * 0.256)) * MiB, v.iops);
    case 'gp2': {
      const ops = Math.min(16000, Math.max(100, 3 * v.sizeGiB));
      return both((v.sizeGiB <= 170 ? 128 : 250) * MiB, ops, ['burst credits not modelled: the sustained baseline is applied']);
    }
    case 'st1':
      return both(Math.min(500, (40 * v.sizeGiB) / 1024) * MiB, 500, ['burst credits not modelled: the sustained baseline is applied']);
    case 'explicit':
      return {
        profile: 'explicit',
        readBytesPerSec: v.readMiBps === undefined ? undefined : Math.round(v.readMiBps * MiB),
        writeBytesPerSec: v.writeMiBps === undefined ? undefined : Math.round(v.writeMiBps * MiB),
        readIops: v.readIops,
        writeIops: v.writeIops,
        notes: [],
      };
  }
}

/** The numbers `target.resources` asks for. */
export function resourceLimits(r: ResourcesSpec): ResourceLimits {
  return {
    volume: r.volume ? volumeLimits(r.volume) : undefined,
    cpus: r.cpus,
    memoryBytes: r.memory === undefined ? undefined : bytesOf(r.memory),
  };
}

const n = (x: number): string => x.toLocaleString('en-US', { maximumFractionDigits: 1 });

/**
 * One line for reports: `gp3 emulated: 125 MiB/s, 3,000 IOPS read and write; 3.5 CPUs; memory 12 GiB`.
 * The device and the mechanism (`on vda, cgroup v1 blkio`) are added by whoever applied the limits.
 */
export function describeLimits(l: ResourceLimits): string {
  const parts: string[] = [];
  if (l.volume) {
    const v = l.volume;
    const dir = (bps?: number, ops?: number): string =>
      [bps === undefined ? undefined : `${n(bps / MiB)} MiB/s`, ops === undefined ? undefined : `${n(ops)} IOPS`]
        .filter(Boolean)
        .join(', ');
    const r = dir(v.readBytesPerSec, v.readIops);
    const w = dir(v.writeBytesPerSec, v.writeIops);
    const body = r === w ? `${r} read and write` : [r && `read ${r}`, w && `write ${w}`].filter(Boolean).join('; ');
    parts.push(`${v.profile === 'explicit' ? 'volume limits' : `${v.profile} emulated`}: ${body}${v.notes.length ? ` (${v.notes.join('; ')})` : ''}`);
  }
  if (l.cpus !== undefined) parts.push(`${n(l.cpus)} CPUs`);
  if (l.memoryBytes !== undefined) parts.push(`memory ${n(l.memoryBytes / MiB / 1024)} GiB`);
  return parts.join('; ');
}
