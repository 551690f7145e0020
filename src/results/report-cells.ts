/**
 * The parts of report.md and report.html that must stay honest when cells fail, stop or differ:
 * the run's status counted from its cells, a validity banner that speaks only of what was measured,
 * why there is no skip index or no end counters, captions built from the SQL actually sent, figures
 * in one unit per column, the comparison of cells against the first one and the environment each
 * cell ran in. Pure functions over parsed records (`src/schema/results.ts`); no I/O.
 */
import { interquartileRange } from 'simple-statistics';
import type { CellResult, QueryRecord, RunRecord, RunSample } from '../schema/results';
import { fmtInt } from './format';
import type { Block } from './sections/blocks';

/** The label of a cell in report.md's and report.html's tables: its key, with its status when it did not succeed. */
export function rowLabel(c: CellResult): string {
  return c.status === 'succeeded' ? c.cellKey : `${c.cellKey} (${c.status})`;
}

/**
 * A read figure (read_rows / read_bytes) for a table cell: a recorded 0 (results written before 0 reads
 * were recorded as unknown, from engines whose statistics say 0) is shown as unknown, never as a figure.
 */
export function fmtRead(
  x: number | null | undefined,
  fmt: (x: number | null | undefined) => string,
  q?: QueryRecord,
): string {
  if (x === 0) return 'unknown (0 reported)';
  // The last warm run's figure was refused (its source said 0): say so rather than a bare n/a.
  const last = q?.samples.filter((s) => s.kind === 'warm').at(-1);
  if ((x === null || x === undefined) && last?.read_unknown) return 'unknown (0 reported)';
  return fmt(x);
}

/** The warm headline statistic of a query (`stats.warm_min_ms` or `stats.warm_median_ms`, ms), or null without a record. */
export function headline(q: QueryRecord | undefined, stat: 'min' | 'median'): number | null {
  if (!q) return null;
  return stat === 'min' ? q.stats.warm_min_ms : q.stats.warm_median_ms;
}

// ---------------------------------------------------------------------------------------------
// Settings that did not reach the table

/**
 * The table settings a cell declared but the server does not show (`schema.json`
 * `table_settings.not_shown`: name → why): its figures were measured without them. Empty when all
 * were shown, or when the cell has no schema record.
 */
export function tableSettingsNotApplied(c: CellResult): Record<string, string> {
  return c.schema_ddl?.table_settings?.not_shown ?? {};
}

/** The flag a cell with {@link tableSettingsNotApplied} carries in the Cells table; '' when none. */
export function settingsFlag(c: CellResult): string {
  const names = Object.keys(tableSettingsNotApplied(c));
  return names.length ? ` ⚠ table setting(s) not applied: ${names.join(', ')}` : '';
}

/** One line per cell whose declared table settings did not reach its table, naming each and why. */
export function settingsNotAppliedLines(cells: CellResult[]): string[] {
  return cells
    .filter((c) => Object.keys(tableSettingsNotApplied(c)).length)
    .map(
      (c) =>
        `${c.cellKey}: measured WITHOUT ${Object.entries(tableSettingsNotApplied(c))
          .map(([k, why]) => `${k} = ${c.schema_ddl?.table_settings?.declared[k] ?? '?'} (${why})`)
          .join('; ')} — source: SETTINGS of SHOW CREATE TABLE (schema.json table_settings.not_shown)`,
    );
}

/**
 * One line per cell that left out a setting marked optional (`settings.optional`) because its version
 * lacks it: the cell ran without it. Source: the cell's `settings.json` `not_applied` (provisioning).
 */
export function optionalNotAppliedLines(cells: CellResult[]): string[] {
  return cells.flatMap((c) => {
    const own = Object.entries(c.settings?.not_applied ?? {}).filter(([k]) => !(k in tableSettingsNotApplied(c)));
    return own.length
      ? [`${c.cellKey} (ClickHouse ${c.provision?.server.version ?? c.matrix.version}): ran WITHOUT ${own.map(([k, why]) => `${k} (${why})`).join('; ')} — source: settings.json not_applied`]
      : [];
  });
}

