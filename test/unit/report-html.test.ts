/**
 * Unit layer (no server, no browser): report.html's escaping, a chart that fails to render becoming
 * a visible note, a broken comparison.json becoming a note, and the chart data drawn from the captured
 * run (`test/fixtures/results/embedded-26.7`), and report.md's tables under the charts, in report.md's order;
 * the warm median's tick in the query-times legend, and a series too short for change points.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../../src/config';
import { chartFigure, escapeHtml, MAX_CHART_CELLS, renderHtmlReport } from '../../src/results/report-html';
import {
  comparisonChart,
  compressionChart,
  queryTimesChart,
  renderChart,
  seriesChart,
  skipIndexChart,
  type Chart,
} from '../../src/results/charts';
import { loadRun, renderReport } from '../../src/results/report';
import type { SeriesPoint } from '../../src/results/db/types';

const FIXTURE = path.join(REPO_ROOT, 'test', 'fixtures', 'results', 'embedded-26.7');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'chbench-report-html-unit-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** The data values of a single-dataset spec. */
function values(c: Chart | null): Record<string, unknown>[] {
  assert.ok(c, 'chart built');
  return (c.spec as unknown as { data: { values: Record<string, unknown>[] } }).data.values;
}

describe('escaping', () => {
  it('escapes the five HTML-special characters and nothing else', () => {
    assert.equal(
      escapeHtml(`<script>alert("x")</script> & 'q' é`),
      '&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62; &#38; &#39;q&#39; é',
    );
    assert.equal(escapeHtml(42), '42');
  });

  it('a run whose texts carry markup renders them as text, in the page and in the charts', async () => {
    const dir = path.join(tmp, 'markup', 'run');
    cpSync(FIXTURE, dir, { recursive: true });
    const evil = '<script>alert(1)</script><img src=x onerror=alert(2)>';
    const runFile = path.join(dir, 'run.json');
    const run = JSON.parse(readFileSync(runFile, 'utf8'));
    run.runId = `run ${evil}`;
    writeFileSync(runFile, JSON.stringify(run));
    const cellFile = path.join(dir, 'cells', 'v26.7-lz4', 'result.json');
    const cell = JSON.parse(readFileSync(cellFile, 'utf8'));
    cell.queries_baseline.queries[0].title = `count ${evil}`;
    writeFileSync(cellFile, JSON.stringify(cell));
    const html = await renderHtmlReport(dir);
    assert.doesNotMatch(html, /<script|<img/i);
    assert.ok(
      html.includes('run &#60;script&#62;alert(1)&#60;/script&#62;&#60;img src=x onerror=alert(2)&#62;'),
      'run id escaped in the page',
    );
    // vega draws the query title into the SVG (as a facet header) and escapes it itself.
    assert.ok(html.includes('q1 count &lt;script&gt;alert(1)&lt;/script&gt;'), 'query title escaped in the chart SVG');
  });
});

describe('a chart that fails', () => {
  const bad: Chart = {
    id: 'broken',
    title: 'Broken <chart>',
    source: 'nowhere & nothing',
    spec: { data: { values: [{ a: 1 }] }, mark: 'no-such-mark', encoding: {} } as unknown as Chart['spec'],
  };

  it('comes back with its error from renderChart, not a throw', async () => {
    const r = await renderChart(bad);
    assert.equal(r.svg, undefined);
    // vega-lite's own message (here a TypeError inside its compiler for the unknown mark type).
    assert.ok(r.error && r.error.length > 5, `error: ${r.error}`);
  });

  it('becomes a visible note in its figure, escaped, naming the error and the source', async () => {
    const fig = await chartFigure(bad);
    assert.match(fig, /^<figure class="chart failed" id="chart-broken" data-chart="broken">/);
    assert.ok(fig.includes('<h3>Broken &#60;chart&#62;</h3>'));
    const { error } = await renderChart(bad);
    assert.ok(fig.includes(`<p class="note">⚠ This chart could not be rendered: ${escapeHtml(error)}.`));
    assert.ok(fig.includes('Source: nowhere &#38; nothing'));
    assert.doesNotMatch(fig, /<svg/);
  });

  it('a chart that renders is an inline SVG with its source', async () => {
    const fig = await chartFigure(compressionChart(loadRun(FIXTURE).cells)!);
    assert.match(fig, /^<figure class="chart" id="chart-compression" data-chart="compression"><div class="svg"><svg /);
    assert.match(fig, /Source: system\.parts_columns/);
  });

  it('a comparison.json that does not parse is a note; the rest of the page renders', async () => {
    const dir = path.join(tmp, 'bad-comparison', 'run');
    cpSync(FIXTURE, dir, { recursive: true });
    writeFileSync(
      path.join(dir, 'comparison.json'),
      JSON.stringify({ schema: 'chbench.comparison/v1', pairs: 'nope' }),
    );
    const html = await renderHtmlReport(dir);
    assert.match(html, /<p class="note">⚠ comparison\.json could not be read: [^<]*comparison\.json/);
    assert.equal((html.match(/<figure class="chart" /g) ?? []).length, 4, 'the four run charts still render');
  });
});

