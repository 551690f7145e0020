/**
 * How often the matrix's verdicts are right, from real cells of this host (`npm run bench:verdicts`),
 * written to `bench/results/verdicts.json` beside the rule they replace.
 *
 * 1. Real cells, through the real workflow (a dev server and a worker in this process):
 *    - `pool`: one setup (embedded 26.7, LZ4, the `logs` workload without its skip index) repeated
 *      {@link POOL_CELLS} times (`matrix.repeat`), each cell 15 warm and 5 cold runs per query: the same
 *      setup on as many server starts;
 *    - `planted`: a settings profile with `max_threads: 1` against the default (a real slowdown of the full
 *      scans on this 2-core host), judged by the shipped workflow: verdicts, A/A control cell, interleaved re-run.
 * 2. Resampling the pool's real runs (seeded): a trial is an A/A matrix — a reference cell, its A/A control
 *    cell and three "new" cells, all the same setup, each side 7 warm and 3 cold runs drawn from its cell —
 *    judged by `judgeMatrix`, its faster/slower comparisons re-run on two further cells (10 rounds per side)
 *    through `applyVerdictConfirmation`. Planted trials multiply the new cells' (and their re-run's) times
 *    by 1.1 or 1.3. The previous rule (the versions view: a warm min ≥ 1.2× apart and outside the other
 *    cell's range of 3 warm runs; one cold run ≥ 1.2× apart) is judged on the same draws.
 *
 * Rows: `{ method: chbench | previous, kind: aa | planted, size, phase, metric, value, n }`; metrics
 * `false_verdicts` (A/A comparisons published faster/slower), `aa_runs_with_false` (A/A matrices with any),
 * `found` (planted comparisons published slower; at 1.1 only queries whose warm CV ≤ 5 %), `coverage`
 * (A/A 95 % intervals that hold 1), `decisive` (A/A comparisons of stable queries that end faster, slower or
 * unchanged). Goals (issue "Verdicts that hold") are printed beside each figure.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import seedrandom from 'seedrandom';
import { REPO_ROOT } from '../src/config';
import { startDemoEnv } from '../demos/env';
import { newRunId, runAndFollow } from '../src/temporal/run-client';
import { verdictInputOf } from '../src/results/verdict-cells';
import { readRecord } from '../src/results/store';
import {
  applyVerdictConfirmation,
  controlNoiseOf,
  judgeMatrix,
  interleavedControlKey,
  rerunPairs,
  type VerdictCell,
} from '../src/measure/verdicts';
import { confirmationPlans } from '../src/measure/confirmation';
import { compareSamples } from '../src/measure/compare';
import { judgeStep } from '../src/schema/bisect';
import { confirmComparison } from '../src/workflows/confirm-comparison';
import { VERDICT_DEFAULTS, VerdictsRecord } from '../src/schema/verdicts';
import type { MatrixAxes } from '../src/schema/matrix';
import type { ConfirmOutcome, ConfirmQuerySamples } from '../src/schema/comparison';

const POOL_CELLS = Number(process.env.VERDICTS_BENCH_CELLS ?? 8);
const SCALE = Number(process.env.VERDICTS_BENCH_SCALE ?? 1_000_000);
const TRIALS = Number(process.env.VERDICTS_BENCH_TRIALS ?? 100);
const WARM = 7;
const COLD = 3;
const ROUNDS = VERDICT_DEFAULTS.confirmRounds;
const NEW_CELLS = 3;
const SKIP_PLANTED = process.env.VERDICTS_BENCH_SKIP_PLANTED === '1';
/** Interleaved A/A pairs of the pool's setup, and their rounds per pair (warm, cold). */
const INTERLEAVED_PAIRS = Number(process.env.VERDICTS_BENCH_INTERLEAVED_PAIRS ?? 8);
const INTERLEAVED_ROUNDS = { warm: 25, cold: 20 };
// The default scale writes verdicts.json; another scale its own file (verdicts-5m.json), so both stay.
const resultsFile = path.join(
  REPO_ROOT,
  'bench',
  'results',
  SCALE === 1_000_000 ? 'verdicts.json' : `verdicts-${SCALE / 1_000_000}m.json`,
);
const INTERLEAVED_FILE = path.join(
  REPO_ROOT,
  'bench',
  'results',
  SCALE === 1_000_000 ? 'interleaved-aa.json' : `interleaved-aa-${SCALE / 1_000_000}m.json`,
);

