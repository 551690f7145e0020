/**
 * Search attributes on a fresh Temporal server: once `ensureSearchAttributes` (what the worker runs
 * at start) or `startDevServer` returns, a query and a workflow start using them are accepted at
 * once. The servers here run with `system.forceSearchAttributesCacheRefreshOnRead=false`, as a
 * production server does, so a freshly added attribute is listed before the frontend accepts it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, Connection } from '@temporalio/client';
import { startDevServer } from '../../src/temporal/dev-server';
import { ensureSearchAttributes, waitForSearchAttributes } from '../../src/temporal/search-attribute-registry';
import { SEARCH_ATTRIBUTES } from '../../src/schema/search-attributes';

const PROD_LIKE = { 'system.forceSearchAttributesCacheRefreshOnRead': 'false' };
const QUERY = Object.keys(SEARCH_ATTRIBUTES)
  .map((k) => `${k} = 'x'`)
  .join(' AND ');

/** A query and a workflow start (no worker needed: it only has to be accepted) using every attribute. */
async function useThem(conn: Connection): Promise<void> {
  await conn.workflowService.listWorkflowExecutions({ namespace: 'default', pageSize: 1, query: QUERY });
  const client = new Client({ connection: conn, namespace: 'default' });
  await client.workflow.start('benchmarkMatrix', {
    taskQueue: 'nobody-polls',
    workflowId: `sa-${Date.now()}`,
    args: [{}],
    searchAttributes: Object.fromEntries(Object.keys(SEARCH_ATTRIBUTES).map((k) => [k, ['probe']])),
  });
}

test('registered by the worker on a fresh server, the attributes are usable as soon as it returns', async (t) => {
  const server = await startDevServer({ searchAttributes: false, dynamicConfig: PROD_LIKE });
  const conn = await Connection.connect({ address: server.address });
  try {
    // The failure mode without the wait (shown, not asserted: it depends on the server's cache timing).
    await conn.operatorService.addSearchAttributes({ namespace: 'default', searchAttributes: { ChbenchRunId: 2 } });
    const raw = await conn.workflowService
      .listWorkflowExecutions({ namespace: 'default', pageSize: 1, query: "ChbenchRunId = 'x'" })
      .then(() => 'accepted')
      .catch((e: Error) => `refused: ${e.message}`);
    t.diagnostic(`a query right after addSearchAttributes, without waiting: ${raw}`);

    await ensureSearchAttributes(server.address, 'default');
    await useThem(conn); // throws INVALID_ARGUMENT "invalid search attribute" without the wait
  } finally {
    await conn.close();
    await server.stop();
  }
});

test('startDevServer returns only once the attributes are usable', async () => {
  const server = await startDevServer({ dynamicConfig: PROD_LIKE });
  const conn = await Connection.connect({ address: server.address });
  try {
    await useThem(conn);
  } finally {
    await conn.close();
    await server.stop();
  }
});

test('the wait is bounded and names the attributes that are missing', async () => {
  const server = await startDevServer();
  const conn = await Connection.connect({ address: server.address });
  try {
    await assert.rejects(
      waitForSearchAttributes(conn, 'default', ['ChbenchRunId', 'ChbenchNeverRegistered'], {
        timeoutMs: 1500,
        address: server.address,
      }),
      (e: Error) =>
        /ChbenchNeverRegistered/.test(e.message) &&
        !/ChbenchRunId/.test(e.message.split(' are not registered')[0]) &&
        /namespace default/.test(e.message) &&
        e.message.includes(server.address),
    );
  } finally {
    await conn.close();
    await server.stop();
  }
});
