/** Dispatch from a target spec to its provisioner. */
import type { TargetSpec } from '../spec';
import type { ProvisionRequest, TargetHandle } from './types';
import { provisionEmbedded, teardownEmbedded } from './embedded';
import { provisionLocal, teardownLocal } from './local';
import { provisionExternal, teardownExternal } from './external';

export type { TargetHandle, ProvisionRequest } from './types';

/**
 * Start or reach the cell's ClickHouse. Idempotent: a retry adopts what an earlier attempt started.
 * @throws Error when the target cannot be provisioned (message says why).
 */
export async function provisionTarget(spec: TargetSpec, req: ProvisionRequest): Promise<TargetHandle> {
  switch (spec.kind) {
    case 'embedded':
      return provisionEmbedded(req);
    case 'local': {
      const bin = spec.binaries[req.version];
      if (!bin) throw new Error(`local target: no binary for version ${req.version}`);
      return provisionLocal(req, bin);
    }
    case 'external':
      return provisionExternal(req, spec);
  }
}

/** Stop / drop whatever {@link provisionTarget} created. Idempotent. */
export async function teardownTarget(h: TargetHandle): Promise<void> {
  switch (h.kind) {
    case 'embedded':
      return teardownEmbedded(h);
    case 'local':
      return teardownLocal(h);
    case 'external':
      return teardownExternal(h);
  }
}
