/**
 * A section's content built once for both renderers: its report.md lines with each table kept as
 * its rows ({@link Block}). {@link blocksMarkdown} writes report.md's lines (each table through
 * `markdown-table`, as the sections did before), {@link blocksHtml} the same headings, text and
 * tables on report.html (tables collapsed under a summary, as `detailsTable` does for the chart
 * sections). So a figure is computed once and both files print it with the same provenance text.
 */
import markdownTable from 'markdown-table';
import { detailsTable, h, type Raw } from '../html';

/** One table of a section: header row first (as the row builders return it) and its summary on report.html. */
export interface TableBlock {
  rows: string[][];
  /** report.html's `<summary>`; default `<the heading above it> table (as in report.md)`. */
  summary?: string;
}

/** A report.md line (markdown: `## heading`, a paragraph, `- item`, `1. item`, `> quote`, a code fence, `''`) or a table. */
export type Block = string | TableBlock;

/** report.md's lines of the blocks: each table rendered by `table` (`markdown-table`), its other lines as they are. */
export function blocksMarkdown(blocks: Block[], table: (rows: string[][]) => string = markdownTable): string[] {
  return blocks.map((b) => (typeof b === 'string' ? b : table(b.rows)));
}

/** Markdown inline marks of a report.md line as markup: `**bold**` → `<strong>`, `` `code` `` → `<code>`; the rest escaped. */
export function inline(text: string): Raw {
  const parts = text.split(/(\*\*[^*]+\*\*|`[^`]+`)/g);
  return h`${parts.map((p) => (/^\*\*[^*]+\*\*$/.test(p) ? h`<strong>${p.slice(2, -2)}</strong>` : /^`[^`]+`$/.test(p) ? h`<code>${p.slice(1, -1)}</code>` : h`${p}`))}`;
}

/**
 * report.html's markup of the blocks inside `<section id="${id}">`: `##`/`###` headings as `<h2>`/`<h3>`,
 * runs of `- ` and `1. ` lines as lists, `> ` lines as a blockquote, code fences as `<pre>`, other
 * lines as paragraphs, tables through `detailsTable`. Nothing when the blocks are empty.
 */
export function blocksHtml(id: string, blocks: Block[]): Raw {
  if (!blocks.length) return h``;
  return h`<section id="${id}">${blockMarkup(blocks)}</section>`;
}

/** The markup of the blocks as {@link blocksHtml} writes it, without the `<section>` around it (for a section that adds charts between its blocks). */
export function blocksBody(blocks: Block[]): Raw {
  return h`${blockMarkup(blocks)}`;
}

function blockMarkup(blocks: Block[]): Raw[] {
  const out: Raw[] = [];
  let heading = '';
  for (let i = 0; i < blocks.length; i++) {
    const b = blocks[i];
    if (typeof b !== 'string') {
      out.push(detailsTable(b.summary ?? `${heading.replace(/`/g, '')} table (as in report.md)`, b.rows));
      continue;
    }
    const run = (re: RegExp) => {
      const lines: string[] = [];
      while (i < blocks.length && typeof blocks[i] === 'string' && re.test(blocks[i] as string)) lines.push(blocks[i++] as string);
      i--;
      return lines;
    };
    const m = /^(#{2,3}) (.*)$/.exec(b);
    if (m) {
      heading = m[2];
      out.push(m[1] === '##' ? h`<h2>${inline(m[2])}</h2>` : h`<h3>${inline(m[2])}</h3>`);
    } else if (b.startsWith('- ')) out.push(h`<ul class="notes">${run(/^- /).map((l) => h`<li>${inline(l.slice(2))}</li>`)}</ul>`);
    else if (/^\d+\. /.test(b)) out.push(h`<ol>${run(/^\d+\. /).map((l) => h`<li>${inline(l.replace(/^\d+\. /, ''))}</li>`)}</ol>`);
    else if (b.startsWith('>')) out.push(h`<blockquote>${blockMarkup(run(/^>/).map((l) => l.replace(/^> ?/, '')))}</blockquote>`);
    else if (b.startsWith('```')) {
      const code: string[] = [];
      while (++i < blocks.length && blocks[i] !== '```') code.push(blocks[i] as string);
      out.push(h`<pre><code>${code.join('\n')}</code></pre>`);
    } else if (b.trim()) out.push(h`<p>${inline(b)}</p>`);
  }
  return out;
}
