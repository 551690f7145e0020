/**
 * What makes two cells the same measurement, for reusing a stored cell (`chbench bisect`,
 * docs/regression.md "Reused cells"): the cell's spec hash over the inputs that decide what is
 * measured (the host kind, the machine class the server ran on, is `hostKindOf` of src/schema/host.ts).
 */
import { createHash } from 'node:crypto';
import type { CellInput } from '../schema/cell';
import { canonicalJson } from './db/rows';

/**
 * sha256 (hex) of the canonical JSON of the cell's measured inputs: version label, codec (and codec
 * profile), workload name, scale (rows), selected queries, skip index, after-load steps, protocol,
 * target spec, settings (query, MergeTree, optional), pinned defaults and load grids. Left out: the
 * run id, cell key, results directory, teardown policy, host placement and host-loss bookkeeping
 * (where the cell ran and what it is called, not what it measured). The workload's files are not
 * in it: they are the run's `workload_files` (`runs.workload_sha256` in the results database).
 */
export function cellSpecHash(cell: CellInput): string {
  const measured = {
    version: cell.version,
    codec: cell.codec,
    codecProfile: cell.codecProfile ?? null,
    workload: cell.workload,
    scale: cell.scale,
    queries: cell.queries ?? null,
    skipIndex: cell.skipIndex,
    afterLoad: cell.afterLoad ?? [],
    protocol: cell.protocol,
    target: cell.target,
    settings: cell.settings ?? null,
    pinDefaults: cell.pinDefaults ?? null,
    grids: cell.grids ?? null,
  };
  return createHash('sha256').update(canonicalJson(measured)).digest('hex');
}
