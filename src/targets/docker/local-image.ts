/**
 * A ClickHouse server image built locally from the host's own Debian files, for machines that reach
 * no registry (tests, the docker demo): Debian's `clickhouse-server` 18.16 binary, the libraries
 * `ldd` lists and the loader, `/etc/clickhouse-server`, the zoneinfo database, `TZ=UTC`, built
 * `FROM scratch` by the engine (`POST /build` through dockerode). It behaves like the official
 * `clickhouse/clickhouse-server` image where the docker target relies on it: the entrypoint is the
 * server with `/etc/clickhouse-server/config.xml`, arguments after `--` override config keys, data
 * in `/var/lib/clickhouse`, logs in `/var/log/clickhouse-server`.
 *
 * The tag carries a hash of the files' contents (`chbench-local/clickhouse-server:18.16-<12 hex>`),
 * so a second build on the same engine with the same files reuses the image.
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type Docker from 'dockerode';

/** Where Debian installs the 18.16 server. */
export const DEBIAN_CLICKHOUSE_SERVER = '/usr/sbin/clickhouse-server';

/** What {@link buildLocalClickHouseImage} made or found. */
export interface LocalImage {
  /** `chbench-local/clickhouse-server:18.16-<hash>`. */
  tag: string;
  /** Image id (`sha256:…`), from `GET /images/<tag>/json`. */
  id: string;
  /** The image was already on the engine (same content hash): nothing was built. */
  reused: boolean;
  /** Wall time of the build, ms (0 when reused). */
  buildMs: number;
}

/** Shared libraries of `bin` and the loader, absolute paths (from `ldd`). */
function libraries(bin: string): string[] {
  const out = execFileSync('ldd', [bin], { encoding: 'utf8' });
  const libs = new Set<string>();
  for (const line of out.split('\n')) {
    const m = /=>\s*(\/\S+)/.exec(line) ?? /^\s*(\/\S+)\s+\(/.exec(line);
    if (m) libs.add(m[1]!);
  }
  return [...libs];
}

/**
 * The files of the image: `[path in the image, path on the host]`, binary first.
 * @throws Error when the server binary is missing
 */
function imageFiles(serverBin: string): [string, string][] {
  if (!fs.existsSync(serverBin))
    throw new Error(`${serverBin} is missing (Debian: apt-get install -y clickhouse-server)`);
  const files: [string, string][] = [['/usr/bin/clickhouse-server', serverBin]];
  for (const lib of libraries(serverBin)) files.push([lib, lib]);
  for (const f of ['config.xml', 'users.xml'])
    files.push([`/etc/clickhouse-server/${f}`, `/etc/clickhouse-server/${f}`]);
  return files;
}

/** sha256 over the files' image paths and contents, plus the recipe version: the tag's hash. */
function contentHash(files: [string, string][]): string {
  const h = createHash('sha256').update('chbench local image v2\n');
  for (const [inImage, onHost] of files) h.update(`${inImage}\n`).update(fs.readFileSync(onHost));
  return h.digest('hex').slice(0, 12);
}

const DOCKERFILE = `FROM scratch
COPY rootfs/ /
ENV TZ=UTC
ENTRYPOINT ["/usr/bin/clickhouse-server", "--config-file=/etc/clickhouse-server/config.xml"]
`;

/** Write the build context (`Dockerfile`, `rootfs/`) into `dir`. */
function writeContext(dir: string, files: [string, string][]): void {
  const root = path.join(dir, 'rootfs');
  for (const [inImage, onHost] of files) {
    fs.mkdirSync(path.join(root, path.dirname(inImage)), { recursive: true });
    // cp -L: a library symlink becomes the file it names.
    fs.copyFileSync(fs.realpathSync(onHost), path.join(root, inImage));
    fs.chmodSync(path.join(root, inImage), fs.statSync(onHost).mode & 0o7777);
  }
  fs.mkdirSync(path.join(root, 'usr/share'), { recursive: true });
  execFileSync('cp', ['-rL', '/usr/share/zoneinfo', path.join(root, 'usr/share/zoneinfo')]);
  fs.mkdirSync(path.join(root, 'etc'), { recursive: true });
  fs.symlinkSync('/usr/share/zoneinfo/UTC', path.join(root, 'etc/localtime'));
  fs.writeFileSync(path.join(root, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/false\n');
  fs.writeFileSync(path.join(root, 'etc/group'), 'root:x:0:\n');
  for (const d of ['var/lib/clickhouse', 'var/log/clickhouse-server', 'tmp', 'root'])
    fs.mkdirSync(path.join(root, d), { recursive: true });
  fs.chmodSync(path.join(root, 'tmp'), 0o1777);
  fs.writeFileSync(path.join(dir, 'Dockerfile'), DOCKERFILE);
}

/**
 * Build (or find) the local ClickHouse 18.16 image on `docker`'s engine.
 * @param opts.serverBin the server binary @default {@link DEBIAN_CLICKHOUSE_SERVER}
 * @returns the tag and id, and whether an image of the same content hash was reused
 * @throws Error when the binary is missing, or with the build's output when the engine refuses it
 */
export async function buildLocalClickHouseImage(
  docker: Docker,
  opts: { serverBin?: string } = {},
): Promise<LocalImage> {
  const files = imageFiles(opts.serverBin ?? DEBIAN_CLICKHOUSE_SERVER);
  const tag = `chbench-local/clickhouse-server:18.16-${contentHash(files)}`;
  const found = await docker
    .getImage(tag)
    .inspect()
    .catch(() => undefined);
  if (found) return { tag, id: found.Id, reused: true, buildMs: 0 };
  const started = Date.now();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chb-image-'));
  try {
    writeContext(dir, files);
    const stream = await docker.buildImage({ context: dir, src: ['Dockerfile', 'rootfs'] }, { t: tag, rm: true });
    const output: { stream?: string; error?: string }[] = await new Promise((resolve, reject) =>
      docker.modem.followProgress(stream, (err: Error | null, res: { stream?: string; error?: string }[]) =>
        err ? reject(err) : resolve(res),
      ),
    );
    const failed = output.find((o) => o.error);
    if (failed)
      throw new Error(
        `building ${tag} failed: ${failed.error}\n${output
          .map((o) => o.stream ?? '')
          .join('')
          .slice(-2000)}`,
      );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const img = await docker.getImage(tag).inspect();
  return { tag, id: img.Id, reused: false, buildMs: Date.now() - started };
}
