"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * Unit layer (no server, no browser): report.html's escaping, a chart that fails to render becoming
 * a visible note, a broken comparison.json becoming a note, and the chart data drawn from the captured
 * run (`test/fixtures/results/embedded-26.7`).
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const node_fs_1 = require("node:fs");
const node_os_1 = __importDefault(require("node:os"));
const node_path_1 = __importDefault(require("node:path"));
const config_1 = require("../../src/config");
const report_html_1 = require("../../src/results/report-html");
const charts_1 = require("../../src/results/charts");
const report_1 = require("../../src/results/report");
const FIXTURE = node_path_1.default.join(config_1.REPO_ROOT, 'test', 'fixtures', 'results', 'embedded-26.7');
const tmp = (0, node_fs_1.mkdtempSync)(node_path_1.default.join(node_os_1.default.tmpdir(), 'chbench-report-html-unit-'));
(0, node_test_1.after)(() => (0, node_fs_1.rmSync)(tmp, { recursive: true, force: true }));
/** The data values of a single-dataset spec. */
function values(c) {
    strict_1.default.ok(c, 'chart built');
    return c.spec.data.values;
}
(0, node_test_1.describe)('escaping', () => {
    (0, node_test_1.it)('escapes the five HTML-special characters and nothing else', () => {
        strict_1.default.equal((0, report_html_1.escapeHtml)(`<script>alert("x")</script> & 'q' é`), '&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62; &#38; &#39;q&#39; é');
        strict_1.default.equal((0, report_html_1.escapeHtml)(42), '42');
    });
    (0, node_test_1.it)('a run whose texts carry markup renders them as text, in the page and in the charts', async () => {
        const dir = node_path_1.default.join(tmp, 'markup', 'run');
        (0, node_fs_1.cpSync)(FIXTURE, dir, { recursive: true });
        const evil = '<script>alert(1)</script><img src=x onerror=alert(2)>';
        const runFile = node_path_1.default.join(dir, 'run.json');
        const run = JSON.parse((0, node_fs_1.readFileSync)(runFile, 'utf8'));
        run.runId = `run ${evil}`;
        (0, node_fs_1.writeFileSync)(runFile, JSON.stringify(run));
        const cellFile = node_path_1.default.join(dir, 'cells', 'v26.7-lz4', 'result.json');
        const cell = JSON.parse((0, node_fs_1.readFileSync)(cellFile, 'utf8'));
        cell.queries_baseline.queries[0].title = `count ${evil}`;
        (0, node_fs_1.writeFileSync)(cellFile, JSON.stringify(cell));
        const html = await (0, report_html_1.renderHtmlReport)(dir);
        strict_1.default.doesNotMatch(html, /<script|<img/i);
        strict_1.default.ok(html.includes('run &#60;script&#62;alert(1)&#60;/script&#62;&#60;img src=x onerror=alert(2)&#62;'), 'run id escaped in the page');
        // vega draws the query title into the SVG (as a facet header) and escapes it itself.
        strict_1.default.ok(html.includes('q1 count &lt;script&gt;alert(1)&lt;/script&gt;'), 'query title escaped in the chart SVG');
    });
});
(0, node_test_1.describe)('a chart that fails', () => {
    const bad = {
        id: 'broken',
        title: 'Broken <chart>',
        source: 'nowhere & nothing',
        spec: { data: { values: [{ a: 1 }] }, mark: 'no-such-mark', encoding: {} },
    };
    (0, node_test_1.it)('comes back with its error from renderChart, not a throw', async () => {
        const r = await (0, charts_1.renderChart)(bad);
        strict_1.default.equal(r.svg, undefined);
        // vega-lite's own message (here a TypeError inside its compiler for the unknown mark type).
        strict_1.default.ok(r.error && r.error.length > 5, `error: ${r.error}`);
    });
    (0, node_test_1.it)('becomes a visible note in its figure, escaped, naming the error and the source', async () => {
        const fig = await (0, report_html_1.chartFigure)(bad);
        strict_1.default.match(fig, /^<figure class="chart failed" id="chart-broken" data-chart="broken">/);
        strict_1.default.ok(fig.includes('<h3>Broken &#60;chart&#62;</h3>'));
        const { error } = await (0, charts_1.renderChart)(bad);
        strict_1.default.ok(fig.includes(`<p class="note">⚠ This chart could not be rendered: ${(0, report_html_1.escapeHtml)(error)}.`));
        strict_1.default.ok(fig.includes('Source: nowhere &#38; nothing'));
        strict_1.default.doesNotMatch(fig, /<svg/);
    });
    (0, node_test_1.it)('a chart that renders is an inline SVG with its source', async () => {
        const fig = await (0, report_html_1.chartFigure)((0, charts_1.compressionChart)((0, report_1.loadRun)(FIXTURE).cells));
        strict_1.default.match(fig, /^<figure class="chart" id="chart-compression" data-chart="compression"><div class="svg"><svg /);
        strict_1.default.match(fig, /Source: system\.parts_columns/);
    });
    (0, node_test_1.it)('a comparison.json that does not parse is a note; the rest of the page renders', async () => {
        const dir = node_path_1.default.join(tmp, 'bad-comparison', 'run');
        (0, node_fs_1.cpSync)(FIXTURE, dir, { recursive: true });
        (0, node_fs_1.writeFileSync)(node_path_1.default.join(dir, 'comparison.json'), JSON.stringify({ schema: 'chbench.comparison/v1', pairs: 'nope' }));
        const html = await (0, report_html_1.renderHtmlReport)(dir);
        strict_1.default.match(html, /<p class="note">⚠ comparison\.json could not be read: [^<]*comparison\.json/);
        strict_1.default.equal((html.match(/<figure class="chart" /g) ?? []).length, 4, 'the four run charts still render');
    });
});
(0, node_test_1.describe)('chart data from the captured run', () => {
    const { cells } = (0, report_1.loadRun)(FIXTURE);
    (0, node_test_1.it)('query times: every cold and warm run (no warm-up) plus one median per query and cell', () => {
        const rows = values((0, charts_1.queryTimesChart)(cells, 'baseline'));
        // 2 cells × 5 queries × (1 cold + 3 warm + 1 median).
        strict_1.default.equal(rows.length, 50);
        strict_1.default.equal(rows.filter((r) => r.what === 'cold run').length, 10);
        strict_1.default.equal(rows.filter((r) => r.what === 'warm median').length, 10);
        const q1 = cells[0].queries_baseline.queries[0];
        const warm = q1.samples.filter((s) => s.kind === 'warm').map((s) => s.server_elapsed_ms);
        strict_1.default.deepEqual(rows
            .filter((r) => r.cell === 'v26.7-lz4' && String(r.query).startsWith('q1 ') && r.what === 'warm run')
            .map((r) => r.ms), warm);
        strict_1.default.equal(values((0, charts_1.queryTimesChart)(cells, 'index')).length, 10, 'Q5 after the index in 2 cells');
    });
    (0, node_test_1.it)('compression: one bar per column and cell, bytes as MiB', () => {
        const rows = values((0, charts_1.compressionChart)(cells));
        strict_1.default.equal(rows.length, 16);
        const msg = cells[0].storage.columns.find((c) => c.column === 'message');
        strict_1.default.equal(rows.find((r) => r.column === 'message' && String(r.cell).startsWith('v26.7-lz4')).mib, msg.compressed_bytes / 2 ** 20);
    });
    (0, node_test_1.it)('skip index: before and after per cell, the spec statistic, read_rows', () => {
        const rows = values((0, charts_1.skipIndexChart)(cells, 'min'));
        strict_1.default.deepEqual(rows.filter((r) => r.item === 'q5 · v26.7-lz4').map((r) => [r.when, r.read_rows]), [
            ['before index', 2000000],
            ['after index', 98304],
        ]);
        strict_1.default.equal(rows.find((r) => r.item === 'q5 · v26.7-lz4' && r.when === 'after index').ms, cells[0].queries_index.queries[0].stats.warm_min_ms);
    });
    (0, node_test_1.it)('nothing to draw is null, not an empty chart', () => {
        strict_1.default.equal((0, charts_1.seriesChart)([]), null);
        strict_1.default.equal((0, charts_1.skipIndexChart)([], 'min'), null);
        strict_1.default.equal((0, charts_1.comparisonChart)({
            schema: 'chbench.comparison/v1',
            comparison_id: 'c',
            run_id: 'a',
            baseline_run_id: 'b',
            baseline_chosen_by: 'run b',
            method: 'm',
            options: {
                minChange: 0.1,
                unstableAbove: 0.5,
                confidence: 0.95,
                resamples: 10,
                minRuns: 3,
                confirmRounds: 1,
                seed: 1,
            },
            pairs: [],
            unpaired: [],
            flagged: [],
            confirmed: [],
            verdict: 'unchanged',
            created_at: '2026-01-01T00:00:00Z',
        }), null);
    });
});
(0, node_test_1.describe)('a run of many cells', () => {
    (0, node_test_1.it)(`charts draw the first ${report_html_1.MAX_CHART_CELLS} measured cells and say so; the cells table lists every cell`, async () => {
        const dir = node_path_1.default.join(tmp, 'many', 'run');
        (0, node_fs_1.cpSync)(FIXTURE, dir, { recursive: true });
        const runFile = node_path_1.default.join(dir, 'run.json');
        const run = JSON.parse((0, node_fs_1.readFileSync)(runFile, 'utf8'));
        const keys = Array.from({ length: report_html_1.MAX_CHART_CELLS + 5 }, (_, i) => `v26.7-zstd3-r${i + 1}`);
        for (const k of keys) {
            const cdir = node_path_1.default.join(dir, 'cells', k);
            (0, node_fs_1.cpSync)(node_path_1.default.join(FIXTURE, 'cells', 'v26.7-zstd3'), cdir, { recursive: true });
            const cell = JSON.parse((0, node_fs_1.readFileSync)(node_path_1.default.join(cdir, 'result.json'), 'utf8'));
            (0, node_fs_1.writeFileSync)(node_path_1.default.join(cdir, 'result.json'), JSON.stringify({ ...cell, cellKey: k }));
        }
        run.cells = keys;
        (0, node_fs_1.writeFileSync)(runFile, JSON.stringify(run));
        const html = await (0, report_html_1.renderHtmlReport)(dir);
        strict_1.default.ok(html.includes(`The charts show the first ${report_html_1.MAX_CHART_CELLS} of ${keys.length} measured cells (matrix order)`), 'the page says the charts are cut');
        // Every cell in the cells table; only the first MAX_CHART_CELLS in the compression chart's SVG.
        for (const k of keys)
            strict_1.default.ok(html.includes(`<td>${k}</td>`) || html.includes(`>${k}<`), `${k} in the page`);
        const compression = html.slice(html.indexOf('id="chart-compression"'), html.indexOf('</figure>', html.indexOf('id="chart-compression"')));
        strict_1.default.ok(compression.includes(`v26.7-zstd3-r${report_html_1.MAX_CHART_CELLS}`), 'the last charted cell is drawn');
        strict_1.default.ok(!compression.includes(`v26.7-zstd3-r${report_html_1.MAX_CHART_CELLS + 1}<`), 'the next one is not');
    });
});
//# sourceMappingURL=report-html.test.js.map