/**
 * Unit layer (no server): the report's ordered list of sections (`src/results/sections/index.ts`).
 * Both renderers walk it: on the captured run (`test/fixtures/results/embedded-26.7`) report.md's
 * headings and report.html's `<section id>`s come in the list's order (report.html's with its few
 * recorded placements), and a section added to the list lands at its place in both orders.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { REPO_ROOT } from '../../src/config';
import { renderReport } from '../../src/results/report';
import { renderHtmlReport } from '../../src/results/report-html';
import { Raw } from '../../src/results/html';
import {
  buildContext,
  HTML_PLACED_AFTER,
  htmlSections,
  markdownSections,
  REPORT_SECTIONS,
  type ReportSection,
} from '../../src/results/sections';

const FIXTURE = path.join(REPO_ROOT, 'test', 'fixtures', 'results', 'embedded-26.7');

describe('the list of report sections', () => {
  it('has unique kebab-case ids, each section with markdown or html, placements naming listed sections', () => {
    const ids = REPORT_SECTIONS.map((s) => s.id);
    assert.equal(new Set(ids).size, ids.length, `unique ids: ${ids.join(', ')}`);
    for (const s of REPORT_SECTIONS) {
      assert.match(s.id, /^[a-z]+(-[a-z]+)*$/, s.id);
      assert.ok(s.markdown || s.html, `${s.id} renders somewhere`);
      assert.ok(s.title.length, `${s.id} has a title`);
    }
    for (const [id, after] of Object.entries(HTML_PLACED_AFTER))
      assert.ok(ids.includes(id) && ids.includes(after), `${id} → ${after}`);
  });

  it("report.md's headings come in the list's order", () => {
    const md = renderReport(FIXTURE);
    const ctx = buildContext(FIXTURE);
    // The first heading of each section that applies and writes one, found in the report in the list's order.
    const firstHeading = (s: ReportSection) => s.markdown!(ctx).find((l) => /^#{1,2} /.test(l));
    const headings = markdownSections()
      .filter((s) => s.applies(ctx))
      .map(firstHeading)
      .filter((x): x is string => !!x);
    assert.ok(headings.length >= 8, `headings: ${headings.join(' | ')}`);
    const at = headings.map((x) => md.split('\n').indexOf(x));
    assert.ok(!at.includes(-1), `every heading is in report.md: ${headings.filter((_, i) => at[i] === -1).join(', ')}`);
    assert.deepEqual(
      [...at].sort((a, b) => a - b),
      at,
      `in order: ${headings.join(' | ')}`,
    );
  });

  it("report.html's sections come in htmlSections' order", async () => {
    const html = await renderHtmlReport(FIXTURE);
    const found = [...html.matchAll(/<section id="([a-z-]+)">/g)].map((m) => m[1]);
    const listed = htmlSections().map((s) => s.id);
    // Every section id on the page is a listed section's id, in the walk's order.
    const pageOrder = found.filter((id) => listed.includes(id));
    assert.deepEqual(
      pageOrder,
      listed.filter((id) => pageOrder.includes(id)),
    );
    assert.deepEqual(pageOrder, [
      'cells',
      'sources',
      'ingest',
      'queries',
      'compression',
      'validity',
      'skip-index',
      'counters',
      'comparing',
      'environment',
    ]);
    assert.ok(
      html.indexOf('<header>') < html.indexOf('<section id="cells">') &&
        html.indexOf('<footer>') > html.lastIndexOf('</section>'),
    );
  });

  it('places a new section at its line of the list in both renderers, and refuses a placement of no section', () => {
    const extra: ReportSection = {
      id: 'memory',
      title: 'Memory per query',
      applies: () => true,
      markdown: () => ['## Memory per query', ''],
      html: () => new Raw(''),
    };
    const list = [...REPORT_SECTIONS];
    list.splice(list.findIndex((s) => s.id === 'skip-index') + 1, 0, extra);
    const md = markdownSections(list).map((s) => s.id);
    const page = htmlSections(list).map((s) => s.id);
    assert.equal(md[md.indexOf('memory') - 1], 'skip-index');
    // In report.html the versions section is placed after skip-index, so the new one follows it.
    assert.deepEqual(page.slice(page.indexOf('skip-index'), page.indexOf('skip-index') + 3), [
      'skip-index',
      'versions',
      'memory',
    ]);
    assert.throws(() => htmlSections(list, { nothing: 'skip-index' }), /no such section/);
  });
});