/** One interleaved A/A pair of the pool's setup: per kind of run and query, both sides' rounds (ms). */
type InterleavedPair = Record<'warm' | 'cold', Record<string, { a: number[]; b: number[] }>>;

/** One figure of the results file. */
interface Row {
  /**
   * `single`: one cell per setup and an A/A control cell (the default); `repeat3`: `matrix.repeat: 3`;
   * `bisect-rerun`: a time bisect's interleaved re-run, which decides a step (`judgeStep` over `compareSamples`,
   * `minChange` 10 %), on the interleaved A/A pool's real pairs at 10 and 20 rounds.
   */
  design: 'single' | 'repeat3' | 'bisect-rerun';
  method: 'chbench' | 'previous';
  kind: 'aa' | 'planted';
  size: number;
  phase: 'warm' | 'cold' | 'all';
  metric: 'false_verdicts' | 'aa_runs_with_false' | 'found' | 'coverage' | 'decisive';
  value: number;
  n: number;
  goal?: string;
  note?: string;
}

const baseSpec = (name: string) => ({
  name,
  workload: 'logs',
  scale: SCALE,
  target: { kind: 'embedded' },
  skipIndex: false,
  concurrency: 1,
  teardown: 'always',
});

/** Draw `k` of `xs` without replacement (seeded). */
function draw<T>(rng: () => number, xs: readonly T[], k: number): T[] {
  const pool = [...xs];
  const out: T[] = [];
  while (out.length < k && pool.length) out.push(pool.splice(Math.floor(rng() * pool.length), 1)[0]!);
  return out;
}

/** A pool cell re-drawn as a trial's cell: `warm` and `cold` runs per query drawn from its own, times multiplied by `factor`. */
function redraw(
  rng: () => number,
  c: VerdictCell,
  key: string,
  coords: Partial<VerdictCell['coords']>,
  factor: number,
  warm = WARM,
  cold = COLD,
): VerdictCell {
  const queries: VerdictCell['queries'] = {};
  for (const [q, v] of Object.entries(c.queries)) {
    const pick = (r: (typeof v)['warm'], k: number) => {
      const idx = draw(
        rng,
        r.wall.map((_, i) => i),
        k,
      );
      return {
        server: idx.map((i) => (r.server[i] === null ? null : r.server[i]! * factor)),
        wall: idx.map((i) => r.wall[i]! * factor),
        readRows: r.readRows,
      };
    };
    queries[q] = { ...v, warm: pick(v.warm, warm), cold: pick(v.cold, cold) };
  }
  return { ...c, key, coords: { ...c.coords, ...coords }, queries };
}

/**
 * The re-run's samples, as the workflow plans them (`verdictsToConfirm` with the interleaved A/A control first,
 * `withInterleavedControl`; warm pairs first, up to `confirmPairs` pairs in all): `ROUNDS` rounds per side of
 * each query, drawn from a real interleaved A/A pair of the pool's setup (its own two server starts, measured
 * A, B, A, B …), one pool pair per re-run pair; the new side's times × `factor` (the A/A pair's: × 1).
 */
