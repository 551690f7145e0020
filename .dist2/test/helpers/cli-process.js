"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.CLI = void 0;
exports.startCli = startCli;
/**
 * `node dist/src/cli.js …` as a user runs it, in a child process whose output the test reads while
 * it runs: wait for a pattern, send signals or keystrokes, wait for the exit. `tty: true` runs it
 * under `script(1)` so its stdin/stdout/stderr are a real pseudo-terminal (progress bars, cursor
 * escapes, Ctrl-C typed as `\x03`); then stdout and stderr arrive merged in `out`.
 */
const node_child_process_1 = require("node:child_process");
const node_path_1 = __importDefault(require("node:path"));
const config_1 = require("../../src/config");
exports.CLI = node_path_1.default.join(config_1.REPO_ROOT, 'dist', 'src', 'cli.js');
/** Start the CLI with `args` and environment `env` (added to this process's). */
function startCli(args, env, opts = {}) {
    const fullEnv = { ...process.env, CHBENCH_LOG_LEVEL: 'WARN', ...env };
    const child = opts.tty
        ? (0, node_child_process_1.spawn)('script', ['-qfec', [process.execPath, exports.CLI, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' '), '/dev/null'], { env: { ...fullEnv, TERM: 'xterm', COLUMNS: '160', LINES: '40' }, stdio: ['pipe', 'pipe', 'pipe'] })
        : (0, node_child_process_1.spawn)(process.execPath, [exports.CLI, ...args], { env: fullEnv, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const waiters = new Set();
    const poke = () => waiters.forEach((w) => w());
    child.stdout.on('data', (d) => ((out += String(d)), poke()));
    child.stderr.on('data', (d) => ((err += String(d)), poke()));
    const exited = new Promise((resolve) => child.on('exit', (code, sig) => {
        resolve(code ?? sig ?? -1);
        poke();
    }));
    const waitFor = (re, timeoutMs) => new Promise((resolve, reject) => {
        const check = () => {
            const m = (out + err).match(re);
            if (m)
                return done(() => resolve(m));
            if (child.exitCode !== null || child.signalCode !== null)
                done(() => reject(new Error(`exited (${child.exitCode ?? child.signalCode}) before ${re}:\n${out}\n${err}`)));
        };
        const timer = setTimeout(() => done(() => reject(new Error(`no ${re} within ${timeoutMs} ms:\n${out}\n${err}`))), timeoutMs);
        const done = (f) => {
            clearTimeout(timer);
            waiters.delete(check);
            f();
        };
        waiters.add(check);
        check();
    });
    return { child, out: () => out, err: () => err, waitFor, exited };
}
//# sourceMappingURL=cli-process.js.map