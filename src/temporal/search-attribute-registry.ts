/**
 * Registering chbench's custom search attributes and waiting until a Temporal server really accepts
 * them.
 *
 * `operatorService.addSearchAttributes` returns before every frontend has refreshed its
 * search-attribute cache: on a server without `system.forceSearchAttributesCacheRefreshOnRead`
 * (every production server; the dev server sets it) `listSearchAttributes` already shows the new
 * attributes while a visibility query or a workflow start that uses them is still refused with
 * `INVALID_ARGUMENT: invalid search attribute: <name>` for about a second. A worker must therefore
 * not start polling — and a harness must not start a run — before both checks pass.
 */
import { Connection } from '@temporalio/client';
import { SEARCH_ATTRIBUTES } from '../schema/search-attributes';
import { pollUntil } from '../lib/poll';

/** Options of {@link waitForSearchAttributes}. */
export interface WaitForSearchAttributesOptions {
  /** Give up after this many milliseconds. @default 30000 */
  timeoutMs?: number;
  /** Delay between checks, ms. @default 100 */
  pollMs?: number;
  /** Shown in the error message (the server's address). */
  address?: string;
}

/** What one readiness check saw. */
interface Check {
  /** Attributes `listSearchAttributes` does not show yet. */
  missing: string[];
  /** Why the probe query was refused (undefined: accepted, or not tried because some are missing). */
  refused?: string;
}

async function checkOnce(conn: Connection, namespace: string, names: string[]): Promise<Check> {
  const have = await conn.operatorService.listSearchAttributes({ namespace });
  const missing = names.filter((k) => !(k in (have.customAttributes ?? {})));
  if (missing.length) return { missing };
  // The probe: a visibility query naming every attribute. The frontend validates the query against
  // its search-attribute cache, the same cache that validates a workflow start's attributes.
  const query = names.map((n) => `${n} = '__chbench_probe__'`).join(' AND ');
  try {
    await conn.workflowService.listWorkflowExecutions({ namespace, pageSize: 1, query });
    return { missing: [] };
  } catch (e) {
    const msg = (e as Error).message ?? String(e);
    // Only "this attribute is unknown" means "not yet"; anything else is a real error.
    if (!/invalid search attribute|unknown search attribute|not defined|INVALID_ARGUMENT/i.test(msg)) throw e;
    return { missing: [], refused: msg.split('\n')[0] };
  }
}

/**
 * Wait until every attribute in `names` is both listed by `operatorService.listSearchAttributes` and
 * accepted in a visibility query (`listWorkflowExecutions` with `<name> = '…'` for each).
 * @param conn a client connection to the server
 * @param namespace the namespace the attributes were registered on
 * @param names attribute names (default: every name in SEARCH_ATTRIBUTES)
 * @throws Error after `timeoutMs`, naming the attributes that are still missing or refused, the
 *   namespace and the server's last answer
 */
export async function waitForSearchAttributes(
  conn: Connection,
  namespace: string,
  names: string[] = Object.keys(SEARCH_ATTRIBUTES),
  o: WaitForSearchAttributesOptions = {},
): Promise<void> {
  const timeoutMs = o.timeoutMs ?? 30_000;
  const at = o.address ? ` at ${o.address}` : '';
  let c: Check = { missing: [] };
  await pollUntil(
    async () => {
      c = await checkOnce(conn, namespace, names);
      return !c.missing.length && !c.refused;
    },
    {
      timeoutMs,
      intervalMs: o.pollMs ?? 100,
      onTimeout: ({ lastError: e }) => {
        if (e !== undefined)
          return new Error(
            `search attributes ${names.join(', ')} could not be checked on namespace ${namespace}${at}: ${(e as Error).message?.split('\n')[0] ?? String(e)}`,
            { cause: e },
          );
        const what = c.missing.length
          ? `search attributes ${c.missing.join(', ')} are not registered on namespace ${namespace}`
          : `search attributes ${names.join(', ')} are registered on namespace ${namespace} but a query using them is still refused (${c.refused})`;
        return new Error(`${what}${at} after waiting ${timeoutMs} ms`);
      },
    },
  );
}

/**
 * Register chbench's search attributes on the namespace if missing (dev servers and self-hosted
 * clusters allow it; on Temporal Cloud create them beforehand), then wait until the server accepts
 * them ({@link waitForSearchAttributes}), so the first run started right after never fails on them.
 * @param o.timeoutMs bound of the wait, ms (default 30000)
 * @throws Error naming the attributes when they are missing and cannot be created, or are still not
 *   usable when the wait ends.
 */
export async function ensureSearchAttributes(
  address: string,
  namespace: string,
  o: { timeoutMs?: number } = {},
): Promise<void> {
  const c = await Connection.connect({ address });
  try {
    const have = await c.operatorService.listSearchAttributes({ namespace });
    const missing = Object.keys(SEARCH_ATTRIBUTES).filter((k) => !(k in (have.customAttributes ?? {})));
    if (missing.length) {
      try {
        await c.operatorService.addSearchAttributes({
          namespace,
          searchAttributes: Object.fromEntries(missing.map((k) => [k, 2 /* INDEXED_VALUE_TYPE_KEYWORD */])),
        });
      } catch (e) {
        throw new Error(
          `search attributes ${missing.join(', ')} are missing on namespace ${namespace} and could not be created (${(e as Error).message}); create them with: ${missing
            .map((k) => `temporal operator search-attribute create --name ${k} --type Keyword`)
            .join(' && ')}`,
          { cause: e },
        );
      }
    }
    await waitForSearchAttributes(c, namespace, Object.keys(SEARCH_ATTRIBUTES), { address, timeoutMs: o.timeoutMs });
  } finally {
    await c.close();
  }
}