/**
 * Which defaults each cell ran with, one line per cell, when at least one cell pinned another
 * version's defaults (`pinDefaults`): `shipped (ClickHouse 26.9.2.1)` or `pinned to 24.8
 * (compatibility = '24.8', sent with the load and every measured run)`. Empty when no cell is pinned.
 * Source: each cell's `settings.json` `pinned_defaults`.
 */
export function defaultsLines(cells: CellResult[]): string[] {
  if (!cells.some((c) => c.settings?.pinned_defaults)) return [];
  return cells.map((c) => {
    const p = c.settings?.pinned_defaults;
    const v = c.provision?.server.version ?? c.matrix.version;
    return p
      ? `${c.cellKey}: ClickHouse ${v} pinned to ${p.version}'s defaults (${p.setting}, sent with the load and every measured run)`
      : `${c.cellKey}: ClickHouse ${v} with its shipped defaults`;
  });
}

// ---------------------------------------------------------------------------------------------
// One unit per column

const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'] as const;

/**
 * A formatter for a column of byte figures: one binary unit for the whole column, chosen by its
 * largest value (so 900 KiB and 3 GiB are never side by side); `n/a` for null.
 */
export function bytesColumn(values: (number | null | undefined)[]): (b: number | null | undefined) => string {
  const max = Math.max(0, ...values.filter((x): x is number => typeof x === 'number' && Number.isFinite(x)));
  let i = 0;
  while (max >= 1024 ** (i + 1) && i < BYTE_UNITS.length - 1) i++;
  return (b) => {
    if (b === null || b === undefined || !Number.isFinite(b)) return 'n/a';
    return i === 0 ? `${fmtInt(b)} B` : `${(b / 1024 ** i).toFixed(2)} ${BYTE_UNITS[i]}`;
  };
}

/**
 * A formatter for a column of durations, ms: milliseconds for the whole column unless its largest
 * value is 100 s or more (then seconds, 2 decimals). Never finer than `resolutionMs` (1 for
 * `query_log.query_duration_ms`: whole ms, and `< 1 ms` below). `n/a` for null.
 */
export function msColumn(values: (number | null | undefined)[]): (ms: number | null | undefined, resolutionMs?: number | null) => string {
  const max = Math.max(0, ...values.filter((x): x is number => typeof x === 'number' && Number.isFinite(x)));
  const seconds = max >= 100_000;
  return (ms, res = null) => {
    if (ms === null || ms === undefined || !Number.isFinite(ms)) return 'n/a';
    if (seconds) return `${(ms / 1000).toFixed(2)} s`;
    if (res !== null && res > 0 && ms < res) return `< ${res} ms`;
    if (res === 1 || ms >= 1000) return `${fmtInt(ms)} ms`;
    return `${ms < 10 ? ms.toFixed(2) : ms.toFixed(1)} ms`;
  };
}

/** `x.xx×` of `v / base`; `n/a` when either is unknown or the base is 0. */
export function ratio(v: number | null | undefined, base: number | null | undefined): string {
  if (v === null || v === undefined || base === null || base === undefined || !base || !Number.isFinite(v / base)) return 'n/a';
  return `${(v / base).toFixed(2)}×`;
}

// ---------------------------------------------------------------------------------------------
// Status and validity

/** A cell that measured anything (a load, storage figures or a query step): shown in the tables. */
export const measuredSomething = (c: CellResult): boolean => !!(c.load || c.storage || c.queries_baseline);

/** How a cell that did not succeed stopped, e.g. `failed in materialize-index`, `cancelled during load`, `skipped`. */
export function howStopped(c: CellResult): string {
  if (c.status === 'succeeded') return 'succeeded';
  if (c.status === 'skipped') return 'skipped';
  const where = c.stopped_in ? (c.status === 'cancelled' ? ` during ${c.stopped_in}` : ` in ${c.stopped_in}`) : '';
  return `${c.status}${where}`;
}

