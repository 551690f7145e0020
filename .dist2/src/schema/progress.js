"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.CellProgress = exports.MatrixResult = exports.MatrixProgress = exports.MatrixPhase = exports.MatrixOptions = void 0;
/**
 * Shapes of the workflows' progress and outcomes: the matrix workflow's options, its `progress`
 * query answer and its result, and the cell workflow's `progress` answer. Zod schemas with inferred
 * types, for the CLI and the progress view to parse what a workflow answered; workflow code imports
 * this module for types only (zod stays out of the workflow bundle).
 */
const zod_1 = require("zod");
const comparison_1 = require("./comparison");
const cell_1 = require("./cell");
/** Options of the matrix workflow (second workflow argument; all optional). */
exports.MatrixOptions = zod_1.z.object({
    /**
     * ISO time: failed/cancelled cell results written at or after it are reused too. Set by the matrix
     * itself when it continues as new, so a failed cell is not re-run within the same resume.
     */
    reuseFailedSince: zod_1.z.string().optional(),
    /**
     * Continue as new once the history passes this many events (default `EVENT_BUDGET` of the matrix
     * workflow, 2000). Lets the workflow tests reach continue-as-new with a 3-cell matrix; carried over
     * to the next run only when set.
     */
    eventBudget: zod_1.z.number().int().positive().optional(),
});
/** The matrix workflow's phases (its `progress.phase` and `ChbenchPhase` values). */
exports.MatrixPhase = zod_1.z.enum(['validate', 'cells', 'store', 'compare', 'confirm', 'report', 'done', 'cancelled']);
/** Answer of the matrix workflow's `progress` query. */
exports.MatrixProgress = zod_1.z.object({
    runId: zod_1.z.string(),
    phase: exports.MatrixPhase,
    /** Cells in the matrix. */
    total: zod_1.z.number().int(),
    /** Cells finished (any status, reused ones included). */
    done: zod_1.z.number().int(),
    /** Keys of the cells whose workflow runs now. */
    running: zod_1.z.array(zod_1.z.string()),
    failed: zod_1.z.array(zod_1.z.string()),
    skipped: zod_1.z.array(zod_1.z.string()),
    succeeded: zod_1.z.array(zod_1.z.string()),
    cancelled: zod_1.z.array(zod_1.z.string()),
    /** Cells reused from an earlier start of this run (resume). */
    reused: zod_1.z.number().int(),
    /** Path of `report.md`, once written. */
    reportPath: zod_1.z.string().optional(),
});
/** Result of the matrix workflow. */
exports.MatrixResult = zod_1.z.object({
    runId: zod_1.z.string(),
    /** Path of `report.md`. */
    reportPath: zod_1.z.string(),
    status: zod_1.z.enum(['completed', 'cancelled']),
    cells: zod_1.z.array(cell_1.CellOutcome),
    /** The comparison with the spec's baseline (absent when the spec names none). Details in `comparison.json`. */
    comparison: zod_1.z
        .object({
        verdict: comparison_1.RunVerdict,
        baselineRunId: zod_1.z.string().nullable(),
        /** Query ids the first pass flagged (`Q5@index` after the skip index), and those the confirming re-run confirmed. */
        flagged: zod_1.z.array(zod_1.z.string()),
        confirmed: zod_1.z.array(zod_1.z.string()),
        /** Why there is no comparison or no re-run, when so. */
        note: zod_1.z.string().optional(),
    })
        .optional(),
});
/** Answer of the cell workflow's `progress` query. */
exports.CellProgress = zod_1.z.object({
    cellKey: zod_1.z.string(),
    /** The running step's phase (see `CELL_STEPS`), then `done`. */
    step: zod_1.z.enum([...cell_1.CELL_STEPS.map((s) => s.phase), 'done']),
    status: zod_1.z.union([zod_1.z.literal('running'), cell_1.CellStatus]),
    /** Phases finished so far (a step run again after a restart appears once per success). */
    done: zod_1.z.array(zod_1.z.string()),
});
//# sourceMappingURL=progress.js.map