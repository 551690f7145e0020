/**
 * `startDevServer` on a port taken between choosing and binding it (two test lanes start servers at
 * once): the real dev server exits with "bind: address already in use" and is started again on fresh
 * ports, not reported as a failure.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as net from 'node:net';
import * as ports from '../../src/lib/net';
import { startDevServer } from '../../src/temporal/dev-server';

test('a dev server whose chosen port was taken before it bound it starts again on fresh ports', async () => {
  // It holds the port and drops every connection at once (a client probing it fails fast, nothing is left open).
  const blocker = net.createServer((sock) => sock.destroy()).listen(0, '127.0.0.1');
  await new Promise((r) => blocker.once('listening', r));
  const taken = (blocker.address() as net.AddressInfo).port;
  const mutable = ports as { freePort: () => Promise<number> };
  const real = mutable.freePort;
  let picks = 0;
  // The first pick returns the held port, as a race with another process would.
  mutable.freePort = async () => (++picks === 1 ? taken : real());
  try {
    const s = await startDevServer({ searchAttributes: false, timeoutMs: 30_000 });
    try {
      assert.notEqual(s.port, taken);
      assert.ok(picks >= 2, `ports picked again (${picks})`);
    } finally {
      await s.stop();
    }
  } finally {
    mutable.freePort = real;
    blocker.close();
  }
});
