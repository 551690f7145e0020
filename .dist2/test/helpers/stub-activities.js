"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.stubActivities = stubActivities;
/**
 * Stub activities for workflow tests: every activity the workflows call, answering instantly with
 * minimal valid shapes and recording each call (activity, arguments, attempt). A test scripts
 * failures with `failWith`: called before each stub runs; whatever it returns is thrown.
 */
const activity_1 = require("@temporalio/activity");
const run_spec_1 = require("../../src/schema/run-spec");
const matrix_1 = require("../../src/schema/matrix");
const STUB_LATENCY = { count: 100, p50: 5, p95: 8, p99: 10, max: 12 };
function keyOf(activity, args) {
    const a = args[0];
    if (typeof a === 'string')
        return a;
    // runInterleaved measures two cells: its key is the new side's cell.
    const cell = a?.cell ??
        a?.candidate?.cell ??
        (a?.cellKey ? a : undefined);
    return cell ? `${cell.runId}/${cell.cellKey}` : (a?.runId ?? activity);
}
/** Build the stubs (one set per test file; reset `calls` and `failWith` per test). */
function stubActivities() {
    const stubs = {
        activities: {},
        calls: [],
        written: new Map(),
        flagged: [],
        confirms: true,
        hosts: [],
        callsOf: (k) => stubs.calls.filter((c) => c.key === k),
    };
    const impl = {
        provision: (cell) => ({
            ...((h) => (h ? { host: h } : {}))(stubs.provisionHost?.(cell.cellKey, stubs.calls.filter((c) => c.activity === 'provision' && c.key === `${cell.runId}/${cell.cellKey}`).length)),
            target: {
                kind: cell.target.kind,
                url: 'http://127.0.0.1:1',
                database: 'default',
                username: 'default',
                runId: cell.runId,
                cellKey: cell.cellKey,
                provisionedBy: 'stub',
            },
            server: {
                version: cell.version,
                timezone: 'UTC',
                cpus: 1,
                cpu_source: 'stub',
                memory_bytes: null,
                memory_source: 'stub',
                query_log: 'available',
            },
        }),
        collectMetrics: (_si, label) => ({ file: `metrics-${label}.json` }),
        createSchema: () => ({}),
        loadData: () => ({ rows: 1000, elapsed_ms: 1, rows_per_s: 1e6, partitions: 1, active_parts: 1, reused: false }),
        quiesceMerges: () => ({ active_parts: 1, waited_ms: 0 }),
        storageStats: () => ({}),
        runQueries: (_si, phase) => ({ phase, file: `queries-${phase}.json`, queries: [] }),
        materializeSkipIndex: () => ({ index: 'idx', materialize_ms: 1, index_bytes: 1, adopted_mutation: false }),
        concurrencyStep: (_si, step) => {
            const errors = stubs.stepErrors?.(step.clients) ?? 0;
            return {
                clients: step.clients,
                qps: 10 * step.clients,
                requests: 100,
                errors,
                errorsByCode: errors ? { '241': errors } : {},
                latencyMs: STUB_LATENCY,
                latencySource: 'query_log',
                wallLatencyMs: STUB_LATENCY,
                clientBound: false,
                file: `grids/concurrency-c${step.clients}.json`,
            };
        },
        insertPoint: (_si, point) => ({
            key: point.key,
            rowsPerS: 1e5,
            mbPerS: 10,
            latencyMs: STUB_LATENCY,
            inserts: 10,
            errors: 0,
            verified: true,
            clientBound: false,
            file: `grids/insert-${point.key}.json`,
        }),
        writeCellResult: (cell, outcome) => {
            const r = {
                cellKey: cell.cellKey,
                status: outcome.status,
                resultFile: `/stub/${cell.runId}/${cell.cellKey}/result.json`,
                ...(outcome.error ? { error: outcome.error } : {}),
                ...(outcome.hostLosses?.length ? { hostLosses: outcome.hostLosses } : {}),
                ...(outcome.hostLost ? { hostLost: true } : {}),
            };
            stubs.written.set(cell.runId, [
                ...(stubs.written.get(cell.runId) ?? []).filter((o) => o.cellKey !== cell.cellKey),
                r,
            ]);
            return r;
        },
        teardown: () => ({}),
        teardownUnprovisioned: () => ({ torn_down: true }),
        validateSpec: (input) => {
            const spec = (0, run_spec_1.parseRunSpec)(input.spec);
            const cellKeys = (0, matrix_1.expandMatrix)(spec).map(matrix_1.cellKey);
            return {
                spec,
                cellKeys,
                runDir: `/stub/${input.runId}`,
                reused: stubs.written.get(input.runId) ?? [],
                indexQueries: spec.skipIndex ? ['q5'] : [],
            };
        },
        writeReport: (input) => ({ reportPath: `/stub/${input.runId}/report.md` }),
        awaitWorkflowClosed: () => ({ status: 'closed' }),
        discoverHosts: () => stubs.hosts,
        storeRun: () => ({ runs: 1, cells: 1, samples: 1, comparisons: 0, description: 'stub' }),
        compareWithBaseline: (input) => ({
            comparisonId: `${input.runId}~baseline`,
            baselineRunId: 'baseline-run',
            verdict: stubs.flagged.length ? 'regression' : 'unchanged',
            flagged: stubs.flagged,
        }),
        planConfirmation: (input) => input.flagged.map((f, i) => {
            const cell = (side) => ({
                runId: `${input.runId}.confirm`,
                cellKey: `p${i + 1}-${side}`,
                version: '26.7',
                codec: 'LZ4',
                workload: 'logs',
                scale: 1000,
                skipIndex: f.queries.some((q) => q.phase === 'index'),
                protocol: (0, run_spec_1.parseRunSpec)({
                    name: 'x',
                    workload: 'logs',
                    scale: 1,
                    target: { kind: 'embedded' },
                    matrix: { version: ['26.7'], codec: ['LZ4'] },
                }).protocol,
                target: { kind: 'embedded' },
                teardown: 'always',
                resultsDir: '/stub',
            });
            return {
                pairKey: f.pairKey,
                baseline: cell('baseline'),
                candidate: cell('new'),
                phases: {
                    baseline: f.queries.filter((q) => q.phase === 'baseline').map((q) => q.query_id),
                    index: f.queries.filter((q) => q.phase === 'index').map((q) => q.query_id),
                },
            };
        }),
        runInterleaved: (input) => input.queries.map((query_id) => ({
            query_id,
            phase: input.phase,
            figure: 'server_elapsed_ms',
            baseline_ms: Array.from({ length: input.rounds }, () => 10),
            new_ms: Array.from({ length: input.rounds }, () => (stubs.confirms ? 20 : 10)),
        })),
        finishComparison: (input) => {
            const flagged = stubs.flagged.flatMap((f) => f.queries.map((q) => `${q.query_id.toUpperCase()}${q.phase === 'index' ? '@index' : ''}`));
            const confirmed = input.confirm.some((c) => c.samples.some((x) => x.new_ms[0] > x.baseline_ms[0])) ? flagged : [];
            return { verdict: confirmed.length ? 'regression' : 'unchanged', flagged, confirmed };
        },
        collectCloudMetrics: () => ({
            collected: [],
            skipped: [],
            windows: 0,
            unattributable: 0,
            partial: 0,
            waitedMs: 0,
            runTotalUsd: null,
        }),
    };
    for (const [name, fn] of Object.entries(impl))
        stubs.activities[name] = async (...args) => {
            const key = keyOf(name, args);
            const attempt = activity_1.Context.current().info.attempt;
            stubs.calls.push({ activity: name, key, args, attempt });
            const n = stubs.calls.filter((c) => c.activity === name && c.key === key).length;
            const err = stubs.failWith?.(name, key, n, args);
            if (err)
                throw err;
            const r = (await fn(...args));
            // Cell steps report the attempt that produced them (as cellStep does).
            return name === 'writeCellResult' ||
                name === 'validateSpec' ||
                name === 'writeReport' ||
                name === 'awaitWorkflowClosed' ||
                name === 'discoverHosts' ||
                name === 'collectCloudMetrics' ||
                ['storeRun', 'compareWithBaseline', 'planConfirmation', 'runInterleaved', 'finishComparison'].includes(name) ||
                name.startsWith('teardown')
                ? r
                : { ...r, attempt };
        };
    return stubs;
}
//# sourceMappingURL=stub-activities.js.map