function rerunOf(
  rng: () => number,
  interleaved: readonly InterleavedPair[],
  factor: number,
  record: VerdictsRecord,
): ConfirmOutcome[] {
  const out: ConfirmOutcome[] = [];
  let budget = VERDICT_DEFAULTS.confirmPairs;
  const aaKey = interleavedControlKey(record);
  const planned = rerunPairs(record, 'bench', { remeasure: true });
  for (const kind of ['warm', 'cold'] as const) {
    const pairs = planned[kind].slice(0, Math.max(0, budget));
    budget -= pairs.length;
    const drawn = draw(rng, interleaved, pairs.length);
    pairs.forEach((f, i) => {
      const pool = drawn[i % drawn.length]![kind];
      const fac = f.pairKey === aaKey ? 1 : factor;
      out.push({
        pairKey: f.pairKey,
        samples: f.queries.map((q): ConfirmQuerySamples => {
          const r = pool[q.query_id]!;
          const idx = draw(
            rng,
            r.a.map((_, j) => j),
            ROUNDS,
          );
          return {
            query_id: q.query_id,
            phase: 'baseline',
            figure: 'server_elapsed_ms',
            ...(kind === 'cold' ? { kind: 'cold' as const } : {}),
            baseline_ms: idx.map((j) => r.a[j]!),
            new_ms: idx.map((j) => r.b[j]! * fac),
          };
        }),
      });
    });
  }
  return out;
}

/**
 * The interleaved A/A pool: `INTERLEAVED_PAIRS` pairs of the pool run's setup (its cells r1 and r2 re-keyed
 * onto fresh cells, as the re-run plans them), each measured interleaved through the real `confirmComparison`
 * workflow — warm runs, then cold runs on their own pairs. Written to `bench/results/interleaved-aa.json`
 * (`VERDICTS_BENCH_INTERLEAVED=reuse` reads that file instead).
 */
async function interleavedPool(
  env: Awaited<ReturnType<typeof startDemoEnv>>,
  poolRun: string,
): Promise<{ run: string; pairs: InterleavedPair[] }> {
  if (process.env.VERDICTS_BENCH_INTERLEAVED === 'reuse') {
    const f = JSON.parse(readFileSync(INTERLEAVED_FILE, 'utf8')) as { run: string; pairs: InterleavedPair[] };
    return f;
  }
  const resultsDir = path.join(REPO_ROOT, 'results');
  const spec = readFileSync(path.join(resultsDir, poolRun, 'run-spec.json'), 'utf8');
  const cells = verdictInputOf(path.join(resultsDir, poolRun)).cells;
  const [a, b] = cells.map((c) => c.key);
  const queries = Object.keys(cells[0]!.queries);
  const run = newRunId('verdicts-interleaved');
  const pairs: InterleavedPair[] = Array.from({ length: INTERLEAVED_PAIRS }, () => ({ warm: {}, cold: {} }));
  for (const kind of ['warm', 'cold'] as const) {
    const flagged = pairs.map((_, i) => ({
      pairKey: `aa${i + 1}`,
      baselineCell: { runId: poolRun, cellKey: a! },
      newCell: { runId: poolRun, cellKey: b! },
      queries: queries.map((q) => ({ query_id: q, phase: 'baseline' as const })),
    }));
    const plans = await confirmationPlans(flagged, { runId: `${run}-${kind}`, resultsDir }, async () => spec, kind[0]);
    const t0 = Date.now();
    const outcomes: ConfirmOutcome[] = await env.client.workflow.execute(confirmComparison, {
      taskQueue: env.cfg.taskQueue,
      workflowId: `${run}-${kind}`,
      args: [{ pairs: plans, rounds: INTERLEAVED_ROUNDS[kind], kind }],
    });
    console.log(
      `interleaved A/A pool (${kind}): ${outcomes.length} pairs in ${Math.round((Date.now() - t0) / 1000)} s`,
    );
    outcomes.forEach((o, i) => {
      if (o.error) throw new Error(`interleaved A/A pair ${o.pairKey} failed: ${o.error}`);
      for (const x of o.samples) pairs[i]![kind][x.query_id] = { a: x.baseline_ms, b: x.new_ms };
    });
  }
  writeFileSync(INTERLEAVED_FILE, JSON.stringify({ run, pool: poolRun, rounds: INTERLEAVED_ROUNDS, pairs }) + '\n');
  return { run, pairs };
}

