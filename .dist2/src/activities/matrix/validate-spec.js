"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.chbenchVersion = chbenchVersion;
exports.checkSpec = checkSpec;
exports.createValidateSpec = createValidateSpec;
/**
 * validateSpec: the matrix workflow's first activity. Checks what the pure schema cannot — the
 * workload and its query ids exist, local binaries are executable, password variables are set on
 * this worker — before anything is provisioned, and writes `run.json`.
 */
const node_fs_1 = require("node:fs");
const node_path_1 = __importDefault(require("node:path"));
const node_child_process_1 = require("node:child_process");
const db_1 = require("../../results/db");
const common_1 = require("@temporalio/common");
const failures_1 = require("../../schema/failures");
const run_spec_1 = require("../../schema/run-spec");
const matrix_1 = require("../../schema/matrix");
const workload_1 = require("../../lib/workload");
const store_1 = require("../../results/store");
const results_1 = require("../../schema/results");
const config_1 = require("../../config");
const insert_load_1 = require("../../measure/insert-load");
const targets_1 = require("../../targets");
const workload_hash_1 = require("../../lib/workload-hash");
/** chbench's package version and, in a git checkout, the commit. */
function chbenchVersion() {
    const root = config_1.REPO_ROOT;
    const pkg = (0, store_1.readJsonIfExists)(node_path_1.default.join(root, 'package.json')) ?? { version: 'unknown' };
    let commit = null;
    try {
        commit = (0, node_child_process_1.execFileSync)('git', ['rev-parse', 'HEAD'], { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] })
            .toString()
            .trim();
    }
    catch {
        /* not a git checkout */
    }
    return { version: pkg.version, commit };
}
function nearestExistingDir(p) {
    let d = node_path_1.default.resolve(p);
    while (!(0, node_fs_1.existsSync)(d))
        d = node_path_1.default.dirname(d);
    return d;
}
/**
 * Validate a spec fully; returns every problem found, one line each (empty when valid). Problems of
 * the schema and of the files it names are reported together, so one pass shows them all: the
 * workload's manifest, files and placeholders ({@link workloadProblems}), and whether its schema
 * places every codec profile on the columns it claims ({@link codecPlacementProblems}). No server is
 * asked; codec expressions are tried on each target at provisioning.
 */
