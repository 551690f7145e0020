/**
 * Render `report.md` for a run from `run.json` and the cells' `result.json` files, parsed with the
 * results schema (`src/schema/results.ts`: a file of another version or shape fails naming the field).
 * Pure apart from reading those files; `chbench report <runId>` and the `writeReport` activity both call it.
 */
import path from 'node:path';
import { existsSync, readdirSync } from 'node:fs';
import markdownTable from 'markdown-table';
import { gridValidity, gridsSections, profileLines } from './report-grids';
import { busyFlags, busyHeadline, busySection, hasHosts, hostColumn, hostsSection } from './report-hosts';
import { readRecord, readRecordIfExists } from './store';
import { comparisonSection } from './report-comparison';
import { versionsSection } from './report-versions';
import {
  bannerMd,
  bytesColumn,
  comparingSection,
  countersMissing,
  environmentSection,
  loadSources,
  measuredSomething,
  msColumn,
  hostWideFlags,
  howStopped,
  indexTurnedOff,
  noIndexReason,
  type IndexSettingsSpec,
  runStatusText,
  settingsFlag,
  settingsNotAppliedLines,
  optionalNotAppliedLines,
  defaultsLines,
  validityBanner,
} from './report-cells';
import { ComparisonRecord } from '../schema/comparison';
import {
  CellCostRecord,
  CellResult,
  CloudMetricsRecord,
  RunCostRecord,
  RunRecord,
  type CloudStepRecord,
  type IndexProof,
  type QueryRecord,
  type PartDefaultCodec,
} from '../schema/results';

export { fmtBytes, fmtMs, fmtInt } from './format';
import { fmtBytes, fmtMs, fmtInt, lateStartWarning, shortenAtWord, startPhrase } from './format';

/** Most characters of a cell's error shown in the Cells table (report.md and report.html); the full text follows the table. */
export const CELL_ERROR_CHARS = 160;

/**
 * Load every cell result of a run, in `run.json` order.
 * @throws Error naming the file and field when `run.json` or a `result.json` does not parse (see `readRecord`).
 */
export function loadRun(dir: string): { run: RunRecord; cells: CellResult[]; missing: string[] } {
  const run = readRecord(path.join(dir, 'run.json'), RunRecord);
  const cells: CellResult[] = [];
  const missing: string[] = [];
  const cellsDir = path.join(dir, 'cells');
  const keys = run.cells.length ? run.cells : existsSync(cellsDir) ? readdirSync(cellsDir) : [];
  for (const k of keys) {
    const doc = readRecordIfExists(path.join(cellsDir, k, 'result.json'), CellResult);
    if (doc) cells.push(doc);
    else missing.push(k);
  }
  return { run, cells, missing };
}

/**
 * A recorded index proof as it is read now: one written before 0 reads were unknown, whose "not
 * effective" rests on a read_rows of 0 (the engine's statistics said 0), is no verdict (`effective: null`).
 */
export function readProof(p: IndexProof): IndexProof {
  if (p.effective !== false || p.explain_skips !== true || (p.read_rows_after !== 0 && p.read_rows_before !== 0)) return p;
  return { ...p, effective: null, reason: `${p.reason} — a read_rows of 0 is unknown, not a verdict` };
}

/**
 * The skip index's verdict for a cell: index.json's build check (every part carries it, EXPLAIN under
 * the runs' settings skips granules) and, per query, the proof taken from the measured runs
 * (`index_proof`: EXPLAIN under their settings and their read_rows against the baseline's).
 * `true` only when both hold for every query that uses the index. A cell whose runs turned the index
 * off on purpose (`use_skip_indexes = 0`, {@link indexTurnedOff}) gets `verified: null` and `off`
 * naming the setting and where it came from (`spec`: the run's spec, for the profile's name): it is
 * neither verified nor invalid. `notUnderstood`: the queries whose EXPLAIN text chbench could not read
 * (with why): the report names them ("EXPLAIN not understood"); they are never the basis of a verdict.
 */
export function indexVerdict(
  c: CellResult,
  spec?: IndexSettingsSpec,
): { verified: boolean | null; reasons: string[]; off?: string; notUnderstood: string[] } {
  const off = indexTurnedOff(c, spec);
  if (off) return { verified: null, reasons: [off], off, notUnderstood: [] };
  const vv = c.index?.verification;
  const proofs = (c.queries_index?.queries ?? []).filter((q) => q.index_proof).map((q) => ({ id: q.id, p: readProof(q.index_proof!) }));
  // A query with a proof from the measured runs is described by that proof, not twice.
  const reasons = (vv?.reasons ?? []).filter((r) => !proofs.some((x) => r.toLowerCase().startsWith(`${x.id.toLowerCase()}:`)));
  for (const { id, p } of proofs) if (p.effective !== true) reasons.push(`${id}: ${p.reason}`);
  const verdicts = [vv?.verified ?? null, ...proofs.map((x) => x.p.effective)];
  if (!proofs.length) verdicts.push(null); // no proof from the measured runs (e.g. a result written before proofs existed)
  const verified = verdicts.some((x) => x === false) ? false : verdicts.some((x) => x === null) ? null : true;
  // EXPLAIN texts chbench could not read (index_proof.explain_not_understood, or the build check's EXPLAIN).
  const notUnderstood = [
    ...proofs.filter((x) => x.p.explain_not_understood).map((x) => `${x.id}: ${x.p.explain_not_understood}`),
    ...Object.entries(vv?.explain ?? {})
      .filter(([id, e]) => e.error?.startsWith('EXPLAIN not understood') && !proofs.some((x) => x.id === id))
      .map(([id, e]) => `${id}: ${e.error!.replace(/^EXPLAIN not understood: /, '')}`),
  ];
  return { verified, reasons, notUnderstood };
}

/**
 * Counts of invalid and unjudgeable checks over the measured cells. A skip index the runs turned off
 * on purpose (`use_skip_indexes = 0`, see {@link indexVerdict}; `spec` names its profile) is neither.
 */
export function validitySummary(cells: CellResult[], spec?: IndexSettingsSpec): { invalid: string[]; unknown: string[] } {
  const qs = cells.flatMap((c) => [...(c.queries_baseline?.queries ?? []), ...(c.queries_index?.queries ?? [])]);
  const samples = qs.flatMap((q) => q.samples);
  const count = (f: (x: (typeof samples)[number]) => boolean) => samples.filter(f).length;
  const notCold = count((x) => x.validity?.cold?.valid === false);
  // A run without a verdict (unknown counters, or a result written before validity records existed) is not valid.
  const coldUnknown = count((x) => x.kind === 'cold' && x.validity?.cold?.valid !== true && x.validity?.cold?.valid !== false);
  const notQuiet = count((x) => x.validity?.quiet.valid === false);
  const quietUnknown = count((x) => x.validity?.quiet.valid !== true && x.validity?.quiet.valid !== false);
  const notWarmer = qs.filter((q) => q.stats.warm_validity?.valid === false).length;
  const warmUnknown = qs.filter((q) => q.stats.warm_validity?.valid !== true && q.stats.warm_validity?.valid !== false).length;
  const idxBad = cells.filter((c) => c.index && c.queries_index && indexVerdict(c, spec).verified === false).length;
  const idxUnknown = cells.filter((c) => c.index && c.queries_index && !indexVerdict(c, spec).off && indexVerdict(c, spec).verified === null).length;
  const mismatch = resultMismatches(cells).length;
  const failedQueries = qs.filter((q) => q.error).length;
  const invalid = [
    notCold && `${notCold} cold run(s) not cold`,
    notQuiet && `${notQuiet} run(s) during which parts changed or merges ran`,
    notWarmer && `${notWarmer} quer(y/ies) whose warm runs were not faster than cold`,
    idxBad && `${idxBad} cell(s) whose skip index is not verified or not effective in the measured runs`,
    mismatch && `${mismatch} result mismatch(es)`,
    failedQueries && `${failedQueries} quer(y/ies) failed on the server`,
    ...gridValidity(cells),
  ].filter(Boolean) as string[];
  const unknown = [
    coldUnknown && `${coldUnknown} cold run(s)`,
    quietUnknown && `quiescence of ${quietUnknown} run(s)`,
    warmUnknown && `warm vs cold for ${warmUnknown} quer(y/ies)`,
    idxUnknown && `${idxUnknown} index build(s)`,
  ].filter(Boolean) as string[];
  return { invalid, unknown };
}