/**
 * The bisect's re-run on identical setups: each interleaved A/A pair's queries (warm, cold), its first 10 and 20
 * rounds compared as a bisect step's re-run compares them (`compareSamples` with the bisect's defaults, then
 * `judgeStep`). Any `slower` / `faster` is a false verdict that decides a step.
 */
function bisectRerunRows(pairs: readonly InterleavedPair[]): Row[] {
  return (['warm', 'cold'] as const).flatMap((kind) => {
    let n = 0;
    let moved = 0;
    let unchanged = 0;
    for (const p of pairs)
      for (const r of Object.values(p[kind]))
        for (const rounds of [10, 20]) {
          const c = compareSamples(r.a.slice(0, rounds), r.b.slice(0, rounds), {
            minChange: 0.1,
            unstableAbove: 0.3,
            minRuns: 7,
          });
          const v = judgeStep(c, { from: 're-run' }).verdict;
          n++;
          moved += v === 'slower' || v === 'faster' ? 1 : 0;
          unchanged += v === 'unchanged' ? 1 : 0;
        }
    const row = {
      design: 'bisect-rerun' as const,
      method: 'chbench' as const,
      kind: 'aa' as const,
      size: 1,
      phase: kind,
    };
    return [
      { ...row, metric: 'false_verdicts' as const, value: n ? moved / n : 0, n, goal: '≤ 0.01' },
      {
        ...row,
        metric: 'decisive' as const,
        value: n ? unchanged / n : 0,
        n,
        note: 'unchanged inside the band (the re-run alone, minChange 10 %); the rest inconclusive',
      },
    ];
  });
}

/** Per query and kind of run, the SD of the interleaved pairs' log ratios of medians (between starts and within, together). */
function interleavedSpread(pairs: readonly InterleavedPair[]): Record<string, { warm: number; cold: number }> {
  const med = (xs: number[]) => [...xs].sort((x, y) => x - y)[xs.length >> 1]!;
  const sd = (xs: number[]) => {
    const m = xs.reduce((x, y) => x + y, 0) / xs.length;
    return Math.sqrt(xs.reduce((x, y) => x + (y - m) ** 2, 0) / (xs.length - 1));
  };
  const of = (q: string, k: 'warm' | 'cold') =>
    Number(sd(pairs.map((p) => Math.log(med(p[k][q]!.b) / med(p[k][q]!.a)))).toFixed(4));
  return Object.fromEntries(Object.keys(pairs[0]!.warm).map((q) => [q, { warm: of(q, 'warm'), cold: of(q, 'cold') }]));
}

/**
 * The previous rule on the same draws (the versions view's `TIME_MOVED`): warm min ≥ 1.2× apart and outside
 * the other cell's range of its 3 warm runs; one cold run ≥ 1.2× apart. @returns the direction, or null: not moved.
 */
function previousMoved(a: VerdictCell, b: VerdictCell, q: string, phase: 'warm' | 'cold'): 'slower' | 'faster' | null {
  const fig = (c: VerdictCell) => c.queries[q]![phase].wall;
  if (phase === 'cold') {
    const r = fig(b)[0]! / fig(a)[0]!;
    return r >= 1.2 ? 'slower' : 1 / r >= 1.2 ? 'faster' : null;
  }
  const xa = fig(a).slice(0, 3);
  const xb = fig(b).slice(0, 3);
  const [mina, maxa, minb, maxb] = [Math.min(...xa), Math.max(...xa), Math.min(...xb), Math.max(...xb)];
  const r = minb / mina;
  if (r >= 1.2 && minb > maxa) return 'slower';
  if (1 / r >= 1.2 && maxb < mina) return 'faster';
  return null;
}

const cvOf = (xs: readonly number[]) => {
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  return Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1)) / m;
};