function checkSpec(input, opts = {}) {
    const problems = [];
    let spec;
    try {
        spec = (0, run_spec_1.parseRunSpec)(input);
    }
    catch (e) {
        if (!(e instanceof run_spec_1.SpecError))
            throw e;
        problems.push(...e.issues);
    }
    // Checks on the raw input still run when the schema failed elsewhere.
    const raw = (typeof input === 'object' && input !== null ? input : {});
    // The target kind's own checks (binaries, password variable): see Target.checkSpec.
    const rawTarget = typeof raw.target === 'object' && raw.target !== null ? raw.target : undefined;
    const target = rawTarget && targets_1.targets.find(rawTarget.kind);
    // Run on the valid spec too: the schema cannot see these (an image reference, a binary's path).
    if (target && rawTarget && Array.isArray(raw.matrix?.version))
        problems.push(...target.checkSpec(rawTarget, raw.matrix.version, 'input'));
    const wlProblems = typeof raw.workload === 'string' && /^[a-z0-9-]+$/.test(raw.workload) ? (0, workload_1.workloadProblems)(raw.workload) : [];
    problems.push(...wlProblems);
    if (typeof raw.workload === 'string' && /^[a-z0-9-]+$/.test(raw.workload) && !wlProblems.length) {
        try {
            const m = (0, workload_1.loadWorkload)(raw.workload);
            // Each codec profile must reach the columns it claims: a schema without {{codec}} would let a
            // "ZSTD(3)" cell silently measure LZ4.
            if (spec) {
                const schemaText = (0, node_fs_1.readFileSync)(node_path_1.default.join((0, workload_1.sqlRoot)(), 'workloads', m.name, m.schema), 'utf8');
                for (const e of spec.matrix.codec)
                    problems.push(...(0, workload_1.codecPlacementProblems)(m.name, schemaText, (0, run_spec_1.codecProfileOf)(e)).map((p) => `matrix.codec: ${p}`));
            }
            const ids = Array.isArray(raw.queries) && raw.queries.every((q) => typeof q === 'string')
                ? raw.queries
                : undefined;
            const selected = (0, workload_1.workloadQueries)(m, { table: m.table, rows: 1, codec: 'LZ4' }, ids).map((q) => q.id);
            problems.push(...gridProblems(spec, m, selected));
        }
        catch (e) {
            problems.push(`${/unknown query/.test(String(e)) ? 'queries' : 'workload'}: ${e.message.replace(/^(workload|queries): /, '')}`);
        }
    }
    if (opts.worker) {
        const versions = Array.isArray(raw.matrix?.version) ? raw.matrix.version : [];
        if (target && rawTarget)
            problems.push(...target.checkSpec(rawTarget, versions, 'worker host'));
        const resultsDir = typeof raw.resultsDir === 'string' ? raw.resultsDir : 'results';
        const abs = node_path_1.default.resolve(resultsDir);
        if (/^\/(proc|sys|dev)(\/|$)/.test(abs))
            problems.push(`resultsDir: "${resultsDir}" is under /proc, /sys or /dev`);
        else {
            const base = nearestExistingDir(abs);
            try {
                if (!(0, node_fs_1.statSync)(base).isDirectory())
                    throw new Error('not a directory');
                (0, node_fs_1.accessSync)(base, node_fs_1.constants.W_OK);
            }
            catch {
                problems.push(`resultsDir: "${resultsDir}" cannot be created or written on the worker (${base} is not a writable directory)`);
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
function gridProblems(spec, m, selected) {
    const out = [];
    const mix = spec?.grids?.concurrency?.mix;
    const missing = (mix ?? []).filter((e) => !selected.includes(e.id)).map((e) => e.id);
    if (missing.length)
        out.push(`grids.concurrency.mix: query id(s) ${missing.join(', ')} are not selected queries of workload ${m.name} (selected: ${selected.join(', ')})`);
    if (spec?.grids?.insert) {
        // The same rules the insert grid generates its batches by (src/measure/insert-load.ts).
        const v = { table: m.table, rows: 1, codec: 'LZ4' };
        try {
            (0, insert_load_1.splitLoadSql)((0, workload_1.renderTemplate)(m.name, m.load, v), m.name);
            (0, insert_load_1.schemaColumns)((0, workload_1.renderTemplate)(m.name, m.schema, v), m.name);
        }
        catch (e) {
            out.push(`grids.insert: ${e.message}`);
        }
    }
    return out;
}
/**
 * Read a record of an earlier start of this run, parsed with its schema; `undefined` when absent.
 * @throws ApplicationFailure `UnreadableResult` (non-retryable) naming the file and field when it does not parse.
 */
function readUnlessForeign(file, schema) {
    try {
        return (0, store_1.readRecordIfExists)(file, schema);
    }
    catch (e) {
        throw common_1.ApplicationFailure.create({
            type: failures_1.FAILURE.UnreadableResult,
            nonRetryable: true,
            message: `cannot resume from the results store: ${e.message}; start a new run id, or move the file away to measure that cell again`,
        });
    }
}
/** Activity factory. */
function createValidateSpec() {
    return {
        /**
         * Validate the run spec and record the run.
         * @throws ApplicationFailure type `InvalidSpec` (non-retryable) listing every problem; also when the
         *   run's folder holds a run of another workflow id, or (a resume) the spec or the workload's files
         *   differ from the ones the run started with (naming the changed files); `UnreadableResult` (non-retryable) when the run's `run.json` or a cell's `result.json` exists but
         *   does not parse with the results schema (another chbench version wrote it), naming the file and field.
         */
        async validateSpec(input) {
            const { spec, problems } = checkSpec(input.spec, { worker: true });
            if (!spec || problems.length)
                throw common_1.ApplicationFailure.create({
                    type: failures_1.FAILURE.InvalidSpec,
                    nonRetryable: true,
                    message: `invalid run spec:\n  - ${problems.join('\n  - ')}`,
                });
            // A named baseline run must exist before anything is measured against it.
            if (spec.baseline?.from === 'run') {
                const baselineRun = spec.baseline.run;
                await (0, db_1.withResultsDb)(spec.results, spec.resultsDir, async (db) => {
                    if (!(await db.run(baselineRun)))
                        throw common_1.ApplicationFailure.create({
                            type: failures_1.FAILURE.InvalidSpec,
                            nonRetryable: true,
                            message: `invalid run spec:\n  - baseline.run: run "${baselineRun}" is not in the results database (${db.description}); load its folder with \`chbench results import <dir>\`, or name a stored run (\`chbench results sql "SELECT run_id FROM runs"\`)`,
                        });
                });
            }
            const dir = (0, store_1.runDir)(spec.resultsDir, input.runId);
            const cellKeys = (0, matrix_1.expandMatrix)(spec).map(matrix_1.cellKey);
            const runFile = node_path_1.default.join(dir, 'run.json');
            const prev = readUnlessForeign(runFile, results_1.RunRecord);
            const workflowId = input.workflowId ?? input.runId;
            // One folder, one run: a workflow of another id must not write into a run's folder (e.g. one
            // started with the folder's name for a scheduled run whose workflow id has ':').
            const prevWorkflowId = prev && (prev.workflowId ?? prev.runId);
            if (prev && prevWorkflowId !== workflowId)
                throw common_1.ApplicationFailure.create({
                    type: failures_1.FAILURE.InvalidSpec,
                    nonRetryable: true,
                    message: `${dir} holds run ${prev.runId} of workflow ${prevWorkflowId}, not of workflow ${workflowId}; resume that run with: chbench resume ${prev.runId} (it starts workflow ${prevWorkflowId} again), or start a new run id`,
                });
            if (prev && JSON.stringify(prev.spec) !== JSON.stringify(spec))
                throw common_1.ApplicationFailure.create({
                    type: failures_1.FAILURE.InvalidSpec,
                    nonRetryable: true,
                    message: `run ${input.runId} already exists in ${dir} with a different spec; resume it with the spec stored in ${node_path_1.default.join(dir, 'run-spec.json')}, or start a new run id`,
                });
            // The cells measured so far ran this workload's files: the rest must run the same ones.
            const workloadFiles = (0, workload_hash_1.workloadFingerprint)(spec.workload);
            const changed = prev?.workload_files ? (0, workload_hash_1.changedWorkloadFiles)(prev.workload_files, workloadFiles) : [];
            if (changed.length)
                throw common_1.ApplicationFailure.create({
                    type: failures_1.FAILURE.InvalidSpec,
                    nonRetryable: true,
                    message: `run ${input.runId}: workload ${spec.workload} changed since the run started (sql/workloads/${spec.workload}/: ${changed.join(', ')}); its cells so far were measured with the files as they were: restore them to resume, or start a new run id to measure the changed workload`,
                    details: [{ changed }],
                });
            const reused = [];
            for (const k of cellKeys) {
                const file = node_path_1.default.join((0, store_1.cellDir)(spec.resultsDir, input.runId, k), 'result.json');
                const r = readUnlessForeign(file, results_1.CellResult);
                if (!r)
                    continue;
                const keep = r.status === 'succeeded' ||
                    r.status === 'skipped' ||
                    (input.reuseFailedSince !== undefined && r.written_at >= input.reuseFailedSince);
                if (keep)
                    reused.push({ cellKey: k, status: r.status, resultFile: file, ...(r.error ? { error: r.error } : {}) });
            }
            const chbench = chbenchVersion();
            const record = {
                schema: results_1.RUN_RECORD_SCHEMA,
                runId: input.runId,
                workflowId,
                // Which chbench produced these results (validity rules change between versions).
                chbench,
                // The files the first start read (a record from before they were recorded: this start's).
                workload_files: prev?.workload_files ?? workloadFiles,
                starts: [...(prev?.starts ?? []), { at: input.startedAt, chbench }],
                startedAt: prev?.startedAt ?? input.startedAt,
                spec,
                cells: cellKeys,
                // Each start of the matrix workflow after the first (resume or continue-as-new).
                resumes: prev ? [...(prev.resumes ?? []), input.startedAt] : [],
                ...(input.scheduleId ? { scheduleId: input.scheduleId } : {}),
            };
            (0, store_1.writeJsonAtomic)(runFile, record);
            // The spec exactly as given: the input to resume this run with `temporal workflow start --input-file`.
            (0, store_1.writeJsonAtomic)(node_path_1.default.join(dir, 'run-spec.json'), input.spec);
            const indexQueries = (0, workload_1.indexQueryIds)(spec.workload, spec.queries);
            // Every later step (on any worker, on any host) writes to the same results store: the folder
            // resolved here, once, not against each worker's own working directory.
            return {
                spec: { ...spec, resultsDir: node_path_1.default.resolve(spec.resultsDir) },
                cellKeys,
                runDir: dir,
                reused,
                indexQueries,
            };
        },
    };
}
//# sourceMappingURL=validate-spec.js.map