/**
 * Loopback networking helpers shared by the dev server, the process targets, tests and benches.
 */
import net from 'node:net';

/**
 * Ask the kernel for a free TCP port on 127.0.0.1 (listen on port 0, read it, close).
 * The port is free when returned; another process could still take it before the caller binds it,
 * so a caller that cannot bind port 0 itself should retry on "address in use".
 * @returns a port number in 1..65535
 * @throws Error when the listen fails or the kernel assigns no port
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => (port > 0 ? resolve(port) : reject(new Error('freePort: no port assigned'))));
    });
  });
}

/**
 * Several distinct free loopback ports (see {@link freePort}).
 * @param n how many (≥ 1)
 * @returns `n` distinct port numbers
 */
export async function freePorts(n: number): Promise<number[]> {
  const out: number[] = [];
  while (out.length < n) {
    const p = await freePort();
    if (!out.includes(p)) out.push(p);
  }
  return out;
}

/**
 * Whether a URL's host is a loopback address: `localhost` (and names under `.localhost`), any IPv4
 * address in 127.0.0.0/8, or IPv6 `::1` (also as the IPv4-mapped `::ffff:127.x.y.z`). Names are not
 * resolved. A URL that does not parse is not loopback.
 */
export function isLoopbackUrl(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (net.isIPv4(host)) return host.split('.')[0] === '127';
  if (net.isIPv6(host)) {
    if (host === '::1' || /^(0{1,4}:){7}0{0,3}1$/.test(host)) return true;
    // IPv4-mapped, as WHATWG URL prints it (hex groups: ::ffff:7f00:1).
    const mapped = /^::ffff:([0-9a-f]{1,4}):[0-9a-f]{1,4}$/.exec(host);
    return !!mapped && parseInt(mapped[1], 16) >> 8 === 127;
  }
  return false;
}
