/**
 * The cache of installed PyPI chdb builds: one isolated Python environment per build, so that the
 * engine server can host ClickHouse 23.10 … 26.9 beside the npm engine (26.7).
 *
 * Layout, under {@link enginesDir} (`CHBENCH_ENGINES_DIR`, default `~/.cache/chbench/engines`):
 *
 *     <package>-<version>/            an installed build (a venv), e.g. `chdb-core-26.9.0/`
 *       bin/python                    the interpreter the engine server runs the host with
 *       chbench-engine.json           {@link EngineManifest}: written last, inside the staging dir
 *     .staging-<package>-<version>-<pid>-<random>/   an install in progress (renamed into place when done)
 *     <package>-<version>.lock        held by the one process installing that build (`{pid, startedAt}`)
 *
 * An install is atomic: the venv is built in a staging directory, `pip install`ed, its engine's
 * `version()` read back, the manifest written, and only then renamed to its final name. A failed,
 * killed or cancelled install leaves at most a staging directory (removed by the next install or
 * list once its pid is gone) and never a directory that looks installed. Concurrent installs of one
 * build (cells racing in one matrix, two workers) are serialised by the lock file; the second waits
 * and then finds the build installed.
 *
 * Packages come from pip's configured index (or `PIP_FIND_LINKS` / `PIP_INDEX_URL` set by the
 * user); nothing here names a registry.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pidExists } from '../process/proc';

/** A PyPI chdb build chbench knows (facts checked on this machine, see docs/limits.md). */
export interface PypiBuild {
  /** PyPI distribution: `chdb` (≤ 3.x) or `chdb-core` (26.x). */
  package: 'chdb' | 'chdb-core';
  /** The distribution's version, e.g. `3.1.2`. */
  version: string;
  /** ClickHouse version the engine reports (`SELECT version()`), e.g. `24.8.4.1`. */
  clickhouse: string;
  /** Install with `--no-deps` (the build imports without pyarrow/pandas). */
  noDeps: boolean;
  /**
   * Its dependencies, pinned (`name==version`, what `pip freeze` listed besides the build itself in
   * an install made for this table): installed with them as pip constraints and checked after the
   * install, so a label means the same packages on every machine and every day. Empty: none.
   */
  lock: readonly string[];
  /** What the build cannot do, as a user reads it (shown by `chbench engines list` and the report). */
  limits: string[];
}

/** Every PyPI build chbench can serve, oldest first (one per ClickHouse minor version). */
export const PYPI_BUILDS: readonly PypiBuild[] = [
  {
    package: 'chdb',
    version: '1.4.1',
    clickhouse: '23.10.1.1',
    noDeps: false,
    lock: [],
    limits: [
      're-opens its data for every statement (caches are cold for every query; mutations make no progress between statements)',
      'no system.parts / merges / mutations / processes: partitions, parts, part formats and per-part codecs are n/a, the merge wait is not observable (rows and bytes on disk from system.tables; column sizes from system.columns, n/a for Compact parts)',
      'no streaming, no progress, no KILL of a running statement',
      'no system.query_log',
      'reading system.server_settings aborts the engine (the host refuses it)',
      'its own start database (_local, Overlay) keeps no tables: the host creates `default` as an Atomic database and works there',
    ],
  },
  {
    package: 'chdb',
    version: '3.1.2',
    clickhouse: '24.8.4.1',
    noDeps: false,
    lock: ['numpy==2.4.6', 'pandas==3.1.1', 'pyarrow==26.0.1', 'python-dateutil==4.0.0', 'tzdata==2026.6'],
    limits: [
      'no streaming (results are buffered)',
      'no second session while a statement runs (no progress, no KILL of a running statement)',
      'JSON statistics say rows_read 0',
      'no system.query_log',
    ],
  },
  {
    package: 'chdb',
    version: '3.7.2',
    clickhouse: '25.8.2.1',
    noDeps: false,
    lock: ['numpy==2.4.6', 'pandas==3.1.1', 'pyarrow==26.0.1', 'python-dateutil==4.0.0', 'tzdata==2026.6'],
    limits: [
      'no second session while a statement runs (no progress, no KILL of a running statement)',
      'JSON statistics say rows_read 0',
      'no system.query_log',
    ],
  },
  {
    package: 'chdb-core',
    version: '26.1.0',
    clickhouse: '26.1.2.1',
    noDeps: false,
    lock: ['numpy==2.4.6', 'pandas==3.1.1', 'pyarrow==26.0.1', 'python-dateutil==4.0.0', 'tzdata==2026.6'],
    limits: ['JSON statistics say rows_read 0', 'no system.query_log'],
  },
  {
    package: 'chdb-core',
    version: '26.3.0',
    clickhouse: '26.3.9.1',
    noDeps: false,
    lock: ['numpy==2.4.6', 'pandas==3.1.1', 'pyarrow==26.0.1', 'python-dateutil==4.0.0', 'tzdata==2026.6'],
    limits: ['JSON statistics say rows_read 0', 'no system.query_log'],
  },
  {
    package: 'chdb-core',
    version: '26.5.0',
    clickhouse: '26.5.1.1',
    noDeps: false,
    lock: ['numpy==2.4.6', 'pandas==3.1.1', 'pyarrow==26.0.1', 'python-dateutil==4.0.0', 'tzdata==2026.6'],
    limits: ['no system.query_log'],
  },
  {
    package: 'chdb-core',
    version: '26.9.0',
    clickhouse: '26.9.2.1',
    noDeps: true,
    lock: [],
    limits: [],
  },
];

