/**
 * The run spec of an orchestration-only matrix (the chaos suite's long matrix, `bench:big-matrix`):
 * the `trivial` workload at 1,000 rows on one shared server used as an `external` target, one cold
 * and one warm run, no quiesce wait. Its timings mean nothing; its histories and workers are the point.
 */
export function orchestrationSpec(o: {
  name: string;
  /** URL of the shared server. */
  url: string;
  /** The environment variable holding the shared server's password on the worker (an embedded server requires one). */
  passwordEnv?: string;
  version: string[];
  codec: string[];
  repeat: number;
  concurrency: number;
  /** Absolute results directory. */
  resultsDir: string;
}) {
  return {
    name: o.name,
    workload: 'trivial',
    scale: 1000,
    target: { kind: 'external', url: o.url, ...(o.passwordEnv ? { passwordEnv: o.passwordEnv } : {}) },
    matrix: { version: o.version, codec: o.codec, repeat: o.repeat },
    skipIndex: false,
    concurrency: o.concurrency,
    protocol: {
      coldRuns: 1,
      warmupRuns: 0,
      warmRuns: 1,
      dropOsPageCache: false,
      stopMergesDuringQueries: false,
      quiesce: { stableForMs: 0, pollMs: 100 },
    },
    resultsDir: o.resultsDir,
  };
}
