"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.REPO_ROOT = void 0;
exports.loadConfig = loadConfig;
exports.hostAddress = hostAddress;
exports.temporalCliPath = temporalCliPath;
exports.logLevel = logLevel;
exports.faultStepDelayMs = faultStepDelayMs;
exports.watchTickMs = watchTickMs;
exports.resultsUrl = resultsUrl;
exports.resultsIdleExitS = resultsIdleExitS;
/**
 * Environment settings, read and checked in one place. Every variable has a default that works on
 * one machine; a set but invalid value fails with an error naming the variable.
 *
 * | variable | default | meaning |
 * | --- | --- | --- |
 * | `TEMPORAL_ADDRESS` | `127.0.0.1:7233` | Temporal frontend (gRPC) |
 * | `TEMPORAL_NAMESPACE` | `default` | Temporal namespace |
 * | `CHBENCH_TASK_QUEUE` | `chbench` | task queue of the worker and the workflows |
 * | `CHBENCH_HOST_ID` | `os.hostname()` | this worker's host id: its own task queue is `<CHBENCH_TASK_QUEUE>@<id>`; give each host a distinct one (workers on one host share it) |
 * | `CHBENCH_HOST_ADDRESS` | `127.0.0.1` | loopback address (127.0.0.0/8) the embedded servers of this host listen on; lets several simulated hosts share one machine without sharing addresses |
 * | `CHBENCH_WORK_DIR` | `.chbench/targets` | where embedded/local servers keep their per-cell data directories |
 * | `CHBENCH_SQL_ROOT` | `<repo>/sql` | the folder holding `workloads/<name>/` (read at each use by `sqlRoot()` in `src/lib/workload.ts`; the tests point it at `test/fixtures`) |
 * | `TEMPORAL_CLI_PATH` | `.venv/bin/temporal`, else `temporal` on PATH | Temporal CLI used to start a dev server (demo, tests) |
 * | `CHBENCH_LOG_LEVEL` | `INFO` for `chbench worker`, `WARN` for the demo and tests | Temporal SDK log level: `TRACE`, `DEBUG`, `INFO`, `WARN`, `ERROR` (any case) |
 * | `CHBENCH_FAULT_STEP_DELAY_MS` | `0` (off) | chaos suite only: every activity waits this long (heartbeating) before it starts, so short steps can be hit by a kill |
 * | `CHBENCH_RESULTS_URL` | unset (the embedded database in `<resultsDir>/db`) | `chbench results …`/`export`: a ClickHouse server holding the results database (`--url` wins) |
 * | `CHBENCH_RESULTS_IDLE_EXIT_S` | `600` | the embedded results database's engine process exits after this many seconds without a request (tests shorten it) |
 * | `CHBENCH_WATCH_TICK_MS` | `2000` | how often (ms, 100–5000) an activity reads its running statements' progress and heartbeats; tests shorten it to see progress of statements that take ~1 s |
 *
 * Variables named by a spec (an external target's `passwordEnv`) are read where the password is
 * needed; bench and chaos scripts read their own `BENCH_*` / `CHAOS_*` knobs.
 */
const node_os_1 = __importDefault(require("node:os"));
const node_path_1 = __importDefault(require("node:path"));
const node_fs_1 = require("node:fs");
const zod_1 = require("zod");
/** Repository root: the nearest ancestor holding `package.json` and `sql/` (works from `src/` and `dist/src/`); the cwd when none. */
exports.REPO_ROOT = (() => {
    let d = __dirname;
    for (let i = 0; i < 5; i++) {
        if ((0, node_fs_1.existsSync)(node_path_1.default.join(d, 'package.json')) && (0, node_fs_1.existsSync)(node_path_1.default.join(d, 'sql')))
            return d;
        d = node_path_1.default.dirname(d);
    }
    return process.cwd();
})();
const nonEmpty = zod_1.z.string().trim().min(1);
const LOG_LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'];
/** The variables of the table above, as zod parses them (unset → undefined). */
const Env = zod_1.z.object({
    TEMPORAL_ADDRESS: nonEmpty.optional(),
    TEMPORAL_NAMESPACE: nonEmpty.optional(),
    CHBENCH_TASK_QUEUE: nonEmpty.optional(),
    CHBENCH_WORK_DIR: nonEmpty.optional(),
    CHBENCH_HOST_ID: zod_1.z
        .string()
        .trim()
        .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/, 'letters, digits, ".", "_" or "-" (at most 63), starting with a letter or digit')
        .optional(),
    TEMPORAL_CLI_PATH: nonEmpty.optional(),
    CHBENCH_HOST_ADDRESS: zod_1.z
        .string()
        .trim()
        .regex(/^127\.(25[0-5]|2[0-4]\d|1?\d?\d)\.(25[0-5]|2[0-4]\d|1?\d?\d)\.(25[0-5]|2[0-4]\d|1?\d?\d)$/, 'a loopback IPv4 address, 127.x.y.z with x, y, z in 0..255')
        .optional(),
    CHBENCH_LOG_LEVEL: zod_1.z
        .preprocess((v) => (typeof v === 'string' ? v.trim().toUpperCase() : v), zod_1.z.enum(LOG_LEVELS))
        .optional(),
    CHBENCH_FAULT_STEP_DELAY_MS: zod_1.z.coerce.number().int().min(0).max(600_000).optional(),
    CHBENCH_WATCH_TICK_MS: zod_1.z.coerce.number().int().min(100).max(5_000).optional(),
    CHBENCH_RESULTS_URL: zod_1.z.url({ protocol: /^https?$/ }).optional(),
    CHBENCH_RESULTS_IDLE_EXIT_S: zod_1.z.coerce.number().int().min(1).max(86_400).optional(),
});
/**
 * Parse the variables chbench reads. Empty strings count as unset (as a shell's `VAR=` does).
 * @throws Error naming each invalid variable, its value and what was expected
 */