/** `<package>-<version>`: the build's directory name in the cache. */
export function buildName(b: PypiBuild): string {
  return `${b.package}-${b.version}`;
}

/** `chdb==3.1.2`: the pip requirement. */
export function requirement(b: PypiBuild): string {
  return `${b.package}==${b.version}`;
}

/** The ClickHouse labels the PyPI builds serve, as `major.minor` (e.g. `['23.10', '24.8', …]`). */
export function pypiLabels(): string[] {
  return PYPI_BUILDS.map((b) => b.clickhouse.split('.').slice(0, 2).join('.'));
}

/**
 * The build serving a version label: `24.8` (major.minor), `24.8.4` or `24.8.4.1` (a prefix of
 * the engine's `version()`, dot-separated).
 * @returns undefined when no PyPI build serves it
 */
export function findPypiBuild(label: string): PypiBuild | undefined {
  const want = label.split('.');
  if (want.length < 2) return undefined;
  return PYPI_BUILDS.find((b) => {
    const have = b.clickhouse.split('.');
    return want.every((p, i) => have[i] === p);
  });
}

/** Root of the engine cache: `CHBENCH_ENGINES_DIR`, else `~/.cache/chbench/engines` (absolute). */
export function enginesDir(): string {
  return path.resolve(process.env.CHBENCH_ENGINES_DIR || path.join(os.homedir(), '.cache', 'chbench', 'engines'));
}

/** `chbench-engine.json` of an installed build. */
export interface EngineManifest {
  package: PypiBuild['package'];
  version: string;
  /** `SELECT version()` of the installed engine, read back after the install. */
  clickhouse: string;
  /** ISO time the install finished. */
  installedAt: string;
  /** Wall time of the install (venv + pip + read-back), ms. */
  installMs: number;
  /** `sys.version` of the environment's Python. */
  python: string;
}

/** An installed build. */
export interface InstalledEngine {
  build: PypiBuild;
  /** Absolute directory of its environment. */
  dir: string;
  /** Absolute path of its interpreter (`<dir>/bin/python`). */
  python: string;
  /** `version()` read back at install time. */
  clickhouse: string;
  installedAt: string;
  installMs: number;
}

/** An install that failed: names the package, version and the cause (pip's last lines). */
export class EngineInstallError extends Error {
  constructor(
    readonly build: PypiBuild,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`installing ${requirement(build)} (ClickHouse ${build.clickhouse}) failed: ${reason}`, options);
    this.name = 'EngineInstallError';
  }
}

const MANIFEST = 'chbench-engine.json';

function readInstalled(dir: string, build: PypiBuild): InstalledEngine | undefined {
  try {
    const m = JSON.parse(fs.readFileSync(path.join(dir, MANIFEST), 'utf8')) as EngineManifest;
    const python = path.join(dir, 'bin', 'python');
    if (!fs.existsSync(python)) return undefined;
    return { build, dir, python, clickhouse: m.clickhouse, installedAt: m.installedAt, installMs: m.installMs };
  } catch {
    return undefined;
  }
}

