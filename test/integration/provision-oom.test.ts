/**
 * A cell server killed by its memory limit at provision (real kernel, root, cgroup memory
 * controller): provisioning of the embedded target fails at once, non-retryable, with a message that
 * names the OOM kill and the limit and stays short (Temporal keeps a retryable activity failure only up
 * to 4 KiB). The spec check refuses such a limit (`MIN_MEMORY_BYTES`); the target is called here
 * directly with a limit below it, as a spec that got past the check would be. The teardown removes
 * the cell's data directory and cgroup.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { provisionEmbedded, embeddedTarget } from '../../src/targets/embedded';
import { FAILURE } from '../../src/schema/failures';
import type { ProvisionRequest } from '../../src/schema/target';

const canLimit = process.getuid?.() === 0 && fs.existsSync('/sys/fs/cgroup/memory/memory.limit_in_bytes');
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-oom-test-'));
const req: ProvisionRequest = {
  runId: `test-${randomUUID().slice(0, 8)}`,
  cellKey: 'cell-oom',
  version: '26.7',
  workDir,
};

after(async () => {
  await embeddedTarget
    .teardownCell({ kind: 'embedded', resources: { memory: 1000 } } as never, req)
    .catch(() => undefined);
  fs.rmSync(workDir, { recursive: true, force: true });
});

test(
  'an OOM kill at start is one short, non-retryable failure naming the memory limit',
  { skip: canLimit ? false : 'needs root and the cgroup v1 memory controller', timeout: 120_000 },
  async () => {
    const started = Date.now();
    await assert.rejects(provisionEmbedded(req, 'npm', { memory: 1000 }), (e: unknown) => {
      assert.ok(e instanceof ApplicationFailure, String(e));
      assert.equal(e.type, FAILURE.InvalidSpec);
      assert.equal(e.nonRetryable, true);
      assert.match(e.message, /OOM killer \d+ time\(s\) while starting: target\.resources\.memory 1000 bytes/);
      assert.ok(e.message.length < 1000, `${e.message.length} characters`);
      return true;
    });
    assert.ok(Date.now() - started < 60_000, 'not retried for minutes');
  },
);