function resample(pool: VerdictCell[], interleaved: readonly InterleavedPair[], rows: Row[]): void {
  const queries = Object.keys(pool[0]!.queries);
  const cv = Object.fromEntries(
    queries.map((q) => [q, pool.map((c) => cvOf(c.queries[q]!.warm.wall)).reduce((a, b) => a + b, 0) / pool.length]),
  );
  const stable = new Set(queries.filter((q) => cv[q]! <= 0.05));
  console.log(
    `warm CV per query (mean over ${pool.length} cells): ${queries.map((q) => `${q} ${(cv[q]! * 100).toFixed(1)} %`).join(', ')}; stable (≤ 5 %): ${[...stable].join(', ') || 'none'}`,
  );
  for (const design of ['single', 'repeat3'] as const) resampleDesign(pool, interleaved, rows, design, stable);
}

/** Per query and phase, the relative SD of the cells' medians across the pool: the between-server-start spread of one setup. */
function poolSpread(pool: VerdictCell[]): Record<string, { warm: number; cold: number }> {
  const sd = (xs: number[]) => {
    const m = xs.reduce((a, b) => a + b, 0) / xs.length;
    return Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1));
  };
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
  return Object.fromEntries(
    Object.keys(pool[0]!.queries).map((q) => [
      q,
      {
        warm: Number(sd(pool.map((c) => Math.log(med(c.queries[q]!.warm.wall)))).toFixed(4)),
        cold: Number(sd(pool.map((c) => Math.log(med(c.queries[q]!.cold.wall)))).toFixed(4)),
      },
    ]),
  );
}

/**
 * One design's trials: `single` — a reference, its A/A control cell and three new cells (one server start per
 * setup, the default); `repeat3` — `matrix.repeat: 3`, three cells per setup, the setups compared over their
 * repetitions. Both re-run their faster/slower comparisons on two further pool cells.
 */
