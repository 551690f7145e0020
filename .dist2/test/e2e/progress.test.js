"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * Live progress of `chbench run`: the rendering is a pure function of a snapshot (tested on the
 * heartbeat shapes the steps send today and the standardised one), the views print what changed,
 * and a snapshot taken from a real running cell (dev server, worker, embedded engine) holds its
 * current step, pending activity and decoded heartbeat details.
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const node_stream_1 = require("node:stream");
const temporal_env_1 = require("../helpers/temporal-env");
const progress_1 = require("../../src/temporal/progress");
const NOW = 1_800_000_000_000;
const matrix = (o = {}) => ({
    runId: 'r',
    phase: 'cells',
    total: 2,
    done: 0,
    running: ['v26.7-lz4'],
    failed: [],
    skipped: [],
    succeeded: [],
    cancelled: [],
    reused: 0,
    ...o,
});
const cell = (o) => ({ cellKey: 'v26.7-lz4', workflowId: 'r/v26.7-lz4', ...o });
(0, node_test_1.test)('heartbeatLine: progress first, else a line from the known fields, robust to any shape', () => {
    strict_1.default.equal((0, progress_1.heartbeatLine)({ step: 'load', progress: 'loading 12 % (12 M of 100 M rows)', written_rows: 1 }), 'loading 12 % (12 M of 100 M rows)');
    strict_1.default.equal((0, progress_1.heartbeatLine)({ step: 'queries-baseline', query: 'q3', run: 'cold 1' }), 'query q3, run cold 1');
    strict_1.default.equal((0, progress_1.heartbeatLine)({ step: 'load', written_rows: 25_000_000, total_rows: 100_000_000, elapsed_ms: 61_500 }), '25,000,000 / 100,000,000 rows written (25 %), 1 min 2 s elapsed');
    strict_1.default.equal((0, progress_1.heartbeatLine)({ step: 'q', rows_read: 512, total_rows: 2048, result_bytes: 3 * 1024 * 1024 }), '512 / 2,048 rows read (25 %), result 3.0 MiB');
    strict_1.default.equal((0, progress_1.heartbeatLine)({ step: 'materialize-index', parts_to_do: 3, mutations: 1 }), '3 parts to do, mutations 1');
    strict_1.default.equal((0, progress_1.heartbeatLine)({ step: 'quiesce', active_parts: 8, merges: 0, mutations: 0, stable_ms: 1200 }), 'active parts 8, merges 0, mutations 0');
    strict_1.default.equal((0, progress_1.heartbeatLine)({ step: 'load', elapsed_ms: 2000, statement: 'INSERT INTO logs\n  SELECT * FROM generate()' }), '2.0 s elapsed, `INSERT INTO logs SELECT * FROM generate()`');
    strict_1.default.equal((0, progress_1.heartbeatLine)({ step: 'x', progress: '   ', written_rows: '7' }), '7 rows written', 'blank progress ignored, numeric strings accepted');
    strict_1.default.equal((0, progress_1.heartbeatLine)(undefined), '');
    strict_1.default.equal((0, progress_1.heartbeatLine)(null), '');
    strict_1.default.equal((0, progress_1.heartbeatLine)('waiting'), 'waiting');
    strict_1.default.equal((0, progress_1.heartbeatLine)([{ step: 'load', query: 'q1' }]), 'query q1');
    strict_1.default.equal((0, progress_1.heartbeatLine)({ step: 'x', nested: { a: 1 }, total_rows: NaN }), '', 'nested objects and non-finite numbers are skipped');
    strict_1.default.equal((0, progress_1.heartbeatLine)({ waiting_for_previous_attempt: 'abc' }), 'waiting for previous attempt abc');
});
(0, node_test_1.test)('heartbeatFraction: a SELECT (written_rows 0) is judged by rows read; an INSERT by the larger counter', () => {
    strict_1.default.equal((0, progress_1.heartbeatFraction)({ rows_read: 50_000_000, written_rows: 0, total_rows: 100_000_000 }), 0.5);
    strict_1.default.equal((0, progress_1.heartbeatFraction)({ rows_read: 30, written_rows: 25, total_rows: 100 }), 0.3);
    strict_1.default.equal((0, progress_1.heartbeatFraction)({ written_rows: 10, total_rows: 100 }), 0.1);
    strict_1.default.equal((0, progress_1.heartbeatFraction)({ rows_read: 10 }), undefined);
});
(0, node_test_1.test)('cellLine: step, activity, attempt, bar, heartbeat, and the age only when stale', () => {
    const fresh = cell({
        step: 'load',
        activityType: 'loadData',
        activityState: 'started',
        attempt: 1,
        heartbeat: { step: 'load', written_rows: 50, total_rows: 200 },
        lastHeartbeatAt: NOW - 2000,
    });
    strict_1.default.equal((0, progress_1.cellLine)(fresh, NOW), 'v26.7-lz4  load (loadData) [###---------]: 50 / 200 rows written (25 %)');
    const stale = { ...fresh, lastHeartbeatAt: NOW - progress_1.STALE_HEARTBEAT_MS - 32_000 };
    strict_1.default.match((0, progress_1.cellLine)(stale, NOW), /— last heartbeat 42 s ago$/);
    strict_1.default.match((0, progress_1.cellLine)(cell({ step: 'load', activityState: 'started', startedAt: NOW - 15_000 }), NOW), /load — no heartbeat for 15 s$/);
    strict_1.default.equal((0, progress_1.cellLine)(cell({ step: 'provision', activityType: 'provision', activityState: 'scheduled', startedAt: NOW - 60_000 }), NOW), 'v26.7-lz4  provision — waiting for a worker');
    strict_1.default.equal((0, progress_1.cellLine)(cell({
        step: 'queries-baseline',
        activityType: 'runQueries',
        attempt: 3,
        lastFailure: 'socket hang up',
        heartbeat: { step: 'queries-baseline', query: 'q2', run: 'warm 2' },
    }), NOW), 'v26.7-lz4  queries-baseline (runQueries): query q2, run warm 2 — attempt 3: socket hang up');
    strict_1.default.equal((0, progress_1.cellLine)(cell({
        step: 'provision',
        activityType: 'provision',
        activityState: 'scheduled',
        attempt: 2,
        lastFailure: 'connect ECONNREFUSED 127.0.0.1:9000',
        nextAttemptAt: NOW + 1500,
    }), NOW), 'v26.7-lz4  provision — attempt 2: connect ECONNREFUSED 127.0.0.1:9000 — next try in 2 s', 'waiting out a retry backoff is not "waiting for a worker"');
    strict_1.default.equal((0, progress_1.renderSnapshot)({
        runId: 'r',
        takenAt: NOW,
        progress: matrix({ phase: 'report', running: [] }),
        cells: [],
        matrixStep: cell({
            cellKey: 'run',
            workflowId: 'r',
            activityType: 'writeReport',
            activityState: 'started',
            attempt: 2,
            lastFailure: 'EACCES: permission denied',
        }),
    }).join('\n'), 'cells 0/2 | report | 0 running, 0 failed, 0 skipped\n  run  writeReport — attempt 2: EACCES: permission denied', "the matrix's own retrying step has its line");
    strict_1.default.equal((0, progress_1.cellLine)(cell({ heartbeat: { step: 'quiesce' } }), NOW), 'v26.7-lz4  quiesce', 'step from the heartbeat when the search attribute is missing');
    strict_1.default.match((0, progress_1.cellLine)(cell({ error: 'workflow not found' }), NOW), /cannot describe r\/v26.7-lz4: workflow not found/);
});
(0, node_test_1.test)('renderSnapshot: the overall line then one line per running cell', () => {
    const s = {
        runId: 'r',
        takenAt: NOW,
        progress: matrix({ done: 1, running: ['a', 'b'], succeeded: ['c'] }),
        cells: [cell({ cellKey: 'a', step: 'load' }), cell({ cellKey: 'b', step: 'provision' })],
    };
    strict_1.default.deepEqual((0, progress_1.renderSnapshot)(s), [
        'cells 1/2 | cells | 2 running, 0 failed, 0 skipped',
        '  a  load',
        '  b  provision',
    ]);
});
/** A writable that keeps what it was given. */
function sink(isTTY) {
    const chunks = [];
    const w = new node_stream_1.Writable({ write: (c, _e, cb) => (chunks.push(String(c)), cb()) });
    w.text = () => chunks.join('');
    w.isTTY = isTTY;
    w.columns = 200;
    return w;
}
(0, node_test_1.test)('without a terminal: changed lines only, at most once per interval', () => {
    const out = sink(false);
    const v = new progress_1.ProgressView({ stream: out, minIntervalMs: 5000 });
    const snap = (hb) => ({
        runId: 'r',
        takenAt: NOW,
        progress: matrix(),
        cells: [cell({ step: 'load', heartbeat: hb })],
    });
    v.update(snap({ elapsed_ms: 1000 }), NOW);
    v.update(snap({ elapsed_ms: 2000 }), NOW + 1000); // within the interval: not printed
    v.update(snap({ elapsed_ms: 2000 }), NOW + 6000); // printed: the cell line changed, the overall did not
    v.update(snap({ elapsed_ms: 2000 }), NOW + 12_000); // nothing changed
    v.stop();
    strict_1.default.deepEqual(out.text().split('\n').filter(Boolean), [
        'cells 0/2 | cells | 1 running, 0 failed, 0 skipped',
        '  v26.7-lz4  load: 1.0 s elapsed',
        '  v26.7-lz4  load: 2.0 s elapsed',
    ]);
});
(0, node_test_1.test)('on a terminal: a multibar with the overall bar and one line per running cell', () => {
    const out = sink(true);
    const v = new progress_1.ProgressView({ stream: out });
    v.update({
        runId: 'r',
        takenAt: NOW,
        progress: matrix({ running: ['a', 'b'] }),
        cells: [
            cell({ cellKey: 'a', step: 'load', heartbeat: { query: 'q1' } }),
            cell({ cellKey: 'b', step: 'provision' }),
        ],
    }, NOW);
    v.update({
        runId: 'r',
        takenAt: NOW,
        progress: matrix({ done: 1, running: ['b'] }),
        cells: [cell({ cellKey: 'b', step: 'create-schema' })],
    }, NOW);
    v.stop();
    // cli-progress redraws on its own schedule: check the last frame, drawn at stop.
    const text = out.text();
    strict_1.default.match(text, /cells .*█.* 1\/2 \| cells \| 1 running, 0 failed, 0 skipped/);
    strict_1.default.match(text, 
    // eslint-disable-next-line no-control-regex -- the ANSI escapes are what is asserted
    /\n\x1B\[1G {2}b {2}create-schema\x1B\[0K\n$/, 'the last line drawn is the running cell; the finished one was removed');
    strict_1.default.doesNotMatch(text.slice(text.lastIndexOf('cells ')), /a {2}load/);
});
(0, node_test_1.test)('a snapshot of a real running cell holds its current step and heartbeat details', async () => {
    const env = await (0, temporal_env_1.startTemporalEnv)('progress');
    try {
        const runId = `progress-${Date.now()}`;
        const spec = {
            name: 'progress',
            workload: 'logs',
            scale: 300_000,
            target: { kind: 'embedded' },
            matrix: { version: ['26.7'], codec: ['LZ4'] },
            skipIndex: false,
            protocol: { quiesce: { stableForMs: 3000 } },
            resultsDir: env.resultsDir,
        };
        const handle = await env.client.workflow.start('benchmarkMatrix', {
            taskQueue: env.taskQueue,
            workflowId: runId,
            args: [spec],
        });
        const seen = new Map(); // step → first snapshot with a heartbeat
        const closed = handle.result().then(() => true);
        let done = false;
        void closed.then(() => (done = true), () => (done = true));
        while (!done) {
            const s = await (0, progress_1.takeSnapshot)(env.client, runId);
            for (const c of s?.cells ?? [])
                if (c.heartbeat && typeof c.heartbeat === 'object' && c.step && !seen.has(c.step))
                    seen.set(c.step, { snap: s, c });
            await new Promise((r) => setTimeout(r, 150));
        }
        const r = (await handle.result());
        strict_1.default.deepEqual(r.cells.map((c) => c.status), ['succeeded']);
        strict_1.default.ok(seen.size >= 1, 'at least one step was seen with its heartbeat');
        for (const [step, { snap, c }] of seen) {
            const hb = c.heartbeat;
            strict_1.default.equal(c.cellKey, 'v26.7-lz4');
            // The watcher labels a step by its activity name until the activity names its step itself.
            strict_1.default.ok(hb.step === step || hb.step === c.activityType, `the heartbeat belongs to the cell's current step (${JSON.stringify(c)})`);
            strict_1.default.equal(typeof c.activityType, 'string');
            strict_1.default.ok((c.attempt ?? 0) >= 1);
            strict_1.default.equal(typeof c.lastHeartbeatAt, 'number');
            strict_1.default.ok(Math.abs(c.lastHeartbeatAt - snap.takenAt) < 120_000, 'heartbeat time is a real recent time');
            const line = (0, progress_1.renderSnapshot)(snap)[1];
            strict_1.default.ok(line.includes(`v26.7-lz4  ${step}`), line);
        }
        const q = [...seen.values()].find(({ c }) => c.heartbeat.query !== undefined);
        if (q)
            strict_1.default.match((0, progress_1.renderSnapshot)(q.snap)[1], /query q\d, run (cold|warm|warmup)/);
        else {
            // The query step is short at this scale; a snapshot may miss it. Every step seen is listed.
        }
        console.log(`steps seen with a heartbeat: ${[...seen.keys()].join(', ')}; e.g. ${[...seen.values()].map(({ snap }) => (0, progress_1.renderSnapshot)(snap)[1].trim()).join(' | ')}`);
    }
    finally {
        await env.stop();
    }
});
//# sourceMappingURL=progress.test.js.map