/** The installed environment of `build`, when there is one (its manifest present). */
export function installedEngine(build: PypiBuild): InstalledEngine | undefined {
  return readInstalled(path.join(enginesDir(), buildName(build)), build);
}

/** Every installed build, oldest ClickHouse first. Removes staging directories left by dead installs. */
export function listInstalledEngines(): InstalledEngine[] {
  removeDeadStaging();
  return PYPI_BUILDS.map((b) => installedEngine(b)).filter((e): e is InstalledEngine => e !== undefined);
}

/**
 * Remove an installed build.
 * @returns whether something was removed
 */
export function removeEngine(build: PypiBuild): boolean {
  const dir = path.join(enginesDir(), buildName(build));
  if (!fs.existsSync(dir)) return false;
  // Rename first so that a concurrent reader never sees a half-removed environment as installed.
  const gone = path.join(
    enginesDir(),
    `.removing-${buildName(build)}-${process.pid}-${randomBytes(3).toString('hex')}`,
  );
  fs.renameSync(dir, gone);
  fs.rmSync(gone, { recursive: true, force: true });
  return true;
}

function removeDeadStaging(): void {
  let names: string[];
  try {
    names = fs.readdirSync(enginesDir());
  } catch {
    return;
  }
  for (const n of names) {
    const m = /^\.(?:staging|removing)-.*-(\d+)-[0-9a-f]+$/.exec(n);
    if (m && !pidExists(Number(m[1]))) fs.rmSync(path.join(enginesDir(), n), { recursive: true, force: true });
  }
}

/** Run a command; resolves with its output tail, rejects with it. */
function run(
  cmd: string,
  args: string[],
  opts: { signal?: AbortSignal; onLine?: (line: string) => void; env?: NodeJS.ProcessEnv },
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: opts.env ?? process.env });
    let tail = '';
    const take = (b: Buffer) => {
      const text = b.toString('utf8');
      tail = (tail + text).slice(-4000);
      for (const l of text.split('\n')) if (l.trim()) opts.onLine?.(l.trim());
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    const onAbort = () => child.kill('SIGKILL');
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', (e) => reject(new Error(`${cmd}: ${e.message}`)));
    child.on('close', (code, sig) => {
      opts.signal?.removeEventListener('abort', onAbort);
      if (opts.signal?.aborted) return reject(new Error('cancelled'));
      if (code === 0) return resolve(tail);
      const last = tail.trim().split('\n').slice(-6).join('\n');
      reject(new Error(`${path.basename(cmd)} ${args.slice(0, 3).join(' ')} exited ${sig ?? code}: ${last}`));
    });
  });
}

/** Take `<name>.lock` (O_EXCL), waiting while a live process holds it; a dead holder's lock is taken over. */
async function withLock<T>(lock: string, signal: AbortSignal | undefined, fn: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      const fd = fs.openSync(lock, 'wx');
      fs.writeSync(fd, JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString() }));
      fs.closeSync(fd);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      let holder = 0;
      try {
        holder = Number((JSON.parse(fs.readFileSync(lock, 'utf8')) as { pid: number }).pid);
      } catch {
        /* being written: wait */
      }
      if (holder && !pidExists(holder)) {
        fs.rmSync(lock, { force: true });
        continue;
      }
      if (signal?.aborted) throw new Error('cancelled', { cause: e });
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(lock, { force: true });
  }
}

/**
 * Install `build` into the cache (idempotent: an installed build is returned as is).
 *
 * Steps: `python3 -m venv` (the interpreter `CHBENCH_ENGINES_PYTHON`, default `python3`) in a
 * staging directory, `pip install [--no-deps] -c <lock> <package>==<version>` (the build's
 * {@link PypiBuild.lock} as constraints), `pip freeze` must list exactly the build and its lock,
 * `SELECT version()` through the new environment (must equal {@link PypiBuild.clickhouse}),
 * manifest, rename into place.
 *
 * @param opts.onProgress receives pip's output lines (for heartbeats and the CLI)
 * @param opts.signal kills pip / the venv step; the staging directory is removed
 * @returns the installed engine
 * @throws EngineInstallError naming the package, version and cause (pip's last lines: no network,
 *   no disk space, no such version…), or when the installed engine reports another version
 */
