/**
 * Is an installed engine still the one pip installed? Every package pip installs lists its files in
 * `<site-packages>/<dist>.dist-info/RECORD` (`path,sha256=<urlsafe base64>,<size>`). {@link verifyEngine}
 * checks each listed file under site-packages (the engine's modules and libraries; scripts such as
 * `bin/pip` are not the engine's) against it: present, of its size, and — with `hashes` — of its sha256. A
 * truncated native library or a deleted Python file is found without starting the engine (a start
 * would die with SIGBUS or an ImportError, and a retry would die the same way).
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

/** What {@link verifyEngine} found. */
export interface EngineCheck {
  /** Files checked (rows of every RECORD that carry a size). */
  files: number;
  /** Bytes those files should hold (sum of RECORD sizes). */
  bytes: number;
  /** Whether sha256 was compared (else sizes only). */
  hashed: boolean;
  /** What is wrong, one line per file (at most `limit`), e.g. `chdb/_chdb.so: 4096 of 512034816 bytes`. */
  problems: string[];
  /** How many files are wrong in all (problems lists the first `limit`). */
  damaged: number;
}

/** `<dir>/lib/python3.X/site-packages` of a venv, or undefined when there is none. */
export function sitePackages(dir: string): string | undefined {
  const lib = path.join(dir, 'lib');
  let names: string[];
  try {
    names = fs.readdirSync(lib);
  } catch {
    return undefined;
  }
  const py = names.find((n) => /^python3\.\d+$/.test(n));
  const sp = py ? path.join(lib, py, 'site-packages') : undefined;
  return sp && fs.existsSync(sp) ? sp : undefined;
}

/** sha256 of a file, as RECORD writes it (urlsafe base64, no padding). */
function fileSha256(file: string): string {
  const h = createHash('sha256');
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(1 << 20);
    for (;;) {
      const n = fs.readSync(fd, buf, 0, buf.length, null);
      if (n <= 0) break;
      h.update(buf.subarray(0, n));
    }
  } finally {
    fs.closeSync(fd);
  }
  return h.digest('base64url');
}

/**
 * Check an installed engine's files against pip's RECORDs.
 * @param dir the engine's environment (`InstalledEngine.dir`)
 * @param opts.hashes compare sha256 too (reads every byte: ≈ 1 s per 500 MB); default sizes only (stat per file, ≈ 30 ms for 8,000 files)
 * @param opts.limit problems listed at most (default 5)
 * @returns the check; `problems` is empty for an intact engine. An environment without site-packages
 *   or without a single RECORD is itself a problem.
 */
export function verifyEngine(dir: string, opts: { hashes?: boolean; limit?: number } = {}): EngineCheck {
  const limit = opts.limit ?? 5;
  const out: EngineCheck = { files: 0, bytes: 0, hashed: opts.hashes === true, problems: [], damaged: 0 };
  const bad = (line: string) => {
    out.damaged++;
    if (out.problems.length < limit) out.problems.push(line);
  };
  const sp = sitePackages(dir);
  if (!sp) {
    bad(`${path.join(dir, 'lib')}: no site-packages (not a Python environment)`);
    return out;
  }
  const records = fs
    .readdirSync(sp)
    .filter((n) => n.endsWith('.dist-info'))
    .map((n) => path.join(sp, n, 'RECORD'))
    .filter((f) => fs.existsSync(f));
  if (!records.length) bad(`${sp}: no package RECORD (pip did not install here)`);
  for (const rec of records) {
    for (const line of fs.readFileSync(rec, 'utf8').split('\n')) {
      // path,hash,size — the path may itself hold commas (then it is quoted, CSV-style).
      const m = /^(?:"((?:[^"]|"")*)"|([^,]*)),([^,]*),(\d*)\s*$/.exec(line);
      if (!m || !m[4]) continue; // RECORD itself, .pyc files: no size recorded
      const rel = m[1] !== undefined ? m[1].replace(/""/g, '"') : m[2]!;
      // Only what the engine loads: files under site-packages (not `../../../bin/pip` and other scripts).
      if (rel.startsWith('..') || path.isAbsolute(rel)) continue;
      const size = Number(m[4]);
      const file = path.resolve(sp, rel);
      out.files++;
      out.bytes += size;
      let st: fs.Stats;
      try {
        st = fs.statSync(file);
      } catch {
        bad(`${rel}: missing`);
        continue;
      }
      if (st.size !== size) {
        bad(`${rel}: ${st.size} of ${size} bytes`);
        continue;
      }
      const want = /^sha256=(.+)$/.exec(m[3]!)?.[1];
      if (opts.hashes && want && fileSha256(file) !== want) bad(`${rel}: sha256 differs from pip's RECORD`);
    }
  }
  return out;
}

/** One line for a damaged engine: how many files, the first problems. */
export function damageLine(check: EngineCheck): string {
  return `${check.damaged} of ${check.files} file(s) differ from pip's RECORD (${check.hashed ? 'sizes and sha256' : 'sizes'}): ${check.problems.join('; ')}${
    check.damaged > check.problems.length ? '; …' : ''
  }`;
}
