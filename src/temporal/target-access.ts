/**
 * An activity interceptor that makes every target handle an activity receives reachable from this
 * worker process before the activity runs: it awaits the target's `prepare` verb
 * (`src/targets/target.ts`) for each handle found among the arguments, at top level or as their
 * `.target`. For a `kubernetes` handle that loads the password from its Secret and opens the
 * port-forward (`access: portForward`); targets without `prepare` are untouched. Registered in
 * `src/worker.ts`.
 */
import type { ActivityInboundCallsInterceptor, ActivityInterceptorsFactory } from '@temporalio/worker';
import type { TargetHandle } from '../schema/target';

/**
 * The `prepare` verb of a kind, or `undefined` when the kind has none or is unknown. The worker passes
 * the target registry's (`(k) => targets.find(k)?.prepare`); library code does not import targets.
 */
export type PrepareOf = (kind: unknown) => ((h: TargetHandle) => Promise<void>) | undefined;

/** Whether `x` looks like a {@link TargetHandle} (kind, url, runId, cellKey). */
function isHandle(x: unknown): x is TargetHandle {
  const h = x as Partial<TargetHandle> | null;
  return (
    typeof h === 'object' &&
    h !== null &&
    typeof h.kind === 'string' &&
    typeof h.url === 'string' &&
    typeof h.runId === 'string' &&
    typeof h.cellKey === 'string'
  );
}

/** The handles among an activity's arguments: each argument itself, or its `.target`. */
export function handlesIn(args: readonly unknown[]): TargetHandle[] {
  const out: TargetHandle[] = [];
  for (const a of args) {
    if (isHandle(a)) out.push(a);
    else if (a && typeof a === 'object' && isHandle((a as { target?: unknown }).target))
      out.push((a as { target: TargetHandle }).target);
  }
  return out;
}

/**
 * Await `prepare(handle)` of every handle in `args` whose target has one.
 * @throws what `prepare` throws (the activity then fails with it, and Temporal retries it)
 */
export async function prepareTargets(args: readonly unknown[], prepareOf: PrepareOf): Promise<void> {
  for (const h of handlesIn(args)) await prepareOf(h.kind)?.(h);
}

/** The inbound interceptor: {@link prepareTargets}, then the activity. */
export function targetAccessInbound(prepareOf: PrepareOf): ActivityInboundCallsInterceptor {
  return {
    async execute(input, next) {
      await prepareTargets(input.args, prepareOf);
      return next(input);
    },
  };
}

/** For `Worker.create({ interceptors: { activity: [targetAccessInterceptors(prepareOf)] } })`. */
export function targetAccessInterceptors(prepareOf: PrepareOf): ActivityInterceptorsFactory {
  const inbound = targetAccessInbound(prepareOf);
  return () => ({ inbound });
}