describe('chart data from the captured run', () => {
  const { cells } = loadRun(FIXTURE);

  it('query times: every cold and warm run (no warm-up) plus one median per query and cell', () => {
    const rows = values(queryTimesChart(cells, 'baseline'));
    // 2 cells × 5 queries × (1 cold + 3 warm + 1 median).
    assert.equal(rows.length, 50);
    assert.equal(rows.filter((r) => r.what === 'cold run').length, 10);
    assert.equal(rows.filter((r) => r.what === 'warm median').length, 10);
    const q1 = cells[0].queries_baseline!.queries[0];
    const warm = q1.samples.filter((s) => s.kind === 'warm').map((s) => s.server_elapsed_ms);
    assert.deepEqual(
      rows
        .filter((r) => r.cell === 'v26.7-lz4' && String(r.query).startsWith('q1 ') && r.what === 'warm run')
        .map((r) => r.ms),
      warm,
    );
    assert.equal(values(queryTimesChart(cells, 'index')).length, 10, 'Q5 after the index in 2 cells');
  });

  it('compression: one bar per column and cell, bytes as MiB', () => {
    const rows = values(compressionChart(cells));
    assert.equal(rows.length, 16);
    const msg = cells[0].storage!.columns!.find((c) => c.column === 'message')!;
    assert.equal(
      rows.find((r) => r.column === 'message' && String(r.cell).startsWith('v26.7-lz4'))!.mib,
      msg.compressed_bytes / 2 ** 20,
    );
  });

  it('skip index: before and after per cell, the spec statistic, read_rows', () => {
    const rows = values(skipIndexChart(cells, 'min'));
    assert.deepEqual(
      rows.filter((r) => r.item === 'q5 · v26.7-lz4').map((r) => [r.when, r.read_rows]),
      [
        ['before index', 2000000],
        ['after index', 98304],
      ],
    );
    assert.equal(
      rows.find((r) => r.item === 'q5 · v26.7-lz4' && r.when === 'after index')!.ms,
      cells[0].queries_index!.queries[0].stats.warm_min_ms,
    );
  });

  it('nothing to draw is null, not an empty chart', () => {
    assert.equal(seriesChart([]), null);
    assert.equal(skipIndexChart([], 'min'), null);
    assert.equal(
      comparisonChart({
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
      }),
      null,
    );
  });
});