/**
 * The run's status with its cells counted: `completed, 1 of 1 cells failed` (the matrix workflow
 * completes even when every cell fails). Source: `run.json` `status` (written by `writeReport`) and
 * each cell's `result.json` `status`; cells with no result yet count as `without a result`.
 * @returns undefined when `run.json` has no status (the run has not finished).
 */
export function runStatusText(run: RunRecord, cells: CellResult[], missing: string[]): string | undefined {
  if (!run.status) return undefined;
  const total = cells.length + missing.length;
  const n = (s: CellResult['status']) => cells.filter((c) => c.status === s).length;
  const parts = [
    n('failed') && `${n('failed')} of ${total} cells failed`,
    n('cancelled') && `${n('cancelled')} of ${total} cells cancelled`,
    n('skipped') && `${n('skipped')} of ${total} cells skipped`,
    missing.length && `${missing.length} of ${total} cells without a result`,
  ].filter(Boolean);
  return [run.status, ...parts].join(', ');
}

/** A validity banner: its level (`warn`, `unknown`, `ok`), an optional bold head and the text after it. */
export interface Banner {
  level: 'warn' | 'unknown' | 'ok';
  head?: string;
  text: string;
}

/** The measured runs of a cell (both query steps), warm-ups included. */
const samplesOf = (c: CellResult): RunSample[] =>
  [c.queries_baseline, c.queries_index].flatMap((p) => p?.queries ?? []).flatMap((q) => q.samples);

/** What a cell that measured nothing or did not finish did, for the banner: `v1 failed in provision: <error>`. */
function stopNote(c: CellResult): string {
  // The whole message on one line (a first line such as "settings refused before loading:" says little alone).
  const whole = (c.skip_reason ?? c.error ?? '').replace(/\s*\n\s*/g, ' ');
  const why = whole.length > 400 ? `${whole.slice(0, 399)}…` : whole;
  return `${c.cellKey} ${howStopped(c)}${why ? `: ${why}` : ''}`;
}

/**
 * The validity banner, about what was measured only. Nothing measured: "No cell measured anything"
 * with how each cell stopped. Measured but no query run: says what was measured. Otherwise each claim
 * is made only with the runs behind it (cold runs judged cold, runs judged quiet, queries judged
 * warmer, queries whose results were compared), and a run with cells that did not finish says whose
 * runs the claims cover. `invalid`/`unknown` are `validitySummary`'s lists over the measured cells.
 */
