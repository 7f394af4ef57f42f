import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertError } from '../../helpers/assertions.ts';
import { createEndpoint, merchantCalls, openWebhookEndpointSuite } from '../../helpers/webhooks.ts';

type Endpoint = Record<string, unknown> & { id: string; secret?: string };

describe('POST /v1/webhook_endpoints/:endpointId: changes', () => {
  let context: TestContext;
  let sandboxOnly: TestMerchant;

  before(async () => ({ context, sandboxOnly } = await openWebhookEndpointSuite()));
  after(async () => context.close());
  const { post } = merchantCalls(() => context);

  test('update: events, description, disable and re-enable', async () => {
    const created = await createEndpoint(context, sandboxOnly, { url: 'https://hooks.example.com/u', description: 'first' });
    const updated = json<{ data: Endpoint }>(
      await post(sandboxOnly, `/v1/webhook_endpoints/${created.id}`, { enabledEvents: ['PAYMENT_SUCCEEDED'], description: null, url: 'https://hooks.example.com/v2' }),
    ).data;
    assert.deepEqual(updated.enabledEvents, ['PAYMENT_SUCCEEDED']);
    assert.equal(updated.url, 'https://hooks.example.com/v2');
    assert.equal('description' in updated, false);
    const disabled = json<{ data: Endpoint }>(await post(sandboxOnly, `/v1/webhook_endpoints/${created.id}`, { status: 'DISABLED' })).data;
    assert.equal(disabled.status, 'DISABLED');
    assert.equal(disabled.disabledReason, 'MANUAL');
    const enabled = json<{ data: Endpoint }>(await post(sandboxOnly, `/v1/webhook_endpoints/${created.id}`, { status: 'ENABLED' })).data;
    assert.equal(enabled.status, 'ENABLED');
    assert.equal('disabledReason' in enabled, false);
    assertError(await post(sandboxOnly, `/v1/webhook_endpoints/${created.id}`, { livemode: true }), 400, 'WRONG_PARAMETER', 'livemode is not a recognised field');
  });
});
