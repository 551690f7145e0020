"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.waitForSearchAttributes = waitForSearchAttributes;
exports.ensureSearchAttributes = ensureSearchAttributes;
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
const client_1 = require("@temporalio/client");
const search_attributes_1 = require("../schema/search-attributes");
const poll_1 = require("../lib/poll");
async function checkOnce(conn, namespace, names) {
    const have = await conn.operatorService.listSearchAttributes({ namespace });
    const missing = names.filter((k) => !(k in (have.customAttributes ?? {})));
    if (missing.length)
        return { missing };
    // The probe: a visibility query naming every attribute. The frontend validates the query against
    // its search-attribute cache, the same cache that validates a workflow start's attributes.
    const query = names.map((n) => `${n} = '__chbench_probe__'`).join(' AND ');
    try {
        await conn.workflowService.listWorkflowExecutions({ namespace, pageSize: 1, query });
        return { missing: [] };
    }
    catch (e) {
        const msg = e.message ?? String(e);
        // Only "this attribute is unknown" means "not yet"; anything else is a real error.
        if (!/invalid search attribute|unknown search attribute|not defined|INVALID_ARGUMENT/i.test(msg))
            throw e;
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
async function waitForSearchAttributes(conn, namespace, names = Object.keys(search_attributes_1.SEARCH_ATTRIBUTES), o = {}) {
    const timeoutMs = o.timeoutMs ?? 30_000;
    const at = o.address ? ` at ${o.address}` : '';
    let c = { missing: [] };
    await (0, poll_1.pollUntil)(async () => {
        c = await checkOnce(conn, namespace, names);
        return !c.missing.length && !c.refused;
    }, {
        timeoutMs,
        intervalMs: o.pollMs ?? 100,
        onTimeout: ({ lastError: e }) => {
            if (e !== undefined)
                return new Error(`search attributes ${names.join(', ')} could not be checked on namespace ${namespace}${at}: ${e.message?.split('\n')[0] ?? String(e)}`, { cause: e });
            const what = c.missing.length
                ? `search attributes ${c.missing.join(', ')} are not registered on namespace ${namespace}`
                : `search attributes ${names.join(', ')} are registered on namespace ${namespace} but a query using them is still refused (${c.refused})`;
            return new Error(`${what}${at} after waiting ${timeoutMs} ms`);
        },
    });
}
/**
 * Register chbench's search attributes on the namespace if missing (dev servers and self-hosted
 * clusters allow it; on Temporal Cloud create them beforehand), then wait until the server accepts
 * them ({@link waitForSearchAttributes}), so the first run started right after never fails on them.
 * @param o.timeoutMs bound of the wait, ms (default 30000)
 * @throws Error naming the attributes when they are missing and cannot be created, or are still not
 *   usable when the wait ends.
 */
async function ensureSearchAttributes(address, namespace, o = {}) {
    const c = await client_1.Connection.connect({ address });
    try {
        const have = await c.operatorService.listSearchAttributes({ namespace });
        const missing = Object.keys(search_attributes_1.SEARCH_ATTRIBUTES).filter((k) => !(k in (have.customAttributes ?? {})));
        if (missing.length) {
            try {
                await c.operatorService.addSearchAttributes({
                    namespace,
                    searchAttributes: Object.fromEntries(missing.map((k) => [k, 2 /* INDEXED_VALUE_TYPE_KEYWORD */])),
                });
            }
            catch (e) {
                throw new Error(`search attributes ${missing.join(', ')} are missing on namespace ${namespace} and could not be created (${e.message}); create them with: ${missing
                    .map((k) => `temporal operator search-attribute create --name ${k} --type Keyword`)
                    .join(' && ')}`, { cause: e });
            }
        }
        await waitForSearchAttributes(c, namespace, Object.keys(search_attributes_1.SEARCH_ATTRIBUTES), { address, timeoutMs: o.timeoutMs });
    }
    finally {
        await c.close();
    }
}
//# sourceMappingURL=search-attribute-registry.js.map