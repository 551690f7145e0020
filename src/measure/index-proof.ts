/**
 * Proof that a skip index was used by the measured runs themselves — not only by an EXPLAIN taken
 * under other settings: the `EXPLAIN indexes = 1` statement ({@link explainIndexes}, the one place
 * chbench issues it), and pure functions over its text and read_rows figures.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import type { IndexProof, IndexVerification, QueriesRecord, QueryRecord } from '../schema/results';
import { queryRows } from '../clickhouse/client';
import { sqlString } from '../lib/sql';

/**
 * `EXPLAIN indexes = 1 <sql>` under `settings` (pass the measured runs' own, so what it shows holds
 * for them), as the server's text with trailing whitespace removed.
 * @throws ClickHouseError when the server refuses it (18.16 has no EXPLAIN; a query error).
 */
export async function explainIndexes(
  client: ClickHouseClient,
  sql: string,
  settings: Record<string, number | string>,
): Promise<string> {
  const rs = await client.query({
    query: `EXPLAIN indexes = 1 ${sql}`,
    format: 'TabSeparatedRaw',
    clickhouse_settings: settings,
  });
  return (await rs.text()).trimEnd();
}

/**
 * What chbench read from an `EXPLAIN indexes = 1` text about one skip index ({@link explainGranules}):
 * - `used`: the plan is understood and the index's `Skip` entries give `kept/total` granules (summed over
 *   every `ReadFromMergeTree` step that applies it; `reads` = how many);
 * - `absent`: the plan is understood and no step applies the index (e.g. `use_skip_indexes = 0`);
 * - `not understood`: the text is not a plan chbench can read (another EXPLAIN format, a cut-off body, an
 *   entry without its granules, the index named where no `Skip` entry is); `reason` says why. Nothing may
 *   be concluded from it — neither "the index works" nor "the index is not used".
 */
export type ExplainGranules =
  | { outcome: 'used'; form: ExplainForm; kept: number; total: number; reads: number }
  | { outcome: 'absent'; form: ExplainForm }
  | { outcome: 'not understood'; reason: string };

/**
 * The text form of a query plan: `legacy` (the only form before 26.7, and the default until then: the
 * step's `Indexes:` block at the step's own indentation, 2-space steps) or `pretty` (`explain_query_plan_default`
 * = 'pretty', the default from 26.7: a header `Output: …`, 3-space step properties, `Indexes:` inside the step).
 */
export type ExplainForm = 'legacy' | 'pretty';

/**
 * Judge a skip index's use in the measured runs: the EXPLAIN taken under the runs' own settings must
 * show the index dropping granules, and the runs themselves must have read fewer rows than the same
 * query before the index. An EXPLAIN text chbench does not understand ({@link explainGranules}) gives
 * `effective: null` with `explain_not_understood` set: never a verdict either way. A read_rows of 0 is
 * unknown (no query over the table reads nothing; the chdb builds before 26.5 report 0). Pure.
 */
export function judgeIndexUse(
  index: string,
  explain: string | null,
  readAfter: number | null,
  readBefore: number | null,
): IndexProof {
  // A 0 read (older records took the engines' 0 statistics as figures) is unknown, never a basis.
  const zero = [readAfter === 0 && 'after', readBefore === 0 && 'before'].filter(Boolean);
  if (readAfter === 0) readAfter = null;
  if (readBefore === 0) readBefore = null;
  const r = explain === null ? null : explainGranules(explain, index);
  const g = r?.outcome === 'used' ? r : null;
  const base: IndexProof = {
    index,
    explain_granules: g ? `${g.kept}/${g.total}` : null,
    explain_skips: r === null || r.outcome === 'not understood' ? null : g ? g.kept < g.total : false,
    read_rows_after: readAfter,
    read_rows_before: readBefore,
    effective: null,
    reason: '',
  };
  const rows =
    readAfter !== null && readBefore !== null
      ? `measured read_rows ${readAfter.toLocaleString('en-US')} after vs ${readBefore.toLocaleString('en-US')} before`
      : `measured read_rows unknown${zero.length ? ` (0 reported ${zero.join(' and ')}: not a figure)` : ''}`;
  if (r === null) return { ...base, effective: null, reason: `EXPLAIN not available; ${rows}` };
  if (r.outcome === 'not understood')
    return {
      ...base,
      effective: null,
      explain_not_understood: r.reason,
      reason: `EXPLAIN not understood (${r.reason}): the index's use cannot be judged from it; ${rows}`,
    };
  if (!g)
    return {
      ...base,
      effective: false,
      reason: `EXPLAIN under the runs' settings does not use index ${index}; ${rows}`,
    };
  if (g.kept >= g.total)
    return {
      ...base,
      effective: false,
      reason: `EXPLAIN under the runs' settings: index ${index} dropped no granule (${g.kept}/${g.total}); ${rows}`,
    };
  if (readAfter === null || readBefore === null)
    return { ...base, effective: null, reason: `EXPLAIN granules ${g.kept}/${g.total}; ${rows}` };
  if (readAfter >= readBefore)
    return {
      ...base,
      effective: false,
      reason: `index not effective in the measured runs: EXPLAIN claims granules ${g.kept}/${g.total} but ${rows}`,
    };
  return { ...base, effective: true, reason: `EXPLAIN granules ${g.kept}/${g.total}; ${rows}` };
}