/**
 * Query ids whose results were compared (sha256 of every run, in every cell and phase): measured at
 * least once, and not marked non-deterministic by the workload.
 */
export function comparedQueries(cells: CellResult[]): string[] {
  const ids = [...new Set(cells.flatMap((c) => c.queries_baseline?.queries.map((q) => q.id) ?? []))];
  const recs = (id: string) => cells.flatMap((c) => [c.queries_baseline, c.queries_index].map((p) => p?.queries.find((q) => q.id === id)).filter((q): q is QueryRecord => !!q));
  return ids.filter((id) => recs(id).some((q) => q.samples.length) && !recs(id).some((q) => q.deterministic === false));
}

/**
 * Queries whose results differ (between runs, cells, or before/after the index), with the query's SQL,
 * the cells and the differing values. Results are compared by their value hashes
 * (`stats.result_values_sha256`: values by column type, so two versions' JSON formatting does not count)
 * when every record of the query has them, else by `result_sha256` (older results; one version's
 * formatting). `by` names the hash used.
 */
export function resultMismatches(cells: CellResult[]): { id: string; sql: string; by: 'values' | 'text'; values: string[] }[] {
  const ids = [...new Set(cells.flatMap((c) => c.queries_baseline?.queries.map((q) => q.id) ?? []))];
  const out: { id: string; sql: string; by: 'values' | 'text'; values: string[] }[] = [];
  for (const id of ids) {
    const recs = cells.flatMap((c) => [c.queries_baseline, c.queries_index].map((p) => ({ c, q: p?.queries.find((x) => x.id === id) })).filter((x) => x.q));
    if (recs.some((r) => r.q!.deterministic === false)) continue;
    const measured = recs.filter((r) => r.q!.samples.length || r.q!.stats.result_sha256.length);
    const by = measured.length && measured.every((r) => r.q!.stats.result_values_sha256?.length) ? 'values' : 'text';
    const byHash = new Map<string, string[]>();
    for (const r of recs)
      for (const h of (by === 'values' ? r.q!.stats.result_values_sha256 : r.q!.stats.result_sha256) ?? [])
        byHash.set(h, [...(byHash.get(h) ?? []), r.c.cellKey]);
    if (byHash.size > 1)
      out.push({
        id,
        sql: recs[0].q!.sql,
        by,
        values: [...byHash.entries()].map(([h, where]) => {
          const ex = recs.map((r) => r.q!.result_examples?.[h]).find(Boolean);
          return `${[...new Set(where)].join(', ')}: ${ex ?? h.slice(0, 12)}`;
        }),
      });
  }
  return out;
}

/**
 * The "retries" cell: steps that needed more than one attempt (figures from those steps come from a
 * retry) with the failure types of their failed attempts, a step that failed (its attempts, its last
 * failure type and whether it was retryable), and server restarts. Sources: `result.json` `attempts`,
 * `attempt_log` (absent in older results: counts only) and `target_restarts`.
 * @returns e.g. `provision ×1 failed: VersionMismatch (not retryable)`, `load ×3 (2 failed: Error)`, or `none`.
 */
export function retries(c: CellResult): string {
  const log = c.attempt_log ?? {};
  const r = Object.entries(c.attempts ?? {}).flatMap(([k, n]) => {
    const recs = log[k] ?? [];
    const failed = recs.filter((a) => a.outcome === 'failed');
    const last = recs.at(-1);
    if (last?.outcome === 'failed')
      return [`${k} ×${n} failed: ${last.failure_type ?? 'error'}${last.retryable === false ? ' (not retryable)' : ''}`];
    if (n <= 1) return [];
    const types = [...new Set(failed.map((a) => a.failure_type ?? 'error'))];
    return [`${k} ×${n}${failed.length ? ` (${failed.length} failed: ${types.join(', ')})` : ''}`];
  });
  const t = (c.target_restarts ?? []).map((x) => `server lost in ${x.step}, provisioned again`);
  return [...r, ...t].join('; ') || 'none';
}

/**
 * A read figure (read_rows / read_bytes) for a table cell: a recorded 0 (results written before 0 reads
 * were recorded as unknown, from engines whose statistics say 0) is shown as unknown, never as a figure.
 */
