/**
 * Integration layer: `report.html` for a real run folder (`test/fixtures/results/embedded-26.7`,
 * two cells with storage, skip index and both query phases), plus a synthetic `comparison.json` and a
 * scheduled series, opened in a real headless Chromium (Debian's `chromium`, or `CHROMIUM_PATH`) from
 * a file:// URL. Checks: no console error or page error, no request but the page itself, every chart's
 * SVG present with a non-zero size, and a screenshot of each chart with real content (pixels unlike
 * the background). Also the `writeReport` activity writing both reports.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { stopResultsDbsStartedHere } from '../../src/results/db';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import puppeteer, { type Browser } from 'puppeteer-core';
import { PNG } from 'pngjs';
import { REPO_ROOT } from '../../src/config';
import { renderHtmlReport } from '../../src/results/report-html';
import { COMPARISON_SCHEMA, ComparisonRecord, type QueryComparison, type Verdict } from '../../src/schema/comparison';
import type { SeriesPoint } from '../../src/results/db/types';
import { createWriteReport } from '../../src/activities/matrix/write-report';

const FIXTURE = path.join(REPO_ROOT, 'test', 'fixtures', 'results', 'embedded-26.7');
const RUN_ID = 'demo-20261130-064639';
const CELLS = ['v26.7-lz4', 'v26.7-zstd3'];
const BASELINE = 'demo-20260830-060000';
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** A run of the grids demo (`npm run demo:grids`, small points): run.json and its cell's result.json. */
const GRIDS_FIXTURE = path.join(REPO_ROOT, 'test', 'fixtures', 'results', 'grids-26.7');
const GRIDS_RUN_ID = 'grids-20261130-173431';

function query(
  id: string,
  phase: 'baseline' | 'index',
  ratio: number | null,
  ci: [number, number] | null,
  threshold: number | null,
  verdict: Verdict,
): QueryComparison {
  const flagged = verdict === 'regression' || verdict === 'improvement';
  return {
    query_id: id,
    phase,
    figure: 'server_elapsed_ms',
    n_baseline: 3,
    n_new: 3,
    median_baseline_ms: ratio === null ? null : 10,
    median_new_ms: ratio === null ? null : 10 * ratio,
    ratio,
    ci_low: ci?.[0] ?? null,
    ci_high: ci?.[1] ?? null,
    threshold,
    verdict,
    reason:
      ratio === null
        ? 'too few valid warm runs on the baseline side'
        : `CI ${ci?.[0]}–${ci?.[1]} against 1 ± ${threshold}`,
    ...(flagged
      ? {
          confirm: {
            rounds: 3,
            n_baseline: 9,
            n_new: 9,
            ratio,
            ci_low: ci?.[0] ?? null,
            ci_high: ci?.[1] ?? null,
            threshold,
            verdict,
            confirmed: id === 'q2',
            reason: 're-run',
          },
        }
      : {}),
    final: flagged && id !== 'q2' ? 'unchanged' : verdict,
  };
}

/** A comparison of the fixture run with an earlier run, one pair per cell, every verdict present. */
function comparison(): ComparisonRecord {
  return ComparisonRecord.parse({
    schema: COMPARISON_SCHEMA,
    comparison_id: `${RUN_ID}-vs-${BASELINE}`,
    run_id: RUN_ID,
    baseline_run_id: BASELINE,
    baseline_chosen_by: `run ${BASELINE}`,
    method: 'ratio of medians, percentile bootstrap 2000 resamples, 95 % CI',
    options: {
      minChange: 0.1,
      unstableAbove: 0.5,
      confidence: 0.95,
      resamples: 2000,
      minRuns: 3,
      confirmRounds: 3,
      seed: 42,
    },
    pairs: CELLS.map((cell) => ({
      pair_key: `${cell}→${cell}`,
      baseline_run: BASELINE,
      baseline_cell: cell,
      new_run: RUN_ID,
      new_cell: cell,
      differences: [],
      queries: [
        query('q1', 'baseline', 1.02, [0.96, 1.08], 0.1, 'unchanged'),
        query('q2', 'baseline', 1.9, [1.75, 2.05], 0.12, 'regression'),
        query('q3', 'baseline', 0.7, [0.62, 0.78], 0.1, 'improvement'),
        query('q4', 'baseline', 1.2, [0.7, 1.8], 0.55, 'unstable'),
        query('q5', 'baseline', 0.98, [0.9, 1.05], 0.1, 'unchanged'),
        query('q5', 'index', null, null, null, 'unstable'),
      ],
    })),
    unpaired: [],
    flagged: ['Q2', 'Q3'],
    confirmed: ['Q2'],
    verdict: 'regression',
    created_at: '2026-11-30T06:50:00.000Z',
  });
}

