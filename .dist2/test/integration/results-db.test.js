"use strict";
var __createBinding = (this && this.__createBinding) || (Object.create ? (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    var desc = Object.getOwnPropertyDescriptor(m, k);
    if (!desc || ("get" in desc ? !m.__esModule : desc.writable || desc.configurable)) {
      desc = { enumerable: true, get: function() { return m[k]; } };
    }
    Object.defineProperty(o, k2, desc);
}) : (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    o[k2] = m[k];
}));
var __setModuleDefault = (this && this.__setModuleDefault) || (Object.create ? (function(o, v) {
    Object.defineProperty(o, "default", { enumerable: true, value: v });
}) : function(o, v) {
    o["default"] = v;
});
var __importStar = (this && this.__importStar) || (function () {
    var ownKeys = function(o) {
        ownKeys = Object.getOwnPropertyNames || function (o) {
            var ar = [];
            for (var k in o) if (Object.prototype.hasOwnProperty.call(o, k)) ar[ar.length] = k;
            return ar;
        };
        return ownKeys(o);
    };
    return function (mod) {
        if (mod && mod.__esModule) return mod;
        var result = {};
        if (mod != null) for (var k = ownKeys(mod), i = 0; i < k.length; i++) if (k[i] !== "default") __createBinding(result, mod, k[i]);
        __setModuleDefault(result, mod);
        return result;
    };
})();
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * The results database end to end: a real embedded database (the chdb engine in its own process,
 * started on demand, talked to over HTTP), filled from run folders built from the committed
 * fixture `test/fixtures/results/embedded-26.7`, read back through the API, the CLI (`node
 * dist/src/cli.js` child processes), the exports and every Grafana panel's SQL; then the same
 * engine opened as a `server` database. Every engine process started here is stopped in `after`.
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const node_child_process_1 = require("node:child_process");
const node_crypto_1 = require("node:crypto");
const fs = __importStar(require("node:fs"));
const os = __importStar(require("node:os"));
const path = __importStar(require("node:path"));
const node_util_1 = require("node:util");
const db_1 = require("../../src/results/db");
const comparison_1 = require("../../src/schema/comparison");
const results_1 = require("../../src/schema/results");
const store_1 = require("../../src/results/store");
const config_1 = require("../../src/config");
const poll_1 = require("../../src/lib/poll");
const store_run_1 = require("../../src/activities/matrix/store-run");
const compare_1 = require("../../src/cli/compare");
const run = (0, node_util_1.promisify)(node_child_process_1.execFile);
const FIXTURE = path.join(config_1.REPO_ROOT, 'test', 'fixtures', 'results', 'embedded-26.7');
const CLI = path.join(config_1.REPO_ROOT, 'dist', 'src', 'cli.js');
const FIXTURE_RUN = 'demo-20261130-064639';
/** A run folder under `resultsDir` copied from the fixture with another run id, start, schedule and status. */
function makeRun(resultsDir, id, o) {
    const dir = path.join(resultsDir, id);
    fs.cpSync(FIXTURE, dir, { recursive: true });
    const rf = path.join(dir, 'run.json');
    const r = JSON.parse(fs.readFileSync(rf, 'utf8'));
    fs.writeFileSync(rf, JSON.stringify({
        ...r,
        runId: id,
        startedAt: o.startedAt,
        status: o.status,
        ...(o.scheduleId ? { scheduleId: o.scheduleId } : {}),
    }));
    for (const k of r.cells) {
        const cf = path.join(dir, 'cells', k, 'result.json');
        const c = JSON.parse(fs.readFileSync(cf, 'utf8'));
        c.runId = id;
        o.edit?.(c);
        fs.writeFileSync(cf, JSON.stringify(c));
    }
    return dir;
}
/** Every result.json of the fixture. */
function fixtureCells() {
    const r = JSON.parse(fs.readFileSync(path.join(FIXTURE, 'run.json'), 'utf8'));
    return r.cells.map((k) => JSON.parse(fs.readFileSync(path.join(FIXTURE, 'cells', k, 'result.json'), 'utf8')));
}
/** Measured query runs of the fixture, counted from the files. */
function fixtureSampleCount() {
    return fixtureCells().reduce((n, c) => n +
        [c.queries_baseline, c.queries_index].reduce((m, q) => m + (q?.queries ?? []).reduce((k, x) => k + x.samples.length, 0), 0), 0);
}
function comparisonOf(runId, baseline) {
    const q = (query_id, verdict) => ({
        query_id,
        phase: 'baseline',
        figure: 'server_elapsed_ms',
        n_baseline: 3,
        n_new: 3,
        median_baseline_ms: 10,
        median_new_ms: verdict === 'regression' ? 21 : 10.2,
        ratio: verdict === 'regression' ? 2.1 : 1.02,
        ci_low: verdict === 'regression' ? 1.8 : 0.95,
        ci_high: verdict === 'regression' ? 2.4 : 1.1,
        threshold: 0.1,
        verdict,
        reason: verdict === 'regression' ? 'CI 1.8–2.4 above 1 + threshold 0.1' : 'CI contains 1',
        ...(verdict === 'regression'
            ? {
                confirm: {
                    rounds: 12,
                    n_baseline: 12,
                    n_new: 12,
                    ratio: 2.0,
                    ci_low: 1.9,
                    ci_high: 2.1,
                    threshold: 0.1,
                    verdict: 'regression',
                    confirmed: true,
                    reason: 'confirmed',
                },
            }
            : {}),
        final: verdict,
    });
    return {
        schema: comparison_1.COMPARISON_SCHEMA,
        comparison_id: `cmp-${runId}`,
        run_id: runId,
        baseline_run_id: baseline,
        baseline_chosen_by: 'previous successful run of schedule nightly',
        method: 'ratio of medians, percentile bootstrap',
        options: {
            minChange: 0.1,
            unstableAbove: 0.3,
            confidence: 0.95,
            resamples: 2000,
            minRuns: 3,
            confirmRounds: 12,
            seed: 1,
        },
        pairs: [
            {
                pair_key: 'v26.7-lz4→v26.7-lz4',
                baseline_run: baseline,
                baseline_cell: 'v26.7-lz4',
                new_run: runId,
                new_cell: 'v26.7-lz4',
                differences: [],
                queries: [q('q1', 'regression'), q('q2', 'unchanged')],
            },
        ],
        unpaired: [],
        flagged: ['q1'],
        confirmed: ['q1'],
        verdict: 'regression',
        created_at: '2026-02-01T01:00:00.000Z',
    };
}
(0, node_test_1.describe)('results database (embedded engine process, real chdb)', { timeout: 300_000 }, () => {
    let tmp;
    let resultsDir;
    let dbDir;
    let db;
    const dbDirs = [];
    const pids = [];
    const perRun = fixtureSampleCount();
    (0, node_test_1.before)(async () => {
        tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-results-db-'));
        resultsDir = path.join(tmp, 'results');
        dbDir = path.join(resultsDir, 'db');
        dbDirs.push(dbDir);
        fs.cpSync(FIXTURE, path.join(resultsDir, FIXTURE_RUN), { recursive: true });
        makeRun(resultsDir, 'nightly-1', {
            startedAt: '2026-01-01T00:00:00.000Z',
            scheduleId: 'nightly',
            status: 'completed',
        });
        const a2 = makeRun(resultsDir, 'nightly-2', {
            startedAt: '2026-02-01T00:00:00.000Z',
            scheduleId: 'nightly',
            status: 'completed',
        });
        fs.writeFileSync(path.join(a2, 'comparison.json'), JSON.stringify(comparisonOf('nightly-2', 'nightly-1')));
        // The third run failed, and one of its warm runs was not quiet.
        makeRun(resultsDir, 'nightly-3', {
            startedAt: '2026-03-01T00:00:00.000Z',
            scheduleId: 'nightly',
            status: 'failed',
            edit: (c) => {
                const s = c.queries_baseline.queries[0].samples.find((x) => x.kind === 'warm' && x.n === 1);
                s.validity.quiet = { valid: false, label: 'not quiet', reasons: ['a merge ran'] };
            },
        });
        db = await (0, db_1.openResultsDb)({ kind: 'embedded', dir: dbDir });
        const p = (0, db_1.embeddedResultsDbProcess)(dbDir);
        strict_1.default.ok(p, 'server.json names a live process');
        pids.push(p.pid);
    });
    (0, node_test_1.after)(async () => {
        await db?.close();
        for (const d of dbDirs)
            await (0, db_1.stopEmbeddedResultsDb)(d);
        for (const pid of pids)
            strict_1.default.throws(() => process.kill(pid, 0), 'engine process stopped');
        fs.rmSync(tmp, { recursive: true, force: true });
    });
    (0, node_test_1.it)('applies the migrations once and creates the tables', async () => {
        const tables = (await db.query('SELECT name FROM system.tables WHERE database = currentDatabase() ORDER BY name')).map((r) => r.name);
        strict_1.default.deepEqual(tables, ['cells', 'comparison_queries', 'comparisons', 'runs', 'samples', 'schema_migrations']);
        const again = await (0, db_1.openResultsDb)({ kind: 'embedded', dir: dbDir });
        await again.close();
        const m = await db.query('SELECT version, count() AS n FROM schema_migrations GROUP BY version ORDER BY version');
        strict_1.default.deepEqual(m.map((r) => [Number(r.version), Number(r.n)]), Array.from({ length: db_1.SCHEMA_VERSION }, (_, i) => [i + 1, 1]));
        strict_1.default.equal((0, db_1.embeddedResultsDbProcess)(dbDir)?.pid, pids[0], 'the second opener used the same engine process');
    });
    (0, node_test_1.it)('stores run folders, and storing them again does not double a row', async () => {
        for (const id of [FIXTURE_RUN, 'nightly-1', 'nightly-2', 'nightly-3']) {
            const n = await db.storeRun(path.join(resultsDir, id));
            strict_1.default.deepEqual(n, { runs: 1, cells: 2, samples: perRun, comparisons: id === 'nightly-2' ? 1 : 0 });
        }
        // UInt64 arrives as a number or a quoted string depending on the server's output_format_json_quote_64bit_integers.
        const counts = async () => Object.fromEntries(Object.entries((await db.query('SELECT (SELECT count() FROM runs) AS runs, (SELECT count() FROM cells) AS cells, (SELECT count() FROM samples) AS samples, (SELECT count() FROM comparisons) AS comparisons, (SELECT count() FROM comparison_queries) AS cq'))[0]).map(([k, v]) => [k, Number(v)]));
        const first = await counts();
        strict_1.default.deepEqual(first, { runs: 4, cells: 8, samples: 4 * perRun, comparisons: 1, cq: 2 });
        for (const id of [FIXTURE_RUN, 'nightly-2'])
            await db.storeRun(path.join(resultsDir, id));
        strict_1.default.deepEqual(await counts(), first);
    });
    (0, node_test_1.it)('reads back the run, its cells and samples with validity', async () => {
        const r = await db.run('nightly-2');
        // The spec as the store reads it: run.json parsed with the results schema (defaults of fields
        // added since the fixture was recorded filled in), the same object spec_json holds.
        const spec = (0, store_1.readRecord)(path.join(FIXTURE, 'run.json'), results_1.RunRecord).spec;
        strict_1.default.deepEqual(JSON.parse(r.spec_json), spec);
        const sorted = (v) => Array.isArray(v)
            ? v.map(sorted)
            : v && typeof v === 'object'
                ? Object.fromEntries(Object.keys(v)
                    .sort()
                    .map((k) => [k, sorted(v[k])]))
                : v;
        strict_1.default.ok(r);
        strict_1.default.equal(r.spec_hash, (0, node_crypto_1.createHash)('sha256')
            .update(JSON.stringify(sorted(spec)))
            .digest('hex'));
        strict_1.default.deepEqual({
            schedule_id: r.schedule_id,
            started_at: r.started_at,
            status: r.status,
            cells_total: r.cells_total,
            cells_succeeded: r.cells_succeeded,
            scale: r.scale,
        }, {
            schedule_id: 'nightly',
            started_at: '2026-02-01T00:00:00.000Z',
            status: 'completed',
            cells_total: 2,
            cells_succeeded: 2,
            scale: 2_000_000,
        });
        strict_1.default.equal((await db.run(FIXTURE_RUN))?.schedule_id, null);
        const cells = await db.cells('nightly-2');
        const fx = fixtureCells();
        strict_1.default.deepEqual(cells.map((c) => [c.cell_key, c.codec, c.server_version, c.load_rows_per_s, c.bytes_on_disk]), fx.map((c) => [
            c.cellKey,
            c.matrix.codec,
            c.provision.server.version,
            c.load.rows_per_s,
            c.storage.bytes_on_disk,
        ]));
        const s = await db.samples('nightly-3', 'v26.7-lz4');
        const q1 = fx[0].queries_baseline.queries[0];
        const bad = s.filter((x) => !x.valid);
        strict_1.default.equal(bad.length, 1);
        strict_1.default.deepEqual([bad[0].query_id, bad[0].kind, bad[0].n, bad[0].invalid_reason], [q1.id, 'warm', 1, 'not quiet: a merge ran']);
        const cold = s.find((x) => x.phase === 'baseline' && x.query_id === q1.id && x.kind === 'cold');
        strict_1.default.equal(cold.server_elapsed_ms, q1.samples.find((x) => x.kind === 'cold').server_elapsed_ms);
        strict_1.default.equal(cold.statement_id, q1.samples.find((x) => x.kind === 'cold').query_id);
    });
    (0, node_test_1.it)('the storeRun activity stores a run folder in <resultsDir>/db and says where', async () => {
        const r = await (0, store_run_1.createStoreRun)().storeRun({ resultsDir, runId: 'nightly-1' });
        strict_1.default.deepEqual({ ...r, description: undefined }, { runs: 1, cells: 2, samples: perRun, comparisons: 0, description: undefined });
        strict_1.default.ok(r.description.startsWith(`embedded database ${dbDir} (pid ${pids[0]}, http://127.0.0.1:`), r.description);
        strict_1.default.equal((await db.samples('nightly-1')).length, perRun);
    });
    (0, node_test_1.it)('finds the previous successful run of a schedule', async () => {
        strict_1.default.equal((await db.previousSuccessfulRun('nightly', '2026-03-01T00:00:00.000Z'))?.run_id, 'nightly-2');
        strict_1.default.equal((await db.previousSuccessfulRun('nightly', '2026-02-01T00:00:00.000Z'))?.run_id, 'nightly-1');
        strict_1.default.equal(await db.previousSuccessfulRun('nightly', '2026-01-01T00:00:00.000Z'), undefined);
        // nightly-3 failed: still nightly-2 after it.
        strict_1.default.equal((await db.previousSuccessfulRun('nightly', '2026-04-01T00:00:00.000Z'))?.run_id, 'nightly-2');
        strict_1.default.equal(await db.previousSuccessfulRun('weekly', '2026-04-01T00:00:00.000Z'), undefined);
    });
    (0, node_test_1.it)('gives a series of warm medians, oldest first, leaving out invalid runs', async () => {
        const pts = await db.series({ scheduleId: 'nightly', name: 'demo' });
        const queriesPerCell = fx().reduce((n, c) => n + (c.queries_baseline?.queries.length ?? 0) + (c.queries_index?.queries.length ?? 0), 0);
        strict_1.default.equal(pts.length, 3 * queriesPerCell);
        strict_1.default.deepEqual([...new Set(pts.map((p) => p.run_id))], ['nightly-1', 'nightly-2', 'nightly-3']);
        const q1 = fx()[0].queries_baseline.queries[0];
        const warm = q1.samples.filter((x) => x.kind === 'warm').map((x) => x.server_elapsed_ms);
        const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
        const at = (runId) => pts.find((p) => p.run_id === runId && p.cell_key === 'v26.7-lz4' && p.phase === 'baseline' && p.query_id === q1.id);
        strict_1.default.equal(warm.length, 3);
        strict_1.default.equal(at('nightly-1').warm_median_ms, med(warm));
        strict_1.default.equal(at('nightly-1').figure, 'server_elapsed_ms');
        // nightly-3 lost its first warm run (not quiet): the median of the other two.
        strict_1.default.equal(at('nightly-3').warm_median_ms, (warm[1] + warm[2]) / 2);
        const last2 = await db.series({ scheduleId: 'nightly', name: 'demo', limit: 2 });
        strict_1.default.deepEqual([...new Set(last2.map((p) => p.run_id))], ['nightly-2', 'nightly-3']);
        const byName = await db.series({ scheduleId: null, name: 'demo', limit: 100 });
        strict_1.default.equal(new Set(byName.map((p) => p.run_id)).size, 4);
    });
    (0, node_test_1.it)('keeps the comparison record and its per-query rows', async () => {
        strict_1.default.deepEqual(await db.comparison('nightly-2'), comparisonOf('nightly-2', 'nightly-1'));
        strict_1.default.equal(await db.comparison('nightly-1'), undefined);
        const rows = await db.query("SELECT query_id, final, confirmed FROM comparison_queries WHERE run_id = 'nightly-2' ORDER BY query_id");
        strict_1.default.deepEqual(rows, [
            { query_id: 'q1', final: 'regression', confirmed: 1 },
            { query_id: 'q2', final: 'unchanged', confirmed: null },
        ]);
    });
    (0, node_test_1.it)('refuses statements that write', async () => {
        await strict_1.default.rejects(db.query('DROP TABLE runs'), /refused: only read statements/);
        await strict_1.default.rejects(db.query('SELECT 1; DROP TABLE runs'), /one statement only/);
        strict_1.default.deepEqual(await db.query("SELECT 'a;b' AS x -- ; trailing"), [{ x: 'a;b' }]);
    });
    (0, node_test_1.it)('CLI: results sql, import, stop and export', async () => {
        const cli = (...args) => run(process.execPath, [CLI, ...args], { cwd: tmp, maxBuffer: 32 << 20 });
        const j = await cli('results', 'sql', 'SELECT count() AS n FROM samples', '--results-dir', resultsDir, '--format', 'json');
        strict_1.default.deepEqual(JSON.parse(j.stdout).map((r) => Number(r.n)), [4 * perRun]);
        const t = await cli('results', 'sql', 'SELECT run_id FROM runs ORDER BY run_id', '--results-dir', resultsDir);
        strict_1.default.match(t.stdout, /^run_id\n-+\ndemo-20261130-064639\nnightly-1\nnightly-2\nnightly-3\n\(4 rows\)\n$/);
        await strict_1.default.rejects(cli('results', 'sql', 'INSERT INTO runs SELECT * FROM runs', '--results-dir', resultsDir), (e) => e.code === 2 && /refused/.test(e.stderr));
        // Import the whole results folder into a second embedded database, then stop it.
        const other = path.join(tmp, 'other');
        dbDirs.push(path.join(other, 'db'));
        const imp = await cli('results', 'import', resultsDir, '--results-dir', other);
        strict_1.default.match(imp.stdout, /4 of 4 run\(s\) stored/);
        const otherPid = (0, db_1.embeddedResultsDbProcess)(path.join(other, 'db'))?.pid;
        strict_1.default.ok(otherPid, 'the import started an engine process that outlives the CLI');
        pids.push(otherPid);
        const c2 = await cli('results', 'sql', 'SELECT count() AS n FROM samples', '--results-dir', other, '--format', 'csv');
        strict_1.default.equal(c2.stdout, `"n"\n${4 * perRun}\n`);
        const stop = await cli('results', 'stop', '--results-dir', other);
        strict_1.default.match(stop.stdout, new RegExp(`stopped the results database engine \\(pid ${otherPid}\\)`));
        strict_1.default.throws(() => process.kill(otherPid, 0));
        // Exports.
        const out = path.join(tmp, 'cb');
        await cli('export', 'nightly-1', '--format', 'clickbench', '--out', out, '--results-dir', resultsDir);
        const files = fs.readdirSync(out).sort();
        strict_1.default.deepEqual(files, [
            'v26.7-lz4.baseline.json',
            'v26.7-lz4.index.json',
            'v26.7-zstd3.baseline.json',
            'v26.7-zstd3.index.json',
        ]);
        const cb = JSON.parse(fs.readFileSync(path.join(out, 'v26.7-lz4.baseline.json'), 'utf8'));
        const fx0 = fx()[0];
        strict_1.default.equal(cb.result.length, fx0.queries_baseline.queries.length);
        for (const r of cb.result)
            strict_1.default.ok(r.length === 3 && r.every((x) => typeof x === 'number' && x > 0));
        const q1 = fx0.queries_baseline.queries[0].samples;
        strict_1.default.deepEqual(cb.result[0], [
            q1.find((s) => s.kind === 'cold'),
            q1.find((s) => s.kind === 'warm' && s.n === 1),
            q1.find((s) => s.kind === 'warm' && s.n === 2),
        ].map((s) => s.server_elapsed_ms / 1000));
        strict_1.default.equal(cb.load_time, fx0.load.elapsed_ms / 1000);
        strict_1.default.equal(cb.data_size, fx0.storage.bytes_on_disk);
        strict_1.default.equal(cb.date, '2026-01-01');
        strict_1.default.match(cb.comment, /server-side elapsed/);
        const jl = await cli('export', 'nightly-1', '--format', 'jsonl', '--results-dir', resultsDir);
        const lines = jl.stdout
            .trim()
            .split('\n')
            .map((l) => JSON.parse(l));
        strict_1.default.equal(lines.length, perRun);
        strict_1.default.deepEqual([...new Set(lines.map((l) => l.kind))].sort(), ['cold', 'warm', 'warmup']);
        const csvFile = path.join(tmp, 'x', 's.csv');
        await cli('export', 'nightly-1', '--format', 'csv', '--out', csvFile, '--results-dir', resultsDir);
        const csv = fs.readFileSync(csvFile, 'utf8').trim().split('\n');
        strict_1.default.equal(csv.length, perRun + 1);
        strict_1.default.match(csv[0], /^"run_id","cell_key","version_label",/);
        await strict_1.default.rejects(cli('export', 'no-such-run', '--format', 'csv', '--results-dir', resultsDir), (e) => e.code === 2);
    });
    (0, node_test_1.it)("every Grafana panel's SQL returns rows", async () => {
        const dash = JSON.parse(fs.readFileSync(path.join(config_1.REPO_ROOT, 'manifests', 'grafana-dashboard.json'), 'utf8'));
        strict_1.default.ok(dash.panels.length >= 5);
        for (const p of dash.panels) {
            strict_1.default.equal(p.datasource.type, 'grafana-clickhouse-datasource', p.title);
            for (const t of p.targets) {
                // The plugin's macro, as it expands it (epoch seconds), over 2000..2100.
                const sql = t.rawSql.replace(/\$__timeFilter\(([^)]+)\)/g, '($1 >= toDateTime(946684800) AND $1 <= toDateTime(4102444800))');
                strict_1.default.doesNotMatch(sql, /\$/, `${p.title}: no other macro or variable`);
                const rows = await db.query(sql);
                strict_1.default.ok(rows.length > 0, `${p.title}: rows`);
            }
        }
    });
    (0, node_test_1.it)('opens the same engine as a server database; a missing password variable is named', async () => {
        const proc = (0, db_1.embeddedResultsDbProcess)(dbDir);
        const srv = await (0, db_1.openResultsDb)({ kind: 'server', url: proc.url, database: 'chbench' });
        try {
            strict_1.default.match(srv.description, /^http:\/\/127\.0\.0\.1:\d+ database chbench$/);
            strict_1.default.equal((await srv.run('nightly-1'))?.schedule_id, 'nightly');
            strict_1.default.equal((await srv.samples('nightly-1')).length, perRun);
            // A server read carries readonly=2; the embedded kind does not send it, and it does not stick to the shared session.
            strict_1.default.deepEqual(await srv.query("SELECT toString(getSetting('readonly')) AS r"), [{ r: '2' }]);
            strict_1.default.deepEqual(await db.query("SELECT toString(getSetting('readonly')) AS r"), [{ r: '0' }]);
            await strict_1.default.rejects(srv.queryText("SELECT 1 INTO OUTFILE '/tmp/x.csv'", 'CSVWithNames'), /refused: INTO OUTFILE/);
        }
        finally {
            await srv.close();
        }
        delete process.env.CHBENCH_TEST_NO_SUCH_PASSWORD;
        await strict_1.default.rejects((0, db_1.openResultsDb)({
            kind: 'server',
            url: proc.url,
            database: 'chbench',
            passwordEnv: 'CHBENCH_TEST_NO_SUCH_PASSWORD',
        }), /CHBENCH_TEST_NO_SUCH_PASSWORD is not set/);
    });
    (0, node_test_1.it)('two openers share one engine process, which exits by itself after its idle period', async () => {
        const dir = path.join(tmp, 'idle', 'db');
        dbDirs.push(dir);
        // Two openers at once on a fresh directory: one engine process (start.lock), both work.
        const [d, e] = await Promise.all([
            (0, db_1.openResultsDb)({ kind: 'embedded', dir, idleExitS: 1 }),
            (0, db_1.openResultsDb)({ kind: 'embedded', dir, idleExitS: 1 }),
        ]);
        strict_1.default.equal(d.description, e.description);
        strict_1.default.deepEqual(await e.query('SELECT count() AS n FROM runs'), [{ n: 0 }]);
        await e.close();
        const pid = (0, db_1.embeddedResultsDbProcess)(dir).pid;
        pids.push(pid);
        await d.close();
        await (0, poll_1.pollUntil)(() => {
            try {
                process.kill(pid, 0);
                return false;
            }
            catch {
                return true;
            }
        }, { what: `idle engine pid ${pid} to exit`, timeoutMs: 20_000, intervalMs: 100 });
        strict_1.default.match(fs.readFileSync(path.join(dir, 'server.log'), 'utf8'), /idle for 1 s: stopping/);
    });
    (0, node_test_1.it)('results sql stays inside the database, stops slow statements, prints one-line errors; busy → exit 3', async () => {
        const cli = (...args) => run(process.execPath, [CLI, ...args], { cwd: tmp, maxBuffer: 32 << 20 });
        const sql = (q, ...more) => cli('results', 'sql', q, '--results-dir', resultsDir, ...more).then((r) => ({ code: 0, ...r }), (e) => e);
        const outfile = path.join(tmp, 'outfile.csv');
        for (const [q, why] of [
            [`SELECT 1 INTO OUTFILE '${outfile}'`, /INTO OUTFILE/],
            ['SELECT 1 SETTINGS readonly=0', /readonly/],
            ["SELECT * FROM file('/etc/hostname', 'LineAsString')", /table function file /],
            ["SELECT * FROM s3Cluster('c', 'http://127.0.0.1:1/x')", /table function s3Cluster /],
        ]) {
            const r = await sql(q);
            strict_1.default.equal(r.code, 2, q);
            strict_1.default.match(r.stderr, why, q);
        }
        strict_1.default.ok(!fs.existsSync(outfile), 'INTO OUTFILE wrote nothing');
        const bad = await sql('SELECT nosuch FROM runs');
        strict_1.default.equal(bad.code, 1);
        strict_1.default.match(bad.stderr, /^chbench: results database .*Code 47 \(UNKNOWN_IDENTIFIER\): Unknown expression identifier/);
        strict_1.default.equal(bad.stderr.trim().split('\n').length, 1, `one line: ${bad.stderr}`);
        const slowSql = 'SELECT sum(sleepEachRow(0.5)) FROM numbers(8) SETTINGS max_block_size = 1';
        const slow = await sql(slowSql, '--max-execution-time', '1');
        strict_1.default.equal(slow.code, 1, slow.stderr);
        strict_1.default.match(slow.stderr, /Code 159 \(TIMEOUT_EXCEEDED\)/);
        // While an ~8 s statement holds the one embedded engine, a client that waits 1 s is told the database is busy.
        const holding = db.query('SELECT sum(sleepEachRow(0.5)) FROM numbers(16) SETTINGS max_block_size = 1');
        await new Promise((r) => setTimeout(r, 300));
        const openShort = () => (0, db_1.openResultsDb)({ kind: 'embedded', dir: dbDir }, { requestTimeoutMs: 1000 });
        const [opened, busy] = await Promise.all([
            openShort().then(() => undefined, (e) => e),
            (0, compare_1.runCompare)('nightly-1', 'nightly-2', { resultsDir }, openShort),
        ]);
        strict_1.default.ok(opened instanceof db_1.ResultsDbUnavailableError, String(opened));
        strict_1.default.match(opened.message, /^results database busy or unreachable: /);
        strict_1.default.equal(busy.code, compare_1.COMPARE_EXIT.undecided, busy.stderr.join('\n'));
        strict_1.default.match(busy.stderr.join('\n'), /results database busy or unreachable/);
        await holding;
    });
    (0, node_test_1.it)('run ids in folder form (":" as "_") work for import, export and compare; a run is not compared with itself', async () => {
        const cli = (...args) => run(process.execPath, [CLI, ...args], { cwd: tmp, maxBuffer: 32 << 20 });
        const real = 'q1-2026-11-30T14:16:43Z';
        const folder = 'q1-2026-11-30T14_16_43Z';
        const src = path.join(tmp, 'colon');
        makeRun(src, real, { startedAt: '2026-11-30T14:16:43.000Z', scheduleId: 'q1', status: 'completed' });
        fs.renameSync(path.join(src, real), path.join(src, folder));
        const imp = await cli('results', 'import', path.join(src, folder), '--results-dir', resultsDir);
        strict_1.default.match(imp.stdout, new RegExp(`stored ${real} \\(folder ${folder}\\)`));
        strict_1.default.equal(await db.resolveRunId(folder), real);
        strict_1.default.equal(await db.resolveRunId(real), real);
        strict_1.default.equal(await db.resolveRunId('q1-2026-11-30T14_16_44Z'), undefined);
        const jsonl = await cli('export', folder, '--format', 'jsonl', '--results-dir', resultsDir);
        strict_1.default.equal(jsonl.stdout.trim().split('\n').length, perRun);
        strict_1.default.ok(jsonl.stdout.includes(`"run_id":"${real}"`));
        const open = () => (0, db_1.openResultsDb)({ kind: 'embedded', dir: dbDir });
        const cmp = await (0, compare_1.runCompare)('nightly-1', folder, { resultsDir, json: true }, open);
        strict_1.default.notEqual(cmp.code, compare_1.COMPARE_EXIT.invalid, cmp.stderr.join('\n'));
        strict_1.default.equal(cmp.record?.run_id, real);
        for (const [a, b] of [
            ['nightly-1', 'nightly-1'],
            [folder, real],
        ]) {
            const same = await (0, compare_1.runCompare)(a, b, { resultsDir }, open);
            strict_1.default.equal(same.code, compare_1.COMPARE_EXIT.invalid);
            strict_1.default.match(same.stderr.join('\n'), /itself|same run/);
        }
    });
});
function fx() {
    return fixtureCells();
}
//# sourceMappingURL=results-db.test.js.map