/**
 * A cancelled step's statement is gone from the server when the cancellation is reported (issue 21
 * item 14), on Debian's clickhouse-server 18.16: `killOnCancel` sends `KILL QUERY … ASYNC`, then waits
 * (bounded) until `system.processes` no longer lists the statement. The teardown's statement archive
 * (`system.query_log`) taken right after contains it, and the attempt record says how long the kill took.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { provisionLocal, teardownLocal } from '../../src/targets/local';
import { connect } from '../../src/clickhouse/client';
import { killOnCancel } from '../../src/activities/support/attempts';
import { readAttemptLog, withAttemptLog } from '../../src/activities/support/attempt-log';
import { archiveServerLog } from '../../src/activities/teardown';
import { cancellationSignal } from '../../src/temporal/activity-context';
import { queryIdPrefix, type CellInput } from '../../src/schema/cell';
import { cellDir } from '../../src/results/store';
import type { TargetHandle } from '../../src/schema/target';
import { startActivity } from '../helpers/activity-env';

const runId = `cancelkill${Math.random().toString(36).slice(2, 8)}`;
const cellKey = 'v18-lz4';
let tmp: string;
let target: TargetHandle | undefined;

before(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'chbench-cancel-kill-'));
  target = await provisionLocal(
    { runId, cellKey, version: '18.16', workDir: path.join(tmp, 'work') },
    '/usr/sbin/clickhouse-server',
  );
});
after(async () => {
  if (target) await teardownLocal(target).catch(() => undefined);
  rmSync(tmp, { recursive: true, force: true });
});

async function listed(t: TargetHandle, queryId: string): Promise<number> {
  const c = connect(t);
  try {
    const rows = await (
      await c.query({
        query: `SELECT count() AS n FROM system.processes WHERE query_id = '${queryId}'`,
        format: 'JSONEachRow',
      })
    ).json<{ n: string }>();
    return Number(rows[0].n);
  } finally {
    await c.close();
  }
}

test('on cancel the killed statement has left system.processes before the cancellation is reported, and the archive holds it', async () => {
  const t = target!;
  const cell = { resultsDir: path.join(tmp, 'results'), runId, cellKey } as CellInput;
  const queryId = `${queryIdPrefix(runId, cellKey, 'load')}-a1`;
  // A statement that runs ~50 s: one row per block, 0.5 s per row (the KILL is seen between blocks).
  const acts = withAttemptLog({
    loadData: async (_c: CellInput) => {
      const c = connect(t);
      try {
        return await killOnCancel(
          t,
          queryId,
          c.command({
            query: 'SELECT sleepEachRow(0.5) FROM system.numbers LIMIT 100',
            query_id: queryId,
            clickhouse_settings: { max_block_size: '1' },
            abort_signal: cancellationSignal(),
          }),
        );
      } finally {
        await c.close();
      }
    },
  });
  const a = startActivity(acts.loadData, cell);
  const t0 = Date.now();
  while ((await listed(t, queryId)) === 0) {
    assert.ok(Date.now() - t0 < 20_000, 'the statement never showed in system.processes');
    await new Promise((r) => setTimeout(r, 100));
  }
  const cancelledAt = Date.now();
  a.cancel();
  const out = await a.settled;
  const tookMs = Date.now() - cancelledAt;
  assert.ok(!out.ok && /abort/i.test(String(out.error)), `cancelled, got ${String(!out.ok && out.error)}`);
  assert.equal(await listed(t, queryId), 0, `still in system.processes when the cancel was reported (${tookMs} ms)`);
  console.log(`cancellation reported ${tookMs} ms after cancel(), statement gone from system.processes`);

  const file = path.join(tmp, 'server-log.jsonl');
  const source = await archiveServerLog(t, queryIdPrefix(runId, cellKey, '').replace(/-$/, ''), file);
  assert.match(source, /system\.query_log/);
  const ids = readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { query_id: string }).query_id);
  assert.ok(ids.includes(queryId), `archive (${source}) holds the killed statement: ${ids.join(', ')}`);

  const [rec] = readAttemptLog(cellDir(cell.resultsDir, runId, cellKey));
  assert.equal(rec.outcome, 'cancelled');
  const k = rec.cancel_kills?.[0];
  assert.ok(k, `attempt record lists the kill: ${JSON.stringify(rec)}`);
  assert.equal(k.query_id, queryId);
  assert.equal(k.still_running, false);
  assert.ok(k.waited_ms >= 0 && k.waited_ms <= tookMs + 50, `waited_ms ${k.waited_ms} within ${tookMs} ms`);
  console.log(`kill: ${k.kill}; waited ${k.waited_ms} ms (worker monotonic clock)`);
});
