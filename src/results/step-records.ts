/**
 * The step records of one cell folder that carry step windows (`load.json`, `quiesce-<label>.json`,
 * `queries-baseline.json`, `index.json`, `queries-index.json`, `teardown.json`), read through their
 * schemas for `cellStepWindows` (`src/cloud/steps.ts`): the cloud metrics and the local bottleneck
 * labels attribute their figures to the same windows.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { readRecord, readRecordIfExists } from './store';
import {
  IndexRecord,
  LoadRecord,
  QueriesRecord,
  QuiesceRecord,
  TeardownRecord,
  type ProvisionRecord,
} from '../schema/results';
import type { CellStepRecords } from '../cloud/steps';

/**
 * Read a cell folder's step records (absent file = the step did not run).
 * @param dir the cell folder `<resultsDir>/<runId>/cells/<cellKey>/`
 * @param provision its `provision.json`
 * @throws Error naming the file and field when a record does not fit its schema
 */
export function readCellStepRecords(dir: string, provision: ProvisionRecord): CellStepRecords {
  const quiesce: Record<string, QuiesceRecord> = {};
  for (const f of readdirSync(dir)
    .filter((x) => /^quiesce-.+\.json$/.test(x))
    .sort())
    quiesce[f.slice('quiesce-'.length, -'.json'.length)] = readRecord(path.join(dir, f), QuiesceRecord);
  return {
    provision,
    load: readRecordIfExists(path.join(dir, 'load.json'), LoadRecord),
    quiesce,
    queriesBaseline: readRecordIfExists(path.join(dir, 'queries-baseline.json'), QueriesRecord),
    index: readRecordIfExists(path.join(dir, 'index.json'), IndexRecord),
    queriesIndex: readRecordIfExists(path.join(dir, 'queries-index.json'), QueriesRecord),
    teardown: readRecordIfExists(path.join(dir, 'teardown.json'), TeardownRecord),
  };
}
