"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * Search attributes on a fresh Temporal server: once `ensureSearchAttributes` (what the worker runs
 * at start) or `startDevServer` returns, a query and a workflow start using them are accepted at
 * once. The servers here run with `system.forceSearchAttributesCacheRefreshOnRead=false`, as a
 * production server does, so a freshly added attribute is listed before the frontend accepts it.
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const client_1 = require("@temporalio/client");
const dev_server_1 = require("../../src/temporal/dev-server");
const search_attribute_registry_1 = require("../../src/temporal/search-attribute-registry");
const search_attributes_1 = require("../../src/schema/search-attributes");
const PROD_LIKE = { 'system.forceSearchAttributesCacheRefreshOnRead': 'false' };
const QUERY = Object.keys(search_attributes_1.SEARCH_ATTRIBUTES)
    .map((k) => `${k} = 'x'`)
    .join(' AND ');
/** A query and a workflow start (no worker needed: it only has to be accepted) using every attribute. */
async function useThem(conn) {
    await conn.workflowService.listWorkflowExecutions({ namespace: 'default', pageSize: 1, query: QUERY });
    const client = new client_1.Client({ connection: conn, namespace: 'default' });
    await client.workflow.start('benchmarkMatrix', {
        taskQueue: 'nobody-polls',
        workflowId: `sa-${Date.now()}`,
        args: [{}],
        searchAttributes: Object.fromEntries(Object.keys(search_attributes_1.SEARCH_ATTRIBUTES).map((k) => [k, ['probe']])),
    });
}
(0, node_test_1.test)('registered by the worker on a fresh server, the attributes are usable as soon as it returns', async (t) => {
    const server = await (0, dev_server_1.startDevServer)({ searchAttributes: false, dynamicConfig: PROD_LIKE });
    const conn = await client_1.Connection.connect({ address: server.address });
    try {
        // The failure mode without the wait (shown, not asserted: it depends on the server's cache timing).
        await conn.operatorService.addSearchAttributes({ namespace: 'default', searchAttributes: { ChbenchRunId: 2 } });
        const raw = await conn.workflowService
            .listWorkflowExecutions({ namespace: 'default', pageSize: 1, query: "ChbenchRunId = 'x'" })
            .then(() => 'accepted')
            .catch((e) => `refused: ${e.message}`);
        t.diagnostic(`a query right after addSearchAttributes, without waiting: ${raw}`);
        await (0, search_attribute_registry_1.ensureSearchAttributes)(server.address, 'default');
        await useThem(conn); // throws INVALID_ARGUMENT "invalid search attribute" without the wait
    }
    finally {
        await conn.close();
        await server.stop();
    }
});
(0, node_test_1.test)('startDevServer returns only once the attributes are usable', async () => {
    const server = await (0, dev_server_1.startDevServer)({ dynamicConfig: PROD_LIKE });
    const conn = await client_1.Connection.connect({ address: server.address });
    try {
        await useThem(conn);
    }
    finally {
        await conn.close();
        await server.stop();
    }
});
(0, node_test_1.test)('the wait is bounded and names the attributes that are missing', async () => {
    const server = await (0, dev_server_1.startDevServer)();
    const conn = await client_1.Connection.connect({ address: server.address });
    try {
        await strict_1.default.rejects((0, search_attribute_registry_1.waitForSearchAttributes)(conn, 'default', ['ChbenchRunId', 'ChbenchNeverRegistered'], {
            timeoutMs: 1500,
            address: server.address,
        }), (e) => /ChbenchNeverRegistered/.test(e.message) &&
            !/ChbenchRunId/.test(e.message.split(' are not registered')[0]) &&
            /namespace default/.test(e.message) &&
            e.message.includes(server.address));
    }
    finally {
        await conn.close();
        await server.stop();
    }
});
//# sourceMappingURL=search-attributes.test.js.map