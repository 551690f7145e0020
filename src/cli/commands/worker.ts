/** `chbench worker`: run a worker on the chbench task queue. */
import type { Command } from 'commander';
import { hostAddress, loadConfig } from '../../config';
import { EXIT, fail } from '../exit-codes';

/** Add `worker` to the chbench program. */
export function registerWorkerCommand(program: Command): void {
  program
    .command('worker')
    .description(
      'run a worker (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, CHBENCH_TASK_QUEUE, CHBENCH_WORK_DIR, CHBENCH_HOST_ID, CHBENCH_HOST_ADDRESS)',
    )
    .action(async () => {
      const { runWorker } = await import('../../worker');
      let cfg: ReturnType<typeof loadConfig>;
      try {
        cfg = loadConfig();
        hostAddress();
      } catch (e) {
        return fail(EXIT.invalid, (e as Error).message);
      }
      try {
        await runWorker(cfg);
      } catch (e) {
        const msg = (e as Error).message ?? String(e);
        if (/connect|UNAVAILABLE|ECONNREFUSED|transport/i.test(msg))
          fail(
            EXIT.unreachable,
            `cannot reach Temporal at ${cfg.temporalAddress} (set TEMPORAL_ADDRESS): ${msg.split('\n')[0]}`,
          );
        throw e;
      }
    });
}
