import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertError } from '../../helpers/assertions.ts';
import { createEndpoint, merchantCalls, openWebhookEndpointSuite } from '../../helpers/webhooks.ts';

type Endpoint = Record<string, unknown> & { id: string; secret?: string };

describe('/v1/webhook_endpoints: modes and authentication', () => {
  let context: TestContext;
  let sandboxOnly: TestMerchant;
  let live: TestMerchant;

  before(async () => ({ context, sandboxOnly, live } = await openWebhookEndpointSuite()));
  after(async () => context.close());
  const { post, get } = merchantCalls(() => context);

  test('modes: omitted livemode means live (403 for sandbox-only merchants); live endpoints need https', async () => {
    assertError(await post(sandboxOnly, '/v1/webhook_endpoints', { url: 'https://hooks.example.com/x' }), 403, 'LIVE_MODE_NOT_ENABLED', 'livemode=false');
    assertError(await post(sandboxOnly, '/v1/webhook_endpoints?livemode=true', { url: 'https://hooks.example.com/x' }), 403, 'LIVE_MODE_NOT_ENABLED');
    assertError(await post(live, '/v1/webhook_endpoints', { url: 'http://hooks.example.com/x' }), 400, 'WRONG_PARAMETER', 'url must use https in live mode');
    const liveEndpoint = json<{ data: Endpoint }>(await post(live, '/v1/webhook_endpoints', { url: 'https://hooks.example.com/live' })).data;
    assert.equal(liveEndpoint.livemode, true);
    const sandboxEndpoint = await createEndpoint(context, live, { url: 'http://hooks.example.com/sandbox' });

    const both = json<{ data: { webhookEndpoints: Endpoint[] } }>(await get(live, '/v1/webhook_endpoints')).data.webhookEndpoints.map((endpoint) => endpoint.id);
    assert.deepEqual(both.sort(), [liveEndpoint.id, sandboxEndpoint.id].sort());
    const sandboxOnlyList = json<{ data: { webhookEndpoints: Endpoint[] } }>(await get(live, '/v1/webhook_endpoints?livemode=false')).data.webhookEndpoints.map((endpoint) => endpoint.id);
    assert.deepEqual(sandboxOnlyList, [sandboxEndpoint.id]);
    assertError(await get(live, `/v1/webhook_endpoints/${liveEndpoint.id}?livemode=false`), 404, 'NOT_FOUND');
    assert.equal((await get(live, `/v1/webhook_endpoints/${liveEndpoint.id}?livemode=true`)).statusCode, 200);
    assertError(await get(sandboxOnly, '/v1/webhook_endpoints?livemode=true'), 403, 'LIVE_MODE_NOT_ENABLED');
  });

  test('authentication is required', async () => {
    const response = await context.request({ method: 'GET', url: '/v1/webhook_endpoints' });
    assertError(response, 401, 'UNAUTHORIZED');
  });
});
