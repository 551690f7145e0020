/** Which chbench produced a run's results: the package version and, in a git checkout, the commit (`run.json` `chbench`). */
import path from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { REPO_ROOT } from '../config';

/** chbench's package version and, in a git checkout, the commit. */
export function chbenchVersion(): { version: string; commit: string | null } {
  const root = REPO_ROOT;
  const file = path.join(root, 'package.json');
  const pkg = existsSync(file)
    ? (JSON.parse(readFileSync(file, 'utf8')) as { version: string })
    : { version: 'unknown' };
  let commit: string | null = null;
  try {
    commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  } catch {
    /* not a git checkout */
  }
  return { version: pkg.version, commit };
}
