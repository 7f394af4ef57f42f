import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertError } from '../../helpers/assertions.ts';
import { createEndpoint, merchantCalls, openWebhookEndpointSuite } from '../../helpers/webhooks.ts';

type Endpoint = Record<string, unknown> & { id: string; secret?: string };

describe('DELETE /v1/webhook_endpoints/:endpointId', () => {
  let context: TestContext;
  let sandboxOnly: TestMerchant;

  before(async () => ({ context, sandboxOnly } = await openWebhookEndpointSuite()));
  after(async () => context.close());
  const { post, get } = merchantCalls(() => context);

  test('delete: gone from reads and lists; a second delete is 404', async () => {
    const created = await createEndpoint(context, sandboxOnly, { url: 'https://hooks.example.com/d' });
    const deleted = await context.request({ method: 'DELETE', url: `/v1/webhook_endpoints/${created.id}`, apiKey: sandboxOnly.apiKey });
    assert.equal(deleted.statusCode, 200, deleted.body);
    assert.deepEqual(json<{ data: unknown }>(deleted).data, { id: created.id, deleted: true });
    assertError(await get(sandboxOnly, `/v1/webhook_endpoints/${created.id}`), 404, 'NOT_FOUND');
    assertError(await context.request({ method: 'DELETE', url: `/v1/webhook_endpoints/${created.id}`, apiKey: sandboxOnly.apiKey }), 404, 'NOT_FOUND');
    assertError(await post(sandboxOnly, `/v1/webhook_endpoints/${created.id}/rotate_secret`), 404, 'NOT_FOUND');
    const ids = json<{ data: { webhookEndpoints: Endpoint[] } }>(await get(sandboxOnly, '/v1/webhook_endpoints')).data.webhookEndpoints.map((endpoint) => endpoint.id);
    assert.ok(!ids.includes(created.id));
  });
});
