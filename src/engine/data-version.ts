/**
 * Which engine version wrote a data directory, so that no engine ever opens a directory written by
 * a NEWER version: ClickHouse data upgrades but does not downgrade, and an older chdb build opening
 * a newer directory answers `count() = 0` with no error while it moves every part to
 * `detached/broken-on-start_*` (checked: a 26.9 directory opened by 25.8 or 26.1).
 *
 * The marker `<dataPath>/../chbench-data-version.json` = `{clickhouse, package, firstWrittenAt,
 * lastOpenedAt}` is written by the engine server before its engine opens the directory, and
 * raised (never lowered) when a newer engine opens it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic } from '../lib/fs';
import { compareVersions } from '../schema/version';

export { compareVersions };

/** The marker's content. */
export interface DataVersionMarker {
  /** Newest ClickHouse version (`version()`) that opened the directory. */
  clickhouse: string;
  /** Its package, e.g. `pypi chdb-core==26.9.0`. */
  package: string;
  firstWrittenAt: string;
  lastOpenedAt: string;
}

/** An engine asked to open a directory a newer engine wrote. */
export class DataDowngradeError extends Error {
  constructor(
    readonly dataDir: string,
    readonly writtenBy: string,
    readonly engine: string,
  ) {
    super(
      `data directory ${dataDir} was written by ClickHouse ${writtenBy}; this engine is ClickHouse ${engine}, older: it would lose every part (moved to detached/ without an error), so it refuses to open it. Use ClickHouse ${writtenBy} or newer, or a fresh directory`,
    );
    this.name = 'DataDowngradeError';
  }
}

/** Path of the marker for a server's data directory (the parent of the engine's `data/`). */
export function markerPath(dataDir: string): string {
  return path.join(dataDir, 'chbench-data-version.json');
}

/** The marker of `dataDir`, when written. */
export function readDataVersion(dataDir: string): DataVersionMarker | undefined {
  try {
    return JSON.parse(fs.readFileSync(markerPath(dataDir), 'utf8')) as DataVersionMarker;
  } catch {
    return undefined;
  }
}

/**
 * Check `dataDir` before the engine opens it and record this engine as its newest opener.
 * @param engine the engine's ClickHouse version (`version()`, e.g. `24.8.4.1`)
 * @throws DataDowngradeError when a newer version wrote the directory (the marker is left as is)
 */
export function claimDataDir(dataDir: string, engine: string, pkg: string): void {
  const now = new Date().toISOString();
  const m = readDataVersion(dataDir);
  if (m && compareVersions(m.clickhouse, engine) > 0) throw new DataDowngradeError(dataDir, m.clickhouse, engine);
  const next: DataVersionMarker = m
    ? {
        ...m,
        ...(compareVersions(engine, m.clickhouse) > 0 ? { clickhouse: engine, package: pkg } : {}),
        lastOpenedAt: now,
      }
    : { clickhouse: engine, package: pkg, firstWrittenAt: now, lastOpenedAt: now };
  writeFileAtomic(markerPath(dataDir), JSON.stringify(next, null, 2) + '\n');
}