/** One entry of a step's `Indexes:` block. */
interface IndexEntry {
  type: string;
  name?: string;
  nameLine?: number;
  granules?: string;
}
const indentOf = (l: string) => l.length - l.trimStart().length;
/** `Key: value` property line of a plan step or index entry (the value may be empty: `Keys:`). */
const PROPERTY = /^([A-Za-z][A-Za-z ]*):(?: (.*))?$/;

/**
 * Read the `Skip` entries of the named index from an `EXPLAIN indexes = 1` text in either form
 * ({@link ExplainForm}; captured from 23.10, 24.8, 25.8, 26.3 (legacy) and 26.7, 26.9 (pretty, and
 * legacy by setting) in test/fixtures/versions/). Structure read: every `ReadFromMergeTree` step, its
 * `Indexes:` block, the block's entries (`MinMax`/`Min-Max`, `Partition`, `PrimaryKey`, `Skip`, …, one
 * indentation level below `Indexes:`) and each entry's properties (`Name:`, `Granules: kept/total`).
 * Anything else is `not understood` with the reason: no plan step, a step whose `Indexes:` block holds
 * no entry, a `Skip` entry of the index without its `Granules: kept/total` (or kept > total), or the
 * index's name on a line that is not such an entry's `Name:`. The pretty form's tree characters
 * (`│ ├── └──`) count as indentation. Pure.
 */
export function explainGranules(explain: string, index: string): ExplainGranules {
  // The pretty form draws the step tree (`│`, `├──`, `└──`): those box-drawing characters are indentation.
  const raw = explain.replace(/\r\n/g, '\n');
  const lines = raw.replace(/[\u2500-\u257f]/g, ' ').split('\n');
  const escaped = index.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const nameRe = new RegExp(`(^|[^A-Za-z0-9_])${escaped}($|[^A-Za-z0-9_])`);
  const reads = lines.flatMap((l, i) => (/^\s*ReadFromMergeTree\b/.test(l) ? [i] : []));
  if (!reads.length)
    return {
      outcome: 'not understood',
      reason: explain.trim()
        ? `no ReadFromMergeTree step in the text (not a plan in legacy or pretty text form: ${JSON.stringify(explain.trim().slice(0, 40))}…)`
        : 'empty text',
    };
  const form: ExplainForm = /^Output: /.test(lines[0] ?? '') || /[\u2500-\u257f]/.test(raw) ? 'pretty' : 'legacy';
  const claimed = new Set<number>(); // lines read as the index's `Name:`
  let kept = 0;
  let total = 0;
  let used = 0;
  for (const at of reads) {
    const stepIndent = indentOf(lines[at]);
    // The step's properties: following lines indented at least as deep as the step (legacy puts
    // `Indexes:` at the step's own indentation), up to the next step line.
    let idx = -1;
    for (let i = at + 1; i < lines.length; i++) {
      const l = lines[i];
      if (!l.trim()) break;
      if (indentOf(l) < stepIndent) break;
      if (/^\s*Indexes:\s*$/.test(l)) {
        idx = i;
        break;
      }
      if (indentOf(l) === stepIndent && !PROPERTY.test(l.trim())) break; // another step
    }
    if (idx < 0) continue; // a read without index analysis: understood, the index is not applied there
    const blockIndent = indentOf(lines[idx]);
    let entryIndent = -1;
    let entry: IndexEntry | null = null;
    const entries: IndexEntry[] = [];
    for (let i = idx + 1; i < lines.length; i++) {
      const l = lines[i];
      if (!l.trim() || indentOf(l) <= blockIndent) break;
      const t = l.trim();
      if (entryIndent < 0) entryIndent = indentOf(l);
      if (indentOf(l) === entryIndent && !PROPERTY.test(t)) {
        entry = { type: t };
        entries.push(entry);
      } else if (indentOf(l) > entryIndent && entry) {
        const m = PROPERTY.exec(t);
        if (m?.[1] === 'Name') [entry.name, entry.nameLine] = [m[2] ?? '', i];
        if (m?.[1] === 'Granules') entry.granules = m[2] ?? '';
      }
      // A property at the entry level (`Ranges: 1` from 26.3) belongs to the block, not to an entry.
    }
    if (!entries.length)
      return { outcome: 'not understood', reason: `the Indexes: block on line ${idx + 1} holds no index entry` };
    for (const e of entries) {
      if (e.type !== 'Skip' || e.name !== index) continue;
      claimed.add(e.nameLine!);
      const m = /^(\d+)\/(\d+)$/.exec(e.granules ?? '');
      if (!m)
        return {
          outcome: 'not understood',
          reason: `the Skip entry of ${index} on line ${e.nameLine! + 1} has ${e.granules === undefined ? 'no Granules line' : `Granules: ${e.granules}`}, not kept/total`,
        };
      const [k, n] = [Number(m[1]), Number(m[2])];
      if (k > n)
        return {
          outcome: 'not understood',
          reason: `the Skip entry of ${index} keeps more granules than it had (${k}/${n})`,
        };
      [kept, total, used] = [kept + k, total + n, used + 1];
    }
  }
  const stray = lines.findIndex((l, i) => !claimed.has(i) && nameRe.test(l));
  if (stray >= 0)
    return {
      outcome: 'not understood',
      reason: `${index} is named on line ${stray + 1} (${JSON.stringify(lines[stray].trim().slice(0, 60))}) outside a Skip entry of an Indexes: block`,
    };
  return used ? { outcome: 'used', form, kept, total, reads: used } : { outcome: 'absent', form };
}

