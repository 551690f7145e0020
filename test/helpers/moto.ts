/**
 * A real moto server (PyPI `moto[ec2,cloudwatch]`, `.venv/bin/moto_server`) on a free loopback port,
 * serving the EC2 and CloudWatch APIs for tests, and AWS SDK clients pointed at it with fake
 * credentials given to the clients only (no AWS_* variable is read or set, so a developer's real
 * profile is never used). `stop()` ends the server's whole process group.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { EC2Client } from '@aws-sdk/client-ec2';
import { freePort } from '../../src/lib/net';
import { pollUntil } from '../../src/lib/poll';
import { REPO_ROOT } from '../../src/config';

/** A running moto server and clients for it. */
export interface Moto {
  /** `http://127.0.0.1:<port>` */
  endpoint: string;
  region: 'us-east-1';
  ec2: EC2Client;
  cloudwatch: CloudWatchClient;
  /** Stop the server and its children; idempotent. */
  stop(): Promise<void>;
}

/** Fake credentials, for moto only. */
const FAKE_CREDENTIALS = { accessKeyId: 'testing', secretAccessKey: 'testing' };

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * Start `.venv/bin/moto_server` on 127.0.0.1:<free port> and wait until it answers HTTP.
 * @param timeoutMs give up after this long @default 30000
 * @throws Error with the server's output when it exits or does not answer in time
 */
export async function startMoto(timeoutMs = 30_000): Promise<Moto> {
  const port = await freePort();
  const bin = path.join(REPO_ROOT, '.venv', 'bin', 'moto_server');
  // Own process group (detached), so stop() can signal the server and anything it forks.
  const child = spawn(bin, ['-H', '127.0.0.1', '-p', String(port)], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp' },
  });
  let output = '';
  const keep = (b: Buffer) => {
    output = (output + b.toString()).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const gone = exited(child);
  const endpoint = `http://127.0.0.1:${port}`;

  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      // already gone
    }
    const timer = setTimeout(() => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }, 5000);
    await gone;
    clearTimeout(timer);
  };

  try {
    await pollUntil(
      async () => {
        if (child.exitCode !== null) throw new Error(`moto_server exited with ${child.exitCode}: ${output}`);
        const r = await fetch(`${endpoint}/moto-api/`).catch(() => null);
        return r !== null && r.status < 500;
      },
      {
        timeoutMs,
        intervalMs: 100,
        what: `moto_server on ${endpoint}`,
        stopOn: (e) => e instanceof Error && e.message.startsWith('moto_server exited'),
      },
    );
  } catch (e) {
    await stop();
    throw e;
  }
  const cfg = { endpoint, region: 'us-east-1', credentials: FAKE_CREDENTIALS, maxAttempts: 1 };
  const ec2 = new EC2Client(cfg);
  const cloudwatch = new CloudWatchClient(cfg);
  return {
    endpoint,
    region: 'us-east-1',
    ec2,
    cloudwatch,
    async stop() {
      ec2.destroy();
      cloudwatch.destroy();
      await stop();
    },
  };
}