function resampleDesign(
  pool: VerdictCell[],
  interleaved: readonly InterleavedPair[],
  rows: Row[],
  design: 'single' | 'repeat3',
  stable: Set<string>,
): void {
  const axes: MatrixAxes = {
    versions: design === 'single' ? ['1', '2', '3', '4'] : ['1', '2'],
    codecs: ['LZ4'],
    profiles: [],
    defaults: ['shipped'],
    repeat: design === 'single' ? 1 : 3,
  };
  const push = (...rs: Omit<Row, 'design'>[]) =>
    rows.push(...rs.filter((r) => design === 'single' || r.method === 'chbench').map((r) => ({ design, ...r })));
  for (const size of [1, 1.1, 1.3]) {
    const kind = size === 1 ? 'aa' : 'planted';
    const tally = {
      cw: [0, 0],
      cc: [0, 0],
      pw: [0, 0],
      pc: [0, 0],
      cov: [0, 0],
      dec: [0, 0],
      decAll: [0, 0],
      runsAny: 0,
      prevRunsAny: 0,
    };
    for (let t = 0; t < TRIALS; t++) {
      const rng = seedrandom(`verdicts-bench:${design}:${size}:${t}`);
      const picked = draw(rng, pool, 6);
      let cells: VerdictCell[];
      if (design === 'single') {
        const [ref, control, ...rest] = picked;
        const news = rest.slice(0, NEW_CELLS);
        cells = [
          redraw(rng, ref!, 'v1-lz4', { version: '1', repetition: 1 }, 1),
          ...news.map((c, i) => redraw(rng, c, `v${i + 2}-lz4`, { version: String(i + 2), repetition: 1 }, size)),
          redraw(rng, control!, 'v1-lz4-r2', { version: '1', repetition: 2 }, 1),
        ];
      } else {
        cells = [
          ...picked
            .slice(0, 3)
            .map((c, i) => redraw(rng, c, `v1-lz4-r${i + 1}`, { version: '1', repetition: i + 1 }, 1)),
          ...picked
            .slice(3, 6)
            .map((c, i) => redraw(rng, c, `v2-lz4-r${i + 1}`, { version: '2', repetition: i + 1 }, size)),
        ];
      }
      const first = judgeMatrix({ runId: 'bench', cells, axes, options: VERDICT_DEFAULTS, createdAt: 'bench' });
      const final = applyVerdictConfirmation(
        first,
        rerunOf(rng, interleaved, size, first),
        {},
        controlNoiseOf(cells, axes),
      );
      let any = false;
      let prevAny = false;
      for (const e of final.entries) {
        if (e.axis !== 'version' || (e.phase !== 'warm' && e.phase !== 'cold')) continue;
        const published = e.verdict === 'faster' || e.verdict === 'slower';
        const right = e.verdict === 'slower';
        const moved = previousMoved(
          cells[0]!,
          cells.find((c) => c.key === e.cell)!,
          e.query!,
          e.phase,
        );
        const prev = moved !== null;
        const prevRight = moved === 'slower';
        const counts = e.phase === 'warm' ? tally.cw : tally.cc;
        const pcounts = e.phase === 'warm' ? tally.pw : tally.pc;
        if (size === 1) {
          counts[0] += published ? 1 : 0;
          pcounts[0] += prev ? 1 : 0;
          any ||= published;
          prevAny ||= prev;
          const f = first.entries.find(
            (x) => x.cell === e.cell && x.query === e.query && x.phase === e.phase && x.axis === 'version',
          )!;
          if (f.low !== null && f.high !== null && f.confirmed === null) {
            tally.cov[0] += f.low <= 1 && f.high >= 1 ? 1 : 0;
            tally.cov[1]++;
          }
          if (e.phase === 'warm' && stable.has(e.query!)) {
            tally.dec[0] += ['faster', 'slower', 'unchanged'].includes(e.verdict) ? 1 : 0;
            tally.dec[1]++;
          }
          if (e.phase === 'warm') {
            tally.decAll[0] += ['faster', 'slower', 'unchanged'].includes(e.verdict) ? 1 : 0;
            tally.decAll[1]++;
          }
        } else if (size > 1.15 || stable.has(e.query!)) {
          counts[0] += right && e.confirmed ? 1 : 0;
          pcounts[0] += prevRight ? 1 : 0;
        } else continue;
        counts[1]++;
        pcounts[1]++;
      }
      tally.runsAny += any ? 1 : 0;
      tally.prevRunsAny += prevAny ? 1 : 0;
    }
    const share = ([a, b]: number[]) => (b ? a! / b : 0);
    if (size === 1) {
      push(
        {
          method: 'chbench',
          kind,
          size,
          phase: 'warm',
          metric: 'false_verdicts',
          value: share(tally.cw),
          n: tally.cw[1]!,
          goal: '≤ 0.01',
        },
        {
          method: 'chbench',
          kind,
          size,
          phase: 'cold',
          metric: 'false_verdicts',
          value: share(tally.cc),
          n: tally.cc[1]!,
          goal: '≤ 0.01',
        },
        {
          method: 'previous',
          kind,
          size,
          phase: 'warm',
          metric: 'false_verdicts',
          value: share(tally.pw),
          n: tally.pw[1]!,
        },
        {
          method: 'previous',
          kind,
          size,
          phase: 'cold',
          metric: 'false_verdicts',
          value: share(tally.pc),
          n: tally.pc[1]!,
        },
        {
          method: 'chbench',
          kind,
          size,
          phase: 'all',
          metric: 'aa_runs_with_false',
          value: tally.runsAny / TRIALS,
          n: TRIALS,
        },
        {
          method: 'previous',
          kind,
          size,
          phase: 'all',
          metric: 'aa_runs_with_false',
          value: tally.prevRunsAny / TRIALS,
          n: TRIALS,
        },
        {
          method: 'chbench',
          kind,
          size,
          phase: 'all',
          metric: 'coverage',
          value: share(tally.cov),
          n: tally.cov[1]!,
          goal: '≥ 0.93',
          note: 'first-pass 95 % intervals not selected as faster/slower (those are widened)',
        },
        {
          method: 'chbench',
          kind,
          size,
          phase: 'warm',
          metric: 'decisive',
          value: share(tally.dec),
          n: tally.dec[1]!,
          goal: '≥ 0.90',
          note: `queries with warm CV ≤ 5 %: ${[...stable].join(', ') || 'none'}; ${WARM} warm runs per side, no adaptive runs`,
        },
        {
          method: 'chbench',
          kind,
          size,
          phase: 'warm',
          metric: 'decisive',
          value: share(tally.decAll),
          n: tally.decAll[1]!,
          note: 'every query, whatever its noise',
        },
      );
    } else {
      const goal = size === 1.3 ? '≥ 0.95' : '≥ 0.80 (warm CV ≤ 5 %)';
      push(
        {
          method: 'chbench',
          kind,
          size,
          phase: 'warm',
          metric: 'found',
          value: share(tally.cw),
          n: tally.cw[1]!,
          goal,
        },
        { method: 'chbench', kind, size, phase: 'cold', metric: 'found', value: share(tally.cc), n: tally.cc[1]! },
        { method: 'previous', kind, size, phase: 'warm', metric: 'found', value: share(tally.pw), n: tally.pw[1]! },
        { method: 'previous', kind, size, phase: 'cold', metric: 'found', value: share(tally.pc), n: tally.pc[1]! },
      );
    }
  }
}

