"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.ComparisonRecord = exports.COMPARISON_SCHEMA = exports.CellPair = exports.QueryComparison = exports.ComparedFigure = exports.RunVerdict = exports.Verdict = void 0;
/**
 * A comparison of a run with its baseline: the record `comparison.json` in the run's results folder
 * and the rows of the results database's `comparisons` / `comparison_queries` tables.
 *
 * Method (see `src/measure/compare.ts`): per query, the valid warm runs of each side; the ratio of
 * medians new/baseline with a percentile-bootstrap 95 % confidence interval (seeded, so a record can
 * be recomputed); the query's noise threshold learned from the baseline's own run-to-run variation
 * (random half-splits of the baseline's warm runs: the 95th percentile of |log ratio of medians|),
 * floored at `minChange`. A flagged query is measured again, interleaved A, B, A, B … on fresh cells
 * (the confirming re-run), and only what the re-run confirms stays flagged.
 */
const zod_1 = require("zod");
/** A query's verdict. `unstable`: the baseline's own noise is above `unstableAbove`, or too few valid samples on a side. */
exports.Verdict = zod_1.z.enum(['regression', 'improvement', 'unchanged', 'unstable']);
/** The run's overall verdict (the `ChbenchVerdict` search attribute): regression wins over improvement; `none` = no baseline. */
exports.RunVerdict = zod_1.z.enum(['regression', 'improvement', 'unchanged', 'unstable', 'no-baseline']);
/** Which figure a side's samples are: server-side elapsed (ms) when both sides have it for every kept run, else client wall time (ms). */
exports.ComparedFigure = zod_1.z.enum(['server_elapsed_ms', 'wall_ms']);
/** The statistics of one query on one pair of cells. Times in ms; ratio = new / baseline. */
exports.QueryComparison = zod_1.z.object({
    /** `Q1` … as in the workload; `phase` tells before (`baseline`) or after (`index`) the skip index. */
    query_id: zod_1.z.string(),
    phase: zod_1.z.enum(['baseline', 'index']),
    figure: exports.ComparedFigure,
    /** Valid warm runs kept on each side (invalid runs, warm-ups and cold runs are left out). */
    n_baseline: zod_1.z.int(),
    n_new: zod_1.z.int(),
    median_baseline_ms: zod_1.z.number().nullable(),
    median_new_ms: zod_1.z.number().nullable(),
    /** median(new) / median(baseline). */
    ratio: zod_1.z.number().nullable(),
    /** 95 % percentile-bootstrap interval of the ratio of medians. */
    ci_low: zod_1.z.number().nullable(),
    ci_high: zod_1.z.number().nullable(),
    /** Noise threshold as a relative change (0.1 = 10 %), learned from the baseline's warm runs, at least `minChange`. */
    threshold: zod_1.z.number().nullable(),
    verdict: exports.Verdict,
    /** Why, in words: e.g. "CI 1.82–2.10 above 1 + threshold 0.12". */
    reason: zod_1.z.string(),
    /** The confirming re-run (interleaved on fresh cells), when this query was flagged. */
    confirm: zod_1.z
        .object({
        rounds: zod_1.z.int(),
        n_baseline: zod_1.z.int(),
        n_new: zod_1.z.int(),
        ratio: zod_1.z.number().nullable(),
        ci_low: zod_1.z.number().nullable(),
        ci_high: zod_1.z.number().nullable(),
        threshold: zod_1.z.number().nullable(),
        verdict: exports.Verdict,
        /** True when the re-run's verdict is the first pass's (same direction). */
        confirmed: zod_1.z.boolean(),
        reason: zod_1.z.string(),
    })
        .optional(),
    /** The final verdict: the first pass's when not flagged, else the first pass's only if the re-run confirmed it (`unchanged` otherwise). */
    final: exports.Verdict,
});
/** Two cells paired for comparison: same workload, scale and codec (and version label when that alone is ambiguous). */
exports.CellPair = zod_1.z.object({
    /** `<baseline cell>→<new cell>`. */
    pair_key: zod_1.z.string(),
    baseline_run: zod_1.z.string(),
    baseline_cell: zod_1.z.string(),
    new_run: zod_1.z.string(),
    new_cell: zod_1.z.string(),
    /** What differs between the two cells' declared setup (version, server version, settings …), in words. */
    differences: zod_1.z.array(zod_1.z.string()),
    queries: zod_1.z.array(exports.QueryComparison),
});
exports.COMPARISON_SCHEMA = 'chbench.comparison/v1';
/** `comparison.json`. */
exports.ComparisonRecord = zod_1.z.object({
    schema: zod_1.z.literal(exports.COMPARISON_SCHEMA),
    comparison_id: zod_1.z.string(),
    run_id: zod_1.z.string(),
    baseline_run_id: zod_1.z.string(),
    /** How the baseline was chosen, e.g. `run <id>`, `previous successful run of schedule <id>`, `version 24.8 in this matrix`. */
    baseline_chosen_by: zod_1.z.string(),
    /** e.g. "ratio of medians, percentile bootstrap 2000 resamples, 95 % CI; threshold: 95th pct of |log ratio| over 200 random half-splits of the baseline's warm runs, at least 10 %". */
    method: zod_1.z.string(),
    options: zod_1.z.object({
        minChange: zod_1.z.number(),
        unstableAbove: zod_1.z.number(),
        confidence: zod_1.z.number(),
        resamples: zod_1.z.int(),
        minRuns: zod_1.z.int(),
        confirmRounds: zod_1.z.int(),
        seed: zod_1.z.int(),
    }),
    pairs: zod_1.z.array(exports.CellPair),
    /** Cells of the new run with no baseline partner (and why). */
    unpaired: zod_1.z.array(zod_1.z.object({ cell: zod_1.z.string(), reason: zod_1.z.string() })),
    /** Query ids (`Q5@index` for the index phase) flagged by the first pass, and those the re-run confirmed. */
    flagged: zod_1.z.array(zod_1.z.string()),
    confirmed: zod_1.z.array(zod_1.z.string()),
    verdict: exports.RunVerdict,
    created_at: zod_1.z.string(),
    /** Set when the confirming re-run could not be done (the first-pass flags then stand, marked unconfirmed). */
    confirm_error: zod_1.z.string().optional(),
});
//# sourceMappingURL=comparison.js.map