function readEnv(env) {
    const picked = Object.fromEntries(Object.keys(Env.shape).map((k) => [k, env[k] === '' ? undefined : env[k]]));
    const r = Env.safeParse(picked);
    if (r.success)
        return r.data;
    const lines = r.error.issues.map((i) => `${String(i.path[0])}=${JSON.stringify(picked[String(i.path[0])])}: ${i.message}`);
    throw new Error(`invalid environment: ${lines.join('; ')}`);
}
/**
 * Read the configuration from the environment.
 * @throws Error naming the variable when one is set to an invalid value
 */
function loadConfig(env = process.env) {
    const e = readEnv(env);
    return {
        temporalAddress: e.TEMPORAL_ADDRESS ?? '127.0.0.1:7233',
        namespace: e.TEMPORAL_NAMESPACE ?? 'default',
        taskQueue: e.CHBENCH_TASK_QUEUE ?? 'chbench',
        workDir: node_path_1.default.resolve(e.CHBENCH_WORK_DIR ?? node_path_1.default.join(exports.REPO_ROOT, '.chbench', 'targets')),
        hostId: e.CHBENCH_HOST_ID ?? node_os_1.default.hostname(),
    };
}
/**
 * Loopback address the embedded servers started on this host listen on (`CHBENCH_HOST_ADDRESS`,
 * default `127.0.0.1`).
 * @throws Error when the variable is set to something other than a 127.x.y.z address
 */
function hostAddress(env = process.env) {
    return readEnv(env).CHBENCH_HOST_ADDRESS ?? '127.0.0.1';
}
/** Path of the Temporal CLI binary (`TEMPORAL_CLI_PATH`, else `.venv/bin/temporal`, else `temporal` on PATH). */
function temporalCliPath(env = process.env) {
    const fromEnv = readEnv(env).TEMPORAL_CLI_PATH;
    if (fromEnv)
        return fromEnv;
    const venv = node_path_1.default.join(exports.REPO_ROOT, '.venv', 'bin', 'temporal');
    return (0, node_fs_1.existsSync)(venv) ? venv : 'temporal';
}
/**
 * Temporal SDK log level from `CHBENCH_LOG_LEVEL`, or `fallback` when unset.
 * @param fallback the program's default (`INFO` for the worker, `WARN` for the demo and tests)
 * @throws Error when the variable is set to something other than a level name
 */
function logLevel(fallback, env = process.env) {
    return readEnv(env).CHBENCH_LOG_LEVEL ?? fallback;
}
/**
 * Delay before every activity, ms, from `CHBENCH_FAULT_STEP_DELAY_MS` (chaos suite only); `0` when
 * unset, which turns the delay off.
 * @throws Error when the variable is not an integer in 0..600000
 */
function faultStepDelayMs(env = process.env) {
    return readEnv(env).CHBENCH_FAULT_STEP_DELAY_MS ?? 0;
}
/**
 * Progress poll and heartbeat interval of the statement watcher, ms, from `CHBENCH_WATCH_TICK_MS`;
 * 2000 when unset. At most 5000, half the 10 s heartbeat timeout.
 * @throws Error when the variable is not an integer in 100..5000
 */
function watchTickMs(env = process.env) {
    return readEnv(env).CHBENCH_WATCH_TICK_MS ?? 2000;
}
/**
 * URL of the ClickHouse server holding the results database for the CLI (`CHBENCH_RESULTS_URL`),
 * or undefined for the embedded database.
 * @throws Error when the variable is set to something other than an http(s) URL
 */
function resultsUrl(env = process.env) {
    return readEnv(env).CHBENCH_RESULTS_URL;
}
/** Idle period (s) after which an embedded results database's engine process started by this process exits (`CHBENCH_RESULTS_IDLE_EXIT_S`, default 600). */
function resultsIdleExitS(env = process.env) {
    return readEnv(env).CHBENCH_RESULTS_IDLE_EXIT_S ?? 600;
}
//# sourceMappingURL=config.js.map