/**
 * A private Docker engine for tests and the docker demo: `dockerd` started as root with its own data
 * root, exec root, pidfile and unix socket under a temporary directory, no bridge and no iptables
 * rules (containers use host networking; the default bridge would put them on 172.17.0.0/16), overlay2
 * storage and the cgroupfs cgroup driver. Stopped by its pid, never by name. Users with their own
 * Docker engine never need this: the docker target reads `DOCKER_HOST`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';
import { pollUntil } from '../../lib/poll';

/** A running private engine. */
export interface PrivateEngine {
  /** `unix://<dir>/docker.sock`: what `DOCKER_HOST` should say to reach it. */
  dockerHost: string;
  /** The socket path. */
  socketPath: string;
  /** The engine's data root (`--data-root`): images, containers and volumes live here. */
  dataRoot: string;
  /** dockerd's pid. */
  pid: number;
  /** A client of this engine. */
  docker: Docker;
  /** The tail of dockerd's log (stdout and stderr). */
  logTail(): string;
  /** Stop dockerd (SIGTERM, SIGKILL after 20 s), unmount what it left, remove the directory. Idempotent. */
  stop(): Promise<void>;
}

/** Why a private engine cannot start here (not root, no dockerd), or `undefined` when it can. */
export function privateEngineUnavailable(dockerd = '/usr/sbin/dockerd'): string | undefined {
  if (process.getuid?.() !== 0) return 'dockerd must run as root (uid 0)';
  if (!existsSync(dockerd))
    return `${dockerd} is missing (Debian: apt-get install -y --no-install-recommends docker.io)`;
  return undefined;
}

/**
 * Start `dockerd` on a private socket and wait until it answers `GET /_ping`.
 * @param opts.dockerd path of the daemon @default `/usr/sbin/dockerd`
 * @param opts.dir directory for its state (kept across stops only with `keep`) @default a new temp dir
 * @param opts.timeoutMs ready timeout, ms @default 60000
 * @throws Error with the daemon's log tail when it exits or does not answer in time
 */
export async function startPrivateEngine(
  opts: { dockerd?: string; dir?: string; timeoutMs?: number } = {},
): Promise<PrivateEngine> {
  const dockerd = opts.dockerd ?? '/usr/sbin/dockerd';
  const why = privateEngineUnavailable(dockerd);
  if (why) throw new Error(`cannot start a private Docker engine: ${why}`);
  // A short path: unix socket paths are limited to 107 bytes.
  const dir = opts.dir ?? mkdtempSync(path.join(os.tmpdir(), 'chb-dockerd-'));
  const socketPath = path.join(dir, 'docker.sock');
  const execRoot = path.join(dir, 'exec');
  const dataRoot = path.join(dir, 'data');
  const logFile = path.join(dir, 'dockerd.log');
  const log = openSync(logFile, 'a');
  const child: ChildProcess = spawn(
    dockerd,
    [
      `--data-root=${dataRoot}`,
      `--exec-root=${execRoot}`,
      `--pidfile=${path.join(dir, 'dockerd.pid')}`,
      `--host=unix://${socketPath}`,
      '--bridge=none',
      '--iptables=false',
      '--ip-masq=false',
      '--userland-proxy=false',
      '--storage-driver=overlay2',
      '--exec-opt',
      'native.cgroupdriver=cgroupfs',
      // Its own containerd (started by dockerd under exec root), not the machine's.
      `--containerd-namespace=chbench-${path.basename(dir)}`,
      `--containerd-plugins-namespace=chbench-${path.basename(dir)}-plugins`,
    ],
    { stdio: ['ignore', log, log], detached: true },
  );
  const pid = child.pid!;
  let exitedWith: string | undefined;
  child.once('exit', (code, signal) => (exitedWith = `${code ?? signal}`));
  const logTail = () => {
    try {
      return readFileSync(logFile, 'utf8').slice(-3000);
    } catch {
      return '';
    }
  };
  const docker = new Docker({ socketPath });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    if (exitedWith === undefined) {
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        // gone
      }
      const killer = setTimeout(() => {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone
        }
      }, 20_000);
      await new Promise<void>((resolve) =>
        exitedWith !== undefined ? resolve() : child.once('exit', () => resolve()),
      );
      clearTimeout(killer);
    }
    // dockerd may leave its default network namespace and overlay mounts mounted below the directory.
    for (const m of mountsBelow(dir).reverse()) {
      try {
        execFileSync('umount', ['-l', m], { stdio: 'ignore' });
      } catch {
        // not mounted any more
      }
    }
    if (!opts.dir) rmSync(dir, { recursive: true, force: true });
  };
  try {
    await pollUntil(
      async () => {
        if (exitedWith !== undefined) throw new Error(`dockerd exited (${exitedWith}): ${logTail()}`);
        if (!existsSync(socketPath)) return undefined;
        return (await docker.ping().then(
          () => true,
          () => undefined,
        )) as true | undefined;
      },
      { what: 'private dockerd /_ping', timeoutMs: opts.timeoutMs ?? 60_000, intervalMs: 200, stopOn: () => true },
    );
  } catch (e) {
    await stop();
    throw new Error(`${(e as Error).message}\n${logTail()}`, { cause: e });
  }
  return { dockerHost: `unix://${socketPath}`, socketPath, dataRoot, pid, docker, logTail, stop };
}

/** Mount points at or below `dir` (from `/proc/self/mountinfo`), shallowest first. */
function mountsBelow(dir: string): string[] {
  try {
    return readFileSync('/proc/self/mountinfo', 'utf8')
      .split('\n')
      .map((l) => l.split(' ')[4])
      .filter((m): m is string => !!m && (m === dir || m.startsWith(`${dir}/`)))
      .sort((a, b) => a.length - b.length);
  } catch {
    return [];
  }
}
