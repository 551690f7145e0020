"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
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
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const node_fs_1 = require("node:fs");
const node_path_1 = __importDefault(require("node:path"));
const node_crypto_1 = require("node:crypto");
const temporal_env_1 = require("../helpers/temporal-env");
const cli_process_1 = require("../helpers/cli-process");
const poll_1 = require("../../src/lib/poll");
const store_1 = require("../../src/results/store");
let env;
(0, node_test_1.before)(async () => {
    env = await (0, temporal_env_1.startTemporalEnv)('cli-follow');
});
(0, node_test_1.after)(async () => {
    await env?.stop();
});
const cliEnv = (taskQueue = env.taskQueue) => ({
    TEMPORAL_ADDRESS: env.server.address,
    TEMPORAL_NAMESPACE: 'default',
    CHBENCH_TASK_QUEUE: taskQueue,
    CHBENCH_WORK_DIR: env.workDir,
});
/** A one- or two-cell embedded spec written to a file; returns its path. */
function specFile(name, o = {}) {
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
    const file = node_path_1.default.join(env.tmp, `${name}-${(0, node_crypto_1.randomUUID)().slice(0, 6)}.json`);
    (0, node_fs_1.writeFileSync)(file, JSON.stringify(spec));
    return file;
}
const status = async (runId) => (await env.client.workflow.getHandle(runId).describe()).status.name;
(0, node_test_1.test)('run with no worker says so within seconds and keeps waiting; Ctrl-C detaches (exit 130), the run stays', async () => {
    const queue = `nobody-${(0, node_crypto_1.randomUUID)().slice(0, 8)}`;
    const runId = `noworker-${(0, node_crypto_1.randomUUID)().slice(0, 8)}`;
    const t0 = Date.now();
    const cli = (0, cli_process_1.startCli)(['run', specFile('noworker'), '--run-id', runId], cliEnv(queue));
    try {
        await cli.waitFor(new RegExp(`no worker is polling task queue \`${queue}\` on ${env.server.address.replace(/\./g, '\\.')}; start one with \`chbench worker\``), 8000);
        const saidAfterMs = Date.now() - t0;
        strict_1.default.ok(saidAfterMs < 8000, `said after ${saidAfterMs} ms`);
        // It keeps waiting for a worker.
        await new Promise((r) => setTimeout(r, 2000));
        strict_1.default.equal(cli.child.exitCode, null, 'still waiting after saying it');
        strict_1.default.equal(await status(runId), 'RUNNING');
        cli.child.kill('SIGINT');
        strict_1.default.equal(await cli.exited, 130);
        strict_1.default.match(cli.err(), new RegExp(`detached — run ${runId} continues; follow with \`chbench watch ${runId}\`, cancel with \`chbench cancel ${runId}\``));
        strict_1.default.equal(await status(runId), 'RUNNING', 'Ctrl-C does not touch the run');
        console.log(`chbench run, no worker, Ctrl-C after ${saidAfterMs} ms:\n${cli.err()}`);
    }
    finally {
        cli.child.kill('SIGKILL');
        await env.client.workflow
            .getHandle(runId)
            .terminate('test over')
            .catch(() => undefined);
    }
});
(0, node_test_1.test)('Ctrl-C on a terminal shows the cursor again and detaches; watch re-attaches to a summary; resume: nothing to resume', async () => {
    const runId = `ctrlc-${(0, node_crypto_1.randomUUID)().slice(0, 8)}`;
    const cli = (0, cli_process_1.startCli)(['run', specFile('ctrlc'), '--run-id', runId], cliEnv(), { tty: true });
    try {
        // The progress bar is up: cli-progress hid the cursor.
        await cli.waitFor(/\x1B\[\?25l/, 60_000); // eslint-disable-line no-control-regex
        cli.child.stdin.write('\x03'); // Ctrl-C, typed on the terminal
        strict_1.default.equal(await cli.exited, 130);
        const shown = cli.out();
        strict_1.default.ok(shown.lastIndexOf('\x1B[?25h') > shown.lastIndexOf('\x1B[?25l'), 'the cursor is shown again after it was last hidden');
        strict_1.default.match(shown, new RegExp(`detached — run ${runId} continues; follow with \`chbench watch ${runId}\`, cancel with \`chbench cancel ${runId}\``));
        strict_1.default.equal(await status(runId), 'RUNNING', 'the run goes on');
    }
    finally {
        cli.child.kill('SIGKILL');
    }
    const watch = (0, cli_process_1.startCli)(['watch', runId], cliEnv());
    strict_1.default.equal(await watch.exited, 0, watch.err());
    strict_1.default.equal(watch.out().trim(), node_path_1.default.join(env.resultsDir, runId, 'report.md'));
    strict_1.default.match(watch.err(), new RegExp(`run ${runId}: 1/1 succeeded in \\d+ s\\n`));
    strict_1.default.equal(await status(runId), 'COMPLETED');
    const resume = (0, cli_process_1.startCli)(['resume', runId, '--results-dir', env.resultsDir], cliEnv());
    strict_1.default.equal(await resume.exited, 0, resume.err());
    strict_1.default.match(resume.err(), new RegExp(`nothing to resume: run ${runId} completed and all 1 cell\\(s\\) finished \\(1 succeeded\\); report: `));
    strict_1.default.equal(await status(runId), 'COMPLETED', 'no new workflow was started');
    console.log(`chbench watch:\n${watch.err()}${watch.out()}chbench resume:\n${resume.err()}`);
});
(0, node_test_1.test)('cancel a run with teardown never: the report path, how to resume, and the server kept with where it is', async () => {
    const runId = `cancel-${(0, node_crypto_1.randomUUID)().slice(0, 8)}`;
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
    const provisioned = node_path_1.default.join((0, store_1.cellDir)(env.resultsDir, runId, 'v26.7-lz4'), 'provision.json');
    await (0, poll_1.pollUntil)(async () => (0, node_fs_1.existsSync)(provisioned), { timeoutMs: 120_000, intervalMs: 200 });
    const cli = (0, cli_process_1.startCli)(['cancel', runId], cliEnv());
    strict_1.default.equal(await cli.exited, 0, cli.err());
    const err = cli.err();
    const report = node_path_1.default.join(env.resultsDir, runId, 'report.md');
    strict_1.default.equal(cli.out().trim(), report);
    strict_1.default.ok((0, node_fs_1.existsSync)(report));
    strict_1.default.match(err, new RegExp(`run ${runId} was cancelled: 0/2 succeeded, 1 cancelled, 1 not run in \\d+ s`));
    strict_1.default.match(err, new RegExp(`resume it with \`chbench resume ${runId}\``));
    const kept = new RegExp(`1 server\\(s\\) kept running.*\\n.*  v26\\.7-lz4: embedded at (http://127\\.0\\.0\\.1:\\d+) \\(pid (\\d+), data dir (\\S+)\\); recorded in ${provisioned.replace(/[.()]/g, '\\$&')}`).exec(err);
    strict_1.default.ok(kept, err);
    const [, url, pid, dataDir] = kept;
    strict_1.default.ok((0, node_fs_1.existsSync)(dataDir), 'the data dir is where it says');
    process.kill(Number(pid), 0); // throws when no such process
    const ping = await fetch(`${url}/ping`);
    strict_1.default.equal((await ping.text()).trim(), 'Ok.', 'the kept server answers at the URL printed');
    strict_1.default.equal(await status(runId), 'CANCELLED');
    console.log(`chbench cancel:\n${err}${cli.out()}`);
});
//# sourceMappingURL=cli-follow.test.js.map