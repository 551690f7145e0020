"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.seriesOf = seriesOf;
exports.renderRunReports = renderRunReports;
exports.createWriteReport = createWriteReport;
/** writeReport: render `results/<runId>/report.md` and `report.html` from the cells' result files. */
const node_path_1 = __importDefault(require("node:path"));
const node_child_process_1 = require("node:child_process");
const node_fs_1 = require("node:fs");
const activity_context_1 = require("../../temporal/activity-context");
const report_1 = require("../../results/report");
const report_html_1 = require("../../results/report-html");
const store_1 = require("../../results/store");
const db_1 = require("../../results/db");
const results_1 = require("../../schema/results");
/** How many past runs the series chart of `report.html` shows. */
const SERIES_RUNS = 20;
/**
 * Each query's warm median across the past runs of the run's schedule (or, for an unscheduled run,
 * of runs with the same spec name), from the results database, for `report.html`'s series chart.
 * @returns the points, or undefined when there are none or the database cannot be read (the page then has no series chart).
 */
async function seriesOf(resultsDir, dir) {
    try {
        const run = (0, store_1.readRecord)(node_path_1.default.join(dir, 'run.json'), results_1.RunRecord);
        const points = await (0, db_1.withResultsDb)(run.spec.results, resultsDir, (db) => db.series({ scheduleId: run.scheduleId ?? null, name: run.spec.name, limit: SERIES_RUNS }));
        // A series needs runs: none stored yet (e.g. a report rendered before the run was stored) means no chart.
        return points.length ? points : undefined;
    }
    catch {
        return undefined;
    }
}
/**
 * Render `report.md`, `report.html` and the run's `samples.jsonl`, and record the run's end and status
 * in `run.json`. Runs in a child process of the worker (see `writeReport`).
 * @returns the absolute paths of `report.md` and `report.html`.
 * @throws Error when `run.json` or a cell's record cannot be read (report.md is not written then).
 */
async function renderRunReports(input) {
    const dir = (0, store_1.runDir)(input.resultsDir, input.runId);
    const runFile = node_path_1.default.join(dir, 'run.json');
    (0, store_1.writeJsonAtomic)(runFile, {
        ...(0, store_1.readJson)(runFile),
        finishedAt: new Date().toISOString(),
        status: input.status,
    });
    const reportPath = node_path_1.default.join(dir, 'report.md');
    (0, store_1.writeTextAtomic)(reportPath, (0, report_1.renderReport)(dir));
    const htmlPath = node_path_1.default.join(dir, 'report.html');
    // report.md is written: the HTML page must not fail the report. Its charts already turn their own
    // failures into notes; anything else becomes a page saying so (report.md stands).
    const series = await seriesOf(input.resultsDir, dir);
    const html = await (0, report_html_1.renderHtmlReport)(dir, series ? { series } : {}).catch((e) => `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>chbench report</title></head><body><p>report.html could not be rendered: ${(0, report_html_1.escapeHtml)(e instanceof Error ? e.message : String(e))}. See report.md beside this file.</p></body></html>\n`);
    (0, store_1.writeTextAtomic)(htmlPath, html);
    // Every cell's flat samples in one file, for loading the run into a database (README "What a cell measures", flat samples).
    (0, store_1.writeRunSamples)(dir, (0, store_1.readJson)(runFile).cells);
    return { reportPath, htmlPath };
}
/** The child process entry that renders a report (compiled next to this file). */
const RENDER_CHILD = node_path_1.default.join(__dirname, 'render-reports-child.js');
/** Activity factory. */
function createWriteReport() {
    return {
        /**
         * Render the report (`report.md`, and `report.html` with its charts: a chart that fails to render is a
         * note in the page, not a failed report); also records the run's end and status in `run.json`.
         * The rendering runs in a child process: a 1,000-cell run's report needs a few hundred MB for a few
         * seconds, which the long-lived worker would otherwise keep as its own resident memory.
         * @returns the absolute paths of `report.md` and `report.html`.
         * @throws Error with the child's error message (or its last stderr lines) when it fails.
         */
        async writeReport(input) {
            if (!(0, node_fs_1.existsSync)(RENDER_CHILD))
                return renderRunReports(input);
            const child = (0, node_child_process_1.spawn)(process.execPath, [RENDER_CHILD, JSON.stringify(input)], {
                stdio: ['ignore', 'pipe', 'pipe'],
            });
            let out = '';
            let err = '';
            child.stdout.on('data', (d) => (out += d.toString()));
            child.stderr.on('data', (d) => (err += d.toString()));
            const tick = setInterval(() => (0, activity_context_1.heartbeat)({ step: 'writeReport', rendering: input.runId }), 2000);
            // A cancelled activity (or a worker shutting down) must not leave a renderer behind.
            const signal = (0, activity_context_1.cancellationSignal)();
            const kill = () => child.kill('SIGKILL');
            signal?.addEventListener('abort', kill);
            try {
                const code = await new Promise((resolve, reject) => {
                    child.on('error', reject);
                    child.on('close', resolve);
                });
                if (code === 0)
                    return JSON.parse(out);
                let reason = err.trim().split('\n').slice(-5).join(' | ');
                try {
                    reason = JSON.parse(out).error;
                }
                catch {
                    // killed or crashed before it could say why: its last stderr lines say what there is
                }
                throw new Error(`rendering the report failed (exit ${code}): ${reason}`);
            }
            finally {
                clearInterval(tick);
                signal?.removeEventListener('abort', kill);
            }
        },
    };
}
//# sourceMappingURL=write-report.js.map