export function validityBanner(cells: CellResult[], missing: string[], v: { invalid: string[]; unknown: string[] }, compared: number): Banner {
  const measured = cells.filter(measuredSomething);
  const total = cells.length + missing.length;
  const unfinished = cells.filter((c) => c.status !== 'succeeded');
  if (!measured.length)
    return {
      level: 'warn',
      head: 'No cell measured anything',
      text: `${unfinished.map(stopNote).join('; ') || (missing.length ? `${missing.length} of ${total} cell(s) have no result` : 'no cell ran')}; there is nothing to judge.`,
    };
  const runs = measured.flatMap(samplesOf).filter((s) => s.kind !== 'warmup');
  if (!runs.length)
    return {
      level: 'warn',
      head: 'No query run was measured',
      text: `${measured.map((c) => `${c.cellKey} ${c.load ? `loaded ${fmtInt(c.load.rows_in_table)} rows` : 'measured storage only'} and ${howStopped(c)}`).join('; ')}; there is no query run to judge.${v.invalid.length ? ` ⚠ ${v.invalid.join('; ')}.` : ''}`,
    };
  const scope = `${fmtInt(runs.length)} query run(s) in ${measured.filter((c) => samplesOf(c).length).length} of ${total} cell(s)`;
  const notCovered = unfinished.map(stopNote);
  // Cells that did not finish are named whatever the verdict on what was measured.
  const notCoveredText = notCovered.length ? ` Not covered: ${notCovered.join('; ')}.` : '';
  if (v.invalid.length)
    return { level: 'warn', head: '⚠ This run has invalid measurements', text: `${v.invalid.join('; ')} (${scope}). Flags appear next to the figures they qualify and in the Validity section.${notCoveredText}` };
  if (v.unknown.length)
    return { level: 'unknown', head: 'Validity could not be fully judged', text: `no verdict for ${v.unknown.join('; ')} (see the Validity section); nothing judged was invalid (${scope}).${notCoveredText}` };
  const qs = measured.flatMap((c) => [c.queries_baseline, c.queries_index].flatMap((p) => p?.queries ?? []));
  const cold = runs.filter((s) => s.kind === 'cold').length;
  const warmer = qs.filter((q) => q.stats.warm_validity?.valid === true).length;
  const claims = [
    cold && `every cold run was cold (${cold})`,
    `every run on a quiet table (${runs.length}: no merge, mutation or part change)`,
    warmer && `warm faster than cold (${warmer} of ${qs.length} query results: one per query, phase and cell)`,
    compared && `results consistent (${compared} quer${compared === 1 ? 'y' : 'ies'} compared)`,
  ].filter(Boolean);
  if (!notCovered.length) return { level: 'ok', text: `Validity: ${claims.join(', ')} — ${scope}.` };
  return {
    level: 'unknown',
    head: 'Validity of what was measured only',
    text: `${claims.join(', ')} — ${scope}. Not covered: ${notCovered.join('; ')}.`,
  };
}

/** The banner as a report.md line (a quote block unless it is the plain all-valid line). */
export function bannerMd(b: Banner): string {
  return b.head ? `> **${b.head}** — ${b.text}` : b.text;
}

// ---------------------------------------------------------------------------------------------
// Absent steps said as they are

/**
 * Why no cell shows a skip index, from the cells' records: cells stopped before their index was
 * built (`stopped_in` at or before `materialize-index`), cells that were not to build one
 * (`skip_index_planned: false`: the spec's `skipIndex: false`, or no selected query uses the
 * workload's index), and, for results written before those fields, the spec's `skipIndex`.
 */
export function noIndexReason(cells: CellResult[], specSkipIndex: boolean): string {
  const before = ['provision', 'collect-metrics', 'create-schema', 'load', 'quiesce', 'storage', 'queries-baseline', 'materialize-index'];
  const stopped = cells.filter((c) => c.status === 'cancelled' || c.status === 'failed');
  const parts: string[] = [];
  const early = stopped.filter((c) => c.skip_index_planned !== false && (!c.stopped_in || before.includes(c.stopped_in)));
  for (const c of early)
    parts.push(`${c.cellKey} ${c.status === 'cancelled' ? 'was cancelled' : 'failed'} before its index was built${c.stopped_in ? ` (${c.status === 'cancelled' ? 'during' : 'in'} ${c.stopped_in})` : ''}`);
  const skipped = cells.filter((c) => c.status === 'skipped');
  if (skipped.length) parts.push(`${skipped.map((c) => c.cellKey).join(', ')} skipped`);
  const notPlanned = cells.filter((c) => c.skip_index_planned === false && !skipped.includes(c));
  if (notPlanned.length)
    parts.push(
      `${notPlanned.map((c) => c.cellKey).join(', ')}: no index step planned (${specSkipIndex ? 'no selected query uses the workload\'s skip index, or the workload defines none' : 'skipIndex: false in the spec'})`,
    );
  const unknown = cells.filter((c) => c.skip_index_planned === undefined && !early.includes(c) && !skipped.includes(c));
  if (unknown.length)
    parts.push(`${unknown.map((c) => c.cellKey).join(', ')}: ${specSkipIndex ? 'no index step ran (the workload defines none, or no selected query uses it)' : 'skipIndex: false in the spec'}`);
  return `No cell materialized a skip index: ${parts.join('; ') || 'no cell has a result'}.`;
}

