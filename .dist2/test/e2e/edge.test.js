"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * Issue 7 through the whole workflow, on real components (Temporal dev server + worker, the embedded
 * engine, Debian's clickhouse-server 18.16): the `edge` workload's statements — one slower than every
 * heartbeat timeout, a result bigger than a JavaScript string, a query that fails after the server
 * started sending rows — are measured or fail cleanly, never kill the cell by a timeout or a parse.
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const node_fs_1 = require("node:fs");
const node_path_1 = __importDefault(require("node:path"));
const temporal_env_1 = require("../helpers/temporal-env");
const common_1 = require("@temporalio/common");
const failures_1 = require("../../src/schema/failures");
const BINARY = process.env.CHBENCH_CLICKHOUSE_SERVER ?? '/usr/sbin/clickhouse-server';
let env;
(0, node_test_1.before)(async () => {
    env = await (0, temporal_env_1.startTemporalEnv)('edge');
});
(0, node_test_1.after)(async () => {
    await env?.stop();
});
async function runEdge(name, queries, target, version = '26.7') {
    const spec = {
        name,
        workload: 'edge',
        scale: 1000,
        queries,
        target,
        matrix: { version: [version], codec: ['LZ4'] },
        protocol: { coldRuns: 1, warmupRuns: 0, warmRuns: 1 },
        skipIndex: false,
        resultsDir: env.resultsDir,
    };
    const runId = `${name}-${Date.now()}`;
    const r = (await env.client.workflow.execute('benchmarkMatrix', {
        taskQueue: env.taskQueue,
        workflowId: runId,
        args: [spec],
    }));
    const cell = r.cells[0];
    const doc = JSON.parse((0, node_fs_1.readFileSync)(cell.resultFile, 'utf8'));
    const report = (0, node_fs_1.readFileSync)(node_path_1.default.join(node_path_1.default.dirname(node_path_1.default.dirname(node_path_1.default.dirname(cell.resultFile))), 'report.md'), 'utf8');
    return { runId, cell, doc, report };
}
(0, node_test_1.test)('embedded: a 15 s statement and a 600 MB result are measured; the cell succeeds', async () => {
    const { cell, doc } = await runEdge('edge-long-big', ['slow', 'big', 'count'], { kind: 'embedded' });
    strict_1.default.equal(cell.status, 'succeeded', cell.error);
    const byId = Object.fromEntries(doc.queries_baseline.queries.map((q) => [q.id, q]));
    // sleepEachRow(0.5) × 30 rows: 15 s, longer than the 10 s heartbeat timeout, cold and warm.
    for (const s of byId.slow.samples) {
        strict_1.default.ok(s.wall_ms >= 14_500 && s.wall_ms < 60_000, `slow ${s.kind}: ${s.wall_ms} ms`);
        strict_1.default.ok(s.server_elapsed_ms >= 14_500, `slow ${s.kind} server: ${s.server_elapsed_ms} ms`);
    }
    strict_1.default.deepEqual(byId.slow.samples.map((s) => s.kind), ['cold', 'warm']);
    // 600,000 rows of 1,000 chars: more than a JavaScript string can hold, hashed and counted as streamed.
    for (const s of byId.big.samples) {
        strict_1.default.equal(s.result_rows, 600_000);
        strict_1.default.ok(s.result_bytes > 600_000_000, `big: result_bytes ${s.result_bytes}`);
    }
    strict_1.default.equal(byId.big.stats.result_sha256.length, 1, 'cold and warm returned the same rows');
    strict_1.default.equal(doc.attempts?.['queries-baseline'], 1, 'measured on the first attempt, no timeout retry');
});
for (const t of [
    { name: 'embedded', target: { kind: 'embedded' }, version: '26.7' },
    { name: '18.16', target: { kind: 'local', binaries: { '18.16': BINARY } }, version: '18.16' },
]) {
    (0, node_test_1.test)(`${t.name}: a query that fails (on 18.16 after the response started; embedded buffers it for a complete summary) is a failed run with the server's code, not retried; other queries are kept`, async () => {
        if (t.name === '18.16')
            strict_1.default.ok((0, node_fs_1.existsSync)(BINARY), `${BINARY} is missing: run ./scripts/setup.sh --with-debian-clickhouse`);
        const { runId, cell, doc, report } = await runEdge(`edge-late-error-${t.name.replace('.', '')}`, ['count', 'late_error'], t.target, t.version);
        strict_1.default.equal(cell.status, 'failed');
        strict_1.default.match(cell.error, /QueryFailed|LATE_ERROR|failed on run cold 1/);
        strict_1.default.match(cell.error, /Code 395/);
        strict_1.default.match(cell.error, /Value passed to 'throwIf' function is non.zero/);
        strict_1.default.equal(doc.queries_baseline.attempt, 1, 'a query error is not retried (the record is from attempt 1)');
        const byId = Object.fromEntries(doc.queries_baseline.queries.map((q) => [q.id, q]));
        strict_1.default.equal(byId.count.samples.length, 2, 'the query measured before the failure is kept');
        strict_1.default.equal(byId.count.stats.result_rows, 1);
        strict_1.default.equal(byId.late_error.error?.code, '395');
        if (t.name === '18.16') {
            // No query log short-cut here: 18.16 streams, so the error came inside an HTTP 200 body.
            strict_1.default.equal(byId.late_error.error?.after_response_started?.http_status, 200);
            strict_1.default.ok(byId.late_error.error.after_response_started.result_bytes > 100_000, 'rows had been received before the error');
            strict_1.default.equal(byId.late_error.error?.after_response_started?.exception_source, 'text appended to the body');
        }
        strict_1.default.equal(byId.late_error.samples.length, 0, 'no sample was recorded from the failed body');
        // The query id as the workload spells it (issue 13: ids are not upper-cased).
        strict_1.default.match(report, /⚠ late_error failed in v\d+\.\d+-lz4 \(failed\)\*\* on run cold 1/);
        // The QueryFailed failure itself carries the server's identity of the error, per query.
        const hist = await env.client.workflow.getHandle(`${runId}/${cell.cellKey}`).fetchHistory();
        const failure = hist
            .events.map((e) => e.activityTaskFailedEventAttributes?.failure)
            .find((f) => f?.applicationFailureInfo?.type === failures_1.FAILURE.QueryFailed);
        strict_1.default.ok(failure, 'runQueries failed with QueryFailed');
        const payload = failure.applicationFailureInfo.details?.payloads?.[0];
        strict_1.default.ok(payload, 'QueryFailed has details');
        const details = common_1.defaultPayloadConverter.fromPayload(payload);
        strict_1.default.deepEqual(details.failed, ['late_error']);
        strict_1.default.deepEqual(details.errors, [{ id: 'late_error', code: 395, name: 'FUNCTION_THROW_IF_VALUE_IS_NON_ZERO' }]);
    });
}
for (const t of [
    { name: 'embedded', target: { kind: 'embedded' }, version: '26.7' },
    { name: '18.16', target: { kind: 'local', binaries: { '18.16': BINARY } }, version: '18.16' },
]) {
    (0, node_test_1.test)(`${t.name}: a query with a syntax error fails its step in one attempt, recorded with the server's error and times`, async () => {
        if (t.name === '18.16')
            strict_1.default.ok((0, node_fs_1.existsSync)(BINARY), `${BINARY} is missing: run ./scripts/setup.sh --with-debian-clickhouse`);
        const t0 = Date.now();
        const { cell, doc, report } = await runEdge(`edge-syntax-${t.name.replace('.', '')}`, ['count', 'syntax_error'], t.target, t.version);
        strict_1.default.equal(cell.status, 'failed');
        strict_1.default.match(cell.error, /Code:? 62|SYNTAX_ERROR/);
        strict_1.default.ok(Date.now() - t0 < 60_000, `failed in ${Date.now() - t0} ms, not after retries`);
        // The step that met the error (the query step, or a check of the queries before it) ran once.
        const log = doc.attempt_log ?? {};
        const failedPhases = Object.entries(log).filter(([, recs]) => recs.at(-1)?.outcome === 'failed');
        strict_1.default.equal(failedPhases.length, 1, JSON.stringify(log));
        const [phase, recs] = failedPhases[0];
        strict_1.default.equal(recs.length, 1, `${phase}: one attempt`);
        strict_1.default.equal(doc.attempts[phase], 1);
        strict_1.default.equal(recs[0].attempt, 1);
        strict_1.default.equal(recs[0].retryable, false);
        strict_1.default.match(recs[0].error, /SELEC|Syntax error/i);
        strict_1.default.ok(recs[0].duration_ms >= 0 && Date.parse(recs[0].ended_at) >= Date.parse(recs[0].started_at));
        // Every step before it succeeded on its first attempt, and says so.
        for (const [p, r] of Object.entries(log))
            if (p !== phase)
                strict_1.default.deepEqual(r.map((a) => [a.attempt, a.outcome]), [[1, 'succeeded']], p);
        strict_1.default.match(report, new RegExp(`${phase} ×1 failed: [\\w.]+ \\(not retryable\\)`));
    });
}
for (const t of [
    { name: 'embedded', target: { kind: 'embedded' }, version: '26.7' },
    { name: '18.16', target: { kind: 'local', binaries: { '18.16': BINARY } }, version: '18.16' },
]) {
    (0, node_test_1.test)(`${t.name}: a run cancelled in the middle of the query step ends Canceled and keeps the queries already measured`, async () => {
        const runId = `edge-cancel-${t.name.replace('.', '')}-${Date.now()}`;
        const spec = {
            name: 'edge-cancel',
            workload: 'edge',
            scale: 1000,
            queries: ['count', 'slow'],
            target: t.target,
            matrix: { version: [t.version], codec: ['LZ4'] },
            protocol: { coldRuns: 1, warmupRuns: 0, warmRuns: 1 },
            skipIndex: false,
            resultsDir: env.resultsDir,
        };
        const handle = await env.client.workflow.start('benchmarkMatrix', {
            taskQueue: env.taskQueue,
            workflowId: runId,
            args: [spec],
        });
        const cellKey = `v${t.version}-lz4`;
        // Wait until the cell measures (count takes milliseconds; slow then runs for 2 × 15 s), then cancel.
        for (let i = 0; i < 600; i++) {
            const p = await env.client.workflow
                .getHandle(`${runId}/${cellKey}`)
                .query('progress')
                .catch(() => undefined);
            if (p?.step === 'queries-baseline')
                break;
            await new Promise((r) => setTimeout(r, 200));
        }
        await new Promise((r) => setTimeout(r, 6000));
        await handle.cancel();
        await handle.result().catch(() => undefined);
        const doc = JSON.parse((0, node_fs_1.readFileSync)(node_path_1.default.join(env.resultsDir, runId, 'cells', cellKey, 'result.json'), 'utf8'));
        strict_1.default.equal(doc.status, 'cancelled', doc.error);
        const qb = doc.queries_baseline;
        strict_1.default.ok(qb, `queries-baseline.json written: files ${(0, node_fs_1.readdirSync)(node_path_1.default.join(env.resultsDir, runId, 'cells', cellKey)).join(', ')}; error ${doc.error}; attempts ${JSON.stringify(doc.attempts)}`);
        strict_1.default.match(qb.incomplete, /^cancelled; 1 of 2 queries measured/);
        strict_1.default.deepEqual(qb.queries.map((q) => q.id), ['count']);
        strict_1.default.equal(qb.queries[0].samples.length, 2);
        const report = (0, node_fs_1.readFileSync)(node_path_1.default.join(env.resultsDir, runId, 'report.md'), 'utf8');
        strict_1.default.match(report, /Query steps stopped before every query was measured/);
        strict_1.default.match(report, /not collected \(cancelled\)/, 'counters of a cell stopped early are not shown as missing on the server');
    });
}
//# sourceMappingURL=edge.test.js.map