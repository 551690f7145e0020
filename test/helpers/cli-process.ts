/**
 * `node dist/src/cli.js …` as a user runs it, in a child process whose output the test reads while
 * it runs: wait for a pattern, send signals or keystrokes, wait for the exit. `tty: true` runs it
 * under `script(1)` so its stdin/stdout/stderr are a real pseudo-terminal (progress bars, cursor
 * escapes, Ctrl-C typed as `\x03`); then stdout and stderr arrive merged in `out`.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import path from 'node:path';
import { REPO_ROOT } from '../../src/config';

export const CLI = path.join(REPO_ROOT, 'dist', 'src', 'cli.js');

/**
 * `chbench <args>` run to its end with `env` added to this process's environment.
 * @returns its exit code (-1 when it could not run) and its whole stdout and stderr.
 */
export async function runCliToEnd(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI, ...args], {
      env: { ...process.env, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const x = e as { code?: number; stdout?: string; stderr?: string };
    return { code: x.code ?? -1, stdout: x.stdout ?? '', stderr: x.stderr ?? '' };
  }
}

export interface CliProcess {
  child: ChildProcess;
  /** stdout so far (with `tty`: everything the terminal showed). */
  out(): string;
  /** stderr so far (empty with `tty`). */
  err(): string;
  /** Resolve once `re` matches stdout+stderr; reject after `timeoutMs` (naming what was seen) or when the process exits first. */
  waitFor(re: RegExp, timeoutMs: number): Promise<RegExpMatchArray>;
  /** The exit code (a signal name when killed by one). */
  exited: Promise<number | string>;
}

/** Start the CLI with `args` and environment `env` (added to this process's). */
export function startCli(args: string[], env: Record<string, string>, opts: { tty?: boolean } = {}): CliProcess {
  const fullEnv = { ...process.env, CHBENCH_LOG_LEVEL: 'WARN', ...env };
  const child = opts.tty
    ? spawn(
        'script',
        ['-qfec', [process.execPath, CLI, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' '), '/dev/null'],
        { env: { ...fullEnv, TERM: 'xterm', COLUMNS: '160', LINES: '40' }, stdio: ['pipe', 'pipe', 'pipe'] },
      )
    : spawn(process.execPath, [CLI, ...args], { env: fullEnv, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const waiters = new Set<() => void>();
  const poke = () => waiters.forEach((w) => w());
  child.stdout!.on('data', (d) => ((out += String(d)), poke()));
  child.stderr!.on('data', (d) => ((err += String(d)), poke()));
  const exited = new Promise<number | string>((resolve) =>
    child.on('exit', (code, sig) => {
      resolve(code ?? sig ?? -1);
      poke();
    }),
  );
  const waitFor = (re: RegExp, timeoutMs: number) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const check = () => {
        const m = (out + err).match(re);
        if (m) return done(() => resolve(m));
        if (child.exitCode !== null || child.signalCode !== null)
          done(() => reject(new Error(`exited (${child.exitCode ?? child.signalCode}) before ${re}:\n${out}\n${err}`)));
      };
      const timer = setTimeout(
        () => done(() => reject(new Error(`no ${re} within ${timeoutMs} ms:\n${out}\n${err}`))),
        timeoutMs,
      );
      const done = (f: () => void) => {
        clearTimeout(timer);
        waiters.delete(check);
        f();
      };
      waiters.add(check);
      check();
    });
  return { child, out: () => out, err: () => err, waitFor, exited };
}