/** Twelve quarterly runs of both cells, every query before the index and Q5 after it; q2 is 15 % slower from the 7th run on. */
function series(): SeriesPoint[] {
  const starts = Array.from({ length: 12 }, (_, r) => new Date(Date.UTC(2024, 3 * r, 1, 6)).toISOString());
  const out: SeriesPoint[] = [];
  starts.forEach((started_at, r) => {
    for (const cell_key of CELLS)
      for (const [query_id, phase, ms] of [
        ['q1', 'baseline', 8],
        ['q2', 'baseline', 45],
        ['q3', 'baseline', 330],
        ['q4', 'baseline', 110],
        ['q5', 'baseline', 100],
        ['q5', 'index', 20],
      ] as const)
        out.push({
          run_id: `demo-${r}`,
          started_at,
          cell_key,
          version_label: '26.7',
          server_version: '26.7.2.1',
          codec: cell_key.endsWith('lz4') ? 'LZ4' : 'ZSTD(3)',
          phase,
          query_id,
          // ±1 % of run-to-run spread, the same for every query; q2's step.
          warm_median_ms: ms * (1 + (0.01 * (((r * 7) % 5) - 2)) / 2) * (query_id === 'q2' && r >= 6 ? 1.15 : 1),
          figure: 'server_elapsed_ms',
        });
  });
  return out;
}

/** Pixels of a PNG that differ from its most frequent colour (the background) by more than 24 in a channel. */
function contentPixels(png: Buffer): { content: number; total: number } {
  const img = PNG.sync.read(png);
  const freq = new Map<number, number>();
  for (let i = 0; i < img.data.length; i += 4) {
    const k = (img.data[i] << 16) | (img.data[i + 1] << 8) | img.data[i + 2];
    freq.set(k, (freq.get(k) ?? 0) + 1);
  }
  const bg = [...freq.entries()].sort((a, b) => b[1] - a[1])[0][0];
  const [br, bgc, bb] = [(bg >> 16) & 255, (bg >> 8) & 255, bg & 255];
  let content = 0;
  for (let i = 0; i < img.data.length; i += 4)
    if (Math.max(Math.abs(img.data[i] - br), Math.abs(img.data[i + 1] - bgc), Math.abs(img.data[i + 2] - bb)) > 24)
      content++;
  return { content, total: img.width * img.height };
}

interface Loaded {
  consoleErrors: string[];
  pageErrors: string[];
  requests: string[];
  charts: { id: string; failed: boolean; width: number; height: number; content: number; total: number }[];
  text: string;
  /** The series chart's change-point rules (their on-screen heights, px) and labels. */
  changeRules: number[];
  changeLabels: string[];
  /** The widest the page gets with every collapsed table opened (`scrollWidth`, px) and the viewport's width. */
  pageWidth: number;
  viewportWidth: number;
}

/** Open a page from a file in a fresh tab and measure every chart in it. */
async function load(browser: Browser, file: string): Promise<Loaded> {
  const page = await browser.newPage();
  try {
    const out: Loaded = {
      consoleErrors: [],
      pageErrors: [],
      requests: [],
      charts: [],
      text: '',
      changeRules: [],
      changeLabels: [],
      pageWidth: 0,
      viewportWidth: 0,
    };
    page.on('console', (m) => {
      if (m.type() === 'error') out.consoleErrors.push(m.text());
    });
    page.on('pageerror', (e) => out.pageErrors.push(String(e)));
    page.on('request', (r) => out.requests.push(r.url()));
    page.on('requestfailed', (r) => out.consoleErrors.push(`request failed: ${r.url()}`));
    await page.setViewport({ width: 1280, height: 900 });
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load', timeout: 30_000 });
    // Every report.md table opened (so the page's text has them): none makes the page scroll sideways (a wide one scrolls in its own box).
    const widths = await page.evaluate(`(() => {
      for (const d of document.querySelectorAll('details')) d.open = true;
      return [document.documentElement.scrollWidth, document.documentElement.clientWidth];
    })()`);
    [out.pageWidth, out.viewportWidth] = widths as [number, number];
    out.text = await page.$eval('body', (b) => (b as unknown as { innerText: string }).innerText);
    for (const fig of await page.$$('figure.chart')) {
      const id = await fig.evaluate((e) => e.getAttribute('data-chart') ?? '');
      const failed = await fig.evaluate((e) => e.classList.contains('failed'));
      const svg = await fig.$('svg');
      const box = svg ? await svg.boundingBox() : null;
      const shot =
        svg && box && box.width > 0 && box.height > 0 ? Buffer.from(await svg.screenshot({ type: 'png' })) : null;
      out.charts.push({
        id,
        failed,
        width: box?.width ?? 0,
        height: box?.height ?? 0,
        ...(shot ? contentPixels(shot) : { content: 0, total: 0 }),
      });
    }
    for (const rule of await page.$$('#chart-series g.change_points_marks line'))
      out.changeRules.push((await rule.boundingBox())?.height ?? 0);
    out.changeLabels = await page.$$eval('#chart-series g[class*="change_labels_"] text', (ts) =>
      ts.map((t) => t.textContent ?? ''),
    );
    return out;
  } finally {
    await page.close();
  }
}

