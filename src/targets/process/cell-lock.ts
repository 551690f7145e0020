/** One provision attempt per cell at a time: `<dataDir>/provision.lock`, created with O_EXCL. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pollUntil } from '../../lib/poll';
import { tailFile } from './spawn';

/**
 * Run `fn` holding `<dataDir>/provision.lock` (created with O_EXCL), so two provision attempts for
 * the same cell (e.g. a retry racing an attempt that is still running) never start two servers: the
 * second waits, then adopts. A lock older than `staleMs` (its holder died) is broken.
 * @param dataDir the cell's directory (created if missing)
 * @param fn the work to do while holding the lock
 * @param opts.waitMs give up waiting after this many milliseconds (default 150000)
 * @param opts.staleMs lock age after which it is considered abandoned (default 120000)
 * @throws Error when the lock is still held after `waitMs`; whatever `fn` throws
 */
export async function withCellLock<T>(
  dataDir: string,
  fn: () => Promise<T>,
  opts: { waitMs?: number; staleMs?: number } = {},
): Promise<T> {
  const waitMs = opts.waitMs ?? 150_000;
  const staleMs = opts.staleMs ?? 120_000;
  const lock = path.join(dataDir, 'provision.lock');
  let age = 0;
  /** One try: true once the lock is ours; a lock released or broken meanwhile is tried again at once. */
  const acquire = (): boolean => {
    fs.mkdirSync(dataDir, { recursive: true });
    try {
      fs.writeFileSync(lock, `${process.pid} ${new Date().toISOString()}\n`, { flag: 'wx' });
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    try {
      age = Date.now() - fs.statSync(lock).mtimeMs;
    } catch {
      return acquire(); // released meanwhile
    }
    if (age > staleMs) {
      fs.rmSync(lock, { force: true });
      return acquire();
    }
    return false;
  };
  await pollUntil(acquire, {
    timeoutMs: waitMs,
    intervalMs: 200,
    stopOn: () => true, // file system errors other than "it exists" end the wait
    onTimeout: () =>
      new Error(
        `${lock} is held by another provision attempt (${tailFile(lock, 200).trim()}) for ${Math.round(age / 1000)} s`,
      ),
  });
  try {
    return await fn();
  } finally {
    fs.rmSync(lock, { force: true });
  }
}