/** The spec fields {@link indexTurnedOff} reads: the spec's query settings and the matrix's settings profiles. */
export interface IndexSettingsSpec {
  settings?: { query?: Record<string, string | number> };
  matrix: { settings?: { name: string; query: Record<string, string | number> }[] };
}

/**
 * Why a cell's runs after the index did not use it on purpose: they were sent with
 * `use_skip_indexes = 0` (the settings recorded with the index step, `queries-index.json`
 * `run_settings`, else its first warm run's `settings`). Names where the setting came from: the
 * settings profile the cell key ends with (`matrix.settings`), else the spec's `settings.query`.
 * @returns e.g. `not used: use_skip_indexes = 0 in profile noidx`; null when the runs did not turn it off.
 */
export function indexTurnedOff(c: CellResult, spec?: IndexSettingsSpec): string | null {
  const rec = c.queries_index;
  if (!rec) return null;
  const sent = rec.run_settings ?? rec.queries.flatMap((q) => q.samples).find((s) => s.kind === 'warm')?.settings ?? {};
  const off = (v: string | number | undefined) => v !== undefined && ['0', 'false'].includes(String(v).toLowerCase());
  if (!off(sent.use_skip_indexes)) return null;
  const key = c.cellKey.replace(/-r\d+$/, '');
  const profile = spec?.matrix.settings?.find((p) => off(p.query.use_skip_indexes) && key.endsWith(`-${p.name}`));
  const where = profile ? `in profile ${profile.name}` : off(spec?.settings?.query?.use_skip_indexes) ? "in the spec's settings.query" : "in the runs' settings";
  return `not used: use_skip_indexes = ${sent.use_skip_indexes} ${where}`;
}

/**
 * What a counters cell shows when a cell has no start→end difference: `not collected (cancelled)`
 * for a cell that stopped before its end snapshot, else the recorded reason (`metrics_delta_unavailable`).
 */
export function countersMissing(c: CellResult): string {
  if (c.status === 'cancelled' || c.status === 'failed') return `not collected (${c.status})`;
  return c.metrics_delta_unavailable ? 'not collected' : 'not collected (no end snapshot)';
}

/**
 * The data source of the generator INSERTs actually sent (`load.json` `sql`): the table functions
 * after `FROM` with their arguments as sent, e.g. `numbers(1000)` or `numbers_mt(2000000)`; empty when
 * no cell loaded.
 */
export function loadSources(cells: CellResult[]): string[] {
  const out = new Set<string>();
  for (const c of cells) {
    const sql = c.load?.sql;
    if (!sql) continue;
    for (const m of sql.matchAll(/\bFROM\s+([A-Za-z_][A-Za-z0-9_]*\s*\([^()]*\))/gi)) out.add(m[1].replace(/\s+/g, ''));
  }
  return [...out];
}

// ---------------------------------------------------------------------------------------------
// Comparing cells and their environment

/** The clock of a query's headline figures in one cell: `server-side (<source>)` or `client wall time`. */
export function timingSourceOf(c: CellResult): string {
  const qs = [c.queries_baseline, c.queries_index].flatMap((p) => p?.queries ?? []);
  const srcs = new Set<string>();
  for (const q of qs) {
    if (q.stats.timing_source === 'client wall time') srcs.add('client wall time');
    else {
      const s = [...new Set(q.samples.filter((x) => x.kind === 'warm').map((x) => x.server_elapsed_source).filter(Boolean))];
      srcs.add(`server-side: ${s.join(' / ') || (q.stats.server_time_sources ?? []).join(' / ') || 'unknown source'}`);
    }
  }
  return [...srcs].join('; ') || 'n/a (no query run)';
}