export async function installEngine(
  build: PypiBuild,
  opts: { onProgress?: (line: string) => void; signal?: AbortSignal } = {},
): Promise<InstalledEngine> {
  const root = enginesDir();
  fs.mkdirSync(root, { recursive: true });
  const done = installedEngine(build);
  if (done) return done;
  return withLock(path.join(root, `${buildName(build)}.lock`), opts.signal, async () => {
    const again = installedEngine(build);
    if (again) return again;
    removeDeadStaging();
    const t0 = Date.now();
    const staging = path.join(root, `.staging-${buildName(build)}-${process.pid}-${randomBytes(3).toString('hex')}`);
    const final = path.join(root, buildName(build));
    const say = (l: string) => opts.onProgress?.(l);
    try {
      say(`creating a Python environment for ${requirement(build)}`);
      await run(process.env.CHBENCH_ENGINES_PYTHON || 'python3', ['-m', 'venv', staging], { signal: opts.signal });
      const py = path.join(staging, 'bin', 'python');
      // The dependency set is pinned: pip may choose only the locked versions (constraints; the build
      // itself is the requirement, so a version the index lacks still says "No matching distribution").
      const lockFile = path.join(staging, 'chbench-lock.txt');
      if (build.lock.length) fs.writeFileSync(lockFile, build.lock.join('\n') + '\n');
      const constraints = build.lock.length ? ['-c', lockFile] : [];
      say(
        `pip install ${requirement(build)}${build.noDeps ? ' --no-deps' : ''}${build.lock.length ? ` -c ${lockFile}` : ''}`,
      );
      await run(
        py,
        [
          '-m',
          'pip',
          'install',
          '--disable-pip-version-check',
          '--no-input',
          '--progress-bar',
          'off',
          ...(build.noDeps ? ['--no-deps'] : []),
          ...constraints,
          requirement(build),
        ],
        { signal: opts.signal, onLine: say },
      );
      // … and checked: exactly the build and its lock, nothing more or other.
      const frozen = (await run(py, ['-m', 'pip', 'freeze', '--disable-pip-version-check'], { signal: opts.signal }))
        .split('\n')
        .map((l) => l.trim().toLowerCase())
        .filter((l) => l && !l.startsWith('#'));
      const want = [requirement(build), ...build.lock].map((l) => l.toLowerCase());
      const extra = frozen.filter((l) => !want.includes(l));
      const missing = want.filter((l) => !frozen.includes(l));
      if (extra.length || missing.length)
        throw new Error(
          `the installed packages differ from the build's lock: ${[
            extra.length ? `not in the lock ${extra.join(', ')}` : '',
            missing.length ? `missing ${missing.join(', ')}` : '',
          ]
            .filter(Boolean)
            .join('; ')}`,
        );
      say(`reading back the engine's version()`);
      const out = await run(
        py,
        [
          '-c',
          [
            'import sys, tempfile, chdb',
            'from chdb import session',
            'd = tempfile.mkdtemp()',
            's = session.Session(d)',
            'print("CHBENCH_VERSION=" + str(s.query("SELECT version()", "CSV")).strip().strip(chr(34)))',
            'print("CHBENCH_PY=" + sys.version.split()[0])',
          ].join('\n'),
        ],
        { signal: opts.signal },
      );
      const clickhouse = /CHBENCH_VERSION=(\S+)/.exec(out)?.[1] ?? '';
      const python = /CHBENCH_PY=(\S+)/.exec(out)?.[1] ?? '';
      if (clickhouse !== build.clickhouse)
        throw new Error(
          `the installed engine reports version() ${JSON.stringify(clickhouse)}, expected ${build.clickhouse}`,
        );
      const manifest: EngineManifest = {
        package: build.package,
        version: build.version,
        clickhouse,
        installedAt: new Date().toISOString(),
        installMs: Date.now() - t0,
        python,
      };
      fs.writeFileSync(path.join(staging, MANIFEST), JSON.stringify(manifest, null, 2) + '\n');
      fs.renameSync(staging, final);
      say(`installed ${requirement(build)} (ClickHouse ${clickhouse}) in ${final}, ${manifest.installMs} ms`);
      return readInstalled(final, build)!;
    } catch (e) {
      fs.rmSync(staging, { recursive: true, force: true });
      throw new EngineInstallError(build, e instanceof Error ? e.message : String(e), { cause: e });
    }
  });
}
