/**
 * The `embedded` target: a chdb engine in a separate process per cell, serving the ClickHouse HTTP
 * interface on loopback (`provision.ts` starts it, `src/engine/server.ts` is the process). Which
 * engine serves a label is the version sources' business (`../versions/`): the bundled npm chdb
 * (26.7) or a PyPI chdb build hosted by Python (`engines`, default `auto`).
 *
 * Capabilities: on the worker's host; cannot stop a statement while chdb computes it; one statement
 * at a time, so `system.events` differences are a run's counters; rows/bytes read come from the
 * output statistics; running statements are listed by `GET /chbench/running`; restartable; the
 * cell's statements are archived from the server's `statements.jsonl`.
 */
import { accessSync, constants, existsSync, readFileSync, statSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { enginesDir } from '../../engine/install';
import * as path from 'node:path';
import { writeFileAtomic } from '../../lib/fs';
import { describeProcessTeardown, resourcesProblems, teardownProcessCell } from '../process';
import { registerTarget } from '../registry';
import { checkServer, sendKill } from '../server-verbs';
import type { Target, TargetSpecOf } from '../target';
import { provisionEmbedded, teardownEmbedded } from './provision';
import { progressFromEndpoint, readRunning } from './running';
import { resolveLabel } from '../versions';

export { provisionEmbedded, teardownEmbedded, embeddedServerScript, EMBEDDED_LOG_FILE } from './provision';

/** The embedded target. */
export const embeddedTarget: Target<TargetSpecOf<'embedded'>> = {
  kind: 'embedded',
  capabilities: {
    onWorkerHost: true,
    loopbackMeansWorkerHost: true,
    // KILL QUERY of a running statement where the engine build has a second session (npm 3.4.0, PyPI
    // chdb-core ≥ 26.1); other builds answer 48 and the kill verb says `not killable` with the build.
    canKillRunning: true,
    countersWithoutQueryLog: 'system.events',
    summaryReadSource: 'output statistics',
    runningStatementsFrom: 'target endpoint',
    restartable: true,
    statementArchive: true,
  },
  provision: (spec, req) => provisionEmbedded(req, spec.engines ?? 'auto', spec.resources),
  teardown: teardownEmbedded,
  teardownCell: (_spec, req) => teardownProcessCell(req),
  describeTeardown: describeProcessTeardown,
  check: checkServer,
  /** `GET <url>/chbench/running`: running and queued statements of the engine's one session. */
  async runningStatements(handle, _client, prefix) {
    return (await readRunning(handle, 5000)).map((x) => x.query_id).filter((id) => id.startsWith(prefix));
  },
  statementProgress: progressFromEndpoint,
  /**
   * `KILL QUERY` to the embedded server: it cancels a queued statement and stops a streaming one
   * between two chunks; a statement chdb is computing cannot be stopped, and the server's refusal
   * (code 48 NOT_IMPLEMENTED, "…cannot interrupt a running statement…") is the `not killable` why.
   * Never waits for the statement to go (`waitGoneMs` is ignored): nothing would make it go sooner.
   */
  kill: (_handle, client, queryId, options) => sendKill(client, queryId, options),
  /** A copy (written atomically) of `<dataDir>/statements.jsonl`, the server's log of every statement (all of them are the cell's). */
  async archiveStatements(handle, _prefix, file) {
    const src = handle.dataDir ? path.join(handle.dataDir, 'statements.jsonl') : undefined;
    if (!src || !existsSync(src)) return 'not available: no statements.jsonl';
    try {
      writeFileAtomic(file, readFileSync(src, 'utf8'));
    } catch (e) {
      return `not available: ${(e as Error).message}`;
    }
    return 'embedded statements.jsonl';
  },
  /**
   * `input`: every label of the matrix is served by one of the target's version sources (the
   * bundled npm engine, the PyPI builds; `engines` narrows them), else one line naming the label and
   * what each source serves. `worker host`: when a label's build is not installed yet, this worker
   * can install it ({@link installProblems}). Nothing is installed here.
   */
  checkSpec(target, versions, place) {
    if (target.engines !== undefined && !['auto', 'npm', 'pypi'].includes(target.engines as string)) return [];
    const resolved = versions.flatMap((v) =>
      typeof v === 'string' && /^\d+(\.\d+){0,3}$/.test(v) ? [resolveLabel(target, v)] : [],
    );
    if (place === 'input') return resolved.flatMap((r) => (r.ok ? [] : [r.problem]));
    // On the worker: a build it will have to install needs a writable engines directory and a Python with venv.
    const missing = resolved.flatMap((r) => (r.ok && r.resolution.installed === null ? [r.resolution] : []));
    return [
      ...(missing.length ? installProblems(missing.map((m) => m.label)) : []),
      ...resourcesProblems(target, place),
    ];
  },
};

/**
 * Why this worker could not install PyPI builds (checked once per spec, before any cell): the
 * engines directory (nearest existing ancestor) must be writable and the interpreter installs use
 * (`CHBENCH_ENGINES_PYTHON`, default `python3`) must run and have `venv` and `ensurepip`.
 * @param labels the labels that are not installed yet (named in the problem)
 * @returns one line per problem (empty when an install can start)
 */
export function installProblems(labels: string[]): string[] {
  const problems: string[] = [];
  const needs = `version(s) ${labels.join(', ')} need a PyPI engine install on this worker`;
  let dir = enginesDir();
  while (!existsSync(dir)) dir = path.dirname(dir);
  try {
    if (!statSync(dir).isDirectory()) throw new Error('not a directory');
    accessSync(dir, constants.W_OK);
  } catch {
    problems.push(
      `target: ${needs}, but ${dir} (on the way to the engines directory ${enginesDir()}, CHBENCH_ENGINES_DIR) is not a writable directory`,
    );
  }
  const python = process.env.CHBENCH_ENGINES_PYTHON || 'python3';
  const r = spawnSync(python, ['-c', 'import venv, ensurepip'], { encoding: 'utf8', timeout: 10_000 });
  if (r.status !== 0)
    problems.push(
      `target: ${needs}, but ${python} (CHBENCH_ENGINES_PYTHON) cannot create environments: ${
        r.error ? r.error.message : (r.stderr || '').trim().split('\n').pop()
      }`,
    );
  return problems;
}

registerTarget(embeddedTarget);
