import path from 'node:path';
import { EVENT_BUDGET } from '../../src/workflows/benchmark-matrix';
import { orchestrationSpec } from '../../test/helpers/orchestration-spec';
import { seed, startWorker, stopWorker, type Ctx } from '../harness';
import { targetPassword } from '../../src/clickhouse/client';

/** Repetitions of the long matrix's 28 (version, codec) cells: 18 = 504 cells (CI runs fewer, see .ci/run). */
export const LONG_REPEAT = Number(process.env.CHAOS_LONG_REPEAT ?? 18);

/**
 * Not a fault: a 504-cell matrix (trivial workload, 4 version labels × 7 codecs × 18 repetitions;
 * `CHAOS_LONG_REPEAT` sets the repetitions) on one embedded server used as an `external` target,
 * checking that every workflow history — each run of the matrix (it continues as new) and every cell —
 * stays under 10,000 events. With fewer repetitions the matrix's event budget shrinks to half the proportional one,
 * so it still continues as new at least once.
 */
export async function longMatrix(ctx: Ctx): Promise<{ ok: boolean; line: string }> {
  const { provisionEmbedded, teardownEmbedded } = await import('../../src/targets/embedded');
  const server = await provisionEmbedded({
    runId: `chaos-long-server-${seed}`,
    cellKey: 'shared',
    version: '26.7',
    workDir: path.join(ctx.tmp, 'long-server'),
  });
  const runId = `chaos-long-${seed}`;
  // The shared server requires its password: the worker reads it from the environment the spec names
  // (never from the spec), so the worker is restarted with it.
  ctx.workerEnv = { ...ctx.workerEnv, CHAOS_LONG_PASSWORD: targetPassword(server) };
  await stopWorker(ctx, 'SIGTERM');
  startWorker(ctx);
  const t0 = Date.now();
  try {
    const spec = orchestrationSpec({
      name: 'long',
      url: server.url,
      passwordEnv: 'CHAOS_LONG_PASSWORD',
      version: ['26', '26.7', '26.7.2', '26.7.2.1'],
      codec: ['LZ4', 'LZ4HC', 'ZSTD(1)', 'ZSTD(3)', 'ZSTD(6)', 'ZSTD(9)', 'NONE'],
      repeat: LONG_REPEAT,
      concurrency: 8,
      resultsDir: ctx.resultsDir,
    });
    const total = 28 * LONG_REPEAT;
    const r = (await ctx.client.workflow.execute('benchmarkMatrix', {
      taskQueue: ctx.taskQueue,
      workflowId: runId,
      args:
        LONG_REPEAT < 18
          ? [spec, { eventBudget: Math.max(100, Math.round((EVENT_BUDGET * LONG_REPEAT) / 36)) }]
          : [spec],
    })) as { cells: { status: string }[] };
    const ok = r.cells.filter((c) => c.status === 'succeeded').length;
    let maxCell = 0;
    let cells = 0;
    for await (const w of ctx.client.workflow.list({
      query: `ChbenchRunId = '${runId}' AND WorkflowType = 'benchmarkCell'`,
    })) {
      cells++;
      maxCell = Math.max(maxCell, w.historyLength);
    }
    const matrixRuns: number[] = [];
    for await (const w of ctx.client.workflow.list({ query: `WorkflowId = '${runId}'` }))
      matrixRuns.push(w.historyLength);
    const maxMatrix = Math.max(...matrixRuns);
    const pass = ok === total && cells === total && matrixRuns.length > 1 && Math.max(maxMatrix, maxCell) < 10_000;
    return {
      ok: pass,
      line: `long matrix: ${ok}/${total} cells succeeded in ${((Date.now() - t0) / 1000).toFixed(0)} s; matrix ran ${matrixRuns.length} time(s) (continue-as-new), largest matrix history ${maxMatrix} events, largest cell history ${maxCell} events (limit 10,000)`,
    };
  } finally {
    await teardownEmbedded(server);
  }
}
