/**
 * Start the compiled engine server (`dist/src/engine/server.js`) on a free loopback port, with the
 * npm engine or a PyPI build (`--engine python --python <venv>/bin/python`), for tests and benches.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pollUntil } from '../../src/lib/poll';

export interface EngineServer {
  url: string;
  /** pid of the Node server. */
  pid: number;
  dataDir: string;
  child: ChildProcess;
  /** Resolves when the server process ends. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Everything the server wrote (its log and the host's stderr). */
  output(): string;
  /** SIGTERM, wait for the exit, remove the data directory. */
  stop(): Promise<void>;
}

/** Server script compiled next to this helper's `dist/` tree. */
function serverScript(): string {
  return path.resolve(__dirname, '..', '..', 'src', 'engine', 'server.js');
}

/**
 * Start a server on a new data directory under the OS temp dir.
 * @param opts.python the interpreter of a PyPI build (omit for the npm engine)
 * @param opts.env extra environment (e.g. `CHBENCH_ENGINE_MAX_RESULT_BYTES`)
 * @throws Error with the server's output when it does not listen within 60 s
 */
export async function startEngineServer(
  opts: { python?: string; env?: Record<string, string> } = {},
): Promise<EngineServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-engine-srv-'));
  const portFile = path.join(dataDir, 'port');
  const args = [serverScript(), '--data-dir', dataDir, '--port', '0', '--port-file', portFile];
  if (opts.python) args.push('--engine', 'python', '--python', opts.python);
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...opts.env },
  });
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let gone = false;
  void exited.then(() => (gone = true));
  const port = await pollUntil(
    async () => {
      if (gone) throw new Error(`the engine server exited before listening: ${out}`);
      return fs.existsSync(portFile) ? Number(fs.readFileSync(portFile, 'utf8').trim()) || undefined : undefined;
    },
    { what: 'engine server port file', timeoutMs: 60_000, intervalMs: 50, stopOn: () => true },
  );
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    dataDir,
    child,
    exited,
    output: () => out,
    async stop() {
      if (!gone) {
        child.kill('SIGTERM');
        const t = setTimeout(() => child.kill('SIGKILL'), 20_000);
        await exited;
        clearTimeout(t);
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** VmRSS of a process, bytes (0 once it is gone). */
export function rssBytes(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** pids of a process's direct children (from /proc/<pid>/task/<pid>/children). */
export function childPids(pid: number): number[] {
  try {
    return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}