/** The planted case through the shipped workflow: `max_threads: 1` against the default on one engine. */
async function plantedCase(env: Awaited<ReturnType<typeof startDemoEnv>>): Promise<Record<string, unknown>> {
  const plantedRun = newRunId('verdicts-planted');
  const p = await runAndFollow(
    env.client,
    {
      ...baseSpec('verdicts-planted'),
      matrix: {
        version: ['26.7'],
        codec: ['LZ4'],
        settings: [
          { name: 'default', query: {} },
          { name: 'threads1', query: { max_threads: 1 } },
        ],
      },
      protocol: { coldRuns: 3, warmRuns: 7 },
    },
    plantedRun,
    env.cfg.taskQueue,
    { progress: true },
  );
  const rec = readRecord(path.join(path.dirname(p.reportPath), 'verdicts.json'), VerdictsRecord);
  const q3 = rec.entries.find((e) => e.axis === 'profile' && e.query === 'q3' && e.phase === 'warm');
  const planted = {
    run: plantedRun,
    decision: p.verdicts?.decision,
    control: p.verdicts?.control,
    q3_warm: q3
      ? { verdict: q3.verdict, confirmed: q3.confirmed, ratio: q3.ratio, low: q3.low, high: q3.high, rerun: q3.rerun }
      : null,
    profile_verdicts: rec.entries
      .filter((e) => e.axis === 'profile' && e.phase !== 'disk')
      .map(
        (e) =>
          `${e.query ?? 'ingest'} ${e.phase} ${e.verdict}${e.confirmed ? ' (confirmed)' : ''} ${e.ratio?.toFixed(3) ?? 'n/a'}`,
      ),
  };
  console.log(
    `planted (max_threads 1): q3 warm ${q3?.verdict} confirmed ${q3?.confirmed} ratio ${q3?.ratio?.toFixed(3)}; ${p.verdicts?.control}`,
  );
  return planted;
}

