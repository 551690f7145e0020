/**
 * Stub activities for workflow tests: every activity the workflows call, answering instantly with
 * minimal valid shapes and recording each call (activity, arguments, attempt). A test scripts
 * failures with `failWith`: called before each stub runs; whatever it returns is thrown.
 */
import { Context } from '@temporalio/activity';
import { parseRunSpec } from '../../src/schema/run-spec';
import { expandMatrix, cellKey, wantsControl } from '../../src/schema/matrix';
import type { CellInput, CellOutcome, StepInput } from '../../src/schema/cell';
import type { HostFacts, HostLoss, HostPlacement } from '../../src/schema/host';
import type { ConfirmOutcome, ConfirmPairPlan, FlaggedPair } from '../../src/schema/comparison';
import type {
  ConcurrencyStepInput,
  ConcurrencyStepSummary,
  InsertPoint,
  InsertPointSummary,
} from '../../src/schema/grids';

export interface StubCall {
  activity: string;
  /** `<runId>/<cellKey>` (the cell's workflow id) for cell activities, the run id for matrix activities. */
  key: string;
  args: unknown[];
  attempt: number;
}

export interface Stubs {
  activities: Record<string, (...a: any[]) => Promise<unknown>>;
  calls: StubCall[];
  /** Calls of one cell (`<runId>/<cellKey>`) or run, in order. */
  callsOf(key: string): StubCall[];
  /** Set per test: return an error to make this call fail. `n` counts this activity's calls for this key (1-based). */
  failWith?: (activity: string, key: string, n: number, args: unknown[]) => Error | undefined;
  /** Cell outcomes written per run id (what validateSpec reuses on a resumed or continued run). */
  written: Map<string, CellOutcome[]>;
  /** Pairs the first pass of the comparison flags (default none). */
  flagged: FlaggedPair[];
  /** Whether the confirming re-run confirms what was flagged (default true). */
  confirms: boolean;
  /** Pairs the matrix's own verdicts flag faster/slower in their first pass (default none). */
  verdictFlags: FlaggedPair[];
  /** Failed requests a concurrency step at `clients` reports out of its 100 (default 0). */
  stepErrors?: (clients: number) => number;
  /** What `discoverHosts` returns (default none: cells are not placed). */
  hosts: HostPlacement[];
  /** The host the `n`-th provision of a cell reports (its later steps go to that host's queue); default none. */
  provisionHost?: (cellKey: string, n: number) => HostFacts | undefined;
}

const STUB_LATENCY = { count: 100, p50: 5, p95: 8, p99: 10, max: 12 };

function keyOf(activity: string, args: unknown[]): string {
  const a = args[0] as Partial<StepInput & CellInput & { runId: string }> | string | undefined;
  if (typeof a === 'string') return a;
  // runInterleaved measures two cells: its key is the new side's cell.
  const cell =
    a?.cell ??
    (a as { candidate?: StepInput } | undefined)?.candidate?.cell ??
    (a?.cellKey ? (a as CellInput) : undefined);
  return cell ? `${cell.runId}/${cell.cellKey}` : (a?.runId ?? activity);
}

