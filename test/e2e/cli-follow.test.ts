/**
 * The CLI says what is happening, on real components (Temporal dev server, a worker, the embedded
 * engine), with `chbench` run as a child process as a user runs it:
 * - `chbench run` with no worker on its task queue says so within seconds and keeps waiting;
 * - Ctrl-C detaches: exit 130, the cursor shown again on a terminal, the run goes on, and the
 *   message names `chbench watch` and `chbench cancel`;
 * - `chbench watch` re-attaches and ends with a one-line summary; `chbench resume` of the completed
 *   run says there is nothing to resume;
 * - `chbench cancel` of a run with `teardown: never` prints the report path, how to resume and the
 *   server it kept, which is still running where it says.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { startTemporalEnv, type TemporalEnv } from '../helpers/temporal-env';
import { startCli } from '../helpers/cli-process';
import { pollUntil } from '../../src/lib/poll';
import { cellDir } from '../../src/results/store';

let env: TemporalEnv;
before(async () => {
  env = await startTemporalEnv('cli-follow');
});
after(async () => {
  await env?.stop();
});

const cliEnv = (taskQueue = env.taskQueue) => ({
  TEMPORAL_ADDRESS: env.server.address,
  TEMPORAL_NAMESPACE: 'default',
  CHBENCH_TASK_QUEUE: taskQueue,
  CHBENCH_WORK_DIR: env.workDir,
});

/** A one- or two-cell embedded spec written to a file; returns its path. */
function specFile(name: string, o: Record<string, unknown> = {}): string {
  const spec = {
    name,
    workload: 'logs',
    scale: 300_000,
    target: { kind: 'embedded' },
    matrix: { version: ['26.7'], codec: ['LZ4'] },
    skipIndex: false,
    protocol: { quiesce: { stableForMs: 1000 } },
    resultsDir: env.resultsDir,
    ...o,
  };
  const file = path.join(env.tmp, `${name}-${randomUUID().slice(0, 6)}.json`);
  writeFileSync(file, JSON.stringify(spec));
  return file;
}

const status = async (runId: string) => (await env.client.workflow.getHandle(runId).describe()).status.name;

test('run with no worker says so within seconds and keeps waiting; Ctrl-C detaches (exit 130), the run stays', async () => {
  const queue = `nobody-${randomUUID().slice(0, 8)}`;
  const runId = `noworker-${randomUUID().slice(0, 8)}`;
  const t0 = Date.now();
  const cli = startCli(['run', specFile('noworker'), '--run-id', runId], cliEnv(queue));
  try {
    await cli.waitFor(
      new RegExp(
        `no worker is polling task queue \`${queue}\` on ${env.server.address.replace(/\./g, '\\.')}; start one with \`chbench worker\``,
      ),
      8000,
    );
    const saidAfterMs = Date.now() - t0;
    assert.ok(saidAfterMs < 8000, `said after ${saidAfterMs} ms`);
    // It keeps waiting for a worker.
    await new Promise((r) => setTimeout(r, 2000));
    assert.equal(cli.child.exitCode, null, 'still waiting after saying it');
    assert.equal(await status(runId), 'RUNNING');
    cli.child.kill('SIGINT');
    assert.equal(await cli.exited, 130);
    assert.match(
      cli.err(),
      new RegExp(
        `detached — run ${runId} continues; follow with \`chbench watch ${runId}\`, cancel with \`chbench cancel ${runId}\``,
      ),
    );
    assert.equal(await status(runId), 'RUNNING', 'Ctrl-C does not touch the run');
    console.log(`chbench run, no worker, Ctrl-C after ${saidAfterMs} ms:\n${cli.err()}`);
  } finally {
    cli.child.kill('SIGKILL');
    await env.client.workflow
      .getHandle(runId)
      .terminate('test over')
      .catch(() => undefined);
  }
});