/**
 * Check that every active part carries the index (`system.parts.secondary_indices_compressed_bytes`
 * > 0) and that EXPLAIN shows it skipping granules ({@link explainGranules}); `verified` is null
 * when either could not be read, never true from what was not understood.
 * The EXPLAIN runs with `settings`: the query settings of the measured runs (the spec's
 * `settings.query`), so a setting such as `use_skip_indexes = 0` shows here too. Whether the measured
 * runs themselves read fewer rows is judged after them (`index_proof` in `queries-index.json`).
 */
export async function verifyIndex(
  client: ClickHouseClient,
  table: string,
  index: string,
  queries: { id: string; sql: string }[],
  settings: Record<string, string | number> = {},
): Promise<IndexVerification> {
  const reasons: string[] = [];
  let without: number | null = null;
  let active: number | null = null;
  try {
    const [r] = await queryRows<{ w: string; n: string }>(
      client,
      `SELECT countIf(secondary_indices_compressed_bytes = 0) AS w, count() AS n FROM system.parts WHERE database = currentDatabase() AND table = ${sqlString(table)} AND active`,
    );
    [without, active] = [Number(r.w), Number(r.n)];
    if (without > 0) reasons.push(`${without} of ${active} active parts have no index data`);
  } catch {
    reasons.push('per-part index size unknown on this version');
  }
  const explain: IndexVerification['explain'] = {};
  for (const q of queries) {
    try {
      const r = explainGranules(await explainIndexes(client, q.sql, settings), index);
      if (r.outcome === 'not understood') {
        explain[q.id] = { granules: null, skips: null, error: `EXPLAIN not understood: ${r.reason}` };
        reasons.push(`${q.id}: EXPLAIN not understood (${r.reason})`);
        continue;
      }
      const g = r.outcome === 'used' ? r : null;
      explain[q.id] = { granules: g ? `${g.kept}/${g.total}` : null, skips: g ? g.kept < g.total : false };
      if (!g) reasons.push(`${q.id}: EXPLAIN does not show index ${index}`);
      else if (g.kept >= g.total) reasons.push(`${q.id}: index ${index} skipped no granule (${g.kept}/${g.total})`);
    } catch (e) {
      explain[q.id] = { granules: null, skips: null, error: (e as Error).message.split('\n')[0] };
      reasons.push(`${q.id}: EXPLAIN indexes = 1 not available`);
    }
  }
  const bad = (without ?? 0) > 0 || Object.values(explain).some((x) => x.skips === false);
  const unknown = without === null || Object.values(explain).some((x) => x.skips === null);
  return {
    parts_without_index: without,
    active_parts: active,
    explain,
    verified: bad ? false : unknown ? null : true,
    reasons,
  };
}

/**
 * Set each measured run's `index_proof` ({@link judgeIndexUse}): its EXPLAIN (taken under the runs'
 * own settings) and its read_rows against the same query's in `baseline` (`queries-baseline.json`;
 * read_rows null where the baseline is missing or did not run it). Mutates `records`.
 */
export function attachIndexProofs(records: QueryRecord[], index: string, baseline: QueriesRecord | undefined): void {
  for (const r of records) {
    const before = baseline?.queries.find((b) => b.id === r.id)?.stats.read_rows ?? null;
    r.index_proof = judgeIndexUse(index, r.explain_error ? null : r.explain_indexes, r.stats.read_rows, before);
  }
}