/** Build the stubs (one set per test file; reset `calls` and `failWith` per test). */
export function stubActivities(): Stubs {
  const stubs: Stubs = {
    activities: {},
    calls: [],
    written: new Map(),
    flagged: [],
    confirms: true,
    verdictFlags: [],
    hosts: [],
    callsOf: (k) => stubs.calls.filter((c) => c.key === k),
  };
  const impl: Record<string, (...a: any[]) => unknown> = {
    provision: (cell: CellInput) => ({
      ...((h) => (h ? { host: h } : {}))(
        stubs.provisionHost?.(
          cell.cellKey,
          stubs.calls.filter((c) => c.activity === 'provision' && c.key === `${cell.runId}/${cell.cellKey}`).length,
        ),
      ),
      target: {
        kind: cell.target.kind,
        url: 'http://127.0.0.1:1',
        database: 'default',
        username: 'default',
        runId: cell.runId,
        cellKey: cell.cellKey,
        provisionedBy: 'stub',
      },
      server: {
        version: cell.version,
        timezone: 'UTC',
        cpus: 1,
        cpu_source: 'stub',
        memory_bytes: null,
        memory_source: 'stub',
        query_log: 'available',
      },
    }),
    collectMetrics: (_si: StepInput, label: string) => ({ file: `metrics-${label}.json` }),
    createSchema: () => ({}),
    loadData: () => ({ rows: 1000, elapsed_ms: 1, rows_per_s: 1e6, partitions: 1, active_parts: 1, reused: false }),
    quiesceMerges: () => ({ active_parts: 1, waited_ms: 0 }),
    afterLoad: () => ({ statements: 1, sent: 1 }),
    storageStats: () => ({}),
    runQueries: (_si: StepInput, phase: string) => ({ phase, file: `queries-${phase}.json`, queries: [] }),
    materializeSkipIndex: () => ({ index: 'idx', materialize_ms: 1, index_bytes: 1, adopted_mutation: false }),
    concurrencyStep: (_si: StepInput, step: ConcurrencyStepInput): ConcurrencyStepSummary => {
      const errors = stubs.stepErrors?.(step.clients) ?? 0;
      return {
        clients: step.clients,
        qps: 10 * step.clients,
        requests: 100,
        errors,
        errorsByCode: errors ? { '241': errors } : {},
        latencyMs: STUB_LATENCY,
        latencySource: 'query_log',
        wallLatencyMs: STUB_LATENCY,
        clientBound: false,
        file: `grids/concurrency-c${step.clients}.json`,
      };
    },
    insertPoint: (_si: StepInput, point: InsertPoint): InsertPointSummary => ({
      key: point.key,
      rowsPerS: 1e5,
      mbPerS: 10,
      latencyMs: STUB_LATENCY,
      inserts: 10,
      errors: 0,
      verified: true,
      clientBound: false,
      file: `grids/insert-${point.key}.json`,
    }),
    writeCellResult: (
      cell: CellInput,
      outcome: { status: CellOutcome['status']; error?: string; hostLosses?: HostLoss[]; hostLost?: boolean },
    ) => {
      const r: CellOutcome = {
        cellKey: cell.cellKey,
        status: outcome.status,
        resultFile: `/stub/${cell.runId}/${cell.cellKey}/result.json`,
        ...(outcome.error ? { error: outcome.error } : {}),
        ...(outcome.hostLosses?.length ? { hostLosses: outcome.hostLosses } : {}),
        ...(outcome.hostLost ? { hostLost: true } : {}),
      };
      stubs.written.set(cell.runId, [
        ...(stubs.written.get(cell.runId) ?? []).filter((o) => o.cellKey !== cell.cellKey),
        r,
      ]);
      return r;
    },
    teardown: () => ({}),
    teardownUnprovisioned: () => ({ torn_down: true }),
    validateSpec: (input: { spec: unknown; runId: string }) => {
      const spec = parseRunSpec(input.spec);
      const cellKeys = expandMatrix(spec, { control: wantsControl(spec) }).map(cellKey);
      return {
        spec,
        cellKeys,
        runDir: `/stub/${input.runId}`,
        reused: stubs.written.get(input.runId) ?? [],
        indexQueries: spec.skipIndex ? ['q5'] : [],
      };
    },
    writeReport: (input: { runId: string }) => ({ reportPath: `/stub/${input.runId}/report.md` }),
    awaitWorkflowClosed: () => ({ status: 'closed' }),
    discoverHosts: () => stubs.hosts,
    storeRun: () => ({ runs: 1, cells: 1, samples: 1, comparisons: 0, verdicts: 0, description: 'stub' }),
    compareWithBaseline: (input: { runId: string }) => ({
      comparisonId: `${input.runId}~baseline`,
      baselineRunId: 'baseline-run',
      verdict: stubs.flagged.length ? 'regression' : 'unchanged',
      flagged: stubs.flagged,
    }),
    planConfirmation: (input: { runId: string; flagged: FlaggedPair[]; prefix?: string }) =>
      input.flagged.map((f, i): ConfirmPairPlan => {
        const cell = (side: string): CellInput => ({
          runId: `${input.runId}.confirm`,
          cellKey: `${input.prefix ?? 'p'}${i + 1}-${side}`,
          version: '26.7',
          codec: 'LZ4',
          workload: 'logs',
          scale: 1000,
          skipIndex: f.queries.some((q) => q.phase === 'index'),
          protocol: parseRunSpec({
            name: 'x',
            workload: 'logs',
            scale: 1,
            target: { kind: 'embedded' },
            matrix: { version: ['26.7'], codec: ['LZ4'] },
          }).protocol,
          target: { kind: 'embedded' } as CellInput['target'],
          teardown: 'always',
          resultsDir: '/stub',
        });
        return {
          pairKey: f.pairKey,
          baseline: cell('baseline'),
          candidate: cell('new'),
          phases: {
            baseline: f.queries.filter((q) => q.phase === 'baseline').map((q) => q.query_id),
            index: f.queries.filter((q) => q.phase === 'index').map((q) => q.query_id),
          },
        };
      }),
    runInterleaved: (input: { phase: 'baseline' | 'index'; queries: string[]; rounds: number }) =>
      input.queries.map((query_id) => ({
        query_id,
        phase: input.phase,
        figure: 'server_elapsed_ms',
        baseline_ms: Array.from({ length: input.rounds }, () => 10),
        new_ms: Array.from({ length: input.rounds }, () => (stubs.confirms ? 20 : 10)),
      })),
    finishComparison: (input: { confirm: ConfirmOutcome[]; confirmError?: string }) => {
      const flagged = stubs.flagged.flatMap((f) =>
        f.queries.map((q) => `${q.query_id.toUpperCase()}${q.phase === 'index' ? '@index' : ''}`),
      );
      const confirmed = input.confirm.some((c) => c.samples.some((x) => x.new_ms[0] > x.baseline_ms[0])) ? flagged : [];
      return { verdict: confirmed.length ? 'regression' : 'unchanged', flagged, confirmed };
    },
    // The matrix's own verdicts (a comparing matrix): nothing flagged, so no re-run; the Decision in one line.
    judgeVerdicts: () => ({
      warm: stubs.verdictFlags,
      cold: [],
      summary: { decision: 'stub decision', control: 'A/A control moves 0 of 0', counts: {} },
    }),
    finishVerdicts: (input: { confirm: ConfirmOutcome[]; notRun: Record<string, string> }) => ({
      decision: `stub decision: ${input.confirm.length} pair(s) re-run, ${Object.keys(input.notRun).length} not`,
      control: 'A/A control moves 0 of 0',
      counts: {},
    }),
    collectCloudMetrics: () => ({
      collected: [],
      skipped: [],
      windows: 0,
      unattributable: 0,
      partial: 0,
      waitedMs: 0,
      runTotalUsd: null,
    }),
  };
  // The verdicts' re-run is planned as a baseline comparison's is, with its own keys (`v1-baseline`, …).
  impl.planVerdictConfirmation = (input: { runId: string; flagged: FlaggedPair[]; prefix: string }) =>
    impl.planConfirmation!(input);
  for (const [name, fn] of Object.entries(impl))
    stubs.activities[name] = async (...args: unknown[]) => {
      const key = keyOf(name, args);
      const attempt = Context.current().info.attempt;
      stubs.calls.push({ activity: name, key, args, attempt });
      const n = stubs.calls.filter((c) => c.activity === name && c.key === key).length;
      const err = stubs.failWith?.(name, key, n, args);
      if (err) throw err;
      const r = (await fn(...args)) as object;
      // Cell steps report the attempt that produced them (as cellActivity does).
      return name === 'writeCellResult' ||
        name === 'validateSpec' ||
        name === 'writeReport' ||
        name === 'awaitWorkflowClosed' ||
        name === 'discoverHosts' ||
        name === 'collectCloudMetrics' ||
        [
          'storeRun',
          'compareWithBaseline',
          'planConfirmation',
          'runInterleaved',
          'finishComparison',
          'judgeVerdicts',
          'planVerdictConfirmation',
          'finishVerdicts',
        ].includes(name) ||
        name.startsWith('teardown')
        ? r
        : { ...r, attempt };
    };
  return stubs;
}
