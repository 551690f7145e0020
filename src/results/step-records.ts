/** A cell's step records as the cloud figures read them (`CellStepRecords`, `src/cloud/steps.ts`). */
import path from 'node:path';
import { readdirSync } from 'node:fs';
import { readRecord, readRecordIfExists } from './store';
import { IndexRecord, LoadRecord, QueriesRecord, QuiesceRecord, TeardownRecord, type ProvisionRecord } from '../schema/results';
import type { CellStepRecords } from '../cloud/steps';

/**
 * Read a cell's step records (those that exist): `load.json`, every `quiesce-<label>.json`,
 * `queries-baseline.json`, `index.json`, `queries-index.json`, `teardown.json`, each parsed with its schema.
 * @throws Error naming the file and field when a record does not parse
 */
export function readCellStepRecords(dir: string, provision: ProvisionRecord): CellStepRecords {
  const quiesce: Record<string, QuiesceRecord> = {};
  for (const f of readdirSync(dir)
    .filter((x) => /^quiesce-.+\.json$/.test(x))
    .sort())
    quiesce[f.slice('quiesce-'.length, -'.json'.length)] = readRecord(path.join(dir, f), QuiesceRecord);
  const opt = <T>(v: T | undefined) => v;
  return {
    provision,
    load: opt(readRecordIfExists(path.join(dir, 'load.json'), LoadRecord)),
    quiesce,
    queriesBaseline: opt(readRecordIfExists(path.join(dir, 'queries-baseline.json'), QueriesRecord)),
    index: opt(readRecordIfExists(path.join(dir, 'index.json'), IndexRecord)),
    queriesIndex: opt(readRecordIfExists(path.join(dir, 'queries-index.json'), QueriesRecord)),
    teardown: opt(readRecordIfExists(path.join(dir, 'teardown.json'), TeardownRecord)),
  };
}
