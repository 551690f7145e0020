"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * Issue 13 §3 through the whole workflow, on real components (Temporal dev server + worker, the
 * embedded engine): reports that stay honest when things go wrong. A run whose only cell fails, and a
 * run cancelled while its skip index is being materialized, are run for real; report.md, report.html
 * and result.json are then read as a user would.
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const node_fs_1 = require("node:fs");
const node_path_1 = __importDefault(require("node:path"));
const temporal_env_1 = require("../helpers/temporal-env");
let env;
(0, node_test_1.before)(async () => {
    env = await (0, temporal_env_1.startTemporalEnv)('report-honest');
});
(0, node_test_1.after)(async () => {
    await env?.stop();
});
const read = (runId, f) => (0, node_fs_1.readFileSync)(node_path_1.default.join(env.resultsDir, runId, f), 'utf8');
(0, node_test_1.test)('a run whose only cell failed before measuring: the banner says nothing was measured, the status counts the failed cell', async () => {
    const runId = `honest-failed-${Date.now()}`;
    // A query setting the server does not have: provisioning refuses it (InvalidSetting) before loading.
    const spec = {
        name: 'honest-failed',
        workload: 'trivial',
        scale: 1000,
        target: { kind: 'embedded' },
        matrix: { version: ['26.7'], codec: ['LZ4'] },
        protocol: { coldRuns: 1, warmupRuns: 0, warmRuns: 1 },
        settings: { query: { no_such_setting_chbench_13: 1 } },
        resultsDir: env.resultsDir,
    };
    await env.client.workflow.execute('benchmarkMatrix', { taskQueue: env.taskQueue, workflowId: runId, args: [spec] });
    const doc = JSON.parse(read(runId, 'cells/v26.7-lz4/result.json'));
    strict_1.default.equal(doc.status, 'failed');
    strict_1.default.equal(doc.stopped_in, 'provision');
    strict_1.default.equal(doc.load, null);
    strict_1.default.equal(doc.workflow_id, `${runId}/v26.7-lz4`);
    const md = read(runId, 'report.md');
    strict_1.default.match(md, /run status \*\*completed, 1 of 1 cells failed\*\*/);
    strict_1.default.doesNotMatch(md, /Validity: every cold run was cold/);
    strict_1.default.doesNotMatch(md, /run status \*\*completed\*\*/);
    strict_1.default.match(md, /> \*\*No cell measured anything\*\* — v26\.7-lz4 failed in provision: .*no_such_setting_chbench_13/);
    strict_1.default.match(md, /are left out: no cell measured anything/);
    strict_1.default.doesNotMatch(md, /^## (Ingest|Queries|Validity)$/m, 'no empty measurement tables');
    const html = read(runId, 'report.html');
    strict_1.default.match(html, /run status <strong>completed, 1 of 1 cells failed<\/strong>/);
    strict_1.default.match(html, /<strong>No cell measured anything<\/strong> — v26\.7-lz4 failed in provision/);
    strict_1.default.doesNotMatch(html, /every cold run was cold/);
});
(0, node_test_1.test)('a run cancelled during index materialization: "cancelled before its index was built", counters "not collected (cancelled)"', async () => {
    const runId = `honest-cancel-index-${Date.now()}`;
    // The slow-index workload: a tiny table whose skip index takes ~50 s to materialize (20,000 hashes per row).
    const spec = {
        name: 'honest-cancel-index',
        workload: 'slow-index',
        scale: 300_000,
        target: { kind: 'embedded' },
        matrix: { version: ['26.7'], codec: ['ZSTD(3)'] },
        protocol: { coldRuns: 1, warmupRuns: 0, warmRuns: 1 },
        resultsDir: env.resultsDir,
    };
    const handle = await env.client.workflow.start('benchmarkMatrix', {
        taskQueue: env.taskQueue,
        workflowId: runId,
        args: [spec],
    });
    const cellKey = 'v26.7-zstd3';
    let seen = '';
    for (let i = 0; i < 6000 && seen !== 'materialize-index'; i++) {
        const p = await env.client.workflow
            .getHandle(`${runId}/${cellKey}`)
            .query('progress')
            .catch(() => undefined);
        seen = p?.step ?? seen;
        if (seen !== 'materialize-index')
            await new Promise((r) => setTimeout(r, 100));
    }
    strict_1.default.equal(seen, 'materialize-index', 'the cell reached the index step');
    await handle.cancel();
    await handle.result().catch(() => undefined);
    const doc = JSON.parse(read(runId, `cells/${cellKey}/result.json`));
    strict_1.default.equal(doc.status, 'cancelled');
    strict_1.default.equal(doc.stopped_in, 'materialize-index', 'cancelled while the index was being built');
    strict_1.default.equal(doc.index, null, 'no index.json: the build did not finish');
    strict_1.default.equal(doc.skip_index_planned, true);
    strict_1.default.ok(doc.queries_baseline?.queries.length, 'the baseline queries were measured');
    strict_1.default.equal(doc.metrics_delta, null);
    strict_1.default.match(doc.metrics_delta_unavailable, /^not collected \(cancelled during materialize-index/);
    const md = read(runId, 'report.md');
    strict_1.default.match(md, /run status \*\*cancelled, 1 of 1 cells cancelled\*\*/);
    strict_1.default.match(md, /No cell materialized a skip index: v26\.7-zstd3 was cancelled before its index was built \(during materialize-index\)\./);
    strict_1.default.doesNotMatch(md, /disabled in the spec, or the workload defines none/);
    strict_1.default.doesNotMatch(md, /before and after the index/);
    strict_1.default.doesNotMatch(md, /## Skip index .*before \/ after/, 'no before/after heading without an index');
    const counters = md.split('\n').find((l) => l.startsWith(`| ${cellKey} (cancelled)`) && l.includes('not collected'));
    strict_1.default.ok(counters, 'the counters row of the cancelled cell');
    strict_1.default.match(counters, /not collected \(cancelled\)/);
    strict_1.default.doesNotMatch(counters, /\| n\/a /, 'no counter shown as missing on the server');
    // Captions from what ran: the generator source of load.sql as sent; the query id as spelled.
    strict_1.default.match(md, /reading `numbers\(300000\)`/);
    strict_1.default.doesNotMatch(md, /numbers_mt/);
    strict_1.default.match(md, /\| q1 count of a range/);
    strict_1.default.doesNotMatch(md, /\bQ1\b/);
    // The banner covers only what was measured, and says which cell did not finish.
    strict_1.default.match(md, /> \*\*Validity of what was measured only\*\*|> \*\*Validity could not be fully judged\*\*|> \*\*⚠ This run has invalid/);
    strict_1.default.match(md, /v26\.7-zstd3 cancelled during materialize-index/);
    strict_1.default.doesNotMatch(md, /^Validity: every cold run was cold/m);
    const html = read(runId, 'report.html');
    strict_1.default.match(html, /cancelled before its index was built \(during materialize-index\)/);
});
//# sourceMappingURL=report-honest.test.js.map