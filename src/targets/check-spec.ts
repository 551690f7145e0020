/**
 * The full check of a run spec before anything is provisioned: the pure schema (`parseRunSpec`),
 * each target kind's own checks (`Target.checkSpec`: binaries, image references, password
 * variables), the workload's files, queries, codec and settings placement and what the load grids
 * need from it, and (on the worker) whether the results directory can be written. Used by the
 * worker's `validateSpec`, the CLI (`validate`, `run`, `schedule`) and the demos. It lives with the
 * targets because it asks the target registry; no server is asked.
 */
import { accessSync, constants, existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { codecProfileOf, parseRunSpec, SpecError, type RunSpec } from '../schema/run-spec';
import {
  codecPlacementProblems,
  loadWorkload,
  sqlRoot,
  workloadProblems,
  renderTemplate,
  settingsPlacementProblems,
  workloadQueries,
  type WorkloadManifest,
} from '../lib/workload';
import { schemaColumns, splitLoadSql } from '../measure/insert-load';
import { targets } from './index';
import { resultsDirProblem } from '../results/store';
import { settingsCatalogProblems } from './versions/settings-catalog';

/** Options of {@link checkSpec}. */
export interface CheckOptions {
  /**
   * Also check what only the worker's host can tell: local binaries are executable, password
   * variables are set, the results directory is writable. True in the worker's `validateSpec`;
   * false in the CLI, which may run on another host with another environment.
   */
  worker?: boolean;
}

function nearestExistingDir(p: string): string {
  let d = path.resolve(p);
  while (!existsSync(d)) d = path.dirname(d);
  return d;
}

/**
 * Validate a spec fully; returns every problem found, one line each (empty when valid). Problems of
 * the schema and of the files it names are reported together, so one pass shows them all: the
 * workload's manifest, files and placeholders ({@link workloadProblems}), and whether its schema
 * places every codec profile on the columns it claims ({@link codecPlacementProblems}). No server is
 * asked; codec expressions are tried on each target at provisioning.
 */
export function checkSpec(input: unknown, opts: CheckOptions = {}): { spec?: RunSpec; problems: string[] } {
  const problems: string[] = [];
  let spec: RunSpec | undefined;
  try {
    spec = parseRunSpec(input);
  } catch (e) {
    if (!(e instanceof SpecError)) throw e;
    problems.push(...e.issues);
  }
  // Checks on the raw input still run when the schema failed elsewhere.
  const raw = (typeof input === 'object' && input !== null ? input : {}) as Record<string, any>;
  // The target kind's own checks (binaries, password variable): see Target.checkSpec.
  const rawTarget =
    typeof raw.target === 'object' && raw.target !== null ? (raw.target as Record<string, unknown>) : undefined;
  const target = rawTarget && targets.find(rawTarget.kind);
  // Run on the valid spec too: the schema cannot see these (an image reference, a binary's path).
  if (target && rawTarget && Array.isArray(raw.matrix?.version))
    problems.push(...target.checkSpec(rawTarget, raw.matrix.version, 'input'));
  const wlProblems =
    typeof raw.workload === 'string' && /^[a-z0-9-]+$/.test(raw.workload) ? workloadProblems(raw.workload) : [];
  problems.push(...wlProblems);
  if (typeof raw.workload === 'string' && /^[a-z0-9-]+$/.test(raw.workload) && !wlProblems.length) {
    try {
      const m = loadWorkload(raw.workload);
      // Each codec profile must reach the columns it claims: a schema without {{codec}} would let a
      // "ZSTD(3)" cell silently measure LZ4.
      if (spec) {
        const schemaText = readFileSync(path.join(sqlRoot(), 'workloads', m.name, m.schema), 'utf8');
        for (const e of spec.matrix.codec)
          problems.push(
            ...codecPlacementProblems(m.name, schemaText, codecProfileOf(e)).map((p) => `matrix.codec: ${p}`),
          );
        // MergeTree settings given anywhere must reach the table: a schema without {{settings}} would
        // leave every part as the server's defaults make it while settings.json claimed them applied.
        problems.push(
          ...settingsPlacementProblems(m.name, schemaText, [
            { where: `workload ${m.name}: manifest.yaml tableSettings`, settings: m.tableSettings },
            { where: 'settings.mergeTree', settings: spec.settings.mergeTree },
            ...(spec.matrix.settings ?? []).map((p) => ({
              where: `matrix.settings profile "${p.name}" mergeTree`,
              settings: p.mergeTree,
            })),
            ...(spec.grids?.insert?.settings ?? []).map((p, i) => ({
              where: `grids.insert.settings[${i}] ("${p.name}") mergeTree`,
              settings: p.mergeTree,
            })),
          ]),
        );
      }
      // Every setting against each version's own list (the builds' catalog), before any cell runs.
      if (spec)
        problems.push(
          ...settingsCatalogProblems(spec, [
            {
              where: `workload ${m.name}: manifest.yaml tableSettings`,
              mergeTree: m.tableSettings,
              optional: m.optionalSettings,
            },
            {
              where: `workload ${m.name}: manifest.yaml loadSettings`,
              query: m.loadSettings,
              optional: m.optionalSettings,
            },
            ...(spec.grids?.insert?.settings ?? []).map((p, i) => ({
              where: `grids.insert.settings[${i}] ("${p.name}")`,
              query: p.query,
              mergeTree: p.mergeTree,
            })),
          ]),
        );
      const ids =
        Array.isArray(raw.queries) && raw.queries.every((q: unknown) => typeof q === 'string')
          ? (raw.queries as string[])
          : undefined;
      const selected = workloadQueries(m, { table: m.table, rows: 1, codec: 'LZ4' }, ids).map((q) => q.id);
      problems.push(...gridProblems(spec, m, selected));
    } catch (e) {
      problems.push(
        `${/unknown query/.test(String(e)) ? 'queries' : 'workload'}: ${(e as Error).message.replace(/^(workload|queries): /, '')}`,
      );
    }
  }
  // Someone else's folder (`/etc`, a project) is refused wherever it is checked; on the CLI's host too,
  // where it names the folder the worker would resolve the same relative path against.
  if (!opts.worker && typeof raw.resultsDir === 'string') {
    const foreign = resultsDirProblem(raw.resultsDir);
    if (foreign) problems.push(foreign);
  }
  if (opts.worker) {
    const versions: unknown[] = Array.isArray(raw.matrix?.version) ? raw.matrix.version : [];
    if (target && rawTarget) problems.push(...target.checkSpec(rawTarget, versions, 'worker host'));
    const resultsDir = typeof raw.resultsDir === 'string' ? raw.resultsDir : 'results';
    const abs = path.resolve(resultsDir);
    const foreign = resultsDirProblem(resultsDir);
    if (foreign) problems.push(foreign);
    else {
      const base = nearestExistingDir(abs);
      try {
        if (!statSync(base).isDirectory()) throw new Error('not a directory');
        accessSync(base, constants.W_OK);
      } catch {
        problems.push(
          `resultsDir: "${resultsDir}" cannot be created or written on the worker (${base} is not a writable directory)`,
        );
      }
    }
  }
  // The schema and a target's own checks may name the same problem: each once.
  const unique = [...new Set(problems)];
  return unique.length ? { ...(spec ? { spec } : {}), problems: unique } : { spec, problems: unique };
}

/**
 * What the load grids need from the workload: the concurrency mix names selected queries, and the
 * insert grid can slice the workload's generator (its load.sql reads `numbers(N)` or `numbers_mt(N)`).
 */
function gridProblems(spec: RunSpec | undefined, m: WorkloadManifest, selected: string[]): string[] {
  const out: string[] = [];
  const mix = spec?.grids?.concurrency?.mix;
  const missing = (mix ?? []).filter((e) => !selected.includes(e.id)).map((e) => e.id);
  if (missing.length)
    out.push(
      `grids.concurrency.mix: query id(s) ${missing.join(', ')} are not selected queries of workload ${m.name} (selected: ${selected.join(', ')})`,
    );
  if (spec?.grids?.insert) {
    // The same rules the insert grid generates its batches by (src/measure/insert-load.ts).
    const v = { table: m.table, rows: 1, codec: 'LZ4' as const };
    try {
      splitLoadSql(renderTemplate(m.name, m.load, v), m.name);
      schemaColumns(renderTemplate(m.name, m.schema, v), m.name);
    } catch (e) {
      out.push(`grids.insert: ${(e as Error).message}`);
    }
  }
  return out;
}
