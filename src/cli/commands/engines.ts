/**
 * `chbench engines …`: the cache of installed engines (one isolated Python environment per PyPI chdb
 * build, under `CHBENCH_ENGINES_DIR`, default `~/.cache/chbench/engines`; `src/engine/install.ts`).
 *
 *   chbench engines list [--json] [--hashes]   installed engines (label, package, ClickHouse read back, dir, size,
 *                                          install time, files checked against pip's RECORD: sizes, or sha256
 *                                          with --hashes) and every label the embedded target can serve
 *   chbench engines install <label…> [--spec <file>] [--hashes] [--force]   install the builds of these labels
 *                                          (and of a spec's matrix) ahead of a run (progress on stderr); an
 *                                          installed one whose files differ from pip's RECORD is repaired
 *                                          (removed and installed again; refused while in use, unless --force)
 *   chbench engines remove <label> [--force]   delete one build's environment; refused while an engine server
 *                                          (or any process) runs from it, unless --force
 *
 * Provision installs a missing build on its own; `install` only saves that time in the first cell.
 * Exit codes: 0 ok; 1 an install failed, or `remove` refused (in use); 2 an unknown label or bad arguments.
 */
import { lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import {
  enginesDir,
  installEngine,
  installedEngine,
  listInstalledEngines,
  PYPI_BUILDS,
  removeEngine,
  type InstalledEngine,
} from '../../engine/install';
import {
  npmChdbSource,
  pypiArtifact,
  pypiBuildFor,
  pypiChdbSource,
  pypiLabel,
  resolveMatrixVersions,
} from '../../targets/versions';
import { processesUsing } from '../../targets/process/proc';
import { damageLine, verifyEngine, type EngineCheck } from '../../engine/verify';
import { ENGINES_EXIT, fail } from '../exit-codes';
import { validateFile } from '../spec';

/**
 * Bytes under `dir` (regular files and symlinks themselves, not followed), walking the tree.
 * @returns the sum of `lstat` sizes; 0 when `dir` is gone
 */
export function dirBytes(dir: string): number {
  let total = 0;
  const stack = [dir];
  while (stack.length) {
    const d = stack.pop()!;
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      continue;
    }
    for (const n of names) {
      const p = path.join(d, n);
      try {
        const st = lstatSync(p);
        if (st.isDirectory()) stack.push(p);
        else total += st.size;
      } catch {
        /* removed meanwhile */
      }
    }
  }
  return total;
}