async function main(): Promise<void> {
  const t0 = Date.now();
  const env = await startDemoEnv('verdicts bench');
  const rows: Row[] = [];
  let planted: Record<string, unknown> | undefined;
  let poolRun: string | undefined;
  let spread: Record<string, { warm: number; cold: number }> | undefined;
  let inter: { run: string; pairs: InterleavedPair[] } | undefined;
  try {
    // 1a. The pool: one setup on POOL_CELLS server starts (VERDICTS_BENCH_POOL=<run id> reuses a stored pool run of this results dir).
    const reuse = process.env.VERDICTS_BENCH_POOL;
    poolRun = reuse ?? newRunId('verdicts-pool');
    const poolDir = reuse
      ? path.join(REPO_ROOT, 'results', reuse)
      : path.dirname(
          (
            await runAndFollow(
              env.client,
              {
                ...baseSpec('verdicts-pool'),
                matrix: { version: ['26.7'], codec: ['LZ4'], repeat: POOL_CELLS },
                protocol: { coldRuns: 5, warmRuns: 15 },
              },
              poolRun,
              env.cfg.taskQueue,
              { progress: true },
            )
          ).reportPath,
        );
    const cells = verdictInputOf(poolDir).cells.filter((c) => c.status === 'succeeded');
    console.log(`pool: ${cells.length} of ${POOL_CELLS} cells succeeded (${poolRun}${reuse ? ', reused' : ''})`);
    // 1b. A planted slowdown through the shipped workflow: max_threads 1 against the default
    // (VERDICTS_BENCH_SKIP_PLANTED=1 leaves it out and writes no file: for trying the method on a reused pool).
    // (VERDICTS_BENCH_PLANTED=reuse keeps the planted case of the results file already written: for re-running
    // the resampling alone on reused pools.)
    if (process.env.VERDICTS_BENCH_PLANTED === 'reuse')
      planted = (JSON.parse(readFileSync(resultsFile, 'utf8')) as { planted_real: Record<string, unknown> })
        .planted_real;
    else if (!SKIP_PLANTED) planted = await plantedCase(env);
    // 1c. The same setup measured interleaved: A/A pairs of fresh cells through the real re-run workflow.
    inter = await interleavedPool(env, poolRun);
    // 2. Resampling the pool's real runs.
    spread = poolSpread(cells);
    console.log(`between-start spread of the pool's cell medians (log SD): ${JSON.stringify(spread)}`);
    console.log(`interleaved A/A pairs' log-ratio spread (SD): ${JSON.stringify(interleavedSpread(inter.pairs))}`);
    resample(cells, inter.pairs, rows);
    rows.push(...bisectRerunRows(inter.pairs));
  } finally {
    await env.stop();
  }
  const out = {
    generated_by: 'npm run bench:verdicts',
    host: 'this machine (2 cores); embedded engine 26.7 (npm chdb), logs workload',
    scale: SCALE,
    pool: { run: poolRun, cells: POOL_CELLS, warm_runs: 15, cold_runs: 5 },
    trials: TRIALS,
    per_trial: `a reference, its A/A control and ${NEW_CELLS} new cells (${WARM} warm, ${COLD} cold runs per side drawn from a pool cell); the re-run (the interleaved A/A control first, then faster/slower to confirm and inconclusive ones measured again: the adaptive step, up to ${VERDICT_DEFAULTS.confirmPairs} pairs) ${ROUNDS} rounds per side drawn from a real interleaved A/A pair each`,
    options: VERDICT_DEFAULTS,
    seconds: Math.round((Date.now() - t0) / 1000),
    between_start_spread: spread,
    interleaved_pool: inter && {
      run: inter.run,
      pairs: inter.pairs.length,
      rounds: INTERLEAVED_ROUNDS,
      file: path.relative(REPO_ROOT, INTERLEAVED_FILE),
      note: 'SD of the log ratio of medians over the pairs (both server starts and the runs within, together): compare with between_start_spread, the SD of one start measured sequentially',
      spread: interleavedSpread(inter.pairs),
    },
    planted_real: planted,
    rows,
  };
  const file = resultsFile;
  if (!SKIP_PLANTED) {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify(out, null, 2) + '\n');
  }
  for (const r of rows)
    console.log(
      `${r.design.padEnd(7)} ${r.method.padEnd(8)} ${r.kind.padEnd(7)} ${String(r.size).padEnd(4)} ${r.phase.padEnd(4)} ${r.metric.padEnd(18)} ${r.value.toFixed(3)} (n ${r.n})${r.goal ? `  goal ${r.goal}` : ''}`,
    );
  console.log(`verdicts bench: ${SKIP_PLANTED ? 'no file written (VERDICTS_BENCH_SKIP_PLANTED)' : file}`);
}

main().catch((e) => {
  console.error(`verdicts bench failed: ${(e as Error).stack ?? e}`);
  process.exit(1);
});
