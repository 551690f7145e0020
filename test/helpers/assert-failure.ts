/**
 * One assertion for typed failures: the promise rejects and an `ApplicationFailure` of `type` is in
 * the error's cause chain (a `WorkflowFailedError` → `ActivityFailure` → `ApplicationFailure`, or the
 * failure itself when an activity function is called directly).
 */
import assert from 'node:assert/strict';
import { ApplicationFailure } from '@temporalio/common';

/**
 * Assert that `promise` rejects with a failure of `type` somewhere in its cause chain.
 * @param message when given, the failure's message must match it.
 * @returns the `ApplicationFailure` found, for further assertions (details, nonRetryable).
 */
export async function assertFailureType(
  promise: Promise<unknown>,
  type: string,
  message?: RegExp,
): Promise<ApplicationFailure> {
  let found: ApplicationFailure | undefined;
  await assert.rejects(promise, (err: unknown) => {
    const chain: string[] = [];
    for (let e = err as { cause?: unknown } | undefined, n = 0; e && n < 20; e = e.cause as typeof e, n++) {
      chain.push(e instanceof ApplicationFailure ? `ApplicationFailure(${e.type})` : ((e as Error).name ?? typeof e));
      if (e instanceof ApplicationFailure && e.type === type) {
        found = e;
        break;
      }
    }
    assert.ok(
      found,
      `expected a failure of type ${type}; got ${chain.join(' → ')}: ${String((err as Error)?.message ?? err)}`,
    );
    if (message) assert.match(found.message, message);
    return true;
  });
  return found!;
}