/** The headline time of one run as the query's stats take it: server-side elapsed, else client wall. */
const runMs = (q: QueryRecord, s: RunSample): number | null =>
  q.stats.timing_source === 'server-side elapsed' ? (s.server_elapsed_ms ?? null) : s.wall_ms;

/** Spread of a query's warm runs: max and interquartile range (ms, same clock as the headline); null with fewer than 2 runs. */
export function warmSpread(q: QueryRecord): { max: number | null; iqr: number | null; runs: number } {
  const xs = q.samples.filter((s) => s.kind === 'warm').map((s) => runMs(q, s)).filter((x): x is number => x !== null);
  return { max: xs.length ? Math.max(...xs) : null, iqr: xs.length >= 2 ? interquartileRange(xs) : null, runs: xs.length };
}

/**
 * Bytes read and throughput of a query's last warm run: `read_bytes` (its `read_source`) ÷ the run's
 * headline time (server-side elapsed where the query's timing is server-side, else client wall), in
 * MB/s (10^6 bytes/s). null figures when the server gave no read_bytes or no time.
 */
export function readRate(q: QueryRecord): { bytes: number | null; mbPerS: number | null; source: string } {
  const last = q.samples.filter((s) => s.kind === 'warm').at(-1);
  if (!last) return { bytes: q.stats.read_bytes ?? null, mbPerS: null, source: 'no warm run' };
  const ms = runMs(q, last);
  const bytes = last.read_bytes ?? null;
  const time = q.stats.timing_source === 'server-side elapsed' ? (last.server_elapsed_source ?? 'server elapsed') : 'client wall time';
  return {
    bytes,
    mbPerS: bytes !== null && ms ? bytes / 1e6 / (ms / 1000) : null,
    source: `${last.read_source ?? 'not available'} read_bytes / ${time}`,
  };
}

/** A cell's duration, ms: its workflow start (`started_at`, else `provision.json` `provisioned_at`) to `result.json` `written_at`, worker wall clock. */
export function cellDuration(c: CellResult): { ms: number | null; from: string } {
  const from = c.started_at ? 'workflow start' : c.provision?.provisioned_at ? 'provisioned' : null;
  const t0 = Date.parse(c.started_at ?? c.provision?.provisioned_at ?? '');
  const t1 = Date.parse(c.written_at);
  return { ms: from && Number.isFinite(t0) && Number.isFinite(t1) ? t1 - t0 : null, from: from ?? 'unknown' };
}

/** A host-wide figure that differs a lot between cells (max ≥ 2× min and above a floor): what, and the spread. */
export interface HostWideFlag {
  figure: string;
  text: string;
}

/**
 * Host-wide figures (they count everything the host did, not only the cell) that differ a lot between
 * cells: host disk read and written (`metrics_delta.host_disks`, /proc/diskstats; flagged when the
 * largest is ≥ 2× the smallest and ≥ 64 MiB apart) and the 1-minute load average at the cell's
 * snapshots (`host_activity`, os.loadavg(); ≥ 2× and ≥ 1 apart).
 */
export function hostWideFlags(cells: CellResult[]): HostWideFlag[] {
  const out: HostWideFlag[] = [];
  const check = (figure: string, xs: { c: string; v: number }[], floor: number, fmt: (v: number) => string) => {
    if (xs.length < 2) return;
    const lo = xs.reduce((a, b) => (b.v < a.v ? b : a));
    const hi = xs.reduce((a, b) => (b.v > a.v ? b : a));
    if (hi.v - lo.v >= floor && hi.v >= 2 * Math.max(lo.v, Number.EPSILON))
      out.push({ figure, text: `${figure} differs ${lo.v > 0 ? `${(hi.v / lo.v).toFixed(1)}×` : 'from none to some'} between cells (${lo.c} ${fmt(lo.v)}, ${hi.c} ${fmt(hi.v)}); it is host-wide, so part of it may be other work on the host` });
  };
  const disk = (k: 'read_bytes' | 'write_bytes') =>
    cells.flatMap((c) => (c.metrics_delta?.host_disks ? [{ c: c.cellKey, v: Object.values(c.metrics_delta.host_disks).reduce((a, x) => a + x[k], 0) }] : []));
  const b = (v: number) => bytesColumn([v])(v);
  check('host disk read', disk('read_bytes'), 64 * 1024 ** 2, b);
  check('host disk written', disk('write_bytes'), 64 * 1024 ** 2, b);
  const load = cells.flatMap((c) => {
    const xs = [c.host_activity?.start?.loadavg1, c.host_activity?.end?.loadavg1].filter((x): x is number => typeof x === 'number');
    return xs.length ? [{ c: c.cellKey, v: Math.max(...xs) }] : [];
  });
  check('host 1-minute load average', load, 1, (v) => v.toFixed(2));
  return out;
}