describe('the query-times legend and a short series', () => {
  const point = (run: number, ms: number): SeriesPoint => ({
    run_id: `nightly-${run}`,
    started_at: `2026-01-0${run + 1}T00:00:00.000Z`,
    cell_key: 'v26.7-lz4',
    version_label: 'v26.7',
    server_version: '26.7.2.1',
    codec: 'lz4',
    phase: 'baseline',
    query_id: 'q1',
    warm_median_ms: ms,
    figure: 'server_elapsed_ms',
  });

  it("draws the warm median's tick in the legend (a filled bar, not vega's arealess stroke)", async () => {
    const { cells } = loadRun(FIXTURE);
    const r = await renderChart(queryTimesChart(cells, 'baseline')!);
    assert.equal(r.error, undefined);
    const at = r.svg!.indexOf('>warm median</text>');
    assert.ok(at > 0, 'a legend entry "warm median"');
    const symbols = [
      ...r.svg!.slice(0, at).matchAll(/role-legend-symbol[^>]*><path [^>]*d="([^"]*)"[^>]*fill="([^"]*)"/g),
    ];
    const [, d, fill] = symbols.at(-1)!;
    assert.equal(fill, '#111111', "the colour of the chart's tick");
    assert.match(d, /^M-1(\.0+)?,-5L1(\.0+)?,-5L1(\.0+)?,5L-1(\.0+)?,5Z$/, `an upright bar of 2 px × 10 px: ${d}`);
  });

  it('a series shorter than change points need says "not tested"; a first run draws no chart', async () => {
    const three = [point(0, 9.1), point(1, 9.4), point(2, 9.2)];
    const chart = seriesChart(three)!;
    assert.match(chart.source, /Change points not tested \(3 runs; change points need at least 8\)\./);
    assert.doesNotMatch(chart.source, /found/);
    const html = await renderHtmlReport(FIXTURE, { series: [point(0, 9.1)] });
    const i = html.indexOf('<section id="series">');
    const section = html.slice(i, html.indexOf('</section>', i));
    assert.match(section, /First run of this series \(nightly-0\)/);
    assert.doesNotMatch(section, /<figure/, 'no chart of one run');
    assert.match(section, /not tested: the longest series has 1 run\(s\); change points need at least 8 runs/);
  });
});

describe('a run of many cells', () => {
  it(`charts draw the first ${MAX_CHART_CELLS} measured cells and say so; the cells table lists every cell`, async () => {
    const dir = path.join(tmp, 'many', 'run');
    cpSync(FIXTURE, dir, { recursive: true });
    const runFile = path.join(dir, 'run.json');
    const run = JSON.parse(readFileSync(runFile, 'utf8'));
    const keys = Array.from({ length: MAX_CHART_CELLS + 5 }, (_, i) => `v26.7-zstd3-r${i + 1}`);
    for (const k of keys) {
      const cdir = path.join(dir, 'cells', k);
      cpSync(path.join(FIXTURE, 'cells', 'v26.7-zstd3'), cdir, { recursive: true });
      const cell = JSON.parse(readFileSync(path.join(cdir, 'result.json'), 'utf8'));
      writeFileSync(path.join(cdir, 'result.json'), JSON.stringify({ ...cell, cellKey: k }));
    }
    run.cells = keys;
    writeFileSync(runFile, JSON.stringify(run));
    const html = await renderHtmlReport(dir);
    assert.ok(
      html.includes(`The charts show the first ${MAX_CHART_CELLS} of ${keys.length} measured cells (matrix order)`),
      'the page says the charts are cut',
    );
    // Every cell in the cells table; only the first MAX_CHART_CELLS in the compression chart's SVG.
    for (const k of keys) assert.ok(html.includes(`<td>${k}</td>`) || html.includes(`>${k}<`), `${k} in the page`);
    const compression = html.slice(
      html.indexOf('id="chart-compression"'),
      html.indexOf('</figure>', html.indexOf('id="chart-compression"')),
    );
    assert.ok(compression.includes(`v26.7-zstd3-r${MAX_CHART_CELLS}`), 'the last charted cell is drawn');
    assert.ok(!compression.includes(`v26.7-zstd3-r${MAX_CHART_CELLS + 1}<`), 'the next one is not');
  });
});

/** The body rows of the report.md table under `## <heading>` (cells trimmed, separator row left out). */
function mdTable(md: string, heading: string): string[][] {
  const lines = md.split('\n');
  const start = lines.findIndex((l) => l.startsWith(`## ${heading}`));
  assert.ok(start >= 0, `report.md has ## ${heading}`);
  const first = lines.findIndex((l, i) => i > start && l.startsWith('|'));
  const rows: string[][] = [];
  for (let i = first + 2; i < lines.length && lines[i].startsWith('|'); i++)
    rows.push(
      lines[i]
        .slice(1, -1)
        .split(' | ')
        .map((x) => x.trim()),
    );
  return rows;
}