test('Ctrl-C on a terminal shows the cursor again and detaches; watch re-attaches to a summary; resume: nothing to resume', async () => {
  const runId = `ctrlc-${randomUUID().slice(0, 8)}`;
  const cli = startCli(['run', specFile('ctrlc'), '--run-id', runId], cliEnv(), { tty: true });
  try {
    // The progress bar is up: cli-progress hid the cursor.
    await cli.waitFor(/\x1B\[\?25l/, 60_000); // eslint-disable-line no-control-regex
    cli.child.stdin!.write('\x03'); // Ctrl-C, typed on the terminal
    assert.equal(await cli.exited, 130);
    const shown = cli.out();
    assert.ok(
      shown.lastIndexOf('\x1B[?25h') > shown.lastIndexOf('\x1B[?25l'),
      'the cursor is shown again after it was last hidden',
    );
    assert.match(
      shown,
      new RegExp(
        `detached — run ${runId} continues; follow with \`chbench watch ${runId}\`, cancel with \`chbench cancel ${runId}\``,
      ),
    );
    assert.equal(await status(runId), 'RUNNING', 'the run goes on');
  } finally {
    cli.child.kill('SIGKILL');
  }

  const watch = startCli(['watch', runId], cliEnv());
  assert.equal(await watch.exited, 0, watch.err());
  assert.equal(watch.out().trim(), path.join(env.resultsDir, runId, 'report.md'));
  assert.match(watch.err(), new RegExp(`run ${runId}: 1/1 succeeded in \\d+ s\\n`));
  assert.equal(await status(runId), 'COMPLETED');

  const resume = startCli(['resume', runId, '--results-dir', env.resultsDir], cliEnv());
  assert.equal(await resume.exited, 0, resume.err());
  assert.match(
    resume.err(),
    new RegExp(`nothing to resume: run ${runId} completed and all 1 cell\\(s\\) finished \\(1 succeeded\\); report: `),
  );
  assert.equal(await status(runId), 'COMPLETED', 'no new workflow was started');
  console.log(`chbench watch:\n${watch.err()}${watch.out()}chbench resume:\n${resume.err()}`);
});

test('cancel a run with teardown never: the report path, how to resume, and the server kept with where it is', async () => {
  const runId = `cancel-${randomUUID().slice(0, 8)}`;
  const spec = {
    name: 'cancel',
    workload: 'logs',
    scale: 2_000_000,
    target: { kind: 'embedded' },
    matrix: { version: ['26.7'], codec: ['LZ4', 'ZSTD(3)'] },
    skipIndex: false,
    teardown: 'never',
    resultsDir: env.resultsDir,
  };
  await env.client.workflow.start('benchmarkMatrix', { taskQueue: env.taskQueue, workflowId: runId, args: [spec] });
  const provisioned = path.join(cellDir(env.resultsDir, runId, 'v26.7-lz4'), 'provision.json');
  await pollUntil(async () => existsSync(provisioned), { timeoutMs: 120_000, intervalMs: 200 });

  const cli = startCli(['cancel', runId], cliEnv());
  assert.equal(await cli.exited, 0, cli.err());
  const err = cli.err();
  const report = path.join(env.resultsDir, runId, 'report.md');
  assert.equal(cli.out().trim(), report);
  assert.ok(existsSync(report));
  // Two codecs and the A/A control cell (v26.7-lz4-r2): the cancel stops the first, the other two never ran.
  assert.match(err, new RegExp(`run ${runId} was cancelled: 0/3 succeeded, 1 cancelled, 2 not run in \\d+ s`));
  assert.match(err, new RegExp(`resume it with \`chbench resume ${runId}\``));
  const kept = new RegExp(
    `1 server\\(s\\) kept running.*\\n.*  v26\\.7-lz4: embedded at (http://127\\.0\\.0\\.1:\\d+) \\(pid (\\d+), data dir (\\S+)\\); recorded in ${provisioned.replace(/[.()]/g, '\\$&')}`,
  ).exec(err);
  assert.ok(kept, err);
  const [, url, pid, dataDir] = kept;
  assert.ok(existsSync(dataDir), 'the data dir is where it says');
  process.kill(Number(pid), 0); // throws when no such process
  const ping = await fetch(`${url}/ping`);
  assert.equal((await ping.text()).trim(), 'Ok.', 'the kept server answers at the URL printed');
  assert.equal(await status(runId), 'CANCELLED');
  console.log(`chbench cancel:\n${err}${cli.out()}`);
});