function fmtRead(
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

function headline(q: QueryRecord | undefined, stat: 'min' | 'median'): number | null {
  if (!q) return null;
  return stat === 'min' ? q.stats.warm_min_ms : q.stats.warm_median_ms;
}

/** The run's `comparison.json` (schema `chbench.comparison/v1`) when there is one; a file that does not parse is reported, not thrown. */
function readComparisonIfAny(dir: string): { record?: ComparisonRecord; error?: string } {
  const file = path.join(dir, 'comparison.json');
  if (!existsSync(file)) return {};
  try {
    return { record: readRecord(file, ComparisonRecord) };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/** Render the report markdown for a run directory. */
export function renderReport(dir: string): string {
  const { run, cells, missing } = loadRun(dir);
  const spec = run.spec;
  // Every cell that measured something is shown, whatever its final status (labelled if not succeeded).
  const ok = cells.filter(measuredSomething);
  const label = rowLabel;
  const out: string[] = [];
  out.push(`# chbench report — ${run.runId}`, '');
  out.push(`Workload **${spec.workload}**, ${fmtInt(spec.scale)} rows, target **${spec.target.kind}**; protocol: ${spec.protocol.coldRuns} cold + ${spec.protocol.warmRuns} warm run(s) per query, headline warm statistic **${spec.protocol.statistic}** (every sample is in the cell's \`queries-*.json\`).`);
  const resumes = run.resumes;
  const status = runStatusText(run, cells, missing);
  out.push(`${startPhrase(run)}${resumes.length ? `, resumed ${resumes.join(', ')}` : ''}${run.finishedAt ? `, finished ${run.finishedAt}` : ''}${status ? `, run status **${status}**` : ''}.`, '');
  const lateWarn = lateStartWarning(run);
  if (lateWarn) out.push(`> **⚠ ${lateWarn}**`, '');

  // Validity summary first: a run with invalid measurements says so at the top.
  const v = validitySummary(ok, spec);
  const incomplete = cells.flatMap((c) => [c.queries_baseline, c.queries_index].filter((p) => p?.incomplete).map((p) => `${c.cellKey} ${p!.phase}: ${p!.incomplete}`));
  if (incomplete.length) out.push(`> **Query steps stopped before every query was measured** — ${incomplete.join('; ')}. The figures shown are the queries that finished.`, '');
  // The banner speaks only of what was measured (report-cells.ts): nothing, no query run, or each claim with its runs.
  out.push(bannerMd(validityBanner(cells, missing, v, comparedQueries(ok).length)), '');
  // Cells whose host ran something else: a note on their figures (report-hosts.ts), not a failure.
  const hostBusy = busyFlags(cells, spec.concurrency);
  const busyLine = busyHeadline(hostBusy);
  if (busyLine) out.push(`> **⚠ Host busy** — ${busyLine} Each reason is listed in the Validity section.`, '');

  // A compared run says its verdict at the top; the details are in the Comparison section below.
  const comparison = readComparisonIfAny(dir);
  if (comparison.record) {
    const c = comparison.record;
    out.push(
      `Comparison with ${c.baseline_run_id || 'no baseline'} (${c.baseline_chosen_by}): **${c.verdict}**${c.confirmed.length ? ` — confirmed by the interleaved re-run: ${c.confirmed.join(', ')}` : ''}${c.flagged.length && !c.confirmed.length ? ` — first pass flagged ${c.flagged.join(', ')}, not confirmed by the re-run` : ''} (see [Comparison](#comparison-with-the-baseline)).`,
      '',
    );
  } else if (comparison.error) out.push(`> **comparison.json could not be read**: ${comparison.error}`, '');

  out.push('## Cells', '');
  const withHosts = hasHosts(cells);
  const rows = [['cell', 'status', 'server version', 'timezone', 'CPUs / memory', 'provisioned by', ...(withHosts ? ['host'] : []), 'query_log', 'retries']];
  // An error too long for the table is shortened at a word boundary and given in full below it.
  const fullErrors: string[] = [];
  for (const c of cells) {
    const p = c.provision;
    const err = c.status === 'failed' && c.error ? shortenAtWord(c.error, CELL_ERROR_CHARS) : null;
    if (err?.cut) fullErrors.push(`${fullErrors.length + 1}. ${c.cellKey}: ${c.error!.replace(/\s+/g, ' ').trim()}`);
    rows.push([
      c.cellKey,
      c.status + (err ? `: ${err.text}${err.cut ? ` [error ${fullErrors.length}]` : ''}` : c.status === 'skipped' && c.skip_reason ? `: ${c.skip_reason}` : '') + settingsFlag(c),
      p?.server.version ?? 'n/a',
      p?.server.timezone ?? 'n/a',
      p ? `${p.server.cpus ?? 'n/a'} / ${fmtBytes(p.server.memory_bytes)}` : 'n/a',
      p?.target.provisionedBy ?? 'n/a',
      ...(withHosts ? [hostColumn(c)] : []),
      p?.server.query_log ?? 'n/a',
      retries(c),
    ]);
  }
  for (const k of missing) rows.push([k, 'no result (not run yet, or the run was interrupted)', '', '', '', '', ...(withHosts ? [''] : []), '', '']);
  out.push(markdownTable(rows), '');
  if (fullErrors.length) out.push('Errors in full (as in the cell\'s `result.json` `error`):', '', ...fullErrors, '');
  const unapplied = settingsNotAppliedLines(cells);
  if (unapplied.length) out.push('> **⚠ Table settings not applied** — declared for the cell, but not on its table:', ...unapplied.map((l) => `> - ${l}`), '');
  const pins = defaultsLines(cells);
  if (pins.length) out.push('Defaults each cell ran with (`pinDefaults`; source: `settings.json` `pinned_defaults`):', '', ...pins.map((l) => `- ${l}`), '');
  const optionalLeftOut = optionalNotAppliedLines(cells);
  if (optionalLeftOut.length) out.push('> **Optional settings not applied** — the version lacks them (`settings.optional`):', ...optionalLeftOut.map((l) => `> - ${l}`), '');
  const profiles = profileLines(spec);
  if (profiles.length)
    out.push("Settings profiles (`matrix.settings`; each cell key ends with its profile; applied over the spec's `settings`, as each cell's `settings.json` records):", '', ...profiles.map((l) => `- ${l}`), '');
  if (cells.some((c) => c.provision?.server.cpu_source.startsWith('worker host')))
    out.push('CPUs/memory come from `system.asynchronous_metrics` where the server has them, else from the worker host (same host for embedded/local targets).', '');
  out.push(...hostsSection(cells));

  // A run where no cell measured anything has no figures: its measurement sections would only be empty tables.
  if (!ok.length) out.push('The measurement sections (ingest, compression, queries, validity, skip index, counters) are left out: no cell measured anything.', '');
  else {
  const gen = loadSources(ok);
  out.push('## Ingest', '', `Server-side generation by the load \`INSERT … SELECT\` as sent (\`load.json\` \`sql\`)${gen.length ? `, reading ${gen.map((x) => `\`${x}\``).join(' / ')}` : ''}: no network or parsing cost. Elapsed = client wall time of the INSERT statement (rows/s uses it); server elapsed from ` + ([...new Set(ok.map((c) => c.load?.server_elapsed_source).filter(Boolean))].map((x) => `\`${x}\``).join(' / ') || 'n/a') + '. Rows = `SELECT count()` after loading.', '');
  const ing = ingestRows(ok, label);
  out.push(markdownTable(ing), '');

  out.push(...afterLoadSection(ok, label));

  out.push('## Compression (table totals)', '', 'Source: `system.parts` (active parts): `data_uncompressed_bytes`, `data_compressed_bytes`, `bytes_on_disk`.', '');
  const comp = compressionRows(ok, label);
  out.push(markdownTable(comp), '');

  out.push('## Per-column compression', '', 'Source: `system.parts_columns` (active parts): `column_data_compressed_bytes`, `column_data_uncompressed_bytes`. Share = column compressed / table compressed.' + (ok.some((c) => c.storage?.columns?.some((x) => x.codec !== undefined)) ? ' Codec: the column\u2019s codec as the server reports it (`system.columns.compression_codec`), not as the spec asked; where the column names none, "default: …" is each active part\u2019s `system.parts.default_compression_codec` as read back (26.9 gives parts of about 100 MB and more ZSTD(3)), or "default (not read back)" where the server has no such column.' : ''), '');
  const withCols = ok.filter((c) => c.storage);
  const colRows = perColumnRows(withCols, label);
  out.push(markdownTable(colRows), '');
  for (const c of withCols) if (c.storage!.columns === null) out.push(`- ${c.cellKey}: per-column sizes unavailable: ${c.storage!.columns_unavailable_reason}`);
  out.push('');

  out.push('## Queries', '');
  const stat = spec.protocol.statistic;
  const other = stat === 'min' ? 'median' : 'min';
  const timing = [...new Set(ok.flatMap((c) => c.queries_baseline?.queries.map((q) => q.stats.timing_source) ?? []))];
  const serverSources = [...new Set(ok.flatMap((c) => c.queries_baseline?.queries.flatMap((q) => q.stats.server_time_sources ?? []) ?? []))].map((x) => `\`${x}\``);
  const readSources = [...new Set(ok.flatMap((c) => c.queries_baseline?.queries.flatMap((q) => q.samples.map((x) => x.read_source ?? 'not available')) ?? []))];
  const coldN = spec.protocol.coldRuns;
  out.push(
    `Times are **${timing.join(' / ') || 'n/a'}**; server-side elapsed comes from ${serverSources.join(' / ') || 'n/a'} — \`system.query_log\` is the headline wherever the server keeps one (microsecond columns where the version has them, else whole-ms \`query_duration_ms\`), otherwise the HTTP summary requested complete with \`wait_end_of_query=1\`; a server time coarser than 10 % of the value is replaced by client wall time (noted below). The client wall time of every run is in the samples. ` +
      `Cold = ${coldN > 1 ? `the fastest of ${coldN} cold runs` : 'the cold run'}; then ${spec.protocol.warmupRuns ?? 0} unmeasured warm-up run(s); warm ${stat} and ${other} over ${spec.protocol.warmRuns} warm runs. ` +
      `read_rows of the last warm run, from ${readSources.join(' / ') || 'n/a'}.`,
    '',
  );
  for (const c of ok) if (c.queries_baseline) out.push(`- ${label(c)} cold: ${c.queries_baseline.cold_definition}`);
  out.push('');
  const busy = ok.filter((c) => [c.queries_baseline, c.queries_index].some((q) => q && q.other_chbench_servers && (q.other_chbench_servers.at_start.length || q.other_chbench_servers.at_end.length)));
  for (const c of busy)
    out.push(`**⚠ ${label(c)} was measured while other chbench servers ran on this host** (${[...new Set([c.queries_baseline, c.queries_index].flatMap((q) => (q ? [...q.other_chbench_servers.at_start, ...q.other_chbench_servers.at_end] : [])))].join(', ')}): its times are disturbed.`, '');
  const qids = [...new Set(ok.flatMap((c) => c.queries_baseline?.queries.map((q) => q.id) ?? []))];
  const qRows = queryRows(ok, spec.protocol, label);
  out.push(markdownTable(qRows), '');
  const notes = ok.flatMap((c) => (c.queries_baseline?.queries ?? []).filter((q) => q.stats.timing_note).map((q) => `- ${q.id} in ${label(c)}: ${q.stats.timing_note}.`));
  if (notes.length) out.push('Timing source per query where it differs:', '', ...notes, '');
  for (const c of ok)
    for (const rec of [c.queries_baseline, c.queries_index])
      for (const fq of rec?.queries.filter((x) => x.error) ?? [])
        out.push(`**⚠ ${fq.id} failed in ${label(c)}${rec === c.queries_index ? ' (after index)' : ''}** on run ${fq.error!.run} (query_id \`${fq.error!.query_id}\`): server error Code ${fq.error!.code}${fq.error!.type ? ` (${fq.error!.type})` : ''}: ${fq.error!.message}`, '');
  const find = (c: CellResult, id: string) => c.queries_baseline?.queries.find((q) => q.id === id);
  const approx = qids.filter((id) => ok.some((c) => find(c, id)?.deterministic === false));
  // Only queries that returned rows in at least one run can be said to agree.
  const measuredIds = qids.filter((id) => ok.some((c) => [c.queries_baseline, c.queries_index].some((p) => p?.queries.find((q) => q.id === id && q.samples.length))));
  const compared = measuredIds.filter((id) => !approx.includes(id));
  // "before and after the index" only when a compared query was measured after the index.
  const anyIndex = ok.some((c) => c.queries_index?.queries.some((q) => compared.includes(q.id) && q.samples.length));
  const mismatches = resultMismatches(ok);
  for (const mm of mismatches)
    out.push(
      `**⚠ Correctness failure: ${mm.id} returned different rows** (compared by ${mm.by === 'values' ? 'value hash' : 'text hash: a record predates value hashes, so formatting differences between versions count too'}) — ${mm.values.join(' ≠ ')}`,
      '',
      '```sql',
      mm.sql.trim(),
      '```',
      '',
    );
  if (mismatches.length) out.push('');
  else if (compared.length) out.push(`Results agree: every run of ${compared.join(', ')} in every cell${anyIndex ? ' (before and after the index)' : ''} returned the same rows (sha256).`, '');
  if (approx.length) out.push(`Not compared: ${approx.join(', ')} (the workload marks the result as approximate).`, '');
  // A matrix over several versions: the defaults and figures that differ between them (report-versions.ts).
  out.push(...versionsSection(dir, ok, stat));

  out.push('## Validity', '', 'Per query and cell: was each cold run cold (from the run\'s counters: mark/uncompressed cache hits, direct-I/O buffers, bytes read from the block device), were all runs quiet (active parts unchanged, no merge or mutation), were warm runs faster than cold. "?" = the counters needed are not available on this target.', '');
  const vRows = [['query', 'cell', 'cold', 'warm', 'quiet', 'counters from', 'reasons']];
  for (const c of ok)
    for (const [phase, rec] of [['', c.queries_baseline], [' (after index)', c.queries_index]] as const)
      for (const q of rec?.queries ?? []) {
        const colds = q.samples.filter((x) => x.kind === 'cold');
        const coldLabel = colds.length ? [...new Set(colds.map((x) => x.validity?.cold?.label ?? 'cold?'))].join(', ') : 'no cold run';
        const quiet = q.samples.some((x) => x.validity?.quiet.valid === false) ? 'not quiet' : q.samples.every((x) => x.validity?.quiet.valid === true) ? 'quiet' : 'quiet?';
        const crossChecks = q.samples.filter((x) => x.cross_check?.startsWith('disagrees')).map((x) => `⚠ run ${x.kind} ${x.n}: ${x.cross_check} (headline from query_log)`);
        const reasons = [...new Set(q.samples.flatMap((x) => [...(x.validity?.cold?.reasons ?? []), ...(x.validity?.quiet.reasons ?? [])]).concat(q.stats.warm_validity?.reasons ?? []).concat(crossChecks))];
        vRows.push([q.id + phase, label(c), coldLabel, q.stats.warm_validity?.label ?? 'n/a', quiet, [...new Set(q.samples.map((x) => x.counters_source ?? 'not available'))].join(' / '), reasons.join('; ') || '—']);
      }
  out.push(markdownTable(vRows), '');
  out.push(...busySection(hostBusy, spec.concurrency));

  // The heading names the index that was built (its name and TYPE from the ADD INDEX sent), or none.
  const idxCells = ok.filter((c) => c.index && c.queries_index?.queries.some((q) => q.samples.length));
  const builtIn = ok.filter((c) => c.index);
  const indexType = (sql: string) => /\bTYPE\s+([A-Za-z_]\w*)/i.exec(sql)?.[1];
  const built = [...new Set(builtIn.map((c) => `\`${c.index!.index}\`${indexType(c.index!.add_sql) ? ` (${indexType(c.index!.add_sql)})` : ''}`))];
  out.push(idxCells.length ? `## Skip index ${built.join(', ')}: before / after` : built.length ? `## Skip index ${built.join(', ')}` : '## Skip index', '');
  if (!idxCells.length && builtIn.length)
    out.push(`The index was built (${builtIn.map((c) => `${c.cellKey}: ${fmtMs(c.index!.materialize_ms)}, ${fmtBytes(c.index!.index_bytes)}`).join('; ')}), but no query was measured after it: ${builtIn.map((c) => `${c.cellKey} ${howStopped(c)}`).join('; ')}.`, '');
  else if (!idxCells.length) out.push(noIndexReason(cells, spec.skipIndex), '');
  else {
    out.push(`Warm ${spec.protocol.statistic}, before = baseline run, after = re-run once \`system.mutations\` reported the MATERIALIZE INDEX done. Index size from ${idxCells[0].index!.index_bytes_source}; % of table = index size / the table's compressed bytes; materialization = client wall time until \`is_done = 1\`.`, '');
    const ir = skipIndexRows(idxCells, spec, label);
    out.push(markdownTable(ir), '');
    for (const c of idxCells) {
      const vd = indexVerdict(c, spec);
      if (vd.off) {
        out.push(`- ${label(c)}: index ${vd.off} — the index was built, and the runs after it were sent with it turned off on purpose: no speed-up is shown, and nothing is judged invalid for it.`);
        continue;
      }
      const proofs = c.queries_index!.queries.filter((q) => q.index_proof).map((q) => `${q.id} ${q.index_proof!.reason}`);
      const notEffective = c.queries_index!.queries.some((q) => q.index_proof && readProof(q.index_proof).effective === false && q.index_proof.explain_skips === true);
      out.push(
        vd.verified === true
          ? `- ${label(c)}: index verified — every active part carries it; in the measured runs (EXPLAIN under their settings): ${proofs.join('; ')}.`
          : `- **⚠ ${label(c)}: index ${notEffective ? 'not effective in the measured runs' : vd.verified === false ? 'NOT verified' : vd.notUnderstood.length ? 'not verifiable: EXPLAIN not understood' : 'not verifiable'}** — ${vd.reasons.join('; ')}.`,
      );
    }
    out.push('');
  }

  out.push(
    '## Server and host counters during the cell',
    '',
    'Difference of `system.events` (and the worker host\'s /proc/diskstats, whole disks, for targets on the worker\'s host) between the start and the end of each cell: load, merges, every query run and index build together. ' +
      '"n/a" = the server does not have the counter, or (on versions whose system.events hides zero counters) it stayed at zero. Host disk figures cover everything on the host. After an OS page-cache drop the server re-reads its own binary (the embedded engine\'s library is ~0.5 GiB), which shows in OSReadBytes and host disk read. InsertedRows includes the server\'s own system-log inserts.',
    '',
  );
  const ev = ['OSReadBytes', 'ReadBufferFromFileDescriptorReadBytes', 'CreatedReadBufferDirectIO', 'CreatedReadBufferOrdinary', 'MarkCacheMisses', 'InsertedRows', 'MergedRows'];
  const evRows = [['cell', ...ev, 'host disk read', 'host disk written']];
  const diskSum = (c: CellResult, k: 'read_bytes' | 'write_bytes') => (c.metrics_delta?.host_disks ? Object.values(c.metrics_delta.host_disks).reduce((a, x) => a + x[k], 0) : null);
  const diskRead = bytesColumn(ok.map((c) => diskSum(c, 'read_bytes')));
  const diskWritten = bytesColumn(ok.map((c) => diskSum(c, 'write_bytes')));
  for (const c of ok) {
    const d = c.metrics_delta;
    if (!d) {
      // Not "the server lacks the counter": the end snapshot was never taken (why: countersMissing).
      evRows.push([label(c), ...ev.map(() => countersMissing(c)), countersMissing(c), countersMissing(c)]);
      continue;
    }
    evRows.push([label(c), ...ev.map((k) => fmtInt(d.server_events[k] ?? null)), diskRead(diskSum(c, 'read_bytes')), diskWritten(diskSum(c, 'write_bytes'))]);
  }
  out.push(markdownTable(evRows), '');
  if (ok.some((c) => !c.metrics_delta))
    out.push('"not collected" = no start→end difference was taken: the cell stopped (failed or cancelled) before its end-of-cell snapshot, or the server restarted' + ok.filter((c) => !c.metrics_delta && c.metrics_delta_unavailable).map((c) => `; ${c.cellKey}: ${c.metrics_delta_unavailable}`).join('') + '.', '');
  const hostFlags = hostWideFlags(ok);
  if (hostFlags.length) out.push(...hostFlags.map((f) => `- **⚠ ${f.text}.**`), '');
  }
  out.push(...comparingSection(ok, spec.protocol.statistic, markdownTable));
  out.push(...environmentSection(run, cells, markdownTable));
  out.push(...gridsSections(spec, cells, label));
  if (comparison.record) out.push(...comparisonSection(comparison.record));
  out.push(...cloudSections(dir, run, cells));
  const bad = cells.filter((c) => c.status !== 'succeeded');
  if (bad.length) {
    out.push('## Cells that did not finish', '', 'Figures such a cell measured before it stopped are in the tables above, labelled with its status.', '');
    for (const c of bad) out.push(`- **${c.cellKey}** — ${c.status}: ${c.skip_reason ?? c.error ?? ''}`);
    out.push('');
  }
  out.push('Raw data: `cells/<cell>/*.json` beside this report (every sample, query_log rows where available, exact SQL and settings).', '');
  return out.join('\n');
}

/** The label of a cell in report.md's and report.html's tables: its key, with its status when it did not succeed. */
export function rowLabel(c: CellResult): string {
  return c.status === 'succeeded' ? c.cellKey : `${c.cellKey} (${c.status})`;
}

/**
 * The Ingest table (header row first) of report.md and report.html: per cell with a load, rows by
 * `SELECT count()`, client wall and server elapsed of the INSERT (source: `load.json`), rows/s,
 * partitions, active parts and the load's verification. Cells in the order given (matrix order).
 */
export function ingestRows(ok: CellResult[], label: (c: CellResult) => string = rowLabel): string[][] {
  const ing = [['cell', 'rows (count())', 'elapsed (client wall)', 'server elapsed', 'rows/s', 'partitions', 'active parts', 'verified', 'note']];
  const ingMs = msColumn(ok.map((c) => c.load?.elapsed_ms));
  const ingServerMs = msColumn(ok.map((c) => c.load?.server_elapsed_ms));
  for (const c of ok) {
    const l = c.load;
    if (!l) continue;
    const vf = l.verification;
    const verified = vf ? `${vf.rows_equal_scale ? '= scale' : '⚠ ≠ scale'}; ${vf.written_rows_check.startsWith('MISMATCH') ? `⚠ ${vf.written_rows_check}` : vf.written_rows_check.startsWith('not') ? 'written_rows n/a' : vf.written_rows_check.startsWith('differs') ? 'written_rows ≠ count(), explained (load.json)' : 'written_rows ='}; dedup blocks ${vf.duplicated_inserted_blocks ?? 'n/a'}` : 'n/a';
    ing.push([label(c), fmtInt(l.rows_in_table), ingMs(l.elapsed_ms), ingServerMs(l.server_elapsed_ms, /query_duration_ms/.test(l.server_elapsed_source ?? '') ? 1 : null), fmtInt(l.rows_per_s), fmtInt(l.partitions), fmtInt(l.active_parts), verified, l.truncated_before_load ? `reloaded after finding ${fmtInt(l.truncated_before_load.rows_found)} rows` : '']);
  }
  return ing;
}

/** The Compression (table totals) table, header first: per cell from `system.parts` (active parts), cells in the order given. */
export function compressionRows(ok: CellResult[], label: (c: CellResult) => string = rowLabel): string[][] {
  const comp = [['cell', 'codec', 'uncompressed', 'compressed', 'ratio', 'on disk', 'part formats']];
  const [unc, cmp, disk] = (['uncompressed_bytes', 'compressed_bytes', 'bytes_on_disk'] as const).map((k) => bytesColumn(ok.map((c) => c.storage?.[k])));
  for (const c of ok)
    if (c.storage)
      comp.push([label(c), c.matrix.codec, unc(c.storage.uncompressed_bytes), cmp(c.storage.compressed_bytes), c.storage.ratio === null ? 'n/a' : `${c.storage.ratio.toFixed(2)}×`, disk(c.storage.bytes_on_disk), Object.entries(c.storage.part_types).map(([k, n]) => `${n} ${k}`).join(', ') || 'n/a']);
  return comp;
}

/**
 * The Per-column compression table, header first: one row per column (in the order the cells recorded
 * them), per cell its read-back codec (when recorded), compressed and uncompressed bytes, ratio and
 * share of the table, from `system.parts_columns`. `withCols`: the cells with a storage record.
 */
export function perColumnRows(withCols: CellResult[], label: (c: CellResult) => string = rowLabel): string[][] {
  const colNames = [...new Set(withCols.flatMap((c) => c.storage!.columns?.map((x) => x.column) ?? []))];
  // The read-back codec column appears when a cell has it (results before 0.7 do not).
  const codecCol = withCols.some((c) => c.storage!.columns?.some((x) => x.codec !== undefined));
  const colRows = [['column', ...withCols.flatMap((c) => [...(codecCol ? [`${label(c)} codec`, 'compressed'] : [`${label(c)} compressed`]), 'uncompressed', 'ratio', 'share'])]];
  for (const name of colNames)
    colRows.push([
      name,
      ...withCols.flatMap((c) => {
        const col = c.storage!.columns?.find((x) => x.column === name);
        const cells = col ? [fmtBytes(col.compressed_bytes), fmtBytes(col.uncompressed_bytes), `${col.ratio.toFixed(2)}×`, `${(col.share * 100).toFixed(1)} %`] : ['n/a', 'n/a', 'n/a', 'n/a'];
        return codecCol ? [col ? serverCodec(col.codec, c.storage!.part_default_codecs) : 'n/a', ...cells] : cells;
      }),
    ]);
  return colRows;
}

/**
 * The Queries table (before the skip index), header first: one row per query in the order the cells
 * ran them (the workload manifest's order), per cell its cold time, the warm headline statistic, the
 * other warm statistic (each column in one unit, at the recorded resolution) and read_rows of the last
 * warm run. Cells in the order given (matrix order).
 */
export function queryRows(ok: CellResult[], protocol: { statistic: 'min' | 'median'; coldRuns: number }, label: (c: CellResult) => string = rowLabel): string[][] {
  const stat = protocol.statistic;
  const other = stat === 'min' ? 'median' : 'min';
  const coldN = protocol.coldRuns;
  const qids = [...new Set(ok.flatMap((c) => c.queries_baseline?.queries.map((q) => q.id) ?? []))];
  const coldHead = coldN > 1 ? `cold (min of ${coldN})` : 'cold';
  const qRows = [['query', ...ok.flatMap((c) => [`${label(c)} ${coldHead}`, `warm ${stat}`, `warm ${other}`, 'read_rows'])]];
  // One unit per column: each cell's cold, warm statistic and other warm statistic column has its own.
  const qOf = (c: CellResult) => (c.queries_baseline?.queries ?? []).filter((q) => qids.includes(q.id));
  const otherOf = (q: QueryRecord) => (other === 'median' ? q.stats.warm_median_ms : q.stats.warm_min_ms);
  const cols = new Map(ok.map((c) => [c, { cold: msColumn(qOf(c).map((q) => q.stats.cold_ms)), head: msColumn(qOf(c).map((q) => headline(q, stat))), other: msColumn(qOf(c).map(otherOf)) }]));
  for (const id of qids) {
    const title = ok.map((c) => c.queries_baseline?.queries.find((q) => q.id === id)?.title).find(Boolean) ?? '';
    qRows.push([
      `${id} ${title}`,
      ...ok.flatMap((c) => {
        const q = c.queries_baseline?.queries.find((x) => x.id === id);
        if (!q) return ['n/a', 'n/a', 'n/a', 'n/a'];
        const res = q.stats.resolution_ms ?? null;
        const flag = q.samples.some((x) => x.kind !== 'warmup' && x.validity?.quiet.valid === false) ? ' ⚠ not quiet' : '';
        const o = otherOf(q);
        const f = cols.get(c)!;
        const coldFlag = q.stats.cold_runs_rejected ? ` ⚠ ${q.stats.cold_runs_rejected} not cold` : q.samples.some((x) => x.kind === 'cold' && x.validity?.cold?.valid === null) ? ' (cold?)' : '';
        const warmFlag = q.stats.warm_validity?.valid === false ? ' ⚠ not warmer' : '';
        return [f.cold(q.stats.cold_ms, res) + coldFlag, f.head(headline(q, stat), res) + flag + warmFlag, f.other(o, res), fmtRead(q.stats.read_rows, fmtInt, q)];
      }),
    ]);
  }
  return qRows;
}

/**
 * The Skip index before/after table, header first: per cell whose queries were measured after the
 * index and per such query, the spec's warm statistic and read_rows / read_bytes before and after, the
 * speed-up, the index size (and % of the table's compressed bytes) and its materialization time.
 * Only a header when no cell measured a query after the index.
 */
export function skipIndexRows(ok: CellResult[], spec: IndexSettingsSpec & { protocol: { statistic: 'min' | 'median' } }, label: (c: CellResult) => string = rowLabel): string[][] {
  const idxCells = ok.filter((c) => c.index && c.queries_index?.queries.some((q) => q.samples.length));
  const ir = [['cell', 'query', 'warm before', 'warm after', 'speed-up', 'read_rows before', 'read_rows after', 'read_bytes before', 'read_bytes after', 'index size', '% of table', 'materialize']];
  for (const c of idxCells)
    for (const qa of c.queries_index!.queries) {
      const qb = c.queries_baseline?.queries.find((q) => q.id === qa.id);
      const before = headline(qb, spec.protocol.statistic);
      const after = headline(qa, spec.protocol.statistic);
      const off = indexTurnedOff(c, spec);
      ir.push([
        label(c),
        qa.id,
        fmtMs(before) + (qb && (qb.samples.some((x) => x.validity?.quiet.valid === false) || qb.stats.warm_validity?.valid === false) ? ' ⚠' : ''),
        fmtMs(after) + (qa.samples.some((x) => x.validity?.quiet.valid === false) || qa.stats.warm_validity?.valid === false ? ' ⚠' : ''),
        off ? `n/a (index ${off})` : (before && after ? `${(before / after).toFixed(1)}×` : 'n/a') + (qa.index_proof && readProof(qa.index_proof).effective === false ? ' ⚠ index not effective' : ''),
        fmtRead(qb?.stats.read_rows, fmtInt, qb),
        fmtRead(qa.stats.read_rows, fmtInt, qa),
        fmtRead(qb?.stats.read_bytes, fmtBytes, qb),
        fmtRead(qa.stats.read_bytes, fmtBytes, qa),
        fmtBytes(c.index!.index_bytes),
        c.index!.index_bytes !== null && c.storage?.compressed_bytes ? `${((c.index!.index_bytes / c.storage.compressed_bytes) * 100).toFixed(1)} %` : 'n/a',
        fmtMs(c.index!.materialize_ms) + (c.index!.adopted_mutation ? ' (adopted an earlier attempt\'s mutation: partial time)' : ''),
      ]);
    }
  return ir;
}

/** A figure with its unit, or `no data` when CloudWatch had none (never 0 for "no data"). */
function fig(x: number | null, unit: string): string {
  if (x === null) return 'no data';
  const v = x >= 100 ? Math.round(x).toLocaleString('en-US') : x >= 10 ? x.toFixed(1) : x.toFixed(2);
  return unit ? `${v} ${unit}` : v;
}

/** `12:05:00–12:08:00 UTC` (same day) from two ISO times. */
function span(a: string, b: string): string {
  return `${a.slice(11, 19)}–${b.slice(11, 19)} UTC`;
}

function cloudRow(s: CloudStepRecord): string[] {
  if (!s.attributable || !s.window || !s.figures) {
    const secs = (Date.parse(s.finished_at) - Date.parse(s.started_at)) / 1000;
    return [s.step, `${span(s.started_at, s.finished_at)} (${secs.toFixed(1)} s)`, '—', '—', '—', '—', '—', 'not attributable', s.reason ?? ''];
  }
  const f = s.figures;
  const w = s.window;
  const d = s.datapoints;
  const count = (id: string) => (id in d ? `${d[id]}` : 'n/a');
  return [
    s.step,
    `${span(w.start, w.end)} (${w.periods} × ${w.period_s} s${w.partial ? ', partial: newest minute not final' : ''})`,
    fig(f.read_mib_s, 'MiB/s'),
    fig(f.write_mib_s, 'MiB/s'),
    `${fig(f.read_iops, '')} / ${fig(f.write_iops, '')}`,
    f.cpu_pct === null ? 'no data' : `${fig(f.cpu_pct, '%')} (max ${fig(f.cpu_max_pct, '%')})`,
    `volume ${count('vol_read_bytes')}/${w.periods}, instance ${count('cpu_avg')}/${w.periods}`,
    s.label ?? 'unknown',
    s.evidence ?? '',
  ];
}

/**
 * The Kubernetes, Cloud metrics and Cost sections: shown when a cell has Kubernetes facts
 * (`provision.json` target.kubernetes) or `cloud-metrics.json`. Every figure names its source.
 */
function cloudSections(dir: string, run: RunRecord, cells: CellResult[]): string[] {
  const cellsDir = path.join(dir, 'cells');
  const metrics = new Map<string, CloudMetricsRecord>();
  const costs = new Map<string, CellCostRecord>();
  for (const c of cells) {
    const m = readRecordIfExists(path.join(cellsDir, c.cellKey, 'cloud-metrics.json'), CloudMetricsRecord);
    if (m) metrics.set(c.cellKey, m);
    const k = readRecordIfExists(path.join(cellsDir, c.cellKey, 'cost.json'), CellCostRecord);
    if (k) costs.set(c.cellKey, k);
  }
  const kube = cells.filter((c) => c.provision?.target.kubernetes || metrics.has(c.cellKey));
  if (!kube.length) return [];
  const out: string[] = [];

  out.push(
    '## Kubernetes',
    '',
    'Pod, node, instance type (node label `node.kubernetes.io/instance-type`), zone (`topology.kubernetes.io/zone`), EC2 instance (node `spec.providerID`) and EBS volume (PV `spec.csi.volumeHandle`): read from the Kubernetes API at provisioning (`provision.json`). Volume type, size, IOPS and throughput: `EC2 DescribeVolumes` (`VolumeType`, `Size`, `Iops`, `Throughput`) at collection, unless the source column says otherwise.',
    '',
  );
  const kr = [['cell', 'pod', 'node', 'instance', 'instance type', 'zone', 'volume', 'type / size / IOPS / throughput', 'volume for this pod', 'volume facts from']];
  for (const c of kube) {
    const k = c.provision?.target.kubernetes;
    const r = metrics.get(c.cellKey)?.resources;
    const v = r?.volume;
    kr.push([
      c.cellKey,
      k ? `${k.namespace}/${k.pod}` : 'n/a',
      k?.node ?? 'n/a',
      r?.instance.instance_id ?? k?.providerID ?? 'n/a',
      r?.instance.type ?? k?.instanceType ?? 'n/a',
      r?.instance.zone ?? k?.zone ?? 'n/a',
      v?.volume_id ?? k?.volumeHandle ?? 'n/a',
      v
        ? `${v.type ?? 'n/a'} / ${v.size_gib === null ? 'n/a' : `${fig(v.size_gib, 'GiB')}`} / ${v.iops === null ? 'n/a' : fig(v.iops, 'IOPS')} / ${v.throughput_mib_s === null ? 'n/a' : fig(v.throughput_mib_s, 'MiB/s')}`
        : k
          ? `not described (PVC request ${k.storageRequest}, StorageClass ${k.storageClass})`
          : 'n/a',
      k ? k.volume + (k.volumeNote ? ` (${k.volumeNote})` : '') : 'n/a',
      v ? v.source : 'not collected',
    ]);
  }
  out.push(markdownTable(kr), '');
  const lim = [...metrics.values()].map((m) => ({ t: m.resources.instance.type, l: m.resources.instance_limits })).find((x) => x.l);
  if (lim?.l)
    out.push(
      `Instance EBS limits (${lim.t}): baseline ${lim.l.baseline_mb_s} MB/s, ${lim.l.baseline_iops.toLocaleString('en-US')} IOPS; burst ${lim.l.maximum_mb_s} MB/s, ${lim.l.maximum_iops.toLocaleString('en-US')} IOPS (source: ${lim.l.source}).`,
      '',
    );

  out.push('## Cloud metrics', '');
  const any = [...metrics.values()][0];
  if (!any) {
    out.push(
      run.spec.cloud
        ? 'Not collected: no cell has a `cloud-metrics.json` (the collection step failed or did not run; see the run in Temporal).'
        : 'Not collected: the run spec has no `cloud` section.',
      '',
    );
  } else {
    out.push(
      `Per step window, from CloudWatch \`GetMetricData\` (${any.region}, period ${any.period_s} s, full dimensions \`VolumeId\` / \`InstanceId\`, read ${any.settle_ms / 1000} s or more after the window's last minute so its figures are final). ` +
        'Read/write = `AWS/EBS VolumeReadBytes` / `VolumeWriteBytes` Sum ÷ seconds of the periods that have data; IOPS = `AWS/EBS VolumeReadOps` / `VolumeWriteOps` Sum ÷ the same seconds; CPU = `AWS/EC2 CPUUtilization` Average (mean of the periods) and Maximum; datapoints = periods with a `VolumeReadBytes` / `CPUUtilization` point of those asked for. ' +
        'Windows are the steps\' own wall-clock times (`started_at`/`finished_at` in the step records) rounded out to whole periods; a step shorter than one period shares its minute with its neighbours and gets no figures. "no data" = CloudWatch returned no data point (not zero). ' +
        `Labels (\`labelBottleneck\`): disk-bound at ${Math.round(any.thresholds.disk_utilisation * 100)} % of the lowest of the volume's and the instance's throughput/IOPS limits or a burst balance ≤ ${any.thresholds.balance_pct} %; CPU-bound at a mean CPU ≥ ${any.thresholds.cpu_pct} %; neither needs both sides measured, else unknown.`,
      '',
    );
    for (const c of kube) {
      const m = metrics.get(c.cellKey);
      if (!m) {
        out.push(`### ${c.cellKey}`, '', 'Not collected for this cell.', '');
        continue;
      }
      out.push(`### ${c.cellKey}`, '');
      const rows = [['step', 'window', 'read', 'write', 'IOPS read / write', 'CPU', 'datapoints', 'label', 'evidence']];
      for (const s of m.steps) rows.push(cloudRow(s));
      out.push(markdownTable(rows), '');
      if (m.untimed_steps.length)
        out.push(`No window (the record has no wall-clock times, written by an older chbench): ${m.untimed_steps.join('; ')}.`, '');
      if (m.partial) out.push('**Partial:** some windows were read before their newest minute was final.', '');
    }
  }

  out.push('## Cost', '');
  if (!costs.size) {
    out.push('Not computed (no `cost.json`).', '');
    return out;
  }
  const sources = [...new Set([...costs.values()].map((k) => k.price_source))];
  const held = [...new Set([...costs.values()].map((k) => `${k.held.from_source} → ${k.held.to_source}`))];
  out.push(
    `Instance: on-demand $/h × hours held; volume: GB-month price × GiB × hours held ÷ 730, plus provisioned IOPS and MiB/s above the included ones at their monthly prices. Time held: ${held.join('; ')}. Prices: ${sources.join('; ')}. Shown to the cent from $1 and to a hundredth of a cent below; the run total is the sum of the unrounded cells.`,
    '',
  );
  const cr = [['cell', 'held', 'instance', 'storage', 'IOPS above baseline', 'throughput above baseline', 'total']];
  for (const [cell, k] of costs)
    cr.push([cell, `${(k.held.ms / 3_600_000).toFixed(4)} h`, usdText(k.instance_usd), usdText(k.storage_usd), usdText(k.iops_usd), usdText(k.throughput_usd), usdText(k.total_usd)]);
  const runCost = readRecordIfExists(path.join(dir, 'cost.json'), RunCostRecord);
  if (runCost) cr.push(['**run total**', '', '', '', '', '', `**${usdText(runCost.total_usd)}**`]);
  out.push(markdownTable(cr), '');
  for (const [cell, k] of costs) out.push(`- ${cell}: ${k.lines.join('; ')}`);
  out.push('');
  return out;
}

/** USD to the cent from $1, to a hundredth of a cent below (as `usd` in src/cloud/cost.ts); `n/a` (unknown price) for null. */
function usdText(x: number | null): string {
  if (x === null) return 'n/a';
  return Math.abs(x) < 1 ? `$${x.toFixed(4)}` : `$${(Math.round(x * 100) / 100).toFixed(2)}`;
}

/**
 * A read-back `system.columns.compression_codec` for a table cell: `ZSTD(3)` for `CODEC(ZSTD(3))`;
 * for a column that names no codec, the server's own default per part as read back
 * (`system.parts.default_compression_codec`): `default: ZSTD(3)` when every part has the same,
 * `default: ZSTD(3) on 1 part (95.1 MiB), LZ4 on 6 parts (…)` when the part size decided (26.9), and
 * `default (not read back)` when the server has no such column — never an assumed LZ4. `n/a` when the
 * column's codec was not read.
 */
function serverCodec(codec: string | undefined, parts: readonly PartDefaultCodec[] | null | undefined): string {
  if (codec === undefined) return 'n/a';
  const inner = /^CODEC\((.*)\)$/.exec(codec.trim())?.[1] ?? codec.trim();
  if (inner) return inner;
  if (!parts?.length) return 'default (not read back)';
  const by = new Map<string, { n: number; bytes: number }>();
  for (const p of parts) {
    const e = by.get(p.codec) ?? { n: 0, bytes: 0 };
    by.set(p.codec, { n: e.n + 1, bytes: e.bytes + p.compressed_bytes });
  }
  if (by.size === 1) return `default: ${[...by.keys()][0]}`;
  const fmt = bytesColumn([...by.values()].map((e) => e.bytes));
  return `default: ${[...by.entries()].map(([k, e]) => `${k} on ${e.n} part${e.n === 1 ? '' : 's'} (${fmt(e.bytes)})`).join(', ')}`;
}

/**
 * The "After the load" section (markdown lines), or none when no cell ran after-load statements: per
 * cell and statement, its file, client wall and server elapsed (with their sources) and what was waited
 * for. Source: each cell's `after-load.json`.
 */
export function afterLoadSection(cells: CellResult[], label: (c: CellResult) => string): string[] {
  const withAl = cells.filter((c) => c.after_load?.statements.length);
  if (!withAl.length) return [];
  const all = withAl.flatMap((c) => c.after_load!.statements);
  const ms = msColumn(all.flatMap((s) => [s.elapsed_ms, s.server_elapsed_ms, s.wait_result?.waited_ms]));
  const rows = [['cell', '#', 'statement (file)', 'elapsed (client wall)', 'server elapsed', 'wait', 'waited (client wall)', 'note']];
  for (const c of withAl)
    for (const s of c.after_load!.statements)
      rows.push([
        label(c),
        String(s.n),
        `\`${s.file}\``,
        ms(s.elapsed_ms ?? null),
        ms(s.server_elapsed_ms ?? null),
        s.wait === 'none' ? 'none' : `${s.wait}${s.wait_result ? ` (${s.wait_result.mutations.length} mutation(s))` : ''}`,
        s.wait === 'none' ? 'n/a' : ms(s.wait_result?.waited_ms ?? null),
        s.status !== 'done' ? `⚠ ${s.status}` : s.applied_by_earlier_attempt ? 'sent by an earlier attempt (not sent again; not timed)' : '',
      ]);
  const sources = [...new Set(all.map((s) => s.server_elapsed_source).filter(Boolean))].map((x) => `\`${x}\``);
  return [
    '## After the load',
    '',
    `The workload's after-load statements, run in order on the loaded, quiet table before storage and queries (\`after-load.json\`). Elapsed = client wall time of the statement; server elapsed from ${sources.join(' / ') || 'n/a'}; waited = client wall time polling \`system.mutations\` (and \`system.merges\`) until nothing ran.`,
    '',
    markdownTable(rows),
    '',
  ];
}