/**
 * The "Comparing cells" section of report.md and report.html as {@link Block}s (at least two measured cells; none with fewer): per cell its size, ingest and duration against the
 * first measured cell, and its timing source; per query its warm headline against the first cell,
 * the spread of its warm runs, read_bytes and MB/s. (Host-wide figures that differ a lot are flagged
 * under the counters table, {@link hostWideFlags}.)
 */
export function comparingBlocks(cells: CellResult[], statistic: 'min' | 'median'): Block[] {
  const ok = cells.filter(measuredSomething);
  // One measured cell has nothing to be compared with.
  if (ok.length < 2) return [];
  const first = ok[0];
  const out: Block[] = ['## Comparing cells', ''];
  out.push(
    `Ratios are against the first measured cell, **${first.cellKey}** (value ÷ its value: 1.00× = the same, above 1 = larger or slower). Compressed = \`system.parts\` sum(data_compressed_bytes); ingest = client wall time of the load INSERT and \`count()\` ÷ it; duration = the cell's workflow start (else its provisioning) to its \`result.json\`, worker clock. Timing source = the clock of each cell's query figures.`,
    '',
  );
  const size = bytesColumn(ok.map((c) => c.storage?.compressed_bytes));
  const ing = msColumn(ok.map((c) => c.load?.elapsed_ms));
  const dur = msColumn(ok.map((c) => cellDuration(c).ms));
  const rows = [['cell', 'compressed', '× first', 'ingest elapsed', '× first', 'ingest rows/s', '× first', 'duration', 'timing source']];
  for (const c of ok)
    rows.push([
      c.cellKey,
      size(c.storage?.compressed_bytes),
      ratio(c.storage?.compressed_bytes, first.storage?.compressed_bytes),
      ing(c.load?.elapsed_ms),
      ratio(c.load?.elapsed_ms, first.load?.elapsed_ms),
      fmtInt(c.load?.rows_per_s),
      ratio(c.load?.rows_per_s, first.load?.rows_per_s),
      dur(cellDuration(c).ms) + (cellDuration(c).from === 'provisioned' ? ' (from provisioning)' : ''),
      timingSourceOf(c),
    ]);
  out.push({ rows, summary: `Comparing cells table (as in report.md): per cell against ${first.cellKey} (× first)` }, '');
  const qrecs = ok.flatMap((c) =>
    ([['baseline', c.queries_baseline], ['index', c.queries_index]] as const).flatMap(([phase, p]) => (p?.queries ?? []).filter((q) => q.samples.length).map((q) => ({ c, phase, q }))),
  );
  if (qrecs.length) {
    const head = (q: QueryRecord) => (statistic === 'min' ? q.stats.warm_min_ms : q.stats.warm_median_ms);
    const t = msColumn(qrecs.flatMap((x) => [head(x.q), warmSpread(x.q).max]));
    const iqrCol = msColumn(qrecs.map((x) => warmSpread(x.q).iqr));
    const rb = bytesColumn(qrecs.map((x) => readRate(x.q).bytes));
    const sources = [...new Set(qrecs.map((x) => readRate(x.q).source))];
    out.push(
      `Per query: warm ${statistic} against the same query in ${first.cellKey}; spread of the warm runs = their max and interquartile range (same clock); read_bytes and MB/s (10^6 bytes/s) of the last warm run, from ${sources.map((s) => `\`${s}\``).join('; ')}.`,
      '',
    );
    const qr = [['query', 'cell', `warm ${statistic}`, '× first', 'warm max', 'warm IQR', 'read_bytes', 'MB/s']];
    for (const { c, phase, q } of qrecs) {
      const base = [first.queries_baseline, first.queries_index].find((p) => p?.phase === phase)?.queries.find((x) => x.id === q.id);
      const s = warmSpread(q);
      const r = readRate(q);
      qr.push([
        `${q.id}${phase === 'index' ? ' (after index)' : ''}`,
        c.cellKey,
        t(head(q)),
        ratio(head(q), base ? head(base) : null),
        t(s.max),
        s.iqr === null ? `n/a (${s.runs} warm run${s.runs === 1 ? '' : 's'})` : iqrCol(s.iqr),
        rb(r.bytes),
        r.mbPerS === null ? 'n/a' : r.mbPerS >= 100 ? fmtInt(r.mbPerS) : r.mbPerS.toFixed(1),
      ]);
    }
    out.push({ rows: qr, summary: `Per-query comparison table (as in report.md): warm ${statistic} × first, warm max and IQR, read_bytes, MB/s` }, '');
  }
  return out;
}

/** One row of the environment block per cell (see {@link environmentSection}). */
export function environmentRows(run: RunRecord, cells: CellResult[]): string[][] {
  const rows = [['cell', 'cell workflow id', 'duration', 'server version', 'CPU model', 'kernel', 'data disk', 'filesystem']];
  const dur = msColumn(cells.map((c) => cellDuration(c).ms));
  for (const c of cells) {
    const d = c.data_disk;
    const hostOnly = 'not recorded';
    rows.push([
      c.cellKey,
      c.workflow_id ?? 'not recorded',
      dur(cellDuration(c).ms) + (cellDuration(c).from === 'provisioned' ? ' (from provisioning)' : ''),
      c.provision?.server.version ?? 'n/a',
      c.host?.cpuModel ?? hostOnly,
      c.host?.kernel ?? hostOnly,
      d ? `${d.disk_model ?? d.disk ?? d.device ?? 'unknown'}${d.rotational === null ? '' : d.rotational ? ' (rotational)' : ' (SSD/NVMe)'}` : hostOnly,
      d ? `${d.filesystem ?? 'unknown'} on ${d.mount_point ?? '?'} (${d.path})` : hostOnly,
    ]);
  }
  return rows;
}

/**
 * The environment block of report.md: chbench version and commit (`run.json` `chbench`), the run's
 * workflow id, and per cell its workflow id, duration, server version, CPU model and kernel (the
 * host's facts, `os.cpus()`/`os.release()`), and the disk and filesystem of its data directory
 * (`data_disk`: /proc/self/mountinfo, /sys/class/block).
 */
export function environmentSection(run: RunRecord, cells: CellResult[], table: (rows: string[][]) => string): string[] {
  return [
    '## Environment',
    '',
    `chbench ${run.chbench.version}, commit ${run.chbench.commit ?? 'unknown (not run from a git checkout)'} (\`run.json\`); matrix workflow id \`${run.runId}\`${run.scheduleId ? `, started by schedule \`${run.scheduleId}\`` : ''}. CPU model and kernel: the worker host's \`os.cpus()[0].model\` and \`os.type()\`/\`os.release()\` (targets on the worker's host); data disk and filesystem: \`/proc/self/mountinfo\` and \`/sys/class/block\` for the server's data directory; duration: the cell's workflow start (else its provisioning) to its \`result.json\`.`,
    '',
    table(environmentRows(run, cells)),
    '',
  ];
}
