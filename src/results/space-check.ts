/**
 * Free space before a cell: what the cell will write, estimated and stated, against what `statfs`
 * says is free where it will be written. Checked by `provision` before anything starts, so a cell that
 * cannot fit is refused with the path and the figures (non-retryable `DiskFull`) instead of failing
 * half-way — after the records of earlier cells, which stay as they are.
 *
 * The estimate, per filesystem:
 * - records (the results folder): {@link RECORDS_ALLOWANCE_BYTES} plus 4 KiB per measured run
 *   (samples, query_log rows and counters of one run stay well under that);
 * - data (the server's data folder, only where the server runs on this host — embedded and local
 *   targets): `scale × bytes per row × 1.5`, the bytes per row measured by a finished cell of the same
 *   run (`storage.json` `bytes_on_disk / rows`; the same codec first, else the largest of any codec)
 *   and the 1.5 for a merge that holds its source parts and its result at once. Before any cell of the
 *   run has finished there is no measurement: the data is not estimated and the check says so.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { FAILURE } from '../schema/failures';
import { StorageRecord } from '../schema/results';
import { codecKey } from '../schema/run-spec';
import { freeSpace, readRecordIfExists, runDir } from './store';

/** Bytes kept free for a cell's records beyond its runs (reports, counters, attempt logs). */
export const RECORDS_ALLOWANCE_BYTES = 16 * 2 ** 20;
/** Bytes per measured run in the records (samples, query_log rows, counters). */
export const RECORD_BYTES_PER_RUN = 4096;
/** Headroom on the data estimate: a merge writes its result while its source parts still exist. */
export const MERGE_HEADROOM = 1.5;

/** One filesystem's part of a cell's estimate. */
export interface SpaceNeed {
  /** The folder that will be written (its filesystem is the one checked). */
  path: string;
  /** Bytes the cell is estimated to write there. */
  bytes: number;
  /** How the estimate was made, as a reader checks it. */
  basis: string;
}

/** What a cell will write, from its scale, runs, codec and this run's finished cells. */
export interface CellSpaceInput {
  resultsDir: string;
  runId: string;
  cellKey: string;
  /** Rows the cell loads (`scale`). */
  rows: number;
  /** The cell's codec label (`LZ4`, `ZSTD(3)`…), to prefer a measurement of the same codec. */
  codec: string;
  /** Measured runs the cell will take (queries × runs per query, all phases). */
  runs: number;
  /** The server's data folder on this host (embedded, local targets); undefined when the server is elsewhere. */
  dataDir?: string;
}

/**
 * Bytes per row on disk measured by this run's finished cells: the same codec's largest, else the
 * largest of any codec; with the cell it came from.
 */
export function measuredBytesPerRow(
  resultsDir: string,
  runId: string,
  codec: string,
  exceptCell: string,
): { bytesPerRow: number; cell: string; sameCodec: boolean } | undefined {
  const cells = path.join(runDir(resultsDir, runId), 'cells');
  if (!existsSync(cells)) return undefined;
  const ck = codecKey(codec);
  let best: { bytesPerRow: number; cell: string; sameCodec: boolean } | undefined;
  for (const key of readdirSync(cells)) {
    if (key === exceptCell) continue;
    let rec: StorageRecord | undefined;
    try {
      rec = readRecordIfExists(path.join(cells, key, 'storage.json'), StorageRecord);
    } catch {
      continue; // an unreadable record: not a measurement
    }
    if (!rec || !rec.rows || rec.bytes_on_disk === null) continue;
    // The cell key names its codec (`v24.8-zstd3-r2`: cellKey in src/schema/matrix.ts).
    const sameCodec = new RegExp(`^v[^-]+-${ck.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(-|$)`).test(key);
    const c = { bytesPerRow: rec.bytes_on_disk / rec.rows, cell: key, sameCodec };
    if (!best || (c.sameCodec && !best.sameCodec) || (c.sameCodec === best.sameCodec && c.bytesPerRow > best.bytesPerRow))
      best = c;
  }
  return best;
}

const human = (b: number) =>
  b >= 2 ** 30 ? `${(b / 2 ** 30).toFixed(2)} GiB` : b >= 2 ** 20 ? `${(b / 2 ** 20).toFixed(1)} MiB` : `${Math.round(b / 1024)} KiB`;

/**
 * What the cell will write, per folder ({@link SpaceNeed}); folders on one filesystem are checked
 * together by {@link spaceProblem}.
 */
export function cellSpaceNeeds(c: CellSpaceInput): SpaceNeed[] {
  const records = RECORDS_ALLOWANCE_BYTES + c.runs * RECORD_BYTES_PER_RUN;
  const needs: SpaceNeed[] = [
    {
      path: runDir(c.resultsDir, c.runId),
      bytes: records,
      basis: `records ${human(records)} (${human(RECORDS_ALLOWANCE_BYTES)} + ${c.runs} runs × ${RECORD_BYTES_PER_RUN / 1024} KiB)`,
    },
  ];
  if (c.dataDir) {
    const m = measuredBytesPerRow(c.resultsDir, c.runId, c.codec, c.cellKey);
    if (m) {
      const bytes = c.rows * m.bytesPerRow * MERGE_HEADROOM;
      needs.push({
        path: c.dataDir,
        bytes,
        basis: `data ${human(bytes)} (${c.rows.toLocaleString('en-US')} rows × ${m.bytesPerRow.toFixed(1)} B/row on disk measured by cell ${m.cell}${
          m.sameCodec ? '' : ' (another codec: no cell of this codec has finished)'
        } × ${MERGE_HEADROOM} for merges)`,
      });
    } else
      needs.push({ path: c.dataDir, bytes: 0, basis: 'data not estimated (no cell of this run has finished yet)' });
  }
  return needs;
}

/**
 * Why the cell cannot fit, or undefined when it can: the needs of each filesystem (summed when two
 * folders share one) against `statfs` free bytes (`bavail × bsize`, what an unprivileged writer may use).
 */
export function spaceProblem(needs: readonly SpaceNeed[]): string | undefined {
  const byFs = new Map<string, { needs: SpaceNeed[]; free: number; total: number }>();
  for (const n of needs) {
    const room = freeSpace(n.path);
    if (!room) continue;
    // Folders with the same free and total bytes are taken as one filesystem (statfs gives no device id).
    const id = `${room.free}/${room.total}`;
    const e = byFs.get(id) ?? { needs: [], free: room.free, total: room.total };
    e.needs.push(n);
    byFs.set(id, e);
  }
  for (const fs of byFs.values()) {
    const want = fs.needs.reduce((s, n) => s + n.bytes, 0);
    if (want > fs.free)
      return `not enough free space for this cell on ${fs.needs.map((n) => n.path).join(' and ')}: it needs ≈ ${human(want)} (${fs.needs
        .map((n) => n.basis)
        .join('; ')}), statfs says ${human(fs.free)} free of ${human(fs.total)}`;
  }
  return undefined;
}

/**
 * Refuse the cell when it cannot fit ({@link spaceProblem}).
 * @returns the needs, for the step's record/heartbeat
 * @throws ApplicationFailure `DiskFull` (non-retryable) with the paths and figures, and how to go on
 */
export function requireSpace(c: CellSpaceInput): SpaceNeed[] {
  const needs = cellSpaceNeeds(c);
  const problem = spaceProblem(needs);
  if (problem)
    throw ApplicationFailure.create({
      type: FAILURE.DiskFull,
      nonRetryable: true,
      message: `cell ${c.cellKey}: ${problem}. Nothing was started; the records of finished cells are kept: free space, then resume the run (chbench resume ${c.runId})`,
    });
  return needs;
}
