/**
 * The report's verdicts over a run's cells, shared by its sections (report.md and report.html): the
 * skip index's proof as it is read now, its verdict per cell, the counts of invalid and unjudgeable
 * checks, the queries whose results were compared and those whose results differ. Pure functions
 * over parsed records (`src/schema/results.ts`); no I/O.
 */
import { gridValidity } from './report-grids';
import { indexTurnedOff, type IndexSettingsSpec } from './report-cells';
import type { CellResult, IndexProof, QueryRecord } from '../schema/results';

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
