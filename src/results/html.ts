/**
 * The markup primitives of report.html, shared by its sections (`sections/*.ts`): escaping, the `h`
 * tagged template and its {@link Raw} markup, tables (plain and collapsed under a summary), notes and
 * the chart figures (`charts.ts`, rendered to inline SVG at report time). Every text put into the page
 * goes through {@link escapeHtml}.
 */
import { renderChart, type Chart } from './charts';

/** Escape text for HTML element content and double- or single-quoted attribute values (`& < > " '`). */
export function escapeHtml(s: unknown): string {
  return String(s).replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** Markup built here: {@link h} puts it in as it is (every other interpolated value is escaped). */
export class Raw {
  constructor(readonly html: string) {}
  toString(): string {
    return this.html;
  }
}

/** Build markup: `h`<p>${text}</p>`` escapes `text`; a {@link Raw} or an array of them is put in as it is. */
export function h(strings: TemplateStringsArray, ...values: unknown[]): Raw {
  let out = strings[0];
  values.forEach((v, i) => {
    const part = Array.isArray(v) ? v.map((x) => (x instanceof Raw ? x.html : escapeHtml(x))).join('') : v instanceof Raw ? v.html : escapeHtml(v ?? '');
    out += part + strings[i + 1];
  });
  return new Raw(out);
}

/**
 * One chart as a `<figure>`: its title, the SVG and a caption naming the source of its figures; or,
 * when the chart could not be rendered, a visible note with the error in the same place. Never throws.
 */
export async function chartFigure(chart: Chart): Promise<string> {
  const r = await renderChart(chart);
  if (r.error !== undefined)
    return h`<figure class="chart failed" id="chart-${chart.id}" data-chart="${chart.id}"><h3>${chart.title}</h3><p class="note">⚠ This chart could not be rendered: ${r.error}. The figures are in report.md and the run's records.</p><figcaption>Source: ${chart.source}</figcaption></figure>`.html;
  // The SVG is vega's own output (it escapes the text it draws) and carries the chart's title; it is embedded as markup.
  return h`<figure class="chart" id="chart-${chart.id}" data-chart="${chart.id}"><div class="svg">${new Raw(r.svg)}</div><figcaption>Source: ${chart.source}</figcaption></figure>`.html;
}

/** A table from a header row and body rows; cells are escaped. */
export function table(head: string[], rows: (string | Raw)[][]): Raw {
  return h`<table><thead><tr>${head.map((x) => h`<th>${x}</th>`)}</tr></thead><tbody>${rows.map((r) => h`<tr>${r.map((x) => h`<td>${x}</td>`)}</tr>`)}</tbody></table>`;
}

/**
 * One of report.md's tables (`rows`: header row first, as the sections' row builders return it),
 * collapsed under a summary: `<details><summary>…</summary><table>…</table></details>`. Nothing when
 * the table has no body row.
 */
export function detailsTable(summary: string, rows: string[][]): Raw {
  const [head, ...body] = plain(rows);
  if (!head || !body.length) return h``;
  return h`<details class="table"><summary>${summary}</summary>${table(head, body)}</details>`;
}

/** A note in the page (`<p class="note">`). */
export function note(text: string): Raw {
  return h`<p class="note">${text}</p>`;
}

/** Notes under a table, as report.md has them (nothing when there is none). */
export function notesList(notes: string[]): Raw {
  return notes.length ? h`<ul class="notes">${notes.map((n) => h`<li>${n}</li>`)}</ul>` : h``;
}

/** Table cells written for report.md, without its `**bold**` marks. */
export function plain(rows: string[][]): string[][] {
  return rows.map((r) => r.map((x) => x.replace(/\*\*/g, '')));
}

/**
 * The charts' figures in order ({@link chartFigure} each), or the note `none` when none of them has
 * anything to draw (`null`).
 */
export async function figures(charts: (Chart | null)[], none: string): Promise<Raw> {
  const present = charts.filter((c): c is Chart => c !== null);
  if (!present.length) return note(none);
  const out: Raw[] = [];
  for (const c of present) out.push(new Raw(await chartFigure(c)));
  return h`${out}`;
}