describe('report.html in headless Chromium', { timeout: 180_000 }, () => {
  let tmp: string;
  let browser: Browser;

  before(async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'chbench-report-html-'));
    assert.ok(
      existsSync(CHROMIUM),
      `${CHROMIUM} is missing: run ./scripts/setup.sh --with-debian-clickhouse (it installs Debian's chromium), or set CHROMIUM_PATH`,
    );
    browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu'],
    });
  });

  after(async () => {
    // writeReport reads the series of past runs from the results database: stop the engine it started.
    await stopResultsDbsStartedHere();
    await browser?.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('renders every chart of a compared run with a series, offline and without errors', async () => {
    const dir = path.join(tmp, 'compared', RUN_ID);
    cpSync(FIXTURE, dir, { recursive: true });
    writeFileSync(path.join(dir, 'comparison.json'), JSON.stringify(comparison(), null, 2));
    const html = await renderHtmlReport(dir, { series: series() });
    assert.doesNotMatch(html, /<script|<link|<iframe|<img|@import|url\(/i, 'nothing that could load a resource');
    const file = path.join(dir, 'report.html');
    writeFileSync(file, html);

    const r = await load(browser, file);
    assert.deepEqual(r.consoleErrors, []);
    assert.deepEqual(r.pageErrors, []);
    assert.deepEqual(r.requests, [pathToFileURL(file).href], 'the page itself is the only request');
    assert.deepEqual(
      r.charts.map((c) => c.id),
      ['query-times-baseline', 'query-times-index', 'compression', 'skip-index', 'comparison', 'series'],
    );
    for (const c of r.charts) {
      assert.equal(c.failed, false, `${c.id} rendered`);
      assert.ok(c.width > 200 && c.height > 100, `${c.id} has a size (${c.width}×${c.height})`);
      assert.ok(
        c.content > 500,
        `${c.id} screenshot has content (${c.content} of ${c.total} pixels unlike the background)`,
      );
    }
    // The headline facts of report.md.
    for (const s of [
      RUN_ID,
      'completed',
      '2 of 2 cell(s) succeeded',
      'v26.7-lz4',
      'v26.7-zstd3',
      'Validity: every cold run was cold',
      'Sources of the figures',
      'http summary elapsed_ns',
      `Baseline run ${BASELINE}`,
      'confirmed by the re-run: Q2',
    ])
      assert.ok(r.text.includes(s), `page text has "${s}"`);
    assert.match(r.text, /No ratio: q5 @index in v26\.7-lz4→v26\.7-lz4: too few valid warm runs/);
    // report.md's sections that report.html once left out, with their figures (page text as drawn).
    for (const s of [
      'Server and host counters during the cell',
      '454,078,464',
      'Comparing cells',
      'Per query: warm min against the same query in v26.7-lz4',
      'v26.7-lz4 cold: direct I/O requested (min_bytes_to_use_direct_io=1)',
      'Results agree: every run of q1, q2, q3, q5 in every cell (before and after the index) returned the same rows (sha256).',
    ])
      assert.ok(r.text.includes(s), `page text has "${s}"`);
    assert.match(r.text, /q5 \(after index\)\tv26\.7-zstd3\t/, 'a Validity row');
    assert.ok(r.pageWidth <= r.viewportWidth, `no sideways scrolling: ${r.pageWidth} px in ${r.viewportWidth} px`);
    // The series' change points: q2 in both cells at the 7th run, a dashed rule across the panel and its label.
    assert.equal(r.changeRules.length, 2, 'one rule per panel with a change point');
    for (const hgt of r.changeRules) assert.ok(hgt > 100, `the rule spans the panel (${hgt} px)`);
    assert.deepEqual(r.changeLabels, Array(2).fill('change: q2 44.9→51.7 ms (+15.2 %, p 0.005)'));
    assert.match(
      r.text,
      /Over 12 series \(query × cell × phase, up to 12 runs\): 2 change point\(s\) \(E-divisive means/,
    );
    assert.match(
      r.text,
      /q2\tv26\.7-lz4\tbefore the skip index\tchange point\tdemo-6 \(2025-07-01T06:00:00Z\), index 6\t44\.9 ms → 51\.7 ms\t\+15\.2 %\t0\.005/,
    );
    const kb = Buffer.byteLength(html) / 1024;
    assert.ok(kb < 1024, `page stays small (${kb.toFixed(0)} KB)`);
  });

  it('renders the load grids of a run (test/fixtures/results/grids-26.7, the grids demo): both charts drawn, both tables and the knee', async () => {
    const dir = path.join(tmp, 'grids', GRIDS_RUN_ID);
    cpSync(GRIDS_FIXTURE, dir, { recursive: true });
    const file = path.join(dir, 'report.html');
    writeFileSync(file, await renderHtmlReport(dir));
    const r = await load(browser, file);
    assert.deepEqual([...r.consoleErrors, ...r.pageErrors], []);
    assert.deepEqual(r.requests, [pathToFileURL(file).href]);
    const grid = r.charts.filter((c) => c.id === 'concurrency' || c.id === 'insert-grid');
    assert.deepEqual(
      grid.map((c) => c.id),
      ['concurrency', 'insert-grid'],
    );
    for (const c of grid) {
      assert.equal(c.failed, false, `${c.id} rendered`);
      assert.ok(c.content > 2000, `${c.id} screenshot has content (${c.content} of ${c.total} pixels)`);
    }
    for (const s of ['Concurrency stepping', 'Insert grid', 'Knee: 1 client', 'b1000', 'RowBinary'])
      assert.ok(r.text.includes(s) || (s === 'b1000' && r.text.includes('1,000')), `page text has "${s}"`);
    // One table row per insert point (18) and per step (5).
    assert.equal((r.text.match(/\tyes \(100,000 rows\)\t/g) ?? []).length, 18, 'every point verified in the table');
  });

  it('writeReport writes report.md and report.html for the fixture run; the page loads with its four run charts', async () => {
    const resultsDir = path.join(tmp, 'activity');
    cpSync(FIXTURE, path.join(resultsDir, RUN_ID), { recursive: true });
    const { writeReport } = createWriteReport();
    const out = await writeReport({ resultsDir, runId: RUN_ID, status: 'completed' });
    assert.equal(out.reportPath, path.join(resultsDir, RUN_ID, 'report.md'));
    assert.equal(out.htmlPath, path.join(resultsDir, RUN_ID, 'report.html'));
    assert.ok(existsSync(out.reportPath));
    const html = readFileSync(out.htmlPath, 'utf8');
    assert.doesNotMatch(html, /id="comparison"|id="series"/, 'no comparison or series section without their inputs');

    const r = await load(browser, out.htmlPath);
    assert.deepEqual([...r.consoleErrors, ...r.pageErrors], []);
    assert.deepEqual(r.requests, [pathToFileURL(out.htmlPath).href]);
    assert.deepEqual(
      r.charts.map((c) => [c.id, c.failed]),
      ['query-times-baseline', 'query-times-index', 'compression', 'skip-index'].map((id) => [id, false]),
    );
    for (const c of r.charts) assert.ok(c.content > 500, `${c.id} screenshot has content (${c.content} pixels)`);
  });

  it('writeReport renders in a child process: its failure reaches the caller with the reason', async () => {
    const { writeReport } = createWriteReport();
    await assert.rejects(
      writeReport({ resultsDir: path.join(tmp, 'missing'), runId: 'no-such-run', status: 'completed' }),
      (e: Error) => {
        assert.match(e.message, /rendering the report failed \(exit 1\)/);
        assert.match(e.message, /run\.json/, "the child's own error names the file it could not read");
        return true;
      },
    );
  });
});