/** `612 MB`, `1.2 GB` (powers of 1000). */
export function humanBytes(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(1)} GB`;
  if (n >= 1e6) return `${Math.round(n / 1e6)} MB`;
  if (n >= 1e3) return `${Math.round(n / 1e3)} kB`;
  return `${n} B`;
}

/** One installed engine as `engines list --json` prints it. */
export interface EngineListEntry {
  label: string;
  package: string;
  version: string;
  /** ClickHouse `version()` read back from the installed engine by the install. */
  clickhouse: string;
  dir: string;
  python: string;
  bytes: number;
  installedAt: string;
  installMs: number;
  /** Pids of processes running from its directory now (engine servers). */
  inUseBy: number[];
  /** Its files against pip's RECORD (`src/engine/verify.ts`): damaged > 0 means repair it with `engines install <label>`. */
  check: EngineCheck;
}

/** What `engines list --json` prints. */
export interface EngineList {
  enginesDir: string;
  installed: EngineListEntry[];
  /** Every label the embedded target can serve, with its source and whether it is installed. */
  available: {
    label: string;
    source: 'npm-chdb' | 'pypi-chdb';
    artifact: string;
    clickhouse: string;
    installed: boolean;
  }[];
}

/**
 * The list (reads the engines directory and `/proc`; downloads nothing).
 * @param opts.hashes check every file's sha256 against pip's RECORD (else sizes only)
 */
export function engineList(opts: { hashes?: boolean } = {}): EngineList {
  const installed = listInstalledEngines().map((e: InstalledEngine): EngineListEntry => ({
    label: pypiLabel(e.build),
    package: `${e.build.package}==${e.build.version}`,
    version: e.build.version,
    clickhouse: e.clickhouse,
    dir: e.dir,
    python: e.python,
    bytes: dirBytes(e.dir),
    installedAt: e.installedAt,
    installMs: e.installMs,
    inUseBy: processesUsing(e.dir),
    check: verifyEngine(e.dir, { hashes: opts.hashes === true }),
  }));
  const npm = npmChdbSource.resolve(npmChdbSource.labels()[0]);
  return {
    enginesDir: enginesDir(),
    installed,
    available: [
      {
        label: npm.label,
        source: 'npm-chdb' as const,
        artifact: npm.artifact,
        clickhouse: npm.clickhouse!,
        installed: true,
      },
      ...PYPI_BUILDS.map((b) => ({
        label: pypiLabel(b),
        source: 'pypi-chdb' as const,
        artifact: pypiArtifact(b),
        clickhouse: b.clickhouse,
        installed: installedEngine(b) !== undefined,
        limits: [...b.limits],
      })),
    ].sort((a, b) => compareLabels(a.label, b.label)),
  };
}

function compareLabels(a: string, b: string): number {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  for (let i = 0; i < Math.max(x.length, y.length); i++)
    if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0);
  return 0;
}

/** Rows as a left-aligned table with a header. */
function table(header: string[], rows: string[][]): string {
  const w = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  return [header, ...rows]
    .map(
      (r) =>
        '  ' +
        r
          .map((c, i) => c.padEnd(w[i]))
          .join('  ')
          .trimEnd(),
    )
    .join('\n');
}

/** The text `engines list` prints. */
export function renderEngineList(l: EngineList): string {
  const out = [`engines directory: ${l.enginesDir}${process.env.CHBENCH_ENGINES_DIR ? ' (CHBENCH_ENGINES_DIR)' : ''}`];
  if (!l.installed.length)
    out.push(
      'installed: none (provision installs a build on demand; `chbench engines install <label…>` ahead of a run)',
    );
  else
    out.push(
      `installed: ${l.installed.length}`,
      table(
        ['label', 'package', 'ClickHouse', 'size', 'installed at', 'install', 'in use', 'files', 'dir'],
        l.installed.map((e) => [
          e.label,
          e.package,
          e.clickhouse,
          humanBytes(e.bytes),
          e.installedAt,
          `${(e.installMs / 1000).toFixed(1)} s`,
          e.inUseBy.length ? `pid ${e.inUseBy.join(', ')}` : '-',
          e.check.damaged ? 'DAMAGED' : `ok (${e.check.files}, ${e.check.hashed ? 'sha256' : 'sizes'})`,
          e.dir,
        ]),
      ),
    );
  for (const e of l.installed.filter((x) => x.check.damaged))
    out.push(`damaged: ${e.label}: ${damageLine(e.check)}; repair it with \`chbench engines install ${e.label}\``);
  out.push(
    'available to the embedded target:',
    table(
      ['label', 'source', 'package', 'ClickHouse', 'state'],
      l.available.map((a) => [
        a.label,
        a.source,
        a.artifact,
        a.clickhouse,
        a.source === 'npm-chdb' ? 'bundled' : a.installed ? 'installed' : 'not installed',
      ]),
    ),
  );
  return out.join('\n');
}

/**
 * The labels of a spec's matrix that its embedded target serves from PyPI (`engines` honoured).
 * @throws exits 2 when the file is no valid spec, or its target is not embedded
 */
function specLabels(file: string): string[] {
  const { spec } = validateFile(file);
  if (spec.target.kind !== 'embedded')
    fail(
      ENGINES_EXIT.invalid,
      `${file}: target.kind is ${spec.target.kind}; only the embedded target uses installed engines`,
    );
  return resolveMatrixVersions(spec.target, spec.matrix.version).flatMap((r) =>
    r.ok && r.resolution.source === 'pypi-chdb' ? [r.resolution.label] : [],
  );
}

