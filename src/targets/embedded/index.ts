/**
 * The `embedded` target: the chdb engine (ClickHouse 26.x) in a separate process per cell, serving
 * the ClickHouse HTTP interface on loopback (`provision.ts` starts it, `server.ts` is the process).
 *
 * Capabilities: on the worker's host; cannot stop a statement while chdb computes it; one statement
 * at a time, so `system.events` differences are a run's counters; rows/bytes read come from the
 * output statistics; running statements are listed by `GET /chbench/running`; restartable; the
 * cell's statements are archived from the server's `statements.jsonl`.
 */
import { copyFileSync, existsSync } from 'node:fs';
import * as path from 'node:path';
import { httpGet, describeProcessTeardown, teardownProcessCell } from '../process';
import { registerTarget } from '../registry';
import { checkServer } from '../server-verbs';
import type { Target, TargetSpecOf } from '../target';
import { provisionEmbedded, teardownEmbedded } from './provision';

export { provisionEmbedded, teardownEmbedded, embeddedServerScript, EMBEDDED_LOG_FILE } from './provision';

/** The embedded target. */
export const embeddedTarget: Target<TargetSpecOf<'embedded'>> = {
  kind: 'embedded',
  capabilities: {
    onWorkerHost: true,
    canKillRunning: false,
    countersWithoutQueryLog: 'system.events',
    summaryReadSource: 'output statistics',
    runningStatementsFrom: 'target endpoint',
    restartable: true,
    statementArchive: true,
  },
  provision: (_spec, req) => provisionEmbedded(req),
  teardown: teardownEmbedded,
  teardownCell: (_spec, req) => teardownProcessCell(req),
  describeTeardown: describeProcessTeardown,
  check: checkServer,
  /** `GET <url>/chbench/running`: running and queued statements of the engine's one session. */
  async runningStatements(handle, _client, prefix) {
    const r = await httpGet(`${handle.url}/chbench/running`, 5000);
    if (r.status !== 200) throw new Error(`${handle.url}/chbench/running: HTTP ${r.status}`);
    return (JSON.parse(r.body) as { query_id: string }[]).map((x) => x.query_id).filter((id) => id.startsWith(prefix));
  },
  /** A copy of `<dataDir>/statements.jsonl`, the server's log of every statement (all of them are the cell's). */
  async archiveStatements(handle, _prefix, file) {
    const src = handle.dataDir ? path.join(handle.dataDir, 'statements.jsonl') : undefined;
    if (!src || !existsSync(src)) return 'not available: no statements.jsonl';
    try {
      copyFileSync(src, file);
    } catch (e) {
      return `not available: ${(e as Error).message}`;
    }
    return 'embedded statements.jsonl';
  },
  checkSpec: () => [],
};

registerTarget(embeddedTarget);
