"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * `chbench run` shows a step that retries as `attempt n: <the previous attempt's error>` (from the
 * cell workflow's pending activity, Temporal `DescribeWorkflowExecution`), and ends with a one-line
 * summary. Real Temporal dev server and the real workflows; the activities are stubs, so the
 * provision step can fail with a retryable error a set number of times.
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const node_fs_1 = require("node:fs");
const node_os_1 = __importDefault(require("node:os"));
const node_path_1 = __importDefault(require("node:path"));
const node_crypto_1 = require("node:crypto");
const temporal_env_1 = require("../helpers/temporal-env");
const stub_activities_1 = require("../helpers/stub-activities");
const cli_process_1 = require("../helpers/cli-process");
const stubs = (0, stub_activities_1.stubActivities)();
let env;
let tmp;
(0, node_test_1.before)(async () => {
    env = await (0, temporal_env_1.startStubEnv)('cli-retry', stubs.activities);
    tmp = (0, node_fs_1.mkdtempSync)(node_path_1.default.join(node_os_1.default.tmpdir(), 'chbench-cli-retry-'));
});
(0, node_test_1.after)(async () => {
    await env?.stop();
    (0, node_fs_1.rmSync)(tmp, { recursive: true, force: true });
});
(0, node_test_1.test)('a retrying step shows "attempt n: <error>"; the run ends with "2/2 succeeded in N s"', async () => {
    const runId = `retry-${(0, node_crypto_1.randomUUID)().slice(0, 8)}`;
    const file = node_path_1.default.join(tmp, 'spec.json');
    (0, node_fs_1.writeFileSync)(file, JSON.stringify({
        name: 'retry',
        workload: 'logs',
        scale: 1000,
        target: { kind: 'embedded' },
        matrix: { version: ['26.7'], codec: ['LZ4', 'ZSTD(3)'] },
        skipIndex: false,
        resultsDir: node_path_1.default.join(tmp, 'results'),
    }));
    // The first cell's provision fails 4 times (retried after 1, 2, 4, 8 s), then succeeds.
    stubs.failWith = (activity, key, n) => activity === 'provision' && key.endsWith('/v26.7-lz4') && n <= 4
        ? new Error('connect ECONNREFUSED 127.0.0.1:9000')
        : undefined;
    try {
        const cli = (0, cli_process_1.startCli)(['run', file, '--run-id', runId], {
            TEMPORAL_ADDRESS: env.server.address,
            TEMPORAL_NAMESPACE: 'default',
            CHBENCH_TASK_QUEUE: env.taskQueue,
        });
        const m = await cli.waitFor(/v26\.7-lz4 {2}provision — attempt ([2-5]): connect ECONNREFUSED 127\.0\.0\.1:9000/, 30_000);
        strict_1.default.ok(Number(m[1]) >= 2);
        strict_1.default.equal(await cli.exited, 0, cli.err());
        strict_1.default.match(cli.err(), new RegExp(`run ${runId}: 2/2 succeeded in \\d+ s\\n`));
        strict_1.default.equal(cli.out().trim(), `/stub/${runId}/report.md`);
        console.log(cli.err());
    }
    finally {
        stubs.failWith = undefined;
    }
});
//# sourceMappingURL=cli-retry.test.js.map