/** Register `engines list|install|remove` on `program`. */
export function registerEnginesCommand(program: Command): void {
  const engines = program
    .command('engines')
    .description(
      'the installed engines of the embedded target: PyPI chdb builds of other ClickHouse releases (list|install|remove)',
    );

  engines
    .command('list')
    .description(
      'installed engines (label, package, ClickHouse read back, size, install time, dir) and every label available',
    )
    .option('--json', 'print the list as JSON')
    .option('--hashes', "check every file's sha256 against pip's RECORD (reads every byte), not only its size")
    .action((o: { json?: boolean; hashes?: boolean }) => {
      const l = engineList({ hashes: o.hashes === true });
      console.log(o.json ? JSON.stringify(l, null, 2) : renderEngineList(l));
    });

  engines
    .command('install [label...]')
    .description('install the PyPI builds of these labels (e.g. 24.8 26.9) ahead of a run; progress on stderr')
    .option('--spec <file>', "also every PyPI build a run spec's embedded matrix uses (what provision would install)")
    .option('--hashes', "check an installed build's sha256 against pip's RECORD too (else sizes)")
    .option('--force', 'repair a damaged build even while processes run from it')
    .action(async (given: string[], o: { spec?: string; hashes?: boolean; force?: boolean }) => {
      const labels = [...given, ...(o.spec ? specLabels(o.spec) : [])].filter((l, i, all) => all.indexOf(l) === i);
      if (!labels.length) {
        if (!o.spec) fail(ENGINES_EXIT.invalid, 'give one or more labels (e.g. 24.8 26.9) or --spec <file>');
        console.log(`${o.spec}: its matrix uses no PyPI build; nothing to install`);
        return;
      }
      const unknown = labels.filter((l) => !pypiChdbSource.canServe(l) && !npmChdbSource.canServe(l));
      if (unknown.length)
        fail(
          ENGINES_EXIT.invalid,
          `no engine serves ${unknown.map((l) => `"${l}"`).join(', ')}: ${npmChdbSource.offer()}; ${pypiChdbSource.offer()}`,
        );
      const ac = new AbortController();
      const onSigint = () => ac.abort(new Error('interrupted (Ctrl-C)'));
      process.once('SIGINT', onSigint);
      let failed = 0;
      try {
        for (const label of labels) {
          if (npmChdbSource.canServe(label)) {
            console.log(`${label}: ${npmChdbSource.resolve(label).description}; nothing to install`);
            continue;
          }
          const b = pypiBuildFor(label)!;
          const before = installedEngine(b);
          if (before) {
            const check = verifyEngine(before.dir, { hashes: o.hashes === true });
            if (!check.damaged) {
              console.log(
                `${label}: ${pypiArtifact(b)} → ClickHouse ${before.clickhouse}, already installed at ${before.dir} (${check.files} files match pip's RECORD, ${check.hashed ? 'sha256' : 'sizes'})`,
              );
              continue;
            }
            // Damaged: removed and installed again (never under a running engine server, unless --force).
            const users = processesUsing(before.dir);
            if (users.length && !o.force) {
              failed++;
              console.error(
                `chbench: ${label}: ${pypiArtifact(b)} at ${before.dir} is damaged (${damageLine(check)}) but in use by pid ${users.join(', ')}; stop it first (chbench gc), or --force`,
              );
              continue;
            }
            console.error(`${label}: repairing ${pypiArtifact(b)}: ${damageLine(check)}`);
            removeEngine(b);
          }
          console.error(`${label}: installing ${pypiArtifact(b)} into ${enginesDir()} …`);
          const t0 = Date.now();
          try {
            const e = await installEngine(b, { onProgress: (line) => console.error(`  ${line}`), signal: ac.signal });
            console.log(
              `${label}: installed ${pypiArtifact(b)} → ClickHouse ${e.clickhouse} (read back) in ${((Date.now() - t0) / 1000).toFixed(1)} s, ${humanBytes(dirBytes(e.dir))} at ${e.dir}`,
            );
          } catch (err) {
            failed++;
            console.error(`chbench: ${label}: ${(err as Error).message}`);
            if (ac.signal.aborted) break;
          }
        }
      } finally {
        process.removeListener('SIGINT', onSigint);
      }
      if (failed) process.exit(ENGINES_EXIT.failed);
    });

  engines
    .command('remove <label>')
    .description('delete the installed environment of one PyPI build; refused while a process runs from it')
    .option('--force', 'remove even while processes run from it (they keep their open files until they exit)')
    .action((label: string, o: { force?: boolean }) => {
      const b = pypiBuildFor(label);
      if (!b)
        fail(
          ENGINES_EXIT.invalid,
          npmChdbSource.canServe(label)
            ? `"${label}" is the bundled npm engine (${npmChdbSource.offer()}): nothing to remove`
            : `no PyPI build serves "${label}": ${pypiChdbSource.offer()}`,
        );
      const e = installedEngine(b);
      if (!e) {
        console.log(`${label}: ${pypiArtifact(b)} is not installed in ${enginesDir()}; nothing removed`);
        return;
      }
      const users = processesUsing(e.dir);
      if (users.length && !o.force)
        fail(
          ENGINES_EXIT.failed,
          `${label}: ${pypiArtifact(b)} at ${e.dir} is in use by pid ${users.join(', ')} (an engine server of a running cell?); stop it first (chbench gc), or --force`,
        );
      const bytes = dirBytes(e.dir);
      removeEngine(b);
      console.log(`${label}: removed ${pypiArtifact(b)} (${humanBytes(bytes)}) from ${e.dir}`);
    });
}