/** The `<details>` block of report.html whose summary starts with `summary`. */
function details(html: string, summary: string): string {
  const i = html.indexOf(`<details class="table"><summary>${summary}`);
  assert.ok(i >= 0, `report.html has a <details> table "${summary}"`);
  return html.slice(i, html.indexOf('</details>', i) + '</details>'.length);
}

/** The html row report.md's markdown row becomes (each cell escaped, markdown bold marks left out). */
const htmlRow = (r: string[]) => `<tr>${r.map((x) => `<td>${escapeHtml(x.replace(/\*\*/g, ''))}</td>`).join('')}</tr>`;

describe("report.md's tables in report.html", () => {
  it('each chart section carries its report.md table, collapsed in <details>, with the same cells', async () => {
    const html = await renderHtmlReport(FIXTURE);
    const md = renderReport(FIXTURE);
    const sections: [string, string, string][] = [
      ['ingest', 'Ingest table', 'Ingest'],
      ['queries', 'Queries table', 'Queries'],
      ['compression', 'Compression table', 'Compression (table totals)'],
      ['compression', 'Per-column compression table', 'Per-column compression'],
      ['skip-index', 'Skip index before / after table', 'Skip index'],
    ];
    for (const [id, summary, heading] of sections) {
      const block = details(html, summary);
      const section = html.slice(
        html.indexOf(`<section id="${id}">`),
        html.indexOf('</section>', html.indexOf(`<section id="${id}">`)),
      );
      assert.ok(section.includes(block), `${summary} is inside <section id="${id}">`);
      assert.match(block, /^<details class="table"><summary>[^<]*<\/summary><table><thead>/);
      const rows = mdTable(md, heading);
      assert.ok(rows.length > 0, `${heading} has rows`);
      for (const r of rows)
        assert.ok(block.includes(htmlRow(r)), `${summary}: row ${r.slice(0, 3).join(' | ')} as in report.md`);
      assert.equal((block.match(/<tr><td>/g) ?? []).length, rows.length, `${summary}: as many rows as report.md`);
    }
    // The q1 warm min of the first cell, as report.md prints it (the fixture's stats.warm_min_ms, 7.32 ms).
    const q1 = mdTable(md, 'Queries').find((r) => r[0].startsWith('q1 '))!;
    assert.equal(q1[2], '7.32 ms');
    assert.ok(details(html, 'Queries table').includes(`<td>${q1[0]}</td><td>${q1[1]}</td><td>7.32 ms</td>`));
  });

  it('queries are in the order they ran (as report.md), not alphabetical, in the table and the charts', async () => {
    const dir = path.join(tmp, 'order', 'run');
    cpSync(FIXTURE, dir, { recursive: true });
    // The manifest's order here is q5, q3, q1, q4, q2: not the alphabetical one.
    const order = ['q5', 'q3', 'q1', 'q4', 'q2'];
    for (const k of ['v26.7-lz4', 'v26.7-zstd3']) {
      const f = path.join(dir, 'cells', k, 'result.json');
      const cell = JSON.parse(readFileSync(f, 'utf8'));
      const qs = cell.queries_baseline.queries as { id: string }[];
      cell.queries_baseline.queries = order.map((id) => qs.find((q) => q.id === id));
      writeFileSync(f, JSON.stringify(cell));
    }
    const md = renderReport(dir);
    const mdOrder = mdTable(md, 'Queries').map((r) => r[0].split(' ')[0]);
    assert.deepEqual(mdOrder, order, "report.md's order");
    const html = await renderHtmlReport(dir);
    const htmlOrder = [...details(html, 'Queries table').matchAll(/<tr><td>(q\d+) /g)].map((m) => m[1]);
    assert.deepEqual(htmlOrder, mdOrder, "report.html's Queries table in report.md's order");
    // The query-times chart's row headers (vega draws them as text, in facet order).
    const i = html.indexOf('id="chart-query-times-baseline"');
    const svg = html.slice(i, html.indexOf('</figure>', i));
    const drawn = order.map((id) => svg.indexOf(`>${id} `));
    assert.ok(
      drawn.every((x) => x > 0),
      'every query drawn',
    );
    assert.deepEqual(
      [...drawn].sort((a, b) => a - b),
      drawn,
      'chart rows in the order the queries ran',
    );
  });
});
