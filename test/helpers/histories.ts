/**
 * Recorded workflow histories, kept per release: `test/histories/<workflow>_<chbench version>.json`
 * (e.g. `benchmark-cell_0.1.0.json`), with `workflow-ids.json` mapping each file to the workflow id
 * it was recorded under. A file is never overwritten: a release records its own, and every recorded
 * history must keep replaying against the current workflow code (test/replay/replay.test.ts).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { REPO_ROOT, temporalCliPath } from '../../src/config';

export const HISTORIES_DIR = path.join(REPO_ROOT, 'test', 'histories');
const IDS_FILE = path.join(HISTORIES_DIR, 'workflow-ids.json');

/** chbench's version from package.json (the suffix of the history files recorded now). */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}

/** `<workflow>_<version>.json`, e.g. `benchmark-matrix_0.2.0.json`. */
export function historyFile(
  workflow: 'benchmark-matrix' | 'benchmark-cell' | 'confirm-comparison' | 'bisect-versions',
  version = packageVersion(),
): string {
  return `${workflow}_${version}.json`;
}

function readIds(): Record<string, string> {
  return existsSync(IDS_FILE) ? (JSON.parse(readFileSync(IDS_FILE, 'utf8')) as Record<string, string>) : {};
}

/**
 * Store a history recorded under `workflowId` as `file` and note its id in `workflow-ids.json`.
 * @throws Error when `file` already exists (bump the version in package.json to record new ones).
 */
export function saveHistory(file: string, workflowId: string, historyJson: Buffer | string): void {
  const target = path.join(HISTORIES_DIR, file);
  if (existsSync(target))
    throw new Error(
      `${path.relative(REPO_ROOT, target)} exists: recorded histories are never overwritten (bump the version in package.json to record a new release's)`,
    );
  writeFileSync(target, historyJson);
  writeFileSync(IDS_FILE, JSON.stringify({ ...readIds(), [file]: workflowId }, null, 2) + '\n');
}

/** Every recorded history, with the workflow id it was recorded under (from `workflow-ids.json`). */
export function recordedHistories() {
  const ids = readIds();
  return readdirSync(HISTORIES_DIR)
    .filter((f) => f.endsWith('.json') && f !== 'workflow-ids.json')
    .sort()
    .map((file) => ({
      file,
      workflowId: ids[file],
      history: historyFromJSON(JSON.parse(readFileSync(path.join(HISTORIES_DIR, file), 'utf8'))),
    }));
}

/**
 * Record a finished run's matrix history and one cell's history (`temporal workflow show --output
 * json` against `address`) as this release's files. See {@link saveHistory}.
 * @throws Error when a file exists already
 */
export function recordRunHistories(address: string, runId: string, cellKey: string): void {
  saveHistory(historyFile('benchmark-matrix'), runId, showHistory(address, runId));
  saveHistory(historyFile('benchmark-cell'), `${runId}/${cellKey}`, showHistory(address, `${runId}/${cellKey}`));
}

/** A workflow's history as JSON (`temporal workflow show --output json` against `address`). */
export function showHistory(address: string, workflowId: string): Buffer {
  return execFileSync(temporalCliPath(), [
    'workflow',
    'show',
    '--workflow-id',
    workflowId,
    '--output',
    'json',
    '--address',
    address,
  ]);
}
