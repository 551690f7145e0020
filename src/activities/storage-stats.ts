/**
 * storageStats: record the table's storage (`storage.json`) as the server reports it, after the load
 * and the merges quiesced; the method and its sources are in src/clickhouse/storage.ts.
 */
import { readStorage } from '../clickhouse/storage';
import { StorageRecord } from '../schema/results';
import type { StepContext } from './step-context';

/** Activity factory. */
export function createStorageStats() {
  return {
    /**
     * Record storage figures in `storage.json`.
     * @returns totals (bytes; null where the server cannot give them, see readStorageWithoutParts) and whether per-column sizes are available.
     */
    async storageStats(ctx: StepContext): Promise<{
      compressed_bytes: number | null;
      uncompressed_bytes: number | null;
      ratio: number | null;
      columns: boolean;
    }> {
      const rec = await readStorage(ctx.client(), ctx.workload.table);
      ctx.write('storage.json', StorageRecord, rec);
      return {
        compressed_bytes: rec.compressed_bytes,
        uncompressed_bytes: rec.uncompressed_bytes,
        ratio: rec.ratio,
        columns: rec.columns !== null,
      };
    },
  };
}
