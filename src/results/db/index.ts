/**
 * PLACEHOLDER on branch wip-compare only, so `src/activities/matrix/compare-baseline.ts` compiles
 * before the results database (another branch) is merged. The lead drops this file in favour of the
 * real `src/results/db/index.ts` at merge; its signatures are what the comparison assumes.
 */
import type { ResultsDbSpec } from '../../schema/run-spec';
import type { ResultsDb, ResultsDbLocation } from './types';

/** Where the results database of a spec is (placeholder). */
export function resultsDbLocation(spec: ResultsDbSpec | undefined, resultsDir: string): ResultsDbLocation {
  return spec ? { kind: 'server', url: spec.url, database: spec.database, user: spec.user, passwordEnv: spec.passwordEnv } : { kind: 'embedded', dir: `${resultsDir}/db` };
}

/** Open the results database (placeholder: not implemented on this branch). */
export async function openResultsDb(loc: ResultsDbLocation): Promise<ResultsDb> {
  throw new Error(`results database not available on this branch (placeholder): ${JSON.stringify(loc)}`);
}
