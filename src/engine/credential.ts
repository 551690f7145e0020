/**
 * The password of an engine server chbench starts (an embedded cell's, the embedded results
 * database's): made once per server directory and kept in `<dir>/credential`, readable by the
 * worker's user only (mode 0600), the directory closed to other users (0700: the port file, data and
 * logs with it). The server checks it (`--auth-from-env`); every client reads it from the file. The
 * password never enters a spec, a handle, workflow history or a record: they name the file.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';

/** File name of the credential in a server's directory. */
export const CREDENTIAL_FILE = 'credential';

/**
 * The server's password: read from `<dir>/credential`, or made (24 random bytes, hex) and written
 * there with mode 0600 (atomically). The directory is created if missing and set to mode 0700.
 * @throws Error when the directory cannot be created or the file cannot be written or read
 */
export function serverCredential(dir: string): string {
  const file = path.join(dir, CREDENTIAL_FILE);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.chmodSync(dir, 0o700);
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
  const password = randomBytes(24).toString('hex');
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${password}\n`, { mode: 0o600 });
  fs.renameSync(tmp, file);
  return password;
}

/** The environment that makes an engine server started with `--auth-from-env` require the credential. */
export function credentialEnv(dir: string): Record<string, string> {
  return { CLICKHOUSE_USER: 'default', CLICKHOUSE_PASSWORD: serverCredential(dir) };
}
